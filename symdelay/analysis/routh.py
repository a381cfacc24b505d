"""Routh–Hurwitz for real polynomials with numeric or symbolic coefficients (exact).

SymPy 1.14 has no Routh–Hurwitz; this module is one. Coefficients are made exact at the
door (floats become the rationals they print as). The array is computed fraction-free:
row ``k`` is the classical Routh row times the Hurwitz determinant ``Delta_{k-1}``, every
division is exact, and the first column is ``Delta_1, Delta_2, ...`` itself.

The arithmetic is chosen once, by the coefficient domain (as SymPy's ``dup_routh_hurwitz``
does): coefficients in Q or Q[symbols] (symbols may also be constants such as ``pi``) use
python-flint's multivariate polynomials, so large symbolic inputs stay fast (no
``simplify`` anywhere); rational functions Q(symbols) are first multiplied by their least
common denominator (:attr:`RouthResult.multiplier`); algebraic numbers (``sqrt(2)``) use
SymPy's exact algebraic fields; anything else exact SymPy expressions. Signs of constants
are proven with arb ball arithmetic (python-flint), never read off a float.

>>> routh_hurwitz("s**2 + sqrt(2)*s + 1", "s").is_stable
True
>>> routh_hurwitz("s**2 + (pi - 22/7)*s + 1", "s").rhp_count
2
>>> res = routh_hurwitz("s**2 + s/a + 1", "s")
>>> res.multiplier, [str(c) for c in res.conditions]
(a, ['a > 0', 'a**2 > 0'])

>>> from sympy.abc import s
>>> res = routh_hurwitz(s**3 + 2*s**2 + 3*s + 1, s)
>>> res.table
((1, 3), (2, 1), (5/2,), (1,))
>>> res.is_stable, res.rhp_count, res.imaginary_axis_count
(True, 0, 0)

Special cases, both exact:

* a zero first entry in a row that is not all zero: the epsilon method (``epsilon -> 0+``).
  If the even and odd parts of the polynomial share a factor ``G`` (roots symmetric about
  the origin, e.g. on the imaginary axis) the whole row is perturbed by ``epsilon`` times
  ``G``'s coefficients, which keeps ``G`` a factor of the later rows; with ``G = 1`` this is
  exactly the textbook replacement ``0 -> epsilon``. (The bare textbook replacement loses
  the imaginary roots of ``(s**2+1)*(s**4+s**3+3*s**2+3*s+3)``.)
* an all-zero row: the auxiliary polynomial of the row above; the zero row becomes the
  coefficients of its derivative. Roots of the auxiliary polynomial are symmetric about the
  origin; those on the imaginary axis are ``deg A - 2 * (sign changes from A's row on)``.

>>> res = routh_hurwitz(s**4 + s**3 + 3*s**2 + 3*s + 3, s)
>>> res.table[2], res.rhp_count
((epsilon, 3), 2)
>>> routh_hurwitz((s**2 + 4)*(s + 1), s).imaginary_axis_count
2
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from functools import cached_property

import flint

from symdelay.core.errors import SymdelayInputError, VerificationError
from symdelay.core.latex import tex
from symdelay.core.lazy import sympy as sp
from symdelay.core.parsing import parse_expression
from symdelay.model.arb_eval import to_arb

__all__ = ["RouthResult", "routh_hurwitz", "hurwitz_matrix", "EPSILON"]

#: Polynomials with more terms are printed from flint's text, not by SymPy's printer.
_PRINT_FAST_TERMS = 300

#: Epsilon-rule arrays of rational polynomials with more coefficients (in epsilon, over all
#: entries) than this are not formed: their entries grow row by row (``s**n + 1``).
_MAX_EPSILON_TABLE = 5000

#: Epsilon-rule entries up to this degree (numerator + denominator) are put in SymPy's
#: normal form (``cancel``, as the SymPy path does); bigger ones keep flint's form and text.
_CANCEL_DEGREE = 12

#: The epsilon of the zero-first-entry rule (taken to 0 from above).
EPSILON = sp.Symbol("epsilon", positive=True)


# ------------------------------------------------------------------ input
def _exact(expr: sp.Expr) -> sp.Expr:
    """Floats -> the rationals they print as (``0.1`` -> ``1/10``)."""
    from symdelay.core.params import exact_number

    floats = expr.atoms(sp.Float)
    if not floats:
        return expr
    return expr.xreplace({f: exact_number("a coefficient", f) for f in floats})


def _coefficients(poly, var) -> tuple[sp.Symbol, list[sp.Expr], sp.Expr]:
    """``(var, [a0, ..., an], expr)`` with exact coefficients; validates the input."""
    if isinstance(var, str):
        name = var.strip()
        if not name.isidentifier() or name.startswith("_"):
            raise SymdelayInputError(f"invalid variable name '{var}': use a name such as s or r")
        var = parse_expression(name, any_identifier=True)
        if not isinstance(var, sp.Symbol):
            raise SymdelayInputError(
                f"'{name}' is a constant, not a variable: use a name such as s"
            )
    if isinstance(poly, str):
        names = (var,) if isinstance(var, sp.Symbol) else ()
        poly = parse_expression(poly, variables=names, any_identifier=True)
    if isinstance(poly, sp.Poly):
        if var is None:
            var = poly.gen
        poly = poly.as_expr()
    poly = sp.sympify(poly)
    if isinstance(poly, (sp.Rel, sp.logic.boolalg.BooleanFunction)) or poly in (sp.true, sp.false):
        raise SymdelayInputError("expected a polynomial, got a relation: drop the '<', '>' or '='")
    if var is None:
        free = sorted(poly.free_symbols, key=str)
        if len(free) != 1:
            raise SymdelayInputError(
                "give the polynomial variable (var=...) when the expression has other symbols"
            )
        var = free[0]
    if not isinstance(var, sp.Symbol):
        raise SymdelayInputError(f"the variable must be a symbol, got {var!r}")
    expr = _exact(sp.expand(poly))
    if not expr.is_polynomial(var):
        raise SymdelayInputError(
            f"'{poly}' is not a polynomial in {var}: give a sum of powers of {var}"
        )
    P = sp.Poly(expr, var)
    if P.degree() > 10**6:
        raise SymdelayInputError(
            f"degree {P.degree()} is above 10^6: the Routh array has degree^2/4 entries; "
            "give a polynomial of lower degree"
        )
    if P.degree() < 1:
        raise SymdelayInputError(f"'{poly}' has degree < 1 in {var}: nothing to analyse")
    coeffs = [sp.expand(c) for c in P.all_coeffs()]
    for c in coeffs:
        if (c.is_number and c.is_real is False) or c.has(sp.I):
            raise SymdelayInputError(f"coefficient {c} is not real: Routh–Hurwitz needs real ones")
        if c.has(sp.oo, -sp.oo, sp.zoo, sp.nan):
            raise SymdelayInputError(f"coefficient {c} is not finite: give finite coefficients")
    return var, coeffs, expr


# ------------------------------------------------------------ arithmetic
# One ring per coefficient domain, chosen once at entry (as SymPy's ``dup_routh_hurwitz``):
#   Q, Q[x..] (x: symbols or transcendental constants such as pi)  -> python-flint
#   Q(x..)  -> denominators cleared, then as Q[x..]
#   Q<alpha> (algebraic numbers), Q<alpha>[x..], Q<alpha>(x..)  -> SymPy's exact domains
#   anything else  -> exact SymPy expressions (cancel)
# Every ring gives exact arithmetic; signs of constants are proven (arb balls).


class _FlintRing:
    """Q[x1..xm] via python-flint (fast exact division); numbers when m = 0.

    The generators may be constants (``pi``, ``E``, ``log(2)``): the ring is then the free
    polynomial ring over them, which maps onto the true values, so the Hurwitz determinants
    (polynomials in the coefficients) are right; signs are decided from the values.
    """

    def __init__(self, gens):
        self.gens = tuple(gens)
        self.decidable = all(_has_sign_info(g) for g in self.gens)
        if self.gens:
            self.ctx = flint.fmpq_mpoly_ctx.get(
                tuple(f"x{i}" for i in range(len(self.gens))), "degrevlex"
            )
            self.sympy_ring = sp.polys.rings.PolyRing(self.gens, sp.QQ)
            self.zero = self.ctx.from_dict({})
        else:
            self.zero = flint.fmpq(0)
        self.printed: dict = {}

    def convert(self, expr):
        if not self.gens:
            q = sp.Rational(expr)
            return flint.fmpq(int(q.p), int(q.q))
        P = sp.Poly(expr, *self.gens, domain=sp.QQ)
        return self.ctx.from_dict(
            {m: flint.fmpq(int(c.numerator), int(c.denominator)) for m, c in P.as_dict().items()}
        )

    def to_expr(self, a) -> sp.Expr:
        if not self.gens:
            return sp.Rational(int(a.p), int(a.q))
        QQ = sp.QQ
        d = {m: QQ(int(c.p), int(c.q)) for m, c in a.to_dict().items()}
        expr = self.sympy_ring.from_dict(d).as_expr()
        if len(a) > _PRINT_FAST_TERMS:
            self.printed[id(expr)] = (expr, self._text(a))
        return expr

    def _text(self, a) -> str:
        """SymPy-parsable text straight from flint (printing big sums with SymPy is slow)."""
        names = [g.name if g.is_Symbol else f"({g})" for g in self.gens]
        text = re.sub(r"\bx(\d+)\b", lambda m: names[int(m.group(1))], str(a))
        return text.replace("^", "**")

    def is_zero(self, a) -> bool:
        return not a

    def normal(self, a):
        return a

    def exquo(self, a, b):
        return a / b

    def cancel(self, a, b) -> sp.Expr:
        """``a / b`` in lowest terms, as an expression."""
        if self.gens:
            g = a.gcd(b)
            if not g.is_constant():
                a, b = a / g, b / g
        expr = self.to_expr(a) / self.to_expr(b)
        if self.gens and max(len(a), len(b)) > _PRINT_FAST_TERMS:
            self.printed[id(expr)] = (expr, f"({self._text(a)})/({self._text(b)})")
        return expr

    def sign(self, a):
        """1, -1, 0 or None (symbols without assumptions decide nothing)."""
        if not self.gens or a.is_constant():
            c = a if not self.gens else a.leading_coefficient()
            return (c > 0) - (c < 0)
        return _sign_of(self.to_expr(a)) if self.decidable else None


class _DomainRing:
    """A SymPy domain with exact zero test: Q<alpha>, Q<alpha>[x..] (algebraic numbers)."""

    def __init__(self, K):
        self.K = K
        self.zero = K.zero
        self.printed: dict = {}

    def convert(self, expr):
        return self.K.from_sympy(expr)

    def to_expr(self, a) -> sp.Expr:
        return self.K.to_sympy(a)

    def is_zero(self, a) -> bool:
        return not a

    def normal(self, a):
        return a

    def exquo(self, a, b):
        return self.K.exquo(a, b)

    def cancel(self, a, b) -> sp.Expr:
        K = self.K
        if K.is_Field:
            return self.to_expr(K.quo(a, b))
        if b.is_ground:
            return self.to_expr(a.quo_ground(b.LC))
        q, r = K.div(a, b)
        if not r:
            return self.to_expr(q)
        # no gcd here: over algebraic extensions it costs more than the whole array
        return sp.Mul(self.to_expr(a), sp.Pow(self.to_expr(b), -1))

    def sign(self, a):
        if not a:
            return 0
        return _sign_of(self.to_expr(a), nonzero=True)


class _ExprRing:
    """Exact SymPy expressions (the EX domain): expanded products, ``cancel`` for division."""

    zero = sp.Integer(0)

    def __init__(self):
        self.printed: dict = {}

    def convert(self, expr):
        return sp.expand(expr)

    def to_expr(self, a) -> sp.Expr:
        return a

    def is_zero(self, a) -> bool:
        return sp.expand(a) == 0

    def normal(self, a):
        return sp.expand(a)

    def exquo(self, a, b):
        return sp.expand(sp.cancel(sp.expand(a) / b))

    def cancel(self, a, b) -> sp.Expr:
        return sp.cancel(a / b)

    def sign(self, a):
        return _sign_of(a)


def _is_qq_polynomial(expr) -> bool:
    """Only rationals, symbols, sums, products and non-negative integer powers."""
    for node in sp.preorder_traversal(expr):
        if node.is_Symbol or node.is_Rational or node.is_Add or node.is_Mul:
            continue
        if node.is_Pow and node.exp.is_Integer and node.exp >= 0:
            continue
        return False
    return True


def _split_atoms(exprs):
    """(algebraic numbers, generators) of expressions: ``sqrt(2)`` vs ``K``, ``pi``, ``exp(a)``."""
    algs, gens = set(), set()
    stack = list(exprs)
    while stack:
        e = stack.pop()
        if e.is_Rational:
            continue
        if e.is_Symbol:
            gens.add(e)
        elif e.is_Add or e.is_Mul:
            stack.extend(e.args)
        elif e.is_Pow and e.exp.is_Integer:
            stack.append(e.base)
        elif e.is_Pow and e.exp.is_Rational and not e.free_symbols and e.is_algebraic:
            algs.add(e)
        else:
            gens.add(e)
    key = sp.default_sort_key
    return sorted(algs, key=key), sorted(gens, key=key)


def _composite_domain(coeffs):
    """``Q<alpha>[x..]`` or ``Q<alpha>(x..)`` for what ``construct_domain`` calls EX."""
    algs, gens = _split_atoms(coeffs)
    base = sp.QQ.algebraic_field(*algs) if algs else sp.QQ
    if not gens:
        return base, [base.from_sympy(c) for c in coeffs]
    fractions = [sp.fraction(sp.together(c)) for c in coeffs]
    if any(d.has(*gens) for _, d in fractions):
        K = base.frac_field(*gens)
        return K, [K.from_sympy(c) for c in coeffs]
    # Q<alpha>[x..]: each coefficient as a polynomial in x.. and the alpha's, with every
    # alpha converted once (SymPy's from_sympy finds a minimal polynomial per coefficient)
    K = base.poly_ring(*gens)
    images = list(K.gens) + [K.convert_from(base.from_sympy(x), base) for x in algs]
    elems = []
    for c in coeffs:
        P = sp.Poly(c, *gens, *algs, domain=sp.QQ)
        e = K.zero
        for m, q in P.terms():
            term = K(K.domain.convert_from(q, sp.QQ))
            for x, k in zip(images, m):
                if k:
                    term *= x**k
            e += term
        elems.append(e)
    return K, elems


def _clear_denominators(K, elems):
    """Elements of ``K(x..)`` times their least common denominator: ``(ring, elems, lcd)``."""
    if K.domain.is_ZZ:  # over QQ, so that the multiplier can be made monic
        Kq = sp.QQ.frac_field(*K.symbols)
        K, elems = Kq, [Kq.convert_from(f, K) for f in elems]
    R = K.get_ring()
    lcd = R.one
    for f in elems:
        lcd = lcd.lcm(f.denom)
    if not R.domain.is_one(lcd.LC):  # keep the multiplier monic: its sign is that of its monomials
        lcd = lcd.quo_ground(lcd.LC)
    return R, [f.numer * R.exquo(lcd, f.denom) for f in elems], lcd


def _ring_for(coeffs):
    """``(ring, coefficients, multiplier)``: the ring for the coefficient domain, chosen once.

    ``coefficients`` are those of ``multiplier * polynomial`` (``multiplier`` clears the
    denominators of a coefficient field ``Q(x..)``; 1 otherwise).
    """
    one = sp.Integer(1)
    if all(_is_qq_polynomial(c) for c in coeffs):
        gens = sorted(set().union(*(c.free_symbols for c in coeffs)), key=sp.default_sort_key)
        return _FlintRing(gens), coeffs, one
    try:
        K, elems = sp.construct_domain(coeffs, extension=True)
        if K.is_EX:
            K, elems = _composite_domain(coeffs)
    except (
        sp.polys.polyerrors.CoercionFailed,
        sp.polys.polyerrors.PolificationFailed,
        sp.polys.polyerrors.GeneratorsError,
        NotImplementedError,
    ):
        ring = _ExprRing()
        return ring, [ring.convert(c) for c in coeffs], one
    multiplier = one
    if K.is_FractionField:
        K, elems, lcd = _clear_denominators(K, elems)
        multiplier = K.to_sympy(lcd)
    if K.is_AlgebraicField or (K.is_PolynomialRing and K.domain.is_AlgebraicField):
        ring = _DomainRing(K)
        ring.seed = elems
        return ring, [ring.to_expr(e) for e in elems], multiplier
    coeffs = [K.to_sympy(e) for e in elems]
    if K.is_ZZ or K.is_QQ:
        return _FlintRing(()), coeffs, multiplier
    if K.is_PolynomialRing and (K.domain.is_ZZ or K.domain.is_QQ):
        return _FlintRing(K.symbols), coeffs, multiplier
    ring = _ExprRing()
    return ring, [ring.convert(c) for c in coeffs], multiplier


def _fraction_free(ring, coeffs):
    """Fraction-free Routh rows ``F_k`` (``F_k[0] = Delta_k``), or ``None`` at a zero pivot.

    ``F_{k+1}[j] = (F_k[0] F_{k-1}[j+1] - F_{k-1}[0] F_k[j+1]) / F_{k-2}[0]`` (no division
    for ``k <= 2``); the classical row is ``R_k = F_k / Delta_{k-1}``. The last row is
    ``[a_n Delta_{n-1}]`` and is not recomputed.
    """
    n = len(coeffs) - 1
    a = getattr(ring, "seed", None) or [ring.convert(c) for c in coeffs]
    rows = [a[0::2], a[1::2]]
    for k in range(1, n):
        prev, cur = rows[k - 1], rows[k]
        if ring.is_zero(cur[0]):
            return None
        if k == n - 1:
            rows.append([ring.normal(a[n] * cur[0])])
            break
        new = []
        for j in range((n - k - 1) // 2 + 1):
            nxt = cur[j + 1] if j + 1 < len(cur) else ring.zero
            num = cur[0] * prev[j + 1] - prev[0] * nxt
            new.append(ring.exquo(num, rows[k - 2][0]) if k >= 3 else ring.normal(num))
        rows.append(new)
    if ring.is_zero(rows[n][0]):
        return None
    return rows


# ------------------------------------------------------------ signs
_ARB_PRECISIONS = (64, 256, 1024, 4096)


def _number_sign(expr, nonzero: bool = False):
    """Sign of a real constant, proven: arb balls at rising precision; None if undecided.

    ``nonzero``: the caller knows ``expr != 0`` (exact arithmetic), so refining terminates.
    """
    if expr.is_Rational:
        return (expr.p > 0) - (expr.p < 0)
    if expr == 0:
        return 0
    for prec in _ARB_PRECISIONS:
        try:
            with flint.ctx.workprec(prec):
                x = to_arb(expr, {})
                if x > 0:
                    return 1
                if x < 0:
                    return -1
                if x.is_exact() and x.is_zero():
                    return 0
        except NotImplementedError:  # a function arb does not know
            break
    else:
        if not nonzero and expr.is_algebraic:
            z = sp.Dummy("z")
            if sp.minimal_polynomial(expr, z) == z:
                return 0
        return None
    # a function arb does not know: SymPy's own (exact or evalf-checked) decision
    if expr.is_positive:
        return 1
    if expr.is_negative:
        return -1
    if expr.is_zero:
        return 0
    return None


# ------------------------------------------------------- special cases
def _row_poly(row, degree, var):
    return sum(c * var ** (degree - 2 * j) for j, c in enumerate(row))


def _lowest_sign(expr):
    """Sign of ``expr`` as epsilon -> 0+ (1, -1, 0, or None when symbols leave it open)."""
    expr = sp.cancel(sp.together(expr))
    if expr == 0:
        return 0
    num, den = sp.fraction(expr)
    signs = []
    for part in (num, den):
        P = sp.Poly(part, EPSILON)
        sign = 0
        for c in reversed(P.all_coeffs()):
            if c == 0:
                continue
            # a coefficient may be zero without looking it (algebraic numbers: CRootOf)
            sign = _sign_of(c)
            if sign is None:
                return None
            if sign:
                break
        if sign == 0:
            if part is num:
                return 0  # every coefficient is zero: so is expr
            return None
        signs.append(sign)
    return signs[0] * signs[1]


class _EpsExpr:
    """An entry of the special-case array as an exact SymPy expression in the coefficients
    and epsilon, cancelled at every step (any coefficients); the interface of
    :class:`_EpsFraction`."""

    __slots__ = ("e",)

    def __init__(self, e):
        self.e = e

    @classmethod
    def const(cls, q):
        return cls(q)

    def __bool__(self):
        return sp.cancel(self.e) != 0

    def is_constant(self) -> bool:
        return True  # a row with epsilon in it is a polynomial in var all the same

    def plus_epsilon(self, c):
        return _EpsExpr(sp.cancel(self.e + EPSILON * c))

    @staticmethod
    def step(c0, a, p0, b):
        """The next entry ``(c0 a - p0 b) / c0``."""
        return _EpsExpr(sp.cancel((c0.e * a.e - p0.e * b.e) / c0.e))

    def sign(self):
        return _lowest_sign(self.e)

    def to_expr(self, printed=None) -> sp.Expr:
        return self.e


class _EpsFraction:
    """An element of Q(epsilon): ``num / den`` (``fmpq_poly`` in epsilon, in lowest terms,
    ``den`` monic). The special-case array of a rational polynomial in this exact arithmetic
    is the same array as SymPy's ``cancel`` gives, at flint speed."""

    __slots__ = ("den", "num")

    def __init__(self, num, den=None):
        one = flint.fmpq_poly([1])
        if den is None or not num:
            self.num, self.den = (num if num else flint.fmpq_poly([])), one
            return
        if den.degree() > 0:
            g = num.gcd(den)
            if g.degree() > 0:
                num, den = num // g, den // g
        lc = den[den.degree()]
        if lc != 1:
            num, den = num / lc, den / lc
        self.num, self.den = num, den

    @classmethod
    def const(cls, q):
        return cls(flint.fmpq_poly([flint.fmpq(int(q.p), int(q.q))]))

    def __bool__(self):
        return bool(self.num)

    def __add__(self, o):
        if self.den == o.den:
            return _EpsFraction(self.num + o.num, self.den)
        return _EpsFraction(self.num * o.den + o.num * self.den, self.den * o.den)

    def __sub__(self, o):
        if self.den == o.den:
            return _EpsFraction(self.num - o.num, self.den)
        return _EpsFraction(self.num * o.den - o.num * self.den, self.den * o.den)

    def __mul__(self, o):
        return _EpsFraction(self.num * o.num, self.den * o.den)

    def __truediv__(self, o):
        return _EpsFraction(self.num * o.den, self.den * o.num)

    def is_constant(self) -> bool:
        return self.num.degree() <= 0 and self.den.degree() == 0

    def plus_epsilon(self, c):
        return (
            self + _EpsFraction(flint.fmpq_poly([0, flint.fmpq(int(c.p), int(c.q))])) if c else self
        )

    @staticmethod
    def step(c0, a, p0, b):
        """The next entry ``a - p0 b / c0`` (``(c0 a - p0 b) / c0``)."""
        if not b:
            return a
        return a - p0 * b / c0

    def sign(self) -> int:
        """Sign as epsilon -> 0+: that of the lowest terms of ``num`` and ``den``."""
        if not self.num:
            return 0
        low = next(c for c in self.num.coeffs() if c != 0)
        low_d = next(c for c in self.den.coeffs() if c != 0)
        return 1 if (low > 0) == (low_d > 0) else -1

    def to_expr(self, printed: dict | None = None) -> sp.Expr:
        def poly(p):
            return sp.Add(
                *(
                    sp.Rational(int(c.p), int(c.q)) * EPSILON**k
                    for k, c in enumerate(p.coeffs())
                    if c != 0
                )
            )

        if self.is_constant():
            c = self.num[0]
            return sp.Rational(int(c.p), int(c.q))
        expr = poly(self.num) if self.den.degree() == 0 else poly(self.num) / poly(self.den)
        if self.num.degree() + self.den.degree() <= _CANCEL_DEGREE:
            return sp.cancel(expr)  # SymPy's own normal form: the same objects as the SymPy path
        if printed is not None:
            # SymPy prints big rational functions slowly: the same text from flint
            text = f"({self._text(self.num)})"
            if self.den.degree() > 0:
                text += f"/({self._text(self.den)})"
            printed[id(expr)] = (expr, text)
        return expr

    @staticmethod
    def _text(p) -> str:
        return str(p).replace("^", "**").replace("x", "epsilon")


def _special(coeffs, var, F, max_size: float = float("inf"), printed=None):
    """The classical array with the epsilon and auxiliary-polynomial rules, exact, its
    entries in the arithmetic ``F``: :class:`_EpsExpr` (SymPy, any coefficients) or
    :class:`_EpsFraction` (rational coefficients: the same array at flint speed).

    Returns ``(rows as expressions, epsilon_rows, auxiliaries, first-column signs)``
    (``auxiliaries`` holds ``(row, A(s))``), or ``None`` when a common factor ``G`` would
    have coefficients in epsilon in ``Q(epsilon)`` (then SymPy's arithmetic handles it), or
    ``"too large"`` when the entries (rational functions of epsilon whose degrees grow row
    by row) pass ``max_size`` coefficients in all.
    """
    n = len(coeffs) - 1
    length = [(n - k) // 2 + 1 for k in range(n + 1)]
    zero = F.const(sp.Integer(0))

    def pad(row, k):
        return list(row) + [zero] * (length[k] - len(row))

    def poly(k):
        """Row ``k`` as a polynomial in ``var`` (None if ``F`` cannot take it)."""
        if not all(c.is_constant() for c in rows[k]):
            return None
        return _row_poly([c.to_expr() for c in rows[k]], n - k, var)

    a = [F.const(c) for c in coeffs]
    rows = [pad(a[0::2], 0), pad(a[1::2], 1)]
    eps_rows, auxes = [], []
    segment_start = 0
    common = {}  # segment start -> G(s) shared by its two first rows
    size = 0

    def fix(k):
        nonlocal segment_start
        if not any(rows[k]):
            A = poly(k - 1)
            if A is None:
                return False
            auxes.append((k - 1, sp.expand(A)))
            dA = sp.Poly(sp.diff(A, var), var)
            deg = n - k
            rows[k] = pad(
                [F.const(dA.coeff_monomial(var ** (deg - 2 * j))) for j in range(length[k])], k
            )
            segment_start = k - 1
        if not rows[k][0]:
            if segment_start not in common:
                p0, p1 = poly(segment_start), poly(segment_start + 1)
                if p0 is None or p1 is None:
                    return False
                common[segment_start] = sp.Poly(sp.gcd(p0, p1), var)
            G = common[segment_start]
            g = G.degree()
            gc = [G.coeff_monomial(var ** (g - 2 * j)) / G.LC() for j in range(g // 2 + 1)]
            rows[k] = [c.plus_epsilon(gc[j] if j < len(gc) else 0) for j, c in enumerate(rows[k])]
            eps_rows.append(k)
        return True

    if not fix(1):
        return None
    for k in range(1, n):
        prev, cur = rows[k - 1], rows[k]
        new = []
        for j in range(length[k + 1]):
            nxt = cur[j + 1] if j + 1 < len(cur) else zero
            new.append(F.step(cur[0], prev[j + 1], prev[0], nxt))
        rows.append(new)
        if F is _EpsFraction:
            size += sum(c.num.degree() + c.den.degree() + 2 for c in new)
            if size > max_size:
                return "too large"
        if not fix(k + 1):
            return None
    signs = [row[0].sign() for row in rows]
    return [tuple(c.to_expr(printed) for c in row) for row in rows], eps_rows, auxes, signs


def _rational_hurwitz_minors(coeffs) -> list:
    """``Delta_1 .. Delta_n`` of rational coefficients (flint determinants, exact)."""
    n = len(coeffs) - 1
    q = [flint.fmpq(int(sp.Rational(c).p), int(sp.Rational(c).q)) for c in coeffs]

    def a(i):
        return q[i] if 0 <= i <= n else flint.fmpq(0)

    H = [[a(2 * j - i + 1) for j in range(n)] for i in range(n)]
    # a row (column) of H_k that is zero in its first k columns (rows) makes Delta_k = 0
    first_col = [next((j for j in range(n) if H[i][j] != 0), n) for i in range(n)]
    first_row = [next((i for i in range(n) if H[i][j] != 0), n) for j in range(n)]
    out = []
    for k in range(1, n + 1):
        if max(first_col[:k]) >= k or max(first_row[:k]) >= k:
            out.append(sp.Integer(0))
            continue
        d = flint.fmpq_mat(k, k, [H[i][j] for i in range(k) for j in range(k)]).det()
        out.append(sp.Rational(int(d.p), int(d.q)))
    return out


# ------------------------------------------------------------------ results
def hurwitz_matrix(coeffs) -> sp.Matrix:
    """The n x n Hurwitz matrix ``H[i, j] = a_{2j - i + 1}`` (0-based, ``a_k = 0`` outside 0..n)."""
    n = len(coeffs) - 1

    def a(i):
        return coeffs[i] if 0 <= i <= n else 0

    return sp.Matrix(n, n, lambda i, j: a(2 * j - i + 1))


def _positive(expr, sign):
    """The condition ``sign * expr > 0`` (unevaluated, so numbers print as ``3 > 0``)."""
    if sign == 1:
        lhs = expr
    elif sign == -1:
        lhs = sp.expand(-expr)
    else:
        lhs = sp.Mul(sign, expr)
    return sp.StrictGreaterThan(lhs, 0, evaluate=False)


def _truth(cond):
    """Whether ``lhs > 0`` holds: True / False / None (open); constants proven."""
    lhs = cond.lhs
    if not lhs.free_symbols:
        s = _number_sign(lhs)
        return None if s is None else s == 1
    if not all(_has_sign_info(x) for x in lhs.free_symbols):
        return False if lhs == 0 else None
    return lhs.is_positive


@dataclass(frozen=True)
class RouthResult:
    """The Routh array of ``polynomial`` in ``var`` and what it says.

    ``table``: the classical Routh rows (row ``k`` has the coefficients of ``s^(n-k)``,
    ``s^(n-k-2)``, ...), exact, ``epsilon`` where the zero-first-entry rule was used.
    ``hurwitz_determinants``: ``Delta_1 .. Delta_n``. ``conditions``: the first column
    positive, written without denominators: ``Delta_1 > 0, ..., Delta_{n-1} > 0,
    a_n > 0`` (odd ``Delta_k`` and ``a_n`` multiplied by the sign of ``a_0``).
    ``lienard_chipart``: the reduced set ``a_n, a_{n-2}, ... > 0`` and ``Delta_{n-1},
    Delta_{n-3}, ... > 0``. ``is_stable``: True / False / None (None: depends on the
    symbols). ``rhp_count`` (open right half-plane) and ``imaginary_axis_count`` count roots
    with multiplicity; None when symbols leave the signs open.

    Coefficients may be any exact real numbers (rationals, ``sqrt(2)``, ``pi``) and
    polynomials or rational functions of parameters. With rational functions the polynomial
    is first multiplied by the least common denominator of its coefficients,
    ``multiplier`` (same roots wherever the coefficients are defined); ``coefficients``,
    ``table``, ``hurwitz_determinants`` and the conditions are those of
    ``multiplier * polynomial``, and the conditions carry the sign of its leading
    coefficient, so they stay right whatever the sign of ``multiplier``.
    """

    polynomial: sp.Expr
    var: sp.Symbol
    coefficients: tuple
    table: tuple
    hurwitz_determinants: tuple
    conditions: tuple
    lienard_chipart: tuple
    is_stable: bool | None
    rhp_count: int | None
    imaginary_axis_count: int | None
    first_column_signs: tuple
    epsilon_rows: tuple = ()
    auxiliary_polynomials: tuple = ()
    multiplier: sp.Expr = sp.S.One
    printed: dict = field(default_factory=dict, repr=False, compare=False)
    table_note: str | None = None

    def __post_init__(self):
        # results are cached (stability_conditions): the text they print cannot be changed
        from symdelay.core.display import ReadOnlyDict

        object.__setattr__(self, "printed", ReadOnlyDict(self.printed))

    def _str(self, e) -> str:
        """``str(e)``, from precomputed text for the big polynomials (same expression)."""
        hit = self.printed.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1]
        if isinstance(e, sp.StrictGreaterThan):
            return f"{self._str(e.lhs)} > {e.rhs}"
        if isinstance(e, sp.Mul) and any(id(a) in self.printed for a in e.args):
            return "*".join(f"({self._str(a)})" for a in e.args)
        return str(e)

    @property
    def degree(self) -> int:
        return len(self.coefficients) - 1

    @cached_property
    def stability_condition(self) -> sp.Basic:
        """The conjunction of :attr:`lienard_chipart`."""
        return sp.And(*self.lienard_chipart)

    def _repr_latex_(self) -> str:
        """The polynomial, and stability as the Lienard-Chipart conditions."""
        from symdelay.core.display import display_latex
        from symdelay.core.latex import tex as _tex

        conds = r" \wedge ".join(_tex(c) for c in self.lienard_chipart) or r"\text{true}"
        verdict = {True: "stable", False: "unstable", None: "stable exactly when"}[self.is_stable]
        lines = [rf"{_tex(self.polynomial)} = 0", rf"\text{{{verdict}}}: {conds}"]
        if self.rhp_count is not None:
            lines.append(
                rf"\text{{roots with }} \operatorname{{Re}} {_tex(self.var)} > 0: {self.rhp_count}"
            )
        return display_latex(*lines)

    def to_json(self) -> dict:
        printed: dict = {}  # the Lienard-Chipart conditions repeat some of the conditions

        def latex(cond) -> str:
            if cond not in printed:
                printed[cond] = tex(cond)
            return printed[cond]

        return {
            "polynomial": str(self.polynomial),
            "var": str(self.var),
            "multiplier": str(self.multiplier),
            "table": [[self._str(c) for c in row] for row in self.table],
            "conditions": [self._str(c) for c in self.conditions],
            "lienard_chipart": [self._str(c) for c in self.lienard_chipart],
            "stable": self.is_stable,
            "rhp_count": self.rhp_count,
            "imaginary_axis_count": self.imaginary_axis_count,
            "epsilon_rows": list(self.epsilon_rows),
            "table_note": self.table_note,
            "auxiliary_polynomials": [
                {"row": k, "polynomial": str(A), "latex": tex(A)}
                for k, A in self.auxiliary_polynomials
            ],
            # the same formulas as LaTeX (symdelay's names: lam -> \lambda)
            "polynomial_latex": tex(self.polynomial),
            "multiplier_latex": tex(self.multiplier),
            "conditions_latex": [latex(c) for c in self.conditions],
            "lienard_chipart_latex": [latex(c) for c in self.lienard_chipart],
        }

    def format_table(self) -> str:
        """The array as aligned text, one row per power of ``var``."""
        if not self.table:
            return f"  (not formed: {self.table_note})"
        cells = [[self._str(c) for c in row] for row in self.table]
        width = max(len(c) for row in cells for c in row)
        lines = []
        for k, row in enumerate(cells):
            label = f"{self.var}^{self.degree - k}"
            lines.append(f"{label:>6} | " + "  ".join(c.rjust(width) for c in row))
        return "\n".join(lines)


def _has_sign_info(x) -> bool:
    return x.is_extended_negative is not None or x.is_extended_positive is not None


def _sign_of(expr, nonzero: bool = False):
    """1, -1, 0, or None (undecided); symbols without assumptions decide nothing.

    Constants are decided by :func:`_number_sign` (proven enclosures), never by a float.
    """
    if not expr.free_symbols:
        return _number_sign(expr, nonzero)
    if not all(_has_sign_info(x) for x in expr.free_symbols):
        return 0 if expr == 0 else None
    if expr.is_positive:
        return 1
    if expr.is_negative:
        return -1
    if expr.is_zero:
        return 0
    return None


def _count_changes(signs):
    return sum(1 for a, b in itertools.pairwise(signs) if a != b)


def _check_cost(ring, n: int, force: bool) -> None:
    """Refuse (unless ``force``) an array estimated over the shared budget: rational
    coefficients cost about ``n^3`` big-number operations (the special case ``n^4``, the
    Hurwitz determinants), symbolic ones grow like ``n^4`` polynomial products."""
    from symdelay.core.budget import check_budget, power_cost

    if isinstance(ring, _FlintRing) and not ring.gens:
        seconds = power_cost(n, 1e-8, 3)
    elif isinstance(ring, _FlintRing):
        seconds = power_cost(n, 2.5e-5 * max(1.0, len(ring.gens) / 4), 4)
    else:
        seconds = power_cost(n, 1e-3, 4)
    check_budget(
        f"the Routh array of a polynomial of degree {n}",
        seconds,
        force=force,
        shrink="a polynomial of lower degree (or with fewer symbols)",
    )


def routh_hurwitz(poly, var=None, *, force: bool = False) -> RouthResult:
    """The Routh array, Hurwitz determinants, stability conditions and root counts of a
    polynomial (the ``symdelay routh`` command): the building block behind
    :func:`stability`, for a polynomial given directly.

    Coefficients may be any exact real numbers (rationals, ``sqrt(2)``, ``pi``; decimals
    are made exact) and polynomials or rational functions of parameters (then multiplied by
    their common denominator, the record's ``multiplier``).

    Parameters
    ----------
    poly : sympy.Expr, sympy.Poly or str
        The polynomial, of degree 1..10^6 in ``var``; text is parsed safely (any parameter
        names, never evaluated).
    var : sympy.Symbol or str, optional
        The polynomial variable (a symbol or its name). Default: the generator of a ``Poly``,
        or the only symbol of the expression (refused when there are others).
    force : bool, default False
        Run even when the array is estimated over the shared budget (about ``n^3`` big-number
        operations for rational coefficients, ``n^4`` polynomial products for symbolic ones).

    Returns
    -------
    RouthResult
        ``table`` (exact rows, ``epsilon`` where the zero-first-entry rule was used),
        ``hurwitz_determinants``, ``conditions`` and the reduced ``lienard_chipart`` set,
        ``is_stable`` (True / False / None when it depends on the symbols), ``rhp_count`` and
        ``imaginary_axis_count`` (None when symbols leave the signs open).

    Examples
    --------
    >>> from sympy.abc import s, k
    >>> res = routh_hurwitz(s**3 + 3*s**2 + 3*s + 1 + k, s)
    >>> res.conditions
    (3 > 0, 8 - k > 0, k + 1 > 0)
    >>> res.is_stable is None
    True
    >>> routh_hurwitz("s**4 + s**3 + 3*s**2 + 3*s + 3", "s").to_json()["table"][:3]
    [['1', '3', '3'], ['1', '3'], ['epsilon', '3']]
    """
    var, coeffs, expr = _coefficients(poly, var)
    ring, coeffs, multiplier = _ring_for(coeffs)
    _check_cost(ring, len(coeffs) - 1, force)
    n = len(coeffs) - 1
    a0 = coeffs[0]
    sign0 = _sign_of(a0)
    factor0 = sign0 if sign0 in (1, -1) else a0
    lead = []  # when a0's sign is open but a_n's known, the column must have a_n's sign
    if factor0 is a0 and _sign_of(coeffs[-1]) in (1, -1):
        factor0 = _sign_of(coeffs[-1])
        lead = [_positive(a0, factor0)]

    ff = _fraction_free(ring, coeffs)
    table_note = fast = counts = None
    eps_rows: list[int] = []
    auxes: list = []
    if ff is not None:
        deltas = [ring.to_expr(ff[k][0]) for k in range(1, n)]
        deltas.append(sp.Mul(coeffs[n], deltas[-1]) if n > 1 else coeffs[n])
        table = [tuple(coeffs[0::2]), tuple(coeffs[1::2])]
        for k in range(2, n):
            table.append(tuple(ring.cancel(x, ff[k - 1][0]) for x in ff[k]))
        if n >= 2:
            table.append((coeffs[n],))
        col_signs = [_sign_of(a0)] + [ring.sign(ff[k][0]) for k in range(1, n + 1)]
        # sign of R_k[0] = Delta_k / Delta_{k-1}
        signs = [col_signs[0], col_signs[1]]
        for k in range(2, n + 1):
            a, b = col_signs[k], col_signs[k - 1]
            signs.append(None if a is None or b is None else a * b)
    else:
        if isinstance(ring, _FlintRing) and not ring.gens:
            from symdelay.core.budget import check_budget, power_cost

            check_budget(
                f"the Hurwitz determinants of a degree-{n} polynomial with a zero pivot",
                power_cost(n, 4e-9, 4),
                force=force,
                shrink="a polynomial of lower degree",
            )
            fast = _special(coeffs, var, _EpsFraction, _MAX_EPSILON_TABLE, ring.printed)
            from symdelay.analysis.polyroots import exact_counts

            ex = exact_counts(coeffs)  # independent of the array: compared with it below
            counts = (ex.rhp, ex.axis)
        if fast == "too large":
            # the epsilon entries grow without bound (s**200 + 1): the counts come from
            # exact arithmetic, and the array is not printed
            table, eps_rows, auxes, signs = (), [], [], ()
            table_note = (
                f"the epsilon-rule array has entries of growing degree in epsilon (over "
                f"{_MAX_EPSILON_TABLE} coefficients): not formed; the root counts come from "
                "exact arithmetic (gcd and Cauchy index, flint)"
            )
            deltas = _rational_hurwitz_minors(coeffs)
        elif fast is not None:
            table, eps_rows, auxes, signs = fast
            deltas = _rational_hurwitz_minors(coeffs)
        else:
            table, eps_rows, auxes, signs = _special(coeffs, var, _EpsExpr)
            H = hurwitz_matrix(coeffs)
            deltas = [sp.expand(H[:k, :k].det(method="berkowitz")) for k in range(1, n + 1)]
            if signs[0] is None:  # a0 != 0 exactly, but of a sign the symbols leave open
                signs = [None] * len(signs)

    # conditions: the first column has the sign of a0 (or of a_n), without denominators
    def odd(k, e):
        return _positive(e, factor0 if k % 2 == 1 else 1)

    conditions = lead + [odd(k, deltas[k - 1]) for k in range(1, n)]
    conditions.append(_positive(coeffs[n], factor0))
    lc = lead + [_positive(coeffs[i], factor0) for i in range(n, 0, -2)]
    lc += [odd(k, deltas[k - 1]) for k in range(n - 1, 0, -2)]
    lc = list(dict.fromkeys(lc))

    truths = [_truth(c) for c in conditions]
    if ff is None:
        is_stable = False  # some Hurwitz determinant vanishes
    elif all(t is True for t in truths):
        is_stable = True
    elif any(t is False for t in truths):
        is_stable = False
    else:
        is_stable = None

    rhp = imag = None
    if table_note is not None:
        rhp, imag = counts
        is_stable = False
    elif all(s in (1, -1) for s in signs):
        rhp = _count_changes(signs)
        if auxes:
            k0, A = auxes[0]
            imag = int(sp.degree(A, var)) - 2 * _count_changes(signs[k0:])
        else:
            imag = 0
        if is_stable is None:
            is_stable = rhp == 0 and imag == 0
        if fast is not None and (rhp, imag) != counts:  # pragma: no cover - a bug
            raise VerificationError(
                f"Routh array counts {(rhp, imag)} but exact arithmetic {counts} for {expr}"
            )
    return RouthResult(
        polynomial=expr,
        var=var,
        coefficients=tuple(coeffs),
        table=tuple(table),
        hurwitz_determinants=tuple(deltas),
        conditions=tuple(conditions),
        lienard_chipart=tuple(lc),
        is_stable=is_stable,
        rhp_count=rhp,
        imaginary_axis_count=imag,
        first_column_signs=tuple(signs),
        epsilon_rows=tuple(eps_rows),
        auxiliary_polynomials=tuple(auxes),
        multiplier=multiplier,
        printed=ring.printed,
        table_note=table_note,
    )
