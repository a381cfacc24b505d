"""Report section: the stochastic system — fluid limit evidence, the paper's numerical
section reproduced, and the stationary variance of the imbalance (LNA).

One function per subsection, each returning ``(LaTeX, figure paths)``; :func:`build` only
assembles them. Every formula is printed from the SymPy object the analysis code computed
(the model's equilibrium and difference system,
:func:`symdelay.models.erlang.stability.founding_closed_forms`, :func:`symdelay.models.erlang.charpoly.special_case`,
:func:`symdelay.models.erlang.stochastic.closed_form_variance`), and a number quoted for a formula is
that object with the model's exact parameter values substituted.
"""

from __future__ import annotations

import itertools
import math
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from symdelay.analysis.waves import fluid_wave_peaks
from symdelay.core import symbols as S
from symdelay.core.latex import Equation, tex
from symdelay.core.lazy import sympy as sp
from symdelay.models.erlang.action_delay import ActionDelayModel
from symdelay.models.erlang.charpoly import special_case
from symdelay.models.erlang.stability import founding_closed_forms
from symdelay.models.erlang.stochastic import (
    closed_form_singularity,
    closed_form_theta_limit,
    closed_form_variance,
    fluid,
    fluid_difference,
    fluid_limit_study,
    hopf_theta,
    lna_matrices,
    minimising_theta,
    simulate,
    simulated_variance,
    spectral_abscissa,
    variance,
    variance_curve,
)
from symdelay.outputs.plots_stochastic import (
    fluid_limit_figure,
    imbalance_figure,
    paths_figure,
    phase_plane_figure,
    variance_figure,
    wave_figure,
)
from symdelay.outputs.progress import progress_bar
from symdelay.outputs.report import Section
from symdelay.outputs.sections._shared import founding_theta_c

__all__ = ["ORDER", "build", "FIGURE_PARAMETERS", "PHASE_THETAS", "VARIANCE_CASES"]

ORDER = 60
TITLE = "The stochastic system: simulation, fluid limit, variance"

#: Parameters of the time-domain figures (the paper's Figs. 2-4 and 7).
FIGURE_PARAMETERS = {"mu": 0.2, "lam": 2, "theta": 5, "D": 2.5}
#: Follow one swing of the wave from this time on (after the initial transient).
WAVE_FROM = 5.0
#: Phase plots (x, w_L): D = 4 (the paper's value), other rates as above.
PHASE_PARAMETERS = {"mu": 0.2, "lam": 2, "theta": 5, "D": 4}
#: Phase plots (x, w_1), L = 1, across theta (mu = lam = 1, D = 4).
PHASE_THETAS = {"small": (0.05, 0.2, 0.5), "large": (10,)}
THETA_SWEEP = {"mu": 1, "lam": 1, "D": 4}
#: (L, theta, D) of the variance check (mu = lam = 1).
VARIANCE_CASES = ((1, 2, 1), (1, 10, 1), (2, 2, 1), (2, 5, 1), (2, 2, 2), (3, 2, 1))
#: The fluid-limit experiment (same as benchmarks/bench_fluid_limit.py).
FLUID_LIMIT = {"mu": 1, "lam": 1, "theta": 10, "D": 1}
#: Horizon of the sample paths and their fluid limits (Figs. 2-4 and 7).
PATHS_T = 20.0
#: Rates of the variance study (theta and D vary).
VARIANCE_RATES = {"mu": 1, "lam": 1}

#: What a subsection returns: its LaTeX and the figure files it refers to.
Part = tuple[str, list[str]]


@dataclass(frozen=True)
class _Budget:
    """How much to simulate: the quick budget (tests) or the full one (the report)."""

    etas: tuple  # eta of the sample paths
    phase_T: float  # length of the (x, w_L) phase plots
    fl_etas: tuple  # eta of the fluid-limit study
    reps: int  # replications per (L, eta) cell of the fluid-limit study
    n_boot: int  # bootstrap resamples of the log-log slope
    cases: tuple  # variance cases checked by simulation
    eta_v: int  # eta of the variance simulations
    T_v: float  # their length
    Ls: tuple  # L of the variance curves
    npts: int  # theta points per variance curve

    @property
    def steps(self) -> int:
        """Progress-bar total: sample paths, fluid-limit replications, variance runs."""
        return 2 * len(self.etas) + 2 * len(self.fl_etas) * self.reps + len(self.cases)


QUICK = _Budget(
    etas=(100, 1000), phase_T=40.0, fl_etas=(100, 400), reps=4, n_boot=300,
    cases=VARIANCE_CASES[:2], eta_v=200, T_v=600, Ls=(1, 2), npts=12,
)  # fmt: skip
FULL = _Budget(
    etas=(1000, 10000), phase_T=80.0, fl_etas=(10**2, 10**3, 10**4, 10**5), reps=20,
    n_boot=4000, cases=VARIANCE_CASES, eta_v=1000, T_v=4000, Ls=(1, 2, 3, 4), npts=60,
)  # fmt: skip


@dataclass(frozen=True)
class _Runs:
    """The sample paths and fluid solutions shared by Figs. 2-4 and 7."""

    flu: dict  # L -> the fluid path (a TimeSeries)
    sims: dict  # L -> [(panel label, simulation), ...], one per eta


# ------------------------------------------------------------------------------ helpers
def _fmt(v, d=3) -> str:
    return f"{v:.{d}f}"


def _swing_peaks(x) -> list:
    """max |x| between successive zero crossings (skipping the initial transient swing)."""
    idx = np.where(np.diff(np.sign(x)) != 0)[0]
    return [float(np.abs(x[a:b]).max()) for a, b in itertools.pairwise(idx)]


def _values(L, **given) -> dict:
    """The model's exact parameter values ``{symbol: number}`` (``gamma = L/D`` is set by
    :class:`ActionDelayModel`), to substitute into a formula."""
    model = ActionDelayModel(L, **given)
    return {S.SYMBOLS[k]: v for k, v in model.parameters().items() if k != "L" and v.is_number}


@contextmanager
def _progress(budget: _Budget, quick: bool):
    """Counts the section's runs; yields its ``update``. No bar of its own: the report's
    bar (:func:`symdelay.outputs.progress.progress_bar`, on a terminal only) counts the
    sections, which may run in worker processes side by side."""
    bar = progress_bar(budget.steps, "stochastic section", stream=None)
    with bar as b:
        yield b.update


def _x(ts):
    """The imbalance ``x = q1 - q2`` of a founding-model time series."""
    return ts["q1"] - ts["q2"]


def _time_runs(budget: _Budget, tick) -> _Runs:
    p = FIGURE_PARAMETERS
    flu = {L: fluid(L=L, **p, T=PATHS_T, dt=0.01) for L in (1, 2)}
    sims = {}
    for L in (1, 2):
        sims[L] = [
            (f"L = {L}, $\\eta = {e}$", simulate(L=L, eta=e, **p, T=PATHS_T, dt=0.02, seed=10 + L))
            for e in budget.etas
        ]
        tick(len(budget.etas))
    return _Runs(flu, sims)


# ------------------------------------------------------------------ chosen parameters
def _intro() -> str:
    return (
        "The Markov jump process of the model is simulated exactly (Gillespie's direct "
        "method, one compiled C kernel; every transition is simulated) and compared with the "
        "fluid ODEs integrated by SciPy's \\texttt{solve\\_ivp} (DOP853, "
        "$\\mathrm{rtol}=10^{-10}$, $\\mathrm{atol}=10^{-12}$) from the model layer's "
        "right-hand side. Initial state as in Abe and Phung-Duc \\cite{AbePhungDuc}: $Q_1(0)=0$, $Q_2(0)=\\eta$, "
        "$Z=0$.\n\n"
    )


def _l1_text(p) -> str:
    """L = 1 at the figure parameters: damped, and no theta destabilises it."""
    abscissa = spectral_abscissa(1, **p)
    theta_c = hopf_theta(1, p["mu"], p["lam"], p["D"])
    text = (
        "For $L=1$ the spectral abscissa of the difference Jacobian (numpy eigenvalues) is "
        f"${_fmt(abscissa)}$ (damped oscillation); "
    )
    if founding_closed_forms(1)["stable_for_all_theta"] and not np.isfinite(theta_c):
        return text + (
            "no $\\theta\\ge 0$ destabilises $L=1$ (Routh--Hurwitz leaves no condition, and "
            "the Hopf solver \\texttt{symdelay.models.erlang.hopf.critical\\_theta} finds no crossing). "
        )
    return text + f"the Hopf solver gives $\\theta_c={_fmt(theta_c, 6)}$. "


def _l2_text(p) -> str:
    """L = 2 at the figure parameters: the Hopf threshold, from the solver and in closed
    form (Routh--Hurwitz), with the numpy eigenvalues on either side as a check."""
    vals = _values(2, **p)
    two = founding_closed_forms(2)
    k_c = float(two["critical_lam_theta"].subs(vals))
    theta_c = hopf_theta(2, p["mu"], p["lam"], p["D"])
    lam_theta_c = p["lam"] * theta_c
    agree = math.isclose(lam_theta_c, k_c, rel_tol=1e-9)
    below = spectral_abscissa(2, p["mu"], p["lam"], 0.99 * theta_c, p["D"])
    above = spectral_abscissa(2, p["mu"], p["lam"], 1.01 * theta_c, p["D"])
    return (
        "For $L=2$ the Hopf solver gives the "
        f"threshold $\\theta_c={_fmt(theta_c, 6)}$, i.e. $\\lambda\\theta_c="
        f"{_fmt(lam_theta_c, 6)}$, "
        + ("equal to" if agree else "whereas Routh--Hurwitz gives")
        + f" the closed form $k_c={tex(two['critical_lam_theta'])}="
        f"{tex(two['critical_lam_theta_in_D'])}={_fmt(k_c, 6)}$ (the condition of \\cite{{AbePhungDuc}}, from "
        "Routh--Hurwitz); the numpy eigenvalues of the difference Jacobian "
        + ("confirm it" if below < 0 < above else "do not confirm it")
        + f" (spectral abscissa ${_fmt(below, 4)}$ at $0.99\\,\\theta_c$, ${_fmt(above, 4)}$ "
        f"at $1.01\\,\\theta_c$). Here $\\lambda\\theta={p['lam'] * p['theta']}$ and the "
        f"abscissa is ${_fmt(spectral_abscissa(2, **p))}>0$. "
    )


def _amplitude_text(p) -> str:
    """Growth and saturation of the L = 2 fluid oscillation, and why lam/mu = 10."""
    model = ActionDelayModel(2)
    q_star = model.equilibrium()[model.q[0]]
    routing = next(
        term
        for row in model.difference_system().rhs
        for term in sp.Add.make_args(row)
        if term.has(sp.tanh)
    )
    ratio = q_star.subs(_values(2, **p))
    peaks = _swing_peaks(_x(fluid(L=2, **p, T=60, dt=0.01)))
    lt = p["lam"] * p["theta"]
    same = fluid(L=2, mu=p["mu"], lam=p["mu"], theta=lt / p["mu"], D=p["D"], T=60, dt=0.01)
    cycle = _swing_peaks(_x(same))[-1]
    return (
        f"Successive peaks of $|x|$ of the fluid solution ($L=2$) grow from {_fmt(peaks[0])} "
        f"to {_fmt(peaks[-1])} and level off (the routing term ${tex(routing)}$ of the "
        f"difference mode is bounded and saturates). We chose $q^*={tex(q_star)}={tex(ratio)}$ "
        "because with $\\lambda=\\mu$ and the same "
        f"$\\lambda\\theta$ the limit-cycle amplitude is only {_fmt(cycle)}, "
        "below the initial imbalance $|x(0)|=1$, so from that initial state the "
        "oscillation would only shrink onto the cycle. "
    )


def _sweep_text() -> str:
    """Phase-plot parameters, and where the L = 1 roots turn complex in the theta sweep."""
    q = PHASE_PARAMETERS
    sweep = _values(1, **THETA_SWEEP)
    oscillation = special_case(1).oscillation_condition
    real = sp.Not(oscillation)
    real_at = sp.Not(oscillation.subs(sweep)).canonical
    return (
        f"Phase plots $(x,w_L)$ use the same rates with $D={q['D']}$: abscissa "
        f"${_fmt(spectral_abscissa(1, **q))}$ ($L=1$) and ${_fmt(spectral_abscissa(2, **q))}$ "
        "($L=2$). The $\\theta$ sweep for $L=1$ uses "
        f"$\\mu=\\lambda=1$, $D={THETA_SWEEP['D']}$ ($\\gamma={tex(sweep[S.gamma])}$): the "
        f"roots are real iff ${tex(real)}$, i.e. ${tex(real_at)}\\approx "
        f"{float(real_at.rhs):g}$, so "
        f"$\\theta\\in\\{{{', '.join(str(t) for t in PHASE_THETAS['small'])}\\}}$ show "
        f"(nearly) a single excursion and $\\theta={PHASE_THETAS['large'][0]}$ a spiral.\n\n"
    )


def _parameters_part() -> Part:
    p = FIGURE_PARAMETERS
    text = (
        "\\paragraph{Chosen parameters.} Abe and Phung-Duc \\cite{AbePhungDuc} do not print $\\lambda,\\mu,\\theta$ for "
        f"most figures. For the time plots we take $\\mu={p['mu']}$, $\\lambda={p['lam']}$, "
        f"$\\theta={p['theta']}$, $D={p['D']}$. "
    )
    return text + _l1_text(p) + _l2_text(p) + _amplitude_text(p) + _sweep_text(), []


# ------------------------------------------------------------------------- figures
def _paths_part(ctx, runs: _Runs) -> Part:
    """Sample paths against the fluid limit (the paper's Figs. 2, 3)."""
    out, figs = [], []
    for L, word in ((1, "damped"), (2, "growing, then saturating")):
        title = f"L = {L}: sample paths vs fluid limit ({word})"
        path = ctx.save(
            paths_figure(runs.sims[L], runs.flu[L], title), f"stochastic_paths_L{L}.pdf"
        )
        figs.append(path)
        out.append(
            ctx.caption(
                path,
                f"Scaled jobs in service, $L={L}$: single sample paths for two $\\eta$ and the "
                f"fluid limit ({word} oscillation).",
            )
        )
    return "".join(out), figs


def _wave_part(ctx, runs: _Runs) -> Part:
    """The wave through the delay phases (the paper's Fig. 4)."""
    swing = fluid_wave_peaks(runs.flu[2], t_from=WAVE_FROM)
    sim = runs.sims[2][-1][1]
    path = ctx.save(
        wave_figure(sim, runs.flu[2], swing, (WAVE_FROM, PATHS_T)), "stochastic_wave.pdf"
    )
    gaps = np.diff(swing)
    text = (
        "\\paragraph{The wave through the delay phases.} Following one swing of the fluid "
        f"solution ($L=2$) after $t={WAVE_FROM:g}$: $z_{{1,1}}$ peaks at $t={_fmt(swing[0])}$, "
        f"$z_{{1,2}}$ at $t={_fmt(swing[1])}$, $q_1$ at $t={_fmt(swing[2])}$ (this order is "
        f"checked by a test). The phase-to-phase lag is ${_fmt(gaps[0])}$ and the lag into "
        f"service is ${_fmt(gaps[1])}$, "
        + ("larger" if gaps[1] > gaps[0] else "not larger")
        + " as Abe and Phung-Duc state \\cite{AbePhungDuc}.\n\n"
        + ctx.caption(
            path,
            "$z_{1,1}$, $z_{1,2}$ and $q_1$ for $L=2$ (simulation at the larger "
            "$\\eta$ and fluid); dotted lines: fluid peak times of one swing.",
        )
    )
    return text, [path]


def _theta_curves(key: str) -> list:
    s = THETA_SWEEP
    curves = []
    for th in PHASE_THETAS[key]:
        r = fluid_difference(L=1, **s, theta=th, T=60, dt=0.02, initial=(0.5, 0))
        curves.append((f"$\\theta$ = {th}", r["x"], r["w"][0]))
    return curves


def _phase_part(ctx, budget: _Budget) -> Part:
    """Phase plots of the fluid difference mode (the paper's Figs. 5, 6)."""
    q = PHASE_PARAMETERS
    d1 = fluid_difference(L=1, **q, T=budget.phase_T, dt=0.02, initial=(0.5, 0))
    d2 = fluid_difference(L=2, **q, T=budget.phase_T, dt=0.02, initial=(0.5, 0))
    panels = [
        ("L = 1 (stable focus)", [("L = 1", d1["x"], d1["w"][-1])], "$w_1$"),
        (
            "L = 2 (unstable: spirals out to a limit cycle)",
            [("L = 2", d2["x"], d2["w"][-1])],
            "$w_2$",
        ),
    ]
    title = f"phase plots $(x, w_L)$, D = {q['D']}, start (0.5, 0)"
    wl = ctx.save(phase_plane_figure(panels, title), "stochastic_phase_wL.pdf")
    panels = [
        ("small $\\theta$", _theta_curves("small"), "$w_1$"),
        ("large $\\theta$ (near JSQ)", _theta_curves("large"), "$w_1$"),
    ]
    title = "L = 1: phase plots $(x, w_1)$ across $\\theta$"
    sweep = ctx.save(phase_plane_figure(panels, title), "stochastic_phase_theta.pdf")
    text = ctx.caption(wl, "Phase plots $(x, w_L)$ of the fluid difference mode with $D=4$.")
    text += ctx.caption(sweep, "$L=1$, $\\mu=\\lambda=1$, $D=4$: $(x,w_1)$ from $(0.5,0)$.")
    return text, [wl, sweep]


def _imbalance_part(ctx, runs: _Runs) -> Part:
    """The imbalance x(t), simulation and fluid (the paper's Fig. 7)."""
    curves = []
    for L, style in ((1, "C0"), (2, "C3")):
        sim = runs.sims[L][-1][1]
        eta = sim.parameters["eta"]
        curves.append((f"L = {L} simulation ($\\eta$ = {eta})", sim.t, _x(sim), style + "-"))
        flu = runs.flu[L]
        curves.append((f"L = {L} fluid", flu.t, _x(flu), "k--" if L == 1 else "k:"))
    path = ctx.save(imbalance_figure(curves, "imbalance x(t)"), "stochastic_imbalance.pdf")
    caption = (
        "The imbalance $x=q_1-q_2$: damped for $L=1$, bounded limit cycle for $L=2$ "
        "(tanh saturates)."
    )
    return ctx.caption(path, caption, "0.8"), [path]


# ------------------------------------------------------------------------ fluid limit
def _slopes_text(study, fl_etas) -> str:
    text = "; ".join(
        f"$L={L}$: slope ${s:.3f}$, 95\\% bootstrap interval $[{lo:.3f}, {hi:.3f}]$"
        for L, (s, (lo, hi)) in study.slopes.items()
    )
    if study.slopes_without_smallest:
        fits = "; ".join(
            f"$L={L}$: ${s:.3f}$ $[{lo:.3f}, {hi:.3f}]$"
            for L, (s, (lo, hi)) in study.slopes_without_smallest.items()
        )
        text += f". Fitted on $\\eta\\ge {fl_etas[1]}$ only: {fits}"
    return text + "."


def _slope_verdict(study) -> str:
    """Does each bootstrap interval contain Kurtz's -1/2 (with or without the smallest eta)?"""
    verdict = []
    for L, (_, (lo, hi)) in study.slopes.items():
        inside = lo <= -0.5 <= hi
        text = f"for $L={L}$ the interval {'contains' if inside else 'excludes'} $-1/2$"
        if not inside and L in study.slopes_without_smallest:
            _, (lo2, hi2) = study.slopes_without_smallest[L]
            if lo2 <= -0.5 <= hi2:
                text += (
                    " over all $\\eta$ but contains it without the smallest $\\eta$, whose "
                    "distance is of the order of the oscillation itself (pre-asymptotic)"
                )
        verdict.append(text)
    verdict = "; ".join(verdict)
    return verdict[0].upper() + verdict[1:] + "."


def _fluid_limit_part(ctx, budget: _Budget, tick) -> Part:
    """The distance to the fluid limit shrinks at rate eta^(-1/2)."""
    study = fluid_limit_study(
        etas=budget.fl_etas, replications=budget.reps, **FLUID_LIMIT, T=20, dt=0.05,
        n_boot=budget.n_boot, progress=None if ctx.quick else tick,
    )  # fmt: skip
    path = ctx.save(fluid_limit_figure(study), "stochastic_fluid_limit.pdf")
    rows = "".join(f"{L} & {e} & {m:.5f} & {se:.5f} & {m * e**0.5:.2f}\\\\\n"
                   for L, e, m, se in study.rows())  # fmt: skip
    fl_abs = {L: spectral_abscissa(L, **FLUID_LIMIT) for L in (1, 2)}
    text = (
        "\\paragraph{The fluid limit holds at rate $\\eta^{-1/2}$.} "
        f"With $\\mu={FLUID_LIMIT['mu']}$, $\\lambda={FLUID_LIMIT['lam']}$, "
        f"$\\theta={FLUID_LIMIT['theta']}$, $D={FLUID_LIMIT['D']}$ (spectral abscissa "
        f"{fl_abs[1]:.3f} for $L=1$, {fl_abs[2]:.3f} for $L=2$), {budget.reps} replications "
        "per cell, the distance of a path is "
        "$\\sup_{t\\le 20}\\max_k|S_k(t)/\\eta-s_k(t)|$ over all $2(L+1)$ coordinates "
        "(grid step 0.05). Log--log slopes of the mean distance: "
        + _slopes_text(study, budget.fl_etas)
        + " Theory (Kurtz's central limit theorem): $-1/2$. "
        + _slope_verdict(study)
        + "\n\n\\begin{table}[htbp]\\centering\\caption{Distance between the scaled sample paths and the fluid limit as $\\eta$ grows.}\\begin{tabular}{rrrrr}\\toprule\n"
        "$L$ & $\\eta$ & mean sup distance & std.\\ error & $\\sqrt\\eta\\times$mean\\\\\n"
        f"\\midrule\n{rows}\\bottomrule\\end{{tabular}}\\end{{table}}\n\n"
        + ctx.caption(
            path,
            "Mean sup distance between scaled path and fluid limit against "
            "$\\eta$ (bars: 95\\% normal intervals), with $\\eta^{-1/2}$ guides.",
            "0.7",
        )
    )
    return text, [path]


# --------------------------------------------------------------------------- variance
@dataclass(frozen=True)
class _VarianceCurves:
    curves: dict  # L -> (thetas, LNA variances)
    thresholds: dict  # L -> theta_c (Hopf solver; inf without a crossing)
    optima: dict  # L -> (theta*, Var at theta*)
    monotone: dict  # L without a threshold -> is the curve strictly decreasing?
    findings: list  # one LaTeX clause per L


def _variance_checks(budget: _Budget, tick) -> tuple[list, str]:
    """LNA against long simulations: the figure's check points and the table rows."""
    checks, rows = [], []
    for L, th, D in budget.cases:
        lna = float(variance(L=L, **VARIANCE_RATES, theta=th, D=D, closed_form=False))
        sv = simulated_variance(L=L, eta=budget.eta_v, **VARIANCE_RATES, theta=th, D=D,
                                T=budget.T_v, burn_in=50, dt=0.25, batches=20,
                                seed=100 + L)  # fmt: skip
        tick()
        inside = sv.interval[0] <= lna <= sv.interval[1]
        if D == 1:
            checks.append((L, th, sv.estimate, sv.halfwidth))
        rows.append(
            f"{L} & {th} & {D} & {lna:.4f} & {sv.estimate:.4f} & "
            f"$[{sv.interval[0]:.4f}, {sv.interval[1]:.4f}]$ & {'yes' if inside else 'no'}\\\\\n"
        )
    return checks, "".join(rows)


def _no_threshold_finding(L, th, v, mono: bool) -> str:
    """Without a Hopf threshold: monotone in theta or not, from the value at theta = 0
    (the closed form there, when there is one) to the last point."""
    cf = closed_form_variance(L)
    start = f"{v[0]:.4f}" if cf is None else f"{tex(cf.subs(S.theta, 0))}={v[0]:.4f}"
    return (
        f"$L={L}$: "
        + ("strictly decreasing" if mono else "not monotone")
        + f" on $[0,{th[-1]:g}]$ (no Hopf threshold), from ${start}$ "
        f"to ${v[-1]:.4f}$ at $\\theta={th[-1]:g}$"
    )


def _variance_curves(budget: _Budget) -> _VarianceCurves:
    """The LNA variance against theta (D = 1) for each L, its minimum and threshold."""
    rates = (VARIANCE_RATES["mu"], VARIANCE_RATES["lam"], 1)
    curves, thresholds, optima, monotone, findings = {}, {}, {}, {}, []
    for L in budget.Ls:
        tc = founding_theta_c(L, *rates)
        thresholds[L] = tc
        top = 20.0 if not np.isfinite(tc) else tc * 0.97
        th = np.linspace(0.0, top, budget.npts)
        v = variance_curve(L, th, **VARIANCE_RATES, D=1)
        curves[L] = (th, v)
        tstar, vstar = minimising_theta(L, *rates)
        optima[L] = (tstar, vstar)
        if np.isfinite(tstar):
            findings.append(
                f"$L={L}$: minimum ${vstar:.4f}$ at $\\theta^*={tstar:.4f}$, "
                f"then increasing without bound as $\\theta\\to\\theta_c={tc:.4f}$"
            )
        else:
            monotone[L] = bool(np.all(np.diff(v[np.isfinite(v)]) < 0))
            findings.append(_no_threshold_finding(L, th, v, monotone[L]))
    return _VarianceCurves(curves, thresholds, optima, monotone, findings)


def _variance_conclusion(vc: _VarianceCurves, Ls) -> str:
    """Does more aggressive routing lower the imbalance variance? Read off the curves."""
    mono_l1 = vc.monotone.get(1, False)
    finite = [L for L in Ls if L >= 2 and np.isfinite(vc.optima[L][0])]
    conclusion = (
        "So with an exponential delay ($L=1$) more aggressive routing "
        + ("always lowers" if mono_l1 else "does not always lower")
        + " the variance, but only down to the positive limit above, not to zero"
    )
    if finite == [L for L in Ls if L >= 2]:
        conclusion += (
            "; for every $L\\ge 2$ computed there is an optimal finite $\\theta^*$, beyond "
            "which the delayed feedback amplifies the fluctuations and the variance grows "
            "without bound at the Hopf threshold: aggressive routing increases the imbalance "
            "variance once $\\theta>\\theta^*$"
        )
        ts = [vc.optima[L][0] for L in finite]
        if len(ts) >= 2 and all(a > b for a, b in itertools.pairwise(ts)):
            conclusion += ", and $\\theta^*$ decreases as the number of phases $L$ grows"
    return conclusion + "."


def _closed_form_text(vc: _VarianceCurves) -> str:
    """The Lyapunov equation, its closed-form solutions (SymPy) and their singularity."""
    A, B = lna_matrices(1)
    sing2 = closed_form_singularity(2)
    sing2_num = float(sing2.subs(_values(2, **VARIANCE_RATES, D=1)))
    return (
        "\\paragraph{Stationary variance of the imbalance.} Below the Hopf threshold the "
        "linear-noise approximation gives $\\mathrm{Var}(Q_1-Q_2)/\\eta\\to\\Sigma_{00}$, where "
        "$A\\Sigma+\\Sigma A^\\top+B=0$, $A$ is the difference Jacobian and $B=P B_{\\rm full}"
        "P^\\top$ projects the diffusion matrix $\\sum_\\nu \\nu\\nu^\\top\\beta_\\nu(s^*)$ of "
        "the transition table onto $(x,w_1,\\dots,w_L)$ (derived by SymPy; the drift of the "
        "same table is checked against the fluid right-hand side). For $L=1$:\n"
        f"\\[\n{tex(Equation(sp.Symbol('A'), A))},\\qquad "
        f"{tex(Equation(sp.Symbol('B'), B))}.\n\\]\n"
        "SymPy solves the equation in closed form:\n\\begin{align*}\n"
        "\\Sigma_{00}\\big|_{L=1} &= "
        + tex(closed_form_variance(1))
        + ",\\\\\n\\Sigma_{00}\\big|_{L=2} &= "
        + tex(closed_form_variance(2))
        + ".\n\\end{align*}\nThe $L=2$ expression blows up at $\\theta="
        + tex(sing2)
        + "$ (SymPy: the positive zero of its denominator; this is $\\lambda\\theta=k_c$, the "
        "Routh--Hurwitz boundary, as a test checks), i.e. at "
        f"$\\theta={sing2_num:.6f}$ for $\\mu=\\lambda=D=1$, where the Hopf solver puts the "
        f"threshold: $\\theta_c={vc.thresholds.get(2, float('nan')):.6f}$. "
        "For $L=1$, $\\lim_{\\theta\\to\\infty}\\Sigma_{00} = "
        + tex(closed_form_theta_limit(1))
        + "$. "
    )


def _variance_part(ctx, budget: _Budget, tick) -> Part:
    """The LNA variance: closed forms, simulation checks, and the effect of theta."""
    checks, rows = _variance_checks(budget, tick)
    vc = _variance_curves(budget)
    ymax = 2.5 * float(vc.curves[1][1][0])
    path = ctx.save(
        variance_figure(vc.curves, checks, vc.thresholds, ymax=ymax), "stochastic_variance.pdf"
    )
    text = (
        _closed_form_text(vc) + "Check against long simulations ("
        f"$\\eta={budget.eta_v}$, one path of length {budget.T_v:g} started at the "
        "equilibrium, burn-in 50, 20 batch means, Student-$t$ 95\\% interval; "
        "$\\mu=\\lambda=1$):\n\n"
        "\\begin{table}[htbp]\\centering\\caption{The stationary variance of the imbalance: LNA against long simulations.}\\begin{tabular}{rrrrrrr}\\toprule\n"
        "$L$ & $\\theta$ & $D$ & LNA & simulation & 95\\% CI & inside\\\\\n\\midrule\n"
        + rows
        + "\\bottomrule\\end{tabular}\\end{table}\n\n"
        "Does more aggressive routing reduce the imbalance variance when there is an action "
        "delay ($\\mu=\\lambda=D=1$)? "
        + "; ".join(vc.findings)
        + ". "
        + _variance_conclusion(vc, budget.Ls)
        + "\n\n"
        + ctx.caption(
            path,
            "LNA variance of the imbalance against $\\theta$ for several $L$ "
            "($\\mu=\\lambda=D=1$), with simulation checks.",
            "0.75",
        )
    )
    return text, [path]


# ------------------------------------------------------------------------------ build
def build(ctx) -> Section:
    budget = QUICK if ctx.quick else FULL
    with _progress(budget, ctx.quick) as tick:
        runs = _time_runs(budget, tick)
        parts = [
            (_intro(), []),
            _parameters_part(),
            _paths_part(ctx, runs),
            _wave_part(ctx, runs),
            _phase_part(ctx, budget),
            _imbalance_part(ctx, runs),
            _fluid_limit_part(ctx, budget, tick),
            _variance_part(ctx, budget, tick),
        ]
    body = "".join(text for text, _ in parts)
    return Section(TITLE, body, [path for _, paths in parts for path in paths])
