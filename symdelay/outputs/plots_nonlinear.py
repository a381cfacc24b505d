"""Figures of the nonlinear analysis (matplotlib ``Figure`` API, no pyplot state).

Each function takes results computed by :mod:`symdelay.models.erlang.nonlinear` (or arrays from them) and
returns a ``Figure``; nothing here computes mathematics beyond evaluating a result's own
formula on a grid.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

__all__ = [
    "normal_form_figure",
    "cycle_figure",
    "family_figure",
    "bifurcation_figure",
    "period_figure",
    "spectrum_figure",
]

THETA = r"routing sensitivity $\theta$"


def normal_form_figure(nf, cycles=None, theta_max=None) -> Figure:
    """``c sqrt(theta - theta_c)`` (and a family's computed amplitudes, if given)."""
    fig = Figure(figsize=(5.6, 3.8), layout="tight")
    ax = fig.subplots()
    th_c = float(nf.theta_c)
    top = theta_max or (max(c.theta for c in cycles.path) if cycles else 2 * th_c)
    if getattr(nf, "side", "above") == "below":
        top = theta_max or 0.0
    th = np.linspace(th_c, top, 400)
    p = getattr(nf, "param", "theta")
    sym = THETA if p == "theta" else f"${p}$"
    law = r"\theta-\theta_c" if p == "theta" else rf"|{p}-{p}_c|"
    ax.plot(th, nf.amplitude(th), "k--", lw=1.2, label=rf"normal form $c\sqrt{{{law}}}$")
    if cycles is not None:
        t, a, _, _ = cycles.arrays()
        ax.plot(t, a, "C0-", lw=1.6, label="computed cycles")
    ax.axvline(th_c, color="0.6", lw=0.8, ls=":")
    ax.set_xlabel(sym)
    ax.set_ylabel(r"amplitude of $x = q_1 - q_2$")
    ax.legend(fontsize=8)
    return fig


def cycle_figure(cycle) -> Figure:
    """``x(t)`` over one period and the projection ``(x, last coordinate)``."""
    fig = Figure(figsize=(8.0, 3.4), layout="tight")
    a1, a2 = fig.subplots(1, 2)
    y = np.atleast_2d(cycle.y)
    a1.plot(cycle.t, y[0], "C0")
    a1.set_xlabel("time $t$ (one period)")
    a1.set_ylabel("$x$")
    a1.set_title(rf"$\theta = {cycle.theta:g}$, $T = {cycle.period:.5g}$", fontsize=9)
    if y.shape[0] > 1:
        a2.plot(y[0], y[-1], "C1")
        a2.set_xlabel("$x$")
        a2.set_ylabel("last coordinate")
    else:
        m = np.abs(cycle.multipliers)
        a2.semilogy(np.arange(1, m.size + 1), m, "o")
        a2.set_xlabel("index")
        a2.set_ylabel(r"$|\rho|$ (Floquet)")
    return fig


def family_figure(family) -> Figure:
    """Amplitude, period and the largest non-trivial Floquet multiplier along a family."""
    th, a, T, m = family.arrays()
    fig = Figure(figsize=(9.0, 3.0), layout="tight")
    ax = fig.subplots(1, 3)
    ax[0].plot(th, a, "C0.-")
    ax[0].set_ylabel("amplitude of $x$")
    ax[1].plot(th, T, "C1.-")
    ax[1].set_ylabel("period")
    ax[2].plot(th, m, "C2.-")
    ax[2].set_ylabel(r"largest non-trivial $|\rho|$")
    for a_ in ax:
        a_.set_xlabel(THETA)
    return fig


#: Parameters drawn as Greek letters on a branch figure's axis.
_GREEK = ("theta", "mu", "lam", "kappa", "gamma", "eta")


def _param_label(name: str) -> str:
    sym = "lambda" if name == "lam" else name
    return rf"$\{sym}$" if name in _GREEK else f"${name}$"


def _draw_orbits(axis, branch, column) -> None:
    """One branch's orbits (``column`` 1: amplitude, 2: period of ``branch.arrays()``),
    styled by stability, and its special points."""
    arrays = branch.arrays()
    p, y, s = arrays[0], arrays[column], arrays[3]
    for k in range(len(p) - 1):
        both = s[k : k + 2]
        if np.all(both == 1):
            style = {"color": "C0", "ls": "-"}
        elif np.all(both == 0):
            style = {"color": "C3", "ls": "--"}
        else:
            style = {"color": "0.6", "ls": ":"}
        axis.plot(p[k : k + 2], y[k : k + 2], lw=1.6, **style)
    und = np.isnan(s)
    if und.any():
        axis.plot(p[und], y[und], "x", color="0.5", ms=4)
    for sp_ in branch.special_points:
        v = sp_.amplitude if column == 1 else sp_.period
        axis.plot([sp_.value], [v], "ko", ms=5)
        axis.annotate(sp_.kind, (sp_.value, v), textcoords="offset points", xytext=(4, 4),
                      fontsize=8)  # fmt: skip


def branch_figure(branch, law=None, upto=None) -> Figure:
    """Amplitude and period of a continued branch of cycles against its parameter: stable
    orbits solid, unstable dashed, undecided grey dotted; the special points marked (LPC,
    PD, NS) and the Hopf point where the branch starts. ``law``: ``(values, amplitudes,
    label)``, a prediction drawn dash-dotted on the amplitude panel (the normal form's
    ``c sqrt|p - p_c|``); ``upto``: the largest parameter value shown. The branches of
    doubled cycles switched to at its period doublings (``branch.doubled``, every level) are
    drawn in the same styles."""
    p, a, T, _ = branch.arrays()
    fig = Figure(figsize=(9.0, 3.4), layout="tight")
    ax = fig.subplots(1, 2)
    observed = getattr(branch, "observed", "")  # a state's name; x for an imbalance
    observed = observed if observed and " " not in observed else "x"
    family = [branch]
    for b in family:
        family.extend(getattr(b, "doubled", ()))
    for axis, column, label in (
        (ax[0], 1, f"amplitude of ${observed}$ (half peak-to-peak)"),
        (ax[1], 2, "period"),
    ):
        y = a if column == 1 else T
        for member in family:
            _draw_orbits(axis, member, column)
        if branch.start.get("kind") == "Hopf point":
            hv = float(branch.start["value"])
            if axis is ax[0]:
                axis.plot([hv], [0.0], "k^", ms=5)
                axis.annotate("H", (hv, 0.0), textcoords="offset points", xytext=(4, 4), fontsize=8)
        axis.set_xlabel(_param_label(branch.param))
        axis.set_ylabel(label)
        if upto is not None:
            lo = min(p.min(), float(branch.start.get("value", p.min())))
            axis.set_xlim(lo - 0.02 * (upto - lo), upto)
            shown = y[p <= upto]
            if shown.size:
                axis.set_ylim(min(0.0, shown.min()) if axis is ax[0] else shown.min() * 0.98,
                              shown.max() * 1.05)  # fmt: skip
    if law is not None:
        lp, la, llabel = law
        ax[0].plot(lp, la, color="k", ls="-.", lw=1.0, label=llabel)
    ax[0].plot([], [], color="C0", label="stable")
    ax[0].plot([], [], color="C3", ls="--", label="unstable")
    ax[0].plot([], [], color="0.6", ls=":", label="undecided / change")
    ax[0].legend(fontsize=7)
    fig.suptitle(f"branch of cycles in {_param_label(branch.param)} ({len(p)} orbits)", fontsize=9)
    return fig


def bifurcation_figure(curves: dict, predictions: dict, simulated=None, relay=None) -> Figure:
    """``curves``: label -> (theta, amplitude) of the computed cycles; ``predictions``:
    label -> (theta, normal-form amplitude); ``simulated``: rows (theta, amp, halfwidth,
    label); ``relay``: label -> describing-function relay limit ``8/(pi theta_c)``."""
    fig = Figure(figsize=(6.6, 4.6), layout="tight")
    ax = fig.subplots()
    for i, (label, (th, a)) in enumerate(curves.items()):
        ax.plot(th, a, color=f"C{i}", lw=1.6, label=label)
        if label in predictions:
            tp, ap = predictions[label]
            ax.plot(tp, ap, color=f"C{i}", lw=0.9, ls="--")
        if relay and label in relay:
            ax.axhline(relay[label], color=f"C{i}", lw=0.6, ls=":")
    if simulated:
        for k, (th, a, hw, label) in enumerate(simulated):
            ax.errorbar(
                [th], [a], yerr=[hw], fmt="o^sD"[k % 4], color="k", ms=4, capsize=3, label=label
            )
    ax.set_xscale("log")
    ax.set_xlabel(THETA + " (log scale)")
    ax.set_ylabel(r"amplitude of $x = q_1 - q_2$ (half peak-to-peak)")
    ax.set_title(
        "limit cycles: solid computed, dashed normal form, dotted relay limit (describing function)",
        fontsize=9,
    )
    ax.legend(fontsize=7, ncol=2)
    return fig


def period_figure(curves: dict, hopf_periods: dict) -> Figure:
    """label -> (theta, period); ``hopf_periods``: label -> ``2 pi / omega_c``."""
    fig = Figure(figsize=(6.6, 4.0), layout="tight")
    ax = fig.subplots()
    for i, (label, (th, T)) in enumerate(curves.items()):
        ax.plot(th, T, color=f"C{i}", lw=1.6, label=label)
        if label in hopf_periods:
            ax.axhline(hopf_periods[label], color=f"C{i}", lw=0.7, ls="--")
    ax.set_xscale("log")
    ax.set_xlabel(THETA + " (log scale)")
    ax.set_ylabel("period of the cycle")
    ax.set_title(r"dashed: $2\pi/\omega_c$ at the Hopf point", fontsize=9)
    ax.legend(fontsize=7)
    return fig


def spectrum_figure(spectra, periodograms=None) -> Figure:
    """LNA spectra (each a :class:`~symdelay.analysis.spectrum.Spectrum`) and simulated
    periodograms ``(omega, S_hat, se, label)`` on a log scale."""
    fig = Figure(figsize=(6.6, 4.2), layout="tight")
    ax = fig.subplots()
    for i, s in enumerate(spectra):
        th = s.parameters.get("theta", "")
        q = "-" if s.quality_factor is None else f"{s.quality_factor:.3g}"
        ax.semilogy(s.omega, s.S, color=f"C{i}", lw=1.5, label=rf"LNA $\theta={th}$, $Q={q}$")
    for i, (w, S, se, label) in enumerate(periodograms or ()):
        ax.errorbar(w, S, yerr=2 * se, fmt=".", ms=3, color=f"C{i}", alpha=0.6, label=label)
    ax.set_xlabel(r"angular frequency $\omega$")
    ax.set_ylabel(r"$S(\omega)$ of $\sqrt{\eta}\,x$")
    ax.legend(fontsize=7)
    return fig
