"""Derivation records: the formulas a derivation produced and what SymPy checked.

A :class:`Derivation` is a list of :class:`Step` objects. Each step holds the SymPy object
that is displayed (so LaTeX is printed from the checked object, never typed by hand) and
a sentence saying which identity was machine-checked.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

from .errors import VerificationError

__all__ = ["Step", "Derivation", "require_zero", "require_equal"]


@dataclass(frozen=True)
class Step:
    """One displayed formula of a derivation.

    ``key`` is a stable identifier, ``text`` the words that introduce the formula,
    ``expr`` the SymPy object displayed, ``check`` what SymPy verified (None: a definition).
    """

    key: str
    text: str
    expr: sp.Basic
    check: str | None = None


@dataclass
class Derivation:
    """An ordered list of steps with a result."""

    title: str
    steps: list[Step] = field(default_factory=list)
    result: sp.Basic | None = None

    def add(self, key, text, expr, check=None) -> sp.Basic:
        self.steps.append(Step(key, text, expr, check))
        return expr

    def __getitem__(self, key) -> Step:
        for s in self.steps:
            if s.key == key:
                return s
        raise KeyError(key)

    def __iter__(self):
        return iter(self.steps)


def require_zero(expr, what: str, simplifier=sp.simplify) -> None:
    """Raise :class:`VerificationError` unless ``simplifier(expr) == 0``."""
    if simplifier(expr) != 0:
        raise VerificationError(f"machine check failed: {what}")


def require_equal(a, b, what: str, simplifier=sp.simplify) -> None:
    """Raise :class:`VerificationError` unless ``a - b`` simplifies to zero."""
    require_zero(a - b, what, simplifier)
