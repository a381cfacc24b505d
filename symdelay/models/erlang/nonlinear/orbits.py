"""Periodic orbits as records (:mod:`symdelay.analysis.cycles`: one limit cycle with its
Floquet multipliers, a family of them along theta, the theta lists the cycle commands take)
and the founding model's specialisation of :func:`symdelay.analysis.cycles.limit_cycle`."""

from __future__ import annotations

from symdelay.analysis.cycles import CycleFamily, LimitCycle, ShootingError, parse_theta_list

__all__ = [
    "LimitCycle",
    "CycleFamily",
    "ShootingError",
    "parse_theta_list",
    "specialised_limit_cycle",
]


def specialised_limit_cycle(model, theta, **keywords):
    """The founding model's limit cycle (:mod:`.cycles`)."""
    from symdelay.models.erlang.nonlinear.cycles import specialised_limit_cycle as fast

    return fast(model, theta, **keywords)
