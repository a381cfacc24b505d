"""The linear-noise approximation of any density-dependent family (Kurtz), from its table.

A model is the transition table of :mod:`.generated`: ``(name, jump nu, scaled rate
beta_nu(s))``. Its fluid limit is ``ds/dt = F(s) = sum_nu nu beta_nu(s)`` (:func:`drift`).
Near a stable equilibrium ``s*`` the scaled state is ``s* + xi/sqrt(eta)`` with
``d xi = A xi dt + B^{1/2} dW``, ``A = DF(s*)`` (:func:`jacobian`) and
``B = sum_nu nu nu^T beta_nu(s*)`` (:func:`diffusion_matrix`); the stationary covariance of
``xi`` (``Cov(X)/eta`` as ``eta -> oo``) solves the Lyapunov equation

    A Sigma + Sigma A^T + B = 0

(:func:`stationary_covariance`). It is solved EXACTLY over the rationals (the n(n+1)/2
symmetric unknowns, a linear system over QQ) when every entry is rational, else at ``dps``
digits with mpmath. ``A`` must be Hurwitz (decided exactly by Routh-Hurwitz on its
characteristic polynomial in the rational case, by eigenvalues at ``dps`` otherwise).

>>> import sympy as sp
>>> q, lam, mu = sp.symbols("q lam mu")
>>> table = [("arrival", [1], lam), ("service", [-1], mu * q)]
>>> drift([q], table)
Matrix([[lam - mu*q]])
>>> point = {q: 2, lam: 2, mu: 1}  # M/M/oo: Var(Q)/eta = lam/mu
>>> stationary_covariance(jacobian([q], table, point), diffusion_matrix([q], table, point))
Matrix([[2]])
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import mpmath
from sympy.polys.domains import QQ
from sympy.polys.matrices import DomainMatrix

from symdelay.analysis.simulate import check_table
from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.core.params import as_dps
from symdelay.core.result import Result

__all__ = [
    "drift",
    "jacobian",
    "diffusion_matrix",
    "stationary_covariance",
    "linear_noise",
    "LinearNoise",
    "antisymmetric_pairs",
    "imbalance_lna",
    "ImbalanceLNA",
    "float_lyapunov",
]


def drift(states: Sequence[sp.Symbol], transitions) -> sp.Matrix:
    """The fluid drift ``F(s) = sum_nu nu beta_nu(s)`` (a column, in the order of ``states``)."""
    states, _, jumps, rates = check_table(states, transitions)
    F = sp.zeros(len(states), 1)
    for nu, beta in zip(jumps, rates):
        for i, c in enumerate(nu):
            if c:
                F[i] += c * beta
    return F


def _point(point: Mapping | None) -> dict:
    if point is None:
        return {}
    if not isinstance(point, Mapping):
        raise SymdelayInputError(f"point must map symbols to numbers, got {point!r}")
    out = {}
    for k, v in point.items():
        if not isinstance(k, sp.Symbol):
            raise SymdelayInputError(f"point keys must be SymPy symbols, got {k!r}")
        if isinstance(v, bool):
            raise SymdelayInputError(f"{k} must be a number, got {v!r}")
        if isinstance(v, float | numbers.Integral | Fraction):  # the one rule: exact value
            from symdelay.core.params import exact_number

            try:
                v = exact_number(str(k), v)
            except SymdelayInputError:
                v = None
        elif isinstance(v, sp.Basic):
            v = v if v.is_number else None
        else:
            v = None
        if v is None:
            raise SymdelayInputError(f"{k} must be a finite real number, got {point[k]!r}")
        out[k] = v
    return out


def _clean(M: sp.Matrix) -> sp.Matrix:
    """Numbers that are rational in disguise (``exp(-2)/(2 exp(-2))``) made Rational."""

    def one(e):
        if e.is_Rational or e.free_symbols:
            return e
        s = sp.simplify(e)
        return s if s.is_Rational else e

    return M.applyfunc(one)


def jacobian(states: Sequence[sp.Symbol], transitions, point: Mapping | None = None):
    """``DF`` (symbolic), or ``DF(point)`` when ``point`` maps the states (and any
    parameters) to numbers."""
    states = tuple(states)
    J = drift(states, transitions).jacobian(list(states))
    return J if point is None else _clean(J.xreplace(_point(point)))


def diffusion_matrix(states: Sequence[sp.Symbol], transitions, point: Mapping | None = None):
    """``B = sum_nu nu nu^T beta_nu``, at ``point`` (states and parameters -> numbers) when
    given, else symbolic."""
    states, _, jumps, rates = check_table(states, transitions)
    pt = _point(point)
    n = len(states)
    B = sp.zeros(n, n)
    for nu, beta in zip(jumps, rates):
        b = beta.xreplace(pt) if pt else beta
        for i in range(n):
            if nu[i]:
                for j in range(n):
                    if nu[j]:
                        B[i, j] += nu[i] * nu[j] * b
    return B if point is None else _clean(B)


def _check_square(A, B) -> tuple[sp.Matrix, sp.Matrix]:
    try:
        A, B = sp.Matrix(A), sp.Matrix(B)
    except (TypeError, ValueError, sp.SympifyError):
        raise SymdelayInputError("A and B must be square matrices of numbers") from None
    n = A.shape[0]
    if A.shape != (n, n) or B.shape != (n, n) or n == 0:
        raise SymdelayInputError(f"A and B must be square of one size, got {A.shape}, {B.shape}")
    if (B - B.T).applyfunc(sp.simplify) != sp.zeros(n, n):
        raise SymdelayInputError("B must be symmetric (a diffusion matrix)")
    free = A.free_symbols | B.free_symbols
    if free:
        raise SymdelayInputError(
            f"A and B must be numeric: substitute values for {', '.join(sorted(map(str, free)))}"
        )
    for e in list(A) + list(B):
        if e.is_real is False or e.has(sp.zoo, sp.oo, -sp.oo, sp.nan):
            raise SymdelayInputError(f"A and B must have finite real entries, got {e}")
    return _clean(A), _clean(B)


def _pairs(n):
    idx = {}
    for i in range(n):
        for j in range(i, n):
            idx[(i, j)] = len(idx)
    return idx


def _lyapunov_system(A, B, n, zero, conv):
    """Rows of ``(A S + S A^T + B)_{ij} = 0`` for ``i <= j`` in the symmetric unknowns:
    returns ``(K, rhs)`` with ``K s = rhs`` (``rhs = -B``), entries made by ``conv``."""
    idx = _pairs(n)
    m = len(idx)
    K = [[zero] * m for _ in range(m)]
    rhs = [zero] * m
    a = [[conv(A[i, j]) for j in range(n)] for i in range(n)]

    def u(i, j):
        return idx[(i, j) if i <= j else (j, i)]

    for (i, j), row in idx.items():
        rhs[row] = -conv(B[i, j])
        for k in range(n):
            if a[i][k]:  # (A S)_ij = sum_k A_ik S_kj
                K[row][u(k, j)] += a[i][k]
            if a[j][k]:  # (S A^T)_ij = sum_k S_ik A_jk
                K[row][u(i, k)] += a[j][k]
    return K, rhs, idx


def _unpack(x, idx, n, make):
    S = sp.zeros(n, n)
    for (i, j), k in idx.items():
        S[i, j] = S[j, i] = make(x[k])
    return S


def _exact(A, B) -> sp.Matrix:
    from symdelay.analysis.routh import routh_hurwitz

    n = A.shape[0]
    r = sp.Dummy("r")
    poly = DomainMatrix.from_Matrix(A).convert_to(QQ).charpoly()
    res = routh_hurwitz(sp.Poly([QQ.to_sympy(c) for c in poly], r), r)
    if res.is_stable is not True:
        raise SymdelayInputError(
            "A is not Hurwitz (Routh-Hurwitz: an eigenvalue has real part >= 0), so there is "
            "no stationary covariance; choose parameters below the stability boundary"
        )
    K, rhs, idx = _lyapunov_system(A, B, n, QQ.zero, lambda e: QQ.from_sympy(sp.Rational(e)))
    m = len(idx)
    Km = DomainMatrix(K, (m, m), QQ)
    b = DomainMatrix([[v] for v in rhs], (m, 1), QQ)
    x = Km.lu_solve(b).to_Matrix()
    return _unpack(list(x), idx, n, sp.Rational)


def _numeric(A, B, dps: int) -> sp.Matrix:
    n = A.shape[0]
    with mpmath.workdps(dps + 10):
        Am = mpmath.matrix(
            [[mpmath.mpf(sp.N(A[i, j], dps + 10)) for j in range(n)] for i in range(n)]
        )
        ev = mpmath.eig(Am, left=False, right=False)
        abscissa = max(mpmath.re(e) for e in ev)
        scale = max(mpmath.mpf(1), mpmath.mnorm(Am, 1))
        if not abscissa < -scale * mpmath.mpf(10) ** (-(dps // 2)):
            raise SymdelayInputError(
                f"A is not Hurwitz at {dps} digits (spectral abscissa "
                f"{mpmath.nstr(abscissa, 8)}), so there is no stationary covariance; choose "
                "parameters below the stability boundary"
            )
        K, rhs, idx = _lyapunov_system(
            A, B, n, mpmath.mpf(0), lambda e: mpmath.mpf(sp.N(e, dps + 10))
        )
        x = mpmath.lu_solve(mpmath.matrix(K), mpmath.matrix(rhs))
        return _unpack([x[k] for k in range(len(idx))], idx, n, lambda v: sp.Float(v, dps))


def stationary_covariance(A, B, *, dps=30) -> sp.Matrix:
    """The symmetric ``Sigma`` with ``A Sigma + Sigma A^T + B = 0``.

    Exact (a Matrix of Rationals) when every entry of ``A`` and ``B`` is rational; otherwise
    ``Float`` entries computed with ``dps`` digits (mpmath, 10 guard digits). Raises
    :class:`SymdelayInputError` when ``A`` is not Hurwitz (no stationary covariance).
    """
    dps = as_dps(dps)
    A, B = _check_square(A, B)
    if all(e.is_Rational for e in list(A) + list(B)):
        return _exact(A, B)
    return _numeric(A, B, dps)


@dataclass
class LinearNoise(Result):
    """``A = DF(s*)``, ``B`` and the stationary covariance ``sigma`` at ``point``."""

    A: sp.Matrix
    B: sp.Matrix
    sigma: sp.Matrix
    exact: bool

    def variance_of(self, weights: Sequence) -> sp.Expr:
        """``Var(w . xi) = w^T Sigma w`` (e.g. ``w = (1, -1, 0, ...)`` for ``q1 - q2``)."""
        w = sp.Matrix(list(weights))
        if w.shape != (self.sigma.shape[0], 1):
            raise SymdelayInputError(
                f"weights must have {self.sigma.shape[0]} entries, got {len(w)}"
            )
        return (w.T * self.sigma * w)[0, 0]


def linear_noise(states, transitions, point: Mapping, *, dps=30) -> LinearNoise:
    """:func:`jacobian`, :func:`diffusion_matrix` and :func:`stationary_covariance` at an
    equilibrium ``point`` (states and parameters -> numbers). The drift must vanish there."""
    states = tuple(states)
    F = _clean(drift(states, transitions).xreplace(_point(point)))
    if F.free_symbols:
        raise SymdelayInputError(
            f"point must give values for {', '.join(sorted(map(str, F.free_symbols)))}"
        )
    dps = as_dps(dps)
    tol = sp.Float(10) ** (-(dps // 2))
    bad = [i for i, f in enumerate(F) if f != 0 and not abs(sp.N(f, dps)) < tol]
    if bad:
        raise SymdelayInputError(
            f"point is not an equilibrium: the drift of {states[bad[0]]} is {F[bad[0]]} != 0"
        )
    A = jacobian(states, transitions, point)
    B = diffusion_matrix(states, transitions, point)
    S = stationary_covariance(A, B, dps=dps)
    return LinearNoise(A, B, S, all(e.is_Rational for e in S))


# ---------------------------------------------------------------- a model's imbalance modes


def antisymmetric_pairs(model) -> tuple | None:
    """The pairs ``(a, P(a))`` of a model whose symmetry swaps states two by two (its
    cycles all of length 2; fixed states allowed), one per 2-cycle in the order of the
    states; ``None`` otherwise."""
    perm = model.permutation
    if perm is None:
        return None
    pairs = []
    for a, b in enumerate(perm):
        if a == b:
            continue
        if perm[b] != a:
            return None  # a longer cycle
        if a < b:
            pairs.append((a, b))
    return tuple(pairs) or None


@dataclass(frozen=True)
class ImbalanceLNA:
    """The linear-noise data of a model restricted to the coordinates of its imbalances.

    ``A``, ``B``: the Jacobian and the diffusion matrix at the equilibrium (SymPy, in the
    model's free parameters) in ``coordinates``: ``y_k = s_a - s_P(a)`` for the pairs of a
    symmetry made of 2-cycles (the antisymmetric subspace, invariant under the Jacobian:
    ``V^T J = A V^T`` is checked, so ``y`` is a closed Ornstein-Uhlenbeck process), else the
    states themselves. ``x``: the weights of the first imbalance (``q1 - q2``) in these
    coordinates. ``parameters``: the free parameters, in the order :meth:`numeric` takes
    them."""

    A: sp.Matrix
    B: sp.Matrix
    coordinates: tuple
    x: tuple
    parameters: tuple
    projected: bool

    def numeric(self):
        """``f(*values) -> (A, B)`` as float arrays (lambdified once)."""
        import numpy as np

        f = sp.lambdify(self.parameters, [self.A, self.B], "numpy")

        def at(*values):
            A, B = f(*values)
            return np.asarray(A, dtype=float), np.asarray(B, dtype=float)

        return at

    def exact(self, values: Mapping) -> tuple[sp.Matrix, sp.Matrix]:
        """``(A, B)`` at exact ``values`` (parameter -> number)."""
        return self.A.xreplace(values), self.B.xreplace(values)


def imbalance_lna(model) -> ImbalanceLNA:
    """The model's own Jacobian and diffusion at its equilibrium (:attr:`Model.jacobian`,
    :attr:`Model.diffusion`) in the coordinates of its imbalances (:class:`ImbalanceLNA`),
    derived once and cached on the model: the variance, the spectrum and the in-flight
    criteria read them here."""
    return model.cached("imbalance linear noise", lambda: _imbalance_lna(model))


def _imbalance_lna(model) -> ImbalanceLNA:
    from symdelay.core.errors import VerificationError

    J, Bf = sp.Matrix(model.jacobian), sp.Matrix(model.diffusion)
    names = [s.name for s in model.states]
    params = tuple(model.free_parameters)
    pairs = antisymmetric_pairs(model)
    if pairs is None:  # the imbalance of the first state the symmetry moves and its image
        perm = model.permutation
        x = None
        if perm is not None:
            a = next(i for i, j in enumerate(perm) if i != j)
            x = tuple(1 if i == a else -1 if i == perm[a] else 0 for i in range(len(names)))
        return ImbalanceLNA(J, Bf, tuple(names), x, params, False)
    n = len(names)
    V = sp.zeros(n, len(pairs))
    for k, (a, b) in enumerate(pairs):
        V[a, k], V[b, k] = 1, -1
    A = (V.T * J * V / 2).applyfunc(sp.expand)
    B = (V.T * Bf * V).applyfunc(sp.expand)
    if any(sp.expand(e) != 0 for e in V.T * J - A * V.T):
        raise VerificationError(
            f"{model.name}: the imbalances are not a closed linear subsystem (V^T J != A V^T)"
        )
    coords = tuple(f"{names[a]}-{names[b]}" for a, b in pairs)
    x = (1,) + (0,) * (len(pairs) - 1)
    return ImbalanceLNA(A, B, coords, x, params, True)


def float_lyapunov(A, B):
    """``Sigma`` with ``A Sigma + Sigma A^T + B = 0`` in double precision (SciPy), or
    ``None`` where doubles cannot be trusted: a non-finite entry, or a residual above
    ``1e-8 max |B|`` (the caller then solves exactly, :func:`stationary_covariance`). ``A``
    must be Hurwitz (the caller checks)."""
    import warnings

    import numpy as np
    from scipy.linalg import solve_continuous_lyapunov

    if not (np.all(np.isfinite(A)) and np.all(np.isfinite(B))):
        return None
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # judged by the residual below
        S = solve_continuous_lyapunov(A, -B)
        if not np.all(np.isfinite(S)):
            return None
        residual = np.max(np.abs(A @ S + S @ A.T + B))
    if not residual <= 1e-8 * max(float(np.max(np.abs(B))), 1e-300):
        return None
    return S
