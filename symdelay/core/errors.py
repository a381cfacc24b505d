"""The few exceptions symdelay raises, built on the standard ones.

Every error caused by user input is a :class:`SymdelayInputError`, a ``ValueError``
whose message is one line saying what is wrong and what to do. The CLI prints that line
and exits with status 2.
"""

from __future__ import annotations

__all__ = [
    "SymdelayInputError",
    "TranscendentalClaimError",
    "CertificationError",
    "VerificationError",
]


class SymdelayInputError(ValueError):
    """Bad user input: the message says what is wrong and what to do."""


class TranscendentalClaimError(SymdelayInputError):
    """A claim (or assumption) uses a transcendental function (``exp``, ``sin``, ``pi``, ...)
    that the decision procedure (real polynomial arithmetic) cannot decide; ``function``
    names it, ``expression`` is the offending sub-expression (text). The claims entry
    catches it and falls back to a search labelled as such."""

    def __init__(self, message: str, function: str = "", expression: str = ""):
        super().__init__(message)
        self.function = function
        self.expression = expression


class CertificationError(ArithmeticError):
    """A numerical result could not be certified (the message gives the reason)."""


class VerificationError(RuntimeError):
    """A machine check of a derivation step failed: a bug in symdelay, never user error."""
