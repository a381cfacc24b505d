"""``derivations/delays.tex``: the characteristic functions of the delay models.

Every model is read from its file in ``examples/models/`` (the Erlang action delay is the
constant action delay's file with its lag declared ``gamma``); every formula is printed from
the model's linearisation (:attr:`~symdelay.model.core.Model.characteristic_factors`). The
document checks with SymPy that

* the Erlang(L) action lag's mode function, cleared of its denominator, is the founding
  chain's difference polynomial (L = 1..4), and tends to the constant lag's as L grows;
* the information lag and the constant action lag have the same characteristic matrix (the
  founding paper's headline);
* the crossing of the information lag's difference mode, solved from its characteristic
  function, is Pender, Rand & Wesson's critical delay, and agrees with the certified first
  switch of ``critical(model, "D")`` at several points; the announcement's crossing is
  checked by certified root counts on either side.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from symdelay.core.errors import SymdelayInputError, VerificationError
from symdelay.core.latex import Equation, display, document, escape, lag_printing, tex
from symdelay.core.lazy import sympy as sp
from symdelay.core.symbols import D, lam, mu, r, theta
from symdelay.outputs.model_tex import lag_law_tex, mode_function_tex

__all__ = [
    "FILENAME",
    "build",
    "MODELS",
    "CHECK_POINTS",
    "crossing_conditions",
    "example_model",
    "erlang_action_model",
]

FILENAME = "delays.tex"

#: The example models of the document: ``(file stem, what it shows)``.
MODELS = (
    ("information_delay", "a constant information lag (Pender, Rand \\& Wesson 2017)"),
    ("moving_average", "moving-average information (Pender, Rand \\& Wesson 2017)"),
    ("announcement", "an announcement with velocity, a neutral equation (Novitzky et al.)"),
    ("two_lag_mixture", "a two-lag mixture of information lags"),
    ("constant_action_delay", "a constant action delay (the founding model as $L\\to\\infty$)"),
)

#: ``(mu, lam, theta)`` where the closed-form critical delay is compared with the
#: certified first switch of ``critical(model, "D")``.
CHECK_POINTS = ((1, 1, 2), (1, 1, 5), (1, 2, 3), (2, 1, 3), ("1/2", 1, 1))

#: The announcement's point for the count check: ``(mu, lam, theta, p)``.
ANNOUNCEMENT_POINT = (1, 1, 2, "1/10")

#: Erlang phases checked against the founding chain.
ERLANG_L = (1, 2, 3, 4)

#: Digits of the certified values printed.
DIGITS = 12


def _examples() -> Path:
    return Path(__file__).resolve().parents[3] / "examples" / "models"


def _data(stem: str) -> dict:
    path = _examples() / f"{stem}.toml"
    if not path.is_file():
        raise SymdelayInputError(
            f"{path} not found: derivations/delays.tex is built from the example models of a "
            "source checkout (examples/models/)"
        )
    with path.open("rb") as fh:
        return tomllib.load(fh)


def example_model(stem: str, **values):
    """The example model ``examples/models/<stem>.toml`` (with ``values``)."""
    from symdelay.model import model_from_dict

    return model_from_dict(_data(stem), source=f"examples/models/{stem}.toml", values=values)


def erlang_action_model(**values):
    """The constant action delay's model with its lag an Erlang(L, mean D) law (a gamma lag
    of shape ``L``, a positive parameter)."""
    from symdelay.model import model_from_dict

    data = _data("constant_action_delay")
    data["parameters"] = {**data["parameters"], "L": "positive"}
    data["lags"] = {"tau": {"kind": "gamma", "shape": "L", "mean": "D"}}
    data["name"] = "two queues, logit routing, Erlang(L) action delay of mean D"
    return model_from_dict(data, source="Erlang action delay", values=values)


def _mode(model, name: str):
    return next(f.factor for f in model.characteristic_factors if f.mode == name)


def crossing_conditions(F, tau):
    """A root ``r = i omega`` (``omega > 0``) of ``F(r)`` linear in ``E = exp(-r tau)``:
    ``(omega^2, cos(omega tau), sin(omega tau))`` as expressions in the parameters (the
    real and imaginary parts of ``F(i omega)`` are linear in the cosine and the sine; the
    two solved, ``cos^2 + sin^2 = 1`` gives ``omega``). A frequency ``w`` (positive) stands
    for ``omega`` in the cosine and sine."""
    E, c, s = sp.symbols("E c s", real=True)
    w = sp.Symbol("omega", positive=True)
    G = sp.together(F.subs(sp.exp(-r * tau), E))
    num = sp.numer(G)
    if num.has(sp.exp) or sp.Poly(num, E).degree() != 1:
        raise VerificationError(f"not linear in exp(-r {tau}): {F}")
    at = sp.expand(num.subs(r, sp.I * w).subs(E, c - sp.I * s))
    re, im = at.as_real_imag()
    sol = sp.solve([re, im], [c, s], dict=True)
    if len(sol) != 1:
        raise VerificationError(f"the crossing equations of {F} are not one linear solution")
    cw, sw = sp.factor(sol[0][c]), sp.factor(sol[0][s])
    unit = sp.factor(sp.numer(sp.together(cw**2 + sw**2 - 1)))
    W = sp.Symbol("W", positive=True)  # omega^2
    roots = [x for x in sp.solve(unit.subs(w, sp.sqrt(W)), W) if x != 0]
    if len(roots) != 1:
        raise VerificationError(f"the crossing frequency of {F} is not one root: {roots}")
    return sp.factor(roots[0]), cw, sw, w


def _pos(*syms):
    from symdelay.core.symbols import positive_versions

    return positive_versions(*syms)


def _model_section(stem: str, what: str) -> str:
    m = example_model(stem)
    names = m.latex_names
    lags = lag_printing(m.lags)
    out = [f"\\subsection{{{escape(m.name)}}}\n", f"From \\texttt{{{escape(stem)}.toml}}: {what}. "]
    out.append("Lags: " + "; ".join(lag_law_tex(lag, names) for lag in m.lags.values()) + ".\n")
    out.append("\\begin{align*}\n")
    rows = [
        f"\\dot {{{tex(s, names)}}} &= {tex(f, names, lags=lags, states=m.states)}"
        for s, f in zip(m.states, m.delay_equations)
    ]
    out.append(" \\\\\n".join(rows) + "\n\\end{align*}\n")
    transit = m.in_transit()
    if transit:
        from symdelay.core.parsing import parse_expression

        symbols = {p.name: p for p in m.parameters}
        masses = sorted(set(transit.values()))
        out.append(
            "Mass in transit at the equilibrium, per action-delayed transition: "
            + ", ".join(
                f"${tex(parse_expression(v, variables=symbols, canonical=False), names)}$"
                for v in masses
            )
            + ". "
        )
    out.append("The modes' characteristic functions:\n\\begin{align*}\n")
    out.append(
        " \\\\\n".join(
            f"&{mode_function_tex(f.mode, f.factor, names)} = 0" for f in m.characteristic_factors
        )
        + "\n\\end{align*}\n"
    )
    return "".join(out)


def _erlang_section() -> str:
    from symdelay.models import build_model

    m = erlang_action_model()
    L = next(p for p in m.parameters if p.name == "L")
    F = _mode(m, "difference")
    out = [
        "\\subsection{Erlang action delay}\n",
        "The constant action delay's model with its lag declared "
        '\\texttt{\\{ kind = "gamma", shape = "L", mean = "D" \\}}: '
        + lag_law_tex(m.lags["tau"], m.latex_names)
        + ". Its difference mode:\n",
        display(Equation(sp.Symbol(r"\chi_{\mathrm{difference}}(r)"), F)),
    ]
    gamma = sp.Symbol("gamma")
    for n in ERLANG_L:
        Fn = F.subs(L, n)
        cleared = sp.expand(sp.cancel(Fn * (1 + r * D / n) ** n))
        chain = _mode(build_model("erlang", L=n), "difference")
        chain = sp.expand(chain.subs(gamma, n / D) / (n / D) ** n)
        if sp.expand(cleared - chain) != 0:
            raise VerificationError(f"the Erlang({n}) lag disagrees with the founding chain")
    limit = sp.limit((1 + r * D / L) ** (-L), L, sp.oo)
    if sp.simplify(limit - sp.exp(-r * D)) != 0:
        raise VerificationError("the Erlang kernel does not tend to exp(-r D)")
    out.append(
        "Multiplied by $(1 + rD/L)^L$ it is the founding chain's difference polynomial "
        "$(r + \\mu)(r + \\gamma)^L + \\lambda\\theta\\gamma^L$ divided by $\\gamma^L$, "
        "$\\gamma = L/D$ (SymPy checked it for $L = "
        + ", ".join(str(n) for n in ERLANG_L)
        + "$ against the transition table of the explicit chain), and as $L \\to \\infty$ "
        f"the kernel tends to ${tex(limit)}$ (SymPy's limit): the constant action delay.\n"
    )
    return "".join(out)


def _headline() -> str:
    info, action = example_model("information_delay"), example_model("constant_action_delay")
    same = sp.simplify(info.characteristic_matrix - action.characteristic_matrix)
    if any(x != 0 for x in same):
        raise VerificationError("the information and action lags' linearisations differ")
    for f in info.characteristic_factors:
        if sp.simplify(f.factor - _mode(action, f.mode)) != 0:
            raise VerificationError(f"the {f.mode} modes of the two lags differ")
    return (
        "\\section{Action delay and information delay share the linearisation}\n"
        "The dispatcher that routes on lengths seen $D$ ago (information lag) and the "
        "one that routes on current lengths with the job arriving $D$ later (action lag) "
        "obey different delay equations (above), yet SymPy finds the same characteristic "
        "matrix for both, entry by entry,\n"
        + display(Equation(sp.Symbol(r"\Delta(r)"), info.characteristic_matrix))
        + "so the same characteristic functions, critical delays and instability windows. "
        "They differ off the linearisation: at the equilibrium the action-delayed system "
        "holds the mass $\\lambda D$ per queue in transit.\n"
    )


def _critical_section() -> str:
    import mpmath

    from symdelay.analysis.critical import critical
    from symdelay.analysis.stability import stability

    pos = _pos(mu, lam, theta, D)
    info = example_model("information_delay")
    F = _mode(info, "difference").xreplace(pos)
    W, cw, sw, w = crossing_conditions(F, pos[D])
    omega = sp.sqrt(W)
    if not sw.is_positive:
        raise VerificationError("sin(omega D) of the information lag is not positive")
    Dc = sp.acos(cw.subs(w, omega)) / omega
    lt = pos[lam] * pos[theta]
    pender = sp.acos(-pos[mu] / lt) / sp.sqrt(lt**2 - pos[mu] ** 2)
    if sp.simplify(Dc - pender) != 0:
        raise VerificationError("the derived critical delay is not Pender et al.'s")
    back = {v: k for k, v in pos.items()}
    out = [
        "\\section{Critical delays from the characteristic functions}\n",
        "\\subsection{Information lag: Pender, Rand \\& Wesson's critical delay}\n",
        "A root $r = i\\omega$, $\\omega > 0$, of the difference mode "
        f"${tex(_mode(info, 'difference'))} = 0$ has real and imaginary parts linear in "
        "$\\cos\\omega D$ and $\\sin\\omega D$; solved (SymPy),\n",
        "\\begin{align*}\n"
        f"\\cos \\omega D &= {tex(cw.xreplace(back))}, &"
        f"\\sin \\omega D &= {tex(sw.xreplace(back))}, &"
        f"\\omega^2 &= {tex(W.xreplace(back))}\n\\end{{align*}}\n",
        "($\\cos^2 + \\sin^2 = 1$). A crossing exists exactly when $\\lambda\\theta > \\mu$; "
        "the sine is positive, so the first crossing is at $\\omega D = \\arccos(\\cos\\omega "
        "D)$:\n",
        display(Equation(sp.Symbol("D_c"), Dc.xreplace(back))),
        "which is Pender, Rand \\& Wesson's $\\Delta_c = \\arccos(-\\mu/(\\lambda\\theta)) / "
        "\\sqrt{(\\lambda\\theta)^2 - \\mu^2}$ (per-server $\\lambda$; their $\\lambda$ is "
        "the total rate $2\\lambda$), SymPy checked. Against the certified first stability "
        'switch of \\texttt{critical(model, "D")} (exact elimination, Arb isolation):\n',
        "\\begin{center}\n\\begin{tabular}{rrrll}\n"
        "$\\mu$ & $\\lambda$ & $\\theta$ & $D_c$ closed form & $D_c$ certified \\\\ \\hline\n",
    ]
    for m_, l_, t_ in CHECK_POINTS:
        model = example_model("information_delay", mu=m_, lam=l_, theta=t_)
        vals = {pos[mu]: model.values[mu], pos[lam]: model.values[lam]}
        vals[pos[theta]] = model.values[theta]
        closed = Dc.xreplace(vals)
        got = critical(model, "D", dps=DIGITS + 5).points[0].critical
        with mpmath.workdps(DIGITS + 10):
            ref = mpmath.mpf(sp.N(closed, DIGITS + 10))
            if abs(got - ref) > mpmath.mpf(10) ** (-DIGITS) * abs(ref):
                raise VerificationError(f"critical delay {got} != closed form {ref}")
            cells = [tex(model.values[x]) for x in (mu, lam, theta)]
            out.append(
                " & ".join(f"${c}$" for c in cells)
                + f" & ${tex(closed)} = {mpmath.nstr(ref, DIGITS)}$"
                + f" & ${mpmath.nstr(got, DIGITS)}$ \\\\\n"
            )
    out.append("\\end{tabular}\n\\end{center}\n")
    out.append(
        "They agree to the digits shown. With the action lag the table is the same (the same "
        "characteristic function).\n"
    )

    # the announcement: a neutral equation
    p = sp.Symbol("p", positive=True)
    ann = example_model("announcement")
    Fa = _mode(ann, "difference").xreplace({**pos, sp.Symbol("p"): p})
    Wa, ca, sa, wa = crossing_conditions(Fa, pos[D])
    back_a = {**back, p: sp.Symbol("p")}
    out += [
        "\\subsection{Announcement with velocity}\n",
        f"The difference mode ${tex(_mode(ann, 'difference'))} = 0$ is neutral: its "
        "difference operator $1 + \\lambda\\theta p\\, e^{-rD}$ is stable exactly when "
        "$\\lambda\\theta p < 1$. The same elimination gives\n",
        "\\begin{align*}\n"
        f"\\cos \\omega D &= {tex(ca.xreplace(back_a))}, \\\\\n"
        f"\\sin \\omega D &= {tex(sa.xreplace(back_a))}, \\\\\n"
        f"\\omega^2 &= {tex(Wa.xreplace(back_a))},\n\\end{{align*}}\n",
        "so the first crossing is at $D_c = \\arccos(\\cos\\omega D)/\\omega$ when the sine "
        "is positive ($p\\mu < 1$).",
    ]
    m_, l_, t_, p_ = ANNOUNCEMENT_POINT
    model = example_model("announcement", mu=m_, lam=l_, theta=t_, p=p_)
    vals = {pos[mu]: model.values[mu], pos[lam]: model.values[lam]}
    vals.update({pos[theta]: model.values[theta], p: model.values[sp.Symbol("p")]})
    if not sa.xreplace(vals).is_positive:
        raise VerificationError("the announcement's check point has a negative sine")
    Dca = (sp.acos(ca.subs(wa, sp.sqrt(Wa))) / sp.sqrt(Wa)).xreplace(vals)
    verdicts = []
    for factor in ("99/100", "101/100"):
        at = sp.Rational(factor) * Dca
        q = sp.Rational(str(sp.N(at, 30)))
        st = stability(example_model("announcement", mu=m_, lam=l_, theta=t_, p=p_, D=str(q)))
        verdicts.append((factor, st.verdict, st.unstable_count))
    if [v[1] for v in verdicts] != ["stable", "unstable"]:
        raise VerificationError(f"the announcement's critical delay is not a switch: {verdicts}")
    with mpmath.workdps(DIGITS + 5):
        num = mpmath.nstr(mpmath.mpf(sp.N(Dca, DIGITS + 5)), DIGITS)
    pt = ", ".join(f"${tex(x)} = {tex(model.values[x])}$" for x in (mu, lam, theta, sp.Symbol("p")))
    out.append(
        f" At {pt}: $D_c = {tex(Dca)} = {num}$; the certified root count (argument "
        f"principle in Arb) finds the equilibrium {verdicts[0][1]} at $0.99\\,D_c$ "
        f"and {verdicts[1][1]} with {verdicts[1][2]} roots in $\\mathrm{{Re}}\\, r > 0$ at "
        "$1.01\\,D_c$.\n"
    )
    return "".join(out)


def build() -> str:
    out = [
        "Delay models declare their lags (\\texttt{[lags]}) and read them in their rates: "
        "\\texttt{delayed(E, tau)} is $E(t - \\tau)$ for a constant lag and the convolution "
        "$(k * E)(t) = \\int_0^\\infty k(u) E(t - u)\\,du$ for a distributed one, with the "
        "law's kernel $k$; a transition with an action lag takes effect after it. At the "
        "equilibrium each lag enters the linearisation through its Laplace transform "
        "$\\hat K(r) = E[e^{-rX}]$, and the characteristic matrix is "
        "$\\Delta(r) = rI - A_0 - \\sum_k M_k \\hat K_k(r)$ (a term carries a further "
        "factor $r$ when a derivative is read through the lag). Every formula below is printed from the models' "
        "linearisations.\n",
        "\\section{The delay models and their characteristic functions}\n",
    ]
    for stem, what in MODELS:
        out.append(_model_section(stem, what))
    out.append(_erlang_section())
    out.append(_headline())
    out.append(_critical_section())
    return document("Delays of information and of action", "".join(out))
