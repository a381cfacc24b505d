"""Figures for routing that counts jobs in flight (matplotlib ``Figure`` API, no pyplot)."""

from __future__ import annotations

import math

import numpy as np
from matplotlib.figure import Figure

from symdelay.core.latex import tex

__all__ = ["criteria_figure", "kappa_star_figure"]

_LABELS = {
    "decay": "decay rate $-\\alpha$ (larger is better)",
    "tolerance": "tolerance time $T_{0.05}$",
    "tolerance-linear": "tolerance time (linear)",
    "variance": "LNA $\\mathrm{Var}(Q_1 - Q_2)/\\eta$",
}


def criteria_figure(kappas, curves: dict, optima: dict, title: str = "") -> Figure:
    """The criteria against kappa, one panel each on a shared kappa axis; dashed lines at
    each criterion's optimum (all optima drawn in every panel, to show where they differ)."""
    names = list(curves)
    fig = Figure(figsize=(6.4, 1.9 * len(names) + 0.6), layout="tight")
    axes = fig.subplots(len(names), 1, sharex=True)
    axes = np.atleast_1d(axes)
    for i, (ax, name) in enumerate(zip(axes, names, strict=True)):
        y = np.asarray(curves[name], dtype=float)
        ax.plot(kappas, np.where(np.isfinite(y), y, np.nan), color=f"C{i}")
        for j, other in enumerate(names):
            k = optima.get(other)
            if k is not None and math.isfinite(k):
                ax.axvline(k, color=f"C{j}", ls="--", lw=0.8)
        ax.set_ylabel(_LABELS.get(name, name), fontsize=8)
        if name != "decay":
            ax.set_yscale("log")
    axes[-1].set_xlabel("$\\kappa$ (weight of the jobs in flight)")
    if title:
        axes[0].set_title(title, fontsize=9)
    return fig


def kappa_star_figure(Ls, values: dict, limit) -> Figure:
    """kappa*(L) for several mu D, with the L = oo value ``limit`` (a SymPy number, printed
    as it is) as a dashed line. The curves climb towards that line, so the legend stands
    outside the axes, where it can cover neither."""
    fig = Figure(figsize=(6.4, 3.6), layout="constrained")
    ax = fig.subplots()
    for i, (label, ys) in enumerate(values.items()):
        ax.plot(Ls, ys, "o-", ms=3, color=f"C{i}", label=label)
    ax.axhline(float(limit), color="0.4", ls="--", lw=0.9, label=f"$L = \\infty$: ${tex(limit)}$")
    ax.set_ylim(0, 1.1 * float(limit))
    ax.set_xscale("log")
    ax.set_xlabel("$L$ (delay phases)")
    ax.set_ylabel("$\\kappa^*$")
    fig.legend(loc="outside right upper", fontsize=8)
    return fig
