"""Untrusted text to SymPy, without executing Python.

``sympy.sympify`` evaluates its string with ``eval``; symdelay never does that with user
text. :func:`parse_expression` parses with :mod:`ast`, accepts only numbers, the canonical
symbol names, arithmetic, comparisons and a few whitelisted functions, and builds the SymPy
object itself. Numbers become exact rationals (``0.1`` is ``1/10``).

>>> parse_expression("4*gamma*lam*theta > (mu - gamma)**2")
4*gamma*lam*theta > (-gamma + mu)**2
>>> parse_expression("0.1 + 1/3")
13/30
>>> parse_expression("__import__('os')")
Traceback (most recent call last):
...
symdelay.core.errors.SymdelayInputError: cannot use '__import__' in an expression: only the names r, mu, lam, theta, gamma, D, L, eta and the functions exp, log, sqrt, tanh, sin, cos, Abs are allowed

Tools that take arbitrary parameter names (Routh–Hurwitz) opt in with
``any_identifier=True``: every plain name is a symbol, except dunder names and the function
names; ``pi``, ``E`` and ``I`` are SymPy's constants and the canonical names stay the
canonical symbols.

>>> parse_expression("s**2 + K*s + a_1 + pi", variables=["s"], any_identifier=True)
K*s + a_1 + s**2 + pi

:func:`parse_output` reads back what symdelay printed (JSON strings), with the canonical
plain symbols; plain ``sympy.sympify`` would read ``gamma`` as the Gamma function.

>>> parse_output("(lam*theta > 0) & (gamma > mu)")
(gamma > mu) & (lam*theta > 0)
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Mapping

from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.core.symbols import SYMBOLS

__all__ = [
    "parse_expression",
    "parse_rate",
    "parse_relational",
    "parse_output",
    "ALLOWED_FUNCTIONS",
    "CLAIM_FUNCTIONS",
    "RATE_FUNCTIONS",
]

ALLOWED_FUNCTIONS = {
    "exp": sp.exp,
    "log": sp.log,
    "sqrt": sp.sqrt,
    "tanh": sp.tanh,
    "sin": sp.sin,
    "cos": sp.cos,
    "Abs": sp.Abs,
}

#: Functions a claim may use besides ALLOWED_FUNCTIONS (``parse_expression(..., claim=True)``):
#: the inverse trigonometric functions of published stability bounds (Hayes' crossing
#: curve ``acos(-a/b)/sqrt(b**2 - a**2)``), their principal branches. Names only: a call
#: of one of these names builds SymPy's function on the built argument, nothing else.
CLAIM_FUNCTIONS = {
    "acos": sp.acos,
    "asin": sp.asin,
    "atan": sp.atan,
}

#: Functions a model's rate may use besides ALLOWED_FUNCTIONS (:func:`parse_rate`): the
#: piecewise-smooth ones. Relations appear only in a Piecewise condition.
RATE_FUNCTIONS = {
    "Min": sp.Min,
    "Max": sp.Max,
    "Heaviside": sp.Heaviside,
    "Piecewise": sp.Piecewise,
}

#: Names that are SymPy constants when any identifier is accepted (as in ``sympify``).
CONSTANTS = {"pi": sp.pi, "E": sp.E, "I": sp.I}

#: What symdelay prints besides ALLOWED_FUNCTIONS (read by :func:`parse_output` only).
_OUTPUT_FUNCTIONS = {
    **ALLOWED_FUNCTIONS,
    "Eq": sp.Eq,
    "Ne": sp.Ne,
    "Piecewise": sp.Piecewise,
    "Max": sp.Max,
    "Min": sp.Min,
    "re": sp.re,
    "im": sp.im,
    "sign": sp.sign,
    "floor": sp.floor,
    "ceiling": sp.ceiling,
    "sinh": sp.sinh,
    "cosh": sp.cosh,
    "tan": sp.tan,
    "atan": sp.atan,
    "asin": sp.asin,
    "acos": sp.acos,
    "And": sp.And,
    "Or": sp.Or,
    "Not": sp.Not,
}
_OUTPUT_CONSTANTS = {
    **CONSTANTS,
    "oo": sp.oo,
    "zoo": sp.zoo,
    "nan": sp.nan,
    "True": sp.true,
    "False": sp.false,
}
#: Never symbols: SymPy reads them as infinities / undefined.
_RESERVED = ("oo", "zoo", "nan")

_MAX_LENGTH = 20_000
#: Deepest nesting of operations (a chain of + - or of * / is one level).
_MAX_DEPTH = 60
_MAX_POWER = 10_000
_MAX_BITS = 1_000_000  # of an exact power of a number

_COMPARE = {
    ast.Lt: sp.StrictLessThan,
    ast.LtE: sp.LessThan,
    ast.Gt: sp.StrictGreaterThan,
    ast.GtE: sp.GreaterThan,
    ast.Eq: sp.Eq,
    ast.NotEq: sp.Ne,
}


def _allowed_names(variables) -> dict[str, sp.Symbol]:
    """Canonical names plus ``variables`` (names, or symbols kept as they are)."""
    names = dict(SYMBOLS)
    if isinstance(variables, Mapping):
        names.update(variables)
        return names
    for v in variables:
        if isinstance(v, sp.Symbol):
            names[v.name] = v
        else:
            names.setdefault(v, sp.Symbol(v))
    return names


def _only(variables) -> dict[str, sp.Symbol]:
    """Exactly ``variables`` (names or symbols), without the canonical names."""
    if isinstance(variables, Mapping):
        return dict(variables)
    return {
        v.name if isinstance(v, sp.Symbol) else v: v if isinstance(v, sp.Symbol) else sp.Symbol(v)
        for v in variables
    }


def _help(names, functions=None) -> str:
    return (
        "only the names "
        + ", ".join(names)
        + " and the functions "
        + ", ".join(functions or ALLOWED_FUNCTIONS)
        + " are allowed"
    )


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:200] or type(exc).__name__


def _is_condition(x) -> bool:
    """A relation or a truth value (a symbol is a SymPy ``Boolean`` too, but no condition)."""
    boolalg = sp.logic.boolalg
    return isinstance(x, (sp.Rel, boolalg.BooleanFunction, boolalg.BooleanAtom))


class _Builder:
    """Builds SymPy objects from a whitelisted AST.

    ``any_identifier``: every plain name not starting with ``__`` is a symbol (canonical
    names keep their symbols; ``pi``, ``E``, ``I`` are constants). ``output``: the reading of
    symdelay's own output (more functions, booleans, tuples; floats stay floats).
    """

    def __init__(
        self,
        names,
        any_identifier=False,
        output=False,
        source="",
        extra=None,
        rate=False,
        claim=False,
    ):
        self.names = dict(names)
        #: functions of the caller's vocabulary (a model's ``delayed``, ``dot``): any arity
        self.extra = dict(extra or {})
        self.any_identifier = any_identifier or output
        self.output = output
        self.source = source
        self.rate = rate  # a model's rate: RATE_FUNCTIONS, relations in conditions only
        self.in_condition = False
        if output:
            self.functions = _OUTPUT_FUNCTIONS
        else:
            self.functions = (
                {**ALLOWED_FUNCTIONS, **RATE_FUNCTIONS}
                if rate
                else {**ALLOWED_FUNCTIONS, **CLAIM_FUNCTIONS}
                if claim
                else ALLOWED_FUNCTIONS
            )
        self.constants = _OUTPUT_CONSTANTS if output else CONSTANTS

    def fail(self, what: str):
        if self.rate:
            raise SymdelayInputError(
                f"cannot use {what} in a rate: {_help(self.names, self.functions)}"
            )
        if self.any_identifier:
            raise SymdelayInputError(
                f"cannot use {what} in an expression: use names, numbers, + - * / ** and "
                "the functions " + ", ".join(ALLOWED_FUNCTIONS)
            )
        raise SymdelayInputError(f"cannot use {what} in an expression: {_help(self.names)}")

    def implicit_product(self, node) -> None:
        """Refuse ``2(a + b)``, ``(a)(b)`` or ``mu(a + b)`` (a number, a bracket or a
        parameter written before a bracket: Python reads a call) naming the missing ``*``."""
        f = node.func
        if not isinstance(f, (ast.Name, ast.Constant, ast.BinOp, ast.UnaryOp, ast.Call)):
            return  # a lambda, a subscript, an attribute: a computed call, refused as such
        if isinstance(f, ast.Name) and (f.id in self.functions or f.id not in self.names):
            return
        left = ast.get_source_segment(self.source, f) or "..."
        if isinstance(f, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp)):
            left = f"({left})"
        args = ", ".join(ast.get_source_segment(self.source, a) or "..." for a in node.args)
        raise SymdelayInputError(
            f"missing '*' in '{left}({args})': write {left}*({args}) (a product needs '*')"
        )

    def name(self, ident: str):
        if ident in self.names:
            return self.names[ident]
        if not self.any_identifier:
            raise SymdelayInputError(
                f"unknown symbol '{ident}': use {_help(self.names, self.functions)}"
            )
        if ident.startswith("__"):
            self.fail(f"'{ident}'")
        if ident in ALLOWED_FUNCTIONS and not self.output:
            raise SymdelayInputError(
                f"'{ident}' is a function: call it as {ident}(...) or choose another symbol name"
            )
        if ident in self.constants:
            return self.constants[ident]
        if ident in _RESERVED:
            raise SymdelayInputError(f"'{ident}' is reserved by SymPy: choose another symbol name")
        symbol = self.names[ident] = sp.Symbol(ident)
        return symbol

    def number(self, node):
        value = node.value
        if value is True and self.in_condition:  # the last branch of a Piecewise
            return sp.true
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            if self.output and isinstance(value, bool):
                return sp.true if value else sp.false
            self.fail(repr(value))
        if isinstance(value, float):
            text = ast.get_source_segment(self.source, node) or repr(value)
            if self.output:  # a float symdelay printed: the same Float, not a rational
                if value != value or value in (float("inf"), float("-inf")):
                    self.fail("a non-finite number")
                return sp.Float(text.replace("_", ""))
            # exact: the decimal the user typed (1e-400, 1.0000000000000000000001), not
            # the binary float it rounds to
            from symdelay.core.exact import exact_number

            return exact_number("a number", text)
        return sp.Integer(value)

    def power(self, left, right):
        if right.is_number and right.is_finite and abs(right) > _MAX_POWER:
            self.fail(f"a power above {_MAX_POWER}")
        if left.is_Rational and right.is_Integer:
            bits = max(abs(left.p), left.q).bit_length() * abs(int(right))
            if bits > _MAX_BITS:
                self.fail(f"a number of more than {_MAX_BITS} bits")
        return left**right

    def chain(self, node, ops):
        """Operands of a left-nested chain of ``ops`` (iterative: long sums are flat)."""
        items = []
        while isinstance(node, ast.BinOp) and isinstance(node.op, ops):
            items.append((node.op, node.right))
            node = node.left
        items.append((None, node))
        items.reverse()
        return items

    def value(self, node):
        """An expression (a number, not a condition) inside a rate."""
        was, self.in_condition = self.in_condition, False
        try:
            out = self.build(node)
        finally:
            self.in_condition = was
        if _is_condition(out):
            raise SymdelayInputError(
                f"'{ast.unparse(node)[:60]}' is a condition where a rate needs a number: "
                "conditions go in Piecewise((EXPR, CONDITION), (EXPR, True))"
            )
        return out

    def condition(self, node):
        """A Piecewise condition: relations < <= > >= joined by and, or, not."""
        was, self.in_condition = self.in_condition, True
        try:
            out = self.build(node)
        finally:
            self.in_condition = was
        if not _is_condition(out):
            raise SymdelayInputError(
                f"the Piecewise condition '{ast.unparse(node)[:60]}' is not a condition: "
                "compare with <, <=, > or >= (the last branch's condition is True)"
            )
        return out

    def rate_call(self, fname: str, node):
        """Min, Max, Heaviside, Piecewise in a rate (:data:`RATE_FUNCTIONS`)."""
        if node.keywords:
            self.fail(f"'{fname}' with keyword arguments")
        args = node.args
        if fname in ("Min", "Max"):
            if len(args) < 2:
                self.fail(f"'{fname}' with fewer than two arguments")
            return self.functions[fname](*[self.value(a) for a in args])
        if fname == "Heaviside":
            if len(args) not in (1, 2):
                self.fail("'Heaviside' with other than Heaviside(x) or Heaviside(x, H0)")
            x = self.value(args[0])
            if len(args) == 1:
                return sp.Heaviside(x)
            h0 = self.value(args[1])
            if not (h0.is_Rational and 0 <= h0 <= 1):
                raise SymdelayInputError(
                    f"Heaviside(x, H0): the value at 0, H0, must be a number in [0, 1], got {h0}"
                )
            return sp.Heaviside(x, h0)
        # Piecewise((EXPR, CONDITION), ..., (EXPR, True))
        if not args:
            self.fail("'Piecewise' without branches")
        branches = []
        for a in args:
            if not (isinstance(a, ast.Tuple) and len(a.elts) == 2):
                raise SymdelayInputError(
                    "Piecewise takes branches (EXPR, CONDITION): write "
                    "Piecewise((EXPR, CONDITION), (EXPR, True))"
                )
            branches.append((self.value(a.elts[0]), self.condition(a.elts[1])))
        if branches[-1][1] is not sp.true:
            raise SymdelayInputError(
                "Piecewise: the last branch must be (EXPR, True), so that the rate is defined "
                "on the whole state space"
            )
        return sp.Piecewise(*branches)

    def build(self, node):
        if isinstance(node, ast.Expression):
            return self.build(node.body)
        if isinstance(node, ast.Constant):
            return self.number(node)
        if isinstance(node, ast.Name):
            return self.name(node.id)
        if isinstance(node, ast.UnaryOp):
            operand = self.build(node.operand)
            if isinstance(node.op, ast.USub):
                return -operand
            if isinstance(node.op, ast.UAdd):
                return operand
            if isinstance(node.op, ast.Invert) and self.output:
                return sp.Not(operand)
            if isinstance(node.op, ast.Not) and self.rate and self.in_condition:
                return sp.Not(operand)
            self.fail(type(node.op).__name__)
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, (ast.Add, ast.Sub)):
                terms = [
                    -self.build(t) if isinstance(op, ast.Sub) else self.build(t)
                    for op, t in self.chain(node, (ast.Add, ast.Sub))
                ]
                return sp.Add(*terms)
            if isinstance(node.op, (ast.Mult, ast.Div)):
                out = None
                for op, t in self.chain(node, (ast.Mult, ast.Div)):
                    x = self.build(t)
                    if isinstance(op, ast.Div) and x == 0 and not self.output:
                        self.fail("a division by zero")
                    out = x if out is None else (out / x if isinstance(op, ast.Div) else out * x)
                return out
            if isinstance(node.op, ast.Pow):
                return self.power(self.build(node.left), self.build(node.right))
            if self.output and isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
                parts = [self.build(t) for _, t in self.chain(node, type(node.op))]
                cls = {ast.BitAnd: sp.And, ast.BitOr: sp.Or, ast.BitXor: sp.Xor}[type(node.op)]
                return cls(*parts)
            self.fail(f"the operator {type(node.op).__name__}")
        if isinstance(node, ast.Call):
            self.implicit_product(node)
            if not isinstance(node.func, ast.Name):
                self.fail("attribute access or computed calls")
            fname = node.func.id
            if fname in self.extra and not node.keywords:
                return self.extra[fname](*[self.build(a) for a in node.args])
            if fname not in self.functions:
                self.fail(f"'{fname}'")
            if self.rate and fname in RATE_FUNCTIONS:
                return self.rate_call(fname, node)
            if node.keywords or (not self.output and len(node.args) != 1):
                self.fail(f"'{fname}' with other than one argument")
            return self.functions[fname](*[self.build(a) for a in node.args])
        if self.rate and not self.in_condition and isinstance(node, (ast.Compare, ast.BoolOp)):
            raise SymdelayInputError(
                "a condition (a comparison, and, or) in a rate outside a Piecewise condition: a rate "
                "is a number; "
                "write Piecewise((EXPR, CONDITION), (EXPR, True))"
            )
        if self.rate and isinstance(node, ast.Compare):
            if len(node.ops) != 1:
                self.fail("chained comparisons (write 'a < b and b < c')")
            cls = _COMPARE.get(type(node.ops[0]))
            if not isinstance(node.ops[0], (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
                raise SymdelayInputError(
                    "a Piecewise condition compares with <, <=, > or >= only (an equality "
                    "holds on a set of measure zero): rewrite it"
                )
            left, right = self.value(node.left), self.value(node.comparators[0])
            out = cls(left, right)  # evaluated: a condition between numbers is True/False
            return out
        if isinstance(node, ast.Compare):
            if len(node.ops) != 1:
                self.fail("chained comparisons (write 'a < b' and 'b < c' separately)")
            cls = _COMPARE.get(type(node.ops[0]))
            if cls is None:
                self.fail(f"the comparison {type(node.ops[0]).__name__}")
            left, right = self.build(node.left), self.build(node.comparators[0])
            return cls(left, right, evaluate=False)
        if isinstance(node, ast.BoolOp):
            parts = [self.build(v) for v in node.values]
            return sp.And(*parts) if isinstance(node.op, ast.And) else sp.Or(*parts)
        if isinstance(node, ast.Tuple) and self.output:
            return sp.Tuple(*[self.build(e) for e in node.elts])
        if isinstance(node, ast.Tuple) and self.rate:
            self.fail("a tuple outside Piecewise((EXPR, CONDITION), ...)")
        if isinstance(node, ast.Attribute):
            self.fail("attribute access")
        self.fail(f"'{type(node).__name__}'")


#: Tokens that end a sum (lower precedence than binary + and -).
_SEPARATORS = {"<", ">", "<=", ">=", "==", "!=", "&", "|", "^", ",", ":", "and", "or", "not"}
_BLOCK = 64


def _balanced(source: str) -> str:
    """``source`` with long sums regrouped into nested blocks of at most 64 terms.

    ``a - b - c - d`` becomes ``(a - b) + (- c - d)``: the same value, but a shallow tree
    (Python builds a left-nested tree of one level per term and gives up after ~1000).
    """
    toks = [
        t
        for t in tokenize.generate_tokens(io.StringIO(source).readline)
        if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER, tokenize.INDENT)
    ]
    closers = {"(": ")", "[": "]", "{": "}"}

    def render(terms: list[str]) -> str:
        while len(terms) > _BLOCK:
            groups = [terms[i : i + _BLOCK] for i in range(0, len(terms), _BLOCK)]
            terms = ["(" + " ".join(groups[0]) + ")"] + [
                "+ (" + " ".join(g) + ")" for g in groups[1:]
            ]
        return " ".join(terms)

    # frame: (opening token, finished pieces, terms of the current run, current term)
    stack = [("", [], [], [])]
    for tok in toks:
        s = tok.string
        opener, pieces, terms, term = stack[-1]
        if s in closers:
            stack.append((s, [], [], []))
            continue
        if s in (")", "]", "}") and len(stack) > 1:
            stack.pop()
            if term:
                terms.append(" ".join(term))
            inner = " ".join([*pieces, render(terms)])
            stack[-1][3].append(opener + inner + s)
            continue
        if tok.type == tokenize.OP and s in ("+", "-") and term:
            last = term[-1]
            if last[-1:] in (")", "]", "}") or last[:1].isalnum() or last[:1] in "_.":
                terms.append(" ".join(term))
                term.clear()
        if s in _SEPARATORS:
            if term:
                terms.append(" ".join(term))
                term.clear()
            pieces += [render(terms), s]
            terms.clear()
            continue
        term.append(s)
    _, pieces, terms, term = stack[-1]
    if len(stack) > 1:
        return source  # unbalanced: let ast report it
    if term:
        terms.append(" ".join(term))
    return " ".join([*pieces, render(terms)])


def _ast(source: str) -> tuple[ast.Expression, str]:
    """The tree and the text it was parsed from (the regrouped one for long sums)."""
    try:
        return ast.parse(source, mode="eval"), source
    except RecursionError:
        try:
            balanced = _balanced(source)
        except (tokenize.TokenError, SyntaxError):
            raise RecursionError from None
        return ast.parse(balanced, mode="eval"), balanced


def _depth(tree: ast.AST) -> int:
    """Nesting depth of the operations in ``tree`` (iterative: safe on any tree).

    A chain of the same kind of operation (``a + b - c``, ``a * b / c``), which SymPy
    flattens, counts as one level; every other operation, call or comparison as one more.
    """
    family = {ast.Add: 1, ast.Sub: 1, ast.Mult: 2, ast.Div: 2}
    deepest = 0
    stack = [(tree, 0, None)]
    while stack:
        node, depth, parent = stack.pop()
        kind = family.get(type(node.op)) if isinstance(node, ast.BinOp) else None
        operation = (ast.BinOp, ast.UnaryOp, ast.Call, ast.Compare, ast.BoolOp)
        if isinstance(node, operation) and (kind is None or kind != parent):
            depth += 1
        deepest = max(deepest, depth)
        for child in ast.iter_child_nodes(node):
            stack.append((child, depth, kind))
    return deepest


def _parse(
    text: str,
    variables=(),
    any_identifier=False,
    output=False,
    max_length=_MAX_LENGTH,
    canonical=True,
    functions=None,
    rate=False,
    claim=False,
):
    if not isinstance(text, str):
        raise SymdelayInputError(f"expected an expression as text, got {type(text).__name__}")
    if max_length is not None and len(text) > max_length:
        raise SymdelayInputError(f"expression longer than {max_length} characters: shorten it")
    source = text.strip() if output else text.replace("^", "**").strip()
    if not source:
        raise SymdelayInputError("empty expression: give a formula such as 'mu + lam'")
    flat = " ".join(text.split())  # one line, whatever the text holds
    shown = flat if len(flat) <= 80 else flat[:77] + "..."
    try:
        tree, source = _ast(source)
    except SyntaxError as exc:
        raise SymdelayInputError(
            f"cannot parse '{shown}': {exc.msg}; write it in Python syntax, e.g. '4*gamma*lam*theta > (mu-gamma)**2'"
        ) from None
    except (RecursionError, MemoryError):
        raise SymdelayInputError(
            f"cannot parse '{shown}': nested too deeply; simplify the expression"
        ) from None
    if not output and _depth(tree) > _MAX_DEPTH:
        raise SymdelayInputError(
            f"cannot parse '{shown}': operations nested more than {_MAX_DEPTH} levels deep; "
            "simplify the expression"
        )
    names = _allowed_names(variables) if canonical else _only(variables)
    builder = _Builder(names, any_identifier, output, source, functions, rate=rate, claim=claim)
    try:
        return builder.build(tree)
    except SymdelayInputError:
        raise
    except RecursionError:
        raise SymdelayInputError(
            f"cannot parse '{shown}': nested too deeply; simplify the expression"
        ) from None
    except (TypeError, ValueError, ArithmeticError, AttributeError) as exc:
        raise SymdelayInputError(
            f"cannot evaluate '{shown}': {_one_line(exc)}; check the operands of each operator"
        ) from None


def parse_expression(
    text: str,
    variables=(),
    any_identifier: bool = False,
    *,
    canonical: bool = True,
    functions=None,
    claim: bool = False,
) -> sp.Expr:
    """Parse arithmetic text into a SymPy expression (relations allowed too).

    ``variables`` names extra free symbols to accept besides the canonical ones (names, or
    SymPy symbols, which are then used as they are). ``any_identifier=True`` accepts every
    plain identifier as a symbol (not dunder names, not function names; ``pi``, ``E``, ``I``
    are constants); tools with a fixed vocabulary leave it off. ``canonical=False`` accepts
    only ``variables`` (a model file's rates: its states and parameters), and the error
    messages list only those. ``functions`` (``{name: callable}``) adds functions of the
    caller's vocabulary (a model's ``delayed`` and ``dot``), called with the built arguments.
    ``claim=True`` (a claim's relation) also accepts :data:`CLAIM_FUNCTIONS` (``acos``,
    ``asin``, ``atan``).

    Text longer than 20,000 characters, or with operations nested more than 60 levels deep,
    is refused before anything is built.

    >>> parse_expression("K + tau_1", any_identifier=True).free_symbols == set(sp.symbols("K tau_1"))
    True
    >>> parse_expression("exp + 1", any_identifier=True)
    Traceback (most recent call last):
    ...
    symdelay.core.errors.SymdelayInputError: 'exp' is a function: call it as exp(...) or choose another symbol name
    """
    return _parse(
        text,
        variables,
        any_identifier=any_identifier,
        canonical=canonical,
        functions=functions,
        claim=claim,
    )


def parse_rate(text: str, variables, *, functions=None) -> sp.Expr:
    """Parse a model's rate: an expression of exactly ``variables`` (the model's states and
    parameters) with the functions of :data:`ALLOWED_FUNCTIONS` and the piecewise-smooth
    :data:`RATE_FUNCTIONS` -- ``Min``, ``Max`` (two or more arguments), ``Heaviside(x)`` (1/2
    at 0, SymPy's convention) or ``Heaviside(x, H0)``, and ``Piecewise((EXPR, CONDITION),
    ..., (EXPR, True))``, whose conditions compare with ``<, <=, >, >=`` joined by ``and``,
    ``or``, ``not`` (the only place a relation may appear). Nothing is evaluated.

    Parameters
    ----------
    text : str
        The rate as written in a model file.
    variables : sequence of str
        The names the rate may use (its model's states and parameters).
    functions : dict, optional
        The model's own functions (``delayed``, ``dot`` of a model with lags).

    Returns
    -------
    sympy.Expr
        The rate.

    Examples
    --------
    >>> parse_rate("mu*Min(q, c)", ["q", "mu", "c"])
    mu*Min(c, q)
    >>> parse_rate("Piecewise((lam, q < K), (0, True))", ["q", "lam", "K"])
    Piecewise((lam, K > q), (0, True))
    >>> parse_rate("lam*(q < K)", ["q", "lam", "K"])
    Traceback (most recent call last):
    ...
    symdelay.core.errors.SymdelayInputError: a condition (a comparison, and, or) in a rate outside a Piecewise condition: a rate is a number; write Piecewise((EXPR, CONDITION), (EXPR, True))
    """
    return _parse(text, variables, canonical=False, rate=True, functions=functions)


def parse_relational(text: str, variables=(), any_identifier: bool = False) -> sp.Basic:
    """Parse text that must be an inequality (or a conjunction/disjunction of them).

    >>> parse_relational("mu > 0")
    mu > 0
    >>> parse_relational("mu + 1")
    Traceback (most recent call last):
    ...
    symdelay.core.errors.SymdelayInputError: 'mu + 1' is not an inequality: write a claim such as 'lam*theta < mu'
    """
    expr = _parse(text, variables, any_identifier=any_identifier)
    if not isinstance(expr, (sp.Rel, sp.And, sp.Or)) or isinstance(expr, sp.Eq):
        raise SymdelayInputError(
            f"'{text}' is not an inequality: write a claim such as 'lam*theta < mu'"
        )
    return expr


def parse_output(text: str, symbols: Mapping[str, sp.Basic] | None = None) -> sp.Basic:
    """A string symdelay printed (JSON, text output) back as the SymPy object.

    The canonical names are the plain canonical symbols (``gamma`` is not the Gamma function,
    ``lam`` not a lambda); every other name is a plain symbol of that name; ``pi``, ``E``,
    ``I``, ``oo`` are SymPy's constants. Relations stay unevaluated as printed (``3 > 0``),
    ``&``/``|``/``~`` are ``And``/``Or``/``Not``, ``a, b`` is a ``Tuple``; decimals are
    Floats of the printed digits. The text is parsed with the same AST whitelist as user
    input (nothing is evaluated), without a length limit.

    Parameters
    ----------
    text : str
        The printed formula (a ``--json`` value, a line of text output).
    symbols : mapping of str to sympy.Basic, optional
        Further names and the objects they stand for (e.g. ``{"epsilon":
        symdelay.analysis.routh.EPSILON}`` for the Routh table's epsilon); they take
        precedence over the canonical names.

    Returns
    -------
    sympy.Basic
        The expression, relation or tuple the text denotes.

    Examples
    --------
    >>> from symdelay.core.symbols import gamma, lam, theta, mu
    >>> parse_output("gamma**3*lam*theta + (gamma + r)**3*(mu + r)").coeff(lam)
    gamma**3*theta
    >>> parse_output("2*(gamma + mu)**2/gamma") == 2 * (gamma + mu) ** 2 / gamma
    True
    """
    names = dict(SYMBOLS)
    if symbols:
        names.update(symbols)
    return _parse(text, names, output=True, max_length=None)
