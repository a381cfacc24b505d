"""The curve of folds of cycles in two parameters, continued from a Bautin point of a
stability map.

Near a Bautin point (generalised Hopf: the first Lyapunov coefficient ``l1`` changes sign
along a Hopf curve) the normal form ``rho' = rho (beta + a rho^2 + b rho^4)`` (``beta`` the
real part of the critical eigenvalues, ``a = Re c1``) has a fold of cycles where
``beta + a rho^2 + b rho^4 = 0`` and ``a + 2 b rho^2 = 0``: ``rho^2 = -a / (2 b)`` and
``beta = -a rho^2 / 2``. So a curve of folds (LPC) starts at the Bautin point, where
``a = 0``, on the side where ``a b < 0``; its distance from the Hopf curve (``beta``) is
of order ``a^2`` while its distance along the curve is of order ``a``: it leaves the Bautin
point tangentially to the Hopf curve, and the fold's amplitude tends to 0 there.

The curve is continued as the solution set of a minimally augmented system (Govaerts; the
LPC continuation of MatCont and of AUTO's two-parameter folds): the periodic boundary value
problem of :mod:`symdelay.analysis.bvp` (orthogonal collocation on Gauss points, the
integral phase condition) in ``(U, T, p1, p2)`` with one more equation, ``G = 0``, where
``G`` is the last component of the solution of the bordered system::

    [[A, b], [c^T, 0]] [v; G] = [0; 1],

``A`` the Jacobian of the collocation equations and the phase condition in the orbit and the
period (square; singular exactly where the branch in one parameter turns back: its tangent
has no parameter component), ``b`` and ``c`` approximate left and right null vectors of
``A`` (updated at every point). The derivatives of ``G`` are ``-w^T A_z v`` (``w`` from the
transposed bordered system), ``A_z v`` by a central difference of the Jacobian in the
direction ``v``. Pseudo-arclength steps (the parameters scaled by the box) follow the
curve, the tangent from the bordered Jacobian at each point.

It starts from the fold the Bautin normal form predicts at a Hopf point of the map's curve
near the Bautin point: with ``c1`` and ``c2`` there
(:meth:`symdelay.analysis.dnormal.DelayLyapunov.bautin`),
``rho^2 = -Re c1 / (2 Re c2)`` on the side where it is positive, the normal form's cycle of
that amplitude at the parameter where ``beta = -Re c1 rho^2 / 2``, corrected onto the
augmented system. Where that fails (or without the map's curve), from a fold located on a
one-parameter branch (:func:`symdelay.analysis.continuation.cycles`) started at a Hopf point
near the Bautin point with the normal form's small cycle, each side tried (the subcritical
one first). The record's ``start`` says which.

A delay model is the same system on the delay collocation of :mod:`symdelay.analysis.dbvp`
(:class:`~symdelay.analysis.dbvp.DelayOrbitField` with the second parameter held, the
Jacobian's column in it by a central difference of the residual, as its look-backs may move
with it); its first fold is the Bautin normal form's prediction from ``c1`` and ``c2`` of
the delay normal form at a Hopf point of the map's curve near the Bautin point, corrected
onto the augmented system (measured on the sharpened-routing model: the same first fold to
3e-10 as the branch's, the whole curve in 9.4 s instead of 12.6 s), else the LPC of a
one-parameter delay branch started from the delay normal form there. It is continued both
ways: towards the Bautin point until the fold's amplitude is a small fraction of the first
one (the Bautin point, amplitude 0, is then the curve's end), and away until it leaves the
map's box (the last point landed on the edge), leaves the model's domain or reaches the
budget of points.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from symdelay.analysis.bvp import (
    Collocation,
    NewtonFailed,
    OrbitField,
    PeriodicBVP,
    amplitude,
    jacobian_entries,
)
from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.core.result import Result

__all__ = ["FoldCurve", "fold_of_cycles", "map_fold_curves", "MAX_FOLD_POINTS"]

#: the most points on one fold curve (both ways together)
MAX_FOLD_POINTS = 400
#: the continuation towards the Bautin point stops when the fold's amplitude is below this
#: fraction of the first fold's
END_FRACTION = 0.03
#: the most orbits of a delay model's one-parameter branch that looks for the first fold
BRANCH_POINTS = 40
#: Newton iterations and tolerance of the augmented system
MAX_NEWTON = 15
TOL = 1e-9


# ------------------------------------------------------------------------------ record
@dataclass(frozen=True, eq=False)
class FoldCurve(Result):
    """The curve of folds of cycles from one Bautin point, in the map's two parameters
    ``x`` and ``y`` (names): ``points`` ``(x, y, period, amplitude)`` in order from the
    Bautin point (its first point, amplitude 0, period ``2 pi / omega``) outward;
    ``bautin``: ``(x, y, omega)`` of the map's point; ``ends``: why each end stopped (the
    first ``"Bautin point"`` when the folds shrank into it); ``start``: the fold on a
    one-parameter branch the continuation started from; ``residual``: the largest ``|G|``
    (the fold condition) at the points kept."""

    x: str
    y: str
    bautin: tuple
    points: tuple
    ends: tuple
    start: dict
    intervals: int
    degree: int
    seconds: float
    notes: tuple = ()
    model_name: str | None = None

    def arrays(self):
        """``(x, y, period, amplitude)`` as float arrays, from the Bautin point outward."""
        a = np.array(self.points, dtype=float).reshape(-1, 4)
        return a[:, 0], a[:, 1], a[:, 2], a[:, 3]

    def record(self) -> dict:
        xb, yb, wb = self.bautin
        return {
            "x": self.x,
            "y": self.y,
            "bautin": {"x": repr(float(xb)), "y": repr(float(yb)), "omega": repr(float(wb))},
            "points": [
                {
                    "x": repr(float(a)),
                    "y": repr(float(b)),
                    "period": repr(float(T)),
                    "amplitude": repr(float(A)),
                }
                for a, b, T, A in self.points
            ],
            "ends": list(self.ends),
            "start": dict(self.start),
            "method": (
                "minimally augmented periodic BVP (collocation of degree "
                f"{self.degree} on {self.intervals} intervals, the fold condition from a "
                "bordered system), pseudo-arclength continuation from a fold located on a "
                "one-parameter branch"
            ),
            "notes": list(self.notes),
        }

    def text(self) -> str:
        x, y, _, _ = self.arrays()
        lines = [
            f"fold of cycles from the Bautin point {self.x} = {self.bautin[0]:.10g}, "
            f"{self.y} = {self.bautin[1]:.10g}: {len(self.points)} points, to "
            f"({x[-1]:.8g}, {y[-1]:.8g}), ends: {', '.join(self.ends)}"
        ]
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)

    def at(self, **value) -> tuple:
        """The fold of cycles on the curve where one parameter has the given value
        (``at(kappa="0.31")``; decimal text is read exactly): ``(x, y, period,
        amplitude)``, corrected onto the fold's defining system from the two points of the
        curve either side (several crossings: the one nearest the Bautin point)."""
        from symdelay.core.exact import exact_fraction

        if len(value) != 1 or next(iter(value)) not in (self.x, self.y):
            raise SymdelayInputError(f"give one of {self.x}= or {self.y}= (one value)")
        ((name, v),) = value.items()
        v = float(exact_fraction(name, v))
        details = self.__dict__.get("_private")
        if details is None:
            raise SymdelayInputError("this curve keeps no orbits (it was read from a record)")
        aug, pts = details["aug"], details["points"]
        which = "p" if name == self.x else "q"
        vals = [p.p if which == "p" else p.q for p in pts]
        for a, b, fa, fb in zip(pts, pts[1:], vals, vals[1:]):
            if (fa - v) * (fb - v) <= 0 and fa != fb:
                s = (v - fa) / (fb - fa)
                pred = _Point(a.coll, a.U + s * (b.U - a.U), a.T + s * (b.T - a.T),
                              a.p + s * (b.p - a.p), a.q + s * (b.q - a.q), a.b, a.c)  # fmt: skip
                if b.coll is not a.coll:
                    pred = _Point(a.coll, a.U, a.T, a.p, a.q, a.b, a.c)
                try:
                    st = aug.correct(pred, a.U, ("fix", which, v))
                except (NewtonFailed, np.linalg.LinAlgError) as exc:
                    raise SymdelayInputError(
                        f"the fold at {name} = {v:.10g} did not converge ({exc})"
                    ) from None
                return (st.p, st.q, st.T, st.amp)
        raise SymdelayInputError(
            f"the curve does not reach {name} = {v:.10g} (from {min(vals):.8g} to {max(vals):.8g})"
        )


# ------------------------------------------------------------------------------ field
class _Field2(OrbitField):
    """The drift in two parameters: an :class:`OrbitField` in ``x`` (the BVP solver's one
    parameter) with ``y`` held at :attr:`q` (set before each evaluation), and ``df/dy``."""

    def __init__(self, model, xname, yname):
        from symdelay.analysis.stochastic import difference_weights
        from symdelay.analysis.window import _resolve

        syms, subs = [], {}
        for name in (xname, yname):
            sym, rp = _resolve(model, name)
            syms.append(sym)
            if rp is not None:
                subs[rp.base] = rp.L / sym
        states = list(model.states)
        values = dict(model.values)
        drift = [sp.sympify(e).xreplace(values).xreplace(subs) for e in model.drift]
        free = set().union(*(e.free_symbols for e in drift)) - set(states) - set(syms)
        if free:
            raise SymdelayInputError(
                "the fold of cycles needs numbers for every parameter but the map's two: give "
                + ", ".join(sorted(map(str, free)))
            )
        eq = model.equilibrium
        if not eq.exact:
            raise SymdelayInputError(
                f"the equilibrium of {model.name} has no closed form: the fold of cycles "
                "starts from a Hopf point of it"
            )
        point = [sp.sympify(eq.point[s]).xreplace(values).xreplace(subs) for s in states]
        if set().union(*(e.free_symbols for e in point)) - set(syms):
            raise SymdelayInputError(f"the equilibrium of {model.name} needs numbers")
        w = difference_weights(model)
        if w is None:
            raise SymdelayInputError(f"{model.name} declares no symmetry: no imbalance to follow")
        xs, ys = syms
        n = len(states)
        self.n, self.name, self.symbol, self.ysymbol = n, xname, xs, ys
        self.weights = np.array(w, dtype=float)
        self.names = tuple(s.name for s in states)
        args = (xs, ys, *states)
        self.rows, self.cols, entries = jacobian_entries(drift, states)
        self._f2 = sp.lambdify(args, drift, "numpy", cse=True)
        self._j2 = sp.lambdify(args, entries, "numpy", cse=True)
        self._fp2 = sp.lambdify(args, [sp.diff(e, xs) for e in drift], "numpy", cse=True)
        self._fq2 = sp.lambdify(args, [sp.diff(e, ys) for e in drift], "numpy", cse=True)
        self._eq2 = sp.lambdify((xs, ys), point, "numpy")
        self.q = 0.0

    def _call(self, fn, Y, p):
        with np.errstate(over="ignore", invalid="ignore"):
            return self._stack(fn(float(p), float(self.q), *Y.T), Y.shape[0])

    def f(self, Y, p):
        return self._call(self._f2, Y, p).T

    def fp(self, Y, p):
        return self._call(self._fp2, Y, p).T

    def fq(self, Y, p):
        return self._call(self._fq2, Y, p).T

    def jac_values(self, Y, p):
        return self._call(self._j2, Y, p).T

    def equilibrium(self, p):
        return np.array([float(v) for v in self._eq2(float(p), float(self.q))])


# ----------------------------------------------------------------- augmented system
@dataclass
class _Point:
    """One point of the fold curve: the orbit on ``coll``'s mesh, period, parameters, the
    bordering vectors ``b``, ``c`` (left and right null vectors of ``A``, approximate), the
    fold condition's value and the unit tangent."""

    coll: Collocation
    U: np.ndarray
    T: float
    p: float
    q: float
    b: np.ndarray
    c: np.ndarray
    G: float = math.nan
    tangent: tuple = None
    amp: float = math.nan
    iterations: int = 0


class _Augmented:
    """The minimally augmented system of folds of cycles: residuals, Jacobians, Newton's
    method and tangents (the module docstring)."""

    def __init__(self, solver: PeriodicBVP, scale):
        self.S = solver
        self.F = solver.F
        self.sx, self.sy = scale  # the box's widths: the parameters' arclength scales

    # the Jacobian of the collocation equations in (U, T, p, q) (and the phase row)
    def jac(self, coll, U, T, p, q, gph=None):
        from scipy.sparse import csc_matrix, hstack

        self.F.q = q
        _, Ug, F = self.S.colloc(coll, U, T, p)
        borders = [] if gph is None else [(gph, 0.0, 0.0)]
        A = self.S.matrix(coll, U, T, p, Ug, F, borders, with_p=True)
        col = np.concatenate([self.q_column(coll, U, T, p, q, Ug), np.zeros(len(borders))])
        return hstack([A, csc_matrix(col[:, None])], format="csc")

    def q_column(self, coll, U, T, p, q, Ug):
        """The collocation equations' derivative in the held parameter ``q``: from the
        field's ``fq`` (a table's drift, in closed form) or, for a field without it (a
        delay model's, whose look-backs and windows may move with ``q``), by a central
        difference of the residual (step ``1e-6 (1 + |q|)``: truncation ``~1e-12``,
        rounding ``~1e-10`` relative, an approximate column of Newton's Jacobian only: the
        residuals solved are exact)."""
        n = self.F.n
        if hasattr(self.F, "fq"):
            Fq = self.F.fq(Ug.reshape(-1, n), p).reshape(coll.N, coll.m, n)
            return (-(coll.h * T)[:, None, None] * Fq).ravel()
        e = 1e-6 * (1.0 + abs(q))
        try:
            self.F.q = q + e
            Rp = self.S.colloc(coll, U, T, p)[0]
            self.F.q = q - e
            Rm = self.S.colloc(coll, U, T, p)[0]
        finally:
            self.F.q = q
        return (Rp - Rm) / (2 * e)

    def bordered(self, A, b, c):
        """``(G, v, w)``: the bordered solves with ``A`` (the ``(U, T)`` block, square)."""
        from scipy.sparse import bmat, csc_matrix
        from scipy.sparse.linalg import splu

        M = bmat([[A, csc_matrix(b[:, None])], [csc_matrix(c[None, :]), None]], format="csc")
        try:
            lu = splu(M, permc_spec="MMD_AT_PLUS_A")
        except RuntimeError:
            raise NewtonFailed("the bordered system of the fold condition is singular") from None
        e = np.zeros(M.shape[0])
        e[-1] = 1.0
        x = lu.solve(e)
        y = lu.solve(e, trans="T")
        if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
            raise NewtonFailed("the bordered system of the fold condition is singular")
        return float(x[-1]), x[:-1], y[:-1]

    def g_row(self, coll, U, T, p, q, v, w):
        """``dG/d(U, T, p, q) = -w^T (dA/dz) v``: ``A v`` differentiated by a central
        difference of the collocation Jacobian in the direction ``v``."""
        NU = U.size
        vU, vT = v[:NU].reshape(U.shape), v[NU]
        wF = w[:NU]
        size = max(float(np.max(np.abs(vU))), abs(vT), 1e-300)
        eps = 1e-6 * (1.0 + float(np.max(np.abs(U)))) / size
        Jp = self.jac(coll, U + eps * vU, T + eps * vT, p, q)
        Jm = self.jac(coll, U - eps * vU, T - eps * vT, p, q)
        return -((Jp.T @ wF) - (Jm.T @ wF)) / (2 * eps)

    def metric(self, coll, t):
        """The arclength row of the direction ``t = (tU, tT, tp, tq)``."""
        tU, tT, tp, tq = t
        return np.concatenate([coll.ip_weights(tU).ravel(), [tT, tp / self.sx**2, tq / self.sy**2]])

    def norm(self, coll, t):
        return math.sqrt(max(float(self.metric(coll, t) @ _flat(t)), 1e-300))

    def correct(self, pt: _Point, Uref, extra):
        """Newton's method on the augmented system from ``pt`` with one more equation,
        ``extra``: ``("arc", base point, tangent, ds)`` or ``("fix", "p" | "q", value)``.
        Returns the corrected point (new bordering vectors)."""
        from scipy.sparse import csc_matrix, vstack
        from scipy.sparse.linalg import splu

        coll = pt.coll
        U, T, p, q, b, c = pt.U.copy(), pt.T, pt.p, pt.q, pt.b, pt.c
        NU = U.size
        gph = coll.phase_weights(Uref)
        scale = 1.0 + float(np.max(np.abs(U)))
        for it in range(1, MAX_NEWTON + 1):
            self.F.q = q
            R, _, _ = self.S.colloc(coll, U, T, p)
            if not np.all(np.isfinite(R)):
                raise NewtonFailed("the drift overflowed on the orbit")
            J = self.jac(coll, U, T, p, q, gph)  # (NU + 1) x (NU + 3)
            G, v, w = self.bordered(J[:, : NU + 1], b, c)
            grow = self.g_row(coll, U, T, p, q, v, w)
            if extra[0] == "arc":
                _, base, tan, ds = extra
                row = self.metric(coll, tan)
                zd = _flat((U - base.U, T - base.T, p - base.p, q - base.q))
                last = float(row @ zd) - ds
            else:
                _, which, value = extra
                row = np.zeros(NU + 3)
                k = NU + 1 if which == "p" else NU + 2
                row[k] = 1.0
                last = (p if which == "p" else q) - value
            M = vstack([J, csc_matrix(grow[None, :]), csc_matrix(row[None, :])], format="csc")
            rhs = -np.concatenate([R, [float(np.sum(gph * U))], [G], [last]])
            try:
                d = splu(M, permc_spec="MMD_AT_PLUS_A").solve(rhs)
            except RuntimeError:
                raise NewtonFailed("singular Jacobian of the augmented system") from None
            if not np.all(np.isfinite(d)):
                raise NewtonFailed("singular Jacobian of the augmented system")
            U = U + d[:NU].reshape(U.shape)
            T, p, q = T + d[NU], p + d[NU + 1], q + d[NU + 2]
            if not T > 0:
                raise NewtonFailed("the period became negative")
            small = (
                np.max(np.abs(d[:NU])) <= TOL * scale
                and abs(d[NU]) <= TOL * T
                and abs(d[NU + 1]) <= TOL * (abs(p) + self.sx)
                and abs(d[NU + 2]) <= TOL * (abs(q) + self.sy)
            )
            if small:
                self.F.q = q
                J = self.jac(coll, U, T, p, q, coll.phase_weights(U))
                G, v, w = self.bordered(J[:, : NU + 1], b, c)
                out = _Point(coll, U, T, p, q, _unit(w), _unit(v), G, iterations=it)
                out.amp = amplitude(coll, U @ self.F.weights)
                return out
        raise NewtonFailed(f"Newton did not converge in {MAX_NEWTON} iterations")

    def tangent(self, pt: _Point, prev, orient=None):
        """The unit tangent at ``pt`` (the bordered Jacobian with the row ``prev``, a
        direction), turned towards ``orient``."""
        from scipy.sparse import csc_matrix, vstack
        from scipy.sparse.linalg import splu

        coll, U = pt.coll, pt.U
        NU = U.size
        J = self.jac(coll, U, pt.T, pt.p, pt.q, coll.phase_weights(U))
        _, v, w = self.bordered(J[:, : NU + 1], pt.b, pt.c)
        grow = self.g_row(coll, U, pt.T, pt.p, pt.q, v, w)
        M = vstack(
            [J, csc_matrix(grow[None, :]), csc_matrix(self.metric(coll, prev)[None, :])],
            format="csc",
        )
        e = np.zeros(NU + 3)
        e[-1] = 1.0
        t = splu(M, permc_spec="MMD_AT_PLUS_A").solve(e)
        tan = (t[:NU].reshape(U.shape), t[NU], t[NU + 1], t[NU + 2])
        if orient is not None and float(self.metric(coll, orient) @ _flat(tan)) < 0:
            tan = tuple(-a for a in tan)
        nrm = self.norm(coll, tan)
        return tuple(a / nrm for a in tan)


def _flat(t):
    tU, tT, tp, tq = t
    return np.concatenate([np.ravel(tU), [tT, tp, tq]])


def _unit(x):
    return x / max(float(np.linalg.norm(x)), 1e-300)


# ------------------------------------------------------------------------------ entry
def fold_of_cycles(
    model,
    x,
    y,
    bautin,
    *,
    start=None,
    hopf=None,
    intervals: int = 20,
    degree: int = 4,
    max_points: int = 120,
    force: bool = False,
) -> FoldCurve:
    """The curve of folds of cycles (LPC) of ``model``'s fluid ODE in the parameters ``x``
    and ``y`` that starts at the Bautin point ``bautin``, continued both ways inside the
    box.

    Parameters
    ----------
    model : Model
        A transition table with a symmetry, or a model with lags (the delay collocation of
        :mod:`symdelay.analysis.dbvp`, the same bordered fold condition; the first fold
        predicted by the Bautin normal form, else located on a one-parameter delay branch);
        a closed-form equilibrium; every parameter but ``x`` and ``y`` a number.
    x, y : tuple
        ``(name, lo, hi)`` of each axis (the map's box: the curve stops at its edges).
    bautin : tuple or dict
        ``(x, y, omega)`` of the Bautin point (a stability map's special point of type
        ``"bautin"``).
    start : tuple, optional
        ``(name, value)``: the one-parameter branch that locates the first fold is taken at
        this value of ``x`` or ``y`` (the other parameter continued) from its Hopf point
        nearest the Bautin point; by default from points of ``hopf`` a quarter of the way
        from the Bautin point to each end (or, without it, on lines a quarter of the way to
        the box's edges), the first on which the branch folds.
    hopf : sequence, optional
        The Hopf curve through the Bautin point, its points ``(x, y, omega)`` (a stability
        map's :class:`~symdelay.analysis.map_core.MapCurve` ``points``): the branches start
        at its points (by default the Hopf points are found on lines through the box).
    intervals, degree : int
        The collocation mesh (as :func:`symdelay.analysis.continuation.cycles`).
    max_points : int, default 120
        The most points on the curve (both ways together; 4 to :data:`MAX_FOLD_POINTS`).
    force : bool
        Run even when the estimated cost is over the budget.

    Returns
    -------
    FoldCurve
        The points ``(x, y, period, amplitude)`` from the Bautin point outward and why each
        end stopped.
    """
    from symdelay.analysis.continuation import _integer
    from symdelay.core.budget import check_budget
    from symdelay.core.precision import one_blas_thread

    delay = bool(getattr(model, "lags", None))
    (xn, xlo, xhi), (yn, ylo, yhi) = (_axis3(a) for a in (x, y))
    if isinstance(bautin, dict):
        bautin = (bautin["x"], bautin["y"], bautin["omega"])
    xb, yb, wb = (float(v) for v in bautin)
    if not (xlo <= xb <= xhi and ylo <= yb <= yhi and wb > 0):
        raise SymdelayInputError(
            f"the Bautin point ({xb:.8g}, {yb:.8g}) must lie in the box with omega > 0"
        )
    intervals = _integer("intervals", intervals, 4, 2000)
    degree = _integer("degree", degree, 2, 7)
    max_points = _integer("max_points", max_points, 4, MAX_FOLD_POINTS)
    if delay:
        from symdelay.analysis.dbvp import DelayOrbitField

        fld = DelayOrbitField(model, xn, hold=yn)
    else:
        fld = _Field2(model, xn, yn)
    size = intervals * degree * fld.n
    check_budget(
        f"a fold-of-cycles curve of up to {max_points} points ({size} unknowns each)",
        _seconds(max_points, size, _lookbacks(fld)),
        force=force,
        shrink="fewer points (max_points), fewer intervals or a lower degree",
    )
    t0 = time.perf_counter()
    if delay:
        from symdelay.analysis.dbvp import DelayBVP

        solver = DelayBVP(fld, model.name)
    else:
        solver = PeriodicBVP(fld, model.name)
    aug = _Augmented(solver, (xhi - xlo, yhi - ylo))
    box = (xlo, xhi, ylo, yhi)
    notes = []
    with one_blas_thread():
        found = None
        if delay:
            # the Bautin normal form's fold first (l2 of the delay normal form), else a
            # fold located on a one-parameter delay branch
            if start is None and hopf is not None:
                found = _delay_predicted_fold(model, aug, (xn, yn), box, (xb, yb, wb), hopf,
                                              intervals, degree, notes)  # fmt: skip
            if found is None:
                found = _delay_first_fold(model, aug, (xn, yn), box, (xb, yb, wb), start,
                                          hopf, intervals, degree)  # fmt: skip
        elif start is None and hopf is not None:
            found = _predicted_fold(model, aug, (xn, yn), box, (xb, yb, wb), hopf, intervals,
                                    degree, notes)  # fmt: skip
        if found is None:
            found = _first_fold(model, aug, (xn, yn), box, (xb, yb, wb), start, hopf,
                                intervals, degree)  # fmt: skip
        first, info = found
        try:
            pts_in, end_in, pts_out, end_out = _both_ways(aug, first, box, max_points)
        except (NewtonFailed, np.linalg.LinAlgError, RuntimeError) as exc:
            raise SymdelayInputError(
                f"the fold of cycles at ({first.p:.8g}, {first.q:.8g}) has no tangent to "
                f"continue along ({exc})"
            ) from None
    if end_in == "Bautin point":  # the folds shrank: into this Bautin point, or another?
        last = pts_in[-1] if pts_in else first
        sx, sy = xhi - xlo, yhi - ylo

        def dist(a):
            return math.hypot((a.p - xb) / sx, (a.q - yb) / sy)

        if not dist(last) <= 0.05 * dist(first):
            end_in = f"amplitude -> 0 at ({last.p:.8g}, {last.q:.8g}), away from this Bautin point"
    inward = pts_in[::-1]
    pts = [*inward, first, *pts_out]
    ends = (end_in, end_out)
    if end_in != "Bautin point":
        notes.append(
            "the continuation towards the Bautin point stopped before the folds shrank to "
            f"it ({end_in}): the curve is not joined to the Bautin point"
        )
    rows = [(p.p, p.q, p.T, p.amp) for p in pts]
    if end_in == "Bautin point":
        rows.insert(0, (xb, yb, 2 * math.pi / wb, 0.0))
    if max(abs(p.G) for p in pts) > 1e-6:
        notes.append("the fold condition was not met to 1e-6 at every point")
    info["residual"] = repr(max(abs(p.G) for p in pts))
    result = FoldCurve(
        xn,
        yn,
        (xb, yb, wb),
        tuple(rows),
        ends,
        info,
        intervals,
        degree,
        time.perf_counter() - t0,
        tuple(notes),
        model.name,
    )
    # kept for :meth:`FoldCurve.at` (the orbits of the curve's points and the system)
    object.__setattr__(result, "_private", {"aug": aug, "points": pts, "box": box})
    return result


def _axis3(a):
    from symdelay.core.exact import exact_fraction

    try:
        name, lo, hi = a
    except (TypeError, ValueError):
        raise SymdelayInputError(f"an axis is (name, lo, hi), got {a!r}") from None
    lo_v, hi_v = float(exact_fraction(name, lo)), float(exact_fraction(name, hi))
    if not lo_v < hi_v:
        raise SymdelayInputError(f"the range of {name} must have lo < hi, got {lo}:{hi}")
    return str(name), lo_v, hi_v


def _predicted_fold(model, aug, names, box, bautin, hopf, intervals, degree, notes):
    """The first point of the curve from the Bautin normal form, or None (``notes`` says
    why): at a Hopf point of the curve near the Bautin point, ``c1`` and ``c2``
    (:meth:`symdelay.analysis.dnormal.DelayLyapunov.bautin`, the one path of ``l2``)
    predict the fold's amplitude
    ``rho^2 = -Re c1 / (2 Re c2)`` (on the side where it is positive) and its distance from
    the Hopf point, ``Re lambda = -Re c1 rho^2 / 2`` (the crossing speed by a central
    difference); that cycle, corrected onto the augmented system (the other parameter
    held), is the first point."""
    import flint

    from symdelay.analysis.dnormal import delay_lyapunov

    xn, yn = names
    xlo, xhi, ylo, yhi = box
    xb, yb, _ = bautin
    S = np.array([xhi - xlo, yhi - ylo])
    P = np.array([[float(v) for v in z] for z in hopf])
    if len(P) < 5:
        return None
    k = int(np.argmin(np.hypot((P[:, 0] - xb) / S[0], (P[:, 1] - yb) / S[1])))
    why = []
    for j in (k + max(2, (len(P) - 1 - k) // 8), k - max(2, k // 8)):
        if not 1 <= j < len(P) - 1:
            continue
        x0, y0, w = P[j]
        d = (P[j + 1, :2] - P[j - 1, :2]) / S
        along_x = abs(d[1]) >= abs(d[0])  # the curve moves along y: hold y, continue in x
        try:
            with flint.ctx.workprec(96):
                lyap = delay_lyapunov(model, xn, (yn,), order=5)
                bt = lyap.bautin((flint.arb(float(x0)), flint.arb(float(y0))), flint.arb(float(w)))
                c1, c2 = complex(bt.c1.mid()), complex(bt.c2.mid())
                q = np.array([complex(v.mid()) for v in bt.q])
        except (SymdelayInputError, ZeroDivisionError) as exc:
            why.append(str(exc))
            continue
        rc1, rc2 = c1.real, c2.real
        if not rc1 * rc2 < 0:
            continue  # no fold on this side
        rho2 = -rc1 / (2 * rc2)
        fld = aug.F
        h, value = (x0, y0) if along_x else (y0, x0)

        def xy(v, value=value, along_x=along_x):
            return (v, value) if along_x else (value, v)

        dp = 1e-6 * (1 + abs(h))
        re = []
        for v in (h - dp, h + dp):
            a, b = xy(v)
            fld.q = b
            ev = np.linalg.eigvals(fld.jac_dense(fld.equilibrium(a)[None, :], a)[0])
            re.append(ev[np.argmin(np.abs(ev - 1j * w))].real)
        rr = (re[1] - re[0]) / (2 * dp)
        if not abs(rr) > 1e-12:
            continue
        pf = h + (-rc1 * rho2 / 2) / rr
        a, b = xy(pf)
        try:
            first = _correct_predicted_fold(aug, (a, b), q, rho2, w, along_x, value,
                                            intervals, degree)  # fmt: skip
        except (NewtonFailed, np.linalg.LinAlgError) as exc:
            why.append(f"the predicted fold did not converge ({exc})")
            continue
        qx = complex(fld.weights @ q)
        pred_amp = 2 * math.sqrt(rho2) * abs(qx)
        if not first.amp > 0.5 * pred_amp:
            why.append("the predicted fold converged to the equilibrium")
            continue
        fixed = {"name": yn if along_x else xn, "value": repr(float(value))}
        info = _fold_info(fixed, xn if along_x else yn, float(h), {}, (rc1, rc2), float(w), qx,
                          pf, pred_amp, first, along_x)  # fmt: skip
        return first, info
    if why:
        notes.append("the Bautin normal form's fold was not used: " + "; ".join(why))
    return None


def _first_fold(model, aug, names, box, bautin, start, hopf, intervals, degree):
    """The first point of the curve: a fold on a one-parameter branch from a Hopf point
    near the Bautin point (started from the normal form's small cycle there), corrected onto
    the augmented system (the fixed parameter held)."""
    from symdelay.analysis.continuation import cycles

    xn, yn = names
    xlo, xhi, ylo, yhi = box
    xb, yb, _ = bautin
    tried = []
    for fixed, along, value, h, w in _start_points(model, names, box, bautin, start, hopf):
        value, h, w = float(value), float(h), float(w)
        m1 = _fix(model, fixed, value)
        lo, hi = (xlo, xhi) if along == xn else (ylo, yhi)
        try:
            given, side = _hopf_cycle(model, aug, names, along, value, h, w, (lo, hi),
                                      intervals, degree)  # fmt: skip
            branch = cycles(m1, along, repr(lo), repr(hi), start=given, direction=side,
                            intervals=intervals, degree=degree, max_points=80)  # fmt: skip
        except (SymdelayInputError, NewtonFailed, np.linalg.LinAlgError) as exc:
            tried.append(f"{fixed} = {value:.8g}: {exc}")
            continue
        lpcs = [s for s in branch.special_points if s.kind == "LPC" and s.located]
        if not lpcs:
            tried.append(f"{fixed} = {value:.8g}: no fold on the branch ({branch.stop})")
            continue
        lpc = lpcs[0]
        k = lpc.between[0]
        near = min(branch.points[k : k + 2], key=lambda c: abs(c.value - lpc.value))
        which = "q" if along == xn else "p"
        try:
            pt = _from_branch_point(aug, near, along == xn, value, intervals, degree)
            first = aug.correct(pt, pt.U, ("fix", which, value))
        except (NewtonFailed, np.linalg.LinAlgError) as exc:
            tried.append(f"{fixed} = {value:.8g}: the fold did not converge ({exc})")
            continue
        got = first.p if along == xn else first.q
        info = {
            "kind": "fold on a one-parameter branch",
            "fixed": {"name": fixed, "value": repr(float(value))},
            "continued": along,
            "hopf": repr(float(h)),
            "branch_fold": repr(float(lpc.value)),
            "augmented_fold": repr(float(got)),
            "amplitude": repr(float(first.amp)),
            "period": repr(float(first.T)),
        }
        return first, info
    raise SymdelayInputError(
        f"no fold of cycles found near the Bautin point ({xn} = {xb:.8g}, {yn} = {yb:.8g}): "
        + ("; ".join(tried) or "no Hopf point near it")
    )


def _delay_predicted_fold(model, aug, names, box, bautin, hopf, intervals, degree, notes):
    """The first point of a delay model's curve from the Bautin normal form, or None
    (``notes`` says why): at a point of the map's Hopf curve near the Bautin point (those
    of :func:`_delay_start_points`), the other parameter held, ``c1`` and ``c2`` of
    :meth:`symdelay.analysis.dnormal.DelayLyapunov.bautin` predict the fold's amplitude
    ``rho^2 = -Re c1 / (2 Re c2)`` (where positive) and its parameter
    ``p_h + (-Re c1 rho^2 / 2) / Re r'`` (``r'`` of the delay normal form there); that
    cycle, ``x* + 2 rho Re(q e^{i omega t})`` on the delay collocation (the chains' phases
    from the augmented characteristic matrix's null vector), corrected onto the augmented
    system, is the first point: no one-parameter branch is continued."""
    import flint
    import mpmath

    from symdelay.analysis.dnormal import delay_hopf_fields, delay_lyapunov
    from symdelay.analysis.normal_form import NormalForm

    xn = names[0]
    why = []
    fld = aug.F
    for fixed, along, value, h, w in _delay_start_points(names, box, bautin, None, hopf):
        value, h, w = float(value), float(h), float(w)
        if not math.isfinite(w):
            continue
        m1 = _fix(model, fixed, value)
        try:
            with mpmath.workdps(30):
                nf = NormalForm(
                    **delay_hopf_fields(m1, along, mpmath.mpf(h), mpmath.mpf(w), 15, rel=1e-12)
                )
            with flint.ctx.workprec(96):
                bt = delay_lyapunov(m1, along, order=5).bautin(flint.arb(h), flint.arb(w))
                c1, c2 = complex(bt.c1.mid()), complex(bt.c2.mid())
                q = np.array([complex(v.mid()) for v in bt.q])
        except (SymdelayInputError, ZeroDivisionError) as exc:
            why.append(f"{fixed} = {value:.8g}: {exc}")
            continue
        rr = float(mpmath.re(nf.r_prime))
        if not (c1.real * c2.real < 0 and abs(rr) > 1e-12):
            continue  # no fold on this side
        rho2 = -c1.real / (2 * c2.real)
        pf = h + (-c1.real * rho2 / 2) / rr
        along_x = along == xn
        ph, pq = (h, value) if along_x else (value, h)
        fld.q = pq
        _, _, Vh = np.linalg.svd(fld.characteristic(ph, 1j * w))
        ev = Vh[-1].conj()
        k = int(np.argmax(np.abs(q)))
        ev = ev * (q[k] / ev[k])  # the model's states as bautin's q, the chains' phases too
        a, b = (pf, value) if along_x else (value, pf)
        try:
            first = _correct_predicted_fold(aug, (a, b), ev, rho2, w, along_x, value,
                                            intervals, degree)  # fmt: skip
        except (NewtonFailed, np.linalg.LinAlgError) as exc:
            why.append(f"{fixed} = {value:.8g}: the predicted fold did not converge ({exc})")
            continue
        qx = complex(fld.weights[: len(q)] @ q)
        pred_amp = 2 * math.sqrt(rho2) * abs(qx)
        if not first.amp > 0.5 * pred_amp:
            why.append(f"{fixed} = {value:.8g}: the predicted fold converged to the equilibrium")
            continue
        extra = {
            "criticality": nf.criticality,
            "amplitude_coefficient": repr(float(nf.amplitude_coefficient)),
        }
        info = _fold_info({"name": fixed, "value": repr(value)}, along, h, extra,
                          (c1.real, c2.real), w, qx, pf, pred_amp, first, along_x)  # fmt: skip
        return first, info
    if why:
        notes.append("the Bautin normal form's fold was not used: " + "; ".join(why))
    return None


def _correct_predicted_fold(aug, ab, vec, rho2, w, along_x, value, intervals, degree):
    """The fold of cycles the Bautin normal form predicts at ``ab = (p, q)``, corrected on
    the augmented system with the other parameter fixed at ``value``: the first cycle
    guessed as the equilibrium plus ``2 sqrt(rho2) Re(vec e^{2 pi i t})`` with period
    ``2 pi / w``."""
    a, b = ab
    fld = aug.F
    fld.q = b
    coll = Collocation(degree, np.linspace(0.0, 1.0, intervals + 1))
    tn = coll.node_times()
    U = fld.equilibrium(a)[None, :] + 2 * math.sqrt(rho2) * np.real(
        vec[None, :] * np.exp(2j * np.pi * tn)[:, None]
    )
    T = 2 * math.pi / w
    _, bb, cc = _null_vectors(aug, coll, U, T, a, b)
    return aug.correct(_Point(coll, U, T, a, b, bb, cc), U, ("fix", "q" if along_x else "p", value))


def _fold_info(fixed, along, h, extra, re_c, w, qx, pf, pred_amp, first, along_x) -> dict:
    """The start record of a fold curve begun at the Bautin normal form's prediction (the
    same keys for tables and delay models; ``l1``, ``l2`` normalised by ``q_x = 1``)."""
    return {
        "kind": "fold predicted by the Bautin normal form",
        "fixed": fixed,
        "continued": along,
        "hopf": repr(h),
        **extra,
        "l1": repr(re_c[0] / w / abs(qx) ** 2),
        "l2": repr(re_c[1] / w / abs(qx) ** 4),
        "predicted_fold": repr(float(pf)),
        "augmented_fold": repr(float(first.p if along_x else first.q)),
        "predicted_amplitude": repr(pred_amp),
        "amplitude": repr(float(first.amp)),
        "period": repr(float(first.T)),
    }


def _delay_first_fold(model, aug, names, box, bautin, start, hopf, intervals, degree):
    """The first point of the curve of a delay model: a fold located on a one-parameter
    delay branch (:func:`symdelay.analysis.continuation.cycles`, started from the delay
    normal form at its Hopf point) from a Hopf point near the Bautin point, the other
    parameter held; the range of the branch starts halfway between that Hopf point and the
    next one below it, so the branch starts there. The located fold's orbit, corrected onto
    the augmented system (the held parameter fixed), is the first point."""
    from symdelay.analysis.continuation import _hopf_points, cycles

    xn, yn = names
    xlo, xhi, ylo, yhi = box
    xb, yb, _ = bautin
    tried, cands = [], []
    for fixed, along, value, h, w in _delay_start_points(names, box, bautin, start, hopf):
        value, h, w = float(value), float(h), float(w)
        m1 = _fix(model, fixed, value)
        lo, hi = (xlo, xhi) if along == xn else (ylo, yhi)
        launch = None
        if math.isfinite(w):  # a point of the map's Hopf curve: its normal form first
            try:
                launch = _delay_hopf_cycle(m1, aug, names, along, value, h, w, (lo, hi),
                                           intervals, degree)  # fmt: skip
            except (SymdelayInputError, NewtonFailed, np.linalg.LinAlgError) as exc:
                tried.append(f"{fixed} = {value:.8g}: {exc}")
                continue
        cands.append((fixed, along, value, h, m1, lo, hi, launch))
    # the subcritical side first (l1 > 0): where the folds are near a Bautin point (each
    # branch's orbits carry their Floquet multipliers, the cost of a branch that does not
    # fold)
    cands.sort(key=lambda c: c[7] is not None and c[7][2]["criticality"] != "subcritical")
    for fixed, along, value, h, m1, lo, hi, launch in cands:
        try:
            if launch is not None:  # start at the map's Hopf point
                given, side, law = launch
                near = h
                branch = cycles(m1, along, repr(lo), repr(hi), start=given, direction=side,
                                intervals=intervals, degree=degree,
                                max_points=BRANCH_POINTS)  # fmt: skip
                branch.start.update(law)
            else:  # a line through the box: the branch from its Hopf point nearest
                found, _, _ = _hopf_points(m1, along, lo, hi, repr(lo), repr(hi))
                near = min(found, key=lambda v: abs(v - h))
                below = [v for v in found if v < near]
                lo1 = (max(below) + near) / 2 if below else lo
                branch = cycles(m1, along, repr(lo1), repr(hi), intervals=intervals,
                                degree=degree, max_points=BRANCH_POINTS)  # fmt: skip
        except (SymdelayInputError, NewtonFailed, np.linalg.LinAlgError) as exc:
            tried.append(f"{fixed} = {value:.8g}: {exc}")
            continue
        lpcs = [s for s in branch.special_points if s.kind == "LPC" and s.located]
        if not lpcs or lpcs[0].orbit is None:
            tried.append(
                f"{fixed} = {value:.8g}: no fold on the branch from the Hopf point "
                f"{along} = {near:.8g} ({branch.start.get('criticality', '')}; "
                f"{branch.stop})"
            )
            continue
        lpc = lpcs[0]
        orb = lpc.orbit
        which = "q" if along == xn else "p"
        p, q = (float(orb.p), value) if along == xn else (value, float(orb.p))
        try:
            aug.F.q = q
            _, b, c = _null_vectors(aug, orb.coll, orb.U, orb.T, p, q)
            pt = _Point(orb.coll, orb.U, float(orb.T), p, q, b, c)
            first = aug.correct(pt, pt.U, ("fix", which, value))
        except (NewtonFailed, np.linalg.LinAlgError) as exc:
            tried.append(f"{fixed} = {value:.8g}: the fold did not converge ({exc})")
            continue
        got = first.p if along == xn else first.q
        info = {
            "kind": "fold on a one-parameter branch",
            "fixed": {"name": fixed, "value": repr(float(value))},
            "continued": along,
            "hopf": repr(float(near)),
            "criticality": branch.start.get("criticality"),
            "l1": branch.start.get("l1"),
            "amplitude_coefficient": branch.start.get("amplitude_coefficient"),
            "branch_fold": repr(float(lpc.value)),
            "augmented_fold": repr(float(got)),
            "amplitude": repr(float(first.amp)),
            "period": repr(float(first.T)),
        }
        return first, info
    raise SymdelayInputError(
        f"no fold of cycles found near the Bautin point ({xn} = {xb:.8g}, {yn} = {yb:.8g}): "
        + ("; ".join(tried) or "no Hopf point near it")
    )


def _delay_hopf_cycle(m1, aug, names, along, value, h, w, rng, intervals, degree):
    """``(cycle, side, law)``: the delay normal form's small cycle near the Hopf point
    ``along = h`` of the map's curve (the other parameter at ``value``, frequency ``w``;
    the equilibrium may already be unstable there, so the window of a line need not show
    it): the critical eigenvector of the flattened ``Delta(i omega)`` scaled to the
    amplitude ``c sqrt|p - h|`` of :func:`symdelay.analysis.dnormal.delay_hopf_fields` on
    the side of its law; ``law``: its ``l1``, criticality and coefficient."""
    import mpmath

    from symdelay.analysis.dnormal import delay_hopf_fields
    from symdelay.analysis.normal_form import NormalForm

    xn, _ = names
    with mpmath.workdps(30):
        nf = NormalForm(**delay_hopf_fields(m1, along, mpmath.mpf(h), mpmath.mpf(w), 15,
                                            rel=1e-12))  # fmt: skip
    if nf.multiple or nf.side is None:
        raise SymdelayInputError(
            f"the delay normal form at {along} = {h:.10g} gives no amplitude law ({nf.criticality})"
        )
    coef, side = float(nf.amplitude_coefficient), (1 if nf.side == "above" else -1)
    fld = aug.F
    p, q = (h, value) if along == xn else (value, h)
    fld.q = q
    Dm = fld.characteristic(p, 1j * w)
    _, _, Vh = np.linalg.svd(Dm)
    ev = Vh[-1].conj()
    cq = complex(fld.weights @ ev)
    if abs(cq) < 1e-8 * float(np.max(np.abs(ev))):
        raise SymdelayInputError("the critical eigenvector does not move the imbalance")
    ev = ev / cq
    room = (rng[1] - h) if side > 0 else (h - rng[0])
    eq = fld.equilibrium(p)
    A1 = min(1e-2 * max(1e-2, float(np.max(np.abs(eq[: fld.n_model])))),
             coef * math.sqrt(0.02 * room))  # fmt: skip
    p1 = h + side * (A1 / coef) ** 2
    pp, qq = (p1, value) if along == xn else (value, p1)
    fld.q = qq
    eq = fld.equilibrium(pp)
    T = 2 * math.pi / w
    tt = np.linspace(0.0, 1.0, 8 * intervals * degree + 1)
    Y = eq[:, None] + A1 * np.real(ev[:, None] * np.exp(2j * np.pi * tt)[None, :])
    law = {
        "l1": repr(float(nf.l1)),
        "criticality": nf.criticality,
        "amplitude_coefficient": repr(coef),
    }
    return _GivenCycle(p1, tt * T, Y, T), side, law


def _delay_start_points(names, box, bautin, start, hopf):
    """``(fixed name, continued name, fixed value, Hopf value, omega)`` for a delay model:
    on the map's Hopf curve, a quarter of the way from the Bautin point to each end (the
    coordinate the curve moves along faster held; both sides tried, the first branch that
    folds is used); with ``start = (name, value)`` or without the curve, lines through the
    box (:func:`_line_starts`'s, without a first Lyapunov coefficient to order them)."""
    xn, yn = names
    xlo, xhi, ylo, yhi = box
    xb, yb, _ = bautin
    S = np.array([xhi - xlo, yhi - ylo])
    if start is None and hopf is not None and len(hopf) >= 5:
        P = np.array([[float(v) for v in z] for z in hopf])
        k = int(np.argmin(np.hypot((P[:, 0] - xb) / S[0], (P[:, 1] - yb) / S[1])))
        for j in (k + max(2, (len(P) - 1 - k) // 4), k - max(2, k // 4)):
            if not 1 <= j < len(P) - 1:
                continue
            d = (P[j + 1, :2] - P[j - 1, :2]) / S
            if abs(d[1]) >= abs(d[0]):
                yield yn, xn, P[j, 1], P[j, 0], P[j, 2]
            else:
                yield xn, yn, P[j, 0], P[j, 1], P[j, 2]
        return
    if start is not None:
        name, value = start
        if name not in names:
            raise SymdelayInputError(f"start: give ({xn!r} or {yn!r}, value), got {start!r}")
        cands = [(name, float(value))]
    else:
        cands = [
            (yn, yb + 0.25 * (yhi - yb)),
            (yn, yb - 0.25 * (yb - ylo)),
            (xn, xb + 0.25 * (xhi - xb)),
            (xn, xb - 0.25 * (xb - xlo)),
        ]
    for fixed, value in cands:
        along = xn if fixed == yn else yn
        # the Hopf value: the one nearest the Bautin point's coordinate (read by
        # :func:`_delay_first_fold` from the window on that line)
        yield fixed, along, value, (xb if along == xn else yb), math.nan


@dataclass(frozen=True)
class _GivenCycle:
    """A cycle handed to :func:`symdelay.analysis.continuation.cycles` as its start."""

    value: float
    t: np.ndarray
    y: np.ndarray
    period: float


def _hopf_cycle(model, aug, names, along, value, h, w, rng, intervals, degree):
    """``(cycle, side)``: the normal form's small cycle near the Hopf point ``along = h``
    (the other parameter at ``value``, frequency ``w``) on the side where the cycles live
    (``side`` +1 above, -1 below): the critical eigenvector scaled to the amplitude
    ``c sqrt|p - h|`` (``c1`` of :func:`symdelay.analysis.normal_form.first_lyapunov` in the
    map's two parameters, the crossing speed ``Re r'`` by a central difference of the
    Jacobian's eigenvalue)."""
    import mpmath

    from symdelay.analysis.normal_form import first_lyapunov

    xn, _ = names
    fld = aug.F
    pt = (h, value) if along == xn else (value, h)
    with mpmath.workdps(25):
        hc = first_lyapunov(model, tuple(names)).hopf(tuple(mpmath.mpf(v) for v in pt),
                                                      mpmath.mpf(w))  # fmt: skip
        q = np.array([complex(v) for v in hc.q])
        c1 = complex(hc.c1)
    cq = complex(fld.weights @ q)
    if abs(cq) == 0:
        raise SymdelayInputError("the critical eigenvector does not move the imbalance")
    q, rc = q / cq, c1.real / abs(cq) ** 2
    dp = 1e-6 * (1 + abs(h))
    re = []
    for v in (h - dp, h + dp):
        xy = (v, value) if along == xn else (value, v)
        fld.q = xy[1]
        eq = fld.equilibrium(xy[0])
        ev = np.linalg.eigvals(fld.jac_dense(eq[None, :], xy[0])[0])
        re.append(ev[np.argmin(np.abs(ev - 1j * w))].real)
    rr = (re[1] - re[0]) / (2 * dp)
    if not abs(rc) > 1e-12 or not abs(rr) > 1e-12:
        raise SymdelayInputError("a degenerate Hopf point (l1 or the crossing speed is 0)")
    side = 1 if -rr / rc > 0 else -1
    coef = 2 * math.sqrt(abs(rr / rc))
    room = (rng[1] - h) if side > 0 else (h - rng[0])
    fx = (lambda p: (p, value)) if along == xn else (lambda p: (value, p))
    fld.q = fx(h)[1]
    size = float(np.max(np.abs(fld.equilibrium(fx(h)[0]))))
    A1 = min(1e-2 * max(1e-2, size), coef * math.sqrt(0.02 * room))
    p1 = h + side * (A1 / coef) ** 2
    a, b = fx(p1)
    fld.q = b
    eq = fld.equilibrium(a)
    T = 2 * math.pi / w
    tt = np.linspace(0.0, 1.0, 8 * intervals * degree + 1)
    Y = eq[:, None] + A1 * np.real(q[:, None] * np.exp(2j * np.pi * tt)[None, :])
    return _GivenCycle(p1, tt * T, Y, T), side


def _start_points(model, names, box, bautin, start, hopf):
    """``(fixed name, continued name, fixed value, Hopf value, omega)`` of the Hopf points
    to start a one-parameter branch from: on the map's Hopf curve ``hopf`` (its certified
    points ``(x, y, omega)``), a quarter of the way from the Bautin point to each end,
    the coordinate the curve moves along faster held; without the curve (or with
    ``start = (name, value)``), the Hopf point nearest the Bautin point on a line."""
    xn, yn = names
    xlo, xhi, ylo, yhi = box
    xb, yb, _ = bautin
    S = np.array([xhi - xlo, yhi - ylo])
    if start is None and hopf is not None and len(hopf) >= 5:
        from symdelay.analysis.normal_form import first_lyapunov

        P = np.array([[float(v) for v in z] for z in hopf])
        k = int(np.argmin(np.hypot((P[:, 0] - xb) / S[0], (P[:, 1] - yb) / S[1])))
        js = [j for j in (k + max(2, (len(P) - 1 - k) // 4), k - max(2, k // 4))
              if 1 <= j < len(P) - 1]  # fmt: skip
        # the subcritical side first (l1 > 0): where the folds usually are (l2 < 0, a stable
        # outer cycle); the other side is tried when no branch folds there
        lyap = first_lyapunov(model, tuple(names))
        with np.errstate(all="ignore"):
            l1 = {j: lyap.fast(*P[j]) for j in js}
        for j in sorted(js, key=lambda j: not l1[j] > 0):
            d = (P[j + 1, :2] - P[j - 1, :2]) / S
            if abs(d[1]) >= abs(d[0]):  # the curve moves along y: hold y, continue in x
                yield yn, xn, P[j, 1], P[j, 0], P[j, 2]
            else:
                yield xn, yn, P[j, 0], P[j, 1], P[j, 2]
        return
    yield from _line_starts(model, names, box, bautin, start)


def _line_starts(model, names, box, bautin, start):
    from symdelay.analysis.window import window

    xn, yn = names
    xlo, xhi, ylo, yhi = box
    xb, yb, _ = bautin
    if start is not None:
        name, value = start
        if name not in names:
            raise SymdelayInputError(f"start: give ({xn!r} or {yn!r}, value), got {start!r}")
        cands = [(name, float(value))]
    else:  # a quarter of the way to the box's edge, both sides, on lines of each parameter
        cands = [
            (yn, yb + 0.25 * (yhi - yb)),
            (yn, yb - 0.25 * (yb - ylo)),
            (xn, xb + 0.25 * (xhi - xb)),
            (xn, xb - 0.25 * (xb - xlo)),
        ]
    for fixed, value in cands:
        along = xn if fixed == yn else yn
        lo, hi = (xlo, xhi) if along == xn else (ylo, yhi)
        try:
            win = window(_fix(model, fixed, value), along, lo=repr(lo), hi=repr(hi))
        except SymdelayInputError:
            continue
        ends = [
            e
            for iv in win.intervals
            for e in (iv.lo, iv.hi)
            if e.kind == "r = i omega" and lo < float(e.value) < hi and len(e.omega) == 1
        ]
        if ends:
            ref = xb if along == xn else yb
            e = min(ends, key=lambda e: abs(float(e.value) - ref))
            yield fixed, along, value, float(e.value), float(e.omega[0])


def _fix(model, name, value):
    """``model`` with ``name`` at ``value`` (its decimal text, exact; ``D`` of an Erlang
    chain through its rate ``gamma = L/D``)."""
    from symdelay.analysis.window import _resolve

    v = sp.Rational(repr(float(value)))
    _, rp = _resolve(model, name)
    if rp is not None:
        return model.with_values(**{str(rp.base): sp.Integer(rp.L) / v})
    return model.with_values(**{name: v})


def _from_branch_point(aug, bp, along_x, value, intervals, degree):
    """A :class:`_Point` from a one-parameter branch's orbit (interpolated onto a uniform
    mesh), with bordering vectors refined by two bordered solves."""
    coll = Collocation(degree, np.linspace(0.0, 1.0, intervals + 1))
    T = float(bp.period)
    tn = coll.node_times() * T
    U = np.stack([np.interp(tn, bp.t, row, period=T) for row in bp.y], axis=1)
    p, q = (float(bp.value), value) if along_x else (value, float(bp.value))
    aug.F.q = q
    _, b, c = _null_vectors(aug, coll, U, T, p, q)
    return _Point(coll, U, T, p, q, b, c)


def _null_vectors(aug, coll, U, T, p, q, b=None, c=None):
    """``(G, b, c)``: bordering vectors from two steps of inverse iteration (the bordered
    solves) from ``b``, ``c`` (random unit vectors by default)."""
    NU = U.size
    J = aug.jac(coll, U, T, p, q, coll.phase_weights(U))
    A = J[:, : NU + 1]
    rng = np.random.default_rng(0)
    b = _unit(rng.standard_normal(NU + 1)) if b is None else b
    c = _unit(rng.standard_normal(NU + 1)) if c is None else c
    G = math.nan
    for _ in range(2):
        G, v, w = aug.bordered(A, b, c)
        b, c = _unit(w), _unit(v)
    return G, b, c


# ---------------------------------------------------------------------- continuation
def _both_ways(aug, first, box, max_points):
    """Continue from ``first`` both ways: ``(points towards the Bautin point, why it
    stopped, points away, why it stopped)``; the way towards the Bautin point is the one
    whose first step makes the amplitude smaller."""
    # any row not orthogonal to the tangent: the parameters' and the period's directions
    guess = (np.zeros_like(first.U), 1.0, aug.sx**2, aug.sy**2)
    tan = aug.tangent(first, guess)
    first.tangent = tan
    runs = {}
    for sign in (1, -1):
        t0 = tuple(sign * a for a in tan)
        start = _Point(first.coll, first.U, first.T, first.p, first.q, first.b, first.c,
                       first.G, t0, first.amp)  # fmt: skip
        runs[sign] = _run(aug, start, box, max_points // 2)
    # towards the Bautin point: the way on which the amplitude decreases
    amp_after = {s: (r[0][0].amp if r[0] else math.inf) for s, r in runs.items()}
    inward = min(runs, key=lambda s: amp_after[s])
    pin, why_in = runs[inward]
    pout, why_out = runs[-inward]
    if why_in != "Bautin point" and why_out == "Bautin point":
        pin, why_in, pout, why_out = pout, why_out, pin, why_in
    return pin, why_in, pout, why_out


def _run(aug, a: _Point, box, max_points):
    """The points from ``a`` along its tangent until an end: ``(points, why)``."""
    xlo, xhi, ylo, yhi = box
    amp0, first_T = a.amp, a.T
    pts = []
    ds_max = 0.05 * (1.0 + _orbit_size(a))
    ds = 0.25 * ds_max
    ds_min = 1e-6 * ds_max
    why = ""
    while True:
        if len(pts) >= max_points:
            return pts, f"max_points ({max_points} each way)"
        if len(pts) % 5 == 4:
            a = _adapt(aug, a)
        # towards a vanishing amplitude the step is kept below the orbit's size, so that a
        # step does not jump through the Bautin point (where the orbit shrinks to the
        # equilibrium)
        step = min(ds, 0.3 * _orbit_size(a)) if pts and pts[-1].amp < a.amp * 1.0001 else ds
        try:
            pred = _Point(a.coll, a.U + step * a.tangent[0], a.T + step * a.tangent[1],
                          a.p + step * a.tangent[2], a.q + step * a.tangent[3], a.b, a.c)  # fmt: skip
            st = aug.correct(pred, a.U, ("arc", a, a.tangent, step))
            st.tangent = aug.tangent(
                st, a.tangent, orient=(st.U - a.U, st.T - a.T, st.p - a.p, st.q - a.q)
            )
        except (NewtonFailed, np.linalg.LinAlgError, RuntimeError) as exc:
            ds = step / 2
            why = str(exc)
            if ds < ds_min:
                if a.amp < 0.1 * amp0:  # Newton fails as the orbit shrinks to a point
                    return pts, "Bautin point"
                return pts, f"step too small ({why})"
            continue
        if not (xlo <= st.p <= xhi and ylo <= st.q <= yhi):
            edge = _land(aug, a, st, box)
            if edge is not None:
                pts.append(edge)
            return pts, "box edge"
        if not _in_domain(st):
            return pts, "left the domain"
        if st.amp < END_FRACTION * amp0:
            return pts, "Bautin point"
        if 50 * first_T < st.T:
            return pts, f"period unbounded (grew to {st.T:.4g}, 50 times the first)"
        if pts and st.amp > a.amp and a.amp < 0.2 * amp0:
            # the amplitude grows again after shrinking: the step went through the
            # Bautin point onto the mirrored orbits
            return pts, "Bautin point"
        cos = float(aug.metric(a.coll, a.tangent) @ _flat(st.tangent))
        pts.append(st)
        if cos < 0.9 or st.iterations > 6:
            ds = max(step / 2, ds_min)
        elif st.iterations <= 3 and cos > 0.99:
            ds = min(step * 1.5, ds_max)
        a = st


def _orbit_size(a: _Point) -> float:
    """``sqrt(int |u - mean u|^2 dt)`` of the orbit."""
    d = a.U - np.mean(a.U, axis=0)
    return math.sqrt(max(float(np.sum(a.coll.ip_weights(d) * d)), 0.0))


def _in_domain(st: _Point) -> bool:
    from symdelay.analysis.continuation import DOMAIN_TOL

    err = st.coll.error_estimate(st.U)
    return float(np.min(st.U)) >= -(DOMAIN_TOL * (1 + float(np.max(np.abs(st.U)))) + 10 * err)


def _land(aug, a: _Point, b: _Point, box):
    """The point on the box's edge between ``a`` (inside) and ``b`` (outside), or None."""
    xlo, xhi, ylo, yhi = box
    cands = []
    for which, lo, hi, va, vb in (("p", xlo, xhi, a.p, b.p), ("q", ylo, yhi, a.q, b.q)):
        for bound in (lo, hi):
            if (va - bound) * (vb - bound) < 0:
                cands.append(((bound - va) / (vb - va), which, bound))
    if not cands:
        return None
    s, which, bound = min(cands)
    pred = _Point(a.coll, a.U + s * (b.U - a.U), a.T + s * (b.T - a.T), a.p + s * (b.p - a.p),
                  a.q + s * (b.q - a.q), a.b, a.c)  # fmt: skip
    try:
        st = aug.correct(pred, a.U, ("fix", which, bound))
    except (NewtonFailed, np.linalg.LinAlgError, RuntimeError):
        return None
    return st


def _adapt(aug, a: _Point) -> _Point:
    """``a`` on an adapted mesh (orbit and tangent interpolated, bordering vectors
    recomputed)."""
    coll = a.coll
    mesh = coll.adapted_mesh(a.U)
    if np.allclose(mesh, coll.mesh, atol=1e-3 / coll.N):
        return a
    new = Collocation(coll.m, mesh)
    tn = new.node_times()
    U = coll.evaluate(a.U, tn)
    tU = coll.evaluate(a.tangent[0], tn)
    try:
        G, b, c = _null_vectors(aug, new, U, a.T, a.p, a.q)
    except NewtonFailed:
        return a
    tan = (tU, *a.tangent[1:])
    nrm = aug.norm(new, tan)
    out = _Point(new, U, a.T, a.p, a.q, b, c, G, tuple(v / nrm for v in tan), a.amp,
                 a.iterations)  # fmt: skip
    return out


# ------------------------------------------------------------------------ the map's
def map_fold_curves(model, X, Y, bautins, curves, *, fold_cycles=None, force=False, notes=None):
    """The fold-of-cycles curve from each of the stability map's Bautin points ``bautins``
    (special-point dicts) on its Hopf ``curves`` (:class:`~symdelay.analysis.map_core.
    MapCurve`) in the box ``X`` x ``Y`` (``(name, lo, hi)`` each): a tuple of
    :class:`FoldCurve`. ``fold_cycles`` None (the map's default) computes them when the
    estimated cost is within the budget (or ``force``) and otherwise says so in ``notes``;
    True refuses over the budget as every cost does; a Bautin point from which no curve
    could be continued is named in ``notes`` with the reason."""
    from symdelay.core.budget import check_budget

    notes = [] if notes is None else notes
    if not bautins or fold_cycles is False:
        return ()
    n = len(model.states)
    # a delay model: its lags (a mixture reads its members') stand for the look-backs (the
    # field is not built yet)
    lags = sum(1 for g in (getattr(model, "lags", None) or {}).values() if g.kind != "mixture")
    estimate = len(bautins) * _seconds(MAX_POINTS_MAP, 20 * 4 * n, 1 + lags if lags else None)
    try:
        check_budget(
            f"the fold-of-cycles curves from {len(bautins)} Bautin point(s)",
            estimate,
            force=force,
            shrink="fewer Bautin points in the box",
        )
    except SymdelayInputError as exc:
        if fold_cycles:
            raise
        notes.append(f"no fold-of-cycles curve: {exc}")
        return ()
    out = []
    for s in bautins:
        point = tuple(float(s[k]) for k in ("x", "y", "omega"))
        hopf = _curve_through(curves, s, X, Y)
        try:
            out.append(
                fold_of_cycles(model, X, Y, point, hopf=hopf, max_points=MAX_POINTS_MAP, force=True)
            )
        except SymdelayInputError as exc:
            notes.append(
                f"no fold-of-cycles curve from the Bautin point ({point[0]:.10g}, "
                f"{point[1]:.10g}): {exc}"
            )
    return tuple(out)


def _curve_through(curves, s, X, Y):
    """The points of the Hopf curve (of the Bautin point's factor) nearest the point."""
    sx, sy = float(X[2]) - float(X[1]), float(Y[2]) - float(Y[1])
    best, dist = None, math.inf
    for c in curves:
        if c.kind != "hopf" or c.factor != s["factor"]:
            continue
        x, y, _ = c.arrays()
        d = float(np.min(np.hypot((x - float(s["x"])) / sx, (y - float(s["y"])) / sy)))
        if d < dist:
            best, dist = c.points, d
    return best


#: the most points of a map's fold-of-cycles curve
MAX_POINTS_MAP = 120


def _seconds(max_points, size, lookbacks=None) -> float:
    """Rough seconds of one curve: the one-parameter branch that finds the first fold (its
    normal form and up to 80 orbits) and ``max_points`` points of the augmented system
    (measured: the in-flight model, 8 states, 20 intervals of degree 4: 11 s for 63 points
    and the first branch; the cubic-routing model, 6 states: 7 s for 25). A delay model
    (``lookbacks``: the blocks per row of its Jacobian, the present plus each look-back, a
    window counting 8): measured, the sharpened routing (2 states, one look-back, 20
    intervals of degree 4): 4.4-5.5 s for 29 points and the first branch (2.5 s)."""
    if lookbacks is None:
        return 6.0 + max_points * 1.5e-4 * size
    return 3.0 * lookbacks + max_points * 3e-4 * size * lookbacks


def _lookbacks(fld):
    """The blocks per row of a delay field's collocation Jacobian (None for a table's)."""
    if not hasattr(fld, "K"):
        return None
    return fld.K + 8 * len(fld.windows)
