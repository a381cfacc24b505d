"""Report section: LB(xi, c, d) across many-server stations — the derivation (shared with
``derivations/lb.tex``), the fluid check, design checked by simulation, the comparison with
other routings and the convergence of the simulated scaled values to the diffusion."""

from __future__ import annotations

import mpmath
import numpy as np

from symdelay.core.latex import escape
from symdelay.core.lazy import sympy as sp
from symdelay.models.lb import LBPolicy, arrival_rate, diffusion
from symdelay.models.lb.compare import ROUTINGS, comparison, convergence, erlang_c_random
from symdelay.models.lb.design import design
from symdelay.models.lb.fluid import fluid_equilibrium, fluid_path
from symdelay.models.lb.simulate import scaled, simulate
from symdelay.outputs.documents.lb import DESIGN_BETA, EXAMPLE, body, stations_tex
from symdelay.outputs.plots_lb import comparison_figure, convergence_figure, routing_label
from symdelay.outputs.report import Section, table_tex

__all__ = ["ORDER", "build", "BETAS", "CONVERGENCE_N"]

ORDER = 90
TITLE = "LB($\\xi$, c, d): balanced routing across many-server stations"

#: beta grid of the comparison (full / quick).
BETAS = (0.25, 0.5, 1.0, 1.5, 2.0)
#: total servers of the convergence study (full / quick).
CONVERGENCE_N = (150, 600, 2400, 9600)
#: the convergence study's station shape (unequal rates, c, d).
SHAPE = {"stations": "N=1,mu=1;N=2,mu=1/2", "xi": "2", "c": "1,2", "d": "1,2"}


def _cells(lines) -> list:
    """Table rows ``a & b & c \\\\`` as lists of cells (for :func:`table_tex`)."""
    return [ln.strip().removesuffix("\\\\").rstrip().split(" & ") for ln in lines]


def _fluid_part(quick: bool) -> str:
    p = LBPolicy.from_text(
        "N=50,mu=1;N=100,mu=1/2;N=30,mu=2", xi_dist="1:1/5,2:4/5", c="1,2,1", d="1,2,3"
    )
    lam = sp.Rational(4, 5)
    e = fluid_equilibrium(p, lam)
    rows = []
    for h in (4e-3,) if quick else (4e-3, 2e-3):
        path = fluid_path(p, lam, [0.0, 0.6, 0.1], T=20, h=h)
        err = np.max(np.abs(path.info["average"] - np.array([float(v) for v in e.point])))
        m, ex = f"{err:.2e}".split("e")
        rows.append(f"${h:g}$ & ${m} \\times 10^{{{int(ex)}}}$ \\\\")
    return (
        "\\subsection{Fluid equilibrium against long integration}\n"
        "Three stations N=(50,100,30), $\\mu=(1,1/2,2)$, $\\xi\\in\\{1,2\\}$ w.p. (1/5, 4/5), "
        "$c=(1,2,1)$, $d=(1,2,3)$, $\\lambda=4/5$: the closed-form equilibrium against the "
        "time average over the last quarter of an Euler path of the model's drift "
        "($T=20$, from $x=(0,0.6,0.1)$); the error is $O(h)$ (chattering across the "
        "balanced set).\n\n"
        + table_tex(
            ["step $h$", "max error"],
            _cells(rows),
            "The closed-form fluid equilibrium against the time average of an Euler path.",
            align="ll",
        )
    )


def _design_part(quick: bool) -> str:
    p = LBPolicy.from_text(**EXAMPLE)
    T = 2000.0 if quick else 20000.0
    rows = []
    for target, ratio in (("equal-utilisation", None), ("delay-ratio", "1,2"), ("min-delay", None)):
        r = design(p, DESIGN_BETA, target, ratio=ratio, dps=15)
        lam = sp.Rational(repr(float(arrival_rate(p, DESIGN_BETA).evalf())))
        sim = simulate(r.policy, lam, T, seed=21)
        sc, p_wait = scaled(sim), sim.info["p_wait"]
        pred = r.predicted
        cells = [
            escape(target + (f" {ratio}" if ratio else "")),
            f"{float(pred.p_wait):.4f}",
            f"{p_wait.value:.4f} $\\pm$ {p_wait.half_width:.4f}",
            ", ".join(f"{float(s['idle_ratio_scaled']):.3f}" for s in pred.stations),
            ", ".join(
                f"{s['idle_ratio_scaled'].value:.3f}$\\pm${s['idle_ratio_scaled'].half_width:.3f}"
                for s in sc["stations"]
            ),
            ", ".join(f"{float(s['mean_delay_scaled']):.3f}" for s in pred.stations),
            ", ".join(
                f"{s['mean_delay_scaled'].value:.3f}$\\pm${s['mean_delay_scaled'].half_width:.3f}"
                for s in sc["stations"]
            ),
        ]
        rows.append(" & ".join(cells) + " \\\\")
    return (
        "\\subsection{Design checked by simulation}\n"
        f"{stations_tex(EXAMPLE['stations'])}, $\\xi\\equiv 2$, $\\beta={DESIGN_BETA}$ ($n=300$); "
        f"simulation over $T={T:g}$, 95\\% batch-means intervals; predicted (diffusion) "
        "beside simulated.\n\n"
        + table_tex(
            [
                "target",
                "$P_w$ pred.",
                "$P_w$ sim.",
                "$\\sqrt n I_j/N_j$ pred.",
                "sim.",
                "$\\sqrt n W_j$ pred.",
                "sim.",
            ],
            _cells(rows),
            "Designs of the LB policy: the diffusion's prediction beside the simulation "
            "(95\\% batch-means intervals).",
            align="lllllll",
            fit=True,
        )
    )


def _comparison_part(ctx) -> tuple[str, list]:
    p = LBPolicy.from_text(**EXAMPLE)
    betas = BETAS[1:4:2] if ctx.quick else BETAS
    T = 1000.0 if ctx.quick else 10000.0
    rows = comparison(p, betas, T=T, seed=31)
    fine = np.linspace(0.2, 2.1, 40)
    curves = {}
    for name, xi in (("LB xi=2", {2: 1}), ("LB xi=J", {p.J: 1})):
        q = p.replace(xi={k: sp.Integer(v) for k, v in xi.items()})
        vals = [diffusion(q, sp.Rational(repr(round(float(b), 4))), dps=15) for b in fine]
        curves[name] = (
            fine,
            [float(v.p_wait) for v in vals],
            [float(v.mean_delay_scaled) for v in vals],
        )
    er = []
    for b in fine:
        lam = sp.Rational(
            repr(float(arrival_rate(p, sp.Rational(repr(round(float(b), 4)))).evalf()))
        )
        pw, mw = erlang_c_random(p, lam, dps=15)
        er.append((float(pw), float(mw * mpmath.sqrt(p.n))))
    curves["random"] = (fine, [x[0] for x in er], [x[1] for x in er])
    path = ctx.figures_dir / "lb_comparison.pdf"
    figure = ctx.figure(
        comparison_figure(rows, curves),
        "lb_comparison.pdf",
        "The routings compared on the stations above: probability of wait and scaled mean "
        "wait against $\\beta$ (points: simulation with 95\\% intervals; lines: theory).",
        width="0.95",
    )
    table = []
    for r in rows:
        th = "--" if r.p_wait_theory is None else f"{r.p_wait_theory:.4f}"
        thw = "--" if r.mean_wait_scaled_theory is None else f"{r.mean_wait_scaled_theory:.3f}"
        table.append(
            f"{routing_label(r.routing)} & {float(r.beta):g} & {r.p_wait.value:.4f} $\\pm$ "
            f"{r.p_wait.half_width:.4f} & {th} & {r.mean_wait_scaled.value:.3f} $\\pm$ "
            f"{r.mean_wait_scaled.half_width:.3f} & {thw} \\\\"
        )
    text = (
        "\\subsection{Comparison with other routings}\n"
        f"{stations_tex(EXAMPLE['stations'])} ($n=300$), "
        "$\\lambda=\\sum N_j\\mu_j-\\beta\\sqrt n\\bar\\mu$. Routings: "
        + "; ".join(routing_label(name) for name in ROUTINGS)
        + " (random in proportion to capacity: Erlang C per station, exact; JSQ and "
        "power-of-2 join the fewest customers among all / two sampled stations). "
        f"Simulated over $T={T:g}$ (95\\% intervals); theory: the LB diffusion, Erlang C.\n\n"
        + table_tex(
            ["routing", "$\\beta$", "$P_w$ sim.", "$P_w$ theory", "$\\sqrt n E[W]$ sim.", "theory"],
            _cells(table),
            "The routings compared: simulation (95\\% intervals) and theory.",
            align="llllll",
            size="\\footnotesize",
        )
        + figure
        + "JSQ and power-of-2 by number present send work to the smaller station beyond its "
        "share (it has fewer customers when both are near full), so with unequal stations "
        "they queue at one station while the other idles; LB balances idleness ratios and "
        "delays instead.\n"
    )
    return text, [path]


def _convergence_part(ctx) -> tuple[str, list]:
    shape = LBPolicy.from_text(**SHAPE)
    ns = CONVERGENCE_N[:2] if ctx.quick else CONVERGENCE_N
    T = 1000.0 if ctx.quick else 20000.0
    pts = convergence(shape, 1, ns, T=T, seed=41)
    rows = []
    for pt in pts:
        th = pt.theory
        rows.append(
            f"{pt.n} & {pt.events:,} & {pt.p_wait.value:.4f} $\\pm$ {pt.p_wait.half_width:.4f}"
            f" & {th['p_wait']:.4f} & {pt.mean_delay_scaled.value:.3f} $\\pm$ "
            f"{pt.mean_delay_scaled.half_width:.3f} & {th['mean_delay_scaled']:.3f} & "
            + ", ".join(f"{e.value:.3f}" for e in pt.idle_ratio_scaled)
            + " & "
            + ", ".join(f"{v:.3f}" for v in th["idle_ratio_scaled"])
            + " \\\\"
        )
    path = ctx.figures_dir / "lb_convergence.pdf"
    figure = ctx.figure(
        convergence_figure(pts),
        "lb_convergence.pdf",
        "Distance between the simulation and the LB diffusion limit as $n$ grows (points, "
        "solid) and the simulation's 95\\% half-width (dotted): for $P(\\text{wait})$ "
        "(blue) and $\\sqrt{n}\\,E[W]$ (orange).",
        width="0.7",
    )
    text = (
        "\\subsection{Convergence to the diffusion}\n"
        "Stations in proportion $N=(1,2)$, $\\mu=(1,1/2)$, $\\xi\\equiv 2$, $c=(1,2)$, "
        f"$d=(1,2)$, $\\beta=1$; $T={T:g}$ per $n$.\n\n"
        + table_tex(
            [
                "$n$",
                "events",
                "$P_w$ sim.",
                "diff.",
                "$\\sqrt n E[W]$ sim.",
                "diff.",
                "$\\sqrt n I_j/N_j$ sim.",
                "diff.",
            ],
            _cells(rows),
            "Simulation against the LB diffusion as $n$ grows.",
            align="llllllll",
            fit=True,
        )
        + figure
    )
    return text, [path]


def build(ctx) -> Section:
    parts = [
        "The routing family LB($\\xi, c, d$) of Zhong and Cao \\cite{ZhongCao2023} for "
        "stations of many servers in the Halfin--Whitt regime \\cite{HalfinWhitt1981}.\n\n"
        + body().replace("\\section{", "\\subsection{").replace("\\subsection*{", "\\subsection{")
    ]
    parts.append(_fluid_part(ctx.quick))
    parts.append(_design_part(ctx.quick))
    figs = []
    for fn in (_comparison_part, _convergence_part):
        text, f = fn(ctx)
        parts.append(text)
        figs += f
    return Section(TITLE, "\n".join(parts), figs)
