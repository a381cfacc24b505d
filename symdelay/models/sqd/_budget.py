"""The cost guard of the SQ(d) and LB commands: the shared mechanism of
:mod:`symdelay.core.budget` (estimate first, refuse over the budget unless ``--force``), and
how a size is printed in its messages."""

from __future__ import annotations

import math

from symdelay.core.budget import DEFAULT_BYTES as MEMORY_BUDGET
from symdelay.core.budget import DEFAULT_SECONDS as TIME_BUDGET
from symdelay.core.budget import check_budget, check_memory, duration

__all__ = ["check_budget", "check_memory", "count", "duration", "TIME_BUDGET", "MEMORY_BUDGET"]


def count(x: float) -> str:
    """A size for a message: ``3.6e+06``, or ``more than 1e308`` when it overflows.

    >>> count(3.6e6), count(float("inf"))
    ('3.6e+06', 'more than 1e308')
    """
    return f"{x:.3g}" if math.isfinite(x) else "more than 1e308"
