"""The step-by-step derivation of any model, as LaTeX (printing only: no mathematics here).

Every formula is printed from the object the model layer computed and checked: transition
table, drift, equilibrium, Jacobian, modes, factors, Routh–Hurwitz conditions.
"""

from __future__ import annotations

from symdelay.core.latex import (
    Equation,
    display,
    document,
    escape,
    kernel_name,
    lag_printing,
    tex,
)
from symdelay.core.lazy import sympy as sp
from symdelay.model.core import has_lags

__all__ = [
    "model_body",
    "model_document",
    "long_lines",
    "lag_density",
    "lag_law_tex",
    "delay_body",
    "mode_function_tex",
]

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
    lagged = bool(has_lags(model))
    printing = lag_printing(model.lags) if lagged else None
    lines = [
        r"\begin{center}\small",
        r"\begin{tabular}{llll}" if lagged else r"\begin{tabular}{lll}",
        r"transition & change $\nu$ & scaled rate $\beta_\nu(s)$"
        + (r" & in effect" if lagged else "")
        + r" \\ \hline",
    ]
    for t in model.transitions:
        change = ", ".join(
            f"${tex(s, names)} {'+' if c > 0 else '-'}= {abs(c)}$"
            for s, c in zip(model.states, t.change)
            if c
        )
        rate = t.rate if len(str(t.rate)) < 60 else sp.Symbol(r"\text{(see the drift)}")
        row = f"{_name(t.name)} & {change} & ${tex(rate, names, lags=printing)}$"
        if lagged:
            row += f" & {_in_effect(model, t.lag)}"
        lines.append(row + " \\\\")
    lines += [r"\end{tabular}", r"\end{center}"]
    return "\n".join(lines) + "\n"


def _lag_tex(name: str) -> str:
    return rf"\mathrm{{{escape(name)}}}"


def _in_effect(model, lag) -> str:
    """When a transition's jump happens: at once, or after its (action) lag."""
    if not lag:
        return "$t$"
    law = model.lags[lag]
    if law.kind == "constant":
        return f"$t + {tex(law.args['value'], model.latex_names)}$ (lag {escape(lag)})"
    return f"$t + X_{{{_lag_tex(lag)}}}$, $X_{{{_lag_tex(lag)}}} \\sim {kernel_name(lag)}$"


_U = None


def _u():
    global _U
    if _U is None:
        _U = sp.Symbol("u", nonnegative=True)
    return _U


def lag_density(lag):
    """The density ``k(u)`` of a lag's law on its support, as a SymPy expression in
    ``u >= 0`` (:func:`_u`): uniform, gamma and exponential lags; ``None`` for the others
    (a point mass, a mixture of laws, a phase-type law are stated in words)."""
    u, a = _u(), lag.args
    if lag.kind == "uniform":
        return 1 / (a["high"] - a["low"])
    if lag.kind == "gamma":
        k, m = a["shape"], a["mean"]
        return (k / m) ** k * u ** (k - 1) * sp.exp(-k * u / m) / sp.gamma(k)
    if lag.kind == "exponential":
        return sp.exp(-u / a["mean"]) / a["mean"]
    return None


def lag_law_tex(lag, names=None) -> str:
    """One sentence (LaTeX) stating a lag's law: its kernel ``k``, mean and Laplace
    transform ``K(r) = E[exp(-r X)]`` (:meth:`~symdelay.model.lags.Lag.laplace`)."""
    name, a = lag.name, lag.args
    k = kernel_name(name)
    if lag.kind == "constant":
        law = (
            f"constant: $X_{{{_lag_tex(name)}}} = {tex(a['value'], names)}$ "
            f"(the point mass ${k} = \\delta_{{{tex(a['value'], names)}}}$)"
        )
    elif lag.kind == "mixture":
        terms = []
        for w, m in zip(a["weights"], a["lags"]):
            wt = tex(w, names)
            if isinstance(w, sp.Add):
                wt = rf"\left({wt}\right)"
            terms.append(f"{wt}\\, {kernel_name(m.name)}")
        law = f"a mixture: ${k} = " + " + ".join(terms) + "$"
    elif lag.kind == "phase_type":
        law = (
            f"phase-type: ${k}(u) = \\alpha e^{{S u}} s$, $s = -S\\mathbf 1$, with "
            f"$\\alpha = {tex(sp.Matrix([list(a['alpha'])]), names)}$ and "
            f"$S = {tex(a['S'], names)}$"
        )
    else:
        u = _u()
        dens = tex(lag_density(lag), names)
        support = (
            f"{tex(a['low'], names)} \\le u \\le {tex(a['high'], names)}"
            if lag.kind == "uniform"
            else "u > 0"
        )
        kind = {"uniform": "uniform", "gamma": "gamma", "exponential": "exponential"}[lag.kind]
        law = f"{kind}: ${k}({tex(u)}) = {dens}$ for ${support}$"
    return (
        f"${_lag_tex(name)}$ is {law}; mean ${tex(lag.mean(), names)}$, Laplace transform "
        f"$\\hat K_{{{_lag_tex(name)}}}(r) = {tex(lag.laplace(), names)}$"
    )


def mode_function_tex(mode_name: str, function, names=None) -> str:
    r"""``\chi_{\mathrm{mode}}(r) = F(r)``: a mode's characteristic function with its name."""
    return rf"\chi_{{\mathrm{{{escape(mode_name)}}}}}(r) = {tex(function, names)}"


def _matrix_name(k: int, term) -> str:
    lags = ",".join(escape(x) for x in term.lags)
    return rf"M_{{{k}}}^{{(\mathrm{{{lags}}})}}"


def _model_section(model, transitions: str) -> list:
    """The section "The model": description, parameters, values, the jump process (its
    sentence ended by ``transitions``) and the table of transitions."""
    names = model.latex_names
    out = ["\\section{The model}\n"]
    if model.description:
        out.append(escape(model.description) + "\n\n")
    params = ", ".join(f"${tex(p, names)}$ ({d})" for p, d in model.domains.items())
    out.append(f"Parameters: {params}.\n")
    if model.values:
        vals = ", ".join(f"${tex(p, names)} = {tex(v)}$" for p, v in model.values.items())
        out.append(f"Values: {vals}.\n")
    out.append(
        "The jump process $X$ jumps by $\\nu$ at rate $\\eta\\,\\beta_\\nu(X/\\eta)$; "
        + transitions
    )
    out.append(_rows(model))
    return out


def delay_body(model) -> str:
    """The sections of the derivation of a model with lags: lags, delay equations,
    equilibrium (with the mass in transit), linearisation, the characteristic matrix, each
    mode's characteristic function, and the verdict at numbers."""
    names = model.latex_names
    out = _model_section(
        model,
        "a rate may read the state through a lag, and a transition with an action lag is "
        "decided at rate $\\beta_\\nu$ at $t$ and its jump takes effect at $t$ plus the "
        "lag. Its transitions are\n",
    )
    out.append("\\section{Lags}\n\\begin{itemize}\n")
    for lag in model.lags.values():
        law = lag.xreplace(dict(model.values)) if model.values else lag
        out.append(f"\\item {lag_law_tex(law, names)}.\n")
    out.append("\\end{itemize}\n")
    out.append(
        "A constant lag $\\tau$ shows a state as it was: $x(t - \\tau)$. A distributed "
        "lag with kernel $k$ shows the average $(k * x)(t) = \\int_0^\\infty k(u)\\, "
        "x(t - u)\\, du$; $\\dot x$ is the derivative of the state $x$.\n"
    )
    out.append("\\section{Fluid limit: the delay equations}\n")
    action = [t for t in model.transitions if t.lag]
    if action:
        out.append(
            "A jump decided at time $t - u$ takes effect at $t$, so an action-delayed "
            "transition's rate enters the equations seen through its lag ("
            + ", ".join(escape(t.name) for t in action)
            + ").\n"
        )
    out.append("\\begin{align*}\n")
    printing = lag_printing(model.lags)
    rows = [
        f"\\dot {{{tex(s, names)}}} &= {tex(f, names, lags=printing, states=model.states)}"
        for s, f in zip(model.states, model.delay_equations)
    ]
    out.append(" \\\\\n".join(rows) + "\n\\end{align*}\n")
    eq = model.equilibrium
    out.append("\\section{Equilibrium}\n")
    out.append(
        "At an equilibrium every lagged quantity equals its present value and every "
        "$\\dot x$ vanishes; the equilibria are the zeros of the drift with every lag "
        "collapsed. "
    )
    how = (
        f"Solved by SymPy ({escape(eq.method)}) and substituted back, it vanishes:"
        if eq.exact
        else "No closed form; found numerically and proved by an interval Newton (Krawczyk) "
        f"test to within ${tex(sp.Float(eq.radius, 3))}$ in every coordinate:"
    )
    out.append(how + "\n\\begin{align*}\n")
    out.append(
        " \\\\\n".join(
            f"{tex(s, names)} &= {tex(_short(v, eq.exact), names)}" for s, v in eq.point.items()
        )
        + "\n\\end{align*}\n"
    )
    transit = model.in_transit()
    if transit:
        from symdelay.core.parsing import parse_expression

        symbols = {p.name: p for p in model.parameters}
        items = [
            f"{escape(k)}: ${tex(parse_expression(v, variables=symbols, canonical=False), names)}$"
            for k, v in transit.items()
        ]
        out.append(
            "Decided and not yet in effect (rate times mean lag, Little's law): "
            + "; ".join(items)
            + ".\n"
        )
    lin = model.linearisation
    out.append("\\section{Linearisation and the characteristic matrix}\n")
    out.append(
        "Perturbing $s = s^* + x$, the equations are linear in the present state and in "
        "each lagged one; in Laplace variables $\\Delta(r)\\,\\hat x = 0$ with\n"
    )
    terms = []
    for k, t in enumerate(lin.terms, 1):
        kern = " ".join(rf"\hat K_{{{_lag_tex(x)}}}(r)" for x in t.lags)
        r_factor = "r\\, " if t.derivative else ""
        terms.append(f"{r_factor}{_matrix_name(k, t)}\\, {kern}")
    out.append(
        "\\begin{equation*}\n\\Delta(r) = rI - A_0"
        + "".join(f" - {x}" for x in terms)
        + "\n\\end{equation*}\n"
    )
    out.append(
        "where $A_0$ is the Jacobian in the present state"
        + (
            ", $M_k$ the Jacobian in the state seen through the lags named"
            + (
                " (a factor $r$: the derivative $\\dot x$ is read through the lag)"
                if lin.neutral
                else ""
            )
            if lin.terms
            else ""
        )
        + ":\n"
    )
    out.append(display(Equation(sp.Symbol("A_0"), _short(lin.A0, eq.exact)), names))
    for k, t in enumerate(lin.terms, 1):
        out.append(
            display(Equation(sp.Symbol(_matrix_name(k, t)), _short(t.matrix, eq.exact)), names)
        )
    out.append("The characteristic matrix is\n")
    out.append(
        display(
            Equation(sp.Symbol(r"\Delta(r)"), _short(model.characteristic_matrix, eq.exact)), names
        )
    )
    out.append("\\section{Modes and their characteristic functions}\n")
    if model.permutation is not None:
        out.append(
            "The declared symmetry permutes the states and commutes with $\\Delta(r)$, so "
            "each eigenspace of the permutation is invariant; $\\det \\Delta(r)$ is the "
            "product of the modes' characteristic functions, whose roots are the "
            "eigenvalues of the linearised delay equation:\n"
        )
    else:
        out.append("No symmetry is declared; the characteristic function is\n")
    out.append("\\begin{align*}\n")
    rows = [
        f"{mode_function_tex(f.mode, _short(f.factor, eq.exact), names)}"
        + (f"\\quad (\\times {f.multiplicity})" if f.multiplicity > 1 else "")
        for f in model.characteristic_factors
    ]
    out.append(" \\\\\n".join(f"&{row}" for row in rows) + "\n\\end{align*}\n")
    if lin.neutral:
        out.append(
            "The equation is neutral (a derivative is read through a lag): its roots "
            "are confined to a left half plane only when the difference operator "
            "is stable (the coefficient of $r$ times the lag's transform has modulus "
            "below 1).\n"
        )
    out.append("\\section{Stability}\n")
    from symdelay.analysis.stability import stability
    from symdelay.core.errors import SymdelayInputError

    try:
        stab = stability(model)
    except SymdelayInputError as exc:
        out.append(
            "A delay model's verdict is the certified count of roots with $\\mathrm{Re}\\, r > 0$ "
            f"at numbers ({escape(str(exc))}).\n"
        )
        return "".join(out)
    if stab.verdict is None:  # a family's closed forms with parameters free: the conditions
        conds = ", ".join(f"${tex(c)}$" for c in stab.conditions) or "none"
        out.append(f"Stable exactly when (the family's closed forms): {conds}.\n")
        return "".join(out)
    out.append(f"Verdict: {escape(stab.verdict_text())}. Counted by {escape(stab.decided_by)}.\n")
    return "".join(out)


def model_body(model) -> str:
    """The sections of the derivation (for a document or a report)."""
    if has_lags(model):
        return delay_body(model)
    names = model.latex_names
    out = _model_section(model, "its transitions are\n")
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
    r"""The time derivative of a state printed ``name``: the dot on the letter, not on its
    subscript (``x_{1,1}`` -> ``\dot{x}_{1,1}``).

    >>> dotted("x_{1,1}"), dotted("q"), dotted("\\lambda_{2}")
    ('\\dot{x}_{1,1}', '\\dot{q}', '\\dot{\\lambda}_{2}')
    """
    base, sep, sub = name.partition("_")
    return f"\\dot{{{base}}}{sep}{sub}"


def model_document(model) -> str:
    """A standalone LaTeX document deriving ``model``'s stability."""
    return document(f"Derivation: {escape(model.name)}", model_body(model))
