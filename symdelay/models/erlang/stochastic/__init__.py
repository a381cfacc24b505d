"""The stochastic system: exact simulation, the fluid limit, and the linear-noise variance.

Analysis only (no plotting). The founding model's fast paths, each the specialisation of an
analysis entry (``specialised_simulate``: the hand-written C kernel; ``specialised_fluid``;
``specialised_variance``: the difference-mode Lyapunov solve and closed form), and the loose
conveniences :func:`simulate`, :func:`fluid`, :func:`variance` that build the founding model
and call the entry (:mod:`symdelay.analysis.stochastic`, :mod:`symdelay.analysis.fluid`);
:func:`fluid_limit_study` (the eta^(-1/2) rate).
For any transition table: :class:`GeneratedKernel` (a simulator generated from the table)
and :func:`linear_noise` (the generic LNA covariance).
"""

from symdelay.analysis.lna import stationary_covariance
from symdelay.analysis.simulate import GeneratedKernel, GeneratedRun
from symdelay.analysis.waves import fluid_wave_peaks, local_maxima, wave_peaks
from symdelay.models.erlang.stochastic.convergence import (
    FluidLimitStudy,
    fluid_limit_study,
    loglog_slope,
    sup_distance,
)
from symdelay.models.erlang.stochastic.fluid import (
    DifferenceResult,
    FluidSolution,
    fluid,
    fluid_difference,
)
from symdelay.models.erlang.stochastic.simulate import Simulation, simulate
from symdelay.models.erlang.stochastic.stationary import (
    hopf_theta,
    minimising_theta,
    simulated_variance,
    spectral_abscissa,
    variance_curve,
)
from symdelay.models.erlang.stochastic.transitions import check_drift, transition_table
from symdelay.models.erlang.stochastic.variance import (
    closed_form_singularity,
    closed_form_theta_limit,
    closed_form_variance,
    lna_matrices,
    variance,
)

__all__ = [
    "DifferenceResult",
    "FluidLimitStudy",
    "FluidSolution",
    "GeneratedKernel",
    "GeneratedRun",
    "Simulation",
    "check_drift",
    "closed_form_singularity",
    "closed_form_theta_limit",
    "closed_form_variance",
    "fluid",
    "fluid_difference",
    "fluid_limit_study",
    "fluid_wave_peaks",
    "hopf_theta",
    "lna_matrices",
    "local_maxima",
    "loglog_slope",
    "minimising_theta",
    "simulate",
    "simulated_variance",
    "spectral_abscissa",
    "stationary_covariance",
    "sup_distance",
    "transition_table",
    "variance",
    "variance_curve",
    "wave_peaks",
]
