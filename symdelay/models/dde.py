"""The delayed-information model (Pender, Rand & Wesson): routing on lengths seen D ago.

Two infinite-server queues; the dispatcher sends a job to queue ``i`` with the logit
probability of the queue lengths it observed ``D`` time units ago, and the job enters
service at once (no action delay). The fluid limit is the delay-differential system

    q_i'(t) = 2 lam p_i(q(t - D)) - mu q_i(t),
    p_i(q) = exp(-theta q_i) / (exp(-theta q_1) + exp(-theta q_2)),

with a history ``q(s)``, ``-D <= s <= 0``. The system is not typed in: it is the founding
model's transition table with every job's Erlang(L, mean D) delay replaced by its mean
(:func:`symdelay.models.delayed_routing.lag_limit`: the flow into service at ``t`` is the
routing at ``t - D``), the limit ``L -> oo``. Since ``p_1 + p_2 = 1`` and
``p_1 - p_2 = -tanh(theta (q_1 - q_2) / 2)`` (derived and checked by SymPy,
:meth:`~symdelay.models.delayed_routing.LagLimit.mode`), the sum ``s = q_1 + q_2`` obeys
the ODE ``s' = 2 lam - mu s`` (no delay: solved in closed form) and the difference
``x = q_1 - q_2`` the scalar DDE

    x'(t) = -mu x(t) - 2 lam tanh(theta x(t - D) / 2),

whose linearisation has the characteristic function ``r + mu + lam theta exp(-r D)``: the
L -> oo limit of the action-delay equation ``(r + mu)(r + gamma)^L + lam theta gamma^L``.

It is not a jump process with a finite state, so it is not a
:class:`symdelay.model.Model`: :class:`DelayedInformationModel` is its own class, with the
same kinds of answers (equations, equilibrium, characteristic function, ``to_json``,
``_repr_latex_``) and a DDE integrator (:meth:`DelayedInformationModel.integrate`).

**Integration** (``solver="steps"``, always available): the method of steps. On each
interval ``[kD, (k+1)D]`` the delayed term is a known function (the history, or the dense
output of the previous interval), so the scalar DDE for ``x`` is an ODE, solved by SciPy
``solve_ivp`` (default ``DOP853``, ``rtol=1e-12``, ``atol=1e-14``) with dense output and
with the breakpoints ``kD`` (where the derivative jumps of the history propagate) as
interval ends; its right-hand side is compiled from the statement
(:func:`difference_functions`). ``solver="jitcdde"`` (optional package ``jitcdde``)
integrates the two-queue logit form of the statement directly with JiTCDDE's
Bogacki--Shampine method, stepping on the propagated discontinuities: an independent
second path.

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

>>> m = model(mu=1, lam=1, theta=2, D=1)
>>> m.characteristic_function()
r + 1 + 2*exp(-r)
>>> m.equilibrium.point
{q1: 1, q2: 1}
>>> res = m.integrate(T=2, history=(0, 1), dt=1)
>>> [round(float(v), 9) for v in res["q1"]]
[0.0, 1.113539882, 1.003667987]
"""

from __future__ import annotations

import bisect
import itertools
import math
import warnings
from dataclasses import dataclass
from functools import cache, cached_property

import numpy as np

from symdelay.analysis.fluid import check_tolerance
from symdelay.analysis.timeseries import TimeSeries
from symdelay.core.display import ReadOnlyDict
from symdelay.core.errors import SymdelayInputError, VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.options import RATES, Option
from symdelay.core.params import as_parameter
from symdelay.core.precision import workdps
from symdelay.core.symbols import D as D_
from symdelay.core.symbols import lam as LAM
from symdelay.core.symbols import mu as MU
from symdelay.core.symbols import r as R
from symdelay.core.symbols import theta as THETA

__all__ = [
    "INFO",
    "model",
    "DelayedInformationModel",
    "ActionDelayComparison",
    "compare_with_action_delay",
    "difference_functions",
    "DEFAULT_SOLVER",
]

INFO = {
    "name": "dde",
    "parameters": ["mu", "lam", "theta", "D"],
    "description": "the delayed-information model (Pender, Rand & Wesson): two queues, logit "
    "routing on queue lengths observed D ago, no action delay (a delay-differential equation)",
}

#: Default integrator of the method of steps and its tolerances.
DEFAULT_SOLVER = {"solver": "steps", "method": "DOP853", "rtol": 1e-12, "atol": 1e-14}

_t = sp.Symbol("t")
_q1, _q2 = sp.symbols("q1 q2")
_Q1, _Q2, _X, _S = (sp.Function(n) for n in ("q1", "q2", "x", "s"))
_SOLVERS = ("steps", "jitcdde")
_IVP_METHODS = ("RK45", "RK23", "DOP853", "Radau", "BDF", "LSODA")


OPTIONS = (*RATES, Option("D", "information delay (> 0)"))


@cache
def _lag():
    """The founding model's constant-lag limit (:class:`~symdelay.models.delayed_routing.
    LagLimit`, symbolic ``mu, lam, theta``) and its derived difference and sum modes."""
    from symdelay.models.delayed_routing import lag_limit
    from symdelay.models.erlang.founding import symbolic_founding

    lim = lag_limit(symbolic_founding(1))
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


def model(mu=None, lam=None, theta=None, D=None) -> DelayedInformationModel:
    """The delayed-information model; a parameter left ``None`` stays symbolic."""
    return DelayedInformationModel(mu=mu, lam=lam, theta=theta, D=D)


def _param(name: str, value, positive: bool):
    expr = as_parameter(name, value, positive=positive)
    if not positive and expr.is_number and not expr >= 0:
        raise SymdelayInputError(f"{name} must be >= 0 (routing sensitivity), got {value}")
    return expr


class DelayedInformationModel:
    """Two queues, logit routing on the lengths observed ``D`` ago, instantaneous entry.

    Parameters are made exact (``0.1 -> 1/10``); ``None`` leaves the canonical symbol.
    ``mu, lam, D > 0``; ``theta >= 0``.
    """

    name = "dde"
    states = (_q1, _q2)

    def __init__(self, mu=None, lam=None, theta=None, D=None):
        self.mu = _param("mu", mu, True)
        self.lam = _param("lam", lam, True)
        self.theta = _param("theta", theta, False)
        self.D = _param("D", D, True)
        self.values = ReadOnlyDict(
            {
                s: v
                for s, v in ((MU, self.mu), (LAM, self.lam), (THETA, self.theta), (D_, self.D))
                if v != s
            }
        )

    # ------------------------------------------------------------ equations
    def _at(self, expr):
        return expr.xreplace(self.values) if self.values else expr

    def routing(self, q1, q2) -> tuple:
        """The logit probabilities ``(p_1, p_2)`` of observed lengths ``q1, q2``: the routing
        rates of the statement over their sum (``2 lam``)."""
        lim = _lag()[0]
        total = sp.simplify(sp.Add(*lim.routed))
        at = {_q1: q1, _q2: q2}
        return tuple(self._at(p / total).xreplace(at) for p in lim.routed)

    @cached_property
    def equations(self) -> tuple:
        """The two DDEs ``q_i'(t) = 2 lam p_i(q(t - D)) - mu q_i(t)`` (SymPy ``Eq``)."""
        t = _t
        now, lag = (_Q1(t), _Q2(t)), (_Q1(t - self.D), _Q2(t - self.D))
        return tuple(
            sp.Eq(sp.Derivative(Q(t), t), f)
            for Q, f in zip((_Q1, _Q2), self._drift(now, lag), strict=True)
        )

    @cached_property
    def difference_equation(self) -> sp.Eq:
        """``x' = -mu x - 2 lam tanh(theta x(t - D)/2)``, ``x = q_1 - q_2`` (derived exactly)."""
        _, (x, xd, row), _ = _lag()
        at = {x: _X(_t), xd: _X(_t - self.D)}
        return sp.Eq(sp.Derivative(_X(_t), _t), self._at(row).xreplace(at))

    @cached_property
    def sum_equation(self) -> sp.Eq:
        """``s' = 2 lam - mu s``, ``s = q_1 + q_2``: no delay (``p_1 + p_2 = 1``)."""
        _, _, (s, row) = _lag()
        return sp.Eq(sp.Derivative(_S(_t), _t), self._at(row).xreplace({s: _S(_t)}))

    def _drift(self, now, delayed) -> tuple:
        return tuple(self._at(f) for f in _lag()[0].drift(now, delayed))

    # ------------------------------------------------------------ equilibrium
    @cached_property
    def equilibrium(self):
        """The constant solution ``q(t) = q(t - D) = q*``, solved by SymPy on ``q_1 = q_2``.

        It is the only one: ``s* = 2 lam/mu`` and ``-mu x - 2 lam tanh(theta x/2)`` is
        strictly decreasing in ``x`` (``theta >= 0``), so ``x* = 0``.
        """
        from symdelay.model import Equilibrium

        q = sp.Symbol("q")
        F = self._drift((q, q), (q, q))
        sols = sp.solve(sp.simplify(F[0]), q)
        if len(sols) != 1:
            raise VerificationError(f"symmetric equilibrium: expected one solution, got {sols}")
        qs = sp.simplify(sols[0])
        for f in self._drift((qs, qs), (qs, qs)):
            if sp.simplify(f) != 0:
                raise VerificationError("the drift does not vanish at the equilibrium")
        return Equilibrium({_q1: qs, _q2: qs}, True, 0, "sympy.solve (symmetric point)")

    @cached_property
    def jacobians(self) -> tuple:
        """``(A, B)``: derivatives of the drift in ``q(t)`` and in ``q(t - D)`` at ``q*``."""
        d1, d2 = sp.symbols("d1 d2")
        F = sp.Matrix(self._drift((_q1, _q2), (d1, d2)))
        at = {_q1: self.equilibrium.point[_q1], _q2: self.equilibrium.point[_q2]}
        at_d = {d1: at[_q1], d2: at[_q2]}
        A = F.jacobian([_q1, _q2]).subs(at).subs(at_d).applyfunc(sp.simplify)
        B = F.jacobian([d1, d2]).subs(at).subs(at_d).applyfunc(sp.simplify)
        return A, B

    def characteristic_function(self, full: bool = False) -> sp.Expr:
        """The difference-mode characteristic function ``r + mu + lam theta exp(-r D)``.

        Derived from the linearisation ``q' = A q(t) + B q(t - D)``: ``(1, -1)`` is an
        eigenvector of both ``A`` and ``B``, and ``det(r I - A - B e^{-rD})`` is checked to
        be the sum-mode factor ``r + mu`` times it. ``full=True`` returns that product.
        """
        A, B = self.jacobians
        E = sp.exp(-R * self.D)
        v, u = sp.Matrix([1, -1]), sp.Matrix([1, 1])
        a, b = _eigenvalue(A, v), _eigenvalue(B, v)
        a_s, b_s = _eigenvalue(A, u), _eigenvalue(B, u)
        diff = sp.expand(R - a - b * E)
        summ = sp.expand(R - a_s - b_s * E)
        det = (R * sp.eye(2) - A - B * E).det()
        if sp.simplify(sp.expand(det - diff * summ)) != 0:
            raise VerificationError("det(rI - A - B e^{-rD}) is not the product of the modes")
        return sp.Mul(summ, diff) if full else diff

    # ------------------------------------------------------------ numerics
    def _numbers(self, what: str) -> tuple[float, float, float, float]:
        for name, v in (("mu", self.mu), ("lam", self.lam), ("theta", self.theta), ("D", self.D)):
            if not v.is_number:
                raise SymdelayInputError(
                    f"{name} is symbolic: give it a number to {what}, e.g. model({name}=1, ...)"
                )
        return float(self.mu), float(self.lam), float(self.theta), float(self.D)

    def rightmost_root(self, dps: int = 15):
        """The rightmost root of ``r + mu + lam theta e^{-rD}``: ``-mu + W_0(-lam theta D
        e^{mu D})/D`` (principal Lambert W, the rightmost branch for a real argument)."""
        import mpmath

        from symdelay.core.params import as_dps

        self._numbers("compute roots")
        dps = as_dps(dps)
        with workdps(dps):
            m, k, d = (
                mpmath.mpf(str(sp.N(v, dps + 15))) for v in (self.mu, self.lam * self.theta, self.D)
            )
            root = -m + mpmath.lambertw(-k * d * mpmath.exp(m * d), 0) / d
        with mpmath.workdps(dps):
            return +root if mpmath.im(root) else +mpmath.re(root)

    def integrate(
        self,
        T,
        history=None,
        dt=0.1,
        *,
        solver: str = DEFAULT_SOLVER["solver"],
        method: str = DEFAULT_SOLVER["method"],
        rtol: float = DEFAULT_SOLVER["rtol"],
        atol: float = DEFAULT_SOLVER["atol"],
    ) -> TimeSeries:
        """Integrate the nonlinear DDE on ``[0, T]``; values on ``0, dt, ..., floor(T/dt) dt``.

        ``history``: ``(q1, q2)`` (a constant history; default ``(0, 1)``, the paper's start)
        or a function ``h(s) -> (q1, q2)`` for ``-D <= s <= 0``. ``solver``: ``"steps"``
        (method of steps with ``solve_ivp(method, rtol, atol)``) or ``"jitcdde"``.

        Returns a :class:`~symdelay.analysis.timeseries.TimeSeries` (``kind="dde"``) of the
        states ``q1, q2`` and the difference ``x``: with the method of steps ``x`` is the
        integrated difference itself (full relative precision when it is small, unlike
        ``q1 - q2``), ``info["breakpoints"]`` the ends ``0, D, 2D, ..., T`` of its
        intervals, and ``res.at(times)`` the dense solution ``(q1, q2, x)`` at any times in
        ``[-D, T]`` (the history for ``t < 0``).
        """
        from symdelay.core.checks import check_horizon, time_grid

        mu, lam, theta, D = self._numbers("integrate")
        T, dt = check_horizon(T, dt)
        rtol, atol = check_tolerance("rtol", rtol), check_tolerance("atol", atol, zero=True)
        if solver not in _SOLVERS:
            raise SymdelayInputError(
                f"unknown solver {solver!r}: use one of " + ", ".join(_SOLVERS)
            )
        if method not in _IVP_METHODS:
            raise SymdelayInputError(
                f"unknown method {method!r}: use one of " + ", ".join(_IVP_METHODS)
            )
        hist = _History.make(history, D)
        grid = time_grid(T, dt)
        params = {k: str(v) for k, v in self.values.items()}
        params.update(T=T, dt=dt, history=hist.to_json())
        if solver == "steps":
            steps = _MethodOfSteps(mu, lam, theta, D, T, hist, method, rtol, atol, self._sum_mode())
            q = steps(grid)
            values = np.column_stack([q[0], q[1], steps.x(grid)])
            record = {"solver": "steps", "method": method, "rtol": rtol, "atol": atol}
            info = {"solver": record, "breakpoints": list(steps.breakpoints)}

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
            ("q1", "q2", "x"), grid, values, params, kind="dde", model_name=self.name,
            info=info, dense=dense,
        )  # fmt: skip

    def _sum_mode(self) -> tuple[float, float]:
        """``(a, b)`` of the sum mode ``s' = a - b s`` (read off :attr:`sum_equation`)."""
        _, _, (s, row) = _lag()
        row = self._at(row)
        if sp.diff(row, s, 2) != 0 or row.free_symbols - {s}:
            raise VerificationError(f"the sum mode {row} is not linear with numbers")
        return float(row.subs(s, 0)), float(-sp.diff(row, s))

    # ------------------------------------------------------------ display
    def to_json(self) -> dict:
        """Equations, equilibrium and characteristic function (strings SymPy parses back)."""
        out = {
            "name": self.name,
            "kind": "delay-differential",
            "state": [s.name for s in self.states],
            "parameters": {
                "mu": "positive",
                "lam": "positive",
                "theta": "nonnegative",
                "D": "positive",
            },
            "values": {str(k): str(v) for k, v in self.values.items()},
            "equations": [str(e.rhs) for e in self.equations],
            "difference_equation": str(self.difference_equation.rhs),
            "sum_equation": str(self.sum_equation.rhs),
            "equilibrium": self.equilibrium.to_json(),
            "characteristic_function": str(self.characteristic_function()),
            "characteristic_function_full": str(self.characteristic_function(full=True)),
        }
        if all(v.is_number for v in (self.mu, self.lam, self.theta, self.D)):
            root = self.rightmost_root()
            out["rightmost_root"] = {"re": float(root.real), "im": abs(float(root.imag))}
        return out

    def _repr_latex_(self) -> str:
        from symdelay.core.latex import tex

        rows = [rf"{tex(e.lhs)} &= {tex(e.rhs)}" for e in self.equations]
        rows.append(rf"{tex(self.difference_equation.lhs)} &= {tex(self.difference_equation.rhs)}")
        rows.append(rf"0 &= {tex(self.characteristic_function())}")
        return r"$\begin{aligned}" + r"\\ ".join(rows) + r"\end{aligned}$"

    def __repr__(self) -> str:
        vals = ", ".join(f"{k}={v}" for k, v in self.values.items())
        return f"DelayedInformationModel({vals})"


def _eigenvalue(M: sp.Matrix, v: sp.Matrix) -> sp.Expr:
    """The eigenvalue of ``M`` for ``v``, after checking ``M v`` is a multiple of ``v``."""
    c = (M * v)[0] / v[0]
    if (M * v - c * v).applyfunc(sp.simplify) != sp.zeros(*v.shape):
        raise VerificationError(f"{list(v)} is not an eigenvector of the linearisation")
    return c


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
    m = model(mu=mu, lam=lam, theta=theta, D=D)
    hist = _History.make(history, 1.0)
    if not hist.is_constant:
        raise SymdelayInputError("history must be two numbers (q1, q2) for the comparison")
    res = m.integrate(T, history=hist.constant, dt=dt, rtol=rtol, atol=atol)
    mu_f, lam_f, th_f, D_f = m._numbers("compare")
    p = m.routing(*(sp.Float(v) for v in hist.constant))
    p = [float(v) for v in p]
    xs, dists, amps, tcs = {}, [], [], []
    for L in Ls:
        y0 = np.zeros(2 * L + 2)
        y0[:2] = hist.constant
        if pipeline == "matched":
            y0[2 : 2 + L] = 2 * lam_f * p[0] * D_f / L
            y0[2 + L :] = 2 * lam_f * p[1] * D_f / L
        f = fluid(L, m.mu, m.lam, m.theta, m.D, T=T, dt=dt, initial=y0, rtol=rtol, atol=atol)
        if f.t.shape != res.t.shape:
            raise VerificationError("the fluid and DDE grids differ")
        fx = f["q1"] - f["q2"]
        xs[L] = fx
        dists.append(float(np.max(np.abs(fx - res["x"]))))
        amps.append(float(_amplitude(f.t, fx, w)))
        tcs.append(float(critical_theta(L, m.mu, m.lam, m.D).points[0].theta_c))
    tc_inf = float(critical_theta("inf", m.mu, m.lam, m.D).points[0].theta_c)
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
