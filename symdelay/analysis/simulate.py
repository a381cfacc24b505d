"""An exact simulator generated from a transition table (any density-dependent family).

A model is given as plain data: the state symbols, the parameters (symbol -> number) and the
transitions ``(name, jump nu, scaled rate beta_nu(s))``, ``beta`` a SymPy expression in the
scaled state ``s = X/eta`` and the parameters. The jump process ``X`` (integer counts) jumps
by ``nu`` at rate ``eta * beta_nu(X/eta)`` (Kurtz). :class:`GeneratedKernel` prints the rates
with SymPy's C99 printer (one global common-subexpression elimination, :func:`sympy.cse`),
writes a Gillespie direct-method kernel around them (below), compiles it with the system C compiler
into the cache directory of :mod:`symdelay.core.cbuild` (file name = hash of the source, so equal tables
reuse one library whatever the parameter values: those are passed at run time) and loads it
with :mod:`ctypes`. A pure-Python twin is generated from the same printed expressions and
draws from the same xoshiro256** stream (:mod:`symdelay.core.rng`), so for equal seeds
both backends give identical paths (tests check it). Waiting times are Exp(1)/R with Exp(1)
by the ziggurat of Marsaglia and Tsang (one 64-bit output and one product in 98.9% of the
draws; the tables are computed once and pasted into the C source as hex literals).

Classes. A rate ``c * s_i`` (``c`` free of the state) is *linear*: its value ``c * X_i`` comes
from one coefficient array (the coefficients are evaluated once from the parameters, in
Python, so both backends use the same doubles). Every other rate is *general*: printed code
with its common subexpressions, recomputed in *groups*, one per set of changed states.
When a few general rates (up to ``_LAZY_MAX``) sum to an expression free of the state
(SymPy's ``cancel``) and each is a state-free factor times a function provably >= 0
(SymPy's assumptions: counts >= 0, parameters real), they form one *lazy class* instead: one leaf holds their constant total,
and they are evaluated only when that leaf is drawn, one of them then chosen by a new
uniform (e.g. arrivals routed with probabilities that sum to one: no exponential per
service). Their factors are checked >= 0 at every call and the
rates at the start of every call and whenever the class is drawn. More such rates of the form
``k * w_g / sum_h w_h`` (one denominator, the sum of the numerators: the logit routing of N
servers) form a *weighted class*: one leaf holds the constant ``k``, and the weights ``w_g``
(``exp(-theta q_g)``) live in a sum tree of their own, recomputed eagerly for the states an
event changed (one exponential, not N rates and divisions); the class drawn, one of them is
found by descending that tree.

Linear rates of one coefficient (the same expression, so the same double at run time), at
least ``_COUNT_CLASS_MIN`` of them, form a *count class* (the delay phases of one rate, the
servers of one rate): one leaf holds ``c * S``, ``S`` the sum of the members' counts,
kept exact in an integer sum tree of the class (in the kernel's integer workspace, after the
counts of the state). The class drawn with the rest ``v`` of the draw in its leaf,
``m = floor(v * (1/c))`` (clamped to ``S - 1``) is a uniform job of the class, and the member
that holds the m-th job (a branch-free integer descent, unrolled to the class's depth, the
next nodes loaded a level early) is the transition: probability ``X_i / S``. A job moving
between two members (a phase step of an Erlang delay) changes no leaf of the rates' tree, and
the integer paths up stop where they meet.

Selection: a sum tree of the rates (node ``p`` = ``tree[2p] + tree[2p+1]``, leaves from
``P2``: the general rates first (an event usually changes several: adjacent leaves share
their ancestors), or one leaf for their lazy or weighted class, the other linear ones along
job chains so that the two rates of a move are neighbours, then one leaf per count class);
the next transition is found by descending from the root, O(log M): up to ``_BRANCHY_MAX_P2`` leaves with plain branches (the
levels of a small tree are skewed and well predicted), above without a branch (SSE4.1 blends
or SSE2 masks, the next left children loaded before the comparison decides).

Dependency graph (computed at generation time from the rates' free state symbols and the
jumps): an event recomputes only the linear rates of the states its jump changed and the
general group of those states, then every ancestor of the changed leaves, each again as
left + right. IEEE addition commutes, so the tree after an event is bit for bit the tree a
full rebuild gives: the total cannot drift (there is nothing to recompute periodically; every
call into the kernel rebuilds it anyway, and the tests compare runs of one event per call
with runs of 2^20). In the shape-class code the walk up stops at the first node whose new
value is its old one bit for bit (its ancestors are then unchanged): a job moving between two
phases of one rate, ``c (X - 1) + c (X' + 1)``, usually stops a few levels up and leaves the
total as it is.

Code shape: above ``_SPECIALIZE_MAX_M`` transitions (with count classes, above
``_COUNT_SPECIALIZE_MAX_M``), one case per *shape class* (transitions with the same jump
deltas, number of linear rates, leaf layout and count-tree moves: e.g. "phase ell of queue i
advances"; two changed leaves are one unit whether siblings or not, so the common moves share
a class and the switch is predictable) that reads its indices from a record, so the source
stays small and gcc fast at M ~ 10^3; otherwise one C case of constant indices per
transition; beyond ``_MAX_SHAPES`` classes, loops over the index tables. The Python twin
runs the same algorithm from the tables. The library is built for this processor
(``-march=native``, on x86-64 without AVX; contraction off: the same IEEE operations as the
twin; its cache name covers the processor, see :func:`symdelay.core.cbuild.load_library`).

Caches: the generation result (sources, index tables, coefficient code) is stored as
``cache_dir()/gen-KEY.json``, KEY a content hash of the table (states, jumps, a hash-seed
independent text of the rates, parameter names) and of this module's source; the shared
library as ``generated-HASH.so`` (hash of the C source). A second build of the same table
(other parameter values included) costs no SymPy and no gcc.

A rate that is negative or not finite, or a jump that makes a count negative, stops the run
with a :class:`SymdelayInputError` naming the transition and the state. The compiled kernel
returns to Python every ``chunk_events`` events, so Ctrl-C (KeyboardInterrupt) is honoured.

>>> import sympy as sp
>>> q, lam, mu = sp.symbols("q lam mu")
>>> k = GeneratedKernel([q], [("arrival", [1], lam), ("service", [-1], mu * q)],
...                     {lam: 1, mu: 1})
>>> paths, events = k.run(eta=100, initial=[0], grid=[0.0, 1.0], seed=1)
>>> paths.shape, int(paths[0, 0]), events > 0
((2, 1), 0, True)
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import json
import math
import numbers
import os
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from fractions import Fraction
from pathlib import Path
from typing import NamedTuple

import numpy as np

from symdelay.core.cbuild import cache_dir, choose_backend, load_library
from symdelay.core.checks import check_eta, check_replications
from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.core.rng import C_SOURCE as RNG_C_SOURCE
from symdelay.core.rng import next_u64, seed_states, unif
from symdelay.model.core import has_lags

__all__ = ["GeneratedKernel", "check_table", "generated_kernel"]

#: Up to this many transitions the C kernel has one case of constant indices per transition;
#: above, one table-driven path (the source stays small and gcc fast).
_SPECIALIZE_MAX_M = 128
#: Up to this many leaves the C kernel descends the sum tree with plain branches; above, with
#: branch-free blends (SSE4.1, SSE2 or integer masks).
_BRANCHY_MAX_P2 = 16
#: Linear rates of one coefficient form a count class when there are at least this many.
_COUNT_CLASS_MIN = 2
#: With count classes, one C case per transition only up to this many transitions: the
#: transition drawn comes out of an integer descent, and above a few dozen transitions a jump
#: to one of them is unpredictable where a jump to one of a few shape classes is not.
_COUNT_SPECIALIZE_MAX_M = 32
_DBL_MAX = sys.float_info.max
_FUNC = "symdelay_generated"
#: This generator's own source: part of every cache key (an edited generator regenerates).
_GENERATOR_DIGEST = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]

# ---------------------------------------------------------------------------------------
# printing: integer powers as products in BOTH languages (gcc turns pow(x, 2) into x*x,
# Python's x**2 calls libm pow: not always the same rounding), everything else by SymPy.


def _int_power(base: str, n: int) -> str | None:
    if not (-64 <= n <= 64) or n == 0:
        return None
    prod = "*".join([base] * abs(n))
    return f"({prod})" if n > 0 else f"(1.0/({prod}))"


def _printers():
    """``(Python printer, C printer)``: SymPy's, with integer powers as products (imported
    when a table is generated: a kernel loaded from the cache needs no printer)."""
    from sympy.printing.c import C99CodePrinter
    from sympy.printing.pycode import PythonCodePrinter

    class _CPrinter(C99CodePrinter):
        def _print_Pow(self, expr):
            if expr.exp.is_Integer:
                out = _int_power(self.parenthesize(expr.base, 1000), int(expr.exp))
                if out is not None:
                    return out
            return super()._print_Pow(expr)

    class _PyPrinter(PythonCodePrinter):
        def _print_Pow(self, expr, rational=False):
            if expr.exp.is_Integer:
                out = _int_power(self.parenthesize(expr.base, 1000), int(expr.exp))
                if out is not None:
                    return out
            return super()._print_Pow(expr, rational=rational)

    return _PyPrinter({"standard": "python3"}), _CPrinter()


# ---------------------------------------------------------------------------------------
# input checking


def _as_float_value(name: str, value) -> float:
    if isinstance(value, bool):
        raise SymdelayInputError(f"parameter {name} must be a number, got {value!r}")
    if isinstance(value, sp.Basic):
        if not value.is_number or value.free_symbols:
            raise SymdelayInputError(f"parameter {name} must be a number, got {value}")
        v = complex(value)
        if v.imag != 0:
            raise SymdelayInputError(f"parameter {name} must be real, got {value}")
        x = v.real
    elif isinstance(value, (numbers.Real, Fraction)):
        x = float(value)
    else:
        raise SymdelayInputError(f"parameter {name} must be a number, got {value!r}")
    if not math.isfinite(x):
        raise SymdelayInputError(f"parameter {name} must be finite, got {value!r}")
    return x


def _as_rate(name: str, rate) -> sp.Expr:
    if isinstance(rate, (bool, str)):
        raise SymdelayInputError(
            f"transition {name!r}: the rate must be a SymPy expression or a number, got {rate!r}"
        )
    if isinstance(rate, (int, Fraction)):
        return sp.Rational(rate)
    if isinstance(rate, float):
        return sp.Float(rate)
    if isinstance(rate, sp.Expr):
        return rate
    raise SymdelayInputError(
        f"transition {name!r}: the rate must be a SymPy expression or a number, got {rate!r}"
    )


def _as_jump(name: str, change, n: int) -> np.ndarray:
    try:
        items = list(change)
    except TypeError:
        raise SymdelayInputError(
            f"transition {name!r}: the jump must be a sequence of {n} integers, got {change!r}"
        ) from None
    if len(items) != n:
        raise SymdelayInputError(
            f"transition {name!r}: the jump has {len(items)} entries, the state has {n}"
        )
    arr = np.asarray(items) if items else np.zeros(0, dtype=np.int64)
    if arr.dtype.kind == "i" and arr.ndim == 1:  # the common case, fast for long jumps
        if not arr.any():
            raise SymdelayInputError(f"transition {name!r}: the jump vector is zero")
        return arr.astype(np.int64)
    out = []
    for c in items:
        if isinstance(c, bool) or not isinstance(c, (numbers.Integral, sp.Integer)):
            raise SymdelayInputError(
                f"transition {name!r}: jump entries must be integers, got {c!r}"
            )
        out.append(int(c))
    if not any(out):
        raise SymdelayInputError(f"transition {name!r}: the jump vector is zero")
    return np.array(out, dtype=np.int64)


def check_table(states, transitions):
    """Validate a transition table: ``(states, names, jumps, rates)`` as tuples (``jumps``
    tuples of ints, ``rates`` SymPy expressions). Raises :class:`SymdelayInputError`."""
    states, names, jumps, rates = _check_table(states, transitions)
    return states, names, tuple(tuple(int(c) for c in row) for row in jumps), rates


def _check_table(states, transitions):
    """:func:`check_table` with the jumps as one (M, n) int64 array."""
    states = tuple(states)
    if not states:
        raise SymdelayInputError("the model needs at least one state symbol")
    for s in states:
        if not isinstance(s, sp.Symbol):
            raise SymdelayInputError(f"states must be SymPy symbols, got {s!r}")
    if len(set(states)) != len(states):
        raise SymdelayInputError(f"state symbols must be distinct, got {list(states)}")
    n = len(states)
    try:
        transitions = list(transitions)
    except TypeError:
        raise SymdelayInputError(
            f"transitions must be a list of (name, jump, rate), got {transitions!r}"
        ) from None
    if not transitions:
        raise SymdelayInputError("the model needs at least one transition")
    names, jumps, rates = [], [], []
    for tr in transitions:
        try:
            name, change, rate = tr
        except (TypeError, ValueError):
            raise SymdelayInputError(
                f"each transition must be (name, jump, rate), got {tr!r}"
            ) from None
        if not isinstance(name, str) or not name:
            raise SymdelayInputError(f"transition names must be non-empty strings, got {name!r}")
        if name in names:
            raise SymdelayInputError(f"transition name {name!r} is used twice")
        names.append(name)
        jumps.append(_as_jump(name, change, n))
        rates.append(_as_rate(name, rate))
    return states, tuple(names), np.stack(jumps), tuple(rates)


def _canonical_text(e, memo: dict) -> str:
    """A text of ``e`` that is the same in every process (the arguments of sums and products
    sorted as text: their stored order follows the hash seed); faster than ``srepr``, which
    orders the terms of every sum again."""
    out = memo.get(e)
    if out is None:
        if not e.args:
            out = sp.srepr(e)
        else:
            parts = [_canonical_text(a, memo) for a in e.args]
            if e.is_Add or e.is_Mul:
                parts.sort()
            out = f"{type(e).__name__}({','.join(parts)})"
        memo[e] = out
    return out


# ---------------------------------------------------------------------------------------
# the sum tree: leaves at P2 + q, node p = tree[2p] + tree[2p + 1] (IEEE addition commutes,
# so every way of refreshing a node gives the same double as a full rebuild: no drift)


def _pow2(n: int) -> int:
    """The smallest power of two >= n (1 for n <= 1)."""
    return 1 << max(0, n - 1).bit_length()


def _runs(leaves) -> list:
    """Sorted leaves as runs ``[lo, hi]`` (gaps of up to one leaf bridged)."""
    runs: list = []
    for x in sorted(leaves):
        if runs and x <= runs[-1][1] + 2:
            runs[-1][1] = x
        else:
            runs.append([x, x])
    return runs


def _chain_order(jumps, lin_state) -> list:
    """The linear transitions (``lin_state[j] >= 0``) in chains: after transition j, the one
    whose rate's state j's jump increases (when there is exactly one), else table order."""
    lin = [j for j in range(len(lin_state)) if lin_state[j] >= 0]
    by_state: dict = {}
    for j in lin:
        by_state.setdefault(lin_state[j], []).append(j)
    nxt = {}
    for j in lin:
        ups = [i for i in np.flatnonzero(jumps[j] > 0) if len(by_state.get(int(i), ())) == 1]
        if len(ups) == 1 and by_state[int(ups[0])][0] != j:
            nxt[j] = by_state[int(ups[0])][0]
    has_pred = set(nxt.values())
    out, seen = [], set()
    for start in [j for j in lin if j not in has_pred] + lin:
        j = start
        while j is not None and j not in seen:
            seen.add(j)
            out.append(j)
            j = nxt.get(j)
    return out


# ---------------------------------------------------------------------------------------
# waiting times: Exp(1) by the ziggurat of Marsaglia and Tsang (2000), 256 layers, 53-bit
# integers (the layout of numpy's random_standard_exponential): 98.9% of the draws cost one
# 64-bit output and one multiplication, no logarithm. The tables are computed here once and
# pasted into the C source as hex literals, so both backends use the same doubles.


def _ziggurat_tables():
    m = 2.0**53
    de = 7.697117470131487  # r: where the tail starts
    ve = 3.949659822581572e-3  # the area of each layer
    q = ve / math.exp(-de)
    ke, we, fe = [0] * 256, [0.0] * 256, [0.0] * 256
    ke[0], ke[1] = int((de / q) * m), 0
    we[0], we[255] = q / m, de / m
    fe[0], fe[255] = 1.0, math.exp(-de)
    te = de
    for i in range(254, 0, -1):
        de = -math.log(ve / de + math.exp(-de))
        ke[i + 1] = int((de / te) * m)
        te = de
        fe[i] = math.exp(-de)
        we[i] = de / m
    return 7.697117470131487, ke, we, fe


_ZE_R, _ZE_K, _ZE_W, _ZE_F = _ziggurat_tables()


def _exp_variate(u64: Callable[[], int], unif: Callable[[], float]) -> float:
    """One Exp(1) variate from the 64-bit outputs ``u64`` and uniforms ``unif`` of one stream
    (the Python twin of the C ``expo``)."""
    while True:
        ri = u64() >> 3
        idx = ri & 0xFF
        ri >>= 8
        x = float(ri) * _ZE_W[idx]
        if ri < _ZE_K[idx]:
            return x
        if idx == 0:  # beyond r: r + Exp(1)
            return _ZE_R - math.log1p(-unif())
        if (_ZE_F[idx - 1] - _ZE_F[idx]) * unif() + _ZE_F[idx] < math.exp(-x):
            return x


def _exp_c_source() -> str:
    def arr(name, ctype, vals, fmt):
        body = ",".join(fmt(v) for v in vals)
        return f"static const {ctype} {name}[256] = {{{body}}};"

    return "\n".join(
        [
            arr("ZE_K", "uint64_t", _ZE_K, lambda v: f"{v}ULL"),
            arr("ZE_W", "double", _ZE_W, float.hex),
            arr("ZE_F", "double", _ZE_F, float.hex),
            "/* the 1.1% of draws outside the layers' boxes, out of line (same draws) */",
            "static __attribute__((noinline, cold)) double expo_slow(uint64_t *s, uint64_t ri,",
            "                                                      int idx) {",
            "    for (;;) {",
            "        const double x = (double)ri * ZE_W[idx];",
            "        if (ri < ZE_K[idx]) return x;",
            f"        if (idx == 0) return {float.hex(_ZE_R)} - log1p(-unif(s));",
            "        if ((ZE_F[idx - 1] - ZE_F[idx]) * unif(s) + ZE_F[idx] < exp(-x)) return x;",
            "        ri = next_u64(s) >> 3;",
            "        idx = (int)(ri & 0xFF);",
            "        ri >>= 8;",
            "    }",
            "}",
            "static inline double expo(uint64_t *s) {",
            "    uint64_t ri = next_u64(s) >> 3;",
            "    const int idx = (int)(ri & 0xFF);",
            "    ri >>= 8;",
            "    if (__builtin_expect(ri < ZE_K[idx], 1)) return (double)ri * ZE_W[idx];",
            "    return expo_slow(s, ri, idx);",
            "}",
        ]
    )


#: At most this many general rates form a lazy class: drawing it evaluates all of them (all
#: their temporaries: N exponentials for the routing of N servers) where an event that changes
#: one state recomputes one temporary and the rates eagerly; measured break-even near N = 4
#: (N = 8, L = 2: 51 -> 57 ns/event lazy, N = 2: 39 -> 35).
_LAZY_MAX = 4
#: At most this many shape classes in the table-driven kernel (else: loops over the tables).
_MAX_SHAPES = 48


def _leaf_units(lins, P2) -> list:
    """The linear leaves an event changes as units: ('two', x, y) for two leaves (walked up
    side by side, branch free, wherever they meet), else ('leaf', x). Sibling or not, two
    leaves are one unit, so the common moves share one shape class (a predictable switch)."""
    xs = [P2 + q for q in sorted(lins)]
    units = [("two", xs[k], xs[k + 1]) for k in range(0, len(xs) - 1, 2)]
    if len(xs) % 2:
        units.append(("leaf", xs[-1]))
    return units


def _shape_classes(per_slot, ls, P2):
    """Transitions whose events run the same code with other indices form one shape class
    (the jump's deltas, the number of linear rates, the leaf units, whether general rates
    follow): one C case per class, the indices from a record per transition. Returns
    ``(shapes, record offsets, records)``; no shapes when there would be too many."""
    shapes: dict = {}
    ro, rec = [], []
    for entries, lins, g, cunits, _ in per_slot:
        units = _leaf_units(lins, P2)
        # count units: ("two", base, x, y, dx, dy) or ("one", base, x, d); the deltas are
        # part of the shape, the positions are read from the record
        ckey = tuple((u[0], *u[4:]) if u[0] == "two" else (u[0], u[3]) for u in cunits)
        key = (tuple(d for _, d in entries), len(lins), tuple(u[0] for u in units), g >= 0, ckey)
        sid = shapes.setdefault(key, len(shapes))
        ro.append(len(rec))
        rec += [sid, *(i for i, _ in entries)]
        rec += [v for u in cunits for v in (u[1:4] if u[0] == "two" else u[1:3])]
        rec += [v for q in lins for v in (q, ls[q])]
        rec += [x for _, *xs in units for x in xs] + ([g] if g >= 0 else [])
    if len(shapes) > _MAX_SHAPES:
        return [], [], []
    return list(shapes), ro, rec


def _lazy_total(gexprs, sv, pv):
    """``(total, factors)`` when the total of the general rates is free of the state and each
    of them is ``c * f`` with ``f`` provably >= 0 for counts >= 0 and real parameters (SymPy's
    assumptions) and ``c`` free of the state (``factors``: the ``c`` not provably >= 0, each
    checked >= 0 from the parameters at every call), else ``None``. Such rates form one leaf
    of the tree, their constant total; they are evaluated only when that leaf is drawn (one
    of them then by a new uniform), never when the state changes: e.g. the routing of
    arrivals, whose probabilities sum to one."""
    if not 2 <= len(gexprs) <= _LAZY_MAX:
        return None
    assume = {s: sp.Dummy(nonnegative=True) for s in sv} | {p: sp.Dummy(real=True) for p in pv}
    factors = []
    for g, e in enumerate(gexprs):
        c, f = e.as_independent(*sv, as_Add=False)
        if f.xreplace(assume).is_nonnegative is not True:
            return None
        if c.xreplace(assume).is_nonnegative is not True:
            factors.append((g, c))
    total = sp.cancel(sp.together(sp.Add(*gexprs)))
    if total.free_symbols & set(sv):
        return None
    return total, factors


def _split_denominator(e):
    """``(numerator, denominator)`` of ``e`` read off its factors: the powers with a negative
    integer exponent go below (SymPy's ``fraction`` would also move ``exp(-x)`` there)."""
    num, den = [], []
    for f in sp.Mul.make_args(e):
        if f.is_Pow and f.exp.is_Integer and f.exp < 0:
            den.append(f.base ** (-f.exp))
        else:
            num.append(f)
    return sp.Mul(*num), sp.Mul(*den)


def _weighted_class(gexprs, sv, pv):
    """``(total, factors, weights)`` when the general rates are ``k * w_g / sum_h w_h`` with
    ``k`` free of the state and each weight ``w_g`` a state-free factor times a function
    provably >= 0 (SymPy's assumptions: counts >= 0, parameters real): all of them share one
    denominator (the same expression, up to a state-free factor) equal to the sum of their
    numerators. ``total`` is ``k``; ``factors``: the common (or per-rate) state-free factors
    not provably >= 0, checked at every call; ``weights`` the expressions kept per rate.

    Such rates form one leaf of constant total (the arrivals of N servers routed by logit
    probabilities): an event that changes a state recomputes only the weights of that
    state (one exponential) and their sum tree, O(log N); the class drawn, one rate is found
    by descending that tree. Otherwise ``None``."""
    if len(gexprs) < 2:
        return None
    parts = [_split_denominator(e) for e in gexprs]
    den = parts[0][1]
    if den == 1 or any(d != den for _, d in parts):
        return None
    assume = {s: sp.Dummy(nonnegative=True) for s in sv} | {p: sp.Dummy(real=True) for p in pv}
    split = [num.as_independent(*sv, as_Add=False) for num, _ in parts]
    for _, f in split:
        if f.xreplace(assume).is_nonnegative is not True:
            return None
    if all(c == split[0][0] for c, _ in split):
        common = split[0][0]
        weights = [f for _, f in split]
        factors = [] if common.xreplace(assume).is_nonnegative else [(0, common)]
    else:
        common = sp.Integer(1)
        weights = [num for num, _ in parts]
        factors = [
            (g, c)
            for g, (c, _) in enumerate(split)
            if c.xreplace(assume).is_nonnegative is not True
        ]
    # sum of the weights = q * den with q free of the state (read off the common terms)
    kw, rest_w = sp.factor_terms(sp.Add(*weights)).as_independent(*sv, as_Add=False)
    kd, rest_d = sp.factor_terms(den).as_independent(*sv, as_Add=False)
    if rest_w != rest_d or not rest_w.free_symbols & set(sv):
        return None
    return common * kw / kd, factors, weights


def _refresh_c(lo: int, hi: int, arr: str = "tree") -> str:
    """C statements that refresh every ancestor of the positions ``lo..hi`` of ``arr``."""
    out = []
    while lo < hi:
        lo, hi = lo >> 1, hi >> 1
        out += [f"{arr}[{p}] = {arr}[{2 * p}] + {arr}[{2 * p + 1}];" for p in range(lo, hi + 1)]
    if lo > 1:
        out.append(f"u = {arr}[{lo}];")
        while lo > 1:
            out.append(f"u += {arr}[{lo ^ 1}]; {arr}[{lo >> 1}] = u;")
            lo >>= 1
    return " ".join(out)


# the statements both writers emit alike: a rate checked (finite, >= 0) before it is stored,
# a jump undone when it would make a count negative, a plain sum-tree descent


def _c_check(pad: str, code, slot, val: str = "a") -> list:
    """C lines that stop the run (status ``code``, slot ``slot``) unless ``val`` is a rate."""
    return [
        f"{pad}if (!({val} >= 0.0 && {val} <= DBL_MAX)) {{",
        f"{pad}    status[0] = {code}; status[1] = {slot}; bad[0] = {val}; goto fail; }}",
    ]


def _py_check(pad: str, code, slot, val: str = "a") -> list:
    """The Python twin's :func:`_c_check`."""
    return [
        f"{pad}if not ({val} >= 0.0 and {val} <= _DBL_MAX):",
        f"{pad}    status[0], status[1], bad[0] = {code}, {slot}, {val}",
        f"{pad}    raise _Fail",
    ]


def _c_linear(pad: str, q, x, PL: int) -> list:
    """C lines: the linear rate of slot ``q`` (its count ``X[x]``) into its leaf."""
    leaf = PL + q if isinstance(q, int) else f"{PL} + {q}"
    return [
        f"{pad}a = coef[{q}] * (double)X[{x}];",
        *_c_check(pad, 1, q),
        f"{pad}tree[{leaf}] = a;",
    ]


def _py_linear(pad: str, PL: int) -> list:
    """The Python twin's :func:`_c_linear` for the slot ``q`` of its loops."""
    return [f"{pad}a = coef[q] * x[ls[q]]", *_py_check(pad, 1, "q"), f"{pad}tree[{PL} + q] = a"]


def _c_jump(pad: str, entries, slot) -> list:
    """C lines that apply a jump ``[(index, delta)]``, undone (status 2) when a count would
    go negative."""
    out = []
    for e, (i, d) in enumerate(entries):
        out.append(f"{pad}X[{i}] += {d};")
        if d < 0:
            undo = " ".join(f"X[{i2}] -= {d2};" for i2, d2 in entries[: e + 1])
            out.append(f"{pad}if (X[{i}] < 0) {{ {undo} status[0] = 2; status[1] = {slot};")
            out.append(f"{pad}    status[2] = {i}; goto fail; }}")
    return out


def _c_descend(pad: str, arr: str, P, var: str) -> list:
    """C lines: the plain descent of the sum tree ``arr`` (leaves from ``P``) by ``var``."""
    return [
        f"{pad}while (p < {P}) {{",
        f"{pad}    const double l = {arr}[2 * p];",
        f"{pad}    if ({var} < l) p = 2 * p;",
        f"{pad}    else {{ {var} -= l; p = 2 * p + 1; }}",
        f"{pad}}}",
    ]


def _c_leaf_found(pad: str, arr: str, P, n: int) -> list:
    """C lines: the slot ``j`` of the leaf ``p`` reached, moved to the nearest positive one
    of the ``n`` leaves when rounding at a boundary reached another."""
    return [
        f"{pad}j = p - {P};",
        f"{pad}if (j >= {n} || !({arr}[p] > 0.0)) {{ /* rounding at a boundary: a positive leaf */",
        f"{pad}    j = j < {n} ? j : {n - 1};",
        f"{pad}    while (j >= 0 && !({arr}[{P} + j] > 0.0)) j--;",
        f"{pad}    if (j < 0) {{ j = 0; while (!({arr}[{P} + j] > 0.0)) j++; }}",
        f"{pad}}}",
    ]


def _py_descend(pad: str, arr: str, P: int, var: str, n: int) -> list:
    """The Python twin's :func:`_c_descend` and :func:`_c_leaf_found`."""
    return [
        f"{pad}p = 1",
        f"{pad}while p < {P}:",
        f"{pad}    lf = {arr}[2 * p]",
        f"{pad}    if {var} < lf:",
        f"{pad}        p = 2 * p",
        f"{pad}    else:",
        f"{pad}        {var} -= lf",
        f"{pad}        p = 2 * p + 1",
        f"{pad}j = p - {P}",
        f"{pad}if j >= {n} or not {arr}[p] > 0.0:",
        f"{pad}    j = min(j, {n - 1})",
        f"{pad}    while j >= 0 and not {arr}[{P} + j] > 0.0:",
        f"{pad}        j -= 1",
        f"{pad}    if j < 0:",
        f"{pad}        j = 0",
        f"{pad}        while not {arr}[{P} + j] > 0.0:",
        f"{pad}            j += 1",
    ]


def _py_refresh(pad: str, arr: str, lo, hi) -> list:
    """The Python twin's :func:`_refresh_c` (the ancestors of the positions ``lo..hi``)."""
    return [
        f"{pad}lo, hi = {lo}, {hi}",
        f"{pad}while lo < hi:",
        f"{pad}    lo >>= 1",
        f"{pad}    hi >>= 1",
        f"{pad}    for p in range(lo, hi + 1):",
        f"{pad}        {arr}[p] = {arr}[2 * p] + {arr}[2 * p + 1]",
        f"{pad}v = {arr}[lo]",
        f"{pad}while lo > 1:",
        f"{pad}    v += {arr}[lo ^ 1]",
        f"{pad}    lo >>= 1",
        f"{pad}    {arr}[lo] = v",
    ]


class KernelRun(NamedTuple):
    """A kernel's raw output (internal: :func:`symdelay.analysis.stochastic.simulate` turns it
    into a :class:`~symdelay.analysis.timeseries.TimeSeries`): ``paths`` (R, len(grid), n)
    int64 COUNTS, ``events_per_replication`` (R,), ``transition_counts`` (R, number of
    transitions; order of the table), ``final`` (R, n) the counts at the end (after the last
    grid time: the state when the next event falls beyond it)."""

    eta: int
    grid: np.ndarray
    paths: np.ndarray
    events_per_replication: np.ndarray
    transition_counts: np.ndarray
    final: np.ndarray
    backend: str

    @property
    def events(self) -> int:
        return int(self.events_per_replication.sum())


class GeneratedKernel:
    """A Gillespie simulator generated from ``(states, transitions, parameters)``.

    ``states``: distinct SymPy symbols (the scaled state ``s``); ``transitions``: triples
    ``(name, jump, beta)`` with ``jump`` one integer per state and ``beta`` the scaled rate (a
    SymPy expression in the states and the parameters); ``parameters``: every other symbol
    of the rates mapped to a real number. Nothing is compiled until the C backend runs.
    """

    def __init__(
        self,
        states: Sequence[sp.Symbol],
        transitions: Sequence[tuple[str, Sequence[int], sp.Expr]],
        parameters: Mapping[sp.Symbol, object] | None = None,
    ) -> None:
        states, names, jumps, rates = _check_table(states, transitions)
        parameters = dict(parameters or {})
        for p in parameters:
            if not isinstance(p, sp.Symbol):
                raise SymdelayInputError(f"parameter keys must be SymPy symbols, got {p!r}")
            if p in states:
                raise SymdelayInputError(f"{p} is both a state and a parameter")
        known = set(states) | set(parameters)
        for name, rate in zip(names, rates):
            unknown = rate.free_symbols - known
            if unknown:
                raise SymdelayInputError(
                    f"transition {name!r}: the rate {rate} uses "
                    f"{', '.join(sorted(map(str, unknown)))}, which is neither a state nor a "
                    "parameter; give its value in parameters"
                )
        self.states = states
        self.names = tuple(names)
        self.jumps = jumps
        self.rates = tuple(rates)
        self.parameters = {p: parameters[p] for p in parameters}
        self._param_values = {p: _as_float_value(str(p), v) for p, v in parameters.items()}
        self._generate_cached()
        self._lock = threading.Lock()
        self._c_fn = None
        self._c_tried = False
        self._py_fn = None

    # -- code generation ------------------------------------------------------------------

    def _cache_key(self) -> str:
        """Content hash of the table (states, jumps, rates, parameter names) and of this
        generator's source: the name of the cached generation result."""
        h = hashlib.sha256()
        h.update(_GENERATOR_DIGEST.encode())
        h.update(RNG_C_SOURCE.encode())  # the generated sources embed the generator
        h.update(sp.__version__.encode())  # and SymPy's printing
        memo: dict = {}
        h.update("|".join(map(sp.srepr, self.states)).encode())
        h.update(np.ascontiguousarray(self.jumps).tobytes())
        for r in self.rates:
            h.update(b"\0" + _canonical_text(r, memo).encode())
        h.update("|".join(sorted(map(sp.srepr, self.parameters))).encode())
        return h.hexdigest()[:24]

    _CACHED = (
        "c_source", "python_source", "coefficient_source", "classes", "_P2", "_W2", "_H0",
        "_Mt", "_NI",
    )  # fmt: skip

    def _generate_cached(self) -> None:
        """:meth:`_generate`, or its result from ``cache_dir()/gen-KEY.json`` (written after a
        generation; the parameter values are not part of it: they are applied here)."""
        names = [str(p) for p in self.parameters]
        path = None
        if len(set(names)) == len(names) and not os.environ.get("SYMDELAY_NO_GEN_CACHE"):
            path = cache_dir() / f"gen-{self._cache_key()}.json"
            try:
                data = json.loads(path.read_text())
            except (OSError, ValueError):
                data = None
            if isinstance(data, dict) and data.get("version") == _GENERATOR_DIGEST:
                try:
                    self._load_generation(data)
                    self.generation_cached = True
                    return
                except (KeyError, TypeError, ValueError, IndexError):  # a damaged entry
                    pass  # generate again (and overwrite it)
        self._generate()
        self.generation_cached = False
        if path is None:
            return
        data = {name: getattr(self, name) for name in self._CACHED}
        data |= {"version": _GENERATOR_DIGEST, "used": self._used_names}
        data |= {"floats": self._par[len(self._used_names) :].tolist()}
        data |= {"ix": self._ix.tolist(), "order": self._order.tolist()}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
            tmp.write_text(json.dumps(data))
            os.replace(tmp, path)  # atomic: concurrent first uses are safe
        except OSError:  # a read-only cache: generate again next time
            pass

    def _load_generation(self, data: dict) -> None:
        M = len(self.rates)
        values = {name: data[name] for name in self._CACHED}
        ix = np.array(data["ix"], dtype=np.int64)
        order = np.array(data["order"], dtype=np.int64)
        if ix.ndim != 1 or sorted(order.tolist()) != list(range(M)) or ix.size < 12:
            raise ValueError("damaged generation cache entry")
        by_name = {str(p): v for p, v in self._param_values.items()}
        par = [by_name[nm] for nm in data["used"]] + [float(f) for f in data["floats"]]
        for name, value in values.items():
            setattr(self, name, value)
        self._ix, self._order = ix, order
        self._par = np.array(par, dtype=np.float64)
        self._set_coefficients()

    def _set_coefficients(self) -> None:
        """The coefficients of the linear rates from the run-time parameters, once, in Python
        (both backends get the same doubles); one that cannot be evaluated is nan, and the
        run names the transition when its rate is first needed."""
        M = len(self.rates)
        try:
            fn = eval(self.coefficient_source, {"math": math})  # printed by SymPy
            vals = [float(v) for v in fn(*self._par.tolist())]
        except (OverflowError, ZeroDivisionError, ValueError, TypeError):
            vals = [math.nan] * M
        ls = self._ix[self._ix[3] : self._ix[4]]
        coef = [v if ls[q] >= 0 else 0.0 for q, v in enumerate(vals)]
        # then 1 / c of every count class (its leaf's slot): m = floor(v * (1/c)), a product
        # where a division would sit on the chain of every event (both backends: this double)
        for q in range(self._H0, self._Mt):
            c = coef[q]
            coef.append(1.0 / c if c != 0.0 else math.inf)
        self._coef = np.array(coef)

    def _generate(self) -> None:
        n, M = len(self.states), len(self.rates)
        sv = [sp.Symbol(f"s_{i}") for i in range(n)]
        used = sorted(
            set().union(*(r.free_symbols for r in self.rates)) - set(self.states),
            key=sp.default_sort_key,
        )
        # floats in the rates become run-time parameters (printed digits never matter)
        floats = sorted(
            set().union(*(r.atoms(sp.Float) for r in self.rates)),
            key=lambda f: (float(f), sp.srepr(f)),
        )
        pv = [sp.Symbol(f"p_{k}") for k in range(len(used) + len(floats))]
        repl = dict(zip(self.states, sv)) | dict(zip(used, pv))
        repl |= dict(zip(floats, pv[len(used) :]))
        self._par = np.array(
            [self._param_values[p] for p in used] + [float(f) for f in floats], dtype=np.float64
        )
        exprs = [r.xreplace(repl) for r in self.rates]
        index = {s: i for i, s in enumerate(sv)}
        # the classes of the module docstring: 'linear' (c * s_i), 'general' (the rest)
        lin_state, lin_coef = [-1] * M, [sp.Integer(0)] * M
        for j, e in enumerate(exprs):
            c, rest = e.as_independent(*sv, as_Add=False)
            if rest in index:
                lin_state[j], lin_coef[j] = index[rest], c
        general = [j for j in range(M) if lin_state[j] < 0]
        # count classes (module docstring): the linear rates of one coefficient expression
        # (so one double at run time)
        lin_order = _chain_order(self.jumps, lin_state)
        by_coef: dict = {}
        for j in lin_order:
            by_coef.setdefault(lin_coef[j], []).append(j)
        cls_members = [js for js in by_coef.values() if len(js) >= _COUNT_CLASS_MIN]
        in_class = {j for js in cls_members for j in js}
        singles = [j for j in lin_order if j not in in_class]
        # leaves of the sum tree in the order of the module docstring, a count class's at
        # its first member's slot (the other members' slots have no leaf)
        order = general + singles + [js[0] for js in cls_members]
        H0, Mt = len(general) + len(singles), len(order)
        order += [j for js in cls_members for j in js[1:]]
        ppr, cpr = _printers()

        def pr(printer, e, what):
            try:
                return printer.doprint(e)
            except Exception as exc:  # unsupported function
                raise SymdelayInputError(
                    f"cannot generate code for {what}: {exc}".replace("\n", " ")
                ) from None

        def rate_what(j):
            return f"the rate of transition {self.names[j]!r} ({self.rates[j]})"

        coef_py = [pr(ppr, lin_coef[j], rate_what(j)) for j in order]
        # general rates: one global cse, then per distinct set of changed states the temporaries
        # and rates that depend on it (the dependency graph of the general part)
        gexprs = [exprs[j] for j in general]
        lazy_total = _lazy_total(gexprs, sv, pv)
        weighted = None if lazy_total is not None else _weighted_class(gexprs, sv, pv)
        if weighted is not None:  # the slots keep the weights, the class its constant total
            gexprs = weighted[2]
        W2 = 1
        while weighted is not None and len(gexprs) > W2:
            W2 *= 2
        # a lazy or weighted class keeps one leaf (slot 0) for its general slots: the tree has
        # no leaves for slots 1 .. G - 1, the later slots' leaves sit SH = G - 1 lower
        GT = 1 if general and (lazy_total is not None or weighted is not None) else len(general)
        SH = len(general) - GT
        P2 = _pow2(Mt - SH)
        PL = P2 - SH  # the tree position of linear slot q: PL + q
        temps, reduced = sp.cse(gexprs, symbols=sp.numbered_symbols("e_")) if gexprs else ([], [])
        state_set = set(sv)
        deps: dict = {}

        def state_deps(e):
            d = e.free_symbols & state_set
            for t in e.free_symbols:
                d |= deps.get(t, set())
            return d

        for sym, e in temps:
            deps[sym] = state_deps(e)
        rate_deps = [state_deps(e) for e in reduced]  # general slot g -> state symbols
        const_temps = [(s, e) for s, e in temps if not deps[s]]
        var_temps = [(s, e) for s, e in temps if deps[s]]
        var_names = {s for s, _ in var_temps}
        exprs_of = dict(var_temps)
        want: set = set()
        stack = [t for e in reduced for t in e.free_symbols if t in var_names]
        while stack:
            t = stack.pop()
            if t not in want:
                want.add(t)
                stack += [u for u in exprs_of[t].free_symbols if u in var_names]
        live = [(s, e) for s, e in var_temps if s in want]
        g_states = sorted(
            {index[s] for d in rate_deps for s in d} | {index[s] for t, _ in live for s in deps[t]}
        )
        temp_c = {s: pr(cpr, e, "a rate expression") for s, e in temps}
        temp_py = {s: pr(ppr, e, "a rate expression") for s, e in temps}
        rate_c = [pr(cpr, e, rate_what(j)) for j, e in zip(general, reduced)]
        rate_py = [pr(ppr, e, rate_what(j)) for j, e in zip(general, reduced)]
        # per slot: the jump, the linear rates to recompute, the general group, the leaf runs
        changed = [[i for i in range(n) if self.jumps[j, i] != 0] for j in order]
        # the count classes' integer trees: class k at base b (X[b + 1] its total S, member
        # e's count at X[b + K2 + e]), after the n counts of the state
        cb, cm, cs = [], [], []
        mem_of_state: dict = {}
        base = n
        slot_of = {j: q for q, j in enumerate(order)}
        for k, js in enumerate(cls_members):
            K2 = _pow2(len(js))
            cb += [base, K2, len(cm), len(js)]
            for e, j in enumerate(js):
                cm.append(slot_of[j])
                cs.append(lin_state[j])
                mem_of_state.setdefault(lin_state[j], []).append((k, base, K2 + e))
            base += 2 * K2
        NI = base
        lin_of_state: dict = {}
        for q, j in enumerate(order[:H0]):
            if lin_state[j] >= 0:
                lin_of_state.setdefault(lin_state[j], []).append(q)
        ls = [lin_state[j] if q < H0 else -1 for q, j in enumerate(order)]
        for k in range(len(cls_members)):
            ls[H0 + k] = cb[4 * k] + 1  # the class's leaf: c * S
        groups: dict = {}
        blocks = []  # group id -> (states to reload, temporaries, general slots)
        jp, jx, jd, lp, ld, gr, rp, rr = [0], [], [], [0], [], [], [0], []
        cp, cx, cd = [0], [], []
        per_slot: list = []  # slot -> (jump entries, linear leaves, group, count units)
        for q, j in enumerate(order):
            for i in changed[q]:
                jx.append(i)
                jd.append(int(self.jumps[j, i]))
            jp.append(len(jx))
            # the count trees: the net change of every node (a move inside a class stops
            # where the two paths meet), and per class its changed members as units
            net: dict = {}
            by_class: dict = {}
            for i in changed[q]:
                d = int(self.jumps[j, i])
                for k, b, x in mem_of_state.get(i, ()):
                    by_class.setdefault(k, []).append((b, x, d))
                    while x >= 1:
                        net[b + x] = net.get(b + x, 0) + d
                        x >>= 1
            cnet = sorted((x, d) for x, d in net.items() if d != 0)
            cx += [x for x, _ in cnet]
            cd += [d for _, d in cnet]
            cp.append(len(cx))
            cunits = []
            for _, us in sorted(by_class.items()):
                for e in range(0, len(us) - 1, 2):
                    (b, x, dx), (_, y, dy) = us[e], us[e + 1]
                    cunits.append(("two", b, x, y, dx, dy))
                if len(us) % 2:
                    b, x, d = us[-1]
                    cunits.append(("one", b, x, d))
            heads = [H0 + k for k in by_class if net.get(cb[4 * k] + 1, 0) != 0]
            lins = sorted({x for i in changed[q] for x in lin_of_state.get(i, ())} | set(heads))
            ld += lins
            lp.append(len(ld))
            # a lazy class: no general rate is recomputed when the state changes
            key = (
                frozenset()
                if lazy_total is not None
                else frozenset(i for i in changed[q] if i in g_states)
            )
            gens = [g for g, d in enumerate(rate_deps) if key & {index[s] for s in d}]
            if key and key not in groups:
                groups[key] = len(blocks)
                syms = {sv[i] for i in key}
                blocks.append((sorted(key), [(t, e) for t, e in live if deps[t] & syms], gens))
            gr.append(groups[key] if key else -1)
            entries = [(i, int(self.jumps[j, i])) for i in changed[q]]
            per_slot.append((entries, lins, gr[-1], cunits, cnet))
            # general slot g is leaf g (of the weights' tree for a weighted class)
            for lo, hi in _runs(set(lins) | (set() if weighted else set(gens))):
                rr += [PL + lo, PL + hi]
            rp.append(len(rr) // 2)
        shapes, ro, rec = _shape_classes(per_slot, ls, PL)
        cr = [ro[q] for q in cm] if shapes else []
        # the records as 32-bit integers, two to an entry of the index array (the C kernel
        # reads them as int32: half the cache lines per event)
        rec32 = np.array(rec + [0] * (len(rec) % 2), dtype=np.int32)
        rec = rec32.view(np.int64).tolist()
        parts = [jp, jx, jd, ls, lp, ld, gr, rp, rr, ro, rec, cp, cx, cd, cb, cm, cs, cr]
        offsets, pos = [], len(parts) + 1
        for part in parts:
            offsets.append(pos)
            pos += len(part)
        offsets.append(pos)
        self._ix = np.array(offsets + [v for part in parts for v in part], dtype=np.int64)
        self._order = np.array(order, dtype=np.int64)  # slot -> transition
        self._P2, self._W2 = P2, W2
        self._H0, self._Mt, self._NI = H0, Mt, NI
        self.coefficient_source = f"lambda {', '.join(map(str, pv))}: [{', '.join(coef_py)}]"
        self._used_names = [str(p) for p in used]
        self._set_coefficients()
        self.classes = {"linear": M - len(general), "general": len(general), "groups": len(blocks)}
        self.classes["lazy"] = len(general) if lazy_total is not None else 0
        self.classes["weighted"] = len(general) if weighted is not None else 0
        self.classes["count"] = len(in_class)
        self.classes["count_classes"] = len(cls_members)
        spec = (n, M, P2, len(pv), const_temps, live, g_states, blocks, H0, Mt, len(cls_members))
        spec += (GT, SH, cb)
        lz_c = lz_py = None
        if weighted is not None:
            lazy_total = weighted[:2]
        if lazy_total is not None:
            what = "the total of the general rates"
            lz_c = (pr(cpr, lazy_total[0], what), [(g, pr(cpr, c, what)) for g, c in lazy_total[1]])
            lz_py = (
                pr(ppr, lazy_total[0], what),
                [(g, pr(ppr, c, what)) for g, c in lazy_total[1]],
            )
        wt = W2 if weighted is not None else 0
        self.c_source = self._c_source(*spec, temp_c, rate_c, per_slot, ls, shapes, lz_c, wt)
        self.python_source = self._py_source(*spec, temp_py, rate_py, lz_py, wt)

    def _c_source(
        self, n, M, P2, P, const_temps, live, g_states, blocks, H0, Mt, NC, GT, SH, cb,
        temp_c, rate_c, per_slot, ls, shapes, lz_c=None, W2=0,
    ):  # fmt: skip
        PL = P2 - SH  # the tree position of linear slot q: PL + q
        L = []
        w = L.append
        w("/* generated by symdelay.analysis.simulate: Gillespie direct method, sum tree */")
        w("#include <stdint.h>\n#include <string.h>\n#include <math.h>\n#include <float.h>")
        w("#ifdef __SSE2__\n#include <emmintrin.h>\n#endif")
        w("#ifdef __SSE4_1__\n#include <smmintrin.h>\n#endif\n")
        w(RNG_C_SOURCE)
        w(_exp_c_source())
        w(f"#define P2 {P2}")
        w(f"#define M {M}")
        w(f"#define MT {Mt} /* the slots with a leaf: general, linear, one per count class */")
        w("/* node p's new value is u (not yet stored): store it and go up while values change.")
        w("   A node whose new value is its old one (bit for bit) leaves every ancestor as it")
        w("   is: e.g. a job moving between two phases of one rate, c (X - 1) + c (X' + 1),")
        w("   stops below the root, and the total R is not stored again */")
        w("static inline int same(const double a, const double b) {")
        w("    uint64_t x, y;")
        w("    memcpy(&x, &a, 8); memcpy(&y, &b, 8);")
        w("    return x == y;")
        w("}")
        w("static inline void up(double *tree, int64_t p, double u) {")
        w("    for (;;) {")
        w("        if (same(tree[p], u)) return;")
        w("        tree[p] = u;")
        w("        if (p == 1) return;")
        w("        u += tree[p ^ 1];")
        w("        p >>= 1;")
        w("    }")
        w("}")
        w("/* leaves lo..hi (tree positions) changed: every ancestor = left + right again */")
        w("static inline void refresh(double *tree, int64_t lo, int64_t hi) {")
        w("    while (lo < hi) {")
        w("        lo >>= 1; hi >>= 1;")
        w("        for (int64_t p = lo; p <= hi; p++) tree[p] = tree[2 * p] + tree[2 * p + 1];")
        w("    }")
        w("    if (lo > 1) up(tree, lo >> 1, tree[lo] + tree[lo ^ 1]);")
        w("}")
        w("/* leaf p changed */")
        w("static inline void walk(double *tree, const int64_t p) {")
        w("    up(tree, p >> 1, tree[p] + tree[p ^ 1]);")
        w("}")
        w("/* leaves x != y changed: both paths up side by side to where they meet (x ^ 1 == y:")
        w("   stored one level below), then one */")
        w("static inline void walk2(double *tree, int64_t x, int64_t y) {")
        w("    double u = tree[x] + tree[x ^ 1], v = tree[y] + tree[y ^ 1];")
        w("    x >>= 1; y >>= 1;")
        w("    while (x != y) {")
        w("        tree[x] = u; tree[y] = v;")
        w("        u += tree[x ^ 1]; v += tree[y ^ 1];")
        w("        x >>= 1; y >>= 1;")
        w("    }")
        w("    up(tree, x, u);")
        w("}")
        w("/* the integer tree c of a count class: member leaf x changed by dx (every ancestor),")
        w("   or leaves x != y by dx, dy (side by side to where they meet, then dx + dy) */")
        w("static inline void cwalk(int64_t *c, int64_t x, const int64_t dx) {")
        w("    for (; x >= 1; x >>= 1) c[x] += dx;")
        w("}")
        w("static inline void cwalk2(int64_t *c, int64_t x, int64_t y, const int64_t dx,")
        w("                          const int64_t dy) {")
        w("    while (x != y) { c[x] += dx; c[y] += dy; x >>= 1; y >>= 1; }")
        w("    if (dx + dy != 0) cwalk(c, x, dx + dy);")
        w("}")
        w(f"int64_t {_FUNC}(const double *par, const double *coef, const int64_t *ix, double eta,")
        w("        int64_t *X0, uint64_t *rng, double *clock, const double *grid, int64_t ng,")
        w("        int64_t *out, int64_t *counts, int64_t max_events, int64_t *status,")
        w("        double *bad, double *tree, int64_t *X) {")
        w(f"    /* X: the {n} counts of the state, then the count classes' integer trees */")
        w(f"    memcpy(X, X0, {n} * sizeof(int64_t));")
        names = ["jp", "jx", "jd", "ls", "lp", "ld", "gr", "rp", "rr", "ro", "rec"]
        names += ["cp", "cx", "cd", "cb", "cm", "cs", "cr"]
        for k, nm in enumerate(names):
            w(f"    const int64_t *{nm} = ix + ix[{k}];")
        w("    const int32_t *rec32 = (const int32_t *)rec; /* the records: int32 */")
        for k in range(P):
            w(f"    const double p_{k} = par[{k}];")
        w("    double t = clock[0], tn = clock[1], a, u;")
        w("    int pending = clock[2] != 0.0;")
        w("    int64_t j = -1, k = 0, ev = 0;")
        for s, _ in const_temps:
            w(f"    const double {s} = {temp_c[s]};")
        for i in g_states:
            w(f"    double s_{i} = (double)X[{i}] / eta;")
        for s, _ in live:
            w(f"    double {s};")
        if W2:  # the weights of a weighted class: their own sum tree, after the main one
            w(f"    double *wt = tree + 4 * P2; /* {2 * W2} entries */")

        def leaf(slot, pad):
            if W2:
                w(f"{pad}a = {rate_c[slot]};")
                L.extend(_c_check(pad, 3, slot))
                w(f"{pad}wt[{W2 + slot}] = a;")
                return
            w(f"{pad}a = eta*({rate_c[slot]});")
            L.extend(_c_check(pad, 1, slot))
            if not SH:  # a lazy class: its rates are checked here, its leaf holds their total
                w(f"{pad}tree[P2 + {slot}] = a;")

        def group(g, pad, refresh):
            """The general rates group ``g`` recomputes (``refresh``: their leaves' ancestors
            too; else the event's runs of the index table refresh the main tree)."""
            reload, temps, gens = blocks[g]
            for i in reload:
                w(f"{pad}s_{i} = (double)X[{i}] / eta;")
            for s, _ in temps:
                w(f"{pad}{s} = {temp_c[s]};")
            for q in gens:
                leaf(q, pad)
            for lo, hi in _runs(gens) if refresh or W2 else ():
                w(
                    pad
                    + (_refresh_c(W2 + lo, W2 + hi, "wt") if W2 else _refresh_c(P2 + lo, P2 + hi))
                )

        def groups():
            """The blocks of the general rates an event's group recomputes."""
            for g in range(len(blocks)):
                w(f"    group_{g}:")
                group(g, "        ", True)
                w("        goto done;")

        for s, _ in live:
            w(f"    {s} = {temp_c[s]};")
        for g in range(len(rate_c)):
            leaf(g, "    ")
        G = len(rate_c)
        if lz_c is not None:
            # the general rates (checked above) as one leaf: their total, free of the state
            for g, c in lz_c[1]:  # the factor of rate g free of the state: >= 0
                w(f"    a = {c};")
                L.extend(_c_check("    ", 1, g))
            w(f"    a = eta*({lz_c[0]});")
            L.extend(_c_check("    ", 1, 0))
            w("    tree[P2 + 0] = a;")
            if W2:
                w(f"    for (int64_t q = {G}; q < {W2}; q++) wt[{W2} + q] = 0.0;")
                w(f"    for (int64_t p = {W2 - 1}; p >= 1; p--) wt[p] = wt[2 * p] + wt[2 * p + 1];")
            else:
                w(f"    double lz[{G}];")
        if NC:
            w(f"    for (int64_t kc = 0; kc < {NC}; kc++) {{ /* the count classes' trees */")
            w("        int64_t *c = X + cb[4 * kc];")
            w(
                "        const int64_t K2 = cb[4 * kc + 1], e0 = cb[4 * kc + 2], ne = cb[4 * kc + 3];"
            )
            w("        for (int64_t e = 0; e < K2; e++) c[K2 + e] = e < ne ? X[cs[e0 + e]] : 0;")
            w("        for (int64_t p = K2 - 1; p >= 1; p--) c[p] = c[2 * p] + c[2 * p + 1];")
            w("    }")
        w("    for (int64_t q = 0; q < MT; q++) {")
        w("        if (ls[q] < 0) continue;")
        L.extend(_c_linear("        ", "q", "ls[q]", PL))
        w("    }")
        w(f"    for (int64_t q = {Mt - SH}; q < P2; q++) tree[P2 + q] = 0.0;")
        w("    for (int64_t p = P2 - 1; p >= 1; p--) tree[p] = tree[2 * p] + tree[2 * p + 1];")
        w("    for (;;) {")
        w("        const double R = tree[1];")
        w("        if (!pending) {")
        w("            tn = R > 0.0 ? t + expo(rng) / R : INFINITY;")
        w("            pending = 1;")
        w("        }")
        w("        while (k < ng && grid[k] < tn) {")
        w(f"            for (int64_t i = 0; i < {n}; i++) out[k * {n} + i] = X[i];")
        w("            k++;")
        w("        }")
        w("        if (k >= ng || ev >= max_events) break;")
        w("        double v = unif(rng) * R;")
        w("        int64_t p = 1;")
        if P2 <= _BRANCHY_MAX_P2:
            # a small tree (count classes hold most linear rates): its levels are skewed and
            # their branches well predicted, shorter than any blend chain
            L.extend(_c_descend("        ", "tree", "P2", "v"))
        else:
            w("#ifdef __SSE4_1__")
            w(
                "        /* d = v - l is negative exactly when v < l (a difference of unequal doubles"
            )
            w("           is never zero): its sign bit picks the new v, the next left child l and")
            w("           the two candidates for the one after (c0, c1), whose loads were issued a")
            w("           level earlier: one subtraction and one blend per level on the chain, the")
            w("           loads off it (the same decisions as the Python twin's plain descent) */")
            w("        __m128d vv = _mm_set_sd(v), l = _mm_load_sd(&tree[2]);")
            if P2 >= 4:
                w("        __m128d c0 = _mm_load_sd(&tree[4]), c1 = _mm_load_sd(&tree[6]);")
            else:
                w("        __m128d c0 = _mm_setzero_pd(), c1 = c0;")
            w("        while (4 * p < P2) {")
            w("            const double *g = &tree[8 * p];")
            w("            const __m128d g0 = _mm_load_sd(g), g2 = _mm_load_sd(g + 2);")
            w("            const __m128d g4 = _mm_load_sd(g + 4), g6 = _mm_load_sd(g + 6);")
            w("            const __m128d d = _mm_sub_sd(vv, l);")
            w("            vv = _mm_blendv_pd(d, vv, d);")
            w("            l = _mm_blendv_pd(c1, c0, d);")
            w("            c0 = _mm_blendv_pd(g4, g0, d);")
            w("            c1 = _mm_blendv_pd(g6, g2, d);")
            w("            p = 2 * p + 1 - (_mm_movemask_pd(d) & 1);")
            w("        }")
            w("        while (p < P2) { /* the last two levels: nothing left to load */")
            w("            const __m128d d = _mm_sub_sd(vv, l);")
            w("            vv = _mm_blendv_pd(d, vv, d);")
            w("            l = _mm_blendv_pd(c1, c0, d);")
            w("            p = 2 * p + 1 - (_mm_movemask_pd(d) & 1);")
            w("        }")
            w("        v = _mm_cvtsd_f64(vv); /* the rest of the draw in the leaf */")
            w("#elif defined(__SSE2__)")
            w("        /* the left children of both possible next nodes are loaded before the")
            w(
                "           comparison decides (tree has 4 P2 entries: the last loads stay inside) */"
            )
            w("        __m128d vv = _mm_set_sd(v), l = _mm_load_sd(&tree[2]);")
            w("        while (p < P2) {")
            w(
                "            const __m128d c0 = _mm_load_sd(&tree[4 * p]), c1 = _mm_load_sd(&tree[4 * p + 2]);"
            )
            w("            const __m128d ge = _mm_cmpge_sd(vv, l); /* all ones when v >= l */")
            w("            vv = _mm_sub_sd(vv, _mm_and_pd(l, ge)); /* v - l or v - 0.0 (= v) */")
            w("            l = _mm_or_pd(_mm_and_pd(ge, c1), _mm_andnot_pd(ge, c0));")
            w("            p = 2 * p + (_mm_movemask_pd(ge) & 1);")
            w("        }")
            w("        v = _mm_cvtsd_f64(vv);")
            w("#else")
            w("        while (p < P2) {")
            w("            const double l = tree[2 * p];")
            w("            const uint64_t go = !(v < l);")
            w("            uint64_t b;")
            w("            memcpy(&b, &l, 8);")
            w("            b &= -go; /* l or +0.0: v - 0.0 is v (no branch, no rounding) */")
            w("            double sub;")
            w("            memcpy(&sub, &b, 8);")
            w("            v -= sub;")
            w("            p = 2 * p + (int64_t)go;")
            w("        }")
            w("#endif")
        L.extend(_c_leaf_found("        ", "tree", "P2", Mt - SH))
        if SH:
            w(f"        if (j >= {GT}) j += {SH}; /* leaf -> slot */")
        if W2:
            # the weighted class drawn: one of its rates by descending the weights' tree
            w(f"        if (j < {G}) {{")
            w("            double wz = wt[1];")
            w(
                "            if (!(wz > 0.0)) { status[0] = 3; status[1] = -1; bad[0] = wz; goto fail; }"
            )
            w("            wz *= unif(rng);")
            w("            int64_t p = 1;")
            L.extend(_c_descend("            ", "wt", W2, "wz"))
            L.extend(_c_leaf_found("            ", "wt", W2, G))
            w("        }")
        elif lz_c is not None:
            # the class of the general rates drawn: its rates now, one of them by a new uniform
            w(f"        if (j < {G}) {{")
            for i in g_states:
                w(f"            s_{i} = (double)X[{i}] / eta;")
            for s_, _ in live:
                w(f"            {s_} = {temp_c[s_]};")
            w("            double sum = 0.0;")
            for g in range(G):
                w(f"            a = eta*({rate_c[g]});")
                L.extend(_c_check("            ", 1, g))
                w(f"            lz[{g}] = a; sum += a;")
            w(
                "            if (!(sum > 0.0)) { status[0] = 1; status[1] = 0; bad[0] = sum; goto fail; }"
            )
            w("            double wz = unif(rng) * sum;")
            w("            j = -1;")
            w(f"            for (int64_t q = 0; q < {G}; q++) {{")
            w("                if (wz < lz[q]) { j = q; break; }")
            w("                wz -= lz[q];")
            w("            }")
            w(f"            if (j < 0) {{ j = {G - 1}; while (j > 0 && !(lz[j] > 0.0)) j--; }}")
            w("        }")
        shaped = bool((M > _SPECIALIZE_MAX_M or (NC and M > _COUNT_SPECIALIZE_MAX_M)) and shapes)
        if NC:
            # a count class drawn: m = floor(v / c), the member that holds the m-th job, by
            # a branch-free descent of the class's integer tree unrolled to its depth, the
            # candidates for the next left child loaded a level early (off the chain)
            if shaped:
                w("        int64_t rj = -1; /* the record of a count class's member */")
            w(f"        if (j >= {H0}) {{")
            w("            int64_t m, p = 1, l, c0, c1, go, mk;")
            w("            int64_t g0, g2, g4, g6;")
            w("            (void)c0; (void)c1; (void)g0; (void)g2; (void)g4; (void)g6;")
            w(f"            switch (j - {H0}) {{")
            for kc in range(NC):
                b0, K2, e0 = cb[4 * kc : 4 * kc + 3]
                D = K2.bit_length() - 1
                w(f"            case {kc}: {{")
                w(f"                const int64_t *c = X + {b0};")
                w(f"                m = (int64_t)(v * coef[{M + kc}]);")
                w("                if (m >= c[1]) m = c[1] - 1;")
                w("                l = c[2];" + (" c0 = c[4]; c1 = c[6];" if D >= 2 else ""))
                for d in range(D):
                    if d + 3 <= D:
                        w(
                            "                g0 = c[8 * p]; g2 = c[8 * p + 2]; g4 = c[8 * p + 4]; g6 = c[8 * p + 6];"
                        )
                    # masks, not ?: (gcc turns those into branches)
                    step = "go = m >= l; mk = -go; m -= l & mk;"
                    if d + 2 <= D:
                        step += " l = (c1 & mk) | (c0 & ~mk);"
                    if d + 3 <= D:
                        step += " c0 = (g4 & mk) | (g0 & ~mk); c1 = (g6 & mk) | (g2 & ~mk);"
                    w(f"                {step} p = 2 * p + go;")
                w(f"                j = cm[{e0 - K2} + p];")
                if shaped:
                    w(f"                rj = cr[{e0 - K2} + p];")
                w("                break;")
                w("            }")
            w("            }")
            w("        }")
        if shaped:
            # one case per shape class, the indices from the transition's record (with count
            # classes above _COUNT_SPECIALIZE_MAX_M: their moves share a shape)
            w(
                "        const int32_t *r = rec32 + (rj >= 0 ? rj : ro[j]);"
                if NC
                else "        const int32_t *r = rec32 + ro[j];"
            )
            w("        switch (r[0]) {")
            for sid, (deltas, nlin, units, has_g, cunits) in enumerate(shapes):
                w(f"        case {sid}:")
                L.extend(
                    _c_jump("            ", [(f"r[{1 + e}]", d) for e, d in enumerate(deltas)], "j")
                )
                f = 1 + len(deltas)
                for u in cunits:
                    if u[0] == "two":
                        w(
                            f"            cwalk2(X + r[{f}], r[{f + 1}], r[{f + 2}], {u[1]}, {u[2]});"
                        )
                        f += 3
                    else:
                        w(f"            cwalk(X + r[{f}], r[{f + 1}], {u[1]});")
                        f += 2
                for _ in range(nlin):
                    L.extend(_c_linear("            ", f"r[{f}]", f"r[{f + 1}]", PL))
                    f += 2
                for u in units:
                    if u == "two":
                        w(f"            walk2(tree, r[{f}], r[{f + 1}]);")
                        f += 2
                    else:
                        w(f"            walk(tree, r[{f}]);")
                        f += 1
                if has_g:
                    w(f"            switch (r[{f}]) {{")
                    for g in range(len(blocks)):
                        w(f"            case {g}: goto group_{g};")
                    w("            }")
                w("            break;")
            w("        }")
            w("        goto done;")
            groups()
        elif M > _SPECIALIZE_MAX_M:
            # table driven (small source, fast gcc): the jump, the linear rates and the leaf
            # runs of the event from the index arrays, the general rates of its group
            w("        for (int64_t e = jp[j]; e < jp[j + 1]; e++) {")
            w("            X[jx[e]] += jd[e];")
            w("            if (X[jx[e]] < 0) {")
            w("                for (int64_t f = jp[j]; f <= e; f++) X[jx[f]] -= jd[f];")
            w("                status[0] = 2; status[1] = j; status[2] = jx[e]; goto fail;")
            w("            }")
            w("        }")
            if NC:
                w("        for (int64_t e = cp[j]; e < cp[j + 1]; e++) X[cx[e]] += cd[e];")
            w("        for (int64_t e = lp[j]; e < lp[j + 1]; e++) {")
            w("            const int64_t q = ld[e];")
            L.extend(_c_linear("            ", "q", "ls[q]", PL))
            w("        }")
            if blocks:
                w("        switch (gr[j]) {")
                for g in range(len(blocks)):
                    w(f"        case {g}:")
                    group(g, "            ", False)
                    w("            break;")
                w("        default:")
                w("            break;")
                w("        }")
            w(
                "        for (int64_t e = rp[j]; e < rp[j + 1]; e++) refresh(tree, rr[2 * e], rr[2 * e + 1]);"
            )
        else:
            # one case per leaf with constant indices (one indirect jump per event, no loops
            # over the tables); the general rates of a group in one block after the switch
            w("        switch (j) {")
            for q, (entries, lins, g, _, cnet) in enumerate(per_slot):
                w(f"        case {q}:")
                L.extend(_c_jump("            ", entries, q))
                if cnet:
                    w("            " + " ".join(f"X[{x}] += {d};" for x, d in cnet))
                for q2 in lins:
                    L.extend(_c_linear("            ", q2, ls[q2], PL))
                for lo, hi in _runs(lins):
                    w("            " + _refresh_c(PL + lo, PL + hi))
                w(f"            goto group_{g};" if g >= 0 else "            break;")
            w("        }")
            w("        goto done;")
            groups()
        w("    done:")
        w("        counts[j] += 1;")
        w("        ev++;")
        w("        t = tn;")
        w("        pending = 0;")
        w("    }")
        w("    clock[0] = t; clock[1] = tn; clock[2] = pending; clock[3] = tree[1];")
        w(f"    memcpy(X0, X, {n} * sizeof(int64_t));")
        w("    return k;")
        w("fail:")
        w("    status[2] = status[0] == 1 || status[0] == 3 ? j : status[2];")
        w(f"    memcpy(X0, X, {n} * sizeof(int64_t));")
        w("    return -1;")
        w("}")
        return "\n".join(L) + "\n"

    def _py_source(
        self, n, M, P2, P, const_temps, live, g_states, blocks, H0, Mt, NC, GT, SH, cb,
        temp_py, rate_py, lz_py=None, W2=0,
    ):  # fmt: skip
        PL = P2 - SH  # the tree position of linear slot q: PL + q
        L = []
        w = L.append
        w("def run(par, coef, ix, eta, X, rng, clock, grid, ng, out, counts, max_events,")
        w("        status, bad, work, iwork):")
        w("    st = [int(v) for v in rng]")
        w("    u64, unif = _partial(_next_u64, st), _partial(_unif, st)  # the C kernel's stream")
        w("    ixl = ix.tolist()")
        names = ["jp", "jx", "jd", "ls", "lp", "ld", "gr", "rp", "rr", "ro", "rec"]
        names += ["cp", "cx", "cd", "cb", "cm", "cs"]
        for k, nm in enumerate(names):
            w(f"    {nm} = ixl[ixl[{k}] : ixl[{k + 1}]]")
        w("    coef = coef.tolist()")
        for k in range(P):
            w(f"    p_{k} = float(par[{k}])")
        w("    eta = float(eta)")
        w(f"    x = [int(v) for v in X] + [0] * {self._NI - n}")
        w("    grid = grid.tolist()")
        w("    cnt = [int(v) for v in counts]")
        w(f"    tree = [0.0] * {2 * P2}")
        if W2:
            w(f"    wt = [0.0] * {2 * W2}")
        w("    t, tn, pending = float(clock[0]), float(clock[1]), clock[2] != 0.0")
        w("    j, k, ev, fail = -1, 0, 0, 0")
        w("    try:")
        for s, _ in const_temps:
            w(f"        {s} = {temp_py[s]}")
        for i in g_states:
            w(f"        s_{i} = x[{i}] / eta")

        def leaf(slot, pad):
            if W2:  # a weight out of range is this class's error, not an exception
                w(f"{pad}try:")
                w(f"{pad}    a = {rate_py[slot]}")
                w(f"{pad}except OverflowError:")
                w(f"{pad}    a = math.inf")
                L.extend(_py_check(pad, 3, slot))
                w(f"{pad}wt[{W2 + slot}] = a")
                return
            w(f"{pad}a = eta*({rate_py[slot]})")
            L.extend(_py_check(pad, 1, slot))
            if not SH:
                w(f"{pad}tree[{P2 + slot}] = a")

        for s, _ in live:
            w(f"        {s} = {temp_py[s]}")
        for g in range(len(rate_py)):
            leaf(g, "        ")
        G = len(rate_py)
        if lz_py is not None:
            for g, c in lz_py[1]:
                w(f"        a = {c}")
                L.extend(_py_check("        ", 1, g))
            w(f"        a = eta*({lz_py[0]})")
            L.extend(_py_check("        ", 1, 0))
            w(f"        tree[{P2}] = a")
            if W2:
                w(f"        for p in range({W2 - 1}, 0, -1):")
                w("            wt[p] = wt[2 * p] + wt[2 * p + 1]")
            else:
                w(f"        lz = [0.0] * {G}")
        if NC:  # the count classes' integer trees
            w(f"        for kc in range({NC}):")
            w("            b, K2, e0, ne = cb[4 * kc : 4 * kc + 4]")
            w("            for e in range(K2):")
            w("                x[b + K2 + e] = x[cs[e0 + e]] if e < ne else 0")
            w("            for p in range(K2 - 1, 0, -1):")
            w("                x[b + p] = x[b + 2 * p] + x[b + 2 * p + 1]")
        w(f"        for q in range({Mt}):")
        w("            if ls[q] >= 0:")
        L.extend(_py_linear("                ", PL))
        w(f"        for p in range({P2 - 1}, 0, -1):")
        w("            tree[p] = tree[2 * p] + tree[2 * p + 1]")
        w("        while True:")
        w("            R = tree[1]")
        w("            if not pending:")
        w("                tn = t + _expo(u64, unif) / R if R > 0.0 else math.inf")
        w("                pending = True")
        w("            while k < ng and grid[k] < tn:")
        w(f"                out[k] = x[:{n}]")
        w("                k += 1")
        w("            if k >= ng or ev >= max_events:")
        w("                break")
        w("            v = unif() * R")
        L.extend(_py_descend("            ", "tree", P2, "v", Mt - SH))
        if SH:
            w(f"            if j >= {GT}:")
            w(f"                j += {SH}")
        if W2:
            w(f"            if j < {G}:")
            w("                wz = wt[1]")
            w("                if not wz > 0.0:")
            w("                    status[0], status[1], bad[0] = 3, -1, wz")
            w("                    raise _Fail")
            w("                wz *= unif()")
            L.extend(_py_descend("                ", "wt", W2, "wz", G))
        elif lz_py is not None:
            w(f"            if j < {G}:")
            for i in g_states:
                w(f"                s_{i} = x[{i}] / eta")
            for s_, _ in live:
                w(f"                {s_} = {temp_py[s_]}")
            w("                total = 0.0")
            for g in range(G):
                w(f"                a = eta*({rate_py[g]})")
                L.extend(_py_check("                ", 1, g))
                w(f"                lz[{g}] = a")
                w("                total += a")
            w("                if not total > 0.0:")
            w("                    status[0], status[1], bad[0] = 1, 0, total")
            w("                    raise _Fail")
            w("                wz = unif() * total")
            w("                j = -1")
            w(f"                for q in range({G}):")
            w("                    if wz < lz[q]:")
            w("                        j = q")
            w("                        break")
            w("                    wz -= lz[q]")
            w("                if j < 0:")
            w(f"                    j = {G - 1}")
            w("                    while j > 0 and not lz[j] > 0.0:")
            w("                        j -= 1")
        if NC:
            w(f"            if j >= {H0}:")
            w(f"                b, K2, e0 = cb[4 * (j - {H0}) : 4 * (j - {H0}) + 3]")
            w(f"                m = int(v * coef[{M - H0} + j])")
            w("                if m >= x[b + 1]:")
            w("                    m = x[b + 1] - 1")
            w("                p = 1")
            w("                while p < K2:")
            w("                    lf = x[b + 2 * p]")
            w("                    if m < lf:")
            w("                        p = 2 * p")
            w("                    else:")
            w("                        m -= lf")
            w("                        p = 2 * p + 1")
            w("                j = cm[e0 + p - K2]")
        w("            for e in range(jp[j], jp[j + 1]):")
        w("                x[jx[e]] += jd[e]")
        w("                if x[jx[e]] < 0:")
        w("                    for f in range(jp[j], e + 1):")
        w("                        x[jx[f]] -= jd[f]")
        w("                    status[0], status[1], status[2] = 2, j, jx[e]")
        w("                    raise _Fail")
        if NC:
            w("            for e in range(cp[j], cp[j + 1]):")
            w("                x[cx[e]] += cd[e]")
        w("            for e in range(lp[j], lp[j + 1]):")
        w("                q = ld[e]")
        L.extend(_py_linear("                ", PL))
        if blocks:
            w("            g = gr[j]")
            for g, (reload, temps, gens) in enumerate(blocks):
                w(f"            {'if' if g == 0 else 'elif'} g == {g}:")
                for i in reload:
                    w(f"                s_{i} = x[{i}] / eta")
                for s, _ in temps:
                    w(f"                {s} = {temp_py[s]}")
                for q in gens:
                    leaf(q, "                ")
                for lo, hi in _runs(gens) if W2 else ():  # the weights' ancestors
                    L.extend(_py_refresh("                ", "wt", W2 + lo, W2 + hi))
        w("            for e in range(rp[j], rp[j + 1]):")
        L.extend(_py_refresh("                ", "tree", "rr[2 * e]", "rr[2 * e + 1]"))
        w("            cnt[j] += 1")
        w("            ev += 1")
        w("            t = tn")
        w("            pending = False")
        w("    except _Fail:")
        w("        fail = 1")
        w("        if status[0] in (1, 3):")
        w("            status[2] = j")
        w("    except (OverflowError, ZeroDivisionError, ValueError, TypeError):")
        w("        fail = 1")
        w("        status[0], status[1], status[2], bad[0] = 1, -1, j, math.nan")
        w(f"    X[:] = x[:{n}]")
        w("    counts[:] = cnt")
        w("    rng[:] = _np.array(st, dtype=_np.uint64)")
        w("    clock[:3] = (t, tn, 1.0 if pending else 0.0)")
        w("    clock[3] = tree[1]")
        w("    return -1 if fail else k")
        return "\n".join(L) + "\n"

    # -- backends -------------------------------------------------------------------------

    @property
    def workspace_size(self) -> int:
        """Doubles of the kernel's workspace (its last argument): the sum tree, 2 P2 used and
        read up to 4 P2 by the branch-free descent, then the weights' tree of a weighted class."""
        return 4 * self._P2 + (2 * self._W2 if self.classes.get("weighted") else 0)

    @property
    def integer_workspace_size(self) -> int:
        """Int64 entries of the kernel's integer workspace (its last argument): the counts of
        the state (copied in at every call and out at its end), then the count classes'
        trees."""
        return self._NI

    def python_function(self) -> Callable:
        """The pure-Python twin (same arguments and draws as the compiled kernel)."""
        if self._py_fn is None:

            class _Fail(Exception):
                pass

            ns = {
                "math": math,
                "_np": np,
                "_partial": functools.partial,
                "_next_u64": next_u64,
                "_unif": unif,
                "_DBL_MAX": _DBL_MAX,
                "_expo": _exp_variate,
                "_Fail": _Fail,
            }
            exec(compile(self.python_source, "<symdelay generated kernel>", "exec"), ns)
            self._py_fn = ns["run"]
        return self._py_fn

    def c_function(self):
        """The compiled kernel (compiled into the cache dir at first use), or ``None`` when no
        C compiler works or ``SYMDELAY_NO_C`` is set."""
        with self._lock:
            if self._c_tried:
                return self._c_fn
            self._c_tried = True
            self._c_fn = _load_shared(self.c_source)
            return self._c_fn

    # -- running --------------------------------------------------------------------------

    def _check_initial(self, initial) -> np.ndarray:
        n = len(self.states)
        try:
            arr = np.asarray(initial, dtype=float)
        except (TypeError, ValueError):
            raise SymdelayInputError(
                f"initial must be {n} whole counts (one per state), got {initial!r}"
            ) from None
        if arr.ndim != 1 or arr.size != n:
            raise SymdelayInputError(
                f"initial must have {n} entries ({', '.join(map(str, self.states))}), "
                f"got shape {arr.shape}"
            )
        if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)) or np.any(arr < 0):
            raise SymdelayInputError("initial must contain whole counts >= 0")
        if np.any(arr > 2**52):  # doubles hold integers exactly below 2^53
            raise SymdelayInputError("initial counts must be below 2^52")
        return arr.astype(np.int64)

    @staticmethod
    def _check_grid(grid) -> np.ndarray:
        try:
            g = np.array(grid, dtype=np.float64)
        except (TypeError, ValueError):
            raise SymdelayInputError(f"grid must be a list of times, got {grid!r}") from None
        if g.ndim != 1 or g.size == 0:
            raise SymdelayInputError("grid must be a non-empty 1-D list of times")
        if not np.all(np.isfinite(g)) or g[0] < 0 or np.any(np.diff(g) < 0):
            raise SymdelayInputError("grid times must be finite, >= 0 and non-decreasing")
        return np.ascontiguousarray(g)

    def _backend(self, backend: str):
        fn = choose_backend(backend, self.c_function)
        if fn is None:
            return "python", self.python_function()
        return "c", fn

    def run(self, eta, initial, grid, seed=1, backend: str = "auto"):
        """One path: ``(counts on the grid, len(grid) x n int64; number of events)``.

        The state at a grid time includes the events at that time (right-continuous).
        ``seed``: anything :func:`numpy.random.default_rng` accepts; the xoshiro256** state
        is drawn from it exactly as :func:`symdelay.simulate` does for its replication 0.
        """
        r = self.run_replications(eta, initial, grid, seed, 1, backend=backend)
        return r.paths[0], r.events

    def run_replications(
        self,
        eta,
        initial,
        grid,
        seed=1,
        replications: int = 1,
        *,
        backend: str = "auto",
        threads: int | None = None,
        chunk_events: int | None = None,
        progress: Callable[[int], None] | None = None,
        monitor: Callable[[float, int], None] | None = None,
    ) -> KernelRun:
        """``replications`` independent paths (threads for the C backend; the results do not
        depend on the number of threads). ``chunk_events``: events per call into the kernel
        between checks for Ctrl-C (default 2^20 for C, 2^14 for Python). ``monitor(time,
        events)`` is called in the calling thread between chunks: the simulated time summed
        over the replications (each counted up to the last grid time) and the events so far;
        an exception it raises (Ctrl-C) stops the workers after their current chunk."""
        eta = check_eta(eta)
        init = self._check_initial(initial)
        g = self._check_grid(grid)
        R, n, M = check_replications(replications), len(self.states), len(self.rates)
        if R * g.size * n > 250_000_000:
            raise SymdelayInputError(
                "the recorded paths would exceed 2 GB: use fewer replications or grid points"
            )
        name, fn = self._backend(backend)
        if chunk_events is None:
            chunk_events = 2**20 if name == "c" else 2**14
        chunk = min(check_replications(chunk_events, "chunk_events"), 2**62)
        states = seed_states(np.random.default_rng(seed), R)
        out = np.zeros((R, g.size, n), dtype=np.int64)
        counts = np.zeros((R, M), dtype=np.int64)
        final = np.tile(init, (R, 1))
        done = np.zeros(R)  # simulated time of each replication so far
        events = np.zeros(R, dtype=np.int64)
        cancel = threading.Event()
        end = float(g[-1])

        def report() -> None:
            if monitor is not None:
                monitor(float(np.minimum(done, end).sum()), int(events.sum()))

        def one(i: int, serial: bool) -> None:
            X = np.ascontiguousarray(final[i])
            rs = np.ascontiguousarray(states[i])
            o = np.zeros((g.size, n), dtype=np.int64)
            c = np.zeros(M, dtype=np.int64)

            def step(t: float, ev: int) -> None:
                done[i], events[i] = t, ev
                if serial:
                    report()

            self._drive(fn, name, float(eta), X, rs, g, o, c, chunk, cancel, step)
            out[i], counts[i], final[i] = o, c, X
            done[i] = end
            if progress is not None:
                progress(1)

        nthreads = threads or min(R, os.cpu_count() or 1)
        if name == "python" or nthreads <= 1 or R == 1:
            for i in range(R):
                one(i, True)
        else:
            with ThreadPoolExecutor(max_workers=nthreads) as pool:
                futures = [pool.submit(one, i, False) for i in range(R)]
                try:
                    pending = set(futures)
                    while pending:
                        finished, pending = wait(pending, timeout=0.2, return_when=FIRST_EXCEPTION)
                        for f in finished:
                            f.result()
                        report()
                except BaseException:
                    cancel.set()  # workers stop at their next chunk boundary
                    for f in futures:
                        f.cancel()
                    raise
        return KernelRun(eta, g, out, counts.sum(axis=1), counts, final, name)

    def _drive(self, fn, name, eta, X, rs, g, o, c, chunk, cancel, step=None) -> None:
        clock = np.zeros(4, dtype=np.float64)  # t, next event time, pending, total rate
        status = np.zeros(3, dtype=np.int64)
        bad = np.zeros(1, dtype=np.float64)
        tree = np.zeros(self.workspace_size, dtype=np.float64)
        iw = np.zeros(self.integer_workspace_size, dtype=np.int64)
        cs = np.zeros(len(self.rates), dtype=np.int64)  # per slot
        par, coef, ix = self._par, self._coef, self._ix
        k, ng = 0, g.size
        while k < ng:
            if cancel.is_set():
                break
            r = int(
                fn(par, coef, ix, eta, X, rs, clock, g[k:], ng - k, o[k:], cs, chunk, status,
                   bad, tree, iw)
            )  # fmt: skip
            if r < 0:
                raise self._run_error(status, bad, X, eta)
            k += r
            if step is not None:
                step(float(g[-1]) if k >= ng else float(clock[0]), int(cs.sum()))
        c[self._order] = cs

    def _state_text(self, X) -> str:
        return ", ".join(f"{s}={int(x)}" for s, x in zip(self.states, X))

    def _run_error(self, status, bad, X, eta) -> SymdelayInputError:
        code, j, last = (int(v) for v in status)
        if code == 1 and self._H0 <= j < self._Mt:
            j = -1  # a count class's leaf c * S: find the member whose rate is bad
        j = int(self._order[j]) if j >= 0 else j  # slot -> transition
        if code == 2:
            before = X  # the kernel undid the partial jump
            return SymdelayInputError(
                f"transition {self.names[j]!r} would make {self.states[last]} negative "
                f"(counts {self._state_text(before)}, eta={int(eta)}): its rate must vanish "
                "when that count is 0; fix the rate expression"
            )
        value = float(bad[0])
        if code == 3:  # a weight of the weighted class, or their sum
            first = [str(self.names[t]) for t in self._order[: self.classes["weighted"]]]
            what = f"the weight of {self.names[j]!r}" if int(status[1]) >= 0 else "their sum"
            return SymdelayInputError(
                f"the rates {first[0]!r} ... {first[-1]!r} (one denominator, the sum of their "
                f"numerators) cannot be evaluated in double precision at counts "
                f"({self._state_text(X)}) with eta={int(eta)}: {what} is {value!r}; rescale "
                "the rate expressions (e.g. weights relative to the smallest count) or the "
                "parameters"
            )
        if j < 0:  # the Python twin hit an exception: find the culprit rate
            j, value = self._first_bad_rate(eta, X)
        return SymdelayInputError(
            f"the rate of transition {self.names[j]!r} is {value!r} at counts "
            f"({self._state_text(X)}) with eta={int(eta)}: rates eta*beta(X/eta) must be "
            "finite and >= 0; fix the rate expression or the parameters"
        )

    def _first_bad_rate(self, eta, X):
        vals = self.rates_at(eta, X, strict=False)
        for j, v in enumerate(vals):
            if not (v >= 0.0 and v <= _DBL_MAX):
                return j, float(v)
        return 0, math.nan  # pragma: no cover

    def rates_at(self, eta, X, *, strict: bool = True) -> np.ndarray:
        """``eta * beta_nu(X/eta)`` for every transition, evaluated one by one with SymPy's
        lambdify (an evaluation path independent of the generated code). With ``strict``
        a failed evaluation raises; otherwise it gives ``nan``."""
        eta = float(eta)
        subs = {s: int(x) / eta for s, x in zip(self.states, X)}
        out = np.empty(len(self.rates))
        for j, r in enumerate(self.rates):
            e = r.xreplace({p: sp.Float(v, 17) for p, v in self._param_values.items()})
            f = sp.lambdify(list(subs), e, modules="math")
            try:
                out[j] = eta * float(f(*subs.values()))
            except (OverflowError, ZeroDivisionError, ValueError):
                if strict:
                    raise
                out[j] = math.nan
        return out


# ---------------------------------------------------------------------------------------
# compiling and loading (the cache directory of symdelay.core.cbuild)


def _bind(lib):
    fn = getattr(lib, _FUNC)
    i64p = np.ctypeslib.ndpointer(np.int64, flags="C_CONTIGUOUS")
    u64p = np.ctypeslib.ndpointer(np.uint64, flags="C_CONTIGUOUS")
    f64p = np.ctypeslib.ndpointer(np.float64, flags="C_CONTIGUOUS")
    fn.argtypes = [f64p, f64p, i64p, ctypes.c_double, i64p, u64p, f64p, f64p, ctypes.c_int64]
    fn.argtypes += [i64p, i64p, ctypes.c_int64, i64p, f64p, f64p, i64p]
    fn.restype = ctypes.c_int64
    return fn


def _load_shared(source: str):
    return load_library(source, "generated", "the generated kernel", _bind, native=True)


def generated_kernel(model) -> GeneratedKernel:
    """The exact simulator generated from ``model``'s transition table (built once per model,
    compiled at first run)."""
    if has_lags(model):
        model.require_no_lags("an exact simulation", not_yet=True)
    return model.cached(
        "kernel",
        lambda: GeneratedKernel(
            model.states, [(t.name, t.change, t.rate) for t in model.transitions], model.values
        ),
    )
