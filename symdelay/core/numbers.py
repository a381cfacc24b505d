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
    "option_text",
    "grid_texts",
    "text_table",
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


# ------------------------------------------------------------------ inputs and tables
def option_text(x) -> str:
    """An exact input (an option's value, a grid point) as every record prints it: its exact
    decimal when it has a short one (``0.5``, ``1e+300``), else its exact fraction (``40/9``);
    the same rule for every command, re-read exactly by :func:`symdelay.parse_output`.

    >>> option_text(Fraction(1, 2)), option_text(Fraction(40, 9)), option_text(3)
    ('0.5', '40/9', '3')
    """
    from symdelay.core.exact import exact_decimal, exact_fraction

    q = x if isinstance(x, Fraction) else exact_fraction("a number", x)
    d = exact_decimal(q)
    return d if d is not None and len(d) <= 20 else format_exact(q)


#: significant digits a grid point is shown with when its decimal does not terminate (or is
#: long): more when neighbours would print alike
GRID_DIGITS = 6


def grid_texts(values, digits: int = GRID_DIGITS) -> list[str]:
    """The digits of exact grid points for a table: a short exact decimal as it is (``2.5``,
    ``20``), another value rounded once to ``digits`` significant digits (``40/9`` ->
    ``4.44444``), with more digits where two neighbours would print alike.

    >>> grid_texts(["2.5", "40/9", "115/18", "20"])
    ['2.5', '4.44444', '6.38889', '20']
    >>> grid_texts(["1/3", "1000000/2999999"])
    ['0.3333333', '0.3333334']
    """
    from symdelay.core.exact import exact_decimal, exact_fraction

    qs = [v if isinstance(v, Fraction) else exact_fraction("a grid point", v) for v in values]
    exact = [exact_decimal(q) for q in qs]
    exact = [d if d is not None and len(d.lstrip("-").replace(".", "")) <= 12 else None
             for d in exact]  # fmt: skip
    n = digits
    while True:
        out = [d if d is not None else format_number(q, n, strip=True)
               for d, q in zip(exact, qs)]  # fmt: skip
        clash = any(a == b and p != q for a, b, p, q in zip(out, out[1:], qs, qs[1:]))
        if not clash or n >= 40:
            return out
        n += 1


_NUMERIC = __import__("re").compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?inf|-")


def _split_point(cell: str) -> tuple[str, str]:
    """``"-12.5e-3"`` -> ``("-12", ".5e-3")``: the part before the decimal point (or the
    exponent) and the rest, to align a column on its points."""
    for k, c in enumerate(cell):
        if c in ".eE":
            return cell[:k], cell[k:]
    return cell, ""


def text_table(header, rows, gap: int = 2) -> str:
    """Rows as aligned text columns: a column of numbers aligned on the decimal point (its
    header right-aligned over it), any other column left-aligned.

    >>> print(text_table(["theta", "period"], [["2.5", "2.2215"], ["40/9", "12.1"]]))
    theta   period
    2.5     2.2215
    40/9   12.1
    >>> print(text_table(["D", "x"], [["0.5", "-1.25"], ["12", "3"]]))
       D      x
     0.5  -1.25
    12     3
    """
    header = [str(h) for h in header]
    rows = [[("-" if c is None else str(c)) for c in row] for row in rows]
    columns = []
    for j, head in enumerate(header):
        cells = [row[j] for row in rows]
        numeric = bool(cells) and all(_NUMERIC.fullmatch(c) for c in cells)
        if numeric:
            parts = [_split_point(c) for c in cells]
            left = max(len(a) for a, _ in parts)
            right = max(len(b) for _, b in parts)
            body = [(a.rjust(left) + b.ljust(right)) for a, b in parts]
            width = max(left + right, len(head))
            columns.append([head.rjust(width)] + [c.rjust(width) for c in body])
        else:
            width = max([len(head)] + [len(c) for c in cells])
            columns.append([head.ljust(width)] + [c.ljust(width) for c in cells])
    lines = [(" " * gap).join(col[i] for col in columns).rstrip() for i in range(len(rows) + 1)]
    return "\n".join(lines)
