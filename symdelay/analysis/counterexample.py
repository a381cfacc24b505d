"""The one counterexample search: exact rational points where a property holds.

Every path of :func:`symdelay.analysis.claims.verify` that looks for a point uses this
module: the decision procedure (:mod:`symdelay.analysis.decide`) for a rational witness of a
formula before it asks nlsat (:func:`witness`), and the search of a claim against its
targets (:func:`search`): claims the procedure cannot decide
(:mod:`symdelay.analysis.claim_search`) and the founding model's engine
(:mod:`symdelay.models.erlang.claims`), which brings its own exact tests at a point.

**Points.** :func:`sample` draws rational points by each variable's domain (``positive``,
``nonnegative``, ``probability``, ``real``): simple values (``1, 2, 1/2, 10, 1/3, ...``),
two significant digits log-uniform over ``decades`` each side of 1, both signs for a real
variable, zeros for a nonnegative one, ``0, 1`` and values near them for a probability.

**A claim against its targets** (:func:`search`). A point's *signature* is the claim's
truth and each target's (``stability``: the equilibrium is asymptotically stable, so a
marginal point is not; the founding model's ``oscillation``), each decided exactly (True,
False, or None when the exact test cannot tell: the point is skipped). A *goal* is a
target and a direction: ``claim_implies_target`` is met where the claim holds and the
target fails, ``target_implies_claim`` where the target holds and the claim fails. The
caller's hints are decided exactly first (when they meet every goal nothing is searched);
then four phases, each stopping when every goal is met:

1. random points: screened in floating point when the caller gives target margins (the
   claim's own margin is computed here), the clearest and simplest candidates rounded to
   1..9 significant digits and decided exactly; otherwise every point decided exactly;
2. bisection between decided points on the two sides of the target's or the claim's
   boundary (half of the segments along one parameter only);
3. exact lines: through the caller's hints (points where a family knows a counterexample
   lies near: the founding model's exact class gives its ratio), the point with every
   variable 1 and the best near-misses, along each variable: a grid over the decades,
   decided exactly, and every grid step where both the claim and the target change
   bisected exactly until a midpoint meets the goal (a sliver between two boundaries a
   float cannot see: ``lam*theta < 2.8854382*mu`` at L = 4 fails only for
   ``80 sqrt(5) - 176 < lam*theta/mu < 2.8854382``); the point is then replaced by the
   simplest rational between the two nearest points that do not meet the goal;
4. the caller re-checks every point it keeps by a second path.

A goal met gives an exact point; a goal not met says what was searched (the ``record``),
never that the direction holds.
"""

from __future__ import annotations

import functools
import operator
import time
from dataclasses import dataclass, field
from fractions import Fraction

from symdelay.analysis.claim_result import DIRECTIONS
from symdelay.core.errors import SymdelayInputError, VerificationError
from symdelay.core.lazy import module as _lazy_module
from symdelay.core.lazy import sympy as sp

np = _lazy_module("numpy")  # the search loads it; a proof needs no numpy

__all__ = [
    "Points",
    "Goal",
    "GOALS",
    "first_confirmed",
    "MARGINAL",
    "sample",
    "simplest_between",
    "witness",
    "search",
    "ClaimEvaluator",
    "claim_truth",
    "exact_function",
    "DEFAULT_SEED",
    "MAX_BITS",
]

DEFAULT_SEED = 20261202
#: a target test's value at a point on the stability boundary (not stable, not unstable)
MARGINAL = "marginal"
_NICE = tuple(
    Fraction(x)
    for x in (
        *("1", "2", "1/2", "10", "1/10", "4", "1/4", "100", "1/100", "3", "1/3"),
        *("1000", "1/1000", "20", "1/20"),
    )
)
_PROBABILITIES = tuple(Fraction(x) for x in ("0", "1", "1/2", "1/4", "3/4", "1/10", "9/10"))
#: the interval evaluation's precisions (bits); beyond the last a point is undecided
_BITS = (64, 192, 640, 2000)
MAX_BITS = _BITS[-1]
#: exact evaluations allowed to the line phase per goal left open
_LINE_BUDGET = 300
#: bisection steps on one grid step (2^-90 of its width)
_LINE_STEPS = 90


# ------------------------------------------------------------------ points
class Points:
    """Sampled points: float columns (``cols``) and their exact values (``exact(i)``)."""

    def __init__(self, num: dict, den: dict, n: int):
        self.num, self.den, self.n = num, den, n
        self.cols = {k: num[k] / den[k] for k in num}

    def exact(self, i: int) -> dict:
        return {k: Fraction(int(self.num[k][i]), int(self.den[k][i])) for k in self.num}

    def size(self, i: int) -> int:
        return sum(len(str(self.num[k][i])) + len(str(self.den[k][i])) for k in self.num)


def _fractions(values, idx):
    num = np.array([v.numerator for v in values], dtype=np.int64)[idx]
    den = np.array([v.denominator for v in values], dtype=np.int64)[idx]
    return num, den


def sample(domains: dict, n: int, rng, decades: int = 3) -> Points:
    """``n`` rational points, each variable (name -> domain) drawn by its domain (see the
    module documentation). Deterministic for a given generator state."""
    num, den = {}, {}
    for name, dom in domains.items():
        if dom == "probability":
            a, b = _fractions(_PROBABILITIES, rng.integers(0, len(_PROBABILITIES), n))
            thousandths = rng.integers(0, 1001, n)
            m, e = rng.integers(10, 100, n), rng.integers(-decades - 1, -1, n)
            small_n, small_d = m, 10 ** (-e).astype(np.int64)
            near_one = rng.random(n) < 0.5
            small_n = np.where(near_one, small_d - small_n, small_n)
            u = rng.random(n)
            a = np.where(u < 0.4, a, np.where(u < 0.7, thousandths, small_n))
            b = np.where(u < 0.4, b, np.where(u < 0.7, 1000, small_d))
        else:
            a, b = _fractions(_NICE, rng.integers(0, len(_NICE), n))
            m = rng.integers(10, 100, n)
            e = np.floor(rng.uniform(-decades, decades, n)).astype(np.int64) - 1
            dn = np.where(e >= 0, m * 10 ** np.maximum(e, 0), m)
            dd = np.where(e >= 0, 1, 10 ** np.maximum(-e, 0))
            nice = rng.random(n) < 0.4
            a, b = np.where(nice, a, dn), np.where(nice, b, dd)
            if dom == "nonnegative":
                a = np.where(rng.random(n) < 0.1, 0, a)
            elif dom != "positive":  # real
                a = np.where(rng.random(n) < 0.5, -a, a)
                a = np.where(rng.random(n) < 0.05, 0, a)
        g = np.gcd(a, b)
        g = np.where(g == 0, 1, g)
        num[name], den[name] = a // g, b // g
    return Points(num, den, n)


def _size(point: dict) -> int:
    return sum(len(str(v)) for v in point.values())


def simplest_between(a: Fraction, b: Fraction) -> Fraction:
    """The rational with the smallest denominator (then numerator) strictly between
    ``a < b``.

    >>> simplest_between(Fraction(28854381999832, 10**13), Fraction(28854382, 10**7))
    Fraction(1376279, 476974)
    """
    if not a < b:
        raise VerificationError(f"simplest_between needs a < b, got {a}, {b}")
    if a < 0 < b:
        return Fraction(0)
    if b <= 0:
        return -simplest_between(-b, -a)
    fl = a.numerator // a.denominator
    if fl + 1 < b:
        return Fraction(fl + 1)
    if a == fl:  # (fl, b), b <= fl + 1: fl + 1/t with t > 1/(b - fl)
        t = 1 / (b - fl)
        return fl + Fraction(1, t.numerator // t.denominator + 1)
    return fl + 1 / simplest_between(1 / (b - fl), 1 / (a - fl))


def _round(v: float, digits: int) -> Fraction:
    return Fraction(f"{v:.{digits - 1}e}") if v != 0 else Fraction(0)


# ------------------------------------------------------------------ witnesses of formulas
def witness(domains: dict, screen, holds, *, n: int = 2000, seed: int = DEFAULT_SEED, keep=8):
    """A rational point (name -> Fraction) where ``holds(point)`` is True, or None: ``n``
    points of :func:`sample` (three decades), ``screen(cols)`` (a boolean array: may
    hold, in floating point with a margin) picks the candidates, the simplest ``keep``
    are decided exactly by ``holds``. The decision procedure's shortcut for satisfiable
    formulas."""
    pts = sample(domains, n, np.random.default_rng(seed))
    with np.errstate(all="ignore"):
        ok = np.asarray(screen(pts.cols), dtype=bool)
    for i in sorted(np.flatnonzero(ok), key=pts.size)[:keep]:
        point = pts.exact(i)
        if holds(point):
            return point
    return None


# ------------------------------------------------------------------ claims at a point
class _Undefined(Exception):
    """The expression is undefined at the point (the relation is false there)."""


class _Undecided(Exception):
    """The interval does not decide (raise the precision)."""


def _divide(a, b):
    if b == 0:
        raise _Undefined
    if not isinstance(b, Fraction) and 0 in b:
        raise _Undecided
    return a / b


def _rpow(b, p, q):
    """The real ``b**(p/q)`` of an arb (an odd root of a negative number is negative)."""
    if b == 0:
        if p < 0:
            raise _Undefined
        return b
    if not (b > 0 or b < 0):
        raise _Undecided
    if b < 0 and q % 2 == 0:
        raise _Undefined
    y = b.root(q) if b > 0 else -((-b).root(q))
    return y**p if p >= 0 else _divide(1, y**-p)


def _log(x):
    if x > 0:
        return x.log()
    if x <= 0:
        raise _Undefined
    raise _Undecided


_UNARY = {
    "exp": lambda x: x.exp(),
    "sin": lambda x: x.sin(),
    "cos": lambda x: x.cos(),
    "sinh": lambda x: x.sinh(),
    "cosh": lambda x: x.cosh(),
    "tanh": lambda x: x.tanh(),
    "Abs": abs,
    "tan": lambda x: _divide(x.sin(), x.cos()),
    "log": _log,
}


def _compile(expr, names, exact: bool = False):
    """``vals -> value``: ``expr`` at a point (``vals``: name -> Fraction, or name -> arb),
    in exact rationals (``exact``: None unless ``expr`` is a rational function) or in
    interval arithmetic (Arb) at the current precision; ``names`` the names it may use
    (None: any)."""
    import flint

    if expr.is_Rational or isinstance(expr, sp.Float):
        c = (
            Fraction(str(expr))
            if isinstance(expr, sp.Float)
            else Fraction(int(expr.p), int(expr.q))
        )
        return (
            (lambda v: c)
            if exact
            else (lambda v: flint.arb(flint.fmpq(c.numerator, c.denominator)))
        )
    if expr.is_Symbol:
        name = expr.name
        if names is not None and name not in names:
            raise SymdelayInputError(f"unknown name '{name}' in the claim")
        return lambda v: v[name]
    integer_power = isinstance(expr, sp.Pow) and expr.exp.is_Integer
    if exact and not (integer_power or isinstance(expr, (sp.Add, sp.Mul))):
        return None
    if expr in (sp.pi, sp.E):
        return lambda v: flint.arb.pi() if expr is sp.pi else flint.arb(1).exp()
    args = [_compile(a, names, exact) for a in expr.args]
    if None in args:
        return None
    if isinstance(expr, sp.Add):
        return lambda v: functools.reduce(operator.add, [a(v) for a in args])
    if isinstance(expr, sp.Mul):
        return lambda v: functools.reduce(operator.mul, [a(v) for a in args])
    if integer_power:
        base, k = args[0], int(expr.exp)
        return lambda v: base(v) ** k if k >= 0 else _divide(1, base(v) ** -k)
    if isinstance(expr, sp.Pow) and expr.exp.is_Rational:
        base, p, q = args[0], int(expr.exp.p), int(expr.exp.q)
        return lambda v: _rpow(base(v), p, q)
    if isinstance(expr, sp.Pow):  # b**x with a symbolic exponent: b > 0
        base, ex = args
        return lambda v: (ex(v) * _log(base(v))).exp()
    f = _UNARY.get(type(expr).__name__)
    if f is not None and len(args) == 1:
        (a,) = args
        return lambda v: f(a(v))
    raise SymdelayInputError(
        f"the search cannot evaluate {type(expr).__name__} ({expr}) in the claim: use "
        "arithmetic, powers, sqrt, Abs, exp, log, sin, cos, tan, sinh, cosh, tanh, pi, E"
    )


def exact_function(expr, names=None):
    """``vals -> Fraction`` (``vals``: name -> Fraction) for a rational function of the
    parameters, exact (a zero denominator raises); None for anything else."""
    return _compile(expr, names, exact=True)


_EXACT_TEST = {
    "<": lambda d: d < 0,
    "<=": lambda d: d <= 0,
    ">": lambda d: d > 0,
    ">=": lambda d: d >= 0,
    "==": lambda d: d == 0,
    "!=": lambda d: d != 0,
}


def _interval_test(d, op):
    """True / False / None (undecided) for ``d op 0``, ``d`` an arb."""
    if op in (">", ">="):
        d, op = -d, {">": "<", ">=": "<="}[op]
    if op == "<":
        return True if d < 0 else (False if d >= 0 else None)
    if op == "<=":
        return True if d <= 0 else (False if d > 0 else None)
    if d.is_exact() and d == 0:
        return op == "=="
    if 0 not in d:
        return op == "!="
    return None


class ClaimEvaluator:
    """A parsed claim (``leaves`` and ``tree`` of a
    :class:`~symdelay.analysis.claim_formula.ClaimFormula`) at exact points: rational
    relations in exact arithmetic, the others in interval arithmetic (Arb) at 64 bits and
    more until decided; a relation undefined at the point (a zero denominator, an even
    root or the logarithm of a negative number) is false. ``margins(cols)``: the same in
    floating point, > 0 where it holds (the search's screen)."""

    def __init__(self, cf, names):
        from symdelay.analysis.claim_formula import RELATION_OPS

        self.tree, self.names = cf.tree, set(names)
        self.leaves = []
        for leaf in cf.leaves:
            if leaf in (sp.true, sp.false):
                self.leaves.append(bool(leaf))
                continue
            diff = leaf.lhs - leaf.rhs
            exact = _compile(diff, self.names, exact=True)
            f = _compile(diff, self.names) if exact is None else None
            self.leaves.append((f, RELATION_OPS[type(leaf)], exact, leaf))
        self._float = {}

    def _leaf(self, i, vals, point):
        leaf = self.leaves[i]
        if isinstance(leaf, bool):
            return leaf
        f, op, exact, _ = leaf
        try:
            if exact is not None:
                return _EXACT_TEST[op](exact(point))
            d = f(vals)
        except _Undefined:
            return False
        except _Undecided:
            return None
        return _interval_test(d, op) if d.is_finite() else None

    def at(self, point: dict):
        """True, False, or None when no precision up to :data:`MAX_BITS` decides."""
        import flint

        from symdelay.analysis.claim_formula import THREE_VALUED, fold

        if all(isinstance(x, bool) or x[2] is not None for x in self.leaves):
            return fold(self.tree, lambda t: self._leaf(t[1], None, point), *THREE_VALUED)
        old = flint.ctx.prec
        try:
            for bits in _BITS:
                flint.ctx.prec = bits
                vals = {
                    k: flint.arb(flint.fmpq(v.numerator, v.denominator)) for k, v in point.items()
                }
                out = fold(self.tree, lambda t, v=vals: self._leaf(t[1], v, point), *THREE_VALUED)
                if out is not None:
                    return out
            return None
        finally:
            flint.ctx.prec = old

    def margins(self, cols: dict):
        """The claim in floating point at every column point: > 0 where it holds, < 0
        where it fails (relative), nan where not finite."""
        from symdelay.analysis.claim_formula import fold

        n = len(next(iter(cols.values())))
        with np.errstate(all="ignore"):
            out = fold(
                self.tree,
                lambda t: self._margin(t[1], cols, n),
                lambda xs: np.minimum.reduce(xs),
                lambda xs: np.maximum.reduce(xs),
                lambda x: -x,
            )
            out = np.asarray(out, dtype=float)
        return np.where(np.isfinite(out), out, np.nan)

    def _margin(self, i, cols, n):
        leaf = self.leaves[i]
        if isinstance(leaf, bool):
            return np.full(n, 1.0 if leaf else -1.0)
        op, rel = leaf[1], leaf[3]
        if i not in self._float:
            names = sorted(self.names)
            own = {s.name: s for s in rel.free_symbols}
            args = [own.get(x, sp.Symbol(x)) for x in names]
            # numpy as a module, not "numpy": SymPy would run "from numpy import *", which
            # imports numpy.testing, f2py and polynomial (about 0.06 s per process)
            self._float[i] = names, [sp.lambdify(args, e, np) for e in (rel.lhs, rel.rhs)]
        names, fs = self._float[i]
        a, b = (np.broadcast_to(np.asarray(f(*[cols[x] for x in names]), float), (n,)) for f in fs)
        d = (a - b) / (np.abs(a) + np.abs(b) + 1e-300)
        return {"<": -d, "<=": -d, "==": -np.abs(d), "!=": np.abs(d)}.get(op, d)


def claim_truth(condition, point: dict):
    """The truth of ``condition`` (a SymPy Boolean combination of relations) at an exact
    point (symbol name -> rational): True, False, or None when no precision up to
    :data:`MAX_BITS` decides it. A relation undefined at the point is false.

    >>> import sympy
    >>> claim_truth(sympy.sympify("exp(lam) < 3"), {"lam": 1})
    True
    """
    from types import SimpleNamespace

    leaves = []

    def walk(c):
        if isinstance(c, (sp.And, sp.Or)):
            return ("and" if isinstance(c, sp.And) else "or", [walk(a) for a in c.args])
        if isinstance(c, sp.Not):
            return ("not", walk(c.args[0]))
        leaves.append(c)
        return ("leaf", len(leaves) - 1)

    cf = SimpleNamespace(tree=walk(condition), leaves=leaves)
    ev = ClaimEvaluator(cf, {s.name for s in condition.free_symbols})
    return ev.at({k: Fraction(str(sp.Rational(v))) for k, v in point.items()})


# ------------------------------------------------------------------ the claim search
@dataclass(frozen=True)
class Goal:
    """A counterexample to ``direction`` of ``target``: the claim and the target disagree."""

    target: str
    direction: str

    @property
    def want(self) -> tuple:
        """(claim, target) at a counterexample."""
        return (True, False) if self.direction == DIRECTIONS[0] else (False, True)

    def met(self, sig) -> bool:
        return sig is not None and (sig["claim"], sig[self.target]) == self.want

    def weak(self, sig) -> bool:
        """A marginal point (roots on the axis, none to the right) where the claim holds:
        not asymptotically stable, so it refutes claim => stable, but it is kept only when
        no strictly unstable point is found (a claim about the boundary itself)."""
        return (
            sig is not None
            and self.direction == DIRECTIONS[0]
            and sig["claim"] is True
            and sig[self.target] == MARGINAL
        )

    def side(self, sig) -> tuple:
        """(claim, target) with a marginal target on the side the goal does not want."""
        t = sig[self.target]
        return sig["claim"], (not self.want[1]) if t == MARGINAL else t


def GOALS(targets) -> list:
    """Every goal of ``targets`` (names), in the order of the record."""
    return [Goal(t, d) for t in targets for d in DIRECTIONS]


def first_confirmed(goal: Goal, points, second) -> tuple:
    """The first of ``points`` (the search's, meeting ``goal``) that the caller's second
    path confirms: ``second(point)`` is ``(claim, target, verdict)`` there, or None where it
    cannot tell (the point is dropped); a contradiction is a bug. ``(point, verdict)``, or
    ``(None, None)``."""
    for point in points:
        checked = second(point)
        if checked is None:
            continue
        if tuple(checked[:2]) != goal.want:
            raise VerificationError(
                f"the counterexample {point} to {goal.target} ({goal.direction}) fails the "
                f"second path (claim {checked[0]}, {goal.target} {checked[1]}): a bug"
            )
        return point, checked[2]
    return None, None


@dataclass
class Problem:
    """What the search asks of its caller.

    ``domains``: variable name -> domain. ``claim``: a :class:`ClaimEvaluator`.
    ``targets``: name -> exact test at a point (True, False, or None: cannot tell).
    ``assume``: evaluators of the assumptions (a point outside them is not used).
    ``screen``: optional ``cols -> {target: margin}`` (floats, > 0 inside the target).
    ``extra``: optional float columns of further points (a family's boundary structure).
    ``hints``: exact points to run the line phase through first."""

    domains: dict
    claim: ClaimEvaluator
    targets: dict
    assume: list = field(default_factory=list)
    screen: object = None
    extra: object = None
    hints: list = field(default_factory=list)


class _State:
    """The search's memory: every point decided (``cache``: key -> (point, signature);
    None where undecided or outside the assumptions), the goals met, and what each phase
    cost."""

    def __init__(self, problem: Problem, goals):
        self.p, self.goals = problem, list(goals)
        self.targets = {g.target for g in self.goals}
        self.cache, self.met = {}, set()
        self.skipped = self.rejected = 0
        self.cost = {"random": 0, "boundary": 0, "line": 0}

    def open(self):
        return [g for g in self.goals if g not in self.met]

    def signature(self, point: dict, phase: str = "random"):
        """``{"claim": .., target: ..}`` for the targets of the goals, or None."""
        key = tuple(sorted(point.items()))
        if key in self.cache:
            return self.cache[key][1]
        self.cost[phase] += 1
        sig = self._decide(point)
        self.cache[key] = (dict(point), sig)
        self.met.update(g for g in self.goals if g.met(sig))
        return sig

    def _decide(self, point):
        for a in self.p.assume:
            t = a.at(point)
            if t is not True:
                self.skipped += t is None
                self.rejected += t is False
                return None
        sig = {"claim": self.p.claim.at(point)}
        for t in self.targets:
            if None in sig.values():
                break
            sig[t] = self.p.targets[t](point)
        if None in sig.values():
            self.skipped += 1
            return None
        return sig

    def found(self, g: Goal) -> list:
        """The simplest points (at most 6) meeting ``g``, else its weak ones."""
        pts = [p for p, sig in self.cache.values() if g.met(sig)]
        pts = pts or [p for p, sig in self.cache.values() if g.weak(sig)]
        return sorted(pts, key=_size)[:6]

    def ranges(self) -> dict:
        decided = [p for p, sig in self.cache.values() if sig is not None]
        return {
            k: [_short(min(p[k] for p in decided)), _short(max(p[k] for p in decided))]
            for k in self.p.domains
            if decided and k in decided[0]
        }


def search(
    problem: Problem,
    goals,
    *,
    points: int,
    seed: int = DEFAULT_SEED,
    decades: int = 4,
    line_budget: int = _LINE_BUDGET,
):
    """Search for exact counterexamples to every goal (see the module documentation):
    ``(found, record)``, ``found[goal]`` a list of exact points (simplest first, at most 6)
    and ``record`` what was searched."""
    t0 = time.perf_counter()
    st = _State(problem, goals)
    for hint in problem.hints:  # the family's own candidates first: often all it takes
        if not st.open():
            break
        if _in_domains(hint, problem.domains):
            st.signature(hint, "line")
    decided, near, screened = [], [], 0
    if st.open():
        rng = np.random.default_rng(seed)
        pts = sample(problem.domains, points, rng, decades)
        if problem.screen is not None:
            near, screened = _screened(st, pts, problem), points
        else:
            for i in range(points):
                if not st.open():
                    break
                point = pts.exact(i)
                sig = st.signature(point)
                if sig is not None:
                    decided.append((point, sig))
        if st.open() and decided:
            _bisect_pairs(st, decided, rng, max(4, points // 60))
        if st.open():
            _lines(st, decided, near, line_budget)
    record = {
        "points": len(st.cache) + screened,
        "random_points": screened or st.cost["random"],
        "boundary_points": st.cost["boundary"],
        "line_points": st.cost["line"],
        "exact_points": len(st.cache),
        "skipped": int(st.skipped),
        "outside_assumptions": int(st.rejected),
        "ranges": st.ranges(),
        "structure": [
            "simple values 1/1000 .. 1000",
            f"log-uniform over 1e-{decades} .. 1e{decades}, two significant digits",
            "both signs for real parameters, zeros for nonnegative ones, 0, 1 and near them "
            "for probabilities",
            "screened in floating point, the candidates decided exactly"
            if problem.screen is not None
            else "every point decided exactly",
            "bisection between points on the two sides of the target's and the claim's "
            "boundaries (half along one parameter)",
            "exact lines along each parameter through the hints, the point with every "
            "parameter 1 and the nearest misses; a step where the claim and the target both "
            "change bisected exactly",
        ],
        "claim": f"exact where rational, else interval arithmetic (Arb) at 64..{MAX_BITS} bits",
        "seed": int(seed),
        "seconds": round(time.perf_counter() - t0, 3),
    }
    return {g: st.found(g) for g in st.goals}, record


def _short(v: Fraction) -> str:
    return "0" if v == 0 else f"{float(v):.3g}"


def _goal_score(g: Goal, mc, mt):
    return np.minimum(mc, -mt) if g.direction == DIRECTIONS[0] else np.minimum(-mc, mt)


def _screened(st: _State, pts: Points, problem: Problem) -> list:
    """Phase 1 with a float screen: candidates per goal, rounded and decided exactly; the
    best near misses (rounded to 3 digits) for the line phase."""
    cols = dict(pts.cols)
    if problem.extra is not None:
        extra = problem.extra()
        cols = {k: np.concatenate([cols[k], np.asarray(extra[k], dtype=float)]) for k in cols}
    mc = problem.claim.margins(cols)
    with np.errstate(all="ignore"):
        mts = problem.screen(cols)
    near = []
    for g in st.goals:
        sc = _goal_score(g, mc, mts[g.target])
        sc = np.where(np.isnan(sc), -np.inf, sc)
        near += [i for i in np.argsort(-sc)[:3] if np.isfinite(sc[i])]
        for i in [] if g in st.met else _simple_first(sc, cols):
            for digits in (1, 2, 3, 4, 6, 9):
                point = {k: _round(float(cols[k][i]), digits) for k in cols}
                if _in_domains(point, problem.domains) and g.met(st.signature(point)):
                    break
            if g in st.met:
                break
    return [{k: _round(float(cols[k][i]), 3) for k in cols} for i in near]


def _simple_first(sc, cols, top: int = 6) -> list:
    """Candidate indices: clear ones (score >= min(0.05, best/2)) by how close to 1 their
    values are, then the best scores."""
    pos = np.flatnonzero(sc > 0)
    if pos.size == 0:
        return []
    best = sc[pos].max()
    clear = pos[sc[pos] >= min(0.05, best / 2)]
    with np.errstate(all="ignore"):
        size = sum(np.abs(np.log10(np.abs(c[clear]))) for c in cols.values())
    size = np.where(np.isfinite(size), size, np.inf)
    first = list(clear[np.argsort(size, kind="stable")][:top])
    return first + [i for i in pos[np.argsort(-sc[pos])][:top] if i not in first]


def _in_domains(point, domains) -> bool:
    """``point`` (name -> value) in every variable's domain."""
    for k, dom in domains.items():
        v = point[k]
        if (dom == "positive" and not v > 0) or (dom == "nonnegative" and v < 0):
            return False
        if dom == "probability" and not 0 <= v <= 1:
            return False
    return True


def _bisect_pairs(st: _State, decided, rng, pairs: int, steps: int = 12):
    """Phase 2: bisect segments between decided points on the two sides of a target's or
    the claim's boundary."""
    for key in ["claim", *{g.target for g in st.open()}]:
        yes = [p for p, s in decided if s[key] is True]
        no = [p for p, s in decided if s[key] is False]
        if not yes or not no:
            continue
        for i in range(pairs):
            if not st.open():
                return
            a = yes[int(rng.integers(0, len(yes)))]
            b = no[int(rng.integers(0, len(no)))]
            if i % 2 and len(a) > 1:  # along one parameter only
                j = list(a)[int(rng.integers(0, len(a)))]
                h = {**a, j: b[j]}
                sig = st.signature(h, "boundary")
                if sig is None or sig[key] is not False:
                    continue
                b = h
            lo, hi = Fraction(0), Fraction(1)
            for _ in range(steps):
                if not st.open():
                    return
                t = (lo + hi) / 2
                sig = st.signature({k: a[k] + t * (b[k] - a[k]) for k in a}, "boundary")
                if sig is None:
                    break
                lo, hi = (t, hi) if sig[key] is True else (lo, t)


def _grid(dom: str, decades: int) -> list:
    if dom == "probability":
        return [Fraction(j, 16) for j in range(17)]
    pos = sorted({_round(10 ** (j / 4), 2) for j in range(-4 * decades, 4 * decades + 1)})
    if dom == "positive":
        return pos
    if dom == "nonnegative":
        return [Fraction(0), *pos]
    return [*[-v for v in reversed(pos)], Fraction(0), *pos]


def _lines(st: _State, decided, near, budget: int):
    """Phase 3: exact lines through the hints, the all-ones point and the near misses."""
    p = st.p
    ones = {k: Fraction(1, 2) if d == "probability" else Fraction(1) for k, d in p.domains.items()}
    bases = [*p.hints, ones, *near]
    for g in st.open():  # without a screen: points that meet half of the goal
        want_c, want_t = g.want
        bases += [q for q, s in decided if s["claim"] is want_c][:1]
        bases += [q for q, s in decided if s[g.target] is want_t][:1]
    seen = []
    for b in bases:
        if b not in seen and _in_domains(b, p.domains):
            seen.append(b)
    stop = len(st.cache) + budget * max(1, len(st.open()))
    for base in seen:
        goals = st.open()
        if not goals:
            return
        for name in p.domains:  # every line through the base: the simplest point is kept
            if len(st.cache) > stop:
                return
            _line(st, base, name, goals, stop)


def _line(st: _State, base: dict, name: str, goals, stop: int):
    grid = sorted({*_grid(st.p.domains[name], 4), base[name]})
    sigs = []
    for v in grid:
        if len(st.cache) > stop:
            return
        sigs.append(st.signature({**base, name: v}, "line"))
    for g in goals:
        for (a, sa), (b, sb) in zip(zip(grid, sigs), zip(grid[1:], sigs[1:])):
            if len(st.cache) > stop:
                return
            if sa is None or sb is None:
                continue
            (ca, ta), (cb, tb) = g.side(sa), g.side(sb)
            if ca != cb and ta != tb:
                _bisect_line(st, base, name, g, a, b, g.side(sa), stop)


def _bisect_line(st, base, name, g, a, b, sa, stop):
    """A grid step where the claim and the target both change: the goal, if anywhere on
    it, lies between the two crossings; bisect towards it, then simplify (``sa``: the
    side of ``a``; a marginal point counts on the side the goal does not want)."""
    lo, hi = a, b
    for _ in range(_LINE_STEPS):
        if len(st.cache) > stop:
            return
        m = (lo + hi) / 2
        sig = st.signature({**base, name: m}, "line")
        if sig is None:
            return
        if g.met(sig):
            _simplify(st, base, name, g, lo, hi, sa)
            return
        side = g.side(sig)
        if side == sa:
            lo = m
        elif side[0] != sa[0] and side[1] != sa[1]:
            hi = m
        else:  # the other direction's counterexample: the two crossings are apart
            return


def _simplify(st, base, name, g, lo, hi, sa):
    """Replace the found point by the simplest rational meeting the goal in (lo, hi)."""
    for _ in range(60):
        q = simplest_between(lo, hi)
        sig = st.signature({**base, name: q}, "line")
        if sig is None or g.met(sig):
            return
        if g.side(sig) == sa:
            lo = q
        else:
            hi = q
