"""A transition table checked at the door: the states, the names, the jumps and the rates
(:func:`check_table`), a parameter value as a float, and a text of a rate that is the same in
every process (for the cache keys)."""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

import numpy as np

from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp

__all__ = ["check_table"]


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
