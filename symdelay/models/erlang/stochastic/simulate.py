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
    """The founding model's simulation, :func:`symdelay.analysis.stochastic.simulate` of
    ``build_model("erlang", L=L, mu=mu, lam=lam, theta=theta, D=D)`` (``kappa=``: the
    ``inflight`` model with those in-flight weights). ``initial`` is job counts ``Q1, Q2,
    Z1_1..Z1_L, Z2_1..Z2_L`` (default ``Q2 = eta``, the rest 0: the paper's start)."""
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
