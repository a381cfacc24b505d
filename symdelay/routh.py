"""Routh–Hurwitz for real polynomials with numeric or symbolic coefficients (exact).

SymPy 1.14 has no Routh–Hurwitz; this module is one. Coefficients are made exact at the
door (floats become the rationals they print as). The array is computed fraction-free:
row ``k`` is the classical Routh row times the Hurwitz determinant ``Delta_{k-1}``, every
division is exact, and the first column is ``Delta_1, Delta_2, ...`` itself. Polynomial
coefficients over QQ are handled by python-flint's multivariate polynomials, so large
symbolic inputs stay fast (no ``simplify`` anywhere).

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
import sympy as sp

from .errors import SymdelayInputError
from .parsing import parse_expression

__all__ = ["RouthResult", "routh_hurwitz", "hurwitz_matrix", "EPSILON"]

#: Polynomials with more terms are printed from flint's text, not by SymPy's printer.
_PRINT_FAST_TERMS = 300

#: The epsilon of the zero-first-entry rule (taken to 0 from above).
EPSILON = sp.Symbol("epsilon", positive=True)


# ------------------------------------------------------------------ input
def _exact(expr: sp.Expr) -> sp.Expr:
    """Floats -> the rationals they print as (``0.1`` -> ``1/10``)."""
    floats = expr.atoms(sp.Float)
    if not floats:
        return expr
    return expr.xreplace({f: sp.nsimplify(f, rational=True) for f in floats})


def _coefficients(poly, var) -> tuple[sp.Symbol, list[sp.Expr], sp.Expr]:
    """``(var, [a0, ..., an], expr)`` with exact coefficients; validates the input."""
    if isinstance(var, str):
        name = var.strip()
        if not name.isidentifier() or name.startswith("_"):
            raise SymdelayInputError(f"invalid variable name '{var}': use a name such as s or r")
        var = sp.Symbol(name)
    if isinstance(poly, str):
        names = (var.name,) if isinstance(var, sp.Symbol) else ()
        poly = parse_expression(poly, variables=names)
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
    if P.degree() < 1:
        raise SymdelayInputError(f"'{poly}' has degree < 1 in {var}: nothing to analyse")
    coeffs = [sp.expand(c) for c in P.all_coeffs()]
    for c in coeffs:
        if c.is_number and c.is_real is False:
            raise SymdelayInputError(f"coefficient {c} is not real: Routh–Hurwitz needs real ones")
    return var, coeffs, expr


# ------------------------------------------------------------ arithmetic
class _FlintRing:
    """Q[x1..xm] via python-flint (fast exact division); numbers when m = 0."""

    def __init__(self, gens):
        self.gens = tuple(gens)
        self.decidable = all(_has_sign_info(g) for g in self.gens)
        if self.gens:
            self.ctx = flint.fmpq_mpoly_ctx.get(
                tuple(f"x{i}" for i in range(len(self.gens))), "degrevlex"
            )
            self.sympy_ring = sp.polys.rings.PolyRing(self.gens, sp.QQ)
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
        names = [g.name for g in self.gens]
        text = re.sub(r"\bx(\d+)\b", lambda m: names[int(m.group(1))], str(a))
        return text.replace("^", "**")

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


class _SympyRing:
    """Any other coefficient domain (algebraic numbers, rational functions, EX)."""

    def __init__(self, domain):
        self.K = domain
        self.printed: dict = {}

    def convert(self, expr):
        return self.K.from_sympy(expr)

    def to_expr(self, a) -> sp.Expr:
        return self.K.to_sympy(a)

    def exquo(self, a, b):
        return self.K.exquo(a, b)

    def cancel(self, a, b) -> sp.Expr:
        return sp.cancel(self.to_expr(a) / self.to_expr(b))

    def sign(self, a):
        return _sign_of(self.to_expr(a))


def _ring_for(coeffs):
    """python-flint for coefficients in Q[symbols]; a SymPy domain otherwise."""
    gens = sorted(set().union(*(c.free_symbols for c in coeffs)), key=sp.default_sort_key)
    if not gens:
        if all(c.is_Rational for c in coeffs):
            return _FlintRing(())
    else:
        try:
            for c in coeffs:
                sp.Poly(c, *gens, domain=sp.QQ)
            return _FlintRing(gens)
        except (sp.PolynomialError, sp.polys.polyerrors.CoercionFailed):
            pass
    _, K = sp.construct_domain(coeffs, extension=True)
    return _SympyRing(K)


def _fraction_free(ring, coeffs):
    """Fraction-free Routh rows ``F_k`` (``F_k[0] = Delta_k``), or ``None`` at a zero pivot.

    ``F_{k+1}[j] = (F_k[0] F_{k-1}[j+1] - F_{k-1}[0] F_k[j+1]) / F_{k-2}[0]`` (no division
    for ``k <= 2``); the classical row is ``R_k = F_k / Delta_{k-1}``. The last row is
    ``[a_n Delta_{n-1}]`` and is not recomputed.
    """
    n = len(coeffs) - 1
    a = [ring.convert(c) for c in coeffs]
    rows = [a[0::2], a[1::2]]
    for k in range(1, n):
        prev, cur = rows[k - 1], rows[k]
        if not cur[0]:
            return None
        if k == n - 1:
            rows.append([a[n] * cur[0]])
            break
        new = []
        for j in range((n - k - 1) // 2 + 1):
            nxt = cur[j + 1] if j + 1 < len(cur) else 0 * cur[0]
            num = cur[0] * prev[j + 1] - prev[0] * nxt
            new.append(ring.exquo(num, rows[k - 2][0]) if k >= 3 else num)
        rows.append(new)
    if not rows[n][0]:
        return None
    return rows


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
        low = next(c for c in reversed(P.all_coeffs()) if c != 0)
        if low.is_positive:
            signs.append(1)
        elif low.is_negative:
            signs.append(-1)
        else:
            return None
    return signs[0] * signs[1]


def _classical_special(coeffs, var):
    """The classical array with the epsilon and auxiliary-polynomial rules (exact, cancelled).

    Returns ``(rows, epsilon_rows, auxiliaries)``; ``auxiliaries`` holds ``(row, A(s))``.
    """
    n = len(coeffs) - 1
    length = [(n - k) // 2 + 1 for k in range(n + 1)]

    def pad(row, k):
        return list(row) + [sp.Integer(0)] * (length[k] - len(row))

    rows = [pad(coeffs[0::2], 0), pad(coeffs[1::2], 1)]
    eps_rows, auxes = [], []
    segment_start = 0
    common = {}  # segment start -> G(s) shared by its two first rows

    def fix(k):
        nonlocal segment_start
        row = rows[k]
        if all(sp.cancel(c) == 0 for c in row):
            A = _row_poly(rows[k - 1], n - k + 1, var)
            auxes.append((k - 1, sp.expand(A)))
            dA = sp.Poly(sp.diff(A, var), var)
            deg = n - k
            rows[k] = pad([dA.coeff_monomial(var ** (deg - 2 * j)) for j in range(length[k])], k)
            segment_start = k - 1
        if sp.cancel(rows[k][0]) == 0:
            if segment_start not in common:
                d0 = n - segment_start
                p0 = _row_poly(rows[segment_start], d0, var)
                p1 = _row_poly(rows[segment_start + 1], d0 - 1, var)
                common[segment_start] = sp.Poly(sp.gcd(p0, p1), var)
            row = rows[k]
            G = common[segment_start]
            g = G.degree()
            gc = [G.coeff_monomial(var ** (g - 2 * j)) / G.LC() for j in range(g // 2 + 1)]
            rows[k] = [
                sp.cancel(c + (EPSILON * gc[j] if j < len(gc) else 0)) for j, c in enumerate(row)
            ]
            eps_rows.append(k)

    fix(1)
    for k in range(1, n):
        prev, cur = rows[k - 1], rows[k]
        new = []
        for j in range(length[k + 1]):
            nxt = cur[j + 1] if j + 1 < len(cur) else 0
            new.append(sp.cancel((cur[0] * prev[j + 1] - prev[0] * nxt) / cur[0]))
        rows.append(new)
        fix(k + 1)
    return rows, eps_rows, auxes


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
    s = _sign_of(cond.lhs)
    return None if s is None else s == 1


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
    printed: dict = field(default_factory=dict, repr=False, compare=False)

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

    def to_json(self) -> dict:
        return {
            "polynomial": str(self.polynomial),
            "var": str(self.var),
            "table": [[self._str(c) for c in row] for row in self.table],
            "conditions": [self._str(c) for c in self.conditions],
            "lienard_chipart": [self._str(c) for c in self.lienard_chipart],
            "stable": self.is_stable,
            "rhp_count": self.rhp_count,
            "imaginary_axis_count": self.imaginary_axis_count,
            "epsilon_rows": list(self.epsilon_rows),
            "auxiliary_polynomials": [
                {"row": k, "polynomial": str(A)} for k, A in self.auxiliary_polynomials
            ],
        }

    def format_table(self) -> str:
        """The array as aligned text, one row per power of ``var``."""
        cells = [[str(c) for c in row] for row in self.table]
        width = max(len(c) for row in cells for c in row)
        lines = []
        for k, row in enumerate(cells):
            label = f"{self.var}^{self.degree - k}"
            lines.append(f"{label:>6} | " + "  ".join(c.rjust(width) for c in row))
        return "\n".join(lines)


def _has_sign_info(x) -> bool:
    return x.is_extended_negative is not None or x.is_extended_positive is not None


def _sign_of(expr):
    """1, -1, 0, or None (undecided); symbols without assumptions decide nothing."""
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


def routh_hurwitz(poly, var=None) -> RouthResult:
    """Routh array, Hurwitz determinants, conditions and root counts of ``poly`` in ``var``.

    ``poly``: a SymPy expression or ``Poly``, or text (parsed safely, never evaluated);
    ``var``: the polynomial variable (a symbol or its name).

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
    n = len(coeffs) - 1
    a0 = coeffs[0]
    sign0 = _sign_of(a0)
    factor0 = sign0 if sign0 in (1, -1) else a0

    ring = _ring_for(coeffs)
    ff = _fraction_free(ring, coeffs)
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
        rows, eps_rows, auxes = _classical_special(coeffs, var)
        table = [tuple(row) for row in rows]
        H = hurwitz_matrix(coeffs)
        deltas = [sp.expand(H[:k, :k].det(method="berkowitz")) for k in range(1, n + 1)]
        signs = [_lowest_sign(row[0]) for row in rows]

    # conditions: the first column has the sign of a0, without denominators
    def odd(k, e):
        return _positive(e, factor0) if (k % 2 == 1 and factor0 != 1) else _positive(e, 1)

    conditions = [odd(k, deltas[k - 1]) for k in range(1, n)]
    conditions.append(_positive(coeffs[n], factor0) if factor0 != 1 else _positive(coeffs[n], 1))
    if n == 1:
        conditions = conditions[-1:]
    lc = [
        _positive(coeffs[i], factor0) if factor0 != 1 else _positive(coeffs[i], 1)
        for i in range(n, 0, -2)
    ]
    lc += [odd(k, deltas[k - 1]) for k in range(n - 1, 0, -2) if k >= 1]
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
    if all(s in (1, -1) for s in signs):
        rhp = _count_changes(signs)
        if auxes:
            k0, A = auxes[0]
            imag = int(sp.degree(A, var)) - 2 * _count_changes(signs[k0:])
        else:
            imag = 0
        if is_stable is None:
            is_stable = rhp == 0 and imag == 0
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
        printed=ring.printed,
    )
