"""The fluid model of LB(xi, c, d): equilibrium in closed form and long integration.

The fluid model is the transition table :class:`symdelay.models.lb.family.LBFluidModel` (its drift
is what :func:`fluid_path` integrates). Below capacity the fluid slides onto the set where
the weighted idleness ratios ``d_j (1 - x_j/w_j)`` are equal, so station j's utilisation is
``1 - kappa/d_j``: d sets the relative utilisations, c the relative delays (which vanish on
the fluid scale below capacity; above it the queues share ``c_j q_j/(w_j mu_j)`` equal).

The drift switches with the stations' preference order, so an explicit Euler step chatters
across the balanced set with amplitude ``O(h)``; :func:`fluid_path` reports the time average
over the last quarter, whose distance to the equilibrium is ``O(h)``.

>>> from symdelay.models.lb.policy import LBPolicy
>>> p = LBPolicy.from_text("N=50,mu=1;N=100,mu=1/2", xi="2", d="1,2")
>>> e = fluid_equilibrium(p, lam="1/2")
>>> [str(u) for u in e.utilisations]
['2/3', '5/6']
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.core.result import Result
from symdelay.models.lb.policy import LBPolicy

__all__ = [
    "fluid_equilibrium",
    "FluidEquilibrium",
    "fluid_path",
    "LBFluidPath",
    "routing_probabilities",
]


@dataclass
class FluidEquilibrium(Result):
    """The balanced fluid equilibrium (exact): ``x_j``, utilisations, kappa, routing shares."""

    lam: sp.Rational
    kappa: sp.Rational
    point: tuple
    utilisations: tuple
    routing_shares: tuple
    relaxation_rate: sp.Rational

    def record(self) -> dict:
        return {
            "lam": str(self.lam),
            "kappa": str(self.kappa),
            "x": [str(v) for v in self.point],
            "utilisation": [str(v) for v in self.utilisations],
            "routing_shares": [str(v) for v in self.routing_shares],
            "relaxation_rate": str(self.relaxation_rate),
        }


def estimate_seconds(J: int) -> float:
    """Rough single-core time of :func:`fluid_equilibrium`: the exact symbolic model of J
    stations (measured 5 s at J = 4, 53 s at J = 8: about ``J^3.4``)."""
    return 5.0 * (J / 4) ** 3.4


def fluid_equilibrium(policy: LBPolicy, lam, force: bool = False) -> FluidEquilibrium:
    """The equilibrium of the fluid model at arrival rate ``lam`` per server (exact); its
    cost is estimated from J first and refused over the budget unless ``force``."""
    from symdelay.models.lb.family import lb_fluid_model
    from symdelay.models.sqd._budget import check_budget

    check_budget(
        f"the exact fluid model of {policy.J} stations",
        estimate_seconds(policy.J),
        force=force,
        shrink="the number of stations",
    )

    m = lb_fluid_model(policy, lam)
    pt = tuple(m.equilibrium.point[s] for s in m.states)
    lr = m.values[m.parameters[0]]
    util = tuple(x / w for x, w in zip(pt, policy.shares))
    shares = tuple(s.mu * x / lr for s, x in zip(policy.stations, pt))
    return FluidEquilibrium(lr, m.kappa, pt, util, shares, m.idle_rate)


def routing_probabilities(policy: LBPolicy, x) -> np.ndarray:
    """``p_j(x)`` computed directly from the preference order (a second path to the drift).

    Stations with an idle server rank first by ``d_j (1 - x_j/w_j)`` (largest first), then
    the full ones by ``c_j (x_j - w_j)/(w_j mu_j)`` (least first); rank ``k`` is chosen with
    :meth:`LBPolicy.choice_probabilities`. Ties share their ranks' probabilities equally.
    """
    w = np.array([float(v) for v in policy.shares])
    mu = np.array([float(s.mu) for s in policy.stations])
    c = np.array([float(v) for v in policy.c])
    d = np.array([float(v) for v in policy.d])
    x = np.asarray(x, dtype=float)
    pref = np.where(x < w, d * (w - x) / w, c * (w - x) / (w * mu))
    rank_p = np.array([float(p) for p in policy.rank_probabilities()])
    out = np.zeros(len(x))
    order = sorted(range(len(x)), key=lambda j: -pref[j])
    k = 0
    while k < len(order):
        group = [order[k]]
        while k + len(group) < len(order) and pref[order[k + len(group)]] == pref[order[k]]:
            group.append(order[k + len(group)])
        share = rank_p[k : k + len(group)].mean()
        for j in group:
            out[j] = share
        k += len(group)
    return out


@dataclass
class LBFluidPath(Result):
    """Euler path of the fluid drift: ``t``, ``x[k, j]``, and the late time average."""

    t: np.ndarray
    x: np.ndarray
    average: np.ndarray
    h: float

    def record(self) -> dict:
        return {
            "t": self.t.tolist(),
            "x": self.x.tolist(),
            "average": self.average.tolist(),
            "h": self.h,
        }


def fluid_path(policy: LBPolicy, lam, x0, T=40.0, h=1e-3, record_every: int = 50):
    """Integrate the model's drift from ``x0`` (scaled numbers) with Euler steps ``h``."""
    from symdelay.models.lb.family import lb_fluid_model

    m = lb_fluid_model(policy, lam)
    x = np.asarray(x0, dtype=float)
    if x.shape != (policy.J,) or not np.all(np.isfinite(x)) or np.any(x < 0):
        raise SymdelayInputError(f"x0 needs {policy.J} finite values >= 0")
    if not (float(T) > 0 and 0 < float(h) < float(T)):
        raise SymdelayInputError("T must be positive and h in (0, T)")
    F = sp.lambdify([m.states], list(m.drift), "numpy")
    steps = round(float(T) / float(h))
    ts, xs = [0.0], [x.copy()]
    tail = np.zeros_like(x)
    start = steps - steps // 4
    for k in range(steps):
        x = np.maximum(x + h * np.asarray(F(x), dtype=float), 0.0)
        if k >= start:
            tail += x
        if (k + 1) % record_every == 0:
            ts.append((k + 1) * h)
            xs.append(x.copy())
    return LBFluidPath(np.array(ts), np.array(xs), tail / (steps - start), float(h))
