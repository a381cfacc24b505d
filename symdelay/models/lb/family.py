"""LB(xi, c, d) across J many-server stations: the fluid model as a transition table.

Many-server scaling: ``n = sum_j N_j`` servers, ``N_j = w_j n``, arrivals at rate
``n lam``. The state ``x_j = X_j / n`` is the scaled number at station j; the jumps are
one arrival to station j at scaled rate ``lam p_j(x)`` and one departure at
``mu_j min(x_j, w_j)``. The routing probability depends on x only through the stations'
preference order: the scores ``d_j (w_j - x_j)/w_j`` (an idle server) and
``c_j (w_j - x_j)/(w_j mu_j)`` (all busy; minus the expected delay) are both functions of
``x = X/n`` (the ``+1`` of the finite delay is ``O(1/n)``), so the family is
density-dependent. With ``m_j`` the number of stations ranked below j (a sum of Heaviside
steps of score differences), uniform sampling of ``xi`` stations gives

    p_j(x) = sum_k P(xi = k) C(m_j, k - 1) / C(J, k);

where ``t_j`` stations tie with j (ties broken uniformly) ``C(m_j, k - 1)`` is its mean
over ``m_j = b_j .. b_j + t_j``: its value at ``b_j + t_j/2`` for ``k <= 2``,
``(C(b_j + t_j + 1, k) - C(b_j, k)) / (t_j + 1)`` for ``k >= 3``.

The drift is piecewise constant in the routing, so the fluid slides (Filippov) on the
balanced set ``d_j (1 - x_j/w_j) = kappa`` (every j). The equilibrium below capacity
(``lam < mu_bar = sum w_j mu_j``) is there, in closed form:
``x_j = w_j (1 - kappa/d_j)``, ``kappa = (mu_bar - lam) / sum_i (w_i mu_i / d_i)``.
Transverse to that set the fluid reaches it in finite time (no eigenvalue); along it the
total relaxes at rate ``m_I = sum_j v_j mu_j`` (``v_j`` the idle shares): the one factor
``r + m_I``.

>>> m = model(stations="N=50,mu=1;N=100,mu=1/2", xi=2, lam="1/2")
>>> m.equilibrium.point
{x1: 1/4, x2: 1/2}
>>> m.charpoly
r + 2/3
"""

from __future__ import annotations

from functools import cached_property
from typing import ClassVar

from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.core.symbols import lam as LAM
from symdelay.core.symbols import r
from symdelay.model.core import Equilibrium, Factor, Model

__all__ = ["model", "INFO", "LBFluidModel", "lb_fluid_model"]

INFO = {
    "name": "lb",
    "parameters": ["stations", "xi", "xi_dist", "c", "d", "lam"],
    "description": "LB(xi, c, d) routing across many-server stations (fluid scaling; "
    "stations 'N=50,mu=1;N=100,mu=0.5')",
}


def _binomial_poly(m, k: int):
    """``C(m, k)`` as a polynomial in ``m`` (exact for whole ``m``)."""
    out = sp.Integer(1)
    for t in range(k):
        out *= m - t
    return out / sp.factorial(k)


class LBFluidModel(Model):
    """The fluid transition table of an :class:`~symdelay.models.lb.policy.LBPolicy`.

    The equilibrium, Jacobian and characteristic factor are those of the sliding motion on
    the balanced set (see the module docstring), not of the non-smooth drift's derivative.
    Its fluid path (Euler steps) and its simulation (the LB kernel) are the family's own,
    behind the ``fluid`` and ``simulate`` entries.
    """

    SPECIALISATIONS: ClassVar[dict] = {
        "fluid": "symdelay.models.lb.fluid:specialised_fluid",
        "simulate": "symdelay.models.lb.simulate:specialised_simulate",
    }

    def record_options(self) -> dict:
        """What a record names besides ``lam``: the policy (stations, xi, c, d)."""
        return {"policy": self.policy.record(), "n": self.policy.n}

    def __init__(self, policy, lam=None):
        self.policy = policy
        J = policy.J
        xs = [f"x{j + 1}" for j in range(J)]
        params = {"lam": "positive"}
        values = {}
        if lam is not None:
            values["lam"] = lam
        for j in range(J):
            for p in ("mu", "w", "c", "d"):
                params[f"{p}{j + 1}"] = "positive"
        st = policy.stations
        for j in range(J):
            values[f"mu{j + 1}"] = st[j].mu
            values[f"w{j + 1}"] = policy.shares[j]
            values[f"c{j + 1}"] = policy.c[j]
            values[f"d{j + 1}"] = policy.d[j]
        X = sp.symbols(xs)
        mu = sp.symbols([f"mu{j + 1}" for j in range(J)])
        w = sp.symbols([f"w{j + 1}" for j in range(J)])
        c = sp.symbols([f"c{j + 1}" for j in range(J)])
        d = sp.symbols([f"d{j + 1}" for j in range(J)])
        pref = [
            sp.Piecewise(
                (d[j] * (w[j] - X[j]) / w[j], X[j] < w[j]),
                (c[j] * (w[j] - X[j]) / (w[j] * mu[j]), True),
            )
            for j in range(J)
        ]
        transitions = []
        for j in range(J):
            # ties broken uniformly: j has b + U stations below it, U uniform on 0..t (t tied
            # with j), so C(m, k - 1) is its mean over m = b..b + t: for k <= 2 (linear in
            # m) its value at the mean b + t/2 (Heaviside 1/2 at 0), for k >= 3
            # (C(b + t + 1, k) - C(b, k))/(t + 1) (at a half-integer m it went negative)
            diffs = [pref[j] - pref[i] for i in range(J) if i != j]
            half = sum((sp.Heaviside(g, sp.Rational(1, 2)) for g in diffs), sp.Integer(0))
            b = sum((sp.Heaviside(g, 0) for g in diffs), sp.Integer(0))
            t = sum((sp.Heaviside(g, 1) - sp.Heaviside(g, 0) for g in diffs), sp.Integer(0))
            pj = sum(
                (
                    p
                    * (
                        _binomial_poly(half, k - 1)
                        if k <= 2
                        else (_binomial_poly(b + t + 1, k) - _binomial_poly(b, k)) / (t + 1)
                    )
                    / sp.binomial(J, k)
                    for k, p in policy.xi.items()
                ),
                sp.Integer(0),
            )
            transitions.append((f"arrive{j + 1}", {xs[j]: 1}, LAM * pj))
        for j in range(J):
            transitions.append((f"serve{j + 1}", {xs[j]: -1}, mu[j] * sp.Min(X[j], w[j])))
        super().__init__(
            f"LB(xi, c, d), {J} stations",
            xs,
            params,
            transitions,
            values=values,
            description="LB(xi, c, d) fluid model: " + policy.describe(),
            source="lb model",
            # p_j is a mean of C(m, k - 1) / C(J, k) over whole m >= 0: >= 0 by construction
            # (past three stations the decision procedure needs more than its time for it)
            assume_nonnegative=[f"arrive{j + 1}" for j in range(J)],
        )

    def with_values(self, **values) -> LBFluidModel:
        extra = set(values) - {"lam"}
        if extra:
            raise SymdelayInputError(
                "the lb model's other parameters come from its stations and weights: "
                "rebuild it with model(...) instead of " + ", ".join(sorted(extra))
            )
        return LBFluidModel(self.policy, values.get("lam", self.values.get(LAM)))

    # ------------------------------------------------------------ sliding motion
    @cached_property
    def kappa(self) -> sp.Expr:
        """Common weighted idleness ratio at the equilibrium."""
        p = self.policy
        lam = self.values.get(LAM, LAM)
        den = sum((wj * s.mu / dj for wj, s, dj in zip(p.shares, p.stations, p.d)), sp.Integer(0))
        return (p.mean_rate - lam) / den

    @cached_property
    def equilibrium(self) -> Equilibrium:
        """The balanced equilibrium below capacity (refused where it does not exist)."""
        p = self.policy
        lam = self.values.get(LAM)
        if lam is not None:
            if not lam < p.mean_rate:
                raise SymdelayInputError(
                    f"lam = {lam} is at or beyond the capacity per server mu_bar = "
                    f"{p.mean_rate}: no equilibrium below capacity; lower lam"
                )
            if not all(self.kappa < dj for dj in p.d):
                raise SymdelayInputError(
                    "the balanced equilibrium would empty a station (kappa >= d_j): "
                    "raise that station's d or the load"
                )
            x = [wj * (1 - self.kappa / dj) for wj, dj in zip(p.shares, p.d)]
            need = [s.mu * xj / lam for s, xj in zip(p.stations, x)]
            if not p.balance_margin(need) > 0:
                raise SymdelayInputError(
                    "the sampling cannot hold the balanced equilibrium (some set of stations "
                    "needs more arrivals than the samples meeting it): raise xi"
                )
        point = {
            s: sp.simplify(wj * (1 - self.kappa / dj))
            for s, wj, dj in zip(self.states, p.shares, p.d)
        }
        return Equilibrium(point, True, 0, "sliding (Filippov) balance, closed form")

    @property
    def drift_jacobian(self) -> sp.Matrix:
        """Refused: the drift is non-smooth (it slides on the balanced set), so stiff ODE
        solvers stall on it; the fluid entry integrates it by Euler steps instead."""
        raise SymdelayInputError(
            "the LB fluid drift switches with the stations' order (a sliding motion): "
            "its fluid path takes Euler steps (symdelay fluid --model lb), not a stiff solver"
        )

    @cached_property
    def idle_rate(self) -> sp.Rational:
        """``m_I = sum_j v_j mu_j``, the relaxation rate of the total along the balanced set."""
        p = self.policy
        iw = [wj / dj for wj, dj in zip(p.shares, p.d)]
        return sum((x * s.mu for x, s in zip(iw, p.stations)), sp.Integer(0)) / sum(iw)

    @cached_property
    def jacobian(self) -> sp.Matrix:
        """1x1: the total's rate of change along the balanced set, ``-m_I``."""
        return sp.Matrix([[-self.idle_rate]])

    @cached_property
    def factors(self) -> tuple:
        return (Factor(r + self.idle_rate, 1, "total on the balanced set (sliding)"),)

    @cached_property
    def diffusion(self) -> sp.Matrix:
        """``sum_nu nu^2 beta_nu`` of the total at the equilibrium: ``2 lam``."""
        return sp.Matrix([[2 * self.values.get(LAM, LAM)]])


def lb_fluid_model(policy, lam=None) -> LBFluidModel:
    """The fluid model of ``policy`` (``lam`` the arrival rate per server, or symbolic)."""
    if lam is not None:
        from symdelay.models.lb.policy import as_rational

        lam = as_rational("lam", lam)
    return LBFluidModel(policy, lam)


def _options():
    from symdelay.core.options import Option

    return (
        Option("stations", "the stations, e.g. 'N=50,mu=1;N=100,mu=1/2'", "text"),
        Option("xi", "the sampled set xi (default: every station)", "text"),
        Option("xi_dist", "a distribution over sampled sets", "text"),
        Option("c", "the thresholds c", "numbers"),
        Option("d", "the sample sizes d", "numbers"),
        Option("lam", "arrival rate per server (> 0)"),
    )


OPTIONS = _options()


def model(stations="N=50,mu=1;N=100,mu=1/2", xi=None, xi_dist=None, c=None, d=None, lam=None):
    """The LB(xi, c, d) fluid model; ``xi`` defaults to J (every station sampled)."""
    from symdelay.models.lb.policy import LBPolicy

    policy = LBPolicy.from_text(stations, xi=xi, xi_dist=xi_dist, c=c, d=d)
    return lb_fluid_model(policy, lam)
