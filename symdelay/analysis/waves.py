"""The wave through the delay phases: times of successive peaks of ``z_{1,1}, .., z_{1,L}, q_1``.

A routing swing first fills delay phase 1, then phase 2, ..., and only then the server:
the local maxima of ``z_{1,1}, z_{1,2}, ..., q_1`` that belong to one swing come in this
order. :func:`wave_peaks` follows one swing: the first peak of ``z_{1,1}`` after ``t_from``,
then the first peak of each next coordinate after the previous one.

>>> import numpy as np
>>> t = np.linspace(0, 10, 1001)
>>> [round(v, 6) for v in wave_peaks(t, [np.sin(t), np.sin(t - 0.5), np.sin(t - 1.5)])]
[1.570796, 2.070796, 3.070796]
"""

from __future__ import annotations

import numpy as np

__all__ = ["local_maxima", "wave_peaks", "fluid_wave_peaks"]


def local_maxima(t, y) -> np.ndarray:
    """Times of strict interior local maxima of ``y`` on the grid ``t`` (vertex of the
    parabola through the three grid points around each maximum)."""
    t, y = np.asarray(t, float), np.asarray(y, float)
    k = np.where((y[1:-1] > y[:-2]) & (y[1:-1] >= y[2:]))[0] + 1
    y0, y1, y2 = y[k - 1], y[k], y[k + 1]
    denom = y0 - 2 * y1 + y2
    shift = np.where(denom != 0, 0.5 * (y0 - y2) / np.where(denom != 0, denom, 1), 0.0)
    h = t[1] - t[0] if t.size > 1 else 0.0
    return np.round(t[k] + shift * h, 10)


def wave_peaks(t, series, t_from: float = 0.0) -> tuple:
    """Follow one swing through ``series`` (ordered); ``None`` entries when not found."""
    out, start = [], t_from
    for y in series:
        m = local_maxima(t, y)
        m = m[m > start]
        if m.size == 0:
            out.append(None)
            break
        start = float(m[0])
        out.append(start)
    return tuple(out)


def fluid_wave_peaks(flu, t_from: float = 0.0) -> tuple:
    """Peak times of ``z_{1,1}, .., z_{1,L}, q_1`` for one swing of a fluid solution."""
    return wave_peaks(flu.t, [*flu["z1"], flu["q1"]], t_from)
