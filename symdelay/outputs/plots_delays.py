"""Figures of delay models (matplotlib ``Figure`` API, no pyplot state)."""

from __future__ import annotations

from matplotlib.figure import Figure

__all__ = ["critical_lag_figure"]


def critical_lag_figure(thetas, curves: dict, closed: dict, xlabel: str, ylabel: str) -> Figure:
    """Critical lag against a parameter: ``curves`` ``{label: values}`` (certified, drawn as
    markers) and ``closed`` ``{label: values}`` (a closed form, drawn as lines in the same
    colour, in the same order); an infinite value (no lag destabilises) is not drawn."""
    import numpy as np

    fig = Figure(figsize=(6.4, 4.0), layout="constrained")
    ax = fig.subplots()
    x = np.asarray(thetas, dtype=float)
    for i, (label, ys) in enumerate(curves.items()):
        y = np.asarray(ys, dtype=float)
        ok = np.isfinite(y)
        step = max(1, int(ok.sum()) // 40)  # markers thinned; the line carries the rest
        ax.plot(x[ok][::step], y[ok][::step], "o", ms=3.5, color=f"C{i}", label=label)
    for i, (label, ys) in enumerate(closed.items()):
        y = np.asarray(ys, dtype=float)
        ok = np.isfinite(y)
        ax.plot(x[ok], y[ok], "-", lw=1.0, color=f"C{i}", label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8)
    ax.grid(True, which="both", lw=0.3, alpha=0.5)
    return fig
