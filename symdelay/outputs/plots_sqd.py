"""Figures of the SQ(d) analyses (matplotlib ``Figure`` API, no pyplot state)."""

from __future__ import annotations

from matplotlib.figure import Figure

__all__ = [
    "plot_tail",
    "power_of_d_figure",
    "fit_convergence_figure",
    "herding_figure",
    "convergence_figure",
]


def _ax(ax, size=(5.6, 3.8)):
    if ax is not None:
        return ax.figure, ax
    fig = Figure(figsize=size, layout="tight")
    return fig, fig.subplots()


def plot_tail(fp, ax=None):
    """``s_k`` of a fixed point on a log scale."""
    fig, ax = _ax(ax)
    ks = range(1, len(fp.tail) + 1)
    ax.semilogy(ks, [max(float(v), 1e-300) for v in fp.tail], "o-")
    ax.set(xlabel="k", ylabel="$s_k$")
    ax.set_title(f"SQ({fp.d}), $\\lambda$ = {float(fp.lam):g}")
    return fig


#: line styles in the order services are given, and their names (for captions)
LINE_STYLES = ("-", "--", ":", "-.")
STYLE_NAMES = {"-": "solid", "--": "dashed", ":": "dotted", "-.": "dash-dotted"}


def service_styles(services) -> dict:
    """``{service label: line style}`` in the order given: one source for the figure's
    legend and the caption that describes it."""
    return {label: LINE_STYLES[i % len(LINE_STYLES)] for i, label in enumerate(services)}


def style_text(styles: dict) -> str:
    """``solid: A; dashed: B`` for a caption, from :func:`service_styles`."""
    return "; ".join(f"{STYLE_NAMES[st]}: {label}" for label, st in styles.items())


def power_of_d_figure(curves: dict, tails: dict, styles: dict | None = None) -> Figure:
    """Left: mean sojourn against lam, one line per (d, service). Right: tails s_k at one lam.
    ``styles``: :func:`service_styles` (by default, the services in the order of ``curves``)."""
    fig = Figure(figsize=(7.2, 3.2), layout="tight")
    a1, a2 = fig.subplots(1, 2)
    styles = dict(styles or service_styles(dict.fromkeys(label for _, label in curves)))
    for (d, label), (lams, ts) in sorted(curves.items()):
        st = styles[label]
        a1.plot(lams, ts, st, color=f"C{[1, 2, 3, 5].index(d) if d in (1, 2, 3, 5) else 0}",
                label=f"d={d}, {label}")  # fmt: skip
    a1.set(yscale="log", xlabel="$\\lambda$", ylabel="mean sojourn time")
    # colour = d, line style = service: two short legends, not one entry per pair (12 at
    # 6 pt, unreadable once the figure is scaled to the text width)
    from matplotlib.lines import Line2D

    ds = sorted({d for d, _ in curves} | {d for d, _ in tails})
    d_handles = [
        Line2D([], [], color=f"C{[1, 2, 3, 5].index(d) if d in (1, 2, 3, 5) else 0}",
               label=f"$d = {d}$")
        for d in ds
    ]  # fmt: skip
    s_handles = [Line2D([], [], color="0.3", ls=st, label=lab) for lab, st in styles.items()]
    a1.legend(handles=d_handles, fontsize=9, loc="upper left")
    for (d, label), tail in sorted(tails.items()):
        st = styles.get(label, "-")
        a2.semilogy(range(1, len(tail) + 1), tail, st + "o", ms=3,
                    color=f"C{[1, 2, 3, 5].index(d) if d in (1, 2, 3, 5) else 0}",
                    label=f"d={d}, {label}")  # fmt: skip
    a2.set(ylim=(1e-12, 1.5), xlim=(0.5, 12.5), xlabel="$k$", ylabel="$s_k$")
    a2.legend(handles=s_handles, fontsize=9, title="service", title_fontsize=9)
    return fig


def fit_convergence_figure(rows: dict, sims: dict) -> Figure:
    """Mean sojourn of the fixed point of order-n fits; simulation of the true law as a band."""
    fig, ax = _ax(None, (6.0, 3.9))
    for i, (name, pts) in enumerate(sorted(rows.items())):
        ns = [n for n, _ in pts]
        ax.plot(ns, [t for _, t in pts], "o-", color=f"C{i}", label=f"{name}: fits")
        if name in sims:
            lo, hi = sims[name]
            ax.axhspan(lo, hi, color=f"C{i}", alpha=0.2)
    ax.set_xscale("log", base=2)
    ax.set(xlabel="fit order (phases)", ylabel="mean sojourn time (mean field)")
    ax.legend(fontsize=7)
    return fig


def herding_figure(Ds, sims: dict, mf: dict) -> Figure:
    """Station sojourn time against the mean delay D, per d: simulation (CI) and mean field."""
    fig, ax = _ax(None, (6.0, 3.9))
    for i, d in enumerate(sorted(sims)):
        m = [s[0] for s in sims[d]]
        err = [[s[0] - s[1] for s in sims[d]], [s[2] - s[0] for s in sims[d]]]
        ax.errorbar(Ds, m, yerr=err, fmt="o", color=f"C{i}", label=f"simulation d={d}")
        if d in mf:
            ax.plot([x for x, _ in mf[d]], [y for _, y in mf[d]], "-", color=f"C{i}",
                    label=f"mean field d={d}")  # fmt: skip
    ax.set(xlabel="mean action delay D", ylabel="mean sojourn at the server")
    ax.legend(fontsize=7)
    return fig


def convergence_figure(res) -> Figure:
    """Left: |bias| of E[T] and of s_2, s_3 against N (95% CIs; hollow: CI contains 0) with
    the fitted C N^-p. Right: sd of the instantaneous s_k(t) against N with C N^-q."""
    import numpy as np

    fig = Figure(figsize=(9.6, 3.9), layout="tight")
    a1, a2 = fig.subplots(1, 2)
    Ns = np.array([r.N for r in res.rows], dtype=float)
    grid = np.geomspace(Ns.min(), Ns.max(), 50)
    series = [("E[T]", [r.sojourn_bias for r in res.rows], res.bias_fit)]
    series += [
        (f"$s_{k + 1}$", [r.tail_bias[k] for r in res.rows], res.tail_bias_fits[k])
        for k in range(1, len(res.rows[0].tail_bias))
    ]
    for i, (name, ests, fit) in enumerate(series):
        v = np.array([e.value for e in ests])
        h = np.array([e.half for e in ests])
        sig = np.abs(v) > h
        a1.errorbar(Ns[sig], np.abs(v[sig]), yerr=h[sig], fmt="o", color=f"C{i}", ms=4,
                    label=name if fit is None else f"{name}: p = {fit.p:.2f} [{fit.lo:.2f}, {fit.hi:.2f}]")  # fmt: skip
        a1.errorbar(Ns[~sig], np.maximum(np.abs(v[~sig]), 1e-7), yerr=h[~sig], fmt="o",
                    mfc="none", color=f"C{i}", ms=4)  # fmt: skip
        if fit is not None and fit.C > 0:
            a1.plot(grid, fit.C * grid ** (-fit.p), "-", color=f"C{i}", lw=0.8)
    a1.set(xscale="log", yscale="log", xlabel="N", ylabel="|simulation - mean field|")
    a1.set_title("bias (hollow: 95% CI contains 0)", fontsize=9)
    a1.legend(fontsize=7)
    for k in range(len(res.rows[0].fluct_sd)):
        e = [r.fluct_sd[k] for r in res.rows]
        v = np.array([x.value for x in e])
        h = np.array([x.half for x in e])
        fit = res.fluct_fits[k]
        lab = f"$s_{k + 1}(t)$" + ("" if fit is None else f": q = {fit.p:.3f} [{fit.lo:.3f}, {fit.hi:.3f}]")  # fmt: skip
        a2.errorbar(Ns, v, yerr=h, fmt="s", color=f"C{k}", ms=4, label=lab)
        if fit is not None:
            a2.plot(grid, fit.C * grid ** (-fit.p), "-", color=f"C{k}", lw=0.8)
    a2.set(xscale="log", yscale="log", xlabel="N", ylabel="sd of the instantaneous $s_k(t)$")
    a2.set_title("fluctuations", fontsize=9)
    a2.legend(fontsize=7)
    return fig
