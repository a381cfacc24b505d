"""The step-by-step derivation of any model, as LaTeX (printing only: no mathematics here).

Every formula is printed from the object the model layer computed and checked: transition
table, drift, equilibrium, Jacobian, modes, factors, Routh–Hurwitz conditions.
"""

from __future__ import annotations

from symdelay.core.latex import Equation, display, document, escape, tex
from symdelay.core.lazy import sympy as sp

__all__ = ["model_body", "model_document", "long_lines"]

#: Terms per printed line when a sum is too long for one.
TERMS_PER_LINE = 4


def long_lines(expr, names=None, terms: int = TERMS_PER_LINE) -> str:
    """LaTeX of a sum (or ``sum > 0``) broken into lines of ``terms`` terms, for ``align*``.

    Lines are joined by ``\\\\`` and continuation lines start with ``&\\quad``.
    """
    rel = ""
    if isinstance(expr, sp.Rel):
        rel = f" {sp.latex(type(expr)(sp.Symbol('a'), sp.Symbol('b'))).split(' ')[1]} {tex(expr.rhs, names)}"
        expr = expr.lhs
    if not isinstance(expr, sp.Add) or len(expr.args) <= terms:
        return tex(expr, names) + rel
    args = list(sp.Add.make_args(expr))
    chunks = [args[i : i + terms] for i in range(0, len(args), terms)]
    lines = []
    for k, chunk in enumerate(chunks):
        body = tex(sp.Add(*chunk, evaluate=False), names, order="none")
        if k and not body.startswith("-"):
            body = "+ " + body
        lines.append(body)
    return " \\\\\n&\\quad ".join(lines) + rel


def _name(text: str) -> str:
    return escape(text).replace("-\\textgreater{}", "$\\to$").replace("->", "$\\to$")


def _short(e, exact: bool):
    """Numbers of a numeric (proved) equilibrium printed to 10 digits."""
    return e if exact else e.evalf(10)


def _rows(model) -> str:
    names = model.latex_names
    lines = [
        r"\begin{center}\small",
        r"\begin{tabular}{lll}",
        r"transition & change $\nu$ & scaled rate $\beta_\nu(s)$ \\ \hline",
    ]
    for t in model.transitions:
        change = ", ".join(
            f"${tex(s, names)} {'+' if c > 0 else '-'}= {abs(c)}$"
            for s, c in zip(model.states, t.change)
            if c
        )
        rate = t.rate if len(str(t.rate)) < 60 else sp.Symbol(r"\text{(see the drift)}")
        lines.append(f"{_name(t.name)} & {change} & ${tex(rate, names)}$ \\\\")
    lines += [r"\end{tabular}", r"\end{center}"]
    return "\n".join(lines) + "\n"


def model_body(model) -> str:
    """The sections of the derivation (for a document or a report)."""
    names = model.latex_names
    out = []
    out.append("\\section{The model}\n")
    if model.description:
        out.append(escape(model.description) + "\n\n")
    params = ", ".join(f"${tex(p, names)}$ ({d})" for p, d in model.domains.items())
    out.append(f"Parameters: {params}.\n")
    if model.values:
        vals = ", ".join(f"${tex(p, names)} = {tex(v)}$" for p, v in model.values.items())
        out.append(f"Values: {vals}.\n")
    out.append(
        "The jump process $X$ jumps by $\\nu$ at rate $\\eta\\,\\beta_\\nu(X/\\eta)$; its "
        "transitions are\n"
    )
    out.append(_rows(model))
    out.append("\\section{Fluid limit}\n")
    out.append("The drift $F(s) = \\sum_\\nu \\nu\\,\\beta_\\nu(s)$ gives the fluid ODEs\n")
    out.append("\\begin{align*}\n")
    rows = [
        f"{dotted(tex(s, names))} &= {tex(f, names)}" for s, f in zip(model.states, model.drift)
    ]
    out.append(" \\\\\n".join(rows) + "\n\\end{align*}\n")
    eq = model.equilibrium
    out.append("\\section{Equilibrium}\n")
    how = (
        f"Solved by SymPy ({escape(eq.method)}) and substituted back into the drift, which "
        "vanishes:"
        if eq.exact
        else f"No closed form; found numerically and proved by an interval Newton (Krawczyk) "
        f"test to within ${tex(sp.Float(eq.radius, 3))}$ in every coordinate:"
    )
    out.append(how + "\n\\begin{align*}\n")
    out.append(
        " \\\\\n".join(
            f"{tex(s, names)} &= {tex(_short(v, eq.exact), names)}" for s, v in eq.point.items()
        )
        + "\n\\end{align*}\n"
    )
    out.append("\\section{Linearisation}\n")
    out.append("The Jacobian of the drift at the equilibrium is\n")
    out.append(display(Equation(sp.Symbol("J"), _short(model.jacobian, eq.exact)), names))
    out.append("\\section{Modes and the characteristic polynomial}\n")
    if model.permutation is not None:
        out.append(
            "The declared symmetry permutes the states; the Jacobian commutes with it, so each "
            "eigenspace of the permutation is invariant. SymPy checked $J V = V B$ for the basis "
            "$V$ of every mode; the characteristic polynomial $\\det(rI - J)$ factors as\n"
        )
    else:
        out.append("No symmetry is declared; $\\det(rI - J)$ factors as\n")
    out.append("\\begin{align*}\n")
    rows = [
        f"&{long_lines(_short(f.factor, eq.exact), names)}"
        + (f"\\quad (\\times {f.multiplicity})" if f.multiplicity > 1 else "")
        + f" && \\text{{{escape(f.mode)}}}"
        for f in model.factors
    ]
    out.append(" \\\\\n".join(rows) + "\n\\end{align*}\n")
    out.append("\\section{Stability}\n")
    from symdelay.analysis.stability import stability

    stab = stability(model, method="generic")
    if stab.conditions:
        out.append(
            "By Routh--Hurwitz (Li\\'enard--Chipart) on every factor, the equilibrium is "
            "locally asymptotically stable if and only if\n\\begin{align*}\n"
        )
        out.append(
            " \\\\\n".join(f"&{long_lines(c, names)}" for c in stab.conditions)
            + "\n\\end{align*}\n"
        )
    out.append(f"Verdict: {escape(stab.verdict_text())}.\n")
    return "".join(out)


def dotted(name: str) -> str:
    """The time derivative of a state printed ``name``: the dot on the letter, not on its
    subscript (``x_{1,1}`` -> ``\\dot{x}_{1,1}``).

    >>> dotted("x_{1,1}"), dotted("q"), dotted("\\lambda_{2}")
    ('\\\\dot{x}_{1,1}', '\\\\dot{q}', '\\\\dot{\\\\lambda}_{2}')
    """
    base, sep, sub = name.partition("_")
    return f"\\dot{{{base}}}{sep}{sub}"


def model_document(model) -> str:
    """A standalone LaTeX document deriving ``model``'s stability."""
    return document(f"Derivation: {escape(model.name)}", model_body(model))
