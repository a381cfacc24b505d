"""How results draw in a notebook: the ``.plot()`` drawings (no mathematics; the HTML
tables are :func:`symdelay.core.display.html_table`'s). matplotlib is imported only when
something is drawn.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "axes",
    "plot_critical_curve",
    "shade_above",
    "plot_roots",
]


def axes(ax=None):
    """``ax``, or the Axes of a new figure."""
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(6, 4))[1]


def plot_critical_curve(D, theta_c, label: str, ax=None):
    """``theta_c`` against ``D`` (log D axis when it spans a decade); the unstable side shaded."""
    ax = axes(ax)
    D, th = np.asarray(D, float), np.asarray(theta_c, float)
    line = ax.plot(D, th, marker="." if len(D) < 30 else None, label=label)[0]
    if np.isfinite(th).any() and len(D) > 1:
        shade_above(ax, D, th, line.get_color())
    if len(D) > 1 and D.min() > 0 and D.max() / D.min() >= 10:
        ax.set_xscale("log")
    ax.set_xlabel("D")
    ax.set_ylabel(r"$\theta_c$")
    ax.legend()
    return ax


def shade_above(ax, x, y, color):
    """Shade from the curve ``(x, y)`` to the top of the axes, wherever the top is.

    The region is unbounded above, so its upper edge follows the y-limits: it is rebuilt
    whenever they change (another curve drawn, ``set_ylim``), and it takes no part in
    autoscaling. Where ``y`` is not finite (no crossing at that ``x``) nothing is shaded.
    Returns the PolyCollection.
    """
    from matplotlib.collections import PolyCollection

    x, y = np.asarray(x, float), np.asarray(y, float)
    finite = np.isfinite(y)
    shade = PolyCollection([], facecolor=color, edgecolor="none", alpha=0.1)
    ax.add_collection(shade, autolim=False)

    def follow(ax):
        top = max(ax.get_ylim())
        edge = np.where(finite, y, top)
        shade.set_verts([[(x[0], top), *zip(x, edge, strict=True), (x[-1], top)]])

    follow(ax)
    ax.callbacks.connect("ylim_changed", follow)
    return shade


def plot_roots(values, title: str, ax=None):
    """Roots in the complex plane, the imaginary axis drawn."""
    ax = axes(ax)
    z = np.asarray([complex(v) for v in values])
    ax.axvline(0.0, color="0.6", lw=0.8)
    ax.axhline(0.0, color="0.85", lw=0.8)
    ax.plot(z.real, z.imag, "o", ms=4)
    ax.set_xlabel("Re r")
    ax.set_ylabel("Im r")
    ax.set_title(title)
    return ax
