"""Claims against a delay model decided exactly: the target is delay-independent stability.

A claim that names no lag (a polynomial relation in the other parameters) is compared with
*stable for every value of the lags* (:mod:`symdelay.analysis.delayindep`), both directions:

* *claim => stable for every lag*: one quantifier-free check per Hurwitz condition of each
  mode at zero lag (``claim and not c``) and one per mode for a root on the imaginary axis
  at some lag (``claim`` and the existential form of the crossing: ``u = omega^2 > 0`` with
  ``H(u) <= 0`` for one linear lag, the lag variables on the unit circle otherwise), each
  decided by z3's nlsat (:func:`symdelay.analysis.decide._solve`);
* *stable for every lag => claim*: one check with a universal quantifier (the frequency
  condition for every ``omega > 0``), decided by z3's ``nlqsat`` (complete for quantified
  nonlinear real arithmetic).

A counterexample is made rational and re-checked exactly by a second path: the claim by
SymPy, the Hurwitz conditions by exact root counts of ``F(r, 1)``, the crossing by the
positive real roots of ``H`` (Sturm, SymPy) for one linear lag, else by nlsat on the mode at
the point's numbers. Where the conditions are only sufficient (distributed lags, tied
lags), a point that meets the claim but not the conditions proves nothing: that direction
is left *undecided*; a proof of *claim => conditions* still proves *claim => stable for
every lag*, and a point where the conditions hold and the claim fails still refutes
*stable for every lag => claim*.

A claim that names a lag (a bound on the lag such as ``D < acos(-mu/(lam*theta)) /
sqrt((lam*theta)**2 - mu**2)``) is about stability at the given lag values instead:
:mod:`symdelay.analysis.lagclaims` (Hayes' class exactly, otherwise a labelled search). A
transcendental claim that names no lag is refused in one line (stability for every lag is
decided for polynomial relations).
"""

from __future__ import annotations

import time
from fractions import Fraction

from symdelay.analysis.claim_result import (
    DIRECTIONS,
    PROVEN,
    REFUTED,
    UNDECIDED,
    Outcome,
    assemble,
)
from symdelay.core.errors import SymdelayInputError, TranscendentalClaimError
from symdelay.core.lazy import sympy as sp

__all__ = ["verify_delay", "independent_at"]

METHOD = "decision procedure"
#: the remark every record of this path carries: what "stable" means here
MEANING = (
    "delay model: 'stable' is stability for every value of the lags (delay-independent "
    "stability, each lag over [0, oo)); the conditions are {exact}"
)


def _lag_symbols(model) -> set:
    out = set()
    for lag in (model.lags or {}).values():
        stack = [lag]
        while stack:
            g = stack.pop()
            if g.kind == "mixture":
                stack += list(g.args["lags"])
            for k, v in g.args.items():
                if k in ("lags", "weights"):
                    continue
                out |= set(
                    getattr(
                        sp.sympify(v) if not isinstance(v, tuple) else sp.Tuple(*v),
                        "free_symbols",
                        set(),
                    )
                )
    return out


def independent_at(ic, point: dict, timeout_ms: int = 10_000) -> bool | None:
    """Stability for every value of the lags at exact numbers ``point`` (symbol -> value),
    by the second path: ``F(r, 1)`` counted exactly, then per mode the positive roots of
    ``H`` (one linear lag) or nlsat on the crossing at the point. None when undecided (a
    degenerate point, or a sufficient-only condition that fails)."""
    from symdelay.analysis.delayindep import EXACT, crossing_nodes
    from symdelay.analysis.polyroots import exact_counts
    from symdelay.core.symbols import r

    sub = {p: sp.sympify(v) for p, v in point.items()}
    for m in ic.modes:
        for c in m.difference:
            held = c.xreplace(sub)
            if held not in (sp.true, sp.false):
                return None
            if held is sp.false:
                return False
        F1 = sp.expand(m.F.xreplace({a: 1 for a in (*m.circle, *m.disc)}).xreplace(sub))
        coeffs = sp.Poly(F1, r).all_coeffs()
        if not all(c.is_Rational for c in coeffs):
            return None
        counts = exact_counts([sp.Rational(c) for c in coeffs])
        if counts.rhp or counts.axis:
            return False
        if not (m.circle or m.disc):
            continue
        if m.H is not None:
            H = sp.Poly(sp.expand(m.H.xreplace(sub)), ic.u)
            if not all(c.is_Rational for c in H.all_coeffs()):
                return None
            crossing = H.count_roots(0, None) - (1 if H.eval(0) == 0 else 0) > 0
        else:
            from symdelay.analysis.decide import _solve

            variables, nodes = crossing_nodes(ic, m)
            nodes = [("rel", sp.expand(P.xreplace(sub)), op) for _, P, op in nodes]
            answer = _solve(nodes, variables, None, timeout_ms)[0]
            if answer == "unknown":
                return None
            crossing = answer == "sat"
        if crossing:
            return False if ic.exact == EXACT else None
    return True


def _rational_candidates(values: dict, params):
    """Z3's point rounded to 1..40 digits, then as it is (rationals only)."""
    approx = {}
    for p in params:
        v = values.get(p, sp.Integer(1))
        approx[p] = v.approx if hasattr(v, "approx") else Fraction(int(v.p), int(v.q))
    for digits in (1, 2, 3, 4, 6, 9, 12, 18, 25, 40):
        yield {p: sp.Rational(approx[p].limit_denominator(10**digits)) for p in params}


def _z3_values(z3model, zvars, z3):
    from symdelay.analysis.decide import _exact_value

    out = {}
    for p, v in zvars.items():
        val = z3model.eval(v, model_completion=True)
        out[p] = _exact_value(val, z3)
    return out


def _recheck(ic, cf, assumptions, params, values, want_claim, want_stable, timeout_ms):
    """A rational point near ``values`` where the claim is ``want_claim`` and stability for
    every lag is ``want_stable`` (both re-checked exactly), or None."""
    from symdelay.analysis.counterexample import _in_domains

    for cand in _rational_candidates(values, params):
        named = {p.name: v for p, v in cand.items()}
        if not _in_domains(named, {p.name: ic.domains[p] for p in params}):
            continue
        if any(a.holds_at(cand) is not True for a in assumptions):
            continue
        if cf.holds_at(cand) is not want_claim:
            continue
        if independent_at(ic, cand, timeout_ms) is want_stable:
            return cand
    return None


def verify_delay(
    model,
    claim: str,
    *,
    assume=(),
    theta_real=False,
    timeout_ms: int = 10_000,
    points: int | None = None,
    box=None,
):
    """Decide ``claim`` against stability for every value of ``model``'s lags (module
    docstring): the one :class:`~symdelay.analysis.claim_result.ClaimResult`.

    Parameters
    ----------
    model : Model
        A delay model whose characteristic functions are transcendental, with free
        parameters.
    claim : str
        A polynomial relation in the parameters other than the lags (the claim language of
        :func:`symdelay.analysis.claims.verify`).
    assume : sequence of str, default ()
        Relations the parameters satisfy besides their domains.
    theta_real : bool, default False
        Recorded (the domains are the model's).
    timeout_ms : int, default 10000
        The decision procedure's budget per check, in milliseconds.
    points : int or None, default None
        Points of the search of a claim that names a lag
        (:func:`symdelay.analysis.lagclaims.verify_at_lags`); refused otherwise.
    box : dict or None, default None
        ``{name: (lo, hi)}``: where that search draws a parameter; refused otherwise.

    Returns
    -------
    ClaimResult
        A claim that names a lag or has a transcendental function: against stability at
        the given lag values (:mod:`symdelay.analysis.lagclaims`). Otherwise both
        directions against delay-independent stability (target ``stability``), each
        proven, refuted by an exact, re-checked counterexample, or undecided.
    """
    import z3

    from symdelay.analysis.decide import (
        RLIMIT_PER_MS,
        _aliases,
        _claim_formula,
        _domain_node,
        _solve,
    )
    from symdelay.analysis.delayindep import (
        EXACT,
        crossing_nodes,
        dis_formula,
        hurwitz_node,
        independent_conditions,
        quantified_check,
    )
    from symdelay.model.signs import z3_node

    names = _aliases(model, None)
    loose = _claim_formula(model, claim, "claim", names, transcendental=True)
    lagged = sorted(str(s) for s in loose.free_symbols & _lag_symbols(model))
    if lagged:
        # a bound on a lag (or a transcendental claim): stability at the given lag values
        from symdelay.analysis.lagclaims import verify_at_lags

        return verify_at_lags(
            model,
            claim,
            assume=assume,
            theta_real=theta_real,
            timeout_ms=timeout_ms,
            points=points,
            box=box,
            lag_names=lagged,
        )
    ic = independent_conditions(model, timeout_ms)
    try:
        cf = _claim_formula(model, claim, "claim", names)
    except TranscendentalClaimError as exc:
        raise SymdelayInputError(
            f"{exc}: a claim that names no lag is compared with stability for every value of "
            "the lags, decided for polynomial relations only; a bound on a lag names it "
            "(e.g. 'D < acos(-mu/(lam*theta))/sqrt((lam*theta)**2 - mu**2)', checked against "
            "stability at the given lags)"
        ) from None
    if points is not None or box:
        raise SymdelayInputError(
            "points and box set the search of a claim that names a lag; this claim names "
            "none and is decided exactly against stability for every value of the lags: "
            "leave them out"
        )
    assumptions = [_claim_formula(model, a, "assumption", names) for a in assume]
    params = list(model.free_parameters)
    symbols = [*params, *cf.aux_symbols, *[s for a in assumptions for s in a.aux_symbols]]
    hyps = [_domain_node(model), *cf.definitions]
    for a in assumptions:
        hyps += [a.node, *a.definitions]
    exact = ic.exact == EXACT
    outcomes = {}

    # ---- claim => stable for every lag: quantifier-free pieces
    t0 = time.perf_counter()
    checks = []
    for m in ic.modes:
        for i, c in enumerate(m.difference):
            checks.append(
                (
                    f"claim and not difference-operator condition {i + 1} ({m.name} mode)",
                    [],
                    [("not", hurwitz_node(c))],
                    "hurwitz",
                )
            )
        for i, c in enumerate(m.hurwitz):
            checks.append(
                (
                    f"claim and not Hurwitz condition {i + 1} ({m.name} mode, zero lag)",
                    [],
                    [("not", hurwitz_node(c))],
                    "hurwitz",
                )
            )
        if m.circle or m.disc:
            variables, nodes = crossing_nodes(ic, m)
            checks.append(
                (
                    f"claim and a root on the axis at some lag ({m.name} mode)",
                    variables,
                    nodes,
                    "crossing",
                )
            )
    log, formulas, status, point, note = [], [], PROVEN, None, ""
    for what, extra_vars, nodes, kind in checks:
        answer, values, smt2, sec = _solve(
            [*hyps, cf.node, *nodes], [*symbols, *extra_vars], None, timeout_ms, (),
            model.domains, certify="first",
        )  # fmt: skip
        formulas.append(smt2)
        log.append({"check": what, "answer": answer, "seconds": round(sec, 4)})
        if answer == "unsat":
            log[-1]["by"] = values or "z3 nlsat"
            continue
        if answer == "unknown":
            status = UNDECIDED
            log[-1]["reason"] = str(values)
            continue
        if kind == "crossing" and not exact:
            status = UNDECIDED
            log[-1]["reason"] = (
                "the claim allows a point where the sufficient condition fails; it is not "
                "necessary, so this proves nothing"
            )
            continue
        point = _recheck(ic, cf, assumptions, params, values, True, False, timeout_ms)
        if point is None:
            status = UNDECIDED
            log[-1]["reason"] = "no rational point near z3's model passed the exact re-check"
            continue
        status = REFUTED
        break
    how = (
        "re-checked: the claim by SymPy, the difference operator's condition (neutral modes) "
        "exactly, F(r, 1) by exact root counts, the crossing by the positive roots of H "
        "(Sturm) or nlsat at the point"
    )
    outcomes[DIRECTIONS[0]] = Outcome(
        status=status,
        method=METHOD,
        counterexample=None if point is None else {str(k): str(v) for k, v in point.items()},
        verdict=None if point is None else "unstable",
        formulas=formulas,
        checks=log,
        seconds=round(time.perf_counter() - t0, 4),
        tried=None if status != UNDECIDED else f"z3 nlsat, {timeout_ms} ms per check",
        note=(
            f"decision procedure (z3 nlsat, exact): unsat, {len(formulas)} formula(s)"
            if status == PROVEN
            else how
            if status == REFUTED
            else note
        ),
    )

    # ---- stable for every lag => claim: one quantified check
    t0 = time.perf_counter()
    zvars = {s: z3.Real(s.name) for s in symbols}
    formula = z3.And(
        *[z3_node(h, zvars, z3) for h in hyps],
        dis_formula(ic, zvars, z3),
        z3.Not(z3_node(cf.node, zvars, z3)),
    )
    solver = z3.Solver()
    solver.add(formula)
    smt2 = solver.to_smt2()
    answer, zmodel = quantified_check(formula, timeout_ms, z3)
    log = [{"check": "stable for every lag and not claim", "answer": answer}]
    point = None
    if answer == "unsat":
        status = PROVEN
        log[0]["by"] = "z3 nlqsat"
    elif answer == "sat":
        values = _z3_values(zmodel, {p: zvars[p] for p in params}, z3)
        point = _recheck(ic, cf, assumptions, params, values, False, True, timeout_ms)
        status = REFUTED if point is not None else UNDECIDED
        if point is None:
            log[0]["reason"] = "no rational point near z3's model passed the exact re-check"
    else:
        status = UNDECIDED
        log[0]["reason"] = str(zmodel)
    log[0]["seconds"] = round(time.perf_counter() - t0, 4)
    outcomes[DIRECTIONS[1]] = Outcome(
        status=status,
        method=METHOD,
        counterexample=None if point is None else {str(k): str(v) for k, v in point.items()},
        verdict=None if point is None else "stable",
        formulas=[smt2],
        checks=log,
        seconds=round(time.perf_counter() - t0, 4),
        tried=None
        if status != UNDECIDED
        else f"z3 nlqsat, {timeout_ms * RLIMIT_PER_MS} resource units",
        note=(
            "decision procedure (z3 nlqsat, quantified real arithmetic, exact): unsat"
            if status == PROVEN
            else how
            if status == REFUTED
            else ""
        ),
    )
    word = "necessary and sufficient" if exact else f"sufficient only ({ic.why})"
    return assemble(
        model,
        claim,
        cf.condition,
        {"stability": outcomes},
        theta_real=theta_real,
        assume=tuple(assume),
        timeout_ms=timeout_ms,
        notes=(MEANING.format(exact=word),),
    )
