"""The one random-number generator of every simulation kernel: xoshiro256** (Blackman and
Vigna), as C source for the compiled kernels and as a Python twin that draws the same stream.

>>> s = [1, 2, 3, 4]
>>> next_u64(s), s
(11520, [7, 0, 262146, 211106232532992])
"""

from __future__ import annotations

__all__ = ["C_SOURCE", "MASK", "rotl", "next_u64", "unif", "seed_states"]

#: ``rotl``, ``next_u64`` and ``unif`` (a double in [0, 1) from the top 53 bits), ``static
#: inline``, to be pasted at the head of a kernel's C source.
C_SOURCE = r"""
static inline uint64_t rotl(const uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t next_u64(uint64_t *s) {
    const uint64_t result = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
    s[2] ^= t; s[3] = rotl(s[3], 45);
    return result;
}

static inline double unif(uint64_t *s) { return (double)(next_u64(s) >> 11) * 0x1.0p-53; }
"""

MASK = (1 << 64) - 1


def rotl(x: int, k: int) -> int:
    return ((x << k) | (x >> (64 - k))) & MASK


def next_u64(s: list) -> int:
    """The next 64-bit output; advances the state list ``s`` in place."""
    s0, s1, s2, s3 = s  # locals: the Python twins call this once per draw
    result = (rotl((s1 * 5) & MASK, 7) * 9) & MASK
    t = (s1 << 17) & MASK
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s[:] = (s0, s1, s2, rotl(s3, 45))
    return result


def unif(s: list) -> float:
    """A double in [0, 1) from the top 53 bits of the next output."""
    return float(next_u64(s) >> 11) * 2.0**-53


def seed_states(rng, count: int | None = None):
    """Start states drawn from a numpy ``Generator``: ``count`` rows of four 64-bit words
    (one ``uint64`` array), or one row when ``count`` is None; a state of zeros (which
    xoshiro never leaves) is made 1 in its first word."""
    import numpy as np

    s = rng.integers(0, 2**64 - 1, size=(count or 1, 4), dtype=np.uint64, endpoint=True)
    s[~s.any(axis=1), 0] = 1
    return s if count is not None else s[0]
