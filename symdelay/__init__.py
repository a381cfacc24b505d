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
from .errors import CertificationError, SymdelayInputError, VerificationError
from .models import ActionDelayModel

__all__ = [
    "ActionDelayModel",
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
]
__version__ = "0.1.0"
