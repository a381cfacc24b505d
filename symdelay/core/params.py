"""Checking parameters at the door: exact numbers, clear errors.

Numeric inputs become SymPy rationals before any algebra (``0.1`` -> ``1/10``, from the
decimal text, not the binary float). Symbolic inputs must use the canonical names.

>>> as_parameter("mu", 0.5)
1/2
>>> as_parameter("mu", None)
mu
>>> as_parameter("D", -1)
Traceback (most recent call last):
...
symdelay.core.errors.SymdelayInputError: D must be positive, got -1
>>> as_L(3), as_L("L")
(3, L)
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

import sympy as sp

from symdelay.core.errors import SymdelayInputError
from symdelay.core.parsing import parse_expression
from symdelay.core.symbols import SYMBOLS

__all__ = [
    "as_parameter",
    "as_L",
    "as_L_or_inf",
    "is_infinite_L",
    "as_dps",
    "as_positive_number",
    "DPS_RANGE",
    "INFINITE_L",
]

#: The delay-differential limit L = oo.
INFINITE_L = sp.oo
_INF_WORDS = {"inf", "+inf", "oo", "infinity"}

DPS_RANGE = (5, 10000)


def _number_to_rational(name: str, value) -> sp.Rational:
    if isinstance(value, bool):
        raise SymdelayInputError(f"{name} must be a number, got {value!r}")
    if isinstance(value, float):
        if not math.isfinite(value):
            raise SymdelayInputError(f"{name} must be a finite number, got {value!r}")
        # the shortest decimal that round-trips (numpy float64 is a float subclass too)
        return sp.Rational(str(Fraction(repr(float(value)))))
    if isinstance(value, (int, Fraction)):
        return sp.Rational(value)
    if isinstance(value, numbers.Real):  # numpy scalars, decimals
        return (
            _number_to_rational(name, float(value))
            if not isinstance(value, numbers.Integral)
            else sp.Integer(int(value))
        )
    raise SymdelayInputError(f"{name} must be a number, got {value!r}")


def as_parameter(name: str, value, *, positive: bool = True, default=None):
    """Return ``value`` as an exact SymPy number or an expression in canonical symbols.

    ``None`` gives the canonical symbol ``name`` (or ``default``). Numbers must be finite
    and, when ``positive``, strictly positive.
    """
    if value is None:
        return SYMBOLS[name] if default is None else default
    if isinstance(value, str):
        text = value.strip()
        if text.lower() in {"nan", "+nan", "-nan", "inf", "+inf", "-inf", "oo"}:
            raise SymdelayInputError(f"{name} must be a finite number, got '{value}'")
        expr = parse_expression(text)
    elif isinstance(value, sp.Basic):
        expr = value
        unknown = sorted(str(s) for s in expr.free_symbols if SYMBOLS.get(str(s)) != s)
        if unknown:
            raise SymdelayInputError(
                f"unknown symbol '{unknown[0]}' in {name}: use the names " + ", ".join(SYMBOLS)
            )
    else:
        expr = _number_to_rational(name, value)
    if isinstance(expr, sp.Rel):
        raise SymdelayInputError(f"{name} must be a value, not a relation '{value}'")
    if expr.is_number:
        if expr.has(sp.nan, sp.zoo, sp.oo, -sp.oo) or not expr.is_finite:
            raise SymdelayInputError(f"{name} must be a finite number, got '{value}'")
        if expr.is_real is False:
            raise SymdelayInputError(f"{name} must be real, got '{value}'")
        if isinstance(expr, sp.Float):
            expr = sp.nsimplify(expr, rational=True)
        if positive and not expr > 0:
            raise SymdelayInputError(f"{name} must be positive, got {value}")
    return expr


def as_positive_number(name: str, value) -> sp.Rational:
    """A strictly positive finite number, exact (no symbols)."""
    expr = as_parameter(name, value)
    if not expr.is_number:
        raise SymdelayInputError(f"{name} must be a number, got '{value}'")
    return expr


def as_L(value, *, allow_symbol: bool = True):
    """The number of Erlang phases: an integer >= 1, or the symbol ``L``.

    >>> as_L(0)
    Traceback (most recent call last):
    ...
    symdelay.core.errors.SymdelayInputError: L must be an integer >= 1 (number of delay phases), got 0
    """
    if isinstance(value, sp.Symbol) and allow_symbol:
        if value.name != "L":
            raise SymdelayInputError(
                f"unknown symbol '{value}' for L: use an integer >= 1 or the symbol L"
            )
        return SYMBOLS["L"]
    if isinstance(value, str):
        text = value.strip()
        if allow_symbol and text == "L":
            return SYMBOLS["L"]
        try:
            value = int(text)
        except ValueError:
            raise SymdelayInputError(
                f"L must be an integer >= 1 (number of delay phases)"
                f"{' or the symbol L' if allow_symbol else ''}, got '{text}'"
            ) from None
    if isinstance(value, bool):
        raise SymdelayInputError(
            f"L must be an integer >= 1 (number of delay phases), got {value!r}"
        )
    if isinstance(value, float):
        if not math.isfinite(value) or value != int(value):
            raise SymdelayInputError(
                f"L must be an integer >= 1 (number of delay phases), got {value!r}"
            )
        value = int(value)
    if isinstance(value, sp.Integer):
        value = int(value)
    if not isinstance(value, numbers.Integral):
        raise SymdelayInputError(
            f"L must be an integer >= 1 (number of delay phases), got {value!r}"
        )
    if value < 1:
        raise SymdelayInputError(f"L must be an integer >= 1 (number of delay phases), got {value}")
    return int(value)


def is_infinite_L(value) -> bool:
    """True for ``"inf"``, ``"oo"``, ``math.inf`` or ``sympy.oo`` (the L -> oo limit)."""
    if isinstance(value, str):
        return value.strip().lower() in _INF_WORDS
    if isinstance(value, float) and not isinstance(value, bool):
        return math.isinf(value) and value > 0
    return value is sp.oo


def as_L_or_inf(value, *, allow_symbol: bool = False):
    """An integer ``L >= 1``, :data:`INFINITE_L` (``"inf"``, ``"oo"``, ``math.inf``) or,
    with ``allow_symbol``, the symbol ``L``.

    >>> as_L_or_inf("inf"), as_L_or_inf(4)
    (oo, 4)
    """
    if is_infinite_L(value):
        return INFINITE_L
    try:
        return as_L(value, allow_symbol=allow_symbol)
    except SymdelayInputError:
        shown = f"'{value}'" if isinstance(value, str) else repr(value)
        symbol = ", the symbol L" if allow_symbol else ""
        raise SymdelayInputError(
            f"L must be an integer >= 1 (number of delay phases){symbol} or inf, got {shown}"
        ) from None


def as_dps(value) -> int:
    """Decimal digits of working precision, in ``DPS_RANGE``.

    >>> as_dps(3)
    Traceback (most recent call last):
    ...
    symdelay.core.errors.SymdelayInputError: dps must be an integer between 5 and 10000, got 3
    """
    lo, hi = DPS_RANGE
    try:
        ivalue = int(value)
        ok = ivalue == value or (isinstance(value, str) and str(ivalue) == value.strip())
    except (TypeError, ValueError):
        ok = False
    if not ok or not lo <= ivalue <= hi:
        raise SymdelayInputError(f"dps must be an integer between {lo} and {hi}, got {value}")
    return ivalue
