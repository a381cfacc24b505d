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
import re
from dataclasses import dataclass
from fractions import Fraction

from symdelay.core.errors import SymdelayInputError

__all__ = [
    "Axis",
    "axis_size",
    "axis_values",
    "grid_size",
    "parse_grid",
    "value_as_float",
    "MAX_TASKS",
]

#: A sweep of more tasks than this (grid points times replications) is refused before any
#: value is made, unless forced (``sweep run --force``, ``force=True``): a million tasks
#: already take minutes of bookkeeping and gigabytes before the first one runs.
from symdelay.core.budget import MAX_TASKS


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


_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?|[+-]?\d+/\d+")

#: The largest decimal exponent of a range end (``1e400`` is fine, ``1e1000000000`` is not).
_MAX_EXPONENT = 10_000


def _exact(name: str, value) -> Fraction:
    """A TOML number or exact text as a Fraction (for range arithmetic)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise SymdelayInputError(f"grid '{name}': range ends must be numbers, got {value!r}")
    from symdelay.core.params import exact_number

    try:
        out = exact_number(f"grid '{name}'", value)
    except SymdelayInputError as exc:
        if "exponent" in str(exc):  # a number, but beyond what a range can hold
            raise
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


@dataclass(frozen=True)
class _Range:
    """A checked range entry, not yet expanded: ``n`` values from ``a``."""

    kind: str  # "num", "step" or "log"
    a: Fraction
    b: Fraction
    n: int
    step: Fraction | None = None


def _range(name: str, spec: dict) -> _Range:
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
    log = spec.get("log", False)
    if not isinstance(log, bool):
        raise SymdelayInputError(f"grid '{name}': log must be true or false, got {log!r}")
    a, b = _exact(name, spec["start"]), _exact(name, spec["stop"])
    if log:
        if "num" not in keys:
            raise SymdelayInputError(f"grid '{name}': a log-range takes num, not step")
        if not (a > 0 and b > 0):
            raise SymdelayInputError(f"grid '{name}': a log-range needs start, stop > 0")
        for end in (a, b):
            try:
                f = float(end)
            except OverflowError:
                f = math.inf
            if not (0.0 < f < math.inf):
                raise SymdelayInputError(
                    f"grid '{name}': a log-range runs in floats; {end} is outside their range"
                )
        return _Range("log", a, b, _count(name, spec["num"]))
    if "num" in keys:
        return _Range("num", a, b, _count(name, spec["num"]))
    step = _exact(name, spec["step"])
    if step == 0 or (b - a) / step < 0:
        raise SymdelayInputError(
            f"grid '{name}': step {spec['step']} does not lead from {spec['start']} "
            f"to {spec['stop']}"
        )
    return _Range("step", a, b, math.floor((b - a) / step) + 1, step)


def axis_size(name: str, spec) -> int:
    """How many values the spec entry of one parameter gives, computed without making them
    (so that a huge grid is refused before anything is allocated).

    >>> axis_size("D", {"start": 0.1, "stop": 10, "num": 100_000_000})
    100000000
    >>> axis_size("L", {"start": 1, "stop": "1e12", "step": 1})
    1000000000000
    """
    if isinstance(spec, list):
        return len(spec)
    if not isinstance(spec, dict):
        return 1
    return _range(name, spec).n


def _log_inner(a: Fraction, b: Fraction, n: int) -> tuple[float, ...]:
    """The inner ``n - 2`` of ``n`` geometric points from ``a`` to ``b``, each correctly
    rounded to a float (so that 0.6 prints as 0.6, not 0.6000000000000003): computed in
    113-bit arithmetic, the ratio once and then products, whose rounding errors (about
    ``n * 2**-113`` relative) stay far below a float's."""
    import mpmath

    with mpmath.workprec(113):
        x = mpmath.mpf(a.numerator) / a.denominator
        fb = mpmath.mpf(b.numerator) / b.denominator
        ratio = (fb / x) ** (mpmath.mpf(1) / (n - 1))
        out = []
        for _ in range(n - 2):
            x *= ratio
            out.append(float(x))
    return tuple(out)


def axis_values(name: str, spec) -> tuple:
    """The values one parameter takes, from its spec entry (see the module docstring)."""
    if isinstance(spec, list):
        if not spec:
            raise SymdelayInputError(f"grid '{name}' is empty: give at least one value")
        return tuple(_check_item(name, v) for v in spec)
    if not isinstance(spec, dict):
        return (_check_item(name, spec),)
    r = _range(name, spec)
    a, b, n = r.a, r.b, r.n
    if r.kind == "log":
        fa, fb = float(a), float(b)
        if n == 1:
            return (fa,)
        return (fa, *_log_inner(a, b, n), fb)
    if r.kind == "num":
        if n == 1:
            return (_token(a),)
        return tuple(_token(a + (b - a) * i / (n - 1)) for i in range(n))
    return tuple(_token(a + r.step * i) for i in range(n))


def _tables(grid) -> list[dict]:
    if grid is None:
        raise SymdelayInputError("the spec has no [grid]: give at least one parameter to sweep")
    if isinstance(grid, dict):
        tables = [{k: v} for k, v in grid.items()]
    elif isinstance(grid, list) and all(isinstance(t, dict) for t in grid):
        tables = list(grid)
    else:
        raise SymdelayInputError("[grid] must be a table, or [[grid]] tables (one per axis)")
    if not tables:
        raise SymdelayInputError("the grid is empty: give at least one parameter to sweep")
    for t in tables:
        if not t:
            raise SymdelayInputError("a [[grid]] table is empty: give at least one parameter")
    names = [n for t in tables for n in t]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise SymdelayInputError(f"grid parameter(s) {dup} appear on more than one axis")
    return tables


def _table_size(table: dict) -> int:
    sizes = {n: axis_size(n, v) for n, v in table.items()}
    if len(set(sizes.values())) != 1:
        text = ", ".join(f"{n}: {k}" for n, k in sizes.items())
        raise SymdelayInputError(
            f"zipped parameters need as many values each, got {text}; "
            "put them in separate [[grid]] tables for a product"
        )
    return next(iter(sizes.values()))


_FORCE = "or add --force to 'symdelay sweep run' (force=True in Python) to run it anyway"


def grid_size(grid, replications: int = 1, *, budget: int | None = None) -> int:
    """The number of tasks of a grid (times ``replications``), computed from the spec alone
    before any value is made; over ``budget`` (default :data:`MAX_TASKS`; None there means
    no limit is given, 0 none at all) one line naming the axis and the count.

    >>> grid_size({"theta": [1, 2, 3], "D": {"start": 1, "stop": 2, "num": 4}}, 2)
    24
    """
    budget = MAX_TASKS if budget is None else budget
    tables = _tables(grid)
    sizes = [(", ".join(t), _table_size(t)) for t in tables]
    total = math.prod(k for _, k in sizes) * replications
    if budget and total > budget:
        for label, k in sizes:
            if k > budget:
                raise SymdelayInputError(
                    f"grid '{label}' has {k:,} values, over the budget of {budget:,} tasks: "
                    f"use fewer values, {_FORCE}"
                )
        parts = [f"{label} {k:,}" for label, k in sizes]
        if replications > 1:
            parts.append(f"{replications:,} replications")
        raise SymdelayInputError(
            f"the sweep has {total:,} tasks ({' x '.join(parts)}), over the budget of "
            f"{budget:,}: split the grid, {_FORCE}"
        )
    return total


def _axis(table: dict) -> Axis:
    names = tuple(table)
    cols = [axis_values(n, table[n]) for n in names]
    lengths = {len(c) for c in cols}
    if len(lengths) != 1:  # pragma: no cover - _table_size checked the sizes
        raise SymdelayInputError(f"zipped parameters {list(names)} need as many values each")
    log = any(isinstance(table[n], dict) and table[n].get("log", False) for n in names)
    return Axis(names, tuple(zip(*cols)), "log" if log else "linear")


def parse_grid(grid, *, replications: int = 1, force: bool = False) -> tuple[Axis, ...]:
    """Axes from the spec's ``[grid]`` (a table: one axis per key) or ``[[grid]]`` (a list
    of tables: one axis per table, its keys zipped). The grid is sized first
    (:func:`grid_size`) and refused over :data:`MAX_TASKS` tasks unless ``force``."""
    grid_size(grid, replications, budget=0 if force else MAX_TASKS)
    return tuple(_axis(t) for t in _tables(grid))


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
