"""Figures of the action-versus-information-delay comparison (matplotlib ``Figure`` API, no
pyplot state): the transients of several models from one initial state, and their
linear-noise spectra."""

from __future__ import annotations

from matplotlib.figure import Figure

__all__ = ["transient_figure", "spectra_figure"]


def transient_figure(paths: dict, t_imbalance: float, t_total: float, mark: float) -> Figure:
    """Two panels: the imbalance ``q1 - q2`` on ``[0, t_imbalance]`` and the jobs in the
    queues ``q1 + q2`` on ``[0, t_total]`` (a grey line at ``t = mark``). ``paths``:
    ``{label: (t, q1, q2, style)}``, ``style`` a matplotlib format string."""
    import numpy as np

    fig = Figure(figsize=(9.0, 3.6))
    ax1, ax2 = fig.subplots(1, 2, gridspec_kw={"width_ratios": (1.8, 1)})
    for label, (t, q1, q2, style) in paths.items():
        t, q1, q2 = (np.asarray(v, float) for v in (t, q1, q2))
        a = t <= t_imbalance
        ax1.plot(t[a], q1[a] - q2[a], style, lw=1.1, label=label)
        b = t <= t_total
        ax2.plot(t[b], q1[b] + q2[b], style, lw=1.1, label=label)
    ax1.set_xlabel("time $t$")
    ax1.set_ylabel("imbalance $q_1 - q_2$")
    ax1.set_title("(a) imbalance", fontsize=10)
    ax2.set_xlabel("time $t$")
    ax2.set_ylabel("jobs in the queues $q_1 + q_2$")
    ax2.set_title("(b) jobs in the queues, not in transit", fontsize=10)
    ax2.axvline(mark, color="grey", lw=0.6)
    ax1.axhline(0, color="grey", lw=0.4)
    fig.subplots_adjust(left=0.07, right=0.98, bottom=0.36, top=0.9, wspace=0.28)
    handles, labels = ax1.get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, frameon=False)
    return fig


def spectra_figure(spectra: dict) -> Figure:
    """``S(omega)`` of several models: ``spectra`` ``{label: (omega, S, style)}``."""
    fig = Figure(figsize=(6.4, 3.6))
    ax = fig.subplots()
    for label, (w, S, style) in spectra.items():
        ax.plot(w, S, style, lw=1.2, label=label)
    ax.set_xlabel("angular frequency $\\omega$")
    ax.set_ylabel("$S(\\omega)$ of $q_1 - q_2$")
    ax.set_ylim(bottom=0)
    ax.set_xlim(left=0)
    ax.legend(frameon=False)
    fig.subplots_adjust(left=0.1, right=0.98, bottom=0.14, top=0.96)
    return fig
