"""Report section: delays of information (Pender, Rand & Wesson's critical delay).

The critical lag of the information-delay model (``examples/models/information_delay.toml``)
is computed twice: by the certified first switch of ``critical(model, "D")`` at a few
points, and along theta by :func:`symdelay.analysis.lagswitch.critical_lag_curve` (exact
elimination, Arb isolation, point by point); both are compared with the closed form derived
from the characteristic function in ``derivations/delays.tex``.
"""

from __future__ import annotations

from symdelay.core.errors import VerificationError
from symdelay.core.latex import tex
from symdelay.core.lazy import sympy as sp
from symdelay.core.symbols import D, lam, mu, theta
from symdelay.outputs.documents.delays import (
    crossing_conditions,
    example_model,
)
from symdelay.outputs.report import Section, figure_tex

__all__ = ["ORDER", "build", "TABLE_POINTS", "CURVE_LAM", "CURVE_MU", "THETA_RANGE"]

ORDER = 64

#: ``(mu, lam, theta)`` of the table (the information lag and the constant action lag).
TABLE_POINTS = ((1, 1, 2), (1, 1, 5), (1, 1, 20), (1, 2, 3), (2, 1, 3), (1, "0.5", 3))
#: The curves of the figure: mu, and one curve per per-server arrival rate lam.
CURVE_MU = 1
CURVE_LAM = (1, 2)
#: theta from ... to ... (log-spaced), points in the full and the quick report.
THETA_RANGE = ("0.5", 50, 400, 60)

#: Digits compared and printed.
DIGITS = 12


def _closed_form():
    """``D_c(mu, lam, theta)`` from the difference mode's crossing (positive symbols), and
    the map back to the canonical symbols."""
    from symdelay.core.symbols import positive_versions

    pos = positive_versions(mu, lam, theta, D)
    F = next(
        f.factor
        for f in example_model("information_delay").characteristic_factors
        if f.mode == "difference"
    )
    W, c, s, w = crossing_conditions(F.xreplace(pos), pos[D])
    if not s.is_positive:
        raise VerificationError("sin(omega D) of the information lag is not positive")
    omega = sp.sqrt(W)
    return sp.acos(c.subs(w, omega)) / omega, pos


def build(ctx) -> Section:
    import mpmath
    import numpy as np

    from symdelay.analysis.critical import critical
    from symdelay.analysis.lagswitch import critical_lag_curve
    from symdelay.outputs.plots_delays import critical_lag_figure

    Dc, pos = _closed_form()
    back = {v: k for k, v in pos.items()}

    def closed_at(m_, l_, t_):
        vals = {pos[mu]: m_, pos[lam]: l_, pos[theta]: t_}
        return Dc.xreplace(vals)

    rows = []
    for m_, l_, t_ in TABLE_POINTS:
        info = example_model("information_delay", mu=m_, lam=l_, theta=t_)
        action = example_model("constant_action_delay", mu=m_, lam=l_, theta=t_)
        exact = closed_at(*(info.values[x] for x in (mu, lam, theta)))
        got = [critical(mdl, "D", dps=DIGITS + 5).points[0].critical for mdl in (info, action)]
        with mpmath.workdps(DIGITS + 10):
            ref = mpmath.mpf(sp.N(exact, DIGITS + 10))
            for g in got:
                if abs(g - ref) > mpmath.mpf(10) ** (-DIGITS) * ref:
                    raise VerificationError(f"critical delay {g} != closed form {ref}")
            rows.append(
                " & ".join(f"${tex(info.values[x])}$" for x in (mu, lam, theta))
                + f" & $\\displaystyle {tex(exact)}$ & {mpmath.nstr(ref, DIGITS)}"
                + "".join(f" & {mpmath.nstr(g, DIGITS)}" for g in got)
                + " \\\\"
            )

    lo, hi, n_full, n_quick = THETA_RANGE
    n = n_quick if ctx.quick else n_full
    thetas = np.geomspace(float(sp.Rational(lo)), float(hi), n)
    values = [sp.Rational(str(float(t))) for t in thetas]  # exact: the decimals shown
    rr, tau, th = sp.symbols("r tau theta")
    closed_fn = sp.lambdify([pos[mu], pos[lam], pos[theta]], Dc, "mpmath")
    curves, closed, worst = {}, {}, 0.0
    for l_ in CURVE_LAM:
        F = rr + CURVE_MU + l_ * th * sp.exp(-rr * tau)
        pts = critical_lag_curve(F, tau, th, values, dps=15)
        cert = np.array([float(t) for t, _w in pts])
        with mpmath.workdps(30):  # the closed form, generated once (lambdify), at 30 digits
            ref = [
                float(closed_fn(CURVE_MU, l_, mpmath.mpf(v.p) / v.q))
                if l_ * v > CURVE_MU
                else float("inf")
                for v in values
            ]
        ref = np.array(ref)
        both = np.isfinite(cert) & np.isfinite(ref)
        if (np.isfinite(cert) != np.isfinite(ref)).any():
            raise VerificationError("the certified curve and the closed form disagree on stability")
        worst = max(worst, float(np.max(np.abs(cert[both] / ref[both] - 1))))
        curves[f"$\\lambda = {l_}$, certified"] = cert
        closed[f"$\\lambda = {l_}$, closed form"] = ref
    if worst > 1e-12:
        raise VerificationError(f"critical lag curve off the closed form by {worst:.2e}")
    fig = critical_lag_figure(
        thetas, curves, closed, "routing sensitivity $\\theta$", "critical lag $D_c$"
    )
    path = ctx.save(fig, "delays_critical_lag.pdf")
    caption = (
        f"Critical information lag $D_c$ against $\\theta$ at $\\mu = {CURVE_MU}$ "
        f"({n} values of $\\theta$ from {lo} to {hi}, log-spaced). Markers ("
        + " and ".join(curves)
        + "): the certified first switch (\\texttt{critical\\_lag\\_curve}); lines ("
        + " and ".join(closed)
        + f"): the closed form; largest relative difference {worst:.1e}. No lag "
        "destabilises when $\\lambda\\theta \\le \\mu$ (no point drawn)."
    )
    body = [
        "Pender, Rand \\& Wesson's dispatcher routes by the logit of queue lengths it saw "
        "$D$ ago (the example model \\texttt{information\\_delay}). Its difference mode "
        "$r + \\mu + \\lambda\\theta e^{-rD}$ is that of the founding model's constant action "
        "delay as well (\\texttt{derivations/delays.tex}), and solving it on the imaginary "
        "axis gives the critical delay\n",
        f"\\[ D_c = {tex(Dc.xreplace(back))} \\]\n",
        "(per-server $\\lambda$). The table compares it with the certified first switch of "
        '\\texttt{critical(model, "D")} for the information lag and for the constant action '
        f"lag, to {DIGITS} digits.\n\n",
        "\\begin{center}\n\\small\\renewcommand{\\arraystretch}{1.7}\n\\begin{tabular}{rrrlrrr}\n\\toprule\n"
        "$\\mu$ & $\\lambda$ & $\\theta$ & closed form & $D_c$ & information & action \\\\\n"
        "\\midrule\n",
        "\n".join(rows),
        "\n\\bottomrule\n\\end{tabular}\n\\end{center}\n\n",
        figure_tex(path, caption),
    ]
    return Section("Delays of information", "".join(body))
