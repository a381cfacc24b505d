"""The linear-noise approximation of a model (Kurtz): the Lyapunov equation of its
fluctuations.

Near a stable equilibrium ``s*`` the scaled state of a density-dependent family is
``s* + xi/sqrt(eta)`` with ``d xi = A xi dt + B^{1/2} dW``, ``A`` the model's Jacobian at
the equilibrium (:attr:`Model.jacobian`) and ``B = sum_nu nu nu^T beta_nu(s*)`` its
diffusion matrix (:attr:`Model.diffusion`); the stationary covariance of ``xi``
(``Cov(X)/eta`` as ``eta -> oo``) solves the Lyapunov equation

    A Sigma + Sigma A^T + B = 0

(:func:`stationary_covariance`), EXACTLY over the rationals (the n(n+1)/2 symmetric
unknowns, a linear system over QQ) when every entry is rational, else at ``dps`` digits with
mpmath. ``A`` must be Hurwitz (decided exactly by Routh-Hurwitz on its characteristic
polynomial in the rational case, by eigenvalues at ``dps`` otherwise).
:func:`imbalance_lna` restricts ``A`` and ``B`` to the imbalances of a symmetric model (the
variance's founding fast path, the spectrum and the in-flight criteria read them there).

>>> import sympy as sp
>>> stationary_covariance(sp.Matrix([[-1]]), sp.Matrix([[4]]))  # M/M/oo at q* = 2: lam/mu
Matrix([[2]])
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import flint
import mpmath

from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.core.params import as_dps
from symdelay.core.precision import GUARD, work_dps, workdps

__all__ = [
    "stationary_covariance",
    "antisymmetric_pairs",
    "imbalance_lna",
    "ImbalanceLNA",
    "float_lyapunov",
]


def _clean(M: sp.Matrix) -> sp.Matrix:
    """Numbers that are rational in disguise (``exp(-2)/(2 exp(-2))``) made Rational."""

    def one(e):
        if e.is_Rational or e.free_symbols:
            return e
        s = sp.simplify(e)
        return s if s.is_Rational else e

    return M.applyfunc(one)


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


NOT_HURWITZ = (
    "A is not Hurwitz (an eigenvalue has real part >= 0), so there is no stationary "
    "covariance; choose parameters below the stability boundary"
)


def _positive_definite(M: flint.fmpq_mat) -> bool:
    """Every leading principal minor positive (exact)."""
    n = M.nrows()
    return all(
        flint.fmpq_mat(k, k, [M[i, j] for i in range(k) for j in range(k)]).det() > 0
        for k in range(1, n + 1)
    )


def _exact(A, B) -> sp.Matrix:
    """The rational solve (Flint) of the symmetric unknowns. ``A`` is Hurwitz iff the
    solution exists and is positive definite where ``B`` is (Lyapunov's theorem), else the
    exact Routh-Hurwitz test on its characteristic polynomial decides."""
    from symdelay.analysis.routh import routh_hurwitz

    n = A.shape[0]
    q = lambda e: flint.fmpq(int(sp.Rational(e).p), int(sp.Rational(e).q))  # noqa: E731
    K, rhs, idx = _lyapunov_system(A, B, n, flint.fmpq(0), q)
    m = len(idx)
    try:
        x = flint.fmpq_mat(m, m, [v for row in K for v in row]).solve(flint.fmpq_mat(m, 1, rhs))
    except ZeroDivisionError:  # a pair of eigenvalues with zero sum: not Hurwitz
        raise SymdelayInputError(NOT_HURWITZ + " (the Lyapunov equation is singular)") from None
    X = flint.fmpq_mat(
        n, n, [x[idx[(min(i, j), max(i, j))], 0] for i in range(n) for j in range(n)]
    )
    Bq = flint.fmpq_mat(n, n, [q(B[i, j]) for i in range(n) for j in range(n)])
    if _positive_definite(Bq):
        hurwitz = _positive_definite(X)
    else:
        Aq = flint.fmpq_mat(n, n, [q(A[i, j]) for i in range(n) for j in range(n)])
        r = sp.Dummy("r")
        coeffs = [sp.Rational(int(c.p), int(c.q)) for c in reversed(Aq.charpoly().coeffs())]
        hurwitz = routh_hurwitz(sp.Poly(coeffs, r), r).is_stable is True
    if not hurwitz:
        raise SymdelayInputError(NOT_HURWITZ)
    return _unpack([x[k, 0] for k in range(m)], idx, n, lambda v: sp.Rational(int(v.p), int(v.q)))


def _numeric(A, B, dps: int) -> sp.Matrix:
    n = A.shape[0]
    with workdps(dps):
        Am = mpmath.matrix([[mpmath.mpf(sp.N(A[i, j], work_dps(dps))) for j in range(n)]
                            for i in range(n)])  # fmt: skip
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
            A, B, n, mpmath.mpf(0), lambda e: mpmath.mpf(sp.N(e, work_dps(dps)))
        )
        x = mpmath.lu_solve(mpmath.matrix(K), mpmath.matrix(rhs))
        return _unpack([x[k] for k in range(len(idx))], idx, n, lambda v: sp.Float(v, dps))


def _refined(A, B, dps: int) -> sp.Matrix:
    """Iterative refinement of SciPy's double-precision solution for rational ``A``, ``B``
    too large for the exact solve: residuals at ``dps + 2 GUARD`` digits from the exact
    entries (``A`` sparse: O(n^2) work), corrections in double precision, until the last
    one is below ``10^-(dps+5)`` of ``max |X|``."""
    import numpy as np
    from scipy.linalg import solve_continuous_lyapunov

    n = A.shape[0]
    An, Bn = (np.array(M.evalf(), dtype=float) for M in (A, B))
    if not float(np.max(np.linalg.eigvals(An).real)) < 0:
        raise SymdelayInputError(NOT_HURWITZ)
    X0 = solve_continuous_lyapunov(An, -Bn)
    with workdps(dps, 2 * GUARD):

        def mp(v):
            v = sp.Rational(v)
            return mpmath.mpf(int(v.p)) / int(v.q)

        nz = [(i, k, mp(A[i, k])) for i in range(n) for k in range(n) if A[i, k] != 0]
        Bm = [[mp(B[i, j]) for j in range(n)] for i in range(n)]
        X0 = (X0 + X0.T) / 2  # X is symmetric (the residual below relies on it)
        X = [[mpmath.mpf(float(X0[i, j])) for j in range(n)] for i in range(n)]
        tol = mpmath.mpf(10) ** (-(dps + 5))
        previous = None
        for _ in range(4 + dps // 5):
            AX = [[mpmath.mpf(0)] * n for _ in range(n)]
            for i, k, a in nz:
                row, xk = AX[i], X[k]
                for j in range(n):
                    row[j] += a * xk[j]
            Rm = [[AX[i][j] + AX[j][i] + Bm[i][j] for j in range(n)] for i in range(n)]
            rmax = max(abs(v) for row in Rm for v in row)
            if rmax == 0:
                break
            scale = 1 / rmax  # keep the double-precision solve away from underflow
            E = solve_continuous_lyapunov(An, -np.array([[float(v * scale) for v in row]
                                                         for row in Rm]))  # fmt: skip
            E = (E + E.T) / 2
            if not np.all(np.isfinite(E)):
                raise SymdelayInputError(TOO_ILL_CONDITIONED.format(n=n, dps=dps))
            for i in range(n):
                for j in range(n):
                    X[i][j] += mpmath.mpf(float(E[i, j])) * rmax
            size = max(abs(X[i][j]) for i in range(n) for j in range(n))
            step = mpmath.mpf(float(np.max(np.abs(E)))) * rmax
            if step <= tol * size:
                break
            if previous is not None and step > previous / 2:  # not contracting
                raise SymdelayInputError(TOO_ILL_CONDITIONED.format(n=n, dps=dps))
            previous = step
        else:
            raise SymdelayInputError(TOO_ILL_CONDITIONED.format(n=n, dps=dps))
        return sp.Matrix(n, n, lambda i, j: sp.Float(X[i][j], work_dps(dps)))


TOO_ILL_CONDITIONED = (
    "the Lyapunov equation ({n} unknowns a side) is too ill-conditioned here to give {dps} "
    "digits: choose a smaller --dps, or parameters further from the stability boundary"
)


def stationary_covariance(A, B, *, dps=30, exact: bool | None = None) -> sp.Matrix:
    """The symmetric ``Sigma`` with ``A Sigma + Sigma A^T + B = 0``.

    Exact (a Matrix of Rationals) when every entry of ``A`` and ``B`` is rational, unless
    ``exact=False`` (then SciPy's solution refined to ``dps`` digits, for large systems);
    otherwise ``Float`` entries computed with ``dps`` digits (mpmath, 10 guard digits).
    Raises :class:`SymdelayInputError` when ``A`` is not Hurwitz (no stationary
    covariance).
    """
    dps = as_dps(dps)
    A, B = _check_square(A, B)
    if all(e.is_Rational for e in list(A) + list(B)):
        return _refined(A, B, dps) if exact is False else _exact(A, B)
    return _numeric(A, B, dps)


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

    def numeric(self, order=None):
        """``f(*values) -> (A, B)`` as float arrays, lambdified once; the values of the
        parameters named in ``order`` (default :attr:`parameters`)."""
        import numpy as np

        syms = self.parameters
        if order is not None:
            by_name = {s.name: s for s in self.parameters}
            syms = [by_name[name] for name in order]
        n = self.A.rows
        f = sp.lambdify(syms, list(self.A) + list(self.B), "math")

        def at(*values):
            flat = np.array(f(*values), dtype=float)
            return flat[: n * n].reshape(n, n), flat[n * n :].reshape(n, n)

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

    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # judged by the residual below
        try:
            S = solve_continuous_lyapunov(A, -B)
        except (ValueError, np.linalg.LinAlgError):  # non-finite entries
            return None
        residual = np.abs(A @ S + S @ A.T + B).max()
    if not residual <= 1e-8 * max(float(np.abs(B).max()), 1e-300):  # NaN fails too
        return None
    return S
