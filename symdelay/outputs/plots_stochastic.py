"""Figures of the stochastic system (matplotlib ``Figure`` API, no pyplot state).

Every function takes computed records (:class:`~symdelay.analysis.timeseries.TimeSeries`
and the studies of :mod:`symdelay.models.erlang.stochastic`) and returns a ``Figure`` (or
draws on the Axes given); nothing here computes mathematics.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

__all__ = [
    "time_series_axes",
    "paths_figure",
    "wave_figure",
    "phase_plane_figure",
    "imbalance_figure",
    "fluid_limit_figure",
    "variance_figure",
    "covariance_figure",
]


def _margins(fig, top=0.86, bottom=0.14, left=0.1, wspace=0.28):
    """Fixed margins (a layout engine costs more time than the whole plot)."""
    fig.subplots_adjust(left=left, right=0.98, bottom=bottom, top=top, wspace=wspace)


SCALED = "scaled number of jobs (jobs / $\\eta$)"
TIME = "time $t$ (model time units)"


#: Paths drawn by default: the states that are not numbered members of a group (q1, q2 of
#: the queueing models; x of the difference mode), else the first few.
_DEFAULT_STATES = 6


def _default_states(ts) -> list:
    from symdelay.analysis.timeseries import state_keys

    alone = [ts.states[i] for _, i in state_keys(ts.states) if not isinstance(i, list)]
    return (alone or list(ts.states))[:_DEFAULT_STATES]


def time_series_axes(ts, ax=None, states=None, replications=None):
    """The paths of ``states`` (default: see :data:`_DEFAULT_STATES`) against time, every
    replication of a simulation (or those listed in ``replications``) as a thin line; the
    Axes (a new figure's when ``ax`` is None)."""
    from symdelay.outputs.notebook import axes

    ax = axes(ax)
    names = (
        _default_states(ts)
        if states is None
        else [states]
        if isinstance(states, str)
        else list(states)
    )
    reps = range(ts.replications) if replications is None else list(replications)
    for k, name in enumerate(names):
        y = ts.state(name)
        for j, r in enumerate(reps):
            thin = ts.replications > 1
            ax.plot(ts.t, y[r], color=f"C{k % 10}", lw=0.8 if thin else 1.2,
                    alpha=0.7 if thin else 1.0, label=name if j == 0 else None)  # fmt: skip
    eta = ts.parameters.get("eta") if ts.simulated else None
    what = f"{ts.kind}, {ts.model_name}" + ("" if eta is None else f", eta = {eta}")
    ax.set(xlabel=TIME, ylabel=SCALED if ts.simulated or ts.kind == "fluid" else "value")
    ax.set_title(what, fontsize=9)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    return ax


def paths_figure(panels, flu, title: str) -> Figure:
    """``panels``: list of ``(label, simulation)``; ``flu`` the fluid path (time series of
    the founding model)."""
    fig = Figure(figsize=(4.2 * len(panels), 3.4))
    axes = fig.subplots(1, len(panels), sharey=True, squeeze=False)[0]
    for ax, (label, sim) in zip(axes, panels):
        ax.plot(sim.t, sim["q1"], color="C0", lw=0.8, label="$q_1$ simulation")
        ax.plot(sim.t, sim["q2"], color="C1", lw=0.8, label="$q_2$ simulation")
        ax.plot(flu.t, flu["q1"], "k--", lw=1.0, label="$q_1$ fluid")
        ax.plot(flu.t, flu["q2"], "k:", lw=1.2, label="$q_2$ fluid")
        ax.set_title(label, fontsize=9)
        ax.set_xlabel(TIME)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel(SCALED)
    axes[0].legend(fontsize=7, loc="best")
    fig.suptitle(title, fontsize=10)
    _margins(fig)
    return fig


def wave_figure(sim, flu, peaks, window) -> Figure:
    """``z_{1,1}, .., z_{1,L}, q_1`` (simulation and fluid) and the fluid peak times."""
    fig = Figure(figsize=(7.5, 3.6))
    ax = fig.subplots()
    L = len(flu["z1"])
    names = [f"$z_{{1,{l}}}$" for l in range(1, L + 1)] + ["$q_1$"]
    sims = [*sim["z1"], sim["q1"]]
    flus = [*flu["z1"], flu["q1"]]
    lo, hi = window
    ms, mf = (sim.t >= lo) & (sim.t <= hi), (flu.t >= lo) & (flu.t <= hi)
    for k, (nm, ys, yf) in enumerate(zip(names, sims, flus)):
        ax.plot(sim.t[ms], ys[ms], color=f"C{k}", lw=0.7, alpha=0.7, label=f"{nm} simulation")
        ax.plot(flu.t[mf], yf[mf], color=f"C{k}", lw=1.6, ls="--", label=f"{nm} fluid")
        if peaks[k] is not None:
            ax.axvline(peaks[k], color=f"C{k}", lw=0.8, ls=":")
    ax.set(xlabel=TIME, ylabel=SCALED)
    ax.set_title("wave through the delay phases (dotted: fluid peak times)", fontsize=9)
    ax.legend(fontsize=7, ncol=2, loc="best")
    ax.grid(alpha=0.3)
    _margins(fig, top=0.92)
    return fig


def phase_plane_figure(panels, title: str) -> Figure:
    """``panels``: list of ``(panel title, [(label, x, w), ...], w label)``."""
    fig = Figure(figsize=(4.2 * len(panels), 3.8))
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, (ptitle, curves, wlabel) in zip(axes, panels):
        for k, (label, x, w) in enumerate(curves):
            ax.plot(x, w, color=f"C{k}", lw=1.0, label=label)
            ax.plot(x[0], w[0], "o", color=f"C{k}", ms=3)
        ax.plot(0, 0, "k+", ms=8, label="equilibrium")
        ax.set(xlabel="imbalance $x = q_1 - q_2$ (scaled jobs)", ylabel=f"{wlabel} (scaled jobs)")
        ax.set_title(ptitle, fontsize=9)
        ax.legend(fontsize=7, loc="best")
        ax.grid(alpha=0.3)
    fig.suptitle(title, fontsize=10)
    _margins(fig)
    return fig


def imbalance_figure(curves, title: str) -> Figure:
    """``curves``: list of ``(label, t, x, style)``."""
    fig = Figure(figsize=(7.5, 3.4))
    ax = fig.subplots()
    for label, t, x, style in curves:
        ax.plot(t, x, style, lw=1.0, label=label)
    ax.axhline(0, color="k", lw=0.5)
    ax.set(xlabel=TIME, ylabel="imbalance $x = q_1 - q_2$ (scaled jobs)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, loc="best")
    ax.grid(alpha=0.3)
    _margins(fig, top=0.92)
    return fig


def fluid_limit_figure(study) -> Figure:
    """Mean sup distance vs eta (log-log) with standard errors and an eta^(-1/2) guide."""
    fig = Figure(figsize=(5.5, 3.8))
    ax = fig.subplots()
    rows = study.rows()
    for k, L in enumerate(study.distances):
        e = np.array([r[1] for r in rows if r[0] == L], float)
        m = np.array([r[2] for r in rows if r[0] == L])
        s = np.array([r[3] for r in rows if r[0] == L])
        slope, (lo, hi) = study.slopes[L]
        ax.errorbar(e, m, yerr=1.96 * s, fmt="o-", color=f"C{k}", capsize=3,
                    label=f"L = {L}: slope {slope:.3f} [{lo:.3f}, {hi:.3f}]")  # fmt: skip
        ax.plot(e, m[0] * (e / e[0]) ** -0.5, ls=":", color=f"C{k}", lw=0.8)
    ax.plot([], [], "k:", lw=0.8, label="reference $\\eta^{-1/2}$")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("system scale $\\eta$ (jobs)")
    ax.set_ylabel("mean of $\\sup_{t\\leq 20}$ distance (scaled jobs)")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3, which="both")
    _margins(fig, top=0.96, left=0.2)
    return fig


def variance_figure(curves, checks=(), thresholds=None, ymax=None) -> Figure:
    """``curves``: ``{L: (thetas, values)}``; ``checks``: ``(L, theta, estimate, halfwidth)``
    simulation points; ``thresholds``: ``{L: theta_c}`` drawn as vertical lines; ``ymax``
    clips the vertical axis (the variance diverges at the thresholds)."""
    fig = Figure(figsize=(6.5, 4.0))
    ax = fig.subplots()
    for k, (L, (th, v)) in enumerate(curves.items()):
        ax.plot(th, v, color=f"C{k}", lw=1.3, label=f"LNA, L = {L}")
        if thresholds and np.isfinite(thresholds.get(L, np.inf)):
            ax.axvline(thresholds[L], color=f"C{k}", ls=":", lw=0.8)
    colors = {L: f"C{k}" for k, L in enumerate(curves)}
    for j, (L, th, est, hw) in enumerate(checks):
        ax.errorbar([th], [est], yerr=[hw], fmt="s", ms=4, capsize=3,
                    color=colors.get(L, "k"),
                    label="simulation, 95% batch-means CI" if j == 0 else None)  # fmt: skip
    ax.set_xlabel("routing sensitivity $\\theta$ (per scaled job)")
    ax.set_ylabel("Var$(Q_1-Q_2)/\\eta$ (jobs)")
    if ymax is not None:
        ax.set_ylim(0, ymax)
    ax.set_title("stationary imbalance variance (dotted: Hopf threshold)", fontsize=9)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    _margins(fig, top=0.92)
    return fig


def covariance_figure(v) -> Figure:
    """The stationary covariance (divided by eta) of a
    :class:`~symdelay.analysis.stochastic.StationaryVariance` in its coordinates, as a
    heat map with the value in each cell; the title gives the imbalance variance."""
    sigma = np.array(v.sigma.tolist(), dtype=float) if v.sigma is not None else None
    if sigma is None:  # pragma: no cover - every path keeps the covariance
        raise TypeError("this variance record keeps no covariance to draw")
    names = [str(c) for c in (v.coordinates or v.states)]
    n = len(names)
    size = min(3.2 + 0.55 * n, 9.0)
    fig = Figure(figsize=(size + 1.2, size), layout="constrained")
    ax = fig.subplots()
    bound = float(np.max(np.abs(sigma))) or 1.0
    image = ax.imshow(sigma, cmap="RdBu_r", vmin=-bound, vmax=bound)
    fig.colorbar(image, ax=ax, label="covariance / $\\eta$")
    ax.set_xticks(range(n), names, rotation=45 if n > 4 else 0, ha="right" if n > 4 else "center")
    ax.set_yticks(range(n), names)
    if n <= 8:
        for i in range(n):
            for j in range(n):
                ax.text(j, i, f"{sigma[i, j]:.3g}", ha="center", va="center", fontsize=8)
    ax.set_xlabel("coordinate")
    ax.set_ylabel("coordinate")
    ax.set_title(
        f"stationary covariance (linear-noise approximation); Var(imbalance)/$\\eta$ = "
        f"{v.decimal()[:12]}",
        fontsize=9,
    )
    return fig
