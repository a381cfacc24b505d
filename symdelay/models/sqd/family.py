"""The supermarket model SQ(d) with phase-type service, truncated at K (model layer).

States ``x_k_j`` (fraction of servers with k jobs whose job in service is in phase j); see
:mod:`symdelay.models.sqd.meanfield` for the transition table and :mod:`symdelay.models.sqd` for the
analyses (fixed point by Newton, simulation, fits).

>>> m = model(d=2, K=3, lam="1/2")
>>> [s.name for s in m.states]
['x_1', 'x_2', 'x_3']
"""

from __future__ import annotations

__all__ = ["model", "INFO"]

INFO = {
    "name": "sqd",
    "parameters": ["d", "K", "lam", "service"],
    "description": "supermarket model SQ(d), N servers, phase-type service, truncated at K",
}


def _options():
    from symdelay.core.options import Option

    return (
        Option("d", "servers sampled per arrival (integer >= 1)", "integer", "2"),
        Option("K", "truncation level of the tail (integer >= 1)", "integer", "6"),
        Option("lam", "arrival rate per server (0 < lam < 1)"),
    )


OPTIONS = _options()


def model(d=2, K=6, lam=None, service=None):
    """``service``: a :class:`~symdelay.models.phase_type.PhaseType` (default Exp(1))."""
    from symdelay.models.sqd.meanfield import sqd_model
    from symdelay.models.sqd.service import exponential

    return sqd_model(service if service is not None else exponential(), d=d, K=K, lam_value=lam)
