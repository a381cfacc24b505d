"""symdelay: symbolic and high-precision analysis of load balancing with action delay."""

from . import charpoly
from .charpoly import (
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
from .claims import verify
from .errors import CertificationError, SymdelayInputError, VerificationError
from .hopf import critical_theta, instability_window, worst_delay
from .hopf.generic import critical_parameter
from .inflight import kappa_star, optimize_weights, unstable_theta
from .model import Model, load_toml
from .models import ActionDelayModel, build_model, builtin_models
from .models.phase_type import PhaseType
from .outputs.latex import tex
from .parsing import parse_output
from .roots import CertifiedRoot, RootSet, characteristic_roots
from .roots.polynomial import polynomial_roots
from .routh import routh_hurwitz
from .stability import stability_conditions
from .stochastic import fluid, fluid_limit_study, simulate, variance

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
