"""Exact simulation of the Markov jump process of MODEL.md (Gillespie direct method).

State ``(Q1, Q2, Z_{1,1..L}, Z_{2,1..L})``; an arrival (rate ``2 eta lam``) is routed to
server i with the logit probability of the current scaled queues, goes through ``L``
exponential phases of rate ``gamma = L/D`` and is then served at rate ``mu``. Every jump is
simulated (no tau-leaping). The paths are recorded on the grid ``0, dt, ..., n dt``
(``n = floor(T/dt)``) as the state at each grid time (right-continuous: events at a grid time
are included), scaled by ``1/eta``.

The kernel is a small C function compiled at first use (see :mod:`._kernel`); when no C
compiler is available a pure-Python twin making the very same random draws runs instead.
Replications run in parallel threads (the kernel releases the GIL); each has its own
xoshiro256** stream seeded from a NumPy ``Generator``, so results do not depend on the
number of threads.

>>> r = simulate(L=1, eta=50, T=1, dt=0.5, seed=3)
>>> r.t.tolist(), float(r.q2[0])
([0.0, 0.5, 1.0], 1.0)
>>> r["events"] == int(r.transition_counts.sum())
True
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from ..errors import SymdelayInputError
from . import _kernel
from ._inputs import check_eta, check_horizon, check_rates, check_replications, time_grid

__all__ = ["simulate", "SimulationResult", "default_initial_state", "check_initial_state"]


def default_initial_state(L: int, eta: int) -> np.ndarray:
    """The paper's start: ``Q1 = 0``, ``Q2 = eta``, all delay phases empty."""
    s = np.zeros(2 + 2 * L, dtype=np.int64)
    s[1] = eta
    return s


def check_initial_state(initial, L: int) -> np.ndarray:
    """Validate a custom initial state: ``2(L+1)`` integer counts >= 0.

    Order: ``Q1, Q2, Z_{1,1}..Z_{1,L}, Z_{2,1}..Z_{2,L}``.
    """
    try:
        arr = np.asarray(initial, dtype=float)
    except (TypeError, ValueError):
        raise SymdelayInputError(
            f"initial must be a list of 2(L+1) = {2 * L + 2} job counts, got {initial!r}"
        ) from None
    if arr.ndim != 1 or arr.size != 2 * L + 2:
        raise SymdelayInputError(
            f"initial must have 2(L+1) = {2 * L + 2} entries (Q1, Q2, Z1_1..Z1_L, Z2_1..Z2_L) "
            f"for L={L}, got {arr.size}"
        )
    if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
        raise SymdelayInputError("initial must contain whole job counts (integers >= 0)")
    if np.any(arr < 0):
        raise SymdelayInputError(
            f"initial must contain job counts >= 0, got a negative count {arr.min():g}"
        )
    if np.any(arr > 2**52):
        raise SymdelayInputError("initial counts must be below 2^52")
    return arr.astype(np.int64)


@dataclass
class SimulationResult:
    """Sample paths of the scaled state on a time grid, and what it took to make them.

    ``t`` is the grid. ``paths`` has shape ``(R, len(t), 2L+2)`` with columns
    ``q1, q2, z1_1..z1_L, z2_1..z2_L`` (counts / eta). The convenience views ``q1, q2``
    (and ``z1, z2`` with phase as the first non-replication axis) drop the replication
    axis when ``R == 1``, mirroring the JSON shape. ``events`` is the total number of
    transitions simulated (over all replications); ``events_per_replication`` and
    ``transition_counts`` (``R x 4``: arrival, phase, enter_service, service) break it down.
    """

    L: int
    eta: int
    parameters: dict
    t: np.ndarray
    paths: np.ndarray
    events_per_replication: np.ndarray
    transition_counts: np.ndarray
    initial: np.ndarray
    seed: object
    backend: str
    final_counts: np.ndarray = field(repr=False, default=None)

    @property
    def replications(self) -> int:
        return self.paths.shape[0]

    @property
    def events(self) -> int:
        return int(self.events_per_replication.sum())

    def __getitem__(self, key):
        if key in ("events", "t", "q1", "q2", "z1", "z2"):
            return getattr(self, key)
        raise KeyError(key)

    def _view(self, arr):
        return arr[0] if self.replications == 1 else arr

    @property
    def q1(self) -> np.ndarray:
        return self._view(self.paths[:, :, 0])

    @property
    def q2(self) -> np.ndarray:
        return self._view(self.paths[:, :, 1])

    @property
    def z1(self) -> np.ndarray:
        """``z1[l-1]`` is the path of ``z_{1,l}`` (``z1[r, l-1]`` when R > 1)."""
        return self._view(np.moveaxis(self.paths[:, :, 2 : 2 + self.L], 2, 1))

    @property
    def z2(self) -> np.ndarray:
        return self._view(np.moveaxis(self.paths[:, :, 2 + self.L :], 2, 1))

    @property
    def x(self) -> np.ndarray:
        """The scaled imbalance ``q1 - q2``."""
        return self.q1 - self.q2

    def replication(self, i: int) -> SimulationResult:
        """Replication ``i`` alone (a result with R = 1)."""
        sl = slice(i, i + 1)
        return SimulationResult(
            self.L,
            self.eta,
            self.parameters,
            self.t,
            self.paths[sl],
            self.events_per_replication[sl],
            self.transition_counts[sl],
            self.initial,
            self.seed,
            self.backend,
            None if self.final_counts is None else self.final_counts[sl],
        )

    def _path_json(self, i: int) -> dict:
        p = self.paths[i]
        return {
            "events": int(self.events_per_replication[i]),
            "t": self.t.tolist(),
            "q1": p[:, 0].tolist(),
            "q2": p[:, 1].tolist(),
            "z1": p[:, 2 : 2 + self.L].T.tolist(),
            "z2": p[:, 2 + self.L :].T.tolist(),
        }

    def to_json(self) -> dict:
        """``{"events", "t", "q1", "q2", "z1", "z2"}`` for one replication; for R > 1
        ``{"events": total, "replications": [one such object per replication]}``."""
        if self.replications == 1:
            return self._path_json(0)
        return {
            "events": self.events,
            "replications": [self._path_json(i) for i in range(self.replications)],
        }

    def table(self) -> tuple[list[str], np.ndarray]:
        """Header and rows ``replication, t, q1, q2, z1_1.., z2_1..`` (for CSV)."""
        L = self.L
        header = ["replication", "t", "q1", "q2"]
        header += [f"z1_{l}" for l in range(1, L + 1)] + [f"z2_{l}" for l in range(1, L + 1)]
        R, n, d = self.paths.shape
        rep = np.repeat(np.arange(R), n)[:, None]
        tt = np.tile(self.t, R)[:, None]
        return header, np.hstack([rep, tt, self.paths.reshape(R * n, d)])


def simulate(
    L=2,
    eta=1000,
    mu=1,
    lam=1,
    theta=2,
    D=1,
    T=20,
    seed=1,
    dt=0.1,
    replications=1,
    initial=None,
    *,
    backend: str = "auto",
    threads: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> SimulationResult:
    """Simulate ``replications`` independent exact sample paths on ``[0, T]``.

    ``seed`` is anything :func:`numpy.random.default_rng` accepts (an int, a
    ``SeedSequence`` or a ``Generator``). ``initial`` is ``2(L+1)`` integer counts
    ``Q1, Q2, Z1_1..Z1_L, Z2_1..Z2_L`` (default: ``Q2 = eta``, the rest 0).
    ``backend``: ``"auto"`` (C if it compiles, else Python), ``"c"`` or ``"python"``.
    ``progress`` is called with 1 after each finished replication.
    """
    p = check_rates(L, mu, lam, theta, D)
    L = p["L"]
    eta = check_eta(eta)
    T, dt = check_horizon(T, dt)
    R = check_replications(replications)
    init = default_initial_state(L, eta) if initial is None else check_initial_state(initial, L)
    grid = time_grid(T, dt)
    d = 2 + 2 * L
    if R * grid.size * d > 250_000_000:
        raise SymdelayInputError(
            "the recorded paths would exceed 2 GB: use fewer replications or a larger dt"
        )
    if backend not in ("auto", "c", "python"):
        raise SymdelayInputError(f"backend must be 'auto', 'c' or 'python', got {backend!r}")
    fn = None if backend == "python" else _kernel.load_c_kernel()
    if backend == "c" and fn is None:
        raise SymdelayInputError("the C simulation kernel is not available (no C compiler?)")
    rng = np.random.default_rng(seed)
    states = rng.integers(0, 2**64 - 1, size=(R, 4), dtype=np.uint64, endpoint=True)
    states[np.all(states == 0, axis=1), 0] = 1  # xoshiro must not start at 0
    args = tuple(
        float(v) for v in (eta, p["lam"], p["mu"], p["gamma"], p["theta"])
    )  # eta, lam, mu, gamma, theta
    out = np.zeros((R, grid.size, d), dtype=np.int64)
    counts = np.zeros((R, 4), dtype=np.int64)
    events = np.zeros(R, dtype=np.int64)
    final = np.tile(init, (R, 1))

    def one(i: int) -> None:
        st = np.ascontiguousarray(final[i])
        rs = np.ascontiguousarray(states[i])
        o = np.zeros((grid.size, d), dtype=np.int64)
        c = np.zeros(4, dtype=np.int64)
        if fn is not None:
            ev = _kernel.run_c(fn, L, *args, st, rs, grid, o, c)
        else:
            ev = _kernel.run_python(L, *args, st, rs, grid, o, c)
        out[i], counts[i], events[i], final[i] = o, c, ev, st
        if progress is not None:
            progress(1)

    nthreads = threads or min(R, os.cpu_count() or 1)
    if fn is None or nthreads <= 1 or R == 1:
        for i in range(R):
            one(i)
    else:
        with ThreadPoolExecutor(max_workers=nthreads) as pool:
            list(pool.map(one, range(R)))
    return SimulationResult(
        L=L,
        eta=eta,
        parameters={k: p[k] for k in ("mu", "lam", "theta", "D", "gamma")},
        t=grid,
        paths=out / float(eta),
        events_per_replication=events,
        transition_counts=counts,
        initial=init,
        seed=seed,
        backend="c" if fn is not None else "python",
        final_counts=final,
    )
