"""Printing numbers: one rounding, at the precision the caller chose.

>>> import mpmath, sympy as sp
>>> format_number(mpmath.mpf(2) / 3, 6)
'0.666667'
>>> format_exact(sp.Rational(3, 2)), format_exact(sp.Integer(10) ** 300)
('3/2', '1e+300')

A certified number (a value with a proved error radius) is printed by one function,
:func:`format_certified`, for every command and every record: the radius it prints bounds
the distance from the *printed* digits to the true number (the certified radius plus the
rounding of the digits shown, rounded up), and a number proved real (or proved on the
imaginary axis) is printed without the part that is exactly zero.

>>> z = mpmath.mpc("-0.290638582", "2.312403")
>>> format_certified(z, mpmath.mpf("5e-21"), 5)
{'re': '-0.29064', 'im': '2.3124', 'radius': '3.32e-6'}
>>> certified_text(z, mpmath.mpf("5e-21"), 5)
'-0.29064 + 2.3124i  +- 3.32e-6'
>>> certified_text(mpmath.mpc(-5, 0), 0, 8, real=True)
'-5.0000000  +- 0'
"""

from __future__ import annotations

from fractions import Fraction

import mpmath

from symdelay.core.lazy import loaded
from symdelay.core.lazy import sympy as sp
from symdelay.core.precision import GUARD

__all__ = [
    "format_number",
    "format_exact",
    "format_certified",
    "certified_text",
    "upper_text",
    "format_ball",
    "complex_text",
]


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
    decimal when that is (``1e+300``, ``1.0000000000000000000001``), else rounded (the
    module's examples).
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


# ------------------------------------------------------------------ certified numbers
#: significant digits of a printed error radius (rounded up)
RADIUS_DIGITS = 3


def upper_text(x, digits: int = RADIUS_DIGITS) -> str:
    """The smallest decimal of ``digits`` significant digits that is ``>= x`` (x >= 0), in
    exact rational arithmetic (``x`` an mpmath number, a binary fraction).

    >>> upper_text(mpmath.mpf("4.761e-5")), upper_text(0), upper_text(2), upper_text(1234.5)
    ('4.77e-5', '0', '2.00', '1.24e+3')
    """
    if x == 0:
        return "0"
    man, exp = mpmath.mpf(x).man_exp
    q = Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)
    e = int(mpmath.floor(mpmath.log10(mpmath.mpf(x))))
    while True:  # 10^(digits-1) <= x / 10^(e-digits+1) < 10^digits, exactly
        scale = Fraction(10) ** (e - digits + 1)
        n = -((-q) // scale)  # ceil
        if n <= 10 ** (digits - 1) and q < 10 ** (digits - 1) * scale:
            e -= 1
        elif n > 10**digits:
            e += 1
        else:
            break
    if n == 10**digits:
        n, e = 10 ** (digits - 1), e + 1
    m = str(n)
    mant = m[0] + ("." + m[1:] if digits > 1 else "")
    if e == 0:
        return mant
    return f"{mant}e{'+' if e > 0 else ''}{e}"


def _digits(x, dps: int) -> str:
    if x == 0:
        return "0"
    return mpmath.nstr(x, dps, strip_zeros=False)


def format_certified(value, radius, dps: int, *, real: bool = False, imaginary: bool = False):
    """``{"re", "im", "radius"}`` of a certified complex number: ``dps`` significant digits
    of each part (a part proved zero, by ``real`` or ``imaginary``, is ``"0"``), and a radius
    that bounds the distance from the printed number to the true one: the certified
    ``radius`` plus the rounding of the digits printed (computed at a precision that holds
    ``value`` exactly, and rounded up), printed rounded up to :data:`RADIUS_DIGITS` digits."""
    if isinstance(value, mpmath.mpc):
        parts = (value.real, value.imag)
    elif isinstance(value, mpmath.mpf):
        parts = (value, mpmath.mpf(0))
    else:  # an int, a float or a Fraction: the precision that holds it
        with mpmath.workprec(4096):
            parts = (mpmath.mpf(value) if not isinstance(value, Fraction)
                     else mpmath.mpf(value.numerator) / value.denominator, mpmath.mpf(0))  # fmt: skip
    bits = max([int(dps * 3.33)] + [p.man.bit_length() for p in parts if p]) + 64
    with mpmath.workprec(bits):
        z = mpmath.mpc(*parts)  # exact: the precision holds every bit of both parts
        re_s = "0" if imaginary else _digits(z.real, dps)
        im_s = "0" if real else _digits(z.imag, dps)
        shown = mpmath.mpc(mpmath.mpf(re_s), mpmath.mpf(im_s))
        rounding = abs(shown - z) * (1 + mpmath.mpf(2) ** (20 - bits))
        total = mpmath.mpf(radius) + rounding
        rad = upper_text(total)
    return {"re": re_s, "im": im_s, "radius": rad}


def format_ball(value, radius, dps: int) -> dict:
    """``{"value", "radius"}`` of a certified real number (as :func:`format_certified`)."""
    out = format_certified(value, radius, dps, real=True)
    return {"value": out["re"], "radius": out["radius"]}


def certified_text(value, radius, dps: int, *, real: bool = False, imaginary: bool = False):
    """One line: ``"a + bi  +- rad"`` (``"a"`` when proved real, ``"bi"`` when proved on the
    imaginary axis), from :func:`format_certified`."""
    p = format_certified(value, radius, dps, real=real, imaginary=imaginary)
    return f"{complex_text(p['re'], p['im'])}  +- {p['radius']}"


def complex_text(re_s: str, im_s: str) -> str:
    """``"a + bi"``, ``"a - bi"``, ``"a"`` (im ``"0"``) or ``"bi"`` (re ``"0"``)."""
    if im_s == "0":
        return re_s
    if re_s == "0":
        return f"{im_s}i"
    sign, mag = ("-", im_s[1:]) if im_s.startswith("-") else ("+", im_s)
    return f"{re_s} {sign} {mag}i"
