"""The fluid path of a model with lags: the method of steps with dense output.

A model with lags (:mod:`symdelay.model.lags`) has the fluid equations

    ds/dt = sum_nu nu beta_nu,

where a rate ``beta_nu`` reads ``delayed(E, k)`` (the expression ``E`` of the states seen
through the lag ``k``) and an action-delayed transition (``lag = k``) contributes its rate
seen through its lag (decided at ``t - u``, in effect at ``t``). :func:`delay_fluid`
integrates them on ``[0, T]`` from a history on ``[-tau_max, 0]``.

**The augmented state.** Every lag is read exactly, by one of three devices:

- a *constant* lag ``tau`` looks ``E`` up at ``t - tau`` in the dense solution (the
  history for ``t - tau <= 0``); ``dot(x)`` inside it is the derivative of the dense
  interpolant there (of the history's interpolant for ``t - tau < 0``);
- a *uniform* lag on ``[a, b]`` is ``(I(t - a) - I(t - b)) / (b - a)`` with the running
  integral ``I' = E`` kept as an extra state (exact: no quadrature);
- an *exponential*, *integer-shape gamma* (Erlang) or *phase-type* lag ``(alpha, S)`` is the
  output ``z (-S 1) + (1 - sum alpha) E`` of its chain ``z' = S^T z + alpha^T E`` (the linear
  chain trick: exact, the phases are extra states);
- a *mixture* is the weighted sum of its members, each read as above.

A gamma lag of non-integer shape has neither a chain nor a finite window: it is refused in
one line (its kernel average would need a quadrature of the whole past at every step).
``dot`` is read only through constant lags (or mixtures of them); a neutral model whose
difference operator is not proved stable (:func:`symdelay.analysis.lagroots.root_bound`)
is refused in one line.

**Method of steps.** ``[0, T]`` is cut at the breakpoints where a derivative of the solution
may jump: ``0`` (the history meets the solution), the history table's nodes, and their
propagations by sums ``n_1 tau_1 + ... + n_m tau_m`` of the constant look-backs (constant
lags, the ends of uniform windows) -- up to the integrator's order plus one for a retarded
equation (beyond it the jump is below the interpolant's error), every order for a neutral one
(jumps do not smooth out) -- and into pieces no longer than the shortest look-back, so that
every look-up falls into the part already computed. Each piece is one
:func:`scipy.integrate.solve_ivp` call with ``dense_output=True`` (default ``DOP853``, its
continuous extension of order 7), starting from the end of the previous one; the pieces'
interpolants together are the dense history. The derivative of an interpolant (for ``dot``)
is evaluated in closed form from its polynomial coefficients (explicit Runge-Kutta methods
only: a neutral model refuses the implicit ones).

**History.** ``history=None``: the initial state held constant on ``(-oo, 0]``; a table
(``{"t": [...], state: [...]}`` or a CSV file with those columns) interpolated linearly on
``[t_0, 0]`` and held at its first row before ``t_0`` (what a phase-type lag reads beyond
the table); ``"empty"``: nothing decided before 0 (every action-delayed rate is 0 before 0;
refused for a model that reads information through a lag). The extra states (integrals,
phases) are integrated over the history itself (the states forced to it), from their
steady values at its start.

**Mass in transit.** For every action-delayed transition the record carries the mass decided
and not yet in effect, ``M(t) = int_0^oo beta(t - u) P(X > u) du`` (``X`` its lag), named
``in_transit[<transition>]``: at the equilibrium it is the model's
:meth:`~symdelay.model.Model.in_transit` (Little's law). Constant lag: ``J(t) - J(t - tau)``
with ``J' = beta``; phase type: the sum of the chain's phases; uniform on ``[a, b]``:
``J(t) - (K(t - a) - K(t - b)) / (b - a)`` with ``K' = J``.

**Error control.** ``solve_ivp`` keeps each step's local error estimate below
``atol + rtol |y|`` on every component of the augmented state; the delayed values are exact
functions of the dense output (look-ups, integrals and chain states), so their error is the
interpolant's. The record states the scheme, tolerances, pieces and breakpoints
(``info["solver"]``).
"""

from __future__ import annotations

import bisect
import itertools
import math
import warnings
from dataclasses import dataclass, field

import numpy as np

from symdelay.analysis.history import EMPTY, MAX_HISTORY_BYTES, read_history
from symdelay.analysis.timeseries import TimeSeries
from symdelay.core.errors import SymdelayInputError

__all__ = ["delay_fluid", "read_history", "MAX_BREAKPOINTS", "MAX_HISTORY_BYTES", "EMPTY"]

#: Most breakpoints generated (a neutral equation's propagate without end) before refusing
#: unless forced.
MAX_BREAKPOINTS = 200_000
#: The explicit Runge-Kutta methods and their orders (a jump of the derivative of order
#: above the order + 1 is below the interpolant's error: propagated no further).
_EXPLICIT = {"RK23": 3, "RK45": 5, "DOP853": 8}
_IVP_METHODS = ("RK45", "RK23", "DOP853", "Radau", "BDF", "LSODA")
#: Seconds per right-hand side evaluation and look-up (measured on the 2-core machine).
_EVAL_SECONDS = 2.5e-5


# ---------------------------------------------------------------------------------------
# the compiled model: sources (expressions to evaluate) and channels (how a lag reads one)
@dataclass(eq=False)
class _Source:
    """An expression of the states (and, inside a constant lag, of their derivatives) with
    the values of the channels it reads: ``f(*states, *dots, *channel_values)``."""

    f: object
    channels: list
    has_dot: bool
    action: bool = False  # a rate decided by an action-delayed transition
    steady: object = None  # the same with every lag collapsed (dot -> 0): f(*states)
    key: object = None  # the expression


@dataclass(eq=False)
class _Channel:
    """A lag reading a source: ``kind`` constant / uniform / chain / mixture."""

    kind: str
    source: _Source
    tau: float = 0.0  # constant
    a: float = 0.0  # uniform [a, b]
    b: float = 0.0
    index: int = -1  # uniform: the running integral; chain: the first phase
    size: int = 0  # chain phases
    alpha: np.ndarray = None
    S: np.ndarray = None
    exit: np.ndarray = None
    atom: float = 0.0
    members: list = field(default_factory=list)  # mixture: [(weight, channel)]

    def lookback(self) -> float:
        """The longest finite look-back (a chain's infinite tail is the held history)."""
        if self.kind == "constant":
            return self.tau
        if self.kind == "uniform":
            return self.b
        if self.kind == "mixture":
            return max(c.lookback() for _, c in self.members)
        return 0.0

    def delays(self) -> set:
        """The constant look-backs (where a jump propagates)."""
        if self.kind == "constant":
            return {self.tau}
        if self.kind == "uniform":
            return {v for v in (self.a, self.b) if v > 0}
        if self.kind == "mixture":
            return set().union(*[c.delays() for _, c in self.members])
        return set()


class _Compiled:
    """The model at numbers as sources and channels over the augmented state."""

    def __init__(self, model):
        from symdelay.core.lazy import sympy as sp
        from symdelay.model.lags import delayed_function, steady

        self.model = model
        delayed, dot = delayed_function()
        values = dict(model.values)
        self.states = list(model.states)
        self.n = n = len(self.states)
        self.lags = {k: lag.xreplace(values) for k, lag in model.lags.items()}
        self.size = n  # the augmented state grows as channels are made
        self.integrals, self.chains = [], []  # channels owning extra states
        self.channels: dict = {}  # information channels by (lag, expression): made once
        self.sources: dict = {}
        self.neutral = False
        dots = [sp.Symbol(f"__dot_{s.name}") for s in self.states]
        self._sp, self._delayed, self._dot, self._dots = sp, delayed, dot, dots
        self._steady = steady
        lagsym = {sp.Symbol(k): k for k in self.lags}
        self._lagsym = lagsym
        self.transitions = []  # (nu, value reader, transition)
        self.action_channels = []
        for t in model.transitions:
            rate = t.rate.xreplace(values)
            src = self._source(rate, action=bool(t.lag), label=f"transition '{t.name}'")
            nu = np.array([float(c) for c in t.change])
            if t.lag:
                ch = self._channel(t.lag, src, f"transition '{t.name}'", action=True)
                self.action_channels.append((t, ch))
                self.transitions.append((nu, ch, t))
            else:
                self.transitions.append((nu, src, t))
        # the mass in transit: J' = beta (and K' = J for a uniform lag) per action transition
        self.transit = []
        for t, ch in self.action_channels:
            J = self._new_integral(ch.source)
            K = self._new_integral(None, of=J) if _has_kind(ch, "uniform") else None
            self.transit.append((t, ch, J, K))

    # ---- building
    def _source(self, expr, action: bool, label: str) -> _Source:
        if not action and expr in self.sources:
            return self.sources[expr]
        sp, delayed, dot = self._sp, self._delayed, self._dot
        occ = sorted(expr.atoms(delayed), key=sp.default_sort_key)
        # plain symbols no state or parameter can be named (a model's names never start
        # with "__"): the softmax compiler prints them as they are
        syms = [sp.Symbol(f"__occ{j}") for j in range(len(occ))]
        plain = expr.xreplace(dict(zip(occ, syms)))
        has_dot = bool(plain.atoms(dot))
        if has_dot:
            plain = plain.xreplace({dot(s): d for s, d in zip(self.states, self._dots)})
        channels = [
            self._channel(self._lagsym[o.args[1]], self._source(o.args[0], False, label), label)
            for o in occ
        ]
        f = _compile((*self.states, *self._dots, *syms), plain)
        st = _compile(self.states, self._steady(expr))
        out = _Source(f, channels, has_dot, action, st, key=expr)
        if not action:
            self.sources[expr] = out
        return out

    def _new_integral(self, source, of=None) -> int:
        j = self.size
        self.size += 1
        self.integrals.append((j, source, of))
        return j

    def _channel(self, name: str, src: _Source, label: str, action=False) -> _Channel:
        key = None if action else (name, src.key)
        if key is not None and key in self.channels:
            return self.channels[key]
        lag = self.lags[name]
        if lag.kind == "mixture":
            members = [
                (float(w), self._channel_of(m, src, label))
                for w, m in zip(lag.args["weights"], lag.args["lags"])
            ]
            ch = _Channel("mixture", src, members=members)
        else:
            ch = self._channel_of(lag, src, label)
        if src.has_dot:
            self.neutral = True
        if key is not None:
            self.channels[key] = ch
        return ch

    def _channel_of(self, lag, src: _Source, label: str) -> _Channel:
        a = lag.args
        if lag.kind == "constant":
            return _Channel("constant", src, tau=float(a["value"]))
        if src.has_dot:
            raise SymdelayInputError(
                f"{label}: dot() is read through the lag '{lag.name}' ({lag.kind}); the "
                "fluid path reads the history's derivative only through constant lags: write "
                "the announcement with a constant lag"
            )
        if lag.kind == "uniform":
            ch = _Channel("uniform", src, a=float(a["low"]), b=float(a["high"]))
            ch.index = self._new_integral(src)
            return ch
        if lag.kind == "gamma" and not a["shape"].is_Integer:
            raise SymdelayInputError(
                f"{label}: the lag '{lag.name}' is a gamma law of non-integer shape "
                f"{a['shape']}: its fluid path has no exact chain (give an integer shape, an "
                "Erlang law, or a phase-type law)"
            )
        if lag.kind == "exponential":
            alpha, S = [1.0], [[-1.0 / float(a["mean"])]]
        elif lag.kind == "gamma":
            k = int(a["shape"])
            rate = k / float(a["mean"])
            alpha = [1.0] + [0.0] * (k - 1)
            S = [[(-rate if i == j else rate if j == i + 1 else 0.0) for j in range(k)]
                 for i in range(k)]  # fmt: skip
        else:  # phase_type
            alpha = [float(x) for x in a["alpha"]]
            S = [[float(x) for x in row] for row in a["S"].tolist()]
        S = np.array(S, dtype=float)
        alpha = np.array(alpha, dtype=float)
        m = alpha.size
        ch = _Channel(
            "chain", src, index=self.size, size=m, alpha=alpha, S=S,
            exit=-S @ np.ones(m), atom=float(1.0 - alpha.sum()),
        )  # fmt: skip
        self.size += m
        self.chains.append(ch)
        return ch

    # ---- lags at a glance
    def all_channels(self) -> list:
        out = []

        def walk_src(src):
            for c in src.channels:
                walk(c)

        def walk(ch):
            out.append(ch)
            for _, m in ch.members:
                walk(m)
            walk_src(ch.source)

        for _nu, reader, _t in self.transitions:
            if isinstance(reader, _Channel):
                walk(reader)
            else:
                walk_src(reader)
        return out

    def lookback(self) -> float:
        """The longest composed look-back (an action lag over the information its rate
        reads adds up)."""

        def src_back(src):
            return max([ch_back(c) for c in src.channels], default=0.0)

        def ch_back(ch):
            own = ch.lookback()
            return own + src_back(ch.source)

        best = 0.0
        for _nu, reader, _t in self.transitions:
            best = max(best, ch_back(reader) if isinstance(reader, _Channel) else src_back(reader))
        return best

    def delays(self) -> list:
        return sorted(set().union(*[c.delays() for c in self.all_channels()]) or set())

    @property
    def reads_information(self) -> bool:
        return any(
            (isinstance(r, _Source) and r.channels)
            or (isinstance(r, _Channel) and r.source.channels)
            for _nu, r, _t in self.transitions
        )


def _compile(args, expr):
    """``f(*args) -> float``: a logit (softmax) ratio in the overflow-free form of the table
    fluid (:func:`symdelay.analysis.fluid_ode.compile_rhs`: no ``inf/inf`` for large ``theta
    q``), anything else by ``math`` code (``Min``, ``Max``, ... as ``Piecewise``)."""
    from symdelay.analysis.fluid_ode import _softmax_groups, compile_rhs
    from symdelay.core.lazy import sympy as sp
    from symdelay.model.pieces import as_piecewise

    if _softmax_groups([expr]):
        rhs = compile_rhs(args, [expr]).f

        def f(*values):
            return float(rhs(0.0, values)[0])

        return f
    return sp.lambdify(args, as_piecewise(expr), modules="math")


def _has_kind(ch: _Channel, kind: str) -> bool:
    return ch.kind == kind or any(_has_kind(c, kind) for _, c in ch.members)


# ---------------------------------------------------------------------------------------
# the history before 0
@dataclass
class _History:
    """The states on ``(-oo, 0)``: held constant, a table (linear), or empty."""

    kind: str  # "constant" | "table" | "empty"
    y0: np.ndarray
    t: np.ndarray = None
    v: np.ndarray = None  # rows: times, columns: states

    @property
    def start(self) -> float:
        return float(self.t[0]) if self.kind == "table" else 0.0

    def at(self, u: float) -> np.ndarray:
        if self.kind != "table":
            return self.y0
        if u <= self.t[0]:
            return self.v[0]
        return np.array([np.interp(u, self.t, self.v[:, i]) for i in range(self.v.shape[1])])

    def slope(self, u: float, side: int) -> np.ndarray:
        if self.kind != "table" or u < self.t[0] or u > 0:
            return np.zeros_like(self.y0)
        k = bisect.bisect_right(self.t, u) - 1 if side > 0 else bisect.bisect_left(self.t, u) - 1
        k = min(max(k, 0), len(self.t) - 2)
        return (self.v[k + 1] - self.v[k]) / (self.t[k + 1] - self.t[k])

    def to_json(self):
        if self.kind == "table":
            return {"table": {"t": [float(self.t[0]), float(self.t[-1])], "rows": len(self.t)}}
        return self.kind


# ---------------------------------------------------------------------------------------
# the dense solution
class _Dense:
    """The augmented state on ``(-oo, T]``: the pre-history (the history's states with the
    extra states integrated over it), then the pieces' interpolants."""

    def __init__(self, n: int, size: int, history: _History):
        self.n, self.size, self.history = n, size, history
        self.starts: list = []  # interpolant start times, increasing
        self.pieces: list = []
        self.pre: list = []  # (start, OdeSolution) of the extra states over the history
        self.pre_t0 = 0.0
        self.pre_y0 = np.zeros(size - n)  # the extra states at the history's start
        self.pre_slope = np.zeros(size - n)  # d/dt of the extra states before it
        self.pre_quad = np.zeros(size - n)  # d2/dt2 (a second integral)
        self.end = 0.0

    def add(self, sol) -> None:
        for t0, p in zip(sol.ts[:-1], sol.interpolants):
            self.starts.append(float(t0))
            self.pieces.append(p)
        self.end = float(sol.ts[-1])

    def _piece(self, u: float, side: int):
        k = bisect.bisect_right(self.starts, u) - 1
        if side < 0 and k > 0 and u == self.starts[k]:
            k -= 1
        return self.pieces[max(k, 0)]

    def y(self, u: float, side: int = 1) -> np.ndarray:
        """The augmented state at ``u`` (``side < 0``: the left limit at 0, where a
        history that differs from the initial state jumps)."""
        if u >= 0 and self.pieces and not (u == 0 and side < 0):
            return _value(self._piece(u, side), u)
        out = np.empty(self.size)
        out[: self.n] = self.history.at(u)
        if self.size > self.n:
            if self.pre and u >= self.pre_t0:
                k = max(bisect.bisect_right([p[0] for p in self.pre], u) - 1, 0)
                out[self.n :] = self.pre[k][1](u)
            else:
                h = u - self.pre_t0
                out[self.n :] = self.pre_y0 + (self.pre_slope + self.pre_quad * h / 2) * h
        return out

    def ys(self, times: np.ndarray) -> np.ndarray:
        """The augmented state at many ``times`` (rows), each piece's interpolant called
        once on its times; at 0 the initial state."""
        out = np.empty((len(times), self.size))
        past = times < 0
        for k in np.nonzero(past)[0]:
            out[k] = self.y(float(times[k]), 1)
        if self.pieces and not past.all():
            now = np.nonzero(~past)[0]
            idx = np.searchsorted(self.starts, times[now], side="right") - 1
            idx = np.clip(idx, 0, len(self.pieces) - 1)
            for j in np.unique(idx):
                sel = now[idx == j]
                out[sel] = np.asarray(self.pieces[j](times[sel])).T
        return out

    def dy(self, u: float, side: int = 1) -> np.ndarray:
        """The derivative of the states (the first ``n``) at ``u``."""
        if u >= 0 and self.pieces and not (u == 0 and side < 0):
            return _derivative(self._piece(u, side), u)[: self.n]
        return self.history.slope(u, side)


def _value(p, u: float) -> np.ndarray:
    return p(u)


def _derivative(p, u: float) -> np.ndarray:
    """d/dt of a Runge-Kutta dense output (scipy's RkDenseOutput or Dop853DenseOutput)."""
    x = (u - p.t_old) / p.h
    if hasattr(p, "F"):  # DOP853: nested products of x and 1 - x
        y = np.zeros_like(p.y_old)
        d = np.zeros_like(p.y_old)
        for i, f in enumerate(reversed(p.F)):
            y = y + f
            if i % 2 == 0:
                d = d * x + y
                y = y * x
            else:
                d = d * (1 - x) - y
                y = y * (1 - x)
        return d / p.h
    order = p.Q.shape[1]  # y = y_old + h Q [x, x^2, ..., x^order]
    powers = np.array([(k + 1) * x**k for k in range(order)])
    return p.Q @ powers


# ---------------------------------------------------------------------------------------
# the right-hand side
class _Evaluator:
    """Values of sources and channels at a time ``u`` (the present or the past)."""

    def __init__(self, comp: _Compiled, dense: _Dense, empty: bool):
        self.comp, self.dense, self.empty = comp, dense, empty
        self.now = 0.0
        self.y_now = None
        self.side = 1
        self._cache: dict = {}

    def reset(self, t: float, y: np.ndarray, side: int) -> None:
        self.now, self.y_now, self.side = t, y, side
        self._cache = {}

    def y(self, u: float) -> np.ndarray:
        if u == self.now:
            return self.y_now
        got = self._cache.get(u)
        if got is None:
            got = self._cache[u] = self.dense.y(u, self.side)
        return got

    def source(self, src: _Source, u: float) -> float:
        if src.action and self.empty and (u < 0 or (u == 0 and self.side < 0)):
            return 0.0  # nothing decided before 0 (the left limit at 0 at a piece's end)
        y = self.y(u)
        occ = [self.channel(c, u) for c in src.channels]
        dots = self.dense.dy(u, self.side) if src.has_dot else np.zeros(self.comp.n)
        return float(src.f(*y[: self.comp.n], *dots, *occ))

    def channel(self, ch: _Channel, u: float) -> float:
        key = (id(ch), u)
        got = self._cache.get(key)
        if got is not None:
            return got
        if ch.kind == "constant":
            v = self.source(ch.source, u - ch.tau)
        elif ch.kind == "uniform":
            ia = self.y(u - ch.a)[ch.index]
            v = (ia - self.y(u - ch.b)[ch.index]) / (ch.b - ch.a)
        elif ch.kind == "chain":
            z = self.y(u)[ch.index : ch.index + ch.size]
            v = float(z @ ch.exit)
            if ch.atom:
                v += ch.atom * self.source(ch.source, u)
        else:
            v = sum(w * self.channel(c, u) for w, c in ch.members)
        self._cache[key] = v
        return v

    def extra_derivatives(self, u: float, y: np.ndarray, out: np.ndarray) -> None:
        """The derivatives of the integrals and chains (into ``out``, full size)."""
        for j, src, of in self.comp.integrals:
            out[j] = y[of] if src is None else self.source(src, u)
        for ch in self.comp.chains:
            z = y[ch.index : ch.index + ch.size]
            out[ch.index : ch.index + ch.size] = ch.S.T @ z + ch.alpha * self.source(ch.source, u)

    def rhs(self, t: float, y: np.ndarray, side: int) -> np.ndarray:
        self.reset(t, y, side)
        out = np.zeros(self.comp.size)
        for nu, reader, _t in self.comp.transitions:
            v = self.channel(reader, t) if isinstance(reader, _Channel) else self.source(reader, t)
            out[: self.comp.n] += nu * v
        self.extra_derivatives(t, y, out)
        return out


# ---------------------------------------------------------------------------------------
# the entry's work
def delay_fluid(
    model, *, T, dt, initial=None, history=None, solver="auto", rtol=None, atol=None,
    force=False,
) -> TimeSeries:  # fmt: skip
    """The fluid path of a model with lags (the module docstring): a
    :class:`~symdelay.analysis.timeseries.TimeSeries` of ``kind="fluid"`` with the states,
    one ``in_transit[<transition>]`` column per action-delayed transition, ``info["solver"]``
    the scheme and its error control, and ``res.at(times)`` the dense solution on
    ``[-tau_max, T]``. Called by :func:`symdelay.analysis.fluid.fluid`, which documents the
    arguments."""
    from symdelay.analysis.fluid_ode import DEFAULT_ATOL, DEFAULT_RTOL, check_tolerance
    from symdelay.analysis.roots import require_values
    from symdelay.analysis.stochastic import run_parameters
    from symdelay.core.checks import check_horizon, time_grid

    Tf, dtf = check_horizon(T, dt)
    require_values(model, "the fluid path")
    rtol = DEFAULT_RTOL if rtol is None else check_tolerance("rtol", rtol)
    atol = DEFAULT_ATOL if atol is None else check_tolerance("atol", atol)
    method = "DOP853" if solver == "auto" else solver
    if method not in _IVP_METHODS:
        raise SymdelayInputError(
            f"unknown solver {solver!r}: use auto or one of " + ", ".join(_IVP_METHODS)
        )
    comp = model.cached("delay fluid", lambda: _Compiled(model))
    names = [s.name for s in model.states]
    if comp.neutral:
        _check_neutral(model)
        if method not in _EXPLICIT:
            raise SymdelayInputError(
                f"{model.name} is neutral (dot() in a delayed rate): its fluid path needs the "
                f"derivative of an explicit Runge-Kutta interpolant: solver DOP853, RK45 or RK23"
            )
    back = comp.lookback()
    hist = _make_history(model, comp, names, initial, history, back)
    delays = comp.delays()
    order = _EXPLICIT.get(method, 5) + 1
    cuts = _breakpoints(Tf, delays, hist, order, comp.neutral, model.name, force)
    longest = max(delays, default=math.inf)
    shortest = min(delays, default=math.inf)
    count = sum(_split(a, b, shortest) for a, b in itertools.pairwise(cuts))
    _check_cost(model, comp, Tf, dtf, count, force)
    pieces = _pieces(cuts, shortest)

    dense = _Dense(comp.n, comp.size, hist)
    ev = _Evaluator(comp, dense, hist.kind == EMPTY)
    y0 = np.zeros(comp.size)
    y0[: comp.n] = hist.y0
    _prehistory(comp, dense, ev, hist, -back, shortest, rtol, atol)
    # the extra states at 0 continue the history's (the integrals, the chains' phases)
    if comp.size > comp.n:
        y0[comp.n :] = dense.y(0.0, -1)[comp.n :]
    from scipy.integrate import solve_ivp  # imported on use: slow to import

    steps = 0
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        ya = y0
        for a, b in pieces:

            def f(t, y, b=b):
                return ev.rhs(t, y, -1 if t >= b else 1)

            with warnings.catch_warnings(record=True) as said:
                warnings.simplefilter("always")
                try:
                    sol = solve_ivp(f, (a, b), ya, method=method, rtol=rtol, atol=atol,
                                    dense_output=True)  # fmt: skip
                except ArithmeticError as e:  # math code: an overflow or 0/0 of a rate
                    said.append(warnings.WarningMessage(f"{type(e).__name__}: {e}", Warning,
                                                        "", 0))  # fmt: skip
                    sol = None
            if said or not sol.success or not np.all(np.isfinite(sol.y)):
                why = " ".join(str(said[0].message).split()) if said else sol.message
                raise SymdelayInputError(
                    f"the fluid path of {model.name} could not be integrated on [{a:.6g}, "
                    f"{b:.6g}] in double precision ({method}: {why}): parameters nearer 1, "
                    "a history nearer the equilibrium, or a shorter T"
                )
            dense.add(sol.sol)
            steps += len(sol.t) - 1
            ya = sol.y[:, -1]

    grid = time_grid(Tf, dtf)
    cols = _sample(dense, comp, ev, grid)
    transit = [f"in_transit[{t.name}]" for t, *_ in comp.transit]
    params = run_parameters(model)
    params.update(T=Tf, dt=dtf, initial=hist.y0.tolist(), history=hist.to_json())
    info = {
        "solver": {
            "scheme": "method of steps",
            "method": method,
            "rtol": rtol,
            "atol": atol,
            "error_control": (
                "local error per step <= atol + rtol |y| on every component of the "
                f"augmented state ({comp.size} components: states, running integrals, "
                "chain phases); delayed values exact functions of the dense output"
            ),
            "pieces": len(pieces),
            "steps": steps,
            "breakpoints": [float(c) for c in cuts[:50]] + (["..."] if len(cuts) > 50 else []),
            "lags": {
                "constant look-backs": [float(d) for d in delays],
                "longest": None if longest == math.inf else float(longest),
            },
        }
    }

    def at(times):
        times = np.asarray(times, dtype=float)
        lo = min(hist.start, -back)
        if np.any(~np.isfinite(times)) or np.any(times < lo - 1e-12) or np.any(times > Tf + 1e-9):
            raise SymdelayInputError(f"times must lie in [{lo:g}, {Tf:g}]")
        return _sample(dense, comp, ev, times)

    return TimeSeries(
        tuple(names + transit), grid, cols, params, kind="fluid", model_name=model.name,
        info=info, dense=at,
    )  # fmt: skip


def _sample(dense: _Dense, comp: _Compiled, ev: _Evaluator, times) -> np.ndarray:
    """The states and the masses in transit at ``times`` (vectorised per piece)."""
    times = np.asarray(times, dtype=float)
    out = np.empty((len(times), comp.n + len(comp.transit)))
    out[:, : comp.n] = dense.ys(times)[:, : comp.n]
    for i, (_t, ch, J, K) in enumerate(comp.transit):
        out[:, comp.n + i] = _in_transit(dense, ch, J, K, times)
    return out


def _in_transit(dense: _Dense, ch: _Channel, J: int, K, u: np.ndarray) -> np.ndarray:
    """``int_0^oo beta(u - v) P(X > v) dv`` for the lag ``X`` read by ``ch``."""
    if ch.kind == "constant":
        return dense.ys(u)[:, J] - dense.ys(u - ch.tau)[:, J]
    if ch.kind == "chain":
        return np.sum(dense.ys(u)[:, ch.index : ch.index + ch.size], axis=1)
    if ch.kind == "uniform":
        back = dense.ys(u - ch.a)[:, K] - dense.ys(u - ch.b)[:, K]
        return dense.ys(u)[:, J] - back / (ch.b - ch.a)
    return sum(w * _in_transit(dense, c, J, K, u) for w, c in ch.members)


def _make_history(model, comp, names, initial, history, back) -> _History:
    from symdelay.analysis.roots import default_initial
    from symdelay.core.checks import check_state

    y0 = None if initial is None else check_state(initial, names)
    if isinstance(history, str) and history.strip() == EMPTY:
        if comp.reads_information:
            raise SymdelayInputError(
                f"--history empty (nothing routed before 0) is for action delays: "
                f"{model.name} reads information through a lag, whose past must be given "
                "(leave --history out for the initial state held constant, or give a table)"
            )
        if not comp.action_channels:
            raise SymdelayInputError(
                f"--history empty: {model.name} has no action-delayed transition (lag = NAME)"
            )
        return _History(EMPTY, default_initial(model) if y0 is None else y0)
    if history is None:
        return _History("constant", default_initial(model) if y0 is None else y0)
    t, v = read_history(history, names)
    if np.any(v < 0):
        raise SymdelayInputError("--history: the states must be >= 0 (scaled queue lengths)")
    if t[0] > -back + 1e-12 * max(1.0, back):
        raise SymdelayInputError(
            f"--history covers [{t[0]:g}, 0], shorter than the longest lag of {model.name} "
            f"({back:g}): give rows back to t = {-back:g}"
        )
    start = v[-1] if y0 is None else y0
    return _History("table", np.asarray(start, dtype=float), t, v)


def _prehistory(comp, dense, ev, hist, t0, shortest, rtol, atol) -> None:
    """The extra states (integrals, chain phases) before 0. Before ``t0`` (the start of a
    history table, or of the longest look-back) every source is held at its steady value
    under the history's first state: an integral grows linearly (the second integral of a
    uniform action lag quadratically), a chain sits at its steady state ``e alpha (-S)^-1``.
    Over a table ``[t0, 0]`` they are integrated with the states forced to the table, in
    pieces no longer than the shortest look-back (an action-delayed rate reading a moving
    average looks its integral up in the part already done); for a held history the closed
    forms hold up to 0 (nothing to integrate)."""
    if comp.size == comp.n:
        return
    n = comp.n
    t0 = min(t0, hist.start) if hist.kind == "table" else 0.0
    h0 = hist.at(t0)
    empty = hist.kind == EMPTY
    z0 = np.zeros(comp.size - n)
    slope = np.zeros(comp.size - n)
    quad = np.zeros(comp.size - n)
    for j, src, _of in comp.integrals:
        if src is not None:
            slope[j - n] = 0.0 if (empty and src.action) else float(src.steady(*h0))
    for j, src, of in comp.integrals:
        if src is None:  # K' = J with J(t0) = 0: K = slope_J (u - t0)^2 / 2
            quad[j - n] = slope[of - n]
    for ch in comp.chains:
        e = 0.0 if (empty and ch.source.action) else float(ch.source.steady(*h0))
        z0[ch.index - n : ch.index - n + ch.size] = e * np.linalg.solve(-ch.S.T, ch.alpha)
    dense.pre_t0, dense.pre_y0, dense.pre_slope, dense.pre_quad = t0, z0, slope, quad
    if t0 >= 0:
        return
    from scipy.integrate import solve_ivp

    def g(u, z):
        y = np.concatenate([hist.at(u), z])
        ev.reset(u, y, 1)
        out = np.zeros(comp.size)
        ev.extra_derivatives(u, y, out)
        return out[n:]

    edges = [t0 + (0.0 - t0) * i / _split(t0, 0.0, shortest) for i in
             range(_split(t0, 0.0, shortest))] + [0.0]  # fmt: skip
    z = z0
    for a, b in itertools.pairwise(edges):
        sol = solve_ivp(g, (a, b), z, method="DOP853", rtol=rtol, atol=max(atol, 1e-14),
                        dense_output=True)  # fmt: skip
        if not sol.success:
            raise SymdelayInputError(f"the history could not be integrated ({sol.message})")
        dense.pre.append((a, sol.sol))
        z = sol.y[:, -1]


def _breakpoints(T, delays, hist, order, neutral, name, force) -> list:
    """``0``, the history's nodes and their propagations by sums of the constant look-backs
    (up to ``order`` terms; every order when ``neutral``), inside ``(0, T)``; then ``T``."""
    seeds = [0.0]
    if hist.kind == "table":
        seeds += [float(s) for s in hist.t[1:-1]]
    found = set(seeds)
    frontier = set(seeds)
    depth = 0
    while frontier and delays and (neutral or depth < order):
        new = set()
        for s in frontier:
            for d in delays:
                v = round(s + d, 12)
                if v < T and v not in found:
                    new.add(v)
        found |= new
        frontier = new
        depth += 1
        if len(found) > MAX_BREAKPOINTS and not force:
            raise SymdelayInputError(
                f"the fluid path of {name} has more than {MAX_BREAKPOINTS} breakpoints on [0, "
                f"{T:g}] (lags {', '.join(f'{d:g}' for d in delays)}): a shorter T, or "
                "--force"
            )
    cuts = sorted(v for v in found if 0 <= v < T)
    return [*cuts, T]


def _split(a: float, b: float, shortest: float) -> int:
    """Pieces of ``[a, b]`` no longer than ``shortest``."""
    return max(1, math.ceil((b - a) / shortest - 1e-12)) if math.isfinite(shortest) else 1


def _pieces(cuts, shortest) -> list:
    out = []
    for a, b in itertools.pairwise(cuts):
        k = _split(a, b, shortest)
        edges = [a + (b - a) * i / k for i in range(k)] + [b]
        out += list(itertools.pairwise(edges))
    return out


def _check_cost(model, comp, T, dt, pieces, force) -> None:
    """Refuse before integrating, unless forced: steps ~ 30 per piece (or per unit of
    time), each 13 evaluations of the right-hand side, each costing its look-ups; the dense
    history holds about 10 numbers per step and component."""
    from symdelay.analysis.fluid_ode import check_fluid_cost
    from symdelay.core.budget import check_budget, check_memory

    what = f"the fluid path of {model.name} ({comp.size} augmented states, T = {T:g})"
    check_fluid_cost(what, comp.size, T, dt, force)
    steps = 30.0 * max(pieces, T)
    lookups = 1 + len(comp.all_channels()) + len(comp.transitions)
    shrink = "a shorter --T or longer lags"
    check_memory(what, steps * comp.size * 10 * 8, force=force, shrink=shrink)
    check_budget(what, steps * 13 * lookups * _EVAL_SECONDS, force=force, shrink=shrink)


def _check_neutral(model) -> None:
    """Refuse a neutral model whose difference operator is not proved stable (at its
    equilibrium), in the lag core's one line."""
    from symdelay.analysis.lagroots import CharacteristicMatrix, root_bound

    cm = CharacteristicMatrix(model.linearisation, model.lags)
    root_bound(cm)
