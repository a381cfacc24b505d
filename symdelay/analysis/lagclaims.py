"""Claims that bound a lag, decided against stability at the given lag values.

A claim against a delay model that names a lag parameter (the ``D`` of ``tau = {kind =
"constant", value = "D"}``, the ``Delta`` of a moving average), or that has a
transcendental function (Pender, Rand & Wesson's ``D < acos(-mu/(lam*theta)) /
sqrt((lam*theta)**2 - mu**2)``), is a statement about the equilibrium's asymptotic
stability *at those lag values*, not for every lag (a claim that names no lag is about
stability for every lag: :mod:`symdelay.analysis.delayclaims`). Both directions are
decided, ``claim => stable`` and ``stable => claim`` (:mod:`symdelay.analysis.claim_result`):

**Hayes' class, exactly.** When every mode of the model is either free of lags (a
polynomial: its Hurwitz conditions) or scalar ``r + a + b exp(-r tau)`` with ``tau`` one
constant lag's value and ``a``, ``b`` expressions of the parameters (the
information-delay difference mode), the stable set is known in closed form (Hayes 1950):
every root has ``Re r < 0`` iff ``a + b > 0`` and either ``b <= a`` (then for every
``tau``) or ``b > |a|`` and ``tau sqrt(b^2 - a^2) < acos(-a/b)`` (the first crossing;
every crossing of a scalar first-order mode is to the right, so the count never falls
back to 0). ``acos(-a/b)`` is replaced by a variable ``C`` in ``[0, P]`` and ``pi`` by a
variable ``P`` in ``(3.14159, 3.14160)``; the claim's own ``acos(X)`` is the same ``C``
where ``X`` is ``-a/b`` identically (``P - C`` where it is ``a/b``) and a fresh variable in
``[0, P]`` otherwise, with the relation false where ``|X| > 1`` (the claim language's
convention: a relation is false where it is undefined); ``asin``, ``atan`` likewise with
their ranges. The true values satisfy every one of these constraints, so when z3's nlsat
finds ``claim and not stable`` (or ``stable and not claim``) unsatisfiable over all
values of the variables, the direction is proven for the true ones: exact, no sampling.
A satisfiable answer proves nothing (the variables are freer than the functions) and the
direction goes to the search.

**Otherwise, a labelled search.** Points of the parameter box (each parameter over its
domain: ``[10^-1, 10]`` log-uniform for a positive one unless ``box`` sets its range),
rounded to 3 significant digits (exact rationals), and at every other one six points
along a lag the claim names, next to where the claim flips (by bisection of its truth in
Arb; rounded to 6 digits); at each the claim is evaluated in Arb
(a relation whose ball does not decide it skips the point, counted) and the stability by
the certified count of every mode (:func:`symdelay.analysis.lagroots.unstable_count`; an
undecided count skips the point, counted). A disagreement is re-checked: the claim by
SymPy (:meth:`~symdelay.analysis.claim_formula.ClaimFormula.holds_at`, another path than
the balls) and the stability by a second certified count at more digits; it then refutes
its direction with that exact point. A direction without a counterexample is ``no
counterexample found`` in the N points decided (points whose claim value can refute only a
direction already decided are not drawn into N): never proven.
"""

from __future__ import annotations

import time

from symdelay.analysis.claim_result import (
    DIRECTIONS,
    OPEN,
    PROVEN,
    REFUTED,
    Outcome,
    assemble,
)
from symdelay.core.errors import CertificationError, SymdelayInputError
from symdelay.core.lazy import sympy as sp

__all__ = [
    "verify_at_lags",
    "claim_at",
    "stability_oracle",
    "hayes_modes",
    "DEFAULT_POINTS",
    "DEFAULT_SEED",
    "DECADES",
]

#: points decided per claim by default
DEFAULT_POINTS = 400
DEFAULT_SEED = 32
#: a positive parameter without a box is drawn log-uniformly from 10^-DECADES to 10^DECADES
DECADES = 1
MEANING = (
    "delay model, a claim that names the lag parameter(s) {lags}: 'stable' is asymptotic stability at the given values of the lags (every root "
    "of every mode in Re r < 0; marginal is not stable), not stability for every lag"
)
_PI_LO, _PI_HI = sp.Rational(314159, 100000), sp.Rational(314160, 100000)


# ------------------------------------------------------------------ the claim in Arb
class _Undefined(Exception):
    """The expression is certainly undefined at the point (the relation is false)."""


class _Unsure(Exception):
    """The ball does not decide whether the expression is defined or its sign."""


def _ball(e, env):
    """The arb ball of ``e`` (symbols bound by ``env``), domains checked on the balls."""
    import flint

    if e.is_Rational:
        return flint.arb(flint.fmpq(int(e.p), int(e.q)))
    if e is sp.pi:
        return flint.arb.pi()
    if e is sp.E:
        return flint.arb(1).exp()
    if e.is_Symbol:
        return env[e]
    if isinstance(e, sp.Add):
        out = flint.arb(0)
        for a in e.args:
            out += _ball(a, env)
        return out
    if isinstance(e, sp.Mul):
        out = flint.arb(1)
        for a in e.args:
            out *= _ball(a, env)
        return out
    if isinstance(e, sp.Pow):
        b = _ball(e.base, env)
        x = e.exp
        if not x.is_Rational:
            raise _Unsure(f"the power {e}")
        p, q = int(x.p), int(x.q)
        if p < 0:
            _nonzero(b)
        if q == 1:
            return b**p if p >= 0 else 1 / b ** (-p)
        if q % 2 == 0:
            if b < 0:
                raise _Undefined
            if not b >= 0:
                raise _Unsure(f"the sign under {e}")
            if b == 0:
                return flint.arb(0)
            if not b > 0:
                raise _Unsure(f"{e.base} near 0")
            root = b.root(q)
        else:
            if b > 0:
                root = b.root(q)
            elif b < 0:
                root = -((-b).root(q))
            else:
                raise _Unsure(f"{e.base} near 0")
        return root**p if p >= 0 else 1 / root ** (-p)
    if isinstance(e, sp.Abs):
        return abs(_ball(e.args[0], env))
    if isinstance(e, (sp.acos, sp.asin)):
        b = _ball(e.args[0], env)
        if b > 1 or b < -1:
            raise _Undefined
        if not (b >= -1 and b <= 1):
            raise _Unsure(f"the argument of {e} near -1 or 1")
        return b.acos() if isinstance(e, sp.acos) else b.asin()
    if isinstance(e, sp.log):
        b = _ball(e.args[0], env)
        if b <= 0:
            raise _Undefined
        if not b > 0:
            raise _Unsure(f"the argument of {e} near 0")
        return b.log()
    for f in ("exp", "sin", "cos", "tan", "sinh", "cosh", "tanh", "atan"):
        if isinstance(e, getattr(sp, f)):
            out = getattr(_ball(e.args[0], env), f)()
            if not out.is_finite():
                raise _Unsure(f"{e} not bounded on the ball")
            return out
    raise _Unsure(f"{e} is not evaluated in Arb")


def _nonzero(b):
    if b == 0:
        raise _Undefined
    if not (b > 0 or b < 0):
        raise _Unsure("a denominator near 0")


def _leaf_ball(leaf, env):
    """The truth of one relation at the point (balls): True, False, or None (not decided)."""
    if leaf in (sp.true, sp.false):
        return bool(leaf)
    try:
        d = _ball(leaf.lhs, env) - _ball(leaf.rhs, env)
    except _Undefined:
        return False
    except (_Unsure, ZeroDivisionError):
        return None
    if not d.is_finite():
        return None
    sign = 1 if d > 0 else -1 if d < 0 else 0 if d == 0 else None
    if sign is None:
        return None
    return {
        sp.StrictLessThan: sign < 0,
        sp.LessThan: sign <= 0,
        sp.StrictGreaterThan: sign > 0,
        sp.GreaterThan: sign >= 0,
        sp.Equality: sign == 0,
        sp.Unequality: sign != 0,
    }[type(leaf)]


def claim_at(cf, point: dict, prec: int = 128):
    """The truth of a parsed claim at an exact point (symbol -> rational), in Arb balls at
    ``prec`` bits: True, False, or None when a ball does not decide a relation."""
    import flint

    from symdelay.analysis.claim_formula import THREE_VALUED, fold

    with flint.ctx.workprec(prec):
        env = {s: flint.arb(flint.fmpq(int(v.p), int(v.q))) for s, v in point.items()}
        return fold(cf.tree, lambda t: _leaf_ball(cf.leaves[t[1]], env), *THREE_VALUED)


# ------------------------------------------------------------------ stability at a point
def stability_oracle(model):
    """``at(point) -> (verdict, text)``: the model's verdict at an exact point (symbol ->
    rational) by the certified count of every mode (stable / marginal / unstable /
    undecided)."""
    import dataclasses

    from symdelay.analysis.lagroots import _mode_groups, unstable_count

    exact = bool(model.equilibrium.exact)
    groups = _mode_groups(model) if exact else None
    given = dict(getattr(model, "values", {}) or {})  # parameters the model was given

    def counts(point, dps):
        if groups is None:
            at = model.with_values(**{s.name: v for s, v in point.items()})
            parts = _mode_groups(at)
            lags = {k: lag.xreplace(dict(at.values)) for k, lag in at.lags.items()}
        else:
            parts = []
            for name, lin, f, c in groups:
                terms = tuple(
                    dataclasses.replace(
                        t, matrix=t.matrix.xreplace(point), kernel=t.kernel.xreplace(point)
                    )
                    for t in lin.terms
                )
                parts.append(
                    (name, dataclasses.replace(lin, A0=lin.A0.xreplace(point), terms=terms), f, c)
                )
            lags = {k: lag.xreplace({**given, **point}) for k, lag in model.lags.items()}
        out = []
        for name, lin, _f, _c in parts:
            chain = _unstable_chain(lin, lags)
            if chain is not None:
                out.append((name, chain))
                continue
            try:
                out.append((name, unstable_count(lin, lags, dps=dps)))
            except (SymdelayInputError, CertificationError) as exc:
                # e.g. a neutral mode's difference operator, a count over the budget
                out.append((name, " ".join(str(exc).split())[:200]))
        return out

    def at(point, dps: int = 20):
        res = counts(point, dps)
        texts = []
        verdict = "stable"
        for name, c in res:
            if isinstance(c, str):
                texts.append(f"{name} mode: refused ({c})")
                verdict = "undecided" if verdict != "unstable" else verdict
                continue
            if isinstance(c, tuple):  # an unstable difference operator
                texts.append(f"{name} mode: unstable ({c[1]})")
                verdict = "unstable"
                continue
            texts.append(f"{name} mode: {c.verdict}")
            if c.verdict == "unstable":
                verdict = "unstable"
            elif c.verdict == "undecided" and verdict != "unstable":
                verdict = "undecided"
            elif c.verdict == "marginal" and verdict == "stable":
                verdict = "marginal"
        return verdict, "; ".join(texts)

    return at


def _unstable_chain(lin, lags):
    """``("unstable", why)`` when a scalar neutral mode with one constant lag ``tau > 0`` has
    a derivative coefficient ``|m| > 1`` (exact): its difference operator ``1 - m
    e^{-r tau}`` is unstable and the equation has infinitely many roots with ``Re r``
    near ``ln|m|/tau > 0`` (Hale & Verduyn Lunel, ch. 9: the roots of large modulus follow
    the difference operator's chain); else None (the count decides)."""
    d_terms = [t for t in lin.terms if t.derivative and not t.matrix.is_zero_matrix]
    if lin.A0.shape != (1, 1) or len(d_terms) != 1 or len(d_terms[0].lags) != 1:
        return None
    lag = lags.get(d_terms[0].lags[0])
    if lag is None or lag.kind != "constant":
        return None
    tau, m = sp.sympify(lag.args["value"]), sp.Abs(d_terms[0].matrix[0, 0])
    if not (tau.is_Rational and tau > 0 and m.is_Rational):
        return None
    if m > 1:
        return ("unstable", f"difference operator 1 - m e^(-r tau) with |m| = {m} > 1")
    return None


# ------------------------------------------------------------------ Hayes' class
def hayes_modes(model):
    """``[(name, a, b, tau)]`` for the scalar modes ``r + a + b exp(-r tau)`` (one constant
    lag) and ``[(name, F)]`` for the lag-free modes (polynomials), or None when some mode is
    neither (or the equilibrium is not exact)."""
    from symdelay.analysis.lagroots import _mode_groups
    from symdelay.core.symbols import r

    if not model.equilibrium.exact:
        return None
    hayes, plain = [], []
    for name, lin, _f, _c in _mode_groups(model):
        terms = [t for t in lin.terms if not t.matrix.is_zero_matrix]
        if not terms:
            plain.append((name, sp.expand((r * sp.eye(lin.A0.shape[0]) - lin.A0).det())))
            continue
        if lin.A0.shape != (1, 1) or any(t.derivative or len(t.lags) != 1 for t in terms):
            return None
        names = {t.lags[0] for t in terms}
        if len(names) != 1:
            return None
        lag = model.lags[names.pop()]
        if lag.kind != "constant":
            return None
        a = sp.expand(-lin.A0[0, 0])
        b = sp.expand(-sp.Add(*[t.matrix[0, 0] for t in terms]))
        tau = sp.sympify(lag.args["value"]).xreplace(dict(getattr(model, "values", {}) or {}))
        if a.has(r) or b.has(r) or tau.has(r):
            return None
        if any(sp.simplify(t.kernel - sp.exp(-r * tau)) != 0 for t in terms):
            return None  # Hayes' region is for the transform exp(-r tau) itself
        if not (tau.is_Symbol and model.domains.get(tau) in ("positive", "nonnegative")) and not (
            tau.is_number and tau >= 0
        ):
            return None  # the lag must be a value >= 0 on the whole domain
        hayes.append((name, a, b, tau))
    return hayes, plain


def _hayes_nodes(model, cf_leaves, tree, assumptions, hayes, plain, timeout_ms):
    """The two directions by z3 over the Hayes region (module docstring): ``{direction:
    (answer, detail, smt2, seconds)}``, or None when the claim has a function the
    abstraction does not cover."""
    from symdelay.analysis.claim_formula import (
        _Translator,
        conj,
        disj,
        fold,
        neg,
        rel,
    )
    from symdelay.analysis.decide import _domain_node, _solve
    from symdelay.analysis.delayindep import _hurwitz, hurwitz_node

    params = list(model.free_parameters)
    P = sp.Symbol("_pi", real=True)
    Cs = [sp.Symbol(f"_acos_{name}", real=True) for name, *_ in hayes]
    tr = _Translator(set(params) | {P, *Cs})
    fresh: list = []
    hyps = [rel(P - _PI_LO, ">"), rel(_PI_HI - P, ">")]
    for C, (_name, a, b, _tau) in zip(Cs, hayes, strict=True):
        # acos on [-1, 1]: in [0, pi], above pi/2 exactly where its argument -a/b < 0
        hyps += [rel(C, ">="), rel(P - C, ">=")]
        hyps.append(disj(neg(tr.relation(sp.StrictGreaterThan(a * b, 0))), rel(2 * C - P, ">")))
        hyps.append(disj(neg(tr.relation(sp.StrictLessThan(a * b, 0))), rel(P - 2 * C, ">")))

    def replace(expr, defined):
        """``expr`` with its transcendental atoms replaced by variables (``defined`` gains
        the conditions where they are defined), or None."""
        subs = {}
        for atom in sorted(expr.atoms(sp.Function), key=sp.count_ops, reverse=True):
            if isinstance(atom, sp.Abs):
                continue
            if not isinstance(atom, (sp.acos, sp.asin, sp.atan)):
                return None
            X = atom.args[0]
            if X.has(sp.acos, sp.asin, sp.atan, sp.exp, sp.log, sp.sin, sp.cos):
                return None
            if isinstance(atom, sp.atan):
                defined.append(tr.relation(sp.GreaterThan(X**2, 0, evaluate=False)))
            else:
                defined.append(tr.relation(sp.LessThan(X**2, 1, evaluate=False)))
            value = None
            if isinstance(atom, sp.acos):
                for (_name, a, b, _tau), C in zip(hayes, Cs, strict=True):
                    if sp.cancel(X + a / b) == 0:
                        value = C
                    elif sp.cancel(X - a / b) == 0:
                        value = P - C
            if value is None:
                v = sp.Symbol(f"_f{len(fresh)}", real=True)
                tr.parameters.add(v)
                fresh.append(v)
                lo, hi = {
                    sp.acos: (sp.Integer(0), P),
                    sp.asin: (-P / 2, P / 2),
                    sp.atan: (-P / 2, P / 2),
                }[type(atom)]
                hyps.extend([rel(v - lo, ">="), rel(hi - v, ">=")])
                value = v
            subs[atom] = value
        out = expr.xreplace(subs).xreplace({sp.pi: P})
        if out.has(sp.E) or any(not isinstance(f, sp.Abs) for f in out.atoms(sp.Function)):
            return None
        return out

    def leaf_node(leaf):
        if leaf in (sp.true, sp.false):
            return ("true",) if leaf is sp.true else ("false",)
        defined: list = []
        lhs, rhs = replace(leaf.lhs, defined), replace(leaf.rhs, defined)
        if lhs is None or rhs is None:
            raise LookupError
        return conj(*defined, tr.relation(type(leaf)(lhs, rhs, evaluate=False)))

    try:
        nodes = [leaf_node(x) for x in cf_leaves]
        claim = fold(tree, lambda t: nodes[t[1]], lambda xs: conj(*xs), lambda xs: disj(*xs), neg)
        assumed = []
        for a in assumptions:
            an = [leaf_node(x) for x in a.leaves]
            assumed.append(
                fold(
                    a.tree,
                    lambda t, an=an: an[t[1]],
                    lambda xs: conj(*xs),
                    lambda xs: disj(*xs),
                    neg,
                )
            )
    except LookupError:
        return None
    except SymdelayInputError:
        return None
    from symdelay.core.symbols import r

    stable_parts = []
    for _name, F in plain:
        stable_parts += [hurwitz_node(c) for c in _hurwitz(F, model, r)]
    for (_name, a, b, tau), C in zip(hayes, Cs, strict=True):
        region = conj(
            tr.relation(sp.StrictGreaterThan(b, 0)),
            tr.relation(sp.StrictGreaterThan(b**2 - a**2, 0)),
            tr.relation(sp.StrictLessThan(tau * sp.sqrt(b**2 - a**2), C, evaluate=False)),
        )
        stable_parts.append(
            conj(
                tr.relation(sp.StrictGreaterThan(a + b, 0)),
                disj(tr.relation(sp.LessThan(b, a)), region),
            )
        )
    stable = conj(*stable_parts)
    base = [_domain_node(model), *assumed, *hyps, *[x.definition for x in tr.aux]]
    symbols = [*params, P, *Cs, *fresh, *[x.symbol for x in tr.aux]]
    domains = {**dict(model.domains)}
    out = {}
    for d, nodes_ in (
        (DIRECTIONS[0], [claim, neg(stable)]),
        (DIRECTIONS[1], [stable, neg(claim)]),
    ):
        answer, detail, smt2, sec = _solve([*base, *nodes_], symbols, None, timeout_ms, (), domains)
        out[d] = (answer, detail, smt2, sec)
    # whether the claim holds anywhere: where it never does, "claim => stable" is vacuous
    out["claim"] = _solve([*base, claim], symbols, None, timeout_ms, (), domains)
    return out


# ------------------------------------------------------------------ the entry of this path
def _draw(rng, dom: str, box):
    """One exact value (3 significant digits) of a parameter over its domain / box."""
    import math
    from fractions import Fraction

    if box is not None:
        lo, hi = float(box[0]), float(box[1])
        x = math.exp(rng.uniform(math.log(lo), math.log(hi))) if lo > 0 else rng.uniform(lo, hi)
    elif dom == "probability":
        x = rng.uniform(0, 1)
    else:
        x = 10 ** rng.uniform(-DECADES, DECADES)
        if dom == "nonnegative" and rng.random() < 0.1:
            x = 0.0
        if dom == "real" and rng.random() < 0.5:
            x = -x
    v = sp.Rational(Fraction(f"{x:.3g}")) if x != 0 else sp.Integer(0)
    if box is not None:  # rounding must not leave the box
        v = min(max(v, sp.Rational(box[0])), sp.Rational(box[1]))
    if dom == "positive" and v <= 0:
        v = sp.Rational(1, 1000)
    if dom == "probability":
        v = min(max(v, sp.Integer(0)), sp.Integer(1))
    return v


def _across(cf, point, rng, lag_syms, boxes) -> list:
    """Points on both sides of the claim's boundary along one lag parameter (the other
    parameters as in ``point``): the lag where the claim flips, found by bisection of the
    claim's truth in Arb over the lag's range (log scale), then moved by factors
    ``1 -+ 10^-k`` (``k`` = 1, 2, 3), each rounded to 6 significant digits. A wrong claim
    that is off by a little differs from the stable set next to its own boundary."""
    import math
    from fractions import Fraction

    lag = rng.choice(lag_syms)
    lo, hi = boxes.get(lag, (sp.Rational(1, 10**DECADES), sp.Integer(10**DECADES)))
    lo, hi = float(lo), float(hi)
    if not lo > 0:
        return []

    def truth(x):
        q = sp.Rational(Fraction(f"{x:.12g}"))
        return claim_at(cf, {**point, lag: q})

    a, b = math.log(lo), math.log(hi)
    ta, tb = truth(lo), truth(hi)
    if ta is None or tb is None or ta == tb:
        return []
    for _ in range(30):
        m = (a + b) / 2
        tm = truth(math.exp(m))
        if tm is None:
            return []
        if tm == ta:
            a = m
        else:
            b = m
    edge = math.exp((a + b) / 2)
    out = []
    for k in (1, 2, 3):
        for f in (1 - 10.0**-k, 1 + 10.0**-k):
            x = edge * f
            if lo <= x <= hi:
                out.append({**point, lag: sp.Rational(Fraction(f"{x:.6g}"))})
    return out


def _boxes(model, box) -> dict:
    """The user's ranges, checked: ``{symbol: (lo, hi)}`` (exact)."""
    from symdelay.core.exact import exact_number

    out = {}
    names = {p.name: p for p in model.free_parameters}
    for k, v in dict(box or {}).items():
        if k not in names:
            raise SymdelayInputError(
                f"box: '{k}' is not a free parameter of {model.name} (free: "
                f"{', '.join(names) or 'none'})"
            )
        if isinstance(v, str) or len(v) != 2:
            raise SymdelayInputError(f"box: {k} takes two numbers (lo, hi), got {v!r}")
        lo, hi = (exact_number(f"box {k}", x) for x in v)
        dom = model.domains.get(names[k], "real")
        floor = {"positive": 0, "nonnegative": 0, "probability": 0}.get(dom)
        if not lo < hi or (floor is not None and (lo < floor or (dom == "positive" and lo <= 0))):
            raise SymdelayInputError(
                f"box: {k} = {lo}..{hi} must have lo < hi inside its domain ({dom})"
            )
        if dom == "probability" and hi > 1:
            raise SymdelayInputError(f"box: {k} is a probability: hi <= 1, got {hi}")
        out[names[k]] = (lo, hi)
    return out


def verify_at_lags(
    model,
    claim: str,
    *,
    assume=(),
    theta_real: bool = False,
    timeout_ms: int = 10_000,
    points: int | None = None,
    box=None,
    seed: int = DEFAULT_SEED,
    lag_names=(),
):
    """Decide ``claim`` against stability at the given lag values (module docstring).

    Parameters
    ----------
    model : Model
        A delay model with free parameters.
    claim : str
        Relations in the parameters, the lags' among them; ``acos``, ``asin``, ``atan``,
        ``exp``, ``log``, ``sin``, ``cos``, ``tanh``, ``pi`` allowed.
    assume : sequence of str, default ()
        Relations the parameters satisfy besides their domains.
    theta_real : bool, default False
        Recorded (the domains are the model's).
    timeout_ms : int, default 10000
        The decision procedure's budget per check of Hayes' class, in milliseconds.
    points : int or None, default None
        Points decided by the search (default :data:`DEFAULT_POINTS`), 10..100000.
    box : dict or None, default None
        ``{name: (lo, hi)}``: where the search draws a parameter (inside its domain).
    seed : int, default DEFAULT_SEED
        The search's seed (the search is deterministic).
    lag_names : sequence of str, default ()
        The lag parameters the claim names (for the record's remark).

    Returns
    -------
    ClaimResult
        Each direction proven (Hayes' class, exactly), refuted by an exact point re-checked
        by the certified count, or ``no counterexample found`` after the search.
    """
    import random

    from symdelay.analysis.claim_formula import fallback_reason
    from symdelay.analysis.decide import _aliases, _claim_formula

    if points is None:
        points = DEFAULT_POINTS
    if isinstance(points, bool) or not isinstance(points, int) or not 10 <= points <= 100_000:
        raise SymdelayInputError(f"points must be an integer in 10..100000, got {points!r}")
    boxes = _boxes(model, box)
    names = _aliases(model, None)
    cf = _claim_formula(model, claim, "claim", names, transcendental=True)
    assumptions = [_claim_formula(model, a, "assumption", names, True) for a in assume]
    params = list(model.free_parameters)
    outcomes: dict = {}

    # ---- Hayes' class: exactly
    t0 = time.perf_counter()
    cls = hayes_modes(model)
    exact = None
    if cls is not None and cls[0]:
        exact = _hayes_nodes(model, cf.leaves, cf.tree, assumptions, *cls, timeout_ms)
    hayes_note = None
    claim_check = exact.pop("claim") if exact is not None else None
    if exact is not None:
        for d, (answer, detail, smt2, sec) in exact.items():
            if answer == "unsat":
                outcomes[d] = Outcome(
                    status=PROVEN,
                    method="decision procedure",
                    formulas=[smt2],
                    checks=[
                        {
                            "check": d,
                            "answer": answer,
                            "seconds": round(sec, 4),
                            "by": detail if isinstance(detail, str) else "z3 nlsat",
                        }
                    ],
                    seconds=round(sec, 4),
                    note=(
                        "decision procedure over Hayes' exact stable region (z3 nlsat, "
                        "exact): acos(-a/b) and pi as variables tied to the claim's, unsat"
                    ),
                )
        hayes_note = (
            "Hayes' class: every lagged mode is r + a + b exp(-r tau); its exact region "
            f"decided the proven directions ({time.perf_counter() - t0:.2f} s)"
        )

    # ---- the search for the directions left
    oracle = stability_oracle(model)
    rng = random.Random(seed)
    found: dict = {}
    record = {
        "points": 0,
        "random_points": 0,
        "boundary_points": 0,
        "line_points": 0,
        "exact_points": 0,
        "skipped": 0,
        "outside_assumptions": 0,
        "ranges": {},
        "structure": [],
        "claim": str(cf.condition),
        "seed": seed,
        "seconds": 0.0,
    }
    open_dirs = [d for d in DIRECTIONS if d not in outcomes]
    t1 = time.perf_counter()
    draws = 0
    if open_dirs:
        for p in params:
            dom = model.domains.get(p, "real")
            if p in boxes:
                record["ranges"][p.name] = [str(boxes[p][0]), str(boxes[p][1])]
            elif dom == "probability":
                record["ranges"][p.name] = ["0", "1"]
            else:
                lo, hi = f"1e-{DECADES}", f"1e{DECADES}"
                first = {"real": f"-{hi}", "nonnegative": "0"}.get(dom, lo)
                record["ranges"][p.name] = [first, hi]  # (0: one draw in ten, else log)
        budget = points * 20
        lag_syms = [p for p in params if p.name in set(lag_names)]
        queue: list = []  # (point, kind): boundary points waiting to be decided
        while record["points"] < points and draws < budget:
            draws += 1
            if queue:
                point, kind = queue.pop()
            else:
                point = {p: _draw(rng, model.domains.get(p, "real"), boxes.get(p)) for p in params}
                kind = "random_points"
            if any(a.holds_at(point) is not True for a in assumptions):
                record["outside_assumptions"] += 1
                continue
            c = claim_at(cf, point)
            if c is None:
                record["skipped"] += 1
                continue
            if kind == "random_points" and lag_syms and draws % 2:
                queue += [(q, "boundary_points") for q in _across(cf, point, rng, lag_syms, boxes)]
            want = DIRECTIONS[0] if c else DIRECTIONS[1]
            if want not in open_dirs or want in found:
                continue  # this point can refute only a direction already decided
            verdict, text = oracle(point)
            if verdict == "undecided":
                record["skipped"] += 1
                continue
            record["points"] += 1
            record[kind] += 1
            record["exact_points"] += 1
            bad = (verdict != "stable") if c else (verdict == "stable")
            if not bad:
                continue
            # re-check: the claim by SymPy, the stability by a second count at 40 digits
            if cf.holds_at(point) is not c:
                continue
            verdict2, text2 = oracle(point, 40)
            if verdict2 != verdict:
                continue
            found[want] = (point, verdict, text2)
            if all(d in found for d in open_dirs):
                break
    record["seconds"] = round(time.perf_counter() - t1, 3)
    for d in open_dirs:
        if d in found:
            point, verdict, text = found[d]
            outcomes[d] = Outcome(
                status=REFUTED,
                method="search",
                counterexample={p.name: str(point[p]) for p in params},
                verdict=verdict,
                note=(
                    "exact point: the claim in Arb and re-checked by SymPy, the stability by "
                    "the certified count of every mode (argument principle in Arb), "
                    f"re-counted at 40 digits ({text})"
                ),
            )
        else:
            outcomes[d] = Outcome(status=OPEN, method="search")
    lags = ", ".join(lag_names) or "none"
    notes = [MEANING.format(lags=lags)]
    if hayes_note:
        notes.append(hayes_note)
    if claim_check is not None and claim_check[0] == "unsat":
        notes.append(
            "the claim holds at no point of the parameters' domains (z3, exact): "
            "'claim => stable' holds vacuously"
        )
    if any(o.status == OPEN for o in outcomes.values()):
        notes.append(
            f"no counterexample in {record['points']} points searched ({record['skipped']} "
            "skipped: the claim's balls or the certified count undecided there; "
            f"{record['outside_assumptions']} outside the assumptions): not a proof"
        )
    fallback = fallback_reason(cf, *assumptions)
    return assemble(
        model,
        claim,
        cf.condition,
        {"stability": outcomes},
        theta_real=theta_real,
        assume=tuple(assume),
        timeout_ms=timeout_ms,
        search=record if open_dirs else None,
        fallback=(
            fallback.replace(
                ": checked by search",
                ": decided over Hayes' exact region (the model is in that class), the rest "
                "by a labelled search"
                if exact is not None
                else ": checked by a labelled search (the model is not in Hayes' class)"
                if not (cls and cls[0])
                else ": checked by a labelled search (the exact region of Hayes' class takes "
                "claims with acos, asin, atan and pi only)",
            )
            if fallback
            else None
        ),
        notes=tuple(notes),
    )
