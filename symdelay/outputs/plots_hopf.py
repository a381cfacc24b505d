"""Figures of the Hopf analysis (matplotlib ``Figure`` API, no pyplot state).

Each function takes arrays computed by :mod:`symdelay.models.erlang.hopf` and returns a ``Figure``;
nothing here computes mathematics.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

__all__ = [
    "critical_curves_figure",
    "stability_region_figure",
    "frequency_figure",
    "window_figure",
]

D_LABEL = "mean action delay $D$ (time units)"
THETA_LABEL = "routing sensitivity $\\theta$ (per job)"


def critical_curves_figure(D, curves: dict, stable_all: list, floor=None) -> Figure:
    """``curves``: label -> theta_c array over ``D``; ``stable_all``: labels with no crossing.

    ``floor``: (value, label) of a horizontal reference line (the L = oo infimum).
    """
    fig = Figure(figsize=(7.4, 4.4), layout="constrained")
    ax = fig.subplots()
    for i, (label, th) in enumerate(curves.items()):
        ax.loglog(D, th, color=f"C{i}", lw=1.4, label=label)
    if floor is not None:
        ax.axhline(floor[0], color="k", ls=":", lw=1, label=floor[1])
    for label in stable_all:  # a legend entry with no line: nothing is drawn for them
        ax.plot([], [], " ", label=f"{label}: stable for all\n$\\theta \\geq 0$ (no curve)")
    ax.set_xlabel(D_LABEL)
    ax.set_ylabel("critical $\\theta_c(D)$ (per job)")
    ax.set_title("Hopf boundary: unstable above each curve", fontsize=10)
    ax.grid(alpha=0.3, which="both")
    fig.legend(fontsize=8, loc="outside right upper")  # clear of the curves and the floor
    return fig


def stability_region_figure(D, theta_c, L_label, theta_fixed, intervals, D_star=None) -> Figure:
    """Stable/unstable regions in the (D, theta) plane and the window at ``theta_fixed``.

    ``intervals``: list of ``(D1, D2)`` floats (``D2`` may be inf).
    """
    fig = Figure(figsize=(7.6, 4.4), layout="constrained")
    ax = fig.subplots()
    top = max(np.nanmax(theta_c[np.isfinite(theta_c)]), theta_fixed) * 1.5
    ax.fill_between(
        D, theta_c, top, color="C3", alpha=0.18, label="unstable ($\\theta > \\theta_c$)"
    )
    ax.fill_between(D, 0, theta_c, color="C2", alpha=0.18, label="stable")
    ax.plot(D, theta_c, "k", lw=1.3, label=f"$\\theta_c(D)$, {L_label}")
    for j, (a, b) in enumerate(intervals):
        b = D[-1] if not np.isfinite(b) else b
        ax.plot(
            [a, b],
            [theta_fixed, theta_fixed],
            color="C3",
            lw=4,
            solid_capstyle="butt",
            label=f"instability window at $\\theta = {theta_fixed:g}$" if j == 0 else None,
        )
        ax.axvline(a, color="C3", ls=":", lw=0.8)
        if b < D[-1]:
            ax.axvline(b, color="C3", ls=":", lw=0.8)
    if D_star is not None:
        ax.axvline(D_star, color="C0", ls="--", lw=0.8, label="worst delay $D^*$")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(np.nanmin(theta_c) / 2, top)
    ax.set_xlim(D[0], D[-1])
    ax.set_xlabel(D_LABEL)
    ax.set_ylabel(THETA_LABEL)
    # outside the axes: the regions fill them and the window's lines cross them top to bottom
    fig.legend(fontsize=8, loc="outside right upper")
    ax.grid(alpha=0.3, which="both")
    return fig


def frequency_figure(D, omegas: dict) -> Figure:
    """Hopf frequency ``omega`` along each boundary (label -> array over ``D``)."""
    fig = Figure(figsize=(6.4, 4.0), layout="tight")
    ax = fig.subplots()
    for i, (label, om) in enumerate(omegas.items()):
        ax.loglog(D, om, color=f"C{i}", lw=1.4, label=label)
    ax.set_xlabel(D_LABEL)
    ax.set_ylabel("Hopf frequency $\\omega$ (rad per time unit)")
    ax.set_title("crossing frequency along the boundary $\\theta = \\theta_c(D)$", fontsize=10)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    return fig


def _param_label(name: str) -> str:
    """An axis label for parameter ``name`` (the founding names with their meaning)."""
    known = {"D": D_LABEL, "theta": THETA_LABEL}
    if name in known:
        return known[name]
    from symdelay.core.latex import tex

    return f"${tex(name)}$"


def window_figure(w) -> Figure:
    """The instability window of a :class:`~symdelay.analysis.window.Window`: the unstable
    intervals of its parameter shaded over the range searched, each finite end marked
    (dashed line) and an infinite end drawn as an arrow; where the path counted them, the
    number of roots with ``Re r > 0`` on each piece (a step line)."""
    import math

    def num(v):
        return float(v) if v is not None else math.nan

    lo, hi = num(w.range_lo), num(w.range_hi)
    ends = [num(e.value) for iv in w.intervals for e in (iv.lo, iv.hi)]
    ends += [num(b.value) for b in w.breakpoints]
    finite = [x for x in [lo, hi, *ends] if math.isfinite(x)]
    positive = [x for x in finite if x > 0]
    left = lo if math.isfinite(lo) else (min(finite) - 1 if finite else 0.0)
    top = max(positive or finite or [1.0])
    right = hi if math.isfinite(hi) else (top * 3 if top > 0 else top + 1)
    log = left >= 0 and bool(positive) and right / min(positive) > 30
    if log:
        left = max(left, min(positive) / 3)
    fig = Figure(figsize=(6.4, 3.4), layout="constrained")
    ax = fig.subplots()
    counts = None
    if w.counts:  # beyond a neutral boundary the count is infinite: drawn above the rest
        # (None: undecided, left blank)
        finite_counts = [int(c) for c in w.counts if c is not None and math.isfinite(c)]
        above = max(finite_counts, default=0) + 2
        counts = [
            math.nan if c is None else (int(c) if math.isfinite(c) else above) for c in w.counts
        ]
    ymax = max((c for c in counts if c == c), default=0) if counts else 0
    ymax = ymax if ymax > 0 else 1
    for iv in w.intervals:
        a = max(num(iv.lo.value), left)
        b = min(num(iv.hi.value), right)
        ax.axvspan(a, b, color="C3", alpha=0.18, lw=0)
        for x in (num(iv.lo.value), num(iv.hi.value)):
            if math.isfinite(x):
                ax.axvline(x, color="C3", ls="--", lw=1)
            elif x > 0:  # instability up to infinity: an arrow at the right edge
                ax.annotate("", xy=(1.0, 0.5), xycoords="axes fraction", xytext=(0.9, 0.5),
                            arrowprops={"arrowstyle": "->", "color": "C3", "lw": 1.5})  # fmt: skip
                ax.text(0.99, 0.56, r"$\to\infty$", transform=ax.transAxes, ha="right",
                        color="C3", fontsize=10)  # fmt: skip
    if counts is not None:
        xs = [left] + [min(max(num(b.value), left), right) for b in w.breakpoints] + [right]
        ax.stairs(counts, xs, color="k", lw=1.4, label="roots with Re $r > 0$")
        ax.set_ylabel("roots with Re $r > 0$")
        ax.set_ylim(-0.2, ymax + 0.6)
        from matplotlib.ticker import MaxNLocator

        ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # a count: no 0.5 ticks
        undecided = [(a, b) for c, a, b in zip(counts, xs, xs[1:], strict=False) if c != c]
        for k, (a, b) in enumerate(undecided):  # the pieces no count was proved for
            ax.axvspan(a, b, facecolor="none", edgecolor="0.45", hatch="///", lw=0,
                       label="undecided" if k == 0 else None)  # fmt: skip
        if any(c is not None and not math.isfinite(c) for c in w.counts):
            # the level drawn above the finite counts stands for infinitely many roots
            ticks = [t for t in ax.get_yticks() if -0.2 <= t < above - 0.5] + [above]
            ax.set_yticks(ticks, [f"{t:g}" for t in ticks[:-1]] + [r"$\infty$"])
        ax.legend(fontsize=9, loc="upper left")
    else:
        ax.set_yticks([])
        ax.set_ylabel("unstable (shaded)")
    if log:
        ax.set_xscale("log")
    ax.set_xlim(left, right)
    ax.set_xlabel(_param_label(w.param))
    shown = ", ".join(f"{k} = {v}" for k, v in w.parameters.items())
    what = "unstable intervals" if w.intervals else "stable over the whole range"
    ax.set_title(f"{what} of {w.param}" + (f" ({shown})" if shown else ""), fontsize=10)
    ax.grid(alpha=0.3, which="both")
    return fig
