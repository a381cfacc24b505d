"""The figure of a stability map (a pyplot figure when no axes are given, as every plot()): the
regions drawn as polygons bounded by the certified Hopf and fold curves (shaded by their exact
number of unstable roots), the curves, and the special points marked and named. Nothing here
computes mathematics: the polygons are the map's own curves and box, cut into strips."""

from __future__ import annotations

import itertools

import numpy as np

__all__ = ["stability_map_figure", "region_polygons", "map_key", "POINT_NAMES"]

_MARKERS = {"turning_x": ("s", "C3"), "turning_y": ("D", "C1"), "double_hopf": ("*", "C4"),
            "zero_hopf": ("P", "C2"), "bautin": ("X", "C5"), "cusp": ("v", "C6"),
            "fold_crossing": ("^", "C7"), "fold_isolated": ("o", "C8")}  # fmt: skip
POINT_NAMES = {"turning_x": "turning point in {x}", "turning_y": "turning point in {y}",
          "double_hopf": "double Hopf", "zero_hopf": "zero-Hopf", "bautin": "Bautin",
          "cusp": "cusp", "fold_crossing": "fold crossing",
          "fold_isolated": "isolated fold point"}  # fmt: skip


#: label offsets tried in turn (points from the marker)
_OFFSETS = ((6, 6), (6, -14), (6, 18), (-8, 6), (6, -26), (6, 30), (-8, -14))


#: how a curve of folds of cycles is drawn on a map
FOLD_STYLE = {"ls": "-.", "color": "C3"}


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


def _monotone_pieces(x, y):
    """Split a polyline into pieces along which x never turns back."""
    pieces, start = [], 0
    dx = np.sign(np.diff(x))
    for i in range(1, len(dx)):
        if dx[i] != 0 and dx[i - 1] != 0 and dx[i] != dx[i - 1]:
            pieces.append((x[start : i + 1], y[start : i + 1]))
            start = i
    pieces.append((x[start:], y[start:]))
    out = []
    for px, py in pieces:
        if len(px) < 2:
            continue
        if px[0] > px[-1]:
            px, py = px[::-1], py[::-1]
        out.append((px, py))
    return out


def region_polygons(m):
    """The regions of a map as polygons bounded by its certified curves: ``[(count,
    vertices)]``, ``vertices`` an (n, 2) array.

    A vertical decomposition: the box is cut at every x where a curve has a vertex; in each
    slab the curves are straight segments, sorted in y, and the trapezoids between them are
    joined along the slabs into strips (a strip keeps its lower and upper curve piece). The
    count of a strip is the exact count the map proved at the cell centres inside it (the
    majority, which the curves bound); a strip no curve bounds whose cells differ (beyond the
    last column of a curve known at column centres) is drawn cell by cell; a strip holding no
    cell centre takes the count at the cell nearest its widest point."""
    xlo, xhi = float(m.x[1]), float(m.x[2])
    ylo, yhi = float(m.y[1]), float(m.y[2])
    counts = np.array(m.cell_counts, dtype=int)
    ny, nx = counts.shape
    cx = xlo + (np.arange(nx) + 0.5) * (xhi - xlo) / nx
    cy = ylo + (np.arange(ny) + 0.5) * (yhi - ylo) / ny
    pieces = []
    for c in m.curves:
        x, y, _ = c.arrays()
        pieces.extend(_monotone_pieces(x, y))
    xs = {xlo, xhi}
    for px, _ in pieces:
        xs.update(float(v) for v in px if xlo < v < xhi)
    xs = np.array(sorted(xs))
    strips = {}  # (lower id, upper id) -> the open strip: [lower pts, upper pts, votes, last slab]
    done = []
    for s, (a, b) in enumerate(itertools.pairwise(xs)):
        if b - a <= 0:
            continue
        bounds = [(-1, ylo, ylo)]
        for k, (px, py) in enumerate(pieces):
            if px[0] <= a and px[-1] >= b:
                ya, yb = np.interp(a, px, py), np.interp(b, px, py)
                bounds.append((k, min(max(ya, ylo), yhi), min(max(yb, ylo), yhi)))
        bounds.append((-2, yhi, yhi))
        bounds.sort(key=lambda t: (t[1] + t[2], t[0] == -2))
        cols = np.nonzero((cx >= a) & (cx < b))[0]
        for lo, hi in itertools.pairwise(bounds):
            key = (lo[0], hi[0])
            votes = []
            for i in cols:
                t = (cx[i] - a) / (b - a)
                y0 = lo[1] + t * (lo[2] - lo[1])
                y1 = hi[1] + t * (hi[2] - hi[1])
                votes.extend(
                    (int(counts[j, i]), i, j) for j in np.nonzero((cy > y0) & (cy < y1))[0]
                )
            width = max(hi[1] - lo[1], hi[2] - lo[2])
            st = strips.get(key)
            if st is None or st[3] != s - 1:
                if st is not None:
                    done.append(st)
                mid = (width, (a + b) / 2, (lo[1] + hi[1]) / 2)
                st = [[(a, lo[1])], [(a, hi[1])], [], s, mid, key]
                strips[key] = st
            st[0].append((b, lo[2]))
            st[1].append((b, hi[2]))
            st[2].extend(votes)
            st[3] = s
            if width > st[4][0]:
                st[4] = (width, (a + b) / 2, (lo[1] + lo[2] + hi[1] + hi[2]) / 4)
    done.extend(strips.values())
    out = []
    hx, hy = (xhi - xlo) / nx / 2, (yhi - ylo) / ny / 2
    for lower, upper, votes, _, (_, xm, ym), key in done:
        if key == (-1, -2) and len({v[0] for v in votes}) > 1:
            # no curve bounds this strip, yet its cells differ (a curve known only at column
            # centres ends inside the box): draw its cells, each with its proved count, cut
            # to the strip's x-extent, rather than one count for all of them
            a, b = lower[0][0], lower[-1][0]
            for n, i, j in votes:
                x0, x1 = max(cx[i] - hx, a), min(cx[i] + hx, b)
                y0, y1 = cy[j] - hy, cy[j] + hy
                out.append((n, np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])))
            continue
        if votes:
            ns = [v[0] for v in votes]
            n = max(set(ns), key=ns.count)
        else:
            i = int(np.argmin(np.abs(cx - xm)))
            j = int(np.argmin(np.abs(cy - ym)))
            n = int(counts[j, i])
        out.append((n, np.array(lower + upper[::-1])))
    return out


SHADES = ["#ffffff", "#f4c7a1", "#e0876a", "#b5485a", "#7a2e5e", "#3f2257"]


def _shade(n: int, top: int):
    """The colour of ``n`` unstable roots (the same count has the same shade in every map
    while counts stay below the fixed shades; beyond, a graded scale to ``top``)."""
    if top < len(SHADES):
        return SHADES[n]
    from matplotlib import colormaps

    return "#ffffff" if n == 0 else colormaps["magma_r"](0.1 + 0.8 * n / max(top, 1))


def map_key(maps) -> list:
    """The legend entries shared by one or more maps: ``[(kind, label, style)]``, kind
    ``"region"`` (a count), ``"curve"`` or ``"point"``; one source for legends and captions."""
    counts = sorted({int(c) for m in maps for row in m.cell_counts for c in row})
    top = counts[-1] if counts else 0
    if top < len(SHADES):
        key = [("region", f"{n} unstable roots", {"color": _shade(n, top)}) for n in counts]
    else:  # too many counts for a legend entry each: one graded scale (a colour bar)
        key = [("ramp", "unstable roots", {"counts": counts, "top": top})]
    for kind in sorted({c.kind for m in maps for c in m.curves}):
        name = {"hopf": "Hopf"}.get(kind, kind)
        if kind == "hopf" and any(
            c.kind == "hopf" and getattr(c, "multiplicity", 1) >= 2 for m in maps for c in m.curves
        ):
            name += " (multiple pair: no l1)"
        key.append(("curve", f"{name} curve", {"ls": "-" if kind == "hopf" else "--"}))
    if any(getattr(m, "fold_of_cycles", ()) for m in maps):
        key.append(("curve", "fold of cycles", FOLD_STYLE))
    for t in sorted({s["type"] for m in maps for s in m.special_points}):
        m0 = next(m for m in maps if any(s["type"] == t for s in m.special_points))
        name = POINT_NAMES.get(t, t.replace("_", " ")).format(x=_label(m0.x[0]), y=_label(m0.y[0]))
        marker, color = _MARKERS.get(t, ("o", "C0"))
        key.append(("point", name, {"marker": marker, "color": color}))
    return key


def key_handles(key):
    """Matplotlib legend handles of a :func:`map_key`."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    out = []
    for kind, label, st in key:
        if kind == "ramp":
            continue  # drawn as a colour bar (:func:`key_colorbar`)
        if kind == "region":
            out.append(Patch(facecolor=st["color"], edgecolor="0.5", lw=0.5, label=label))
        elif kind == "curve":
            out.append(Line2D([], [], color=st.get("color", "k"), ls=st["ls"], lw=1.4,
                              label=label))  # fmt: skip
        else:
            out.append(Line2D([], [], ls="", marker=st["marker"], color=st["color"], mec="k",
                              ms=7, label=label))  # fmt: skip
    return out


def key_colorbar(fig, axes, key, fontsize=8):
    """The colour bar of a graded key (many counts), beside ``axes``; nothing otherwise."""
    ramp = [st for kind, _, st in key if kind == "ramp"]
    if not ramp:
        return None
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import BoundaryNorm, ListedColormap

    counts, top = ramp[0]["counts"], ramp[0]["top"]
    cmap = ListedColormap([_shade(n, top) for n in counts])
    norm = BoundaryNorm(np.arange(len(counts) + 1) - 0.5, len(counts))
    bar = fig.colorbar(ScalarMappable(norm, cmap), ax=axes, shrink=0.9)
    step = max(1, len(counts) // 8)
    bar.set_ticks(list(range(0, len(counts), step)))
    bar.set_ticklabels([str(counts[k]) for k in range(0, len(counts), step)])
    bar.set_label("unstable roots", fontsize=fontsize)
    bar.ax.tick_params(labelsize=fontsize)
    return bar


def _label(name: str) -> str:
    return {"theta": r"$\theta$", "mu": r"$\mu$", "lam": r"$\lambda$", "kappa": r"$\kappa$",
            "gamma": r"$\gamma$", "eta": r"$\eta$"}.get(name, f"${name}$")  # fmt: skip


def stability_map_figure(m, ax=None, legend=True, title=True):
    """Regions (polygons shaded by unstable-root count), curves, special points of ``m``;
    ``legend=False`` leaves the legend to the caller (one legend for several panels,
    :func:`map_key`)."""
    fig = None
    if ax is None:  # a pyplot figure, so a notebook shows it (as every other plot())
        import matplotlib.pyplot as plt

        fig = plt.figure(figsize=(6.4, 4.6), layout="tight")
        ax = fig.subplots()
    xlo, xhi = float(m.x[1]), float(m.x[2])
    ylo, yhi = float(m.y[1]), float(m.y[2])
    counts = sorted({int(c) for row in m.cell_counts for c in row})
    top = counts[-1] if counts else 0
    for n, verts in region_polygons(m):
        color = _shade(n, top)
        # the edge in the face's own colour closes the hairline seams between strips
        ax.fill(verts[:, 0], verts[:, 1], facecolor=color, edgecolor=color, lw=0.6, zorder=1)
    for c in m.curves:
        x, y, _ = c.arrays()
        style = "-" if c.kind == "hopf" else "--"
        ax.plot(x, y, style, color="k", lw=1.4, zorder=3)
    for fc in getattr(m, "fold_of_cycles", ()):  # from each Bautin point
        x, y, _, _ = fc.arrays()
        ax.plot(x, y, color=FOLD_STYLE["color"], ls=FOLD_STYLE["ls"], lw=1.4, zorder=3)
    ax.set_xlim(xlo, xhi)
    ax.set_ylim(ylo, yhi)
    placed = []  # the label boxes so far (points), so that close points' labels do not overlap
    for s in m.special_points:
        marker, color = _MARKERS.get(s["type"], ("o", "C0"))
        xv, yv = float(s["x"]), float(s["y"])
        ax.plot([xv], [yv], marker, color=color, ms=8, mec="k", zorder=4)
        text = f"({xv:.4g}, {yv:.4g})"
        ax.annotate(text, (xv, yv), textcoords="offset points",
                    xytext=_free_offset(ax, xv, yv, text, placed), fontsize=8)  # fmt: skip
    ax.set_xlim(xlo, xhi)
    ax.set_ylim(ylo, yhi)
    ax.set_xlabel(_label(m.x[0]))
    ax.set_ylabel(_label(m.y[0]))
    if title:
        ax.set_title(f"stability map: {m.model_name}", fontsize=9)
    if legend:
        key = map_key([m])
        ax.legend(handles=key_handles(key), fontsize=8, loc="best", framealpha=0.9)
        key_colorbar(ax.figure, ax, key)
    return fig if fig is not None else ax


def fold_curve_figure(fc, ax=None):
    """A curve of folds of cycles (:class:`symdelay.analysis.fold_cycles.FoldCurve`) in its
    two parameters, from its Bautin point (marked); a map draws its curves itself."""
    fig = None
    if ax is None:
        import matplotlib.pyplot as plt

        fig = plt.figure(figsize=(5.6, 4.2), layout="tight")
        ax = fig.subplots()
    x, y, _, _ = fc.arrays()
    ax.plot(x, y, color=FOLD_STYLE["color"], ls=FOLD_STYLE["ls"], lw=1.4, label="fold of cycles")
    marker, color = _MARKERS["bautin"]
    ax.plot([fc.bautin[0]], [fc.bautin[1]], marker, color=color, ms=8, mec="k", label="Bautin")
    ax.set_xlabel(_label(fc.x))
    ax.set_ylabel(_label(fc.y))
    ax.legend(fontsize=8)
    return fig if fig is not None else ax
