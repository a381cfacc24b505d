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

Cost: about 3 ms a point. At most :data:`L1_POINTS` points are evaluated per map (every
``k``-th point of each curve beyond that, the ends kept: the note says so); a sign change
between two evaluated points is narrowed to neighbouring points before it is located. A
sign change undone between two evaluated points is not seen.
"""

from __future__ import annotations

import itertools
import math

import mpmath

from symdelay.core.errors import SymdelayInputError, VerificationError

__all__ = ["delay_l1_scan", "L1_POINTS"]

#: the most curve points at which l1 is evaluated in one map (about 3 ms each)
L1_POINTS = 200


def _ball(x, rel):
    import flint

    from symdelay.analysis.certify import to_arb

    b = to_arb(mpmath.mpf(x))
    return b + flint.arb(0, rel * (1 + abs(float(x))))


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


def delay_l1_scan(model, curves, names, dps, notes, multiplicity):
    """``(bautin points, {curve index: [l1 per point, None where not evaluated]})`` for the
    :class:`~symdelay.analysis.lagmap.DelayCurve` list ``curves`` of a map in ``names``
    (module docstring); ``multiplicity(curve)``: the multiplicity of its factor (>= 2: no
    scalar ``l1``); one note line counts the signs."""
    import flint

    from symdelay.analysis.dnormal import _neutral_refusal, delay_lyapunov
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
    stride = max(1, math.ceil(total / L1_POINTS))
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
                     "kind": "hopf", "certified": ok, "l1_left": mid(la), "l1_right": mid(lb)}
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

    from symdelay.analysis.lagmap import _mid

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
