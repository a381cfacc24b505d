"""Evidence for the fluid limit: how fast the scaled sample paths approach the fluid ODEs.

For each ``L`` and scale ``eta`` the distance of a replication is
``sup_t max_k |S_k(t)/eta - s_k(t)|`` over the grid ``t in [0, T]`` and all ``2(L+1)``
coordinates. Kurtz's functional central limit theorem predicts a mean distance of order
``eta^{-1/2}``; the slope of ``log(mean distance)`` against ``log eta`` (least squares) is
estimated with a bootstrap percentile interval (replications resampled within each eta).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from symdelay.models.erlang.loose import founding_doc
from symdelay.models.erlang.stochastic.fluid import fluid
from symdelay.models.erlang.stochastic.simulate import simulate

__all__ = ["sup_distance", "loglog_slope", "fluid_limit_study", "FluidLimitStudy"]


def sup_distance(sim, flu) -> np.ndarray:
    """Per replication: ``max`` over grid times and coordinates of ``|sim - fluid|`` (two
    time series of one model on one grid)."""
    return np.max(np.abs(sim.values - flu.values[0][None, :, :]), axis=(1, 2))


def loglog_slope(etas, distances, *, n_boot=2000, seed=0, level=0.95) -> tuple:
    """Least-squares slope of ``log mean distance`` vs ``log eta`` and a bootstrap interval.

    ``distances[k]`` are the per-replication distances at ``etas[k]``.
    Returns ``(slope, (low, high))``.
    """
    le = np.log(np.asarray(etas, dtype=float))
    means = np.array([np.mean(d) for d in distances])
    slope = np.polyfit(le, np.log(means), 1)[0]
    rng = np.random.default_rng(seed)
    boots = np.empty(n_boot)
    for b in range(n_boot):
        m = [np.mean(rng.choice(d, size=len(d), replace=True)) for d in distances]
        boots[b] = np.polyfit(le, np.log(m), 1)[0]
    a = (1 - level) / 2
    return float(slope), (float(np.quantile(boots, a)), float(np.quantile(boots, 1 - a)))


@dataclass
class FluidLimitStudy:
    """Distances per ``(L, eta)`` and the fitted log-log slope per ``L`` with its interval."""

    parameters: dict
    etas: tuple
    replications: int
    distances: dict  # L -> list (per eta) of arrays (per replication)
    slopes: dict  # L -> (slope, (low, high))
    events: int
    slopes_without_smallest: dict  # L -> (slope, (low, high)) fitted without the smallest eta

    def rows(self) -> list[tuple]:
        """``(L, eta, mean, std error)`` for each cell."""
        out = []
        for L, ds in self.distances.items():
            for eta, d in zip(self.etas, ds):
                out.append((L, eta, float(np.mean(d)), float(np.std(d, ddof=1) / np.sqrt(d.size))))
        return out

    def to_json(self) -> dict:
        return {
            "parameters": {k: str(v) for k, v in self.parameters.items()},
            "replications": self.replications,
            "rows": [
                {"L": L, "eta": e, "mean_sup_distance": m, "stderr": s}
                for L, e, m, s in self.rows()
            ],
            "slopes": {
                str(L): {"slope": s, "interval": list(ci)} for L, (s, ci) in self.slopes.items()
            },
            "slopes_without_smallest_eta": {
                str(L): {"slope": s, "interval": list(ci)}
                for L, (s, ci) in self.slopes_without_smallest.items()
            },
        }


@founding_doc
def fluid_limit_study(
    Ls=(1, 2),
    etas=(10**2, 10**3, 10**4, 10**5),
    *,
    replications=20,
    mu=1,
    lam=1,
    theta=10,
    D=1,
    T=20,
    dt=0.05,
    seed=2024,
    n_boot=2000,
    progress: Callable[[int], None] | None = None,
) -> FluidLimitStudy:
    """How fast the founding model's scaled sample paths approach the fluid limit: simulate
    ``replications`` paths per ``(L, eta)`` from the paper's initial state, measure their sup
    distance to the fluid solution and fit the log-log slope per ``L`` (Kurtz's theorem
    predicts ``-1/2``).

    Parameters
    ----------
    Ls : sequence of int, default (1, 2)
        The numbers of Erlang phases studied.
    etas : sequence of int, default (100, 1000, 10000, 100000)
        The system scales (at least two; with three or more the slope is also fitted without
        the smallest).
    replications : int, default 20
        Paths per ``(L, eta)``.
    %(rates)s
    theta : number or str, default 10
        The routing sensitivity.
    T : number, default 20
        The horizon.
    dt : number, default 0.05
        The step of the grid on which the distance is measured.
    seed : int, default 2024
        The root of the random streams (one spawned per ``(L, eta)``) and of the bootstrap.
    n_boot : int, default 2000
        Bootstrap resamples of the slope's percentile interval.
    progress : callable, optional
        ``progress(1)`` after each finished replication.

    Returns
    -------
    FluidLimitStudy
        The distances per ``(L, eta)``, the slope per ``L`` with its interval, and the number
        of events simulated.
    """
    ss = np.random.SeedSequence(seed)
    children = iter(ss.spawn(len(Ls) * len(etas)))
    distances, slopes, slopes2, events = {}, {}, {}, 0
    for L in Ls:
        flu = fluid(L=L, mu=mu, lam=lam, theta=theta, D=D, T=T, dt=dt)
        ds = []
        for eta in etas:
            sim = simulate(
                L=L, eta=eta, mu=mu, lam=lam, theta=theta, D=D, T=T, dt=dt,
                replications=replications, seed=next(children), progress=progress,
            )  # fmt: skip
            events += int(sim.events.sum())
            ds.append(sup_distance(sim, flu))
        distances[L] = ds
        slopes[L] = loglog_slope(etas, ds, n_boot=n_boot, seed=seed)
        if len(etas) >= 3:
            slopes2[L] = loglog_slope(etas[1:], ds[1:], n_boot=n_boot, seed=seed)
    params = {"mu": mu, "lam": lam, "theta": theta, "D": D, "T": T, "dt": dt, "seed": seed}
    return FluidLimitStudy(params, tuple(etas), replications, distances, slopes, events, slopes2)
