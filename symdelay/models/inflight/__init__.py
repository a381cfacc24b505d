"""Routing that counts jobs in flight: the dispatcher observes ``q_i + sum_l kappa_l z_{i,l}``.

* :mod:`.charpoly` — the difference-mode characteristic equation for symbolic L and weights;
* :mod:`.curve` — the exact crossing curve: :func:`kappa_star`, :func:`unstable_theta`;
* :mod:`.criteria` — decay rate, tolerance time, variance; :func:`optimize_weights`;
* :mod:`.partial` — partial observation of the delay.
"""

from symdelay.models.inflight.charpoly import (
    derive_inflight_equation,
    inflight_limit,
    inflight_polynomial,
)
from symdelay.models.inflight.criteria import CRITERIA, optimize_weights
from symdelay.models.inflight.curve import kappa_star, kappa_star_limit, unstable_theta
from symdelay.models.inflight.partial import observation_table, thinned_model

__all__ = [
    "CRITERIA",
    "derive_inflight_equation",
    "inflight_limit",
    "inflight_polynomial",
    "kappa_star",
    "kappa_star_limit",
    "observation_table",
    "optimize_weights",
    "thinned_model",
    "unstable_theta",
]
