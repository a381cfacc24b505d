"""Report section: beyond the linearisation — Hopf normal form, limit cycles, quasi-cycles.

Every number comes from :mod:`symdelay.models.erlang.nonlinear` (normal form, continued cycles, LNA
spectrum, simulated oscillation); every formula is printed from the SymPy object
:func:`symdelay.models.erlang.nonlinear.symbolic_normal_form` derived.
"""

from __future__ import annotations

import numpy as np

from symdelay.core.latex import tex
from symdelay.models.erlang.nonlinear import (
    describing_function_amplitude,
    describing_function_series,
    limit_cycle,
    normal_form,
    periodogram,
    spectrum,
    symbolic_normal_form,
)
from symdelay.models.erlang.nonlinear.oscillation import simulated_oscillation
from symdelay.models.erlang.stochastic import simulate
from symdelay.outputs.plots_nonlinear import bifurcation_figure, period_figure, spectrum_figure
from symdelay.outputs.report import Section

__all__ = ["ORDER", "build", "RATES", "LS"]

ORDER = 70
INF = "$\\infty$"
TITLE = "Beyond the linearisation: normal form, limit cycles, quasi-cycles"

#: Rates of every computation in this section.
RATES = {"mu": 1, "lam": 1, "D": 1}
#: L values of the bifurcation diagram (inf: the delay-differential equation).
LS = (2, 3, 5, "inf")
#: theta / theta_c of the simulated oscillation (L = 2) and its eta values.
SIM_RATIO = 2.0
SIM_ETAS = (100, 1000, 10000)
#: theta values of the spectrum figure (L = 2, theta_c = 9) and the simulated periodogram.
SPECTRUM_THETAS = (4, 6, 8, 8.7)
PERIODOGRAM = {"theta": 8, "eta": 1000, "T": 3000.0}


def _normal_form_part(quick: bool) -> str:
    rows = []
    for L in (2, 3, 10, "inf") if quick else (2, 3, 5, 10, "inf"):
        nf = normal_form(L, **RATES)
        j = nf.to_json()
        name = INF if L == "inf" else L
        rows.append(
            f"{name} & {float(j['theta_c']):.6f} & "
            f"{float(j['omega']):.6f} & {float(j['l1']):.6f} & "
            f"{float(j['amplitude_coefficient']):.6f} & {j['criticality']} \\\\"
        )
    s2, s3 = symbolic_normal_form(2), symbolic_normal_form(3)
    N, c_df = describing_function_series()
    text = (
        "The exact difference system (with $\\tanh$) has no quadratic terms at the origin "
        "and the cubic term $\\lambda\\theta^3 x^3/12$ in the $w_1$ equation. Kuznetsov's "
        "projection formula with the eigenvectors $q$ ($q_x = 1$) and $p$ "
        "($\\langle p, q\\rangle = 1$) gives $c_1$; SymPy proves for every $L$ checked "
        f"(here $L = 2, 3$) the identity $c_1 = {tex(s2.ratio)}\\, r'(\\theta)$, "
        "$r'$ the speed of the crossing eigenvalue. Since $\\operatorname{Re} r'(\\theta_c) > 0$ "
        "(the phase of $(r+\\mu)(r+\\gamma)^L$ on the imaginary axis increases), "
        "$\\ell_1 = \\operatorname{Re} c_1/\\omega_c < 0$: \\textbf{the Hopf bifurcation is "
        "supercritical for every $L$, every $\\mu, \\lambda, D$ and for the DDE}. The "
        "structural reason: $\\theta$ enters the linearisation only as the slope of the "
        "saturating nonlinearity $2\\lambda\\tanh(\\theta x/2)$ whose cubic term has the "
        "opposite sign. Two consequences: the amplitude of $x$ is "
        "$A \\approx 4\\,\\theta_c^{-3/2}\\sqrt{\\theta - \\theta_c}$ (it depends on $L, \\mu, D$ "
        "only through $\\theta_c$), and $c_1/r'$ being real, the frequency does not move at "
        "first order: $T = 2\\pi/\\omega_c + O((\\theta-\\theta_c)^2)$. The describing "
        f"function of $\\tanh$ is $N(a) = {tex(N)} + O(a^4)$; harmonic balance "
        f"$\\lambda\\theta N(\\theta A/2) = \\lambda\\theta_c$ gives $c = {tex(c_df)}$, the "
        "same leading term (and a constant period); for the delay-differential model the "
        "amplitude beyond the Hopf point is computed by Lindstedt's method in "
        "\\cite{NovitzkyAmplitudes2019}. Closed forms ($\\gamma = L/D$):\n"
        f"\\[ L = 2:\\ \\ell_1 = {tex(s2.l1)},\\qquad c = {tex(s2.amplitude)} \\]\n"
        f"\\[ L = 3:\\ \\ell_1 = {tex(s3.l1)} \\]\n"
        "Numbers at $\\mu = \\lambda = D = 1$ ($\\ell_1$ normalised by $q_x = 1$):\n\n"
        "\\begin{table}[htbp]\\centering\\caption{The first Lyapunov coefficient $\\ell_1$ and the amplitude coefficient $c$ at the Hopf point, $\\mu = \\lambda = D = 1$.}\\begin{tabular}{rrrrrl}\\toprule\n"
        "$L$ & $\\theta_c$ & $\\omega_c$ & $\\ell_1$ & $c$ & kind \\\\ \\midrule\n"
        + "\n".join(rows)
        + "\n\\bottomrule\\end{tabular}\\end{table}\n\n"
    )
    return text


def _families(quick: bool):
    fams, nfs = {}, {}
    for L in LS if not quick else (2, "inf"):
        nf = normal_form(L, **RATES)
        th_c = float(nf.theta_c)
        top = (20 if L != "inf" else 10) if not quick else 3
        n = (30 if L != "inf" else 6) if not quick else 4
        s = np.linspace(np.sqrt(0.01 * th_c), np.sqrt((top - 1) * th_c), n)
        thetas = [float(th_c + v * v) for v in s]
        fams[L] = limit_cycle(L, theta=thetas, **RATES)
        nfs[L] = nf
    return fams, nfs


def _family_stability(flags) -> str:
    """``yes`` when every cycle is stable, ``no`` when one is unstable, else ``undecided``
    (a cycle's ``stable`` is None when a multiplier is within its error of the circle)."""
    flags = [None if f is None else bool(f) for f in flags]
    if any(f is False for f in flags):
        return "no"
    return "yes" if all(f is True for f in flags) else "undecided"


def _label(L) -> str:
    return "DDE ($L=\\infty$)" if L == "inf" else f"$L={L}$"


def _diagram_part(ctx, quick: bool) -> tuple[str, list]:
    fams, nfs = _families(quick)
    curves, preds, relay, periods, hopf = {}, {}, {}, {}, {}
    rows = []
    for L, fam in fams.items():
        th, a, T, m = (
            np.array([getattr(c, k) for c in fam.points])
            for k in ("theta", "amplitude_x", "period", "stable")
        )
        lab = _label(L)
        curves[lab] = (th, a)
        periods[lab] = (th, T)
        nf = nfs[L]
        th_c = float(nf.theta_c)
        tp = np.linspace(th_c, min(th.max(), 3 * th_c), 200)
        preds[lab] = (tp, nf.amplitude(tp))
        relay[lab] = 8 / (np.pi * th_c)
        hopf[lab] = float(nf.period)
        df = describing_function_amplitude(th[[0, len(th) // 2, -1]], th_c)
        rows.append(
            f"{lab} & {th[0] / th_c - 1:.3f} & {a[0] / nf.amplitude(th[0]) - 1:+.2e} & "
            f"{th[-1] / th_c:.1f} & {a[-1]:.5f} & {df[-1]:.5f} & "
            f"{relay[lab]:.5f} & {_family_stability(m)} \\\\"
        )
    sims = []
    if not quick:
        for eta in SIM_ETAS:
            r = simulated_oscillation(
                2,
                eta,
                theta=SIM_RATIO * float(nfs[2].theta_c),
                T=100.0,
                replications=6,
                **_rates3(),
            )
            sims.append(
                (r.theta, r.amplitude, r.amplitude_halfwidth, f"simulated $L=2$, $\\eta={eta}$")
            )
    p1 = ctx.save(bifurcation_figure(curves, preds, sims, relay), "nonlinear_bifurcation.pdf")
    p2 = ctx.save(period_figure(periods, hopf), "nonlinear_period.pdf")
    sim_rows = "".join(
        f"$\\eta = {lab.split('=')[-1].rstrip('$')}$: ${a:.4f} \\pm {hw:.4f}$; "
        for _, a, hw, lab in sims
    )
    text = (
        "\\subsection{Limit cycles}\n"
        "Cycles are computed directly by Newton--shooting on the exact difference system "
        "(variational equations for the Jacobian, the symmetry $x(t+T/2) = -x(t)$ halves the "
        "interval) and, for $L=\\infty$, by Fourier collocation of the DDE; Floquet "
        "multipliers from the monodromy matrix (a Chebyshev discretisation of the monodromy "
        "operator for the DDE). Each family is continued from $\\theta_c$ to far beyond. "
        "The table compares the first point with the normal form (relative error, "
        "$O(\\theta-\\theta_c)$), the last with harmonic balance (DF) and its relay limit "
        "$8/(\\pi\\theta_c)$; `stable' says whether every cycle of the family has all "
        "non-trivial multipliers inside the unit circle by more than their error bound "
        "(`undecided' when one is within it).\n\n"
        "\\begin{table}[htbp]\\centering\\caption{Limit-cycle families: the first point against the normal form, the last against harmonic balance (DF) and the relay limit.}\\begin{tabular}{lrrrrrrl}\\toprule\n"
        "& $\\theta_1/\\theta_c - 1$ & NF error & $\\theta_n/\\theta_c$ & $A(\\theta_n)$ & DF & "
        "relay & stable \\\\ \\midrule\n"
        + "\n".join(rows)
        + "\n\\bottomrule\\end{tabular}\\end{table}\n\n"
        + (
            f"Simulated amplitude (L = 2, $\\theta = {SIM_RATIO:g}\\,\\theta_c$, 6 paths, 95\\% "
            f"intervals): {sim_rows} fluid cycle "
            f"{limit_cycle(2, theta=SIM_RATIO * float(nfs[2].theta_c), **RATES).amplitude_x:.4f}."
            "\n\n"
            if sims
            else ""
        )
        + ctx.caption(
            p1,
            "Bifurcation diagram: amplitude of $x$ against $\\theta$ for "
            "$L = 2, 3, 5, \\infty$ ($\\mu=\\lambda=D=1$). $L=1$ has no Hopf point.",
        )
        + ctx.caption(p2, "Period of the cycles against $\\theta$.")
    )
    return text, [p1, p2]


def _rates3():
    return {"mu": RATES["mu"], "lam": RATES["lam"], "D": RATES["D"]}


def _spectrum_part(ctx, quick: bool) -> tuple[str, list]:
    specs = [spectrum(2, theta=th, points=1200, **RATES) for th in SPECTRUM_THETAS]
    pg = []
    if not quick:
        p = PERIODOGRAM
        sim = simulate(
            L=2,
            eta=p["eta"],
            theta=p["theta"],
            T=p["T"],
            dt=0.05,
            seed=7,
            replications=4,
            initial=_equilibrium_counts(p["eta"]),
            **RATES,
        )
        w, S, se = periodogram(sim, p["eta"], burn_in=20.0, segment=80.0)
        keep = w <= specs[0].omega.max()
        pg.append(
            (w[keep], S[keep], se[keep], f"simulated, $\\theta={p['theta']}$, $\\eta={p['eta']}$")
        )
    path = ctx.save(
        spectrum_figure(specs, [(w, S, se, lab) for w, S, se, lab in pg]), "nonlinear_spectrum.pdf"
    )
    cf = specs[0].closed_form
    rows = " ".join(
        f"$\\theta={s.parameters['theta']}$: $\\omega_{{peak}}={s.peak_frequency:.4f}$, "
        f"$Q={s.quality_factor:.3g}$;"
        for s in specs
    )
    text = (
        "\\subsection{Below the threshold: quasi-cycles}\n"
        "The linear-noise spectrum of the imbalance, "
        "$S(\\omega) = e_x^T(i\\omega - A)^{-1}B(i\\omega-A)^{-H}e_x$ "
        "(two-sided, $\\operatorname{Var}(x)/\\eta = \\frac{1}{2\\pi}\\int S$), for $L=2$:\n"
        f"\\[ S(\\omega) = {tex(cf)} \\]\n"
        f"Its peak sharpens as $\\theta \\to \\theta_c = 9$: {rows}\n\n"
        + ctx.caption(
            path,
            "LNA spectrum of $\\sqrt{\\eta}\\,x$ for $L=2$, $\\mu=\\lambda=D=1$, "
            "and the Welch periodogram of simulated paths (error bars: two standard "
            "errors over 4 paths).",
        )
    )
    return text, [path]


def _equilibrium_counts(eta):
    L = 2
    q = RATES["lam"] / RATES["mu"]
    z = RATES["lam"] * RATES["D"] / L
    return np.rint(eta * np.array([q, q] + [z] * (2 * L))).astype(np.int64)


def build(ctx) -> Section:
    text = _normal_form_part(ctx.quick)
    t2, f2 = _diagram_part(ctx, ctx.quick)
    t3, f3 = _spectrum_part(ctx, ctx.quick)
    return Section(TITLE, text + t2 + t3, f2 + f3)
