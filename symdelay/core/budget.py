"""One cost guard for work that can grow without bound: estimate first, refuse over budget.

Every analysis whose work grows with a size the user chooses (a degree, a number of
phases or states, grid points, a horizon times a rate) estimates its cost from those sizes
*before* it starts, with a rough constant calibrated on this code, and calls
:func:`check_budget`. Over the budget (by default :data:`DEFAULT_SECONDS` of one core, or
:data:`DEFAULT_BYTES` of memory) it raises a one-line :class:`SymdelayInputError` (a
``ValueError``) that says what the estimate is, what to shrink, and that ``--force``
(``force=True`` in Python) runs it anyway. The estimates are deliberately rough (a factor
of a few either way): their job is to tell an hour from a second, not to time a run.

>>> check_budget("a Routh array of degree 10", 0.01, force=False, shrink="a lower degree")
0.01
>>> try:
...     check_budget("a Routh array of degree 10^6", 1e9, force=False, shrink="a lower degree")
... except ValueError as exc:
...     print(exc)  # doctest: +NORMALIZE_WHITESPACE
a Routh array of degree 10^6 would take roughly 31.7 years of computing (over the 60
seconds budget): choose a lower degree, or pass --force (force=True in Python) to run it anyway
>>> check_budget("x", 1e9, force=True, shrink="y")  # forced: the estimate is only returned
1000000000.0
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import math
from dataclasses import dataclass

from symdelay.core.errors import SymdelayInputError

__all__ = [
    "Budget",
    "DEFAULT_BUDGET",
    "DEFAULT_SECONDS",
    "DEFAULT_BYTES",
    "check_budget",
    "check_memory",
    "duration",
    "size_text",
    "power_cost",
    "forced",
    "honour_force",
]

#: True inside :func:`forced`: the user asked for the whole run, nested estimates included.
_FORCED = contextvars.ContextVar("symdelay_budget_forced", default=False)

#: Work estimated above this many seconds of one core is refused unless forced.
DEFAULT_SECONDS = 60.0

#: the most tasks a sweep runs without --force (grid points times replications)
MAX_TASKS = 1_000_000
#: Memory estimated above this many bytes is refused unless forced.
DEFAULT_BYTES = 4 * 2**30


@dataclass(frozen=True)
class Budget:
    """The limits past which work needs ``force``: ``seconds`` of one core, ``bytes``."""

    seconds: float = DEFAULT_SECONDS
    bytes: float = DEFAULT_BYTES

    def check(self, what: str, estimate: float, *, force: bool = False, shrink: str,
              unit: str = "seconds") -> float:  # fmt: skip
        """Return ``estimate``, or raise when it is over the limit of ``unit`` and not forced.

        ``what`` names the work (``"a Routh array of degree 400"``), ``estimate`` is its
        cost in ``unit`` (``"seconds"`` or ``"bytes"``), ``shrink`` says what to make
        smaller (``"a lower degree"``). A NaN or infinite estimate counts as over budget.
        """
        if unit not in ("seconds", "bytes"):
            raise ValueError(f"unit must be 'seconds' or 'bytes', got {unit!r}")
        estimate = float(estimate)
        force = force or _FORCED.get()
        limit = self.seconds if unit == "seconds" else self.bytes
        over = not (estimate <= limit)  # NaN is over
        if over and not force:
            if unit == "seconds":
                cost = f"would take roughly {duration(estimate)} of computing"
                cap = f"the {duration(limit)} budget"
            else:
                cost = f"would need roughly {size_text(estimate)} of memory"
                cap = f"the {size_text(limit)} budget"
            raise SymdelayInputError(
                f"{what} {cost} (over {cap}): choose {shrink}, or pass --force "
                "(force=True in Python) to run it anyway"
            )
        return estimate


#: The budget every command uses unless told otherwise.
DEFAULT_BUDGET = Budget()


def check_budget(what: str, estimate: float, *, force: bool = False, shrink: str,
                 unit: str = "seconds", budget: Budget | None = None) -> float:  # fmt: skip
    """:meth:`Budget.check` of ``budget`` (default :data:`DEFAULT_BUDGET`)."""
    return (budget or DEFAULT_BUDGET).check(what, estimate, force=force, shrink=shrink, unit=unit)


def check_memory(what: str, nbytes: float, *, force: bool = False, shrink: str,
                 budget: Budget | None = None) -> float:  # fmt: skip
    """:func:`check_budget` in bytes."""
    return check_budget(what, nbytes, force=force, shrink=shrink, unit="bytes", budget=budget)


def power_cost(size: float, per_unit: float, exponent: float) -> float:
    """``per_unit * size**exponent`` seconds, saturating at ``inf`` instead of overflowing."""
    try:
        return float(per_unit) * float(size) ** float(exponent)
    except OverflowError:
        return math.inf


def duration(seconds: float) -> str:
    """``"3.2 hours"``: a running time in the largest unit it is at least two of."""
    if not math.isfinite(seconds):
        return "forever"
    for unit, size in (("years", 3.15e7), ("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= 2 * size:
            return f"{seconds / size:.3g} {unit}"
    return f"{seconds:.3g} seconds"


def size_text(nbytes: float) -> str:
    """``"12 GiB"``: a memory size."""
    if not math.isfinite(nbytes):
        return "unbounded memory"
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if nbytes >= size:
            return f"{nbytes / size:.3g} {unit}"
    return f"{nbytes:.3g} bytes"


@contextlib.contextmanager
def forced(flag: bool = True):
    """Inside, every :func:`check_budget` passes (``--force`` on a command covers the
    estimates of the analyses it calls, not only its own)."""
    token = _FORCED.set(bool(flag) or _FORCED.get())
    try:
        yield
    finally:
        _FORCED.reset(token)


def honour_force(run):
    """A command's ``run(args)`` under :func:`forced` when ``args.force`` is set."""

    @functools.wraps(run)
    def wrapper(args):
        with forced(getattr(args, "force", False)):
            return run(args)

    return wrapper
