"""Results that more than one report section prints, computed once per process.

Each function calls the analysis entry once for its arguments and keeps the record
(:func:`functools.cache`); the report builds the sections that read the same result in one
worker process (:data:`symdelay.outputs.report.TOGETHER`), so that the result is computed
once per run. Only the entries' own records are kept here, never a second path.

>>> kappa_star_record(2) is kappa_star_record(2)
True
"""

from __future__ import annotations

import functools

__all__ = ["DPS", "kappa_star_record", "founding_theta_c"]

#: Digits of every shared result (the sections print at most 8 significant digits of them
#: and compare records to ``DPS - 3`` digits).
DPS = 15


@functools.cache
def kappa_star_record(L, mu=1, D=1):
    """The in-flight ``kappa*`` record (:func:`symdelay.models.inflight.kappa_star`, every
    phase observed) at ``DPS`` digits: the in-flight section's table and figure and the
    turning points of the ``(kappa, theta)`` maps."""
    from symdelay.models.inflight.curve import kappa_star

    return kappa_star(L, mu=mu, D=D, dps=DPS)


@functools.cache
def founding_theta_c(L, mu=1, lam=1, D=1) -> float:
    """The founding model's critical ``theta_c`` at ``(mu, lam, D)`` as a float (``inf``
    without a crossing, as at ``L = 1``): the one Hopf solver,
    :func:`symdelay.models.erlang.hopf.critical_theta`. The stochastic section's variance
    curves and the in-flight section's multiples of ``theta_c`` read it."""
    from symdelay.models.erlang.hopf import critical_theta

    point = critical_theta(L, mu, lam, [D], dps=DPS).to_json()["points"][0]
    return float(point["theta_c"])
