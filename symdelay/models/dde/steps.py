"""The method of steps of the two-queue information-delay model (a time path).

The model :func:`symdelay.models.build_model` ``("dde")`` builds with two equal queues,
logit routing and a constant lag ``D`` (:class:`~symdelay.models.dde.build.FoundingLimitModel`)
is the delay-differential system

    q_i'(t) = 2 lam p_i(q(t - D)) - mu q_i(t),
    p_i(q) = exp(-theta q_i) / (exp(-theta q_1) + exp(-theta q_2)),

with a history ``q(s)``, ``-D <= s <= 0``. It is read off the model's transition table
(:func:`table_limit`: the arrival rates with ``delayed(q_i, tau)`` the lagged queues, the
service rates), not typed in. Since ``p_1 + p_2 = 1`` and ``p_1 - p_2 = -tanh(theta (q_1 -
q_2) / 2)`` (derived and checked by SymPy, :meth:`~symdelay.models.delayed_routing.LagLimit.
mode`), the sum ``s = q_1 + q_2`` obeys the ODE ``s' = 2 lam - mu s`` (solved in closed form)
and the difference ``x = q_1 - q_2`` the scalar DDE

    x'(t) = -mu x(t) - 2 lam tanh(theta x(t - D) / 2).

The linear analyses of this model (and of every other model of the family) are the lag
core's; this module holds only its time paths.

**Integration** (:func:`integrate`, ``solver="steps"``, always available): the method of
steps. On each interval ``[kD, (k+1)D]`` the delayed term is a known function (the history,
or the dense output of the previous interval), so the scalar DDE for ``x`` is an ODE, solved
by SciPy ``solve_ivp`` (default ``DOP853``, ``rtol=1e-12``, ``atol=1e-14``) with dense output
and with the breakpoints ``kD`` (where the derivative jumps of the history propagate) as
interval ends; its right-hand side is compiled from the table (:func:`difference_functions`).
``solver="jitcdde"`` (optional package ``jitcdde``) integrates the two-queue logit form
directly with JiTCDDE's Bogacki--Shampine method, stepping on the propagated
discontinuities: an independent second path.

**Action delay versus information delay** (:func:`compare_with_action_delay`): a job of the
action-delay model routed at time ``u`` with ``p_i(q(u))`` enters queue ``i`` after an
Erlang(L, mean D) delay; a job of this model is routed at ``u`` with ``p_i(q(u - D))`` and
enters at once. Both put jobs into queue ``i`` at time ``t`` at rate
``2 lam E[p_i(q(t - tau))]``: with the delay pipeline at ``t = 0`` filled as if the
history had been in force (``z_{i,l}(0) = 2 lam p_i(h) D/L`` for a constant history ``h``,
the stationary Erlang pipeline), the action-delay fluid model *is* the information-delay
model with an Erlang(L)-distributed lag, which tends to the DDE as ``L -> oo``. So beyond
the linearisation the two differ through (i) the spread ``D^2/L`` of the delay (distance
``O(1/L)`` on a fixed horizon; a Hopf point ``theta_c(L)`` above the DDE's; a smaller limit
cycle) and (ii) the initial pipeline: the paper's start ``z = 0`` (``pipeline="empty"``)
has no arrivals into service on ``[0, D)``. No DDE solution has that sum mode (``p_1 + p_2
= 1``: the DDE's arrivals are ``2 lam`` from ``t = 0``); its difference ``x`` tends to the
DDE's from the history "nothing routed before 0", ``x = 0`` on ``[-D, 0)`` with a jump to
``x(0)``, not from the constant history ``x(0)`` (sup-distance near 0.9 at theta = 2).

>>> from symdelay.models import build_model
>>> m = build_model("dde", mu=1, lam=1, theta=2, D=1)
>>> res = integrate(m, T=2, history=(0, 1), dt=1)
>>> [round(float(v), 9) for v in res["q1"]]
[0.0, 1.113539882, 1.003667987]
"""

from __future__ import annotations

import bisect
import itertools
import math
import warnings
from dataclasses import dataclass
from functools import cache

import numpy as np

from symdelay.analysis.fluid import check_tolerance
from symdelay.analysis.timeseries import TimeSeries
from symdelay.core.errors import SymdelayInputError, VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.symbols import D as D_
from symdelay.core.symbols import lam as LAM
from symdelay.core.symbols import mu as MU
from symdelay.core.symbols import theta as THETA

__all__ = [
    "integrate",
    "specialised_fluid",
    "founding_numbers",
    "table_limit",
    "ActionDelayComparison",
    "compare_with_action_delay",
    "difference_functions",
    "DEFAULT_SOLVER",
]

#: Default integrator of the method of steps and its tolerances.
DEFAULT_SOLVER = {"solver": "steps", "method": "DOP853", "rtol": 1e-12, "atol": 1e-14}

_q1, _q2 = sp.symbols("q1 q2")
_SOLVERS = ("steps", "jitcdde")
_IVP_METHODS = ("RK45", "RK23", "DOP853", "Radau", "BDF", "LSODA")


def table_limit(model):
    """The delay-differential system ``q_i'(t) = routed_i(q(t - D)) - served_i(q(t))`` of a
    two-queue constant-lag model of the family, read off its transition table (a
    :class:`~symdelay.models.delayed_routing.LagLimit`): each arrival rate with every
    ``delayed(q_j, tau)`` read as the queue seen ``D`` ago, each service rate as it is.

    >>> from symdelay.models import build_model
    >>> table_limit(build_model("dde")).served
    (mu*q1, mu*q2)
    """
    from symdelay.model.lags import steady
    from symdelay.models.delayed_routing import LagLimit

    lag = model.lags.get("tau")
    if lag is None or lag.kind != "constant" or len(model.states) != 2:
        raise SymdelayInputError(
            f"{model.name}: the method of steps is built for two queues and a constant lag "
            "(--N 2 --lag constant)"
        )
    routed, served = [sp.Integer(0)] * 2, [sp.Integer(0)] * 2
    for t in model.transitions:
        (i,) = [k for k, c in enumerate(t.change) if c]
        if t.change[i] > 0:
            routed[i] += steady(t.rate)
        else:
            served[i] += t.rate
    return LagLimit(tuple(model.states), tuple(routed), tuple(served))


@cache
def _lag():
    """The symbolic two-queue model's delay-differential system (:func:`table_limit`,
    symbolic ``mu, lam, theta``) and its derived difference and sum modes."""
    from symdelay.models import build_model

    lim = table_limit(build_model("dde"))
    if lim.queues != (_q1, _q2):
        raise VerificationError(f"the lag limit's queues are {lim.queues}, not (q1, q2)")
    s, s_lag, total = lim.mode("sum")
    if total.has(s_lag):
        raise VerificationError(f"the sum mode {total} has a delayed term")
    return lim, lim.mode("difference"), (s, total)


@cache
def difference_functions(module: str = "numpy") -> tuple:
    """``(f, f_x, f_d)``: the difference equation ``x'(t) = f(x(t), x(t - D))`` and the
    partial derivatives of ``f`` in its two arguments, as functions of
    ``(x, x_delayed, mu, lam, theta)`` compiled by SymPy (``module``: ``"math"`` for
    scalars, ``"numpy"`` for arrays). Every numeric DDE path (method of steps, Fourier
    collocation and Floquet multipliers) evaluates these.

    >>> f, f_x, f_d = difference_functions("math")
    >>> round(f(0.5, 1.0, 1.0, 1.0, 2.0), 12), f_x(0.5, 1.0, 1.0, 1.0, 2.0)
    (-2.023188311912, -1.0)
    """
    _, (x, xd, row), _ = _lag()
    args = (x, xd, MU, LAM, THETA)
    return tuple(sp.lambdify(args, e, module) for e in (row, sp.diff(row, x), sp.diff(row, xd)))


def founding_numbers(model, what: str = "integrate") -> tuple[float, float, float, float]:
    """``(mu, lam, theta, D)`` as floats of a two-queue logit constant-lag model of the
    family with every parameter a number; refused in one line otherwise."""
    if not getattr(model, "founding_limit", False):
        raise SymdelayInputError(
            f"{getattr(model, 'name', model)}: the method of steps is built for two equal "
            "queues, logit routing and a constant lag (build_model('dde') with N=2, the "
            "default choice and lag, mu not service_rates)"
        )
    out = []
    for name, sym in (("mu", MU), ("lam", LAM), ("theta", THETA), ("D", D_)):
        v = model.values.get(sym)
        if v is None:
            raise SymdelayInputError(
                f"{name} is symbolic: give it a number to {what}, e.g. build_model('dde', "
                f"{name}=1, ...)"
            )
        out.append(float(v))
    return tuple(out)


def integrate(
    model,
    T,
    history=None,
    dt=0.1,
    *,
    solver: str = DEFAULT_SOLVER["solver"],
    method: str = DEFAULT_SOLVER["method"],
    rtol: float = DEFAULT_SOLVER["rtol"],
    atol: float = DEFAULT_SOLVER["atol"],
) -> TimeSeries:
    """Integrate the nonlinear DDE of ``model`` on ``[0, T]``; values on ``0, dt, ...,
    floor(T/dt) dt``.

    Parameters
    ----------
    model : FoundingLimitModel
        ``build_model("dde", mu=..., lam=..., theta=..., D=...)``: two equal queues, logit
        routing, a constant lag, every parameter a number.
    T : float
        The horizon (> 0).
    history : (q1, q2) or callable, optional
        A constant history (default ``(0, 1)``, the paper's start) or a function
        ``h(s) -> (q1, q2)`` for ``-D <= s <= 0``.
    dt : float, default 0.1
        The sampling step of the record.
    solver : {"steps", "jitcdde"}, default "steps"
        The method of steps with ``solve_ivp(method, rtol, atol)``, or JiTCDDE.
    method, rtol, atol
        The ``solve_ivp`` method and tolerances.

    Returns
    -------
    TimeSeries
        ``kind="dde"``, the states ``q1, q2`` and the difference ``x``: with the method of
        steps ``x`` is the integrated difference itself (full relative precision when it is
        small, unlike ``q1 - q2``), ``info["breakpoints"]`` the ends ``0, D, 2D, ..., T`` of
        its intervals, and ``res.at(times)`` the dense solution ``(q1, q2, x)`` at any times
        in ``[-D, T]`` (the history for ``t < 0``).
    """
    from symdelay.core.checks import check_horizon, time_grid

    mu, lam, theta, D = founding_numbers(model, "integrate")
    T, dt = check_horizon(T, dt)
    rtol, atol = check_tolerance("rtol", rtol), check_tolerance("atol", atol)
    if solver not in _SOLVERS:
        raise SymdelayInputError(f"unknown solver {solver!r}: use one of " + ", ".join(_SOLVERS))
    if method not in _IVP_METHODS:
        raise SymdelayInputError(
            f"unknown method {method!r}: use one of " + ", ".join(_IVP_METHODS)
        )
    hist = _History.make(history, D)
    grid = time_grid(T, dt)
    params = {str(k): str(v) for k, v in model.values.items()}
    params.update(T=T, dt=dt, history=hist.to_json())
    if solver == "steps":
        steps = _MethodOfSteps(mu, lam, theta, D, T, hist, method, rtol, atol, _sum_mode(model))
        q = steps(grid)
        values = np.column_stack([q[0], q[1], steps.x(grid)])
        record = {"solver": "steps", "method": method, "rtol": rtol, "atol": atol}
        info = {
            "solver": record,
            "breakpoints": list(steps.breakpoints),
            "steps": sum(len(seg.ts) - 1 for seg in steps.segments),
        }

        def dense(times):
            if (
                np.any(~np.isfinite(times))
                or np.any(times < -D - 1e-12)
                or np.any(times > T + 1e-9)
            ):
                raise SymdelayInputError(f"times must lie in [-D, T] = [{-D:g}, {T:g}]")
            return np.column_stack([*steps(times), steps.x(times)])

    else:
        q = _jitcdde(mu, lam, theta, D, T, hist, grid, rtol, atol)
        values = np.column_stack([q[0], q[1], q[0] - q[1]])
        record = {"solver": "jitcdde", "method": "Bogacki-Shampine", "rtol": rtol}
        info, dense = {"solver": {**record, "atol": atol}}, None
    return TimeSeries(
        ("q1", "q2", "x"), grid, values, params, kind="dde", model_name=model.name,
        info=info, dense=dense,
    )  # fmt: skip


def _sum_mode(model) -> tuple[float, float]:
    """``(a, b)`` of the sum mode ``s' = a - b s`` (derived from the table, at the numbers)."""
    _, _, (s, row) = _lag()
    row = row.xreplace(dict(model.values))
    if sp.diff(row, s, 2) != 0 or row.free_symbols - {s}:
        raise VerificationError(f"the sum mode {row} is not linear with numbers")
    return float(row.subs(s, 0)), float(-sp.diff(row, s))


def _routing(model, q1, q2) -> tuple:
    """The logit probabilities ``(p_1, p_2)`` of observed lengths ``q1, q2``: the routing
    rates of the table over their sum (``2 lam``), at the model's numbers."""
    lim = _lag()[0]
    total = sp.simplify(sp.Add(*lim.routed))
    at = {_q1: q1, _q2: q2}
    return tuple((p / total).xreplace(dict(model.values)).xreplace(at) for p in lim.routed)


def specialised_fluid(
    model, *, T, dt, initial=None, solver="auto", rtol=None, atol=None, force=False,
    history=None,
) -> TimeSeries | None:  # fmt: skip
    """The fluid entry's fast path for the two-queue logit constant-lag model (a
    specialisation of :func:`symdelay.analysis.fluid.fluid`): the scalar difference DDE by
    the method of steps and the sum mode in closed form (:func:`integrate`), returned as the
    generic path's record (``kind="fluid"``, the states ``q1, q2``, the same ``info`` keys,
    ``res.at(times)``). Declines (``None``) what it does not do: an empty history, a solver
    ``solve_ivp`` does not name, or an ``initial`` state that differs from a history table's
    value at 0 (a jump at 0)."""
    from symdelay.analysis.dfluid import EMPTY, read_history
    from symdelay.analysis.fluid import DEFAULT_ATOL, DEFAULT_RTOL, check_fluid_cost
    from symdelay.analysis.roots import default_initial
    from symdelay.analysis.stochastic import run_parameters
    from symdelay.core.checks import check_horizon, check_state

    method = "DOP853" if solver == "auto" else solver
    if method not in _IVP_METHODS or (isinstance(history, str) and history.strip() == EMPTY):
        return None
    D = founding_numbers(model, "integrate")[3]
    Tf, dtf = check_horizon(T, dt)
    names = [s.name for s in model.states]
    y0 = default_initial(model) if initial is None else check_state(initial, names)
    shown = "constant"
    if history is None:
        hist = (float(y0[0]), float(y0[1]))
    else:
        t, v = read_history(history, names)
        if np.any(v < 0):
            raise SymdelayInputError("--history: the states must be >= 0 (scaled queue lengths)")
        if t[0] > -D + 1e-12 * max(1.0, D):
            raise SymdelayInputError(
                f"--history covers [{t[0]:g}, 0], shorter than the longest lag of "
                f"{model.name} ({D:g}): give rows back to t = {-D:g}"
            )
        if initial is not None and np.any(np.asarray(y0) != v[-1]):
            return None
        y0 = v[-1]

        def hist(s, t=t, v=v):
            return (float(np.interp(s, t, v[:, 0])), float(np.interp(s, t, v[:, 1])))

        shown = {"table": {"t": [float(t[0]), float(t[-1])], "rows": len(t)}}
    check_fluid_cost(f"the fluid path of {model.name} (2 states, T = {Tf:g})", 2, Tf, dtf, force)
    rtol = DEFAULT_RTOL if rtol is None else rtol
    atol = DEFAULT_ATOL if atol is None else atol
    res = integrate(model, Tf, history=hist, dt=dtf, method=method, rtol=rtol, atol=atol)
    params = run_parameters(model)
    params.update(T=Tf, dt=dtf, initial=[float(x) for x in y0], history=shown)
    cuts = res.info["breakpoints"]
    info = {
        "solver": {
            "scheme": "method of steps (the difference mode; the sum mode in closed form)",
            "method": method,
            "rtol": float(rtol),
            "atol": float(atol),
            "error_control": (
                "local error per step <= atol + rtol |x| on the difference x = q1 - q2; the "
                "sum q1 + q2 exact"
            ),
            "pieces": len(cuts) - 1,
            "steps": res.info["steps"],
            "breakpoints": cuts[:50] + (["..."] if len(cuts) > 50 else []),
            "lags": {"constant look-backs": [D], "longest": D},
        }
    }

    def at(times):
        return res.at(times)[:, :2]

    return TimeSeries(
        ("q1", "q2"), res.t, res.values[0, :, :2], params, kind="fluid",
        model_name=model.name, info=info, dense=at,
    )  # fmt: skip


# ---------------------------------------------------------------- history
@dataclass(frozen=True)
class _History:
    """``h(s) = (q1, q2)`` on ``[-D, 0]``: a constant or a checked user function."""

    D: float
    constant: tuple | None = None
    function: object = None

    @classmethod
    def make(cls, history, D: float) -> _History:
        if history is None:
            history = (0.0, 1.0)
        if callable(history):
            h = cls(D, None, history)
            for s in np.linspace(-D, 0.0, 9):
                h._value(s)
            return h
        try:
            v = np.asarray(history, dtype=float)
        except (TypeError, ValueError):
            raise SymdelayInputError(
                f"history must be (q1, q2) or a function of s in [-D, 0], got {history!r}"
            ) from None
        if v.shape != (2,):
            raise SymdelayInputError(
                f"history must be two numbers (q1, q2) or a function, got shape {v.shape}"
            )
        if not np.all(np.isfinite(v)) or np.any(v < 0):
            raise SymdelayInputError(f"history must be finite queue lengths >= 0, got {history}")
        return cls(D, (float(v[0]), float(v[1])), None)

    def _value(self, s: float) -> np.ndarray:
        try:
            v = np.asarray(self.function(float(s)), dtype=float)
        except (TypeError, ValueError) as e:
            raise SymdelayInputError(f"history({s:g}) failed: {e}; return (q1, q2)") from None
        if v.shape != (2,) or not np.all(np.isfinite(v)) or np.any(v < 0):
            raise SymdelayInputError(
                f"history({s:g}) must be two finite queue lengths >= 0, got {v.tolist()}"
            )
        return v

    def __call__(self, s: float) -> np.ndarray:
        if self.constant is not None:
            return np.array(self.constant)
        return self._value(s)

    @property
    def is_constant(self) -> bool:
        return self.constant is not None

    def to_json(self):
        return list(self.constant) if self.constant is not None else "function"


# ---------------------------------------------------------------- method of steps
class _MethodOfSteps:
    """Dense solution ``q(t)``, ``-D <= t <= T``: ``x`` by steps, ``s`` in closed form."""

    def __init__(self, mu, lam, theta, D, T, hist, method, rtol, atol, sum_mode):
        from scipy.integrate import solve_ivp  # imported on use: slow to import

        rhs = difference_functions("math")[0]
        self.D, self.T, self.hist = D, T, hist
        h0 = hist(0.0)
        level, self.rate = sum_mode  # s' = level - rate * s
        self.s0, self.s_star = float(h0[0] + h0[1]), level / self.rate
        n = _intervals(T, D)
        self.segments, self.breakpoints = [], [k * D for k in range(n)] + [T]
        x_a = float(h0[0] - h0[1])
        for k in range(n):
            a, b = self.breakpoints[k], self.breakpoints[k + 1]
            x_hist = self._x_history if k == 0 else _scalar_evaluator(self.segments[-1])

            def f(u, y, x_hist=x_hist):
                return (rhs(y[0], x_hist(u - D), mu, lam, theta),)

            sol = solve_ivp(
                f, (a, b), [x_a], method=method, rtol=rtol, atol=atol, dense_output=True
            )
            if not sol.success:
                raise VerificationError(f"solve_ivp ({method}) failed on [{a}, {b}]: {sol.message}")
            self.segments.append(sol.sol)
            x_a = float(sol.y[0, -1])

    def _x_history(self, s: float) -> float:
        h = self.hist(max(-self.D, min(0.0, s)))
        return float(h[0] - h[1])

    def x(self, t) -> np.ndarray:
        t = np.atleast_1d(np.asarray(t, dtype=float))
        out = np.empty_like(t)
        n = len(self.segments)
        k = np.where(t < 0, -1, np.minimum((t // self.D).astype(int), n - 1))
        for i in np.unique(k):
            sel = k == i
            if i < 0:
                out[sel] = [self._x_history(s) for s in t[sel]]
            else:
                out[sel] = self.segments[i](t[sel])[0]
        return out

    def s(self, t) -> np.ndarray:
        t = np.atleast_1d(np.asarray(t, dtype=float))
        past = [float(np.sum(self.hist(v))) for v in t[t < 0]]
        out = self.s_star + (self.s0 - self.s_star) * np.exp(-self.rate * np.maximum(t, 0.0))
        out[t < 0] = past
        return out

    def __call__(self, t) -> np.ndarray:
        """``(q1, q2) = ((s + x)/2, (s - x)/2)`` at the times ``t``."""
        x, s = self.x(t), self.s(t)
        return np.vstack([(s + x) / 2, (s - x) / 2])


#: Most intervals [kD, (k+1)D] the method of steps will take.
MAX_INTERVALS = 100_000


def _intervals(T: float, D: float) -> int:
    n = max(1, math.ceil(T / D - 1e-12))
    if n > MAX_INTERVALS:
        raise SymdelayInputError(
            f"T/D = {T / D:.3g} intervals of the method of steps (more than {MAX_INTERVALS}): "
            "shorten T or use solver='jitcdde'"
        )
    return n


def _scalar_evaluator(sol):
    """``t -> x(t)`` (a float) for a scalar ``OdeSolution``: the right-hand side calls it
    at every stage, and ``OdeSolution.__call__`` costs ~40 us. For DOP853 the degree-7
    interpolants are evaluated in plain floats from their coefficients, after checking
    them against ``OdeSolution`` at each step's midpoint; otherwise ``OdeSolution`` itself.
    """
    generic = lambda t: float(sol(t)[0])  # noqa: E731
    try:
        pieces = [
            (p.t_old, p.h, [float(f[0]) for f in reversed(p.F)], float(p.y_old[0]))
            for p in sol.interpolants
        ]
        ts = [float(v) for v in sol.ts]
    except (AttributeError, TypeError, IndexError):
        return generic
    if len(ts) != len(pieces) + 1 or ts[-1] < ts[0]:
        return generic

    def fast(t: float) -> float:
        j = min(max(bisect.bisect_right(ts, t) - 1, 0), len(pieces) - 1)
        t_old, h, coef, y_old = pieces[j]
        x = (t - t_old) / h
        y = 0.0
        for i, f in enumerate(coef):
            y = (y + f) * (x if i % 2 == 0 else 1.0 - x)
        return y + y_old

    for a, b in itertools.pairwise(ts):
        m = 0.5 * (a + b)
        ref = generic(m)
        if not abs(fast(m) - ref) <= 1e-13 * (1.0 + abs(ref)):
            return generic
    return fast


# ---------------------------------------------------------------- jitcdde
def _jitcdde(mu, lam, theta, D, T, hist, grid, rtol, atol) -> np.ndarray:
    """The two-queue logit form integrated by JiTCDDE (compiled C), sampled on ``grid``."""
    try:
        import symengine as se
        from jitcdde import jitcdde, t, y
    except ImportError:
        raise SymdelayInputError(
            "solver='jitcdde' needs the optional package jitcdde (pip install jitcdde); "
            "or use solver='steps'"
        ) from None
    now, lag = sp.symbols("now_1 now_2"), sp.symbols("lag_1 lag_2")
    at = {MU: mu, LAM: lam, THETA: theta}
    to_se = {se.sympify(a): b for a, b in zip((*now, *lag), (y(0), y(1), y(0, t - D), y(1, t - D)))}
    f = [se.sympify(e.xreplace(at)).subs(to_se) for e in _lag()[0].drift(now, lag)]
    out = np.empty((2, grid.size))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dde = jitcdde(f, verbose=False, max_delay=D)
        if hist.is_constant:
            dde.constant_past(list(hist.constant), time=0.0)
        else:
            dde.past_from_function(hist.function, times_of_interest=np.linspace(-D, 0.0, 21))
        dde.set_integration_parameters(
            rtol=rtol, atol=atol, min_step=1e-14, first_step=min(1e-3, D / 100), max_step=D / 4
        )
        dde.step_on_discontinuities(propagations=1)  # t = 0 and its first propagation, D
        done, chunk = 0, D / 2
        end = min(T, float(dde.t))
        while True:
            # the integrator keeps the last D of its past: sample it before going on
            idx = done + np.nonzero(grid[done:] <= end + 1e-12)[0]
            if idx.size:
                out[:, idx] = np.asarray(dde.get_state().get_state(grid[idx])).T
                done = int(idx[-1]) + 1
            if done >= grid.size:
                return out
            end = min(T, end + chunk)
            dde.integrate(end)


# ---------------------------------------------------------------- comparison
@dataclass
class ActionDelayComparison:
    """DDE against the Erlang(L, mean D) action-delay fluid model, one row per ``L``.

    ``sup_distance[j] = max_t |x_dde(t) - x_L(t)|`` over the grid on ``[0, T]``;
    ``amplitude[j]`` and ``amplitude_dde``: half the peak-to-peak range of ``x`` over the
    last ``window`` fraction of ``[0, T]`` (extrema refined by a parabola through the
    three samples around them) -- the limit-cycle amplitude when the transient is over,
    a small remainder of the decay when the equilibrium is stable. ``theta_c``: the Hopf
    points (``inf`` when the L-model never loses stability).
    """

    parameters: dict
    L_values: tuple
    pipeline: str
    history: tuple
    t: np.ndarray
    x_dde: np.ndarray
    x_L: dict
    sup_distance: tuple
    amplitude: tuple
    amplitude_dde: float
    window: float
    theta_c: tuple
    theta_c_dde: float

    def to_json(self) -> dict:
        return {
            "parameters": self.parameters,
            "pipeline": self.pipeline,
            "history": list(self.history),
            "window": self.window,
            "theta_c_dde": _finite_or_inf(self.theta_c_dde),
            "amplitude_dde": self.amplitude_dde,
            "rows": [
                {"L": L, "sup_distance": d, "amplitude": a, "theta_c": _finite_or_inf(tc)}
                for L, d, a, tc in zip(
                    self.L_values, self.sup_distance, self.amplitude, self.theta_c
                )
            ],
        }


def _finite_or_inf(v: float):
    """JSON has no infinity: spelled ``"inf"`` (as in ``worst-delay --json``)."""
    return "inf" if math.isinf(v) else v


def _amplitude(t: np.ndarray, x: np.ndarray, window: float) -> float:
    """Half of (max - min) of ``x`` on the last ``window`` of ``t``, extrema refined."""
    i0 = int(np.searchsorted(t, t[-1] - window * (t[-1] - t[0])))
    seg = x[i0:]

    def refined(i: int, sign: float) -> float:
        j = i0 + i
        if 0 < j < x.size - 1:
            a, b, c = x[j - 1], x[j], x[j + 1]
            den = a - 2 * b + c
            if den * sign < 0:
                return b - (a - c) ** 2 / (8 * den)
        return x[j]

    return 0.5 * (refined(int(np.argmax(seg)), 1.0) - refined(int(np.argmin(seg)), -1.0))


def compare_with_action_delay(
    L_values,
    mu,
    lam,
    theta,
    D,
    T,
    *,
    history=(0, 1),
    dt=0.01,
    pipeline: str = "matched",
    window: float = 0.25,
    rtol: float = 1e-10,
    atol: float = 1e-12,
) -> ActionDelayComparison:
    """Integrate the DDE and the Erlang(L, mean D) action-delay fluid model for each ``L``.

    Both start from ``q(0) = history`` (two numbers; the DDE uses them as a constant
    history). ``pipeline="matched"`` fills the action-delay pipeline as if that history had
    been in force, ``z_{i,l}(0) = 2 lam p_i(history) D/L`` (then the only difference is the
    spread of the Erlang delay); ``pipeline="empty"`` is the paper's start ``z = 0``, whose
    ``x`` tends instead to the DDE's with ``x = 0`` before time 0.
    The Erlang models are integrated by :func:`symdelay.models.erlang.stochastic.fluid.fluid` (DOP853),
    the DDE by the method of steps; both at ``rtol``, ``atol`` and sampled every ``dt``.
    """
    from symdelay.core.params import as_L
    from symdelay.models.erlang.hopf import critical_theta
    from symdelay.models.erlang.stochastic.fluid import fluid

    if isinstance(L_values, (str, bytes)) or not hasattr(L_values, "__iter__"):
        L_values = [L_values]
    Ls = tuple(as_L(v, allow_symbol=False) for v in L_values)
    if not Ls:
        raise SymdelayInputError("L_values is empty: give phase counts such as 1, 2, 4, 8")
    if pipeline not in ("matched", "empty"):
        raise SymdelayInputError(f"pipeline must be 'matched' or 'empty', got {pipeline!r}")
    w = check_tolerance("window", window)
    if not 0 < w <= 1:
        raise SymdelayInputError(f"window must be a fraction in (0, 1], got {window!r}")
    from symdelay.models import build_model

    m = build_model("dde", mu=mu, lam=lam, theta=theta, D=D)
    hist = _History.make(history, 1.0)
    if not hist.is_constant:
        raise SymdelayInputError("history must be two numbers (q1, q2) for the comparison")
    res = integrate(m, T, history=hist.constant, dt=dt, rtol=rtol, atol=atol)
    mu_f, lam_f, th_f, D_f = founding_numbers(m, "compare")
    p = _routing(m, *(sp.Float(v) for v in hist.constant))
    p = [float(v) for v in p]
    exact = tuple(m.values[s] for s in (MU, LAM, THETA, D_))
    mu_x, lam_x, _, D_x = exact
    xs, dists, amps, tcs = {}, [], [], []
    for L in Ls:
        y0 = np.zeros(2 * L + 2)
        y0[:2] = hist.constant
        if pipeline == "matched":
            y0[2 : 2 + L] = 2 * lam_f * p[0] * D_f / L
            y0[2 + L :] = 2 * lam_f * p[1] * D_f / L
        f = fluid(L, *exact, T=T, dt=dt, initial=y0, rtol=rtol, atol=atol)
        if f.t.shape != res.t.shape:
            raise VerificationError("the fluid and DDE grids differ")
        fx = f["q1"] - f["q2"]
        xs[L] = fx
        dists.append(float(np.max(np.abs(fx - res["x"]))))
        amps.append(float(_amplitude(f.t, fx, w)))
        tcs.append(float(critical_theta(L, mu_x, lam_x, D_x).points[0].theta_c))
    tc_inf = float(critical_theta("inf", mu_x, lam_x, D_x).points[0].theta_c)
    return ActionDelayComparison(
        parameters={"mu": mu_f, "lam": lam_f, "theta": th_f, "D": D_f, "T": float(res.t[-1])},
        L_values=Ls,
        pipeline=pipeline,
        history=hist.constant,
        t=res.t,
        x_dde=res["x"],
        x_L=xs,
        sup_distance=tuple(dists),
        amplitude=tuple(amps),
        amplitude_dde=float(_amplitude(res.t, res["x"], w)),
        window=w,
        theta_c=tuple(tcs),
        theta_c_dde=tc_inf,
    )
