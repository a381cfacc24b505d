"""What the fixed- and moving-equilibrium stability maps share: the records
(:class:`MapCurve`, :class:`StabilityMap`), pseudo-arclength continuation (:class:`_Tracer`),
the Krawczyk proofs in Arb (:func:`_krawczyk`, :func:`prove_zero_along`), the grouping of cells
into regions and the second net (:func:`unexplained_pairs`). The maps themselves are
:mod:`symdelay.analysis.stability_map` (a polynomial characteristic factor, equilibrium fixed)
and :mod:`symdelay.analysis.stability_map_moving` (an equilibrium that moves with the axes)."""

from __future__ import annotations

import itertools
import operator
from dataclasses import dataclass, field
from functools import cached_property

import flint
import mpmath
import numpy as np

from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.core.numbers import format_number
from symdelay.core.precision import GUARD, work_bits
from symdelay.core.result import Result
from symdelay.core.symbols import r as R_SYMBOL

W = sp.Symbol("w_", real=True)  # the crossing frequency (an internal unknown)


#: steps of the continuation (scaled arclength in the box's unit square)
H_START, H_MAX, H_MIN = 0.004, 0.02, 1e-7


MAX_STEPS = 4000


#: what a map says of a Hopf curve whose imaginary pair is multiple
MULTIPLE_HOPF = (
    "multiple imaginary pair (a factor of multiplicity >= 2, the model's symmetry): no "
    "scalar l1, no criticality or Bautin point on this curve"
)


@dataclass(frozen=True)
class MapCurve:
    """One traced branch: ``kind`` ``"hopf"`` or ``"fold"``, the factor's index in
    ``model.factors``, its points ``(x, y, omega)`` (mpmath, certified) in order along the
    branch, and ``ends``: why it stopped at each end (``"box edge"``, ``"omega -> 0"``,
    ``"closed"``, ``"step limit"``, ``"step too small"``); ``multiplicity``: the factor's
    (>= 2: a symmetry makes the imaginary pair of a Hopf curve multiple, where no scalar
    ``l1`` is defined)."""

    kind: str
    factor: int
    points: tuple
    ends: tuple = ()
    multiplicity: int = 1

    def arrays(self):
        """``(x, y, omega)`` as float arrays."""
        a = np.array([[float(v) for v in p] for p in self.points], dtype=float)
        return a[:, 0], a[:, 1], a[:, 2]


@dataclass(frozen=True)
class StabilityMap(Result):
    """The stability map of ``model_name`` over the box ``x`` x ``y`` (each ``(name, lo,
    hi)``, exact): ``curves`` (:class:`MapCurve`), ``special_points`` (dicts with ``type``,
    ``x``, ``y``, ``omega`` (a tuple for a double Hopf), ``factor``, ``certified``),
    ``regions`` (dicts: ``unstable_roots``, ``point`` (exact rationals), ``cells``),
    ``cell_counts`` (the exact count at each cell centre, rows in ``y``), ``searched``
    (what grid seeded the search), ``notes``; ``fold_of_cycles``: from each Bautin point,
    the curve of folds of cycles in the same two parameters
    (:class:`symdelay.analysis.fold_cycles.FoldCurve`)."""

    model_name: str = field()
    x: tuple
    y: tuple
    fixed: dict
    dps: int
    curves: tuple
    special_points: tuple
    regions: tuple
    cell_counts: tuple
    cell_regions: tuple
    searched: str
    notes: tuple = ()
    method: str = ""
    fold_of_cycles: tuple = ()

    def _num(self, v):
        return format_number(v, self.dps)

    def record(self) -> dict:
        d = self._num
        return {
            "x": {"name": self.x[0], "lo": str(self.x[1]), "hi": str(self.x[2])},
            "y": {"name": self.y[0], "lo": str(self.y[1]), "hi": str(self.y[2])},
            "fixed": dict(self.fixed),
            "dps": self.dps,
            "curves": [
                {
                    "kind": c.kind,
                    "factor": c.factor,
                    "multiplicity": c.multiplicity,
                    "ends": list(c.ends),
                    "points": [{"x": d(a), "y": d(b), "omega": d(w)} for a, b, w in c.points],
                    **(
                        {"l1": None, "l1_note": MULTIPLE_HOPF}
                        if c.kind == "hopf" and c.multiplicity >= 2
                        else {}
                    ),
                }
                for c in self.curves
            ],
            "special_points": [
                {
                    "type": s["type"],
                    "x": d(s["x"]),
                    "y": d(s["y"]),
                    "omega": (
                        [d(w) for w in s["omega"]]
                        if isinstance(s["omega"], tuple)
                        else d(s["omega"])
                    ),
                    "factor": s["factor"],
                    "certified": s["certified"],
                    **(
                        {
                            "l1_left": d(s["l1_left"]),
                            "l1_right": d(s["l1_right"]),
                            "l2": d(s.get("l2")),
                            "l2_radius": (
                                None
                                if s.get("l2_radius") is None
                                else format_number(s["l2_radius"], 3)
                            ),
                            "fold_side": s.get("fold_side"),
                            "l2_note": s.get("l2_note"),
                        }
                        if s["type"] == "bautin"
                        else {}
                    ),
                }
                for s in self.special_points
            ],
            "regions": [
                {
                    "unstable_roots": g["unstable_roots"],
                    "point": {"x": str(g["point"][0]), "y": str(g["point"][1])},
                    "cells": g["cells"],
                }
                for g in self.regions
            ],
            "grid": {"cells_x": len(self.cell_counts[0]), "cells_y": len(self.cell_counts)},
            "searched": self.searched,
            "method": self.method,
            "notes": list(self.notes),
            # from each Bautin point, the curve of folds of cycles (double precision)
            "fold_of_cycles": [c.record() for c in self.fold_of_cycles],
        }

    def latex(self) -> str:
        from symdelay.core.latex import tex
        from symdelay.model.core import _symbol

        xs, ys = tex(_symbol(self.x[0])), tex(_symbol(self.y[0]))
        rows = []
        for s in self.special_points:
            w = s["omega"]
            wt = ", ".join(mpmath.nstr(v, 12) for v in w) if isinstance(w, tuple) else None
            wt = wt if wt is not None else mpmath.nstr(w, 12)
            rows.append(
                rf"\text{{{s['type'].replace('_', ' ')}}}: &\quad {xs} = {mpmath.nstr(s['x'], 12)},"
                rf"\ {ys} = {mpmath.nstr(s['y'], 12)},\ \omega = {wt}"
            )
        if not rows:
            return r"\text{no special points in the box}"
        return r"\begin{aligned}" + r"\\ ".join(rows) + r"\end{aligned}"

    def table(self):
        """The special points and the regions (Jupyter shows it)."""
        xs, ys = self.x[0], self.y[0]
        rows = []
        for s in self.special_points:
            w = s["omega"]
            wt = ", ".join(self._num(v) for v in w) if isinstance(w, tuple) else self._num(w)
            rows.append([s["type"], self._num(s["x"]), self._num(s["y"]), wt])
        for g in self.regions:
            rows.append(
                [f"region: {g['unstable_roots']} unstable roots", str(g["point"][0]),
                 str(g["point"][1]), f"{g['cells']} cells"]
            )  # fmt: skip
        return ["", xs, ys, "omega"], rows, f"stability map of {self.model_name}"

    def crossings(self, *, x=None, y=None) -> list:
        """Where the traced boundaries cross the line ``x = value`` (or ``y = value``):
        ``[(other coordinate, omega, kind, factor, certified)]`` sorted, each refined by
        Newton at ``dps + 10`` digits on the crossing equations with the line's coordinate
        exact and proved by Krawczyk (``certified``). Only crossings of traced branches."""
        if (x is None) == (y is None):
            raise SymdelayInputError("give x= or y= (one line)")
        return self._details["crossings"](x=x, y=y)

    @property
    def _details(self):
        return self.__dict__["_private"]


class System:
    """Equations ``exprs`` in the unknowns ``syms``: values and Jacobian in numpy (``f``,
    ``J``), mpmath (``fm``, ``Jm``) and Arb balls (``arb``). ``polynomial``: polynomials with
    rational coefficients (a characteristic factor's crossing equations), expanded and
    evaluated term by term with the exact coefficients (:class:`_PolyEval`); otherwise any
    expressions (``exp`` and the other functions of a moving equilibrium), evaluated by
    lambdify and :func:`symdelay.model.arb_eval.arb_evaluator`, in mpmath where doubles
    overflow (:func:`_finite`)."""

    def __init__(self, exprs, syms, *, polynomial=True):
        self.polynomial = polynomial
        self.exprs = [sp.expand(e) for e in exprs] if polynomial else list(exprs)
        self.syms = list(syms)
        self.jac = [[sp.diff(e, s) for s in self.syms] for e in self.exprs]
        self._np = sp.lambdify(self.syms, self.exprs, "numpy", cse=not polynomial)
        self._npj = sp.lambdify(self.syms, self.jac, "numpy", cse=not polynomial)

    def f(self, z):
        if self.polynomial:
            return np.array(self._np(*z), dtype=float)
        return _finite(self._np, lambda *a: self.fm(a), z)

    def J(self, z):
        if self.polynomial:
            return np.array(self._npj(*z), dtype=float)
        flat = _finite(self._npj, lambda *a: self._exact[1](a), z)
        return flat.reshape(len(self.exprs), len(self.syms))

    def fm(self, z):
        return self._exact[0](z)

    def Jm(self, z):
        flat, k = self._exact[1](z), len(self.syms)
        return [flat[i * k : (i + 1) * k] for i in range(len(self.exprs))]

    def arb(self):
        """``(F, J)``: values and the Jacobian (flattened by rows) on Arb balls."""
        return self._exact[2:]

    @cached_property
    def _exact(self):
        """The mpmath and Arb evaluators (values, Jacobian by rows), built at first use."""
        flat = [e for row in self.jac for e in row]
        if self.polynomial:
            fs = [_PolyEval(e, self.syms) for e in self.exprs]
            js = [_PolyEval(e, self.syms) for e in flat]

            def on(polys, coeff):
                return lambda z: [p.at(z, coeff) for p in polys]

            return on(fs, _mp_coeff), on(js, _mp_coeff), on(fs, flint.arb), on(js, flint.arb)
        from symdelay.model.arb_eval import arb_evaluator

        fm, jm = (sp.lambdify(self.syms, e, "mpmath", cse=True) for e in (self.exprs, flat))
        return (
            lambda z: list(fm(*z)),
            lambda z: list(jm(*z)),
            arb_evaluator(self.exprs, self.syms, cse=True),
            arb_evaluator(flat, self.syms, cse=True),
        )


def _mp_coeff(q: flint.fmpq):
    return mpmath.mpf(int(q.p)) / int(q.q)


class _PolyEval:
    """A polynomial with exact rational coefficients, evaluated term by term in any ring
    (Arb balls: rigorous, the coefficients exact ``fmpq`` made balls at the working
    precision; mpmath: at the working precision)."""

    def __init__(self, expr, syms):
        P = sp.Poly(expr, *syms)
        self.terms = [
            (exps, flint.fmpq(int(sp.Rational(c).p), int(sp.Rational(c).q)))
            for exps, c in P.terms()
        ]
        self.deg = [max((e[i] for e, _ in self.terms), default=0) for i in range(len(syms))]

    def at(self, z, coeff):
        # powers[i][e - 1] = z[i]^e, one multiplication each
        powers = [list(itertools.accumulate([v] * d, operator.mul)) for v, d in zip(z, self.deg)]
        total = None
        for exps, c in self.terms:
            t = coeff(c)
            for i, e in enumerate(exps):
                if e:
                    t = t * powers[i][e - 1]
            total = t if total is None else total + t
        return coeff(flint.fmpq(0)) if total is None else total


def _finite(fast, exact_range, args):
    """``fast(*args)`` (numpy) as a float array, or, where doubles overflow or give 0/0 (a
    logit ``exp(-q1 theta) / (exp(-q1 theta) + exp(-q2 theta))`` at large ``theta``), the
    same expressions in mpmath (unbounded exponents) rounded to doubles."""
    with np.errstate(all="ignore"):
        out = np.array(fast(*args), dtype=float).ravel()
    if np.all(np.isfinite(out)):
        return out
    with mpmath.workdps(20):
        vals = exact_range(*(mpmath.mpf(float(a)) for a in args))
        return np.array([float(v) for v in np.ravel(np.array(vals, dtype=object))], dtype=float)


def _split(num):
    """``(Re, Im1)``: ``P(i w) = Re + i w Im1`` for the real polynomial ``num`` in r."""
    P = sp.Poly(num, R_SYMBOL)
    re, im = sp.Integer(0), sp.Integer(0)
    for (k,), c in P.terms():
        sign = -1 if (k // 2) % 2 else 1
        if k % 2 == 0:
            re += sign * c * W**k
        else:
            im += sign * c * W ** (k - 1)
    return sp.expand(re), sp.expand(im)


def _krawczyk(system, mid, free, fixed_vals, rel, *, boxes=None):
    """Prove one zero of ``system`` in a box ``m +- rho`` over the unknowns ``free``
    (indices into ``system.syms``; the others held at exact ``fixed_vals``, fmpq), ``m`` the
    approximate zero ``mid`` (double precision is enough) refined by chord steps ``m - C F(m)``
    in Arb (``C`` an approximate inverse of the Jacobian: each step gains about as many digits
    as ``C`` has). Returns ``(exp10, m)``: the radius proved, ``10^-exp10 (1 + |m|)``, and the
    refined zero (mpf), or ``(None, None)``. A fixed value may be an Arb ball (the test then
    proves one zero for every value in it); ``boxes``, a list, receives the proved boxes."""
    F, Jf = system.arb()
    n = len(system.syms)
    k = len(free)
    with flint.ctx.workprec(work_bits(rel, guard=2 * GUARD)):

        def point(vals):
            z = [None] * n
            j = 0
            for i in range(n):
                if i in free:
                    z[i] = vals[j]
                    j += 1
                else:
                    z[i] = fixed[i]
            return z

        # exact values become balls at this precision (an arb made outside has 53 bits)
        fixed = [None if v is None else (v if isinstance(v, flint.arb) else flint.arb(v))
                 for v in fixed_vals]  # fmt: skip

        def matrix(flat):  # the free columns of a Jacobian flattened by rows
            return flint.arb_mat(k, k, [flat[r * n + free[c]] for r in range(k) for c in range(k)])

        m = flint.arb_mat(k, 1, [flint.arb(mpmath.nstr(mpmath.mpf(v), rel + 15)) for v in mid])
        J0 = np.array(matrix(Jf(point(m.entries()))).mid().tolist(), float)
        try:
            C = np.linalg.inv(J0)  # any approximate inverse: the test stays rigorous
        except np.linalg.LinAlgError:
            return None, None
        if not np.all(np.isfinite(C)):
            return None, None
        Cq = flint.arb_mat(C.tolist())
        for _ in range(2 + (rel + 10) // 12):
            m = (m - Cq * flint.arb_mat(k, 1, F(point(m.entries())))).mid()
        # K(X) = m - C F(m) + (I - C J(X)) (X - m) inside X proves one zero in X
        base = m - Cq * flint.arb_mat(k, 1, F(point(m.entries())))
        ms = m.entries()
        for exp10 in (rel + 2, rel, rel - 3):
            rad = [flint.arb(10) ** (-exp10) * (1 + abs(float(v))) for v in mid]
            box = [mi + flint.arb(0, ri) for mi, ri in zip(ms, rad)]
            JX = Jf(point(box))
            spread = flint.arb_mat(k, 1, [flint.arb(0, ri) for ri in rad])
            K = (base + (1 - Cq * matrix(JX)) * spread).entries()
            if all(
                v.mid() - v.rad() > mi - ri and v.mid() + v.rad() < mi + ri
                for v, mi, ri in zip(K, ms, rad)
            ):
                if boxes is not None:
                    boxes.extend(box)
                return exp10, [mpmath.mpf(v.str(rel + 15, radius=False)) for v in ms]
    return None, None


def _solve(A, b):
    """``A x = b`` for a small mpf system (Gaussian elimination, partial pivoting)."""
    n = len(b)
    M = [[*row, v] for row, v in zip(A, b)]
    for c in range(n):
        piv = max(range(c, n), key=lambda i: abs(M[i][c]))
        if M[piv][c] == 0:
            return None
        M[c], M[piv] = M[piv], M[c]
        for i in range(c + 1, n):
            f = M[i][c] / M[c][c]
            for j in range(c, n + 1):
                M[i][j] -= f * M[c][j]
    x = [mpmath.mpf(0)] * n
    for i in reversed(range(n)):
        x[i] = (M[i][n] - sum(M[i][j] * x[j] for j in range(i + 1, n))) / M[i][i]
    return x


def _newton_mp(system, z0, free, dps):
    """Solve ``system`` for the unknowns ``free`` (the others fixed at ``z0``) at ``dps``."""
    z = [mpmath.mpf(v) for v in z0]
    tol = mpmath.mpf(10) ** (-dps)
    for _ in range(60):
        fv = system.fm(z)
        Jv = system.Jm(z)
        dz = _solve([[Jv[a][c] for c in free] for a in range(len(fv))], list(fv))
        if dz is None:
            return None
        for j, c in enumerate(free):
            z[c] -= dz[j]
        if max(abs(dz[j]) / (1 + abs(z[c])) for j, c in enumerate(free)) < tol:
            return z
    return None


def newton_np(system, z, free, *, tol=1e-13, steps=40, accept=1e-9):
    """Newton's method in doubles on ``system`` for the unknowns ``free`` (the others held
    at ``z``): the point once a step is below ``tol`` (relative to the largest unknown), or
    after ``steps`` if the residual is below ``accept``; else None."""
    z = np.array(z, dtype=float)
    for _ in range(steps):
        try:
            d = np.linalg.solve(system.J(z)[:, free], system.f(z))
        except np.linalg.LinAlgError:
            return None
        z[free] -= d
        if not np.all(np.isfinite(z)):
            return None
        if np.max(np.abs(d)) <= tol * (1 + np.max(np.abs(z))):
            return z
    return z if np.max(np.abs(system.f(z))) < accept else None


class _Tracer:
    """Pseudo-arclength continuation of one branch: unknowns ``(x, y[, w], ...)`` (a
    moving equilibrium's states after them, scaled by ``1 + |state|``), one equation fewer."""

    def __init__(self, system, kind, box, wscale):
        self.s = system
        self.kind = kind
        self.box = box  # (xlo, xhi, ylo, yhi) floats
        self.dim = len(system.syms)
        self.wfloor = 1e-9 * max(1.0, wscale)

    def scale(self, z):
        xlo, xhi, ylo, yhi = self.box
        sc = [xhi - xlo, yhi - ylo]
        if self.kind == "hopf":
            sc.append(max(abs(z[2]), 1e-6))
        sc.extend(1.0 + abs(v) for v in z[len(sc) :])
        return np.array(sc)

    def tangent(self, z, prev=None):
        S = self.scale(z)
        J = self.s.J(z) * S  # derivative in scaled coordinates
        if self.dim == 3:
            t = np.cross(J[0], J[1])
        elif self.dim == 2:
            t = np.array([-J[0, 1], J[0, 0]])
        else:  # the null vector of the (dim - 1) x dim Jacobian
            try:
                t = np.linalg.svd(J)[2][-1]
            except np.linalg.LinAlgError:
                return None
        nrm = np.linalg.norm(t)
        if not np.isfinite(nrm) or nrm == 0:
            return None
        t = t / nrm
        if prev is not None and np.dot(t, prev) < 0:
            t = -t
        return t

    def correct(self, zp, t, z0):
        S = self.scale(z0)
        z = zp.copy()
        for it in range(12):
            fv = self.s.f(z)
            g = np.dot(t, (z - zp) / S)
            J = self.s.J(z)
            A = np.vstack([J, t / S])
            try:
                dz = np.linalg.solve(A, -np.append(fv, g))
            except np.linalg.LinAlgError:
                return None, it
            z = z + dz
            if not np.all(np.isfinite(z)):
                return None, it
            if np.max(np.abs(dz / S)) < 1e-13:
                return z, it
        return None, 12

    def inside(self, z, slack=0.0):
        xlo, xhi, ylo, yhi = self.box
        dx, dy = (xhi - xlo) * slack, (yhi - ylo) * slack
        return xlo - dx <= z[0] <= xhi + dx and ylo - dy <= z[1] <= yhi + dy

    def to_edge(self, za, zb):
        """The branch point on the box edge between ``za`` (inside) and ``zb`` (outside)."""
        xlo, xhi, ylo, yhi = self.box
        best = None
        for c, edge in ((0, xlo), (0, xhi), (1, ylo), (1, yhi)):
            if (za[c] - edge) * (zb[c] - edge) > 0 or za[c] == zb[c]:
                continue
            f = (edge - za[c]) / (zb[c] - za[c])
            if best is None or f < best[0]:
                best = (f, c, edge)
        if best is None:
            return None
        f, c, edge = best
        z = za + f * (zb - za)
        z[c] = edge
        free = [i for i in range(self.dim) if i != c]
        return newton_np(self.s, z, free, tol=1e-14, steps=20, accept=1e-8)

    def trace(self, z0, direction):
        t = self.tangent(z0)
        if t is None:
            return [z0], [None], "singular start"
        t = t * direction
        pts, tans = [z0], [t]
        h = H_START
        z = z0
        why = "step limit"
        for _ in range(MAX_STEPS):
            S = self.scale(z)
            zp = z + h * t * S
            zn, its = self.correct(zp, t, z)
            if zn is None:
                h /= 2
                if h < H_MIN:
                    why = "step too small"
                    break
                continue
            tn = self.tangent(zn, t)
            if tn is None or np.dot(tn, t) < 0.9:
                h /= 2
                if h < H_MIN:
                    why = "step too small"
                    break
                continue
            if self.kind == "hopf" and zn[2] <= self.wfloor * 10:
                why = "omega -> 0"
                break
            if not self.inside(zn):
                e = self.to_edge(z, zn)
                if e is not None:
                    pts.append(e)
                    tans.append(self.tangent(e, t))
                why = "box edge"
                break
            pts.append(zn)
            tans.append(tn)
            if len(pts) > 20:
                d0 = np.linalg.norm((zn[:2] - z0[:2]) / S[:2])
                if d0 < 1.5 * h and np.dot(tn, tans[0] * direction) > 0.5:
                    pts.append(z0)
                    tans.append(tans[0] * direction)
                    why = "closed"
                    break
            z, t = zn, tn
            if its <= 3:
                h = min(h * 1.6, H_MAX)
        return pts, tans, why


def unexplained_pairs(counts, cx, cy, polylines, Sxy):
    """Neighbouring cells ``(j, k, j2, k2)`` whose counts differ while no traced polyline
    (points whose first two coordinates are ``(x, y)``) crosses the segment between their
    centres: where a branch may have been missed."""
    lines = []
    for pts in polylines:
        P = np.array([[float(z[0]), float(z[1])] for z in pts])
        if len(P) >= 2:
            lines.append((P[:-1] / Sxy, P[1:] / Sxy))

    def explained(p, q):
        for a, b in lines:
            idx, _, _ = _segments_cross(p / Sxy, q / Sxy, a, b)
            if len(idx):
                return True
        return False

    cells_y, cells_x = len(counts), len(counts[0])
    out = []
    for j, k in itertools.product(range(cells_y), range(cells_x)):
        for dj, dk in ((0, 1), (1, 0)):
            j2, k2 = j + dj, k + dk
            if j2 >= cells_y or k2 >= cells_x or counts[j][k] == counts[j2][k2]:
                continue
            p = np.array([float(cx[k]), float(cy[j])])
            q = np.array([float(cx[k2]), float(cy[j2])])
            if not explained(p, q):
                out.append((j, k, j2, k2))
    return out


def _seg_dist(p, a, b):
    """Distances from point p to segments a[i]-b[i] (arrays n x 2)."""
    d = b - a
    L2 = np.sum(d * d, axis=1)
    L2[L2 == 0] = 1e-300
    u = np.clip(np.sum((p - a) * d, axis=1) / L2, 0, 1)
    q = a + u[:, None] * d
    return np.linalg.norm(p - q, axis=1), u


def _on_branch(z, branch_pts, S):
    """True if ``z`` lies on the traced polyline (scaled (x, y) and omega)."""
    P = np.array(branch_pts)
    if len(P) < 2:
        return False
    a, b = P[:-1, :2] / S[:2], P[1:, :2] / S[:2]
    dist, u = _seg_dist(z[:2] / S[:2], a, b)
    near = dist < 2e-3
    if not np.any(near):
        return False
    if len(z) == 2:
        return True
    w = P[:-1, 2] + u * (P[1:, 2] - P[:-1, 2])
    return bool(np.any(near & (np.abs(w - z[2]) <= 2e-3 * (1 + abs(z[2])))))


def _segments_cross(p, q, a, b):
    """Does segment p-q (2,) cross any segment a[i]-b[i]? Returns index array and params."""
    r = q - p
    s = b - a
    den = r[0] * s[:, 1] - r[1] * s[:, 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = ((a[:, 0] - p[0]) * s[:, 1] - (a[:, 1] - p[1]) * s[:, 0]) / den
        u = ((a[:, 0] - p[0]) * r[1] - (a[:, 1] - p[1]) * r[0]) / den
    ok = (den != 0) & (t >= 0) & (t <= 1) & (u >= 0) & (u <= 1)
    return np.flatnonzero(ok), t, u


def _regions(counts, cx, cy):
    ny, nx = len(counts), len(counts[0])
    labels = [[-1] * nx for _ in range(ny)]
    regions = []
    for j in range(ny):
        for k in range(nx):
            if labels[j][k] >= 0:
                continue
            lab = len(regions)
            stack, cells = [(j, k)], []
            labels[j][k] = lab
            while stack:
                a, b = stack.pop()
                cells.append((a, b))
                for da, db in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                    a2, b2 = a + da, b + db
                    inside = 0 <= a2 < ny and 0 <= b2 < nx
                    if inside and labels[a2][b2] < 0 and counts[a2][b2] == counts[j][k]:
                        labels[a2][b2] = lab
                        stack.append((a2, b2))
            # representative: the cell with most same-region neighbours, nearest the middle
            ma = sum(c[0] for c in cells) / len(cells)
            mb = sum(c[1] for c in cells) / len(cells)

            def depth(c, lab=lab, ma=ma, mb=mb):
                a, b = c
                n = 0
                for da, db in itertools.product((-1, 0, 1), repeat=2):
                    a2, b2 = a + da, b + db
                    if 0 <= a2 < ny and 0 <= b2 < nx and labels[a2][b2] == lab:
                        n += 1
                return (-n, (a - ma) ** 2 + (b - mb) ** 2)

            rep = min(cells, key=depth)
            regions.append(
                {
                    "unstable_roots": counts[j][k],
                    "point": (cx[rep[1]], cy[rep[0]]),
                    "cells": len(cells),
                    "cell_list": tuple(cells),
                }
            )
    return regions, labels


def _hopf_at(system, z0, c, v):
    """The Hopf point with coordinate ``c`` held at ``v``, by Newton from ``z0``."""
    z = [mpmath.mpf(t) for t in z0]
    z[c] = v
    return _newton_mp(system, z, [i for i in range(len(z)) if i != c], mpmath.mp.dps - 2)


def prove_zero_along(system, z, c, dps, value) -> bool:
    """Prove that ``value`` (a function of a point of Arb balls ``(x, y, ...)`` returning
    an Arb ball, or None where it cannot be evaluated) vanishes on the branch of
    ``system`` near the located point ``z``: exact ends ``qa < qb`` of coordinate ``c``,
    ``10^-(dps+1)`` (relative) either side of it, and the branch points there (Newton); a
    Krawczyk test with ``c`` the ball ``[qa, qb]`` proves that for every ``c`` there is
    exactly one branch point in a box ``X`` (a connected piece of the branch, on which the
    Jacobian of its equations is invertible); ``value`` evaluated over ``X`` proves it
    defined there (continuous, when it is built of certified operations); at each end,
    the branch point proved in a box inside ``X`` and ``value`` on it of one certain sign,
    opposite at the two ends. Then ``value`` vanishes on the piece."""
    n = len(system.syms)
    free = [i for i in range(n) if i != c]
    digits = dps + GUARD
    q0 = sp.Rational(mpmath.nstr(z[c], digits))
    d = sp.Rational(1, 10 ** (dps + 1)) * (1 + abs(q0))
    qa, qb = q0 - d, q0 + d
    za = _hopf_at(system, z, c, mpmath.mpf(qa.p) / qa.q)
    zb = _hopf_at(system, z, c, mpmath.mpf(qb.p) / qb.q)
    if za is None or zb is None:
        return False
    bits = work_bits(dps, guard=2 * GUARD)
    with flint.ctx.workprec(bits):
        # the ball [qa, qb]: its exact midpoint and a radius a little over the half-width
        m = (qa + qb) / 2
        half = float((qb - qa) / 2) * (1 + 1e-9)
        piece = flint.arb(flint.fmpq(int(m.p), int(m.q))) + flint.arb(0, half)
    big = []
    fixed = [None] * n
    fixed[c] = piece
    mid = [float((za[i] + zb[i]) / 2) for i in free]
    ok, _ = _krawczyk(system, mid, free, fixed, dps, boxes=big)
    if ok is None:
        return False
    signs = []
    with flint.ctx.workprec(bits):
        whole = [None] * n
        whole[c] = piece
        for i, b in zip(free, big):
            whole[i] = b
        if value(whole) is None:
            return False
        for q, zq in ((qa, za), (qb, zb)):
            small = []
            fixed = [None] * n
            fixed[c] = flint.fmpq(int(q.p), int(q.q))
            # tight boxes (dps + GUARD digits): the value is ~10^-(dps+1) of its scale there
            ok, _ = _krawczyk(system, [float(zq[i]) for i in free], free, fixed, dps + GUARD,
                              boxes=small)  # fmt: skip
            if ok is None:
                return False
            pt = [None] * n
            pt[c] = flint.arb(fixed[c])
            for i, b, B in zip(free, small, big):
                if not B.contains(b):
                    return False
                pt[i] = b
            v = value(pt)
            if v is None or v.contains(0):
                return False
            signs.append(v > 0)
    return signs[0] != signs[1]


def illinois(at, za, fa, zb, fb, c, dps):
    """The zero of a function along a branch between its points ``za`` (value ``fa``) and
    ``zb`` (``fb``, of the other sign): the Illinois method (regula falsi, the end kept twice
    in a row has its value halved) on coordinate ``c`` to ``10^-(dps+3)`` (relative);
    ``at(v, guess)`` is the branch point with ``c = v`` (Newton from ``guess``) and the value
    there, ``(None, None)`` where either fails. The point, or None."""
    a, b = za[c], zb[c]
    side = 0
    tol = mpmath.mpf(10) ** (-(dps + 3)) * (1 + abs(a))
    for _ in range(200):
        v = b - fb * (b - a) / (fb - fa)
        t = (v - a) / (b - a)
        z, fv = at(v, [p + t * (q - p) for p, q in zip(za, zb)])
        if z is None or fv is None:
            return None
        if (fv > 0) == (fb > 0):
            b, fb, zb = v, fv, z
            if side == -1:
                fa /= 2
            side = -1
        else:
            a, fa, za = v, fv, z
            if side == 1:
                fb /= 2
            side = 1
        if abs(b - a) <= tol or fv == 0:
            return z
    return None


def decimal(v: float) -> sp.Rational:
    """The exact rational a double prints as (its shortest repr)."""
    return sp.Rational(repr(float(v)))


def certify_point(system, z, c, dps, box_exact, exact=None):
    """The branch point near ``z`` with coordinate ``c`` exact (``exact``, or ``z[c]``'s
    decimal clipped to the box ``(xlo, xhi, ylo, yhi)``) and the other unknowns proved by
    Krawczyk: the point as a list of mpf, or None."""
    n = len(system.syms)
    if exact is None:
        lo, hi = (box_exact[0], box_exact[1]) if c == 0 else (box_exact[2], box_exact[3])
        q = min(max(decimal(z[c]), sp.Rational(lo)), sp.Rational(hi))
    else:
        q = sp.Rational(exact)
    free = [i for i in range(n) if i != c]
    fixed_vals = [None] * n
    fixed_vals[c] = flint.fmpq(int(q.p), int(q.q))
    ok, refined = _krawczyk(system, [z[i] for i in free], free, fixed_vals, dps + 2)
    if ok is None:
        return None
    sol = [mpmath.mpf(q.p) / q.q] * n
    for i, v in zip(free, refined):
        sol[i] = v
    return sol


def trace_seeds(branches, systems, box, seeds):
    """Trace every seed ``(factor, kind, z)`` that lies on no branch already traced, both
    ways from it; each branch is appended to ``branches`` as ``(factor, kind, points,
    tangents, ends)``."""
    Sxy = np.array([box[1] - box[0], box[3] - box[2]])
    for i, kind, z in seeds:
        hopf = kind == "hopf"
        zk, S = (z[:3], np.append(Sxy, max(abs(z[2]), 1e-6))) if hopf else (z[:2], Sxy)
        if any(_on_branch(zk, b[2], S) for b in branches if b[0] == i and b[1] == kind):
            continue
        tr = _Tracer(systems[(i, kind)], kind, box, z[2] if hopf else 1.0)
        fw, tf, why_f = tr.trace(z, +1)
        if why_f == "closed":
            branches.append((i, kind, fw, tf, ("closed", "closed")))
            continue
        bw, tb, why_b = tr.trace(z, -1)
        pts = bw[::-1] + fw[1:]
        tans = [None if t is None else -t for t in tb[::-1]] + tf[1:]
        branches.append((i, kind, pts, tans, (why_b, why_f)))


def certify_branches(branches, systems, dps, box_exact, notes):
    """``(curves, full)``: each traced branch's points certified (:func:`certify_point`,
    the coordinate the branch moves along faster held exact) as a :class:`MapCurve` (two
    points at least), and its certified points in every unknown (``(kind, points)``)."""
    curves, full, failed = [], [], 0
    with mpmath.workdps(dps + GUARD):
        for i, kind, pts, tans, ends in branches:
            system = systems[(i, kind)]
            out, outz = [], []
            for z, t in zip(pts, tans):
                c = 0 if (t is None or abs(t[0]) >= abs(t[1])) else 1
                sol = certify_point(system, z, c, dps, box_exact)
                if sol is None:
                    failed += 1
                    continue
                out.append((sol[0], sol[1], sol[2] if kind == "hopf" else mpmath.mpf(0)))
                outz.append(sol)
            if len(out) >= 2:
                curves.append(MapCurve(kind, i, tuple(out), ends))
                full.append((kind, outz))
    if failed:
        notes.append(f"{failed} branch points could not be certified and were left out")
    return curves, full


def cell_centres(lo, hi, cells):
    """The exact centres of ``cells`` equal cells of ``[lo, hi]``."""
    return [lo + (hi - lo) * sp.Rational(2 * k + 1, 2 * cells) for k in range(cells)]


def second_net(counts, cx, cy, branches, Sxy, segment_seeds, trace):
    """``(missing, segments)``: the pairs of neighbouring cells whose count change no traced
    branch explains (:func:`unexplained_pairs`), after the segment between the two centres
    of each of the first 40 was searched (``segment_seeds(j, k, j2, k2)``, the seeds found
    on it, traced with ``trace``; a pair with a crossing on its segment is explained: the
    traced polyline may pass on the other side of a centre where the curve bends)."""

    def unexplained():
        return unexplained_pairs(counts, cx, cy, [b[2] for b in branches], Sxy)

    missing = unexplained()
    if not missing:
        return missing, 0
    crossed, more = set(), []
    for pair in missing[:40]:
        found = segment_seeds(*pair)
        if found:
            crossed.add(pair)
        more += found
    trace(more)
    return [m for m in unexplained() if m not in crossed], len(missing[:40])


def map_record(
    model,
    X,
    Y,
    fixed_json,
    dps,
    curves,
    specials,
    grid,
    searched,
    notes,
    method,
    crossings,
    fold_of_cycles=(),
    **details,
):
    """The :class:`StabilityMap` of ``model`` over the axes ``X``, ``Y`` (each ``(name, lo,
    hi)``); ``grid``: the cell counts (rows in ``y``), the regions and the cells' region
    labels; ``crossings(result, x=, y=)`` answers :meth:`StabilityMap.crossings`;
    ``details``: what else the record keeps (read by the tests)."""
    counts, regions, labels = grid
    result = StabilityMap(
        model.name,
        X,
        Y,
        fixed_json,
        dps,
        tuple(curves),
        tuple(specials),
        tuple(regions),
        tuple(tuple(row) for row in counts),
        tuple(tuple(row) for row in labels),
        searched,
        tuple(notes),
        method,
        tuple(fold_of_cycles),
    )
    details["crossings"] = lambda x=None, y=None: crossings(result, x=x, y=y)
    object.__setattr__(result, "_private", details)
    return result


def note_unexplained(notes, missing, counts, cx, cy, why=""):
    """A note for each of the first five pairs of cells whose count change no traced
    boundary explains (``why``: what may cause it), and how many more there are."""
    for j, k, j2, k2 in missing[:5]:
        notes.append(
            f"the unstable count changes between the cells at ({cx[k]}, {cy[j]}) and "
            f"({cx[k2]}, {cy[j2]}) ({counts[j][k]} -> {counts[j2][k2]}) and no traced "
            f"boundary crosses there{why}"
        )
    if len(missing) > 5:
        notes.append(f"... and {len(missing) - 5} more such pairs of cells")
