"""Figures of the certified roots (matplotlib ``Figure`` API, no pyplot state).

Each function takes data computed by :mod:`symdelay.models.erlang.roots.crosscheck`; nothing here computes
mathematics.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib import colormaps
from matplotlib.cm import ScalarMappable
from matplotlib.colors import LogNorm
from matplotlib.figure import Figure

__all__ = ["root_locus_figure", "convergence_figure", "discrepancy_figure"]


def root_locus_figure(locus, window=(-8.0, 2.0, -16.0, 16.0)) -> Figure:
    """Roots in the complex plane, coloured by theta, one marker per L; DDE roots as crosses."""
    fig = Figure(figsize=(6.6, 5.0), layout="tight")
    ax = fig.subplots()
    cmap = colormaps["viridis"]
    norm = LogNorm(min(locus.thetas), max(locus.thetas))
    markers = ["o", "s", "^", "D", "v"]
    for j, (n, per_theta) in enumerate(locus.finite.items()):
        for i, (t, roots) in enumerate(zip(locus.thetas, per_theta)):
            ax.scatter(
                roots.real,
                roots.imag,
                s=14,
                marker=markers[j % len(markers)],
                color=cmap(norm(t)),
                alpha=0.8,
                label=f"$L = {n}$" if i == len(locus.thetas) - 1 else None,
            )
    for i, roots in enumerate(locus.dde):
        ax.scatter(
            roots.real,
            roots.imag,
            s=22,
            marker="x",
            color="k",
            lw=0.9,
            label="$L=\\infty$ (Lambert W)" if i == 0 else None,
        )
    ax.axvline(0, color="r", lw=0.8, ls="--")
    x0, x1, y0, y1 = window
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_xlabel("Re $r$ (1/time unit)")
    ax.set_ylabel("Im $r$ (rad/time unit)")
    ax.set_title("Root locus as $\\theta$ grows (colour), Erlang $L$ vs delay limit", fontsize=10)
    bar = fig.colorbar(ScalarMappable(norm, cmap), ax=ax)
    bar.set_label("$\\theta$ (per job)")
    ax.legend(fontsize=8, loc="lower left")
    ax.grid(alpha=0.3)
    return fig


def convergence_figure(conv) -> Figure:
    """|r_L - r_oo| of the rightmost root vs L on log-log axes with the fitted power law."""
    fig = Figure(figsize=(6.0, 4.2), layout="tight")
    ax = fig.subplots()
    Ls = np.array(conv.Ls, float)
    ax.loglog(Ls, conv.errors, "o", label="rightmost Erlang root vs Lambert $W_0$")
    ax.loglog(
        Ls,
        conv.constant * Ls**conv.slope,
        "-",
        lw=1,
        label=f"fit $\\approx {conv.constant:.3g}\\,L^{{{conv.slope:.3f}}}$",
    )
    ax.set_xlabel("number of delay phases $L$")
    ax.set_ylabel("$|r_L - r_\\infty|$ (1/time unit)")
    ax.set_title("Convergence of the Erlang roots to the delay-differential limit", fontsize=10)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    return fig


def discrepancy_figure(eig, poly) -> Figure:
    """Largest |double - certified| over all roots vs L: eigenvalues and numpy.roots."""
    fig = Figure(figsize=(6.0, 4.2), layout="tight")
    ax = fig.subplots()
    Le = [d.L for d in eig]
    ax.loglog(Le, [d.max_abs for d in eig], "o-", label="numpy eigvals of the Jacobian")
    ax.loglog(Le, [d.max_rel for d in eig], "s:", label="same, relative to $1+|r|$")
    fin = [d for d in poly if math.isfinite(d.max_abs)]
    ax.loglog(
        [d.L for d in fin],
        [max(d.max_abs, 1e-17) for d in fin],
        "^-",
        label="numpy.roots on expanded coefficients",
    )
    ax.axhline(1.0, color="r", lw=0.8, ls="--", label="error of order 1")
    ax.set_xlabel("number of delay phases $L$")
    ax.set_ylabel("max error over all roots (1/time unit)")
    ax.set_title("Double precision vs certified roots", fontsize=10)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    return fig
