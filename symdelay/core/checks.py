"""Input checks shared by the stochastic modules (one-line :class:`SymdelayInputError`)."""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

import numpy as np

from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.core.params import as_L, as_number, exact_number

__all__ = [
    "check_rates",
    "check_eta",
    "check_horizon",
    "check_replications",
    "check_counts",
    "check_state",
    "time_grid",
    "exact_multiples",
]


def check_rates(L, mu, lam, theta, D) -> dict:
    """``L`` (int >= 1) and exact numeric ``mu, lam, D > 0`` and real ``theta >= 0``."""
    L = as_L(L, allow_symbol=False)
    out = {"L": L}
    for name, value, positive in (("mu", mu, True), ("lam", lam, True), ("D", D, True)):
        out[name] = _numeric(name, value, positive)
    th = _numeric("theta", theta, False)
    if not th >= 0:
        raise SymdelayInputError(f"theta must be >= 0 (routing sensitivity), got {theta}")
    out["theta"] = th
    out["gamma"] = sp.Rational(L) / out["D"]
    return out


def _numeric(name, value, positive):
    if value is None:
        raise SymdelayInputError(f"{name} must be given as a number for numerics")
    if isinstance(value, np.generic):  # numpy scalars -> Python numbers
        value = value.item()
    return as_number(name, value, positive=positive)


def _as_real(name, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, str)):
        raise SymdelayInputError(f"{name} must be a number, got {value!r}")
    try:
        x = float(value)
    except ValueError:
        raise SymdelayInputError(f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(x):
        raise SymdelayInputError(f"{name} must be a finite number, got {value!r}")
    return x


def check_eta(eta) -> int:
    """The system scale: an integer >= 1."""
    x = _as_real("eta", eta)
    if not x >= 1:
        raise SymdelayInputError(f"eta must be an integer >= 1 (system scale), got {eta}")
    if x != int(x):
        raise SymdelayInputError(f"eta must be an integer >= 1 (system scale), got {eta}")
    if x > 1e15:
        raise SymdelayInputError(
            f"eta must be at most 10^15 (job counts are kept exactly in doubles), got {eta}"
        )
    return int(x)


def check_horizon(T, dt) -> tuple[float, float]:
    """Horizon ``T > 0`` and grid step ``0 < dt <= T``."""
    T = _as_real("T", T)
    if not T > 0:
        raise SymdelayInputError(f"T must be positive (time horizon), got {T}")
    dt = _as_real("dt", dt)
    if not 0 < dt <= T:
        raise SymdelayInputError(f"dt must satisfy 0 < dt <= T (grid step), got dt={dt}, T={T}")
    if T / dt > 10_000_000:
        raise SymdelayInputError(
            f"the grid has more than 10^7 points (T/dt = {T / dt:.3g}): choose a larger dt"
        )
    return T, dt


def check_replications(replications, name: str = "replications", least: int = 1) -> int:
    """Number of independent replications (or another count ``name``, or a seed): an
    integer ``>= least``, or its decimal text."""
    msg = f"{name} must be an integer >= {least}, got {replications!r}"
    if isinstance(replications, bool):
        raise SymdelayInputError(msg)
    if isinstance(replications, str):
        try:
            replications = int(replications.strip())
        except ValueError:
            raise SymdelayInputError(msg) from None
    if isinstance(replications, float) and replications.is_integer():
        replications = int(replications)
    if not isinstance(replications, numbers.Integral) or replications < least:
        raise SymdelayInputError(msg)
    return int(replications)


def check_counts(initial, names) -> np.ndarray:
    """Job counts at time 0: whole numbers >= 0 (below 2^52), one per name."""
    n = len(names)
    try:
        arr = np.asarray(initial, dtype=float)
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.shape != (n,):
        raise SymdelayInputError(
            f"the initial state needs {n} job counts, one per state: {', '.join(names[:12])}"
            + (" ..." if n > 12 else "")
        )
    if not np.all(np.isfinite(arr)) or np.any(arr < 0) or np.any(arr != np.round(arr)):
        raise SymdelayInputError("the initial state needs whole job counts >= 0")
    if np.any(arr > 2**52):  # doubles hold integers exactly below 2^53
        raise SymdelayInputError("the initial job counts must be below 2^52")
    return arr.astype(np.int64)


def check_state(initial, names, what: str = "the initial state") -> np.ndarray:
    """A scaled state (of a fluid path): finite values >= 0, one per name."""
    n = len(names)
    try:
        y0 = np.asarray(initial, dtype=float)
    except (TypeError, ValueError):
        y0 = None
    if y0 is None or y0.shape != (n,) or not np.all(np.isfinite(y0)) or np.any(y0 < 0):
        raise SymdelayInputError(
            f"{what} needs {n} finite values >= 0, one per state: {', '.join(names[:12])}"
            + (" ..." if n > 12 else "")
        )
    return y0


def exact_multiples(step, n: int) -> np.ndarray:
    """``float(i * step)`` for ``i = 0..n``, ``step`` exact: each point the double nearest
    the exact multiple (``3 * 0.1`` prints ``0.3``, not ``0.30000000000000004``)."""
    step = exact_number("the grid step", step)
    p, q = int(step.p), int(step.q)
    if abs(p) * n < 2**53 and q < 2**53:  # i*p exact in a double, one rounded division
        return np.arange(n + 1, dtype=np.float64) * p / q
    return np.array([float(Fraction(k * p, q)) for k in range(n + 1)])


def time_grid(T: float, dt: float) -> np.ndarray:
    """``0, dt, 2 dt, ..., n dt`` with ``n = floor(T/dt)``, from the exact decimals of T
    and dt (floats by their repr), each point correctly rounded."""
    Tq, dq = exact_number("T", T), exact_number("dt", dt)
    return exact_multiples(dq, int(sp.floor(Tq / dq)))
