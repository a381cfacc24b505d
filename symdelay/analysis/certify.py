"""Proofs with interval arithmetic (python-flint / Arb): root inclusion, disjointness, counts.

Inclusion (:func:`certify_root`). For an analytic F, a centre ``c`` and an exact complex
number ``y`` (an approximation of ``1/F'(c)``), let ``T(z) = z - y F(z)``. If on the closed
disc ``|z - c| <= rho``

    eta = |y F(c)|,   kappa = sup |1 - y F'(z)| < 1   and   eta <= (1 - kappa) rho,

then T maps the disc into itself and is a contraction, so F has exactly one zero ``z*`` in
the disc and ``|z* - c| <= eta/(1 - kappa)`` (the returned radius). ``eta`` and ``kappa``
are upper bounds computed with Arb balls; the disc is enclosed in an Arb box.

Counting (:func:`count_zeros`). The argument principle on a rectangle: every edge is cut
into segments whose Arb enclosure of F (evaluated on a ball covering the segment) excludes
0. A convex set without 0 lies in an open half-plane through 0, so the change of arg F along
the segment is the principal argument of ``F(z1)/F(z0)``; the total, an Arb ball, must
contain exactly one multiple of 2 pi.

>>> import flint
>>> F = lambda z: z * z + 1                     # zeros +-i
>>> count_zeros(F, -2, 2, 0.5, 2)
1
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction

import flint
import mpmath

from symdelay.core.errors import CertificationError
from symdelay.core.lazy import module as _lazy_module

np = _lazy_module("numpy")  # imported at first use

__all__ = [
    "to_arb",
    "to_acb",
    "arb_to_mpf_upper",
    "certify_root",
    "check_disjoint",
    "count_zeros",
    "mpc_from_acb_mid",
    "mpc_from_acb_mid_fast",
    "arb_upper_fast",
    "mpf_value",
    "zero_disc_radius",
]


def to_arb(x) -> flint.arb:
    """An exact mpmath/int/Rational number as an Arb ball (exact if the precision allows)."""
    if isinstance(x, mpmath.mpf):
        sign, man, exp, _ = x._mpf_
        if not man:
            if x != 0:
                raise CertificationError(f"non-finite number {x} in a certificate")
            return flint.arb(0)
        return flint.arb(flint.fmpz(-int(man) if sign else int(man))) * flint.arb(2) ** int(exp)
    if hasattr(x, "p") and hasattr(x, "q"):  # sympy Rational
        return flint.arb(flint.fmpq(int(x.p), int(x.q)))
    if isinstance(x, Fraction):
        return flint.arb(flint.fmpq(x.numerator, x.denominator))
    return flint.arb(x)


def to_acb(z) -> flint.acb:
    """An mpmath mpc (or mpf, int, complex) as an Arb box, without rounding mpc parts."""
    if not isinstance(z, mpmath.mpc):
        z = mpmath.mpc(z)  # exact for floats and ints
    return flint.acb(to_arb(z.real), to_arb(z.imag))


def arb_to_mpf_upper(x: flint.arb) -> mpmath.mpf:
    """An mpf that is >= every point of the ball ``x`` (exact conversion of Arb's upper bound)."""
    man, exp = x.upper().mid().man_exp()
    man, exp = int(man), int(exp)
    with mpmath.workprec(max(man.bit_length(), 1) + 10):
        return +mpmath.mpf((man, exp))


def mpc_from_acb_mid(z: flint.acb) -> mpmath.mpc:
    parts = []
    for part in (z.real.mid(), z.imag.mid()):
        man, exp = part.man_exp()
        man, exp = int(man), int(exp)
        with mpmath.workprec(max(man.bit_length(), 1) + 10):
            parts.append(+mpmath.mpf((man, exp)))
    return mpmath.mpc(*parts)


def certify_root(F, dF, center, prec: int, *, widen: float = 8.0):
    """Prove that F has exactly one zero near ``center``; return ``(radius, rho)``.

    ``F``/``dF`` map an Arb ``acb`` to an ``acb`` enclosure. ``radius`` (an mpf upper bound)
    bounds the distance from ``center`` to the zero; the zero is unique in the disc of radius
    ``rho``. Raises :class:`CertificationError` when the contraction test fails.
    """
    with flint.ctx.workprec(prec):
        c = to_acb(center)
        d = dF(c)
        if d.contains(0):
            raise CertificationError(
                f"F'(r) encloses 0 at r = {mpmath.nstr(center, 15)}: "
                "a (nearly) multiple root cannot be certified"
            )
        y = mpc_from_acb_mid(1 / d)
        ya = to_acb(y)
        eta = (ya * F(c)).abs_upper()
        floor = flint.arb(2) ** (-prec + 8) * (1 + c.abs_upper())
        rho = max(eta * widen, floor).upper()
        box = flint.acb(flint.arb(c.real.mid(), rho), flint.arb(c.imag.mid(), rho))
        kappa = (1 - ya * dF(box)).abs_upper()
        if not (kappa < 1 and eta <= (1 - kappa) * rho):
            raise CertificationError(
                f"contraction test failed at r = {mpmath.nstr(center, 15)} "
                f"(eta = {eta.str(3, radius=False)}, kappa = {kappa.str(3, radius=False)})"
            )
        radius = eta / (1 - kappa)
        return arb_to_mpf_upper(radius), arb_to_mpf_upper(rho)


#: up to this many discs, the candidate pairs are every pair within reach (the same set the
#: k-d tree gives for more)
_DIRECT_PAIRS = 64


def check_disjoint(centers: Sequence, radii: Sequence) -> None:
    """Prove the closed discs ``|z - centers[i]| <= radii[i]`` pairwise disjoint, or raise.

    Candidate pairs come from double-precision centres within a search radius that covers
    their rounding error (a k-d tree beyond a few dozen discs); each candidate pair is then
    decided with Arb.
    """
    n = len(centers)
    if n < 2:
        return
    pts = [(float(z.real), float(z.imag)) for z in centers]
    rmax = float(max(radii))
    scale = 1.0 + max(max(abs(x), abs(y)) for x, y in pts)
    reach = 2 * rmax * (1 + 1e-9) + 1e-12 * scale
    if not math.isfinite(reach):  # numbers beyond the double range: every pair, in Arb
        pairs = {(i, j) for i in range(n) for j in range(i + 1, n)}
        rmax = 0.0
    elif n <= _DIRECT_PAIRS:  # every pair in doubles (no k-d tree to import for a few roots)
        pairs = {
            (i, j)
            for i in range(n)
            for j in range(i + 1, n)
            if math.hypot(pts[i][0] - pts[j][0], pts[i][1] - pts[j][1]) <= reach
        }
    else:
        from scipy.spatial import cKDTree

        pairs = cKDTree(np.array(pts)).query_pairs(reach)
    base = 64 + max(mpmath.mp.prec, 2 * int(-math.log2(rmax + 1e-300)) + 64)
    for i, j in sorted(pairs):
        # the centres are exact (binary) numbers: their difference exactly, at the precision
        # their digits span (the roots of a tight cluster differ far below rmax)
        with flint.ctx.workprec(max(base, _span(centers[i], centers[j]) + 64)):
            dist = (to_acb(centers[i]) - to_acb(centers[j])).abs_lower()
            if not dist > to_arb(radii[i]) + to_arb(radii[j]):
                raise CertificationError(
                    f"inclusion discs of roots {i} and {j} overlap near "
                    f"{mpmath.nstr(centers[i], 15)}: the iteration found the same root twice"
                )


def _span(*zs) -> int:
    """Bits from the highest to the lowest binary digit of the parts of mpc numbers ``zs``."""
    tops, bottoms = [], []
    for z in zs:
        z = z if isinstance(z, mpmath.mpc) else mpmath.mpc(z)
        for part in (z.real, z.imag):
            _sign, man, exp, bc = part._mpf_
            if man:
                tops.append(exp + bc)
                bottoms.append(exp)
    return max(tops) - min(bottoms) if tops else 0


def count_zeros(
    F: Callable,
    x0,
    x1,
    y0,
    y1,
    *,
    prec: int = 64,
    pieces_per_unit: float = 4.0,
    max_segments: int = 200_000,
) -> int:
    """Number of zeros of F inside the rectangle ``[x0, x1] x [y0, y1]`` (proved).

    ``F`` maps an ``acb`` ball to an enclosure. Raises :class:`CertificationError` if a zero
    is on (or too close to) the boundary.
    """
    with flint.ctx.workprec(prec):
        corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
        pts = [flint.acb(to_arb(mpmath.mpf(x)), to_arb(mpmath.mpf(y))) for x, y in corners]
        stack = []
        for i in range(4):
            a, b = pts[i], pts[(i + 1) % 4]
            # the first division only saves bisections (the adaptive test below is what
            # proves each step); capped, so that a long or infinite edge cannot hang
            pieces = float((b - a).abs_upper()) * pieces_per_unit
            n = max(1, math.ceil(pieces)) if pieces < 4096 else 4096
            edge = [a + (b - a) * flint.arb(j) / n for j in range(n + 1)]
            stack.extend((edge[j], edge[j + 1]) for j in range(n))
        stack.reverse()
        total = flint.arb(0)
        used = 0
        cache: dict = {}

        def value(z):
            key = (z.real.mid().str(30), z.imag.mid().str(30))
            if key not in cache:
                cache[key] = F(z)
            return cache[key]

        while stack:
            a, b = stack.pop()
            used += 1
            if used > max_segments:
                raise CertificationError(
                    "argument principle did not converge: a zero lies on or very near the "
                    "contour (e.g. on the imaginary axis)"
                )
            mid = (a + b) / 2
            half = (b - a) / 2
            ball = flint.acb(
                flint.arb(mid.real.mid(), half.real.abs_upper()),
                flint.arb(mid.imag.mid(), half.imag.abs_upper()),
            )
            enclosure = F(ball)
            if not enclosure.contains(0):
                step = (value(b) / value(a)).arg()
                if step.rad() < 0.05:
                    total += step
                    continue
            m = flint.acb(mid.real.mid(), mid.imag.mid())
            stack.append((m, b))
            stack.append((a, m))
        turns = total / (2 * flint.arb.pi())
        n = turns.unique_fmpz()
        if n is None:
            raise CertificationError(f"winding number not resolved: {turns.str(5)}")
        return int(n)


def mpc_from_acb_mid_fast(z: flint.acb) -> mpmath.mpc:
    """The midpoint of ``z`` as an mpmath ``mpc``, exactly (the value
    :func:`mpc_from_acb_mid` gives, built without a precision context: for many roots)."""
    return _make_mpc((mpf_value(z.real.mid()), mpf_value(z.imag.mid())))


def arb_upper_fast(x: flint.arb) -> mpmath.mpf:
    """An mpf that is >= every point of the ball ``x``: :func:`arb_to_mpf_upper` without a
    precision context (Arb's upper bound converted exactly)."""
    return _make_mpf(mpf_value(x.upper().mid()))


def mpf_value(x: flint.arb) -> tuple:
    """mpmath's raw value ``(sign, man, exp, bitcount)`` of an exact Arb number. Arb gives
    the odd mantissa (or 0) of the normalised form mpmath keeps (what ``from_man_exp``
    would make of it, built directly with mpmath's own integers; others: that function)."""
    man, exp = x.man_exp()
    man, exp = int(man), int(exp)
    if _PYTHON_INTEGERS:
        if man > 0:
            return (0, man, exp, man.bit_length())
        if man < 0:
            return (1, -man, exp, (-man).bit_length())
        return _FZERO
    return _from_man_exp(man, exp)  # pragma: no cover - gmpy/sage integers in mpmath


# bound once: these conversions run per root
_from_man_exp = mpmath.libmp.from_man_exp
_FZERO = mpmath.libmp.fzero
_PYTHON_INTEGERS = mpmath.libmp.BACKEND == "python"
_make_mpc, _make_mpf = mpmath.mp.make_mpc, mpmath.mp.make_mpf


def zero_disc_radius(p: flint.acb, dp: flint.acb, degree: int) -> flint.arb:
    """An upper bound of ``degree |p/dp|``: for a polynomial ``P`` of that degree with
    ``p``/``dp`` enclosures of ``P(c)``/``P'(c)``, the closed disc of this radius around
    ``c`` contains a zero of ``P`` (``P'/P(c) = sum 1/(c - z_j)``, so some ``|c - z_j| <=
    degree |P(c)/P'(c)|``; the bound Arb's own root isolation uses). ``degree`` such discs
    that are pairwise disjoint hold all the zeros, one each. Raises
    :class:`CertificationError` when ``dp`` encloses 0 (a root of ``P'`` near ``c``).
    """
    if dp.contains(0):
        raise CertificationError(
            "P'(r) encloses 0 near a root: a (nearly) multiple root cannot be certified"
        )
    return (degree * (p / dp).abs_upper()).upper()
