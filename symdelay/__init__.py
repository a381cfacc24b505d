"""symdelay: symbolic and high-precision analysis of load balancing with action delay."""

from symdelay.analysis.crossing import critical_parameter
from symdelay.analysis.polyroots import polynomial_roots
from symdelay.analysis.routh import routh_hurwitz
from symdelay.core.errors import CertificationError, SymdelayInputError, VerificationError
from symdelay.core.latex import tex
from symdelay.core.parsing import parse_output
from symdelay.model import Model, load_toml
from symdelay.models import ActionDelayModel, build_model, builtin_models
from symdelay.models.erlang import charpoly
from symdelay.models.erlang.charpoly import (
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
from symdelay.models.erlang.claims import verify
from symdelay.models.erlang.hopf import critical_theta, instability_window, worst_delay
from symdelay.models.erlang.roots import CertifiedRoot, RootSet, characteristic_roots
from symdelay.models.erlang.stability import stability_conditions
from symdelay.models.erlang.stochastic import fluid, fluid_limit_study, simulate, variance
from symdelay.models.inflight import kappa_star, optimize_weights, unstable_theta
from symdelay.models.phase_type import PhaseType

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
