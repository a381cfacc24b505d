"""kappa* for the weight on every phase in flight, without expanding a polynomial.

The exact path (:mod:`.curve`) expands ``I_A``, ``C``, ``I_W`` and ``I_A' C - I_A C'``
(degree ``3L/2``, coefficients of ``L log L`` bits) and isolates all their complex roots.
Here the crossing curve is evaluated from the closed factors, in ``u = t/gamma^2 = (omega /
gamma)^2``: with ``z = 1 + i omega/gamma``, an element ``x + i (omega/gamma) y`` of
``R[u][i omega/gamma]`` is the pair ``(x, y)`` and ``(x1, y1)(x2, y2) = (x1 x2 - u y1 y2,
x1 y2 + y1 x2)`` — no square root of ``u`` and no division, so a ball in ``u`` that touches
``0`` is as good as any. ``z^L`` and ``G_L = sum_{j<L} z^j`` (``S/gamma^(L-1)`` for the
weight on every phase) come by binary powering (``O(log L)`` pair products), and with ``A
/gamma^L = (mu, gamma) z^L = (x_A, y_A)``, ``W/gamma^(L-1) = (mu, gamma) G_L = (x_W, y_W)``::

    kappa(u) = gamma y_A / Cq,     a(u) = -Cq / y_W,     Cq = x_A y_W - y_A x_W,

the exact path's ``gamma^L I_A / C`` and ``-C/(gamma^L I_W)`` (``C = gamma^(2L-2) Cq``).
Every quantity is an Arb power series in ``u`` (value, first and second derivative), so one
evaluation on a ball ``[u0, u1]`` encloses ``kappa``, ``kappa'``, ``kappa''`` over it.

The proof that ``kappa*`` is the supremum of ``kappa`` over the admissible set ``{u > 0:
a(u) > 0}`` and that every weight in ``[0, kappa*]`` is attained (so that the unstable
weights are exactly ``[0, kappa*]``):

1. *The tail.* With ``w = z^-L`` (``|w| = (1 + u)^(-L/2) < 1``), dividing ``P(i omega) = 0``
   by ``A`` gives ``kappa = omega Im(w/(mu + i omega)) / (1 - Re w)``, hence
   ``|kappa| <= |w|/(1 - |w|)`` and ``C != 0`` for every ``u > 0`` (no pole of ``kappa``).
   Past ``u_T`` with ``|w| / (1 - |w|) < kappa*`` nothing reaches ``kappa*``.
2. *The cover.* ``[0, u_T]`` is cut into cells (a grid in ``phi = atan(omega/gamma)``,
   bisected where needed); each cell is certified (Arb enclosure over the whole cell) to be
   inadmissible (``a < 0``), or below (``kappa < kappa*_lo``), or concave (``kappa'' < 0``)
   in the run of concave cells around the maximiser ``u*``, where ``kappa <= kappa(u*)``.
3. *The maximiser.* ``u*`` comes from a double scan, is refined by Newton on ``kappa' = 0``
   in Arb (precision raised incrementally from the previous point), and certified by the
   sign change of ``kappa'`` across a ball of radius ``2^-(prec-20) u*``.
4. *Coverage.* Every cell of ``[0, u*]`` is certified admissible (``a > 0``) and
   ``kappa(0) < 0`` exactly, so the connected image contains ``[kappa(0), kappa*]``.

Any step that cannot be certified raises :class:`ShapeError` (the caller uses the exact path).
"""

from __future__ import annotations

import itertools
import math

import flint
import numpy as np

from symdelay.core.errors import CertificationError

__all__ = ["ShapeError", "kappa_star_all"]

#: Bisection depth of one initial cell before the certification gives up.
DEPTH = 14


class ShapeError(CertificationError):
    """The crossing curve is not of the shape this proof covers (use the exact path)."""


def _pmul(p, q, u):
    return (p[0] * q[0] - u * (p[1] * q[1]), p[0] * q[1] + p[1] * q[0])


def _powers(L: int, u, one):
    """``(z^L, G_L)`` as pairs over ``u`` (``one``: the ring's 1)."""
    # G_{2k} = G_k (1 + z^k), G_{k+1} = G_k + z^k, z^(k+1) = z^k z with z = (1, 1)
    px, py = one, one * 0
    gx, gy = py, py
    for bit in bin(L)[2:]:
        qx = px + one
        gx, gy = gx * qx - u * (gy * py), gx * py + gy * qx
        px, py = px * px - u * (py * py), 2 * (px * py)
        if bit == "1":
            gx, gy = gx + px, gy + py
            px, py = px - u * py, px + py
    return (px, py), (gx, gy)


class _Curve:
    """kappa, a and their u-derivatives for one (L, gamma, mu) (arb / arb_series)."""

    def __init__(self, L: int, g: flint.fmpq, mu: flint.fmpq):
        self.L, self.g, self.mu = L, g, mu

    def parts(self, u, one):
        P, G = _powers(self.L, u, one)
        m = (one * flint.arb(self.mu), one * flint.arb(self.g))
        xA, yA = _pmul(m, P, u)
        xW, yW = _pmul(m, G, u)
        Cq = xA * yW - yA * xW
        return yA, yW, Cq

    def raw(self, ball, n=3):
        """``(y_A, y_W, Cq)`` as arb_series in ``u`` around ``ball``."""
        u = flint.arb_series([ball, 1], prec=n)
        return self.parts(u, flint.arb_series([1], prec=n))

    def series(self, ball, n=3):
        """``(kappa, -Cq y_W)``: kappa as an arb_series in ``u`` around ``ball`` (``n``
        coefficients; None where the enclosure of ``Cq`` meets 0) and a ball with the sign
        of ``a`` (``a = -Cq/y_W``)."""
        u = flint.arb_series([ball, 1], prec=n)
        one = flint.arb_series([1], prec=n)
        yA, yW, Cq = self.parts(u, one)
        sign_a = -(Cq * yW)
        if Cq.coeffs()[0].contains(0):
            return None, sign_a
        return (yA * flint.arb(self.g)) / Cq, sign_a

    def point(self, u):
        yA, yW, Cq = self.parts(u, flint.arb(1))
        g = flint.arb(self.g)
        return yA * g / Cq, -Cq / yW


def _scan(L, g, mu, phi_max, n):
    """Double-precision kappa, admissibility on a phi grid (the closed form in w)."""
    g, mu = np.float64(g), np.float64(mu)  # overflow gives inf (masked), not OverflowError
    phi = np.linspace(0.0, phi_max, n + 1)[1:]
    om = g * np.tan(phi)
    rho = np.exp(L * np.log(np.cos(phi)))
    psi = L * phi
    kap = (
        -om
        * rho
        * (mu * np.sin(psi) + om * np.cos(psi))
        / ((mu**2 + om**2) * (1 - rho * np.cos(psi)))
    )
    adm = mu * np.cos(psi) - mu * rho - om * np.sin(psi) < 0
    return phi, kap, adm


class _Cell:
    """Enclosures over one cell ``[lo, hi]`` of ``-Cq y_W`` (the sign of ``a``) and of
    ``h = sgn(Cq) (gamma y_A - k Cq)`` (``kappa < k`` iff ``h < 0``; ``Cq`` has one sign on
    ``u >= 0``): the series on the cell's ball, refined where needed by the Taylor form
    ``f(m) + f'(m) r + f''(cell)/2 r^2`` at the midpoint ``m``."""

    def __init__(self, cv, lo, hi, k, sgn):
        self.cv, self.lo, self.hi = cv, lo, hi
        yA, yW, Cq = cv.raw(_ball(lo, hi))
        g = flint.arb(cv.g)
        self.sa = -(Cq * yW)
        self.h = (yA * g - Cq * k) * sgn
        self.k, self.sgn = k, sgn
        self._mid = None

    def mid(self):
        if self._mid is None:
            m = flint.arb(0.5 * (self.lo + self.hi))
            yA, yW, Cq = self.cv.raw(m)
            g = flint.arb(self.cv.g)
            self._mid = (-(Cq * yW), (yA * g - Cq * self.k) * self.sgn, _ball(self.lo, self.hi) - m)
        return self._mid

    @staticmethod
    def _taylor(at_mid, on_cell, r):
        p, c = at_mid.coeffs(), on_cell.coeffs()
        return p[0] + p[1] * r + c[2] * r * r

    def _enclose(self, i):
        f = (self.sa, self.h)[i]
        v = f.coeffs()[0]
        if v.contains(0):
            m = self.mid()
            v = v.intersection(self._taylor(m[i], f, m[2]))
        return v

    def sign_a(self):
        return self._enclose(0)

    def below(self) -> bool:
        """kappa < k on the cell."""
        return bool(self._enclose(1) < 0)


def _ball(lo: float, hi: float) -> flint.arb:
    return flint.arb(lo).union(flint.arb(hi))


def kappa_star_all(L: int, g: flint.fmpq, mu: flint.fmpq, dps: int, prec: int):
    """``(kappa*, u*, a(u*), prec)`` as arb balls, certified as in the module docstring.

    ``g = L/D`` and ``mu`` exact; ``prec`` the starting precision in bits."""
    if L < 2:
        raise ShapeError("L = 1 has no interior maximum")
    try:
        gf, muf = float(g), float(mu)
    except OverflowError:  # rates beyond doubles: the scan cannot bracket, the exact path can
        raise ShapeError("a rate does not fit a double") from None
    if not (math.isfinite(gf) and math.isfinite(muf) and gf > 0 and muf > 0):
        raise ShapeError("a rate does not fit a double")
    cv = _Curve(L, g, mu)
    # 1. a double scan for the maximiser, over phi where |w| >= 1e-4
    phi_max = min(math.acos(1e-4 ** (1.0 / L)), 1.5)
    n = max(4000, int(16 * L * phi_max))
    with np.errstate(all="ignore"):  # a bracket finder only: overflow becomes inf/nan, masked
        phi, kap, adm = _scan(L, gf, muf, phi_max, n)
    masked = np.where(adm & np.isfinite(kap), kap, -np.inf)
    i = int(np.argmax(masked))
    k_d = float(masked[i])
    if not k_d > 0 or i == 0 or i == n - 1:
        raise ShapeError("no interior admissible maximum of kappa")
    u0 = math.tan(phi[i]) ** 2
    # 3. Newton on kappa'(u) = 0 in Arb, precision raised from the last point
    with flint.ctx.workprec(prec):
        u = flint.arb(u0)
        while True:
            for _ in range(200):
                kseries, _a = cv.series(u)
                c = kseries.coeffs()
                d1, d2 = c[1], 2 * c[2]
                step = d1 / d2
                u = (u - step).mid()
                if abs(step.mid()) <= abs(u) * flint.arb(2) ** (-flint.ctx.prec + 8):
                    break
            else:
                raise ShapeError("Newton on kappa' did not converge")
            eps = abs(u) * flint.arb(2) ** (-flint.ctx.prec + 20)
            lo, hi = (u - eps).mid(), (u + eps).mid()
            dlo = cv.series(lo)[0].coeffs()[1]
            dhi = cv.series(hi)[0].coeffs()[1]
            if not (dlo > 0 and dhi < 0):
                raise ShapeError("kappa' does not change sign at the maximiser")
            ustar = lo.union(hi)
            kstar, astar = cv.point(ustar)
            if not astar > 0:
                raise ShapeError("the maximiser is not admissible")
            ok = all(
                v.rad() <= abs(v.mid()) * flint.arb(10) ** (-dps - 2) for v in (kstar, astar, ustar)
            )
            if ok:
                break
            if flint.ctx.prec > 64 * prec:
                raise CertificationError("could not certify kappa* to the digits asked")
            flint.ctx.prec *= 2
        prec = flint.ctx.prec
    k_lo = kstar.lower()
    kf = float(k_lo)
    # 1. the tail: |kappa| <= rho/(1 - rho) < kappa*_lo for u >= u_T
    rho_T = kf / 3
    phi_T = math.acos(rho_T ** (1.0 / L))
    u_T = math.tan(phi_T) ** 2
    with flint.ctx.workprec(80):
        rho = (1 + flint.arb(u_T)) ** (-flint.arb(L) / 2)
        if not rho / (1 - rho) < k_lo:
            raise ShapeError("tail bound does not separate")
    # 2. + 4. the cover of [0, u_T]
    us = float(ustar.mid())
    h = 1.0 / L
    m = max(8, math.ceil(phi_T / h))
    edges = [math.tan(phi_T * j / m) ** 2 for j in range(m + 1)]
    edges[0] = 0.0
    edges[-1] = u_T
    # the concave window around u*: kappa'' < 0 on [u* - d, u* + d], so kappa <= kappa(u*)
    with flint.ctx.workprec(96):
        d = 0.25 * us
        for _ in range(60):
            ks, _s = cv.series(_ball(us - d, us + d))
            if ks is not None and ks.coeffs()[2] < 0:
                break
            d *= 0.5
        else:
            raise ShapeError("kappa is not certified concave near its maximiser")
    w_lo, w_hi = us - d, us + d
    if not (w_lo < float(ustar.lower()) and float(ustar.upper()) < w_hi):
        raise ShapeError("the maximiser ball leaves the concave window")
    with flint.ctx.workprec(96):
        cq0 = cv.raw(flint.arb(0))[2].coeffs()[0]
        if cq0.contains(0):
            raise ShapeError("C(0) = 0")
        sgn = flint.arb(1 if cq0 > 0 else -1)
        stack = [(edges[j], edges[j + 1], 0) for j in range(m)][::-1]
        while stack:
            lo, hi, depth = stack.pop()
            if w_lo <= lo and hi <= w_hi:
                continue  # inside the concave window
            if lo < w_lo < hi or lo < w_hi < hi:  # clip to the window
                cuts = sorted({lo, hi, *(x for x in (w_lo, w_hi) if lo < x < hi)})
                stack += [(a, b, depth) for a, b in itertools.pairwise(cuts)][::-1]
                continue
            cell = _Cell(cv, lo, hi, k_lo, sgn)
            if lo < us and not cell.sign_a() > 0:  # 4: [0, u*] must be admissible
                pass
            elif cell.sign_a() < 0 or cell.below():
                continue
            if depth >= DEPTH:
                raise ShapeError(f"cell [{lo:g}, {hi:g}] not certified")
            mid = 0.5 * (lo + hi)
            stack += [(mid, hi, depth + 1), (lo, mid, depth + 1)]
    # 4. kappa(0) < 0 exactly
    with flint.ctx.workprec(64):
        k0, _a0 = cv.point(flint.arb(0))
        if not k0 < 0:
            raise ShapeError("kappa(0) >= 0")
    return kstar, ustar, astar, prec
