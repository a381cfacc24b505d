"""The grid of a sweep: axes of values, combined as a product; one axis may zip parameters.

An axis is one or more parameters advanced together (a *zip*); the grid is the product of
its axes, the last axis varying fastest. Values are written in the spec as

* a list: ``theta = [1, 2, "5/2"]`` (numbers, or exact text such as ``"1/2"`` or ``"inf"``),
* a linear range with a number of points: ``{start = 0.5, stop = 10, num = 20}``,
* a range with a step: ``{start = 1, stop = 8, step = 1}`` (``stop`` included when hit),
* a log-range: ``{start = 0.1, stop = 10, num = 15, log = true}`` (geometric spacing).

Linear ranges are computed exactly (fractions) and handed to the analysis as exact text, so
``{start = 0, stop = 1, num = 11}`` gives ``"1/10"``, not the binary float ``0.1``.

>>> axis_values("L", [1, 2, 3])
(1, 2, 3)
>>> axis_values("theta", {"start": 0, "stop": 1, "num": 5})
(0, '1/4', '1/2', '3/4', 1)
>>> axis_values("L", {"start": 2, "stop": 8, "step": 3})
(2, 5, 8)
>>> axis_values("D", {"start": 0.1, "stop": 10, "num": 3, "log": True})
(0.1, 1.0, 10.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from symdelay.errors import SymdelayInputError

__all__ = ["Axis", "axis_values", "parse_grid", "value_as_float", "MAX_TASKS"]

#: A sweep larger than this is refused (split it, or raise the limit in Python).
MAX_TASKS = 10_000_000


@dataclass(frozen=True)
class Axis:
    """Parameters advanced together: ``values[i]`` is the tuple of their i-th values."""

    names: tuple[str, ...]
    values: tuple[tuple, ...]
    scale: str = "linear"

    def __len__(self) -> int:
        return len(self.values)

    def to_json(self) -> dict:
        return {"names": list(self.names), "values": [list(v) for v in self.values]}


def _exact(name: str, value) -> Fraction:
    """A TOML number or exact text as a Fraction (for range arithmetic)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise SymdelayInputError(f"grid '{name}': range ends must be numbers, got {value!r}")
    from symdelay.params import exact_number

    try:
        out = exact_number(f"grid '{name}'", value)
    except SymdelayInputError:
        raise SymdelayInputError(
            f"grid '{name}': '{value}' is not a number (write 0.5 or \"1/2\")"
        ) from None
    return Fraction(int(out.p), int(out.q))


def _token(x: Fraction):
    """An exact value as the spec would write it: an int, or text such as ``"3/4"``."""
    return int(x) if x.denominator == 1 else str(x)


def _count(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise SymdelayInputError(f"grid '{name}': num must be an integer >= 1, got {value!r}")
    return value


def _check_item(name: str, v):
    if isinstance(v, bool) or not isinstance(v, int | float | str):
        raise SymdelayInputError(
            f"grid '{name}': values must be numbers or text, got {v!r} ({type(v).__name__})"
        )
    if isinstance(v, float) and math.isnan(v):
        raise SymdelayInputError(f"grid '{name}': nan is not a grid value")
    return v


def axis_values(name: str, spec) -> tuple:
    """The values one parameter takes, from its spec entry (see the module docstring)."""
    if isinstance(spec, list):
        if not spec:
            raise SymdelayInputError(f"grid '{name}' is empty: give at least one value")
        return tuple(_check_item(name, v) for v in spec)
    if not isinstance(spec, dict):
        return (_check_item(name, spec),)
    keys = set(spec)
    allowed = {"start", "stop", "num", "step", "log"}
    if keys - allowed:
        raise SymdelayInputError(
            f"grid '{name}': unknown key(s) {sorted(keys - allowed)}; a range has "
            "start, stop and num (or step), and log = true for a log-range"
        )
    if not {"start", "stop"} <= keys or ("num" in keys) == ("step" in keys):
        raise SymdelayInputError(
            f"grid '{name}': a range needs start, stop and exactly one of num or step"
        )
    a, b = _exact(name, spec["start"]), _exact(name, spec["stop"])
    if spec.get("log", False):
        if "num" not in keys:
            raise SymdelayInputError(f"grid '{name}': a log-range takes num, not step")
        n = _count(name, spec["num"])
        if not (a > 0 and b > 0):
            raise SymdelayInputError(f"grid '{name}': a log-range needs start, stop > 0")
        fa, fb = float(a), float(b)
        if n == 1:
            return (fa,)
        la, lb = math.log10(fa), math.log10(fb)
        inner = tuple(10.0 ** (la + (lb - la) * i / (n - 1)) for i in range(1, n - 1))
        return (fa, *inner, fb)
    if "num" in keys:
        n = _count(name, spec["num"])
        if n == 1:
            return (_token(a),)
        return tuple(_token(a + (b - a) * i / (n - 1)) for i in range(n))
    step = _exact(name, spec["step"])
    if step == 0 or (b - a) / step < 0:
        raise SymdelayInputError(
            f"grid '{name}': step {spec['step']} does not lead from {spec['start']} "
            f"to {spec['stop']}"
        )
    n = math.floor((b - a) / step) + 1
    if n > MAX_TASKS:
        raise SymdelayInputError(f"grid '{name}': {n} values is too many (limit {MAX_TASKS})")
    return tuple(_token(a + step * i) for i in range(n))


def _axis(table: dict) -> Axis:
    if not table:
        raise SymdelayInputError("a [[grid]] table is empty: give at least one parameter")
    names = tuple(table)
    cols = [axis_values(n, table[n]) for n in names]
    lengths = {len(c) for c in cols}
    if len(lengths) != 1:
        sizes = ", ".join(f"{n}: {len(c)}" for n, c in zip(names, cols))
        raise SymdelayInputError(
            f"zipped parameters need as many values each, got {sizes}; "
            "put them in separate [[grid]] tables for a product"
        )
    log = any(isinstance(table[n], dict) and table[n].get("log", False) for n in names)
    return Axis(names, tuple(zip(*cols)), "log" if log else "linear")


def parse_grid(grid) -> tuple[Axis, ...]:
    """Axes from the spec's ``[grid]`` (a table: one axis per key) or ``[[grid]]`` (a list
    of tables: one axis per table, its keys zipped)."""
    if grid is None:
        raise SymdelayInputError("the spec has no [grid]: give at least one parameter to sweep")
    if isinstance(grid, dict):
        axes = tuple(_axis({k: v}) for k, v in grid.items())
    elif isinstance(grid, list) and all(isinstance(t, dict) for t in grid):
        axes = tuple(_axis(t) for t in grid)
    else:
        raise SymdelayInputError("[grid] must be a table, or [[grid]] tables (one per axis)")
    if not axes:
        raise SymdelayInputError("the grid is empty: give at least one parameter to sweep")
    names = [n for a in axes for n in a.names]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise SymdelayInputError(f"grid parameter(s) {dup} appear on more than one axis")
    return axes


def value_as_float(v):
    """A grid value as a float (``"1/2"`` -> 0.5, ``"inf"`` -> inf); None if it is not a
    number (text such as a model name)."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int | float):
        return float(v)
    text = str(v).strip().lower()
    if text in {"inf", "+inf", "oo", "infinity"}:
        return math.inf
    try:
        return float(Fraction(text))
    except (ValueError, ZeroDivisionError):
        return None
