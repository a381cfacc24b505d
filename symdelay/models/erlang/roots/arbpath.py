"""All L + 1 certified roots in Arb alone (python-flint), no mpmath on the way.

The same proofs as the general path of :mod:`symdelay.models.erlang.roots.solve`, with the
per-root conversions between mpmath and Arb removed: double-precision seeds (the
eigenvalues of the companion matrix of the well-scaled ``u^L (u + a) + c``, one per root;
the quadratic formula for L = 1),
Newton on ``F(r) = r + mu + lam theta (gamma/(r + gamma))^L`` in ``acb`` at the working
precision, and the inclusion test of :func:`~symdelay.analysis.certify.certify_root`
(:func:`~symdelay.analysis.certify.inclusion_radius`) on the values of ``F`` and ``F'`` of
the last Newton step plus one enclosure of ``F'`` on a box. ``F`` is evaluated on the
factored form (``r + mu`` formed from ``r`` itself, ``(gamma/(r + gamma))^L`` by powering),
so nothing cancels whatever the scale of ``mu`` against ``gamma``.

The coefficients are real, so only the roots with ``Im r >= 0`` are refined: the conjugate
of a disc that holds exactly one zero holds exactly one zero (the conjugate one). The L + 1
discs are then proved pairwise disjoint (:func:`~symdelay.analysis.certify.check_disjoint`):
L + 1 disjoint discs, each holding a zero of a polynomial of degree L + 1, hold all of them,
one each. Any failure (a seed that does not converge, two seeds on one root, a disc that
cannot be proved) raises :class:`~symdelay.core.errors.CertificationError`; the caller then
runs the general path, which has its own repair of the seeds. With ``ordered=True``
(:class:`Ordered`) the roots come sorted, with the tests the caller's unstable count needs
(does a disc meet the imaginary axis, how many centres lie right of it) decided exactly on
the Arb balls, so that the common case never compares mpmath numbers.

>>> from fractions import Fraction as Q
>>> rs = certified_roots(1, Q(1), Q(5), Q(1), 200)   # r^2 + 2 r + 6: -1 +- i sqrt(5)
>>> [str(z.value) for z in rs][:1], float(max(z.radius for z in rs)) < 1e-50
(['(-1.0 + 2.23606797749979j)'], True)
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import NamedTuple

import flint
import mpmath

from symdelay.analysis.certify import check_disjoint, mpf_value, zero_disc_radius
from symdelay.analysis.rootset import CertifiedRoot
from symdelay.core.errors import CertificationError
from symdelay.core.lazy import module as _lazy_module

np = _lazy_module("numpy")  # imported at first use
_make_mpc, _make_mpf = mpmath.mp.make_mpc, mpmath.mp.make_mpf

__all__ = ["certified_roots", "Ordered", "MAX_L", "DIFFERENCE"]

#: The mode of the founding model's factor whose roots these are (their tag in the record).
DIFFERENCE = "difference"

#: Up to this L the seeds are the companion eigenvalues (O(L^3)) with the conjugates
#: mirrored; above it the caller passes the branch-map seeds of
#: :func:`~symdelay.models.erlang.roots.solve._all_seeds` and every root is refined.
MAX_L = 24

_MAX_NEWTON = 40
#: up to this many discs every pair is screened in doubles (beyond: a k-d tree)
_DIRECT = 64


def _seeds(L: int, a: float, c: float):
    """The roots of ``u^(L+1) + a u^L + c`` (companion eigenvalues, doubles), those with
    ``Im u >= 0``. LAPACK's real eigensolver returns real eigenvalues with imaginary part
    exactly 0 and complex ones in exact conjugate pairs (a failure gives NaNs, which no
    seed keeps: the count of roots then fails). L = 1: the quadratic formula (its stable
    form) gives the same structure without an eigensolver."""
    if L == 1:
        disc = a * a - 4 * c
        if math.isfinite(disc):
            if disc < 0:
                return [complex(-a / 2, math.sqrt(-disc) / 2)]
            q = -(a + math.copysign(math.sqrt(disc), a)) / 2  # no cancellation (c != 0)
            if q != 0:
                return [complex(q, 0.0), complex(c / q, 0.0)]
    A = _companion(L).copy()
    A[0, 0], A[0, L] = -a, -c
    with np.errstate(all="ignore"):
        u = _eigvals()(A)
    return [z for z in u.tolist() if z.imag >= 0]


@functools.lru_cache(maxsize=32)
def _companion(L: int):
    """The part of the companion matrix that depends on L alone (ones below the diagonal)."""
    A = np.zeros((L + 1, L + 1))
    A[np.arange(1, L + 1), np.arange(L)] = 1.0
    return A


@functools.lru_cache(maxsize=1)
def _eigvals():
    """The eigenvalues (complex) of a real matrix: numpy's LAPACK ufunc itself, the call
    ``numpy.linalg.eigvals`` makes after its checks and conversions, which at these sizes
    cost more than the eigenvalues (a finite real matrix here); or that function."""
    ufunc = getattr(getattr(np.linalg, "_umath_linalg", None), "eigvals", None)
    if ufunc is None:  # pragma: no cover - numpy without the private module
        return lambda A: np.asarray(np.linalg.eigvals(A), dtype=complex)
    return lambda A: ufunc(A, signature="d->D")


class Ordered(NamedTuple):
    """What :func:`certified_roots` returns with ``ordered=True``: the roots rightmost first
    (descending real, then imaginary part, as the caller sorts them), whether some disc
    meets the imaginary axis (``|Re c| <= radius``) and how many centres have ``Re c > 0``
    (both decided exactly on the exact centres and radii)."""

    roots: list
    meets_axis: bool
    rhp: int
    by_doubles: bool = False  # sorted by the doubles of the parts (all in the normal range)


def certified_roots(
    L: int,
    mu: Fraction,
    lt: Fraction,
    D: Fraction,
    prec: int,
    seeds_u=None,
    *,
    ordered: bool = False,
):
    """The L + 1 roots of ``(r + mu)(r + gamma)^L + lt gamma^L`` (``gamma = L/D``,
    ``lt = lam theta``; exact rationals, ``Fraction`` or ``flint.fmpq``), each in a
    proved disc, the discs pairwise disjoint.

    ``prec``: Arb's working precision in bits; each root is refined until its disc's
    radius is below about ``2^-(prec - 40)`` relative. ``seeds_u``: L + 1 double-precision
    approximations of the roots in ``u = 1 + r/gamma``, each refined; without them the
    companion eigenvalues with ``Im u >= 0``, the others taken as their conjugates (for
    small L: the eigenvalues cost O(L^3)). Returns :class:`CertifiedRoot` values (mpmath
    ``mpc`` centres, exact; ``mpf`` radii, upper bounds; the sector ``k`` of ``u`` as the
    branch), unsorted; with ``ordered=True`` an :class:`Ordered` (the same roots sorted,
    with what the caller's count needs, read off the Arb balls before any conversion).
    Raises :class:`CertificationError`.
    """
    g = flint.fmpq(L * D.denominator, D.numerator)  # gamma = L/D (D > 0)
    try:
        gf = float(g)
        mirror = seeds_u is None
        if mirror:
            a, c = float(mu) / gf - 1, float(lt) / gf
    except (OverflowError, ZeroDivisionError):  # a rate beyond the double range
        raise CertificationError("the double-precision seeds are out of range") from None
    if mirror:
        if not (math.isfinite(a) and math.isfinite(c) and 0 < gf < math.inf):
            raise CertificationError("the double-precision seeds are out of range")
        seeds_u = _seeds(L, a, c)
    # a root is refined until its radius is below ``good`` (relative); a Newton step of
    # size s leaves an error of about s^2, so one step after |s| < want is the last
    good = 2.0 ** (-(prec - 40))
    want = math.sqrt(good) / 16
    n = L + 1  # the degree of P
    discs = []  # (-Re, -Im) in doubles, the root, and its exact centre and radius in Arb
    in_range = True  # every double the 53-bit rounding of its exact value (sorting below)
    meets_axis, rhp, rmax = False, 0, 0.0
    with flint.ctx.workprec(prec):
        # as (real) acb balls: the same values, without python-flint's slower mixed
        # arb-acb operations
        g_ = flint.acb(flint.arb(g))
        mu_ = flint.acb(flint.arb(_fmpq(mu)))
        lt_ = flint.acb(flint.arb(_fmpq(lt)))
        L_ = flint.acb(L)
        for s0 in seeds_u:
            r0 = complex(gf * (s0.real - 1), gf * s0.imag)
            z = flint.acb(r0.real, r0.imag)
            scale = 1 + abs(r0)
            good_here, want_here = good * scale, want * scale
            last = False
            for _ in range(_MAX_NEWTON):
                t = z + g_
                e = lt_ * (g_ / t) ** L
                f = z + mu_ + e  # F(z)
                d = _ONE - L_ * e / t  # F'(z)
                if last:
                    # P = F t^L: P/P' = F/(F' + L F/t); a zero within n |P/P'| of z
                    radius = zero_disc_radius(f, d + L_ * f / t, n)
                    if radius <= good_here:
                        break
                step = f / d
                if not step.is_finite():
                    raise CertificationError("Newton step not finite")
                last = step.abs_upper() <= want_here
                z = (z - step).mid()
            else:
                raise CertificationError("Newton did not converge")
            re, im = z.real, z.imag  # exact (midpoints)
            real = im == 0
            if not real and abs(im) <= radius:
                # the disc around Re z of radius radius + |Im z| holds the disc around z and
                # its mirror image, so the root z* and its conjugate; once that disc is proved
                # disjoint from the others (below) it holds one root: z* is real
                radius = (radius + abs(im)).upper()
                z = flint.acb(re)
                im = z.imag
                real = True
            ub = radius.upper()  # the radius the root carries (arb_upper_fast(radius))
            x, y = float(re), float(im)
            vre, vim, vrad = mpf_value(re), mpf_value(im), mpf_value(ub)
            # the doubles round to 53 bits when the values are 0 or in the normal range
            in_range = (
                in_range
                and (not vre[1] or -1021 <= vre[2] + vre[3] <= 1023)
                and (not vim[1] or -1021 <= vim[2] + vim[3] <= 1023)
            )
            meets_axis = meets_axis or abs(re) <= ub  # exact: both are Arb points
            if float(ub) > rmax:
                rmax = float(ub)
            rad = _make_mpf(vrad)
            # the sector from the seed (as the general path reads it), on the real axis
            # from the root itself (a real seed has Im u = 0 exactly, a seed with noise not)
            u = complex(1 + x / gf, 0.0) if real else s0
            root = CertifiedRoot(
                _make_mpc((vre, vim)), rad, _sector(u, L), is_real=real, mode=DIFFERENCE
            )
            discs.append((-x, -y, root, z, ub))
            pair = mirror and not real
            if pair:  # the conjugate, exact: the same numbers, Im negated
                # (still at ``prec``: Arb rounds even a conjugate to the working precision)
                w = _make_mpc((vre, (1 - vim[0], *vim[1:])))
                k = _sector(u.conjugate(), L)
                discs.append((-x, y, CertifiedRoot(w, rad, k, mode=DIFFERENCE), z.conjugate(), ub))
            if re > 0:
                rhp += 2 if pair else 1
        _check_disjoint(discs, rmax)
        if len(discs) != L + 1:
            raise CertificationError(f"{len(discs)} roots from the seeds, not {L + 1}")
        if not ordered:
            return [d[2] for d in discs]
        if in_range:
            # descending Re, then Im, rounded to 53 bits (solve's _sort_key at mpmath's
            # default precision): centres whose real parts differ only beyond that (a
            # conjugate pair refined root by root, above MAX_L) are ordered by their
            # imaginary parts, ties keeping the order of the seeds
            discs.sort(key=_first_two)
        else:  # a part outside the doubles' normal range: the same key in mpmath
            with mpmath.workprec(53):
                discs.sort(key=lambda d: (-d[2].value.real, -d[2].value.imag))
    return Ordered([d[2] for d in discs], meets_axis, rhp, in_range)


_ONE = flint.acb(1)  # exact at every precision


def _fmpq(q) -> flint.fmpq:
    """An exact rational (``Fraction`` or ``fmpq``) as an ``fmpq``."""
    return q if type(q) is flint.fmpq else flint.fmpq(q.numerator, q.denominator)


def _first_two(disc):
    return disc[0], disc[1]


def _check_disjoint(discs, rmax: float) -> None:
    """The discs (entries ``(-x, -y, root, centre, radius)`` of :func:`certified_roots`:
    the centre in doubles, the root, the exact centre and radius in Arb; ``rmax`` the
    largest radius as a double) pairwise disjoint, or :class:`CertificationError`:
    candidate pairs by their double-precision distance with the margin of
    :func:`~symdelay.analysis.certify.check_disjoint` (which decides beyond ``_DIRECT``
    discs, with its k-d tree), each candidate decided in Arb."""
    n = len(discs)
    if n > _DIRECT:
        check_disjoint([d[2].value for d in discs], [d[2].radius for d in discs])
        return
    pts = [complex(-d[0], -d[1]) for d in discs]
    scale = 1.0 + max(max(abs(d[0]), abs(d[1])) for d in discs)
    reach = 2 * rmax * (1 + 1e-9) + 1e-12 * scale
    for i in range(n):
        pi = pts[i]
        for j in range(i + 1, n):
            if abs(pi - pts[j]) <= reach:
                zi, ri, zj, rj = discs[i][3], discs[i][4], discs[j][3], discs[j][4]
                if not (zi - zj).abs_lower() > ri + rj:
                    raise CertificationError(
                        f"inclusion discs of roots {i} and {j} overlap near "
                        f"{zi.mid().str(15, radius=False)}: two seeds converged to one root"
                    )


def _sector(u: complex, L: int) -> int:
    """The sector k of ``u``: ``(2 pi k - pi)/L < arg u <= (2 pi k + pi)/L`` (half-open, as
    the module :mod:`~symdelay.models.erlang.roots.solve` defines them; a root on the
    negative real axis, ``arg u = pi``, is in the sector that closes there)."""
    return math.ceil(L * math.atan2(u.imag, u.real) / (2 * math.pi) - 0.5)
