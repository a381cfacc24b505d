"""The options a model family declares: name, kind, default and help, once; and the one rule
that reads an option's text by its kind.

A family module (``symdelay/models/<name>.py`` or ``<name>/family.py``) lists its
``OPTIONS``; its ``model(**options)`` takes exactly those keywords and checks their values
(the one door: :func:`symdelay.core.params.as_parameter` makes numbers exact). The command
line builds its flags from the same list, so a family's options exist on every command that
takes a model, and an option another family declares is refused with one line.

Every option whose text stands for numbers, a family's or a command's own, is read by
:func:`read_option` before anything runs: a number is a number (the exact rational its
decimal text denotes, :func:`symdelay.core.exact.read_number`), never a formula, and a bad
value is refused in one line naming the flag the user typed.

>>> o = Option("continue_probs", "coxian: probabilities to go on after each phase", "numbers")
>>> o.flag, o.metavar
('--continue-probs', 'P1,P2,...')
>>> read_option("integer", "--N", " 1e3 ")
'1000'
>>> read_option("number", "--mu", "1,2")
Traceback (most recent call last):
...
symdelay.core.errors.SymdelayInputError: --mu takes one number, got a list '1,2'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise

from symdelay.core.errors import SymdelayInputError
from symdelay.core.exact import not_a_number, read_number

__all__ = ["Option", "KINDS", "RATES", "READERS", "read_option", "values", "values_text"]

#: what an option's text holds
KINDS = {
    "number": "X",
    "integer": "N",
    "count": "L",  # an integer >= 1 or inf
    "numbers": "P1,P2,...",
    "values": "A,B,..|LO:HI:N",
    "choice": "NAME",
    "text": "TEXT",
    "matrix": "[[..],[..]]",
    "pattern": "NAME|P1,P2,...",  # a named pattern, or numbers
}


@dataclass(frozen=True)
class Option:
    """One option of a model family: ``model(**{name: text})`` and ``--name`` on the CLI.

    ``free``: the option's own name (``--kappa kappa``) leaves it a free parameter."""

    name: str
    help: str
    kind: str = "number"
    default: str | None = None
    choices: tuple = ()
    free: bool = False

    def __post_init__(self):
        if self.kind not in KINDS:  # pragma: no cover - a family's declaration
            raise ValueError(f"option {self.name}: unknown kind {self.kind!r}")

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def metavar(self) -> str:
        return KINDS[self.kind]

    def describe(self) -> str:
        extra = f" (default {self.default})" if self.default is not None else ""
        if self.choices:
            extra += " one of " + ", ".join(self.choices)
        return self.help + extra


#: The rates every family of logit-routed queues declares (service, arrival, routing), in
#: this order.
RATES = (
    Option("mu", "service rate (> 0)"),
    Option("lam", "per-server arrival rate (> 0)"),
    Option("theta", "routing sensitivity (>= 0)"),
)


# ------------------------------------------------------------------------ reading text
def _number(flag, text):
    read_number(flag, text)
    return text


def _number_or_inf(flag, text):
    read_number(flag, text, inf=True)
    return text


def _integer(flag, text, what="an integer") -> str:
    """A whole number, written as such or as an exact number that is one (``1e3``)."""
    try:
        value = read_number(flag, text)
    except SymdelayInputError as exc:
        if "digits" in str(exc) or "exponent" in str(exc):
            raise
        raise SymdelayInputError(f"{flag} must be {what}, got '{text}'") from None
    if value.denominator != 1:
        raise SymdelayInputError(f"{flag} must be {what}, got '{text}'")
    n = value.numerator
    if n.bit_length() > 13_000:  # about 4000 digits: Python prints no longer integer
        raise SymdelayInputError(f"{flag} = '{text}' is too large an integer")
    return str(n)


def _count(flag, text, own=None) -> str:
    """An integer, ``inf`` (the limit) or, where declared, the option's own name."""
    if text.lower() in ("inf", "+inf", "oo", "infinity"):
        return "inf"
    if own is not None and text == own:
        return text
    symbol = f", the symbol {own}" if own is not None else ""
    return _integer(flag, text, f"an integer >= 1{symbol} or inf")


def _numbers(flag, text, own=None) -> str:
    """Comma-separated numbers (``0.5,1,2``); where declared, the option's own name."""
    if own is not None and text == own:
        return text
    items = text.split(",")
    if not text or any(not t.strip() for t in items):
        raise SymdelayInputError(
            f"{flag} takes numbers separated by commas, e.g. 0.5,1,2; got '{text}'"
        )
    for k, item in enumerate(items, 1):
        read_number(f"{flag} (item {k})" if len(items) > 1 else flag, item)
    return ",".join(t.strip() for t in items)


_MATRIX_TOKEN = re.compile(r"\s*(\[|\]|,|[^\[\],]+)")


def _pattern(flag, text) -> str:
    """A named pattern (letters and hyphens: ``first-half``), or numbers (``0,1``)."""
    if text.replace("-", "").isalpha():
        return text
    return _numbers(flag, text)


def _matrix(flag, text) -> str:
    """``[[a, b], [c, d]]``: square, every entry a number."""
    tokens = [m.group(1).strip() for m in _MATRIX_TOKEN.finditer(text)]
    example = "e.g. [[-2,1],[0,-3]]"
    rows, row, depth, expect_value = [], None, 0, False
    for tok in tokens:
        if tok == "[":
            depth += 1
            if depth == 2:
                row, expect_value = [], True
            elif depth > 2 or (depth == 1 and rows):
                raise SymdelayInputError(f"{flag} takes rows in brackets, {example}; got '{text}'")
        elif tok == "]":
            if depth == 2:
                rows.append(row)
            depth -= 1
        elif tok == ",":
            expect_value = depth == 2
        elif depth == 2 and expect_value:
            row.append(tok)
            expect_value = False
        else:
            raise SymdelayInputError(f"{flag} takes rows in brackets, {example}; got '{text}'")
    if depth != 0 or not rows or "".join(tokens) != "".join(text.split()):
        raise SymdelayInputError(f"{flag} takes rows in brackets, {example}; got '{text}'")
    if any(len(r) != len(rows) for r in rows):
        raise SymdelayInputError(f"{flag} must be square (m rows of m numbers), got '{text}'")
    for i, r in enumerate(rows, 1):
        for j, entry in enumerate(r, 1):
            read_number(f"{flag} entry [{i},{j}]", entry)
    return text


def _range(flag, text, named=True, optional=False) -> str:
    """``NAME=LO:HI`` (``optional``: ``NAME`` alone too), LO and HI numbers (HI may be inf)."""
    name, sep, rng = text.partition("=")
    shape = "NAME=LO:HI" + (" or NAME" if optional else "")
    if not name.strip() or (not sep and not optional):
        raise SymdelayInputError(f"{flag} takes {shape} (e.g. theta=0:40), got '{text}'")
    if sep:
        lo, colon, hi = rng.partition(":")
        if not colon:
            raise SymdelayInputError(f"{flag} takes {shape} (e.g. theta=0:40), got '{text}'")
        read_number(f"{flag} (its lower end)", lo)
        read_number(f"{flag} (its upper end)", hi, inf=True)
    return text


def _setting(flag, text) -> str:
    """``NAME=VALUE``, the value a number."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip() or not value.strip():
        raise SymdelayInputError(f"{flag} takes NAME=VALUE, got '{text}'")
    read_number(f"{flag} {name.strip()}", value)
    return text


#: the most points a range on the command line may ask for (each command estimates its
#: own cost of them besides)
MAX_POINTS = 100_000

#: significant digits of the inner points of a geometric range (its ends are exact)
GEOM_DIGITS = 15


def values(flag: str, text) -> list:
    """The exact values (:class:`~fractions.Fraction`) of a list-valued option's text: one
    number, a list ``a,b,c``, a range ``lo:hi:n`` (``n`` evenly spaced points, ends included,
    each exact: ``2.5:20:10`` holds ``40/9``) or a geometric range ``geom:lo:hi:n`` (``lo``,
    ``hi`` > 0; the ends exact, the inner points ``lo (hi/lo)^(k/(n-1))`` rounded once to
    :data:`GEOM_DIGITS` significant digits, the exact decimals then used). The one parser of
    every option that takes a list of values; a bad text is refused naming ``flag``.

    >>> [str(q) for q in values("--D", "2.5:20:10")][:3]
    ['5/2', '40/9', '115/18']
    >>> [str(q) for q in values("--D", "geom:1:100:3")]
    ['1', '10', '100']
    >>> values("--D", "1:2")
    Traceback (most recent call last):
    ...
    symdelay.core.errors.SymdelayInputError: --D takes one value, a list a,b,c, a range lo:hi:n or geom:lo:hi:n; got '1:2'
    """
    from fractions import Fraction

    text = str(text).strip()
    parts = [t.strip() for t in text.split(":")]
    geometric = parts[0].lower() == "geom"
    if geometric:
        parts = parts[1:]
    if len(parts) == 1 and not geometric:
        return [read_number(f"{flag} (item {k})" if "," in text else flag, t)
                for k, t in enumerate(_numbers(flag, text).split(","), 1)]  # fmt: skip
    if len(parts) != 3:
        raise SymdelayInputError(
            f"{flag} takes one value, a list a,b,c, a range lo:hi:n or geom:lo:hi:n; got '{text}'"
        )
    lo = read_number(f"{flag} (range start)", parts[0])
    hi = read_number(f"{flag} (range stop)", parts[1])
    n = int(_integer(f"{flag} (range count)", parts[2], "an integer >= 1"))
    if n < 1:
        raise SymdelayInputError(f"{flag} (range count) must be an integer >= 1, got '{parts[2]}'")
    if n > MAX_POINTS:
        raise SymdelayInputError(
            f"{flag} asks for {n} points, more than {MAX_POINTS}: give a smaller count"
        )
    if n == 1:
        if lo != hi:
            raise SymdelayInputError(
                f"{flag} range {text} has one point but two different ends: give n >= 2, or lo = hi"
            )
        return [lo]
    if not geometric:
        return [lo + (hi - lo) * Fraction(k, n - 1) for k in range(n)]
    if not (lo > 0 and hi > 0):
        raise SymdelayInputError(f"{flag} geometric range needs lo > 0 and hi > 0, got '{text}'")
    import mpmath

    from symdelay.core.exact import exact_fraction

    with mpmath.workdps(GEOM_DIGITS + 20):
        a, b = mpmath.mpf(lo.numerator) / lo.denominator, mpmath.mpf(hi.numerator) / hi.denominator
        inner = [
            exact_fraction(flag, mpmath.nstr(a * (b / a) ** (mpmath.mpf(k) / (n - 1)), GEOM_DIGITS))
            for k in range(1, n - 1)
        ]
    out = [lo, *inner, hi]
    if lo != hi and any((y - x) * (hi - lo) <= 0 for x, y in pairwise(out)):
        raise SymdelayInputError(
            f"{flag} geometric range {text}: its points are closer than {GEOM_DIGITS} digits "
            "tell apart; give a smaller count"
        )
    return out


def values_text(flag: str, text) -> list[str]:
    """:func:`values` as exact texts (a short decimal as such, else a fraction:
    :func:`symdelay.core.numbers.option_text`), the form the analyses and records take.

    >>> values_text("--theta", "2.5:20:4")
    ['2.5', '25/3', '85/6', '20']
    """
    from symdelay.core.numbers import option_text

    return [option_text(q) for q in values(flag, text)]


def _values(flag, text) -> str:
    """One number, a list ``a,b,c`` or a range ``lo:hi:n`` / ``geom:lo:hi:n``
    (:func:`values`)."""
    values(flag, text)
    return text


#: the image formats an option of kind ``image`` names by its suffix
IMAGE_SUFFIXES = (".png", ".pdf", ".svg")


def _image(flag, text) -> str:
    """A file name ending in .png, .pdf or .svg (the suffix is the format)."""
    from pathlib import PurePath

    if PurePath(text).suffix.lower() not in IMAGE_SUFFIXES:  # (".png" alone: a name, no suffix)
        raise SymdelayInputError(
            f"{flag} {text}: give a file name ending in .png, .pdf or .svg (the suffix is "
            "the format)"
        )
    return text


def _branches(flag, text) -> str:
    """``K1..K2``: integers."""
    lo, sep, hi = text.partition("..")
    what = "'K1..K2' (two integers, e.g. -3..3)"
    if not sep:
        raise SymdelayInputError(f"{flag} must be {what}, got '{text}'")
    _integer(flag, lo.strip(), what)
    _integer(flag, hi.strip(), what)
    return text


#: the kinds of text an option may hold, and how each is read (the text comes back
#: stripped; an integer as its plain digits)
READERS = {
    "number": _number,
    "number|inf": _number_or_inf,
    "integer": _integer,
    "count": _count,
    "numbers": _numbers,
    "matrix": _matrix,
    "pattern": _pattern,
    "range": _range,
    "range|name": lambda flag, text: _range(flag, text, optional=True),
    "setting": _setting,
    "values": _values,
    "branches": _branches,
    "image": _image,
}


def read_option(kind: str, flag: str, text, own: str | None = None) -> str:
    """The text of option ``flag`` checked by the rule of its ``kind`` (a key of
    :data:`READERS`; ``choice`` and ``text`` are taken as they are), stripped; one line
    naming ``flag`` when it breaks the rule. ``own``: the option's name, accepted as
    itself where the option may be left free (``--kappa kappa``, ``--L L``)."""
    text = str(text).strip()
    reader = READERS.get(kind)
    if reader is None:
        return text
    if not text:
        if kind in ("number", "number|inf"):
            raise not_a_number(flag, text)
        raise SymdelayInputError(f"{flag} needs a value, got an empty text")
    if kind in ("count", "numbers"):
        return reader(flag, text, own)
    return reader(flag, text)
