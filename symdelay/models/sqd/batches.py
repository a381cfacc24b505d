"""Batch bookkeeping shared by the SQ(d) simulators (the compiled one and the delayed one)
and the LB simulator: the block size of the event loop, the batch means of sojourn times
and tails, and the batch-means interval of an estimate."""

from __future__ import annotations

import math

__all__ = ["BLOCK", "batch_interval", "t975"]

#: events simulated per call of the kernel
BLOCK = 1 << 16


def t975(dof: int) -> float:
    """Student-t 97.5% quantile."""
    from scipy.stats import t

    return float(t.ppf(0.975, dof))


def batch_interval(values, point=None, lo=-math.inf, hi=math.inf) -> tuple:
    """``(estimate, low, high)``: the batch mean (or ``point``) and the Student-t 95%
    interval over the batches, cut to ``[lo, hi]`` (the range of the quantity: the cut
    interval covers it whenever the full one does)."""
    import numpy as np

    a = np.asarray(values, dtype=float)
    m = float(a.mean()) if point is None else float(point)
    m = min(max(m, lo), hi)  # a fraction of 1 + 1e-16 is rounding
    if a.size < 2:
        return m, float("nan"), float("nan")
    h = t975(a.size - 1) * float(a.std(ddof=1)) / math.sqrt(a.size)
    return m, max(m - h, lo), min(m + h, hi)


def _finish(soj_sum, soj_n, occ_batches, levels, N, width, events):
    soj = [s / n for s, n in zip(soj_sum, soj_n) if n]
    tails = []
    for occ in occ_batches:
        frac = [v / (N * width) for v in occ]
        # s_k = fraction of time-servers with length >= k, k = 1..levels
        acc, tail = 0.0, [0.0] * levels
        for k in range(levels, 0, -1):
            acc += frac[k]
            tail[k - 1] = acc
        tails.append(tail)
    return soj, tails, events
