"""LB(xi, c, d): balanced routing with partial information across many-server stations.

Analysis only (no plotting): :class:`LBPolicy` (the system, checked at the door), the fluid
model (:func:`fluid_equilibrium`, :func:`fluid_path`), the Halfin–Whitt diffusion
(:func:`diffusion`, :func:`stationary_law`, :func:`halfin_whitt_reduction`), policy design
(:func:`design`) and the exact simulator (:func:`simulate`). Definitions: docs/lb.md.
"""

from symdelay.models.lb.diffusion import (
    LBDiffusion,
    arrival_rate,
    beta_of,
    collapse,
    diffusion,
    halfin_whitt_reduction,
    stationary_law,
)
from symdelay.models.lb.policy import LBPolicy, Station, parse_stations, parse_weights, parse_xi

__all__ = [
    "LBPolicy",
    "Station",
    "parse_stations",
    "parse_xi",
    "parse_weights",
    "LBDiffusion",
    "arrival_rate",
    "beta_of",
    "collapse",
    "diffusion",
    "halfin_whitt_reduction",
    "stationary_law",
]
