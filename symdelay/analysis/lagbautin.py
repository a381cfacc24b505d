"""The first Lyapunov coefficient along the Hopf curves of a delay model's stability map,
and its Bautin points: the delay normal form's one computation
(:class:`symdelay.analysis.dnormal.DelayLyapunov`, in Arb balls) read at the certified
points of the closed-form crossing curves (:mod:`symdelay.analysis.lagmap`).

Each point of such a curve is, for an exact frequency ``omega``, a ball ``(X, Y)`` holding
the crossing point (its radius below ``10^-(dps+2)`` relative, the map's guarantee); ``c1``
evaluated over those balls holds the true ``c1`` there, so the sign of ``l1`` (``Re c1 /
omega`` for the critical eigenvector normalised by ``q_x = 1``, ``x`` the imbalance, as
:func:`symdelay.analysis.normal_form.normal_form` reports it; by ``|q| = 1`` where the
mode does not move ``x``) is proved wherever the ball excludes 0, and said undecided
otherwise. Where ``l1`` changes sign between two neighbouring points of one arccos branch,
its zero is located along the curve in its frequency (the Illinois method,
:func:`symdelay.analysis.map_core.illinois`, to ``10^-(dps+3)``) and proved (``certified``)
when ``c1`` is finite over the curve's piece for the frequency ball ``omega* (1 +- 10^-(dps
+1))`` (so continuous there) and of certain, opposite signs at its two ends.

Cost (measured, two states): 1 to 3 ms a point, after about 0.5 s to differentiate the
rates once. At most :data:`L1_POINTS` points are evaluated per map (one in ``k`` of each
curve beyond that, its ends kept: the note says so); a sign change
between two evaluated points is narrowed to neighbouring points before it is located. A
sign change undone between two evaluated points is not seen.
"""

from __future__ import annotations

import itertools
import math

import mpmath

from symdelay.core.errors import SymdelayInputError, VerificationError

__all__ = ["delay_l1_scan", "L1_POINTS"]

#: the most curve points at which l1 is evaluated in one map by default (1 to 3 ms each)
L1_POINTS = 400


def _ball(x, rel):
    import flint

    from symdelay.analysis.certify import to_arb

    b = to_arb(mpmath.mpf(x))
    return b + flint.arb(0, rel * (1 + abs(float(x))))


def _mid(b):
    """The midpoint of an arb ball as an mpmath mpf, exactly."""
    from symdelay.analysis.certify import _make_mpf, mpf_value

    return _make_mpf(mpf_value(b.mid()))


class _L1:
    """``l1`` (an ``arb`` ball, or None where a solve is not certified) at the balls of a
    point."""

    def __init__(self, lyap, weights, bits):
        self.lyap, self.weights, self.bits = lyap, weights, bits
        self.unit = weights is None

    def __call__(self, X, Y, W):
        import flint

        with flint.ctx.workprec(self.bits):
            try:
                h = self.lyap.hopf((X, Y), W, c1_only=True)
            except ZeroDivisionError:
                return None
            q = h.q
            scale = None
            if not self.unit:
                cq = sum((self.weights[j] * q[j] for j in range(len(q))), flint.acb(0))
                scale = abs(cq) ** 2
                if 0 in scale:
                    scale = None
            if scale is None:  # the mode does not move x: |q| = 1
                scale = sum((abs(v) ** 2 for v in q), flint.arb(0))
            if 0 in scale:
                return None
            return (h.c1 / scale).real / W


def delay_l1_scan(model, curves, names, dps, notes, multiplicity, limit=L1_POINTS):
    """``(bautin points, {curve index: [l1 per point, None where not evaluated]})`` for the
    :class:`~symdelay.analysis.lagmap.DelayCurve` list ``curves`` of a map in ``names``
    (module docstring); ``multiplicity(curve)``: the multiplicity of its factor (>= 2: no
    scalar ``l1``); ``limit``: the most points evaluated (None: every point); one note
    line counts the signs."""
    import flint

    from symdelay.analysis.dnormal import _neutral_refusal, bautin_point_l2, delay_lyapunov
    from symdelay.analysis.map_core import illinois
    from symdelay.analysis.stochastic import difference_weights
    from symdelay.core.precision import GUARD, work_bits

    try:
        lyap = delay_lyapunov(model, names[0], (names[1],))
        lyap._values((flint.arb(1), flint.arb(1)))  # the derivative tables, refused here
    except (SymdelayInputError, NotImplementedError) as exc:
        notes.append(f"no first Lyapunov coefficient on the Hopf curves: {exc}")
        return [], {}
    if lyap.neutral:  # pragma: no cover - a neutral model's map is by columns
        why = _neutral_refusal(lyap, flint.arb(0))
        notes.append(f"no first Lyapunov coefficient on the Hopf curves: {why}")
        return [], {}
    weights = difference_weights(model)
    bits = work_bits(dps, GUARD)
    l1 = _L1(lyap, weights, bits)
    rel = 10.0 ** (-(dps + 2))
    total = sum(len(c.points) for c in curves if multiplicity(c) < 2)
    stride = 1 if limit is None else max(1, math.ceil(total / limit))
    values, out = {}, []
    signs = {"+": 0, "-": 0, "?": 0}
    multiple = unit = 0

    def at_point(c, k):
        x, y, w = c.points[k]
        with flint.ctx.workprec(bits):
            return l1(_ball(x, rel), _ball(y, rel), _ball(w, 0))

    def mid(b):
        return None if b is None else float(b.mid())

    with mpmath.workdps(dps + GUARD):
        for ci, c in enumerate(curves):
            if multiplicity(c) >= 2:
                values[ci] = None
                multiple += 1
                continue
            n = len(c.points)
            idx = sorted({*range(0, n, stride), n - 1})
            balls = {k: at_point(c, k) for k in idx}
            # a sign change between evaluated points: narrowed to neighbouring points
            for a, b in itertools.pairwise(idx):
                la, lb = balls[a], balls[b]
                if b - a > 1 and la is not None and lb is not None and (la > 0) != (lb > 0):
                    for k in range(a + 1, b):
                        balls[k] = at_point(c, k)
            ls = [mid(balls.get(k)) for k in range(n)]
            values[ci] = ls
            for b in balls.values():
                if b is None or 0 in b:
                    signs["?"] += 1
                else:
                    signs["+" if b > 0 else "-"] += 1
            if l1.unit:
                unit += 1
            done = sorted(balls)
            for a, b in itertools.pairwise(done):
                la, lb = balls[a], balls[b]
                if la is None or lb is None or 0 in la or 0 in lb or (la > 0) == (lb > 0):
                    continue
                found = _locate(c, a, b, l1, dps, bits, illinois)
                pa = c.points[a]
                if found is None:
                    notes.append(
                        f"l1 changes sign between ({mpmath.nstr(pa[0], 8)}, "
                        f"{mpmath.nstr(pa[1], 8)}) and the next point of a Hopf curve, but the "
                        "zero was not located (the curve turns there)"
                    )
                    continue
                (x, y, w), ok = found
                out.append(
                    {"type": "bautin", "x": x, "y": y, "omega": w, "factor": c.factor,
                     "kind": "hopf", "certified": ok, "l1_left": mid(la), "l1_right": mid(lb),
                     **bautin_point_l2(model, names, x, y, w, dps)}
                )  # fmt: skip
    if multiple:
        notes.append(
            f"{multiple} Hopf curve(s) of a factor of multiplicity >= 2 (the model's "
            "symmetry makes the imaginary pair multiple): l1 is not defined there and no "
            "criticality or Bautin point is given for them"
        )
    counted = signs["+"] + signs["-"] + signs["?"]
    if counted:
        norm = (
            "|q| = 1: the critical mode does not move the imbalance x"
            if weights is None or unit
            else "q_x = 1, x the imbalance, as normal-form reports it"
        )
        notes.append(
            f"first Lyapunov coefficient l1 at {counted} Hopf points: {signs['-']} negative "
            f"(supercritical), {signs['+']} positive (subcritical)"
            + (f", {signs['?']} undecided (the ball holds 0)" if signs["?"] else "")
            + f"; {len(out)} Bautin point(s) where it changes sign along a curve (l1 of the "
            f"delay normal form in Arb balls, normalised by {norm}"
            + (f"; at one point in {stride} of each curve, its ends kept" if stride > 1 else "")
            + ")"
        )
    return out, values


def _locate(c, a, b, l1, dps, bits, illinois):
    """``((x, y, omega), certified)``: the zero of ``l1`` between the points ``a`` and ``b``
    (neighbours) of the curve ``c`` along its frequency, or None (no locator kept, or the
    two points on different arccos branches: the curve turns between them)."""
    import flint

    if c.at is None or c.keys is None or c.keys[a] != c.keys[b]:
        return None
    sign = c.keys[a]

    def value(w):
        with flint.ctx.workprec(bits):
            W = _ball(w, 0)
            X, Y = c.at(sign, w)
            v = l1(X, Y, W)
        return None if v is None else mpmath.mpf(_mid(v))

    def at(v, guess):
        try:
            f = value(v)
        except VerificationError:
            return None, None
        return (None, None) if f is None else ([v], f)

    wa, wb = c.points[a][2], c.points[b][2]
    fa, fb = value(wa), value(wb)
    if fa is None or fb is None:
        return None
    z = illinois(at, [wa], fa, [wb], fb, 0, dps)
    if z is None:
        return None
    w = z[0]
    with flint.ctx.workprec(bits):
        X, Y = c.at(sign, w)
    point = (_mid(X), _mid(Y), w)
    return point, _prove(c, sign, w, l1, dps, bits)


def _prove(c, sign, w, l1, dps, bits) -> bool:
    """``l1`` finite over the curve's piece for ``omega`` in ``w (1 +- 10^-(dps+1))`` and of
    certain, opposite signs at its ends: a zero on the piece."""
    import flint

    from symdelay.analysis.certify import to_arb

    d = mpmath.mpf(10) ** (-(dps + 1)) * w
    try:
        with flint.ctx.workprec(bits):
            ends = []
            for e in (w - d, w + d):
                X, Y = c.at(sign, e)
                ends.append(l1(X, Y, _ball(e, 0)))
            piece = to_arb(w) + flint.arb(0, to_arb(d * mpmath.mpf("1.001")))
            X, Y = c.at(sign, piece)
            whole = l1(X, Y, piece)
    except VerificationError:
        return False
    if whole is None or any(v is None or 0 in v for v in ends):
        return False
    return (ends[0] > 0) != (ends[1] > 0)


# ------------------------------------------------------------------ maps by columns
def column_l1_scan(model, curves, names, axis, columns, dps, notes, multiplicity):
    """``(bautin points, {curve index: [l1 per point]})`` along the curves of a map by
    columns (:func:`symdelay.analysis.lagmap.column_map`): ``curves`` the linked curves
    ``[(mode index, [(column value, found value, omega)])]`` in column coordinates,
    ``axis`` the coefficient axis (``"y"``: the columns are values of ``names[0]``),
    ``columns`` ``{column value (mpf): exact rational}``. Each point is proved a Hopf point
    by a Krawczyk box in (found value, omega) with the column exact
    (:func:`symdelay.analysis.dnormal._certify`), ``l1`` evaluated over it; a sign change
    between two columns is located by the Illinois method in the column coordinate (the
    crossing equations solved by Newton at each trial value) and proved (``certified``)
    when a parametric Krawczyk box holds the curve's piece over the column ball
    ``c* (1 +- 10^-(dps+1))``, ``l1`` finite over it and of certain, opposite signs at its
    two ends. A neutral equation's points whose difference operator is not proved stable
    have no ``l1`` (the note says so)."""
    import flint

    from symdelay.analysis.dnormal import (
        _certify,
        _neutral_refusal,
        bautin_point_l2,
        delay_lyapunov,
    )
    from symdelay.analysis.map_core import illinois
    from symdelay.analysis.stochastic import difference_weights
    from symdelay.core.lazy import sympy as sp
    from symdelay.core.precision import GUARD, work_bits
    from symdelay.model.core import _symbol

    try:
        lyap = delay_lyapunov(model, names[0], (names[1],))
        lyap._values((flint.arb(1), flint.arb(1)))
    except (SymdelayInputError, NotImplementedError) as exc:
        notes.append(f"no first Lyapunov coefficient on the Hopf curves: {exc}")
        return [], {}
    weights = difference_weights(model)
    bits = work_bits(dps, GUARD)
    l1 = _L1(lyap, weights, bits)
    col_sym, found_sym = (_symbol(names[0]), _symbol(names[1]))
    if axis == "x":
        col_sym, found_sym = found_sym, col_sym
    R = sp.Symbol("r")
    factors = [f.factor.xreplace({sp.Symbol("r"): R}) for f in model.characteristic_factors]
    derivs = {}
    rel = 10.0 ** (-(dps + 2))

    def order(c, f):  # (names[0], names[1]) balls from column and found balls
        return (c, f) if axis == "y" else (f, c)

    def certified_l1(idx, col, found, w, col_ball=None):
        """``(l1 ball or None, (found ball, omega ball) or None, refusal or None)``."""
        F = factors[idx]
        if idx not in derivs:
            derivs[idx] = (sp.diff(F, R), sp.diff(F, found_sym))
        with flint.ctx.workprec(bits):
            cb = col_ball if col_ball is not None else _exact(col)
            box = _certify(F, R, found_sym, found, w, rel, env={col_sym: cb},
                           derivs=derivs[idx])  # fmt: skip
            if box is None:
                return None, None, None
            Y, W = box
            why = _neutral_refusal(lyap, order(cb, Y)) if lyap.neutral else None
            if why is not None:
                return None, box, why
            return l1(*order(cb, Y), W), box, None

    def _exact(q):
        return flint.arb(flint.fmpq(int(q.p), int(q.q)))

    values, out = {}, []
    signs = {"+": 0, "-": 0, "?": 0}
    refused = None
    with mpmath.workdps(dps + GUARD):
        for ci, (idx, pts) in enumerate(curves):
            if multiplicity(idx) >= 2:
                values[ci] = None
                continue
            balls = []
            for c, f, w in pts:
                col = min(columns.items(), key=lambda kv, c=c: abs(kv[0] - c))[1]
                v, _box, why = certified_l1(idx, col, f, w)
                refused = refused or why
                balls.append(v)
                if v is None or 0 in v:
                    signs["?"] += 1
                else:
                    signs["+" if v > 0 else "-"] += 1
            values[ci] = [None if b is None else float(b.mid()) for b in balls]
            for k in range(len(pts) - 1):
                la, lb = balls[k], balls[k + 1]
                if la is None or lb is None or 0 in la or 0 in lb or (la > 0) == (lb > 0):
                    continue
                found = _locate_column(pts[k], pts[k + 1], la, lb, idx, factors[idx],
                                       (R, col_sym, found_sym), certified_l1, order, l1,
                                       dps, bits, illinois)  # fmt: skip
                if found is None:
                    notes.append(
                        f"l1 changes sign between the columns {mpmath.nstr(pts[k][0], 8)} and "
                        f"{mpmath.nstr(pts[k + 1][0], 8)} of a Hopf curve, but the zero was not "
                        "located"
                    )
                    continue
                (c, f, w), ok = found
                x, y = order(c, f)
                out.append(
                    {"type": "bautin", "x": x, "y": y, "omega": w, "factor": idx,
                     "kind": "hopf", "certified": ok, "l1_left": float(la.mid()),
                     "l1_right": float(lb.mid()), **bautin_point_l2(model, names, x, y, w, dps)}
                )  # fmt: skip
    if refused:
        notes.append(f"no l1 at some Hopf points: {refused}")
    counted = sum(signs.values())
    if counted:
        notes.append(
            f"first Lyapunov coefficient l1 at {counted} Hopf points (the columns' crossings): "
            f"{signs['-']} negative (supercritical), {signs['+']} positive (subcritical)"
            + (f", {signs['?']} undecided or not defined" if signs["?"] else "")
            + f"; {len(out)} Bautin point(s) where it changes sign along a curve (l1 of the "
            "delay normal form in Arb balls around Hopf points proved by Krawczyk boxes"
            + (", normalised by q_x = 1, x the imbalance)" if weights is not None else ")")
        )
    return out, values


def _locate_column(pa, pb, la, lb, idx, F, syms, certified_l1, order, l1, dps, bits, illinois):
    """The Bautin point between the column points ``pa``, ``pb`` (``(column, found,
    omega)``) of one curve: ``((column, found, omega), certified)`` or None."""
    import flint

    from symdelay.core.lazy import sympy as sp

    R, col_sym, found_sym = syms
    f_np = sp.lambdify((R, col_sym, found_sym), F, "mpmath")

    def solve(c, guess):
        def eqs(f, w):
            v = f_np(mpmath.mpc(0, w), c, f)
            return [mpmath.re(v), mpmath.im(v)]

        try:
            f, w = mpmath.findroot(eqs, guess)
        except (ValueError, ZeroDivisionError):
            return None
        return f, w

    def at(v, guess):
        t = (v - pa[0]) / (pb[0] - pa[0])
        g = [pa[k] + t * (pb[k] - pa[k]) for k in (1, 2)]
        sol = solve(v, g)
        if sol is None:
            return None, None
        f, w = sol
        with flint.ctx.workprec(bits):
            val = l1(*order(_ball(v, 0), _ball(f, 0)), _ball(w, 0))
        return (None, None) if val is None else ([v, f, w], mpmath.mpf(float(val.mid())))

    fa, fb = mpmath.mpf(float(la.mid())), mpmath.mpf(float(lb.mid()))
    z = illinois(at, list(pa), fa, list(pb), fb, 0, dps)
    if z is None:
        return None
    c, f, w = z
    d = mpmath.mpf(10) ** (-(dps + 1)) * (1 + abs(c))
    ends = []
    for e in (c - d, c + d):
        sol = solve(e, [f, w])
        q = sp.Rational(mpmath.nstr(e, dps + GUARD_DIGITS))
        v, _box, _why = (None, None, None) if sol is None else certified_l1(idx, q, *sol)
        ends.append(v)
    ok = all(v is not None and 0 not in v for v in ends) and (ends[0] > 0) != (ends[1] > 0)
    if ok:  # the piece between: one Hopf point per column value (parametric Krawczyk)
        with flint.ctx.workprec(bits):
            piece = _ball(c, 0) + flint.arb(0, float(d) * 1.001)
        v, box, _why = certified_l1(idx, None, f, w, col_ball=piece)
        ok = v is not None and box is not None
    return (c, f, w), ok


GUARD_DIGITS = 12
