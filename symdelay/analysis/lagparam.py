"""Stability switches over one lag parameter of any delay model, certified in Arb.

The exact path (:mod:`symdelay.analysis.lagswitch`) takes one constant lag, ``z = e^{-r tau}``
and a resultant in ``Q[r, z]``. This module answers where it refuses: a distributed lag whose
parameter varies (a moving average, a gamma lag of non-integer shape, a uniform lag
``[a, b]``, a mixture), several lags of which one parameter varies (a second lag fixed), a
neutral equation. The characteristic function of a mode,
``F(r; p) = det(r I - A0 - sum_k (r if derivative) M_k K_k(r; p))``, is analytic in ``r`` on
``Re r >= 0`` and smooth in the varied parameter ``p`` (``p`` enters the lags only).

Method.

1. **Search box.** A stability switch is a root ``r = i w`` at some ``p``: two real
   equations ``Re F(i w; p) = Im F(i w; p) = 0`` in ``(w, p)``. Every kernel is the Laplace
   transform of a probability law, ``|K(i w)| <= 1``, so every root with ``Re r >= 0`` has
   ``|r| <= R`` for every ``p`` (:func:`symdelay.analysis.lagroots.root_bound`: the spectral
   radius of ``|A0| + sum |M_k|``; for a neutral equation ``(I - sum_d |M_d|)^-1`` times it,
   when the difference operator is strongly stable, ``rho(sum_d |M_d|) < 1`` — otherwise the
   equation is refused in one line: a property of the equation, not a switch). ``K(0) = 1``
   for every law, so ``F(0; p)`` is free of ``p`` and decided exactly: when it is 0 the
   equation is marginal for every ``p`` (refused); otherwise no root passes through 0. For
   real coefficients the roots come in conjugate pairs and ``w`` runs over ``[0, R]``
   (each crossing moves a pair); otherwise over ``[-R, R]``.
2. **Subdivision.** The box ``[0, R] x [lo, hi]`` is bisected; a box on which the Arb
   enclosure of ``F`` (kernels in balls: :func:`symdelay.analysis.lagkernels.kernel_at`, the
   uniform law through ``sinc``, rigorous at ``w = 0``) omits 0 holds no crossing.
3. **Existence and uniqueness.** On a small box the Krawczyk operator of the 2 x 2 real
   system ``G(w, p) = (Re F, Im F)`` (Jacobian ``(Re, Im)`` of ``(i F_r, F_p)`` enclosed on
   the box from the derivatives of the mode function) maps the box into its interior: exactly
   one crossing in it; or it misses the box: none. Boxes left after the budget of bisections
   are merged and tried once more on their hull; what is still open is *undecided* and the
   answer says where (never a guess).
4. **Direction.** At a crossing, ``dr/dp = -F_p / F_r`` (implicit functions); the sign of its
   real part is proved in Arb at the crossing's enclosure (a tangency is undecided).
5. **Counts.** Between consecutive switches the number of roots with ``Re r > 0`` is
   certified at one exact rational point by the argument principle
   (:func:`symdelay.analysis.lagroots.unstable_count`) and checked against the running sum
   of the directions (``+-2`` per pair and copy of the mode): a disagreement means a missed
   crossing and is raised, never printed.

Every switch is an Arb ball to ``dps`` digits with an exact rational bracket; the search is
a subdivision of a proven box, not a scan: the list is complete in ``(lo, hi]``.

Stable for every value (:func:`stable_for_every`): when every mode that moves is
``r + a + c k(r P)`` with a scale-family kernel (uniform ``[alpha_0 P, alpha_1 P]``, gamma
of fixed shape or exponential with mean ``alpha P``), a root reaches the axis at some
``P > 0`` iff ``Re(c k(i phi)) = -a`` for some ``phi > 0`` with ``Im(c k(i phi)) < 0``: a
1-D Arb search over ``phi`` (bounded by the kernel's tail) decides it for all ``P`` at once.

>>> from symdelay.model.core import load_toml
>>> m = load_toml("examples/models/moving_average.toml", mu=1, lam=1, theta=6)
>>> s = lag_crossings(m, "Delta", 0, 10, dps=10)
>>> [x["p"] for x in s.to_json()["switches"]], s.counts
(['1.385597791', '8.947762741'], (0, 2, 0))
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field, replace

import flint
import mpmath

from symdelay.core.errors import CertificationError, SymdelayInputError, VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.numbers import format_number
from symdelay.core.params import as_dps
from symdelay.core.precision import GUARD, work_bits
from symdelay.core.result import Result

__all__ = [
    "LagCrossings",
    "lag_crossings",
    "first_switch",
    "stable_for_every",
    "ALGORITHM",
    "MAX_BOXES",
]

#: The most boxes examined before the search stops and says *undecided* where it stopped.
MAX_BOXES = 400_000

#: The smallest relative box width bisected before a box is set aside for the hull test.
_MIN_WIDTH = 2.0**-36

#: A box is tried by Krawczyk once its phase width (w p change across it) is below this.
_TRY = 0.25

ALGORITHM = (
    "certified (lag parameter): crossings F(i w; p) = 0 by subdivision of the proven box "
    "|r| <= R (|K(i w)| <= 1) in Arb, each proved to exist and be unique by the Krawczyk "
    "operator on the 2 x 2 real system; directions sign Re(-F_p/F_r) proved in Arb; "
    "argument-principle counts between switches checked against the directions"
)


def _refuse(msg: str):
    raise SymdelayInputError(msg)


# ====================================================================== records
@dataclass(frozen=True)
class LagCrossings(Result):
    """Every stability switch over the lag parameter ``param`` in ``(range_lo, range_hi]``.

    ``switches``: ``(p, lower, upper, omega, change, mode, axis)`` increasing in ``p``
    (``p`` an mpf to ``dps`` digits inside the exact bracket ``(lower, upper)``, ``omega``
    the frequency(ies) crossing there, ``change`` of the unstable count, ``mode`` the factor,
    ``axis`` the number of roots on the imaginary axis there);
    ``counts``: the certified unstable count on each gap (one more than the switches);
    ``points``: the exact point of each gap where that count was certified; ``bound``: the
    proven frequency bound ``R``; ``boxes``: boxes examined; ``notes``: what was proved.
    """

    model_name: str
    param: str
    dps: int
    range_lo: object
    range_hi: object
    switches: tuple
    counts: tuple
    points: tuple
    bound: object
    boxes: int
    notes: tuple = field(default=())
    algorithm: str = ALGORITHM

    def record(self) -> dict:
        d = self.dps
        return {
            "param": self.param,
            "dps": d,
            "range": [format_number(self.range_lo, d), format_number(self.range_hi, d)],
            "switches": [
                {
                    "p": format_number(p, d),
                    "bracket": [str(a), str(b)],
                    "omega": [format_number(w, d) for w in om],
                    "change": ch,
                    "mode": mode,
                }
                for p, a, b, om, ch, mode, _axis in self.switches
            ],
            "counts": list(self.counts),
            "count_points": [str(x) for x in self.points],
            "frequency_bound": format_number(self.bound, 8),
            "boxes": self.boxes,
            "certified": True,
            "algorithm": self.algorithm,
            "notes": list(self.notes),
        }

    @property
    def critical(self):
        """``(value, bracket, omega)`` of the first switch from a stable count to an unstable
        one (``(lo, None, None)`` when unstable just above ``lo``; ``None`` when none in
        range)."""
        if self.counts[0] > 0:
            return self.range_lo, None, None
        for (p, a, b, om, _ch, _m, _x), after in zip(self.switches, self.counts[1:]):
            if after > 0:
                return p, (a, b), om
        return None


# ====================================================================== the modes
@dataclass
class _Mode:
    name: str
    copies: int
    n: int
    A0: object  # SymPy matrix at numbers
    terms: list  # (M SymPy, lags (p symbolic), derivative)
    F: object  # SymPy det in r, p
    Fr: object
    Fp: object
    real: bool


def _lins(model, extra=None):
    """``[(mode name, linearisation, copies)]`` with ``extra`` values substituted in the
    matrices (a parameter of the rates given a number here, e.g. theta in a worst-delay
    search)."""
    from types import SimpleNamespace

    from symdelay.analysis.lagroots import _mode_groups

    out = []
    for name, lin, _fn, copies in _mode_groups(model):
        if extra:
            lin = SimpleNamespace(
                A0=sp.Matrix(lin.A0).xreplace(extra),
                terms=tuple(
                    SimpleNamespace(
                        matrix=sp.Matrix(t.matrix).xreplace(extra),
                        kernel=t.kernel,
                        lags=t.lags,
                        derivative=t.derivative,
                    )
                    for t in lin.terms
                ),
            )
        out.append((name, lin, copies))
    return out


def _modes(model, p, extra=None, free=()):
    from symdelay.core.symbols import r

    values = {**model.values, **(extra or {})}
    lags = {n: lag.xreplace(values) for n, lag in model.lags.items()}
    out = []
    for name, lin, copies in _lins(model):
        A0 = sp.Matrix(lin.A0).xreplace(values)
        terms = []
        for t in lin.terms:
            M = sp.Matrix(t.matrix).xreplace(values)
            if M.is_zero_matrix:
                continue
            names = tuple(t.lags or ())
            if not names or any(nm not in lags for nm in names):
                _refuse(f"a term of mode {name} has no declared lag: the lag analysis needs one")
            terms.append((M, tuple(lags[nm] for nm in names), bool(t.derivative)))
        free_here = set().union(A0.free_symbols, *(M.free_symbols for M, _l, _d in terms))
        if p in free_here:
            _refuse(
                f"{p} enters the rates as well as the lags (mode {name}): the lag-parameter "
                "analysis varies a lag's parameter only"
            )
        other = set().union(
            free_here, *(lag.parameters() for _M, ls, _d in terms for lag in ls)
        ) - {p, *free}
        if other:
            _refuse("give numbers for " + ", ".join(sorted(map(str, other))))
        n = A0.rows
        D = r * sp.eye(n) - A0
        for M, ls, d in terms:
            K = sp.Mul(*[lag.laplace(r) for lag in ls])
            D = D - (r if d else 1) * M * K
        F = sp.expand(D.det()) if n > 1 else D[0, 0]
        probe = {f: 1 for f in free}
        real = all(e.xreplace(probe).is_real for e in A0) and all(
            e.xreplace(probe).is_real for M, _l, _d in terms for e in M
        )
        out.append(_Mode(name, copies, n, A0, terms, F, sp.diff(F, r), sp.diff(F, p), real))
    return out


def _ball(e):
    from symdelay.analysis.lagroots import _entry_ball

    return _entry_ball(e)


class _Eval:
    """Enclosures of ``F``, ``F_r``, ``F_p`` of one mode on boxes ``(w ball, p ball)``; a
    symbol ``q`` left free in the matrices (theta in the worst-delay search) is a third
    ball."""

    def __init__(self, mode: _Mode, p, prec: int, q=None):
        from symdelay.core.symbols import r

        self.mode, self.p, self.prec, self.r, self.q = mode, p, prec, r, q
        n = mode.n

        def entries(M):
            if q is not None and M.has(q):
                return M
            return flint.acb_mat(n, n, [_ball(e) for e in M])

        with flint.ctx.workprec(prec):
            self.A0 = entries(mode.A0)
            self.Ms = [(entries(M), ls, d) for M, ls, d in mode.terms]

    def _mat(self, M, qb):
        if isinstance(M, flint.acb_mat):
            return M
        from symdelay.model.arb_eval import to_arb

        n = self.mode.n
        return flint.acb_mat(n, n, [flint.acb(to_arb(e, {self.q: qb})) for e in M])

    def F(self, w, pb, qb=None):
        from symdelay.analysis.lagkernels import kernel_at

        env = {self.p: pb}
        z = flint.acb(0, w)
        n = self.mode.n
        D = flint.acb_mat(n, n, [z if i == j else 0 for i in range(n) for j in range(n)])
        D = D - self._mat(self.A0, qb)
        for Mb, ls, d in self.Ms:
            c = flint.acb(1)
            for lag in ls:
                c *= kernel_at(lag, env)(z)
            D = D - self._mat(Mb, qb) * (c * z if d else c)
        return D[0, 0] if n == 1 else D.det()

    def AB(self, w, pb):
        """``(A, B)`` with ``F = A + q B`` (a scalar mode whose matrices are affine in the
        free symbol ``q``): each kernel evaluated once, so ``A`` and ``B`` share it."""
        from symdelay.analysis.lagkernels import kernel_at

        env = {self.p: pb}
        z = flint.acb(0, w)
        zero, one = flint.arb(0), flint.arb(1)
        a0_0, a0_1 = (self._mat(self.A0, v)[0, 0] for v in (zero, one))
        A = z - a0_0
        B = -(a0_1 - a0_0)
        for Mb, ls, d in self.Ms:
            c = flint.acb(1)
            for lag in ls:
                c *= kernel_at(lag, env)(z)
            if d:
                c = c * z
            m0, m1 = (self._mat(Mb, v)[0, 0] for v in (zero, one))
            A -= m0 * c
            B -= (m1 - m0) * c
        return A, B

    def derivs(self, w, pb):
        from symdelay.model.arb_eval import to_arb

        env = {self.r: flint.acb(0, w), self.p: flint.acb(pb)}
        return to_arb(self.mode.Fr, env), to_arb(self.mode.Fp, env)


def _box(a, b):
    """The arb ball holding the interval ``[a, b]`` (floats or mpf, exact dyadics)."""
    return flint.arb(a).union(flint.arb(b))


def _has_zero(v) -> bool:
    return bool(v.real.contains(0) and v.imag.contains(0))


def _krawczyk(ev: _Eval, wX, pX):
    """``K(X)`` of ``G = (Re F, Im F)`` on the box ``(wX, pX)``, or None (singular or an
    enclosure not finite)."""
    wm, pm = flint.arb(wX.mid()), flint.arb(pX.mid())
    g = ev.F(wm, pm)
    Fr, Fp = ev.derivs(wX, pX)
    # columns: d/dw = i F_r, d/dp = F_p
    a, c = -Fr.imag, Fr.real  # dG/dw = (Re(i Fr), Im(i Fr))
    b, d = Fp.real, Fp.imag
    if not all(x.is_finite() for x in (a, b, c, d, g.real, g.imag)):
        return None
    am, bm, cm, dm = (float(x.mid()) for x in (a, b, c, d))
    det = am * dm - bm * cm
    if not det or not math.isfinite(det):
        return None
    y11, y12, y21, y22 = (flint.arb(v) for v in (dm / det, -bm / det, -cm / det, am / det))
    gr, gi = g.real, g.imag
    dw, dp = wX - wm, pX - pm
    # I - Y J
    m11 = 1 - (y11 * a + y12 * c)
    m12 = -(y11 * b + y12 * d)
    m21 = -(y21 * a + y22 * c)
    m22 = 1 - (y21 * b + y22 * d)
    kw = wm - (y11 * gr + y12 * gi) + m11 * dw + m12 * dp
    kp = pm - (y21 * gr + y22 * gi) + m21 * dw + m22 * dp
    return kw, kp


def _mpf(b) -> mpmath.mpf:
    return mpmath.mpf(b.mid().str(40, radius=False)) if b.is_finite() else mpmath.nan


# ====================================================================== the search
def _phase(box):
    wa, wb, pa, pb = box
    return (wb - wa) * max(abs(pa), abs(pb), 1.0) + (pb - pa) * max(abs(wa), abs(wb))


def _search(ev: _Eval, region, max_boxes, deadline):
    """``(roots, open_boxes, examined)``: boxes ``(wX, pX)`` each proved to hold exactly
    one crossing, the boxes neither excluded nor proved, and the count of boxes."""
    roots, left = [], []
    stack = [region]
    seen = 0
    scale_w = max(region[1] - region[0], 1e-300)
    scale_p = max(region[3] - region[2], 1e-300)
    while stack:
        box = stack.pop()
        seen += 1
        if seen > max_boxes or time.process_time() > deadline:
            left.append(box)
            left.extend(stack)
            break
        wa, wb, pa, pb = box
        wX, pX = _box(wa, wb), _box(pa, pb)
        if not _has_zero(ev.F(wX, pX)):
            continue
        if _phase(box) < _TRY and wa > 0:
            k = _krawczyk(ev, wX, pX)
            if k is not None:
                kw, kp = k
                if not (kw.overlaps(wX) and kp.overlaps(pX)):
                    continue
                if wX.contains_interior(kw) and pX.contains_interior(kp):
                    roots.append((wX, pX))
                    continue
        rw, rp = (wb - wa) / scale_w, (pb - pa) / scale_p
        if max(rw, rp) < _MIN_WIDTH:
            left.append(box)
            continue
        if (wb - wa) * max(abs(pa), abs(pb), 1.0) >= (pb - pa) * max(abs(wa), abs(wb), 1e-9):
            m = (wa + wb) / 2
            stack.extend([(wa, m, pa, pb), (m, wb, pa, pb)])
        else:
            m = (pa + pb) / 2
            stack.extend([(wa, wb, pa, m), (wa, wb, m, pb)])
    return roots, left, seen


def _clusters(boxes):
    """Groups of touching boxes (closed boxes sharing a point)."""
    groups: list = []
    for b in boxes:
        hit = [
            g
            for g in groups
            if any(b[0] <= c[1] and c[0] <= b[1] and b[2] <= c[3] and c[2] <= b[3] for c in g)
        ]
        merged = [b]
        for g in hit:
            merged.extend(g)
            groups.remove(g)
        groups.append(merged)
    return groups


def _refine(ev: _Eval, wX, pX, dps):
    """Krawczyk iterations from a box holding exactly one crossing down to ``dps`` digits
    (the enclosure only shrinks: each new box is intersected with the last)."""
    for _ in range(200):
        k = _krawczyk(ev, wX, pX)
        if k is None:
            break
        nw, np_ = wX.intersection(k[0]), pX.intersection(k[1])
        done = nw.rad() >= wX.rad() * 0.9 and np_.rad() >= pX.rad() * 0.9
        wX, pX = nw, np_
        if done or (_tight(wX, dps) and _tight(pX, dps)):
            break
    return wX, pX


def _tight(b, dps) -> bool:
    return b.rel_accuracy_bits() >= dps * 3.33 + 8


# ====================================================================== the entry
def _exact_number(name, v):
    from symdelay.core.params import as_parameter

    x = as_parameter(name, v, positive=False)
    if not x.is_Rational:
        _refuse(f"{name} must be a number, got {v!r}")
    return x


def lag_crossings(
    model,
    param: str,
    lo=0,
    hi=None,
    dps: int = 15,
    *,
    force: bool = False,
    max_boxes: int = MAX_BOXES,
    extra: dict | None = None,
) -> LagCrossings:
    """Every stability switch of ``model`` over the lag parameter ``param`` in ``(lo, hi]``,
    certified (see the module docstring for the method).

    Parameters
    ----------
    model : Model
        A delay model, every parameter a number but ``param`` (which enters its lags only).
    param : str
        The lag parameter varied (a constant lag's value, a uniform lag's end, a gamma or
        exponential lag's mean, a mixture component's value, ...), ``> 0``.
    lo, hi : number or str
        The range, exact (decimal text is the rational it denotes); ``hi`` finite.
    dps : int, default 15
        Significant digits of the switches and frequencies (5..10000).
    force : bool, default False
        Run when the estimated work is over the budget (:mod:`symdelay.core.budget`).
    max_boxes : int, default :data:`MAX_BOXES`
        Boxes examined per mode before the search stops and says where it is undecided.
    extra : dict, optional
        ``{symbol: exact number}`` for parameters of the rates left free in ``model`` (the
        worst-delay search gives theta here without rebuilding the model).

    Returns
    -------
    LagCrossings
        The switches (value, exact bracket, frequency, change of the count, mode), the
        certified unstable count on every gap and where it was certified.

    Raises
    ------
    SymdelayInputError
        Bad input, an equation outside the method (the parameter in the rates; a neutral
        equation whose difference operator is not strongly stable; a root at 0 for every
        value), or work over the budget.
    CertificationError
        A part of the box undecided at the working precision and budget (the message says
        where), or a count undecided.
    """
    from symdelay.core.budget import check_budget
    from symdelay.model.core import _symbol

    dps = as_dps(dps)
    p = _symbol(param)
    if p not in getattr(model, "domains", {}):
        _refuse(f"'{param}' is not a parameter of {model.name}")
    if p in model.values:
        _refuse(f"{param} has a value ({model.values[p]}): leave it free")
    if not any(p in lag.parameters() for lag in model.lags.values()):
        _refuse(f"{param} is not a parameter of a lag of {model.name}")
    lo_q = _exact_number("lo", 0 if lo is None else lo)
    unbounded = None
    if hi is None:
        unbounded = switch_bound(model, p, extra)
        if unbounded is None:
            _refuse(
                f"the switches over {param} of {model.name} (a distributed, several or "
                f"neutral lag) need a finite hi: give hi (the largest {param} of interest)"
            )
        hi = max(unbounded[0], lo_q + 1)
    hi_q = _exact_number("hi", hi)
    if lo_q < 0:
        _refuse(f"lo must be >= 0 (a lag parameter), got {lo}")
    if not hi_q > lo_q:
        _refuse(f"the range of {param} is empty: give lo < hi (got {lo}, {hi})")
    extra = dict(extra or {})
    modes = _modes(model, p, extra)
    values = {**model.values, **extra}

    def lags_at(v):
        return {n: lag.xreplace({**values, p: v}) for n, lag in model.lags.items()}

    notes, varying, R_all = _varying(model, p, modes, lags_at, (lo_q + hi_q) / 2, extra)
    Rf = float(R_all.upper()) * (1 + 2**-20) + 2**-20
    lo_f = float(mpmath.mpf(int(lo_q.p)) / int(lo_q.q))
    hi_f = float(mpmath.mpf(int(hi_q.p)) / int(hi_q.q))
    lo_f = math.nextafter(lo_f, -math.inf) if lo_f > 0 else 0.0
    hi_f = math.nextafter(hi_f, math.inf)
    # the cost: boxes ~ 50 (1 + R (hi - lo)) per mode (the crossing curves' length in the
    # box; measured 1281 for the moving average at R = 7, hi = 10, 1947 for the constant
    # lag at R = 4, hi = 10), each one timed evaluation (~0.2 ms at 64 bits, scalar mode)
    prec0 = 64
    ev0 = _Eval(varying[0], p, prec0)
    with flint.ctx.workprec(prec0):
        ev0.F(_box(0.5, 0.6), _box(lo_f + 0.1, lo_f + 0.2))  # warm: the first call imports
        per = math.inf  # the least of five (a busy machine inflates single timings)
        for k in range(5):
            t0 = time.perf_counter()
            ev0.F(_box(0.5, 0.6 + k / 10), _box(lo_f + 0.1, lo_f + 0.2))
            per = min(per, time.perf_counter() - t0)
    est_boxes = 50 * (1 + Rf * (hi_f - lo_f)) * len(varying)
    est = per * est_boxes * 2 + 0.5
    check_budget(
        f"the crossing search over {param} in [{lo_q}, {hi_q}] (about {int(est_boxes)} boxes "
        f"of |r| <= {Rf:.4g})",
        est,
        force=force,
        shrink=f"a smaller hi for {param}",
    )
    prec = max(work_bits(dps), 64)
    budget_s = max(60.0, 4 * est) if not force else math.inf
    deadline = time.process_time() + budget_s
    found = []  # (p ball, w ball, change, mode name)
    examined = 0
    undecided = []
    for mode in varying:
        ev = _Eval(mode, p, prec0)
        w0 = 0.0 if mode.real else -Rf
        with flint.ctx.workprec(prec0):
            roots, left, seen = _search(ev, (w0, Rf, lo_f, hi_f), max_boxes, deadline)
            examined += seen
            for group in _clusters(left):
                wa = min(b[0] for b in group)
                wb = max(b[1] for b in group)
                pa = min(b[2] for b in group)
                pb = max(b[3] for b in group)
                ew, ep = (wb - wa) / 2 + 1e-12, (pb - pa) / 2 + 1e-12
                wX, pX = _box(max(wa - ew, 0.0), wb + ew), _box(max(pa - ep, 0.0), pb + ep)
                k = None if wa <= 0 else _krawczyk(ev, wX, pX)
                if k is not None and wX.contains_interior(k[0]) and pX.contains_interior(k[1]):
                    roots.append((wX, pX))
                elif k is not None and not (k[0].overlaps(wX) and k[1].overlaps(pX)):
                    continue
                else:
                    undecided.append((mode.name, wa, wb, pa, pb))
        evh = _Eval(mode, p, prec)
        with flint.ctx.workprec(prec):
            tight = []
            for wX, pX in roots:
                tw, tp = _refine(evh, flint.arb(wX), flint.arb(pX), dps)
                tight.append((tw, tp, wX, pX))
            # the same crossing proved in two boxes (a hull over a box's edge): merged
            kept = []
            for t in tight:
                dup = False
                for u in kept:
                    if t[0].overlaps(u[0]) and t[1].overlaps(u[1]):
                        inside = (u[2].contains(t[0]) and u[3].contains(t[1])) or (
                            t[2].contains(u[0]) and t[3].contains(u[1])
                        )
                        if not inside:
                            raise CertificationError(
                                f"two crossing enclosures of mode {mode.name} overlap near "
                                f"{param} = {_mpf(t[1])}: undecided"
                            )
                        dup = True
                        break
                if not dup:
                    kept.append(t)
            for tw, tp, _wX, _pX in kept:
                lo_b, hi_b = flint.arb(_q(lo_q)), flint.arb(_q(hi_q))
                if tp < lo_b or hi_b < tp:
                    continue
                if tp.overlaps(lo_b) or tp.overlaps(hi_b):
                    raise CertificationError(
                        f"a crossing of mode {mode.name} at {param} = {_mpf(tp)} is not "
                        f"separated from an end of the range at {prec} bits: move lo or hi"
                    )
                Fr, Fp = evh.derivs(tw, tp)
                v = -(Fp / Fr)
                if v.real.contains(0):
                    raise CertificationError(
                        f"the direction of the crossing of mode {mode.name} at {param} = "
                        f"{_mpf(tp)} (omega = {_mpf(tw)}) is not proved: a tangency? (undecided)"
                    )
                sign = 1 if v.real > 0 else -1
                if mode.real and not tw > 0:
                    raise CertificationError(
                        f"a crossing of mode {mode.name} near omega = 0 at {param} = {_mpf(tp)}"
                    )
                change = sign * mode.copies * (2 if mode.real else 1)
                found.append((tp, tw, change, mode.name))
    if undecided:
        where = "; ".join(
            f"mode {m}: {param} in [{pa:.6g}, {pb:.6g}], omega in [{wa:.6g}, {wb:.6g}]"
            for m, wa, wb, pa, pb in undecided[:5]
        )
        more = f" (and {len(undecided) - 5} more)" if len(undecided) > 5 else ""
        raise CertificationError(
            f"undecided: a crossing over {param} is neither excluded nor proved in {where}{more} "
            f"({examined} boxes examined at {prec0} bits; budget {max_boxes} boxes per mode)"
        )
    res = _assemble(model, p, found, lo_q, hi_q, dps, prec, Rf, examined, notes, lags_at, extra)
    if unbounded is None:
        return res
    # no switch beyond hi_q (switch_bound): the last gap's count holds up to infinity
    return replace(res, range_hi=mpmath.inf, notes=(*res.notes, unbounded[1]))


def _scale_modes(model, p, extra=None):
    """``[(mode, unit, a, c, phi0, Phi, bound)]`` for every mode that depends on the lag
    parameter ``p`` when each is scalar, ``r + a + c k(r p)`` with one scale-family kernel
    (``unit`` its law at ``p = 1``; ``a``, ``c`` real balls, ``a``, ``c``, ``a + c`` nonzero;
    no ``phi = w p`` of a crossing below ``phi0`` (``|k(i phi) - 1| <= phi E[Y]``) or beyond
    ``Phi`` (the kernel's tail bound, its text ``bound``)); None when the form does not apply.
    """
    out = []
    for mode in _modes(model, p, extra):
        if not any(p in lag.parameters() for _M, ls, _d in mode.terms for lag in ls):
            continue  # free of p: its roots do not move
        if mode.n != 1 or not mode.real or any(d or len(ls) != 1 for _M, ls, d in mode.terms):
            return None
        lag = mode.terms[0][1][0]
        if any(ls[0] != lag for _M, ls, _d in mode.terms):
            return None  # two kernels in one mode
        unit = _scale_unit(lag, p)
        if unit is None:
            return None
        with flint.ctx.workprec(64):
            a = -_ball(mode.A0[0, 0]).real
            c = -sum((_ball(M[0, 0]) for M, _l, _d in mode.terms), flint.acb(0)).real
            ac = a + c
            if ac.contains(0) or a.contains(0) or c.contains(0):
                return None  # r = 0 a root, no tail bound, or no lag term at all
            lower = (abs(ac) / (2 * abs(c) * _ball(unit.mean()).real)).lower()
            phi0 = math.nextafter(float(lower.mid() - lower.rad()), 0.0)
            tail = _tail(unit, abs(c).upper() / abs(a).lower())
        if tail is None or not phi0 > 0:
            return None
        out.append((mode, unit, a, c, phi0, *tail))
    return out


def switch_bound(model, p, extra=None):
    """``(H, proof)``: every stability switch of ``model`` over the lag parameter ``p`` lies
    in ``(0, H]`` (``H`` rational), or None when the argument does not apply.

    It applies as :func:`stable_for_every` does: every mode that depends on ``p`` is scalar,
    ``r + a + c k(r p)`` with one scale-family kernel. A switch at ``p`` is a root ``i w``,
    ``w > 0``, with ``phi = w p`` solving ``Re(c k(i phi)) = -a`` and ``w = -Im(c k(i phi))
    > 0``: ``phi`` lies in ``[phi_0, Phi]`` (``|k(i phi) - 1| <= phi E[Y]`` below, the
    kernel's tail bound above), and Arb subdivision of that interval leaves intervals
    ``[u, v]`` that may hold such ``phi``, each with a proved ``w >= w_min > 0``; so ``p =
    phi / w <= v / w_min``. ``H`` is the largest such bound (1 when no interval is left:
    no switch at all)."""
    from symdelay.analysis.lagkernels import kernel

    found = _scale_modes(model, p, extra)
    if not found:
        return None
    H = flint.arb(0)
    parts = []
    for mode, unit, a, c, phi0, Phi, _bound in found:
        with flint.ctx.workprec(64):
            examined, left = _phi_scan(a, c, kernel(unit), phi0, Phi, (Phi - phi0) / 4096)
        if examined is None or any(w_min is None for _u, _v, w_min in left):
            return None
        for _u, v, w_min in left:
            H = max(H, flint.arb(v) / w_min)
        parts.append(f"mode {mode.name}: {len(left)} phi intervals in [{phi0:.4g}, {Phi:.4g}]")
    if not parts:
        return None
    Hq = sp.Rational(math.ceil(float(H.upper()) * 1.01 * 64 + 1), 64) if H > 0 else sp.Integer(1)
    proof = (
        f"no switch beyond {p} = {Hq} (proved: every crossing has phi = omega {p} in the "
        f"intervals left by Arb subdivision, each with omega bounded below, so {p} = "
        f"phi/omega <= {Hq}; {'; '.join(parts)}): the count on the last gap holds for every "
        f"larger {p}"
    )
    return Hq, proof


def _varying(model, p, modes, lags_at, at, extra=None):
    """``(notes, modes depending on p, R)``: ``R`` bounds ``|r|`` over every root with
    ``Re r >= 0`` of those modes for every value of ``p`` (module docstring, step 1)."""
    from symdelay.analysis.lagroots import CharacteristicMatrix, root_bound

    lins = {g[0]: g[1] for g in _lins(model, extra)}
    notes, varying = [], []
    R_all = flint.arb(0)
    for mode in modes:
        if p not in mode.F.free_symbols:
            continue
        cm = CharacteristicMatrix(lins[mode.name], lags_at(at))
        R, rho = root_bound(cm)  # refuses an unstable difference operator in one line
        if R is None or not R.is_finite():
            _refuse(f"no bound on the roots of mode {mode.name} in Re r >= 0: undecided")
        if cm.neutral:
            notes.append(
                f"mode {mode.name} is neutral; its difference operator is strongly stable "
                f"(spectral radius of sum |M_d| <= {rho.str(5, radius=False)} < 1)"
            )
        # F(0; p): every kernel is 1 at 0, derivative terms vanish: exact, free of p
        zero = (-mode.A0 - sum((M for M, _l, d in mode.terms if not d), sp.zeros(mode.n))).det()
        if sp.simplify(zero) == 0:
            _refuse(
                f"r = 0 is a root of mode {mode.name} for every {p} (F(0) = 0): the "
                "equation is marginal throughout; no switch to find"
            )
        varying.append(mode)
        R_all = max(R_all, R)
    if not varying:
        _refuse(f"no mode of {model.name} depends on {p}")
    return notes, varying, R_all


def first_switch(model, param: str, dps: int = 15, doublings: int = 5, *, force: bool = False):
    """The first stability switch of ``param`` from a stable equation, searched by
    :func:`lag_crossings` on ``(0, H]``, then ``(H, 2H]``, ... (``H = 4 pi / R`` rounded up).

    Parameters
    ----------
    model : Model
        A delay model free in the lag parameter ``param``, every other parameter a number.
    param : str
        The lag parameter.
    dps : int, default 15
        Significant digits of the switch (5..10000).
    doublings : int, default 5
        How often the range searched is doubled before the answer is refused as undecided.
    force : bool, default False
        Run each search when its estimated work is over the budget (:func:`lag_crossings`).

    Returns
    -------
    tuple
        ``(value, omega, mode, note)``: the switch (mpf; 0 when unstable for every small
        ``param``), its frequency, the mode that crosses and what was searched.

    Raises
    ------
    CertificationError
        No switch in the range searched (certified free of switches; beyond it undecided).
    """
    from symdelay.model.core import _symbol

    p = _symbol(param)
    if p not in getattr(model, "domains", {}) or p in model.values:
        _refuse(f"'{param}' is not a free parameter of {model.name}")
    if not any(p in lag.parameters() for lag in model.lags.values()):
        _refuse(f"{param} is not a parameter of a lag of {model.name}")
    modes = _modes(model, p)
    values = dict(model.values)

    def lags_at(v):
        return {n: lag.xreplace({**values, p: v}) for n, lag in model.lags.items()}

    _n, _v, R = _varying(model, p, modes, lags_at, sp.Integer(1))
    H = sp.Rational(math.ceil(4 * math.pi / float(R.upper()) * 8), 8)
    lo = sp.Integer(0)
    for _k in range(doublings + 1):
        s = lag_crossings(model, param, lo, H, dps, force=force)
        first = s.critical
        if first is not None:
            value, _bracket, omega = first
            if value == 0:
                return (
                    mpmath.mpf(0),
                    None,
                    None,
                    f"unstable for every small {param} > 0 (certified count "
                    f"{s.counts[0]} at {param} = {s.points[0]}, no switch below it)",
                )
            idx = [x[0] for x in s.switches].index(value)
            mode = s.switches[idx][5]
            return (
                value,
                omega[0],
                mode,
                f"first switch from stable; {param} in (0, {H}] searched, every switch "
                f"certified ({len(s.switches)} in ({lo}, {H}])",
            )
        lo, H = H, 2 * H
    raise CertificationError(
        f"no stability switch of {param} in (0, {lo}] (certified: the equation is stable "
        f"there); larger {param} was not searched, so the critical value is undecided: "
        f"give a range (window --in {param} --hi H)"
    )


def _q(x) -> flint.fmpq:
    return flint.fmpq(int(x.p), int(x.q))


def _exact_end(b: flint.arb, side: str) -> sp.Rational:
    e = b.lower() if side == "lower" else b.upper()
    m, ex = e.mid().man_exp()
    return sp.Rational(int(m)) * sp.Rational(2) ** int(ex)


def _assemble(model, p, found, lo_q, hi_q, dps, prec, R, examined, notes, lags_at, extra):
    """Group switches at one ``p``, certify the count on every gap, check the directions."""
    from symdelay.analysis.lagroots import unstable_count

    found.sort(key=lambda f: float(f[0].mid()))
    groups: list = []
    for f in found:
        if groups and any(f[0].overlaps(g[0]) for g in groups[-1]):
            groups[-1].append(f)
        else:
            groups.append([f])
    bounds = []  # exact brackets of each group
    for g in groups:
        a = min(_exact_end(f[0], "lower") for f in g)
        b = max(_exact_end(f[0], "upper") for f in g)
        bounds.append((a, b))
    for (_a1, b1), (a2, _b2) in itertools.pairwise(bounds):
        if not b1 < a2:
            raise CertificationError("two switches could not be separated: undecided")
    edges = [lo_q] + [x for ab in bounds for x in ab] + [hi_q]
    points = []
    for i in range(len(bounds) + 1):
        a, b = edges[2 * i], edges[2 * i + 1]
        points.append(_simple_between(a, b))
    lins = _lins(model, extra)
    counts = []
    for x in points:
        total = 0
        lags = lags_at(x)
        for _name, lin, copies in lins:
            c = unstable_count(lin, lags, dps=max(dps, 20))
            if c.unstable is None:
                raise CertificationError(f"the count at {p} = {x} is undecided: {c.decided_by}")
            total += copies * c.unstable
        counts.append(total)
    for i, g in enumerate(groups):
        change = sum(f[2] for f in g)
        if counts[i] + change != counts[i + 1]:
            raise VerificationError(
                f"the certified count goes from {counts[i]} to {counts[i + 1]} across the "
                f"switch near {p} = {_mpf(g[0][0])}, the crossings' directions give "
                f"{change:+d}: a crossing was missed"
            )
    with mpmath.workdps(dps + GUARD):
        switches = tuple(
            (
                _mpf(_hull(f[0] for f in g)),
                a,
                b,
                tuple(sorted(_mpf(f[1]) for f in g)),
                sum(f[2] for f in g),
                ",".join(sorted({f[3] for f in g})),
                sum(abs(f[2]) for f in g),
            )
            for g, (a, b) in zip(groups, bounds)
        )
        lo_m = mpmath.mpf(int(lo_q.p)) / int(lo_q.q)
        hi_m = mpmath.mpf(int(hi_q.p)) / int(hi_q.q)
    notes = list(notes)
    notes.append(
        f"every root with Re r >= 0 has |r| <= {R:.6g} for every {p} (|K(i w)| <= 1); "
        f"{examined} boxes of (omega, {p}) examined, none left undecided"
    )
    return LagCrossings(
        model.name, str(p), dps, lo_m, hi_m, switches, tuple(counts), tuple(points),
        mpmath.mpf(R), examined, tuple(notes),
    )  # fmt: skip


def _hull(balls):
    out = None
    for b in balls:
        out = b if out is None else out.union(b)
    return out


def _simple_between(a, b) -> sp.Rational:
    """A rational of small height strictly inside ``(a, b)``."""
    from fractions import Fraction

    fa, fb = Fraction(int(a.p), int(a.q)), Fraction(int(b.p), int(b.q))
    mid = (fa + fb) / 2
    for den in itertools.chain(range(1, 64), (2**k for k in range(6, 200))):
        x = Fraction(round(mid * den), den)
        if fa < x < fb:
            return sp.Rational(x.numerator, x.denominator)
    return sp.Rational(mid.numerator, mid.denominator)


# ====================================================================== worst lag
WORST_ALGORITHM = (
    "certified bracket (lag parameter): theta* = inf over the range of the lag parameter of "
    "the critical theta lies in (theta_lo, theta_hi]: at theta_hi a certified unstable "
    "interval of the lag parameter (crossings by Krawczyk, argument-principle counts); "
    "below theta_lo no root on the imaginary axis for any theta in (0, theta_lo] and any "
    "value of the lag parameter in range (Arb subdivision of (omega, lag, theta), every box "
    "excluded); bisection in theta"
)


@dataclass(frozen=True)
class LagWorst:
    """The least critical ``param`` over the lag parameter ``over`` in ``(lo, hi]``, proved
    to lie in ``(critical_lo, critical_hi]`` (exact rationals); at ``critical_hi`` the
    equilibrium is unstable for every ``over`` in ``(x_lower, x_upper)`` (exact), ``x_star``
    its midpoint, ``omega`` the frequencies at its ends; ``at_end``: that interval reaches
    ``hi`` (the least value over the range is at its end); ``digits``: the significant
    digits both brackets support."""

    x_star: object
    x_lower: object
    x_upper: object
    critical: object
    critical_lo: object
    critical_hi: object
    omega: tuple
    at_end: bool
    digits: int
    notes: tuple
    algorithm: str = WORST_ALGORITHM


def _exclude3(ev: _Eval, region, weights, max_boxes, deadline):
    """``(True, boxes)`` when no ``(w, p, q)`` in ``region`` has ``F = 0`` (every box's
    enclosure omits 0), ``(False, boxes)`` when the budget ran out first."""
    stack = [region]
    seen = 0
    cw, cq = weights
    while stack:
        box = stack.pop()
        seen += 1
        if seen > max_boxes or time.process_time() > deadline:
            return False, seen
        wa, wb, pa, pb, qa, qb = box
        if not _has_zero(ev.F(_box(wa, wb), _box(pa, pb), _box(qa, qb))):
            continue
        sw = (wb - wa) * (1 + cw * max(pb, 1.0))
        sp_ = (pb - pa) * cw * max(wb, 1e-9)
        sq = (qb - qa) * cq
        if max(sw, sp_, sq) < _MIN_WIDTH * (1 + cw):
            return False, seen
        if sw >= sp_ and sw >= sq:
            m = (wa + wb) / 2
            stack.extend([(wa, m, pa, pb, qa, qb), (m, wb, pa, pb, qa, qb)])
        elif sp_ >= sq:
            m = (pa + pb) / 2
            stack.extend([(wa, wb, pa, m, qa, qb), (wa, wb, m, pb, qa, qb)])
        else:
            m = (qa + qb) / 2
            stack.extend([(wa, wb, pa, pb, qa, m), (wa, wb, pa, pb, m, qb)])
    return True, seen


def _exclude2(ev: _Eval, region, qa, qb, max_boxes, deadline):
    """:func:`_exclude3` for a scalar mode, ``F = A + q B`` with ``q`` eliminated: a box of
    ``(w, p)`` holds no root with ``q`` in ``[qa, qb]`` when ``0`` is outside
    ``A + [qa, qb] B``, or when ``B`` omits 0 and ``-A/B`` is not real in ``[qa, qb]``."""
    qX = _box(qa, qb)
    stack = [region]
    seen = 0
    while stack:
        box = stack.pop()
        seen += 1
        if seen > max_boxes or time.process_time() > deadline:
            return False, seen
        wa, wb, pa, pb = box
        A, B = ev.AB(_box(wa, wb), _box(pa, pb))
        if not _has_zero(A + qX * B):
            continue
        if not _has_zero(B):
            T = -A / B
            if not T.imag.contains(0) or not T.real.overlaps(qX):
                continue
        if max((wb - wa) / max(region[1] - region[0], 1e-300),
               (pb - pa) / max(region[3] - region[2], 1e-300)) < _MIN_WIDTH:  # fmt: skip
            return False, seen
        if (wb - wa) * max(abs(pa), abs(pb), 1.0) >= (pb - pa) * max(abs(wa), abs(wb), 1e-9):
            m = (wa + wb) / 2
            stack.extend([(wa, m, pa, pb), (m, wb, pa, pb)])
        else:
            m = (pa + pb) / 2
            stack.extend([(wa, wb, pa, m), (wa, wb, m, pb)])
    return True, seen


def _digits(a, b) -> int:
    """Significant digits shared by the reals ``a <= b`` (their relative gap)."""
    if b == a:
        return 99
    gap = abs(float(b - a)) / max(abs(float(b)), 1e-300)
    return max(0, math.floor(-math.log10(gap)))


def lag_worst(
    model,
    over: str,
    param: str = "theta",
    lo=0,
    hi=None,
    dps: int = 15,
    *,
    digits: int = 4,
    force: bool = False,
    max_boxes: int = 200_000,
) -> LagWorst:
    """The least critical ``param`` over the lag parameter ``over`` in ``(lo, hi]``: a
    certified bracket, bisected to ``digits`` significant digits (see
    :data:`WORST_ALGORITHM`).

    Parameters
    ----------
    model : Model
        A delay model, free in ``over`` (a lag's parameter) and ``param`` (a rate parameter
        entering the characteristic function affinely, with the equilibrium stable and free
        of ``over`` at ``param = 0``); every other parameter a number.
    over : str
        The lag parameter.
    param : str, default "theta"
        The parameter whose critical value is minimised.
    lo, hi : number or str
        The range of ``over``; ``hi`` finite (the search box must be compact).
    dps : int, default 15
        Digits of the crossings computed on the way (5..10000).
    digits : int, default 4
        Significant digits of the bracket of the least critical value (1..12): each digit
        costs a few bisections; the work near the minimum grows as the bracket narrows.
    force : bool, default False
        Lift the budgets.
    max_boxes : int, default 200000
        Boxes per exclusion step before the bracket is left where it is (and says so).

    Returns
    -------
    LagWorst
        The bracket ``(critical_lo, critical_hi]``, the unstable interval of ``over`` at
        ``critical_hi``, and how many digits are proved.
    """
    from symdelay.core.symbols import r as R_SYMBOL
    from symdelay.model.core import _symbol

    dps = as_dps(dps)
    if not (isinstance(digits, int) and 1 <= digits <= 12):
        _refuse(f"digits must be an integer 1..12, got {digits!r}")
    x, q = _symbol(over), _symbol(param)
    for sym, nm in ((x, over), (q, param)):
        if sym not in getattr(model, "domains", {}):
            _refuse(f"'{nm}' is not a parameter of {model.name}")
        if sym in model.values:
            _refuse(f"{nm} has a value ({model.values[sym]}) in {model.name}: leave it free")
    if hi is None:
        _refuse(
            f"the worst {over} of {model.name} (a distributed, several or neutral lag) is "
            f"searched over a bounded range: give hi (--hi; the largest {over} of interest)"
        )
    lo_q = _exact_number("lo", 0 if lo is None else lo)
    hi_q = _exact_number("hi", hi)
    if lo_q < 0 or not hi_q > lo_q:
        _refuse(f"give 0 <= lo < hi for {over}, got {lo}, {hi}")
    modes = _modes(model, x, free=(q,))
    notes = []
    for mode in modes:
        if sp.simplify(sp.diff(mode.F, q, 2)) != 0:
            _refuse(
                f"{param} enters mode {mode.name} non-affinely: the worst lag needs A + {param} B"
            )
        A = sp.simplify(mode.F.subs(q, 0))
        if x in A.free_symbols:
            _refuse(
                f"at {param} = 0 mode {mode.name} still depends on {over}: the worst {over} "
                f"needs a {param} that switches the delayed feedback on"
            )
        try:
            coeffs = [sp.Rational(c) for c in sp.Poly(sp.expand(A), R_SYMBOL).all_coeffs()]
        except (sp.PolynomialError, TypeError):
            _refuse(f"mode {mode.name} at {param} = 0 is not a polynomial: not handled")
        from symdelay.analysis.polyroots import exact_counts

        c0 = exact_counts(coeffs)
        if c0.rhp or c0.axis:
            _refuse(
                f"mode {mode.name} at {param} = 0 has {c0.rhp} roots in Re r > 0 and {c0.axis} "
                f"on the axis: the critical {param} is 0, nothing to minimise"
            )
    varying = [m for m in modes if q in m.F.free_symbols]
    if not varying:
        _refuse(f"no mode of {model.name} depends on {param}")
    deadline = math.inf if force else time.process_time() + 120  # CPU seconds: load-proof

    def unstable_at(theta):
        """The first unstable interval of ``over`` at ``param = theta``, or None."""
        s = lag_crossings(model, over, lo_q, hi_q, dps, force=force, extra={q: theta})
        for i, n in enumerate(s.counts):
            if n > 0:
                a = lo_q if i == 0 else s.switches[i - 1][2]
                b = hi_q if i == len(s.switches) else s.switches[i][1]
                om = tuple(s.switches[j][3][0] for j in (i - 1, i) if 0 <= j < len(s.switches))
                return a, b, om, i == len(s.switches)
        return None

    # an upper bound: double theta until some lag in range is unstable
    theta_hi, found = sp.Integer(1), None
    for k in range(40):
        t0 = time.process_time()
        try:
            found = unstable_at(theta_hi)
        except SymdelayInputError as exc:
            if "difference operator" not in str(exc) or k == 0:
                raise
            raise SymdelayInputError(
                f"the least critical {param} is not bracketed: no {over} in ({lo_q}, {hi_q}] "
                f"is unstable at {param} = {theta_hi / 2} (certified), and at {param} = "
                f"{theta_hi} {str(exc)[0].lower()}{str(exc)[1:]}"
            ) from None
        if k == 0:  # the cost: a crossing search per bisection step, and an exclusion
            from symdelay.core.budget import check_budget

            check_budget(
                f"the worst {over} to {digits} digits (about {int(3.4 * digits) + 4} crossing "
                f"searches over {over} in ({lo_q}, {hi_q}] and as many exclusions)",
                (time.process_time() - t0) * (3.4 * digits + 4) * 3,
                force=force,
                shrink=f"fewer digits or a smaller hi for {over}",
            )
        if found is not None:
            break
        if time.process_time() > deadline:
            break
        theta_hi *= 2
    if found is None:
        raise CertificationError(
            f"no {param} up to {theta_hi} makes any {over} in ({lo}, {hi}] unstable (certified "
            f"at {param} = 1, 2, 4, ..., {theta_hi}); the least critical {param} is not bracketed"
        )
    theta_lo = sp.Integer(0)
    prec = 64
    evs = [_Eval(m, x, prec, q) for m in varying]
    lo_f = math.nextafter(float(lo_q), -math.inf) if lo_q > 0 else 0.0
    hi_f = math.nextafter(float(hi_q), math.inf)
    boxes = 0
    stopped = None
    while _digits(theta_lo, theta_hi) < digits:
        mid = _simple_between(theta_lo, theta_hi)
        got = None
        try:
            got = unstable_at(mid)
        except CertificationError:
            got = None
        if got is not None:
            theta_hi, found = mid, got
            continue
        # exclude every crossing for theta in [theta_lo, mid]
        Rm = _bound_up_to(model, x, q, mid, lo_q, hi_q)
        ok = True
        for ev, mode in zip(evs, varying):
            cw, cq = _weights(mode, q, mid)
            w0 = 0.0 if mode.real else -Rm
            qa, qb = _down(theta_lo), math.nextafter(float(mid), math.inf)
            with flint.ctx.workprec(prec):
                if mode.n == 1 and all(
                    sp.diff(e, q, 2) == 0 for M in (mode.A0, *(t[0] for t in mode.terms)) for e in M
                ):
                    done, seen = _exclude2(ev, (w0, Rm, lo_f, hi_f), qa, qb, max_boxes, deadline)
                else:
                    done, seen = _exclude3(
                        ev, (w0, Rm, lo_f, hi_f, qa, qb), (cw, cq), max_boxes, deadline
                    )
            boxes += seen
            if not done:
                ok = False
                break
        if not ok:
            stopped = mid
            break
        theta_lo = mid
    a, b, om, at_end = found
    d = _digits(theta_lo, theta_hi)
    with mpmath.workdps(dps + GUARD):
        xm = (mpmath.mpf(int(a.p)) / int(a.q) + mpmath.mpf(int(b.p)) / int(b.q)) / 2
        if at_end:  # the least value over the range is approached at its end
            xm = mpmath.mpf(int(hi_q.p)) / int(hi_q.q)
        crit = mpmath.mpf(int(theta_hi.p)) / int(theta_hi.q)
    notes.append(
        f"{param}* = inf of the critical {param} over {over} in ({lo_q}, {hi_q}] lies in "
        f"({theta_lo}, {theta_hi}] ({d} significant digits proved); at {param} = "
        f"{theta_hi} the equilibrium is unstable for every {over} in ({float(a):.10g}, "
        f"{float(b):.10g}) (certified), {over}* is reported as its midpoint (its end "
        "when it reaches the end of the range)"
    )
    if stopped is not None:
        notes.append(
            f"the exclusion below {param} = {stopped} ran out of budget ({boxes} boxes): the "
            f"bracket is left at {d} digits (force=True / --force lifts the budget)"
        )
    if at_end:
        notes.append(
            f"the unstable interval reaches {over} = {hi}: the least critical {param} over "
            f"the range is at its end; larger {over} was not examined"
        )
    notes.append(f"{boxes} boxes of (omega, {over}, {param}) excluded")
    return LagWorst(xm, a, b, crit, theta_lo, theta_hi, om, at_end, d, tuple(notes))


def _down(v) -> float:
    f = float(v)
    return math.nextafter(f, -math.inf) if f > 0 else 0.0


def _weights(mode, q, qmax):
    """Scales of ``|dF/dw|`` and ``|dF/dq|`` for choosing the dimension to bisect."""
    cw = sum(abs(float(e.xreplace({q: qmax}))) for M, _l, _d in mode.terms for e in M) + 1e-9
    cq = sum(abs(float(sp.diff(e, q))) for M, _l, _d in mode.terms for e in M)
    cq += sum(abs(float(sp.diff(e, q))) for e in mode.A0) + 1e-9
    return cw, cq


def _bound_up_to(model, x, q, qmax, lo_q, hi_q) -> float:
    """A bound on ``|r|`` over the roots with ``Re r >= 0`` for every ``q`` in ``[0, qmax]``
    and every value of the lag parameter: the matrices' entries replaced by their largest
    modulus on ``[0, qmax]`` (entries affine in ``q``: at an end), which bounds every
    ``|entry|`` (:func:`root_bound` uses only the moduli)."""
    from types import SimpleNamespace

    from symdelay.analysis.lagroots import CharacteristicMatrix, root_bound

    values = dict(model.values)
    at = (lo_q + hi_q) / 2
    lags = {n: lag.xreplace({**values, x: at}) for n, lag in model.lags.items()}
    R = 0.0
    for _name, lin, _c in _lins(model):

        def big(M):
            M = sp.Matrix(M)
            return M.applyfunc(lambda e: max(abs(e.xreplace({q: 0})), abs(e.xreplace({q: qmax}))))

        lin2 = SimpleNamespace(
            A0=big(lin.A0),
            terms=tuple(
                SimpleNamespace(
                    matrix=big(t.matrix), kernel=t.kernel, lags=t.lags, derivative=t.derivative
                )
                for t in lin.terms
            ),
        )
        Rb, _rho = root_bound(CharacteristicMatrix(lin2, lags))
        if Rb is None or not Rb.is_finite():
            _refuse("no bound on the roots in Re r >= 0: undecided")
        R = max(R, float(Rb.upper()))
    return R * (1 + 2**-20) + 2**-20


# ============================================== stable for every value of a scale lag
#: The most intervals of ``phi`` the scale-family proof examines before it gives up (the
#: general search then answers as before).
SCALE_MAX_INTERVALS = 200_000

#: The scale families accepted, with the keys that scale with the lag parameter.
_SCALED = {"uniform": ("low", "high"), "gamma": ("mean",), "exponential": ("mean",)}


def _scale_unit(lag, p):
    """The law of ``Y`` when ``lag`` is ``X = p Y`` with the law of ``Y`` free of ``p`` (then
    ``K(s; p) = k(s p)``, ``k`` the Laplace transform of ``Y``), else None. Accepted: a
    uniform lag on ``[alpha_0 p, alpha_1 p]``, a gamma lag of fixed shape with mean
    ``alpha p``, an exponential lag with mean ``alpha p``."""
    keys = _SCALED.get(lag.kind)
    if keys is None:
        return None
    for key, e in lag.args.items():
        e = sp.sympify(e)
        if key in keys:
            q = sp.cancel(e / p)
            if p in q.free_symbols or q.free_symbols or not q.is_Rational or q < 0:
                return None
        elif p in e.free_symbols:
            return None
    unit = lag.xreplace({p: sp.Integer(1)})
    if lag.kind == "uniform" and not unit.args["high"] > unit.args["low"]:
        return None
    return unit


def _tail(unit, ratio: flint.arb):
    """``(Phi, bound text)``: for ``phi >= Phi``, ``|k(i phi)| <= B(Phi)`` with ``B``
    decreasing and ``ratio * B(Phi) <= 1/2`` (``ratio`` an upper bound of ``|c| / |a|``),
    so ``|c k(i phi)| < |a|`` beyond ``Phi``.

    * uniform on ``[a0, a1]``: ``k(i phi) = (e^{-i phi a0} - e^{-i phi a1}) / (i phi (a1 -
      a0))``, so ``|k(i phi)| <= 2 / (phi (a1 - a0))``;
    * gamma of shape ``kappa``, mean ``m`` (exponential: ``kappa = 1``): ``|k(i phi)| =
      |1 + i phi m/kappa|^-kappa = (1 + (phi m/kappa)^2)^(-kappa/2) <= (phi m/kappa)^-kappa``.
    """
    from symdelay.analysis.lagkernels import _ball, lag_number

    if unit.kind == "uniform":
        width = _ball(lag_number(unit, "high")) - _ball(lag_number(unit, "low"))
        C = 2 / width
        Phi = 2 * ratio * C  # ratio * C / Phi = 1/2
        text = f"|k(i phi)| <= {C.str(5, radius=False)}/phi"
    else:
        kappa = flint.arb(1) if unit.kind == "exponential" else _ball(lag_number(unit, "shape"))
        s = kappa / _ball(lag_number(unit, "mean"))
        Phi = s * (2 * ratio) ** (1 / kappa)  # ratio * (Phi / s)^-kappa = 1/2
        text = f"|k(i phi)| <= ({s.str(5, radius=False)}/phi)^{kappa.str(5, radius=False)}"
    up = Phi.upper()
    if not up.is_finite():
        return None
    return math.nextafter(float(up.mid() + up.rad()), math.inf), text


def _phi_scan(a, c, k, phi0: float, Phi: float, width: float, max_intervals=None):
    """Arb subdivision of ``[phi0, Phi]`` for ``Re(c k(i phi)) = -a`` with ``Im(c k(i phi))
    < 0``: an interval goes when the enclosure of ``Re(c k) + a`` omits 0 or that of ``Im(c
    k)`` is ``>= 0``; one narrower than ``width`` is kept as ``(u, v, w_min)``, ``w_min`` a
    positive lower bound of ``-Im(c k(i phi))`` on it (None when not proved). Returns
    ``(intervals examined, kept)``, or ``(None, kept)`` when the budget ends."""
    max_intervals = SCALE_MAX_INTERVALS if max_intervals is None else max_intervals
    edges = [phi0 + (Phi - phi0) * i / 16 for i in range(16)] + [Phi]
    stack = list(itertools.pairwise(edges))[::-1]
    left, examined = [], 0
    while stack:
        u, v = stack.pop()
        examined += 1
        if examined > max_intervals:
            return None, left
        val = c * k(flint.acb(0, _box(u, v)))
        g = val.real + a
        if not g.contains(0) or val.imag.lower() >= 0:
            continue
        m = u + (v - u) / 2
        if v - u <= width or not u < m < v:
            w_min = -val.imag.upper()
            left.append((u, v, w_min if w_min > 0 else None))
            continue
        stack.extend(((m, v), (u, m)))
    return examined, left


def stable_for_every(model, param: str, dps: int = 15):
    """``"stable for every P > 0 (proved: ...)"`` when a proof applies, else None.

    It applies when every mode that depends on the lag parameter ``P`` is scalar,
    ``r + a + c k(r P)`` with real ``a``, ``c`` and one scale-family kernel (``K(s; P) =
    k(s P)``: uniform ``[alpha_0 P, alpha_1 P]``, gamma of fixed shape or exponential with
    mean ``alpha P``). With ``r = i w`` and ``phi = w P``, a root on the axis at some
    ``P > 0`` is ``c k(i phi) = -(i w + a)``: ``Re(c k(i phi)) = -a`` with ``w = -Im(c k(i
    phi)) > 0``, ``P = phi / w``; and ``r = 0`` is a root only when ``a + c = 0`` (``k(0) =
    1``, for every ``P``). Proved absent: on ``(0, phi_0]`` by ``|k(i phi) - 1| <= phi E[Y]``
    (``phi_0 = |a + c| / (2 |c| E[Y])``), beyond ``Phi`` by the kernel's tail bound
    (:func:`_tail`, ``|c k(i phi)| < |a|``), between by Arb subdivision (:func:`_phi_scan`).
    Roots with ``Re r >= 0`` stay in ``|r| <= |a| + |c|`` (``|k| <= 1``), so the unstable
    count is then the same for every ``P > 0``: it is certified at ``P = 1``
    (:func:`symdelay.analysis.lagroots.unstable_count`, every mode) and the answer given
    when it is 0. None (the general search answers) when the form does not apply, a
    ``phi`` is not excluded (a crossing exists) or the count is not 0.
    """
    from symdelay.analysis.lagkernels import kernel
    from symdelay.analysis.lagroots import unstable_count
    from symdelay.model.core import _symbol

    p = _symbol(param)
    found = _scale_modes(model, p)
    if not found:
        return None
    proofs = []
    for mode, unit, a, c, phi0, Phi, bound in found:
        n = 0
        if Phi > phi0:
            with flint.ctx.workprec(64):
                n, left = _phi_scan(a, c, kernel(unit), phi0, Phi, 1e-9 * Phi)
            if n is None or left:
                return None  # a crossing, a tangency not resolved, or the budget
        proofs.append(
            f"mode {mode.name} is r + a + c k(r {p}) with a = {a.str(8, radius=False)}, "
            f"c = {c.str(8, radius=False)} and the {unit.kind} kernel: no phi > 0 with "
            f"Re(c k(i phi)) = -a and Im(c k(i phi)) < 0 (none below {phi0:.4g}: "
            f"|k(i phi) - 1| <= phi E[Y]; none beyond {Phi:.4g}: {bound}; "
            f"{n} intervals between excluded in Arb), and a + c != 0"
        )
    if not proofs:
        return None
    lags_at_1 = {
        n: lag.xreplace({**model.values, p: sp.Integer(1)}) for n, lag in model.lags.items()
    }
    for _name, lin, _copies in _lins(model):
        cnt = unstable_count(lin, lags_at_1, dps=max(dps, 20))
        if cnt.unstable != 0:
            return None
    return (
        f"stable for every {p} > 0 (proved: {'; '.join(proofs)}; so no root reaches the axis "
        f"as {p} varies and the certified count at {p} = 1 is 0)"
    )
