"""Signs and zeros of expressions on a domain, decided exactly.

One real-arithmetic decision procedure serves the model's checks at the door (is a rate
``>= 0`` on the state space? does a closed-form equilibrium zero the drift?) and the
claims engine (:mod:`symdelay.analysis.decide`). Formulas are nodes: ``("rel", P, op)``
(``P op 0``, ``P`` a polynomial with rational coefficients, ``op`` one of ``> >= == !=``),
``("and", [..])``, ``("or", [..])``, ``("not", x)``, ``("true",)``, ``("false",)``.

* :func:`impossible_by_signs`: a coefficient-sign certificate (every variable shifted past
  its lower bound, every coefficient ``>= 0``): the last node cannot hold; no solver.
* :class:`Nlsat`: a conjunction decided by Z3's ``nlsat`` (complete for nonlinear real
  arithmetic), with a timeout; its SMT-LIB2 text can be re-run by anyone.
* :func:`polynomial_form`: an expression as a rational function of its variables and of
  auxiliary variables, one per radical (``u >= 0``, ``u^q = b``), ``Abs`` (``a >= 0``,
  ``a^2 = b^2``) — exact — or per transcendental function, replaced by bounds that hold
  for it (``exp``: ``e > 0``, ``e >= 1 + x``, ``e <= 1`` where ``x <= 0``; ``tanh``, ``sin``,
  ``cos``: in ``[-1, 1]`` with the sign and ``|t| <= |x|``; ``log``: ``1 - 1/x <= l <= x - 1``;
  ``pi``, ``E``: a rational interval) — a *relaxation*.
* :func:`nonnegative_on`: ``expr >= 0`` wherever it is defined on the domain: proven,
  refuted with a point, or undecided with the reason (a rational rate is decided, and so is
  a product of a positive exponential and a decidable factor).
* :func:`zero_on`: ``expr == 0`` wherever it is defined (``None`` where not decided).
* :func:`number_sign`: the sign of a real constant.
* :func:`strict_sign_on`: ``expr > 0`` everywhere, ``< 0`` everywhere, ``== 0``
  everywhere, or none of these (which side of a switch a point lies on).

>>> import sympy as sp
>>> q, lam, mu = sp.symbols("q lam mu")
>>> doms = {q: "nonnegative", lam: "positive", mu: "positive"}
>>> nonnegative_on(lam * (1 - q / 10**12), doms).holds
False
>>> nonnegative_on(2 * lam * sp.exp(-q) / (sp.exp(-q) + sp.exp(-2 * q)), doms).holds
True
>>> B = (sp.sqrt(4 * lam * mu**2 + 1) - 1) / (2 * mu)
>>> zero_on(sp.sqrt(lam - B / mu) - B, doms)
True
"""

from __future__ import annotations

import contextlib
import functools
import operator
from dataclasses import dataclass

from symdelay.core.lazy import sympy as sp

__all__ = [
    "Decision",
    "Nlsat",
    "conjuncts",
    "domain_nodes",
    "impossible_by_signs",
    "negative_somewhere",
    "nonnegative_on",
    "number_sign",
    "strict_sign_on",
    "polynomial_form",
    "z3_node",
    "z3_poly",
    "zero_on",
    "DEFAULT_TIMEOUT_MS",
]

#: The decision procedure's budget per question at the door (milliseconds).
DEFAULT_TIMEOUT_MS = 2000


def conjuncts(nodes) -> list:
    return [c for n in nodes for c in (conjuncts(n[1]) if n[0] == "and" else [n])]


#: polynomials with more terms are left to nlsat (the (1 + t)^deg expansions grow fast)
_CERTIFY_MAX_TERMS = 120


#: after a rational bound is substituted (the products of its pieces grow further)
_CERTIFY_MAX_SUBSTITUTED = 600


def _rational_bounds(conj_, one, lower, positive) -> list:
    """Upper bounds by rational functions: conjuncts ``b - A v > 0`` (``>= 0``) linear in a
    variable ``v`` that has a constant lower bound, with ``A > 0`` on the set by the sign
    certificate ``positive``: ``(v, A, b, strict)`` for ``v < b/A`` (``<=`` when not
    strict). A claim ``lam*theta < 8 (gamma + mu)^3/(3 gamma + mu)^2`` is such a bound."""
    out = []
    for n in conj_:
        if n[0] != "rel" or n[2] not in (">", ">="):
            continue
        P = sp.expand(n[1].xreplace(one))
        for v in sorted(P.free_symbols & set(lower), key=str):
            if len(P.free_symbols) < 2:
                break
            Pv = sp.Poly(P, v)
            if Pv.degree() != 1:
                continue
            A, b = -Pv.nth(1), Pv.nth(0)
            if not positive(A):
                continue
            g = sp.gcd(A, b)  # the same bound in lowest terms: A/g > 0 when g > 0
            if not g.is_number and positive(g):
                A, b = sp.quo(A, g), sp.quo(b, g)
            out.append((v, sp.expand(A), sp.expand(b), n[2] == ">"))
            if len(out) >= 4:
                return out
    return out


class SignBox:
    """The box that the domains and the single-variable conjuncts of ``nodes`` set
    (``lower``, ``upper``: variable -> (bound, strict)): ``a v + b > 0`` / ``>= 0``, and
    ``P(v) > 0`` / ``>= 0`` with one real root above a known lower bound; and the sign
    certificate on it (:meth:`positive`).

    A variable bounded below by ``c`` becomes ``c + t`` (``t >= 0``, ``> 0`` for a strict
    bound); one also bounded above by ``d`` becomes ``(c + d t)/(1 + t)`` (``t >= 0`` covers
    ``[c, d)``; a bound ``v <= d`` adds the polynomial at ``v = d``), the polynomial
    multiplied by ``(1 + t)^deg``. A polynomial whose coefficients are then all ``>= 0``
    with a positive monomial in strictly positive variables alone (or a positive constant)
    is ``> 0`` on the whole box (all ``>= 0``: ``>= 0`` there)."""

    def __init__(self, nodes, symbols, fixed, domains):
        self.one = one = {fixed: sp.Integer(1)} if fixed is not None else {}
        self.lower, self.upper = {}, {}
        for v in symbols:
            dom = domains.get(v)
            if v != fixed and dom in ("positive", "nonnegative", "probability"):
                self.lower[v] = (sp.Integer(0), dom == "positive")
            if v != fixed and dom == "probability":
                self.upper[v] = (sp.Integer(1), False)
        single = []
        for n in conjuncts(nodes):
            if n[0] == "rel" and n[2] in (">", ">="):
                P = sp.expand(n[1].xreplace(one))
                if len(P.free_symbols) == 1:
                    single.append((n[2] == ">", sp.Poly(P, *P.free_symbols)))
        for strict, poly in sorted(single, key=lambda x: x[1].degree() != 1):  # linear first
            v, upper = poly.gen, poly.LC() < 0 and poly.degree() == 1
            if poly.degree() == 1:
                c = -poly.TC() / poly.LC()
            else:  # a lower bound from its real roots above the one known
                c, strict = self._root_bound(poly, strict, self.lower.get(v)) or (None, strict)
                if c is None:
                    continue
            side = self.upper if upper else self.lower
            old = side.get(v)
            if old is None or (c < old[0] if upper else c > old[0]) or (c == old[0] and strict):
                side[v] = (c, strict)
        self.ts = {v: sp.Dummy(v.name) for v in self.lower}
        self.strict_t = {self.ts[v] for v, (_, st) in self.lower.items() if st}
        self.boxed = {
            v: self.upper[v]
            for v in self.lower
            if v in self.upper and self.upper[v][0] > self.lower[v][0]
        }
        self.probe = {
            v: (c + self.boxed[v][0]) / 2 if v in self.boxed else c + 1
            for v, (c, _) in self.lower.items()
        }

    @staticmethod
    def _root_bound(poly, strict, low):
        """``(c, strict)``: the lower bound that ``poly(v) > 0`` (``strict``; else ``>= 0``)
        and ``v >= low`` give when ``poly``, negative at ``low``, has one real root ``r`` above
        it (``c = r`` if rational, else a rational just below); else None."""
        if low is None or poly.LC() < 0 or not poly.eval(low[0]) < 0:
            return None
        above = poly.intervals(inf=low[0])
        if len(above) != 1:
            return None
        (a, b), _ = above[0]
        exact = [x for x in poly.ground_roots() if a <= x <= b]
        return (exact[0], strict) if exact else (poly.refine_root(a, b, eps=1e-12)[0], True)

    def certified(self, S, at_end=(), strict=True) -> bool:
        """``S > 0`` (``strict``, else ``S >= 0``) on the box by coefficient signs;
        ``at_end``: boxed variables set to their upper end. Sparse polynomial arithmetic in
        the new variables ``t``."""
        lower, boxed, ts = self.lower, self.boxed, self.ts
        S = sp.expand(S.xreplace(self.one).xreplace({v: boxed[v][0] for v in at_end}))
        if S.is_number:
            return S > 0 if strict else S >= 0
        vs = sorted(S.free_symbols, key=str)
        if not set(vs) <= set(lower):
            return False  # a variable without a lower bound
        gens = [ts[v] for v in vs]
        P = sp.Poly(S, *vs)
        deg = dict(zip(vs, P.degree_list(), strict=True))
        cache = {}

        def piece(v, e):
            if (v, e) not in cache:
                t, c = sp.Poly(ts[v], *gens), lower[v][0]
                if v in boxed:
                    d = boxed[v][0]
                    q = (c + d * t) ** e * (1 + t) ** (deg[v] - e)  # times (1 + t)^deg > 0
                else:
                    q = (c + t) ** e
                cache[v, e] = q
            return cache[v, e]

        total = sp.Poly(0, *gens)
        for mon, coeff in P.terms():
            term = sp.Poly(coeff, *gens)
            for v, e in zip(vs, mon, strict=True):
                term = term * piece(v, e)
            total = total + term
        if any(c < 0 for c in total.coeffs()):
            return False
        return not strict or any(
            c > 0 and all(e == 0 or g in self.strict_t for g, e in zip(gens, mon, strict=True))
            for mon, c in total.terms()
        )

    def positive(self, S, strict=True, max_terms=_CERTIFY_MAX_TERMS) -> bool:
        """``S > 0`` (``strict``; else ``S >= 0``) on the box, by the sign certificate."""
        if len(sp.Add.make_args(sp.expand(S))) > max_terms:
            return False
        # one exact value inside the set first: a polynomial not positive there cannot be
        # certified, and most are not
        at = S.xreplace(self.one).xreplace(self.probe)
        if not at.is_number or not (at > 0 if strict else at >= 0):
            return False
        if not self.certified(S, (), strict):
            return False
        # a closed upper end v = d is in the set: the polynomial there too
        return all(open_ or self.certified(S, (v,), strict) for v, (_, open_) in self.boxed.items())


def impossible_by_signs(nodes, symbols, fixed, domains) -> bool:
    """True if the last node cannot hold, by a sign certificate, under the bounds the
    conjunction sets (then it is unsat, proven without nlsat).

    The certificate of :class:`SignBox` on the box the bounds set, and beyond it: a
    polynomial ``> 0`` on the box, or after a rational bound ``v < b/A`` of a conjunct,
    or exceeding a positive multiple of another conjunct, is ``> 0`` on the set, so a
    conjunct ``-S >= 0`` (or ``not S > 0``, ``S == 0``) with such an ``S`` is impossible.
    (``kappa >= 1`` implies the in-flight model's Hurwitz conditions this way, where nlsat
    needs over 30 s at L = 4.)"""
    box = SignBox(nodes, symbols, fixed, domains)
    conj_, one, lower, ts, probe = conjuncts(nodes), box.one, box.lower, box.ts, box.probe
    strict_t, plainly_positive = box.strict_t, box.positive
    bounds = _rational_bounds(conj_, one, lower, plainly_positive)
    # the other conjuncts H > 0 / H >= 0 in two or more variables (see follows)
    hyps_ = [
        (sp.expand(n[1].xreplace(one)), n[2])
        for n in conjuncts(nodes[:-1])
        if n[0] == "rel" and n[2] in (">", ">=") and len(n[1].xreplace(one).free_symbols) > 1
    ]
    for k, (v, _A, _b, _strict) in enumerate(bounds):
        t = sp.Dummy(f"t{k}")
        lower[t], ts[t], probe[t] = (sp.Integer(0), lower[v][1]), t, sp.Integer(1)
        if lower[v][1]:
            strict_t.add(t)
        bounds[k] = (*bounds[k], t)

    def positive(S, strict=True) -> bool:
        """``S > 0`` (``S >= 0``) on the set: by signs, else after a rational bound."""
        if plainly_positive(S, strict):
            return True
        S = sp.expand(S.xreplace(one))
        for v, A, b, open_, t in bounds:
            if not S.has(v):
                continue
            # c <= v < b/A (A > 0 on the set) is v = (c A + b t)/(A (1 + t)), t >= 0:
            # every point of the set has such a t, so S (A (1 + t))^deg > 0 for all t >= 0
            # proves S > 0 there; a closed end v = b/A is checked as well
            c = lower[v][0]
            Sv = sp.Poly(S, v)
            d = Sv.degree()
            inner = sp.expand(
                sum(q * (c * A + b * t) ** j * (A * (1 + t)) ** (d - j) for (j,), q in Sv.terms())
            )
            if not plainly_positive(inner, strict, _CERTIFY_MAX_SUBSTITUTED):
                continue
            end = sp.expand(sum(q * b**j * A ** (d - j) for (j,), q in Sv.terms()))
            if open_ or plainly_positive(end, strict, _CERTIFY_MAX_SUBSTITUTED):
                return True
        return False

    def follows(R, strict=True) -> bool:
        """``R > 0`` (``R >= 0`` when not ``strict``) on the set: by signs, or
        ``R - c H >= 0`` there for a conjunct ``H > 0`` (``R - c H > 0`` for ``H >= 0``
        when strict), ``c > 0`` a ratio of coefficients of a monomial the two share (a
        stability condition a claim weakens by a positive term)."""
        if positive(R, strict):
            return True
        R = sp.expand(R.xreplace(one))
        if R.is_number:
            return False
        for H, op in hyps_:
            if H.free_symbols - R.free_symbols:
                continue
            gens = sorted(R.free_symbols, key=str)
            Rp, Hp = sp.Poly(R, *gens), sp.Poly(H, *gens)
            ratios = []
            for mon, c in Hp.terms():
                q = Rp.coeff_monomial(mon)
                if q != 0 and q / c > 0 and q / c not in ratios:
                    ratios.append(q / c)
            for c in sorted(ratios, key=lambda x: (abs(x.p) + x.q, x))[:3]:
                if positive(sp.expand(R - c * H), strict=strict and op == ">="):
                    return True
        return False

    # Q > 0 cannot hold where -Q >= 0; Q >= 0 cannot where -Q > 0
    for n in conjuncts(nodes[-1:]):
        if n[0] == "rel":
            _, Q, op = n
            if op in (">", ">=") and follows(-Q, strict=op == ">="):
                return True
            if op == "==" and (positive(Q) or positive(-Q)):
                return True
        elif n[0] == "not" and n[1][0] == "rel":
            _, P, op = n[1]
            if op in (">", ">=") and follows(P, strict=op == ">"):
                return True
            if op == "!=" and (positive(P) or positive(-P)):
                return True
    return False


def z3_poly(P, zvars, z3):
    P = sp.expand(P)
    gens = sorted(P.free_symbols, key=str)
    if not gens:
        q = sp.Rational(P)
        return z3.RealVal(f"{q.p}/{q.q}")
    terms = []
    for mon, c in sp.Poly(P, *gens, domain="QQ").terms():
        c = sp.Rational(c)
        factors = [zvars[g] for g, e in zip(gens, mon) for _ in range(e)]
        coef = z3.RealVal(f"{c.p}/{c.q}")
        if not factors:
            terms.append(coef)
        else:
            prod = functools.reduce(operator.mul, factors)
            terms.append(prod if c == 1 else coef * prod)
    return terms[0] if len(terms) == 1 else z3.Sum(*terms)


def z3_node(node, zvars, z3):
    kind = node[0]
    if kind == "true":
        return z3.BoolVal(True)
    if kind == "false":
        return z3.BoolVal(False)
    if kind == "and":
        return z3.And(*[z3_node(c, zvars, z3) for c in node[1]])
    if kind == "or":
        return z3.Or(*[z3_node(c, zvars, z3) for c in node[1]])
    if kind == "not":
        return z3.Not(z3_node(node[1], zvars, z3))
    _, P, op = node
    e = z3_poly(P, zvars, z3)
    return {">": e > 0, ">=": e >= 0, "==": e == 0, "!=": e != 0}[op]


#: the wall-clock backstop of a resource-limited check, in units of its nominal timeout
WALL_FACTOR = 10


class Nlsat:
    """The conjunction of ``nodes`` in Z3's ``nlsat`` (``QF_NRA``) over ``symbols`` (``fixed``,
    if given, is 1), with a timeout in milliseconds. ``smt2``: the SMT-LIB2 text;
    :meth:`check` -> ``("unsat", None)``, ``("sat", {symbol: z3 value})`` or
    ``("unknown", reason)``; Ctrl-C during the check is a ``KeyboardInterrupt``."""

    def __init__(self, nodes, symbols, timeout_ms: int, fixed=None, rlimit: int | None = None):
        import z3

        self._z3 = z3
        self.zvars = {s: z3.Real(s.name) for s in symbols if s != fixed}
        if fixed is not None:
            self.zvars[fixed] = z3.RealVal(1)
        self.fixed = fixed
        self.solver = z3.SolverFor("QF_NRA")
        if rlimit is None:
            self.solver.set("timeout", int(timeout_ms))
        else:  # a budget in z3's resource units (the same answer on a loaded machine), the
            # wall clock only as a backstop
            self.solver.set("rlimit", min(int(rlimit), 2**32 - 1))
            self.solver.set("timeout", min(int(timeout_ms) * WALL_FACTOR, 2**32 - 1))
        for n in nodes:
            self.solver.add(z3_node(n, self.zvars, z3))

    @property
    def smt2(self) -> str:
        return self.solver.to_smt2()

    def check(self) -> tuple:
        z3 = self._z3
        answer = self.solver.check()
        if answer == z3.unsat:
            return "unsat", None
        if answer == z3.sat:
            m = self.solver.model()
            return "sat", {
                s: m.eval(v, model_completion=True)
                for s, v in self.zvars.items()
                if s != self.fixed
            }
        reason = self.solver.reason_unknown()
        if "interrupted" in reason:  # ('canceled' can be a timeout in some z3 versions)
            # z3 turns Ctrl-C into 'unknown': a stop asked for, not a budget spent
            raise KeyboardInterrupt
        return "unknown", reason


# ------------------------------------------------------------------ domains
def domain_nodes(domains: dict) -> list:
    """The relations a variable's domain sets: ``positive`` ``v > 0``, ``nonnegative``
    ``v >= 0``, ``probability`` ``0 <= v <= 1``, ``real`` none."""
    out = []
    for v, dom in domains.items():
        if dom == "positive":
            out.append(("rel", v, ">"))
        elif dom == "nonnegative":
            out.append(("rel", v, ">="))
        elif dom == "probability":
            out += [("rel", v, ">="), ("rel", 1 - v, ">=")]
    return out


# ------------------------------------------------------------------ expressions as polynomials
class Undecidable(Exception):
    """An expression the translation cannot write in real polynomial arithmetic."""


@dataclass(frozen=True)
class PolynomialForm:
    """``value``: the expression as a rational function of the variables and the auxiliary
    variables ``aux`` (``{symbol: domain}``), which ``nodes`` tie to it (with the
    conditions where the expression is defined); ``relaxed``: the functions replaced by
    bounds (empty: the translation is exact)."""

    value: object
    nodes: tuple
    aux: dict
    relaxed: tuple


def _fraction(expr) -> tuple:
    """``(N, D)`` with ``expr = N / D`` (``together`` only where something divides)."""
    if any(p.exp.is_negative for p in expr.atoms(sp.Pow)):
        return sp.fraction(sp.together(expr))
    return expr, sp.Integer(1)


def _rel(expr, op: str, out: list) -> None:
    """``expr op 0`` (``expr`` a rational function) as polynomial relations in ``out``:
    ``N D op 0`` with ``D != 0`` (``N op 0`` for ``==``, ``!=``; a constant ``D`` divides)."""
    num, den = _fraction(expr)
    num, den = sp.expand(num), sp.expand(den)
    if den.is_number:
        if den < 0:
            num = -num
    else:
        out.append(("rel", den, "!="))
        if op not in ("==", "!="):
            num = sp.expand(num * den)
    if num.is_number:
        if not {">": num > 0, ">=": num >= 0, "==": num == 0, "!=": num != 0}[op]:
            out.append(("false",))
        return
    out.append(("rel", num, op))


#: domains bounded below by 0
_LOWER_ZERO = ("positive", "nonnegative", "probability")


def _term_sign(x, domains: dict) -> int | None:
    """+1 if ``x >= 0``, -1 if ``x <= 0`` on the domain by the signs of its terms (a
    polynomial whose variables are all ``>= 0`` or appear to even powers, its coefficients
    of one sign); else None."""
    signs = set()
    for term in sp.Add.make_args(sp.expand(x)):
        c, rest = term.as_coeff_Mul()
        if not c.is_Rational:
            return None
        for f in sp.Mul.make_args(rest):
            if f == 1:  # a constant term
                continue
            base, e = f.as_base_exp()
            even = e.is_Integer and e % 2 == 0
            if not (even or (base.is_Symbol and domains.get(base) in _LOWER_ZERO)):
                return None
        if c != 0:
            signs.add(1 if c > 0 else -1)
    return signs.pop() if len(signs) == 1 else (0 if not signs else None)


class _Translation:
    """Bottom-up rewriting of an expression into :class:`PolynomialForm` (shared
    sub-expressions share their auxiliary variable)."""

    def __init__(self, domains: dict, timeout_ms: int):
        self.domains = dict(domains)
        self.timeout_ms = timeout_ms
        self.nodes: list = []
        self.aux: dict = {}
        self.relaxed: list = []
        self.memo: dict = {}

    def new(self, kind: str, domain: str):
        # a name no model can give a symbol (identifiers only), so no clash
        s = sp.Symbol(f"{kind}#{len(self.aux)}")
        self.aux[s] = domain
        return s

    def relax(self, name: str) -> None:
        if name not in self.relaxed:
            self.relaxed.append(name)

    def sign_of(self, x) -> int | None:
        """:func:`_term_sign` of ``x`` (cheap: it only tightens a relaxation)."""
        return _term_sign(x, {**self.domains, **self.aux})

    def rewrite(self, e):
        if e in self.memo:
            return self.memo[e]
        out = self._rewrite(e)
        self.memo[e] = out
        return out

    def _rewrite(self, e):
        if e.is_Rational or e.is_Symbol:
            return e
        if e.is_Add or e.is_Mul:
            return e.func(*[self.rewrite(a) for a in e.args])
        if e.is_Pow:
            return self.power(e)
        if isinstance(e, sp.Abs):
            x = self.rewrite(e.args[0])
            a = self.new("abs", "nonnegative")
            _rel(a**2 - x**2, "==", self.nodes)
            return a
        if isinstance(e, sp.exp):
            return self.exponential(self.rewrite(e.args[0]))
        if isinstance(e, (sp.tanh, sp.sin, sp.cos)):
            name = type(e).__name__
            x = self.rewrite(e.args[0])
            t = self.new(name, "real")
            self.relax(name)
            self.nodes += [("rel", t + 1, ">=" if name != "tanh" else ">")]
            self.nodes += [("rel", 1 - t, ">=" if name != "tanh" else ">")]
            if name != "cos":  # odd, |f(x)| <= |x|, and tanh keeps the sign of x
                _rel(x**2 - t**2, ">=", self.nodes)
                if name == "tanh":
                    _rel(t * x, ">=", self.nodes)
            return t
        if isinstance(e, sp.log):
            x = self.rewrite(e.args[0])
            lg = self.new("log", "real")
            self.relax("log")
            _rel(x, ">", self.nodes)  # defined for x > 0
            _rel(x - 1 - lg, ">=", self.nodes)  # log x <= x - 1
            _rel(lg - 1 + 1 / x, ">=", self.nodes)  # log x >= 1 - 1/x
            return lg
        if isinstance(e, sp.Heaviside):
            return self.heaviside(e)
        if isinstance(e, sp.Piecewise):
            return self.piecewise(e.args)
        if isinstance(e, (sp.Min, sp.Max)):
            return self.extremum(e)
        if isinstance(e, sp.NumberSymbol):  # pi, E: a rational interval
            import mpmath

            with mpmath.workdps(40):
                v = mpmath.mpf(sp.N(e, 40))
                lo, hi = mpmath.floor(v * 10**30) - 1, mpmath.ceil(v * 10**30) + 1
            c = self.new(str(e), "real")
            self.relax(str(e))
            _rel(c - sp.Rational(int(lo), 10**30), ">=", self.nodes)
            _rel(sp.Rational(int(hi), 10**30) - c, ">=", self.nodes)
            return c
        raise Undecidable(f"{type(e).__name__} ({str(e)[:60]}) has no real-arithmetic form")

    def condition(self, c):
        """A node for the condition ``c`` (relations joined by And, Or, Not)."""
        if c is sp.true:
            return ("true",)
        if c is sp.false:
            return ("false",)
        if isinstance(c, sp.And):
            return ("and", [self.condition(a) for a in c.args])
        if isinstance(c, sp.Or):
            return ("or", [self.condition(a) for a in c.args])
        if isinstance(c, sp.Not):
            return ("not", self.condition(c.args[0]))
        ops = {sp.StrictGreaterThan: ">", sp.GreaterThan: ">=", sp.Eq: "==", sp.Ne: "!="}
        flip = {sp.StrictLessThan: ">", sp.LessThan: ">="}
        if type(c) in ops:
            return self.relation(self.rewrite(c.lhs) - self.rewrite(c.rhs), ops[type(c)])
        if type(c) in flip:
            return self.relation(self.rewrite(c.rhs) - self.rewrite(c.lhs), flip[type(c)])
        raise Undecidable(f"the condition {str(c)[:60]} has no real-arithmetic form")

    def relation(self, x, op: str):
        """``x op 0`` as one node (false where ``x``'s denominator vanishes)."""
        out: list = []
        _rel(x, op, out)
        if not out:
            return ("true",)
        return out[0] if len(out) == 1 else ("and", out)

    def nonnegative(self, values) -> bool:
        doms = {**self.domains, **self.aux}
        return all(_term_sign(v, doms) in (0, 1) for v in values)

    def heaviside(self, e):
        """``H(x)``: 1 where ``x > 0``, 0 where ``x < 0``, its value at 0 (SymPy's second
        argument, 1/2 by default) where ``x = 0`` — exact."""
        x = self.rewrite(e.args[0])
        at0 = e.args[1] if len(e.args) > 1 and e.args[1] is not None else sp.S.Half
        if not at0.is_Rational:
            raise Undecidable(f"the step {str(e)[:60]} has a value at 0 that is not a number")
        h = self.new("step", "nonnegative" if at0 >= 0 else "real")
        for op, value in ((">", 1), ("==", at0), ("<", 0)):
            cond = self.relation(-x if op == "<" else x, ">" if op == "<" else op)
            self.nodes.append(("or", [("not", cond), ("rel", h - value, "==")]))
        return h

    def piecewise(self, branches):
        """``Piecewise``: the value of the first branch whose condition holds — exact
        (undefined where none does)."""
        values = [self.rewrite(v) for v, _ in branches]
        p = self.new("piecewise", "nonnegative" if self.nonnegative(values) else "real")
        before: list = []
        active = []
        for v, (_, c) in zip(values, branches):
            cond = self.condition(c)
            here = ("and", [cond, *[("not", b) for b in before]])
            active.append(here)
            before.append(cond)
            self.nodes.append(("or", [("not", here), self.relation(p - v, "==")]))
        self.nodes.append(("or", active))
        return p

    def extremum(self, e):
        """``Min``/``Max``: below (above) every argument and equal to one — exact."""
        values = [self.rewrite(a) for a in e.args]
        m = self.new(type(e).__name__.lower(), "real")
        if isinstance(e, sp.Min) and self.nonnegative(values):
            self.aux[m] = "nonnegative"
        if isinstance(e, sp.Max) and any(self.nonnegative([v]) for v in values):
            self.aux[m] = "nonnegative"
        sign = 1 if isinstance(e, sp.Min) else -1
        for v in values:
            self.nodes.append(self.relation(sign * (v - m), ">="))
        self.nodes.append(("or", [self.relation(m - v, "==") for v in values]))
        return m

    def power(self, e):
        base, ex = e.base, e.exp
        if ex.is_Integer:
            return self.rewrite(base) ** int(ex)
        if ex.is_Rational:  # b^(p/q), defined for b >= 0: u >= 0 with u^q = b, then u^p
            b = self.rewrite(base)
            u = self.new("root", "nonnegative")
            _rel(u**ex.q - b, "==", self.nodes)
            return u**ex.p
        if base.is_positive and base.is_number:  # c^x = exp(x log c)
            return self.exponential(self.rewrite(ex * sp.log(base)))
        raise Undecidable(f"the power {str(e)[:60]} has an exponent that is not a number")

    def exponential(self, x):
        """``exp(x)``: ``e > 0``, ``e >= 1 + x`` (its tangent at 0), ``e <= 1`` where
        ``x <= 0`` and ``e >= 1`` where ``x >= 0`` (the sign certificate decides)."""
        e = self.new("exp", "positive")
        self.relax("exp")
        _rel(e - 1 - x, ">=", self.nodes)
        sign = self.sign_of(x)
        if sign == -1:
            self.nodes.append(("rel", 1 - e, ">="))
        elif sign == 1:
            self.nodes.append(("rel", e - 1, ">="))
        return e


def polynomial_form(expr, domains: dict, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> PolynomialForm:
    """``expr`` in real polynomial arithmetic (see :class:`PolynomialForm`); ``domains``
    gives each variable's domain. Raises :class:`Undecidable` for what has none (a symbolic
    exponent, a function other than ``exp, log, sqrt, tanh, sin, cos, Abs``)."""
    t = _Translation(domains, timeout_ms)
    value = t.rewrite(sp.sympify(expr))
    return PolynomialForm(value, tuple(t.nodes), dict(t.aux), tuple(t.relaxed))


# ------------------------------------------------------------------ numbers
def _arb_sign(expr, point: dict) -> int | None:
    """The sign of ``expr`` at ``point`` proven in interval arithmetic (``arb``): 1 or -1;
    0 when the value is real but its ball holds 0 at 2048 bits; None when it is not real
    or cannot be evaluated."""
    import flint

    from symdelay.model.arb_eval import to_arb

    for bits in (64, 256, 2048):
        with flint.ctx.workprec(bits):
            env = {s: flint.arb(flint.fmpq(int(v.p), int(v.q))) for s, v in point.items()}
            try:
                ball = to_arb(expr, env)
            except (NotImplementedError, ZeroDivisionError, ValueError, KeyError, TypeError):
                return None
            if not ball.is_finite():
                return None
            if isinstance(ball, flint.acb):  # complex radicals (a cubic's casus irreducibilis)
                if not (ball.imag.is_exact() and ball.imag == 0):
                    return None  # not proven real: no sign
                ball = ball.real
            if ball > 0:
                return 1
            if ball < 0:
                return -1
    return 0


def number_sign(x, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> int | None:
    """The sign (-1, 0, 1) of a real constant, or None where it is not decided (or not
    real). Nonzero by interval arithmetic; zero by the decision procedure (an algebraic
    number) or SymPy's ``simplify`` (an exponential identity)."""
    x = sp.sympify(x)
    if x.is_Rational:
        return 1 if x.p > 0 else (-1 if x.p < 0 else 0)
    s = _arb_sign(x, {})
    if s in (1, -1):
        return s
    zero = zero_on(x, {}, timeout_ms)
    return 0 if zero else None


# ------------------------------------------------------------------ decisions
@dataclass(frozen=True)
class Decision:
    """The answer to "does this hold on the whole domain?": ``holds`` True (proven), False
    (refuted at ``witness``, ``{symbol: number}``) or None (undecided); ``how`` names the
    proof, or says why there is none."""

    holds: bool | None
    how: str
    witness: dict | None = None
    #: undecided for want of time (a larger budget may decide it)
    timed_out: bool = False


def _z3_number(val):
    """A Z3 model value as a SymPy rational (an algebraic number: a rational within
    ``1e-30``), or None."""
    import z3

    if z3.is_rational_value(val):
        f = val.as_fraction()
    elif z3.is_algebraic_value(val):
        f = val.approx(30).as_fraction()
    else:
        return None
    return sp.Rational(f.numerator, f.denominator)


def _solve(nodes, variables: dict, timeout_ms: int):
    """nlsat on everything, and where it gives no answer in time the certificate (the last
    node cannot hold under the domains and the bounds of one variable): ``(status, values
    or reason)`` with status ``unsat`` / ``sat`` / ``unknown``. (The questions at the door
    are small: nlsat answers most in milliseconds, the certificate costs more.)"""
    symbols = sorted(variables, key=str)
    every = domain_nodes(variables) + list(nodes)
    status, got = Nlsat(every, symbols, timeout_ms).check()
    if status == "unsat":
        return status, "decision procedure"
    if status == "sat":
        return status, {s: _z3_number(v) for s, v in got.items()}
    last = nodes[-1] if nodes else ("true",)
    small = last[0] == "rel" and len(sp.Add.make_args(last[1])) <= _CERTIFY_MAX_TERMS
    if small and len(symbols) <= _CERTIFY_MAX_VARIABLES:  # its cost grows fast past these
        # the bounds of one variable (the other relations only cost the certificate time)
        bounds = [n for n in nodes[:-1] if n[0] == "rel" and len(n[1].free_symbols) == 1]
        short = domain_nodes(variables) + bounds + [last]
        if impossible_by_signs(short, symbols, None, variables):
            return "unsat", "sign certificate"
    return status, got


#: the most variables of a question the certificate is tried on after nlsat
_CERTIFY_MAX_VARIABLES = 12


def nonnegative_on(expr, domains: dict, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Decision:
    """Is ``expr >= 0`` at every point of the domain where it is defined (real and finite)?

    ``domains``: ``{symbol: "positive" | "nonnegative" | "probability" | "real"}`` for
    every free symbol (states are ``nonnegative``). The negation ``expr < 0`` is written in
    polynomial arithmetic (:func:`polynomial_form`) and shown impossible by the sign
    certificate or nlsat, or solved: exactly (then ``witness`` is a point where ``expr <
    0``), or, for a relaxation, at a point checked on ``expr`` itself in interval
    arithmetic; otherwise undecided, ``how`` saying why."""
    expr = sp.sympify(expr)
    if not expr.free_symbols:
        s = number_sign(expr, timeout_ms)
        if s is None:
            return Decision(None, f"the sign of the number {expr} is not decided")
        return Decision(s >= 0, "exact", None if s >= 0 else {})
    try:
        form = polynomial_form(expr, domains, timeout_ms)
    except Undecidable as exc:
        return Decision(None, str(exc))
    variables = {**{s: domains[s] for s in expr.free_symbols}, **form.aux}
    relaxed = f" (with {', '.join(form.relaxed)} bounded)" if form.relaxed else ""
    num, den = _fraction(form.value)
    num, den = sp.expand(num), sp.expand(den)
    sign = num * den if not den.is_number else num * (1 if den > 0 else -1)
    if _term_sign(sign, variables) in (0, 1):  # most rates: every term >= 0
        how = "sign certificate" + relaxed
    else:
        target = [] if den.is_number else [("rel", den, "!=")]
        target.append(("rel", sp.expand(-sign), ">"))
        status, got = _solve([*form.nodes, *target], variables, timeout_ms)
        how = f"{got}{relaxed}" if status == "unsat" else None
    if how is not None:  # >= 0 wherever defined: and defined somewhere?
        if _defined_somewhere(expr, form, variables, timeout_ms) is False:
            return Decision(False, "not real at any point of the domain")
        return Decision(True, how)
    if status == "unknown":
        return Decision(
            None,
            f"the decision procedure gave no answer within {timeout_ms / 1000:g} s ({got})",
            timed_out=True,
        )
    point = {s: got[s] for s in expr.free_symbols if got.get(s) is not None}
    if not form.relaxed:
        return Decision(False, "decision procedure", point)
    # the point checked on expr itself in interval arithmetic (when it has every variable)
    if len(point) == len(expr.free_symbols) and _arb_sign(expr, point) == -1:
        return Decision(False, "a solution of its bounds, checked in interval arithmetic", point)
    return Decision(
        None,
        f"{', '.join(form.relaxed)} replaced by bounds, and the bounds allow a negative value",
    )


def negative_somewhere(expr, domains: dict) -> Decision:
    """For a rate asserted ``>= 0``: not decided, only evaluated at a few points of the
    domain in interval arithmetic; ``holds`` False with the point where it is negative,
    else True (``how`` says it is the assertion)."""
    expr = sp.sympify(expr)
    free = {s: domains[s] for s in expr.free_symbols}
    for point in _sample_points(free, 6) if free else [{}]:
        if _arb_sign(expr, point) == -1:
            return Decision(False, "evaluated in interval arithmetic", point)
    return Decision(True, "asserted")


def _defined_somewhere(expr, form, variables: dict, timeout_ms: int) -> bool | None:
    """Is ``expr`` real at some point of the domain? At a sample point in interval
    arithmetic, else by nlsat on the conditions of its form (None: no answer in time)."""
    free = {s: variables[s] for s in expr.free_symbols}
    if any(_arb_sign(expr, p) is not None for p in _sample_points(free)):
        return True
    if not form.nodes:
        return True
    status, _ = _solve([*form.nodes, ("true",)], variables, timeout_ms)
    return {"sat": True, "unsat": False}.get(status)


def _sample_points(variables: dict, count: int = 3) -> list:
    """Points of the domain with unremarkable rational coordinates (an identity that
    fails somewhere fails at almost every point)."""
    values = [sp.Rational(7, 3), sp.Rational(13, 11), sp.Rational(5, 17), sp.Rational(29, 7)]
    out = []
    for k in range(count):
        pt = {}
        for i, (v, dom) in enumerate(sorted(variables.items(), key=lambda kv: str(kv[0]))):
            x = values[(i + k) % len(values)] * (i + 2 * k + 1)
            if dom == "probability":
                x = 1 / (1 + x)
            elif dom == "real" and (i + k) % 2:
                x = -x
            pt[v] = x
        out.append(pt)
    return out


def _only_rational(e) -> bool:
    """Built of symbols and rationals by + * and integer powers only."""
    return all(
        a.is_Symbol
        or a.is_Rational
        or ((a.is_Add or a.is_Mul) and a.args)
        or (a.is_Pow and a.exp.is_Integer)
        for a in sp.preorder_traversal(e)
    )


def zero_on(expr, domains: dict, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> bool | None:
    """Is ``expr == 0`` at every point of the domain where it is defined?

    True or False when decided, None when not: a rational function by cancelling it; a
    value proven nonzero in interval arithmetic at a point of the domain (False); an
    algebraic expression (radicals, ``Abs``) by the decision procedure (``expr != 0`` has
    no solution: True; one: False); an exponential identity by SymPy's ``simplify`` (True
    only)."""
    e = sp.sympify(expr)
    if e == 0:
        return True
    if _only_rational(e):
        return sp.cancel(sp.together(e)) == 0
    variables = {s: domains.get(s, "real") for s in e.free_symbols}
    for point in _sample_points(variables) if variables else [{}]:
        if _arb_sign(e, point) in (1, -1):
            return False
    try:
        form = polynomial_form(e, variables, timeout_ms)
    except Undecidable:
        form = None
    if form is not None and not form.relaxed:
        target: list = []
        _rel(form.value, "!=", target)
        every = {**variables, **form.aux}
        status, _ = _solve([*form.nodes, *(target or [("true",)])], every, timeout_ms)
        if status == "sat":
            return False
        if status == "unsat":  # zero wherever defined: and defined somewhere?
            return True if _defined_somewhere(e, form, every, timeout_ms) else None
    with contextlib.suppress(Exception):  # simplify may fail on what it cannot handle
        if sp.simplify(e.rewrite(sp.exp)) == 0:
            return True
    return None


def strict_sign_on(expr, domains: dict, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> int | None:
    """1 if ``expr > 0`` at every point of the domain, -1 if ``< 0`` at every point, 0 if
    ``== 0`` at every point (where it is defined), None otherwise or where undecided.

    Decided exactly: a number by :func:`number_sign`; an expression by the decision
    procedure on its exact polynomial form (``expr <= 0`` has no solution: 1), None where
    the form is a relaxation or the procedure gives no answer in time.

    >>> import sympy as sp
    >>> lam, mu, c = sp.symbols("lam mu c")
    >>> doms = {lam: "positive", mu: "positive", c: "positive"}
    >>> strict_sign_on(lam / mu + c, doms), strict_sign_on(c - lam / mu, doms)
    (1, None)
    """
    e = sp.sympify(expr)
    if not e.free_symbols:
        return number_sign(e, timeout_ms)
    variables = {s: domains.get(s, "real") for s in e.free_symbols}
    zero = zero_on(e, variables, timeout_ms)
    if zero:
        return 0
    try:
        form = polynomial_form(e, variables, timeout_ms)
    except Undecidable:
        return None
    if form.relaxed:
        return None
    every = {**variables, **form.aux}
    for sign in (1, -1):
        target: list = []
        _rel(sign * form.value, ">=", target)  # a point with sign * expr >= 0
        status, _ = _solve([*form.nodes, *(target or [("true",)])], every, timeout_ms)
        if status == "unsat":  # never sign * expr >= 0: -sign * expr > 0 everywhere
            return -sign if _defined_somewhere(e, form, every, timeout_ms) else None
    return None
