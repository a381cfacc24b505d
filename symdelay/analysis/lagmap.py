"""Stability maps of delay models: the stability crossing curves in two lags (Gu,
Niculescu & Chen 2005) and in a lag and a coefficient, as the one
:class:`~symdelay.analysis.map_core.StabilityMap` record.

**Two lags** (Gu, Niculescu & Chen, "On stability crossing curves for general systems with
two delays", J. Math. Anal. Appl. 311 (2005) 231-253). A mode function
``F(r) = P0(r) + P1(r) e^{-r tau1} + P2(r) e^{-r tau2}`` (``tau1 = a x``, ``tau2 = b y``: the
axes are the lags' parameters) has a root ``i omega`` exactly when the three complex numbers
``P0``, ``P1 e^{-i omega tau1}``, ``P2 e^{-i omega tau2}`` close a triangle: with
``A_k = |P_k(i omega)|``, the crossing set is ``Omega = {omega > 0 : |A1 - A2| <= A0 <=
A1 + A2}``, i.e. ``G(omega^2) = (A1^2 + A0^2 - A2^2)^2 - 4 A1^2 A0^2 <= 0`` (a polynomial:
its positive roots, isolated exactly, end the intervals of ``Omega``), and there, by the law
of cosines,

    tau1 = (arg P1 - arg P0 + (2u - 1) pi +- t1) / omega,   t1 = arccos((A0^2 + A1^2 - A2^2) / (2 A0 A1))
    tau2 = (arg P2 - arg P0 + (2v - 1) pi -+ t2) / omega,   t2 = arccos((A0^2 + A2^2 - A1^2) / (2 A0 A2))

for integers ``u``, ``v``. Each interval of ``Omega`` and each ``(u, v)`` gives one curve,
the ``+`` and ``-`` branches joined at the interval's ends (where ``t1, t2`` are 0 or pi).

**A lag and a coefficient.** ``F(r) = P(r) + y Q(r) e^{-r a x}``: at ``r = i omega``,
``y = |P(i omega)| / |Q(i omega)|`` and ``x = (-arg(-P/Q) mod 2 pi + 2 pi k) / (a omega)``;
the ``omega`` whose ``y`` lies in the box form intervals ended by the positive roots of
``|P|^2 - y_lo^2 |Q|^2`` and ``|P|^2 - y_hi^2 |Q|^2`` (exact).

**Certified points.** Every point is computed at an exact (dyadic) ``omega`` in Arb
(python-flint): the polynomials at ``i omega``, the moduli, arccos and the arguments are
balls, so the crossing point of that ``omega`` lies in the printed ball (its radius below
``10^-(dps+2)`` relative; more bits otherwise); ``F(i omega)`` at the ball is checked to
contain 0. The curve between two points is drawn straight; ``omega`` is refined where
neighbouring points are far apart in the box.

**By columns.** Where no closed form applies (a distributed kernel, a second fixed lag, a
neutral term, and the coefficient axis outside every lag), :func:`column_map` finds at each
column of cell centres the certified crossings in the coefficient
(:mod:`symdelay.analysis.lagcross`) and the exact count of every gap between them, so each
cell's count is proved in its column; the curves join the columns' certified points (the
pieces between columns are a drawing), and a neutral boundary is drawn as a line of kind
``"neutral"`` (cells beyond it: count -1, infinitely many roots in ``Re r > 0``).

**Regions.** The box is cut into ``cells x cells`` rectangles; two neighbouring cells are in
one region when no curve crosses the segment between their centres; each region's count of
roots with ``Re r > 0`` is certified at one centre
(:func:`symdelay.analysis.stability.delay_stability`: the argument principle in Arb), and
that count labels every cell of it.
"""

from __future__ import annotations

import itertools
import math

import mpmath

from symdelay.core.errors import SymdelayInputError, VerificationError
from symdelay.core.lazy import module as _lazy_module
from symdelay.core.lazy import sympy as sp

np = _lazy_module("numpy")

__all__ = ["delay_map", "two_lag_curves", "lag_coefficient_curves", "column_map", "DelayCurve"]

#: samples of omega per interval of the crossing set (before refinement)
SAMPLES = 160
#: the longest step between neighbouring points, as a fraction of the box
MAX_STEP = 0.01
#: refinement rounds (each halves the omega steps that are too long)
REFINE = 12


class DelayCurve:
    """One crossing curve: ``points`` ``[(x, y, omega)]`` (mpmath, certified), ``factor``
    (the mode's index), ``label`` (``(interval, u, v)``); ``keys``: the branch sign of each
    point (``+1``/``-1``, the two arccos branches; None where not kept) and ``at(sign,
    omega)``: the curve's point ``(X, Y)`` (``arb`` balls) at an exact ``omega`` or over an
    ``omega`` ball (None where not kept): the curve as a function of its frequency, which
    the search for Bautin points bisects along."""

    def __init__(self, factor, points, label, ends, keys=None, at=None):
        self.factor, self.points, self.label, self.ends = factor, points, label, ends
        self.keys, self.at = keys, at


# ------------------------------------------------------------------ the mode function
def _split_terms(F, r, xs, ys):
    """``{(cx, cy): coefficient polynomial}``: ``F = sum c(r, x, y) exp(-r (cx x + cy y))``
    with rational ``cx, cy >= 0``; refuses any other form."""
    F = sp.expand(F)
    out: dict = {}
    for term in sp.Add.make_args(F):
        coeff, key = sp.Integer(1), (sp.Integer(0), sp.Integer(0))
        for f in sp.Mul.make_args(term):
            base, e = f.as_base_exp()
            if isinstance(base, sp.exp) or f.func == sp.exp:
                arg = sp.expand(f.args[0]) if f.func == sp.exp else sp.expand(base.args[0] * e)
                cx = sp.cancel(-arg.coeff(r).coeff(xs))
                cy = sp.cancel(-arg.coeff(r).coeff(ys))
                rest = sp.expand(arg + r * (cx * xs + cy * ys))
                if rest != 0 or not (cx.is_Rational and cy.is_Rational) or cx < 0 or cy < 0:
                    raise SymdelayInputError(
                        f"the map of a delay model takes mode functions sum c(r) exp(-r tau) "
                        f"with constant lags in the axes; {f} is not of that form"
                    )
                key = (key[0] + cx, key[1] + cy)
            else:
                coeff *= f
        out[key] = out.get(key, 0) + coeff
    return {k: sp.expand(v) for k, v in out.items() if sp.expand(v) != 0}


def _irrational(expr):
    """A radical in ``expr`` (an equilibrium solved in radicals), or None: the map
    computes with exact rationals."""
    for a in sp.preorder_traversal(expr):
        if isinstance(a, sp.Pow) and a.base.is_number and not a.exp.is_Integer:
            return a
    return None


def _fmpq_poly_in(expr, r):
    import flint

    P = sp.Poly(expr, r)
    cs = [sp.Rational(c) for c in reversed(P.all_coeffs())]
    return flint.fmpq_poly([flint.fmpq(int(c.p), int(c.q)) for c in cs])


def _abs2(poly):
    """``|P(i w)|^2`` as a polynomial in ``s = w^2`` (flint ``fmpq_poly``)."""
    import flint

    cs = [poly[k] for k in range(poly.degree() + 1)]
    # P(i w) = sum c_k i^k w^k: real part sum over even k, imaginary over odd k
    re = flint.fmpq_poly([(-1) ** (k // 2) * c if k % 2 == 0 else 0 for k, c in enumerate(cs)])
    im = flint.fmpq_poly([(-1) ** (k // 2) * c if k % 2 == 1 else 0 for k, c in enumerate(cs)])
    sq = re * re + im * im  # even in w
    return flint.fmpq_poly([sq[2 * j] for j in range(sq.degree() // 2 + 1)])


def _ev(poly, z, prec):
    """``poly(z)`` for an ``fmpq_poly`` at an ``arb``/``acb`` ball, at ``prec`` bits."""
    import flint

    with flint.ctx.workprec(prec):
        coeffs = [flint.arb(poly[k]) for k in range(poly.degree() + 1)]
        if isinstance(z, flint.acb):
            return flint.acb_poly([flint.acb(c) for c in coeffs])(z)
        return flint.arb_poly(coeffs)(z)


def _positive_roots(poly) -> list:
    """The distinct positive real roots of an ``fmpq_poly`` as exact-enough Arb balls
    (isolated: disjoint), increasing; mpf midpoints."""
    import flint

    if poly.degree() < 1:
        return []
    sqf = flint.fmpz_poly(poly.numer())
    g = sqf.gcd(sqf.derivative())
    if g.degree() > 0:
        sqf = sqf // g
    out = []
    for z, _m in sqf.complex_roots():
        if z.imag.contains(0) and z.real > 0:
            # the polynomial is real: a root whose box meets the real axis and is isolated
            # from the others is real (conjugates would be two roots in the box)
            out.append(z.real)
    return sorted(out, key=lambda b: b.mid())


def _intervals(conditions, lo_hint=None):
    """The open intervals of ``s = omega^2 > 0`` on which every ``fmpq_poly`` of
    ``conditions`` (a list of ``(poly, sign)``: ``sign * poly(s) >= 0`` required) holds:
    ends at their positive roots (Arb-isolated), a rational test point in every gap."""
    import flint

    ends = []
    for poly, _sign in conditions:
        ends += [b for b in _positive_roots(poly)]
    ends = sorted(ends, key=lambda b: b.mid())
    pts = [flint.arb(0), *ends]
    out = []
    for i, a in enumerate(pts):
        b = pts[i + 1] if i + 1 < len(pts) else None
        if b is not None and a.overlaps(b):
            continue
        lo = a.upper()
        hi = b.lower() if b is not None else None
        test = (lo + hi) / 2 if hi is not None else lo * 2 + 1
        ok = True
        for poly, sign in conditions:
            v = _ev(poly, test, 128) * sign
            if not v > 0:
                ok = False
                break
        if ok:
            out.append((a, b))
    del lo_hint
    return out


def _omegas(a, b, n):
    """Dyadic ``omega`` strictly inside ``(sqrt a, sqrt b)`` (``b`` None: up to a bound),
    denser near the ends (cosine spacing)."""
    lo = math.sqrt(max(float(a.mid()), 0.0))
    hi = math.sqrt(float(b.mid())) if b is not None else None
    if hi is None:
        raise VerificationError("an unbounded crossing set reached the sampler")
    out = []
    for j in range(1, n):
        t = (1 - math.cos(math.pi * j / n)) / 2
        w = lo + (hi - lo) * t
        out.append(_dyadic(w))
    return sorted(set(out))


def _dyadic(w: float):
    m, e = math.frexp(w)
    return mpmath.ldexp(mpmath.mpf(round(m * 2**40)), e - 40)


# ------------------------------------------------------------------ two lags
def two_lag_curves(P0, P1, P2, a, b, box, r, dps, *, factor=0):
    """The stability crossing curves of ``P0 + P1 e^{-r a x} + P2 e^{-r b y}`` in the box
    ``(x0, x1, y0, y1)`` (module docstring): a list of :class:`DelayCurve`."""
    import flint

    from symdelay.core.precision import work_bits

    p0, p1, p2 = (_fmpq_poly_in(P, r) for P in (P0, P1, P2))
    if max(p1.degree(), p2.degree()) >= p0.degree():
        raise SymdelayInputError(
            "the two-lag map is for retarded equations (the delayed parts of lower degree in r)"
        )
    A0, A1, A2 = _abs2(p0), _abs2(p1), _abs2(p2)
    G = (A1 + A0 - A2) ** 2 - 4 * A1 * A0
    intervals = _intervals([(G, -1)])
    prec = work_bits(dps) + 20
    x0, x1, y0, y1 = (float(v) for v in box)
    av, bv = flint.arb(flint.fmpq(int(a.p), int(a.q))), flint.arb(flint.fmpq(int(b.p), int(b.q)))
    curves = []
    for idx, (sa, sb) in enumerate(intervals):
        if sb is None:
            raise VerificationError("the two-lag crossing set is unbounded for a retarded equation")

        def base_at(w, sign, prec, p0=p0, p1=p1, p2=p2):
            with flint.ctx.workprec(prec):
                iw = flint.acb(0, _arb(w))
                v0, v1, v2 = (_ev(p, iw, prec) for p in (p0, p1, p2))
                m0, m1, m2 = abs(v0), abs(v1), abs(v2)
                c1 = (m0 * m0 + m1 * m1 - m2 * m2) / (2 * m0 * m1)
                c2 = (m0 * m0 + m2 * m2 - m1 * m1) / (2 * m0 * m2)
                t1, t2 = _acos(c1), _acos(c2)
                pi = flint.arb.pi()
                g1 = v1.arg() - v0.arg() - pi + sign * t1
                g2 = v2.arg() - v0.arg() - pi - sign * t2
                # the crossing: P0 + P1 e^{-i g1} + P2 e^{-i g2} contains 0 (a machine check)
                e1 = flint.acb(0, -g1).exp()
                e2 = flint.acb(0, -g2).exp()
                if not (v0 + v1 * e1 + v2 * e2).contains(0):
                    raise VerificationError(
                        f"the law-of-cosines point at omega = {mpmath.nstr(w, 12)} is not a root"
                    )
                W = _arb(w)
                return g1 / (W * av), g2 / (W * bv), 2 * pi / (W * av), 2 * pi / (W * bv)

        base = _adaptive(base_at, prec, dps)
        curves += _trace(base, sa, sb, (x0, x1, y0, y1), idx, factor, dps, two=True)
    return curves


def _adaptive(base_at, prec, dps):
    """``base_at`` at ``prec`` bits, doubled (up to 16 times the bits) until the point's
    balls are below ``10^-(dps+2)`` relative (near the ends of the crossing set arccos
    loses digits)."""

    def base(w, sign):
        p = prec
        for _ in range(5):
            out = base_at(w, sign, p)
            if all(_tight(b, dps) for b in out[:2]):
                return out
            p *= 2
        return out

    return base


def _tight(ball, dps) -> bool:
    import flint

    return bool(ball.rad() <= flint.arb(10) ** -(dps + 2) * (1 + abs(ball.mid())))


def _arb(w):
    import flint

    from symdelay.analysis.certify import to_arb

    if isinstance(w, flint.arb):  # a ball of frequencies (a piece of a curve)
        return w
    return to_arb(mpmath.mpf(w))


def _acos(c):
    """arccos of a ball in [-1, 1] (clipped: rounding at the ends of the crossing set)."""
    import flint

    lo = max(c.lower(), flint.arb(-1))
    hi = min(c.upper(), flint.arb(1))
    if lo > hi:
        raise VerificationError("the law of cosines left [-1, 1] inside the crossing set")
    ball = flint.arb((lo + hi) / 2, (hi - lo) / 2)
    return ball.acos()


def _trace(base, sa, sb, box, idx, factor, dps, *, two, signs=(1, -1)):
    """The curves of one interval of the crossing set: for every shift ``(u, v)`` that
    reaches the box, the ``+`` branch up in ``omega`` and the ``-`` branch back down (one
    closed curve: the ends join where ``t1, t2`` reach 0 or pi), refined in ``omega`` where
    neighbouring points near the box are far apart, clipped to the box (split where it
    leaves)."""
    import flint

    x0, x1, y0, y1 = box
    sx, sy = x1 - x0, y1 - y0
    ws = _omegas(sa, sb, SAMPLES)
    cache: dict = {}

    def at(sign, w):
        key = (sign, w)
        if key not in cache:
            gx, gy, px, py = base(w, sign)
            floats = tuple(float(v.mid()) for v in (gx, gy, px, py))
            cache[key] = (gx, gy, px, py, floats)
        return cache[key]

    seq = [(1, w) for w in ws]
    if len(signs) == 2:
        seq += [(-1, w) for w in reversed(ws)]
    # the shifts that reach the box
    us, vs = set(), set()
    for key in seq:
        fx, fy, ppx, ppy = at(*key)[4]
        us.update(range(math.floor((x0 - fx) / ppx), math.ceil((x1 - fx) / ppx) + 1))
        if two:
            vs.update(range(math.floor((y0 - fy) / ppy), math.ceil((y1 - fy) / ppy) + 1))
    if not two:
        vs = {0}
    mx, my = MAX_STEP * sx, MAX_STEP * sy

    def place(key, u, v):
        fx, fy, ppx, ppy = at(*key)[4]
        return fx + u * ppx, (fy + v * ppy) if two else fy

    def near(p):
        return x0 - 4 * mx <= p[0] <= x1 + 4 * mx and y0 - 4 * my <= p[1] <= y1 + 4 * my

    curves = []
    for u in sorted(us):
        for v in sorted(vs):
            keys = list(seq)
            pos = [place(k, u, v) for k in keys]
            if not any(near(p) for p in pos):
                continue
            for _round in range(REFINE):
                out_k, out_p, added = [keys[0]], [pos[0]], 0
                for (ka, pa), (kb, pb) in zip(zip(keys, pos), zip(keys[1:], pos[1:])):
                    if (
                        ka[0] == kb[0]
                        and (near(pa) or near(pb))
                        and (abs(pa[0] - pb[0]) > mx or abs(pa[1] - pb[1]) > my)
                        and abs(kb[1] - ka[1]) > mpmath.mpf(2) ** -44
                    ):
                        km = (ka[0], _dyadic(float((ka[1] + kb[1]) / 2)))
                        if km[1] not in (ka[1], kb[1]):
                            out_k.append(km)
                            out_p.append(place(km, u, v))
                            added += 1
                    out_k.append(kb)
                    out_p.append(pb)
                keys, pos = out_k, out_p
                if not added:
                    break
            inside = [x0 <= p[0] <= x1 and y0 <= p[1] <= y1 for p in pos]
            run = []
            for k, key in enumerate(keys):
                keep = inside[k] or (k and inside[k - 1]) or (k + 1 < len(keys) and inside[k + 1])
                if keep:
                    gx, gy, px, py, _f = at(*key)
                    with flint.ctx.workprec(4 * dps + 128):  # the shift keeps the digits
                        X = gx + u * px
                        Y = gy + v * py if two else gy
                    run.append((X, Y, key[1], key[0]))
                elif run:
                    curves.append(
                        _curve(run, factor, (idx, u, v), dps, _locator(base, u, v, two, dps))
                    )
                    run = []
            if run:
                curves.append(_curve(run, factor, (idx, u, v), dps, _locator(base, u, v, two, dps)))
    return curves


def _locator(base, u, v, two, dps):
    """``(sign, omega) -> (X, Y)``: the point of the curve with the shifts ``(u, v)`` at an
    exact ``omega`` (mpmath) or over a ball of them (``arb``)."""
    import flint

    def at(sign, w):
        gx, gy, px, py = base(w, sign)
        with flint.ctx.workprec(4 * dps + 128):
            return gx + u * px, (gy + v * py if two else gy)

    return at


def _curve(run, factor, label, dps, at=None):
    pts = []
    for X, Y, w, _sign in run:
        for ball in (X, Y):
            if not _tight(ball, dps):
                raise VerificationError(
                    f"a crossing point is not resolved to {dps} digits: {ball.str(5)}"
                )
        pts.append((_mid(X), _mid(Y), w))
    keys = tuple(r[3] for r in run)
    return DelayCurve(factor, tuple(pts), label, ("box edge", "box edge"), keys, at)


def _mid(b):
    """The midpoint of an arb ball as an mpmath mpf, exactly."""
    from symdelay.analysis.certify import _make_mpf, mpf_value

    return _make_mpf(mpf_value(b.mid()))


# ------------------------------------------------------------------ a lag and a coefficient
def lag_coefficient_curves(P, Q, a, box, r, dps, *, factor=0, lag_axis="x"):
    """The crossing curves of ``P(r) + y Q(r) e^{-r a x}`` in the box (module docstring);
    ``lag_axis`` ``"y"``: the roles swapped (the lag is the y axis)."""
    import flint

    from symdelay.core.precision import work_bits

    p, q = _fmpq_poly_in(P, r), _fmpq_poly_in(Q, r)
    if q.degree() >= p.degree():
        raise SymdelayInputError(
            "the (lag, coefficient) map is for retarded equations (the delayed part of lower "
            "degree in r)"
        )
    x0, x1, y0, y1 = box if lag_axis == "x" else (box[2], box[3], box[0], box[1])
    lo_q, hi_q = sp.Rational(y0), sp.Rational(y1)
    AP, AQ = _abs2(p), _abs2(q)

    def sq(v):
        return flint.fmpq(int(v.p), int(v.q)) ** 2

    conds = [(AP - AQ * sq(max(lo_q, sp.Integer(0))), 1), (AP - AQ * sq(hi_q), -1)]
    intervals = _intervals(conds)
    prec = work_bits(dps) + 20
    av = flint.arb(flint.fmpq(int(a.p), int(a.q)))
    curves = []
    fx0, fx1, fy0, fy1 = (float(v) for v in (x0, x1, y0, y1))
    for idx, (sa, sb) in enumerate(intervals):
        if sb is None:
            raise VerificationError("an unbounded frequency interval for a retarded equation")

        def base_at(w, sign, prec, p=p, q=q):
            with flint.ctx.workprec(prec):
                iw = flint.acb(0, _arb(w))
                vp, vq = _ev(p, iw, prec), _ev(q, iw, prec)
                yv = abs(vp) / abs(vq)
                W = _arb(w)
                pi = flint.arb.pi()
                # e^{-i a w x} = -P/(y Q): a w x = -arg(-P/Q) (mod 2 pi), taken in (0, 2 pi]
                g = -((-vp / vq).arg())
                if not g > 0:
                    g = g + 2 * pi
                if not (vp + yv * vq * flint.acb(0, -g).exp()).contains(0):
                    raise VerificationError(
                        f"the crossing point at omega = {mpmath.nstr(w, 12)} is not a root"
                    )
                return g / (W * av), yv, 2 * pi / (W * av), flint.arb(0)

        base = _adaptive(base_at, prec, dps)
        for c in _trace_one(base, sa, sb, (fx0, fx1, fy0, fy1), idx, factor, dps):
            if lag_axis == "y":
                c.points = tuple((yy, xx, w) for xx, yy, w in c.points)
                c.at = _swapped(c.at)
            curves.append(c)
    return curves


def _swapped(at):
    def swapped(sign, w):
        X, Y = at(sign, w)
        return Y, X

    return swapped


def _trace_one(base, sa, sb, box, idx, factor, dps):
    """One branch per shift (no sign: the coefficient is the modulus ratio)."""
    return _trace(base, sa, sb, box, idx, factor, dps, two=False, signs=(1,))


# ------------------------------------------------------------------ the entry's path
def delay_map(model, X, Y, fixed_json, dps, cells, force=False, bautin=None):
    """The :class:`~symdelay.analysis.map_core.StabilityMap` of a delay model (module
    docstring): two constant lags' parameters, or one and a coefficient of the delayed
    term, as the axes ``X``, ``Y`` (each ``(name, lo, hi)``, exact ends checked by the
    entry; ``model`` has the entry's ``fixed`` values, shown as ``fixed_json``). ``l1``
    along the Hopf curves and their Bautin points: :mod:`symdelay.analysis.lagbautin`
    (``bautin`` None: at up to its ``L1_POINTS`` points, True: every point, False: not
    computed)."""
    from symdelay.analysis.map_core import MapCurve, cell_centres, map_record
    from symdelay.core.budget import check_budget
    from symdelay.core.symbols import r
    from symdelay.model.core import _symbol

    (xname, a, b), (yname, c, d) = X, Y
    xs, ys = _symbol(xname), _symbol(yname)
    for nm, sym in ((xname, xs), (yname, ys)):
        if sym not in model.domains:
            raise SymdelayInputError(
                f"'{nm}' is not a parameter of {model.name}: use one of "
                + ", ".join(str(q) for q in model.parameters)
            )
        if sym in model.values:
            raise SymdelayInputError(f"{nm} has a value ({model.values[sym]}): leave it free")
    missing = [str(q) for q in model.free_parameters if q not in (xs, ys)]
    if missing:
        raise SymdelayInputError(f"give numbers for {', '.join(missing)} (every other parameter)")
    for nm, sym, lo in ((xname, xs, a), (yname, ys, c)):
        if model.domains[sym] == "positive" and lo <= 0:
            raise SymdelayInputError(f"the range of {nm} must be above 0 (it is positive)")
    check_budget(
        f"a delay stability map ({cells}x{cells} cells)",
        0.02 * cells * cells / 8 + 0.5,
        force=force,
        shrink="fewer --cells",
    )
    box = (a, b, c, d)
    curves, notes = [], []
    for i, f in enumerate(model.characteristic_factors):
        F = f.factor
        if not F.has(xs) and not F.has(ys):
            continue
        bad = _irrational(F)
        if bad is not None:
            raise SymdelayInputError(
                f"the {f.mode} mode of {model.name} has the irrational coefficient {bad} (its "
                "equilibrium in radicals): a delay model's map computes with exact rationals; "
                "give values that make the equilibrium rational"
            )
        try:
            terms = _split_terms(F, r, xs, ys)
        except SymdelayInputError:
            # a kernel the closed forms do not take (a distributed or second fixed lag)
            column = _coefficient_axis(model, xs, ys)
            if column is None:
                raise
            return column_map(model, X, Y, fixed_json, dps, cells, column, force, bautin)
        keys = set(terms)
        lagx = {k for k in keys if k[0] != 0}
        lagy = {k for k in keys if k[1] != 0}
        axes_in_coeffs = {s for v in terms.values() for s in (xs, ys) if v.has(s)}
        polys = all(v.is_polynomial(r) for v in terms.values())
        handled = False
        if (
            polys
            and lagx
            and lagy
            and not axes_in_coeffs
            and len(lagx) == len(lagy) == 1
            and not (lagx & lagy)
        ):
            (kx,) = lagx
            (ky,) = lagy
            P0 = terms.get((0, 0), sp.Integer(0))
            curves += two_lag_curves(P0, terms[kx], terms[ky], kx[0], ky[1], box, r, dps, factor=i)
            handled = True
        for coef_sym, axis in ((ys, "x"), (xs, "y")):
            lag_keys = lagx if axis == "x" else lagy
            other = lagy if axis == "x" else lagx
            if handled or not polys or len(lag_keys) != 1 or other or len(terms) != 2:
                continue
            (k,) = lag_keys
            P = terms.get((0, 0), sp.Integer(0))
            Q = sp.cancel(terms[k] / coef_sym)
            if P.has(xs) or P.has(ys) or Q.has(xs) or Q.has(ys) or not Q.is_polynomial(r):
                continue
            if sp.degree(Q, r) >= sp.degree(P, r):
                continue  # neutral: the column scan below (the neutral boundary)
            g = k[0] if axis == "x" else k[1]
            curves += lag_coefficient_curves(P, Q, g, box, r, dps, factor=i, lag_axis=axis)
            handled = True
        if not handled:
            column = _coefficient_axis(model, xs, ys)
            if column is not None:
                return column_map(model, X, Y, fixed_json, dps, cells, column, force, bautin)
            raise SymdelayInputError(
                f"the {f.mode} mode {F}: a delay model's map takes P0(r) + P1(r) e^{{-r a x}} + "
                "P2(r) e^{-r b y} (two constant lags' parameters) or P(r) + y Q(r) e^{-r a x} "
                "(a constant lag's and a coefficient of the delayed term); a distributed "
                "kernel or a lag in a coefficient is not yet mapped"
            )
    # regions: cells joined where no curve separates their centres; one certified count each
    cx, cy = cell_centres(a, b, cells), cell_centres(c, d, cells)
    counts, labels, regions = _regions(model, curves, cx, cy, xname, yname, notes)
    mult = [int(f.multiplicity) for f in model.characteristic_factors]
    mcurves = [
        MapCurve("hopf", cv.factor, cv.points, cv.ends, multiplicity=mult[cv.factor])
        for cv in curves
    ]
    specials, l1_values = [], {}
    if curves and bautin is not False:  # l1 along the Hopf curves (lagbautin)
        from symdelay.analysis.lagbautin import L1_POINTS, delay_l1_scan

        if bautin:
            n = sum(len(cv.points) for cv in curves)
            check_budget(
                f"l1 at every point of the Hopf curves ({n} points, up to 3 ms each)",
                0.003 * n,
                force=force,
                shrink="bautin=None (l1 sampled along the curves)",
            )
        specials, l1_values = delay_l1_scan(
            model, curves, (xname, yname), dps, notes, lambda cv: mult[cv.factor],
            limit=None if bautin else L1_POINTS,
        )  # fmt: skip
    notes.append(
        "crossing curves in closed form (Gu, Niculescu & Chen 2005: the triangle of |P0|, "
        "|P1|, |P2|; or y = |P|/|Q| and the phase for a lag and a coefficient); every point "
        "in Arb at an exact omega; each region's unstable count certified at one point "
        "(argument principle in Arb)"
    )

    def crossings(result, x=None, y=None):
        return _crossings(result, x=x, y=y)

    return map_record(
        model,
        (xname, a, b),
        (yname, c, d),
        fixed_json,
        dps,
        mcurves,
        sorted(specials, key=lambda s: (float(s["x"]), float(s["y"]))),
        (counts, regions, labels),
        f"closed-form crossing curves; {cells}x{cells} cells, one certified count per region",
        notes,
        "delay: stability crossing curves",
        crossings,
        delay_curves=curves,
        l1=l1_values,
    )


# ------------------------------------------------------------------ a column scan
def _coefficient_axis(model, xs, ys):
    """``"y"`` (or ``"x"``) when that axis is a coefficient outside every lag, so the map
    can be scanned column by column in it (:func:`column_map`); None otherwise."""
    in_lags = set()
    for lag in model.lags.values():
        in_lags |= set(lag.parameters())
    if ys not in in_lags:
        return "y"
    if xs not in in_lags:
        return "x"
    return None


def _link(columns, box_h):
    """Join the certified crossings of neighbouring columns into drawn curves: each point
    to the open curve of the previous column nearest in frequency and value (a drawing, not
    a proof: the points are certified, the straight pieces between columns are not)."""
    curves, open_ = [], []
    for xv, pts in columns:
        taken, nxt = set(), []
        for yv, w, mode in pts:
            best, cost = None, 1.0
            for i, cv in enumerate(open_):
                if i in taken or cv["mode"] != mode:
                    continue
                x0, y0, w0 = cv["points"][-1]
                # the frequency, or the phase w x when x is the lag, moves little along a curve
                dw = min(abs(w - w0) / (1 + abs(w0)), abs(w * xv - w0 * x0) / (1 + abs(w0 * x0)))
                c = dw + abs(yv - y0) / box_h
                if c < cost:
                    best, cost = i, c
            if best is None:
                cv = {"mode": mode, "points": [(xv, yv, w)]}
                curves.append(cv)
            else:
                taken.add(best)
                cv = open_[best]
                cv["points"].append((xv, yv, w))
            nxt.append(cv)
        open_ = nxt
    return curves


def column_map(model, X, Y, fixed_json, dps, cells, axis, force=False, bautin=None):
    """The map of a delay model the closed forms do not reach (distributed lags, neutral
    equations): at each column of cell centres (``axis`` "y": the coefficient is ``y``) the
    certified crossings in the coefficient (:func:`symdelay.analysis.lagcross.switches`:
    isolated in Arb, directions proved) and the exact unstable count of every gap between
    them, so every cell's count is proved; the curves join the columns' crossings.

    Parameters
    ----------
    model : Model
        The delay model with the entry's fixed values.
    X, Y : tuple
        ``(name, lo, hi)`` of each axis (exact ends).
    fixed_json : dict
        The fixed values as shown.
    dps : int
        Digits of every point.
    cells : int
        Columns (and rows) of the cell grid.
    axis : {"x", "y"}
        The axis that is the coefficient.
    force : bool, default False
        Lift the cost guard.
    bautin : bool, optional
        False: no ``l1`` at the crossings (and no Bautin point); otherwise ``l1`` at every
        certified crossing (:func:`symdelay.analysis.lagbautin.column_l1_scan`).

    Returns
    -------
    StabilityMap
    """
    from symdelay.analysis.lagcross import switches
    from symdelay.analysis.map_core import MapCurve, cell_centres, map_record
    from symdelay.analysis.map_core import _regions as group_equal
    from symdelay.core.budget import check_budget

    (xname, a, b), (yname, c, d) = X, Y
    if axis == "x":  # scan rows instead: the coefficient is x
        (xname, a, b), (yname, c, d) = (yname, c, d), (xname, a, b)
    check_budget(
        f"a delay stability map by columns ({cells} columns of certified crossings)",
        1.0 * cells,
        force=force,
        shrink="fewer --cells (each column is one certified scan in the coefficient)",
    )
    cx, cy = cell_centres(a, b, cells), cell_centres(c, d, cells)
    counts = [[-1] * cells for _ in range(cells)]
    columns, notes, neutral, searched_min = [], [], None, None
    names = [m.name for m in getattr(model, "delay_modes", ())]
    mult = {
        names.index(f.mode): int(f.multiplicity)
        for f in model.characteristic_factors
        if f.mode in names
    }
    for k, xv in enumerate(cx):
        point = model.with_values(**{xname: xv})
        sw = switches(point, yname, sp.Rational(c), sp.Rational(d), dps, count="first")
        for n in sw.notes:
            if n not in notes and not n.startswith("crossings searched"):
                notes.append(n)
        if sw.searched < d:
            searched_min = sw.searched if searched_min is None else min(searched_min, sw.searched)
        if sw.neutral is not None:
            neutral = sw.neutral if neutral is None else min(neutral, sw.neutral)
        with mpmath.workdps(dps + 10):
            ends = [g[0].p for g in sw.breakpoints]
            top = mpmath.mpf(int(sw.searched.p)) / int(sw.searched.q)
            nN = None
            if sw.neutral is not None and sw.sharp:
                nN = mpmath.mpf(int(sw.neutral.p)) / int(sw.neutral.q)
            for j, yv in enumerate(cy):
                yf = mpmath.mpf(int(yv.p)) / int(yv.q)
                if nN is not None and yf > nN:
                    counts[j][k] = -1  # beyond the neutral boundary: infinitely many
                    continue
                if yf >= top:
                    continue  # not searched: undecided
                gap = sum(1 for e in ends if e < yf)
                n = sw.counts[gap]
                counts[j][k] = -1 if n is None else int(n)
            pts = []
            for g in sw.breakpoints:
                for cr in g:
                    pts.append((mpmath.mpf(sp.N(xv, dps + 10)), cr.p, cr.omega, cr.mode))
        columns.append((pts[0][0] if pts else None, [(p_, w_, md) for _x, p_, w_, md in pts]))
    box_h = float(d - c)
    linked = _link(
        [(mpmath.mpf(sp.N(xv, dps + 10)), pts) for xv, (_, pts) in zip(cx, columns)], box_h
    )
    mcurves = []
    for cv in linked:
        pts = tuple(cv["points"])
        if axis == "x":
            pts = tuple((yy, xx, w) for xx, yy, w in pts)
        idx = names.index(cv["mode"]) if cv["mode"] in names else 0
        mcurves.append(
            MapCurve("hopf", idx, pts, ("column scan", "column scan"), multiplicity=mult[idx])
        )
    specials, l1_values = [], {}
    if linked and bautin is not False:  # l1 at the columns' crossings (lagbautin)
        from symdelay.analysis.lagbautin import column_l1_scan

        exact_cols = {mpmath.mpf(sp.N(xv, dps + 10)): xv for xv in cx}
        specials, l1_values = column_l1_scan(
            model, [(m.factor, cv["points"]) for m, cv in zip(mcurves, linked)],
            (X[0], Y[0]), axis, exact_cols, dps, notes, lambda i: mult[i],
        )  # fmt: skip
    if neutral is not None and c < neutral < d:
        with mpmath.workdps(dps + 10):
            nv = mpmath.mpf(int(neutral.p)) / int(neutral.q)
            line = (
                (mpmath.mpf(sp.N(a, dps + 10)), nv, mpmath.inf),
                (mpmath.mpf(sp.N(b, dps + 10)), nv, mpmath.inf),
            )
        if axis == "x":
            line = tuple((yy, xx, w) for xx, yy, w in line)
        mcurves.append(MapCurve("neutral", 0, line, ("box edge", "box edge")))
        notes.append(
            f"{yname} = {neutral}: the neutral boundary (the difference operator loses "
            f"stability; beyond it infinitely many roots in Re r > 0): cells beyond it have "
            f"count -1"
        )
    if searched_min is not None:
        notes.append(
            f"crossings searched up to {yname} = {mpmath.nstr(mpmath.mpf(float(searched_min)), 8)} "
            "in some columns (the frequency budget near the neutral boundary); cells beyond the "
            "searched part are undecided (count -1)"
        )
    if axis == "x":
        counts = [list(row) for row in zip(*counts)]
        cx, cy = cy, cx
    regions, labels = group_equal(counts, cx, cy)
    notes.append(
        f"crossing curves by columns: at each of {cells} values of {xname} the crossings in "
        f"{yname} isolated in Arb (directions proved), the exact unstable count of every gap "
        "(argument principle in the first, proved directions beyond); every cell's count is "
        "proved; the curves join the columns' certified points by nearest frequency (the "
        "straight pieces between columns are a drawing)"
    )

    def crossings(result, x=None, y=None):
        return _crossings(result, x=x, y=y)

    X0, Y0 = X, Y
    return map_record(
        model,
        X0,
        Y0,
        fixed_json,
        dps,
        mcurves,
        sorted(specials, key=lambda s: (float(s["x"]), float(s["y"]))),
        (counts, regions, labels),
        f"{cells} columns of certified crossings in {yname}; every cell counted exactly"
        + (
            " (count -1: undecided or beyond the neutral boundary)"
            if any(-1 in row for row in counts)
            else ""
        ),
        notes,
        "delay: certified crossings by columns",
        crossings,
        delay_curves=[],
        l1=l1_values,
    )


def _crossings(result, x=None, y=None):
    """Where the drawn curves cross a line, by linear interpolation between certified
    points (not certified)."""
    if (x is None) == (y is None):
        raise SymdelayInputError("give x= or y= (one line)")
    out = []
    at = float(x if x is not None else y)
    for c in result.curves:
        pts = c.points
        for p, q in itertools.pairwise(pts):
            u, v = (float(p[0]), float(q[0])) if x is not None else (float(p[1]), float(q[1]))
            if (u - at) * (v - at) <= 0 and u != v:
                t = (at - u) / (v - u)
                other = 1 if x is not None else 0
                val = float(p[other]) + t * (float(q[other]) - float(p[other]))
                w = float(p[2]) + t * (float(q[2]) - float(p[2]))
                out.append((val, w, c.kind, c.factor, False))
    return sorted(out)


def _regions(model, curves, cx, cy, xname, yname, notes):
    """``(counts, labels, regions)``: cells joined across segments no curve crosses, the
    count of each group certified at one centre."""
    from symdelay.analysis.map_core import _regions as group_equal
    from symdelay.analysis.stability import delay_stability

    nx, ny = len(cx), len(cy)
    fx = np.array([float(v) for v in cx])
    fy = np.array([float(v) for v in cy])
    segs_a, segs_b = [], []
    for cv in curves:
        arr = np.array([[float(p[0]), float(p[1])] for p in cv.points])
        if len(arr) > 1:
            segs_a.append(arr[:-1])
            segs_b.append(arr[1:])
    A = np.concatenate(segs_a) if segs_a else np.zeros((0, 2))
    B = np.concatenate(segs_b) if segs_b else np.zeros((0, 2))
    parent = list(range(nx * ny))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def crossed(p, q):
        if not len(A):
            return False
        r_ = q - p
        s = B - A
        den = r_[0] * s[:, 1] - r_[1] * s[:, 0]
        with np.errstate(divide="ignore", invalid="ignore"):
            t = ((A[:, 0] - p[0]) * s[:, 1] - (A[:, 1] - p[1]) * s[:, 0]) / den
            u = ((A[:, 0] - p[0]) * r_[1] - (A[:, 1] - p[1]) * r_[0]) / den
        return bool(np.any((den != 0) & (t >= 0) & (t <= 1) & (u >= 0) & (u <= 1)))

    for j in range(ny):
        for k in range(nx):
            p = np.array([fx[k], fy[j]])
            for dj, dk in ((0, 1), (1, 0)):
                j2, k2 = j + dj, k + dk
                if j2 < ny and k2 < nx and not crossed(p, np.array([fx[k2], fy[j2]])):
                    parent[find(j * nx + k)] = find(j2 * nx + k2)
    groups: dict = {}
    for i in range(nx * ny):
        groups.setdefault(find(i), []).append(i)
    count_of = {}
    undecided = 0
    for root, members in groups.items():
        # the member nearest the group's middle
        js = [m // nx for m in members]
        ks = [m % nx for m in members]
        mj, mk = sum(js) / len(js), sum(ks) / len(ks)
        rep = min(members, key=lambda m: (m // nx - mj) ** 2 + (m % nx - mk) ** 2)
        point = model.with_values(**{xname: cx[rep % nx], yname: cy[rep // nx]})
        res = delay_stability(point)
        if res.verdict == "undecided":
            undecided += 1
            count_of[root] = -1
            continue
        count_of[root] = sum(v[1] for v in res.factor_verdicts if v[1] is not None)
    if undecided:
        notes.append(f"{undecided} regions undecided (a root on or near the axis): count -1")
    counts = [[count_of[find(j * nx + k)] for k in range(nx)] for j in range(ny)]
    regions, labels = group_equal(counts, cx, cy)
    return counts, labels, regions
