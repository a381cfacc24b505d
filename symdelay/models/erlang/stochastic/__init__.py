"""The stochastic system: exact simulation, the fluid limit, and the linear-noise variance.

Analysis only (no plotting). The founding model's loose conveniences :func:`simulate`,
:func:`fluid`, :func:`variance` build the model and call the entries
(:mod:`symdelay.analysis.stochastic`, :mod:`symdelay.analysis.fluid`; the simulation and the
fluid path run the generic machinery on its transition table, the variance its
specialisation: the difference-mode Lyapunov solve and closed form);
:func:`fluid_difference` (the exact difference dynamics); :func:`fluid_limit_study` (the
eta^(-1/2) rate). For any transition table the simulator and the LNA live in
:mod:`symdelay.analysis` (``simulate``, ``lna``).
"""

from symdelay.models.erlang.stochastic.convergence import (
    FluidLimitStudy,
    fluid_limit_study,
    loglog_slope,
    sup_distance,
)
from symdelay.models.erlang.stochastic.fluid import fluid, fluid_difference
from symdelay.models.erlang.stochastic.simulate import simulate
from symdelay.models.erlang.stochastic.stationary import (
    hopf_theta,
    minimising_theta,
    simulated_variance,
    spectral_abscissa,
    variance_curve,
)
from symdelay.models.erlang.stochastic.variance import (
    closed_form_singularity,
    closed_form_theta_limit,
    closed_form_variance,
    lna_matrices,
    variance,
)

__all__ = [
    "FluidLimitStudy",
    "closed_form_singularity",
    "closed_form_theta_limit",
    "closed_form_variance",
    "fluid",
    "fluid_difference",
    "fluid_limit_study",
    "hopf_theta",
    "lna_matrices",
    "loglog_slope",
    "minimising_theta",
    "simulate",
    "simulated_variance",
    "spectral_abscissa",
    "sup_distance",
    "variance",
    "variance_curve",
]
