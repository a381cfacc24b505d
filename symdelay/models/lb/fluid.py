"""The fluid model of LB(xi, c, d): equilibrium in closed form and long integration.

The fluid model is the transition table :class:`symdelay.models.lb.family.LBFluidModel` (its drift
is what :func:`fluid_path` integrates). Below capacity the fluid slides onto the set where
the weighted idleness ratios ``d_j (1 - x_j/w_j)`` are equal, so station j's utilisation is
``1 - kappa/d_j``: d sets the relative utilisations, c the relative delays (which vanish on
the fluid scale below capacity; above it the queues share ``c_j q_j/(w_j mu_j)`` equal).

The drift switches with the stations' preference order, so an explicit Euler step chatters
across the balanced set with amplitude ``O(h)``; :func:`fluid_path` (and the fluid entry's
specialisation :func:`specialised_fluid`, ``symdelay fluid --model lb``) reports the time
average over the last quarter, whose distance to the equilibrium is ``O(h)``.

>>> from symdelay.models.lb.policy import LBPolicy
>>> p = LBPolicy.from_text("N=50,mu=1;N=100,mu=1/2", xi="2", d="1,2")
>>> e = fluid_equilibrium(p, lam="1/2")
>>> [str(u) for u in e.utilisations]
['2/3', '5/6']
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from symdelay.analysis.timeseries import TimeSeries
from symdelay.core.checks import check_state
from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.core.result import Result
from symdelay.models.lb.policy import LBPolicy

__all__ = [
    "fluid_equilibrium",
    "FluidEquilibrium",
    "fluid_path",
    "specialised_fluid",
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


def _euler(model, x0, grid, h: float):
    """Euler steps ``x <- max(x + h F(x), 0)`` of the model's drift from ``x0``, recorded on
    ``grid`` (multiples of the step); the time average over the last quarter of the steps."""
    F = sp.lambdify([model.states], list(model.drift), "numpy")
    x = np.asarray(x0, dtype=float)
    every = max(1, round(float(grid[1] - grid[0]) / h)) if grid.size > 1 else 1
    steps = every * (grid.size - 1)
    out = np.empty((grid.size, x.size))
    out[0] = x
    tail = np.zeros_like(x)
    start = steps - steps // 4
    for k in range(steps):
        x = np.maximum(x + h * np.asarray(F(x), dtype=float), 0.0)
        if k >= start:
            tail += x
        if (k + 1) % every == 0:
            out[(k + 1) // every] = x
    return out, tail / max(steps - start, 1)


def _check_start(x0, J: int) -> np.ndarray:
    return check_state(x0, [f"x{j + 1}" for j in range(J)], "x0")


def _series(model, grid, y, x0, h, average, extra=None) -> TimeSeries:
    from symdelay.analysis.stochastic import run_parameters

    params = run_parameters(model)
    params.update(extra or {})
    params["initial"] = x0.tolist()
    info = {"solver": {"method": "Euler", "h": h}, "average": average}
    return TimeSeries(
        tuple(s.name for s in model.states), grid, y, params, kind="fluid",
        model_name=model.name, info=info,
    )  # fmt: skip


def fluid_path(policy: LBPolicy, lam, x0, T=40.0, h=1e-3, record_every: int = 50) -> TimeSeries:
    """Integrate the model's drift from ``x0`` (scaled numbers) with Euler steps ``h``,
    recorded every ``record_every`` steps: a :class:`~symdelay.analysis.timeseries.TimeSeries`
    with the time average over the last quarter in ``info["average"]`` (its distance to the
    equilibrium is ``O(h)``)."""
    from symdelay.models.lb.family import lb_fluid_model

    m = lb_fluid_model(policy, lam)
    x = _check_start(x0, policy.J)
    if not (float(T) > 0 and 0 < float(h) < float(T)):
        raise SymdelayInputError("T must be positive and h in (0, T)")
    if isinstance(record_every, bool) or not isinstance(record_every, int) or record_every < 1:
        raise SymdelayInputError(f"record_every must be a whole number >= 1, got {record_every!r}")
    h = float(h)
    n = round(float(T) / h) // record_every
    grid = np.arange(n + 1) * (h * record_every)
    y, average = _euler(m, x, grid, h)
    return _series(m, grid, y, x, h, average, {"T": float(grid[-1]), "dt": h * record_every})


#: The largest Euler step of the entry's LB fluid path.
EULER_STEP = 1e-3


def specialised_fluid(
    model, *, T, dt, initial=None, solver="auto", rtol=None, atol=None, force=False
) -> TimeSeries | None:
    """The fluid entry's specialisation for the lb model: the drift switches with the
    stations' order (a sliding motion on the balanced set), where a stiff solver stalls, so
    it is integrated by Euler steps of ``h = dt / ceil(dt / 1e-3)`` (the largest step up
    to :data:`EULER_STEP` that divides ``dt``) on the grid ``0, dt, ..., T``; the time
    average over the last quarter is ``info["average"]``. ``solver`` ``"auto"`` or
    ``"euler"``; tolerances do not apply (refused). Declines while ``lam`` is symbolic."""
    import math

    from symdelay.core.budget import check_budget
    from symdelay.core.checks import check_horizon, time_grid

    if model.free_parameters:
        return None
    if solver not in ("auto", "euler"):
        raise SymdelayInputError(
            f"the lb model's fluid is integrated by Euler steps (its drift slides on the "
            f"balanced set): solver {solver!r} does not apply; use auto"
        )
    if rtol is not None or atol is not None:
        raise SymdelayInputError(
            "the lb model's fluid path takes Euler steps of a fixed size: rtol and atol do "
            "not apply (leave them out; a smaller dt gives smaller steps)"
        )
    T, dt = check_horizon(T, dt)
    grid = time_grid(T, dt)
    h = dt / math.ceil(dt / EULER_STEP - 1e-9)
    check_budget(
        f"the Euler path of {model.name} ({round(T / h)} steps)",
        2e-5 * T / h,
        force=force,
        shrink="a smaller --T or a larger --dt",
    )
    x0 = np.asarray(model.default_start(), dtype=float) if initial is None else initial
    x = _check_start(x0, len(model.states))
    y, average = _euler(model, x, grid, h)
    return _series(model, grid, y, x, h, average, {"T": T, "dt": dt})
