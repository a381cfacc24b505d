"""Report section: the supermarket model SQ(d) with general service."""

from __future__ import annotations

import itertools
import math

import mpmath

from symdelay.core.errors import SymdelayInputError
from symdelay.core.latex import escape
from symdelay.models.sqd import fit, fixed_point, parse_service_dist
from symdelay.models.sqd.delayed import delayed_fixed_point
from symdelay.models.sqd.service import exponential, service_from_options
from symdelay.models.sqd.simulate import simulate
from symdelay.models.sqd.stability import stability_at
from symdelay.outputs.documents.sqd import derivation_body
from symdelay.outputs.report import Section, table_tex

__all__ = ["ORDER", "build"]

ORDER = 80


def _services(quick=False):
    if quick:
        return {
            "exp (SCV 1)": exponential(),
            "Erlang(4) (SCV 1/4)": service_from_options("erlang", k=4),
        }
    return {
        "exp (SCV 1)": exponential(),
        "Erlang(4) (SCV 1/4)": service_from_options("erlang", k=4),
        "H2 (SCV 4)": service_from_options(
            "hyperexp",
            probs="0.1127016653792583,0.8872983346207417",
            rates="0.2254033307585166,1.7745966692414834",
        ),
    }


def _power_of_d(ctx):
    from symdelay.outputs.plots_sqd import power_of_d_figure, service_styles, style_text

    lams = ("0.5", "0.9") if ctx.quick else ("0.3", "0.5", "0.7", "0.8", "0.9", "0.95")
    ds = (1, 2) if ctx.quick else (1, 2, 3, 5)
    services = _services(ctx.quick)
    styles = service_styles(services)
    curves, tails = {}, {}
    for label, svc in services.items():
        for d in ds:
            fps = {lv: fixed_point(d, lv, svc, dps=12) for lv in lams}
            curves[d, label] = (
                [float(x) for x in lams],
                [float(fps[lv].mean_sojourn) for lv in lams],
            )
            top = fps.get("0.9") or fixed_point(d, "0.9", svc, dps=12)
            tails[d, label] = [float(v) for v in top.tail]
    fig = power_of_d_figure(curves, tails, styles)
    caption = (
        "Left: mean sojourn time (mean-field fixed point, Newton) against $\\lambda$ for "
        "$d \\in \\{" + ",".join(map(str, ds)) + "\\}$ (colour) and services of mean 1 "
        f"(line style; {style_text(styles)}). Right: the tails $s_k$ at $\\lambda = 0.9$."
    )
    figure = ctx.figure(fig, "sqd_power_of_d.pdf", caption, width="0.95")
    rows = [
        [f"${d}$", label, *(f"${t:.4g}$" for t in ts)]
        for (d, label), (_, ts) in sorted(curves.items())
    ]
    table = table_tex(
        ["$d$", "service", *(f"$\\lambda={x}$" for x in lams)],
        rows,
        "Mean sojourn time of the mean-field fixed point (4 significant digits).",
        align="ll" + "r" * len(lams),
        label="tab:sqd_power",
    )
    return (
        "\\subsection{The power of $d$ choices, and the service beyond its mean}\n"
        "Sampling $d \\ge 2$ queues makes the tail of the queue length doubly exponential "
        "with exponential service \\cite{Mitzenmacher2001} (Figure~\\ref{fig:sqd_power_of_d}, "
        "Table~\\ref{tab:sqd_power}); with the same mean, the service's squared coefficient "
        "of variation (SCV) changes the sojourn time by a large factor, so exponential "
        "results do not carry over.\n\n" + figure + table
    )


def _rightmost(fp):
    """The rightmost eigenvalue of the truncated Jacobian at ``fp``: ``(text, certified,
    its real part)``.

    Certified (the roots entry, :func:`~symdelay.models.sqd.stability.stability_at`) when
    the entry's own cost estimate is within the shared budget, the rule the command line
    follows without ``--force``; otherwise the double-precision eigenvalue (numpy), marked
    as not certified. The exact characteristic polynomial of a long truncation with a
    many-digit service law is estimated at hours (SQ(2), H2, lambda = 0.9: 166 states)."""
    from symdelay.analysis.roots import analysis_seconds
    from symdelay.core.budget import DEFAULT_BUDGET
    from symdelay.models.sqd.meanfield import sqd_model
    from symdelay.models.sqd.stability import relaxation_time

    model = sqd_model(fp.service, d=fp.d, K=fp.truncation, lam_value=fp.lam)
    if analysis_seconds(model) <= DEFAULT_BUDGET.seconds:
        rs = stability_at(fp)
        negative = rs.unstable_count == 0 and rs.axis_count == 0
        return f"${mpmath.nstr(rs.spectral_abscissa, 6)}$", True, negative
    value = -1 / relaxation_time(fp)
    return f"$\\approx {value:.3g}$\\textsuperscript{{$\\dagger$}}", False, value < 0


def _stability(ctx):
    rows, uncertified, proved, indicated = [], [], [], []
    cases = (
        [(2, "0.5"), (2, "0.9")] if ctx.quick else [(2, "0.5"), (2, "0.9"), (3, "0.9"), (5, "0.9")]
    )
    services = _services(ctx.quick)
    for d, lv in cases:
        cells = []
        for label, svc in services.items():
            fp = fixed_point(d, lv, svc, dps=15, method="newton")
            text, certified, negative = _rightmost(fp)
            (proved if certified else indicated).append(negative)
            if not certified:
                uncertified.append(f"$d = {d}$, $\\lambda = {lv}$, {label}")
            cells.append(f"{text} ({fp.truncation * svc.phases})")
        rows.append([f"${d}$", f"${lv}$", *cells])
    note = (
        " $\\dagger$: not certified; the eigenvalue of largest real part in double "
        "precision (numpy), since the certified roots of these truncations are estimated "
        "over the shared budget of the analyses ("
        + "; ".join(uncertified)
        + "): their signs are an indication, not a proof."
        if uncertified
        else ""
    )
    if not all(proved):
        verdict = (
            f"{proved.count(False)} of the {len(proved)} certified values are not negative: "
            "the fixed point is not locally stable there"
        )
    elif not indicated:
        verdict = "All are negative: the fixed point is locally stable"
    else:
        verdict = (
            f"The {len(proved)} certified values are negative: the fixed point is locally "
            "stable there; of the other "
            + (f"{len(indicated)} (marked)" if len(indicated) > 1 else "one (marked)")
            + (
                ", the double-precision values are negative too"
                if all(indicated)
                else f", {indicated.count(False)} are not negative in double precision"
            )
        )
    return (
        "\\subsection{Local stability}\n"
        "Rightmost eigenvalue of the truncated Jacobian at the fixed point (certified roots "
        "of its characteristic polynomial; dimension $Km$ in brackets). "
        + verdict
        + "; the decay slows as $\\lambda \\to 1$.\n\n"
        + table_tex(
            ["$d$", "$\\lambda$", *services],
            rows,
            "Rightmost eigenvalue of the truncated Jacobian at the mean-field fixed point "
            "(6 significant digits where certified; the dimension $Km$ in brackets)." + note,
            align="ll" + "r" * len(services),
        )
    )


def _fits(ctx):
    from symdelay.outputs.plots_sqd import fit_convergence_figure

    lam, d = "0.8", 2
    T = 30 if ctx.quick else 400
    cases = {
        "Weibull(0.5)": ("weibull:shape=0.5", (1, 2, 3)),
        "lognormal SCV 4": ("lognormal:scv=4", (1, 2, 3)),
        "deterministic": ("deterministic", (1, 2, 4, 8, 16)),
    }
    if ctx.quick:
        cases = {"Weibull(0.5)": ("weibull:shape=0.5", (1, 2))}
    rows, sims, lines, skipped = {}, {}, [], []
    for name, (text, orders) in cases.items():
        dist = parse_service_dist(text)
        rows[name] = []
        for n in orders:
            try:
                fp = fixed_point(d, lam, fit(dist, n), dps=12)
            except SymdelayInputError:
                # the proved truncation of this fit is beyond reach (a slow phase with a
                # huge mean residual time makes the tail bound decay only like 1/k)
                skipped.append(f"{name} of order {n}")
                continue
            rows[name].append((n, float(fp.mean_sojourn)))
        r = simulate(1000, d, lam, dist, T=T, seed=7).info
        sims[name] = r["ci95"]
        lines.append(
            f"{name} & " + ", ".join(f"{t:.4f}" for _, t in rows[name])
            + f" & {r['mean_sojourn']:.4f} [{r['ci95'][0]:.4f}, {r['ci95'][1]:.4f}] \\\\"
        )  # fmt: skip
    fig = fit_convergence_figure(rows, sims)
    figure = ctx.figure(
        fig,
        "sqd_fits.pdf",
        f"Mean sojourn of the mean-field fixed points of phase-type fits of increasing order "
        f"(points, one colour per service law), $d = {d}$, $\\lambda = {lam}$, against the "
        "simulation of the true law at $N = 1000$ (shaded: its 95\\% confidence interval).",
        width="0.7",
    )
    return (
        "\\subsection{General service: phase-type fits of increasing order}\n"
        "SCV $\\ge 1$: hyperexponential of order $k$ matching $2k-1$ moments (Prony); "
        "SCV $< 1$: Erlang mixture with a common rate (order $n$, converging weakly). Mean "
        f"sojourn of the fits' fixed points at $d = {d}$, $\\lambda = {lam}$, against the "
        "simulation of the true distribution (Figure~\\ref{fig:sqd_fits}, "
        "Table~\\ref{tab:sqd_fits}).\n\n"
        + figure
        + table_tex(
            ["service", "fits (increasing order)", "simulation, 95\\% interval"],
            [ln.removesuffix(" \\\\").split(" & ") for ln in lines],
            f"Mean sojourn at $d = {d}$, $\\lambda = {lam}$: the fixed points of phase-type "
            "fits of increasing order and the simulation of the true law ($N = 1000$, batch "
            "means).",
            align="lll",
            label="tab:sqd_fits",
        )
        + (
            "Not computed: "
            + ", ".join(skipped)
            + " — the fit has a slow phase whose mean residual time makes the proved tail "
            "bound need more than 2000 levels, so no fixed point with a proved truncation is "
            "given for it.\n\n"
            if skipped
            else ""
        )
    )


def _table(ctx):
    Ns = (100, 1000) if ctx.quick else (100, 1000, 10000)
    T = {100: 400, 1000: 200, 10000: 60} if ctx.quick else {100: 4000, 1000: 1000, 10000: 200}
    lines = []
    for label, svc in list(_services(ctx.quick).items())[:: 1 if ctx.quick else 2][
        : 1 if ctx.quick else 2
    ]:
        mf = float(fixed_point(2, "0.9", svc).mean_sojourn)
        cells = []
        for N in Ns:
            r = simulate(N, 2, "0.9", svc, T=T[N], seed=N).info
            ci = r["ci95"]
            cells.append(f"{r['mean_sojourn']:.4f} $\\pm$ {(ci[1] - ci[0]) / 2:.4f}")
        lines.append(f"{label} & {mf:.4f} & " + " & ".join(cells) + " \\\\")
    return "\\subsection{Mean field against simulation}\n" + table_tex(
        ["service", "mean field", *(f"$N={N}$" for N in Ns)],
        [ln.removesuffix(" \\\\").split(" & ") for ln in lines],
        "Mean sojourn time at $d = 2$, $\\lambda = 0.9$: the mean-field fixed point and "
        "the exact simulation (true phase-type service), batch means (20 batches after a "
        "warm-up of $T/10$) with 95\\% half-widths.",
        align="ll" + "r" * len(Ns),
    )


def convergence_table(res) -> str:
    """LaTeX rows of a :class:`~symdelay.models.sqd.convergence.ConvergenceResult`."""

    def cell(e, scale=1.0):
        return f"{e.value * scale:+.2e} $\\pm$ {e.half * scale:.1e}"

    lines = []
    for r in res.rows:
        lines.append(
            f"{r.N} & {r.replications} $\\times$ {r.T:.4g} & {cell(r.sojourn_bias)} & "
            f"{r.N * r.sojourn_bias.value:.2f} & {cell(r.tail_bias[0])} & "
            f"{cell(r.tail_bias[1])} & {cell(r.tail_bias[2])} & "
            + " & ".join(f"{e.value * r.N**0.5:.3f}" for e in r.fluct_sd)
            + " \\\\"
        )
    return "\n".join(lines)


def _fit_text(f, sym="p") -> str:
    if f is None:
        return "(too few points)"
    return f"${sym} = {f.p:.3f}$, 95\\% interval $[{f.lo:.3f}, {f.hi:.3f}]$"


def _verdict(res) -> str:
    """What the fitted intervals say (computed from them, not assumed)."""
    out = []
    f = res.bias_fit
    if f is not None:
        one = f.lo <= 1 <= f.hi
        half = f.lo <= 0.5 <= f.hi
        out.append(
            "The interval for the bias exponent of $E[T]$ "
            + ("contains 1 (an $O(1/N)$ bias)" if one else "excludes 1")
            + (" and also contains $1/2$." if half else " and excludes $1/2$.")
        )
    qs = [g for g in res.fluct_fits if g is not None]
    if qs:
        inside = sum(g.lo <= 0.5 <= g.hi for g in qs)
        out.append(
            f"For the fluctuations {inside} of {len(qs)} intervals contain $1/2$ ($O(1/\\sqrt N)$)."
        )
    return " ".join(out)


def _budget_text(res) -> str:
    f, last = res.bias_fit, res.rows[-1]
    if f is None or f.C <= 0:
        return ""
    pred = f.C * last.N ** (-f.p)
    factor = (last.sojourn_bias.half / (pred / 2)) ** 2
    if factor <= 1:
        return f"; here it is resolved up to $N = {last.N}$"
    return (
        f"; at $N = {last.N}$ the fitted bias is {pred:.1e} against a half-width of "
        f"{last.sojourn_bias.half:.1e}, and resolving it (half-width below half the bias) "
        f"would need about {factor:.0f} times the budget spent there"
    )


def notes_text(notes) -> str:
    """The plain-text notes of a convergence study as LaTeX: escaped (an unescaped ``%``
    commented out the rest of the sentence), ``E[T]`` as maths."""
    text = "; ".join(escape(n).replace("E[T]", "$E[T]$") for n in notes)
    return f" {text}." if text else ""


def _convergence(ctx):
    from symdelay.models.sqd.convergence import convergence_in_N

    if ctx.quick:
        res = convergence_in_N(
            2, "0.9", Ns=(50, 100, 200, 400), replications=6, events_per_N=2e6, seed=11
        )
    else:
        res = convergence_in_N(
            2, "0.9", Ns=CONVERGENCE_NS, replications=8, events_per_N=2e7, seed=11,
        )  # fmt: skip
    figure = ctx.figure(
        res.plot(),
        "sqd_convergence.pdf",
        "Convergence of SQ(2) at $\\lambda = 0.9$ to its mean field as $N$ grows. Left: the "
        "bias of $E[T]$ and of the tails $s_2, s_3$ with 95\\% intervals (hollow: the "
        "interval contains 0) and the fitted $C N^{-p}$; right: the standard deviation of "
        "the instantaneous $s_k(t)$ with the fitted $C N^{-q}$.",
        width="0.95",
    )
    q = res.fluct_fits
    notes = notes_text(res.notes)
    return (
        "\\subsection{Convergence to the mean field as $N$ grows, measured}\n"
        f"$d = 2$, $\\lambda = 0.9$, exponential service; mean field $E[T] = "
        f"{res.mean_field_sojourn:.6f}$. Per $N$: independent replications (seeds: children "
        "of one SeedSequence), each from empty with a warm-up of "
        f"{res.warmup:g} time units (20 relaxation times $-1/\\mathrm{{Re}}\\,\\mu$ of the "
        "fixed point's rightmost eigenvalue $\\mu$), then $T$ measured time units. Bias of "
        "$E[T]$ (by Little, $\\sum_k \\bar s_k/\\lambda$ from the exact time averages) and of "
        "$s_2, s_3$: mean over replications with the control variate $\\bar s_1 - \\lambda$ "
        "($E[s_1] = \\lambda$ exactly for every $N$, so it adds no bias; regression "
        "estimator, Student $t$ on $R-2$ degrees of freedom); $s_1$ without control. "
        "Fluctuations: standard deviation of the instantaneous $s_k(t)$ over 100 "
        "boundaries per run, CI from the spread between replications. 95\\% half-widths "
        "(Table~\\ref{tab:sqd_convergence}, Figure~\\ref{fig:sqd_convergence}).\n\n"
        + table_tex(
            [
                "$N$",
                "$R \\times T$",
                "bias $E[T]$",
                "$N\\cdot$bias",
                "bias $s_1$",
                "bias $s_2$",
                "bias $s_3$",
                *(f"$\\sqrt N\\,\\mathrm{{sd}}(s_{k}(t))$" for k in (1, 2, 3)),
            ],
            [ln.removesuffix(" \\\\").split(" & ") for ln in convergence_table(res).split("\n")],
            "Bias and fluctuations of SQ(2) at $\\lambda = 0.9$ against the mean field, "
            "95\\% half-widths.",
            align="rllllllrrr",
            label="tab:sqd_convergence",
            fit=True,
        )
        + figure
        + "Fitted rates, $|\\mathrm{error}| \\approx C N^{-p}$ (weighted nonlinear least "
        "squares on the signed errors, so $N$ where the bias is below the noise count with "
        "their weight; interval inflated by $\\sqrt{\\chi^2/\\mathrm{dof}}$ when above 1): "
        f"bias of $E[T]$: {_fit_text(res.bias_fit)}; of $s_2$: "
        f"{_fit_text(res.tail_bias_fits[1])}; of $s_3$: {_fit_text(res.tail_bias_fits[2])}. "
        f"Fluctuations of $s_1(t), s_2(t), s_3(t)$: {_fit_text(q[0], 'q')}; "
        f"{_fit_text(q[1], 'q')}; {_fit_text(q[2], 'q')}. The slope of log error against "
        "$\\log N$ is $-p$ (resp.\\ $-q$). "
        + _verdict(res)
        + " The bias of $s_1$ is zero for every $N$ (Little); the table shows it within the "
        "noise. The bias is resolved only while it exceeds the statistical error: at fixed "
        "cost per $N$ the error of a mean shrinks like $1/\\sqrt N$ while an $O(1/N)$ bias "
        "shrinks like $1/N$" + _budget_text(res) + f".{notes}\n\n"
    )


#: N of the convergence study (full report)
CONVERGENCE_NS = (100, 300, 1000, 3000, 10000, 30000)
#: The herding study: arrival rate, delay (Erlang L, mean D), d values and delays.
HERDING = {"lam": "0.8", "L": 1, "ds": (2, 5), "Ds": (0.5, 1.0, 2.0, 4.0), "K": 20}
#: The in-flight truncation M of the mean field grows through these until the mass at the
#: box's edge is below EDGE (a dispatch to a queue with M jobs in flight is lost: too small
#: an M loses load and under-estimates the sojourn).
M_STEPS = (10, 15, 20, 30, 40)
EDGE = 1e-5
#: The question of the text: (d, D) and the N of the simulations (N, T; warm-up WARMUP).
QUESTION = {"d": 5, "D": 4.0}
QUESTION_RUNS = ((300, 2000.0), (1000, 600.0), (3000, 300.0), (10000, 150.0))
QUICK_RUNS = ((300, 200.0), (1000, 100.0))
WARMUP = 30.0


def _sci(x: float) -> str:
    """``a \\times 10^{b}`` (2 significant digits)."""
    m, e = f"{x:.1e}".split("e")
    return f"{m} \\times 10^{{{int(e)}}}"


def _mean_field(d, D):
    """The delayed mean field at the first M of :data:`M_STEPS` whose edge mass is below
    :data:`EDGE`; ``(fixed point, M, the one at the M before, {M: fixed point} of every M
    computed)`` (the text compares with the first M: it is read from here, not solved
    again)."""
    prev, steps = None, {}
    for M in M_STEPS:
        mf = delayed_fixed_point(d, HERDING["lam"], L=HERDING["L"], D=D, K=HERDING["K"], M=M)
        steps[M] = mf
        if mf.edge_mass < EDGE:
            return mf, M, prev, steps
        prev = mf
    return mf, M, prev, steps


def _question(ctx, mf):
    """Simulations at growing N of the (d, D) of :data:`QUESTION` against its mean field."""
    d, D = QUESTION["d"], QUESTION["D"]
    rows, sims = [], []
    for N, T in QUICK_RUNS if ctx.quick else QUESTION_RUNS:
        r = simulate(N, d, HERDING["lam"], None, T=T, warmup=WARMUP, seed=N + 1,
                     delay=(HERDING["L"], D)).info  # fmt: skip
        lo, hi = r["ci95"]
        sims.append((N, r["mean_sojourn"], lo, hi))
        rows.append([f"${N}$", f"${T:g}$", f"${r['mean_sojourn']:.3f}$",
                     f"$[{lo:.3f}, {hi:.3f}]$"])  # fmt: skip
    return rows, sims


def herding_part(ctx):
    from symdelay.outputs.plots_sqd import herding_figure

    lam, L = HERDING["lam"], HERDING["L"]
    Ds = (0.0, 1.0) if ctx.quick else (0.0, *HERDING["Ds"])
    T = 60 if ctx.quick else 300
    ds = (2, 5)
    sims, mf, trunc = {}, {}, {}
    for d in ds:
        sims[d] = []
        for D in Ds:
            # no delay: SQ(d) itself, simulated by its compiled kernel (the delayed loop is
            # pure Python and gives the same process at D = 0)
            delay = (L, D) if D > 0 else None
            r = simulate(1000, d, lam, None, T=T, seed=3, delay=delay).info
            sims[d].append((r["mean_sojourn"], *r["ci95"]))
        mf[d] = [(0.0, float(fixed_point(d, lam).mean_sojourn))]
        for D in Ds[1:]:
            trunc[d, D] = _mean_field(d, D)
            mf[d].append((D, trunc[d, D][0].mean_sojourn))
    qd, qD = QUESTION["d"], QUESTION["D"]
    if (qd, qD) not in trunc:
        trunc[qd, qD] = _mean_field(qd, qD)
    qfp, qM, qprev, steps = trunc[qd, qD]
    first = steps[M_STEPS[0]]
    rows, qsims = _question(ctx, qfp)
    inside = [lo <= qfp.mean_sojourn <= hi for _, _, lo, hi in qsims]
    first_out = [not (lo <= first.mean_sojourn <= hi) for _, _, lo, hi in qsims]
    fig = herding_figure(Ds, sims, mf)
    caption = (
        f"Mean sojourn at the server against the mean action delay $D$ (exponential, $L = {L}$), "
        f"$\\lambda = {lam}$: simulation at $N = 1000$ (points, 95\\% confidence intervals) "
        "and the mean field with its in-flight truncation grown until the mass at the edge "
        f"is below $10^{{{round(math.log10(EDGE))}}}$ (lines), one colour per $d$."
    )
    figure = ctx.figure(fig, "sqd_herding.pdf", caption, width="0.7")
    # what the mean field says about d = 5 against d = 2, from its values
    by = {d: dict(mf[d]) for d in ds}
    cmp_rows = []
    for D in Ds:
        a, b = by[2].get(D), by[5].get(D)
        if a is None or b is None:
            continue
        cmp_rows.append([f"${D:g}$", f"${a:.4f}$", f"${b:.4f}$", f"${100 * (b / a - 1):+.1f}\\%$"])
    both = [D for D in Ds if D in by[2] and D in by[5]]
    worse = [f"{D:g}" for D in both if by[5][D] > by[2][D]]
    gain = [by[5][D] / by[2][D] - 1 for D in both]
    shrinking = len(gain) > 1 and all(b >= a for a, b in itertools.pairwise(gain))
    advantage = (
        "with $d = 5$ the mean sojourn stays below that with $d = 2$ at every delay computed"
        + (", the advantage shrinking as $D$ grows" if shrinking else "")
        + " (Table~\\ref{tab:sqd_d}): within $D \\le "
        + f"{max(Ds):g}"
        + "$, $d = 5$ does not lose its advantage"
        if not worse
        else "with $d = 5$ the mean sojourn exceeds that with $d = 2$ at $D = "
        + ", ".join(worse)
        + "$ (Table~\\ref{tab:sqd_d}): larger $d$ herds more and loses its advantage there"
    )
    q_table = table_tex(
        ["$N$", "$T$", "simulated mean sojourn", "95\\% confidence interval"],
        rows,
        f"SQ($d$) with action delay, $d = {qd}$, $D = {qD:g}$, $\\lambda = {lam}$: simulations "
        f"at growing $N$ (warm-up {WARMUP:g} time units, 20 batch means) against the mean "
        f"field, which gives {qfp.mean_sojourn:.4f} with the in-flight truncation $M = {qM}$ "
        f"(edge mass ${_sci(qfp.edge_mass)}$) and {first.mean_sojourn:.4f} with $M = {M_STEPS[0]}$ "
        f"(edge mass ${_sci(first.edge_mass)}$).",
        align="rrrl",
        label="tab:sqd_question",
    )
    d_table = table_tex(
        ["$D$", "mean field, $d = 2$", "mean field, $d = 5$", "$d = 5$ against $d = 2$"],
        cmp_rows,
        f"Mean sojourn at the server by the mean field, $\\lambda = {lam}$, $L = {L}$.",
        align="rrrr",
        label="tab:sqd_d",
    )
    below = all(first.mean_sojourn < lo for _, _, lo, _ in qsims)
    low = (
        f"With $M = {M_STEPS[0]}$ the mean field at $d = {qd}$, $D = {qD:g}$ lies below every "
        "simulation; the truncation, not the mean-field limit, is at fault. "
        if below and all(inside)
        else ""
    )
    prev_txt = (
        f" (at $M = {M_STEPS[M_STEPS.index(qM) - 1]}$ it was {qprev.mean_sojourn:.4f})"
        if qprev is not None
        else ""
    )
    verdict = (
        "The simulations agree with the mean field at the larger truncation: its value lies "
        f"in {sum(inside)} of the {len(inside)} confidence intervals"
        + (", so no finite-$N$ effect is resolved beyond the noise" if all(inside) else "")
        + f", while the value at $M = {M_STEPS[0]}$ lies outside {sum(first_out)} of them."
    )
    return (
        "The dispatcher samples $d$ queues and sends the job to the shortest; it arrives "
        f"after an Erlang($L = {L}$) delay of mean $D$. Jobs in flight are invisible to later "
        "samplings, so short queues attract many jobs at once. A finite mean field exists: a "
        "queue's type is its length and its jobs in flight by phase $(k, n_1, \\dots, n_L)$, "
        f"truncated at $k \\le {HERDING['K']}$ and $n_1 + \\dots + n_L \\le M$. A dispatch to "
        "a queue with $M$ jobs in flight is lost in the truncated system, so a small $M$ "
        "loses load exactly where herding piles jobs up. "
        + low
        + f"Here $M$ grows through {', '.join(map(str, M_STEPS))} until the mass at the edge of the "
        f"box is below $10^{{{round(math.log10(EDGE))}}}$: at $d = {qd}$, $D = {qD:g}$ that is "
        f"$M = {qM}$, and the mean sojourn is {qfp.mean_sojourn:.4f}{prev_txt}, against "
        f"{first.mean_sojourn:.4f} at $M = {M_STEPS[0]}$ (Table~\\ref{{tab:sqd_question}}). "
        + verdict
        + " By the mean field, "
        + advantage
        + ".\n\n"
        + figure
        + q_table
        + d_table
    )


def build(ctx) -> Section:
    body = (
        "$N$ servers with FCFS queues; each arrival samples $d$ queues and joins the "
        "shortest (the supermarket model of Mitzenmacher \\cite{Mitzenmacher2001}; its hydrodynamic limit with general service is that of Aghajani and Ramanan \\cite{AghajaniRamanan2019}). Phase-type service turns the hydrodynamic "
        "equations into a finite ODE per level (the linear chain trick).\n\n"
        + derivation_body().replace("\\subsection*{", "\\subsection{")
        + _power_of_d(ctx)
        + _stability(ctx)
        + _fits(ctx)
        + _table(ctx)
        + _convergence(ctx)
    )
    return Section("The supermarket model SQ($d$) with general service", body)
