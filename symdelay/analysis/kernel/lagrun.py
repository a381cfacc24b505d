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
Poisson process at the rate of the history's state, piece by piece, vectorised with numpy
from a generator seeded by the replication's own xoshiro256** stream, before its first
event."""

from __future__ import annotations

import itertools
import math

import numpy as np

from symdelay.analysis.kernel.cwriter import lag_offsets, peak_offset
from symdelay.analysis.kernel.layout import _pow2
from symdelay.analysis.kernel.pytwin import _chain_step, _ph_step
from symdelay.core.errors import SymdelayInputError
from symdelay.core.rng import next_u64

__all__: list = []

#: Bytes of one history entry (time, value, integral), of one FIFO entry, of one heap entry.
ENTRY_BYTES, FIFO_BYTES, HEAP_BYTES = 24, 8, 16
#: The most entries of a ring, FIFO or heap at the start (they double when full).
FIRST = 1 << 22
#: The jobs in transit at 0 drawn at once (numpy arrays of this size at most).
BATCH = 1 << 20
#: Seconds per job in transit at 0 drawn (numpy, measured 0.25-0.7 us, rounded up).
TRANSIT_SECONDS = 1e-6


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

    def __init__(self, kernel, eta: int, X0, history, rate: float, horizon=math.inf) -> None:
        plan = kernel.plan
        self.kernel, self.eta, self.X0 = kernel, float(eta), np.asarray(X0, dtype=np.int64)
        self.NCH, self.NP = len(plan.channels), len(plan.pointers)
        self.pch = [c for c, _ in plan.pointers]
        self.actions = plan.actions
        self.NA = len(self.actions)
        lagc = kernel._lagc
        self.lagc = lagc.tolist()
        self.lookback = lagc[: self.NP]
        CO = self.NP + sum(len(ts) for _, ts in plan.symbols)
        self.chain_spec = [  # (channel, phases, rate or block, where its state starts, ph)
            (c, int(lagc[CO + 3 * i]), float(lagc[CO + 3 * i + 1]), int(lagc[CO + 3 * i + 2]),
             m is None)
            for i, (c, _, m) in enumerate(plan.chains)
        ]  # fmt: skip
        LA = CO + 3 * len(plan.chains)
        self.fifo_of = [j in plan.action_delay for j in self.actions]
        # a constant delay, or where the program of a distributed one starts
        self.aoff = [LA + a if f else int(lagc[LA + a]) for a, f in enumerate(self.fifo_of)]
        self.NF = sum(self.fifo_of)
        self.delays = [lagc[o] for o, f in zip(self.aoff, self.fifo_of) if f]
        self.means = [_mean(self.lagc, o) for o, f in zip(self.aoff, self.fifo_of) if not f]
        self.dot = kernel.lag_dot  # the drift recursion of dot() through a lag, or None
        self.tau = float(lagc[self.dot["tau_at"]]) if self.dot else 0.0
        back = max([*self.lookback, *self.delays, self.tau, 0.0])
        self.back = back
        names = [str(s) for s in kernel.states]
        ns = {"math": math} | {f"p_{k}": float(v) for k, v in enumerate(kernel._par)}
        args = ", ".join([f"hs_{i}" for i in range(len(names))] +
                         [f"hd_{i}" for i in range(len(names))])  # fmt: skip
        self._E = [
            eval(f"lambda {args}: {src}", ns)  # printed by SymPy
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
        self.horizon = float(horizon)
        self.entries = [self._channel_entries(c) for c in range(self.NCH)]
        self.chain0 = self._chain_start()
        # a ring starts with the entries its pointers can still read: from the last one at
        # or before minus the channel's longest look-back (a channel read by chains only:
        # its last entry); the older ones (of a long history table) are not kept
        self.ring = []
        for c, ent in enumerate(self.entries):
            lb = max((self.lookback[p] for p in range(self.NP) if self.pch[p] == c), default=None)
            i0 = len(ent) - 1
            if lb is not None:
                while i0 > 0 and ent[i0][0] > -lb:
                    i0 -= 1
            self.ring.append(ent[i0:])
        pre = max((len(e) for e in self.ring), default=0)
        # the entries the run is expected to hold at once (events per unit time times the
        # longest look-back or delay), then the first sizes: twice that, at most FIRST
        # entries (beyond, the arrays double when full, each time checked against the budget)
        # a channel's ring holds its entries before 0 (``pre``) and the changes of the last
        # look-back, or of the run when it is shorter. An action delay's FIFO or heap holds
        # the jobs that land by the horizon T (those of the past landing later are counted,
        # not kept): at most the decisions of min(delay, T), in expectation of min(mean, T)
        # for a distributed delay (those of the past are all drawn at 0, in batches: their
        # time is checked apart, :meth:`transit_draws`)
        span = min(back, float(horizon))
        fspan = min(max(self.delays, default=0.0), float(horizon))
        hspan = min(sum(self.means), float(horizon))
        self.need = (
            self.NCH * (pre + rate * span) * ENTRY_BYTES
            + self.NF * rate * fspan * FIFO_BYTES
            + (rate * hspan * HEAP_BYTES if self.NF < self.NA else 0.0)
        )
        self.cap = _pow2(max(64, 2 * pre + 16, min(2 * int(min(rate * span, 2**40)), FIRST)))
        self.fcap = _pow2(max(16, min(2 * int(min(rate * fspan, 2**40)), FIRST)))
        self.hcap = _pow2(max(16, min(2 * int(min(rate * hspan, 2**40)), FIRST)))
        self._rates = None
        if self.NA:  # made here, once: the replications' threads only read them
            self._action_rates()
        if self.dot:
            self._dot_start(history, rate)

    # ------------------------------------------------------------ the history
    def _value(self, c: int, counts, slope=None) -> float:
        hd = [0.0] * len(counts) if slope is None else [float(x) for x in slope]
        return float(self._E[c](*(int(x) / self.eta for x in counts), *hd))

    def _dot_start(self, history, rate: float) -> None:
        """The path of the drift recursion at 0: an entry per piece of the history (its
        time and the recursion's start there: each component ``E_m`` at the history's
        counts and derivative, 0 for a held history, the table's slope on each of its
        segments), then one at 0 (the scaled initial counts the step reads); its
        first size (the events of the run: the path is kept whole) and the levels."""
        d = self.dot
        W, nv, cols = d["W"], d["nv"], d["cols"]
        n = len(self.X0)
        if isinstance(history, tuple):
            t, v = np.asarray(history[0], float), np.asarray(history[1], float)
            starts = set(self.pieces[0].tolist()) | {float(u) for u in t if u < 0.0}
            starts = np.array(sorted(starts))
            ends = np.append(starts[1:], 0.0)
            mids = (starts + ends) / 2
            counts = np.column_stack(
                [np.floor(np.interp(mids, t, v[:, i] * self.eta) + 0.5) for i in range(n)]
            ).astype(np.int64)
            seg = np.clip(np.searchsorted(t, mids, side="right") - 1, 0, len(t) - 2)
            slopes = (v[seg + 1] - v[seg]) / (t[seg + 1] - t[seg])[:, None]
        else:  # held (or nothing routed before 0: the same states, derivative 0)
            starts, counts, slopes = np.array([-self.back]), self.X0[None, :], np.zeros((1, n))
        rows = []  # before 0 (time, the start's components), then (0, the states read)
        for u, x, sl in zip(starts.tolist(), counts, slopes):
            row = [u] + [self._value(self.NCH + m, x, sl) for m in range(nv)]
            rows.append(row + [0.0] * (W - len(row)))
        row = [0.0] + [int(self.X0[i]) / self.eta for i in cols]
        rows.append(row + [0.0] * (W - len(row)))
        self.path0 = np.array(rows, dtype=np.float64).ravel()
        self.npath0 = len(rows)
        assert self.path0.size == W * len(rows)
        span = self.horizon if math.isfinite(self.horizon) else self.back
        self.path_need = (len(rows) + rate * span) * W * 8.0
        self.pcap = _pow2(max(64, 2 * len(rows), min(2 * int(min(rate * span, 2**40)), FIRST)))
        self.levels = int(span / self.tau) + 3 if math.isfinite(span) else 8

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

    def _chain_start(self) -> list:
        """The chains' states at 0: steady at the history's first value, then advanced
        through its entries by the kernel's own closed form."""
        out = [0.0] * sum(k + 1 for _, k, _, _, _ in self.chain_spec)
        for c, k, r, at, ph in self.chain_spec:
            ent = self.entries[c]
            out[at] = ent[0][0]
            if ph:  # steady: e u, u = alpha (-S)^-1 from the block
                b = int(r)
                out[at + 1 : at + 1 + k] = [ent[0][1] * u for u in self.lagc[b + 2 + k * k :
                                                                            b + 2 + k * k + k]]  # fmt: skip
            else:
                out[at + 1 : at + 1 + k] = [ent[0][1]] * k
            for (_, v0, _), (t1, _, _) in itertools.pairwise(ent):
                if ph:
                    _ph_step(out, at, self.lagc, int(r), t1 - out[at], v0)
                else:
                    _chain_step(out, at, k, r * (t1 - out[at]), v0)
                out[at] = t1
        return out

    def memory(self) -> float:
        """Bytes the history and the scheduled entries are expected to need at once (the
        first sizes are at most twice that); with the drift recursion, its path (kept
        whole: events per unit time times the horizon)."""
        heap = self.hcap * HEAP_BYTES if self.NF < self.NA else 0
        first = self.NCH * self.cap * ENTRY_BYTES + self.NF * self.fcap * FIFO_BYTES + heap
        out = float(max(self.need, first / 2))
        if self.dot:
            out += max(self.path_need, self.pcap * self.dot["W"] * 4.0) + 8.0 * self.levels
        return out

    def _peaks(self) -> int:
        return peak_offset({"NCH": self.NCH, "NP": self.NP, "NF": self.NF})

    def usage(self, hst) -> dict:
        """The memory a replication used (its ``hst`` after the run): per channel the
        ring's capacity and the most entries it held (its head minus its oldest pointer,
        plus one, kept by the kernel at every entry: what the ring could not drop; a
        channel read by chains only keeps its last entry), per constant action delay the
        FIFO's capacity and most entries, the heap's."""
        PK = self._peaks()
        ring = [max(1, int(hst[PK + c])) for c in range(self.NCH)]
        fifo = [int(hst[PK + self.NCH + f]) for f in range(self.NF)]
        if self.dot:
            RO = self.dot["RO"]
            path = {"path_capacity": int(hst[RO]), "path_entries": int(hst[RO + 1]) + 1,
                    "levels": int(hst[RO + 2])}  # fmt: skip
        else:
            path = {}
        return path | {
            "ring_capacity": int(hst[0]),
            "ring_peak": ring,
            "fifo_capacity": int(hst[1]) if self.NF else 0,
            "fifo_peak": fifo,
            "heap_capacity": int(hst[3]) if self.NF < self.NA else 0,
            "heap_peak": int(hst[PK + self.NCH + self.NF]),
        }

    def transit_draws(self) -> float:
        """The jobs in transit at 0 a replication draws one by one (its expected number, at
        the history's largest rates): a constant delay's that land by the horizon, every
        one of a distributed delay's; none from an empty past."""
        if not self.NA or (isinstance(self.history, str) and self.history == "empty"):
            return 0.0
        _, counts = self.pieces
        out = 0.0
        for a, f in enumerate(self._action_rates()):
            r = max(self._rate(f, x) for x in counts)
            if self.fifo_of[a]:
                out += r * min(float(self.lagc[self.aoff[a]]), self.horizon)
            else:
                out += r * _mean(self.lagc, self.aoff[a])
        return out

    def late(self, hst) -> np.ndarray:
        """Per action, the jobs of the past landing after the horizon: counted at the
        start, not scheduled (the kernel's in-transit counts leave them out)."""
        LO = self._peaks() + self.NCH + self.NF + 1 + self.NA
        return np.asarray(hst[LO : LO + self.NA], dtype=np.int64)

    # ------------------------------------------------------------ one replication
    def start(self, rs: np.ndarray) -> tuple:
        """``(hist, hst, fifo, heap)`` of one replication at time 0; the jobs in transit are
        drawn from its stream ``rs`` (advanced in place)."""
        HO, _, FO = lag_offsets({"NCH": self.NCH, "NP": self.NP})
        hist = np.zeros(max(1, self.NCH * self.cap * 3))
        # the kernel's slots (the peaks last), then (read by the driver only) the jobs in
        # transit landing after the horizon, per action: counted, not scheduled
        PK = self._peaks()
        TC = PK + self.NCH + self.NF + 1  # the jobs in transit per action (the kernel's)
        LO = TC + self.NA
        dot = self.dot
        extra = 3 + self.levels if dot else 0  # the drift recursion's slots
        hst = np.zeros(LO + self.NA + extra, dtype=np.int64)  # bounds: 0
        if dot:  # its path's capacity and last entry, the levels (every pointer at 0)
            assert dot["RO"] == LO + self.NA
            hst[dot["RO"]], hst[dot["RO"] + 1], hst[dot["RO"] + 2] = (
                self.pcap, self.npath0 - 1, self.levels)  # fmt: skip
        hst[0], hst[1], hst[3] = self.cap, self.fcap, self.hcap
        for c, ent in enumerate(self.ring):
            hist[3 * c * self.cap : 3 * (c * self.cap + len(ent))] = np.ravel(ent)
            hst[HO + c] = len(ent) - 1
            hst[PK + c] = len(ent)  # every pointer at its first entry
        # every pointer starts at its channel's first entry
        lands, late = self._in_transit(rs)
        hst[LO : LO + self.NA] = late
        hst[TC : TC + self.NA] = [len(x) for x in lands]
        fifos = [x for x, f in zip(lands, self.fifo_of) if f]
        fcap = self.fcap
        while max((len(x) for x in fifos), default=0) >= fcap - 1:
            fcap *= 2
        hst[1] = fcap
        fifo = np.zeros(max(1, self.NF * fcap))
        for f, x in enumerate(fifos):
            fifo[f * fcap : f * fcap + len(x)] = x
            hst[FO + 2 * f], hst[FO + 2 * f + 1] = 0, len(x)
            hst[PK + self.NCH + f] = len(x)
        heaped = [(x, a) for a, (x, f) in enumerate(zip(lands, self.fifo_of)) if not f]
        times = np.concatenate([np.asarray(x, dtype=float) for x, _ in heaped] or [[]])
        acts = np.concatenate([np.full(len(x), float(a)) for x, a in heaped] or [[]])
        order = np.argsort(times, kind="stable")
        hcap = self.hcap
        while times.size >= hcap - 1:
            hcap *= 2
        hst[3] = hcap
        heap = np.zeros(2 * hcap)
        heap[0 : 2 * times.size : 2] = times[order]  # sorted: a heap already
        heap[1 : 2 * times.size : 2] = acts[order]
        hst[4] = hst[PK + self.NCH + self.NF] = times.size
        if dot:  # no chains in such a table: the array holds the recursion's path
            chain = np.zeros(self.pcap * dot["W"])
            chain[: self.path0.size] = self.path0
        else:
            chain = np.array(self.chain0 or [0.0], dtype=np.float64)
        return hist, hst, fifo, heap, chain

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

    def _rate(self, f, x) -> float:
        try:
            r = self.eta * float(f(*(int(v) / self.eta for v in x)))
        except (OverflowError, ZeroDivisionError, ValueError) as e:
            raise SymdelayInputError(
                f"{self.kernel.label}: the rate of an action-delayed transition cannot be "
                f"evaluated on the history ({e})"
            ) from None
        if not (r >= 0.0 and math.isfinite(r)):
            raise SymdelayInputError(
                f"{self.kernel.label}: the rate of an action-delayed transition is {r} on the "
                "history: rates must be finite and >= 0"
            )
        return r

    def _in_transit(self, rs: np.ndarray) -> tuple:
        """``(landing times, late)``: per action, the landing times in ``(0, horizon]`` of
        the decisions before 0 (a constant delay's sorted, as its FIFO keeps them), and how
        many of them land after the horizon (counted, not kept: a constant delay draws only
        their Poisson number). A constant delay ``d``: the decisions of
        ``[-d, 0)``, a Poisson process at ``eta beta`` of the history's state on each of its
        pieces (a Poisson number of points, uniform on the piece). A distributed delay
        ``X``: the decisions before the history's first time ``t_0`` still in transit at
        ``t_0`` are a Poisson number of mean ``rate E[X]`` with the equilibrium excess law
        (the marking theorem), then the decisions of ``[t_0, 0)`` piece by piece, each with
        its own draw of ``X``; those landing after 0 are kept.

        Drawn with numpy, vectorised, by a generator (PCG64) seeded with four words of the
        replication's xoshiro256** stream ``rs`` (advanced in place): the same arrays for
        both backends, so their paths still agree, and a run is repeated by its seed."""
        late = [0] * self.NA
        if not self.NA or (isinstance(self.history, str) and self.history == "empty"):
            return [[] for _ in range(self.NA)], late
        st = [int(v) for v in rs]
        words = [next_u64(st) for _ in range(4)]
        rs[:] = np.array(st, dtype=np.uint64)
        gen = np.random.Generator(np.random.PCG64(np.random.SeedSequence(words)))
        starts, counts = self.pieces
        ends = np.append(starts[1:], 0.0)
        out = []
        for a, f in enumerate(self._action_rates()):
            got = []
            if self.fifo_of[a]:
                d = float(self.lagc[self.aoff[a]])
                cut = self.horizon - d  # decided after it: lands after the horizon
                for u0, u1, x in zip(starts.tolist(), ends.tolist(), counts):
                    lo, hi = max(u0, -d), u1
                    if not lo < hi:
                        continue
                    r = self._rate(f, x)
                    mid = min(max(cut, lo), hi)
                    if mid < hi:  # only their number matters (the in-transit count)
                        late[a] += int(gen.poisson(r * (hi - mid)))
                    if lo < mid:
                        n = gen.poisson(r * (mid - lo))
                        got.append(np.sort(lo + (mid - lo) * gen.random(n)) + d)
                lands = np.concatenate(got) if got else np.empty(0)
                out.append(lands[(lands > 0.0) & (lands <= self.horizon)].tolist())
                continue
            pos, H = self.aoff[a], self.horizon
            # (how many, first time, width, from the stationary past): the past before the
            # table's first time t_0, then its pieces
            r0 = self._rate(f, counts[0]) * _mean(self.lagc, pos)
            specs = [(int(gen.poisson(r0)), float(starts[0]), 0.0, True)]
            for u0, u1, x in zip(starts.tolist(), ends.tolist(), counts):
                if u0 < u1:
                    n = int(gen.poisson(self._rate(f, x) * (u1 - u0)))
                    specs.append((n, u0, u1 - u0, False))
            for n, base, width, stationary in specs:
                while n > 0:  # in batches: bounded temporary memory
                    b = min(n, BATCH)
                    if stationary:
                        x = base + _excess_many(self.lagc, pos, b, gen)
                    else:
                        x = base + width * gen.random(b) + _sample_many(self.lagc, pos, b, gen)
                    late[a] += int(np.count_nonzero(x > H))
                    got.append(x[(x > 0.0) & (x <= H)])
                    n -= b
            out.append(np.concatenate(got).tolist() if got else [])
        return out, late

    # ------------------------------------------------------------ room
    def grow(self, hist, hst, fifo, heap, chain, force: bool) -> tuple:
        """Larger arrays after the kernel stopped with ``hst[2]`` set (1: a ring, 2: a
        FIFO, 3: the heap full), the entries kept at their absolute indices."""
        from symdelay.core.budget import check_memory

        HO, PO, FO = lag_offsets({"NCH": self.NCH, "NP": self.NP})
        flag, hst[2] = int(hst[2]), 0
        cap, fcap, hcap = int(hst[0]), int(hst[1]), int(hst[3])
        shrink = "a smaller --eta or a shorter lag"
        if flag == 1:
            new = 2 * cap
            what = f"the history of the lagged values ({self.NCH} x {new} entries)"
            check_memory(what, self.NCH * new * ENTRY_BYTES, force=force, shrink=shrink)
            out = np.zeros(self.NCH * new * 3)
            for c in range(self.NCH):
                lo = min(
                    (int(hst[PO + p]) for p in range(self.NP) if self.pch[p] == c),
                    default=int(hst[HO + c]),  # read by chains only: its last entry
                )
                h = np.arange(lo, int(hst[HO + c]) + 1)
                src = 3 * (c * cap + (h & (cap - 1)))
                dst = 3 * (c * new + (h & (new - 1)))
                for o in range(3):
                    out[dst + o] = hist[src + o]
            hst[0] = new
            return out, hst, fifo, heap, chain
        if flag in (4, 5):  # the drift recursion: its path (kept whole), or more levels
            RO, W = self.dot["RO"], self.dot["W"]
            if flag == 5:
                nl = 2 * int(hst[RO + 2])
                check_memory("the levels of the drift recursion", 8.0 * nl, force=force,
                             shrink="a shorter horizon T")  # fmt: skip
                out = np.zeros(RO + 3 + nl, dtype=np.int64)
                out[: hst.size] = hst
                out[RO + 2] = nl
                return hist, out, fifo, heap, chain
            new = 2 * int(hst[RO])
            what = f"the path the drift recursion of dot() reads ({new} entries of {W} numbers)"
            check_memory(what, new * W * 8.0, force=force, shrink="a smaller --eta or a shorter T")
            out = np.zeros(new * W)
            used = W * (int(hst[RO + 1]) + 1)
            out[:used] = chain[:used]
            hst[RO] = new
            return hist, hst, fifo, heap, out
        if flag == 3:
            new = 2 * hcap
            what = f"the scheduled entries of the distributed action delays ({new})"
            check_memory(what, new * HEAP_BYTES, force=force, shrink=shrink)
            out = np.zeros(2 * new)
            out[: 2 * int(hst[4])] = heap[: 2 * int(hst[4])]
            hst[3] = new
            return hist, hst, fifo, out, chain
        new = 2 * fcap
        what = f"the scheduled entries of the constant action delays ({self.NF} x {new})"
        check_memory(what, self.NF * new * FIFO_BYTES, force=force, shrink=shrink)
        out = np.zeros(self.NF * new)
        for f in range(self.NF):
            e = np.arange(int(hst[FO + 2 * f]), int(hst[FO + 2 * f + 1]))
            out[f * new + (e & (new - 1))] = fifo[f * fcap + (e & (fcap - 1))]
        hst[1] = new
        return hist, hst, out, heap, chain


# ---------------------------------------------------------------------------------------
# the laws of the distributed action delays, read from their programs
# (symdelay.analysis.kernel.lagplan.program): the mean and the equilibrium excess law


def _phase_matrix(g: list, pos: int):
    """``(alpha, S)`` of a phase-type program."""
    n = int(g[pos + 1])
    cum = np.array(g[pos + 2 : pos + 2 + n])
    alpha = np.diff(np.concatenate([[0.0], cum]))
    S = np.zeros((n, n))
    for i in range(n):
        r = pos + 2 + n + i * (n + 2)
        p = np.diff(np.concatenate([[0.0], g[r + 1 : r + 1 + n]]))
        S[i] = g[r] * p
        S[i, i] = -g[r]
    return alpha, S


def _mean(g: list, pos: int) -> float:
    """The mean of the law whose program starts at ``g[pos]``."""
    kind = int(g[pos])
    if kind == 0:
        return g[pos + 1]
    if kind == 1:
        return g[pos + 1] + g[pos + 2] / 2
    if kind == 2:
        return g[pos + 1]
    if kind == 3:
        return g[pos + 1] * g[pos + 2]
    if kind == 4:
        alpha, S = _phase_matrix(g, pos)
        return float(alpha @ np.linalg.solve(-S, np.ones(len(alpha))))
    m = int(g[pos + 1])
    w = np.diff(np.concatenate([[0.0], g[pos + 2 : pos + 2 + m]]))
    return float(sum(w[i] * _mean(g, pos + int(g[pos + 2 + m + i])) for i in range(m)))


def _walk(g: list, pos: int, phase: np.ndarray, gen) -> np.ndarray:
    """The times to absorption of phase-type chains (program at ``g[pos]``) started in
    ``phase`` (``n`` = absorbed already), all walked together."""
    n = int(g[pos + 1])
    rows = [pos + 2 + n + i * (n + 2) for i in range(n)]
    rate = np.array([g[r] for r in rows] + [1.0])
    cum = np.array([g[r + 1 : r + 1 + n + 1] for r in rows])  # next phase or exit (n)
    s = np.zeros(phase.size)
    live = np.flatnonzero(phase < n)
    while live.size:
        i = phase[live]
        s[live] += gen.standard_exponential(live.size) / rate[i]
        u = gen.random(live.size)
        phase[live] = (u[:, None] >= cum[i]).sum(axis=1)  # the first j with u < cum[i, j]
        live = live[phase[live] < n]
    return s


def _sample_many(g: list, pos: int, size: int, gen) -> np.ndarray:
    """``size`` draws of the law whose program starts at ``g[pos]`` (the law the kernel's
    ``sample_lag`` draws, by numpy's samplers)."""
    kind = int(g[pos])
    if kind == 0:
        return np.full(size, g[pos + 1])
    if kind == 1:
        return g[pos + 1] + g[pos + 2] * gen.random(size)
    if kind == 2:
        return g[pos + 1] * gen.standard_exponential(size)
    if kind == 3:
        return gen.gamma(int(g[pos + 1]), g[pos + 2], size)  # Erlang: a whole shape
    if kind == 4:
        n = int(g[pos + 1])
        cum = np.array(g[pos + 2 : pos + 2 + n])
        phase = np.searchsorted(cum, gen.random(size), side="right")  # n: the atom at 0
        return _walk(g, pos, phase, gen)
    m = int(g[pos + 1])
    cum = np.array(g[pos + 2 : pos + 1 + m])  # the first m - 1 cumulative weights
    which = np.searchsorted(cum, gen.random(size), side="right")
    out = np.empty(size)
    for i in range(m):
        at = which == i
        out[at] = _sample_many(g, pos + int(g[pos + 2 + m + i]), int(at.sum()), gen)
    return out


def _excess_many(g: list, pos: int, size: int, gen) -> np.ndarray:
    """``size`` draws of the equilibrium excess law of ``X`` (density ``P(X > s) /
    E[X]``): how long a job decided in a stationary past still has to go."""
    kind = int(g[pos])
    if kind == 0:
        return g[pos + 1] * gen.random(size)
    if kind == 1:
        a, w = g[pos + 1], g[pos + 2]
        flat = gen.random(size) * (a + w / 2) < a
        u = gen.random(size)
        return np.where(flat, a * u, a + w - w * np.sqrt(u))  # density (b - s) on [a, b]
    if kind == 2:
        return g[pos + 1] * gen.standard_exponential(size)
    if kind == 3:
        k = int(g[pos + 1])
        left = np.minimum(k, np.floor(gen.random(size) * k).astype(np.int64) + 1)
        return gen.gamma(left, g[pos + 2]) if size else np.empty(0)  # phases left: 1..k
    if kind == 4:
        alpha, S = _phase_matrix(g, pos)
        v = np.linalg.solve(-S.T, alpha)  # the time spent in each phase
        phase = np.searchsorted(np.cumsum(v / v.sum())[:-1], gen.random(size), side="right")
        return _walk(g, pos, phase, gen)
    m = int(g[pos + 1])
    w = np.diff(np.concatenate([[0.0], g[pos + 2 : pos + 2 + m]]))
    sub = [pos + int(g[pos + 2 + m + i]) for i in range(m)]
    size_w = np.array([w[i] * _mean(g, sub[i]) for i in range(m)])
    which = np.searchsorted(np.cumsum(size_w / size_w.sum())[:-1], gen.random(size), "right")
    out = np.empty(size)
    for i in range(m):
        at = which == i
        out[at] = _excess_many(g, sub[i], int(at.sum()), gen)
    return out
