"""The founding model's fluid path as loose-argument conveniences: :func:`fluid` (the entry
:func:`symdelay.analysis.fluid.fluid` on the model built from ``L, mu, lam, theta, D``) and
:func:`fluid_difference`, the exact (tanh) difference dynamics ``x, w_1..w_L`` of the model
layer, integrated by the same compiled-ODE machinery.

>>> f = fluid(L=1, mu=1, lam=1, theta=2, D=1, T=2, dt=1)
>>> [round(float(v), 6) for v in f["q1"] + f["q2"]]  # the sum mode relaxes to 2 lam/mu = 2
[1.0, 0.896362, 1.323324]
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from symdelay.analysis.timeseries import TimeSeries
from symdelay.core.errors import SymdelayInputError
from symdelay.models.erlang.loose import founding_doc, founding_or_inflight

__all__ = ["fluid", "fluid_difference"]


@founding_doc
def fluid(
    L=2,
    mu=1,
    lam=1,
    theta=2,
    D=1,
    T=20,
    dt=0.1,
    initial=None,
    *,
    method: str = "auto",
    rtol: float | None = None,
    atol: float | None = None,
    force: bool = False,
    kappa=None,
) -> TimeSeries:
    """The founding model's fluid path: the convenience of :func:`symdelay.fluid` on
    ``build_model("erlang", L=L, ...)``.

    Parameters
    ----------
    L : int, default 2
        The number of Erlang phases of the delay, an integer ``>= 1``.
    %(rates)s
    theta : number or str, default 2
        The routing sensitivity (real).
    initial : sequence of float, optional
        The scaled state ``q1, q2, z1_1..z1_L, z2_1..z2_L`` at time 0 (default ``q2 = 1``, the
        rest 0: the paper's start).
    method : str, default "auto"
        The entry's ``solver``: a :func:`scipy.integrate.solve_ivp` method or ``"auto"``.
    %(kappa)s
    T, dt, rtol, atol, force
        As for :func:`symdelay.fluid`.

    Returns
    -------
    TimeSeries
        ``kind="fluid"``: the path of every state on the grid.
    """
    from symdelay.analysis.fluid import fluid as entry

    model = founding_or_inflight(L, mu, lam, theta, D, kappa)
    return entry(
        model, T=T, dt=dt, initial=initial, solver=method, rtol=rtol, atol=atol, force=force
    )


@lru_cache(maxsize=16)
def _difference_rhs(L: int, mu, lam, theta, D):
    """The difference system compiled once per options (derived with symbolic parameters:
    the model layer's tanh check needs theta symbolic; then the numbers)."""
    from symdelay.analysis.fluid import compile_rhs
    from symdelay.core import symbols as S
    from symdelay.core.lazy import sympy as sp
    from symdelay.models import ActionDelayModel

    ds = ActionDelayModel(L=L).difference_system()  # the table's, derived once per L
    values = {S.mu: mu, S.lam: lam, S.theta: theta, S.gamma: sp.Integer(L) / D}
    return ds.state, compile_rhs(ds.state, [e.subs(values) for e in ds.rhs])


def fluid_difference(
    L=2,
    mu=1,
    lam=1,
    theta=2,
    D=1,
    T=20,
    dt=0.1,
    initial=(0.5,),
    *,
    method: str = "auto",
    rtol: float | None = None,
    atol: float | None = None,
) -> TimeSeries:
    """Integrate the closed difference mode ``x = q1 - q2``, ``w_l = z1_l - z2_l`` from
    ``(x(0), w_1(0), ..)`` (missing w's are 0; the default ``(0.5, 0, ..., 0)`` is the
    paper's phase-plot start): a :class:`~symdelay.analysis.timeseries.TimeSeries` of
    ``kind="ode"`` with states ``x, w_1..w_L`` (JSON keys ``x``, ``w``)."""
    from symdelay.analysis.fluid import integrate
    from symdelay.analysis.stochastic import run_parameters
    from symdelay.core.checks import check_horizon, time_grid
    from symdelay.models import build_model

    model = build_model("erlang", L=L, mu=mu, lam=lam, theta=theta, D=D)
    o, names = model.options, ("mu", "lam", "theta", "D")
    if (
        model.infinite
        or model.symbolic
        or not all(o[k] is not None and o[k].is_number for k in names)
    ):
        raise SymdelayInputError(
            "the difference dynamics need a finite integer L and numbers for mu, lam, theta, D"
        )
    L = model.phases
    T, dt = check_horizon(T, dt)
    grid = time_grid(T, dt)
    try:
        init = np.atleast_1d(np.asarray(initial, dtype=float))
    except (TypeError, ValueError):
        raise SymdelayInputError(f"initial must be numbers x, w_1, ..., got {initial!r}") from None
    if init.ndim != 1 or not 1 <= init.size <= L + 1 or not np.all(np.isfinite(init)):
        raise SymdelayInputError(
            f"initial must have 1 to L+1 = {L + 1} finite entries (x, w_1..w_L)"
        )
    y0 = np.zeros(L + 1)
    y0[: init.size] = init
    _, rhs = _difference_rhs(L, o["mu"], o["lam"], o["theta"], o["D"])
    y, record = integrate(rhs, y0, grid, method, rtol, atol)
    params = run_parameters(model)
    params.update(T=T, dt=dt, initial=y0.tolist())
    states = ("x", *(f"w_{ell}" for ell in range(1, L + 1)))
    return TimeSeries(
        states, grid, y, params, kind="ode", model_name=f"{model.name}, difference mode",
        info={"solver": record},
    )  # fmt: skip
