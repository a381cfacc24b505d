"""Every real zero of a rational drift with rational coefficients, certified.

The numeric counterpart of the closed-form equilibrium where SymPy's radicals leave the
choice among several solutions undecided (their signs depend on nested radicals): at
numbers, the drift ``f = N / D`` is a polynomial system ``N = 0`` away from the poles
``D = 0``, and its zeros are found *all* and exactly enumerated:

1. the poles are removed by saturation (``T * D - 1`` with a new unknown ``T``, eliminated
   by a lexicographic Groebner basis over Q, SymPy);
2. the ideal is made radical (Seidenberg's lemma: a zero-dimensional ideal holding a
   square-free polynomial in each unknown is radical), so each zero is simple;
3. a generic linear form ``U = sum c_k x_k`` separates the zeros: the lexicographic basis
   with ``U`` last is then in shape position, ``x_k = g_k(U)`` and ``p(U) = 0`` (a system
   whose set of zeros is not finite, or a form that separates nothing after a few tries, is
   no answer: None);
4. the real roots of each irreducible factor ``q`` of ``p`` are isolated by Arb
   (``fmpz_poly.complex_roots``: real roots come with an exactly zero imaginary part), and
   the sign of each coordinate ``g_k(u)`` is decided: exactly 0 where ``q`` divides
   ``g_k``, else by an Arb ball that excludes 0 (the precision raised until it does).

The real zeros of ``f`` are exactly the points ``(g_k(u))`` over the real roots ``u`` of
``p``: no zero is missed and none is a rounding artefact.
"""

from __future__ import annotations

from dataclasses import dataclass

from symdelay.core.lazy import sympy as sp

__all__ = ["RealZero", "real_zeros"]

#: separating forms tried before giving up (the coefficients of U = x_n + c x_(n-1) + ...)
_FORMS = (1, 2, 3, -1, 5, -3, 7)
#: most zeros (the degree of p) the enumeration takes on
MAX_ZEROS = 200
#: most unknowns (Groebner bases in more grow too fast to be a fallback)
MAX_UNKNOWNS = 8


@dataclass(frozen=True)
class RealZero:
    """One real zero: ``balls`` (Arb ``arb`` per unknown, at the precision asked for) and
    ``signs`` (-1, 0, +1 per unknown, decided exactly)."""

    balls: tuple
    signs: tuple


def _polys(drift, unknowns):
    """``(numerators, denominator)`` as SymPy expressions, or None where a component is
    not a rational function of the unknowns with rational coefficients."""
    nums, den = [], sp.Integer(1)
    for f in drift:
        n, d = sp.fraction(sp.together(sp.sympify(f)))
        for e in (n, d):
            try:
                sp.Poly(e, *unknowns, domain="QQ")
            except (sp.PolynomialError, sp.CoercionFailed, sp.GeneratorsError):
                return None
        n = sp.expand(n)
        if n != 0:
            nums.append(n)
        if d.free_symbols:
            den = den * sp.factor(d)
    return nums, den


def _shape(G, unknowns, U):
    """``({x_k: g_k(U)}, p(U))`` where the reduced lexicographic basis ``G`` (``U`` last)
    is in shape position, else None."""
    exprs = list(G.exprs)
    if len(exprs) != len(unknowns) + 1:
        return None
    g = {}
    p = None
    for e in exprs:
        own = [x for x in unknowns if e.has(x)]
        if not own:
            p = e
            continue
        if len(own) != 1:
            return None
        x = own[0]
        P = sp.Poly(e, x)
        if P.degree() != 1 or P.LC().free_symbols:
            return None
        c0 = P.all_coeffs()[1]
        g[x] = sp.expand(-c0 / P.LC())
    if p is None or len(g) != len(unknowns):
        return None
    return g, sp.Poly(p, U)


def real_zeros(drift, unknowns, prec: int = 128):
    """Every real zero of ``drift`` (rational functions of ``unknowns`` with rational
    coefficients) off its poles, as :class:`RealZero` (module docstring), or None where the
    method does not apply (not rational, zeros not finite, no separating form found, more
    than :data:`MAX_ZEROS` zeros or :data:`MAX_UNKNOWNS` unknowns). ``prec``: bits of the balls."""
    import flint

    unknowns = list(unknowns)
    if len(unknowns) > MAX_UNKNOWNS:
        return None
    got = _polys(drift, unknowns)
    if got is None:
        return None
    nums, den = got
    if not nums:
        return None  # the drift vanishes everywhere: no isolated zero
    T = sp.Dummy("T")
    eqs = list(nums)
    if den.free_symbols:
        G = sp.groebner([*nums, sp.expand(T * den - 1)], T, *unknowns, order="lex")
        eqs = [e for e in G.exprs if not e.has(T)]
    if eqs == [1] or sp.S.One in eqs:
        return []
    # Seidenberg: a square-free polynomial in each unknown makes the ideal radical
    extra = []
    for k, x in enumerate(unknowns):
        others = unknowns[:k] + unknowns[k + 1 :]
        G = sp.groebner(eqs, *others, x, order="lex")
        if list(G.exprs) == [1]:
            return []
        last = G.exprs[-1]
        if last.free_symbols - {x}:
            return None  # no polynomial in x alone: the zeros are not finite
        extra.append(sp.sqf_part(last))
    U = sp.Dummy("U")
    for c in _FORMS:
        form = sum(c**k * x for k, x in enumerate(reversed(unknowns)))
        G = sp.groebner([*eqs, *extra, U - form], *unknowns, U, order="lex")
        shaped = _shape(G, unknowns, U)
        if shaped is not None:
            break
    else:
        return None
    g, p = shaped
    if p.degree() > MAX_ZEROS:
        return None
    out = []
    for q, _ in sp.factor_list(p.as_expr(), U)[1]:
        qp = sp.Poly(q, U)
        if qp.degree() < 1:
            continue
        fq = flint.fmpz_poly([int(c) for c in reversed(qp.clear_denoms()[1].all_coeffs())])
        # the exact zeros of each coordinate on this factor: q divides g_k
        zero = {x: sp.rem(sp.Poly(g[x], U), qp).is_zero for x in unknowns}
        gq = {
            x: [sp.Rational(c) for c in reversed(sp.Poly(g[x], U).all_coeffs())] for x in unknowns
        }
        for bits in (prec, 2 * prec, 4 * prec, 8 * prec):
            with flint.ctx.workprec(bits):
                roots = [z.real for z, _ in fq.complex_roots() if z.imag.is_zero()]
                found, done = [], True
                for u in roots:
                    balls, signs = [], []
                    for x in unknowns:
                        v = flint.arb_poly([flint.arb(flint.fmpq(c.p, c.q)) for c in gq[x]])(u)
                        balls.append(v)
                        if zero[x]:
                            signs.append(0)
                        elif v > 0:
                            signs.append(1)
                        elif v < 0:
                            signs.append(-1)
                        else:
                            done = False
                            break
                    if not done:
                        break
                    found.append(RealZero(tuple(balls), tuple(signs)))
            if done:
                out.extend(found)
                break
        else:
            return None  # pragma: no cover - a sign not decided at 8x the precision
    return out
