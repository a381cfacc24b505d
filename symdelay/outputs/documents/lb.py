"""``derivations/lb.tex``: LB(xi, c, d) across many-server stations, from the model to design.

Every formula is printed from the SymPy object the analysis computed: the fluid model's
transition table (:mod:`symdelay.models.lb.family`), its closed-form sliding equilibrium, the
stationary law of the Halfin–Whitt diffusion and its reduction to the classical formula
(:func:`symdelay.models.lb.stationary_law`, :func:`symdelay.models.lb.halfin_whitt_reduction`, both
machine-checked), and the design table (:func:`symdelay.models.lb.design.design`).
"""

from __future__ import annotations

import mpmath

from symdelay.core.latex import display, document, escape, tex
from symdelay.core.lazy import sympy as sp
from symdelay.models.lb import LBPolicy, halfin_whitt_reduction, stationary_law
from symdelay.models.lb.design import design
from symdelay.models.lb.family import lb_fluid_model
from symdelay.models.lb.fluid import fluid_equilibrium

__all__ = ["FILENAME", "build", "body", "EXAMPLE", "DESIGN_BETA", "stations_tex"]

FILENAME = "lb.tex"

#: The example system of the document and the report: stations, sampling.
EXAMPLE = {"stations": "N=100,mu=1;N=200,mu=1/2", "xi": "2"}
#: Spare capacity of the design table.
DESIGN_BETA = 1

_NAMES = {
    sp.Symbol("P_wait"): r"P_{\mathrm{wait}}",
    sp.Symbol("M_+"): "M_+",
    sp.Symbol("M_-"): "M_-",
    sp.Symbol("E[Y^+]"): r"E[Y^+]",
    sp.Symbol("E[Y^-]"): r"E[Y^-]",
    sp.Symbol("m(y)"): "m(y)",
    sp.Symbol("sigma^2"): r"\sigma^2",
    sp.Symbol("mubar"): r"\bar\mu",
    sp.Symbol("m_I"): "m_I",
    sp.Symbol("f(1)"): "f(1)",
}


def _m(expr, names=None) -> str:
    """Inline maths printed from a SymPy object."""
    return f"${tex(expr, names)}$"


def _step_texts() -> dict:
    """LaTeX for the steps' ASCII descriptions, the formulas printed from SymPy objects."""
    Y, a, J = sp.Symbol("Y"), sp.Symbol("a"), sp.Symbol("J")
    m_I, mubar = sp.Symbol("m_I"), sp.Symbol("mubar")
    d3 = sp.IndexedBase("d")[sp.Symbol("j")]
    names = {**_NAMES, sp.Symbol("Y^+"): "Y^+", sp.Symbol("Y^-"): "Y^-"}
    return {
        "drift": f"drift of {_m(Y)} ({_m(sp.Eq(a, m_I / mubar), names)})",
        "variance": "infinitesimal variance",
        "mass_up": f"mass above {_m(0)}",
        "mass_down": f"mass below {_m(0)}",
        "p_wait": f"probability of waiting, $P({tex(sp.Ge(Y, 0))})$",
        "mean_queue": f"mean scaled queue {_m(sp.Symbol('E[Y^+]'), names)}",
        "mean_idle": f"mean scaled idle servers {_m(sp.Symbol('E[Y^-]'), names)}",
        "m_idle_3": f"idleness-weighted rate, {_m(sp.Eq(J, 3))}, any {_m(d3)}",
    }


def stations_tex(stations: str) -> str:
    """The stations of ``stations`` (``"N=100,mu=1;..."``) as maths: ``$N = (100, 200)$,
    $\\mu = (1, 1/2)$``, printed from the parsed exact values."""
    from symdelay.models.lb.policy import parse_stations

    st = parse_stations(stations)
    Ns = sp.Tuple(*[sp.Integer(s.N) for s in st])
    mus = sp.Tuple(*[s.mu for s in st])
    return f"${tex(sp.Eq(sp.Symbol('N'), Ns))}$, ${tex(sp.Eq(sp.Symbol('mu'), mus))}$"


def _model_part() -> str:
    p = LBPolicy.from_text(**EXAMPLE)
    m = lb_fluid_model(p, sp.Rational(1, 2))
    eq = fluid_equilibrium(p, sp.Rational(1, 2))
    x = sp.symbols("x1:3")
    return (
        "\\section{The system and its fluid model}\n"
        "$J$ stations; station $j$ has $N_j$ exponential servers of rate $\\mu_j$ and a FCFS "
        "queue; $X_j$ customers are there. An arrival samples $\\xi$ stations uniformly "
        "without replacement ($\\xi$ random, $P(\\xi\\ge 2)>0$). If every sampled station is "
        "full it joins the least $c_j (X_j-N_j+1)/(N_j\\mu_j)$, else, among the sampled "
        "stations with an idle server, the largest $d_j (N_j-X_j)/N_j$; ties uniformly.\n\n"
        "With $n=\\sum_j N_j$, $w_j=N_j/n$, arrivals at rate $n\\lambda$ and $x_j=X_j/n$, "
        "the routing depends on $x$ only through the stations' preference order; with "
        "$m_j$ the number of stations ranked below $j$,\n"
        + display(
            sp.Eq(
                sp.Symbol("p_j"),
                sp.Sum(
                    sp.Symbol("P(xi=k)")
                    * sp.binomial(sp.Symbol("m_j"), sp.Symbol("k") - 1)
                    / sp.binomial(sp.Symbol("J"), sp.Symbol("k")),
                    (sp.Symbol("k"), 1, sp.Symbol("J")),
                ),
                evaluate=False,
            ),
            {sp.Symbol("P(xi=k)"): r"P(\xi=k)"},
        )
        + "and the fluid model is the transition table: arrival to $j$ at $\\lambda p_j(x)$, "
        "departure at $\\mu_j\\min(x_j,w_j)$. For the example "
        + stations_tex(EXAMPLE["stations"])
        + f", $\\xi\\equiv{EXAMPLE['xi']}$, $c=d=1$, $\\lambda=1/2$ its drift is\n"
        + "\\begin{equation*}\n"
        + m.latex().replace(r"\theta\left(", r"H\left(")
        + "\n\\end{equation*}\n"
        "($H$ the unit step, $H(0)=1/2$: the two stations' preference order). "
        "The drift switches with the order, so the fluid slides (Filippov) on the balanced "
        "set $d_j(1-x_j/w_j)=\\kappa$; below capacity the equilibrium is\n"
        + display(sp.Eq(sp.Symbol("kappa"), m.kappa))
        + display(sp.Matrix(x), None)[:-1].replace("\\end{equation*}", "")
        + "= "
        + tex(sp.Matrix(eq.point))
        + "\n\\end{equation*}\n"
        + "with utilisations "
        + ", ".join(f"${tex(u)}$" for u in eq.utilisations)
        + " ($1-u_j=\\kappa/d_j$: $d$ sets the relative utilisations). Along the balanced "
        "set the total relaxes at rate $m_I=\\sum_j v_j\\mu_j$, "
        + f"${tex(m.charpoly)} = 0$ here; transverse to it the fluid arrives in finite time.\n\n"
    )


def _diffusion_part() -> str:
    law = stationary_law()
    red = halfin_whitt_reduction()
    texts = _step_texts()
    steps = "".join(
        f"{texts.get(s.key, escape(s.text))}:\n" + display(s.expr, _NAMES)
        for s in law
        if s.key in ("drift", "variance", "mass_up", "mass_down", "p_wait", "mean_queue")
    )
    idle = law["mean_idle"]
    return (
        "\\section{Halfin--Whitt regime}\n"
        "$\\lambda_n=\\sum_j N_j\\mu_j-\\beta\\sqrt n\\,\\bar\\mu$, "
        "$\\bar\\mu=\\sum_j w_j\\mu_j$.\n\n"
        # long inline formulas: \\sloppy lets the lines stretch instead of overflowing
        "{\\sloppy\\paragraph{State-space collapse.} With idle servers the policy equalises "
        "$d_j I_j/N_j$, so $I_j=v_j I$, $v_j=(w_j/d_j)/\\sum_i w_i/d_i$; with queues it "
        "equalises $c_j Q_j/(N_j\\mu_j)$, so $Q_j=u_j Q$, $u_j=(w_j\\mu_j/c_j)/\\sum_i "
        "w_i\\mu_i/c_i$, and station $j$'s expected delay is "
        "$\\sqrt n\\,E[W_j]=E[Y^+]/(c_j\\sum_i w_i\\mu_i/c_i)$. The collapse needs the "
        "sampling to reach: for every set $S$ of stations\n"
        "\\begin{equation*}\n\\sum_{j\\in S}N_j\\mu_j\\Big/\\sum_i N_i\\mu_i < "
        "1-E\\Big[\\binom{J-|S|}{\\xi}\\Big/\\binom J\\xi\\Big].\n\\end{equation*}\n"
        "\\par}\n"
        "\\paragraph{One-dimensional limit.} $Y=(\\sum_j X_j-n)/\\sqrt n$, "
        "$m_I=\\sum_j v_j\\mu_j$, $a=m_I/\\bar\\mu$; SymPy integrates the speed density:\n"
        + steps
        + "and the mean number of idle servers (scaled), which equals $\\beta/a$ "
        "(zero mean drift):\n"
        + display(idle.expr, _NAMES)
        + "$P(\\mathrm{wait})$ and the mean delay depend on $d$ only (through $a$); $c$ only "
        "shares the delay among the stations.\n\n"
        "\\paragraph{Identical stations.} "
        + texts["m_idle_3"]
        + ":\n"
        + display(red["m_idle_3"].expr, _NAMES)
        + "for symbolic $J$ the same, "
        + f"${tex(red['a'].expr)}$; with $\\xi=J$, "
        + f"${tex(red['reach'].expr, _NAMES)}$. Substituted (checked by SymPy):\n"
        + display(red["p_wait"].expr, _NAMES)
        + "which is $[1+\\beta\\Phi(\\beta)/\\varphi(\\beta)]^{-1}$, the Halfin--Whitt "
        "probability of waiting.\n\n"
    )


def _design_part() -> str:
    p = LBPolicy.from_text(**EXAMPLE)
    rows = []
    for target, ratio in (
        ("equal-utilisation", None),
        ("equal-delay", None),
        ("delay-ratio", "1,2"),
        ("idle-ratio", "1,3"),
        ("min-delay", None),
    ):
        r = design(p, DESIGN_BETA, target, ratio=ratio, dps=20)
        st = r.predicted.stations
        cells = [
            escape(target + (f" {ratio}" if ratio else "")),
            ", ".join(f"${tex(v)}$" for v in r.c),
            ", ".join(f"${tex(v)}$" for v in r.d),
            mpmath.nstr(r.predicted.p_wait, 5),
            ", ".join(mpmath.nstr(s["idle_ratio_scaled"], 4) for s in st),
            ", ".join(mpmath.nstr(s["mean_delay_scaled"], 4) for s in st),
        ]
        rows.append(" & ".join(cells) + " \\\\")
    return (
        "\\section{Policy design}\n"
        "{\\sloppy From the stationary values: $\\sqrt n\\,E[I_j]/N_j = E[Y^-]/(d_j\\sum_i w_i/d_i)$ "
        "and $\\sqrt n\\,E[W_j]=E[Y^+]/(c_j\\sum_i w_i\\mu_i/c_i)$; a target ratio of either "
        "is a set of equations in $c$ (or $d$); both quantities are $1/c_j$ ($1/d_j$) times "
        "a factor common to the stations, so with $c_1=1$ ($d_1=1$) the solution is "
        "$c_j=r_1/r_j$ for the target ratios $r$, checked exactly on every equation. "
        "$P(\\mathrm{wait})$ increases with $a$, so the least mean delay over "
        "$d\\in[1,d_{\\max}]^J$ is at a vertex: $d_j$ large for the fast stations (idle "
        "servers parked at the slow ones). Example "
        + stations_tex(EXAMPLE["stations"])
        + f", $\\xi\\equiv{EXAMPLE['xi']}$, $\\beta={DESIGN_BETA}$, $d_{{\\max}}=10$:\\par}}\n\n"
        "\\begin{center}\\small\n"
        # shrunk to the text width when wider, never enlarged
        "\\resizebox{\\ifdim\\width>\\textwidth\\textwidth\\else\\width\\fi}{!}{"
        "\\begin{tabular}{llllll}\n\\toprule\n"
        "target & $c$ & $d$ & $P(\\mathrm{wait})$ & $\\sqrt n E[I_j]/N_j$ & "
        "$\\sqrt n E[W_j]$ \\\\\n\\midrule\n" + "\n".join(rows) + "\n\\bottomrule\n"
        "\\end{tabular}}\n\\end{center}\n"
    )


def body() -> str:
    """The document body (also used by the report section)."""
    return _model_part() + _diffusion_part() + _design_part()


def build() -> str:
    return document("LB($\\xi$, c, d): balanced routing with partial information", body())
