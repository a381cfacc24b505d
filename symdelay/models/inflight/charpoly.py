"""The difference mode when the dispatcher counts jobs in flight, derived for symbolic L.

The dispatcher routes on ``q_i + sum_l kappa_l z_{i,l}``. In the difference coordinates
``x = q1 - q2``, ``w_l = z_{1,l} - z_{2,l}`` the exact nonlinear system is

    x' = gamma w_L - mu x,
    w_1' = -2 lam tanh(theta (x + sum_l kappa_l w_l) / 2) - gamma w_1,
    w_l' = gamma (w_{l-1} - w_l),

so the Jacobian is the founding one, ``J0``, plus the rank-one term
``-lam theta e_{w_1} k^T`` with ``k = (0, kappa_1, ..., kappa_L)``. The matrix determinant
lemma gives ``det(rI - J) = P0(r) (1 + lam theta k^T (rI - J0)^{-1} e_{w_1})``; SymPy solves
``(rI - J0) u = e_{w_1}`` (a first-order recurrence, ``rsolve``) and sums the geometric
series, for symbolic L:

>>> sp.factor(sp.expand(inflight_polynomial(2) - characteristic_polynomial(2)))
kappa*lam*theta*(2*gamma + r)*(mu + r)
>>> inflight_polynomial(1, kappa=1).expand() == sp.expand(
...     (r + mu) * (r + gamma) + lam * theta * gamma + lam * theta * (r + mu))
True

With one weight for every phase the series is ``((r + gamma)^L - gamma^L) / r``: the
factor ``1/r`` is spurious. Clearing it multiplies the equation by ``r`` and adds the root
``r = 0``, which is not an eigenvalue: ``(r + gamma)^L - gamma^L`` vanishes at ``r = 0``
(it is ``r sum_j (r + gamma)^j gamma^(L-1-j)``), so the quotient is a polynomial of degree
``L - 1`` and the characteristic polynomial keeps degree ``L + 1``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from symdelay.core.derivation import Derivation, require_equal, require_zero
from symdelay.core.errors import SymdelayInputError, VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.params import as_L
from symdelay.core.result import Result
from symdelay.core.symbols import D, L, gamma, lam, mu, positive_versions, r, theta
from symdelay.models.erlang.charpoly import (
    characteristic_polynomial,
    explicit_characteristic_polynomial,
)

__all__ = [
    "kappa",
    "kappa_symbols",
    "derive_inflight_equation",
    "inflight_polynomial",
    "inflight_limit",
    "difference_jacobian",
    "nonlinear_difference_rhs",
    "verify_inflight_determinant",
    "InflightDeterminantCheck",
]

#: The in-flight weight (one weight for every phase).
kappa = sp.Symbol("kappa")

_k = sp.Symbol("k", integer=True, positive=True)
_KAP = sp.IndexedBase("kappa")
_j = sp.Symbol("j", integer=True, nonnegative=True)


def kappa_symbols(n: int) -> list[sp.Symbol]:
    """Per-phase weights ``kappa_1 .. kappa_n``."""
    return [sp.Symbol(f"kappa_{i + 1}") for i in range(n)]


def _weights(n: int, weights):
    if weights is None:
        return [kappa] * n
    if isinstance(weights, (list, tuple)):
        if len(weights) != n:
            raise SymdelayInputError(f"give one weight or {n} weights (one per phase)")
        return [sp.sympify(w) for w in weights]
    return [sp.sympify(weights)] * n


def nonlinear_difference_rhs(n: int, weights=None, *, mu=mu, lam=lam, theta=theta, gamma=gamma):
    """State ``(x, w_1..w_n)`` and the exact (tanh) right-hand side of the difference mode."""
    x = sp.Symbol("x")
    w = [sp.Symbol(f"w_{i + 1}") for i in range(n)]
    kap = _weights(n, weights)
    observed = x + sp.Add(*[k * wi for k, wi in zip(kap, w)])
    rhs = [gamma * w[-1] - mu * x, -2 * lam * sp.tanh(theta * observed / 2) - gamma * w[0]]
    rhs += [gamma * (w[i - 1] - w[i]) for i in range(1, n)]
    return [x, *w], rhs


def difference_jacobian(n: int, weights=None, **kw) -> sp.Matrix:
    """Jacobian of :func:`nonlinear_difference_rhs` at the origin (differentiated by SymPy)."""
    state, rhs = nonlinear_difference_rhs(n, weights, **kw)
    J = sp.Matrix(rhs).jacobian(state)
    return J.subs(dict.fromkeys(state, 0)).applyfunc(sp.simplify)


@cache
def derive_inflight_equation() -> Derivation:
    """Derive the difference-mode characteristic polynomial for symbolic L and weights.

    Steps: the rank-one structure of the Jacobian; the solution ``u`` of
    ``(rI - J0) u = e_{w_1}`` from the recurrence ``(r + gamma) u_k = gamma u_{k-1}``
    (``rsolve``) and the ``x`` and ``w_1`` rows; the matrix determinant lemma; the weighted
    sum for per-phase weights; the geometric sum for one weight, and the cancellation of its
    spurious factor ``1/r``. ``d.result`` is the polynomial with one weight ``kappa``.
    """
    d = Derivation("Difference mode with in-flight weights, general L")
    Lp = positive_versions(L)[L]
    P0 = characteristic_polynomial(L).subs(L, Lp)
    d.add(
        "structure",
        "The Jacobian is the founding one plus a rank-one term: J = J_0 - lam theta e_{w_1} "
        "k^T, k = (0, kappa_1, ..., kappa_L), so det(rI - J) = P_0(r) (1 + lam theta k^T "
        "(rI - J_0)^{-1} e_{w_1}) (matrix determinant lemma), with",
        sp.Eq(sp.Symbol("P_0"), P0),
    )
    u = sp.Function("u")
    recurrence = (r + gamma) * u(_k) - gamma * u(_k - 1)
    sol = sp.rsolve(recurrence, u(_k), {u(1): sp.Symbol("u_1")})
    if sol is None:
        raise VerificationError("rsolve found no solution of the delay recurrence")
    sol = sp.powsimp(sp.simplify(sol))
    require_zero(
        recurrence.subs(u(_k), sol).subs(u(_k - 1), sol.subs(_k, _k - 1)),
        "rsolve solution satisfies the recurrence",
    )
    d.add(
        "recurrence",
        "Rows w_2..w_L of (rI - J_0) u = e_{w_1} are a first-order recurrence; rsolve gives",
        sp.Eq(u(_k), sol),
        "substituted back into the recurrence",
    )
    u1 = sp.Symbol("u_1")
    ux = gamma * sol.subs(_k, Lp) / (r + mu)  # row x: (r + mu) u_x = gamma u_L
    row_w1 = sp.Eq(lam * theta * ux + (r + gamma) * u1, 1)
    u1_value = sp.solve(row_w1, u1)[0]
    require_zero(
        sp.simplify(sp.powsimp(u1_value * P0 / ((r + mu) * (r + gamma) ** (Lp - 1)), force=True))
        - 1,
        "u_1 = (r + mu)(r + gamma)^(L-1) / P_0",
    )
    d.add(
        "u1",
        "Row x gives u_x = gamma u_L/(r + mu); row w_1, lam theta u_x + (r + gamma) u_1 = 1, "
        "then gives",
        sp.Eq(u1, (r + mu) * (r + gamma) ** (Lp - 1) / P0),
        "solve(...) and simplify",
    )
    ku = sp.Sum(_KAP[_k] * sol.subs(u1, u1_value), (_k, 1, Lp))
    per_phase = P0 + lam * theta * (r + mu) * sp.Sum(
        _KAP[_k] * gamma ** (_k - 1) * (r + gamma) ** (Lp - _k), (_k, 1, Lp)
    )
    d.add(
        "per_phase",
        "With weights kappa_k, k^T u = sum_k kappa_k u_k, hence",
        sp.Eq(sp.Symbol("P"), per_phase.subs(Lp, L)),
        "P_0 (1 + lam theta k^T u) with u_k from the recurrence",
    )
    # the general statement, checked term by term: P0 * lam theta * kappa_k u_k equals the
    # summand (same k-dependence)
    summand = ku.function * P0 * lam * theta
    target = lam * theta * (r + mu) * _KAP[_k] * gamma ** (_k - 1)
    target *= (r + gamma) ** (Lp - _k)
    require_zero(
        sp.simplify(sp.powsimp(sp.cancel(summand / target), force=True)) - 1,
        "per-phase summand",
    )
    pos = {r: sp.Symbol("r", positive=True), gamma: sp.Symbol("gamma", positive=True)}
    geometric = sp.summation((pos[gamma] / (pos[r] + pos[gamma])) ** (_k - 1), (_k, 1, Lp))
    if isinstance(geometric, sp.Piecewise):  # the branch gamma/(r + gamma) != 1
        geometric = next(e for e, c in geometric.args if c != sp.true)
    geometric = geometric.subs({v: k for k, v in pos.items()})
    closed = ((r + gamma) ** Lp - gamma**Lp) / r
    require_zero(
        sp.simplify(sp.powsimp(geometric * (r + gamma) ** (Lp - 1) - closed, force=True)),
        "geometric sum",
    )
    d.add(
        "geometric",
        "With one weight kappa the sum is geometric (summation(...), r != 0):",
        sp.Eq(
            sp.Sum(gamma ** (_k - 1) * (r + gamma) ** (Lp - _k), (_k, 1, Lp)),
            closed,
        ),
        "summation(...) times (r + gamma)^(L-1)",
    )
    result = P0 + kappa * lam * theta * (r + mu) * closed
    d.add("uniform", "so", sp.Eq(sp.Symbol("P"), result))
    spurious = sp.Sum((r + gamma) ** _j * gamma ** (Lp - 1 - _j), (_j, 0, Lp - 1))
    summed = spurious.doit()
    if isinstance(summed, sp.Piecewise):  # the r != 0 branch (at r = 0 it is L gamma^(L-1))
        summed = summed.args[-1][0]
    require_zero(
        sp.simplify((r * summed - r * closed).subs(pos)),
        "(r + gamma)^L - gamma^L = r sum_j (r + gamma)^j gamma^(L-1-j)",
    )
    d.add(
        "spurious",
        "The factor 1/r is spurious: (r + gamma)^L - gamma^L vanishes at r = 0, and",
        sp.Eq(closed, spurious),
        "summation(...).doit() times r equals r times the closed form",
    )
    d.add(
        "polynomial",
        "so P is a polynomial of degree L + 1 in r; multiplying by r instead would add the "
        "root r = 0, which is not an eigenvalue (P(0) = gamma^(L-1) (mu gamma + lam theta "
        "(gamma + kappa mu L)) > 0):",
        sp.Eq(sp.Symbol("P"), P0 + kappa * lam * theta * (r + mu) * spurious),
    )
    d.result = result.subs(Lp, L)
    return d.freeze()


def inflight_polynomial(n, kappa=None, *, mu=mu, lam=lam, theta=theta, gamma=gamma):
    """The difference-mode characteristic polynomial for a concrete number of phases ``n``.

    ``kappa``: None (the symbol ``kappa`` for every phase), one value, or ``n`` values.
    From the derived per-phase formula; :func:`verify_inflight_determinant` checks it
    against the explicit determinant.
    """
    n = as_L(n, allow_symbol=False)
    kap = _weights(n, kappa)
    P0 = (r + mu) * (r + gamma) ** n + lam * theta * gamma**n
    extra = sp.Add(*[kap[k] * gamma**k * (r + gamma) ** (n - 1 - k) for k in range(n)])
    return P0 + lam * theta * (r + mu) * extra


def inflight_limit() -> Derivation:
    """The ``L -> oo`` limit at fixed mean delay ``D`` (``gamma = L/D``), one weight.

    Dividing by ``(r + gamma)^L`` and using ``(1 + rD/L)^(-L) -> exp(-rD)``:
    ``r + mu + lam theta exp(-rD) + kappa lam theta (r + mu)(1 - exp(-rD))/r = 0``
    (the delayed-information model that also counts the jobs sent in the last D time units).
    """
    d = Derivation("In-flight weights, L -> oo at fixed mean delay D")
    n = sp.Symbol("n", positive=True, integer=True)
    P = derive_inflight_equation().result.subs(L, n).subs(gamma, n / D)
    scaled = sp.expand(P / (r + n / D) ** n)
    d.add("scaled", "Divide by (r + gamma)^L with gamma = L/D:", sp.Eq(sp.Symbol("F_L"), scaled))
    Dp, rp = sp.Symbol("D", positive=True), sp.Symbol("r", positive=True)
    factor = sp.limit(((n / Dp) / (rp + n / Dp)) ** n, n, sp.oo)
    require_equal(factor, sp.exp(-rp * Dp), "limit of (gamma/(r+gamma))^L")
    d.add(
        "limit_factor",
        "with (gamma/(r + gamma))^L -> exp(-r D) (limit(...), r > 0, then by analytic "
        "continuation)",
        sp.Eq(sp.Limit(((n / D) / (r + n / D)) ** n, n, sp.oo), sp.exp(-r * D)),
    )
    result = (
        r
        + mu
        + lam * theta * sp.exp(-r * D)
        + kappa * lam * theta * (r + mu) * (1 - sp.exp(-r * D)) / r
    )
    d.add(
        "result",
        "the characteristic function of the delayed-information model with in-flight counting "
        "(r = 0 is a removable point: the last term tends to kappa lam theta mu D)",
        sp.Eq(sp.Symbol("F_oo"), result),
    )
    d.result = result
    return d.freeze()


@dataclass(frozen=True)
class InflightDeterminantCheck(Result):
    """``det(rI - J)`` of the explicit Jacobian against :func:`inflight_polynomial`."""

    L: int
    per_phase: bool
    equal: bool
    degree: int


def verify_inflight_determinant(n: int, per_phase: bool = False) -> InflightDeterminantCheck:
    """Explicit Berkowitz determinant of the SymPy-differentiated Jacobian against the
    symbolic-L derivation (with L = n substituted) and against :func:`inflight_polynomial`.

    ``per_phase``: weights ``kappa_1..kappa_n`` (else one symbol ``kappa``). Raises
    :class:`VerificationError` on a mismatch.
    """
    n = as_L(n, allow_symbol=False)
    weights = kappa_symbols(n) if per_phase else None
    J = difference_jacobian(n, weights)
    det = explicit_characteristic_polynomial(J)
    d = derive_inflight_equation()
    if per_phase:
        general = d["per_phase"].expr.rhs.subs(L, n).doit()
        derived = general.subs({_KAP[i + 1]: w for i, w in enumerate(weights)})
    else:
        derived = sp.cancel(d.result.subs(L, n))
    for name, other in (("derived", derived), ("concrete", inflight_polynomial(n, weights))):
        if sp.expand(det - other) != 0:
            raise VerificationError(
                f"in-flight determinant differs from the {name} formula at L = {n}"
            )
    return InflightDeterminantCheck(n, per_phase, True, int(sp.Poly(det, r).degree()))
