"""Printing numbers: one rounding, at the precision the caller chose.

>>> import mpmath, sympy as sp
>>> format_number(mpmath.mpf(2) / 3, 6)
'0.666667'
>>> format_exact(sp.Rational(3, 2)), format_exact(sp.Integer(10) ** 300)
('3/2', '1e+300')
"""

from __future__ import annotations

from fractions import Fraction

import mpmath

from symdelay.core.lazy import loaded
from symdelay.core.lazy import sympy as sp
from symdelay.core.precision import GUARD

__all__ = ["format_number", "format_exact"]


def format_number(x, dps: int, strip: bool = False) -> str:
    """Decimal string with ``dps`` significant digits, rounded once; ``"inf"`` for infinity."""
    if x is None:
        return None
    if isinstance(x, Fraction | int) and not isinstance(x, bool):
        with mpmath.workdps(dps + GUARD):
            x = mpmath.mpf(x.numerator) / x.denominator
    elif loaded("sympy") and isinstance(x, sp.Basic):
        if x in (sp.oo, -sp.oo):
            return "inf" if x > 0 else "-inf"
        if x.is_Rational:
            with mpmath.workdps(dps + GUARD):
                x = mpmath.mpf(int(x.p)) / int(x.q)
    if mpmath.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0:
        return "0"
    with mpmath.workdps(dps + GUARD):
        return mpmath.nstr(mpmath.mpf(x), dps, strip_zeros=strip)


def format_exact(x, dps: int = 15) -> str:
    """An exact input for display: as written when short (``3/2``, ``1000``), as its exact
    decimal when that is (``1e+300``, ``1.0000000000000000000001``), else rounded.

    >>> format_exact(sp.Rational(3, 2)), format_exact(sp.Integer(10) ** 300)
    ('3/2', '1e+300')
    """
    from symdelay.core.params import exact_decimal, printable

    if isinstance(x, Fraction | int) and not isinstance(x, bool):  # no SymPy needed
        x = Fraction(x)
        short = max(x.numerator.bit_length(), x.denominator.bit_length()) <= 133  # 40 digits
        s = str(x) if short else ""
        if s and len(s) <= 20:
            return s
        d = exact_decimal(x)
        if d is not None and len(d) <= 40:
            return d
        return format_number(x, dps, strip=True)
    x = sp.sympify(x)
    s = str(x) if printable(x, 40) else ""
    if s and len(s) <= 20:
        return s
    if x.is_Rational:
        d = exact_decimal(x)
        if d is not None and len(d) <= 40:
            return d
    return format_number(x, dps, strip=True)
