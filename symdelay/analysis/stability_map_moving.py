"""Stability maps when the equilibrium moves with the map's parameters and has no closed form.

:func:`symdelay.analysis.stability_map.stability_map` comes here when the equilibrium of the
model depends on ``x`` or ``y`` and SymPy cannot solve for it (two unequal servers with logit
routing: the equilibrium solves a transcendental equation). The characteristic polynomial
then has no exact coefficients in ``(x, y)``; the map continues the equilibrium *with* the
crossing, as DDE-BIFTOOL and MatCont do.

Unknowns and equations. With ``s`` the model's states, ``F(s; x, y)`` its drift and
``P(r; s, x, y) = det(r I - dF/ds)`` (symbolic in ``s``, ``x``, ``y``; split at ``r = i w``
as ``Re + i w Im1``): a **Hopf curve** is a branch of ``Re = Im1 = 0, F = 0`` in
``(x, y, w, s)``, a **fold curve** a branch of ``P(0) = 0, F = 0`` in ``(x, y, s)``: one
unknown more than equations, traced by the same pseudo-arclength continuation as the generic
map (the states scaled by ``1 + |s|``).

Seeds (what is searched). On ``seeds`` lines ``x = const`` and ``seeds`` lines ``y = const``
(equally spaced, edges included) the equilibrium is continued by Newton's method along the
line at ``SCAN`` equally spaced points and the eigenvalues of the Jacobian are counted with
``Re > 0`` at each; where the count changes between neighbours, bisection on the line
(equilibrium re-solved) brackets the crossing, and the eigenvalue nearest the axis there
gives its kind (a complex pair: Hopf, a real root: fold) and the seed, refined by Newton on
the crossing equations. Two crossings of one line closer together than a scan step, whose
effects cancel, are not seen: the record says so (``searched``); the second net of the
generic map (count changes between neighbouring cells that no traced curve explains) runs
here as well, on the scan of the segment between the two centres.

Certification. Every curve point has one coordinate (``x`` or ``y``) an exact rational and
the rest (the other coordinate, ``w``, the equilibrium) proved by a Krawczyk test in Arb on
the crossing equations together with the equilibrium equations (``exp`` and the other
functions evaluated as balls, :mod:`symdelay.model.arb_eval`): exactly one crossing *with
its equilibrium* lies within ``10^-(dps+2)`` (relative) of the printed values.

Regions. At each cell centre the equilibrium (continued from a neighbouring cell by Newton,
or solved and proved by the model when Newton fails) and numpy's eigenvalues give the
unstable count; a centre whose rightmost real part is within ``1e-8`` of 0 is counted by the
certified roots instead. Every region's count is then checked by the certified path (the
model's equilibrium proved by Krawczyk, the certified roots,
:func:`symdelay.analysis.roots.roots`) at its representative point; a disagreement is an
error, not a note.

Special points. Turning points (``turning_x``, ``turning_y``): where the tangent's ``x`` (or
``y``) component changes sign between certified neighbours, the point is located by
the Illinois method on the other coordinate (each point Newton-solved in mpmath to ``dps``
digits) and proved (``certified``) as the generic map proves a Bautin point
(:func:`~symdelay.analysis.stability_map.prove_zero_along`): a parametric Krawczyk test
over a ball of that coordinate ``10^-(dps+1)`` wide proves one piece of the branch, with its
equilibrium, and the slope ``d(x)/d(y)`` (resp. ``d(y)/d(x)``), from a certified solve with
the Jacobian in Arb, has opposite certain signs at its two ends. Double-Hopf, zero-Hopf and Bautin points are not searched on this
path; a note says so.
"""

from __future__ import annotations

import flint
import mpmath
import numpy as np

from symdelay.analysis.map_core import (
    System,
    W,
    _finite,
    _krawczyk,
    _newton_mp,
    _regions,
    _solve,
    _split,
    cell_centres,
    certify_branches,
    certify_point,
    decimal,
    illinois,
    map_record,
    newton_np,
    note_unexplained,
    prove_zero_along,
    second_net,
    trace_seeds,
)
from symdelay.core.errors import SymdelayInputError, VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.precision import GUARD, workdps
from symdelay.core.symbols import r as R_SYMBOL

__all__ = ["moving_stability_map", "equilibrium_moves"]

#: points per seed line at which the equilibrium and the eigenvalues are computed
SCAN = 64
#: a cell centre whose rightmost real part is this close to 0 is counted by certified roots
NEAR_AXIS = 1e-8


def equilibrium_moves(model, bases) -> bool:
    """True if the equilibrium of ``model`` depends on one of ``bases`` and has no closed
    form (SymPy cannot solve it with those parameters symbolic)."""
    return any(b in model.domains and not model.equilibrium_is_closed_form_in(b) for b in bases)


class _Setup:
    """The model's drift, Jacobian and characteristic polynomial in the states and the
    ``axes`` (one or two ``(name, symbol, reparametrisation)``), numpy evaluators of them,
    and the equilibrium along lines and grids (methods take the axes' values in order)."""

    def __init__(self, model, *axes):
        self.axes = axes
        self.names = [a[0] for a in axes]
        self.syms = [a[1] for a in axes]
        if len(axes) == 2:
            (self.xname, self.xs, _), (self.yname, self.ys, _) = axes
        self.model = model
        subs = {rp.base: rp.L / rp.symbol for _n, _s, rp in axes if rp is not None}
        self.states = list(model.states)
        self.n = len(self.states)
        drift = [sp.sympify(e).xreplace(subs) for e in model.drift]
        Jac = sp.Matrix(model.drift_jacobian).xreplace(subs)
        extra = set().union(*(e.free_symbols for e in drift)) - {*self.states, *self.syms}
        if extra:
            raise SymdelayInputError(
                "give numbers for " + ", ".join(sorted(map(str, extra))) + " (every other "
                "parameter)"
            )
        P = (R_SYMBOL * sp.eye(self.n) - Jac).det(method="berkowitz")
        P = sp.expand(P)
        re, im = _split(P)
        ax = list(self.syms)
        self.hopf = System([re, im, *drift], [*ax, W, *self.states], polynomial=False)
        self.fold = System(
            [sp.expand(P.subs(R_SYMBOL, 0)), *drift], [*ax, *self.states], polynomial=False
        )
        args = [*self.states, *ax]
        self._F = sp.lambdify(args, drift, "numpy")
        self._J = sp.lambdify(args, Jac, "numpy")
        self._Fm = sp.lambdify(args, drift, "mpmath")
        self._Jm = sp.lambdify(args, list(Jac), "mpmath")

    def F(self, s, *vals):
        return _finite(self._F, self._Fm, (*s, *vals))

    def Jac(self, s, *vals):
        return _finite(self._J, self._Jm, (*s, *vals)).reshape(self.n, self.n)

    # ---- the equilibrium and the eigenvalues in doubles
    def newton(self, s0, *vals):
        s = np.array(s0, dtype=float)
        for _ in range(50):
            try:
                f = self.F(s, *vals)
                d = np.linalg.solve(self.Jac(s, *vals), f)
            except (np.linalg.LinAlgError, FloatingPointError, ValueError, ZeroDivisionError):
                return None
            s = s - d
            if not np.all(np.isfinite(s)):
                return None
            if np.max(np.abs(d)) <= 1e-14 * (1 + np.max(np.abs(s))):
                return s
        return None

    def model_at(self, *exact):
        """The model with the axes at the exact values ``exact``."""
        vals = {}
        for (_name, sym, rp), v in zip(self.axes, exact):
            if rp is None:
                vals[str(sym)] = v
            else:
                vals[str(rp.base)] = sp.Rational(rp.L) / v
        return self.model.with_values(**vals)

    def proved(self, *exact):
        """The equilibrium at the exact point, solved and proved by the model."""
        m = self.model_at(*(sp.Rational(v) for v in exact))
        return np.array([float(m.equilibrium.point[s]) for s in self.states])

    def equilibrium(self, guess, *vals, exact=None):
        s = None if guess is None else self.newton(guess, *vals)
        if s is None:
            ex = exact if exact is not None else tuple(decimal(v) for v in vals)
            s = self.newton(self.proved(*ex), *vals)
        if s is None:
            where = ", ".join(f"{n} = {v}" for n, v in zip(self.names, vals))
            raise VerificationError(f"no equilibrium found at {where}")
        return s

    def eig(self, s, *vals):
        return np.linalg.eigvals(self.Jac(s, *vals))


def _count(ev):
    return int(np.sum(ev.real > 0))


# ============================================================================ seeds
def _scan_line(st, fix, fix_val, lo, hi, k=SCAN, start=None):
    """Crossings on the line ``coordinate fix = fix_val`` (0: x, 1: y) for the other
    coordinate in ``[lo, hi]``: ``[(kind, z)]`` seeds (z = (x, y[, w], s...), doubles)."""
    vary = 1 - fix

    def point(v):
        return (fix_val, v) if fix == 0 else (v, fix_val)

    vs = np.linspace(lo, hi, k)
    prev = None
    s = start
    out = []
    for v in vs:
        x, y = point(v)
        s = st.equilibrium(s, x, y)
        ev = st.eig(s, x, y)
        cur = (v, s, _count(ev))
        if prev is not None and cur[2] != prev[2]:
            out += _locate(st, fix, fix_val, prev, cur, vary)
        prev = cur
    return out


def _locate(st, fix, fix_val, a, b, vary):
    """Seeds for a count change between the scan points ``a``, ``b`` (``(v, s, count)``)."""

    def point(v):
        return (fix_val, v) if fix == 0 else (v, fix_val)

    lo, hi = a, b
    for _ in range(40):
        m = 0.5 * (lo[0] + hi[0])
        s = st.equilibrium(lo[1], *point(m))
        c = _count(st.eig(s, *point(m)))
        if c == lo[2]:
            lo = (m, s, c)
        else:
            hi = (m, s, c)
        if abs(hi[0] - lo[0]) <= 1e-12 * (1 + abs(hi[0])):
            break
    v = 0.5 * (lo[0] + hi[0])
    x, y = point(v)
    s = st.equilibrium(lo[1], x, y)
    ev = st.eig(s, x, y)
    change = abs(hi[2] - lo[2])
    kinds = []
    near = sorted(ev, key=lambda e: abs(e.real))
    if change % 2 == 1:
        kinds.append(("fold", None))
    if change >= 2 or change % 2 == 0:
        cx = [e for e in near if abs(e.imag) > 1e-9 * (1 + abs(e))]
        if cx:
            kinds.append(("hopf", abs(cx[0].imag)))
    out = []
    for kind, w in kinds:
        system = st.hopf if kind == "hopf" else st.fold
        z = np.array([x, y, *([w] if kind == "hopf" else []), *s], dtype=float)
        free = [i for i in range(len(z)) if i != fix]
        z = newton_np(system, z, free)
        if z is not None:
            out.append((kind, z))
    return out


# ============================================================================ the entry
def moving_stability_map(model, X, Y, box_exact, fixed_json, notes, dps, cells, seeds):
    """The map (see the module docstring). ``X``, ``Y``: ``(name, symbol, reparametrisation)``;
    ``box_exact``: ``(xlo, xhi, ylo, yhi)`` exact rationals."""
    from symdelay.analysis.roots import roots

    st = model.cached(
        f"stability_map moving {X[0]} {Y[0]}", lambda: _Setup(model, X, Y)
    )  # fmt: skip
    xlo, xhi, ylo, yhi = box_exact
    box = tuple(float(v) for v in box_exact)
    Sxy = np.array([box[1] - box[0], box[3] - box[2]])
    systems = {(0, "hopf"): st.hopf, (0, "fold"): st.fold}

    # ---- seeds on the grid lines, the equilibrium continued along each
    seed_list = []
    start = st.equilibrium(None, box[0], box[2], exact=(xlo, ylo))
    for k in range(seeds):
        xv = box[0] + (box[1] - box[0]) * k / (seeds - 1)
        s0 = st.equilibrium(start, xv, box[2])
        seed_list += _scan_line(st, 0, xv, box[2], box[3], start=s0)
        yv = box[2] + (box[3] - box[2]) * k / (seeds - 1)
        s0 = st.equilibrium(start, box[0], yv)
        seed_list += _scan_line(st, 1, yv, box[0], box[1], start=s0)

    branches = []  # (0, kind, pts, tans, ends): the one factor of the full polynomial

    def trace(items):
        trace_seeds(branches, systems, box, [(0, kind, z) for kind, z in items])

    trace(seed_list)

    # ---- regions: counts at the cell centres, the equilibrium continued over the grid
    cx, cy = cell_centres(xlo, xhi, cells), cell_centres(ylo, yhi, cells)
    counts, eqs = [], []
    certified_cells = 0
    row_start = start
    for b in cy:
        row, s = [], row_start
        eqs.append([])
        for j, a in enumerate(cx):
            s = st.equilibrium(s, float(a), float(b), exact=(a, b))
            eqs[-1].append(s)
            if j == 0:
                row_start = s
            ev = st.eig(s, float(a), float(b))
            if np.min(np.abs(ev.real)) <= NEAR_AXIS:
                row.append(roots(st.model_at(a, b), dps=15).unstable_count)
                certified_cells += 1
            else:
                row.append(_count(ev))
        counts.append(row)

    # ---- second net: count changes no traced curve explains, scanned on their segment
    def segment_seeds(j, k, j2, k2):
        if j == j2:
            return _scan_line(st, 1, float(cy[j]), float(cx[k]), float(cx[k2]), 16, eqs[j][k])
        return _scan_line(st, 0, float(cx[k]), float(cy[j]), float(cy[j2]), 16, eqs[j][k])

    missing, extra = second_net(counts, cx, cy, branches, Sxy, segment_seeds, trace)
    note_unexplained(notes, missing, counts, cx, cy)
    regions, labels = _regions(counts, cx, cy)
    for g in regions:
        a, b = g["point"]
        got = roots(st.model_at(a, b), dps=15).unstable_count
        if got != g["unstable_roots"]:
            raise VerificationError(
                f"the map counts {g['unstable_roots']} unstable roots at {st.xname} = {a}, "
                f"{st.yname} = {b} and the certified roots {got}"
            )

    # ---- certify the curve points (one coordinate exact, the rest with the equilibrium)

    curves, full = certify_branches(branches, systems, dps, box_exact, notes)
    specials = _turning_points(branches, systems, dps, box, notes)
    notes.append(
        "the equilibrium moves with the axes (no closed form): it is continued with every "
        "crossing and proved with it; double-Hopf, zero-Hopf and Bautin points are not "
        "searched on this path"
    )
    if certified_cells:
        notes.append(f"{certified_cells} cell centres near a boundary counted by certified roots")
    searched = (
        f"the equilibrium and the eigenvalues at {SCAN} points on each of {seeds} lines "
        f"x = const and {seeds} lines y = const (edges included), every change of the unstable "
        "count bracketed and its crossing continued"
        + (f", plus {extra} segments between cells whose counts differ" if extra else "")
        + f"; regions from the counts at the centres of {cells}x{cells} cells, each region's "
        "count checked by certified roots. Two crossings of a line within one scan step whose "
        "effects cancel, and a branch meeting no line, can be missed"
    )
    return map_record(
        model,
        (st.xname, xlo, xhi),
        (st.yname, ylo, yhi),
        fixed_json,
        dps,
        curves,
        specials,
        (counts, regions, labels),
        searched,
        notes,
        "pseudo-arclength continuation of each crossing together with the moving equilibrium "
        "(numpy), points proved with their equilibrium by Krawczyk (Arb); counts by "
        "eigenvalues at the cell centres, each region's checked by certified roots",
        lambda result, x, y: _crossings(st, result, dps, eqs, x=x, y=y),
        systems=systems,
        full=full,
    )


def _turning_points(branches, systems, dps, box, notes):
    """Turning points: where ``g = d(which)/d(other)`` along a branch changes sign between
    two traced points, its zero is located by the Illinois method on ``other`` (each point
    Newton-solved in mpmath with ``other`` held, ``g`` from one linear solve with the
    Jacobian) to ``dps`` digits, then proved (:func:`_slope_arb` changes sign)."""

    out = []
    with workdps(dps):
        for _i, kind, pts, tans, _ends in branches:
            system = systems[(0, kind)]
            n = len(system.syms)
            for which, name in ((0, "turning_x"), (1, "turning_y")):
                other = 1 - which
                free = [i for i in range(n) if i != other]

                def g(z, free=free, other=other, which=which, system=system):
                    Jv = system.Jm(z)
                    rhs = [-row[other] for row in Jv]
                    t = _solve([[row[c] for c in free] for row in Jv], rhs)
                    return None if t is None else t[free.index(which)]

                for a in range(len(tans) - 1):
                    ta, tb = tans[a], tans[a + 1]
                    if ta is None or tb is None or ta[which] * tb[which] >= 0:
                        continue
                    sol = _illinois(system, g, pts[a], pts[a + 1], other, free, dps)
                    if sol is None:
                        notes.append(
                            f"a {name} point near {[float(v) for v in pts[a][:2]]} was not located"
                        )
                        continue
                    if not (box[0] <= sol[0] <= box[1] and box[2] <= sol[1] <= box[3]):
                        continue
                    ok = prove_zero_along(
                        system, sol, other, dps, lambda pt, w=which, o=other, s=system:
                        _slope_arb(s, pt, w, o)
                    )  # fmt: skip
                    out.append(
                        {"type": name, "x": sol[0], "y": sol[1],
                         "omega": sol[2] if kind == "hopf" else mpmath.mpf(0), "factor": 0,
                         "kind": kind, "certified": ok}
                    )  # fmt: skip
    out.sort(key=lambda s: (s["type"], float(s["x"]), float(s["y"])))
    return out


def _slope_arb(system, pt, which, other):
    """``d(which)/d(other)`` along the branch on the Arb point ``pt``: the tangent with
    ``other``'s component 1, from a certified solve with the Jacobian (None if singular)."""
    k = len(system.syms)
    flat = system.arb()[1](pt)
    rows = len(system.exprs)
    free = [i for i in range(k) if i != other]
    M = flint.arb_mat(rows, rows, [flat[r * k + c] for r in range(rows) for c in free])
    rhs = flint.arb_mat(rows, 1, [-flat[r * k + other] for r in range(rows)])
    try:
        t = M.solve(rhs)
    except ZeroDivisionError:
        return None
    return t[free.index(which), 0]


def _illinois(system, g, pa, pb, other, free, dps):
    """The zero of ``g`` between the branch points ``pa``, ``pb`` (coordinate ``other``)."""

    def at(v, guess):
        z = [mpmath.mpf(u) for u in guess]
        z[other] = v
        sol = _newton_mp(system, z, free, dps + 6)
        return (sol, None) if sol is None else (sol, g(sol))

    za, fa = at(mpmath.mpf(pa[other]), pa)
    zb, fb = at(mpmath.mpf(pb[other]), pb)
    if za is None or zb is None or fa is None or fb is None or (fa > 0) == (fb > 0):
        return None
    return illinois(at, za, fa, zb, fb, other, dps)


def _crossings(st, result, dps, eqs, *, x=None, y=None):
    """:meth:`StabilityMap.crossings` on this path: the line scanned as a seed line, every
    crossing in the box proved by Krawczyk with its equilibrium."""
    from symdelay.core.params import as_parameter

    fix = 0 if x is not None else 1
    value = sp.Rational(as_parameter("value", x if x is not None else y, positive=False))
    xlo, xhi = result.x[1], result.x[2]
    ylo, yhi = result.y[1], result.y[2]
    lo, hi = (ylo, yhi) if fix == 0 else (xlo, xhi)
    a, b = (value, lo) if fix == 0 else (lo, value)
    # the equilibrium at the line's start, from the nearest cell centre's
    cells = len(eqs)
    k = min(cells - 1, max(0, int((a - xlo) / (xhi - xlo) * cells)))
    j = min(cells - 1, max(0, int((b - ylo) / (yhi - ylo) * cells)))
    s0 = st.equilibrium(eqs[j][k], float(a), float(b), exact=(a, b))
    seeds = _scan_line(st, fix, float(value), float(lo), float(hi), 4 * SCAN, s0)
    out = []
    box_exact = (xlo, xhi, ylo, yhi)
    with workdps(dps):
        for kind, z in seeds:
            system = st.hopf if kind == "hopf" else st.fold
            z = np.array(z, dtype=float)
            z[fix] = float(value)
            sol = certify_point(system, z, fix, dps, box_exact, exact=value)
            ok = sol is not None
            if sol is None:
                sol = [mpmath.mpf(v) for v in z]
            w = sol[2] if kind == "hopf" else mpmath.mpf(0)
            out.append((sol[1 - fix], w, kind, 0, ok))
    out.sort(key=lambda t: t[0])
    return out


# ============================================================================ one parameter
def first_crossing(model, param: str, low: float, high: float, points: int, dps: int = 15):
    """The first value of ``param`` in ``[low, high]`` where the equilibrium, moving with
    ``param`` (no closed form), loses stability: ``(value, omega, kind, certified, note)``
    (``value`` None when the scan finds no change).

    The equilibrium is continued by Newton's method over ``points`` log-spaced values and
    the eigenvalues of its Jacobian counted with ``Re > 0`` (double precision, a search);
    at the first value with a root there, bisection on the count brackets the crossing,
    the eigenvalue nearest the axis gives its kind (a pair: Hopf, a real root: fold), and
    the crossing is solved *with its equilibrium* (the square system of the crossing and
    equilibrium equations in ``(param, omega, states)``) and proved by a Krawczyk test in
    Arb: one solution within ``10^-(dps+2)`` (relative) of the printed value."""
    from symdelay.analysis.window import _resolve

    sym, rp = _resolve(model, param)
    st = model.cached(f"moving critical {param}", lambda: _Setup(model, (param, sym, rp)))
    grid = np.logspace(np.log10(low), np.log10(high), points)
    s = st.equilibrium(None, grid[0])
    prev = (grid[0], s, _count(st.eig(s, grid[0])))
    if prev[2]:
        raise SymdelayInputError(
            f"the equilibrium is already unstable at {param} = {low:g}: no threshold above it "
            "to report"
        )
    searched = (
        f"equilibrium depends on {param}: continued by Newton over {points} log-spaced values "
        f"in [{low:g}, {high:g}] with its eigenvalues counted (double precision)"
    )
    for v in grid[1:]:
        s = st.equilibrium(prev[1], v)
        cur = (v, s, _count(st.eig(s, v)))
        if cur[2] != prev[2]:
            break
        prev = cur
    else:
        return None, None, None, False, f"{searched}; stable at all of them, no crossing found"
    lo, hi = prev, cur
    for _ in range(60):
        m = float(np.sqrt(lo[0] * hi[0]))
        sm = st.equilibrium(lo[1], m)
        c = _count(st.eig(sm, m))
        lo, hi = ((m, sm, c), hi) if c == lo[2] else (lo, (m, sm, c))
        if hi[0] - lo[0] <= 1e-13 * hi[0]:
            break
    v = 0.5 * (lo[0] + hi[0])
    ev = st.eig(hi[1], hi[0])
    unstable = sorted((e for e in ev if e.real > 0), key=lambda e: e.real)
    pair = [e for e in unstable if abs(e.imag) > 1e-9 * (1 + abs(e))]
    kind = "hopf" if pair and (not unstable or unstable[0].imag != 0) else "fold"
    if kind == "hopf":
        z = np.array([v, abs(pair[0].imag), *hi[1]])
        system = st.hopf
    else:
        z = np.array([v, *hi[1]])
        system = st.fold
    z = newton_np(system, z, list(range(len(z))))
    if z is None:
        raise VerificationError(f"the crossing in {param} near {v:.6g} did not converge")
    with mpmath.workdps(dps + GUARD):
        n = len(z)
        ok, sol = _krawczyk(system, [float(t) for t in z], list(range(n)), [None] * n, dps + 2)
    certified = ok is not None
    if not certified:
        sol = [mpmath.mpf(float(t)) for t in z]
    omega = sol[1] if kind == "hopf" else mpmath.mpf(0)
    note = (
        f"{searched}; the first change bracketed by bisection on the count, then the "
        f"{'Hopf' if kind == 'hopf' else 'fold'} crossing solved with its equilibrium and "
        + ("proved by Krawczyk (Arb)" if certified else "NOT proved (Krawczyk failed)")
    )
    return sol[0], omega, kind, certified, note
