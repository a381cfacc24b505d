"""Routing that counts jobs in flight: the dispatcher observes q_i + sum_l kappa_l z_{i,l}.

``kappa = 0`` is the founding model; ``kappa = 1`` counts every job already sent to server i
and still in its delay. ``model(**options)`` returns an :class:`~.model.InflightModel`: the
generic pipeline analyses it, and its exact theta-window and kappa* are specialisations the
``window`` and ``extremum`` entries ask for first (:mod:`symdelay.models.inflight.curve`).

>>> m = model(L=1, kappa=1)
>>> m.factors[-1].factor
gamma*lam*theta + gamma*mu + gamma*r + lam*mu*theta + lam*r*theta + mu*r + r**2
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from symdelay.core.options import RATES, Option

if TYPE_CHECKING:
    from symdelay.models.inflight.model import InflightModel

__all__ = ["model", "INFO", "OPTIONS"]

INFO = {
    "name": "inflight",
    "parameters": ["L", "mu", "lam", "theta", "D", "kappa"],
    "description": "two queues, logit routing on q_i + sum_l kappa_l z_il (jobs in flight), "
    "Erlang(L, mean D) delay",
}


OPTIONS = (
    Option(
        "L",
        "number of Erlang delay phases: an integer >= 1, or inf (the limit, kappa* only)",
        "count",
        "2",
    ),
    *RATES,
    Option("D", "mean action delay (> 0)"),
    Option(
        "kappa",
        "weight of jobs in flight: one for every phase, or one per phase ('kappa': free)",
        "numbers",
        "1",
        free=True,
    ),
    Option(
        "pattern",
        "observed phases, weighted by kappa: all (default), first, last, first-half, "
        "last-half, or one weight per phase (e.g. 0,1)",
        "pattern",
        "all",
    ),
)


def model(L=2, mu=None, lam=None, theta=None, D=None, kappa=1, pattern=None) -> InflightModel:
    """``kappa``: one weight for every phase (times ``pattern``), a list of L weights, or
    ``"kappa"`` (a free parameter). An :class:`~.model.InflightModel`."""
    from symdelay.models.inflight.model import InflightModel

    return InflightModel(L=L, mu=mu, lam=lam, theta=theta, D=D, kappa=kappa, pattern=pattern)
