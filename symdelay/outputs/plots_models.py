"""Figures of the generic model analyses (matplotlib ``Figure`` API, no pyplot state)."""

from __future__ import annotations

import math

from matplotlib.figure import Figure

__all__ = ["critical_vs_scv_figure"]

_MARKERS = {"erlang": "o", "hypoexp": "s", "hyperexp": "^"}


def critical_vs_scv_figure(points, limits: dict | None = None) -> Figure:
    """theta_c against the delay's SCV, one colour per mean delay, one marker per family.

    ``points``: :class:`~symdelay.models.phase_type.ShapePoint` s; an infinite theta_c (no
    crossing: stable for every theta) is drawn as an open marker in a shaded band at the top,
    whose tick reads infinity (not a number on the log axis). ``limits``: D -> theta_c of the
    deterministic delay (SCV 0, the delay-differential limit), drawn as a dashed line across
    the axes; the legend stands outside them.
    """
    from matplotlib.ticker import NullFormatter

    fig = Figure(figsize=(6.2, 3.8), layout="constrained")
    ax = fig.subplots()
    Ds = sorted({p.D for p in points})
    finite = [float(p.theta_c) for p in points if math.isfinite(p.theta_c)]
    top = max(finite) * 1.6
    stable = []  # families with points that no theta destabilises (drawn open)
    for i, D in enumerate(Ds):
        for fam, mk in _MARKERS.items():
            sel = [p for p in points if p.D == D and p.family == fam]
            xs = [float(p.scv) for p in sel if math.isfinite(p.theta_c)]
            ys = [float(p.theta_c) for p in sel if math.isfinite(p.theta_c)]
            ax.plot(xs, ys, mk, color=f"C{i}", ms=5, label=f"{fam}, $D = {D}$" if xs else None)
            inf_x = [float(p.scv) for p in sel if not math.isfinite(p.theta_c)]
            ax.plot(inf_x, [top] * len(inf_x), mk, mfc="none", color=f"C{i}", ms=6, zorder=3)
            if inf_x and fam not in stable:
                stable.append(fam)
        if limits and D in limits:
            ax.axhline(
                float(limits[D]),
                color=f"C{i}",
                ls="--",
                lw=0.9,
                label=f"deterministic (SCV 0), $D = {D}$",
            )
    for fam in stable:  # one legend entry per open marker shape, in no mean's colour
        ax.plot(
            [], [], _MARKERS[fam], mfc="none", color="0.3", ms=6,
            label=f"{fam}: stable for every $\\theta > 0$ (row $\\infty$)",
        )  # fmt: skip
    ax.axvline(1.0, color="0.5", lw=0.6)
    ax.set_yscale("log")
    low = min(finite + [float(v) for v in (limits or {}).values()]) / 1.3
    ax.set_ylim(low, top * 1.3)
    # the infinite values: a band above the finite range, its one tick labelled infinity
    ax.axhspan(top / 1.18, top * 1.3, color="0.92", zorder=0, lw=0)
    from matplotlib.ticker import FixedLocator, NullLocator

    decades = [10.0**k for k in range(math.floor(math.log10(low)), math.ceil(math.log10(top)))]
    finite_ticks = [t for t in decades if low <= t <= top / 1.3]
    for m in (2, 5):
        if len(finite_ticks) < 3:
            finite_ticks += [m * t for t in decades if low <= m * t <= top / 1.3]
    finite_ticks.sort()
    ax.yaxis.set_major_locator(FixedLocator([*finite_ticks, top]))
    ax.set_yticklabels([f"{t:g}" for t in finite_ticks] + ["$\\infty$"])
    ax.yaxis.set_minor_locator(NullLocator())
    ax.set_xscale("log")
    lo, hi = ax.get_xlim()  # plain labels at a few round values (minor labels collided)
    ticks = [t for t in (0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50) if lo <= t <= hi]
    ax.set_xticks(ticks, labels=[f"{t:g}" for t in ticks])
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("squared coefficient of variation of the delay (mean fixed)")
    ax.set_ylabel("critical $\\theta_c$ (per job)")
    # outside the axes: the dashed limits run across the whole width, so a legend inside
    # would cover one of them
    fig.legend(fontsize=8, loc="outside right upper")
    return fig
