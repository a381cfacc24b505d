"""Display once, on a base class: every result that has a formula shows it in a notebook.

A class defines :meth:`LatexDisplay.latex` (the LaTeX of its mathematics, without ``$``);
the mixin gives ``_repr_latex_`` for Jupyter, printed with symdelay's names.

>>> import sympy as sp
>>> class Show(LatexDisplay):
...     def latex(self):
...         return tex(sp.Symbol("lam") * sp.Symbol("theta"))
>>> Show()._repr_latex_()
'$\\\\displaystyle \\\\lambda \\\\theta$'
"""

from __future__ import annotations

__all__ = [
    "LatexDisplay",
    "ReadOnlyDict",
    "tex",
    "latex_text",
    "latex_number",
    "latex_array",
    "display_latex",
    "html_table",
    "plotter",
    "draw",
]


def tex(*args, **kwargs) -> str:
    """:func:`symdelay.core.latex.tex`, imported when called (analysis modules import
    this module; they must not load the LaTeX code with it)."""
    from symdelay.core.latex import tex as _tex

    return _tex(*args, **kwargs)


_TEXT_ESCAPES = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "_": r"\_",
    "&": r"\&",
    "%": r"\%",
    "#": r"\#",
    "$": r"\$",
    "^": r"\^{}",
    "~": r"\~{}",
}


def latex_text(text) -> str:
    """``\\text{...}`` of plain words, LaTeX's special characters escaped.

    >>> print(latex_text("a_1 & 50%"))
    \\text{a\\_1 \\& 50\\%}
    """
    return r"\text{" + "".join(_TEXT_ESCAPES.get(c, c) for c in str(text)) + "}"


def latex_number(text) -> str:
    """A decimal symdelay printed (``"1.5e-7"``, ``"inf"``, ``None``) as LaTeX.

    >>> print(latex_number("-1.25e-7"), latex_number("inf"), latex_number(None))
    -1.25 \\cdot 10^{-7} \\infty -
    """
    if text is None:
        return "-"
    s = str(text).strip()
    if s in ("inf", "+inf", "oo"):
        return r"\infty"
    if s in ("-inf", "-oo"):
        return r"-\infty"
    if s == "nan":
        return r"\text{nan}"
    mant, sep, exp = s.partition("e")
    if sep and exp.lstrip("+-").isdigit():
        return rf"{mant} \cdot 10^{{{int(exp)}}}"
    return s


def latex_array(headers, rows, caption: str = "") -> str:
    """A LaTeX ``array``: ``headers`` and ``rows`` already LaTeX; ``caption`` plain text."""
    cols = "c" * len(headers)
    body = r" \\ ".join(" & ".join(str(c) for c in row) for row in rows)
    head = " & ".join(headers)
    table = rf"\begin{{array}}{{{cols}}} {head} \\ \hline {body} \end{{array}}"
    return (latex_text(caption) + r" \\ " + table) if caption else table


def display_latex(*lines: str) -> str:
    """``_repr_latex_`` text: the ``lines`` (LaTeX) one under another, in display math."""
    body = (
        lines[0]
        if len(lines) == 1
        else (r"\begin{gathered}" + r" \\ ".join(lines) + r"\end{gathered}")
    )
    return f"$\\displaystyle {body}$"


class ReadOnlyDict(dict):
    """A ``dict`` that refuses every change: what a model or a result hands out (an
    equilibrium point, parameter values) cannot alter what it has cached.

    It reads, prints, pickles and compares as a ``dict``; ``dict(d)`` or ``d.copy()`` is a
    plain copy to change.

    >>> d = ReadOnlyDict({"q1": 1})
    >>> d["q1"] = 5
    Traceback (most recent call last):
    ...
    TypeError: this mapping is read-only (a model's or a result's own): change a copy, dict(...)
    >>> d, d.copy() == {"q1": 1}
    ({'q1': 1}, True)
    """

    __slots__ = ()

    def _refuse(self, *args, **kwargs):
        raise TypeError(
            "this mapping is read-only (a model's or a result's own): change a copy, dict(...)"
        )

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def copy(self) -> dict:
        return dict(self)

    def __reduce__(self):
        return (type(self), (dict(self),))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        import copy

        return type(self)(copy.deepcopy(dict(self), memo))


class LatexDisplay:
    """Mixin: ``_repr_latex_`` from ``latex()`` (None for a class without one: Jupyter then
    shows the next representation)."""

    def latex(self) -> str:
        raise NotImplementedError

    def _repr_latex_(self) -> str | None:
        try:
            body = self.latex()
        except NotImplementedError:
            return None
        return f"$\\displaystyle {body}$"


def html_table(header, rows, caption: str | None = None) -> str:
    """A small HTML table (cells are escaped text).

    >>> html_table(["D", "theta_c"], [["1", "9"]])
    '<table><thead><tr><th>D</th><th>theta_c</th></tr></thead><tbody><tr><td>1</td><td>9</td></tr></tbody></table>'
    """
    import html

    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows
    )
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    return f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


#: figure functions by result class, registered from the outputs side
#: (:mod:`symdelay.outputs.figures`), so that no analysis module imports matplotlib.
_PLOTTERS: dict[type, object] = {}

#: the module whose import registers every figure function
FIGURES_MODULE = "symdelay.outputs.figures"


def plotter(cls):
    """Register the decorated function as the figure of ``cls`` (used by outputs modules)."""

    def register(func):
        _PLOTTERS[cls] = func
        return func

    return register


def draw(result, *args, **kwargs):
    """The figure of ``result`` (its class's registered plotter, or a base class's)."""
    import importlib

    figures = importlib.import_module(FIGURES_MODULE)
    for cls in type(result).__mro__:
        if cls in _PLOTTERS:
            figures.show_in_notebooks()
            return _PLOTTERS[cls](result, *args, **kwargs)
    raise TypeError(f"no figure is registered for {type(result).__name__}")
