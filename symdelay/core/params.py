"""Checking parameters at the door: exact numbers, clear errors.

Numeric inputs become SymPy rationals before any algebra (``0.1`` -> ``1/10``, from the
decimal text, not the binary float). :func:`exact_number` is the one conversion rule: every
module that turns a user's number into an exact value calls it (directly or through
:func:`as_parameter`). Symbolic inputs must use the canonical names.

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

from symdelay.core import symbols as _symbols
from symdelay.core.errors import SymdelayInputError
from symdelay.core.exact import (  # noqa: F401 - the one conversion rule, re-exported
    _DECIMAL_TEXT,
    _DIGITS,
    _FRACTION_TEXT,
    _NONFINITE_WORDS,
    MAX_DECIMAL_EXPONENT,
    MAX_EXACT_DIGITS,
    _from_decimal_text,
    _nonfinite,
    _strip_factor,
    exact_decimal,
    exact_fraction,
    exact_number,
    printable,
)
from symdelay.core.lazy import loaded
from symdelay.core.lazy import sympy as sp

__all__ = [
    "as_parameter",
    "exact_number",
    "exact_decimal",
    "printable",
    "as_L",
    "as_L_or_inf",
    "is_infinite_L",
    "as_dps",
    "as_number",
    "as_positive_number",
    "DPS_RANGE",
    *("INFINITE_L",),  # made at first use (module __getattr__)
]


def __getattr__(name):
    # INFINITE_L is SymPy's oo: made at first use (PEP 562), so that importing this module
    # does not import SymPy
    if name == "INFINITE_L":
        return sp.oo
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_INF_WORDS = {"inf", "+inf", "oo", "infinity"}

DPS_RANGE = (5, 10000)

#: the largest number of delay phases any analysis takes (beyond it: refused in one line)
MAX_L = 10**9


#: Words for non-numbers (refused with the parameter's name, never read as symbols).
def as_parameter(name: str, value, *, positive: bool = True, default=None):
    """Return ``value`` as an exact SymPy number or an expression in canonical symbols.

    ``None`` gives the canonical symbol ``name`` (or ``default``). Numbers must be finite
    and, when ``positive``, strictly positive.
    """
    from symdelay.core.symbols import SYMBOLS

    if value is None:
        return SYMBOLS[name] if default is None else default
    if isinstance(value, str):
        text = value.strip()
        if text.lower() in _NONFINITE_WORDS:
            raise _nonfinite(name, text)
        expr = _from_decimal_text(name, text, value)
        if expr is not None:
            expr = sp.Rational(expr.numerator, expr.denominator)
        else:  # an expression: its number literals go through exact_number
            from symdelay.core.parsing import parse_expression

            expr = parse_expression(text)
    elif isinstance(value, sp.Basic):
        expr = value
        unknown = sorted(str(s) for s in expr.free_symbols if SYMBOLS.get(str(s)) != s)
        if unknown:
            raise SymdelayInputError(
                f"unknown symbol '{unknown[0]}' in {name}: use the names " + ", ".join(SYMBOLS)
            )
        if expr.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
            raise _nonfinite(name, value)
        floats = expr.atoms(sp.Float)
        if floats:
            expr = expr.xreplace({f: exact_number(name, f) for f in floats})
    else:
        expr = exact_number(name, value)
    if isinstance(expr, sp.Rel):
        raise SymdelayInputError(f"{name} must be a value, not a relation '{value}'")
    if expr.is_number:
        if expr.has(sp.nan, sp.zoo, sp.oo, -sp.oo) or not expr.is_finite:
            raise SymdelayInputError(f"{name} must be a finite number, got '{value}'")
        if expr.is_real is False:
            raise SymdelayInputError(f"{name} must be real, got '{value}'")
        if positive and not expr > 0:
            raise SymdelayInputError(f"{name} must be positive, got {value}")
    return expr


def as_number(name: str, value, *, positive: bool = True) -> sp.Rational:
    """A finite number, exact (no symbols); strictly positive unless ``positive=False``."""
    expr = as_parameter(name, value, positive=positive)
    if not expr.is_number:
        raise SymdelayInputError(f"{name} must be a number, got '{value}'")
    return expr


#: a strictly positive finite number, exact (no symbols)
as_positive_number = as_number


def as_L(value, *, allow_symbol: bool = True):
    """The number of Erlang phases: an integer >= 1, or the symbol ``L``.

    >>> as_L(0)
    Traceback (most recent call last):
    ...
    symdelay.core.errors.SymdelayInputError: L must be an integer >= 1 (number of delay phases), got 0
    """
    if type(value) is int and 1 <= value <= MAX_L:  # the common case, no ABC checks
        return value
    sympy_value = loaded("sympy") and isinstance(value, sp.Basic)
    if sympy_value and isinstance(value, sp.Symbol) and allow_symbol:
        if value.name != "L":
            raise SymdelayInputError(
                f"unknown symbol '{value}' for L: use an integer >= 1 or the symbol L"
            )
        return _symbols.L
    if isinstance(value, str):
        text = value.strip()
        if allow_symbol and text == "L":
            return _symbols.L
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
    if sympy_value and isinstance(value, sp.Integer):
        value = int(value)
    if not isinstance(value, numbers.Integral):
        raise SymdelayInputError(
            f"L must be an integer >= 1 (number of delay phases), got {value!r}"
        )
    if value < 1:
        raise SymdelayInputError(f"L must be an integer >= 1 (number of delay phases), got {value}")
    if value > MAX_L:
        raise SymdelayInputError(
            f"L = {value if value < 10**30 else f'a {len(str(value))}-digit integer'} is beyond "
            f"every computation of symdelay (at most L = 10^9 phases; L = inf is the limit)"
        )
    return int(value)


def is_infinite_L(value) -> bool:
    """True for ``"inf"``, ``"oo"``, ``math.inf`` or ``sympy.oo`` (the L -> oo limit)."""
    if type(value) is int:
        return False
    if isinstance(value, str):
        return value.strip().lower() in _INF_WORDS
    if isinstance(value, float) and not isinstance(value, bool):
        return math.isinf(value) and value > 0
    return loaded("sympy") and value is sp.oo  # no SymPy object exists before SymPy loads


def as_L_or_inf(value, *, allow_symbol: bool = False):
    """An integer ``L >= 1``, :data:`INFINITE_L` (``"inf"``, ``"oo"``, ``math.inf``) or,
    with ``allow_symbol``, the symbol ``L``.

    >>> as_L_or_inf("inf"), as_L_or_inf(4)
    (oo, 4)
    """
    if is_infinite_L(value):
        return sp.oo
    whole = isinstance(value, int) or (
        isinstance(value, str) and value.strip().lstrip("+-").isdigit()
    )
    if whole:  # a whole number: its own message (below 1, or beyond every computation)
        return as_L(value, allow_symbol=allow_symbol)
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
