"""The founding model's stationary variance of the imbalance (linear-noise approximation):
its fast path and closed form, specialisations of :func:`symdelay.analysis.stochastic.variance`.

Near the symmetric equilibrium the fluctuations of the imbalances ``(x, w_1..w_L)`` (``x =
q1 - q2``, ``w_l = z1_l - z2_l``) form a closed Ornstein-Uhlenbeck process whose matrices
``A``, ``B`` are the model's own Jacobian and diffusion restricted to them
(:func:`symdelay.analysis.lna.imbalance_lna` on the transition table with ``mu, lam, theta,
gamma`` free, derived once per L: :func:`lna_matrices`). Their stationary covariance solves

    A Sigma + Sigma A^T + B = 0,

and ``Var(Q1 - Q2) / eta -> Sigma[0, 0]`` as ``eta -> oo``. ``B`` is positive definite, so
by Lyapunov's theorem a positive-definite solution exists iff ``A`` is Hurwitz: below the
Hopf threshold. The numeric solve is exact (rational arithmetic with python-flint) for
``L <= 12``; beyond, SciPy's ``solve_continuous_lyapunov`` in double precision followed by
iterative refinement with residuals in mpmath at ``dps`` digits (until the correction is
below ``10^-dps`` of the value); the closed form is solved by SymPy for ``L <= 2``.

>>> v = variance(L=1, mu=1, lam=1, theta=0, D=1)  # random routing: two independent M/M/oo
>>> v.var_x_over_eta                               # Var = 2 lam/mu
2
>>> print(variance(L=1, mu=1, lam=1, theta=2, D=1).to_json()["closed_form"])
2*lam*(D*lam*theta + D*mu + 1)/((D*mu + 1)*(lam*theta + mu))
"""

from __future__ import annotations

from functools import lru_cache

import mpmath
import numpy as np

from symdelay.analysis.stochastic import StationaryVariance, variance_parameters
from symdelay.core import symbols as S
from symdelay.core.checks import check_rates
from symdelay.core.errors import SymdelayInputError, VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.params import as_dps
from symdelay.core.precision import GUARD, workdps

__all__ = [
    "variance",
    "specialised_variance",
    "variance_closed_form",
    "lna_matrices",
    "closed_form_variance",
    "closed_form_singularity",
    "closed_form_theta_limit",
    "EXACT_MAX_L",
]

#: Largest L solved in exact rational arithmetic (beyond: SciPy in double precision).
EXACT_MAX_L = 12
#: Largest L for which a closed form is attempted.
CLOSED_FORM_MAX_L = 2


@lru_cache(maxsize=32)
def lna_matrices(L: int) -> tuple[sp.Matrix, sp.Matrix]:
    """``(A, B)`` of the imbalances ``(x, w_1..w_L)``, symbolic in ``mu, lam, theta,
    gamma``: the founding transition table's Jacobian and diffusion at its equilibrium,
    restricted to the antisymmetric subspace (:func:`symdelay.analysis.lna.imbalance_lna`,
    which checks that it is invariant)."""
    from symdelay.analysis.lna import imbalance_lna
    from symdelay.models.erlang.founding import FoundingModel

    lin = imbalance_lna(FoundingModel(L=L))
    return sp.ImmutableMatrix(lin.A), sp.ImmutableMatrix(lin.B)


def _symmetric_unknowns(n):
    names = {}
    Sig = sp.zeros(n, n)
    for i in range(n):
        for j in range(i, n):
            s = sp.Symbol(f"s_{i}_{j}")
            names[(i, j)] = s
            Sig[i, j] = Sig[j, i] = s
    return Sig, list(names.values())


@lru_cache(maxsize=8)
def closed_form_variance(L: int):
    """``Sigma[0,0]`` in closed form (in ``mu, lam, theta, D``), or ``None`` if ``L`` is
    above ``CLOSED_FORM_MAX_L``. Solved by SymPy from the symbolic Lyapunov equation."""
    if L > CLOSED_FORM_MAX_L:
        return None
    A, B = lna_matrices(L)
    Sig, unknowns = _symmetric_unknowns(L + 1)
    M = A * Sig + Sig * A.T + B
    eqs = [M[i, j] for i in range(L + 1) for j in range(i, L + 1)]
    sol = sp.solve(eqs, unknowns, dict=True)
    if len(sol) != 1:
        raise VerificationError(f"Lyapunov equation: expected one solution, got {len(sol)}")
    expr = sol[0][unknowns[0]].subs(S.gamma, sp.Integer(L) / S.D)
    return sp.factor(sp.simplify(expr))


def _exact_solve(A: sp.Matrix, B: sp.Matrix):
    """Solve ``A X + X A^T = -B`` exactly; ``None`` if the operator is singular."""
    import flint

    n = A.shape[0]
    K = flint.fmpq_mat(n * n, n * n)
    rhs = flint.fmpq_mat(n * n, 1)

    def q(v):
        v = sp.Rational(v)
        return flint.fmpq(int(v.p), int(v.q))

    for i in range(n):
        for j in range(n):
            row = i * n + j
            rhs[row, 0] = q(-B[i, j])
            for k in range(n):
                if A[i, k] != 0:  # (A X)_{ij} = sum_k A_ik X_kj
                    K[row, k * n + j] += q(A[i, k])
                if A[j, k] != 0:  # (X A^T)_{ij} = sum_k X_ik A_jk
                    K[row, i * n + k] += q(A[j, k])
    if K.det() == 0:
        return None
    x = K.solve(rhs)
    X = sp.Matrix(n, n, lambda i, j: sp.Rational(int(x[i * n + j, 0].p), int(x[i * n + j, 0].q)))
    return X


def _is_positive_definite(X: sp.Matrix) -> bool:
    return all(X[:k, :k].det() > 0 for k in range(1, X.shape[0] + 1))


def _abscissa(A: sp.Matrix) -> float:
    return float(np.max(np.linalg.eigvals(np.array(A.evalf(), dtype=float)).real))


def _refine(A: sp.Matrix, B: sp.Matrix, X0: np.ndarray, An: np.ndarray, dps: int, unstable):
    """Iterative refinement of a double-precision solution of ``A X + X A^T + B = 0``.

    Residuals are computed at ``dps + 20`` digits from the exact rational ``A`` and ``B``
    (``A`` is sparse: O(n^2) work), corrections solved in double precision; stops when the
    last correction is below ``10^-(dps+5)`` of ``max |X|``. Returns an mpmath matrix.
    """
    from scipy.linalg import solve_continuous_lyapunov

    n = A.shape[0]
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
                return mpmath.matrix(X)
            scale = 1 / rmax  # keep the double-precision solve away from underflow
            Rf = np.array([[float(v * scale) for v in row] for row in Rm])
            E = solve_continuous_lyapunov(An, -Rf)
            E = (E + E.T) / 2
            if not np.all(np.isfinite(E)):
                break
            for i in range(n):
                for j in range(n):
                    X[i][j] += mpmath.mpf(float(E[i, j])) * rmax
            size = max(abs(X[i][j]) for i in range(n) for j in range(n))
            step = mpmath.mpf(float(np.max(np.abs(E)))) * rmax
            if step <= tol * size:
                return mpmath.matrix(X)
            if previous is not None and step > previous / 2:
                break  # not contracting: too close to the threshold for double corrections
            previous = step
    raise SymdelayInputError(
        f"the Lyapunov equation is too ill-conditioned here (L={n - 1}) to give {dps} digits: "
        "choose a smaller --dps, or theta or lam further below the Hopf threshold"
    )


def variance(
    L=1, mu=1, lam=1, theta=2, D=1, *, dps=30, closed_form=True, force=False, kappa=None,
    method="auto",
) -> StationaryVariance:  # fmt: skip
    """The LNA stationary variance ``Var(Q1 - Q2)/eta`` of the founding model
    ``model(L, mu, lam, theta, D)`` (with ``kappa=``: the ``inflight`` model with those
    in-flight weights): a convenience calling :func:`symdelay.analysis.stochastic.variance`.

    Raises :class:`SymdelayInputError` at or above the Hopf threshold (the equilibrium is
    not stable, so there is no stationary variance).
    """
    from symdelay.analysis.stochastic import variance as entry
    from symdelay.models.erlang.stochastic.simulate import _founding_or_inflight

    model = _founding_or_inflight(L, mu, lam, theta, D, kappa)
    return entry(model, dps=dps, method=method, closed_form=closed_form, force=force)


def variance_closed_form(model):
    """The founding family's closed form of ``Var(Q1 - Q2)/eta`` in ``mu, lam, theta, D``
    (L <= 2; None otherwise): attached by the entry on every path."""
    L = getattr(model, "L", None)
    if not isinstance(L, int):
        return None
    return closed_form_variance(L)


def specialised_variance(model, *, dps=30, force=False) -> StationaryVariance | None:
    """The founding model's variance: the Lyapunov equation of the imbalances ``(x,
    w_1..w_L)`` (exact rational arithmetic for L <= 12, else double precision refined to
    ``dps`` digits). Declines (``None``) where a parameter is symbolic. The solve grows like
    L^2 (measured, L <= 100): refused over the shared budget unless ``force``.
    """
    from symdelay.core.budget import check_budget, power_cost
    from symdelay.models.delayed_routing import _state_names

    o = model.options
    if model.infinite or any(o[k] is None for k in ("mu", "lam", "theta", "D")):
        return None
    p = check_rates(o["L"], o["mu"], o["lam"], o["theta"], o["D"])
    L = p["L"]
    dps = as_dps(dps)
    check_budget(
        f"the stationary variance for L = {L}",
        power_cost(L, 3e-3, 2),
        force=force,
        shrink="a smaller --L",
    )
    A_s, B_s = lna_matrices(L)
    values = {S.mu: p["mu"], S.lam: p["lam"], S.theta: p["theta"], S.gamma: p["gamma"]}
    A, B = A_s.subs(values), B_s.subs(values)

    def unstable(detail):
        raise SymdelayInputError(
            f"no stationary variance for L={L}, mu={p['mu']}, lam={p['lam']}, "
            f"theta={p['theta']}, D={p['D']}: the equilibrium is at or above the Hopf "
            f"threshold ({detail}); choose a smaller theta or lam"
        )

    if L <= EXACT_MAX_L:
        X = _exact_solve(A, B)
        if X is None:
            unstable("the Lyapunov equation is singular: eigenvalues on the imaginary axis")
        if not _is_positive_definite(X):
            unstable(f"spectral abscissa of the difference Jacobian {_abscissa(A):.6g} >= 0")
        value, exact = X[0, 0], True
        how = "exact rational arithmetic"
    else:
        from scipy.linalg import solve_continuous_lyapunov

        a = _abscissa(A)
        if not a < 0:
            unstable(f"spectral abscissa of the difference Jacobian {a:.6g} >= 0")
        An, Bn = (np.array(M.evalf(), dtype=float) for M in (A, B))
        X = _refine(A, B, solve_continuous_lyapunov(An, -Bn), An, dps, unstable)
        value, exact = X[0, 0], False
        how = f"double precision refined to {dps} digits"
    q, z = _state_names(2, L)
    return StationaryVariance(
        parameters=variance_parameters(model),
        value=value,
        exact=exact,
        weights=(1, -1) + (0,) * (2 * L),
        states=tuple(q + [s for row in z for s in row]),
        dps=dps,
        sigma=X,
        A=A,
        B=B,
        coordinates=("q1-q2", *(f"z1_{ell}-z2_{ell}" for ell in range(1, L + 1))),
        method=f"Lyapunov equation of the imbalances (x, w_1..w_L), {how}",
        model_name=model.name,
    )


def closed_form_singularity(L: int):
    """The positive theta at which the closed-form variance blows up (a zero of its
    denominator, not of its numerator), solved by SymPy; ``None`` if there is none.

    >>> closed_form_singularity(1) is None, closed_form_singularity(2)
    (True, (D*mu + 2)**2/(D*lam))
    """
    cf = closed_form_variance(L)
    if cf is None:
        return None
    num, den = sp.fraction(sp.together(cf))
    pos = {s: sp.Symbol(s.name, positive=True) for s in (S.mu, S.lam, S.D)}
    roots = [
        r
        for r in sp.solve(den, S.theta)
        if sp.simplify(num.subs(S.theta, r)) != 0 and r.subs(pos).is_positive
    ]
    return sp.factor(roots[0]) if len(roots) == 1 else None


def closed_form_theta_limit(L: int):
    """``lim_{theta -> oo}`` of the closed-form variance (SymPy), or ``None``."""
    cf = closed_form_variance(L)
    if cf is None:
        return None
    p = {s: sp.Symbol(s.name, positive=True) for s in (S.mu, S.lam, S.theta, S.D)}
    lim = sp.limit(cf.subs(p), p[S.theta], sp.oo)
    return sp.simplify(lim.subs({v: k for k, v in p.items()}))
