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
symdelay.errors.SymdelayInputError: cannot use '__import__' in an expression: only the names r, mu, lam, theta, gamma, D, L, eta and the functions exp, log, sqrt, tanh, sin, cos, Abs are allowed
"""

from __future__ import annotations

import ast
from fractions import Fraction

import sympy as sp

from .errors import SymdelayInputError
from .symbols import SYMBOLS

__all__ = ["parse_expression", "parse_relational", "ALLOWED_FUNCTIONS"]

ALLOWED_FUNCTIONS = {
    "exp": sp.exp,
    "log": sp.log,
    "sqrt": sp.sqrt,
    "tanh": sp.tanh,
    "sin": sp.sin,
    "cos": sp.cos,
    "Abs": sp.Abs,
}
_MAX_LENGTH = 20_000
_MAX_POWER = 10_000

_BINOPS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
}
_COMPARE = {
    ast.Lt: sp.StrictLessThan,
    ast.LtE: sp.LessThan,
    ast.Gt: sp.StrictGreaterThan,
    ast.GtE: sp.GreaterThan,
    ast.Eq: sp.Eq,
    ast.NotEq: sp.Ne,
}


def _allowed_names(variables) -> dict[str, sp.Symbol]:
    names = dict(SYMBOLS)
    for v in variables:
        names.setdefault(v, sp.Symbol(v))
    return names


def _help(names) -> str:
    return (
        "only the names "
        + ", ".join(names)
        + " and the functions "
        + ", ".join(ALLOWED_FUNCTIONS)
        + " are allowed"
    )


class _Builder:
    def __init__(self, names: dict[str, sp.Symbol]):
        self.names = names

    def fail(self, what: str):
        raise SymdelayInputError(f"cannot use {what} in an expression: {_help(self.names)}")

    def build(self, node):
        if isinstance(node, ast.Expression):
            return self.build(node.body)
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                self.fail(repr(value))
            if isinstance(value, float):
                if value != value or value in (float("inf"), float("-inf")):
                    self.fail("a non-finite number")
                # exact: the decimal the user typed, not the binary float
                return sp.Rational(str(Fraction(repr(value))))
            return sp.Integer(value)
        if isinstance(node, ast.Name):
            if node.id not in self.names:
                raise SymdelayInputError(f"unknown symbol '{node.id}': use {_help(self.names)}")
            return self.names[node.id]
        if isinstance(node, ast.UnaryOp):
            operand = self.build(node.operand)
            if isinstance(node.op, ast.USub):
                return -operand
            if isinstance(node.op, ast.UAdd):
                return operand
            self.fail(type(node.op).__name__)
        if isinstance(node, ast.BinOp):
            left, right = self.build(node.left), self.build(node.right)
            if isinstance(node.op, ast.Pow):
                if right.is_number and abs(right) > _MAX_POWER:
                    self.fail(f"a power above {_MAX_POWER}")
                return left**right
            op = _BINOPS.get(type(node.op))
            if op is None:
                self.fail(f"the operator {type(node.op).__name__}")
            return op(left, right)
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name):
                self.fail("attribute access or computed calls")
            fname = node.func.id
            if fname not in ALLOWED_FUNCTIONS:
                self.fail(f"'{fname}'")
            if node.keywords or len(node.args) != 1:
                self.fail(f"'{fname}' with other than one argument")
            return ALLOWED_FUNCTIONS[fname](self.build(node.args[0]))
        if isinstance(node, ast.Compare):
            if len(node.ops) != 1:
                self.fail("chained comparisons (write 'a < b' and 'b < c' separately)")
            cls = _COMPARE.get(type(node.ops[0]))
            left, right = self.build(node.left), self.build(node.comparators[0])
            return cls(left, right, evaluate=False)
        if isinstance(node, ast.BoolOp):
            parts = [self.build(v) for v in node.values]
            return sp.And(*parts) if isinstance(node.op, ast.And) else sp.Or(*parts)
        if isinstance(node, ast.Attribute):
            self.fail("attribute access")
        self.fail(f"'{type(node).__name__}'")


def _parse(text: str, variables=()):
    if not isinstance(text, str):
        raise SymdelayInputError(f"expected an expression as text, got {type(text).__name__}")
    if len(text) > _MAX_LENGTH:
        raise SymdelayInputError(f"expression longer than {_MAX_LENGTH} characters: shorten it")
    source = text.replace("^", "**").strip()
    if not source:
        raise SymdelayInputError("empty expression: give a formula such as 'mu + lam'")
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError as exc:
        raise SymdelayInputError(
            f"cannot parse '{text}': {exc.msg}; write it in Python syntax, e.g. '4*gamma*lam*theta > (mu-gamma)**2'"
        ) from None
    return _Builder(_allowed_names(variables)).build(tree)


def parse_expression(text: str, variables=()) -> sp.Expr:
    """Parse arithmetic text into a SymPy expression (relations allowed too).

    ``variables`` names extra free symbols to accept besides the canonical ones.
    """
    return _parse(text, variables)


def parse_relational(text: str, variables=()) -> sp.Basic:
    """Parse text that must be an inequality (or a conjunction/disjunction of them).

    >>> parse_relational("mu > 0")
    mu > 0
    >>> parse_relational("mu + 1")
    Traceback (most recent call last):
    ...
    symdelay.errors.SymdelayInputError: 'mu + 1' is not an inequality: write a claim such as 'lam*theta < mu'
    """
    expr = _parse(text, variables)
    if not isinstance(expr, (sp.Rel, sp.And, sp.Or)) or isinstance(expr, sp.Eq):
        raise SymdelayInputError(
            f"'{text}' is not an inequality: write a claim such as 'lam*theta < mu'"
        )
    return expr
