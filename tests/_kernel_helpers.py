"""Shared by the generated-kernel tests: the event a kernel draws from a fixed state."""

from __future__ import annotations

import numpy as np


def one_event_counts(k, eta, X0, draws, backend):
    """How often each transition of kernel ``k`` is the first event from counts ``X0``, over
    ``draws`` calls of one event each (independent generator states), by ``backend``."""
    fn = k.c_function() if backend == "c" else k.python_function()
    counts = np.zeros(len(k.names), dtype=np.int64)
    rng = np.random.default_rng(11)
    grid = np.array([0.0, 1e9])
    for _ in range(draws):
        X = np.array(X0, dtype=np.int64)
        rs = rng.integers(1, 2**63, size=4, dtype=np.uint64)
        cs = np.zeros(len(k.names), dtype=np.int64)
        args = (k._par, k._coef, k._ix, float(eta), X, rs, np.zeros(4), grid, 2)
        args += (np.zeros((2, len(X0)), dtype=np.int64), cs, 1, np.zeros(3, dtype=np.int64))
        work = np.zeros(k.workspace_size), np.zeros(k.integer_workspace_size, dtype=np.int64)
        assert fn(*args, np.zeros(1), *work) >= 0
        assert cs.sum() == 1
        counts[k._order] += cs
    return counts
