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
    "argument_change",
    "winding",
    "ContourError",
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
        # the midpoint exactly (a dyadic number), rounded once by mpc to the working precision
        parts.append(mpmath.mpf(mpmath.libmp.from_man_exp(int(man), int(exp))))
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


class ContourError(CertificationError):
    """The argument principle could not resolve its contour: ``where`` (an mpmath ``mpc``)
    is the point of the contour where it stopped, ``width`` (an mpf) the length of the
    segment there (a zero of F lies on, or within about ``width`` of, the contour near
    ``where``, or F is too flat there for the working precision)."""

    def __init__(self, message: str, where=None, width=None):
        super().__init__(message)
        self.where = where
        self.width = width


def _exact_arb(x) -> flint.arb:
    """A number (int, Fraction, SymPy Rational, float, mpf, arb) as an exact ball: its value
    when it is binary (ints, floats, mpf), else the midpoint of its ball (a contour vertex
    must be exact; moving it by an ulp moves the contour, not the proof)."""
    if isinstance(x, float | int):
        x = mpmath.mpf(x)  # exact for floats and ints
    if not isinstance(x, flint.arb):
        x = to_arb(x)
    return x if x.is_exact() else x.mid()


def argument_change(
    F: Callable,
    vertices: Sequence,
    *,
    prec: int = 64,
    pieces_per_unit: float = 4.0,
    max_segments: int = 200_000,
    min_width=None,
    stats: dict | None = None,
) -> flint.arb:
    """The change of ``arg F`` along the polygonal path through ``vertices`` (proved), an
    Arb ball.

    ``vertices``: exact points ``(x, y)`` (ints, Fractions, floats, mpf or exact arb); the
    path is open (close it by repeating the first vertex). Every segment is bisected until
    the Arb enclosure of F on the box covering it excludes 0 and the step of the argument
    is resolved; then the step is the principal argument of ``F(b)/F(a)`` (a convex set
    without 0 lies in an open half-plane). Raises :class:`ContourError` (with the point
    where it stopped) when a segment shorter than ``min_width`` (relative to ``1 + |z|``)
    would be needed, or after ``max_segments`` segments. ``stats`` (a dict), if given,
    receives ``segments`` (how many were examined) and ``evaluations``.
    """
    with flint.ctx.workprec(prec):
        pts = [flint.acb(_exact_arb(x), _exact_arb(y)) for x, y in vertices]
        floor = None if min_width is None else _exact_arb(mpmath.mpf(min_width))
        stack = []
        evaluations = 0
        for i in range(len(pts) - 1):
            a, b = pts[i], pts[i + 1]
            # the first division only saves bisections (the adaptive test below is what
            # proves each step); capped, so that a long or infinite edge cannot hang
            pieces = float((b - a).abs_upper()) * pieces_per_unit
            n = max(1, math.ceil(pieces)) if pieces < 4096 else 4096
            edge = [a] + [_exact_mid(a + (b - a) * flint.arb(j) / n) for j in range(1, n)] + [b]
            values = [F(z) for z in edge]
            evaluations += len(edge)
            stack.extend((edge[j], values[j], edge[j + 1], values[j + 1]) for j in range(n))
        stack.reverse()
        total = flint.arb(0)
        used = 0
        while stack:
            a, fa, b, fb = stack.pop()
            used += 1
            if used > max_segments:
                raise ContourError(
                    f"argument principle did not converge within {max_segments} segments near "
                    f"r = {_where_text(a, b)}: a zero lies on or very near the contour",
                    _mid_mpc(a, b),
                    arb_to_mpf_upper((b - a).abs_upper()),
                )
            if floor is not None and (b - a).abs_upper() < floor * (1 + a.abs_lower()):
                raise ContourError(
                    f"the contour cannot be resolved near r = {_where_text(a, b)} (segments of "
                    f"width {float((b - a).abs_upper()):.3g} still meet a value 0 of the "
                    "enclosure): a zero lies on or within that width of the contour",
                    _mid_mpc(a, b),
                    arb_to_mpf_upper((b - a).abs_upper()),
                )
            enclosure = F(_hull(a, b))
            evaluations += 1
            if not enclosure.contains(0):
                step = (fb / fa).arg()
                if step.rad() < 0.05:
                    total += step
                    continue
            m = _exact_mid((a + b) / 2)
            fm = F(m)
            evaluations += 1
            stack.append((m, fm, b, fb))
            stack.append((a, fa, m, fm))
        if stats is not None:
            stats["segments"] = stats.get("segments", 0) + used
            stats["evaluations"] = stats.get("evaluations", 0) + evaluations
        return total


def _hull(a: flint.acb, b: flint.acb) -> flint.acb:
    """A box holding the segment from ``a`` to ``b`` (the midpoint's own rounding included)."""
    mid, half = (a + b) / 2, (b - a) / 2
    return flint.acb(
        flint.arb(mid.real.mid(), half.real.abs_upper() + mid.real.rad()),
        flint.arb(mid.imag.mid(), half.imag.abs_upper() + mid.imag.rad()),
    )


def _exact_mid(z: flint.acb) -> flint.acb:
    """The exact midpoint of a box (a point of the contour must be exact)."""
    return flint.acb(z.real.mid(), z.imag.mid())


def _mid_mpc(a: flint.acb, b: flint.acb) -> mpmath.mpc:
    return mpc_from_acb_mid_fast(_exact_mid((a + b) / 2))


def _where_text(a: flint.acb, b: flint.acb) -> str:
    return mpmath.nstr(_mid_mpc(a, b), 12)


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
    min_width=None,
    symmetric: bool = False,
    stats: dict | None = None,
) -> int:
    """Number of zeros of F inside the rectangle ``[x0, x1] x [y0, y1]`` (proved).

    ``F`` maps an ``acb`` ball to an enclosure. Raises :class:`ContourError` (a
    :class:`CertificationError` saying where on the boundary it stopped) if a zero is on
    (or too close to) the boundary. ``min_width``: the shortest segment tried (relative to
    ``1 + |z|``) before giving up there. ``symmetric``: F is real on the real axis
    (``F(conj z) = conj F(z)``) and ``y0 = -y1``; then only the upper half of the boundary
    is walked, from ``x1`` to ``x0`` through ``x1 + i y1`` and ``x0 + i y1``, and the change
    of argument doubled (the lower half is its mirror image, walked the other way: the
    same change). ``stats``: see :func:`argument_change`.
    """
    kw = {
        "prec": prec,
        "pieces_per_unit": pieces_per_unit,
        "max_segments": max_segments,
        "min_width": min_width,
        "stats": stats,
    }
    if symmetric:
        if mpmath.mpf(y0) != -mpmath.mpf(y1):
            raise ValueError("a symmetric count needs y0 = -y1")
        path = [(x1, 0), (x1, y1), (x0, y1), (x0, 0)]
        total = 2 * argument_change(F, path, **kw)
    else:
        path = [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)]
        total = argument_change(F, path, **kw)
    return winding(total, prec)


def winding(total: flint.arb, prec: int = 64) -> int:
    """The integer ``total / (2 pi)`` (a proved change of argument around a closed contour),
    or :class:`CertificationError` when the ball holds no unique integer."""
    with flint.ctx.workprec(prec):
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
