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

import numpy as np

from symdelay.analysis.stochastic import StationaryVariance, variance_parameters
from symdelay.core import symbols as S
from symdelay.core.checks import check_rates
from symdelay.core.errors import SymdelayInputError, VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.params import as_dps
from symdelay.models.erlang.loose import founding_doc, founding_or_inflight

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


@founding_doc
def variance(
    L=1, mu=1, lam=1, theta=2, D=1, *, dps=30, closed_form=True, force=False, kappa=None,
    method="auto",
) -> StationaryVariance:  # fmt: skip
    """The linear-noise stationary variance ``Var(Q1 - Q2)/eta`` of the founding model: the
    convenience of :func:`symdelay.variance` on ``build_model("erlang", L=L, ...)``.

    Parameters
    ----------
    L : int, default 1
        The number of Erlang phases of the delay, an integer ``>= 1``.
    %(rates)s
    theta : number or str, default 2
        The routing sensitivity (real), below the Hopf threshold.
    %(kappa)s
    dps, closed_form, force, method
        As for :func:`symdelay.variance` (``method="auto"``: the difference-mode Lyapunov
        solve; the closed form exists for ``L <= 2``).

    Returns
    -------
    StationaryVariance
        The exact value and its decimal ``var_x_over_eta``.

    Raises
    ------
    SymdelayInputError
        At or above the Hopf threshold (the equilibrium is not stable, so there is no
        stationary variance).

    Examples
    --------
    >>> variance(1, 1, 1, 2, 1).value
    4/3
    """
    from symdelay.analysis.stochastic import variance as entry

    model = founding_or_inflight(L, mu, lam, theta, D, kappa)
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
    from symdelay.analysis.lna import stationary_covariance
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
    from symdelay.analysis.stability import require_stable

    require_stable(model, "stationary variance")  # the one verdict at this point
    A_s, B_s = lna_matrices(L)
    values = {S.mu: p["mu"], S.lam: p["lam"], S.theta: p["theta"], S.gamma: p["gamma"]}
    A, B = A_s.xreplace(values), B_s.xreplace(values)
    exact = L <= EXACT_MAX_L
    try:
        X = stationary_covariance(A, B, dps=dps, exact=exact)
    except SymdelayInputError as exc:
        if "Hurwitz" not in str(exc):
            raise
        if "singular" in str(exc):
            detail = "the Lyapunov equation is singular: eigenvalues on the imaginary axis"
        else:
            a = float(np.max(np.linalg.eigvals(np.array(A.evalf(), dtype=float)).real))
            detail = f"spectral abscissa of the difference Jacobian {a:.6g} >= 0"
        raise SymdelayInputError(
            f"no stationary variance for L={L}, mu={p['mu']}, lam={p['lam']}, "
            f"theta={p['theta']}, D={p['D']}: the equilibrium is at or above the Hopf "
            f"threshold ({detail}); choose a smaller theta or lam"
        ) from None
    value = X[0, 0]
    how = "exact rational arithmetic" if exact else f"double precision refined to {dps} digits"
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
