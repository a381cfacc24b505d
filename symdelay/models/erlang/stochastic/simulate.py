"""The founding model's simulation as a loose-argument convenience: the model built from
``L, mu, lam, theta, D`` (checked once, at the model's door) and
:func:`symdelay.analysis.stochastic.simulate`, which runs the kernel generated from its
transition table.

>>> r = simulate(L=1, eta=50, T=1, dt=0.5, seed=3)
>>> r.t.tolist(), float(r["q2"][0])
([0.0, 0.5, 1.0], 1.0)
>>> r.record()["events"] == int(r.info["transition_counts"].sum())
True
"""

from __future__ import annotations

from collections.abc import Callable

from symdelay.analysis.timeseries import TimeSeries
from symdelay.models.erlang.loose import founding_doc, founding_or_inflight

__all__ = ["simulate"]


@founding_doc
def simulate(
    L=2,
    eta=1000,
    mu=1,
    lam=1,
    theta=2,
    D=1,
    T=20,
    seed=1,
    dt=0.1,
    replications=1,
    initial=None,
    *,
    backend: str = "auto",
    threads: int | None = None,
    progress: Callable[[int], None] | None = None,
    monitor: Callable[[float, int], None] | None = None,
    force: bool = False,
    chunk_events: int | None = None,
    kappa=None,
    method: str = "auto",
) -> TimeSeries:
    """Exact (Gillespie) sample paths of the founding model: the convenience of
    :func:`symdelay.simulate` on ``build_model("erlang", L=L, mu=mu, lam=lam, theta=theta,
    D=D)``.

    Parameters
    ----------
    L : int, default 2
        The number of Erlang phases of the delay, an integer ``>= 1``.
    eta : int, default 1000
        The system scale (jobs ~ eta), an integer ``1 <= eta <= 10^15``.
    %(rates)s
    theta : number or str, default 2
        The routing sensitivity (real).
    initial : sequence of int, optional
        Job counts ``Q1, Q2, Z1_1..Z1_L, Z2_1..Z2_L`` at time 0 (default ``Q2 = eta``, the rest
        0: the paper's start).
    %(kappa)s
    T, dt, seed, replications, backend, threads, progress, monitor, force, chunk_events, method
        As for :func:`symdelay.simulate` (the founding model's simulation is its generic path,
        on the transition table).

    Returns
    -------
    TimeSeries
        The scaled paths (states ``q1, q2, z1_1, ...``), events and the kernel's info.
    """
    from symdelay.analysis.stochastic import simulate as entry

    kw = dict(
        eta=eta, T=T, dt=dt, initial=initial, seed=seed, replications=replications,
        backend=backend, threads=threads, progress=progress, monitor=monitor, force=force,
        chunk_events=chunk_events, method=method,
    )  # fmt: skip
    return entry(founding_or_inflight(L, mu, lam, theta, D, kappa), **kw)
