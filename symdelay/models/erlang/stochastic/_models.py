"""One symbolic :class:`ActionDelayModel` per L, shared by the stochastic modules (cached:
building and checking a model costs SymPy time)."""

from __future__ import annotations

from functools import lru_cache

from symdelay.models import ActionDelayModel

__all__ = ["symbolic_model"]


@lru_cache(maxsize=32)
def symbolic_model(L: int) -> ActionDelayModel:
    """The model with symbolic ``mu, lam, theta, gamma`` and concrete ``L``."""
    return ActionDelayModel(L=L)
