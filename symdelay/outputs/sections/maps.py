"""Report section: stability maps in two parameters — (D, theta) of the founding model for
several L, and (kappa, theta) of the in-flight model. Every number printed comes from the
maps' records (:class:`~symdelay.analysis.stability_map.StabilityMap`); the closed forms of
the turning points are only checked against them."""

from __future__ import annotations

import math

import mpmath
from matplotlib.figure import Figure

from symdelay.analysis.stability_map import stability_map
from symdelay.core.errors import VerificationError
from symdelay.models import build_model
from symdelay.outputs.plots_map import (
    POINT_NAMES,
    key_colorbar,
    key_handles,
    map_key,
    stability_map_figure,
)
from symdelay.outputs.report import Section, table_tex
from symdelay.outputs.sections._shared import kappa_star_record

__all__ = [
    "ORDER",
    "build",
    "PARAMETERS",
    "FOUNDING_LS",
    "FOUNDING_BOX",
    "INFLIGHT_LS",
    "INFLIGHT",
    "INFLIGHT_BOX",
    "grid",
    "founding_maps",
    "inflight_maps",
]

ORDER = 45

#: Rates of every map of the section.
PARAMETERS = {"mu": 1, "lam": 1}
#: The L of the (D, theta) maps of the founding model. L = inf (the delay-differential limit)
#: joins them by adding "inf" here once stability_map accepts it; everything below handles it.
FOUNDING_LS = (1, 2, 3, 8, "inf")
#: The box of the founding maps (one box for every L, so the panels compare).
FOUNDING_BOX = (("D", "1/4", "12"), ("theta", "0", "16"))
#: The L of the (kappa, theta) maps of the in-flight model, and its other parameters.
INFLIGHT_LS = (2, 5)
INFLIGHT = {"mu": 1, "lam": 1, "D": 1}
INFLIGHT_BOX = (("kappa", "0", "3/10"), ("theta", "0", "80"))

DPS = 15
#: relative agreement demanded between a record and a closed form (the record is proved to
#: about 10^-(dps+2); this leaves room for the closed form's own evaluation)
TOL = mpmath.mpf(10) ** (-(DPS - 3))


def grid(quick: bool) -> dict:
    """The search grid of every map: region cells and seed lines each way."""
    return {"cells": 12, "seeds": 5} if quick else {"cells": 32, "seeds": 9}


def founding_maps(quick: bool) -> dict:
    """``{L: StabilityMap}``: the (D, theta) map of the founding model at each L."""
    x, y = FOUNDING_BOX
    return {
        # the founding model's branches are explicit (its specialisation): no seed lines
        L: stability_map(
            build_model("erlang", L=L, **PARAMETERS), x=x, y=y, dps=DPS, cells=grid(quick)["cells"]
        )
        for L in FOUNDING_LS
    }


def inflight_maps(quick: bool) -> dict:
    """``{L: StabilityMap}``: the (kappa, theta) map of the in-flight model at each L."""
    x, y = INFLIGHT_BOX
    return {
        L: stability_map(
            build_model("inflight", L=L, kappa="kappa", **INFLIGHT),
            x=x,
            y=y,
            dps=DPS,
            **grid(quick),
        )
        for L in INFLIGHT_LS
    }


#: significant digits printed for a proved point (the record holds DPS; the text needs fewer)
SHOWN = 8


def num(v, digits=SHOWN) -> str:
    """A proved value at ``digits`` significant digits, trailing zeros dropped (an exact
    integer prints as one: ``D^* = 2``, not ``2.00000000000000``)."""
    with mpmath.workdps(DPS + 5):
        t = mpmath.nstr(mpmath.mpf(v), digits, strip_zeros=True)
    return t[:-2] if t.endswith(".0") else t


def _L(L) -> str:
    return "\\infty" if L == "inf" else str(L)


def _close(a, b) -> bool:
    return abs(mpmath.mpf(a) - mpmath.mpf(b)) <= TOL * (1 + abs(mpmath.mpf(b)))


def _worst_closed_form(L):
    """``(D*, theta*)`` from the closed forms ``D* = L/mu``, ``theta* = mu
    sec^{L+1}(pi/(L+1))/lam``, or ``None`` where there is no turning point (L = 1: theta* is
    infinite; L = inf: D* is infinite)."""
    if L == "inf" or L == 1:
        return None
    mu, lam = PARAMETERS["mu"], PARAMETERS["lam"]
    with mpmath.workdps(DPS + 10):
        return (
            mpmath.mpf(L) / mu,
            mpmath.mpf(mu) * mpmath.sec(mpmath.pi / (L + 1)) ** (L + 1) / lam,
        )


def _in_box(m, xv, yv) -> bool:
    return m.x[1] < xv < m.x[2] and m.y[1] < yv < m.y[2]


def _check_founding(maps):
    """The turning points of the (D, theta) maps are the worst delays of the closed form."""
    for L, m in maps.items():
        if m.curves and not {0, 2} <= _counts(m):
            raise VerificationError(
                f"the L = {L} map has no stable region below a region of two unstable roots"
            )
        turning = [s for s in m.special_points if s["type"] == "turning_y"]
        expected = _worst_closed_form(L)
        if expected is None or not _in_box(m, *expected):
            if turning:
                raise VerificationError(
                    f"the L = {L} map has a turning point the closed form lacks"
                )
            continue
        if len(turning) != 1:
            raise VerificationError(f"the L = {L} map has {len(turning)} turning points, not 1")
        s = turning[0]
        if not (_close(s["x"], expected[0]) and _close(s["y"], expected[1]) and s["certified"]):
            raise VerificationError(
                f"the L = {L} map's turning point ({s['x']}, {s['y']}) is not the worst delay "
                f"D* = L/mu, theta* = mu sec^(L+1)(pi/(L+1))/lam"
            )


def _counts(m) -> set:
    return {g["unstable_roots"] for g in m.regions}


def _check_inflight(maps):
    """The turning point in kappa of each (kappa, theta) map is kappa* of the entry, and the
    map has the one Hopf curve (two unstable roots beyond it) that the text describes."""
    out = {}
    for L, m in maps.items():
        if len(m.curves) != 1 or m.curves[0].kind != "hopf" or _counts(m) != {0, 2}:
            raise VerificationError(
                f"the L = {L} in-flight map is no longer one Hopf curve between 0 and 2 "
                "unstable roots: the section's text needs revising"
            )
        turning = [s for s in m.special_points if s["type"] == "turning_x"]
        ks = kappa_star_record(L, mu=INFLIGHT["mu"], D=INFLIGHT["D"]).kappa_star
        if len(turning) != 1 or not _close(turning[0]["x"], ks):
            raise VerificationError(f"the L = {L} in-flight map does not turn at kappa* = {ks}")
        out[L] = ks
    return out


def _panels(maps, title, columns):
    """One panel per map (sized so that at the text width its type is about 8 pt) and one
    legend for all, built from :func:`map_key` (the caption reads the same key)."""
    n = len(maps)
    cols = min(columns, n)
    rows = math.ceil(n / cols)
    fig = Figure(figsize=(2.5 * cols, 2.3 * rows + 0.5), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    for ax, (L, m) in zip(axes, maps.items(), strict=False):
        stability_map_figure(m, ax=ax, legend=False, title=False)
        ax.set_title(title.format(L=_L(L)), fontsize=9)
        ax.tick_params(labelsize=8)
        ax.xaxis.label.set_size(9)
        ax.yaxis.label.set_size(9)
        for t in ax.texts:
            t.set_fontsize(7.5)
    for ax in axes[n:]:
        ax.set_visible(False)
    key = map_key(list(maps.values()))
    key_colorbar(fig, axes[:n].tolist(), key, fontsize=8.5)
    fig.legend(handles=key_handles(key), loc="outside lower center", ncol=min(len(key), 4),
               fontsize=8.5, frameon=False)  # fmt: skip
    return fig, key


def key_text(key) -> str:
    """The caption's description of a map legend, from the same key as the legend."""
    regions = [label.split()[0] for kind, label, _ in key if kind == "region"]
    ramp = [st for kind, _, st in key if kind == "ramp"]
    if ramp:
        regions = [f"{ramp[0]['counts'][0]} (white) to {ramp[0]['top']} (darkest), colour bar"]
    curves = [(label, st["ls"]) for kind, label, st in key if kind == "curve"]
    points = [label for kind, label, _ in key if kind == "point"]
    out = (
        "regions shaded by their exact number of unstable roots ("
        + ", ".join(regions)
        + "), bounded by the certified "
        + " and ".join(
            c.replace(" curve", "") + (" (solid)" if ls == "-" else " (dashed)") for c, ls in curves
        )
        + " curves"
    )
    if points:
        out += "; marked: " + ", ".join(points)
    return out


def _regions_rows(maps, label) -> list:
    """Per map: its curves and the unstable-root counts of its regions (from the record)."""
    rows = []
    for L, m in maps.items():
        by_count: dict = {}
        for g in m.record()["regions"]:
            by_count[g["unstable_roots"]] = by_count.get(g["unstable_roots"], 0) + 1
        kinds = [c.kind for c in m.curves]
        curves = ", ".join(f"{kinds.count(k)} {k}" for k in sorted(set(kinds))) or "none"
        counts = ", ".join(
            f"{n}" + (f" ({k} regions)" if k > 1 else "") for n, k in sorted(by_count.items())
        )
        rows.append([label(L), curves, counts])
    return rows


def _point_name(s, m) -> str:
    from symdelay.outputs.plots_map import _label

    return POINT_NAMES.get(s["type"], s["type"].replace("_", " ")).format(
        x=_label(m.x[0]), y=_label(m.y[0])
    )


def _special_rows(maps, label) -> list:
    rows = []
    for L, m in maps.items():
        if not m.special_points:
            rows.append([label(L), "none in the box", "", "", "", ""])
        for s in m.special_points:
            w = s["omega"]
            w = ", ".join(num(v) for v in w) if isinstance(w, tuple) else num(w)
            rows.append(
                [label(L), _point_name(s, m), f"${num(s['x'])}$", f"${num(s['y'])}$",
                 f"${w}$", "yes" if s["certified"] else "no"]
            )  # fmt: skip
    return rows


def _table(maps, xs, ys, caption, label, tab_label=None) -> str:
    return table_tex(
        ["$L$", "point", f"${xs}$", f"${ys}$", "$\\omega$", "proved"],
        _special_rows(maps, label),
        caption,
        align="rlllll",
        label=tab_label,
    )


def _searched_text(founding, inflight, g) -> str:
    """What the maps searched, in the report's words, from the records' methods and grid."""
    methods = {m.method for m in founding.values()}
    closed = any(
        "closed" in (m.method or "") or "explicit" in (m.method or "") for m in founding.values()
    )
    first = (
        "The founding model's Hopf branches are explicit (its specialisation: the phase "
        "condition $\\arg\\bigl((i\\omega+\\mu)(i\\omega+\\gamma)^L\\bigr) = n\\pi$ solved branch "
        "by branch, every branch entering the $\\theta$ range of the box). "
        if closed or not methods - {""}
        else ""
    )
    return (
        first + "The in-flight maps are traced by continuation from exact crossings on "
        f"{g['seeds']} lines of each parameter (box edges included). In every map the number "
        f"of unstable roots is exact at the centres of {g['cells']}$\\times${g['cells']} "
        "cells and checked against the order of the certified curves; a boundary that meets "
        "none of these lines or centres (a closed curve inside one cell) could be missed.\n\n"
    )


def build(ctx) -> Section:
    founding = founding_maps(ctx.quick)
    inflight = inflight_maps(ctx.quick)
    _check_founding(founding)
    kstars = _check_inflight(inflight)

    (_, dlo, dhi), (_, tlo, thi) = FOUNDING_BOX
    (_, klo, khi), (_, ktlo, kthi) = INFLIGHT_BOX
    g = grid(ctx.quick)
    Ls = ", ".join(f"${_L(L)}$" for L in FOUNDING_LS)
    mu, lam = PARAMETERS["mu"], PARAMETERS["lam"]

    columns = 2 if len(founding) <= 4 else 3
    fig_f, key_f = _panels(founding, "$L = {L}$", columns)
    fig_i, key_i = _panels(inflight, "$L = {L}$", 2)
    fig_founding = ctx.figure(
        fig_f,
        "maps_founding.pdf",
        f"Stability maps of the founding model in $(D, \\theta)$, $\\mu = {mu}$, "
        f"$\\lambda = {lam}$, one panel per $L$: " + key_text(key_f) + ".",
        width="0.95",
    )
    fig_inflight = ctx.figure(
        fig_i,
        "maps_inflight.pdf",
        "Stability maps of the in-flight model in $(\\kappa, \\theta)$, "
        f"$\\mu = {INFLIGHT['mu']}$, $\\lambda = {INFLIGHT['lam']}$, $D = {INFLIGHT['D']}$: "
        + key_text(key_i)
        + "; the turning point in $\\kappa$ is $\\kappa^*$.",
        width="0.8",
    )

    stable_all = [_L(L) for L, m in founding.items() if not m.curves]
    turning = {
        L: s for L, m in founding.items() for s in m.special_points if s["type"] == "turning_y"
    }
    no_turn = [_L(L) for L, m in founding.items() if m.curves and L not in turning]
    label = lambda L: f"${_L(L)}$"  # noqa: E731
    regions_table = table_tex(
        ["$L$", "certified curves", "unstable roots in its regions"],
        _regions_rows(founding, label),
        "The regions of the founding model's maps (Figure~\\ref{fig:maps_founding}): "
        "the curves traced in the box and the exact number of unstable roots in each region.",
        align="rlp{0.55\\textwidth}",
        label="tab:map_regions",
    )
    special_table = _table(
        founding, "D", "\\theta",
        "Special points of the founding model's maps, proved by Krawczyk's test in Arb "
        f"and shown to {SHOWN} significant digits.",
        label,
        "tab:map_points",
    )  # fmt: skip
    in_table = table_tex(
        ["$L$", "turning point $\\kappa$", "$\\theta$ there", "$\\omega$ there",
         "$\\kappa^*$ (\\texttt{kappa\\_star})"],
        [
            [f"${L}$", f"${num(s['x'])}$", f"${num(s['y'])}$", f"${num(s['omega'])}$",
             f"${num(kstars[L])}$"]
            for L, m in inflight.items()
            for s in m.special_points
            if s["type"] == "turning_x"
        ],
        "The in-flight maps turn back in $\\kappa$ at $\\kappa^*$, the smallest weight that is "
        "stable for every $\\theta$, computed independently by \\texttt{kappa\\_star} "
        f"(the agreement to {DPS - 3} digits is checked when the report is built).",
        align="rllll",
    )  # fmt: skip
    in_points = _table(
        inflight, "\\kappa", "\\theta",
        f"Special points of the in-flight maps, shown to {SHOWN} significant digits.", label,
    )  # fmt: skip

    body = (
        "A stability map draws, in a box of two parameters (every other parameter a number), "
        "the curves where a root of a characteristic factor is on the imaginary axis (Hopf "
        "curves: a pair $\\pm i\\omega$; fold curves: a root at $0$), traced by continuation "
        "from exact crossings on grid lines and proved point by point (Krawczyk's test in Arb); "
        "it counts the unstable roots exactly at the centre of each cell of a grid, draws the "
        "regions as polygons bounded by the certified curves, and locates the curves' "
        "special points (\\texttt{symdelay map}, "
        "\\texttt{symdelay.analysis.stability\\_map}).\n\n"
        "\\subsection{The founding model in $(D, \\theta)$}\n"
        f"Boxes $D \\in [{dlo}, {dhi}]$, $\\theta \\in [{tlo}, {thi}]$ at $\\mu = {mu}$, "
        f"$\\lambda = {lam}$, for $L = $ {Ls} (Figure~\\ref{{fig:maps_founding}}, "
        "Table~\\ref{tab:map_regions}). "
        + (
            f"At $L = {', '.join(stable_all)}$ no boundary enters the box: the equilibrium is "
            "stable everywhere in it"
            + (
                " (at $L = 1$ for every $\\theta$, since the phase of "
                "$(i\\omega + \\mu)(i\\omega + \\gamma)$ never reaches $\\pi$). "
                if "1" in stable_all
                else ". "
            )
            if stable_all
            else ""
        )
        + "For $L \\ge 2$ the lowest Hopf curve $\\theta_c(D)$ bounds the unstable region "
        "above it, where a pair of roots has crossed (two unstable roots). "
        + "The lowest curve's minimum over $D$ is the map's turning point in $\\theta$, the "
        "worst delay (Table~\\ref{tab:map_points}); it agrees with the closed forms "
        "$D^* = L/\\mu$, $\\theta^* = \\mu\\sec^{L+1}(\\pi/(L+1))/\\lambda$ "
        f"to {DPS - 3} digits (checked when the report is built); below $\\theta^*$ the "
        "equilibrium is stable for every mean delay. "
        + (
            f"At $L = {', '.join(no_turn)}$ the lowest curve has no turning point in the box "
            "(at $L = \\infty$, $\\theta_c$ decreases to $\\mu/\\lambda$ as "
            "$D$ grows without bound). "
            if no_turn
            else ""
        )
        + "\n\n"
        + fig_founding
        + regions_table
        + special_table
        + "\\subsection{The in-flight weight in $(\\kappa, \\theta)$}\n"
        "The dispatcher routes on $q_i + \\kappa z_i$ ($z_i$ the jobs in flight to queue $i$; "
        f"\\texttt{{inflight}}, $\\mu = {INFLIGHT['mu']}$, $\\lambda = {INFLIGHT['lam']}$, "
        f"$D = {INFLIGHT['D']}$), box $\\kappa \\in [{klo}, {khi}]$, "
        f"$\\theta \\in [{ktlo}, {kthi}]$ (Figure~\\ref{{fig:maps_inflight}}). The unstable "
        "region is bounded by one Hopf curve that leaves the axis $\\kappa = 0$ at the "
        "founding model's $\\theta_c$, bends to the right and turns back: at a fixed $\\kappa$ "
        "below the turning point the unstable $\\theta$ form a bounded window, and beyond it "
        "every $\\theta$ is stable. The turning point in $\\kappa$ is $\\kappa^*$, the "
        "smallest weight stable for every $\\theta$.\n\n"
        + fig_inflight
        + in_table
        + in_points
        + "\\paragraph{What was searched.} "
        + _searched_text(founding, inflight, g)
    )
    return Section(
        "Stability maps in two parameters",
        body,
        [ctx.figures_dir / "maps_founding.pdf", ctx.figures_dir / "maps_inflight.pdf"],
    )
