"""Figures of the generic model analyses (matplotlib ``Figure`` API, no pyplot state)."""

from __future__ import annotations

import math

from matplotlib.figure import Figure

__all__ = ["critical_vs_scv_figure"]

_MARKERS = {"erlang": "o", "hypoexp": "s", "hyperexp": "^"}


def critical_vs_scv_figure(points, limits: dict | None = None) -> Figure:
    """theta_c against the delay's SCV, one colour per mean delay, one marker per family.

    ``points``: :class:`~symdelay.models.phase_type.ShapePoint` s; infinite theta_c (no
    crossing) are drawn at the top edge as open markers. ``limits``: D -> theta_c of the
    deterministic delay (SCV 0, the delay-differential limit), drawn as a dashed line.
    """
    fig = Figure(figsize=(6.4, 4.4), layout="tight")
    ax = fig.subplots()
    Ds = sorted({p.D for p in points})
    finite = [float(p.theta_c) for p in points if math.isfinite(p.theta_c)]
    top = max(finite) * 1.6
    for i, D in enumerate(Ds):
        for fam, mk in _MARKERS.items():
            sel = [p for p in points if p.D == D and p.family == fam]
            xs = [float(p.scv) for p in sel if math.isfinite(p.theta_c)]
            ys = [float(p.theta_c) for p in sel if math.isfinite(p.theta_c)]
            ax.plot(xs, ys, mk, color=f"C{i}", ms=5, label=f"{fam}, $D = {D}$" if xs else None)
            inf_x = [float(p.scv) for p in sel if not math.isfinite(p.theta_c)]
            ax.plot(inf_x, [top] * len(inf_x), mk, mfc="none", color=f"C{i}", ms=6)
        if limits and D in limits:
            ax.axhline(float(limits[D]), color=f"C{i}", ls="--", lw=0.9)
    ax.axvline(1.0, color="0.5", lw=0.6)
    ax.set_yscale("log")
    ax.set_ylim(top=top * 1.3)
    ax.set_xscale("log")
    ax.text(
        0.98,
        0.97,
        "open: stable for every $\\theta > 0$",
        transform=ax.transAxes,
        ha="right",
        va="top",
        fontsize=8,
    )
    ax.set_xlabel("squared coefficient of variation of the delay (mean fixed)")
    ax.set_ylabel("critical $\\theta_c$ (per job)")
    ax.set_title("Which delay shape destabilises first ($\\mu = \\lambda = 1$)", fontsize=10)
    ax.legend(fontsize=7, ncol=2, loc="lower right")
    return fig
