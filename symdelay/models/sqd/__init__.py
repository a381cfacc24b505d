"""The supermarket model SQ(d) with general service: mean field, fixed point, simulation.

``fixed_point`` (Newton with a proved truncation), ``fluid`` (transient), ``simulate``
(exact discrete-event simulation of N servers with the true service distribution; a
compiled kernel), ``convergence_in_N`` (the measured rate of convergence to the mean field),
``simulate_delayed`` (SQ(d) with an Erlang action delay), phase-type ``fit`` of general
distributions, and ``stability_at``: the roots entry on the model at a fixed point (the
family supplies the model's Jacobian there, :mod:`symdelay.models.sqd.stability`).
"""

from symdelay.core.lazy import exports

#: public name -> the module that defines it (imported when first asked for)
_PUBLIC = {
    "convergence_in_N": "symdelay.models.sqd.convergence",
    "fit": "symdelay.models.sqd.fitting",
    "FixedPoint": "symdelay.models.sqd.fixed_point",
    "fixed_point": "symdelay.models.sqd.fixed_point",
    "fluid": "symdelay.models.sqd.fluid",
    "exponential_fixed_point": "symdelay.models.sqd.meanfield",
    "exponential_reduction": "symdelay.models.sqd.meanfield",
    "sqd_model": "symdelay.models.sqd.meanfield",
    "GeneralService": "symdelay.models.sqd.service",
    "exponential": "symdelay.models.sqd.service",
    "parse_service_dist": "symdelay.models.sqd.service",
    "service_from_options": "symdelay.models.sqd.service",
    "simulate": "symdelay.models.sqd.simulate",
    "stability_at": "symdelay.models.sqd.stability",
}

__all__ = [
    "FixedPoint",
    "convergence_in_N",
    "GeneralService",
    "exponential",
    "exponential_fixed_point",
    "exponential_reduction",
    "fit",
    "fixed_point",
    "fluid",
    "parse_service_dist",
    "service_from_options",
    "simulate",
    "stability_at",
    "sqd_model",
]

__getattr__, __dir__ = exports(globals(), _PUBLIC)
