"""Certified roots of any univariate polynomial with exact coefficients, and exact counts.

:func:`polynomial_roots` is model-generic: it takes a characteristic polynomial as SymPy
(an expression or ``Poly`` in ``var``) with rational, Gaussian-rational or other exact
coefficients (``sqrt(2)``, ``pi``...) and returns a :class:`~symdelay.models.erlang.roots.RootSet`.

Method.

* **Roots** (python-flint / Arb). Rational coefficients: ``method="fmpz"`` calls
  ``fmpz_poly.complex_roots`` (Arb factors the polynomial over Z and isolates every root of
  every factor, with multiplicities; real roots come out with an exactly zero imaginary
  part); ``method="acb"`` takes the exact square-free decomposition
  (``fmpq_poly.factor_squarefree``) and calls ``acb_poly.roots`` on each factor (Aberth
  iteration, then Arb's validation: each ball holds exactly one root). Other coefficients
  always use ``"acb"``, with coefficient balls from SymPy's ``evalf``. Each Arb box is turned
  into a disc (the radius covers the box), and the discs are proved pairwise disjoint
  (:func:`~symdelay.analysis.certify.check_disjoint`); their count with multiplicities equals
  the degree, so no root is missing.
* **Imaginary axis, decided exactly.** ``P(i w) = R(w) + i I(w)`` with real polynomials R, I
  (exact), and ``i w`` (w real) is a root iff ``w`` is a real root of ``G = gcd(R, I)``,
  with the same multiplicity. The real roots of G are isolated by Arb (exact zero imaginary
  part), so a root whose disc meets the axis is either matched to a real root of G (it is on
  the axis: its real part is exactly 0) or, when G has no root there, its real part is not
  zero and the precision is raised until the disc leaves the axis.
* **Right half-plane, two ways.** From the certified discs (each sign now decided), and, for
  real rational coefficients, independently by exact arithmetic: ``E = gcd(P(r), P(-r))``
  holds the axis roots and the pairs ``z, -z``; ``P1 = P/E`` has neither, so the Cauchy
  index of ``R1/I1`` (a Sturm sequence over Q) gives ``#RHP(P1) = (deg P1 - Ind)/2``, and
  ``#RHP(P) = #RHP(P1) + (deg E - #axis)/2``. The two must agree.

>>> from sympy import Symbol
>>> s = Symbol("s")
>>> res = polynomial_roots(s**3 + s**2 + s + 1, s, dps=20)     # (s + 1)(s^2 + 1)
>>> [str(z.value) for z in res], res.axis_count, res.unstable_count
(['(0.0 + 1.0j)', '(0.0 - 1.0j)', '(-1.0 + 0.0j)'], 2, 0)
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

import flint
import mpmath

from symdelay.analysis.certify import (
    arb_to_mpf_upper,
    check_disjoint,
    mpc_from_acb_mid,
    mpf_value,
    to_acb,
    to_arb,
)
from symdelay.analysis.rootset import CertifiedRoot, RootSet, order_key
from symdelay.core.errors import CertificationError, SymdelayInputError, VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.params import as_dps
from symdelay.core.precision import GUARD, digits, work_bits

__all__ = ["polynomial_roots", "exact_counts", "axis_roots", "ExactCounts", "METHODS"]

METHODS = ("auto", "fmpz", "acb")


# ------------------------------------------------------------------------------ input
def _as_poly(poly, var):
    if isinstance(poly, str):
        from symdelay.core.parsing import parse_expression

        extra = () if var is None else (str(var),)
        poly = parse_expression(poly, variables=extra)
    if isinstance(poly, sp.Poly):
        if var is None:
            if len(poly.gens) != 1:
                raise SymdelayInputError(f"give the variable of the polynomial {poly.as_expr()}")
            var = poly.gens[0]
        poly = poly.as_expr()
    expr = sp.sympify(poly)
    free = sorted(expr.free_symbols, key=str)
    if var is None:
        if len(free) != 1:
            raise SymdelayInputError(
                f"give the variable of the polynomial {expr} (it has symbols {free or 'none'})"
            )
        var = free[0]
    if isinstance(var, str):
        var = sp.Symbol(var)
    extra = [str(x) for x in free if x != var]
    if extra:
        raise SymdelayInputError(
            f"the polynomial has symbols {', '.join(extra)} besides {var}: substitute numbers first"
        )
    try:
        P = sp.Poly(expr, var)
    except sp.PolynomialError:
        raise SymdelayInputError(f"{expr} is not a polynomial in {var}") from None
    coeffs = []
    for c in P.all_coeffs():
        if isinstance(c, sp.Float) or c.has(sp.Float):
            from symdelay.core.params import exact_number

            c = c.xreplace({f: exact_number("a coefficient", f) for f in c.atoms(sp.Float)})
        if not c.is_number or c.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
            raise SymdelayInputError(f"coefficient {c} of the polynomial is not a finite number")
        coeffs.append(c)
    while coeffs and coeffs[0] == 0:
        coeffs.pop(0)
    if len(coeffs) < 2:
        raise SymdelayInputError(f"{expr} has degree < 1 in {var}: no roots to find")
    return expr, var, coeffs


def _kind(coeffs) -> str:
    if all(c.is_Rational for c in coeffs):
        return "QQ"
    if all(sp.re(c).is_Rational and sp.im(c).is_Rational for c in coeffs):
        return "QQ_I"
    return "other"


def _fmpq(c) -> flint.fmpq:
    """An exact rational (fmpq, int, SymPy Rational or its text) as an fmpq."""
    if isinstance(c, flint.fmpq):
        return c
    if isinstance(c, (int, flint.fmpz)):
        return flint.fmpq(c)
    c = sp.Rational(c)
    return flint.fmpq(int(c.p), int(c.q))


def _fmpq_poly(coeffs_high_first) -> flint.fmpq_poly:
    return flint.fmpq_poly([_fmpq(c) for c in reversed(coeffs_high_first)])


def _fmpz_primitive(p: flint.fmpq_poly) -> flint.fmpz_poly:
    """The integer polynomial with the roots of ``p`` (denominators cleared)."""
    num = p.numer()
    return num if isinstance(num, flint.fmpz_poly) else flint.fmpz_poly(num)


def _axis_parts(coeffs_high_first):
    """``R, I`` in Q[w] with ``P(i w) = R(w) + i I(w)`` (coefficients rational or Q(i))."""
    n = len(coeffs_high_first) - 1
    re_c, im_c = [0] * (n + 1), [0] * (n + 1)
    for j, c in enumerate(coeffs_high_first):
        k = n - j  # power of r
        if isinstance(c, (flint.fmpq, int)):  # a real rational: no SymPy
            a, b = c, 0
        else:
            a, b = sp.Rational(sp.re(c)), sp.Rational(sp.im(c))
        # (a + i b) i^k
        ik = [(1, 0), (0, 1), (-1, 0), (0, -1)][k % 4]
        re_c[k] = a * ik[0] - b * ik[1]
        im_c[k] = a * ik[1] + b * ik[0]
    R = flint.fmpq_poly([_fmpq(v) for v in re_c])
    I_ = flint.fmpq_poly([_fmpq(v) for v in im_c])
    return R, I_


def _real_roots(p: flint.fmpq_poly, prec: int):
    """Real roots of a rational polynomial as ``(arb, multiplicity)`` (isolated by Arb)."""
    if p.degree() < 1:
        return []
    with flint.ctx.workprec(prec):
        return [
            (c.real, m)
            for c, m in _fmpz_primitive(p).complex_roots()
            if c.imag.is_exact() and c.imag == 0
        ]


# ------------------------------------------------------------------------ exact counts
@dataclass
class ExactCounts:
    """Exact root counts of a real rational polynomial: ``rhp``, ``axis``, ``lhp``."""

    rhp: int
    axis: int
    lhp: int


def _sign_at_inf(p: flint.fmpq_poly, plus: bool) -> int:
    s = 1 if p[p.degree()] > 0 else -1
    return s if plus or p.degree() % 2 == 0 else -s


def _primitive(p: flint.fmpq_poly) -> flint.fmpq_poly:
    """``p`` times a positive rational: integer coefficients with content 1 (same signs)."""
    num = p.numer()
    c = num.content()
    return flint.fmpq_poly(num) / c if c > 1 else flint.fmpq_poly(num)


def _cauchy_index(A: flint.fmpq_poly, B: flint.fmpq_poly) -> int:
    """Cauchy index of ``A/B`` over the whole real line (Sturm sequence B, A, -rem, ...;
    each term scaled by a positive number, which keeps the sign variations)."""
    seq = [_primitive(B), _primitive(A)]
    while not seq[-1].is_zero():
        rem = seq[-2] % seq[-1]
        if rem.is_zero():
            break
        seq.append(_primitive(-rem))

    def variations(plus):
        signs = [_sign_at_inf(p, plus) for p in seq if not p.is_zero()]
        return sum(1 for a, b in itertools.pairwise(signs) if a != b)

    return variations(False) - variations(True)


def _rhp_by_cauchy_index(R, I_, n: int) -> int:
    """Right half-plane roots of a degree-n polynomial with no roots on the axis and
    ``P(i w) = R + i I`` (R, I coprime).

    The change of ``arg P(i w)`` over the real line is ``pi (n - 2 n_R)``; it equals the
    change of ``atan(I/R)`` (``b pi`` from the ends) minus ``pi`` per jump of ``I/R``, i.e.
    ``b - Ind(I/R)`` in units of pi.
    """
    b = 0
    if I_.degree() > R.degree():
        s_plus = 1 if (I_[I_.degree()] > 0) == (R[R.degree()] > 0) else -1
        s_minus = s_plus * (-1) ** (I_.degree() - R.degree())
        b = (s_plus - s_minus) // 2
    twice = n - b + _cauchy_index(I_, R)
    if twice % 2 or not 0 <= twice // 2 <= n:
        raise VerificationError("the Cauchy index gives an impossible root count")
    return twice // 2


def exact_counts(coeffs_high_first) -> ExactCounts:
    """Right half-plane / imaginary axis / left half-plane counts of a real rational
    polynomial (with multiplicity), by exact arithmetic only (see the module docstring).

    >>> exact_counts([1, 0, 0, 1])   # r^3 + 1: roots -1, (1 +- i sqrt 3)/2
    ExactCounts(rhp=2, axis=0, lhp=1)
    """
    P = _fmpq_poly(coeffs_high_first)
    n = P.degree()
    Pm = flint.fmpq_poly([c * (-1) ** k for k, c in enumerate(P.coeffs())])  # P(-r)
    E = P.gcd(Pm)
    P1 = P / E if E.degree() > 0 else P
    R, I_ = _axis_parts(list(reversed(P.coeffs())))
    axis = (
        sum(m for _, m in _real_roots(R.gcd(I_), 64)) if not (R.is_zero() or I_.is_zero()) else None
    )
    if axis is None:  # R or I identically zero: P(i w) real or imaginary for all w
        axis = sum(m for _, m in _real_roots(I_ if R.is_zero() else R, 64))
    n1 = P1.degree()
    if n1 == 0:
        rhp1 = 0
    else:
        R1, I1 = _axis_parts(list(reversed(P1.coeffs())))
        if R1.is_zero() or I1.is_zero():
            raise VerificationError("P/gcd(P(r), P(-r)) is even or odd: impossible")
        rhp1 = _rhp_by_cauchy_index(R1, I1, n1)
    extra = E.degree() - axis
    if E.degree() > 0 and extra % 2:
        raise VerificationError("odd number of off-axis roots in gcd(P(r), P(-r))")
    rhp = rhp1 + max(extra, 0) // 2
    return ExactCounts(rhp, axis, n - rhp - axis)


# ------------------------------------------------------------------------------ roots
def _acb_coeffs(coeffs, kind, prec):
    out = []
    with flint.ctx.workprec(prec):
        for c in reversed(coeffs):
            if kind in ("QQ", "QQ_I"):
                re_, im_ = sp.Rational(sp.re(c)), sp.Rational(sp.im(c))
                out.append(flint.acb(flint.arb(_fmpq(re_)), flint.arb(_fmpq(im_))))
            else:
                ndigits = digits(prec) + GUARD
                v = sp.N(c, ndigits)
                re_, im_ = (sp.Float(x, ndigits) for x in v.as_real_imag())
                rad = flint.arb(2) ** (-prec + 4) * (abs(float(re_)) + abs(float(im_)) + 1e-300)
                out.append(
                    flint.acb(
                        flint.arb(flint.arb(str(re_)).mid(), rad),
                        flint.arb(flint.arb(str(im_)).mid(), rad),
                    )
                )
    return out


def _solve_acb(make, prec):
    """Arb's Aberth iteration + validation on coefficient balls ``make(bits)``; the balls of
    an expanded polynomial must be much sharper than the roots (ill-conditioning), so the
    coefficient precision is doubled until the roots are isolated to ``2^-prec`` (relative
    to the root bound)."""
    bits = prec + 64
    for _ in range(8):
        with flint.ctx.workprec(bits):
            a = make(bits)
            tol = flint.arb(2) ** (-prec) * (1 + a.root_bound())
            try:
                return a.roots(tol=tol, maxprec=4 * bits)
            except ValueError:
                bits *= 2
    raise CertificationError("Arb could not isolate the roots (is the polynomial square-free?)")


def _raw_roots(coeffs, kind, method, prec):
    """``[(acb box, multiplicity), ...]`` at ``prec`` bits; Arb proves the isolation."""
    if kind == "QQ" and method == "fmpz":
        with flint.ctx.workprec(prec):
            return list(_fmpz_primitive(_fmpq_poly(coeffs)).complex_roots())
    if kind == "QQ":
        _, factors = _fmpq_poly(coeffs).factor_squarefree()
        out = []
        for f, e in factors:  # each factor's coefficients rounded at the working precision
            out.extend((z, int(e)) for z in _solve_acb(lambda _bits, f=f: flint.acb_poly(f), prec))
        return out
    x = sp.Symbol("x")
    P = sp.Poly(sum(c * x ** (len(coeffs) - 1 - j) for j, c in enumerate(coeffs)), x)
    try:
        opts = {"gaussian": True} if kind == "QQ_I" else {"extension": True}
        _, factors = sp.sqf_list(P, **opts)
        parts = [(f.all_coeffs(), e) for f, e in factors]
    except (sp.PolynomialError, NotImplementedError, sp.polys.polyerrors.DomainError):
        parts = [(coeffs, 1)]  # square-free test unavailable: Arb's validation fails if not
    out = []
    for cs, e in parts:
        if len(cs) < 2:
            continue

        def make(bits, cs=cs):
            return flint.acb_poly(_acb_coeffs(cs, kind, bits))

        out.extend((z, int(e)) for z in _solve_acb(make, prec))
    return out


def _disc(z: flint.acb):
    """Centre (mpc) and radius (mpf upper bound) of a disc containing the Arb box ``z``."""
    r = (z.real.rad() ** 2 + z.imag.rad() ** 2).sqrt()
    return mpc_from_acb_mid(z), arb_to_mpf_upper(flint.arb(r) * (1 + flint.arb(2) ** -40))


def polynomial_roots(poly, var=None, dps: int = 30, method: str = "auto") -> RootSet:
    """All roots of a univariate polynomial with exact coefficients, certified.

    Returns a :class:`RootSet` (rightmost first): each root with a proved disc (discs
    disjoint), its ``multiplicity`` and ``on_axis`` (decided exactly); ``axis_count`` and
    ``unstable_count`` (Re r > 0) count multiplicities over the whole spectrum. ``method``:
    ``"fmpz"`` (Arb's integer-polynomial solver, rational coefficients), ``"acb"``
    (square-free part + Arb's Aberth solver) or ``"auto"`` (``"fmpz"`` when the
    coefficients are rational). Raises :class:`SymdelayInputError` for bad input and
    :class:`CertificationError` if a proof fails.
    """
    dps = as_dps(dps)
    if method not in METHODS:
        raise SymdelayInputError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    expr, var, coeffs = _as_poly(poly, var)
    kind = _kind(coeffs)
    n = len(coeffs) - 1
    if method == "fmpz" and kind != "QQ":
        raise SymdelayInputError("method 'fmpz' needs rational coefficients: use 'acb' or 'auto'")
    if method == "auto":
        method = "acb"
        if kind == "QQ":  # measured (benchmarks/results/generic_roots.txt): Aberth is faster
            # unless the coefficients are huge for the degree (ill-conditioned, e.g. Erlang
            # with gamma^L-sized coefficients), where Arb's exact integer solver wins
            bits = max(
                int(abs(sp.Rational(c).p)).bit_length() + int(sp.Rational(c).q).bit_length()
                for c in coeffs
            )
            method = "fmpz" if bits > 4 * n and n >= 80 else "acb"
    G_roots = None
    prec = work_bits(dps)
    for _attempt in range(8):
        raw = _raw_roots(coeffs, kind, method, prec)
        if sum(m for _, m in raw) != n:
            raise CertificationError(
                f"found {sum(m for _, m in raw)} roots (with multiplicity) of a degree-{n} polynomial"
            )
        with mpmath.workprec(prec + 20):
            discs = [(*_disc(z), m) for z, m in raw]
        # Arb returns a real root of an integer polynomial with an exact zero imaginary part
        exact_real = [bool(z.imag.is_exact() and z.imag == 0) for z, _ in raw]
        touching = [i for i, (c, rad, _) in enumerate(discs) if abs(c.real) <= rad]
        if touching and G_roots is None:
            G_roots = _axis_roots(coeffs, kind, prec)
        roots, unresolved = [], False
        with mpmath.workprec(prec + 20):  # the centres keep their digits
            for i, (c, rad, m) in enumerate(discs):
                on_axis = False
                if i in touching:
                    match = [w for w, _ in G_roots if _meets(c, rad, w, prec)]
                    if len(match) == 1:
                        on_axis = True
                        w_mid = mpmath.mp.make_mpf(mpf_value(match[0].mid()))  # exact
                        c = mpmath.mpc(0, w_mid)
                        rad = max(rad, arb_to_mpf_upper(match[0].rad() * 2 + flint.arb(2) ** -prec))
                    elif len(match) > 1:
                        unresolved = True
                    else:
                        unresolved = True  # real part is not 0: more precision separates it
                real = exact_real[i] and (not on_axis or c.imag == 0)
                roots.append(CertifiedRoot(c, rad, None, m, on_axis, real))
        if not unresolved:
            break
        prec *= 2
    else:
        raise CertificationError(
            "could not decide the sign of the real part of a root near the imaginary axis"
        )
    if kind != "QQ_I" and all(_is_real(c) for c in coeffs):
        with mpmath.workprec(prec + 20):
            roots = _real_symmetry(roots)
    with mpmath.workprec(prec + 20):
        check_disjoint([z.value for z in roots], [z.radius for z in roots])
    axis = sum(z.multiplicity for z in roots if z.on_axis)
    if G_roots is not None and sum(m for _, m in G_roots) != axis:
        raise CertificationError(
            f"{sum(m for _, m in G_roots)} roots on the imaginary axis by exact arithmetic, "
            f"{axis} certified discs on it"
        )
    rhp = sum(z.multiplicity for z in roots if not z.on_axis and z.value.real > 0)
    methods = ["certified discs", f"flint {method}"]
    if kind == "QQ" and n <= 400:
        ex = exact_counts(coeffs)
        if (ex.rhp, ex.axis) != (rhp, axis):
            raise CertificationError(
                f"exact counts (rhp {ex.rhp}, axis {ex.axis}) disagree with the certified "
                f"roots (rhp {rhp}, axis {axis})"
            )
        methods.append("Cauchy index (exact)")
    roots.sort(key=order_key)
    from symdelay.analysis.charpoly import ModeFactor

    return RootSet(
        dps,
        roots,
        (ModeFactor(expr, "polynomial"),),
        ((rhp, axis),),
        parameters={"var": str(var), "degree": n},
        count_methods=tuple(methods),
    )


def _is_real(c) -> bool:
    return c.is_real is True


def _real_symmetry(roots: list) -> list:
    """Real coefficients: the roots are closed under conjugation. A disc ``D`` whose mirror
    image meets no other disc holds the conjugate of its root (the conjugate lies in the
    mirror image and in some disc), so that root is real when ``D`` meets the real axis
    (each disc holds one root); a disc whose mirror image meets exactly one other disc is
    the pair of its root, and that disc becomes the mirror image (the same radius), so a
    pair is printed and ordered as conjugates."""
    out = list(roots)
    centres = [z.value for z in roots]
    radii = [z.radius for z in roots]
    done = set()
    for i, z in enumerate(roots):
        if i in done or (z.on_axis and z.value.imag == 0):
            continue
        mirror = mpmath.conj(z.value)
        meets = [
            j
            for j in range(len(roots))
            if j != i and abs(centres[j] - mirror) <= radii[j] + radii[i]
        ]
        if not meets and abs(z.value.imag) <= z.radius:
            # on the real axis: the disc around Re c of radius radius + |Im c| (it holds
            # the root), unless that larger disc meets another one
            c, rho = mpmath.mpc(z.value.real, 0), z.radius + abs(z.value.imag)
            if any(abs(centres[j] - c) <= radii[j] + rho for j in range(len(roots)) if j != i):
                c, rho = z.value, z.radius
            out[i] = replace(z, value=c, radius=rho, is_real=True)
            done.add(i)
        elif len(meets) == 1 and not z.on_axis and z.value.imag > 0:
            j = meets[0]
            out[j] = replace(roots[j], value=mirror, radius=z.radius)
            done |= {i, j}
    return out


def _meets(c, rad, w: flint.arb, prec: int) -> bool:
    """Whether the disc ``|z - c| <= rad`` can contain the point ``i w`` (w an Arb ball)."""
    with flint.ctx.workprec(prec + 64):
        d = (to_acb(c) - flint.acb(0, w)).abs_lower()
        return bool(d <= to_arb(rad) + w.rad())


def axis_roots(coeffs_high_first, prec: int = 128):
    """Real ``w`` (Arb balls, with multiplicities) such that ``i w`` is a root of the
    polynomial with these rational (or Gaussian-rational) coefficients: the real roots of
    ``gcd(R, I)``, ``P(i w) = R(w) + i I(w)``, exact over Q.

    >>> [(str(w), m) for w, m in axis_roots([1, 1, 1, 1])]   # (r + 1)(r^2 + 1)
    [('-1.00000000000000', 1), ('1.00000000000000', 1)]
    """
    return _axis_roots(list(coeffs_high_first), "QQ", prec)


def _axis_roots(coeffs, kind, prec):
    """Real roots ``w`` (Arb balls, multiplicities) of ``gcd(R, I)``: roots ``i w`` of P."""
    if kind not in ("QQ", "QQ_I"):
        x = sp.Symbol("x")
        w = sp.Symbol("w", real=True)
        P = sum(c * x ** (len(coeffs) - 1 - j) for j, c in enumerate(coeffs))
        R, I_ = (sp.expand(v) for v in sp.expand(P.subs(x, sp.I * w)).as_real_imag())
        G = sp.gcd(sp.Poly(R, w, extension=True), sp.Poly(I_, w, extension=True))
        if G.degree() < 1:
            return []
        raise CertificationError(
            "a root may lie on the imaginary axis and the coefficients are not rational: "
            "exact axis test unavailable"
        )
    R, I_ = _axis_parts(coeffs)
    G = (I_ if R.is_zero() else R) if R.is_zero() or I_.is_zero() else R.gcd(I_)
    return _real_roots(G, prec)
