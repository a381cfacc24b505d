"""Claims the decision procedure cannot decide, checked by the one search.

A claim with a transcendental function (``exp``, ``log``, ``sin``, ``cos``, ``tanh``, ``pi``,
``E``, ...) is outside real polynomial arithmetic, so :mod:`symdelay.analysis.decide` refuses
it (:class:`~symdelay.core.errors.TranscendentalClaimError`). :func:`search_claim` looks for
counterexamples instead with :func:`symdelay.analysis.counterexample.search`, on any model
whose characteristic factors are polynomials in ``r`` with coefficients rational in the
parameters (the models the decision procedure takes), against stability and the targets the
model's family defines (the founding model's oscillation).

**Exact at every point.** Stability: every factor's coefficients in exact rationals, its
roots in ``Re r >= 0`` counted exactly (:func:`~symdelay.analysis.decide.stable_test`; a
marginal point is not stable). The claim: exact where rational, else interval arithmetic
(Arb) until decided (:class:`~symdelay.analysis.counterexample.ClaimEvaluator`). A point
where either cannot be decided is skipped and counted.

**Verdicts.** A counterexample is exact; it is re-checked by a second path (the factors
substituted by SymPy and their right half-plane and axis roots counted by Routh's exact
scheme, or the family's own test of its target; the claim by SymPy's evaluation at 60
digits), and refutes its direction: ``refuted``, method ``search``. A direction without one
is ``no counterexample found`` (with the record of what was searched): never proven, so the
relation is given only when both directions are refuted (``neither``).
"""

from __future__ import annotations

from fractions import Fraction

from symdelay.analysis.claim_result import OPEN, REFUTED, Outcome, assemble, model_L
from symdelay.analysis.counterexample import DEFAULT_SEED, GOALS, ClaimEvaluator, Problem, search
from symdelay.core.errors import SymdelayInputError, VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.symbols import r

__all__ = ["search_claim", "recheck_claim", "DEFAULT_POINTS", "DEFAULT_SEED", "DECADES", "METHOD"]

#: points decided exactly per claim by default (plus those near the boundaries)
DEFAULT_POINTS = 1500
#: decades searched each side of 1 (log-uniform)
DECADES = 4
METHOD = "search"


def recheck_claim(cf, point: dict):
    """Second path for the claim at a point (name -> rational): SymPy's exact arithmetic
    where a relation's value is rational, else its evaluation at 60 digits (True / False;
    None when a value is within 1e-45 of 0)."""
    from symdelay.analysis.claim_formula import RELATION_OPS

    subs = {}
    for leaf in cf.leaves:
        for s in getattr(leaf, "free_symbols", ()):
            if s.name in point:
                subs[s] = sp.Rational(str(point[s.name]))

    def leaf(x):
        if x in (sp.true, sp.false):
            return bool(x)
        d = (x.lhs - x.rhs).xreplace(subs)
        if d.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
            return False
        op = RELATION_OPS[type(x)]
        if d.is_Rational:  # SymPy's exact arithmetic decides a rational value
            q = Fraction(int(d.p), int(d.q))
            return {"<": q < 0, "<=": q <= 0, ">": q > 0, ">=": q >= 0, "==": q == 0}.get(
                op, q != 0
            )
        v = sp.N(d, 60)
        if not v.is_number or v.has(sp.zoo, sp.nan) or sp.im(v) != 0:
            return False  # undefined there (a zero denominator, a root of a negative)
        v = sp.re(v)
        if abs(v) < sp.Float("1e-45", 60):
            return None
        return {"<": v < 0, "<=": v <= 0, ">": v > 0, ">=": v >= 0, "==": False, "!=": True}[
            op
        ] is sp.true

    def tree(t):
        if t[0] == "leaf":
            return leaf(cf.leaves[t[1]])
        if t[0] == "not":
            x = tree(t[1])
            return None if x is None else not x
        xs = [tree(c) for c in t[1]]
        if t[0] == "and":
            return False if False in xs else (True if all(x is True for x in xs) else None)
        return True if True in xs else (False if all(x is False for x in xs) else None)

    return tree(cf.tree)


def _recheck_stable(sf, point: dict) -> bool:
    """Second path: the factors substituted by SymPy, Routh's exact scheme."""
    from symdelay.analysis.routh import routh_hurwitz

    subs = {p: sp.Rational(str(point[p.name])) for p in sf.parameters}
    for f, _ in sf.per_factor:
        expr = sp.expand(f.factor.xreplace(subs))
        if sp.degree(expr, r) < 1:
            continue
        res = routh_hurwitz(expr, r)
        if res.rhp_count or res.imaginary_axis_count:
            return False
    return True


def search_claim(
    model,
    claim: str,
    *,
    assume=(),
    points: int = DEFAULT_POINTS,
    seed: int = DEFAULT_SEED,
    theta_real: bool = False,
    aliases: dict | None = None,
    reason: str | None = None,
):
    """Search for counterexamples to ``claim => target`` and ``target => claim`` of
    ``model`` for stability and the family's targets, over its parameters' domains and
    ``assume`` (texts; transcendental functions allowed in both): a
    :class:`~symdelay.analysis.claim_result.ClaimResult` with every method ``search``. A
    direction is ``refuted`` (an exact counterexample, re-checked) or ``no counterexample
    found``; the relation is given only when both are refuted. ``points``: random points
    decided exactly (plus those near the boundaries); ``seed``: the generator's seed (the
    search is deterministic). ``reason``: why the decision procedure was not used
    (recorded in ``fallback``)."""
    from symdelay.analysis.claim_formula import parse_claim, transcendental_in
    from symdelay.analysis.decide import (
        _aliases,
        present,
        stability_formula,
        stable_test,
        targets_of,
    )

    if isinstance(assume, str):
        assume = (assume,)
    assume = tuple(assume)
    if isinstance(points, bool) or not isinstance(points, int) or not 10 <= points <= 10**6:
        raise SymdelayInputError(f"points must be an integer in 10..1000000, got {points!r}")
    sf = stability_formula(model)
    names = _aliases(model, aliases)
    fixed = {p.name: v for p, v in model.values.items()}
    params = tuple(model.free_parameters)

    def parse(text, what):
        return parse_claim(text, params, {**names, **fixed}, what=what, transcendental=True)

    cf = parse(claim, "claim")
    assumptions = [parse(a, "assumption") for a in assume]
    if reason is None:
        found = transcendental_in(cf.condition) or next(
            (x for x in (transcendental_in(a.condition) for a in assumptions) if x), None
        )
        reason = (
            f"the decision procedure cannot decide {found[0]} ({found[1]}), a transcendental "
            "function: checked by search"
            if found
            else "checked by search"
        )
    pnames = [p.name for p in params]
    targets = targets_of(model)
    stable = model.cached("decide:stable_test", lambda: stable_test(sf))

    def family_test(target):
        def at(point):
            return target.holds_at({p: sp.Rational(str(point[p.name])) for p in params})

        return at

    tests = {t: stable if tg is None else family_test(tg) for t, tg in targets.items()}
    lower = _lower_bounds(assumptions)
    domains = {p.name: _domain_of(model, p, lower) for p in params}
    problem = Problem(
        domains=domains,
        claim=ClaimEvaluator(cf, pnames),
        targets=tests,
        assume=[ClaimEvaluator(a, pnames) for a in assumptions],
    )
    goals = GOALS(targets)
    found, record = search(problem, goals, points=points, seed=seed, decades=DECADES)
    outcomes = {t: {} for t in targets}
    for g in goals:
        point = next((p for p in found[g] if _recheck(sf, cf, assumptions, g, p, targets)), None)
        outcomes[g.target][g.direction] = Outcome(
            status=REFUTED if point is not None else OPEN,
            method=METHOD,
            counterexample=None
            if point is None
            else present(model, {p: sp.Rational(str(point[p.name])) for p in params}),
            note="exact point: the target decided exactly, the claim exactly or in interval "
            "arithmetic; re-checked by Routh's scheme (or the family's test) and SymPy at 60 "
            "digits",
        )
    return assemble(
        model,
        claim,
        cf.condition,
        outcomes,
        L=model_L(model),
        theta_real=theta_real,
        assume=assume,
        search=record,
        fallback=reason,
    )


def _recheck(sf, cf, assumptions, goal, point, targets) -> bool:
    """The independent re-check of a counterexample: True when it confirms, False when it
    cannot decide the claim (the point is dropped); a contradiction is a bug."""
    holds = recheck_claim(cf, point)
    if holds is None or any(recheck_claim(a, point) is not True for a in assumptions):
        return False
    target = targets[goal.target]
    if target is None:
        inside = _recheck_stable(sf, point)
    else:
        inside = target.holds_at({p: sp.Rational(str(point[p.name])) for p in sf.parameters})
        if inside is None:
            return False
    if (holds, inside) != goal.want:
        raise VerificationError(
            f"the search's counterexample {point} to {goal.target} ({goal.direction}) fails "
            f"the independent re-check (claim {holds}, {goal.target} {inside}): a bug"
        )
    return True


def _domain_of(model, p, lower: dict) -> str:
    dom = model.domains.get(p, "real")
    if dom == "real" and p.name in lower:
        return lower[p.name]
    return dom


def _lower_bounds(assumptions) -> dict:
    """Parameters an assumption ``p >= 0`` / ``p > 0`` keeps off the negative reals (to
    sample them as nonnegative / positive)."""
    out = {}
    for cf in assumptions:
        c = cf.condition
        bound = isinstance(c, (sp.GreaterThan, sp.StrictGreaterThan))
        if bound and c.lhs.is_Symbol and c.rhs == 0:
            strict = isinstance(c, sp.StrictGreaterThan)
            out[c.lhs.name] = "positive" if strict else "nonnegative"
    return out
