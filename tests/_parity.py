"""One record per quantity: compare the record of the specialised path with the generic one.

``assert_same_record(a, b, dps)`` takes two results (:class:`~symdelay.core.result.Result`,
compared through ``to_json()``) or two JSON dicts and fails, naming the first place where
they differ, unless:

- **the key sets are identical** at every level (dicts inside lists too); a key that names
  the path (``"method"``, see :data:`PATH_KEYS`) and ``"symdelay_version"`` are left out;
- **numbers are equal to the digits asked**: two decimal strings (or floats) ``x, y`` agree
  when ``|x - y| <= 10^(1 - dps) max(|x|, |y|)`` (one unit in the last of ``dps``
  significant digits); integers, booleans and ``None`` must be equal;
- **certified numbers overlap**: a dict with ``"radius"`` and ``"re"``/``"im"`` (or
  ``"value"``) is a disc; the two discs must meet (``|a - b| <= r_a + r_b``): each path's
  printed radius covers its own rounding, so two right answers always meet;
- **expressions are mathematically equal**: ``sympify(a) - sympify(b)`` simplifies to 0;
- **conditions are equivalent**: a relation, or a list of relations (a conjunction: the two
  lists may have different lengths), holds at exactly the same points, checked at
  :data:`POINTS` random exact rational points (parameters positive, the names in ``signed``
  of both signs);
- **LaTeX** (a key ending in ``latex``) is the display of the key beside it: both present or
  both ``None``;
- any other string must be equal.

Usage (tests of every quantity with a specialisation)::

    from _parity import assert_same_record

    fast = roots(model, dps=20, method="specialised")
    slow = roots(model, dps=20, method="generic")
    assert_same_record(fast, slow, dps=20)
"""

from __future__ import annotations

import random
from fractions import Fraction

import mpmath
import sympy as sp

__all__ = ["assert_same_record", "record_of", "PATH_KEYS", "POINTS"]

#: keys that name the path that produced the record (they may differ)
PATH_KEYS = frozenset({"method", "symdelay_version"})
#: random points at which two conditions are compared
POINTS = 60


def record_of(x) -> dict:
    """The JSON record of a result (``to_json()``), or the dict itself."""
    if isinstance(x, dict):
        return x
    to_json = getattr(x, "to_json", None)
    if to_json is None:
        raise TypeError(f"not a record: {type(x).__name__}")
    return to_json()


def assert_same_record(a, b, dps: int, *, signed=("theta",), ignore=()) -> None:
    """Fail unless records ``a`` and ``b`` are the same to ``dps`` digits (see the module
    docstring). ``signed``: parameter names sampled with both signs when conditions are
    compared; ``ignore``: more keys that name the path."""
    skip = PATH_KEYS | frozenset(ignore)
    _same(record_of(a), record_of(b), "$", int(dps), skip, frozenset(signed))


# ------------------------------------------------------------------------------ walk
def _same(a, b, where, dps, skip, signed):
    if isinstance(a, dict) or isinstance(b, dict):
        if not (isinstance(a, dict) and isinstance(b, dict)):
            _fail(where, "a dict against something else", a, b)
        ka, kb = set(a) - skip, set(b) - skip
        if ka != kb:
            raise AssertionError(
                f"{where}: key sets differ: only in the first {sorted(ka - kb)}, "
                f"only in the second {sorted(kb - ka)}"
            )
        if _is_ball(a) and _is_ball(b):
            _same_ball(a, b, where, dps)
            rest = {k for k in ka if k not in ("re", "im", "value", "radius")}
        else:
            rest = ka
        for k in sorted(rest):
            sub = f"{where}.{k}"
            if k.endswith("latex"):
                if (a[k] is None) != (b[k] is None):
                    _fail(sub, "LaTeX on one side only", a[k], b[k])
                continue
            _same(a[k], b[k], sub, dps, skip, signed)
        return
    if isinstance(a, list | tuple) or isinstance(b, list | tuple):
        if not (isinstance(a, list | tuple) and isinstance(b, list | tuple)):
            _fail(where, "a list against something else", a, b)
        if _all_conditions(a) and _all_conditions(b) and (a or b):
            _same_condition(" & ".join(f"({c})" for c in a) or "True",
                            " & ".join(f"({c})" for c in b) or "True", where, signed)  # fmt: skip
            return
        if len(a) != len(b):
            _fail(where, f"lengths {len(a)} and {len(b)}", a, b)
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{where}[{i}]", dps, skip, signed)
        return
    _same_scalar(a, b, where, dps, signed)


def _same_scalar(a, b, where, dps, signed):
    if a is None or b is None or isinstance(a, bool) or isinstance(b, bool):
        if a is not b and a != b:
            _fail(where, "different", a, b)
        if type(a) is not type(b):
            _fail(where, "different types", a, b)
        return
    if isinstance(a, int) and isinstance(b, int):
        if a != b:
            _fail(where, "different integers", a, b)
        return
    if a == b:
        return
    x, y = _number(a), _number(b)
    if x is not None and y is not None:
        if not _digits_equal(x, y, dps):
            _fail(where, f"numbers differ at {dps} digits", a, b)
        return
    if isinstance(a, str) and isinstance(b, str):
        ea, eb = _expr(a), _expr(b)
        if ea is None or eb is None or ea.is_Symbol or eb.is_Symbol:
            _fail(where, "different text", a, b)
        if _is_condition(ea) or _is_condition(eb):
            _same_condition(a, b, where, signed)
            return
        if not _equal_expressions(ea, eb):
            _fail(where, "expressions not equal (their difference does not simplify to 0)", a, b)
        return
    _fail(where, "different", a, b)


# ------------------------------------------------------------------------------ numbers
def _number(x):
    """An mpmath number for a float, a Fraction or a decimal string (``inf``, ``-inf``)."""
    if isinstance(x, bool):
        return None
    if isinstance(x, int | float | Fraction):
        return (
            mpmath.mpf(x)
            if not isinstance(x, Fraction)
            else mpmath.mpf(x.numerator) / x.denominator
        )
    if not isinstance(x, str):
        return None
    s = x.strip()
    if s in ("inf", "+inf", "-inf", "oo", "-oo"):
        return mpmath.inf if not s.startswith("-") else -mpmath.inf
    try:
        float(s)
    except ValueError:
        try:
            q = Fraction(s)
        except (ValueError, ZeroDivisionError):
            return None
        return mpmath.mpf(q.numerator) / q.denominator
    return mpmath.mpf(s)


def _digits_equal(x, y, dps) -> bool:
    with mpmath.workdps(dps + 20):
        if mpmath.isinf(x) or mpmath.isinf(y):
            return x == y
        return abs(x - y) <= mpmath.mpf(10) ** (1 - dps) * max(abs(x), abs(y))


def _is_ball(d: dict) -> bool:
    return "radius" in d and ("re" in d or "value" in d)


def _same_ball(a, b, where, dps):
    def centre(d):
        if "value" in d:
            return mpmath.mpc(_number(d["value"]), 0)
        return mpmath.mpc(_number(d["re"]), _number(d["im"]))

    with mpmath.workdps(dps + 30):
        za, zb = centre(a), centre(b)
        ra, rb = _number(a["radius"]), _number(b["radius"])
        if ra is None or rb is None or ra < 0 or rb < 0:
            _fail(where, "a radius that is not a non-negative number", a, b)
        if abs(za - zb) > ra + rb:
            _fail(where, f"discs do not meet (distance {mpmath.nstr(abs(za - zb), 3)})", a, b)


# -------------------------------------------------------------------------- expressions
_LOCALS = {
    n: sp.Symbol(n) for n in ("r", "mu", "lam", "theta", "gamma", "D", "L", "eta", "kappa", "N")
}


def _expr(text):
    try:
        return sp.sympify(text, locals=_LOCALS)
    except (sp.SympifyError, SyntaxError, TypeError, ValueError, AttributeError):
        return None


def _all_conditions(items) -> bool:
    if not all(isinstance(c, str) for c in items):
        return False
    return all(_is_condition(_expr(c)) for c in items)


def _is_condition(e) -> bool:
    """A relation, a combination of relations, or true/false (not a bare symbol)."""
    from sympy.logic.boolalg import BooleanAtom, BooleanFunction

    return isinstance(e, sp.core.relational.Relational | BooleanFunction | BooleanAtom)


def _equal_expressions(ea, eb) -> bool:
    try:
        diff = ea - eb
    except TypeError:
        return False
    if sp.expand(diff) == 0:
        return True
    return sp.simplify(diff) == 0


def _same_condition(a: str, b: str, where, signed):
    ea, eb = _expr(a), _expr(b)
    if ea is None or eb is None:
        _fail(where, "not a condition", a, b)
    names = sorted({s.name for s in ea.free_symbols | eb.free_symbols})
    rng = random.Random(f"{where}:{a}:{b}")
    for _ in range(POINTS):
        at = {}
        for n in names:
            v = sp.Rational(rng.randint(1, 400), rng.randint(1, 40))
            if n in signed and rng.random() < 0.4:
                v = -v
            at[sp.Symbol(n)] = v
        va, vb = ea.subs(at), eb.subs(at)
        if va not in (sp.true, sp.false) or vb not in (sp.true, sp.false):
            _fail(where, f"a condition not decided at {at}", va, vb)
        if va != vb:
            _fail(where, f"conditions differ at {at}", a, b)


def _fail(where, what, a, b):
    def short(x):
        s = repr(x)
        return s if len(s) <= 300 else s[:300] + "..."

    raise AssertionError(f"{where}: {what}:\n  first:  {short(a)}\n  second: {short(b)}")
