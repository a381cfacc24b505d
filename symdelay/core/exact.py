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
import sys
from fractions import Fraction

from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import loaded
from symdelay.core.lazy import sympy as sp
from symdelay.core.precision import bits

__all__ = [
    "exact_fraction",
    "exact_number",
    "exact_decimal",
    "printable",
    "read_number",
    "not_a_number",
    "to_float",
]


_NONFINITE_WORDS = {
    sign + w
    for sign in ("", "+", "-")
    for w in ("nan", "inf", "infinity", "oo", "zoo", "snan", "qnan")
}
_DIGITS = r"[0-9](?:_?[0-9])*"
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


def _shown(text: str) -> str:
    """``text`` for a message: one line, at most 40 characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= 40 else f"{flat[:20]}...{flat[-8:]} ({len(flat)} characters)"


def _from_decimal_text(name: str, text: str, original) -> Fraction | None:
    """The exact rational a decimal (``1e-40``, ``1.0000000000000000000001``) or fraction
    (``3/7``) text denotes; ``None`` if it is neither."""
    m = _DECIMAL_TEXT.fullmatch(text)
    fraction = m is None and _FRACTION_TEXT.fullmatch(text) is not None
    if m is None and not fraction:
        return None
    mantissa = text if m is None or m.group("exp") is None else text[: m.start("exp") - 1]
    digits = sum(c.isdigit() for c in mantissa)
    if digits > MAX_EXACT_DIGITS:  # Python reads and prints integers of <= 4300 digits
        raise SymdelayInputError(
            f"{name}: '{_shown(original)}' is written with {digits} digits; symdelay reads "
            f"numbers of at most {MAX_EXACT_DIGITS} digits (write large or small values with "
            "an exponent, e.g. 7.77e4999)"
        )
    if m is not None:
        exp = m.group("exp")
        if exp is not None and abs(int(exp.replace("_", ""))) > MAX_DECIMAL_EXPONENT:
            raise SymdelayInputError(
                f"{name}: the exponent of '{_shown(original)}' is beyond "
                f"+-{MAX_DECIMAL_EXPONENT}: give a number of a representable size"
            )
        return Fraction(text.replace("_", ""))
    num, den = (int(part.strip().replace("_", "")) for part in text.split("/"))
    if den == 0:
        raise SymdelayInputError(f"{name}: '{original}' divides by zero")
    return Fraction(num, den)


def not_a_number(name: str, value) -> SymdelayInputError:
    """Why the text ``value`` is not a number, in one line naming ``name``: empty, a list,
    two numbers, digits other than 0-9, or a formula where a number is asked for."""
    text = str(value).strip()
    shown = _shown(text)
    if not text:
        return SymdelayInputError(
            f"{name} needs a value: a number such as 0.5, 1e-3 or 1/3, got an empty text"
        )
    if not text.isascii():
        odd = next(c for c in text if not c.isascii())
        if odd.isdigit():
            return SymdelayInputError(
                f"{name}: write the number with the digits 0-9, got '{shown}'"
            )
    if "," in text or ";" in text:
        return SymdelayInputError(f"{name} takes one number, got a list '{shown}'")
    if len(text.split()) > 1 and all(
        _DECIMAL_TEXT.fullmatch(t) or _FRACTION_TEXT.fullmatch(t) for t in text.split()
    ):
        return SymdelayInputError(f"{name} takes one number, got several: '{shown}'")
    formula = any(c.isalpha() or c in "*+()^" for c in text.lstrip("+-"))
    return SymdelayInputError(
        f"{name} must be a number (a decimal such as 0.5 or 1e-3, or a fraction such as "
        f"1/3), got '{shown}'" + (": a formula is not read here" if formula else "")
    )


def read_number(name: str, text, *, inf: bool = False) -> Fraction | float:
    """The number a user's text denotes, by :func:`exact_fraction`'s rule: an exact
    :class:`~fractions.Fraction`, or (``inf=True``, where the domain allows it) ``+-inf`` as
    a float. Anything else (a formula, a list, nan, an empty text) is refused in one line
    naming ``name`` (the option the user typed).

    >>> read_number("--mu", " 0.1 ")
    Fraction(1, 10)
    >>> read_number("--hi", "inf", inf=True)
    inf
    >>> read_number("--mu", "2*lam")
    Traceback (most recent call last):
    ...
    symdelay.core.errors.SymdelayInputError: --mu must be a number (a decimal such as 0.5 or 1e-3, or a fraction such as 1/3), got '2*lam': a formula is not read here
    """
    stripped = str(text).strip()
    word = stripped.lower()
    if inf and word.lstrip("+-") in ("inf", "infinity", "oo"):
        return -math.inf if word.startswith("-") else math.inf
    if word in _NONFINITE_WORDS:
        if inf and "inf" not in word and "oo" not in word:
            raise SymdelayInputError(f"{name} must be a number or inf, got '{stripped}'")
        raise _nonfinite(name, stripped)
    out = _from_decimal_text(name, stripped, stripped)
    if out is None:
        raise not_a_number(name, stripped)
    return out


def to_float(x) -> float:
    """``float(x)``, ``+-inf`` beyond the double range (a ``Fraction`` raises there).

    >>> to_float(Fraction(10) ** 400), to_float(Fraction(1, 3)) == 1 / 3
    (inf, True)
    """
    try:
        return float(x)
    except OverflowError:
        return math.inf if x > 0 else -math.inf


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
            raise not_a_number(name, text)
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
    mpf = sys.modules["mpmath"].mpf if loaded("mpmath") else ()  # no mpf before mpmath loads
    if isinstance(value, (mpf, numbers.Real)):  # numpy float32, longdouble
        finite = sys.modules["mpmath"].isfinite(value) if isinstance(value, mpf) else None
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


#: The most significant digits :func:`exact_decimal` prints and a number may be written
#: with (Python refuses str() of an int beyond 4300 digits).
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
