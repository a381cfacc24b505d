"""Model-generic Hopf / stability crossings: the smallest parameter at which roots cross.

:func:`critical_parameter` takes a characteristic function ``F(r; p)`` from any model — a
polynomial in ``r`` (exact rational coefficients, polynomial in ``p``) or a retarded
quasi-polynomial ``A(r) + p B(r)`` whose terms carry ``exp(-r tau)`` factors — and finds the
smallest ``p > 0`` at which a root crosses the imaginary axis.

Polynomials (exact). With ``r = i w`` and ``F`` real, ``F(i w; p) = U(w^2; p) + i w V(w^2; p)``
with ``U, V`` in ``Q[s, p]``. A crossing at ``w > 0`` is a common root ``s = w^2 > 0`` of
``U`` and ``V``: eliminating ``s`` by the resultant ``Res_s(U, V)(p)`` (flint) gives every
candidate ``p`` exactly (the real roots of its irreducible factors are isolated by Arb to the
requested digits), and the common roots ``s > 0`` at the ball of each give its frequencies.
Crossings through ``r = 0`` are the roots of ``F(0; p)``, and a root reaches infinity where the
leading coefficient vanishes. These breakpoints are the windows' too
(:mod:`symdelay.analysis.window`, which reads them from here).

Quasi-polynomials (certified numerics). ``F = A + p B`` vanishes at ``i w`` iff
``h(w) = Im(A(i w) conj B(i w)) = 0`` and ``p = -Re(A conj B)/|B|^2``. Sign changes of ``h`` on a
grid finer than the shortest delay period are refined in mpmath and proved by interval
evaluation (Arb) of ``h`` at the ends of a tiny bracket (a root exists there); the scan stops
at the frequency beyond which ``|A(i w)| > p sum_j |B_j(i w)|`` for every smaller candidate.

Either way every candidate is checked with an independent method: the number of roots in the
right half-plane on both sides of it — exact counts (Cauchy index,
:func:`symdelay.analysis.polyroots.exact_counts`) at a rational point of every gap between the
breakpoints, resp. the argument principle on a box that provably holds every unstable root of
the quasi-polynomial. ``p_c`` is the first candidate where the count changes (tangencies are
reported, not taken).

>>> r, p = sp.symbols("r p")
>>> c = critical_parameter((r + 1) ** 3 + p, r, p, dps=20)      # Routh: p_c = 8, w = sqrt 3
>>> c.to_json()["p_c"], c.to_json()["omega"], (c.rhp_below, c.rhp_above)
('8.0000000000000000000', '1.7320508075688772935', (0, 2))
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import flint
import mpmath

from symdelay.analysis.certify import count_zeros, mpc_from_acb_mid, to_arb
from symdelay.analysis.polyroots import _fmpq, _fmpz_primitive, _real_roots, exact_counts
from symdelay.core.errors import CertificationError, SymdelayInputError, VerificationError
from symdelay.core.lazy import module
from symdelay.core.lazy import sympy as sp
from symdelay.core.numbers import format_number
from symdelay.core.params import as_dps
from symdelay.core.precision import GUARD, work_bits

np = module("numpy")  # imported at first use: only the quasi-polynomial scan needs it

__all__ = ["CriticalParameter", "critical_parameter"]


@dataclass(frozen=True)
class CriticalParameter:
    """The smallest crossing ``p_c`` (inf if none), its frequency ``omega`` (>= 0) and the
    right half-plane root counts just below and above it (``rhp_below``, ``rhp_above``).

    ``candidates``: every ``(p, omega)`` where a root touches the axis, in increasing ``p``
    (the tangencies among them do not change the count); ``method``: how they were found.
    """

    expression: object  # the SymPy expression (printed by to_json)
    var: str
    param: str
    dps: int
    p_c: mpmath.mpf
    omega: mpmath.mpf | None
    rhp_below: int | None
    rhp_above: int | None
    method: str
    candidates: tuple = field(default=())
    checks: tuple = field(default=())

    def to_json(self) -> dict:
        return {
            "expression": str(self.expression),
            "var": self.var,
            "param": self.param,
            "p_c": format_number(self.p_c, self.dps),
            "omega": format_number(self.omega, self.dps),
            "rhp_below": self.rhp_below,
            "rhp_above": self.rhp_above,
            "method": self.method,
            "candidates": [
                [format_number(p, self.dps), format_number(w, self.dps)] for p, w in self.candidates
            ],
            "checks": list(self.checks),
        }


# ------------------------------------------------------------------------------ input
def _inputs(charfun, var, param):
    if isinstance(var, str):
        var = sp.Symbol(var)
    if isinstance(param, str):
        param = sp.Symbol(param)
    if isinstance(charfun, str):
        from symdelay.core.parsing import parse_expression

        charfun = parse_expression(charfun, variables=(str(var), str(param)))
    F = sp.sympify(charfun)
    extra = sorted(str(s) for s in F.free_symbols - {var, param})
    if extra:
        raise SymdelayInputError(
            f"the characteristic function has symbols {', '.join(extra)} besides {var} and "
            f"{param}: substitute numbers first"
        )
    if param not in F.free_symbols:
        raise SymdelayInputError(f"the characteristic function does not depend on {param}")
    if F.has(sp.Float):
        from symdelay.core.params import exact_number

        F = F.xreplace({f: exact_number("a number", f) for f in F.atoms(sp.Float)})
    return F, var, param


def _delays(F, var):
    """The delays ``tau`` of the ``exp(-var tau)`` factors (positive rationals), or raise."""
    taus = set()
    for e in F.atoms(sp.exp):
        tau = sp.cancel(-e.args[0] / var)
        if tau.free_symbols or not tau.is_Rational or tau <= 0:
            raise SymdelayInputError(
                f"exponential {e} is not a delay factor exp(-{var}*tau) with rational tau > 0"
            )
        taus.add(tau)
    return sorted(taus)


def critical_parameter(
    charfun,
    var,
    param,
    dps: int = 30,
    *,
    eps=None,
    omega_max=None,
) -> CriticalParameter:
    """Smallest ``p = param > 0`` at which a root of ``charfun(var; p)`` crosses the axis.

    ``charfun`` is a SymPy expression (or text) in ``var`` and ``param`` only: a polynomial
    in ``var`` (coefficients polynomial in ``param``, exact), or ``A(var) + param B(var)`` with
    ``exp(-var tau)`` factors (retarded: the degree of A exceeds every polynomial multiplying
    an exponential). ``eps``: relative offset of the two sides on which the unstable roots
    are counted. ``omega_max``: optional cap on the frequency scan (quasi-polynomials).
    """
    dps = as_dps(dps)
    F, var, param = _inputs(charfun, var, param)
    eps = sp.Rational(1, 10**6) if eps is None else sp.Rational(eps)
    if not 0 < eps < sp.Rational(1, 10):
        raise SymdelayInputError(f"eps must be in (0, 1/10), got {eps}")
    taus = _delays(F, var)
    if taus:
        return _quasi(F, var, param, dps, eps, taus, omega_max)
    return _polynomial(F, var, param, dps, eps)


# ----------------------------------------------------------------------- polynomials
S_NAME, P_NAME, X_NAME = "s", "p", "x"


def _mpf(b: flint.arb) -> mpmath.mpf:
    return mpc_from_acb_mid(flint.acb(b)).real


def _tight(balls, dps: int) -> bool:
    """Every ball is 0 or narrower than ``10^-(dps+2)`` relative: its digits are known."""
    return all(b.is_zero() or b.rad() <= abs(b.mid()) * flint.arb(10) ** (-dps - 2) for b in balls)


def _polynomial(F, var, param, dps, eps):
    try:
        P = sp.Poly(F, var, param)
    except sp.PolynomialError:
        P = None
    if P is None or not P.domain.is_Numerical:
        num, den = sp.fraction(sp.together(sp.expand(F)))
        if den.has(var):
            raise SymdelayInputError(f"the characteristic function is not a polynomial in {var}")
        try:
            P = sp.Poly(sp.expand(num), var, param)
        except sp.PolynomialError:
            raise SymdelayInputError(
                f"the characteristic function must be polynomial in {var} and {param}"
            ) from None
    if not all(c.is_Rational for c in P.coeffs()):
        raise SymdelayInputError("the coefficients must be rational numbers")
    if P.degree(param) == 1:
        A = [sp.Rational(P.coeff_monomial(var**k)) for k in range(P.degree(var) + 1)]
        B = [sp.Rational(P.coeff_monomial(var**k * param)) for k in range(P.degree(var) + 1)]
        fast = critical_linear(A, B, var, param, dps, eps=eps, expression=F)
        if fast is not None:
            return fast
    # the exact breakpoints in p > 0 and the exact unstable counts between them (the
    # machinery of the windows): p_c is the first where a root on the axis changes the count
    poly = _Poly2({m: _fmpq(c) for m, c in P.terms()}, P.degree(var))
    counts, points = _crossings([poly], [1], 0, flint.fmpq(0), None, dps)
    found, first = [], None
    for i, (value, _lower, _upper, omegas, kind, _bound) in enumerate(points):
        if kind in ("no axis root", "degree drop", "singular"):
            continue
        found.extend((value, w) for w in omegas)
        if first is None and counts[i] != counts[i + 1]:
            first = (value, omegas[0] if omegas else None, counts[i], counts[i + 1])
    pv, wv, below, above = first or (mpmath.inf, None, None, None)
    checks = ("exact unstable counts (Cauchy index) in every gap between the candidates",)
    return CriticalParameter(
        F,
        str(var),
        str(param),
        dps,
        pv,
        wv,
        below,
        above,
        "resultant (exact)",
        tuple(found),
        checks,
    )


class _Poly2:
    """A factor ``F(r; p)`` or ``F(r; p, x)`` (exact) as flint objects: ``U, V`` in ``Q[s, p]``
    (``Q[s, p, x]``) with ``F(i w) = U(w^2) + i w V(w^2)``, ``F0 = F(0)`` and ``LC`` (the
    leading coefficient in r) in the same ring (``s`` absent), and, for one parameter, the
    coefficients in r as fmpq_poly in p (``coeffs``, ascending in r)."""

    def __init__(self, terms: dict, n: int, names=(S_NAME, P_NAME)):
        # terms: {(k, j, ...): fmpq} with k the power of r, j, ... those of the parameters
        ctx = flint.fmpq_mpoly_ctx.get(names, "lex")
        self.n = n
        self.den = None  # the cleared denominator, when it depends on p
        by_r = [{} for _ in range(n + 1)]
        u, v = {}, {}
        for (k, *js), c in terms.items():
            by_r[k][tuple(js)] = c
            target = u if k % 2 == 0 else v
            key = (k // 2, *js)
            target[key] = target.get(key, flint.fmpq(0)) + (-c if (k // 2) % 2 else c)
        zero = {(0,) * len(names): 0}

        def mk(d):
            return ctx.from_dict({kk: vv for kk, vv in d.items() if vv != 0} or zero)

        self.U, self.V = mk(u), mk(v)
        self.F0 = mk({(0, *js): c for js, c in by_r[0].items()})
        self.LC = mk({(0, *js): c for js, c in by_r[n].items()})
        if len(names) == 2:
            self.coeffs = [_from_dict1({j: c for (j,), c in d.items()}) for d in by_r]

    def at(self, pq: flint.fmpq) -> list:
        """Coefficients in r (highest first) at an exact ``p``."""
        cs = [c(pq) for c in self.coeffs]
        while len(cs) > 1 and cs[-1] == 0:
            cs.pop()
        return [sp.Rational(int(c.p), int(c.q)) for c in reversed(cs)]


def _from_dict1(d: dict) -> flint.fmpq_poly:
    if not d:
        return flint.fmpq_poly([0])
    deg = max(d)
    return flint.fmpq_poly([d.get(j, flint.fmpq(0)) for j in range(deg + 1)])


def _mpoly_to_poly1(m, var_index: int) -> flint.fmpq_poly:
    d = {}
    for exps, c in m.to_dict().items():
        if any(e for i, e in enumerate(exps) if i != var_index):
            raise VerificationError("an elimination left another variable behind")
        d[exps[var_index]] = d.get(exps[var_index], flint.fmpq(0)) + flint.fmpq(c)
    return _from_dict1(d)


def _exact_end(b: flint.arb, side: str) -> flint.fmpq:
    e = b.upper() if side == "upper" else b.lower()
    m, x = e.man_exp()
    m, x = int(m), int(x)
    return flint.fmpq(m * 2**x) if x >= 0 else flint.fmpq(m, 2 ** (-x))


def _axis_resultant(U, V):
    """``Res_s(U, V)`` (or the part free of ``s``): its zeros are where ``F(i w) = 0`` can
    hold at some ``w > 0``; refused where no crossing is isolated."""
    if U.is_zero() or V.is_zero():
        raise SymdelayInputError(
            "F(i w) is real or imaginary for every w: roots stay on the axis; no isolated "
            "crossings (no window)"
        )
    du, dv = U.degrees()[0], V.degrees()[0]
    res = U.resultant(V, S_NAME) if du > 0 and dv > 0 else (U if du == 0 else V)
    if res.is_zero():
        raise SymdelayInputError(
            "Re F(i w) and Im F(i w) share a factor: roots stay on the imaginary axis over a "
            "range of the parameter; no isolated crossings"
        )
    return res


def _components(polys: list) -> list:
    """Breakpoint polynomials in p, each ``(fmpq_poly, kind, factor index)``."""
    comps = []
    for idx, P in enumerate(polys):
        if P is None:
            continue
        comps.append((P.coeffs[0], "r = 0", idx))
        comps.append((P.coeffs[P.n], "degree drop", idx))
        if P.den is not None:
            comps.append((P.den, "singular", idx))
        comps.append((_mpoly_to_poly1(_axis_resultant(P.U, P.V), 1), "r = i omega", idx))
    return comps


def _irreducibles(comps):
    """Distinct irreducible factors over Q of every component, each with its tags."""
    found = {}
    for poly, kind, idx in comps:
        if poly.degree() < 1:
            continue
        _, facs = poly.factor()
        for g, _e in facs:
            g = g / g[g.degree()]  # monic: the key
            key = str(g)
            entry = found.setdefault(key, [g, set()])
            entry[1].add((kind, idx))
    return list(found.values())


def _breakpoints(irr, lo: flint.fmpq | None, hi: flint.fmpq | None, dps: int):
    """Sorted ``[(ball, tags, exact or None)]`` strictly inside (lo, hi), balls disjoint and
    narrower than ``10^-(dps+2)`` relative (or exact rationals)."""
    prec = work_bits(dps)
    for _attempt in range(10):
        pts, ok = [], True
        for g, tags in irr:
            exact_roots = []
            if g.degree() == 1:
                exact_roots = [-g[0] / g[1]]
            if exact_roots:
                x = exact_roots[0]
                if (lo is None or x > lo) and (hi is None or x < hi):
                    with flint.ctx.workprec(prec):  # a ball as sharp as the others
                        pts.append((flint.arb(x), tags, x))
                continue
            for b, _m in _real_roots(g, prec):
                inside = (lo is None or b > lo) and (hi is None or b < hi)
                outside = (lo is not None and b < lo) or (hi is not None and b > hi)
                if outside:
                    continue
                if not inside or not _tight([b], dps):
                    ok = False  # meets an end or too wide: more precision separates them
                    break
                pts.append((b, tags, None))
            if not ok:
                break
        if ok:
            pts.sort(key=lambda t: t[0].mid())
            if all(not x[0].overlaps(y[0]) for x, y in itertools.pairwise(pts)):
                return pts, prec
        prec *= 2
    raise CertificationError("breakpoints could not be separated: raise dps")


def _between(a, b) -> flint.fmpq:
    """A rational strictly between two breakpoints (None: an open infinite end)."""
    if a is None and b is None:
        return flint.fmpq(0)
    if a is None:
        x = b if isinstance(b, flint.fmpq) else _exact_end(b, "lower")
        return x - 1 - abs(x)
    if b is None:
        x = a if isinstance(a, flint.fmpq) else _exact_end(a, "upper")
        return x + 1 + abs(x)
    xa = a if isinstance(a, flint.fmpq) else _exact_end(a, "upper")
    xb = b if isinstance(b, flint.fmpq) else _exact_end(b, "lower")
    if not xb > xa:
        raise CertificationError("two breakpoints are not separated: raise dps")
    return (xa + xb) / 2


def _eval_ball(poly: flint.fmpq_poly, b: flint.arb) -> flint.arb:
    acc = flint.arb(0)
    for c in reversed(poly.coeffs()):
        acc = acc * b + flint.arb(c)
    return acc


def _coeffs_s(m, b: flint.arb) -> list:
    """``m(s, p)`` at the ball ``p = b``: arb coefficients in s (ascending)."""
    by = {}
    for (es, ep), c in m.to_dict().items():
        by.setdefault(es, {})[ep] = flint.fmpq(c)
    deg = max(by) if by else 0
    return [_eval_ball(_from_dict1(by.get(k, {})), b) for k in range(deg + 1)]


def _isolate_s(coeffs: list, prec: int):
    """Roots of a polynomial with ball coefficients (ascending), refined as far as the
    balls allow; None when Arb cannot isolate them (a multiple root, too wide balls)."""
    while len(coeffs) > 1 and coeffs[-1].is_exact() and coeffs[-1] == 0:
        coeffs.pop()
    if len(coeffs) == 1:
        return []
    if coeffs[-1].contains(0):
        return None
    a = flint.acb_poly([flint.acb(x) for x in coeffs])
    for bits in (prec - 40, prec // 2, prec // 4, None):
        try:
            if bits is None:
                return a.roots(maxprec=4 * prec)
            return a.roots(tol=flint.arb(2) ** (-bits), maxprec=4 * prec)
        except ValueError:
            continue
    return None


def _axis_at(P: _Poly2, b: flint.arb, prec: int):
    """``(ws, bound)`` for the factor at the ball ``p = b``: the frequencies ``w > 0`` of
    the roots that may be on the axis, and an upper bound on how many roots (with
    multiplicity) are on it; ``bound`` None when Arb could not isolate them."""
    with flint.ctx.workprec(prec):
        c = [_eval_ball(q, b) for q in P.coeffs]
        z0 = 0
        while z0 < len(c) and c[z0].contains(0):
            z0 += 1
        if z0 == len(c):
            return (), None
        cu, cv = _coeffs_s(P.U, b), _coeffs_s(P.V, b)
        # w > 0 on the axis: a common root s > 0 of U and V; isolate the roots of one part
        # of positive degree and keep those where the other part can vanish
        first, other = (cu, cv) if len(cu) > 1 else (cv, cu)
        if len(first) == 1:
            return (), z0
        roots = _isolate_s(list(first), prec)
        if roots is None:
            return (), None
        ws, count = [], 0
        for z in roots:
            if not z.imag.contains(0) or z.real < 0:
                continue
            sb = z.real
            val = flint.arb(0)
            for x in reversed(other):
                val = val * sb + x
            if not val.contains(0):
                continue  # the other part does not vanish there: no axis root at this s
            count += 2
            if sb > 0:
                ws.append(sb.sqrt())
        return tuple(ws), z0 + count


def _mp_ball(b: flint.arb) -> mpmath.mpf:
    return mpmath.mpf(b.mid().str(mpmath.mp.dps + 5, radius=False))


def _mp_q(q: flint.fmpq) -> mpmath.mpf:
    return mpmath.mpf(int(q.p)) / int(q.q)


def _crossings(polys, mults, const_rhp, lo, hi, dps):
    """``(counts, points)`` of exact factor polynomials in ``p`` on ``(lo, hi)`` (fmpq or
    None: infinite): every ``p`` where a root can reach the axis or infinity (see the module
    docstring), each ``(value, lower, upper, omegas, kind, bound)`` (an mpmath value, its
    exact bracket, the crossing frequencies, the kind and an upper bound on the roots on
    the axis there, None when Arb could not isolate them), and ``counts[i]``, the exact
    unstable count (with multiplicities; ``const_rhp`` added for the factors free of p,
    ``polys`` None) on the gap before ``points[i]``."""
    irr = _irreducibles(_components(polys))
    pts, prec = _breakpoints(irr, lo, hi, dps)

    def count(pq):
        n = const_rhp
        for P, m in zip(polys, mults):
            if P is not None:
                n += m * exact_counts(P.at(pq)).rhp
        return n

    bounds = [lo, *[b for b, _, _ in pts], hi]
    counts = [count(_between(a, b)) for a, b in itertools.pairwise(bounds)]
    points = []
    with mpmath.workdps(dps + GUARD):
        for b, tags, exact in pts:
            kinds = {k for k, _ in tags}
            omegas, drop, per = [], False, {}
            for kind, idx in sorted(tags):
                if kind in ("degree drop", "singular"):
                    drop = kind
                    continue
                if kind == "r = 0":
                    omegas.append(mpmath.mpf(0))
                if idx not in per:
                    per[idx] = _axis_at(polys[idx], b, prec + 64)
                if kind == "r = i omega":
                    omegas.extend(_mp_ball(w) for w in per[idx][0])
            nbs = [nb for _, nb in per.values()]
            bound = (
                None if any(nb is None for nb in nbs) else sum(mults[i] * per[i][1] for i in per)
            )
            omegas = sorted(set(omegas))
            if drop:
                kind = drop
            elif bound is None and not omegas:
                kind = "r = i omega (not isolated)"
            elif omegas and "r = 0" in kinds and omegas[0] == 0:
                kind = "r = 0" if len(omegas) == 1 else "r = 0, r = i omega"
            elif omegas:
                kind = "r = i omega"
            else:
                kind = "no axis root" if bound == 0 else "r = i omega (not isolated)"
            lower = exact if exact is not None else _exact_end(b, "lower")
            upper = exact if exact is not None else _exact_end(b, "upper")
            value = _mp_q(exact) if exact is not None else _mp_ball(b)
            points.append((value, lower, upper, tuple(omegas), kind, bound))
    # machine check: the count changes only where a root can be on the axis
    for i, pt in enumerate(points):
        if counts[i] != counts[i + 1] and pt[4] == "no axis root":
            raise VerificationError(
                f"the unstable count changes at {pt[0]} but no root is on the axis there"
            )
    return counts, points


def _rational(c: flint.fmpq | None):
    """An fmpq as a SymPy rational (None stays None)."""
    return None if c is None else sp.Rational(int(c.p), int(c.q))


def _split_parts(coeffs):
    """``(R, I)`` (fmpq_poly in ``s = w^2``) with ``sum c_k (i w)^k = R(s) + i w I(s)``."""
    re, im = [], []
    for k, c in enumerate(coeffs):
        c = _fmpq(c)
        (re if k % 2 == 0 else im).append(-c if (k // 2) % 2 else c)
    return flint.fmpq_poly(re or [0]), flint.fmpq_poly(im or [0])


def critical_linear(
    A, B, var, param, dps: int = 30, *, eps=None, expression=None, baseline=None, upto=None
):
    """:func:`critical_parameter` for ``F = A(var) + param B(var)`` (``A``, ``B``: exact
    rational coefficients, ascending), without a resultant: ``F(i w) = 0`` is linear in
    ``p``, so with ``A(i w) = R_A(s) + i w I_A(s)`` (likewise ``B``, ``s = w^2``) a crossing
    at ``w > 0`` is a positive root of the one polynomial ``h = R_A I_B - I_A R_B`` (degree
    about ``deg F / 2``, Arb-isolated) with ``p = -R_A/R_B = -I_A/I_B`` there, and one
    through ``r = 0`` is ``p = -A(0)/B(0)``. The same candidates as the resultant's, decided
    by the same counts on both sides. None where this does not apply (``h = 0``, ``F(i w)``
    real or imaginary for every ``w``, a root where ``R_B = I_B = 0``): the caller then
    uses the resultant path.

    ``baseline``: the exact unstable count of ``A`` (None: unknown, or ``A`` has a root on
    the axis). Given it, the counts on both sides are proved without solving ``F``: for
    ``0 < p < p_1`` (the first candidate) no root is on the axis and the degree does not
    drop, so the count is ``baseline``; at a candidate whose axis root ``i w`` is simple
    (``F_r(i w) != 0``), alone (the candidates are separated, the root of ``h`` simple) and
    transversal (``Re dr/dp = -Re(B/F_r)`` excludes 0, in Arb) the count changes by
    ``2 sgn Re dr/dp`` (``w > 0``; ``w = 0``: by the sign). Otherwise the counts come from
    certified roots on both sides, as in :func:`critical_parameter`.

    The positive roots of ``h`` are isolated by Descartes' rule of signs on intervals between
    Fujiwara's bounds (:func:`_isolate_positive`: complete, each kept root simple and alone
    in its interval), not by solving ``h`` for every complex root (the fallback when that
    does not separate them). ``upto`` (a number > 1, with ``baseline``): list only the
    crossings up to ``upto`` times the first one, ``p_1``: the search stops at the ``s``
    beyond which ``|A(i w)| > upto p_1 |B(i w)|`` (so ``|p| > upto p_1`` at any root of ``h``
    there); where the transversality proof does not apply, every candidate is found."""
    dps = as_dps(dps)
    if upto is not None and not upto > 1:
        raise SymdelayInputError(
            f"upto must be a number > 1 (or None for every candidate), got {upto}"
        )
    eps = sp.Rational(1, 10**6) if eps is None else sp.Rational(eps)
    A = [_fmpq(c) for c in A]
    B = [_fmpq(c) for c in B]
    n = max(len(A), len(B))
    A += [flint.fmpq(0)] * (n - len(A))
    B += [flint.fmpq(0)] * (n - len(B))
    RA, IA = _split_parts(A)
    RB, IB = _split_parts(B)
    if (RA.is_zero() and RB.is_zero()) or (IA.is_zero() and IB.is_zero()):
        return None
    h = RA * IB - IA * RB
    if h.is_zero():
        return None
    prec = work_bits(dps)
    hz = _fmpz_primitive(h) if h.degree() >= 1 else None
    p0 = -A[0] / B[0] if B[0] != 0 else None
    norms = None
    if upto is not None and hz is not None:
        x = flint.fmpq_poly([0, 1])
        norms = (RA * RA + x * IA * IA, RB * RB + x * IB * IB)  # |A(i w)|^2, |B(i w)|^2
    span = upto
    proved = None
    for _attempt in range(5):  # precision doubled until every candidate has the digits
        got = _linear_candidates(hz, RA, IA, RB, IB, p0, prec, span, norms)
        if got is None:
            prec *= 2
            continue
        cands, simple, pruned = got
        if not _tight([b for c in cands for b in c], dps):
            prec *= 2
            continue
        cands.sort(key=lambda c: float(c[0].mid()))
        proved = None
        if baseline is not None and simple:
            proved = _transversal(A, B, cands, baseline)
        if proved is None and pruned:
            span = None  # the counts decide: every candidate is needed
            continue
        with mpmath.workdps(dps + GUARD):
            found = [(_mpf(pb), _mpf(wb)) for pb, wb in cands]
        break
    else:
        return None  # the resultant path decides

    def count(pv):
        pq = _fmpq(pv)
        q = [_rational(a + pq * b) for a, b in zip(A, B)]
        while len(q) > 1 and q[-1] == 0:
            q.pop()
        return exact_counts(q[::-1]).rhp

    if expression is None:
        expression = sum(_rational(a) * var**k for k, a in enumerate(A)) + param * sum(
            _rational(b) * var**k for k, b in enumerate(B)
        )
    method = "linear in the parameter: Im(A conj B)(w^2) = 0 (exact)"
    if proved is None:
        checks = ("exact unstable counts (Cauchy index) on both sides",)
        return _decide(expression, var, param, dps, eps, found, count, method, checks)
    i, below, above = proved
    first = (*found[i], below, above) if i is not None else (mpmath.inf, None, None, None)
    checks = (
        "exact unstable count of F(r; 0), no axis root and constant degree below "
        "the first candidate, transversal simple crossing (Arb): counts on both sides",
    )
    if pruned:
        checks += (
            f"candidates: every crossing at p <= {span} p_1 (beyond the bound on s "
            f"where |A(i w)| > {span} p_1 |B(i w)| none is listed)",
        )
    return CriticalParameter(
        expression, str(var), str(param), dps, *first, method, tuple(found), checks
    )


# ------------------------------------------------- positive real roots of h (Descartes)
#: Descartes tests an isolation may take, per unit of degree, before it gives up (the caller
#: then isolates every complex root): a multiple root, or roots closer than the search resolves
NODES = 8


def _root_exponent(cs) -> int:
    """``e`` with ``|z| < 2^e`` for every root of ``sum cs[k] x^k`` (``cs[-1] != 0``):
    Fujiwara's bound ``2 max_k |c_(d-k)/c_d|^(1/k)`` from the bit lengths, rounded up."""
    d = len(cs) - 1
    bd = cs[d].bit_length()
    best = 0
    for k in range(1, d + 1):
        c = cs[d - k]
        if c:
            best = max(best, -(-(c.bit_length() - bd + 1) // k))
    return best + 2


def _variations(cs) -> int:
    signs = [c > 0 for c in cs if c]
    return sum(a != b for a, b in itertools.pairwise(signs))


def _descartes(hz: flint.fmpz_poly, a: flint.fmpq, b: flint.fmpq) -> int:
    """Sign variations of ``(1 + x)^d h((a + b x)/(1 + x))``: an upper bound on the number of
    roots of ``h`` in the open interval ``(a, b)``, exact when it is 0 or 1 (Descartes)."""
    q = hz(flint.fmpq_poly([a, b - a])).numer()  # h(a + (b - a) y), y in (0, 1)
    rev = flint.fmpz_poly(q.coeffs()[::-1])  # y -> 1/y: (1, inf)
    return _variations(rev(flint.fmpz_poly([1, 1])).coeffs())  # y -> 1 + x: (0, inf)


def _sign(hz, ha, x: flint.fmpq, wp: int) -> int:
    """The sign of ``h`` at the rational ``x``: Arb at ``wp`` bits, exact if that is unsure."""
    with flint.ctx.workprec(wp):
        v = ha(flint.arb(x))
    if v > 0:
        return 1
    if v < 0:
        return -1
    e = hz(x)
    return (e > 0) - (e < 0)


def _dyadic(b: flint.arb) -> flint.fmpq:
    m, e = b.mid().man_exp()
    return flint.fmpq(m) * flint.fmpq(2) ** int(e) if e < 0 else flint.fmpq(m * 2 ** int(e))


def _above(b: flint.arb, bits: int = 8) -> flint.fmpq:
    """A dyadic number of ``bits`` significant bits at least every point of the ball ``b > 0``
    (short numbers keep the exact Taylor shifts cheap)."""
    m, e = b.upper().man_exp()
    m, e = int(m), int(e)
    drop = max(m.bit_length() - bits, 0)
    m = -(-m >> drop) if drop else m  # ceil of m / 2^drop
    e += drop
    return flint.fmpq(m) * flint.fmpq(2) ** e if e < 0 else flint.fmpq(m * 2**e)


def _refine(hz, ha, dha, a, b, sa, bits, wp):
    """``(ball, left, right)``: an Arb ball of relative radius ``2^-bits`` around the one root
    of ``h`` in ``(a, b)`` (``sa``: the sign of ``h`` at ``a``, opposite at ``b``), from
    safeguarded Newton on Arb midpoints, and the bracket ``[left, right]`` across which the
    sign change is proved (so the root is in it; ``left == right``: the root, exactly)."""
    lo, hi = a, b
    x = (lo + hi) / 2
    newton = 0
    for _ in range(4 * bits + 64):
        s = _sign(hz, ha, x, wp)
        if s == 0:
            return flint.arb(x), x, x
        if s == sa:
            lo = x
        else:
            hi = x
        if hi - lo <= abs(x) * flint.fmpq(2) ** (-bits - 2):
            break
        with flint.ctx.workprec(wp):
            d, v = dha(flint.arb(x)), ha(flint.arb(x))
            # a Newton step only from values known to a few bits (else: bisect)
            sharp = not d.contains(0) and v.rad() * 8 < abs(v.mid()) and d.rad() * 8 < abs(d.mid())
            step = _dyadic(v / d) if sharp else None
        if step is None and v.contains(0) and not d.contains(0):
            break  # h(x) is below the rounding at wp: x is the root to that; prove it below
        if step is not None and abs(step) <= abs(x) * flint.fmpq(2) ** (-bits - 4):
            break  # x is the root to the bits asked for
        xn = None if step is None else x - step
        if hi > 2 * lo:  # a wide bracket: halve it geometrically (Newton creeps at large x)
            e = (lo.p.bit_length() - lo.q.bit_length() + hi.p.bit_length() - hi.q.bit_length()) // 2
            xn = flint.fmpq(2) ** e
            if not lo < xn < hi:
                xn = (lo + hi) / 2
        elif newton >= 8:  # Newton not converging fast: bisect, then try it again
            xn, newton = (lo + hi) / 2, 0
        newton += 1
        x = xn if xn is not None and lo < xn < hi else (lo + hi) / 2
    # prove: h(x - delta) and h(x + delta) have the signs of h(a) and h(b)
    delta = abs(x) * flint.fmpq(2) ** (-bits)
    for _ in range(8):
        left, right = max(x - delta, a), min(x + delta, b)
        if left == a or right == b:
            left, right = lo, hi  # the bracket itself
        if _sign(hz, ha, left, wp) == sa and _sign(hz, ha, right, wp) == -sa:
            break
        delta *= 4
    else:  # bisection on exact signs, which always ends
        left, right = lo, hi
        while right - left > abs(left) * flint.fmpq(2) ** (-bits):
            m = (left + right) / 2
            sm = _sign(hz, ha, m, wp)
            if sm == 0:
                return flint.arb(m), m, m
            left, right = (m, right) if sm == sa else (left, m)
    mid = (left + right) / 2
    with flint.ctx.workprec(wp):
        return flint.arb(mid, flint.arb((right - left) / 2).upper()), left, right


def _isolate_positive(hz, bits, wp, bound=None, wanted=None):
    """The positive roots of ``hz`` (fmpz_poly), left to right, each an Arb ball of relative
    radius ``2^-bits`` proved to hold exactly one simple root, or None where the search does
    not separate them within ``64 + NODES deg h`` Descartes tests (a multiple root, a cluster).

    Complete: ``h`` is checked squarefree (``gcd(h, h') = 1``, else None), the search starts
    from the open interval between Fujiwara's bounds on the root moduli (of ``h`` and of its
    reverse), every interval it discards has a Descartes count of 0, every root it keeps is
    alone in an interval with count 1 (hence simple), and every split point is checked to be
    no root (moved until it is none). ``bound(found) -> s_max``
    (optional): called after each root with the list so far; the search leaves out what lies
    beyond ``s_max`` (its caller proves no root there matters). ``wanted(ball) -> bool``
    (optional): a root is first refined to 32 bits, and to ``bits`` only where this says so."""
    cs = hz.coeffs()
    k = 0
    while k < len(cs) and cs[k] == 0:
        k += 1
    cs = cs[k:]  # roots at s = 0 are no positive roots
    if len(cs) <= 1:
        return []
    h = flint.fmpz_poly(cs)
    if _variations(cs) == 0:
        return []
    if h.gcd(h.derivative()).degree() > 0:
        return None  # a multiple root (Descartes bisection ends only on squarefree input)
    with flint.ctx.workprec(wp):
        ha = flint.arb_poly([flint.arb(c) for c in cs])
        dha = ha.derivative()
    two = flint.fmpq(2)
    lo, hi = two ** (-_root_exponent(cs[::-1])), two ** _root_exponent(cs)
    stack = [(lo, hi, _variations(cs))]  # (a, b, Descartes count on (a, b) if known)
    found = []
    s_max = None
    nodes = 0
    while stack:
        a, b, v = stack.pop()
        if s_max is not None:
            if a >= s_max:
                break  # left to right: every interval left on the stack lies beyond
            if b > s_max and h(s_max) != 0:
                b, v = s_max, None  # what lies beyond s_max does not matter
        if v is None:
            nodes += 1
            if nodes > 64 + NODES * len(cs):
                return None
            v = _descartes(h, a, b)
        if v == 0:
            continue
        if v == 1:
            sa = _sign(h, ha, a, wp)
            ball, left, right = _refine(h, ha, dha, a, b, sa, min(bits, 32), wp)
            if bits > 32 and left != right and (wanted is None or wanted(ball)):
                ball = _refine(h, ha, dha, left, right, sa, bits, wp)[0]
            found.append(ball)
            if bound is not None:
                s_max = bound(found)
            continue
        m = a * b if b > 4 * a else None
        if m is not None:  # split geometrically (at a power of two near sqrt(a b))
            e = (m.p.bit_length() - m.q.bit_length()) // 2
            m = two**e
            if not a < m < b:
                m = None
        if m is None:
            m = (a + b) / 2
        for _ in range(8):  # a split point that is no root (h is squarefree: few are)
            if h(m) != 0:
                break
            m = m + (b - m) / 64
        else:
            return None
        stack.append((m, b, None))
        stack.append((a, m, None))
    return found


def _p_at(RA, IA, RB, IB, sb):
    """``p = -R_A/R_B = -I_A/I_B`` at the root ball ``sb`` of ``h`` (None: undecided here)."""
    rb, ib = flint.arb_poly(RB)(sb), flint.arb_poly(IB)(sb)
    if not rb.contains(0):
        pb = -flint.arb_poly(RA)(sb) / rb
    elif not ib.contains(0):
        pb = -flint.arb_poly(IA)(sb) / ib
    else:
        return None  # R_B = I_B = 0 here, or too few bits: raise precision
    return None if pb.contains(0) else pb


def _beyond_s(norms, P: flint.arb, s_try: flint.fmpq):
    """``s_try`` if ``|A(i w)|^2 > P^2 |B(i w)|^2`` for every ``s = w^2 > s_try`` (so every
    crossing there has ``|p| > P``): the difference ``G`` grows (``deg A > deg B``) and
    ``G(s_try + x)`` has no sign variation (Descartes: no root beyond ``s_try``) and
    ``G(s_try) > 0``; else None."""
    na, nb = norms
    pq = _above(P)
    g = (na - nb * pq * pq).numer()
    cs = g.coeffs()
    if len(cs) < 2 or cs[-1] <= 0:
        return None
    shifted = g(flint.fmpq_poly([s_try, 1])).numer().coeffs()
    return s_try if shifted[0] > 0 and _variations(shifted) == 0 else None


def _linear_candidates(hz, RA, IA, RB, IB, p0, prec, span, norms):
    """``(candidates, simple, pruned)`` of :func:`critical_linear` at ``prec`` bits: the
    crossing through 0 and one ``(p, w)`` ball per positive root of ``h`` with ``p > 0``,
    isolated by Descartes (:func:`_isolate_positive`; every complex root of ``h`` where that
    does not separate them). ``span``: list only what lies below ``s_max`` for
    ``P = span * p_1`` (``pruned``: this cut something). None: raise the precision."""
    cands = []
    pmin = None
    if p0 is not None and p0 > 0:
        cands.append((to_arb(p0), flint.arb(0)))
        pmin = to_arb(p0)
    if hz is None:
        return cands, True, False
    state = {"loose": False, "pmin": pmin, "pruned": False, "tried": None, "s_max": None}

    def bound(found):
        with flint.ctx.workprec(prec):
            sb = found[-1]
            pb = _p_at(RA, IA, RB, IB, sb)
            if pb is None:
                state["loose"] = True
                return flint.fmpq(0)  # stop: this precision does not decide
            if pb > 0:
                cands.append((pb, sb.sqrt()))
                if state["pmin"] is None or pb.upper() < state["pmin"].upper():
                    state["pmin"] = pb
            if span is None or norms is None or state["pmin"] is None:
                return None
            if state["s_max"] is not None:
                return state["s_max"]  # p_1 only falls: the first bound stays valid
            s_try = 4 * _above(sb)
            if state["tried"] is not None and s_try < 2 * state["tried"]:
                return state["s_max"]  # a geometric ladder: one test per doubling
            state["tried"] = s_try
            s_max = _beyond_s(norms, state["pmin"] * span, s_try)
            if s_max is not None:
                state["s_max"] = s_max
                state["pruned"] = True
            return state["s_max"]

    def wanted(sb):  # a root where p < 0 for sure lists no candidate: 32 bits suffice
        with flint.ctx.workprec(prec):
            pb = _p_at(RA, IA, RB, IB, sb)
        return pb is None or not pb < 0

    roots = _isolate_positive(hz, prec, 2 * prec + 64, bound, wanted)
    if state["loose"]:
        return None
    if roots is not None:
        return cands, True, state["pruned"]
    # Descartes did not separate the roots (a multiple root, a cluster): every complex root
    del cands[int(bool(p0 is not None and p0 > 0)) :]
    simple = True
    with flint.ctx.workprec(prec):
        for c, mult in hz.complex_roots():
            if not (c.imag.is_exact() and c.imag == 0 and c.real > 0):
                continue
            simple = simple and mult == 1
            pb = _p_at(RA, IA, RB, IB, c.real)
            if pb is None:
                return None
            if pb > 0:
                cands.append((pb, c.real.sqrt()))
    return cands, simple, False


def _transversal(A, B, cands, baseline):
    """``(index of p_c, count below, count above)`` proved by transversality (see
    :func:`critical_linear`), ``(None, baseline, baseline)`` without a candidate, or None
    where the proof does not apply."""
    for x, y in itertools.pairwise(cands):
        if x[0].overlaps(y[0]):
            return None
    n = len(A) - 1
    an, bn = A[n], B[n]
    if an == 0:
        return None  # a root comes in from infinity as p leaves 0
    if bn != 0 and -an / bn > 0:
        top = to_arb(-an / bn)
        if not cands or not top > cands[0][0] * 2:
            return None  # the degree drops before (or near) the first candidate
    if not cands:
        return None if (bn != 0 and -an / bn > 0) else (None, baseline, baseline)
    pb, wb = cands[0]
    Aq = flint.fmpq_poly([_fmpq(c) for c in A])
    Bq = flint.fmpq_poly([_fmpq(c) for c in B])
    z = flint.acb(0, wb)
    Fr = flint.acb_poly(Aq.derivative())(z) + pb * flint.acb_poly(Bq.derivative())(z)
    if Fr.contains(0):
        return None
    d = -(flint.acb_poly(Bq)(z) / Fr).real
    if d.contains(0):
        return None
    step = (2 if not wb.is_zero() else 1) * (1 if d > 0 else -1)
    return 0, baseline, baseline + step


def _decide(F, var, param, dps, eps, found, count, method, checks):
    """p_c = first candidate where the right half-plane count changes across it."""
    first = (mpmath.inf, None, None, None)
    with mpmath.workdps(dps + GUARD):
        for i, (pv, wv) in enumerate(found):
            # both sides strictly between the neighbouring candidates
            gap = eps
            if i > 0:
                gap = min(gap, (pv - found[i - 1][0]) / pv / 3)
            if i + 1 < len(found):
                gap = min(gap, (found[i + 1][0] - pv) / pv / 3)
            if gap <= 0:
                continue  # a double candidate (two crossings at one p): counted at the next
            g = sp.Rational(mpmath.nstr(gap, 5))
            pq = sp.Rational(mpmath.nstr(pv, dps + 5))
            below, above = count(pq * (1 - g)), count(pq * (1 + g))
            if below != above:
                first = (pv, wv, below, above)
                break
    return CriticalParameter(F, str(var), str(param), dps, *first, method, tuple(found), checks)


# ----------------------------------------------------------------- quasi-polynomials
def _quasi_parts(F, var, param):
    """``(A, B, A as a Poly, {tau: B_tau as a Poly})`` of a retarded ``F = A(var) + param
    sum_tau B_tau(var) exp(-var tau)`` with rational coefficients, or refuse in one line."""
    F = sp.expand(F)
    if sp.diff(F, param, 2) != 0:
        raise SymdelayInputError(
            f"a quasi-polynomial must be linear in {param}: A({var}) + {param}*B({var})"
        )
    A = sp.expand(F.subs(param, 0))
    B = sp.expand(sp.diff(F, param))
    if A.has(sp.exp):
        raise SymdelayInputError(
            f"the delay terms must carry {param}: F = A({var}) + {param}*B({var}) with A a polynomial"
        )
    try:
        A_poly = sp.Poly(A, var)
    except sp.PolynomialError:
        raise SymdelayInputError(
            f"A({var}) must be a polynomial in {var}: for a distributed lag build the model "
            "with its lags and call critical(model, ...)"
        ) from None
    if not all(c.is_Rational for c in A_poly.coeffs()):
        raise SymdelayInputError("the coefficients must be rational numbers")
    # B = sum_j B_j(var) exp(-var tau_j) (+ B_0(var))
    parts = {}
    for term in sp.Add.make_args(B):
        ex = [f for f in sp.Mul.make_args(term) if isinstance(f, sp.exp)]
        if ex:
            tau = sp.cancel(-sp.Add(*[e.args[0] for e in ex]) / var)
            coeff = sp.cancel(term / sp.Mul(*ex))
        else:
            tau, coeff = sp.Integer(0), term
        parts[tau] = parts.get(tau, 0) + coeff
    try:
        Bj = {tau: sp.Poly(sp.expand(b), var) for tau, b in parts.items()}
    except sp.PolynomialError:
        raise SymdelayInputError(
            f"the delay terms must be polynomials in {var} times exp(-{var}*tau): for a "
            f"distributed lag build the model with its lags and call critical(model, ...) "
            f"or window(model, ...), which read the kernels"
        ) from None
    if any(not all(c.is_Rational for c in b.coeffs()) for b in Bj.values()):
        raise SymdelayInputError("the coefficients must be rational numbers")
    n = A_poly.degree()
    if any(b.degree() >= n for b in Bj.values()):
        raise SymdelayInputError(
            "only retarded quasi-polynomials are supported: deg A must exceed the degree of "
            "every polynomial multiplying a delay"
        )
    return A, B, A_poly, Bj


def _quasi(F, var, param, dps, eps, taus, omega_max):
    A, B, A_poly, Bj = _quasi_parts(F, var, param)
    ab = _arb_AB(A_poly, Bj)
    fA = sp.lambdify(var, A, "mpmath")
    fB = sp.lambdify(var, B, "mpmath")
    prec = work_bits(dps)
    with mpmath.workdps(dps + GUARD):

        def h(wv):
            z = mpmath.mpc(0, wv)
            return mpmath.im(fA(z) * mpmath.conj(fB(z)))

        def p_of(wv):
            z = mpmath.mpc(0, wv)
            a, b = fA(z), fB(z)
            return -mpmath.re(a * mpmath.conj(b)) / abs(b) ** 2

        found = []
        b0 = B.subs(var, 0)
        if b0 != 0:
            p0 = -A.subs(var, 0) / b0
            if p0 > 0:
                found.append((mpmath.mpf(p0.p) / p0.q, mpmath.mpf(0)))
        tmax = float(max(taus))
        step = min(float(mpmath.pi) / (16 * tmax), 0.05 * (1 + _scale(A_poly)))
        limit = 1e6 * (1 + _scale(A_poly)) if omega_max is None else float(omega_max)
        # the scan runs in float64 (vectorised); each sign change is redone in mpmath and
        # proved with Arb. It stops at R(best): beyond it |A(i w)| > best sum_j |B_j(i w)|.
        fAn, fBn = (sp.lambdify(var, e, "numpy") for e in (A, B))
        stop = limit
        start = step / 64
        while start < stop:
            ws = start + step * np.arange(1025)
            with np.errstate(all="ignore"):
                hs = np.imag(fAn(1j * ws) * np.conj(fBn(1j * ws))) * np.ones_like(ws)
            for i in np.flatnonzero((hs[:-1] <= 0) != (hs[1:] <= 0)):
                if ws[i] >= stop:
                    break
                a, b = mpmath.mpf(float(ws[i])), mpmath.mpf(float(ws[i + 1]))
                ha, hb = h(a), h(b)
                if ha == 0:
                    root = a
                elif (ha < 0) == (hb < 0):
                    continue  # float64 noise: no sign change at full precision
                else:
                    root = mpmath.findroot(h, (a, b), solver="anderson")
                _prove_sign_change(ab, root, prec)
                pv = p_of(root)
                if pv > 0:
                    found.append((pv, root))
                    if omega_max is None:
                        stop = min(stop, _beyond(A_poly, Bj, min(q for q, _ in found)))
            start = float(ws[-1])
        found.sort()

    def count(pv):
        return _count_quasi(A_poly, Bj, var, pv)

    return _decide(
        F,
        var,
        param,
        dps,
        eps,
        found,
        count,
        "frequency scan + interval-proved sign changes",
        ("argument principle on a box holding every unstable root, both sides",),
    )


def _scale(A_poly):
    cs = [abs(float(c)) for c in A_poly.all_coeffs()]
    return max(cs[1:], default=0) / cs[0]


def _majorant_radius(A_poly, Bj, p):
    """``R`` with ``|A(z)| > |p| sum_j |B_j(z)|`` for ``|z| >= R`` (the Cauchy bound of the
    majorant ``|a_n| w^n - sum_k (|a_k| + |p| sum_j |b_jk|) w^k``), an exact rational."""
    cA = [abs(sp.Rational(c)) for c in A_poly.all_coeffs()]
    n = len(cA) - 1
    major = [sp.Integer(0)] * n
    for k in range(1, n + 1):
        major[k - 1] += cA[k]
    for b in Bj.values():
        cb = [abs(sp.Rational(c)) for c in b.all_coeffs()]
        for j, c in enumerate(cb):
            major[n - 1 - (len(cb) - 1 - j)] += abs(p) * c
    return 1 + max(m / cA[0] for m in major)


def _beyond(A_poly, Bj, pmax):
    """R with |A(i w)| > pmax sum_j |B_j(i w)| for every w >= R (:func:`_majorant_radius`
    at ``2 pmax``)."""
    return float(_majorant_radius(A_poly, Bj, sp.Rational(mpmath.nstr(pmax, 15)) * 2))


def _arb_AB(A_poly, Bj):
    """``z -> (A(z), B(z))`` on Arb boxes from the exact coefficients (Horner, exact delays);
    the coefficient balls are made once per working precision."""
    a_c = [sp.Rational(c) for c in A_poly.all_coeffs()]
    b_c = [(sp.Rational(tau), [sp.Rational(c) for c in b.all_coeffs()]) for tau, b in Bj.items()]
    cache = {}

    def balls():
        prec = flint.ctx.prec
        if prec not in cache:
            cache[prec] = (
                [to_arb(c) for c in a_c],
                [(None if t == 0 else -to_arb(t), [to_arb(c) for c in cs]) for t, cs in b_c],
            )
        return cache[prec]

    def horner(cs, z):
        acc = flint.acb(0)
        for c in cs:
            acc = acc * z + c
        return acc

    def ab(z):
        ac, bc = balls()
        b = flint.acb(0)
        for mtau, cs in bc:
            t = horner(cs, z)
            b += t if mtau is None else t * (z * mtau).exp()
        return horner(ac, z), b

    return ab


def _prove_sign_change(ab, root, prec):
    """Arb: h changes sign across a tiny bracket around ``root`` (so a zero exists there)."""
    with flint.ctx.workprec(prec):
        d = abs(root) * mpmath.mpf(2) ** (-(prec // 2)) + mpmath.mpf(2) ** (-prec // 2)
        vals = []
        for x in (root - d, root + d):
            a, b = ab(flint.acb(0, to_arb(x)))
            vals.append((a * b.conjugate()).imag)
        if not ((vals[0] < 0 and vals[1] > 0) or (vals[0] > 0 and vals[1] < 0)):
            raise CertificationError(
                f"could not prove a sign change of Im(A conj B) near w = {mpmath.nstr(root, 15)}"
            )


def _count_quasi(A_poly, Bj, var, pv):
    """Roots with Re r > 0 of A + p B: argument principle on ``[0, R] x [-R, R]``, R from the
    Cauchy bound of the majorant (for Re r >= 0, |e^{-r tau}| <= 1)."""
    R = float(_majorant_radius(A_poly, Bj, pv)) + 1
    ab = _arb_AB(A_poly, Bj)
    pz = to_arb(pv)

    def F(z):
        a, b = ab(z)
        return a + pz * b

    tmax = float(max(Bj))
    return count_zeros(F, 0, R, -R, R, prec=96, pieces_per_unit=4 * max(tmax, 1))
