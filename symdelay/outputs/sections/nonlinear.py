"""Report section: beyond the linearisation — Hopf normal form, limit cycles, quasi-cycles.

Every number comes from a record: :mod:`symdelay.models.erlang.nonlinear` (normal form, the
delay-differential cycles, LNA spectrum, simulated oscillation) and the continued branches of
cycles of :func:`symdelay.analysis.continuation.cycles` (the founding model at finite ``L`` in
``theta``, the in-flight model's subcritical branch in ``mu``; :func:`branches`); every formula
is printed from the SymPy object :func:`symdelay.models.erlang.nonlinear.symbolic_normal_form`
derived.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

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
from symdelay.outputs.plots_nonlinear import (
    bifurcation_figure,
    branch_figure,
    period_figure,
    spectrum_figure,
)
from symdelay.outputs.report import Section

__all__ = [
    "ORDER",
    "build",
    "branches",
    "founding_cycles",
    "inflight_branch",
    "Branches",
    "RATES",
    "LS",
    "INFLIGHT",
]

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
#: The founding branches run from theta_c to TOP theta_c (QUICK_TOP in the quick report), on
#: BRANCH_INTERVALS collocation intervals (the amplitude's error about 3e-7 at 20 theta_c).
TOP, QUICK_TOP = 20, 3
BRANCH_INTERVALS = 40
#: An in-flight model whose Hopf point in mu is subcritical (l1 > 0), continued in mu over
#: INFLIGHT_RANGE with arclength steps of at most INFLIGHT_STEP.
INFLIGHT = {"L": 3, "lam": 1, "D": 1, "theta": 90, "kappa": "0.31", "pattern": "first"}
INFLIGHT_RANGE = ("0.9", "1.1")
INFLIGHT_STEP = 0.01


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


@dataclass(frozen=True)
class Branches:
    """The records of the section's cycles: ``founding`` maps ``L`` (``"inf"``: the
    delay-differential equation) to the continued branch in ``theta``; ``normal_forms`` the founding normal form per ``L``; ``inflight`` the
    in-flight model's branch in ``mu`` (its start holds the normal form in ``mu``)."""

    founding: dict
    normal_forms: dict
    inflight: object


def _exact_relay_inf() -> float:
    """The amplitude of the relay cycle of the DDE (``L = inf``, ``theta -> inf``) at
    :data:`RATES`: from an upward zero ``x`` is driven by ``+2 lam`` for the delay ``D``, so
    its maximum is ``(2 lam / mu) (1 - exp(-mu D))`` (half peak-to-peak, by symmetry)."""
    mu, lam, D = (RATES[k] for k in ("mu", "lam", "D"))
    return 2 * lam / mu * (1 - np.exp(-mu * D))


@functools.cache
def founding_cycles(L, quick: bool = False):
    """The founding model's branch of cycles at ``L`` (``mu = lam = D = 1``), once per
    process: continued in ``theta`` from its Hopf point up to ``TOP theta_c`` (collocation,
    pseudo-arclength; a ``CycleBranch``). At ``L = inf`` the entry answers through the
    family: the branch of the delay equation written as a constant-action-delay table."""
    from symdelay.analysis.continuation import cycles
    from symdelay.models import build_model

    th_c = float(normal_form(L, **RATES).theta_c)
    top = QUICK_TOP if quick else TOP
    # the range's lower end only brackets the Hopf point; the branch starts at it
    return cycles(
        build_model("erlang", L=L, **RATES),
        "theta",
        f"{th_c / 2:.6g}",
        f"{top * th_c:.12g}",
        intervals=BRANCH_INTERVALS,
        max_points=400,
    )


@functools.cache
def inflight_branch():
    """The in-flight model's (:data:`INFLIGHT`) branch of cycles in ``mu`` over
    :data:`INFLIGHT_RANGE`, from its subcritical Hopf point through the fold of cycles."""
    from symdelay.analysis.continuation import cycles
    from symdelay.models import build_model

    model = build_model("inflight", **INFLIGHT)
    return cycles(model, "mu", *INFLIGHT_RANGE, max_step=INFLIGHT_STEP, max_points=400)


def branches(quick: bool = False) -> Branches:
    """Every cycle of the section (each computed once per process and budget): the founding
    model's branches at the ``L`` of :data:`LS`, ``L = inf`` included
    (:func:`founding_cycles`), their normal forms, and :func:`inflight_branch`."""
    Ls = LS if not quick else (2, "inf")
    return Branches(
        {L: founding_cycles(L, quick) for L in Ls},
        {L: normal_form(L, **RATES) for L in Ls},
        inflight_branch(),
    )


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
    res = branches(quick)
    fams, nfs = res.founding, res.normal_forms
    curves, preds, relay, periods, hopf = {}, {}, {}, {}, {}
    rows = []
    for L, fam in fams.items():
        th, a, T, m = fam.arrays()
        m = [None if np.isnan(v) else bool(v) for v in m]
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
    specials = "; ".join(
        f"{_label(L)}: "
        + (
            ", ".join(f"{s_.kind} at $\\theta = {_sig(s_.value, 6)}$" for s_ in b.special_points)
            or "none"
        )
        for L, b in fams.items()
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
        "The cycles are one branch for each $L$, continued in $\\theta$ from the Hopf "
        "point by pseudo-arclength continuation of the periodic boundary value problem of "
        f"the full fluid model, orthogonal collocation ({BRANCH_INTERVALS} mesh intervals "
        "of degree 4, adapted), Floquet multipliers with an error bound (the same orbit on "
        "every other mesh point): at finite $L$ from the collocation's monodromy matrix; at "
        "$L=\\infty$ the fluid model is the DDE, the founding model written with a constant "
        "action delay $D$ (a job routed at $t$ by the queue lengths then joins at $t + D$), "
        "its collocation reads the orbit a delay back and its multipliers are those of the "
        "discretised monodromy operator. Each branch runs from $\\theta_c$ to "
        f"${QUICK_TOP if quick else TOP}\\,\\theta_c$ (special points on them: {specials}). "
        "The table compares the first point with the normal form (relative error, "
        "$O(\\theta-\\theta_c)$), the last with harmonic balance (DF) and its relay limit "
        "$8/(\\pi\\theta_c)$ (the describing function's estimate of the $\\theta \\to "
        "\\infty$ amplitude, first harmonic only). At $L=\\infty$ the relay limit is exact: "
        "$x' = -\\mu x - 2\\lambda\\,\\mathrm{sgn}\\,x(t-D)$ rises for a time $D$ after each "
        "upward zero, so its cycle has amplitude $(2\\lambda/\\mu)(1 - e^{-\\mu D}) = "
        f"{_exact_relay_inf():.5f}$, which the branch approaches from below and the "
        "describing function underestimates; `stable' says whether every cycle of the family has all "
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


def _sig(x, digits: int) -> str:
    """``x`` to ``digits`` significant digits (the text's numbers, read back by the tests)."""
    return f"{float(x):.{digits}g}"


def _largest_multiplier(points) -> float:
    return max(float(np.max(np.abs(c.nontrivial))) for c in points if c.nontrivial.size)


def _stability_counts(stable) -> str:
    n_s, n_u = int(np.sum(stable == 1)), int(np.sum(stable == 0))
    n_x = int(np.sum(np.isnan(stable)))
    parts = [f"{n_s} stable", f"{n_u} unstable"] + ([f"{n_x} undecided"] if n_x else [])
    return ", ".join(parts)


def _branch_part(ctx, quick: bool) -> tuple[str, list]:
    b, nf = founding_cycles(2, quick), normal_form(2, **RATES)
    p, a, T, st = b.arrays()
    th_c = float(b.start["value"])
    c = float(b.start["amplitude_coefficient"])
    top = float(p.max())
    law_p = np.linspace(th_c, min(top, 2 * th_c), 200)
    f1 = branch_figure(
        b,
        law=(law_p, c * np.sqrt(law_p - th_c), r"normal form $c\sqrt{\theta-\theta_c}$"),
        upto=min(top, 4 * th_c),
    )
    p1 = ctx.save(f1, "nonlinear_branch_founding.pdf")
    kinds = ", ".join(sorted({s_.kind for s_ in b.special_points})) or "none"
    founding_text = (
        "\\subsection{Continued branches of cycles and their special points}\n"
        "Each branch above is one continuation, so its orbits carry their Floquet "
        "multipliers and the test functions of the special points (fold of cycles LPC: the parameter "
        "turns; period doubling PD: a multiplier through $-1$; Neimark--Sacker NS: a complex "
        "pair through the unit circle; BPC: a multiplier through $+1$ without a fold). For "
        f"$L = 2$ ($\\mu=\\lambda=D=1$) the branch starts at the Hopf point "
        f"$\\theta_c = {_sig(th_c, 10)}$ from the normal form's first cycle "
        f"($\\ell_1 = {_sig(b.start['l1'], 6)}$, {b.start['criticality']}) and reaches "
        f"$\\theta = {_sig(top, 6)}$ in {len(p)} orbits: {_stability_counts(st)}, the largest "
        f"non-trivial multiplier $|\\rho| = {_sig(_largest_multiplier(b.points), 4)}$ "
        f"(special points: {kinds}). Its first orbit, at $\\theta = {_sig(p[0], 8)}$, has "
        f"the amplitude $A = {_sig(a[0], 6)}$, the normal form's "
        f"$c\\sqrt{{\\theta-\\theta_c}}$ ($c = {_sig(c, 6)}$) times "
        f"${_sig(a[0] / (c * np.sqrt(p[0] - th_c)), 6)}$; the period leaves "
        f"$2\\pi/\\omega_c = {_sig(float(nf.period), 8)}$ only at second order "
        f"(${_sig(T[0], 8)}$ there, ${_sig(T[-1], 6)}$ at the end).\n\n"
        + ctx.caption(
            p1,
            "The founding model's branch of cycles from its Hopf point H ($L = 2$, "
            "$\\mu=\\lambda=D=1$; shown up to $4\\theta_c$): amplitude and period against "
            "$\\theta$ (solid: stable; dashed: unstable; dotted: undecided / change; "
            "dash-dotted: normal form $c\\sqrt{\\theta-\\theta_c}$).",
        )
    )

    bi = inflight_branch()
    q, ai, _, si = bi.arrays()
    mu_c = float(bi.start["value"])
    ci = float(bi.start["amplitude_coefficient"])
    folds = [s_ for s_ in bi.special_points if s_.kind == "LPC"]
    last = bi.points[-1]
    law_q = np.linspace(mu_c, max(q.max(), mu_c), 200)
    f2 = branch_figure(
        bi, law=(law_q, ci * np.sqrt(np.abs(law_q - mu_c)), r"normal form $c\sqrt{\mu-\mu_c}$")
    )
    p2 = ctx.save(f2, "nonlinear_branch_inflight.pdf")
    first = int(np.argmin(np.abs(q - mu_c)))
    ratio = ai[first] / (ci * np.sqrt(abs(q[first] - mu_c)))
    pars = ", ".join(f"{k} = {v}" for k, v in INFLIGHT.items() if k not in ("pattern",))
    pars = pars.replace("lam", "\\lambda").replace("kappa", "\\kappa").replace("theta", "\\theta")
    if folds:
        lpc = folds[0]
        mults = np.asarray(lpc.multipliers, dtype=complex)
        crit = mults[np.argmin(np.abs(mults - 1))] if mults.size else np.nan
        fold_text = (
            f"The branch turns at the fold of cycles (LPC) $\\mu = {_sig(lpc.value, 8)}$ "
            f"(amplitude ${_sig(lpc.amplitude, 6)}$, period ${_sig(lpc.period, 6)}$, a "
            f"non-trivial multiplier ${_sig(np.real(crit), 6)}$ there"
            + ("" if lpc.located else ", location not converged")
            + "), where the unstable inner cycles meet stable outer ones. "
            f"For $\\mu_c < \\mu < {_sig(lpc.value, 8)}$ a stable equilibrium, an unstable "
            "cycle and a stable large cycle coexist: the linear criterion calls this range "
            "stable, yet a perturbation beyond the unstable cycle ends on the outer one "
            "(hysteresis). "
        )
    else:
        fold_text = "No fold of cycles was found on the branch in this range. "
    inflight_text = (
        f"The in-flight model (the in-flight weight $\\kappa$ on the first delay phase, ${pars}$) continued in "
        f"$\\mu$ over $[{INFLIGHT_RANGE[0]}, {INFLIGHT_RANGE[1]}]$ has its Hopf point at "
        f"$\\mu_c = {_sig(mu_c, 10)}$ with $\\ell_1 = {_sig(bi.start['l1'], 6)} > 0$: "
        f"{bi.start['criticality']}, so the cycles born there lie on the side where the "
        f"equilibrium is stable ($\\mu$ {bi.start['side']} $\\mu_c$) and are unstable. The "
        f"first, at $\\mu = {_sig(q[first], 8)}$, has the amplitude ${_sig(ai[first], 6)}$, "
        f"the normal form's $c\\sqrt{{\\mu-\\mu_c}}$ ($c = {_sig(ci, 6)}$) times "
        f"${_sig(ratio, 6)}$. "
        + fold_text
        + f"The branch ({len(q)} orbits: {_stability_counts(si)}) ends at $\\mu = "
        f"{_sig(last.value, 6)}$ on a {('stable' if last.stable else 'unstable' if last.stable is False else 'undecided')} "
        f"cycle of amplitude ${_sig(last.amplitude, 6)}$ and period ${_sig(last.period, 6)}$ "
        f"(largest non-trivial $|\\rho| = {_sig(np.max(np.abs(last.nontrivial)), 4)}$).\n\n"
        + ctx.caption(
            p2,
            "The in-flight model's subcritical branch in $\\mu$ from its Hopf point H to the "
            "fold of cycles LPC and the stable outer cycles (solid: stable; dashed: unstable; "
            "dotted: undecided / change; dash-dotted: normal form $c\\sqrt{\\mu-\\mu_c}$).",
        )
    )
    return founding_text + inflight_text, [p1, p2]


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
    tb, fb = _branch_part(ctx, ctx.quick)
    t3, f3 = _spectrum_part(ctx, ctx.quick)
    return Section(TITLE, text + t2 + tb + t3, f2 + fb + f3)
