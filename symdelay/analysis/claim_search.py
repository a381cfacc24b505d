"""Claims the decision procedure cannot decide, checked by the one search.

A claim with a transcendental function (``exp``, ``log``, ``sin``, ``cos``, ``tanh``, ``pi``,
``E``, ...) is outside real polynomial arithmetic, so :mod:`symdelay.analysis.decide` refuses
it (:class:`~symdelay.core.errors.TranscendentalClaimError`). :func:`search_claim` looks for
exact counterexamples instead (:func:`symdelay.analysis.decide.search_confirmed`: the one
search, every point decided exactly, each counterexample re-checked by the second path), on
the models the decision procedure takes, against stability and the family's targets. A
direction without a counterexample is ``no counterexample found``: never proven, so the
relation is given only when both directions are refuted (``neither``).
"""

from __future__ import annotations

from symdelay.analysis.claim_result import OPEN, REFUTED, Outcome, assemble, model_L
from symdelay.analysis.counterexample import DEFAULT_SEED, GOALS
from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp

__all__ = ["search_claim", "DEFAULT_POINTS", "DEFAULT_SEED", "DECADES", "METHOD"]

#: points decided exactly per claim by default (plus those near the boundaries)
DEFAULT_POINTS = 1500
#: decades searched each side of 1 (log-uniform)
DECADES = 4
METHOD = "search"


def search_claim(
    model,
    claim: str,
    *,
    assume=(),
    points: int = DEFAULT_POINTS,
    seed: int = DEFAULT_SEED,
    theta_real: bool = False,
):
    """Search for counterexamples to ``claim => target`` and ``target => claim`` of
    ``model`` for stability and the family's targets, over its parameters' domains and
    ``assume`` (texts; transcendental functions allowed in both): a
    :class:`~symdelay.analysis.claim_result.ClaimResult` with every method ``search``. A
    direction is ``refuted`` (an exact counterexample, re-checked) or ``no counterexample
    found``; the relation is given only when both are refuted. ``points``: random points
    decided exactly (plus those near the boundaries); ``seed``: the generator's seed (the
    search is deterministic). ``fallback`` says why the decision procedure was not used."""
    from symdelay.analysis.claim_formula import fallback_reason
    from symdelay.analysis.decide import (
        _aliases,
        _claim_formula,
        present,
        search_confirmed,
        stability_formula,
        targets_of,
    )

    assume = (assume,) if isinstance(assume, str) else tuple(assume)
    if isinstance(points, bool) or not isinstance(points, int) or not 10 <= points <= 10**6:
        raise SymdelayInputError(f"points must be an integer in 10..1000000, got {points!r}")
    sf = stability_formula(model)
    names = _aliases(model, None)
    cf = _claim_formula(model, claim, "claim", names, transcendental=True)
    assumptions = [_claim_formula(model, a, "assumption", names, True) for a in assume]
    targets = targets_of(model)
    lower = _lower_bounds(assumptions)
    goals = GOALS(targets)
    found, record = search_confirmed(
        model,
        sf,
        cf,
        assumptions,
        targets,
        goals,
        domains={p.name: _domain_of(model, p, lower) for p in model.free_parameters},
        points=points,
        seed=seed,
        decades=DECADES,
    )
    outcomes = {t: {} for t in targets}
    for g in goals:
        point, verdict = found[g]
        outcomes[g.target][g.direction] = Outcome(
            status=OPEN if point is None else REFUTED,
            method=METHOD,
            counterexample=None if point is None else present(model, point),
            verdict=verdict,
            note="exact point: the target decided exactly, the claim exactly or in interval "
            "arithmetic; re-checked by Routh's scheme (or the family's test) and SymPy",
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
        fallback=fallback_reason(cf, *assumptions) or "checked by search",
    )


def _domain_of(model, p, lower: dict) -> str:
    """``p``'s domain, a real one narrowed by an assumption ``p >= 0`` / ``p > 0``."""
    dom = model.domains.get(p, "real")
    return lower.get(p.name, dom) if dom == "real" else dom


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
