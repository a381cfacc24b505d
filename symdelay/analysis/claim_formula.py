"""The claim language of the decision procedure: Boolean combinations of polynomial and
rational relations over a model's parameters, translated to polynomial sign conditions.

A claim is text: relations (``<``, ``<=``, ``>``, ``>=``, ``==``, ``!=``; a chain ``a < b < c``
is ``a < b and b < c``) joined by ``and`` / ``&``, ``or`` / ``|`` and negated by ``not`` /
``~``. Each relation is parsed by the project's safe parser
(:func:`symdelay.core.parsing.parse_expression`) with exactly the model's parameter names
(plus the aliases the caller gives); the Boolean layer is read from Python's ``ast`` only
(nothing is evaluated). Arithmetic: ``+ - * /``, integer and rational powers, ``sqrt`` and
``Abs``; ``exp``, ``log``, ``sin``, ``cos``, ``tanh``, ``acos``, ``asin``, ``atan`` and the
constants ``pi``, ``E`` are transcendental, and the procedure refuses them with one line
(:class:`~symdelay.core.errors.TranscendentalClaimError`; the claims entry then falls back to
the search of :mod:`symdelay.analysis.claim_search`, which reads them with
``parse_claim(..., transcendental=True)``).

Translation (:class:`ClaimFormula`): every relation ``lhs op rhs`` becomes ``N/Dn op 0``
with ``N``, ``Dn`` polynomials in the parameters and in *auxiliary variables*, one per
root or absolute value:

* ``b**(p/q)``, ``b = N_b/D_b``: ``y`` with ``y >= 0`` (``q`` even), and ``y**q D_b = N_b``
  where ``b`` is defined (``D_b != 0`` and, ``q`` even, ``N_b D_b >= 0``), ``y = 0``
  elsewhere: a total function of the parameters, so the definitions are hypotheses that
  never restrict the parameters (a negated claim stays right);
* ``Abs(x)``: ``a >= 0``, ``a**2 D_x**2 = N_x**2``.

A relation is *false where it is undefined* (a denominator vanishes, an even root of a
negative number): ``N/Dn op 0`` is ``(every denominator != 0) and (every even-root base >= 0)
and N*Dn op 0`` (``Dn**2 > 0`` there, so ``N*Dn`` has the sign of ``N/Dn``). ``not`` negates
that truth value. :meth:`ClaimFormula.holds_at` evaluates the *original* SymPy relations at
an exact point with the same convention (an independent path from the translation).

Formula nodes are tuples: ``("and", [..])``, ``("or", [..])``, ``("not", x)``,
``("rel", P, op)`` meaning ``P op 0`` with ``op`` one of ``> >= == !=``, ``("true",)``,
``("false",)``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from symdelay.core.errors import SymdelayInputError, TranscendentalClaimError
from symdelay.core.lazy import sympy as sp

__all__ = [
    "ClaimFormula",
    "parse_claim",
    "transcendental_in",
    "fallback_reason",
    "fold",
    "THREE_VALUED",
    "TRUE",
    "FALSE",
    "conj",
    "disj",
    "neg",
    "rel",
]

TRUE = ("true",)
FALSE = ("false",)
_MAX_LENGTH = 20_000
_MAX_LEAVES = 500
_TRANSCENDENTAL = (
    sp.exp,
    sp.log,
    sp.sin,
    sp.cos,
    sp.tan,
    sp.tanh,
    sp.sinh,
    sp.cosh,
    sp.acos,
    sp.asin,
    sp.atan,
)
#: SymPy's relation classes and the operators of the formula nodes
RELATION_OPS = {
    sp.StrictLessThan: "<",
    sp.LessThan: "<=",
    sp.StrictGreaterThan: ">",
    sp.GreaterThan: ">=",
    sp.Equality: "==",
    sp.Unequality: "!=",
}


def conj(*xs):
    xs = [x for x in xs if x != TRUE]
    if any(x == FALSE for x in xs):
        return FALSE
    return xs[0] if len(xs) == 1 else (("and", list(xs)) if xs else TRUE)


def disj(*xs):
    xs = [x for x in xs if x != FALSE]
    if any(x == TRUE for x in xs):
        return TRUE
    return xs[0] if len(xs) == 1 else (("or", list(xs)) if xs else FALSE)


def neg(x):
    if x == TRUE:
        return FALSE
    if x == FALSE:
        return TRUE
    if x[0] == "not":
        return x[1]
    return ("not", x)


def rel(P, op: str):
    """``P op 0`` (``op`` one of ``> >= < <= == !=``), constants decided at once."""
    P = sp.expand(P)
    if op in ("<", "<="):
        P, op = sp.expand(-P), {"<": ">", "<=": ">="}[op]
    if P.is_number:
        value = {">": P > 0, ">=": P >= 0, "==": P == 0, "!=": P != 0}[op]
        return TRUE if bool(value) else FALSE
    return ("rel", P, op)


def walk_rels(node):
    """Every ``("rel", P, op)`` of a formula."""
    if node[0] == "rel":
        yield node
    elif node[0] in ("and", "or"):
        for c in node[1]:
            yield from walk_rels(c)
    elif node[0] == "not":
        yield from walk_rels(node[1])


def fold(node, leaf, and_, or_, not_):
    """``node`` (a formula node or a claim's tree over leaf indices) evaluated bottom-up:
    ``leaf(n)`` for every node that is not ``and`` / ``or`` / ``not``, ``and_(values)``,
    ``or_(values)``, ``not_(value)`` for the others."""
    kind = node[0]
    if kind in ("and", "or"):
        return (and_ if kind == "and" else or_)([fold(c, leaf, and_, or_, not_) for c in node[1]])
    if kind == "not":
        return not_(fold(node[1], leaf, and_, or_, not_))
    return leaf(node)


def _and3(xs):
    return False if False in xs else (True if all(x is True for x in xs) else None)


def _or3(xs):
    return True if True in xs else (False if all(x is False for x in xs) else None)


#: ``and``, ``or``, ``not`` of truth values that may be None (undecided)
THREE_VALUED = (_and3, _or3, lambda x: None if x is None else not x)


@dataclass
class _Aux:
    symbol: sp.Symbol
    definition: tuple  # a formula node
    base: tuple  # (N, D, q) or ("abs", N, D)


@dataclass
class ClaimFormula:
    """A parsed claim: ``node`` (polynomial sign conditions over ``parameters`` and the
    auxiliary variables), ``definitions`` (the auxiliary variables' defining formulas, to
    be added as hypotheses), ``condition`` (the SymPy form, for display and exact
    evaluation), ``leaves`` (the SymPy relations)."""

    text: str
    condition: sp.Basic
    node: tuple
    leaves: tuple
    tree: tuple  # the Boolean structure over leaf indices
    aux: list = field(default_factory=list)

    @property
    def definitions(self) -> list:
        return [a.definition for a in self.aux]

    @property
    def aux_symbols(self) -> list:
        return [a.symbol for a in self.aux]

    @property
    def free_symbols(self) -> set:
        return set().union(*[leaf.free_symbols for leaf in self.leaves]) if self.leaves else set()

    def holds_at(self, point: dict) -> bool | None:
        """The claim's truth at an exact point (a name or symbol -> a rational or algebraic
        number), by SymPy on the original relations, the second path beside the
        evaluator of :mod:`symdelay.analysis.counterexample`: a relation's value exactly
        where it is rational, else its sign at 60 digits, a value within 1e-45 of 0 zero
        only when SymPy simplifies it to 0 (else None: undecided). A relation undefined
        at the point (a zero denominator, an even root of a negative number) is false; an
        odd root of a negative number is the real root, as the procedure reads it."""
        values = {str(k): sp.sympify(v) for k, v in point.items()}
        subs = {s: values[s.name] for s in self.free_symbols if s.name in values}
        return fold(self.tree, lambda t: _leaf_at(self.leaves[t[1]], subs), *THREE_VALUED)


def _sign(value):
    """-1, 0, 1 for an exact real number, False where it is not real, None undecided."""
    if value.is_Rational:
        return 1 if value > 0 else (-1 if value < 0 else 0)
    if value.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        return False
    v = sp.N(value, 60)
    if not v.is_number or v.has(sp.zoo, sp.nan) or sp.im(v) != 0:
        return False
    v = sp.re(v)
    if abs(v) > sp.Float("1e-45", 60):
        return 1 if v > 0 else -1
    return 0 if sp.simplify(value) == 0 else None


def _real_roots(e):
    """``b**(p/q)`` with ``q`` odd as the real root ``sign(b)**p |b|**(p/q)``."""
    return e.replace(
        lambda x: x.is_Pow and x.exp.is_Rational and not x.exp.is_Integer and x.exp.q % 2 == 1,
        lambda x: sp.sign(x.base) ** x.exp.p * sp.Abs(x.base) ** x.exp,
    )


def _leaf_at(leaf, subs):
    if leaf in (sp.true, sp.false):
        return bool(leaf)
    diff = _real_roots(leaf.lhs - leaf.rhs)
    for sub in sp.preorder_traversal(diff):  # undefined: a zero denominator, an even root
        e = sub.exp if isinstance(sub, sp.Pow) else None
        if e is None or not e.is_Rational or (e.is_Integer and e > 0):
            continue
        s = _sign(sub.base.xreplace(subs))
        if s is False or (s == 0 and e < 0) or (s == -1 and e.q % 2 == 0):
            return False
        if s is None:
            return None
    s = _sign(diff.xreplace(subs))
    if s is None or s is False:
        return s
    op = RELATION_OPS[type(leaf)]
    return {"<": s < 0, "<=": s <= 0, ">": s > 0, ">=": s >= 0, "==": s == 0, "!=": s != 0}[op]


# ------------------------------------------------------------------ parsing
def _names_of(symbols) -> dict:
    return {s.name: s for s in symbols}


def parse_claim(
    text: str,
    parameters,
    aliases: dict | None = None,
    what: str = "claim",
    transcendental: bool = False,
):
    """Parse ``text`` over ``parameters`` (SymPy symbols; ``aliases``: name -> expression in
    them, e.g. ``{"D": L/gamma}``) into a :class:`ClaimFormula`. A transcendental function
    raises :class:`~symdelay.core.errors.TranscendentalClaimError` unless
    ``transcendental`` (the search's reading: ``node`` is then None when one is present,
    there is no polynomial translation; ``leaves``, ``tree`` and ``condition`` are kept)."""
    if not isinstance(text, str) or not text.strip():
        raise SymdelayInputError(f"empty {what}: give a relation such as 'lam*theta < mu'")
    if len(text) > _MAX_LENGTH:
        raise SymdelayInputError(f"{what} longer than {_MAX_LENGTH} characters: shorten it")
    aliases = dict(aliases or {})
    names = _names_of(parameters)
    alias_symbols = {n: sp.Symbol(n) for n in aliases if n not in names}
    variables = {**names, **alias_symbols}
    # the constants pi and E (transcendental: refused by the procedure, read by the search)
    variables.update({c: v for c, v in (("pi", sp.pi), ("E", sp.E)) if c not in variables})
    flat = " ".join(text.split())
    source = flat.replace("^", "**").replace("&", " and ").replace("|", " or ")
    source = source.replace("~", " not ").strip()
    try:
        tree = ast.parse(source, mode="eval").body
    except SyntaxError as exc:
        raise SymdelayInputError(
            f"cannot parse the {what} '{flat[:80]}': {exc.msg}; write relations joined by "
            "and / or / not, e.g. 'lam*theta < mu and mu > 1'"
        ) from None
    except (RecursionError, MemoryError):
        raise SymdelayInputError(f"cannot parse the {what}: nested too deeply") from None
    leaves: list = []

    def leaf(text_):
        from symdelay.core.parsing import parse_expression

        if len(leaves) >= _MAX_LEAVES:
            raise SymdelayInputError(f"{what}: more than {_MAX_LEAVES} relations: shorten it")
        expr = parse_expression(text_, variables=variables, canonical=False, claim=True)
        if not isinstance(expr, (sp.Rel, sp.logic.boolalg.BooleanAtom)):
            raise SymdelayInputError(
                f"'{text_}' in the {what} is not a relation: write e.g. 'lam*theta < mu'"
            )
        if not isinstance(expr, sp.logic.boolalg.BooleanAtom):
            sub = {alias_symbols[n]: aliases[n] for n in alias_symbols}
            if sub:
                expr = type(expr)(expr.lhs.xreplace(sub), expr.rhs.xreplace(sub), evaluate=False)
            if not transcendental:
                _refuse_transcendental(expr, what)
        leaves.append(expr)
        return ("leaf", len(leaves) - 1)

    def build(node, depth=0):
        if depth > 60:
            raise SymdelayInputError(f"the {what} is nested more than 60 levels deep")
        if isinstance(node, ast.BoolOp):
            kind = "and" if isinstance(node.op, ast.And) else "or"
            return (kind, [build(v, depth + 1) for v in node.values])
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return ("not", build(node.operand, depth + 1))
        if isinstance(node, ast.Compare) and len(node.ops) > 1:
            items = [node.left, *node.comparators]
            return (
                "and",
                [
                    leaf(ast.unparse(ast.Compare(items[i], [op], [items[i + 1]])))
                    for i, op in enumerate(node.ops)
                ],
            )
        return leaf(ast.unparse(node))

    structure = build(tree)
    condition = fold(structure, lambda t: leaves[t[1]], _args(sp.And), _args(sp.Or), sp.Not)
    if transcendental and any(transcendental_in(x) for x in leaves):
        return ClaimFormula(text, condition, None, tuple(leaves), structure)
    translator = _Translator(set(parameters))
    nodes = [translator.relation(x) for x in leaves]
    node = fold(structure, lambda t: nodes[t[1]], _args(conj), _args(disj), neg)
    return ClaimFormula(text, condition, node, tuple(leaves), structure, translator.aux)


def _args(f):
    return lambda xs: f(*xs)


def fallback_reason(*formulas) -> str | None:
    """Why the decision procedure cannot decide the claim and its assumptions (parsed
    with ``transcendental=True``): the first transcendental function of their relations, in
    the order the procedure reads them; None when there is none."""
    found = [transcendental_in(x) for f in formulas for x in f.leaves]
    name, text = next((x for x in found if x), (None, None))
    return (
        None
        if name is None
        else f"the decision procedure cannot decide {name} ({text}), a transcendental "
        "function: checked by search"
    )


def transcendental_in(expr) -> tuple[str, str] | None:
    """``(name, sub-expression text)`` of the first transcendental function or constant
    (``exp``, ``log``, ``sin``, ``cos``, ``tan``, ``tanh``, ``sinh``, ``cosh``, ``acos``,
    ``asin``, ``atan``, ``pi``, ``E``) in ``expr``, or None."""
    for sub in sp.preorder_traversal(expr):
        if isinstance(sub, _TRANSCENDENTAL) or sub in (sp.pi, sp.E):
            name = type(sub).__name__ if not sub.is_number or sub.args else str(sub)
            return name, "exp(1)" if sub is sp.E else str(sub)  # SymPy reads exp(1) as E
    return None


def _refuse_transcendental(expr, what):
    found = transcendental_in(expr)
    if found is not None:
        name, text = found
        raise TranscendentalClaimError(
            f"the {what} uses {name} ({text}), a transcendental function: the decision "
            "procedure (real polynomial arithmetic) cannot decide it; write it with "
            "polynomials, rational functions, sqrt and rational powers",
            function=name,
            expression=text,
        )


class _Translator:
    """SymPy expressions -> (numerator, denominator) polynomials, with auxiliary variables."""

    def __init__(self, parameters: set):
        self.parameters = parameters
        self.aux: list[_Aux] = []
        self._cache: dict = {}
        self._defined: list = []

    def relation(self, expr):
        if expr in (sp.true, sp.false):
            return TRUE if bool(expr) else FALSE
        self._defined = []
        N, Dn = self.fraction(expr.lhs - expr.rhs)
        defined = list(dict.fromkeys(self._defined))
        op = RELATION_OPS[type(expr)]
        core = rel(N, op) if op in ("==", "!=") else rel(sp.expand(N * Dn), op)
        return conj(*defined, core)

    def fraction(self, e):
        if e.is_Rational:
            return e, sp.S.One
        if e.is_Symbol:
            if e not in self.parameters:
                raise SymdelayInputError(f"unknown name '{e}' in the claim")
            return e, sp.S.One
        if isinstance(e, sp.Add):
            N, Dn = sp.S.Zero, sp.S.One
            for a in e.args:
                n, d = self.fraction(a)
                N, Dn = sp.expand(N * d + n * Dn), sp.expand(Dn * d)
            return N, Dn
        if isinstance(e, sp.Mul):
            N, Dn = sp.S.One, sp.S.One
            for a in e.args:
                n, d = self.fraction(a)
                N, Dn = sp.expand(N * n), sp.expand(Dn * d)
            return N, Dn
        if isinstance(e, sp.Pow) and e.exp.is_Integer:
            n, d = self.fraction(e.base)
            k = int(e.exp)
            if k >= 0:
                return sp.expand(n**k), sp.expand(d**k)
            self._defined.append(rel(n, "!="))
            return sp.expand(d**-k), sp.expand(n**-k)
        if isinstance(e, sp.Pow) and e.exp.is_Rational:
            p, q = int(e.exp.p), int(e.exp.q)
            y = self.root(e.base, q)
            return self.fraction(sp.Pow(y, p, evaluate=False) if p != 1 else y)
        if isinstance(e, sp.Abs):
            return self.absolute(e.args[0]), sp.S.One
        if isinstance(e, sp.Float):
            return sp.Rational(str(e)), sp.S.One
        if e.is_number and e.is_real and e.is_algebraic:
            # an algebraic constant such as sqrt(2) arrives as a Pow: handled above
            raise SymdelayInputError(f"cannot translate the number {e} in the claim")
        raise SymdelayInputError(
            f"the claim uses {e}, which the decision procedure (real polynomial arithmetic) "
            "cannot decide: write it with polynomials, rational functions, sqrt and rational "
            "powers"
        )

    def _new(self, prefix):
        y = sp.Symbol(f"_{prefix}{len(self.aux)}", real=True)
        self.parameters.add(y)
        return y

    def root(self, base, q):
        n, d = self.fraction(base)
        key = ("root", n, d, q)
        if key in self._cache:
            y = self._cache[key]
        else:
            y = self._new("root")
            cond = conj(rel(d, "!="), rel(sp.expand(n * d), ">=") if q % 2 == 0 else TRUE)
            value = rel(sp.expand(y**q * d - n), "==")
            zero = rel(y, "==")
            definition = conj(
                rel(y, ">=") if q % 2 == 0 else TRUE,
                disj(neg(cond), value),
                disj(cond, zero),
            )
            self.aux.append(_Aux(y, definition, (n, d, q)))
            self._cache[key] = y
        self._defined.append(rel(d, "!="))
        if q % 2 == 0:
            self._defined.append(rel(sp.expand(n * d), ">="))
        return y

    def absolute(self, x):
        n, d = self.fraction(x)
        key = ("abs", n, d)
        if key in self._cache:
            return self._cache[key]
        a = self._new("abs")
        definition = conj(
            rel(a, ">="),
            disj(rel(d, "=="), rel(sp.expand(a**2 * d**2 - n**2), "==")),
            disj(rel(d, "!="), rel(a, "==")),
        )
        self.aux.append(_Aux(a, definition, ("abs", n, d)))
        self._cache[key] = a
        return a
