"""Stability maps in two parameters of any model with a polynomial characteristic factor.

:func:`stability_map` draws, in a box ``x in [x_lo, x_hi]``, ``y in [y_lo, y_hi]`` (every
other parameter a number), the boundaries where a root of a characteristic factor
``P(r; x, y)`` of the model (``model.factors``, denominators cleared) is on the imaginary
axis, labels the regions between them by their number of roots with ``Re r > 0``, and
locates the special points of the boundaries.

Boundaries. With ``r = i w`` (``w > 0``), ``P(i w) = Re(w; x, y) + i w Im1(w; x, y)``: a
**Hopf curve** is a branch of ``Re = Im1 = 0`` in ``(x, y, w)`` (a pair ``+-i w`` on the
axis), a **fold curve** a branch of ``P(0; x, y) = 0`` in ``(x, y)`` (a real root at 0).
Each branch is traced by pseudo-arclength continuation (Euler predictor along the tangent,
Newton corrector on the crossing equations plus the arclength condition, in double
precision, the metric scaled by the box and by ``w``), stopped where it leaves the box
(its last point put on the edge), where ``w`` reaches 0 (the Hopf pair meets a real
root) or where it closes on itself.

Seeds (why no branch that meets a grid line is missed). On ``n`` lines ``x = x_k``
(``k = 0..n-1``, equally spaced, the box edges included) every crossing value of ``y`` in
``(y_lo, y_hi)`` of every factor is found exactly by the window machinery
(:mod:`symdelay.analysis.window`: the real roots of ``P(0; y)``, ``Res_s(U, V)(y)``,
isolated by Arb, with the crossing frequencies); likewise every ``x`` on ``n`` lines
``y = y_k``, which catches the branches that turn within a strip between two ``x`` lines. A
seed that lies on a branch already traced is dropped (the same factor, within ``2 10^-3`` of
the box in ``(x, y)`` and of ``w``). A branch that meets no grid line at all (a closed curve
or an arc entirely inside one cell of the seed grid) can be missed; the record says which
grid was searched (``searched``). A second net: wherever two neighbouring cells of the
region grid have different exact unstable counts and no traced branch crosses the segment
between their centres, that segment is searched exactly as well (a branch missed by the
seed grid but changing the count is found that way); a change still unexplained is
reported in ``notes``.

Certification. Every point of a branch is polished in mpmath at ``dps + 10`` digits with one
coordinate (``x`` or ``y``, the one the branch moves along faster) held at an exact
rational, and a Krawczyk test in Arb (python-flint) on the crossing equations in the other
unknowns proves that exactly one solution lies within ``10^-(dps+2)`` (relative) of the
printed values. Special points are proved the same way on their defining systems.

Regions. The box is cut into ``cells x cells`` rectangles; at each centre (an exact
rational point) the unstable roots of every factor are counted exactly (Sturm / Cauchy
index, :func:`symdelay.analysis.polyroots.exact_counts`, with multiplicity); a region is a
connected group of cells (edge neighbours) with the same count, reported with its count,
its number of cells and one representative centre. Regions thinner than a cell are not
resolved (their boundaries still appear as curves).

Special points. ``turning_x`` / ``turning_y``: where a branch turns back in ``x`` (resp. has
an extremum in ``y``), i.e. ``dx/ds = 0`` (``dy/ds = 0``) along it: for a Hopf branch the
determinant ``det d(Re, Im1)/d(y, w)`` (resp. ``d(x, w)``) vanishes, solved with the crossing
equations by Newton in mpmath from the bracketing points and proved by Krawczyk.
``double_hopf``: two Hopf branches (of one factor or two) crossing in ``(x, y)`` at distinct
``w``: the four equations in ``(x, y, w_1, w_2)``. ``zero_hopf`` (fold-Hopf): a Hopf branch
crossing a fold branch at ``w > 0`` (a pair ``+-i w`` on the axis while a real root is at
0): the Hopf equations and ``P(0; x, y) = 0``, three in ``(x, y, w)``; a Hopf branch
that ends on a fold with ``w -> 0`` is not one. ``cusp`` (and ``fold_crossing``,
``fold_isolated``): a singular point of a fold curve, where ``P(0)`` and both its
derivatives in ``(x, y)`` vanish, solved exactly (:func:`_fold_singular_points`).
``bautin`` (``bautin=True``; by default
when the map has at most 4 Hopf curves and the model at most 12 states): where the first
Lyapunov coefficient ``l1`` changes sign along a Hopf curve. ``l1`` (the one computation of
:func:`symdelay.analysis.normal_form.first_lyapunov`, the normal form's: Kuznetsov's formula
on the drift's Jacobian, second and third derivatives at the closed-form equilibrium; the
critical eigenvector of unit norm, ``normal_form(...).l1_unit`` at the same point) is
scanned in double precision at every certified point of the curve; a sign change between
neighbours is checked again in mpmath and its zero located along the curve (the coordinate
the curve moves along faster held fixed, the Hopf equations solved for the other two, the
Illinois method on that coordinate to ``dps`` digits). ``certified`` means the zero is
proved: with that coordinate the ball ``c0 +- 10^-(dps+1)``, a parametric Krawczyk test
proves one piece of the Hopf curve over it (the crossing equations' Jacobian invertible on
its box), ``l1`` evaluated in Arb over the box (every linear solve of the normal form
certified) proves it continuous there, and at both ends ``Re c1`` on the proved Hopf point
has a certain sign, opposite at the two (:func:`_bautin_proof`). The point carries
``l1_left`` and ``l1_right``, the values at the neighbouring curve points; a note counts the
signs found. A sign change between two neighbouring curve points that is undone before the
next one is not seen.

>>> from symdelay.models import build_model
>>> m = stability_map(build_model("erlang", L=1, mu=1, lam=1), x=("D", 1, 2), y=("theta", 0, 5),
...                   cells=4, seeds=3)
>>> [reg["unstable_roots"] for reg in m.record()["regions"]]
[0]
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import flint
import mpmath
import numpy as np

from symdelay.analysis.entry import entry_doc, require_table, specialised
from symdelay.analysis.map_core import (
    MapCurve,
    StabilityMap,
    System,
    W,
    _hopf_at,
    _krawczyk,
    _newton_mp,
    _regions,
    _segments_cross,
    _split,
    cell_centres,
    certify_branches,
    certify_point,
    decimal,
    illinois,
    map_record,
    note_unexplained,
    prove_zero_along,
    second_net,
    trace_seeds,
)
from symdelay.core.errors import SymdelayInputError, VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.params import as_dps
from symdelay.core.precision import GUARD
from symdelay.core.symbols import r as R_SYMBOL

__all__ = ["StabilityMap", "MapCurve", "stability_map", "estimate_seconds"]


#: grid lines each way seeding the continuation when ``seeds`` is not given
SEEDS = 9
#: ``bautin=None`` looks for Bautin points when the map has at most this many Hopf curves
#: and the model at most this many states (l1 costs a few ms per curve point there)
BAUTIN_CURVES, BAUTIN_STATES = 4, 12


# ============================================================================ setup
def _box_range(name, lo, hi, which):
    from symdelay.core.params import as_parameter

    if lo is None or hi is None:
        raise SymdelayInputError(
            f"give the {which} range of {name}: {which}=({name!r}, LO, HI) (or {name}=LO:HI)"
        )
    a = as_parameter(name, lo, positive=False)
    b = as_parameter(name, hi, positive=False)
    if not (a.is_Rational and b.is_Rational):
        raise SymdelayInputError(f"the {which} range of {name} must be numbers, got {lo}:{hi}")
    if not a < b:
        raise SymdelayInputError(
            f"the {which} range of {name} is empty or inverted ({a}:{b}): give LO < HI"
        )
    return sp.Rational(a), sp.Rational(b)


def _axis(spec, which):
    if isinstance(spec, str):
        name, sep, rng = spec.partition("=")
        lo, sep2, hi = rng.partition(":")
        if not sep or not sep2:
            raise SymdelayInputError(f"--{which} takes NAME=LO:HI, got '{spec}'")
        spec = (name.strip(), lo.strip(), hi.strip())
    try:
        name, lo, hi = spec
    except (TypeError, ValueError):
        raise SymdelayInputError(f"{which} must be (name, lo, hi), got {spec!r}") from None
    if not isinstance(name, str) or not name:
        raise SymdelayInputError(f"{which}: give the parameter by name, got {name!r}")
    return name, lo, hi


def _apply_fixed(model, fixed, names):
    from symdelay.analysis.window import _erlang_chain_length
    from symdelay.core.params import as_parameter
    from symdelay.model.core import _symbol

    if not fixed:
        return model, {}
    values, shown = {}, {}
    for name, v in dict(fixed).items():
        if name in names:
            raise SymdelayInputError(f"--fixed {name}: {name} is an axis of the map; leave it out")
        sym = _symbol(name)
        value = as_parameter(name, v, positive=False)
        if not value.is_Rational:
            raise SymdelayInputError(f"--fixed {name}: give a number, got {v!r}")
        if sym in model.domains and sym not in model.values:
            values[name] = value
        elif name == "D" and _symbol("gamma") in model.free_parameters:
            L = _erlang_chain_length(model, _symbol("gamma"))
            if L is None or not value > 0:
                raise SymdelayInputError(f"--fixed D: give D > 0 (got {v})")
            values["gamma"] = sp.Rational(L) / value
        elif sym in model.values:
            raise SymdelayInputError(
                f"--fixed {name}: {name} already has a value ({model.values[sym]}) in the model"
            )
        else:
            raise SymdelayInputError(
                f"--fixed {name}: not a free parameter of {model.name}: use one of "
                + ", ".join(str(p) for p in model.free_parameters)
            )
        shown[name] = str(value)
    return model.with_values(**values), shown


def _prepare(model, x, y, fixed, force=False):
    """``(model, (xname, xs, xlo, xhi), (yname, ...), factors, fixed_json, notes)``."""
    from symdelay.analysis.window import _factors, _range, _resolve

    xname, xlo, xhi = _axis(x, "x")
    yname, ylo, yhi = _axis(y, "y")
    if xname == yname:
        raise SymdelayInputError(f"x and y are both {xname}: give two different parameters")
    model, fixed_json = _apply_fixed(model, fixed, (xname, yname))
    xs, rpx = _resolve(model, xname)
    ys, rpy = _resolve(model, yname)
    a, b = _box_range(xname, xlo, xhi, "x")
    c, d = _box_range(yname, ylo, yhi, "y")
    for name, sym, rp, lo, hi in ((xname, xs, rpx, a, b), (yname, ys, rpy, c, d)):
        try:
            _range(model, sym, rp, lo, hi)
        except SymdelayInputError as exc:
            raise SymdelayInputError(f"the range of {name}: {exc}") from None
    from symdelay.analysis.stability_map_moving import equilibrium_moves

    bases = [xs if rpx is None else rpx.base, ys if rpy is None else rpy.base]
    if equilibrium_moves(model, bases):  # no exact factors: the moving-equilibrium path
        missing = [str(q) for q in model.free_parameters if q not in bases]
        if missing:
            raise SymdelayInputError(
                f"give numbers for {', '.join(missing)} (every other parameter)"
            )
        return model, (xname, xs, rpx), (yname, ys, rpy), (a, b, c, d), fixed_json, None
    facs = model.cached(
        f"stability_map factors {xname} {yname}",
        lambda: _factors(model, (xs, ys), (rpx, rpy), force),
    )
    notes = [rp.note() for rp in (rpx, rpy) if rp is not None]
    # the characteristic function must be defined on the whole closed box
    for _num, den, _m, _mode in facs:
        for sym, lo, hi, name in ((xs, a, b, xname), (ys, c, d, yname)):
            if den.has(sym) and lo <= 0 <= hi:
                raise SymdelayInputError(
                    f"the characteristic function is undefined at {name} = 0 (a rate divides "
                    f"by it): give a box with {name} > 0"
                )
    return model, (xname, xs, a, b), (yname, ys, c, d), facs, fixed_json, notes


# ============================================================================ seeds
def _line_crossings(num, den, fixed_sym, fixed_val, vary_sym, lo, hi, dps):
    """Exact crossings of one factor on the line ``fixed_sym = fixed_val`` for ``vary_sym``
    in (lo, hi): ``[(value, omega, kind)]`` (kind ``"hopf"`` or ``"fold"``)."""
    from symdelay.analysis.window import _fmpq, _prepared, _window_core

    n = sp.expand(num.subs(fixed_sym, fixed_val))
    dn = sp.expand(den.subs(fixed_sym, fixed_val))
    if not n.has(vary_sym) or sp.Poly(n, R_SYMBOL).degree() < 1:
        return [], []
    polys, mults, _ = _prepared([(n, dn, 1, "")], vary_sym)
    if not polys:
        return [], []
    try:
        _, ends, _, _ = _window_core(polys, mults, 0, _fmpq(lo), _fmpq(hi), dps)
    except SymdelayInputError as exc:
        return [], [f"{vary_sym} on the line {fixed_sym} = {fixed_val}: {exc}"]
    out, notes = [], []
    for e in ends:
        if e.kind == "r = i omega (not isolated)":
            notes.append(
                f"{vary_sym} = {mpmath.nstr(e.value, 8)} on {fixed_sym} = {fixed_val}: roots on "
                "the axis not isolated (a multiple crossing): no seed there"
            )
        for w in e.omega:
            out.append((e.value, w, "fold" if w == 0 else "hopf"))
    return out, notes


# ============================================================================ continuation


# ============================================================================ cost
def estimate_seconds(n_factors, degree, seeds, cells):
    """Rough seconds: exact seeds per grid line and factor, continuation and certified
    points of about four branches per factor, exact counts at the cell centres (measured:
    the founding model at L = 3, 32 x 32 cells, 0.4 s; the in-flight model at L = 10,
    16 x 16 cells, 1.4 s; this estimate is a few times higher on both)."""
    d = max(degree, 2) / 4
    line = 0.005 * d**2
    return n_factors * (2 * seeds * line + 4 * 0.5 * d + cells**2 * 2e-4 * d)


def moving_seconds(n_states, seeds, cells):
    """Rough seconds of a map whose equilibrium moves: the scans of the seed lines, the
    continuation with the equilibrium and a Krawczyk proof per point (Arb on the states),
    the equilibria at the cell centres, a certified root count per region."""
    n = max(n_states, 2)
    return (
        2 * seeds * 64 * 4e-4 * (n / 6) + 4 * 300 * 0.01 * (n / 6) ** 2 + cells**2 * 4e-4 + 8 * 0.3
    )


def _check_count(name, v):
    if isinstance(v, bool) or not isinstance(v, int) or not 2 <= v <= 4000:
        raise SymdelayInputError(f"{name} must be an integer in [2, 4000], got {v!r}")


def _check_switches(bautin, fold_cycles) -> None:
    """``bautin`` and ``fold_cycles`` are None (automatic), True or False (a text such as
    ``"no"`` would read as true), and the fold-of-cycles curves, which start at Bautin
    points, are not asked for when the search for those points is switched off."""
    for name, v in (("bautin", bautin), ("fold_cycles", fold_cycles)):
        if v is not None and not isinstance(v, bool):
            raise SymdelayInputError(f"{name} must be None (automatic), True or False, got {v!r}")
    if bautin is False and fold_cycles is True:
        raise SymdelayInputError(
            "fold_cycles=True needs the Bautin points its curves start from: bautin=False "
            "looks for none (give bautin=None or True)"
        )


#: the notes of a map whose Bautin search or fold-of-cycles curves were switched off
NO_BAUTIN = "no Bautin point looked for: not asked (bautin=False / --bautin no)"
NO_FOLD_CYCLES = (
    "no fold-of-cycles curve computed: not asked (fold_cycles=False / --fold-cycles no)"
)


def _switch_notes(res, bautin, fold_cycles):
    """``res`` with a note for each search the caller switched off (whichever path answered),
    so that a map without Bautin points or fold-of-cycles curves says whether they were
    looked for."""
    extra = [NO_BAUTIN] if bautin is False else []
    if fold_cycles is False and bautin is not False:
        extra.append(NO_FOLD_CYCLES)
    if not extra:
        return res
    out = replace(res, notes=(*res.notes, *extra))
    object.__setattr__(out, "_private", res.__dict__.get("_private"))
    return out


# ============================================================================ entry
@entry_doc
def stability_map(
    model,
    x=("D", None, None),
    y=("theta", None, None),
    fixed=None,
    dps: int = 15,
    method: str = "auto",
    *,
    cells: int = 32,
    seeds: int | None = None,
    force: bool = False,
    bautin: bool | None = None,
    fold_cycles: bool | None = None,
) -> StabilityMap:
    """The stability map of ``model`` in two parameters: the curves where roots cross the
    imaginary axis, the regions between them with their exact unstable counts, and the
    special points of the curves (see the module docstring for the method and what it
    guarantees). A delay model (``exp(-r tau)`` modes) in two lags' parameters, or a lag's
    and a coefficient of the delayed term, answers with its stability crossing curves in
    closed form (:mod:`symdelay.analysis.lagmap`).

    Parameters
    ----------
    model : Model
        The model, every parameter but the two axes a number (in the model or in ``fixed``).
    x, y : tuple or str, default ("D", None, None) and ("theta", None, None)
        The axes of the box, each ``(name, lo, hi)`` or its text ``"NAME=LO:HI"``; the ends
        are numbers or their decimal text (made exact), ``lo < hi``. The generic path needs
        both ends; the founding model's explicit ``(D, theta)`` map has default ranges.
    fixed : dict, optional
        ``{name: value}``: numbers for parameters the model leaves free (not the axes).
    dps : int, default 15
        Significant digits (5..10000) of every printed point; each point of a curve is proved
        within ``10^-(dps+2)`` (relative) of the printed values.
    method : {"auto", "generic", "specialised"}, default "auto"
        %(method)s
        Here ``"auto"`` is the founding model's explicit ``(D, theta)`` map
        (:mod:`symdelay.models.erlang.hopf.map`, which also answers ``L = inf``), else the
        continuation of the crossing curves of the model's factors.
    cells : int, default 32
        The region grid: ``cells x cells`` rectangles, the unstable roots counted exactly at
        each centre (2..4000).
    seeds : int, optional
        Grid lines in each direction on which every crossing is found exactly and from which
        the curves are continued (2..4000; default 9). A family's explicit map, which needs no
        seed lines, is used only when this is not given.
    force : bool, default False
        Lift the cost guard (refused over the shared budget otherwise).
    bautin : bool, optional
        Look for Bautin points (sign changes of the first Lyapunov coefficient) on the Hopf
        curves. Default None: when the map has at most ``BAUTIN_CURVES`` Hopf curves and the
        model at most ``BAUTIN_STATES`` states (a note says when it does not), or when
        ``fold_cycles`` is True. A delay model's closed-form curves
        (:mod:`symdelay.analysis.lagbautin`): None evaluates ``l1`` at up to
        ``L1_POINTS`` points (sampled along the curves beyond), True at every point, False
        nowhere. False: not looked for, and a note says so. A map whose equilibrium moves
        with the axes has no Bautin search (True is refused). The command line's
        ``--bautin auto|yes|no``.
    fold_cycles : bool, optional
        From each Bautin point, continue the curve of folds of cycles in the same two
        parameters (:func:`symdelay.analysis.fold_cycles.fold_of_cycles`: collocation of the
        periodic orbits, double precision) to the box's edge. Default None: when the
        estimated cost is within the budget (a note says when it is not; ``force`` lifts
        it); True: refused over the budget (without ``force``), and the Bautin points
        looked for whatever the size of the map; False: not computed, and a note says so
        (True with ``bautin=False`` is refused). For a delay model the same on the delay
        collocation of :mod:`symdelay.analysis.dbvp`, each curve started from the fold the
        Bautin normal form predicts (else from a fold located on a one-parameter delay
        branch). The command line's ``--fold-cycles auto|yes|no``.

    Returns
    -------
    StabilityMap
        ``curves`` (Hopf and fold branches, certified points), ``regions`` (unstable count,
        cells, a representative exact point), ``cell_counts``, ``special_points`` (turning
        points, double Hopf, zero-Hopf, cusps, Bautin points), ``fold_of_cycles`` (the
        curve of folds of cycles from each Bautin point), ``searched`` (the grid that
        seeded the search) and ``notes``.
    """
    from symdelay.core.budget import check_budget

    dps = as_dps(dps)
    _check_count("cells", cells)
    _check_switches(bautin, fold_cycles)
    # fold_cycles=True asks for the Bautin points its curves start from
    looked = True if bautin is None and fold_cycles is True else bautin
    result = specialised(
        model, "stability_map", method, x=x, y=y, fixed=fixed, dps=dps, cells=cells,
        seeds=seeds, force=force, bautin=looked,
    )  # fmt: skip
    if result is not None:
        return _switch_notes(result, bautin, fold_cycles)
    from symdelay.analysis.roots import _delay_model

    if _delay_model(model):  # exp(-r tau) modes: the stability crossing curves
        from symdelay.analysis.lagmap import delay_map

        if seeds is not None:
            raise SymdelayInputError(
                "seeds= is for polynomial models: a delay model's map has its crossing "
                "curves in closed form or certified by columns"
            )
        xname, xlo, xhi = _axis(x, "x")
        yname, ylo, yhi = _axis(y, "y")
        if xname == yname:
            raise SymdelayInputError(f"x and y are both {xname}: give two different parameters")
        model, fixed_json = _apply_fixed(model, fixed, (xname, yname))
        X = (xname, *_box_range(xname, xlo, xhi, "x"))
        Y = (yname, *_box_range(yname, ylo, yhi, "y"))
        res = delay_map(model, X, Y, fixed_json, dps, cells, force, bautin=bautin)
        res = _with_fold_curves(res, model, X, Y, fold_cycles, force)
        return _switch_notes(res, bautin, fold_cycles)
    seeds = SEEDS if seeds is None else seeds
    _check_count("seeds", seeds)
    require_table(model, "stability map")
    model, X, Y, facs, fixed_json, notes = _prepare(model, x, y, fixed, force)
    if notes is None:  # the equilibrium moves with the axes and has no closed form
        from symdelay.analysis.stability_map_moving import moving_stability_map

        if bautin or fold_cycles:
            asked = "bautin=True" if bautin else "fold_cycles=True"
            raise SymdelayInputError(
                f"{asked}: a map whose equilibrium moves with the axes (no closed form) has "
                "no Bautin search yet: leave it out (--bautin auto, --fold-cycles auto)"
            )
        check_budget(
            f"a stability map with a moving equilibrium ({len(model.states)} states, "
            f"{seeds} seed lines each way, {cells}x{cells} cells)",
            moving_seconds(len(model.states), seeds, cells),
            force=force,
            shrink="fewer --cells or seed lines, or a smaller model",
        )
        res = moving_stability_map(model, X, Y, facs, fixed_json, [], dps, cells, seeds)
        return _switch_notes(res, bautin, fold_cycles)
    xname, xs, xlo, xhi = X
    yname, ys, ylo, yhi = Y
    moving = [
        (i, num, den, m)
        for i, (num, den, m, _mode) in enumerate(facs)
        if num.has(xs) or num.has(ys)
    ]
    degree = max((sp.Poly(num, R_SYMBOL).degree() for _, num, _, _ in moving), default=1)
    check_budget(
        f"a stability map ({len(moving)} moving factors of degree up to {degree}, "
        f"{seeds} seed lines each way, {cells}x{cells} cells)",
        estimate_seconds(len(moving), degree, seeds, cells),
        force=force,
        shrink="fewer --cells or seed lines, or a smaller model",
    )
    box = (float(xlo), float(xhi), float(ylo), float(yhi))
    Sxy = np.array([box[1] - box[0], box[3] - box[2]])
    systems = {}
    for i, num, _den, _m in moving:
        re, im = _split(num)
        systems[(i, "hopf")] = System([re, im], [xs, ys, W])
        systems[(i, "fold")] = System([sp.expand(num.subs(R_SYMBOL, 0))], [xs, ys])

    # ---- seeds: every exact crossing on the grid lines
    xk = [xlo + (xhi - xlo) * sp.Rational(k, seeds - 1) for k in range(seeds)]
    yk = [ylo + (yhi - ylo) * sp.Rational(k, seeds - 1) for k in range(seeds)]
    seed_list = []  # (factor, kind, z float array)

    def seeds_on(fix_sym, fix_val, vary_sym, lo, hi, i, num, den):
        found, nts = _line_crossings(num, den, fix_sym, fix_val, vary_sym, lo, hi, 15)
        notes.extend(nts)
        out = []
        for v, w, kind in found:
            z = [float(fix_val), float(v)] if fix_sym == xs else [float(v), float(fix_val)]
            if kind == "hopf":
                z.append(float(w))
            out.append((i, kind, np.array(z)))
        return out

    for i, num, den, _m in moving:
        for v in xk:
            seed_list += seeds_on(xs, v, ys, ylo, yhi, i, num, den)
        for v in yk:
            seed_list += seeds_on(ys, v, xs, xlo, xhi, i, num, den)

    branches = []  # (factor, kind, pts, tans, ends)

    def trace(items):
        trace_seeds(branches, systems, box, items)

    trace(seed_list)

    # ---- regions: exact counts at the cell centres
    const = 0
    moving_idx = {i for i, _, _, _ in moving}
    for i, (num, _den, m, _mode) in enumerate(facs):
        if i not in moving_idx:
            from symdelay.analysis.polyroots import exact_counts

            cs = [sp.Rational(c) for c in sp.Poly(num, R_SYMBOL).all_coeffs()]
            if len(cs) > 1:
                const += m * exact_counts(cs).rhp
    counter = _Counter(moving, xs, ys, const)
    cx, cy = cell_centres(xlo, xhi, cells), cell_centres(ylo, yhi, cells)
    counts = [[counter(a, b) for a in cx] for b in cy]

    # ---- second net: count changes between neighbouring cells that no branch explains
    def segment_seeds(j, k, j2, k2):
        found = []
        for i, num, den, _m in moving:
            if j == j2:  # horizontal neighbours: the line y = cy[j], x between centres
                found += seeds_on(ys, cy[j], xs, cx[k], cx[k2], i, num, den)
            else:
                found += seeds_on(xs, cx[k], ys, cy[j], cy[j2], i, num, den)
        return found

    missing, extra_lines = second_net(counts, cx, cy, branches, Sxy, segment_seeds, trace)
    note_unexplained(notes, missing, counts, cx, cy, " (a degree drop, or a branch not resolved)")

    regions, labels = _regions(counts, cx, cy)

    # ---- certify the branch points at dps
    box_exact = tuple(decimal(v) for v in box)
    curves, _full = certify_branches(branches, systems, dps, box_exact, notes)

    # ---- special points
    specials = _special_points(branches, systems, dps, box, notes)
    singular = _fold_singular_points(systems, box, notes)
    if singular:  # a turning point found at a cusp is the cusp (the curve is not smooth there)
        specials = [
            s
            for s in specials
            if not (
                s["type"].startswith("turning")
                and any(
                    abs(float(s["x"]) - float(c["x"])) <= 1e-8 * (1 + abs(float(c["x"])))
                    and abs(float(s["y"]) - float(c["y"])) <= 1e-8 * (1 + abs(float(c["y"])))
                    for c in singular
                )
            )
        ]
        specials = sorted(
            [*specials, *singular], key=lambda s: (s["type"], float(s["x"]), float(s["y"]))
        )
    mults = {i: int(m) for i, _num, _den, m in moving}
    curves = [replace(c, multiplicity=mults.get(c.factor, 1)) for c in curves]
    n_hopf = sum(1 for c in curves if c.kind == "hopf")
    looked = bautin
    if looked is None:  # fold_cycles=True asks for the Bautin points its curves start from
        small = n_hopf <= BAUTIN_CURVES and len(model.states) <= BAUTIN_STATES
        looked = n_hopf > 0 and (small or fold_cycles is True)
        if n_hopf and not looked:
            notes.append(
                f"no Bautin point looked for: the default looks on maps of at most "
                f"{BAUTIN_CURVES} Hopf curves of models of at most {BAUTIN_STATES} states, "
                f"this one has {n_hopf} Hopf curve(s) and {len(model.states)} states "
                "(bautin=True / --bautin yes asks for them)"
            )
    l1_values = {}
    if looked and n_hopf:
        found, l1_values = _bautin_points(model, curves, systems, (xname, yname), dps, box, notes)
        specials = sorted(
            [*specials, *found], key=lambda s: (s["type"], float(s["x"]), float(s["y"]))
        )
    folds = ()
    if found_bautin := [s for s in specials if s["type"] == "bautin"]:
        from symdelay.analysis.fold_cycles import map_fold_curves

        folds = map_fold_curves(model, (xname, xlo, xhi), (yname, ylo, yhi), found_bautin,
                                curves, fold_cycles=fold_cycles, force=force,
                                notes=notes)  # fmt: skip

    searched = (
        f"exact crossings on {seeds} lines x = const and {seeds} lines y = const (equally "
        f"spaced, edges included) seeded the continuation of every factor"
        + (
            f", plus {extra_lines} segments between region cells whose counts differ"
            if extra_lines
            else ""
        )
        + f"; regions from exact counts at the centres of {cells}x{cells} cells. A branch "
        "that meets none of these lines (a closed curve or arc inside one cell) can be missed"
    )
    res = map_record(
        model,
        (xname, xlo, xhi),
        (yname, ylo, yhi),
        fixed_json,
        dps,
        curves,
        specials,
        (counts, regions, labels),
        searched,
        notes,
        "pseudo-arclength continuation (numpy) from exact grid-line crossings, points "
        "polished in mpmath and proved by Krawczyk (Arb); exact unstable counts per cell",
        lambda result, x, y: _crossings(result, systems, dps, x=x, y=y),
        fold_of_cycles=folds,
        systems=systems,
        l1=l1_values,
    )
    return _switch_notes(res, bautin, fold_cycles)


def _with_fold_curves(res, model, X, Y, fold_cycles, force):
    """The delay map ``res`` with its curves of folds of cycles from each Bautin point
    (:func:`symdelay.analysis.fold_cycles.map_fold_curves`, as a table's map), their notes
    added to the map's."""
    from dataclasses import replace

    found = [s for s in res.special_points if s["type"] == "bautin"]
    if not found:
        return res
    from symdelay.analysis.fold_cycles import map_fold_curves

    notes = []
    folds = map_fold_curves(model, X, Y, found, res.curves, fold_cycles=fold_cycles,
                            force=force, notes=notes)  # fmt: skip
    if not folds and not notes:
        return res
    out = replace(res, fold_of_cycles=tuple(folds), notes=tuple(res.notes) + tuple(notes))
    object.__setattr__(out, "_private", res.__dict__.get("_private"))
    return out


class _Counter:
    """Exact unstable count of the whole characteristic polynomial at a rational point."""

    def __init__(self, moving, xs, ys, const):
        self.const = const
        self.parts = []
        for _i, num, _den, m in moving:
            P = sp.Poly(num, R_SYMBOL)
            cs = [sp.Poly(c, xs, ys) for c in P.all_coeffs()]
            ctx = flint.fmpq_mpoly_ctx.get(("x", "y"), "lex")
            fl = []
            for c in cs:
                d = {}
                for (a, b), v in c.terms():
                    d[(a, b)] = flint.fmpq(int(sp.Rational(v).p), int(sp.Rational(v).q))
                fl.append(ctx.from_dict(d or {(0, 0): 0}))
            self.parts.append((fl, m))

    def __call__(self, a, b):
        from symdelay.analysis.polyroots import exact_counts

        aq = flint.fmpq(int(sp.Rational(a).p), int(sp.Rational(a).q))
        bq = flint.fmpq(int(sp.Rational(b).p), int(sp.Rational(b).q))
        n = self.const
        for fl, m in self.parts:
            cs = [c(aq, bq) for c in fl]
            while len(cs) > 1 and cs[0] == 0:
                cs.pop(0)
            if len(cs) > 1:
                k = _routh_rhp(cs)
                if k is None:  # a zero in the first column: the Sturm / Cauchy-index count
                    k = exact_counts([sp.Rational(int(c.p), int(c.q)) for c in cs]).rhp
                n += m * k
        return n


def _routh_rhp(cs):
    """Roots with ``Re r > 0`` of ``sum cs[k] r^(n-k)`` (exact fmpq, highest first) by the
    Routh array: with no zero in its first column, the number of sign changes there (and no
    root on the axis); None when a zero appears (the caller counts another way)."""
    rows = [cs[0::2], cs[1::2]]
    n = len(cs) - 1
    first = [cs[0]]
    for _ in range(n):
        a, b = rows[-2], rows[-1]
        if not b or b[0] == 0:
            return None
        first.append(b[0])
        nxt = [(b[0] * (a[j + 1] if j + 1 < len(a) else 0) - a[0] * (b[j + 1] if j + 1 < len(b) else 0)) / b[0]
               for j in range(max(len(a), len(b)) - 1)]  # fmt: skip
        while nxt and nxt[-1] == 0 and len(nxt) > 1:
            nxt.pop()
        rows.append(nxt)
    if len(first) != n + 1:
        return None
    return sum(1 for u, v in itertools.pairwise(first) if (u > 0) != (v > 0))


def _turning_system(system, kind, which):
    """``system`` plus the condition ``d(which)/ds = 0`` (which: 0 = x, 1 = y)."""
    syms = system.syms
    J = sp.Matrix(system.jac)
    other = [k for k in range(len(syms)) if k != which]
    det = sp.expand(J[:, other].det() if kind == "hopf" else J[0, other[0]])
    return System([*system.exprs, det], syms)


def _special_points(branches, systems, dps, box, notes):
    out = []
    seen = []

    def add(entry, key):
        for k2 in seen:
            if all(abs(a - b) <= 1e-6 * (1 + abs(b)) for a, b in zip(key, k2)):
                return
        seen.append(key)
        out.append(entry)

    turning = {}
    with mpmath.workdps(dps + GUARD):
        for i, kind, pts, tans, _ends in branches:
            for which, name in ((0, "turning_x"), (1, "turning_y")):
                for a in range(len(tans) - 1):
                    ta, tb = tans[a], tans[a + 1]
                    if ta is None or tb is None or ta[which] * tb[which] >= 0:
                        continue
                    key = (i, kind, which)
                    if key not in turning:
                        turning[key] = _turning_system(systems[(i, kind)], kind, which)
                    aug = turning[key]
                    f = abs(ta[which]) / (abs(ta[which]) + abs(tb[which]))
                    z0 = pts[a] + f * (pts[a + 1] - pts[a])
                    free = list(range(len(z0)))
                    sol = _newton_mp(aug, list(z0), free, dps + GUARD - 2)
                    if sol is None:
                        notes.append(f"a {name} point near {list(z0)} did not converge")
                        continue
                    if not (box[0] <= sol[0] <= box[1] and box[2] <= sol[1] <= box[3]):
                        continue
                    ok, better = _krawczyk(aug, sol, free, [None] * len(free), dps + 2)
                    sol = better or sol
                    w = sol[2] if kind == "hopf" else mpmath.mpf(0)
                    add(
                        {
                            "type": name,
                            "x": sol[0],
                            "y": sol[1],
                            "omega": w,
                            "factor": i,
                            "kind": kind,
                            "certified": ok is not None,
                        },
                        (which, float(sol[0]), float(sol[1]), float(w)),
                    )
        # double Hopf: two Hopf polylines crossing in (x, y) at distinct omega; zero-Hopf
        # (fold-Hopf): a Hopf polyline crossing a fold polyline, the pair +-i w (w > 0) on the
        # axis while a real root is at 0 (one factor or two)
        S = np.array([box[1] - box[0], box[3] - box[2]])
        hopf = [b for b in branches if b[1] == "hopf"]
        pairs = [
            (A, B, ia == ib)
            for (ia, A), (ib, B) in itertools.combinations_with_replacement(enumerate(hopf), 2)
        ]
        pairs += [(A, B, False) for A in hopf for B in branches if B[1] == "fold"]
        for A, B, same in pairs:
            double = B[1] == "hopf"
            name = "double_hopf" if double else "zero_hopf"
            wmax = max(abs(float(z[2])) for z in A[2])
            for xy, wa, wb in _polylines_cross(A[2], B[2], S, same):
                if double and abs(wa - wb) <= 1e-6 * (abs(wa) + abs(wb)):
                    continue
                if not double and wa <= 1e-9 * (1 + wmax):
                    continue  # w -> 0 on the fold: the Hopf branch ends there
                sol, ok = _joint_point(systems, A[0], B[0], B[1], xy, wa, wb, dps)
                if sol is None:
                    what = "double Hopf" if double else "zero-Hopf"
                    notes.append(f"a {what} point near {list(xy)} did not converge")
                    continue
                inside = box[0] <= sol[0] <= box[1] and box[2] <= sol[1] <= box[3]
                if not (double or inside):
                    continue
                add(
                    {
                        "type": name,
                        "x": sol[0],
                        "y": sol[1],
                        "omega": tuple(sorted(sol[2:])) if double else sol[2],
                        "factor": (A[0], B[0]),
                        "kind": "hopf",
                        "certified": ok,
                    },
                    (2 if double else 3, float(sol[0]), float(sol[1]), float(min(sol[2:]))),
                )
    out.sort(key=lambda s: (s["type"], float(s["x"]), float(s["y"])))
    return out


#: fold polynomials of higher total degree are not searched for singular points
SINGULAR_MAX_DEGREE = 8


def _fold_singular_points(systems, box, notes):
    """Singular points of the fold curves ``F(x, y) = P(0; x, y) = 0`` in the box: the
    common zeros of ``F``, ``F_x``, ``F_y``, solved exactly (a Groebner basis,
    :func:`sympy.solve_poly_system`), each checked exactly and typed by the sign of the
    Hessian ``F_xx F_yy - F_xy^2`` there: 0 a ``cusp`` (the region count meets itself in a
    cusp), < 0 a ``fold_crossing`` (two fold branches cross), > 0 an isolated point of the
    fold set (``fold_isolated``)."""
    out = []
    for (i, kind), system in systems.items():
        if kind != "fold":
            continue
        (F,) = system.exprs
        xs, ys = system.syms[:2]
        if not (F.has(xs) and F.has(ys)):
            continue
        try:
            P = sp.Poly(F, xs, ys)
        except sp.PolynomialError:
            continue
        if not P.domain.is_QQ and not P.domain.is_ZZ:
            continue
        if P.total_degree() > SINGULAR_MAX_DEGREE:
            notes.append(
                f"factor {i}: the fold polynomial has degree {P.total_degree()}: its singular "
                "points (cusps) were not searched"
            )
            continue
        Fx, Fy = sp.diff(F, xs), sp.diff(F, ys)
        try:
            sols = sp.solve_poly_system([F, Fx, Fy], xs, ys) or []
        except (NotImplementedError, sp.PolynomialError):  # not zero-dimensional
            notes.append(f"factor {i}: the fold curve has a singular component: not searched")
            continue
        Fxx, Fyy, Fxy = sp.diff(Fx, xs), sp.diff(Fy, ys), sp.diff(Fx, ys)
        for a, b in sols:
            av, bv = complex(sp.N(a, 30)), complex(sp.N(b, 30))
            if abs(av.imag) > 1e-20 or abs(bv.imag) > 1e-20:
                continue
            if not (box[0] <= av.real <= box[1] and box[2] <= bv.real <= box[3]):
                continue
            at = {xs: a, ys: b}
            exact = all(sp.simplify(e.xreplace(at)) == 0 for e in (F, Fx, Fy))
            H = sp.simplify((Fxx * Fyy - Fxy**2).xreplace(at))
            typ = "cusp" if H == 0 else ("fold_crossing" if H < 0 else "fold_isolated")
            with mpmath.workdps(30):
                out.append(
                    {
                        "type": typ,
                        "x": mpmath.mpf(sp.re(sp.N(a, 40))),
                        "y": mpmath.mpf(sp.re(sp.N(b, 40))),
                        "omega": mpmath.mpf(0),
                        "factor": i,
                        "kind": "fold",
                        "certified": bool(exact),
                        "exact": (str(a), str(b)),
                    }
                )
    return out


def _polylines_cross(A, B, S, same):
    """``(xy, omega on A, omega on B)`` where the polylines ``A`` and ``B`` (points ``(x, y[,
    omega])``; ``S`` the box's scale) cross in ``(x, y)``; ``same``: A is B, neighbouring
    segments and each pair of segments taken once."""
    PA, PB = np.array(A, dtype=float), np.array(B, dtype=float)
    if len(PA) < 2 or len(PB) < 2:
        return
    a0, a1 = PA[:-1, :2] / S, PA[1:, :2] / S
    for s in range(len(PA) - 1):
        idx, t, u = _segments_cross(a0[s], a1[s], PB[:-1, :2] / S, PB[1:, :2] / S)
        for j in idx:
            if same and j <= s + 1:
                continue
            xy = PA[s, :2] + t[j] * (PA[s + 1, :2] - PA[s, :2])
            wa = PA[s, 2] + t[j] * (PA[s + 1, 2] - PA[s, 2])
            wb = PB[j, 2] + u[j] * (PB[j + 1, 2] - PB[j, 2]) if PB.shape[1] > 2 else 0.0
            yield xy, wa, wb


def _joint_point(systems, fa, fb, kind_b, xy, wa, wb, dps):
    """``(point, certified)`` of a double Hopf point (``kind_b`` "hopf": the Hopf equations
    of factors ``fa`` and ``fb`` in ``(x, y, w1, w2)``) or a zero-Hopf point (``kind_b``
    "fold": the Hopf equations of ``fa`` and ``P(0; x, y) = 0`` of ``fb`` in ``(x, y, w)``)
    near ``(xy, wa[, wb])``, by Newton in mpmath and proved by Krawczyk; ``(None, False)``
    where Newton fails or a frequency is not positive."""
    sa, sb = systems[(fa, "hopf")], systems[(fb, kind_b)]
    if kind_b == "hopf":
        w1, w2 = sp.Symbol("w1_", real=True), sp.Symbol("w2_", real=True)
        exprs = [e.subs(W, w1) for e in sa.exprs] + [e.subs(W, w2) for e in sb.exprs]
        system, z0 = System(exprs, [*sa.syms[:2], w1, w2]), [*xy, wa, wb]
    else:
        system, z0 = System([*sa.exprs, *sb.exprs], sa.syms), [*xy, wa]
    free = list(range(len(z0)))
    sol = _newton_mp(system, [float(v) for v in z0], free, dps + GUARD - 2)
    if sol is None or min(sol[2:]) <= 0:
        return None, False
    ok, better = _krawczyk(system, sol, free, [None] * len(free), dps + 2)
    return (better or sol), ok is not None


def _crossings(result, systems, dps, *, x=None, y=None):
    """See :meth:`StabilityMap.crossings`."""
    from symdelay.core.params import as_parameter

    c = 0 if x is not None else 1
    value = as_parameter("value", x if x is not None else y, positive=False)
    q = sp.Rational(value)
    out = []
    with mpmath.workdps(dps + GUARD):
        qv = mpmath.mpf(q.p) / q.q
        for curve in result.curves:
            P = curve.points
            system = systems[(curve.factor, curve.kind)]
            for a, b in itertools.pairwise(P):
                if (a[c] - qv) * (b[c] - qv) > 0 or a[c] == b[c]:
                    continue
                f = (qv - a[c]) / (b[c] - a[c])
                z0 = [a[k] + f * (b[k] - a[k]) for k in range(3)]
                z0[c] = qv
                n = len(system.syms)
                z0 = z0[:n]
                free = [k for k in range(n) if k != c]
                sol = _newton_mp(system, z0, free, dps + GUARD - 2)
                if sol is None:
                    continue
                proved = certify_point(system, sol, c, dps, None, exact=q)
                sol = proved or sol
                w = sol[2] if n == 3 else mpmath.mpf(0)
                other = sol[1 - c]
                if any(
                    abs(other - o[0]) <= mpmath.mpf(10) ** (-dps) * (1 + abs(o[0])) for o in out
                ):
                    continue
                out.append((other, w, curve.kind, curve.factor, proved is not None))
    out.sort(key=lambda t: t[0])
    return out


# ============================================================================ Bautin points
def _bautin_points(model, curves, systems, names, dps, box, notes):
    """Bautin points of the Hopf curves: ``l1`` at every certified point of each curve; where
    it changes sign between neighbours the zero is located along the curve (the coordinate
    the curve moves along faster held fixed, the Hopf system solved for the others, the
    Illinois method on that coordinate to ``dps`` digits) and the Hopf point there proved
    by Krawczyk. Returns ``(points, {curve index: [l1, ...]})``."""
    from symdelay.analysis.dnormal import bautin_point_l2
    from symdelay.analysis.normal_form import first_lyapunov

    try:
        lyap = first_lyapunov(model, tuple(names))
    except (SymdelayInputError, NotImplementedError) as exc:
        notes.append(f"no Bautin search: {exc}")
        return [], {}
    Sxy = (box[1] - box[0], box[3] - box[2])
    out, values = [], {}
    signs = {"+": 0, "-": 0}
    multiple = 0
    with mpmath.workdps(dps + GUARD):
        for ci, c in enumerate(curves):
            if c.kind != "hopf":
                continue
            if c.multiplicity >= 2:  # no scalar l1 for a multiple imaginary pair
                values[ci] = None
                multiple += 1
                continue
            system = systems[(c.factor, "hopf")]
            ls = []
            for x, y, w in c.points:
                try:
                    # an overflow (exp of a large rate) is a value not kept, not a warning
                    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                        v = lyap.fast(x, y, w)
                    ls.append(v if np.isfinite(v) else None)
                except (np.linalg.LinAlgError, ValueError, ZeroDivisionError):
                    ls.append(None)
            values[ci] = ls
            for v in ls:
                if v is not None:
                    signs["+" if v > 0 else "-"] += 1
            for k in range(len(ls) - 1):
                la, lb = ls[k], ls[k + 1]
                if la is None or lb is None or (la > 0) == (lb > 0) or la == 0:
                    continue
                pa, pb = c.points[k], c.points[k + 1]
                try:  # the signs again at the working precision (the scan was in doubles)
                    la, lb = lyap(*pa), lyap(*pb)
                except (ZeroDivisionError, ValueError, VerificationError):
                    continue
                if (la > 0) == (lb > 0) or la == 0:
                    continue
                cc = 0 if abs(pb[0] - pa[0]) / Sxy[0] >= abs(pb[1] - pa[1]) / Sxy[1] else 1
                found = _bautin_zero(lyap, system, pa, pb, la, lb, cc, dps)
                if found is None:
                    notes.append(
                        f"l1 changes sign between {mpmath.nstr(pa[0], 8)}, "
                        f"{mpmath.nstr(pa[1], 8)} and the next point, but the zero was not located"
                    )
                    continue
                (x, y, w), ok = found
                out.append(
                    {"type": "bautin", "x": x, "y": y, "omega": w, "factor": c.factor,
                     "kind": "hopf", "certified": ok, "l1_left": la, "l1_right": lb,
                     **bautin_point_l2(model, names, x, y, w, dps)}
                )  # fmt: skip
    if multiple:
        notes.append(
            f"{multiple} Hopf curve(s) of a factor of multiplicity >= 2 (the model's "
            "symmetry makes the imaginary pair multiple): l1 is not defined there and no "
            "criticality or Bautin point is given for them"
        )
    total = signs["+"] + signs["-"]
    if total:
        notes.append(
            f"first Lyapunov coefficient l1 at {total} Hopf points: {signs['-']} negative "
            f"(supercritical), {signs['+']} positive (subcritical); {len(out)} Bautin "
            "point(s) where it changes sign along a curve"
        )
    return out, values


def _bautin_zero(lyap, system, pa, pb, la, lb, c, dps):
    """``((x, y, omega), certified)`` where ``l1`` vanishes between curve points pa, pb."""

    def at(v, guess):
        z = _hopf_at(system, guess, c, v)
        return (None, None) if z is None else (z, lyap(*z))

    z = illinois(at, list(pa), la, list(pb), lb, c, dps)
    if z is None:
        return None
    q = decimal(z[c]) if dps <= 15 else sp.Rational(mpmath.nstr(z[c], dps + GUARD))
    sol = certify_point(system, z, c, dps, None, exact=q)
    proved = sol is not None and _bautin_proof(lyap, system, z, c, dps)
    if sol is None:
        sol = list(z)
        sol[c] = mpmath.mpf(q.p) / q.q
    return (sol[0], sol[1], sol[2]), proved


def _bautin_proof(lyap, system, z, c, dps) -> bool:
    """Prove a zero of ``l1`` on the Hopf curve near the located point ``z``
    (:func:`prove_zero_along` with ``Re c1`` in Arb,
    :meth:`symdelay.analysis.normal_form.FirstLyapunov.arb`)."""
    return prove_zero_along(system, z, c, dps, lambda pt: lyap.arb(*pt[:3]))
