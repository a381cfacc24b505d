"""LB(xi, c, d): balanced routing with partial information across many-server stations.

Analysis only (no plotting): :class:`LBPolicy` (the system, checked at the door), the fluid
model (:func:`fluid_equilibrium`, :func:`fluid_path`), the Halfin–Whitt diffusion
(:func:`diffusion`, :func:`stationary_law`, :func:`halfin_whitt_reduction`), policy design
(:func:`design`) and the exact simulator (:func:`simulate`). Definitions: docs/lb.md.
"""

from symdelay.core.lazy import exports

#: public name -> the module that defines it (imported when first asked for)
_PUBLIC = {
    "LBDiffusion": "symdelay.models.lb.diffusion",
    "arrival_rate": "symdelay.models.lb.diffusion",
    "beta_of": "symdelay.models.lb.diffusion",
    "collapse": "symdelay.models.lb.diffusion",
    "diffusion": "symdelay.models.lb.diffusion",
    "halfin_whitt_reduction": "symdelay.models.lb.diffusion",
    "stationary_law": "symdelay.models.lb.diffusion",
    "LBPolicy": "symdelay.models.lb.policy",
    "Station": "symdelay.models.lb.policy",
    "parse_stations": "symdelay.models.lb.policy",
    "parse_weights": "symdelay.models.lb.policy",
    "parse_xi": "symdelay.models.lb.policy",
    "design": "symdelay.models.lb.design",
    "fluid_equilibrium": "symdelay.models.lb.fluid",
    "fluid_path": "symdelay.models.lb.fluid",
    "simulate": "symdelay.models.lb.simulate",
}

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
    "design",
    "fluid_equilibrium",
    "fluid_path",
    "simulate",
]

__getattr__, __dir__ = exports(globals(), _PUBLIC)
