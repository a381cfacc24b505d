"""The one conversion rule: every number that enters symdelay becomes the exact rational it
denotes (decimal text, fractions, ints, ``Fraction``, ``Decimal``, a Python float by its
shortest repr), never a "simple" nearby one; NaN and infinities are refused by name.

>>> exact_number("D", "1e-40")
1/10000000000000000000000000000000000000000
>>> exact_number("mu", 0.1)
1/10
"""

from __future__ import annotations

import decimal
import math
import numbers
import re
from fractions import Fraction

import mpmath

from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import loaded
from symdelay.core.lazy import sympy as sp
from symdelay.core.precision import bits

__all__ = ["exact_fraction", "exact_number", "exact_decimal", "printable"]


_NONFINITE_WORDS = {
    sign + w
    for sign in ("", "+", "-")
    for w in ("nan", "inf", "infinity", "oo", "zoo", "snan", "qnan")
}
_DIGITS = r"\d(?:_?\d)*"
_DECIMAL_TEXT = re.compile(
    rf"[+-]?(?:{_DIGITS}(?:\.(?:{_DIGITS})?)?|\.{_DIGITS})(?:[eE](?P<exp>[+-]?{_DIGITS}))?"
)
_FRACTION_TEXT = re.compile(rf"[+-]?{_DIGITS}\s*/\s*[+-]?{_DIGITS}")
#: Largest decimal exponent read exactly (10**100000 is a 330000-bit integer: instant).
MAX_DECIMAL_EXPONENT = 100_000


def _nonfinite(name: str, value) -> SymdelayInputError:
    if isinstance(value, decimal.Decimal | float):
        value = str(value).lower()  # Decimal('NaN') -> nan
    return SymdelayInputError(
        f"{name} must be a finite number: nan and inf are not numbers symdelay accepts for "
        f"a parameter, got '{value}'; give e.g. 0.5, 1e-3 or 1/3"
    )


def _from_decimal_text(name: str, text: str, original) -> Fraction | None:
    """The exact rational a decimal (``1e-40``, ``1.0000000000000000000001``) or fraction
    (``3/7``) text denotes; ``None`` if it is neither."""
    m = _DECIMAL_TEXT.fullmatch(text)
    if m is not None:
        exp = m.group("exp")
        if exp is not None and abs(int(exp.replace("_", ""))) > MAX_DECIMAL_EXPONENT:
            raise SymdelayInputError(
                f"{name}: the exponent of '{original}' is beyond +-{MAX_DECIMAL_EXPONENT}: "
                "give a number of a representable size"
            )
        return Fraction(text.replace("_", ""))
    if _FRACTION_TEXT.fullmatch(text) is not None:
        num, den = (int(part.strip().replace("_", "")) for part in text.split("/"))
        if den == 0:
            raise SymdelayInputError(f"{name}: '{original}' divides by zero")
        return Fraction(num, den)
    return None


def _is_sympy(value) -> bool:
    """Whether ``value`` is a SymPy object (without importing SymPy when nobody has)."""
    return loaded("sympy") and isinstance(value, sp.Basic)


def exact_fraction(name: str, value) -> Fraction:
    """THE conversion rule for every number that enters symdelay, as a
    :class:`~fractions.Fraction` (no SymPy needed): the exact rational the value denotes.

    * text: a decimal (``"1e33"``, ``"1.0000000000000000000001"``) or a fraction
      (``"3/7"``) becomes exactly that rational, never a "simple" nearby one;
    * ``int``, :class:`~fractions.Fraction`, :class:`~decimal.Decimal`, SymPy rationals:
      their value;
    * a Python float (or NumPy scalar): the rational of its shortest round-trip decimal
      repr, ``Rational(repr(x))`` (``0.1`` -> ``1/10``); a SymPy ``Float`` or an mpmath
      number: the decimal it prints;
    * NaN and +-inf (as numbers or words) are refused with a :class:`SymdelayInputError`
      naming the parameter ``name``, as is anything that is not a number.

    >>> exact_fraction("D", "1e-3"), exact_fraction("mu", 0.1)
    (Fraction(1, 1000), Fraction(1, 10))
    """
    kind = type(value)  # the two commonest kinds first: no ABC checks (bool is not int here)
    if kind is int:
        return Fraction(value)
    if kind is Fraction:
        return value
    if isinstance(value, bool):
        raise SymdelayInputError(f"{name} must be a number, got {value!r}")
    if isinstance(value, str):
        text = value.strip()
        if text.lower() in _NONFINITE_WORDS:
            raise _nonfinite(name, text)
        out = _from_decimal_text(name, text, value)
        if out is None:
            raise SymdelayInputError(
                f"{name} must be a number (a decimal such as 0.5 or 1e-3, or a fraction "
                f"such as 1/3), got '{value}'"
            )
        return out
    if _is_sympy(value):
        if isinstance(value, sp.logic.boolalg.BooleanAtom):
            raise SymdelayInputError(f"{name} must be a number, got {value!r}")
        if value.is_Rational:
            return Fraction(int(value.p), int(value.q))
        if value.has(sp.nan, sp.oo, -sp.oo, sp.zoo):
            raise _nonfinite(name, value)
        if isinstance(value, sp.Float):
            return exact_fraction(name, str(value))
        raise SymdelayInputError(f"{name} must be a rational number, got {value}")
    if isinstance(value, float):  # numpy float64 is a float subclass too
        if not math.isfinite(value):
            raise _nonfinite(name, repr(float(value)))
        return Fraction(repr(float(value)))
    if isinstance(value, numbers.Integral):
        return Fraction(int(value))
    if isinstance(value, Fraction):
        return value
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            raise _nonfinite(name, value)
        return Fraction(value)
    if isinstance(value, (mpmath.mpf, numbers.Real)):  # mpf, numpy float32, longdouble
        finite = mpmath.isfinite(value) if isinstance(value, mpmath.mpf) else None
        if finite is None:
            finite = math.isfinite(float(value))
        if not finite:
            raise _nonfinite(name, value)
        out = _from_decimal_text(name, str(value).strip(), value)
        return out if out is not None else exact_fraction(name, float(value))
    raise SymdelayInputError(f"{name} must be a number, got {value!r}")


def exact_number(name: str, value) -> sp.Rational:
    """:func:`exact_fraction` as a SymPy rational (the value every symbolic path takes).

    >>> exact_number("D", "1e33"), exact_number("mu", 0.1), exact_number("x", "3/6")
    (1000000000000000000000000000000000, 1/10, 1/2)
    >>> exact_number("mu", "1.0000000000000000000001") - 1
    1/10000000000000000000000
    >>> exact_number("mu", float("nan"))
    Traceback (most recent call last):
    ...
    symdelay.core.errors.SymdelayInputError: mu must be a finite number: nan and inf are not numbers symdelay accepts for a parameter, got 'nan'; give e.g. 0.5, 1e-3 or 1/3
    """
    f = exact_fraction(name, value)
    return sp.Rational(f.numerator, f.denominator)


def exact_decimal(x) -> str | None:
    """The exact decimal text of a rational whose decimal terminates (plain, or scientific
    when that is shorter and the plain form is long), ``None`` when it does not terminate.
    The inverse of :func:`exact_number` for printing exact inputs and results.

    >>> exact_decimal(sp.Rational(1, 20)), exact_decimal(sp.Integer(10) ** 200)
    ('0.05', '1e+200')
    >>> exact_decimal(sp.Rational(3, 10**40)), exact_decimal(sp.Rational(1, 3)) is None
    ('3e-40', True)
    >>> exact_decimal(exact_number("mu", "1.0000000000000000000001"))
    '1.0000000000000000000001'
    """
    x = x if isinstance(x, Fraction) else exact_fraction("x", x)
    p, q = x.numerator, x.denominator
    if p == 0:
        return "0"
    twos = (q & -q).bit_length() - 1
    rest, fives = _strip_factor(q >> twos, 5)
    if rest != 1:
        return None
    k = max(twos, fives)  # x = m / 10**k exactly
    m = abs(p) * 2 ** (k - twos) * 5 ** (k - fives)
    m, zeros = _strip_factor(m, 10)
    k -= zeros  # x = m * 10**(-k), m without trailing zeros
    if m.bit_length() > bits(MAX_EXACT_DIGITS):
        return None  # too many significant digits to print (and to read)
    digits = str(m)
    sign = "-" if p < 0 else ""
    mant = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    sci = f"{mant}e{len(digits) - 1 - k:+d}"
    plain_length = len(digits) + max(-k, 0) + (0 if k <= 0 else 1 + max(k - len(digits) + 1, 0))
    if plain_length > max(20, len(sci)):
        return sign + sci
    if k <= 0:
        plain = digits + "0" * (-k)
    elif k < len(digits):
        plain = f"{digits[:-k]}.{digits[-k:]}"
    else:
        plain = "0." + "0" * (k - len(digits)) + digits
    return sign + plain


#: The most significant digits :func:`exact_decimal` prints (Python refuses str() of an
#: int beyond 4300 digits).
MAX_EXACT_DIGITS = 4000


def printable(expr, max_digits: int = MAX_EXACT_DIGITS) -> bool:
    """True when every exact number in ``expr`` has at most ``max_digits`` digits, so that
    ``str(expr)`` works (and is readable); ``1e20000`` printed exactly is neither.

    >>> printable(sp.Rational(1, 3)), printable(sp.Integer(10) ** 20000 + 1)
    (True, False)
    """
    expr = sp.sympify(expr)
    atoms = [expr] if expr.is_Rational else expr.atoms(sp.Rational)
    limit = bits(max_digits)
    return all(max(int(q.p).bit_length(), int(q.q).bit_length()) <= limit for q in atoms)


def _strip_factor(m: int, f: int) -> tuple[int, int]:
    """``(m / f**c, c)`` with ``c`` the multiplicity of ``f`` in ``m > 0`` (by repeated
    squaring: fast for ``10**20000``)."""
    powers = [f]
    while m % powers[-1] == 0:
        powers.append(powers[-1] ** 2)
    count = 0
    for j in range(len(powers) - 2, -1, -1):
        if m % powers[j] == 0:
            m //= powers[j]
            count += 1 << j
    return m, count
