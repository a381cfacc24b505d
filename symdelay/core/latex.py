"""Printing SymPy objects as LaTeX with symdelay's names (``lam`` -> ``\\lambda``).

>>> import sympy as sp
>>> from symdelay.core.symbols import lam, theta, mu
>>> tex(lam * theta + mu)
'\\\\lambda \\\\theta + \\\\mu'
"""

from __future__ import annotations

import re

from symdelay.core.errors import VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.symbols import LATEX_NAMES

__all__ = [
    "tex",
    "display",
    "Equation",
    "escape",
    "document",
    "PREAMBLE",
    "relations_tex",
    "lag_printing",
    "kernel_name",
]


class Equation:
    """``lhs = rhs`` for display only: never evaluated, so never ``True``/``False``.

    ``sp.Eq(Symbol("J"), Matrix(...))`` evaluates to ``False`` in SymPy >= 1.14 (a symbol
    is not a matrix), and ``sp.Eq(a, a)`` to ``True``; an :class:`Equation` just holds the
    two sides and the relation symbol.

    >>> from symdelay.core.symbols import mu
    >>> tex(Equation(sp.Symbol("J"), sp.Matrix([[mu]]))).startswith("J = ")
    True
    >>> sp.Eq(sp.Symbol("J"), sp.Matrix([[mu]]))
    False
    """

    __slots__ = ("lhs", "rel", "rhs")

    def __init__(self, lhs, rhs, rel: str = "="):
        self.lhs, self.rhs, self.rel = lhs, rhs, rel

    def __repr__(self) -> str:
        return f"Equation({self.lhs!r}, {self.rhs!r})"


def tex(expr, names: dict | None = None, *, lags: dict | None = None, states=(), **settings) -> str:
    r"""LaTeX of a SymPy object with symdelay's names: ``lam`` is ``\lambda``, ``theta`` is
    ``\theta`` (plain ``sympy.latex`` would print ``lam \theta``).

    A bare ``True``/``False`` (an equation SymPy evaluated away) is refused: it would print
    ``\text{True}`` where a formula belongs. Use :class:`Equation` for ``lhs = rhs``.

    Parameters
    ----------
    expr : sympy.Basic or Equation
        The expression, relation, matrix or :class:`Equation` to print.
    names : dict, optional
        ``{symbol: LaTeX}`` for further symbols (a model's own parameters), on top of the
        canonical names.
    lags : dict, optional
        ``{lag name: value}`` (:func:`lag_printing`): how ``delayed(E, LAG)`` prints — a
        constant lag's value ``tau`` gives ``E(t - tau)``, ``None`` (a distributed lag) the
        convolution ``(k_LAG * E)(t)`` with the lag's kernel. ``dot(x)`` prints as
        ``\dot x`` in any case.
    states : iterable of sympy.Symbol, optional
        The states: seen through a constant lag each prints as ``x(t - tau)`` (without
        them a compound ``E`` prints as ``(E)(t - tau)``).
    **settings
        Passed to :func:`sympy.latex` (``fold_short_frac=True``, ``mul_symbol="dot"``, ...).

    Returns
    -------
    str
        The LaTeX, without surrounding ``$``.

    Raises
    ------
    VerificationError
        When ``expr`` is a bare ``True`` or ``False``.

    Examples
    --------
    >>> from symdelay.core.symbols import gamma, lam, mu, theta
    >>> tex(lam * theta < 2 * (gamma + mu) ** 2 / gamma)
    '\\lambda \\theta < \\frac{2 \\left(\\gamma + \\mu\\right)^{2}}{\\gamma}'
    >>> delayed, tau, q1, D = sp.Function("delayed"), sp.Symbol("tau"), sp.Symbol("q1"), sp.Symbol("D")
    >>> tex(theta * delayed(q1, tau), lags={"tau": D}, states=[q1])
    '\\theta q_{1}(t - D)'
    >>> tex(theta * delayed(q1, tau), lags={"tau": None})
    '\\theta \\left(k_{\\mathrm{tau}} * q_{1}\\right)(t)'
    """
    symbol_names = dict(LATEX_NAMES)
    if names:
        symbol_names.update(names)
    settings.setdefault("inv_trig_style", "full")  # \arccos, not \operatorname{acos}
    if isinstance(expr, Equation):
        return (
            f"{tex(expr.lhs, names, lags=lags, states=states, **settings)} {expr.rel} "
            f"{tex(expr.rhs, names, lags=lags, states=states, **settings)}"
        )
    if isinstance(expr, sp.logic.boolalg.BooleanAtom):
        raise VerificationError(
            f"a displayed formula evaluated to {expr}: build it with Equation(lhs, rhs)"
        )
    if lags is None and not _has_lag_functions(expr):
        return sp.latex(expr, symbol_names=symbol_names, **settings)
    printer = _delay_printer()(
        dict(settings, symbol_names=symbol_names), dict(lags or {}), frozenset(states)
    )
    return printer.doprint(expr)


def _has_lag_functions(expr) -> bool:
    """``delayed(...)`` or ``dot(...)`` somewhere in ``expr``."""
    if not isinstance(expr, sp.Basic):
        return False
    return any(
        getattr(f.func, "__name__", "") in ("delayed", "dot")
        for f in expr.atoms(sp.core.function.AppliedUndef)
    )


def kernel_name(lag: str) -> str:
    r"""The LaTeX name of the kernel (the law's density) of the lag ``lag``.

    >>> kernel_name("avg")
    'k_{\\mathrm{avg}}'
    """
    return rf"k_{{\mathrm{{{escape(lag)}}}}}"


def lag_printing(lags) -> dict:
    """``{name: value}`` for :func:`tex` from a model's lags (objects with ``kind`` and
    ``args``): a constant lag prints as its value (``q_1(t - D)``), any other kind as a
    kernel convolution (``None``: ``(k * q_1)(t)``)."""
    return {
        name: (lag.args["value"] if lag.kind == "constant" else None)
        for name, lag in dict(lags).items()
    }


_PRINTER = None


def _delay_printer():
    """SymPy's LaTeX printer, taught ``delayed(E, LAG)`` and ``dot(x)`` (built once, on the
    first delay model printed: SymPy is imported lazily)."""
    global _PRINTER
    if _PRINTER is not None:
        return _PRINTER
    from sympy.printing.latex import LatexPrinter

    class DelayLatexPrinter(LatexPrinter):
        """``delayed(E, tau)`` as ``E(t - tau)`` for a constant lag (every state ``x`` of
        ``E`` as ``x(t - tau)`` when the states are known), as the convolution
        ``(k_tau * E)(t)`` for a distributed one; ``dot(x)`` as ``\\dot x``."""

        def __init__(self, settings, lags, states):
            super().__init__(settings)
            self._lags = lags
            self._states = states
            self._shift = []  # the constant lags the current sub-expression is seen through

        def _at(self) -> str:
            if not self._shift:
                return ""
            body = self._print(-sp.Add(*self._shift))  # t - D_1 - D_2, not t - (D_1 + D_2)
            return f"(t {body})" if body.startswith("-") else f"(t + {body})"

        def _print_Symbol(self, expr, style="plain"):
            out = super()._print_Symbol(expr, style)
            if self._shift and expr in self._states:
                return out + self._at()
            return out

        def _print_Function(self, expr, exp=None):
            name = getattr(expr.func, "__name__", "")
            if name == "dot" and len(expr.args) == 1:
                out = _dotted(self, expr)
            elif name == "delayed" and len(expr.args) == 2:
                out = self._delayed(*expr.args)
            else:
                return super()._print_Function(expr, exp)
            return rf"\left({out}\right)^{{{exp}}}" if exp is not None else out

        def _delayed(self, inner, lag) -> str:
            key = str(lag)
            value = self._lags.get(key)
            atomic = isinstance(inner, sp.Symbol) or _is_dot(inner)
            if value is not None and self._states:  # the shift reaches every state
                self._shift.append(value)
                try:
                    body = self._print(inner)
                finally:
                    self._shift.pop()
                closed = atomic or not (inner.is_Add or inner.could_extract_minus_sign())
                return body if closed else rf"\left({body}\right)"
            saved, self._shift = self._shift, []
            try:
                body = self._print(inner)
            finally:
                self._shift = saved
            if not atomic:
                body = rf"\left({body}\right)"
            if value is not None:  # E(t - tau), E printed as it stands
                self._shift.append(value)
                try:
                    return body + self._at()
                finally:
                    self._shift.pop()
            return rf"\left({kernel_name(key)} * {body}\right)" + (self._at() or "(t)")

    _PRINTER = DelayLatexPrinter
    return _PRINTER


def _is_dot(e) -> bool:
    return getattr(getattr(e, "func", None), "__name__", "") == "dot" and len(e.args) == 1


def _dotted(printer, expr) -> str:
    """``\\dot q_{1}`` for ``dot(q1)`` (the dot on the base of a subscripted name), with
    the printer's shift ``(t - tau)`` when seen through a constant lag."""
    x = expr.args[0]
    saved, printer._shift = printer._shift, []
    try:
        body = printer._print(x)
    finally:
        printer._shift = saved
    m = re.fullmatch(r"([A-Za-z]+|\\[A-Za-z]+)(_\{.*\}|_[A-Za-z0-9])?", body)
    out = rf"\dot{{{m[1]}}}{m[2] or ''}" if m else rf"\dot{{{body}}}"
    if printer._shift and x in printer._states:
        out += printer._at()
    return out


def display(expr, names: dict | None = None, label: str | None = None) -> str:
    """A displayed equation (``equation*``, or ``equation`` with a label)."""
    body = tex(expr, names)
    if label:
        return f"\\begin{{equation}}\\label{{{label}}}\n{body}\n\\end{{equation}}\n"
    return f"\\begin{{equation*}}\n{body}\n\\end{{equation*}}\n"


_RELATIONS = {
    ">": sp.StrictGreaterThan,
    ">=": sp.GreaterThan,
    "<": sp.StrictLessThan,
    "<=": sp.LessThan,
}
_RELATION = re.compile(r"\s*([A-Za-z]+)\s*(>=|<=|>|<)\s*(-?\d+)\s*")


def relations_tex(text: str) -> str:
    """``"mu > 0, theta >= 0"`` (a domain as the analysis states it) as LaTeX, each relation a
    SymPy object over the canonical symbols; anything else is a :class:`VerificationError`.

    >>> print(relations_tex("mu > 0, theta >= 0"))
    $\\mu > 0$, $\\theta \\geq 0$
    """
    from symdelay.core import symbols

    out = []
    for item in text.split(","):
        m = _RELATION.fullmatch(item)
        name = m and m[1]
        if not m or name not in symbols.SYMBOLS:
            raise VerificationError(f"not a relation of a model parameter: {item!r}")
        rel = _RELATIONS[m[2]](symbols.SYMBOLS[name], sp.Integer(m[3]))
        out.append(f"${tex(rel)}$")
    return ", ".join(out)


_ESCAPES = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}


def escape(text: str) -> str:
    """Escape plain text for LaTeX.

    >>> escape("a_1 & 50%")
    'a\\\\_1 \\\\& 50\\\\%'
    """
    return "".join(_ESCAPES.get(c, c) for c in text)


PREAMBLE = r"""\documentclass[11pt]{article}
\usepackage[margin=2.5cm]{geometry}
\usepackage{amsmath,amssymb}
\usepackage{graphicx}
\usepackage{booktabs}
\usepackage{longtable}
\allowdisplaybreaks
"""


def document(title: str, body: str, author: str = "generated by symdelay") -> str:
    """A standalone LaTeX document (deterministic: no dates)."""
    return (
        PREAMBLE
        + f"\\title{{{title}}}\n\\author{{{author}}}\n\\date{{}}\n"
        + "\\begin{document}\n\\maketitle\n"
        + body.rstrip("\n")
        + "\n\\end{document}\n"
    )
