"""One precision policy: the digits an algorithm carries above the digits asked, and the
binary precision that holds a number of decimal digits.

An answer asked for at ``dps`` digits is computed at ``dps + GUARD`` digits (mpmath) or
:func:`work_bits` bits (Arb), and rounded once when printed; an algorithm that builds on an
inner one (Newton steps polished at the outer precision, a certificate over a computed
point) asks for ``guard=2 * GUARD``. This is mpmath's ``workdps``/``extraprec``
(``mpmath.calculus.polyroots`` runs inside ``ctx.extraprec``) stated once for the package.

>>> work_dps(15), bits(15), work_bits(15)
(25, 50, 116)
>>> digits(work_bits(15)) >= work_dps(15)
True
>>> import mpmath
>>> with workdps(20):
...     mpmath.mp.dps
30
"""

from __future__ import annotations

import math
from contextlib import contextmanager

__all__ = [
    "GUARD",
    "SLACK_BITS",
    "BITS_PER_DIGIT",
    "work_dps",
    "bits",
    "work_bits",
    "digits",
    "workdps",
    "workprec",
]

#: Guard digits on top of the digits asked.
GUARD = 10
#: Bits on top of the decimal digits in a binary precision (rounding in the last steps of a
#: ball computation); 32 keeps 15 + GUARD digits within two 64-bit limbs.
SLACK_BITS = 32
#: ``log2(10)``: bits per decimal digit.
BITS_PER_DIGIT = math.log2(10)


def work_dps(dps: int, guard: int = GUARD) -> int:
    """The working digits for an answer of ``dps`` digits: ``dps + guard``."""
    return int(dps) + int(guard)


def bits(dps: int, extra: int = 0) -> int:
    """The bits that hold ``dps`` decimal digits, ``ceil(dps log2 10)``, plus ``extra``."""
    return math.ceil(int(dps) * BITS_PER_DIGIT) + int(extra)


def work_bits(dps: int, guard: int = GUARD) -> int:
    """The binary working precision for an answer of ``dps`` digits:
    ``bits(dps + guard) + SLACK_BITS``."""
    return bits(work_dps(dps, guard), SLACK_BITS)


def digits(prec: int) -> int:
    """The decimal digits a binary precision of ``prec`` bits holds (rounded down)."""
    return int(int(prec) / BITS_PER_DIGIT)


@contextmanager
def workdps(dps: int, guard: int = GUARD):
    """mpmath at ``dps + guard`` digits inside the block (the global precision restored)."""
    import mpmath

    with mpmath.workdps(work_dps(dps, guard)):
        yield


@contextmanager
def workprec(dps: int, guard: int = GUARD):
    """python-flint (Arb) at :func:`work_bits` inside the block (restored after); yields
    the bits."""
    import flint

    prec = work_bits(dps, guard)
    with flint.ctx.workprec(prec):
        yield prec


def one_blas_thread():
    """A context in which BLAS/LAPACK runs on one thread (threadpoolctl; restored on exit):
    a dense eigenproblem of a few hundred rows is faster so, and on a machine whose cores are
    busy a threaded one can be a hundred times slower (0.02 s against 3 s for a 128 x 128
    ``eigvals`` beside two busy processes on two cores)."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")
