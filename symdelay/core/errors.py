"""The few exceptions symdelay raises, built on the standard ones.

Every error caused by user input is a :class:`SymdelayInputError`, a ``ValueError``
whose message is one line saying what is wrong and what to do. The CLI prints that line
and exits with status 2.
"""

from __future__ import annotations

__all__ = ["SymdelayInputError", "CertificationError", "VerificationError"]


class SymdelayInputError(ValueError):
    """Bad user input: the message says what is wrong and what to do."""


class CertificationError(ArithmeticError):
    """A numerical result could not be certified (the message gives the reason)."""


class VerificationError(RuntimeError):
    """A machine check of a derivation step failed: a bug in symdelay, never user error."""
