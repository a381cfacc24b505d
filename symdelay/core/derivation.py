"""Derivation records: the formulas a derivation produced and what SymPy checked.

A :class:`Derivation` is a list of :class:`Step` objects. Each step holds the SymPy object
that is displayed (so LaTeX is printed from the checked object, never typed by hand) and
a sentence saying which identity was machine-checked.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from symdelay.core.errors import VerificationError
from symdelay.core.lazy import sympy as sp

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
    """An ordered list of steps with a result.

    A finished derivation is frozen (:meth:`freeze`): its steps become a tuple and
    :meth:`add` refuses, so a cached derivation handed to a caller cannot be changed under
    the next caller. :meth:`copy` gives an unfrozen copy to extend.

    >>> d = Derivation("t")
    >>> _ = d.add("a", "first", sp.Integer(1))
    >>> d.freeze().add("b", "second", sp.Integer(2))
    Traceback (most recent call last):
    ...
    TypeError: the derivation 't' is finished (read-only): extend d.copy() instead
    """

    title: str
    steps: list[Step] = field(default_factory=list)
    result: sp.Basic | None = None
    frozen: bool = field(default=False, compare=False)

    def add(self, key, text, expr, check=None) -> sp.Basic:
        if self.frozen:
            raise TypeError(
                f"the derivation {self.title!r} is finished (read-only): extend d.copy() instead"
            )
        self.steps.append(Step(key, text, expr, check))
        return expr

    def freeze(self) -> Derivation:
        """Make the derivation read-only (steps as a tuple); returns it."""
        self.steps = tuple(self.steps)
        self.frozen = True
        return self

    def copy(self) -> Derivation:
        """An unfrozen copy with the same steps and result."""
        return Derivation(self.title, list(self.steps), self.result)

    def __setattr__(self, name, value):
        if getattr(self, "frozen", False):
            raise TypeError(f"the derivation {self.title!r} is finished (read-only)")
        object.__setattr__(self, name, value)

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
