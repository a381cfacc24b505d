"""All L + 1 certified roots in Arb alone (python-flint), no mpmath on the way.

The same proofs as the general path of :mod:`symdelay.models.erlang.roots.solve`, with the
per-root conversions between mpmath and Arb removed: double-precision seeds (the
eigenvalues of the companion matrix of the well-scaled ``u^L (u + a) + c``, one per root),
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
runs the general path, which has its own repair of the seeds.

>>> from fractions import Fraction as Q
>>> rs = certified_roots(1, Q(1), Q(5), Q(1), 200)   # r^2 + 2 r + 6: -1 +- i sqrt(5)
>>> [str(z.value) for z in rs][:1], float(max(z.radius for z in rs)) < 1e-50
(['(-1.0 + 2.23606797749979j)'], True)
"""

from __future__ import annotations

import math
from fractions import Fraction

import flint

from symdelay.analysis.certify import (
    arb_upper_fast,
    check_disjoint,
    mpc_from_acb_mid_fast,
    zero_disc_radius,
)
from symdelay.analysis.rootset import CertifiedRoot
from symdelay.core.errors import CertificationError
from symdelay.core.lazy import module as _lazy_module

np = _lazy_module("numpy")  # imported at first use

__all__ = ["certified_roots", "MAX_L"]

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
    exactly 0 and complex ones in exact conjugate pairs."""
    A = np.zeros((L + 1, L + 1))
    A[0, 0], A[0, L] = -a, -c
    A[np.arange(1, L + 1), np.arange(L)] = 1.0
    with np.errstate(all="ignore"):
        u = np.linalg.eigvals(A)
    return [complex(z) for z in u if z.imag >= 0]


def certified_roots(
    L: int, mu: Fraction, lt: Fraction, D: Fraction, prec: int, seeds_u=None
) -> list:
    """The L + 1 roots of ``(r + mu)(r + gamma)^L + lt gamma^L`` (``gamma = L/D``,
    ``lt = lam theta``), each in a proved disc, the discs pairwise disjoint.

    ``prec``: Arb's working precision in bits; each root is refined until its disc's
    radius is below about ``2^-(prec - 40)`` relative. ``seeds_u``: L + 1 double-precision
    approximations of the roots in ``u = 1 + r/gamma``, each refined; without them the
    companion eigenvalues with ``Im u >= 0``, the others taken as their conjugates (for
    small L: the eigenvalues cost O(L^3)). Returns :class:`CertifiedRoot` values (mpmath
    ``mpc`` centres, exact; ``mpf`` radii, upper bounds; the sector ``k`` of ``u`` as the
    branch), unsorted. Raises :class:`CertificationError`.
    """
    g = Fraction(L) / D
    gf = float(g)
    mirror = seeds_u is None
    if mirror:
        a, c = float(mu) / gf - 1, float(lt) / gf
        if not (math.isfinite(a) and math.isfinite(c) and 0 < gf < math.inf):
            raise CertificationError("the double-precision seeds are out of range")
        seeds_u = _seeds(L, a, c)
    # a root is refined until its radius is below ``good`` (relative); a Newton step of
    # size s leaves an error of about s^2, so one step after |s| < want is the last
    good = 2.0 ** (-(prec - 40))
    want = math.sqrt(good) / 16
    n = L + 1  # the degree of P
    out = []
    with flint.ctx.workprec(prec):
        g_ = flint.arb(flint.fmpq(g.numerator, g.denominator))
        mu_ = flint.arb(flint.fmpq(mu.numerator, mu.denominator))
        lt_ = flint.arb(flint.fmpq(lt.numerator, lt.denominator))
        for s0 in seeds_u:
            r0 = complex(gf * (s0.real - 1), gf * s0.imag)
            z = flint.acb(r0.real, r0.imag)
            scale = 1 + abs(r0)
            last = False
            for _ in range(_MAX_NEWTON):
                t = z + g_
                e = lt_ * (g_ / t) ** L
                f = z + mu_ + e  # F(z)
                d = 1 - L * e / t  # F'(z)
                if last:
                    # P = F t^L: P/P' = F/(F' + L F/t); a zero within n |P/P'| of z
                    radius = zero_disc_radius(f, d + L * f / t, n)
                    if radius <= good * scale:
                        break
                step = f / d
                if not step.is_finite():
                    raise CertificationError("Newton step not finite")
                last = step.abs_upper() <= want * scale
                z = (z - step).mid()
            else:
                raise CertificationError("Newton did not converge")
            im = z.imag.mid()
            real = im == 0
            if not real and abs(im) <= radius:
                # the disc around Re z of radius radius + |Im z| holds the disc around z and
                # its mirror image, so the root z* and its conjugate; once that disc is proved
                # disjoint from the others (below) it holds one root: z* is real
                radius = (radius + abs(im)).upper()
                z = flint.acb(z.real.mid())
                real = True
            out.append((z, radius, real, s0))
        # still at ``prec``: Arb rounds even a conjugate to the working precision
        _check_disjoint(out, mirror)
        roots = []
        for z, radius, real, s0 in out:
            # the sector from the seed (as the general path reads it), on the real axis
            # from the root itself (a real seed has Im u = 0 exactly, a seed with noise not)
            u = complex(1 + float(z.real) / gf, 0.0) if real else s0
            rad = arb_upper_fast(radius)
            roots.append(CertifiedRoot(mpc_from_acb_mid_fast(z), rad, _sector(u, L)))
            if mirror and not real:
                w = mpc_from_acb_mid_fast(z.conjugate())
                roots.append(CertifiedRoot(w, rad, _sector(u.conjugate(), L)))
    if len(roots) != L + 1:
        raise CertificationError(f"{len(roots)} roots from the seeds, not {L + 1}")
    return roots


def _check_disjoint(out, mirror: bool) -> None:
    """The discs ``(z, radius)`` (and, with ``mirror``, the conjugates of the non-real
    ones) pairwise disjoint, or :class:`CertificationError`: candidate pairs by their
    double-precision distance with the margin of
    :func:`~symdelay.analysis.certify.check_disjoint` (which decides beyond ``_DIRECT``
    discs, with its k-d tree), each candidate decided in Arb."""
    discs = [(z, rad) for z, rad, _, _ in out]
    if mirror:
        discs += [(z.conjugate(), rad) for z, rad, real, _ in out if not real]
    n = len(discs)
    if n > _DIRECT:
        check_disjoint(
            [mpc_from_acb_mid_fast(z) for z, _ in discs], [arb_upper_fast(r) for _, r in discs]
        )
        return
    pts = [complex(z) for z, _ in discs]
    rmax = max(float(rad) for _, rad in discs)
    scale = 1.0 + max(max(abs(p.real), abs(p.imag)) for p in pts)
    reach = 2 * rmax * (1 + 1e-9) + 1e-12 * scale
    for i in range(n):
        pi = pts[i]
        for j in range(i + 1, n):
            if abs(pi - pts[j]) <= reach:
                (zi, ri), (zj, rj) = discs[i], discs[j]
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
