"""Report section: critical theta curves, instability windows and the worst-case delay."""

from __future__ import annotations

import numpy as np

from symdelay.analysis.critical import critical
from symdelay.core.latex import tex
from symdelay.core.symbols import mu as MU
from symdelay.models.erlang.founding import FoundingModel
from symdelay.models.erlang.hopf import (
    delay_limits,
    instability_window,
    worst_delay,
    worst_delay_trend,
)
from symdelay.outputs.plots_hopf import (
    critical_curves_figure,
    frequency_figure,
    stability_region_figure,
)
from symdelay.outputs.report import Section, table_tex

__all__ = ["ORDER", "build", "PARAMETERS", "CURVE_L", "REGION"]

ORDER = 40

INF = "$\\infty$"

#: Rates used in every figure of the section.
PARAMETERS = {"mu": 1, "lam": 1}
#: The L values of the theta_c(D) figure ("inf": the delay-differential limit).
CURVE_L = (1, 2, 3, 5, 10, "inf")
#: The stability-region figure: L and the theta whose instability window is marked.
REGION = {"L": 4, "theta": 3}


def _curve(L, m, lm, D):
    """``(theta_c, omega)`` float arrays over ``D`` (the entry's float64 run)."""
    _, th, om = critical(FoundingModel(L=L, mu=m, lam=lm), at=D, float64=True).arrays()
    return th, om


def _label(L) -> str:
    return "$L = \\infty$" if L == "inf" else f"$L = {L}$"


def _num(x) -> str:
    """A limit value as a decimal (``$\\infty$`` when infinite)."""
    return INF if not x.is_finite else f"${float(x):.10g}$"


def build(ctx) -> Section:
    m, lm = PARAMETERS["mu"], PARAMETERS["lam"]
    n = 200 if ctx.quick else 1000
    D = np.logspace(-2, 2, n)
    curves, omegas, stable_all = {}, {}, []
    for L in CURVE_L:
        th, om = _curve(L, m, lm, D)
        if np.all(np.isinf(th)):
            stable_all.append(_label(L))
            continue
        curves[_label(L)] = th
        omegas[_label(L)] = om
    fig_curves = critical_curves_figure(D, curves, stable_all, (m / lm, "$\\mu/\\lambda$"))
    L_reg, th_reg = REGION["L"], REGION["theta"]
    win = instability_window(L_reg, th_reg, m, lm)
    th_r, _ = _curve(L_reg, m, lm, D)
    ivs = [(float(a), float(b)) for a, b in win.intervals]
    wd = worst_delay(L_reg, m, lm)
    fig_region = stability_region_figure(D, th_r, _label(L_reg), th_reg, ivs, float(wd.D_star))
    fig_omega = frequency_figure(D, omegas)

    table_L = (2, 3) if ctx.quick else (2, 3, 4, 5, 10, 20, 50)
    rows = []
    for L in (*table_L, "inf"):
        w = worst_delay(L, m, lm)
        lim = delay_limits(L).large_D_limit.subs(MU, m) / lm
        rec = w.to_json()
        cf = w.closed_form["theta_star"]
        L_txt = INF if L == "inf" else str(L)
        D_txt = INF + " (not attained)" if rec["D_star"] == "inf" else f"${float(w.D_star):.6g}$"
        cf_txt = "$" + tex(cf) + "$" if cf is not None else "--"
        rows.append([L_txt, D_txt, f"${float(w.theta_star):.10g}$", cf_txt, _num(lim)])
    trend = worst_delay_trend()
    parts = []
    for a, b in ivs:
        right = "\\infty" if not np.isfinite(b) else f"{b:.6g}"
        parts.append(f"$({a:.6g}, {right})$")
    ivtext = ", ".join(parts)
    body = (
        "A root pair of the difference mode crosses the imaginary axis at $r = i\\omega$ when "
        "$F(i\\omega) = -\\lambda\\theta\\gamma^L$ with $F(r) = (r+\\mu)(r+\\gamma)^L$: a modulus "
        "and a phase condition (derived in \\texttt{derivations/hopf.tex}). The phase "
        "$\\arg(i\\omega+\\mu) + L\\arg(i\\omega+\\gamma)$ increases from $0$ to $(L+1)\\pi/2$; "
        "for $L = 1$ it never reaches $\\pi$, so $L = 1$ is stable for every $\\theta \\ge 0$. The limit $L = \\infty$ is the delay-differential model of Pender, Rand and Wesson "
        "\\cite{PenderRandWesson2017}. "
        f"Figures use $\\mu = {m}$, $\\lambda = {lm}$ and {n} delays log-spaced in "
        "$[0.01, 100]$.\n\n"
        + ctx.figure(
            fig_curves,
            "hopf_theta_c.pdf",
            "Critical $\\theta_c(D)$: the equilibrium is unstable above each "
            "curve. For $L \\ge 3$ the curve has a finite limit as $D$ grows without bound; "
            "for $L = 2$ it grows like $\\mu^2 D/\\lambda$; for $L=\\infty$ it decreases to "
            "$\\mu/\\lambda$.",
        )
        + ctx.figure(
            fig_region,
            "hopf_region.pdf",
            f"Stability region for $L = {L_reg}$; at $\\theta = {th_reg}$ the "
            f"equilibrium is unstable exactly for $D \\in$ {ivtext or 'no $D$'} "
            "(a bounded window: long delays are stable again).",
        )
        + ctx.figure(fig_omega, "hopf_omega.pdf", "Hopf frequency $\\omega$ along each boundary.")
        + "\\paragraph{Worst-case delay.} Along the boundary, $\\lambda\\theta_c$ is stationary "
        "where $\\sin((L+1)\\alpha) = 0$, $\\alpha = \\arg(i\\omega+\\gamma)$: "
        f"$\\alpha^* = {tex(trend.alpha_star)}$, $\\gamma^* = {tex(trend.gamma_star)}$, so "
        f"$D^* = {tex(trend.D_star)}$ and the delay-independent threshold is "
        f"$\\theta^* = {tex(trend.theta_star)}$: for $\\theta < \\theta^*$ the equilibrium is "
        "stable for every mean delay. As $L\\to\\infty$, "
        f"$\\theta^* \\to {tex(trend.theta_star_limit)}$ with "
        f"$L(\\theta^* - {tex(trend.theta_star_limit)}) \\to {tex(trend.first_order)}$, while "
        "$D^*\\to\\infty$: the infimum of the $L = \\infty$ curve, approached as "
        "$D\\to\\infty$ and not attained.\n\n"
        + table_tex(
            [
                "$L$",
                "$D^*$",
                "$\\theta^*$",
                "closed form of $\\theta^*$",
                "$\\lim_{D\\to\\infty}\\theta_c(D)$",
            ],
            rows,
            "The worst delay $D^*$ and the delay-independent threshold $\\theta^*$ per $L$ "
            "($\\mu = \\lambda = 1$), with the large-delay limit of the critical curve.",
            align="rrrll",
        )
    )
    return Section("Critical curves, instability windows and the worst-case delay", body)
