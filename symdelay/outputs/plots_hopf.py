"""Figures of the Hopf analysis (matplotlib ``Figure`` API, no pyplot state).

Each function takes arrays computed by :mod:`symdelay.models.erlang.hopf` and returns a ``Figure``;
nothing here computes mathematics.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

__all__ = ["critical_curves_figure", "stability_region_figure", "frequency_figure"]

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
