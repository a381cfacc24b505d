"""Figures of the LB(xi, c, d) study (matplotlib ``Figure`` API, no pyplot state)."""

from __future__ import annotations

from matplotlib.figure import Figure

__all__ = ["comparison_figure", "convergence_figure", "routing_label"]

#: Display names of the routings (LaTeX and matplotlib mathtext alike).
_LABELS = {"LB xi=2": r"LB, $\xi = 2$", "LB xi=J": r"LB, $\xi = J$"}


def routing_label(name: str) -> str:
    """The routing ``name`` of :data:`symdelay.models.lb.compare.ROUTINGS` as printed text."""
    return _LABELS.get(name, name)


_STYLE = {
    "LB xi=2": ("C0", "o"),
    "LB xi=J": ("C1", "s"),
    "random": ("C2", "^"),
    "JSQ": ("C3", "D"),
    "power-of-2": ("C4", "v"),
}


def comparison_figure(rows, theory_curves: dict | None = None) -> Figure:
    """P(wait) and sqrt(n) E[W] against beta: simulated (95 % bars) per routing; lines are
    ``theory_curves`` ``{name: (betas, p_wait, delay)}`` (diffusion or Erlang C)."""
    fig = Figure(figsize=(9.0, 3.8), layout="tight")
    ax1, ax2 = fig.subplots(1, 2)
    names = list(dict.fromkeys(r.routing for r in rows))
    for k, name in enumerate(names):
        col, mk = _STYLE.get(name, (f"C{k}", "o"))
        sel = [r for r in rows if r.routing == name]
        b = [float(r.beta) + 0.012 * (k - 2) for r in sel]
        for ax, key in ((ax1, "p_wait"), (ax2, "mean_wait_scaled")):
            est = [getattr(r, key) for r in sel]
            ax.errorbar(
                b,
                [e.value for e in est],
                yerr=[[e.value - e.lo for e in est], [e.hi - e.value for e in est]],
                fmt=mk,
                color=col,
                ms=4,
                capsize=2,
                label=routing_label(name),
            )
        if theory_curves and name in theory_curves:
            tb, tp, tw = theory_curves[name]
            ax1.plot(tb, tp, "-", color=col, lw=0.9)
            ax2.plot(tb, tw, "-", color=col, lw=0.9)
    ax1.set_xlabel(r"$\beta$")
    ax1.set_ylabel("P(wait)")
    ax2.set_xlabel(r"$\beta$")
    ax2.set_ylabel(r"$\sqrt{n}\,E[W]$")
    ax2.set_yscale("log")
    ax1.legend(fontsize=7)
    return fig


def convergence_figure(points) -> Figure:
    """|simulated - diffusion| of P(wait) and sqrt(n) E[W] against n (95 % half-widths)."""
    fig = Figure(figsize=(6.4, 4.0), layout="tight")
    ax = fig.subplots()
    ns = [p.n for p in points]
    for key, col, lab in (
        ("p_wait", "C0", "P(wait)"),
        ("mean_delay_scaled", "C1", r"$\sqrt{n}E[W]$"),
    ):
        est = [getattr(p, key) for p in points]
        err = [abs(e.value - p.theory[key]) for e, p in zip(est, points)]
        hw = [e.half_width for e in est]
        ax.plot(ns, err, "o-", color=col, label=f"$|$simulation $-$ diffusion$|$, {lab}")
        ax.plot(ns, hw, ":", color=col, label=f"95% half-width, {lab}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("total servers $n$")
    ax.set_ylabel("absolute difference")
    ax.legend(fontsize=9)
    return fig
