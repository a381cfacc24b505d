"""symdelay: symbolic and high-precision analysis of load balancing with action delay."""

from symdelay import charpoly
from symdelay.charpoly import (
    characteristic_polynomial,
    delayed_information_equation,
    derive_characteristic_equation,
    eigenvector,
    erlang_information_equation,
    infinite_L_limit,
    special_case,
    verify_difference_determinant,
    verify_full_factorisation,
)
from symdelay.claims import verify
from symdelay.errors import CertificationError, SymdelayInputError, VerificationError
from symdelay.hopf import critical_theta, instability_window, worst_delay
from symdelay.hopf.generic import critical_parameter
from symdelay.inflight import kappa_star, optimize_weights, unstable_theta
from symdelay.model import Model, load_toml
from symdelay.models import ActionDelayModel, build_model, builtin_models
from symdelay.models.phase_type import PhaseType
from symdelay.outputs.latex import tex
from symdelay.parsing import parse_output
from symdelay.roots import CertifiedRoot, RootSet, characteristic_roots
from symdelay.roots.polynomial import polynomial_roots
from symdelay.routh import routh_hurwitz
from symdelay.stability import stability_conditions
from symdelay.stochastic import fluid, fluid_limit_study, simulate, variance

__all__ = [
    "ActionDelayModel",
    "Model",
    "PhaseType",
    "build_model",
    "builtin_models",
    "load_toml",
    "CertifiedRoot",
    "RootSet",
    "characteristic_roots",
    "critical_parameter",
    "kappa_star",
    "optimize_weights",
    "unstable_theta",
    "parse_output",
    "polynomial_roots",
    "critical_theta",
    "instability_window",
    "worst_delay",
    "characteristic_polynomial",
    "charpoly",
    "delayed_information_equation",
    "derive_characteristic_equation",
    "eigenvector",
    "erlang_information_equation",
    "infinite_L_limit",
    "special_case",
    "verify_difference_determinant",
    "verify_full_factorisation",
    "CertificationError",
    "SymdelayInputError",
    "VerificationError",
    "fluid",
    "fluid_limit_study",
    "simulate",
    "variance",
    "routh_hurwitz",
    "stability_conditions",
    "tex",
    "verify",
]
__version__ = "0.1.0"
