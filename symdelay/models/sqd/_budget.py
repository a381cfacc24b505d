"""Estimate-then-refuse for the SQ(d) and LB(xi, c, d) commands (a stand-in).

Every computation whose cost grows with its sizes (simulated time, servers, truncation
level, phases, stations) estimates its single-core running time from those sizes first and
calls :func:`check_budget` once: over :data:`TIME_BUDGET` seconds it is refused, with a
message naming what to shrink and that ``--force`` (``force=True`` in Python) overrides.
This mirrors :mod:`symdelay.models.erlang.stochastic.simulate`; the shared ``symdelay.core.budget`` replaces it.

:func:`check_memory` is the same for memory: a run whose arrays would not fit is refused
before anything is allocated (no ``MemoryError`` after asking for the impossible).
"""

from __future__ import annotations

import math

from symdelay.core.errors import SymdelayInputError

__all__ = [
    "TIME_BUDGET",
    "MEMORY_BUDGET",
    "check_budget",
    "check_memory",
    "duration",
    "count",
]

#: Seconds of one core a command may take without ``--force``.
TIME_BUDGET = 60.0
#: Bytes of arrays a command may allocate without ``--force``.
MEMORY_BUDGET = 4 * 2**30


def duration(seconds: float) -> str:
    """``seconds`` in the largest unit that reads well (``"3.2 hours"``)."""
    if not math.isfinite(seconds):
        return "forever"
    for unit, size in (("years", 3.15e7), ("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= 2 * size:
            return f"{seconds / size:.3g} {unit}"
    return f"{seconds:.3g} seconds"


def count(x: float) -> str:
    """A size for a message: ``3.6e+06``, or ``more than 1e308`` when it overflows."""
    return f"{x:.3g}" if math.isfinite(x) else "more than 1e308"


def check_budget(what: str, estimate_seconds: float, *, force: bool, shrink: str) -> None:
    """Refuse ``what`` when its estimated running time is over :data:`TIME_BUDGET` seconds.

    ``shrink`` names the sizes to lower (e.g. ``"--T or --N"``). ``force`` runs it anyway.
    A non-finite estimate is over any budget.

    >>> check_budget("this run", 1.0, force=False, shrink="--T")
    >>> check_budget("this run", 1e9, force=False, shrink="--T")
    Traceback (most recent call last):
    ...
    symdelay.core.errors.SymdelayInputError: this run would take about 31.7 years of computing (budget 60 s): lower --T, or pass --force (force=True in Python) to run it anyway
    """
    est = float(estimate_seconds)
    if force or est <= TIME_BUDGET:
        return
    if not math.isfinite(est):
        raise SymdelayInputError(
            f"{what} has no finite cost estimate (its sizes overflow a float): lower {shrink}"
            ", or pass --force (force=True in Python) to run it anyway"
        )
    raise SymdelayInputError(
        f"{what} would take about {duration(est)} of computing (budget {TIME_BUDGET:g} s): "
        f"lower {shrink}, or pass --force (force=True in Python) to run it anyway"
    )


def check_memory(what: str, estimate_bytes: float, *, force: bool, shrink: str) -> None:
    """Refuse ``what`` when its arrays would take more than :data:`MEMORY_BUDGET` bytes."""
    est = float(estimate_bytes)
    if force or est <= MEMORY_BUDGET:
        return
    raise SymdelayInputError(
        f"{what} would need about {est / 2**30:.3g} GiB of memory (budget "
        f"{MEMORY_BUDGET / 2**30:g} GiB): lower {shrink}, or pass --force (force=True in "
        "Python) to try anyway"
    )
