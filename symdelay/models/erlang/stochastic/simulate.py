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
from symdelay.core.errors import SymdelayInputError

__all__ = ["simulate"]


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
    mu : number or str, default 1
        The service rate (``> 0``), made exact.
    lam : number or str, default 1
        The arrival rate per queue (``> 0``).
    theta : number or str, default 2
        The routing sensitivity (real).
    D : number or str, default 1
        The mean delay (``> 0``).
    T : number, default 20
        The horizon (``T > 0``).
    seed : int, SeedSequence, Generator or None, default 1
        The random stream (see :func:`symdelay.simulate`): the same integer gives the same
        paths.
    dt : number, default 0.1
        The step of the recording grid.
    replications : int, default 1
        Independent paths.
    initial : sequence of int, optional
        Job counts ``Q1, Q2, Z1_1..Z1_L, Z2_1..Z2_L`` at time 0 (default ``Q2 = eta``, the rest
        0: the paper's start).
    backend : {"auto", "c", "python"}, default "auto"
        The generated C kernel or its Python twin (same draws).
    threads : int, optional
        Worker threads for the replications (default: one per core).
    progress : callable, optional
        ``progress(1)`` after each finished replication.
    monitor : callable, optional
        ``monitor(time, events)`` while the kernel runs.
    force : bool, default False
        Run even when the estimated number of events is over the shared budget.
    chunk_events : int, optional
        Events per call into the kernel (Ctrl-C is checked between calls).
    kappa : number, str or sequence, optional
        Weights of the jobs in flight: the ``inflight`` model instead.
    method : {"auto", "generic", "specialised"}, default "auto"
        The path of the entry (the founding model's simulation is the generic one, on its
        transition table).

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
    return entry(_founding_or_inflight(L, mu, lam, theta, D, kappa), **kw)


def _founding_or_inflight(L, mu, lam, theta, D, kappa=None):
    """The founding model of the loose arguments (checked by the model itself, once), or
    with ``kappa`` the ``inflight`` model (as ``kappa=`` has always meant)."""
    from symdelay.models import build_model

    if kappa is not None:
        if isinstance(D, (list, tuple)):
            if len(D) != 1:
                raise SymdelayInputError(f"kappa= takes one delay D, got {len(D)}")
            D = D[0]
        if str(L).strip().lower() in ("inf", "oo"):
            raise SymdelayInputError(
                "kappa= needs a finite L (for L = inf see "
                "symdelay.models.inflight.kappa_star_limit)"
            )
        weights = list(kappa) if isinstance(kappa, (list, tuple)) else kappa
        return build_model("inflight", L=int(L), kappa=weights, mu=mu, lam=lam, theta=theta, D=D)
    return build_model("erlang", L=L, mu=mu, lam=lam, theta=theta, D=D)
