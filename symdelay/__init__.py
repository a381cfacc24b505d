"""symdelay: symbolic and high-precision analysis of load balancing with action delay."""

from .errors import CertificationError, SymdelayInputError, VerificationError
from .models import ActionDelayModel

__all__ = [
    "ActionDelayModel",
    "CertificationError",
    "SymdelayInputError",
    "VerificationError",
]
__version__ = "0.1.0"
