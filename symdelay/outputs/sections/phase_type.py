"""Report section: phase-type action delays, and which delay shape is worst for stability."""

from __future__ import annotations

import itertools
import math

from symdelay.core.errors import VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.models.erlang.hopf import critical_theta
from symdelay.models.phase_type import critical_by_shape
from symdelay.outputs.plots_models import critical_vs_scv_figure
from symdelay.outputs.report import Section, table_tex

__all__ = ["ORDER", "build", "D_VALUES", "RATES"]

ORDER = 61

#: Mean delays compared (the rates below are fixed).
D_VALUES = (1, 4)
RATES = {"mu": 1, "lam": 1}


FAMILY_NAMES = {"erlang": "Erlang", "hypoexp": "hypoexponential", "hyperexp": "hyperexponential"}


def _theta(p) -> str:
    return f"${float(p.theta_c):.4g}$" if math.isfinite(p.theta_c) else "$\\infty$"


def _pairs(points, family, D):
    sel = sorted((p for p in points if p.family == family and p.D == D), key=lambda p: p.scv)
    return list(itertools.pairwise(sel))


def build(ctx) -> Section:
    k_max = 6 if ctx.quick else 12
    points = critical_by_shape(D_VALUES, k_max=k_max, **RATES)
    limits = {}
    for D in D_VALUES:
        pt = critical_theta("inf", RATES["mu"], RATES["lam"], [D]).to_json()["points"][0]
        limits[D] = float(pt["theta_c"])
    gaps = []
    for D in D_VALUES:
        e2 = next(
            p for p in points if p.family == "erlang" and p.D == D and p.scv == sp.Rational(1, 2)
        )
        h = min((p for p in points if p.family == "hypoexp" and p.D == D), key=lambda p: p.scv)
        gaps.append((float(h.scv), abs(float(h.theta_c) / float(e2.theta_c) - 1)))
    monotone = all(
        float(a.theta_c) <= float(b.theta_c)
        for D in D_VALUES
        for fam in ("erlang", "hypoexp", "hyperexp")
        for a, b in _pairs(points, fam, D)
    )
    never = all(not math.isfinite(p.theta_c) for p in points if p.scv >= 1)
    if not (monotone and never):
        raise VerificationError(
            "the delay-shape answer printed in the report no longer matches the computation"
        )
    figure = ctx.figure(
        critical_vs_scv_figure(points, limits),
        "phase_type_scv.pdf",
        "Critical $\\theta_c$ against the squared coefficient of variation (SCV) of "
        "the delay at fixed mean $D$; dashed: the deterministic delay (SCV $= 0$, the "
        "delay-differential limit); open markers in the shaded row $\\infty$: no $\\theta > 0$ "
        "destabilises the delay.",
        width="0.95",
    )
    body = [
        "With a phase-type delay $(\\alpha, S)$ (exit rates $s = -S\\mathbf 1$) the model is "
        "the same transition table with the delay phases of $S$, and the difference mode's "
        "characteristic equation is $r + \\mu + \\lambda\\theta\\,\\alpha(rI - S)^{-1}s = 0$ "
        "(derived and checked against the mode determinant in "
        "\\texttt{derivations/phase\\_type.tex}). The critical $\\theta_c$ of every delay "
        "below is the generic Hopf crossing of that factor (exact resultant, unstable-root "
        "counts checked on both sides), at a fixed mean delay $D$ and "
        f"$\\mu = {RATES['mu']}$, $\\lambda = {RATES['lam']}$.\n\n",
        figure,
        "\\paragraph{Answer.} In every family computed, at both means, $\\theta_c$ increases "
        "with the SCV: the less variable the delay, the earlier the oscillation. The worst "
        "delay at a fixed mean is the deterministic one (the Erlang values decrease towards "
        "the dashed line as $L$ grows); an exponential delay (SCV $= 1$) and every "
        "hyperexponential one (SCV $> 1$, a mixture of exponentials) never destabilise the "
        "equilibrium for $\\theta > 0$. Near equal SCV the shape matters little: the "
        f"two-phase hypoexponential with SCV ${gaps[0][0]:.3f}$ has $\\theta_c$ within "
        f"{100 * max(g for _, g in gaps):.1f}\\% of Erlang(2) (SCV $0.5$) at both means. "
        "This is what was searched (the shapes listed below), not a theorem about all "
        "phase-type delays (Table~\\ref{tab:phase_type}).\n\n",
    ]
    rows = []
    for D in D_VALUES:
        for fam in ("erlang", "hypoexp", "hyperexp"):
            sel = sorted((p for p in points if p.family == fam and p.D == D), key=lambda p: p.scv)
            for p in sel:
                rows.append([f"${D}$", FAMILY_NAMES[fam], f"${float(p.scv):.3g}$", _theta(p)])
        rows.append([f"${D}$", "deterministic", "$0$", f"${limits[D]:.4g}$"])
    body.append(
        table_tex(
            ["$D$", "delay law", "SCV", "$\\theta_c$"],
            rows,
            "The critical $\\theta_c$ of each delay law computed (4 significant digits; "
            "$\\infty$: stable for every $\\theta > 0$), "
            f"$\\mu = {RATES['mu']}$, $\\lambda = {RATES['lam']}$.",
            align="rlrr",
            label="tab:phase_type",
        )
    )
    return Section("Phase-type action delays: which shape is worst", "".join(body))
