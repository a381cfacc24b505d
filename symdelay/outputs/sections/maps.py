"""Report section: stability maps in two parameters — (D, theta) of the founding model for
several L, and (kappa, theta) of the in-flight model. Every number printed comes from the
maps' records (:class:`~symdelay.analysis.stability_map.StabilityMap`); the closed forms of
the turning points are only checked against them."""

from __future__ import annotations

import functools
import math

import mpmath
from matplotlib.figure import Figure

from symdelay.analysis.stability_map import stability_map
from symdelay.core.errors import VerificationError
from symdelay.core.latex import escape
from symdelay.models import build_model
from symdelay.models.inflight import kappa_star
from symdelay.outputs.plots_map import stability_map_figure
from symdelay.outputs.report import Section, figure_tex

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
        ks = kappa_star(L, mu=INFLIGHT["mu"], D=INFLIGHT["D"], dps=DPS).kappa_star
        if len(turning) != 1 or not _close(turning[0]["x"], ks):
            raise VerificationError(f"the L = {L} in-flight map does not turn at kappa* = {ks}")
        out[L] = ks
    return out


def _panels(maps, title, columns):
    n = len(maps)
    cols = min(columns, n)
    rows = math.ceil(n / cols)
    fig = Figure(figsize=(4.6 * cols, 3.7 * rows), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    for ax, (L, m) in zip(axes, maps.items(), strict=False):
        stability_map_figure(m, ax=ax)
        ax.set_title(title.format(L=_L(L)), fontsize=10)
    for ax in axes[n:]:
        ax.set_visible(False)
    return fig


_figure = functools.partial(figure_tex, width="0.95")


def _regions(m) -> str:
    """The regions of a map in words, from its record."""
    by_count: dict = {}
    for g in m.record()["regions"]:
        cells, pieces = by_count.get(g["unstable_roots"], (0, 0))
        by_count[g["unstable_roots"]] = (cells + g["cells"], pieces + 1)
    return ", ".join(
        f"{n} unstable roots ({cells} cells" + (f" in {pieces} regions)" if pieces > 1 else ")")
        for n, (cells, pieces) in sorted(by_count.items())
    )


def _special_rows(maps) -> list:
    rows = []
    for L, m in maps.items():
        pts = m.record()["special_points"]
        if not pts:
            rows.append(f"${_L(L)}$ & \\multicolumn{{5}}{{l}}{{none in the box}} \\\\")
        for s in pts:
            w = ", ".join(s["omega"]) if isinstance(s["omega"], list) else s["omega"]
            rows.append(
                f"${_L(L)}$ & {escape(s['type'])} & {s['x']} & {s['y']} & {w} & "
                f"{'yes' if s['certified'] else 'no'} \\\\"
            )
    return rows


def _table(maps, xs, ys) -> str:
    return (
        "\\begin{center}\\small\n\\begin{tabular}{rllllc}\n\\toprule\n"
        f"$L$ & point & ${xs}$ & ${ys}$ & $\\omega$ & proved \\\\\n\\midrule\n"
        + "\n".join(_special_rows(maps))
        + "\n\\bottomrule\n\\end{tabular}\n\\end{center}\n"
    )


def _notes(labelled) -> str:
    """The records' notes (``labelled``: ``[(label, map)]``), except the one saying how D
    became the Erlang rate gamma."""
    seen = []
    for label, m in labelled:
        for n in m.notes:
            if "the transition table has a chain of" in n:
                continue
            seen.append(f"{label}: {escape(n)}")
    if not seen:
        return ""
    return "The maps' notes: " + "; ".join(seen) + ".\n\n"


def _searched(maps) -> str:
    texts = sorted({m.searched for m in maps})
    return " ".join(escape(t[0].upper() + t[1:]) + "." for t in texts)


def build(ctx) -> Section:
    founding = founding_maps(ctx.quick)
    inflight = inflight_maps(ctx.quick)
    _check_founding(founding)
    kstars = _check_inflight(inflight)

    columns = 2 if len(founding) <= 4 else 3
    figs = [
        ctx.save(_panels(founding, "founding model, $L = {L}$", columns), "maps_founding.pdf"),
        ctx.save(_panels(inflight, "in-flight weight, $L = {L}$", 2), "maps_inflight.pdf"),
    ]

    (_, dlo, dhi), (_, tlo, thi) = FOUNDING_BOX
    (_, klo, khi), (_, ktlo, kthi) = INFLIGHT_BOX
    g = grid(ctx.quick)
    Ls = ", ".join(f"${_L(L)}$" for L in FOUNDING_LS)
    mu, lam = PARAMETERS["mu"], PARAMETERS["lam"]

    region_lines = "; ".join(f"$L = {_L(L)}$: {_regions(m)}" for L, m in founding.items())
    stable_all = [_L(L) for L, m in founding.items() if not m.curves]
    turning = {
        L: s
        for L, m in founding.items()
        for s in m.record()["special_points"]
        if s["type"] == "turning_y"
    }
    turning_text = "; ".join(
        f"$L = {_L(L)}$: $D^* = {s['x']}$, $\\theta^* = {s['y']}$" for L, s in turning.items()
    )
    no_turn = [_L(L) for L, m in founding.items() if m.curves and L not in turning]

    in_rows = []
    for L, m in inflight.items():
        s = next(p for p in m.record()["special_points"] if p["type"] == "turning_x")
        in_rows.append(
            f"at $L = {L}$ the boundary turns back at $\\kappa = {s['x']}$ "
            f"($\\theta = {s['y']}$, $\\omega = {s['omega']}$), and \\texttt{{kappa\\_star}} "
            f"gives $\\kappa^* = {mpmath.nstr(kstars[L], DPS)}$"
        )
    latex_blocks = "".join(
        f"At $L = {L}$:\n\\begin{{equation*}}\n{m.latex()}\n\\end{{equation*}}\n"
        for L, m in inflight.items()
    )

    body = (
        "A stability map draws, in a box of two parameters (every other parameter a number), "
        "the curves where a root of a characteristic factor is on the imaginary axis (Hopf "
        "curves: a pair $\\pm i\\omega$; fold curves: a root at $0$), traced by continuation "
        "from exact crossings on grid lines and proved point by point (Krawczyk, Arb); it "
        "shades each cell by the exact number of unstable roots at its centre and locates "
        "the curves' special points (\\texttt{symdelay map}, "
        "\\texttt{symdelay.analysis.stability\\_map}).\n\n"
        "\\subsection*{The founding model in $(D, \\theta)$}\n"
        f"Boxes $D \\in [{dlo}, {dhi}]$, $\\theta \\in [{tlo}, {thi}]$ at $\\mu = {mu}$, "
        f"$\\lambda = {lam}$, for $L = $ {Ls}. Regions (from the records): {region_lines}. "
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
        + "".join(
            f"At $L = {_L(L)}$ the box holds {len(m.curves)} Hopf curves: above the first, "
            f"further pairs cross (up to {max(_counts(m))} unstable roots). "
            for L, m in founding.items()
            if len(m.curves) > 1
        )
        + "The lowest curve's minimum over $D$ is the "
        "map's turning point in $\\theta$, the worst delay: "
        + (turning_text or "none in the box")
        + ". They agree with the closed forms $D^* = L/\\mu$, "
        "$\\theta^* = \\mu\\sec^{L+1}(\\pi/(L+1))/\\lambda$ to the digits printed (checked "
        "when the report is built); below $\\theta^*$ the equilibrium is stable for every "
        "mean delay. "
        + (
            f"At $L = {', '.join(no_turn)}$ the lowest curve has no turning point in the box "
            "(at $L = \\infty$, $\\theta_c$ decreases to $\\mu/\\lambda$ as $D \\to \\infty$). "
            if no_turn
            else ""
        )
        + "\n\n"
        + _figure(
            figs[0],
            "Stability maps of the founding model in $(D, \\theta)$, $\\mu = \\lambda = 1$: "
            "cells shaded by their exact number of unstable roots, the certified Hopf curve, "
            "and its turning point (the worst delay).",
        )
        + _table(founding, "D", "\\theta")
        + "\\subsection*{The in-flight weight in $(\\kappa, \\theta)$}\n"
        "The dispatcher routes on $q_i + \\kappa z_i$ ($z_i$ the jobs in flight to queue $i$; "
        f"\\texttt{{inflight}}, $\\mu = {INFLIGHT['mu']}$, $\\lambda = {INFLIGHT['lam']}$, "
        f"$D = {INFLIGHT['D']}$), box $\\kappa \\in [{klo}, {khi}]$, "
        f"$\\theta \\in [{ktlo}, {kthi}]$. The unstable region is bounded by one Hopf curve "
        "that leaves the axis $\\kappa = 0$ at the founding model's $\\theta_c$, bends to the "
        "right and turns back: at a fixed $\\kappa$ below the turning point the unstable "
        "$\\theta$ form a bounded window, and beyond it every $\\theta$ is stable. The turning "
        "point in $\\kappa$ is $\\kappa^*$, the smallest weight stable for every $\\theta$: "
        + "; ".join(in_rows)
        + " (agreement checked when the report is built). The records' special points:\n"
        + latex_blocks
        + _figure(
            figs[1],
            "Stability maps of the in-flight model in $(\\kappa, \\theta)$, "
            "$\\mu = \\lambda = D = 1$; the turning point in $\\kappa$ is $\\kappa^*$.",
        )
        + "\\paragraph{What was searched.} "
        + _searched([*founding.values(), *inflight.values()])
        + f" ({g['cells']}$\\times${g['cells']} cells in every map of this section; the "
        f"in-flight maps seeded from {g['seeds']} lines each way.)\n\n"
        + _notes(
            [(f"founding model, $L = {_L(L)}$", m) for L, m in founding.items()]
            + [(f"in-flight model, $L = {L}$", m) for L, m in inflight.items()]
        )
    )
    return Section(
        "Stability maps in two parameters",
        body,
        [ctx.figures_dir / f.split("/")[-1] for f in figs],
    )
