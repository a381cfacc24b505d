"""The run-time side of a kernel with lags (see :mod:`symdelay.analysis.kernel`, "Lags"):
the arrays the sections LAGS read and write (``hist``: each channel's ring of ``(time,
value, running integral)``; ``hst``: the capacities, the full flag, the heads, the pointers
and the FIFOs' ends; ``fifo``: the landing times of each action-delayed transition), filled
at time 0 from the history (:func:`start`), and made larger when the kernel stops with a
full ring or FIFO (:func:`grow`). Both backends get the same arrays, so their paths agree.

The history is in counts: the initial state held constant on ``(-oo, 0]`` (``None``), a
table ``(t, values)`` of scaled states interpolated linearly and rounded to counts
(``round(eta * value)``: piecewise constant, changing where ``eta * value`` crosses a
half-integer), or ``"empty"`` (no job decided before 0: action delays only). The jobs in
transit at 0 (decided in ``[-d, 0)``, landing after 0) are drawn exactly: the decisions of a
Poisson process at the rate of the history's state, piece by piece (memoryless), from the
replication's own xoshiro256** stream, before its first event."""

from __future__ import annotations

import functools
import math

import numpy as np

from symdelay.analysis.kernel.expo import _exp_variate
from symdelay.analysis.kernel.layout import _pow2
from symdelay.core.errors import SymdelayInputError
from symdelay.core.rng import next_u64, unif

__all__: list = []

#: Bytes of one history entry (time, value, integral) and of one scheduled entry.
ENTRY_BYTES, FIFO_BYTES = 24, 8


def history_pieces(t, v, eta: int, end: float = 0.0) -> tuple:
    """The counts path of a history table: ``(starts, counts)``, the times where
    ``round(eta * value)`` of some state changes on ``[t_0, end)`` (``t_0`` first) and the
    counts on each piece (evaluated at its middle: no rounding tie at its ends)."""
    t = np.asarray(t, dtype=float)
    v = np.asarray(v, dtype=float) * eta
    cuts = {float(t[0])}
    for k in range(len(t) - 1):
        a, b = v[k], v[k + 1]
        for i in range(v.shape[1]):
            lo, hi = sorted((a[i], b[i]))
            if hi == lo:
                continue
            m = np.arange(math.floor(lo - 0.5) + 1, math.ceil(hi - 0.5))  # m + 0.5 in (lo, hi)
            m = m[(m + 0.5 > lo) & (m + 0.5 < hi)]
            cuts.update(t[k] + (m + 0.5 - a[i]) / (b[i] - a[i]) * (t[k + 1] - t[k]))
    starts = np.array(sorted(c for c in cuts if c < end))
    ends = np.append(starts[1:], end)
    mids = (starts + ends) / 2
    counts = np.column_stack(
        [np.floor(np.interp(mids, t, v[:, i]) + 0.5) for i in range(v.shape[1])]
    )
    return starts, counts.astype(np.int64)


class LagRun:
    """What a kernel with lags needs at run time: ``kernel`` (a
    :class:`~symdelay.analysis.kernel.GeneratedKernel` with a plan), ``eta``, the initial
    counts ``X0``, ``history`` (``None``, ``"empty"`` or ``(t, scaled values)``) and the
    number of events per unit time expected (``rate``: for the rings' first size)."""

    def __init__(self, kernel, eta: int, X0, history, rate: float) -> None:
        plan = kernel.plan
        self.kernel, self.eta, self.X0 = kernel, float(eta), np.asarray(X0, dtype=np.int64)
        self.NCH, self.NP = len(plan.channels), len(plan.pointers)
        self.pch = [c for c, _ in plan.pointers]
        self.actions = sorted(plan.action_delay)
        self.NA = len(self.actions)
        lagc = kernel._lagc
        self.lookback = lagc[: self.NP]
        self.delays = lagc[len(lagc) - self.NA :] if self.NA else np.zeros(0)
        back = max([*self.lookback, *self.delays, 0.0])
        self.back = back
        names = [str(s) for s in kernel.states]
        ns = {"math": math} | {f"p_{k}": float(v) for k, v in enumerate(kernel._par)}
        self._E = [
            eval(
                f"lambda {', '.join(f'hs_{i}' for i in range(len(names)))}: {src}", ns
            )  # printed by SymPy
            for src in kernel.lag_e_py
        ]
        # the channels' entries before 0 (the same for every replication)
        if isinstance(history, tuple):
            t, v = history
            starts, counts = history_pieces(t, v, int(eta))
            self.pieces = (starts, counts)
        else:
            self.pieces = (np.array([-back]), self.X0[None, :])
        self.history = history
        self.entries = [self._channel_entries(c) for c in range(self.NCH)]
        pre = max((len(e) for e in self.entries), default=0)
        self.cap = _pow2(max(64, 2 * pre + 4 * int(min(rate * back, 2**40)) + 16))
        self.fcap = _pow2(max(16, 4 * int(min(rate * max(self.delays, default=0.0), 2**40)) + 16))
        self._rates = None

    # ------------------------------------------------------------ the history
    def _value(self, c: int, counts) -> float:
        return float(self._E[c](*(int(x) / self.eta for x in counts)))

    def _channel_entries(self, c: int) -> list:
        """``[(time, value, integral)]`` of channel ``c`` up to time 0 (its value at 0 that
        of the initial state), each a change of value; the integral is continued forward as
        the kernel does (``I + E dt``)."""
        starts, counts = self.pieces
        out: list = []
        for u, x in zip(starts.tolist(), counts):
            val = self._value(c, x)
            if out and out[-1][1] == val:
                continue
            if out:
                t0, e0, i0 = out[-1]
                out.append((u, val, i0 + e0 * (u - t0)))
            else:
                out.append((u, val, val * u))
        val = self._value(c, self.X0)
        if out[-1][1] != val:
            t0, e0, i0 = out[-1]
            out.append((0.0, val, i0 + e0 * (0.0 - t0)))
        return out

    def memory(self) -> float:
        """Bytes of the rings and FIFOs at their first size."""
        return (self.NCH * self.cap * ENTRY_BYTES + self.NA * self.fcap * FIFO_BYTES) * 1.0

    # ------------------------------------------------------------ one replication
    def start(self, rs: np.ndarray) -> tuple:
        """``(hist, hst, fifo)`` of one replication at time 0; the jobs in transit are drawn
        from its stream ``rs`` (advanced in place)."""
        HO, FO = 3, 3 + self.NCH + self.NP
        hist = np.zeros(max(1, self.NCH * self.cap * 3))
        hst = np.zeros(FO + 2 * self.NA, dtype=np.int64)
        hst[0], hst[1] = self.cap, self.fcap
        for c, ent in enumerate(self.entries):
            for h, e in enumerate(ent):
                hist[3 * (c * self.cap + h) : 3 * (c * self.cap + h) + 3] = e
            hst[HO + c] = len(ent) - 1
        # every pointer starts at its channel's first entry
        lands = self._in_transit(rs)
        fcap = self.fcap
        while max((len(x) for x in lands), default=0) >= fcap - 1:
            fcap *= 2
        if fcap != self.fcap:
            hst[1] = fcap
        fifo = np.zeros(max(1, self.NA * fcap))
        for a, x in enumerate(lands):
            fifo[a * fcap : a * fcap + len(x)] = x
            hst[FO + 2 * a], hst[FO + 2 * a + 1] = 0, len(x)
        return hist, hst, fifo

    def _action_rates(self):
        """Per action-delayed transition, ``beta(s)`` as a float function of the scaled
        state (SymPy's lambdify, once)."""
        if self._rates is None:
            from symdelay.core.lazy import sympy as sp

            k = self.kernel
            vals = {p: sp.Float(v, 17) for p, v in k._param_values.items()}
            self._rates = [
                sp.lambdify(list(k.states), k.rates[j].xreplace(vals), modules="math")
                for j in self.actions
            ]
        return self._rates

    def _in_transit(self, rs: np.ndarray) -> list:
        """The landing times after 0 of the decisions of ``[-d, 0)``: a Poisson process at
        ``eta beta`` of the history's state on each of its pieces, by exponential gaps
        (a gap that crosses a piece's end is drawn again from there: memoryless)."""
        if not self.NA or (isinstance(self.history, str) and self.history == "empty"):
            return [[] for _ in range(self.NA)]
        st = [int(v) for v in rs]
        u64, un = functools.partial(next_u64, st), functools.partial(unif, st)
        starts, counts = self.pieces
        ends = np.append(starts[1:], 0.0)
        out = []
        for a, f in enumerate(self._action_rates()):
            d = float(self.delays[a])
            got: list = []
            for u0, u1, x in zip(starts.tolist(), ends.tolist(), counts):
                lo, hi = max(u0, -d), u1
                if not lo < hi:
                    continue
                try:
                    r = self.eta * float(f(*(int(v) / self.eta for v in x)))
                except (OverflowError, ZeroDivisionError, ValueError) as e:
                    raise SymdelayInputError(
                        f"{self.kernel.label}: the rate of an action-delayed transition "
                        f"cannot be evaluated on the history ({e})"
                    ) from None
                if not (r >= 0.0 and math.isfinite(r)):
                    raise SymdelayInputError(
                        f"{self.kernel.label}: the rate of an action-delayed transition is "
                        f"{r} on the history: rates must be finite and >= 0"
                    )
                if r == 0.0:
                    continue
                s = lo
                while True:
                    s += _exp_variate(u64, un) / r
                    if s >= hi:
                        break
                    got.append(s + d)
            out.append(got)
        rs[:] = np.array(st, dtype=np.uint64)
        return out

    # ------------------------------------------------------------ room
    def grow(self, hist, hst, fifo, force: bool) -> tuple:
        """Larger arrays after the kernel stopped with ``hst[2]`` set (1: a ring, 2: a
        FIFO full), the entries kept at their absolute indices."""
        from symdelay.core.budget import check_memory

        HO, PO, FO = 3, 3 + self.NCH, 3 + self.NCH + self.NP
        flag, hst[2] = int(hst[2]), 0
        cap, fcap = int(hst[0]), int(hst[1])
        if flag == 1:
            new = 2 * cap
            check_memory(
                f"the history of the lagged values ({self.NCH} x {new} entries)",
                self.NCH * new * ENTRY_BYTES,
                force=force,
                shrink="a smaller --eta or a shorter lag",
            )
            out = np.zeros(self.NCH * new * 3)
            for c in range(self.NCH):
                lo = min(int(hst[PO + p]) for p in range(self.NP) if self.pch[p] == c)
                h = np.arange(lo, int(hst[HO + c]) + 1)
                src = 3 * (c * cap + (h & (cap - 1)))
                dst = 3 * (c * new + (h & (new - 1)))
                for o in range(3):
                    out[dst + o] = hist[src + o]
            hst[0] = new
            return out, hst, fifo
        new = 2 * fcap
        check_memory(
            f"the scheduled entries of the action delays ({self.NA} x {new})",
            self.NA * new * FIFO_BYTES,
            force=force,
            shrink="a smaller --eta or a shorter delay",
        )
        out = np.zeros(self.NA * new)
        for a in range(self.NA):
            e = np.arange(int(hst[FO + 2 * a]), int(hst[FO + 2 * a + 1]))
            out[a * new + (e & (new - 1))] = fifo[a * fcap + (e & (fcap - 1))]
        hst[1] = new
        return hist, hst, out
