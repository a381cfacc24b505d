"""Waiting times: Exp(1) by the ziggurat of Marsaglia and Tsang (2000), 256 layers, 53-bit
integers (the layout of numpy's random_standard_exponential): 98.9% of the draws cost one
64-bit output and one multiplication, no logarithm. The tables are computed here once; the
C kernel gets them as hex literals (:func:`c_tables`, filled into ``kernel_template.c``), the
Python twin draws with :func:`_exp_variate`, so both backends use the same doubles."""

from __future__ import annotations

import math
from collections.abc import Callable

__all__: list = []


def _ziggurat_tables():
    m = 2.0**53
    de = 7.697117470131487  # r: where the tail starts
    ve = 3.949659822581572e-3  # the area of each layer
    q = ve / math.exp(-de)
    ke, we, fe = [0] * 256, [0.0] * 256, [0.0] * 256
    ke[0], ke[1] = int((de / q) * m), 0
    we[0], we[255] = q / m, de / m
    fe[0], fe[255] = 1.0, math.exp(-de)
    te = de
    for i in range(254, 0, -1):
        de = -math.log(ve / de + math.exp(-de))
        ke[i + 1] = int((de / te) * m)
        te = de
        fe[i] = math.exp(-de)
        we[i] = de / m
    return 7.697117470131487, ke, we, fe


_ZE_R, _ZE_K, _ZE_W, _ZE_F = _ziggurat_tables()


def _exp_variate(u64: Callable[[], int], unif: Callable[[], float]) -> float:
    """One Exp(1) variate from the 64-bit outputs ``u64`` and uniforms ``unif`` of one stream
    (the Python twin of the C ``expo``)."""
    while True:
        ri = u64() >> 3
        idx = ri & 0xFF
        ri >>= 8
        x = float(ri) * _ZE_W[idx]
        if ri < _ZE_K[idx]:
            return x
        if idx == 0:  # beyond r: r + Exp(1)
            return _ZE_R - math.log1p(-unif())
        if (_ZE_F[idx - 1] - _ZE_F[idx]) * unif() + _ZE_F[idx] < math.exp(-x):
            return x


def c_tables() -> dict:
    """The template's ``ZE_K``, ``ZE_W``, ``ZE_F`` (the bodies of the C arrays) and ``ZE_R``
    (where the tail starts), as C literals of exactly these values."""
    return {
        "ZE_K": ",".join(f"{v}ULL" for v in _ZE_K),
        "ZE_W": ",".join(float.hex(v) for v in _ZE_W),
        "ZE_F": ",".join(float.hex(v) for v in _ZE_F),
        "ZE_R": float.hex(_ZE_R),
    }
