"""The supermarket model SQ(d) with general service: mean field, fixed point, simulation.

``fixed_point`` (Newton with a proved truncation), ``fluid`` (transient), ``simulate``
(exact discrete-event simulation of N servers with the true service distribution; a
compiled kernel), ``convergence_in_N`` (the measured rate of convergence to the mean field),
``simulate_delayed`` (SQ(d) with an Erlang action delay), phase-type ``fit`` of general
distributions, and ``rightmost_eigenvalue`` of the fixed point's Jacobian.
"""

from symdelay.models.sqd.convergence import convergence_in_N
from symdelay.models.sqd.fitting import fit
from symdelay.models.sqd.fixed_point import FixedPoint, fixed_point
from symdelay.models.sqd.fluid import FluidPath, fluid
from symdelay.models.sqd.meanfield import exponential_fixed_point, exponential_reduction, sqd_model
from symdelay.models.sqd.service import (
    GeneralService,
    exponential,
    parse_service_dist,
    service_from_options,
)
from symdelay.models.sqd.stability import rightmost_eigenvalue

__all__ = [
    "FixedPoint",
    "FluidPath",
    "convergence_in_N",
    "GeneralService",
    "exponential",
    "exponential_fixed_point",
    "exponential_reduction",
    "fit",
    "fixed_point",
    "fluid",
    "parse_service_dist",
    "rightmost_eigenvalue",
    "service_from_options",
    "sqd_model",
]
