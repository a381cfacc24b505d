"""Claims the decision procedure cannot decide, checked by a search labelled as such.

A claim with a transcendental function (``exp``, ``log``, ``sin``, ``cos``, ``tanh``, ``pi``,
``E``, ...) is outside real polynomial arithmetic, so :mod:`symdelay.analysis.decide` refuses
it (:class:`~symdelay.core.errors.TranscendentalClaimError`). :func:`search_claim` looks for
counterexamples instead, on any model whose characteristic factors are polynomials in ``r``
with coefficients rational in the parameters (the same models the decision procedure takes:
:func:`~symdelay.analysis.decide.stability_formula` refuses the others the same way).

**Points.** Rational points of the parameters' domains (``positive``, ``nonnegative``,
``probability``, ``real``) and of the ``assume`` relations (which may be transcendental
too): simple values (``1/1000 .. 1000``), log-uniform values over :data:`DECADES` decades
each side of 1 rounded to two significant digits, both signs for a real parameter, zeros
for a nonnegative one, ``0``, ``1`` and values near them for a probability; then points
near the stability boundary, found by bisecting the segment between a stable and an
unstable point (and between a point where the claim holds and one where it fails), since
a false claim often fails only on a sliver along the boundary.

**Exact at every point.** Stability: every factor's coefficients evaluated in exact
rationals and its roots in ``Re r > 0`` and on the imaginary axis counted exactly
(:func:`~symdelay.analysis.polyroots.exact_counts`); a point where a coefficient is
undefined or the leading one vanishes is skipped. The claim: every relation's ``lhs - rhs``
in interval arithmetic (Arb, python-flint) at 64 bits and more, up to
:data:`MAX_BITS`, until the interval excludes 0 (or the Boolean combination is decided); a
point where it never does is skipped and counted. A relation that is undefined at the
point (a zero denominator, an even root or the logarithm of a negative number) is false,
the convention of :meth:`~symdelay.analysis.claim_formula.ClaimFormula.holds_at`.

**Verdicts.** A counterexample is exact; it is re-checked by a second path (the factors
substituted by SymPy and their right half-plane roots counted by Routh's exact scheme; the
claim by SymPy's own evaluation at 60 digits), and refutes its direction: ``refuted``,
method ``search``. A direction without one is ``no counterexample found`` (method
``search``, with the record of what was searched): never proven, so the relation is given
only when both directions are refuted (``neither``).
"""

from __future__ import annotations

import functools
import time
from fractions import Fraction

import numpy as np

from symdelay.analysis.claim_formula import RELATION_OPS
from symdelay.analysis.claim_result import ClaimResult, stability_result
from symdelay.core.errors import SymdelayInputError, VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.symbols import r

__all__ = [
    "search_claim",
    "claim_truth",
    "DEFAULT_POINTS",
    "DEFAULT_SEED",
    "DECADES",
    "MAX_BITS",
    "OPEN",
    "METHOD",
]

#: random points per claim by default (plus the boundary points)
DEFAULT_POINTS = 1500
DEFAULT_SEED = 20261202
#: decades searched each side of 1 (log-uniform)
DECADES = 4
#: the interval evaluation's precisions (bits); beyond the last a point is skipped
_BITS = (64, 192, 640, 2000)
MAX_BITS = _BITS[-1]
OPEN = "no counterexample found"
METHOD = "search"
REFUTED = "refuted"
_DIRS = ("claim_implies_target", "target_implies_claim")
_SIMPLE = tuple(
    Fraction(x)
    for x in ("1/1000", "1/100", "1/10", "1/4", "1/2", "1", "2", "4", "10", "100", "1000")
)
_KEEP = 6  # candidate counterexamples kept per direction for the re-check


# ------------------------------------------------------------------ interval evaluation
class _Undefined(Exception):
    """The expression is undefined at the point (the relation is false there)."""


class _Undecided(Exception):
    """The interval does not decide (raise the precision)."""


def _compile(expr, names: dict):
    """A function ``vals -> arb`` evaluating the SymPy expression ``expr`` (``vals``:
    symbol name -> arb) in interval arithmetic at the current precision."""
    import flint

    if expr.is_Rational:
        p, q = int(expr.p), int(expr.q)
        return lambda v: flint.arb(flint.fmpq(p, q))
    if expr.is_Symbol:
        name = expr.name
        if name not in names:
            raise SymdelayInputError(f"unknown name '{name}' in the claim")
        return lambda v: v[name]
    if expr is sp.pi:
        return lambda v: flint.arb.pi()
    if expr is sp.E:
        return lambda v: flint.arb(1).exp()
    if isinstance(expr, sp.Float):
        q = sp.Rational(str(expr))
        return _compile(q, names)
    args = [_compile(a, names) for a in expr.args]
    if isinstance(expr, sp.Add):

        def add(v):
            out = args[0](v)
            for a in args[1:]:
                out = out + a(v)
            return out

        return add
    if isinstance(expr, sp.Mul):

        def mul(v):
            out = args[0](v)
            for a in args[1:]:
                out = out * a(v)
            return out

        return mul
    if isinstance(expr, sp.Pow):
        base, ex = args
        e = expr.exp
        if e.is_Integer:
            k = int(e)

            def ipow(v):
                b = base(v)
                if k >= 0:
                    return b**k
                return _divide(flint.arb(1), b**-k)

            return ipow
        if e.is_Rational:
            p, q = int(e.p), int(e.q)

            def rpow(v):
                b = base(v)
                if b.is_exact() and b == 0:
                    if p < 0:
                        raise _Undefined
                    return flint.arb(0)
                if b > 0:
                    y = b.root(q)
                elif b < 0:
                    if q % 2 == 0:
                        raise _Undefined
                    y = -((-b).root(q))
                else:
                    raise _Undecided
                return y**p if p >= 0 else _divide(flint.arb(1), y**-p)

            return rpow

        def gpow(v):  # b**x with a symbolic exponent: b > 0
            b = base(v)
            if b > 0:
                return (ex(v) * b.log()).exp()
            if b <= 0:
                raise _Undefined
            raise _Undecided

        return gpow
    unary = {
        sp.exp: lambda x: x.exp(),
        sp.sin: lambda x: x.sin(),
        sp.cos: lambda x: x.cos(),
        sp.sinh: lambda x: x.sinh(),
        sp.cosh: lambda x: x.cosh(),
        sp.tanh: lambda x: x.tanh(),
        sp.Abs: lambda x: abs(x),
    }
    for kind, f in unary.items():
        if isinstance(expr, kind):
            (a,) = args
            return lambda v, a=a, f=f: f(a(v))
    if isinstance(expr, sp.log) and len(args) == 1:
        (a,) = args

        def log(v):
            x = a(v)
            if x > 0:
                return x.log()
            if x <= 0:
                raise _Undefined
            raise _Undecided

        return log
    if isinstance(expr, sp.tan):
        (a,) = args

        def tan(v):
            x = a(v)
            return _divide(x.sin(), x.cos())

        return tan
    raise SymdelayInputError(
        f"the search cannot evaluate {type(expr).__name__} ({expr}) in the claim: use "
        "arithmetic, powers, sqrt, Abs, exp, log, sin, cos, tan, sinh, cosh, tanh, pi, E"
    )


def _compile_exact(expr):
    """A function ``vals -> Fraction`` for a rational function of the parameters (decided
    exactly, e.g. ``mu < gamma`` at ``mu = gamma``); None for anything else."""
    if expr.is_Rational:
        q = Fraction(int(expr.p), int(expr.q))
        return lambda v: q
    if expr.is_Symbol:
        name = expr.name
        return lambda v: v[name]
    if isinstance(expr, sp.Pow) and expr.exp.is_Integer:
        base, k = _compile_exact(expr.base), int(expr.exp)
        if base is None:
            return None

        def ipow(v):
            b = base(v)
            if k < 0 and b == 0:
                raise _Undefined
            return b**k

        return ipow
    if isinstance(expr, (sp.Add, sp.Mul)):
        args = [_compile_exact(a) for a in expr.args]
        if any(a is None for a in args):
            return None
        add = isinstance(expr, sp.Add)

        def combine(v):
            out = args[0](v)
            for a in args[1:]:
                out = out + a(v) if add else out * a(v)
            return out

        return combine
    return None


def _exact_sign_test(d: Fraction, op: str) -> bool:
    return {"<": d < 0, "<=": d <= 0, ">": d > 0, ">=": d >= 0, "==": d == 0, "!=": d != 0}[op]


def _divide(a, b):
    if b.is_exact() and b == 0:
        raise _Undefined
    if 0 in b:
        raise _Undecided
    return a / b


_OPS = RELATION_OPS


def _sign_test(d, op):
    """True / False / None (undecided) for ``d op 0``, ``d`` an arb."""
    if op in (">", ">="):
        d, op = -d, {">": "<", ">=": "<="}[op]
    if op == "<":
        return True if d < 0 else (False if d >= 0 else None)
    if op == "<=":
        return True if d <= 0 else (False if d > 0 else None)
    exact_zero = d.is_exact() and d == 0
    if exact_zero:
        return op == "=="
    if 0 not in d:
        return op == "!="
    return None


class _Evaluator:
    """The claim (a parsed :class:`~symdelay.analysis.claim_formula.ClaimFormula`) at exact
    points, three-valued per precision, raised until decided."""

    def __init__(self, cf, names):
        self.cf = cf
        self.leaves = []
        for leaf in cf.leaves:
            if leaf in (sp.true, sp.false):
                self.leaves.append(bool(leaf))
            else:
                diff = leaf.lhs - leaf.rhs
                exact = _compile_exact(diff)
                f = _compile(diff, names) if exact is None else None
                self.leaves.append((f, _OPS[type(leaf)], exact))

    def _leaf(self, i, vals, point):
        leaf = self.leaves[i]
        if isinstance(leaf, bool):
            return leaf
        f, op, exact = leaf
        if exact is not None:
            try:
                return _exact_sign_test(exact(point), op)
            except _Undefined:
                return False
        try:
            d = f(vals)
        except _Undefined:
            return False
        except _Undecided:
            return None
        if not d.is_finite():
            return None
        return _sign_test(d, op)

    def _tree(self, t, vals, point):
        if t[0] == "leaf":
            return self._leaf(t[1], vals, point)
        if t[0] == "not":
            x = self._tree(t[1], vals, point)
            return None if x is None else not x
        xs = [self._tree(c, vals, point) for c in t[1]]
        if t[0] == "and":
            return False if False in xs else (True if all(x is True for x in xs) else None)
        return True if True in xs else (False if all(x is False for x in xs) else None)

    def at(self, point: dict):
        """The claim's truth at ``point`` (name -> Fraction): True, False, or None when no
        precision up to :data:`MAX_BITS` decides it."""
        import flint

        old = flint.ctx.prec
        try:
            for bits in _BITS:
                flint.ctx.prec = bits
                vals = {
                    k: flint.arb(flint.fmpq(v.numerator, v.denominator)) for k, v in point.items()
                }
                out = self._tree(self.cf.tree, vals, point)
                if out is not None:
                    return out
            return None
        finally:
            flint.ctx.prec = old


class _Condition:
    """A SymPy Boolean combination of relations as the leaves and tree an
    :class:`_Evaluator` reads (what :func:`~symdelay.analysis.claim_formula.parse_claim`
    gives for a text)."""

    def __init__(self, condition):
        self.leaves = []
        self.tree = self._walk(condition)

    def _walk(self, c):
        if isinstance(c, sp.And):
            return ("and", [self._walk(a) for a in c.args])
        if isinstance(c, sp.Or):
            return ("or", [self._walk(a) for a in c.args])
        if isinstance(c, sp.Not):
            return ("not", self._walk(c.args[0]))
        self.leaves.append(c)
        return ("leaf", len(self.leaves) - 1)


def claim_truth(condition, point: dict):
    """The truth of ``condition`` (a SymPy Boolean combination of relations) at an exact
    point (symbol name -> rational), in interval arithmetic: True, False, or None when no
    precision up to :data:`MAX_BITS` decides it. A relation undefined at the point is false.
    The founding engine confirms its counterexamples to transcendental claims with it."""
    return _condition_evaluator(condition).at(
        {k: Fraction(int(sp.Rational(v).p), int(sp.Rational(v).q)) for k, v in point.items()}
    )


@functools.lru_cache(maxsize=64)
def _condition_evaluator(condition) -> _Evaluator:
    return _Evaluator(_Condition(condition), {s.name: s for s in condition.free_symbols})


def _recheck_claim(cf, point: dict):
    """Second path for the claim at a counterexample: SymPy's evaluation at 60 digits of
    every relation (True / False; None when a value is within 1e-45 of 0)."""
    subs = {sp.Symbol(k): sp.Rational(v.numerator, v.denominator) for k, v in point.items()}

    def leaf(x):
        if x in (sp.true, sp.false):
            return bool(x)
        d = (x.lhs - x.rhs).xreplace(subs)
        if d.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
            return False
        v = sp.N(d, 60)
        if not v.is_number or v.has(sp.zoo, sp.nan) or sp.im(v) != 0:
            return False  # undefined there (a zero denominator, a root of a negative)
        v = sp.re(v)
        if abs(v) < sp.Float("1e-45", 60):
            return None
        op = _OPS[type(x)]
        return {
            "<": v < 0,
            "<=": v <= 0,
            ">": v > 0,
            ">=": v >= 0,
            "==": False,
            "!=": True,
        }[op] is sp.true

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


# ------------------------------------------------------------------ exact stability
def _poly_terms(expr, params):
    num, den = sp.fraction(sp.together(expr))
    out = []
    for part in (num, den):
        P = sp.Poly(sp.expand(part), *params, domain="QQ") if params else None
        if P is None:
            q = sp.Rational(part)
            out.append([((), Fraction(int(q.p), int(q.q)))])
            continue
        out.append([(m, Fraction(int(c.p), int(c.q))) for m, c in P.terms()])
    return out


def _eval_terms(terms, values):
    total = Fraction(0)
    for mon, c in terms:
        t = c
        for x, e in zip(values, mon):
            if e:
                t *= x**e
        total += t
    return total


class _Stability:
    """Stability at exact points: every factor's coefficients in exact rationals, its roots
    in the closed right half-plane counted exactly."""

    def __init__(self, sf):
        self.params = list(sf.parameters)
        self.factors = []
        for f, _ in sf.per_factor:
            poly = sp.Poly(f.factor, r)
            self.factors.append([_poly_terms(c, self.params) for c in poly.all_coeffs()])

    def at(self, point: dict):
        """True (every root in Re r < 0), False, or None (a coefficient undefined, or the
        leading one zero: a degenerate point, skipped)."""
        from symdelay.analysis.polyroots import exact_counts

        values = [point[p.name] for p in self.params]
        for coeffs in self.factors:
            cs = []
            for num, den in coeffs:
                dv = _eval_terms(den, values)
                if dv == 0:
                    return None
                cs.append(_eval_terms(num, values) / dv)
            if cs[0] == 0:
                return None
            if len(cs) == 1:
                continue
            counts = exact_counts(cs)
            if counts.rhp or counts.axis:
                return False
        return True


def _recheck_stable(sf, point: dict) -> bool:
    """Second path: the factors substituted by SymPy, Routh's exact scheme."""
    from symdelay.analysis.routh import routh_hurwitz

    subs = {
        p: sp.Rational(point[p.name].numerator, point[p.name].denominator) for p in sf.parameters
    }
    for f, _ in sf.per_factor:
        expr = sp.expand(f.factor.xreplace(subs))
        if sp.degree(expr, r) < 1:
            continue
        res = routh_hurwitz(expr, r)
        if res.rhp_count or res.imaginary_axis_count:
            return False
    return True


# ------------------------------------------------------------------ sampling
def _two_digits(v: float) -> Fraction:
    return Fraction(f"{v:.1e}")


def _domain_of(model, p, lower: dict) -> str:
    dom = model.domains.get(p, "real")
    if dom == "real" and p.name in lower:
        return lower[p.name]
    return dom


def _draw(dom: str, rng) -> Fraction:
    u = rng.random()
    if dom == "probability":
        if u < 0.1:
            return Fraction(int(rng.random() < 0.5))
        if u < 0.3:
            t = _two_digits(10.0 ** rng.uniform(-DECADES, -1))
            return t if rng.random() < 0.5 else 1 - t
        return Fraction(int(rng.integers(0, 1001)), 1000)
    if dom in ("nonnegative",) and u < 0.08:
        return Fraction(0)
    if dom == "real" and u < 0.04:
        return Fraction(0)
    if rng.random() < 0.3:
        v = _SIMPLE[int(rng.integers(0, len(_SIMPLE)))]
    else:
        v = _two_digits(10.0 ** rng.uniform(-DECADES, DECADES))
    if dom == "real" and rng.random() < 0.5:
        v = -v
    return v


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


def _size(point: dict) -> int:
    return sum(len(str(v)) for v in point.values())


# ------------------------------------------------------------------ the search
class _Search:
    def __init__(self, model, sf, claim_ev, assume_evs, names):
        self.model, self.sf = model, sf
        self.claim, self.assume = claim_ev, assume_evs
        self.stab = _Stability(sf)
        self.names = names
        self.evaluated = 0
        self.skipped = 0
        self.rejected = 0  # outside the assumptions
        self.found = {d: [] for d in _DIRS}
        self.lo = {}
        self.hi = {}

    def done(self) -> bool:
        return all(self.found[d] for d in _DIRS)

    def visit(self, point: dict):
        """Evaluate one point: ``(stable, claim)`` or None (outside the assumptions,
        skipped)."""
        self.evaluated += 1
        for a in self.assume:
            t = a.at(point)
            if t is None:
                self.skipped += 1
                return None
            if not t:
                self.rejected += 1
                return None
        stable = self.stab.at(point)
        holds = self.claim.at(point)
        if stable is None or holds is None:
            self.skipped += 1
            return None
        for k, v in point.items():
            if k not in self.lo or v < self.lo[k]:
                self.lo[k] = v
            if k not in self.hi or v > self.hi[k]:
                self.hi[k] = v
        if holds and not stable:
            self._keep("claim_implies_target", point)
        elif stable and not holds:
            self._keep("target_implies_claim", point)
        return stable, holds

    def _keep(self, d, point):
        lst = self.found[d]
        lst.append(dict(point))
        lst.sort(key=_size)
        del lst[_KEEP:]


def _bisect_segment(search: _Search, a: dict, b: dict, key: int, steps: int) -> int:
    """Bisect the segment from ``a`` (stable, ``key`` 0; or the claim holds, ``key`` 1) to
    ``b`` (unstable; or the claim fails) on that change, visiting every midpoint (each
    rational). Returns the number of points visited."""
    lo, hi = Fraction(0), Fraction(1)
    n = 0
    for _ in range(steps):
        if search.done():
            break
        t = (lo + hi) / 2
        res = search.visit({k: a[k] + t * (b[k] - a[k]) for k in a})
        n += 1
        if res is None:
            break
        if res[key]:
            lo = t
        else:
            hi = t
    return n


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
) -> ClaimResult:
    """Search for counterexamples to ``claim => stable`` and ``stable => claim`` of
    ``model`` over its parameters' domains and ``assume`` (texts; transcendental functions
    allowed in both): a :class:`~symdelay.analysis.claim_result.ClaimResult` with every
    method ``search``. A direction is ``refuted`` (an exact counterexample, re-checked) or
    ``no counterexample found``; the relation is given only when both are refuted.
    ``points``: random points (plus about a third as many near the boundaries); ``seed``:
    the generator's seed (the search is deterministic). ``reason``: why the decision
    procedure was not used (recorded in ``fallback``)."""
    from symdelay.analysis.claim_formula import parse_claim, transcendental_in
    from symdelay.analysis.decide import _aliases, stability_formula

    if isinstance(assume, str):
        assume = (assume,)
    assume = tuple(assume)
    if isinstance(points, bool) or not isinstance(points, int) or not 10 <= points <= 10**6:
        raise SymdelayInputError(f"points must be an integer in 10..1000000, got {points!r}")
    t0 = time.perf_counter()
    sf = stability_formula(model)
    names = _aliases(model, aliases)
    fixed = {p.name: v for p, v in model.values.items()}
    params = tuple(model.free_parameters)

    def parse(text, what):
        return parse_claim(text, params, {**names, **fixed}, what=what, transcendental=True)

    cf = parse(claim, "claim")
    assumptions = [parse(a, "assumption") for a in assume]
    pnames = {p.name: p for p in params}
    claim_ev = _Evaluator(cf, pnames)
    assume_evs = [_Evaluator(a, pnames) for a in assumptions]
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
    search = _Search(model, sf, claim_ev, assume_evs, pnames)
    rng = np.random.default_rng(seed)
    lower = _lower_bounds(assumptions)
    doms = {p.name: _domain_of(model, p, lower) for p in params}
    # 1. random points
    stable_pts, unstable_pts, true_pts, false_pts = [], [], [], []
    for _ in range(points):
        if search.done():
            break
        pt = {k: _draw(d, rng) for k, d in doms.items()}
        res = search.visit(pt)
        if res is None:
            continue
        (stable_pts if res[0] else unstable_pts).append(pt)
        (true_pts if res[1] else false_pts).append(pt)
    n_random = search.evaluated
    # 2. near the boundaries: bisect segments between points on the two sides
    pairs = max(4, points // 60)
    steps = 12
    boundary = 0
    for key, one, other in ((0, stable_pts, unstable_pts), (1, true_pts, false_pts)):
        if not one or not other:
            continue
        for i in range(pairs if key == 0 else pairs // 2):
            if search.done():
                break
            a = one[int(rng.integers(0, len(one)))]
            b = other[int(rng.integers(0, len(other)))]
            if i % 2 and len(a) > 1:  # along one parameter only: a with one of b's values
                j = list(a)[int(rng.integers(0, len(a)))]
                h = {**a, j: b[j]}
                res = search.visit(h)
                boundary += 1
                if res is None or res[key]:
                    continue
                b = h
            boundary += _bisect_segment(search, a, b, key, steps)
    # 3. the counterexamples, re-checked
    status, ces = {}, {}
    for d in _DIRS:
        point = None
        for cand in search.found[d]:
            ok = _recheck(sf, cf, d, cand)
            if ok:
                point = cand
                break
        status[d] = REFUTED if point is not None else OPEN
        ces[d] = None if point is None else {k: str(v) for k, v in point.items()}
    ranges = {k: [_short(search.lo[k]), _short(search.hi[k])] for k in pnames if k in search.lo}
    record = {
        "points": int(search.evaluated),
        "random_points": int(n_random),
        "boundary_points": int(boundary),
        "skipped": int(search.skipped),
        "outside_assumptions": int(search.rejected),
        "ranges": ranges,
        "structure": [
            "simple values 1/1000 .. 1000",
            f"log-uniform over 1e-{DECADES} .. 1e{DECADES}, two significant digits",
            "both signs for real parameters, zeros for nonnegative ones, 0, 1 and near them "
            "for probabilities",
            "bisection between stable and unstable points and between points where the claim "
            "holds and where it fails (half along one parameter)",
        ],
        "stability": "exact: rational coefficients, exact root counts (Cauchy index)",
        "claim": f"interval arithmetic (Arb) at 64..{MAX_BITS} bits until 0 is excluded",
        "seed": int(seed),
        "seconds": round(time.perf_counter() - t0, 3),
    }
    return stability_result(
        model,
        claim,
        cf,
        theta_real=theta_real,
        statuses=status,
        counterexamples=ces,
        explanation=lambda rel, decided: _explain(claim, rel, decided, status, ces, record, reason),
        assume=assume,
        method=METHOD,
        open_status=OPEN,
        search=record,
        fallback=reason,
    )


def _recheck(sf, cf, direction, point) -> bool:
    """The independent re-check of a counterexample: True when it confirms, False when it
    cannot decide the claim (the point is dropped); a contradiction is a bug."""
    stable = _recheck_stable(sf, point)
    holds = _recheck_claim(cf, point)
    if holds is None:
        return False
    want = (True, False) if direction == "claim_implies_target" else (False, True)
    if (holds, stable) != want:
        raise VerificationError(
            f"the search's counterexample {point} to {direction} fails the independent "
            f"re-check (claim {holds}, stable {stable}): a bug"
        )
    return True


def _short(v: Fraction) -> str:
    if v == 0:
        return "0"
    return f"{float(v):.3g}"


def _explain(claim, rel, decided, status, ces, record, reason) -> str:
    head = f"{claim}: {rel}" if decided else f"{claim}: not decided ({rel})"
    parts = []
    for d, words in zip(_DIRS, ("claim => stable", "stable => claim"), strict=True):
        if status[d] == REFUTED:
            parts.append(
                f"{words}: refuted at {ces[d]} (exact point: exact root counts of the factors, "
                "the claim in interval arithmetic; re-checked by Routh's scheme and SymPy at "
                "60 digits)"
            )
        else:
            parts.append(f"{words}: {OPEN} (search: not proven)")
    ranges = ", ".join(f"{k} in [{a}, {b}]" for k, (a, b) in record["ranges"].items())
    searched = (
        f"searched {record['points']} rational points ({record['boundary_points']} near the "
        f"boundaries; {ranges}); {record['skipped']} skipped (the claim's sign not decided "
        f"at {MAX_BITS} bits, or a degenerate point)"
    )
    return f"{head}. {reason}. " + "; ".join(parts) + f". {searched}."
