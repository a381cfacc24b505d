"""The simulated oscillation above ``theta_c``: amplitude and period with intervals.

Exact paths of the jump process (:func:`symdelay.models.erlang.stochastic.simulate`) are started on the
fluid cycle (the counts ``eta s`` of the point where ``x = 0``), so no transient is
discarded beyond one period. On each path ``x = (Q1 - Q2)/eta`` is smoothed by a centred
moving average over ``T_c / 40`` (``T_c`` the fluid period: the smoothing changes a
sinusoid of that period by less than 0.1 %); the cycles are cut at upward crossings of
``+-h`` (hysteresis ``h`` = a quarter of the fluid amplitude, so noise does not make extra
crossings); per path the period is the mean crossing interval and the amplitude the mean
over cycles of half the peak-to-peak. Intervals: Student t over the independent
replications (95 %). At small ``eta`` the noise adds to the peaks (the amplitude estimate
is biased up, by ``O(1/sqrt(eta))``); both converge to the fluid cycle as ``eta -> inf``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from symdelay.core.errors import SymdelayInputError

__all__ = ["SimulatedOscillation", "simulated_oscillation", "cycle_statistics"]


@dataclass(frozen=True)
class SimulatedOscillation:
    """Means and 95 % half-widths over replications, with the fluid cycle's values."""

    eta: int
    theta: float
    amplitude: float
    amplitude_halfwidth: float
    period: float
    period_halfwidth: float
    cycles: int
    replications: int
    fluid_amplitude: float
    fluid_period: float

    def to_json(self) -> dict:
        return {k: (v if isinstance(v, int) else repr(float(v))) for k, v in self.__dict__.items()}


def cycle_statistics(t, x, period_hint: float, amp_hint: float) -> tuple[float, float, int]:
    """``(mean period, mean half peak-to-peak, cycles)`` of one path (see the module text)."""
    dt = float(t[1] - t[0])
    win = max(1, round(period_hint / 40 / dt))
    if win > 1:
        kernel = np.ones(win) / win
        xs = np.convolve(x, kernel, mode="same")
        xs[: win // 2] = np.nan
        xs[-(win // 2) :] = np.nan
    else:
        xs = np.asarray(x, float)
    h = amp_hint / 4
    ups = []
    below = False
    for i in range(len(xs)):
        v = xs[i]
        if np.isnan(v):
            continue
        if v < -h:
            below = True
        elif v > h and below:
            # refine: last upward crossing of 0 before i
            j = i
            while j > 0 and not np.isnan(xs[j - 1]) and xs[j - 1] > 0:
                j -= 1
            if j > 0 and not np.isnan(xs[j - 1]):
                a, b = xs[j - 1], xs[j]
                ups.append(t[j - 1] + dt * (-a) / (b - a))
            else:
                ups.append(t[j])
            below = False
    if len(ups) < 2:
        return np.nan, np.nan, 0
    periods = np.diff(ups)
    amps = []
    for a, b in itertools.pairwise(ups):
        seg = xs[(t >= a) & (t < b)]
        seg = seg[~np.isnan(seg)]
        if seg.size:
            amps.append((seg.max() - seg.min()) / 2)
    return float(np.mean(periods)), float(np.mean(amps)), len(periods)


def simulated_oscillation(
    L, eta, mu, lam, theta, D, *, T=100.0, replications=8, seed=1, dt=0.01
) -> SimulatedOscillation:
    """Simulate ``replications`` paths at ``eta`` started on the fluid cycle; amplitude and
    period with 95 % intervals, and the fluid cycle's (:func:`.cycles.limit_cycle`)."""
    from scipy import stats

    from symdelay.models.erlang.action_delay import ActionDelayModel
    from symdelay.models.erlang.nonlinear.cycles import limit_cycle
    from symdelay.models.erlang.stochastic import simulate

    if replications < 2:
        raise SymdelayInputError("intervals need at least 2 replications")
    cyc = limit_cycle(L, mu, lam, D, theta)
    # the table's equilibrium, moved by the cycle's difference coordinates (x, w_1..w_L):
    # half of each to the first server's state, half from the second's
    view = ActionDelayModel(L, mu=mu, lam=lam, theta=theta, D=D)
    eq = view.equilibrium()
    pairs = [view.q, *zip(*view.z)]
    init = dict.fromkeys(view.state, 0.0)
    for (a, b), c in zip(pairs, cyc.y0, strict=True):
        init[a], init[b] = float(eq[a]) + c / 2, float(eq[b]) - c / 2
    init = np.rint(eta * np.array(list(init.values()))).astype(np.int64)
    sim = simulate(
        L=L,
        eta=eta,
        mu=mu,
        lam=lam,
        theta=theta,
        D=D,
        T=T,
        seed=seed,
        dt=dt,
        replications=replications,
        initial=init,
    )
    t = np.asarray(sim.t)
    xs = sim.state("q1") - sim.state("q2")  # (replications, len(t))
    per, amp, n = [], [], 0
    for row in xs:
        p, a, k = cycle_statistics(t, row, cyc.period, cyc.amplitude_x)
        if k:
            per.append(p)
            amp.append(a)
            n += k
    if len(per) < 2:
        raise SymdelayInputError("too few cycles in the simulated paths: increase T or eta")
    tq = stats.t.ppf(0.975, len(per) - 1)
    hw = lambda v: float(tq * np.std(v, ddof=1) / np.sqrt(len(v)))  # noqa: E731
    return SimulatedOscillation(
        int(eta),
        float(theta),
        float(np.mean(amp)),
        hw(amp),
        float(np.mean(per)),
        hw(per),
        n,
        len(per),
        cyc.amplitude_x,
        cyc.period,
    )
