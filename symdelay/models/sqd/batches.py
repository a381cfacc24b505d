"""Batch bookkeeping shared by the SQ(d) simulators (the compiled one and the delayed one):
the block size of the event loop and the batch means of sojourn times and tails."""

from __future__ import annotations

__all__ = ["BLOCK"]

#: events simulated per call of the kernel
BLOCK = 1 << 16


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
