"""The first crossing of ``A(r) + p B(r)`` from the factors of ``A`` and ``B``, in O(factors).

:func:`symdelay.analysis.crossing.critical_linear` works on the expanded coefficients: one
polynomial ``h(w^2)`` of degree about ``deg F / 2`` whose positive roots it isolates — O(L^2)
work and more for an Erlang(L) delay, where ``A = (r + mu)(r + gamma)^L`` has L + 2
coefficients of L log L bits. When ``A`` and ``B`` are known as products of low-degree factors
(the model's factorisation of ``F(r; 0)`` and of the coefficient of ``p``, done once), the same
crossings follow from the roots of the factors alone:

with ``A(r) = a prod (r - z_j)^(m_j)`` and ``B(r) = b prod (r - z_k)^(n_k)`` (no root on the
imaginary axis), ``F(i w) = 0`` for ``p > 0`` iff ``A(i w)/B(i w) = -p`` is a negative number,
i.e. the phase

    phi(w) = arg(a/b) + sum_j m_j alpha_j(w) - sum_k n_k alpha_k(w),
    alpha(w) = arg(i w - z) = atan((w - y)/(-x))   (x = Re z < 0: increasing in w)
                            = pi - atan((w - y)/x)  (x > 0: decreasing),

a continuous choice of ``arg A(i w)/B(i w)``, equals an odd multiple of ``pi``; then
``p = rho(w) = |a/b| prod |i w - z_j|^(m_j) / prod |i w - z_k|^(n_k)``. Each term of ``phi`` is
monotone, so on an interval ``[w_1, w_2]`` (``w_2`` may be infinite) the sum of the increasing
terms at ``w_1`` and of the decreasing ones at ``w_2`` bounds ``phi`` from below (and the other
way round from above): intervals whose range holds no odd multiple of ``pi`` are discarded,
and so are those where a lower bound of ``rho`` (each ``|i w - z|`` is monotone on either side
of ``Im z``) exceeds ``upto`` times the first crossing found. Where ``phi`` is strictly monotone
(all terms move one way, or ``phi'`` excludes 0 in Arb) every odd multiple strictly between
its end values is one simple root: refined by Newton, proved by an interval Newton
(Krawczyk) step in Arb. The search is complete up to the bound: every crossing with
``p <= upto p_1`` is listed.

Counts on both sides, without solving ``F``: for ``0 < p < p_1`` no root is on the axis and the
degree does not drop (``deg B < deg A``), so the unstable count is that of ``A``: the roots
``z_j`` with ``Re z_j > 0``, with their multiplicities. At a crossing ``i w`` the root moves
with ``dr/dp = -1/G'(i w)``, ``G = A/B``; with ``G(i w) = rho e^(i phi)`` this is
``Re dr/dp = rho phi' / (rho^2 phi'^2 + rho'^2)``: the sign of ``phi'(w)``, which the
isolation proved (and ``phi' != 0`` makes the root simple). A pair of roots crosses, so the
count changes by ``2 sgn phi'`` (``w = 0``: by ``sgn S``, ``S = G'(0)/G(0) p`` real, one root).

Returns None where this does not apply (a factor with a root on or near the axis, ``deg B >=
deg A``, tied candidates, a search that does not settle): the caller then uses the expanded
path, which decides every case.

>>> import flint, sympy as sp
>>> r, p = sp.symbols("r p")
>>> A = (flint.fmpq(1), [(flint.fmpq_poly([1, 1]), 3)])        # (r + 1)^3
>>> B = (flint.fmpq(1), [])                                     # 1: p_c = 8, w = sqrt 3
>>> c = critical_factored(A, B, r, p, dps=20, upto=2)
>>> c.to_json()["p_c"], c.to_json()["omega"], (c.rhp_below, c.rhp_above)
('8.0000000000000000000', '1.7320508075688772935', (0, 2))
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import flint
import mpmath

from symdelay.analysis.crossing import CriticalParameter, _mpf, _rational, _tight
from symdelay.core.params import as_dps
from symdelay.core.precision import GUARD, work_bits

__all__ = ["critical_factored", "METHOD"]

METHOD = "linear in the parameter, factored: arg A(i w) - arg B(i w) = (2n+1) pi (Arb)"

#: intervals the search may examine before it gives up (the expanded path then decides)
MAX_INTERVALS = 400


@dataclass(frozen=True)
class _Term:
    """``m * alpha(w)`` for one root ``z = x + i y`` (``m`` < 0 for a root of ``B``)."""

    x: flint.arb
    y: flint.arb
    m: int
    xf: float
    yf: float
    rising: bool  # the term increases with w

    def alpha(self, w):
        if self.x < 0:
            return ((w - self.y) / (-self.x)).atan()
        return flint.arb.pi() - ((w - self.y) / self.x).atan()

    def q(self, w):  # |i w - z|^2
        d = w - self.y
        return self.x * self.x + d * d


def _roots(poly: flint.fmpq_poly, prec: int):
    """The roots of ``poly`` (degree >= 1) as ``(x, y)`` balls, or None (a root on or too near
    the imaginary axis, a multiple root, or no isolation)."""
    c = poly.coeffs()
    if len(c) == 2:  # c0 + c1 r: the root -c0/c1, exact
        z = -c[0] / c[1]
        return None if z == 0 else [(flint.arb(z), flint.arb(0))]
    try:
        got = poly.complex_roots()
    except (ValueError, ArithmeticError):
        return None
    out = []
    for z, mult in got:
        if mult != 1 or z.real.contains(0):
            return None
        out.append((z.real, flint.arb(0) if z.imag.is_exact() and z.imag == 0 else z.imag))
    return out


class _Phase:
    """``phi``, ``phi'`` and bounds of ``rho`` from the roots of the factors."""

    def __init__(self, terms, phi0_over_pi: int, lead: flint.arb, prec: int):
        self.terms = terms
        self.pi = flint.arb.pi()
        self.phi0 = phi0_over_pi * self.pi
        self.lead = lead  # |a/b|
        self.prec = prec
        twice = 2 * phi0_over_pi + sum(t.m for t in terms)  # phi(inf) = (that) pi/2
        self.inf_half = twice
        self.monotone = len({t.rising for t in terms}) == 1
        self.direction = (1 if terms[0].rising else -1) if self.monotone else 0
        self.radius = max((abs(t.xf) + abs(t.yf) for t in terms), default=0.0)

    def phi(self, w):
        if w is None:  # w = inf
            return self.pi * self.inf_half / 2
        s = self.phi0
        for t in self.terms:
            s += t.m * t.alpha(w)
        return s

    def bounds(self, w1, w2):
        """A lower and an upper bound of ``phi`` on ``[w1, w2]`` (``w2`` None: inf)."""
        lo = hi = self.phi0
        half = self.pi / 2
        for t in self.terms:
            a1 = t.alpha(w1)
            a2 = half if w2 is None else t.alpha(w2)
            # alpha rises with w where Re z < 0; m * alpha, by the sign of m, rises with w
            # where t.rising: its least value at w1 then, else at w2
            first, last = t.m * a1, t.m * a2
            lo += first if t.rising else last
            hi += last if t.rising else first
        return lo, hi

    def dphi(self, w):
        s = flint.arb(0)
        for t in self.terms:
            s += t.m * (-t.x) / t.q(w)
        return s

    def tail_sign(self, w1: float) -> int:
        """The sign of ``phi'`` on all of ``[w1, inf)`` (0: undecided): ``w^2 phi'(w)`` in
        ``u = 1/w``, evaluated on the ball ``u in [0, 1/w1]``."""
        if not w1 > 0:
            return 0
        half = 0.5 / w1
        u = flint.arb(half, half * (1 + 1e-9))
        s = flint.arb(0)
        for t in self.terms:
            d = 1 - t.y * u
            s += t.m * (-t.x) / (d * d + t.x * t.x * u * u)
        return 1 if s > 0 else (-1 if s < 0 else 0)

    def rho(self, w):
        num = den = flint.arb(1)
        for t in self.terms:
            if t.m > 0:
                num *= t.q(w) ** t.m
            else:
                den *= t.q(w) ** (-t.m)
        return self.lead * (num / den).sqrt()

    def rho_lower(self, w1, w2):
        """A lower bound of ``rho`` on ``[w1, w2]`` (``w2`` None: inf), as an arb lower end."""
        num = den = flint.arb(1)
        tail_b = False
        for t in self.terms:
            if t.m > 0:
                if t.y < w1:
                    q = t.q(w1)
                elif w2 is not None and t.y > w2:
                    q = t.q(w2)
                else:
                    q = t.x * t.x
                num *= q**t.m
            elif w2 is None:
                tail_b = True
            else:
                den *= max(t.q(w1).upper(), t.q(w2).upper()) ** (-t.m)
        if tail_b:
            # |i w - z| >= w - |z| (A), <= w + |z| (B): their ratio grows beyond every |z|
            R = self.radius * (1 + 1e-9) + 1e-9
            if not w1 > R:
                return flint.arb(0)
            num = den = flint.arb(1)
            for t in self.terms:
                if t.m > 0:
                    num *= (w1 - R) ** (2 * t.m)
                else:
                    den *= (w1 + R) ** (-2 * t.m)
        return (self.lead * (num / den).sqrt()).lower()

    def phi_float(self, w: float) -> float:
        s = float(self.phi0.mid())
        for t in self.terms:
            a = (
                math.atan((w - t.yf) / -t.xf)
                if t.xf < 0
                else math.pi - math.atan((w - t.yf) / t.xf)
            )
            s += t.m * a
        return s

    def dphi_float(self, w: float) -> float:
        return sum(t.m * (-t.xf) / (t.xf * t.xf + (w - t.yf) ** 2) for t in self.terms)


def _odd_multiples(lo: flint.arb, hi: flint.arb, pi: flint.arb):
    """The integers ``n`` with ``(2n + 1) pi`` in ``[lo, hi]`` (possibly: ball ends)."""
    a = float(((lo / pi).lower() - 1) / 2)
    b = float(((hi / pi).upper() - 1) / 2)
    return range(math.ceil(a - 1e-12), math.floor(b + 1e-12) + 1)


def _strictly_between(target, v1, v2):
    """-1 / 1: ``target`` strictly between ``v1`` and ``v2`` (decided); 0: outside (decided);
    None: undecided (a ball contains it)."""
    if v1.contains(target) or v2.contains(target):
        return None
    lo, hi = (v1, v2) if v1 < v2 else (v2, v1)
    return 1 if (lo < target and target < hi) else 0


def _solve(ph: _Phase, target: flint.arb, a: float, b: float | None, P=None):
    """The root of ``phi = target`` in ``(a, b)`` where ``phi`` is strictly monotone (``b``
    None: inf), as an arb ball proved by one Krawczyk step; None if that fails. ``P``: a
    bound on ``p``: the string "beyond" where ``rho > P`` is proved on ``[w_lo, b]`` for a
    proved lower end ``w_lo`` of the root (nothing there is wanted: no need to refine it)."""
    w = _double_root(ph, float(target.mid()), a, b)
    if w is None:
        return None
    if P is not None:
        below = flint.arb(w * (1 - 1e-9))
        rising = ph.phi_float(a) < float(target.mid())
        # phi(w_lo) still before the target: the root is beyond w_lo (phi is monotone)
        if (ph.phi(below) < target) if rising else (ph.phi(below) > target):
            bb = None if b is None else flint.arb(b)
            if ph.rho_lower(below, bb) > P:
                return "beyond"
    return _certify(ph, target, w)


def _double_root(ph: _Phase, tf: float, a: float, b: float | None):
    """The root of ``phi = tf`` in ``(a, b)`` in doubles (safeguarded Newton), or None."""
    sign = 1 if ph.phi_float(a) < tf else -1  # phi(a) below the target: it rises to it
    lo = a
    hi = b
    if hi is None:
        hi = max(2 * a, 1.0)
        for _ in range(200):
            if (ph.phi_float(hi) - tf) * sign > 0:
                break
            lo, hi = hi, 2 * hi
        else:
            return None
    w = 0.5 * (lo + hi)
    for _ in range(200):  # safeguarded Newton in doubles
        f = ph.phi_float(w) - tf
        if f * sign > 0:
            hi = w
        else:
            lo = w
        if abs(f) <= 1e-15 * abs(tf) or hi - lo <= 4e-16 * max(hi, 1e-300):
            return w
        d = ph.dphi_float(w)
        step = w - f / d if d != 0 else None
        w = step if step is not None and lo < step < hi else 0.5 * (lo + hi)
    return w


def _certify(ph: _Phase, target: flint.arb, w: float):
    """The root of ``phi = target`` near the double ``w``: Newton at the working precision,
    then one Krawczyk step proves it (an arb ball), or None."""
    with flint.ctx.workprec(ph.prec):
        x = flint.arb(w)
        for _ in range(60):  # Newton at the working precision from the double root
            x2 = x - (ph.phi(x) - target) / ph.dphi(x)
            x2 = flint.arb(x2.mid())
            done = abs(x2 - x) < abs(x2) * flint.arb(2) ** (-ph.prec + 12)
            x = x2
            if done:
                break
        # Krawczyk: N = x - f(x)/f'(X) inside X proves one root in X
        fx = ph.phi(x) - target
        d0 = abs(ph.dphi(x)).lower()
        if not d0 > 0:
            return None
        r = abs(x).upper() * flint.arb(2) ** (-ph.prec + 24)
        r2 = abs(fx).upper() * 4 / d0
        r = (r if r > r2 else r2).upper()
        for _ in range(4):
            X = flint.arb(x.mid(), r)
            if not X > 0:
                return None
            N = x - fx / ph.dphi(X)
            if N.lower() > X.lower() and N.upper() < X.upper():
                return N
            r = r * 16
    return None


def critical_factored(A, B, var, param, dps: int = 30, *, upto=2, expression=None):
    """The smallest ``param > 0`` at which a root of ``A(var) + param B(var)`` crosses the
    imaginary axis, from the factors: ``A = (a, [(f, m), ...])`` with ``a`` an exact rational
    and ``f`` fmpq_poly in ``var`` (degree >= 1, squarefree, pairwise coprime), likewise
    ``B``. The same record as :func:`~symdelay.analysis.crossing.critical_linear` (counts on
    both sides by transversality, every crossing up to ``upto`` times the first listed), or
    None where this does not apply (see the module docstring); ``expression``: what the
    record prints (by default built from the factors)."""
    dps = as_dps(dps)
    if not upto > 1:
        return None
    prec = work_bits(dps) + 3 * GUARD + 64
    with flint.ctx.workprec(prec):
        got = _prepare(A, B, prec)
        if got is None:
            return None
        ph, g0, deg_ok, baseline = got
        if not deg_ok:
            return None
        cands = _search(ph, g0, upto)
        if cands is None:
            return None
        cands.sort(key=lambda c: float(c[0].mid()))
        for x, y in itertools.pairwise(cands):
            if x[0].overlaps(y[0]):
                return None  # two crossings at one p (or too close to tell): undecided here
        if not _tight([b for pb, wb, _s in cands for b in (pb, wb)], dps):
            return None
    with mpmath.workdps(dps + GUARD):
        found = tuple((_mpf(pb), _mpf(wb)) for pb, wb, _s in cands)
    if expression is None:
        expression = _expression(A, B, var, param)
    first = (mpmath.inf, None, None, None)
    if cands:
        first = (*found[0], baseline, baseline + cands[0][2])
    checks = (
        "roots of the factors of A and B (Arb); exact unstable count of F(r; 0) from them, "
        "no axis root and constant degree below the first candidate, transversal simple "
        "crossing (sign of d arg/dw, Arb): counts on both sides",
        f"candidates: every crossing at p <= {upto} p_1 (a lower bound of |A/B| "
        f"above {upto} p_1 on the rest of the axis)",
    )
    return CriticalParameter(expression, str(var), str(param), dps, *first, METHOD, found, checks)


def _prepare(A, B, prec):
    """``(phase, G(0), deg B < deg A, unstable count of A)`` or None."""
    terms = []
    lead = [flint.fmpq(1), flint.fmpq(1)]
    degs = [0, 0]
    at0 = [flint.fmpq(1), flint.fmpq(1)]
    baseline = 0
    for side, (c, factors) in enumerate((A, B)):
        c = flint.fmpq(c)
        if c == 0:
            return None
        lead[side] = c
        at0[side] = c
        for f, mult in factors:
            f = flint.fmpq_poly(f)
            if f.degree() < 1:
                v = f(0) if f.degree() == 0 else flint.fmpq(0)
                if v == 0:
                    return None
                lead[side] *= v**mult
                at0[side] *= v**mult
                continue
            roots = _roots(f, prec)
            if roots is None:
                return None
            lead[side] *= f.coeffs()[-1] ** mult
            at0[side] *= f(0) ** mult
            degs[side] += f.degree() * mult
            m = mult if side == 0 else -mult
            for x, y in roots:
                rising = (x < 0) == (m > 0)
                xf, yf = float(x.mid()), float(y.mid())
                terms.append(_Term(x, y, m, xf, yf, rising))
                if side == 0 and x > 0:
                    baseline += mult
    if not terms:
        return None
    ratio = lead[0] / lead[1]
    phi0 = 0 if ratio > 0 else 1
    ph = _Phase(terms, phi0, flint.arb(abs(ratio)), prec)
    return ph, at0[0] / at0[1], degs[1] < degs[0], baseline


def _search(ph: _Phase, g0, upto):
    """Every crossing ``(p ball, w ball, count step)`` with ``p <= upto p_1`` (and maybe
    more), or None where the search does not settle."""
    cands = []
    best = [None]  # the least p so far (an arb)

    def limit():
        return None if best[0] is None else best[0].upper() * upto

    def add(pb, wb, step):
        cands.append((pb, wb, step))
        if best[0] is None or pb.upper() < best[0].upper():
            best[0] = pb

    # w = 0: G(0) = A(0)/B(0) < 0 is a real root through 0 at p = -G(0)
    phi_at0 = ph.phi(flint.arb(0))
    k0 = round(float((phi_at0 / ph.pi).mid()))
    if abs(float((phi_at0 / ph.pi).mid()) - k0) > 1e-6:
        return None
    if g0 < 0:
        S = flint.acb(0)
        for t in ph.terms:
            S += t.m / flint.acb(-t.x, -t.y)  # d log G/dr at 0 = sum m/(0 - z)
        if S.real.contains(0):
            return None
        add(flint.arb(-g0), flint.arb(0), 1 if S.real > 0 else -1)
    v0 = k0 * ph.pi
    scale = max(ph.radius, 1e-3) * 2
    stack = [(0.0, scale, v0, ph.phi(flint.arb(scale))), (scale, None, None, ph.phi(None))]
    stack.reverse()  # leftmost first
    examined = 0
    while stack:
        examined += 1
        if examined > MAX_INTERVALS:
            return None
        w1, w2, v1, v2 = stack.pop()
        a1 = flint.arb(w1)
        a2 = None if w2 is None else flint.arb(w2)
        if v1 is None:
            v1 = ph.phi(a1)
        P = limit()
        if P is not None and ph.rho_lower(a1, a2) > P:
            continue
        lo, hi = ph.bounds(a1, a2)
        ns = list(_odd_multiples(lo, hi, ph.pi))
        if not ns:
            continue
        mono = 0
        if ph.monotone:
            mono = ph.direction
        elif w2 is not None:
            d = ph.dphi(flint.arb((w1 + w2) / 2, (w2 - w1) / 2 * (1 + 1e-9)))
            mono = 1 if d > 0 else (-1 if d < 0 else 0)
        else:
            mono = ph.tail_sign(w1)
        if mono:

            def side(n, w1=w1, w2=w2, v1=v1, v2=v2):
                # phi(0) = k0 pi and phi(inf) = (inf_half / 2) pi exactly: a strictly monotone
                # phi takes neither value inside, so those targets are no positive roots
                if (w1 == 0 and 2 * n + 1 == k0) or (w2 is None and 4 * n + 2 == ph.inf_half):
                    return 0
                return _strictly_between((2 * n + 1) * ph.pi, v1, v2)

            # the targets strictly between v1 and v2 are one run of consecutive n: decided
            # from each end of ns (an undecided one, a ball holding it, lies at an end of
            # the run), every n between the first inside from below and from above is inside
            lo_k, lo_s = 0, 0
            while lo_k < len(ns) and (lo_s := side(ns[lo_k])) == 0:
                lo_k += 1
            hi_k, hi_s = len(ns) - 1, 0
            while hi_k > lo_k and (hi_s := side(ns[hi_k])) == 0:
                hi_k -= 1
            if lo_s is not None and (hi_k == lo_k or hi_s is not None):
                run = ns[lo_k : hi_k + 1] if lo_s == 1 else []
                inside = ((2 * n + 1) * ph.pi for n in (run if mono > 0 else run[::-1]))
                prev = w1
                for t in inside:  # in increasing w
                    P = limit()
                    if P is not None and ph.rho_lower(flint.arb(prev), a2) > P:
                        break
                    wb = _solve(ph, t, prev, w2, P)
                    if wb is None:
                        return None
                    if isinstance(wb, str):  # rho > P from below this root on: none wanted
                        break
                    add(ph.rho(wb), wb, 2 * mono)
                    prev = float(wb.lower())
                continue
        # split: the middle of a finite interval, a doubling of an infinite one
        if w2 is None:
            m = max(2 * w1, scale)
            stack.append((m, None, None, v2))
            stack.append((w1, m, v1, ph.phi(flint.arb(m))))
        else:
            m = 0.5 * (w1 + w2)
            if not (w1 < m < w2) or w2 - w1 < 1e-12 * max(w2, 1e-300):
                return None
            vm = ph.phi(flint.arb(m))
            stack.append((m, w2, vm, v2))
            stack.append((w1, m, v1, vm))
    return cands


def _expression(A, B, var, param):
    def prod(side):
        c, factors = side
        out = _rational(flint.fmpq(c))
        for f, mult in factors:
            cs = flint.fmpq_poly(f).coeffs()
            out *= sum(_rational(q) * var**k for k, q in enumerate(cs)) ** mult
        return out

    return prod(A) + param * prod(B)
