"""The figure of a stability map (a pyplot figure when no axes are given, as every plot()): the cells
shaded by their exact number of unstable roots, the certified Hopf and fold curves, and the
special points marked and named. Nothing here computes mathematics."""

from __future__ import annotations

import numpy as np
from matplotlib.colors import BoundaryNorm, ListedColormap

__all__ = ["stability_map_figure"]

_MARKERS = {"turning_x": ("s", "C3"), "turning_y": ("D", "C1"), "double_hopf": ("*", "C4"),
            "zero_hopf": ("P", "C2"), "bautin": ("X", "C5"), "cusp": ("v", "C6"),
            "fold_crossing": ("^", "C7"), "fold_isolated": ("o", "C8")}  # fmt: skip
_NAMES = {"turning_x": "turning point in {x}", "turning_y": "turning point in {y}",
          "double_hopf": "double Hopf", "zero_hopf": "zero-Hopf", "bautin": "Bautin",
          "cusp": "cusp", "fold_crossing": "fold crossing",
          "fold_isolated": "isolated fold point"}  # fmt: skip


#: label offsets tried in turn (points from the marker)
_OFFSETS = ((6, 6), (6, -14), (6, 18), (-8, 6), (6, -26), (6, 30), (-8, -14))


def _free_offset(ax, x, y, text, placed):
    """The first offset whose label box (about 4.8 points a character, 9 high) overlaps no
    label placed before; ``placed`` gets the box."""
    dpi = ax.figure.dpi
    px, py = (v * 72 / dpi for v in ax.transData.transform((x, y)))
    w, h = 4.8 * len(text), 9.0
    for dx, dy in _OFFSETS:
        x0 = px + dx if dx >= 0 else px + dx - w
        box = (x0, py + dy, x0 + w, py + dy + h)
        if not any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3]
                   for b in placed):  # fmt: skip
            placed.append(box)
            return (dx, dy) if dx >= 0 else (dx - w, dy)
    placed.append((px + 6, py + 6, px + 6 + w, py + 6 + h))
    return _OFFSETS[0]


def _label(name: str) -> str:
    return {"theta": r"$\theta$", "mu": r"$\mu$", "lam": r"$\lambda$", "kappa": r"$\kappa$",
            "gamma": r"$\gamma$", "eta": r"$\eta$"}.get(name, f"${name}$")  # fmt: skip


def stability_map_figure(m, ax=None):
    """Regions (grey levels by unstable-root count), curves, special points of ``m``."""
    fig = None
    if ax is None:  # a pyplot figure, so a notebook shows it (as every other plot())
        import matplotlib.pyplot as plt

        fig = plt.figure(figsize=(6.4, 4.6), layout="tight")
        ax = fig.subplots()
    xlo, xhi = float(m.x[1]), float(m.x[2])
    ylo, yhi = float(m.y[1]), float(m.y[2])
    counts = np.array(m.cell_counts, dtype=float)
    levels = sorted({int(c) for c in counts.ravel()})
    shades = ["#ffffff", "#f4c7a1", "#e0876a", "#b5485a", "#7a2e5e", "#3f2257"]
    many = levels[-1] >= len(shades)  # beyond the fixed shades: a graded scale and a colour bar
    if many:
        from matplotlib import colormaps

        ramp = colormaps["magma_r"]
        top = max(levels[-1], 1)
        colors = ["#ffffff" if n == 0 else ramp(0.1 + 0.8 * n / top) for n in levels]
    else:
        # one shade per count (the same count has the same shade in every map)
        colors = [shades[n] for n in levels]
    cmap = ListedColormap(colors)
    index = np.vectorize(levels.index)(counts.astype(int))
    norm = BoundaryNorm(np.arange(len(levels) + 1) - 0.5, len(levels))
    image = ax.imshow(index, origin="lower", extent=(xlo, xhi, ylo, yhi), aspect="auto",
                      cmap=cmap, norm=norm, interpolation="nearest")  # fmt: skip
    if many:
        step = max(1, len(levels) // 8)
        bar = ax.figure.colorbar(image, ax=ax, ticks=list(range(0, len(levels), step)))
        bar.ax.set_yticklabels([str(levels[k]) for k in range(0, len(levels), step)])
        bar.set_label("unstable roots", fontsize=7)
        bar.ax.tick_params(labelsize=6)
    else:
        for k, n in enumerate(levels):
            ax.fill_between([], [], color=cmap(k), label=f"{n} unstable roots")
    for c in m.curves:
        x, y, _ = c.arrays()
        style = "-" if c.kind == "hopf" else "--"
        ax.plot(x, y, style, color="k", lw=1.4)
    kinds = sorted({c.kind for c in m.curves})
    for kind in kinds:
        ax.plot([], [], "-" if kind == "hopf" else "--", color="k", label=f"{kind} curve")
    shown = set()
    ax.set_xlim(xlo, xhi)
    ax.set_ylim(ylo, yhi)
    placed = []  # the label boxes so far (points), so that close points' labels do not overlap
    for s in m.special_points:
        marker, color = _MARKERS.get(s["type"], ("o", "C0"))
        name = _NAMES.get(s["type"], s["type"]).format(x=_label(m.x[0]), y=_label(m.y[0]))
        xv, yv = float(s["x"]), float(s["y"])
        ax.plot([xv], [yv], marker, color=color, ms=8, mec="k",
                label=None if s["type"] in shown else name)  # fmt: skip
        shown.add(s["type"])
        text = f"({xv:.4g}, {yv:.4g})"
        ax.annotate(text, (xv, yv), textcoords="offset points",
                    xytext=_free_offset(ax, xv, yv, text, placed), fontsize=8)  # fmt: skip
    ax.set_xlim(xlo, xhi)
    ax.set_ylim(ylo, yhi)
    ax.set_xlabel(_label(m.x[0]))
    ax.set_ylabel(_label(m.y[0]))
    ax.set_title(f"stability map: {m.model_name}", fontsize=9)
    ax.legend(fontsize=7, loc="best", framealpha=0.9)
    return fig if fig is not None else ax
