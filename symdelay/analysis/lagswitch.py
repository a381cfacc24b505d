"""Every stability switch over one constant lag, by exact elimination and Arb isolation.

Input: one mode's characteristic function ``F(r, z) = sum_j P_j(r) z^j`` with
``z = exp(-r tau)``, ``tau >= 0`` the lag (a symbol; every other parameter a number), the
``P_j`` polynomials in ``r`` with exact rational coefficients. It is read from a SymPy
expression in ``r`` and ``tau`` (:func:`lag_parts`): ``exp(-c r tau)`` factors with rational
``c > 0`` (commensurate multiples of one lag: ``z = exp(-g r tau)``, ``g`` the gcd of the
``c``), a denominator free of the lag and of ``z`` with every root in ``Re r < 0`` (a kernel
such as ``1/(1 + r m)`` beside the lag: cleared, which adds no root with ``Re r >= 0``);
anything else is refused in one line that names it (a second, fixed lag; a moving-average or
other distributed kernel, where ``tau`` appears outside ``exp(-r tau)``; a neutral or
advanced equation).

Method (Chen, Gu & Nett 1995; Cooke & van den Driessche 1986).

1. ``F`` is factored over Q in ``Q[r, z]`` (flint). A factor free of ``z`` contributes a
   constant count of roots with ``Re r > 0`` (exact: Cauchy index); a root of it on the
   imaginary axis is refused (marginal for every lag).
2. For each irreducible factor ``f`` of degree ``n`` in ``z``: a root ``r = i w`` at some
   lag has ``|z| = 1``, so ``f(i w, z) = 0`` and ``z^n f(-i w, 1/z) = 0`` (the conjugate
   equation). The resultant ``Res_z(f(s, z), z^n f(-s, 1/z))`` (flint) is a polynomial
   ``R(s)`` with ``R(-s) = +-R(s)``; at ``s = i w`` it is real (or ``i w`` times real) and
   a polynomial ``H(u)`` in ``u = w^2`` with exact rational coefficients (for one power of z
   it is ``|P_0(i w)|^2 - |P_1(i w)|^2``). ``H`` is factored over Q and its positive roots
   isolated by Arb: every crossing frequency ``w > 0``, to the digits asked.
3. At a *simple* root ``w`` of ``R`` the two equations have exactly one common root ``z``
   (two would make the root of the resultant multiple), and with it ``1/conj(z)``, which
   is also common: so ``|z| = 1``. It is the one root of ``f(i w, .)`` whose Arb disc meets
   the unit circle (all others are proved off it; the precision is raised until they are).
   The lags of the crossings are ``tau_k = (theta + 2 pi k)/w``, ``theta = -arg z`` in
   ``[0, 2 pi)``, ``k = 0, 1, ...``; ``theta = 0`` exactly when ``f(i w, 1) = 0`` (decided
   exactly: ``H``'s factor divides both parts of ``f(i w, 1)``). A multiple root of ``R``
   (two crossings of one factor at one frequency) is refused as undecided.
4. Direction: with ``dr/dtau = r z f_z / (f_r - tau z f_z)``, at ``r = i w``
   ``sign Re(dr/dtau) = sign Re(f_r(i w, z) / (i w z f_z(i w, z)))`` — the same for every
   ``k`` (Cooke & van den Driessche): proved nonzero with Arb, or reported undecided (a
   tangency is not guessed).
5. Counts. The equation is retarded (``deg P_0 > deg P_j``, checked), so for ``tau -> 0+``
   no root comes from infinity into ``Re r >= 0``: the count at ``0+`` is that of the
   polynomial ``F(r, 1)`` (exact), plus the pairs on the axis at ``tau = 0`` that move
   right. ``r = 0`` is a root for no lag or for every lag (``F(0, z) = F(0, 1)``): the
   latter is refused. Every crossing then changes the count by ``+-2`` times the factor's
   multiplicity; a negative count would be a machine-check failure.
6. Unbounded range: the number of switches of frequency ``w`` below ``tau`` grows like
   ``tau w / 2 pi``, so the count is at least ``N_0 + tau S / pi - C`` with
   ``S = sum (+-) m w``; when ``S > 0`` (proved) the count is positive for every lag above
   an explicit ``tau*`` and only the switches up to ``tau*`` are listed. No frequency at all
   means the count never changes: delay-independent.

Every value is an Arb ball to ``dps`` digits with an exact rational bracket; no scan.

>>> from symdelay.core.lazy import sympy as sp
>>> r, tau = sp.symbols("r tau")
>>> s = lag_switches(r + 1 + 2 * sp.exp(-r * tau), tau, dps=15)
>>> s.to_json()["critical"], [c["omega"] for c in s.to_json()["crossings"]]
('1.20919957615615', ['1.73205080756888'])
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from math import gcd

import flint
import mpmath

from symdelay.analysis.certify import mpc_from_acb_mid
from symdelay.analysis.crossing import _exact_end, _rational, _split_parts
from symdelay.analysis.polyroots import _fmpq, _real_roots, exact_counts
from symdelay.core.errors import CertificationError, SymdelayInputError, VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.numbers import format_number
from symdelay.core.params import as_dps
from symdelay.core.precision import GUARD, work_bits
from symdelay.core.result import Result

__all__ = [
    "LagParts",
    "LagCrossing",
    "LagSwitch",
    "LagSwitches",
    "lag_parts",
    "lag_switches",
    "critical_lag_curve",
    "exact_refusal",
    "MAX_SWITCHES",
]

#: Budget: the most switches listed without ``force=True`` (each costs a few Arb operations;
#: the bound is there so that a huge ``hi`` is refused rather than run for minutes).
MAX_SWITCHES = 20_000

#: Precision doublings tried before a proof is declared out of reach.
_ATTEMPTS = 7

_NAMES = ("s", "z")


# =========================================================================== input
@dataclass(frozen=True)
class LagParts:
    """``F(r, z) = sum_j P_j(r) z^j`` with ``z = exp(-scale * r * tau)``.

    ``terms``: ``{(power of r, power of z, *powers of params): Fraction-like Rational}``
    (denominators cleared, the lowest power of ``z`` divided out); ``params``: the extra
    symbols left symbolic (for a curve over a parameter); ``denominator``: the polynomial in
    ``r`` that was cleared (every root in ``Re r < 0``), 1 if none; ``n``: the degree in z.
    """

    expression: object
    var: object
    tau: object
    scale: object
    terms: dict
    n: int
    params: tuple = ()
    denominator: object = 1

    def mpoly(self, values: dict | None = None):
        """``F`` as an ``fmpq_mpoly`` in ``(s, z)`` (``s`` stands for ``r``), with the
        params replaced by the exact rationals ``values`` (a dict name -> Rational)."""
        ctx = flint.fmpq_mpoly_ctx.get(_NAMES, "lex")
        out: dict = {}
        values = values or {}
        for (k, j, *ps), c in self.terms.items():
            v = sp.Rational(c)
            for sym, e in zip(self.params, ps):
                if e:
                    if str(sym) not in values:
                        raise SymdelayInputError(f"give a number for {sym}")
                    v *= sp.Rational(values[str(sym)]) ** e
            if v != 0:
                out[(k, j)] = out.get((k, j), 0) + v
        return ctx.from_dict({m: _fmpq(c) for m, c in out.items() if c != 0} or {(0, 0): 0})


def _refuse(msg: str):
    raise SymdelayInputError(msg)


def lag_parts(F, tau, var=None, params=()) -> LagParts:
    """Read ``F(var, tau)`` as ``sum_j P_j(var) exp(-g var tau)^j`` (see the module
    docstring), or refuse in one line what is not of this form.

    Parameters
    ----------
    F : sympy.Expr or str
        The characteristic function (one mode), in ``var``, ``tau`` and ``params`` only.
    tau : sympy.Symbol or str
        The constant lag.
    var : sympy.Symbol or str, optional
        The spectral variable (default ``r``).
    params : tuple of sympy.Symbol or str, default ()
        Symbols left free (polynomial in the ``P_j``), for a curve over a parameter.

    Returns
    -------
    LagParts
        The exact coefficients ``P_j``, the lag's scale ``g`` and what was cleared.
    """
    from symdelay.core.symbols import r as R_SYMBOL

    var = R_SYMBOL if var is None else (sp.Symbol(var) if isinstance(var, str) else var)
    tau = sp.Symbol(tau) if isinstance(tau, str) else tau
    params = tuple(sp.Symbol(p) if isinstance(p, str) else p for p in params)
    if not isinstance(tau, sp.Symbol):
        _refuse(f"the lag must be a symbol, got {tau}")
    if isinstance(F, str):
        from symdelay.core.parsing import parse_expression

        F = parse_expression(F, variables=tuple(str(x) for x in (var, tau, *params)))
    F = sp.sympify(F)
    if F.has(sp.Float):
        from symdelay.core.params import exact_number

        F = F.xreplace({f: exact_number("a number", f) for f in F.atoms(sp.Float)})
    extra = sorted(str(x) for x in F.free_symbols - {var, tau, *params})
    if extra:
        _refuse(
            f"the characteristic function has symbols {', '.join(extra)} besides {var} and "
            f"the lag {tau}: substitute numbers first"
        )
    if tau not in F.free_symbols:
        _refuse(f"the characteristic function does not depend on the lag {tau}")
    # the exponentials: exp(-c var tau), c > 0 rational
    cs = {}
    for e in F.atoms(sp.exp):
        arg = sp.expand(e.args[0])
        if not arg.has(tau):
            if arg.has(var):
                _refuse(
                    f"{e} is a second lag, fixed (free of {tau}): this analysis takes one "
                    f"constant lag; give that lag as a multiple of {tau} or use the two-lag "
                    "analysis"
                )
            _refuse(f"{e} is not a delay factor exp(-{var}*{tau})")
        c = sp.cancel(-arg / (var * tau))
        if c.free_symbols or not c.is_Rational or not c > 0:
            if any(not t.has(tau) and t.has(var) for t in sp.Add.make_args(arg)):
                _refuse(
                    f"{e} carries a second, fixed lag beside {tau}: this analysis takes "
                    "one constant lag"
                )
            _refuse(
                f"{e} is not a delay factor exp(-c*{var}*{tau}) with c > 0 rational (a lag "
                f"that is not a constant multiple of {tau})"
            )
        cs[e] = c
    if not cs:
        _refuse(
            f"{tau} enters the characteristic function but not as exp(-{var}*{tau}): not a "
            "constant lag"
        )
    num_g = gcd(*(int(c.p) for c in cs.values()))
    den_l = 1
    for c in cs.values():
        den_l = den_l * int(c.q) // gcd(den_l, int(c.q))
    g = sp.Rational(num_g, den_l)
    Z = sp.Dummy("z")
    expr = F.xreplace({e: Z ** int(c / g) for e, c in cs.items()})
    if expr.has(tau):
        _refuse(
            f"the lag {tau} appears outside exp(-{var}*{tau}) (a distributed kernel such as "
            f"the moving average (1 - exp(-{var}*{tau}))/({var}*{tau}), or a coefficient that "
            "depends on the lag): not a constant-lag characteristic function"
        )
    num, den = sp.fraction(sp.cancel(sp.together(expr)))
    if den.has(Z):
        _refuse(f"exp(-{var}*{tau}) appears in a denominator: not a quasi-polynomial")
    gens = (var, Z, *params)
    try:
        P = sp.Poly(sp.expand(num), *gens)
        D = sp.Poly(sp.expand(den), var, *params)
    except sp.PolynomialError:
        _refuse(
            f"the characteristic function is not polynomial in {var} and exp(-{var}*{tau}) "
            f"(e.g. a gamma kernel (1 + {var}*m/k)**(-k) with k not an integer)"
        )
    if not P.domain.is_Numerical or not all(c.is_Rational for c in P.coeffs()):
        bad = next(c for c in P.coeffs() if not c.is_Rational)
        _refuse(
            f"coefficient {bad} is not an exact rational: substitute exact numbers "
            "(algebraic coefficients are not supported by the exact elimination)"
        )
    if D.degree(var) > 0:
        if any(D.degree(p) > 0 for p in params):
            _refuse(f"the cleared denominator {den} depends on {params}: give them numbers")
        dc = [sp.Rational(c) for c in sp.Poly(den, var).all_coeffs()]
        ex = exact_counts(dc)
        if ex.rhp or ex.axis:
            _refuse(
                f"the denominator {den} has roots with Re {var} >= 0: clearing it would add "
                "roots; not a supported kernel"
            )
    elif not all(c.is_Rational for c in D.coeffs()) or any(D.degree(p) for p in params):
        _refuse(f"the denominator {den} must be a nonzero rational number or depend on {var}")
    terms = {m: sp.Rational(c) for m, c in P.terms()}
    jmin = min(m[1] for m in terms)
    terms = {(m[0], m[1] - jmin, *m[2:]): c for m, c in terms.items()}
    n = max(m[1] for m in terms)
    if n == 0:
        _refuse(f"the characteristic function does not depend on the lag {tau} after all")
    degs = {}
    for (k, j, *_ps), _c in terms.items():
        degs[j] = max(degs.get(j, -1), k)
    d0 = degs.get(0, -1)
    worst = max(degs[j] for j in degs if j > 0)
    if worst == d0:
        _refuse(
            f"a neutral equation: the coefficient of exp(-{var}*{tau}) has degree {worst} in "
            f"{var}, like the delay-free part; only retarded equations (delay-free part of "
            "the highest degree) are handled"
        )
    if worst > d0:
        _refuse(
            f"an advanced equation: a delay term has degree {worst} in {var}, above the "
            f"delay-free part ({d0}); not a retarded equation"
        )
    return LagParts(F, var, tau, g, terms, n, params, den)


# ===================================================================== records
def exact_refusal(F, tau, var=None) -> str | None:
    """None when :func:`lag_switches` applies to ``F`` over the constant lag ``tau`` (one
    lag, retarded, ``tau`` only in ``exp(-c r tau)``); otherwise the one line saying why not
    (the entries then take the certified path of :mod:`symdelay.analysis.lagparam`)."""
    try:
        lag_parts(F, tau, var)
    except SymdelayInputError as exc:
        return str(exc)
    return None


def _fmt(x, dps):
    return None if x is None else format_number(x, dps)


@dataclass(frozen=True)
class LagCrossing(Result):
    """A crossing frequency: ``omega`` (>0), ``phase`` ``theta = -arg z`` in ``[0, 2 pi)``
    (the lags of the crossings are ``(theta + 2 pi k)/omega``), ``direction`` +1
    (destabilising: the pair moves into ``Re r > 0`` as the lag grows) or -1,
    ``multiplicity`` (of the factor), ``factor`` (its text); ``scale``: ``g`` of
    ``z = exp(-g r tau)`` (the lags are ``(theta + 2 pi k)/(g omega)``)."""

    omega: object
    phase: object
    direction: int
    multiplicity: int
    factor: str
    dps: int
    scale: object = 1
    model_name: str | None = None

    @property
    def first(self):
        """The first lag ``theta/(g omega)`` (0 for a pair on the axis at ``tau = 0``)."""
        return self.phase / (self.scale * self.omega)

    @property
    def period(self):
        """The spacing ``2 pi / (g omega)`` of its switches."""
        return 2 * mpmath.pi / (self.scale * self.omega)

    def record(self) -> dict:
        d = self.dps
        with mpmath.workdps(d + GUARD):
            return {
                "omega": _fmt(self.omega, d),
                "phase": _fmt(self.phase, d),
                "first_lag": _fmt(self.first, d),
                "period": _fmt(self.period, d),
                "direction": "destabilising" if self.direction > 0 else "stabilising",
                "multiplicity": self.multiplicity,
                "factor": self.factor,
            }


@dataclass(frozen=True)
class LagSwitch(Result):
    """A lag where a pair crosses: ``tau`` (``lower < tau < upper`` exact rationals),
    ``omega``, ``k`` (the branch), ``change`` (of the unstable count: +-2 times the
    multiplicity), ``count_after`` (the count just above it)."""

    tau: object
    lower: object
    upper: object
    omega: object
    k: int
    change: int
    count_after: int
    dps: int
    model_name: str | None = None

    def record(self) -> dict:
        d = self.dps
        return {
            "tau": _fmt(self.tau, d),
            "bracket": [str(self.lower), str(self.upper)],
            "omega": _fmt(self.omega, d),
            "k": self.k,
            "change": self.change,
            "count_after": self.count_after,
        }


@dataclass(frozen=True)
class LagSwitches(Result):
    """Every stability switch of a retarded equation over its constant lag in
    ``(range_lo, range_hi]``.

    ``crossings``: the crossing frequencies (:class:`LagCrossing`); ``switches``: every lag
    in range where a pair crosses (:class:`LagSwitch`, increasing); ``count_lo``: the
    number of roots with ``Re r > 0`` just above ``range_lo`` (``count_zero``: at
    ``tau = 0``, the polynomial ``F(r, 1)``); ``critical``: the first lag where the count
    becomes positive (0 when unstable for small lags, inf when never), ``critical_omega``
    its frequency; ``unstable_beyond``: a lag above which the count is positive for every
    lag (None when the range is bounded or no crossing exists); ``delay_independent``: no
    crossing at all (the count never changes); ``stability_switches``: the equation is
    stable again after being unstable (within the range examined).
    """

    model_name: str
    expression: str
    lag: str
    dps: int
    range_lo: object
    range_hi: object
    crossings: tuple
    switches: tuple
    count_zero: int
    count_lo: int
    critical: object
    critical_bracket: tuple | None
    critical_omega: object
    unstable_beyond: object
    delay_independent: bool
    stability_switches: bool
    notes: tuple = field(default=())
    algorithm: str = (
        "exact: flint factorisation in Q[r, z], Res_z(f(s, z), z^n f(-s, 1/z)), positive "
        "roots of its factors isolated by Arb; the unit-circle root and the crossing "
        "direction proved with Arb; exact counts (Cauchy index) of F(r, 1)"
    )

    def record(self) -> dict:
        d = self.dps
        return {
            "expression": self.expression,
            "lag": self.lag,
            "dps": d,
            "range": [_fmt(self.range_lo, d), _fmt(self.range_hi, d)],
            "crossings": [c.record() for c in self.crossings],
            "switches": [s.record() for s in self.switches],
            "count_zero": self.count_zero,
            "count_lo": self.count_lo,
            "critical": _fmt(self.critical, d),
            "critical_bracket": None
            if self.critical_bracket is None
            else [str(x) for x in self.critical_bracket],
            "critical_omega": _fmt(self.critical_omega, d),
            "unstable_beyond": _fmt(self.unstable_beyond, d),
            "delay_independent": self.delay_independent,
            "stability_switches": self.stability_switches,
            "certified": True,
            "algorithm": self.algorithm,
            "notes": list(self.notes),
        }

    def counts(self) -> tuple:
        """The unstable count on each gap: just above ``range_lo``, then after each switch."""
        return (self.count_lo, *(s.count_after for s in self.switches))


# ================================================================ the machinery
def _uni(m, index: int) -> flint.fmpq_poly:
    """A univariate fmpq_poly from an mpoly using only generator ``index``."""
    d = {}
    for exps, c in m.to_dict().items():
        if any(e for i, e in enumerate(exps) if i != index):
            raise VerificationError("an elimination left another variable behind")
        d[exps[index]] = d.get(exps[index], 0) + flint.fmpq(c)
    if not d:
        return flint.fmpq_poly([0])
    return flint.fmpq_poly([d.get(k, flint.fmpq(0)) for k in range(max(d) + 1)])


def _coeffs_in_z(f) -> list:
    """``[P_0, ..., P_n]`` (fmpq_poly in s) of ``f(s, z)``."""
    by = {}
    for (es, ez), c in f.to_dict().items():
        by.setdefault(ez, {})[es] = flint.fmpq(c)
    n = max(by)
    out = []
    for j in range(n + 1):
        d = by.get(j, {})
        out.append(
            flint.fmpq_poly([d.get(k, flint.fmpq(0)) for k in range(max(d) + 1)])
            if d
            else flint.fmpq_poly([0])
        )
    return out


def _reflect(P: list):
    """``z^n f(-s, 1/z) = sum_j P_j(-s) z^(n - j)`` as an mpoly."""
    ctx = flint.fmpq_mpoly_ctx.get(_NAMES, "lex")
    n = len(P) - 1
    d = {}
    for j, p in enumerate(P):
        for k, c in enumerate(p.coeffs()):
            if c != 0:
                d[(k, n - j)] = c * (-1) ** k
    return ctx.from_dict(d)


def _divides_parts(h: flint.fmpq_poly, p: flint.fmpq_poly) -> bool:
    """Whether ``p(i w) = 0`` at every root ``u = w^2`` of the irreducible ``h``: ``h``
    divides both parts ``A(u) + i w B(u)`` of ``p(i w)``."""
    A, B = _split_parts(list(p.coeffs()) or [0])
    return all(x.is_zero() or (x % h).is_zero() for x in (A, B))


@dataclass
class _Factor:
    f: object  # fmpq_mpoly in (s, z), irreducible
    mult: int
    P: list  # fmpq_poly per power of z
    H: list  # [(irreducible fmpq_poly in u, exponent)] of the crossing polynomial
    text: str


def _factor_text(f) -> str:
    return f.str().replace("s", "r").replace("z", "exp(-r*tau)")


def _prepare(F2):
    """``(const_rhp, count_zero_polys, factors)``: the factors of ``F`` over Q."""
    _c, facs = F2.factor()
    const, zero_counts, out = 0, [], []
    for f, m in facs:
        m = int(m)
        dz = f.degrees()[1]
        if dz == 0:
            p = _uni(f, 0)
            if p.degree() < 1:
                continue
            ex = exact_counts([sp.Rational(int(c.p), int(c.q)) for c in reversed(p.coeffs())])
            if ex.axis:
                _refuse(
                    f"the factor {_factor_text(f)} has roots on the imaginary axis for every "
                    "lag: marginal for every tau, no switches"
                )
            const += m * ex.rhp
            continue
        P = _coeffs_in_z(f)
        if sum(P, flint.fmpq_poly([0]))(0) == 0:
            _refuse(
                f"r = 0 is a root for every lag (F(0, z) = F(0, 1) = 0 in the factor "
                f"{_factor_text(f)}): marginal for every tau; remove the zero root first"
            )
        d0 = P[0].degree()
        if any(p.degree() >= d0 for p in P[1:]):
            raise VerificationError("a factor of a retarded equation is not retarded")
        res = f.resultant(_reflect(P), "z")
        R = _uni(res, 0)
        if R.is_zero():
            _refuse(
                f"the factor {_factor_text(f)} equals its own reflection z^n f(-r, 1/z): "
                "roots stay on the imaginary axis over a continuum of lags; no isolated switches"
            )
        A, B = _split_parts(list(R.coeffs()))
        if not A.is_zero() and not B.is_zero():
            raise VerificationError("the crossing resultant is neither even nor odd")
        H = A if not A.is_zero() else B
        Hs = []
        if H.degree() >= 1:
            _, hf = H.factor()
            for h, e in hf:
                if h.degree() >= 1 and not (h.degree() == 1 and h[0] == 0):
                    Hs.append((h, int(e)))
        out.append(_Factor(f, m, P, Hs, _factor_text(f)))
        zero_counts.append((sum(P, flint.fmpq_poly([0])), m))
    return const, zero_counts, out


def _eval(p: flint.fmpq_poly, x: flint.acb) -> flint.acb:
    acc = flint.acb(0)
    for c in reversed(p.coeffs()):
        acc = acc * x + flint.arb(c)
    return acc


def _crossing(fac: _Factor, h, e, ub: flint.arb, prec: int):
    """The crossings at the positive root ``u = ub`` of ``h`` (a factor of ``H`` with
    exponent ``e``): a list of ``(w, theta, direction)`` balls at ``prec`` bits (empty:
    ``R`` vanishes there without a root on the axis), or None when this precision does not
    decide (raise it)."""
    with flint.ctx.workprec(prec):
        w = ub.sqrt()
        iw = flint.acb(0, w)
        c = [_eval(p, iw) for p in fac.P]
        if e == 1 and not c[-1].contains(0) and not c[0].contains(0):
            # a simple root of R with both end coefficients nonzero: exactly one common
            # root, on the unit circle (module docstring, step 3)
            try:
                roots = flint.acb_poly(c).roots(tol=flint.arb(2) ** (-prec + 16), maxprec=4 * prec)
            except ValueError:
                return None
            meets = [z for z in roots if (abs(z) - 1).contains(0)]
            if len(meets) != 1:
                return None
            on_circle = meets
        else:
            on_circle = _on_circle_by_gcd(fac, h, iw, prec)
            if on_circle is None:
                return None
        out = []
        for z in on_circle:
            got = _theta_direction(fac, h, c, iw, z)
            if got is None:
                return None
            out.append((w, *got))
        return out


def _theta_direction(fac, h, c, iw, z):
    """``(theta, direction)`` of the crossing at ``(i w, z)``, or None (more bits)."""
    # theta = -arg z in [0, 2 pi): pi - arg(-z), arg(-z) in (-pi, pi]; cut at z = 1
    if z.real > 0 and z.imag.contains(0):
        if not _divides_parts(h, sum(fac.P, flint.fmpq_poly([0]))):
            return None  # z is not 1 (exactly): more bits move the ball off the cut
        theta = flint.arb(0)
    else:
        theta = flint.arb.pi() - (-z).arg()
    Pr = [p.derivative() for p in fac.P]
    fr = sum((_eval(p, iw) * z**j for j, p in enumerate(Pr)), flint.acb(0))
    fz = sum((j * c[j] * z ** (j - 1) for j in range(1, len(c))), flint.acb(0))
    if fz.contains(0):
        return None
    S = (fr / (iw * z * fz)).real
    if S.contains(0):
        return None
    return theta, (1 if S > 0 else -1)


def _on_circle_by_gcd(fac: _Factor, h, iw: flint.acb, prec: int):
    """The roots on the unit circle of ``f(i w, .)`` where the crossing resultant has a
    multiple root (or an end coefficient may vanish): the common roots of ``f(i w, z)`` and
    ``z^n f(-i w, 1/z)`` are the roots of their gcd ``G``, computed exactly over the number
    field ``Q(s)/(q)``, ``q`` the irreducible factor of ``h(-s^2)`` vanishing at ``s = i w``.
    ``G``'s roots are closed under ``z -> 1/conj(z)``: a root whose Arb disc is the only
    one its mirror image meets is on the circle; one whose disc misses the circle is not.
    Returns the discs on the circle, or None (more bits)."""
    hs = h(flint.fmpq_poly([0, 0, -1]))  # h(-s^2)
    _, qs = hs.factor()
    cands = [q for q, _e in qs if _eval(q, iw).contains(0)]
    if len(cands) != 1:
        return None
    q = cands[0]
    n = len(fac.P) - 1
    A = [p % q for p in fac.P]
    B = [flint.fmpq_poly([cf * (-1) ** k for k, cf in enumerate(fac.P[n - j].coeffs())]) % q
         for j in range(n + 1)]  # fmt: skip
    G = _gcd_mod(A, B, q)
    if len(G) < 2:
        return []  # no common root: R vanishes through the end coefficients only
    gc = [_eval(x, iw) for x in G]
    try:
        roots = flint.acb_poly(gc).roots(tol=flint.arb(2) ** (-prec + 16), maxprec=4 * prec)
    except ValueError:
        raise CertificationError(
            f"a multiple common root of {fac.text} at a crossing frequency "
            f"(w = {iw.imag.str(10, radius=False)}): undecided"
        ) from None
    if len(G) == 2 and _tangent_exactly(fac, q, G):
        raise CertificationError(
            f"a tangency of {fac.text} at w = {iw.imag.str(12, radius=False)}: the pair "
            "touches the imaginary axis with Re dr/dtau = 0 (exact); the count change there is "
            "not decided to first order"
        )
    out = []
    for k, z in enumerate(roots):
        mirror = 1 / z.conjugate()
        hits = [j for j, y in enumerate(roots) if mirror.overlaps(y)]
        if hits == [k]:
            out.append(z)
        elif (abs(z) - 1).contains(0):
            return None
    return out


def _tangent_exactly(fac: _Factor, q, G: list) -> bool:
    """Whether ``Re(f_r / (s z f_z)) = 0`` exactly at the one common root ``z = -G_0/G_1``
    in ``K = Q[s]/(q)`` (``s = i w``; complex conjugation is ``s -> -s`` on ``K``)."""

    def inv(a):
        g, _u, v = q.xgcd(a % q)
        if g.is_zero() or g.degree() > 0:
            return None
        return (v / g[0]) % q

    z = (-G[0] * inv(G[1])) % q
    fr, fz, zj = flint.fmpq_poly([0]), flint.fmpq_poly([0]), flint.fmpq_poly([1])
    for j, p in enumerate(fac.P):
        fr = (fr + p.derivative() * zj) % q
        if j + 1 < len(fac.P):
            fz = (fz + (j + 1) * fac.P[j + 1] * zj) % q
        zj = (zj * z) % q
    s_ = flint.fmpq_poly([0, 1])
    d = inv(s_ * z * fz)
    if d is None:
        return False
    X = (fr * d) % q
    return ((X + X(flint.fmpq_poly([0, -1]))) % q).is_zero()


def _gcd_mod(A: list, B: list, q) -> list:
    """The monic gcd of two polynomials in ``z`` (ascending lists of fmpq_poly in ``s``)
    over the field ``Q[s]/(q)`` (``q`` irreducible)."""

    def strip(P):
        P = [x % q for x in P]
        while P and P[-1].is_zero():
            P.pop()
        return P

    def inv(a):
        g, _u, v = q.xgcd(a)
        return (v / g[0]) % q

    A, B = strip(A), strip(B)
    while B:
        lb = inv(B[-1])
        while len(A) >= len(B):
            t = (A[-1] * lb) % q
            shift = len(A) - len(B)
            for i, y in enumerate(B):
                A[i + shift] = (A[i + shift] - t * y) % q
            A = strip(A)
        A, B = B, A
    if not A:
        return []
    la = inv(A[-1])
    return [(x * la) % q for x in A]


def _tight(b: flint.arb, dps: int) -> bool:
    return b.is_exact() or b.rad() <= abs(b.mid()) * flint.arb(10) ** (-dps - 2)


def _crossings_at(factors, prec, dps):
    """Every crossing ``(w, theta, dir, mult, factor text, factor)`` at ``prec`` bits, or
    None (raise the precision)."""
    out = []
    for fac in factors:
        for h, e in fac.H:
            for ub, _m in _real_roots(h, prec):
                if ub.contains(0):
                    return None
                if ub < 0:
                    continue
                got = _crossing(fac, h, e, ub, prec)
                if got is None:
                    return None
                for w, theta, direction in got:
                    if not _tight(w, dps) or not (theta.is_zero() or _tight(theta, dps)):
                        return None
                    out.append((w, theta, direction, fac.mult, fac.text))
    return out


def _q(x) -> flint.fmpq:
    x = sp.Rational(x)
    return flint.fmpq(int(x.p), int(x.q))


def _mpf(b: flint.arb) -> mpmath.mpf:
    return mpc_from_acb_mid(flint.acb(b)).real


def lag_switches(
    F,
    tau,
    lo=0,
    hi=None,
    dps: int = 15,
    *,
    var=None,
    name: str = "characteristic function",
    force: bool = False,
) -> LagSwitches:
    """Every stability switch of ``F(var, tau) = 0`` over the constant lag ``tau`` in
    ``(lo, hi]`` (see the module docstring for the method).

    Parameters
    ----------
    F : sympy.Expr or str
        One mode's characteristic function, in ``var`` and ``tau`` only (every other
        parameter a number), read by :func:`lag_parts`.
    tau : sympy.Symbol or str
        The lag (``tau >= 0``).
    lo : number or str, default 0
        Lower end of the range (exclusive), exact (decimal text is the rational it denotes).
    hi : number or str, optional
        Upper end (inclusive). None: every switch up to the lag beyond which the count stays
        positive (all of them when the crossing set is empty or the count never grows).
    dps : int, default 15
        Significant digits of the lags and frequencies (5..10000).
    var : sympy.Symbol or str, optional
        The spectral variable (default ``r``).
    name : str, default "characteristic function"
        The name the record carries as its model.
    force : bool, default False
        List more than :data:`MAX_SWITCHES` switches.

    Returns
    -------
    LagSwitches
        Crossing frequencies, every switch with its exact bracket and the unstable count
        after it, the critical lag and whether stability switches occur.

    Examples
    --------
    >>> from symdelay.core.lazy import sympy as sp
    >>> r, tau = sp.symbols("r tau")
    >>> s = lag_switches(r + 1 + 2 * sp.exp(-r * tau), tau, hi=6, dps=10)
    >>> [x["tau"] for x in s.to_json()["switches"]], s.counts()
    (['1.209199576', '4.836798305'], (0, 2, 4))
    """
    dps = as_dps(dps)
    parts = lag_parts(F, tau, var)
    lo_q = _exact_param("lo", lo)
    hi_q = None if hi is None else _exact_param("hi", hi)
    if lo_q < 0:
        _refuse(f"lo must be >= 0 (a lag), got {lo}")
    if hi_q is not None and not hi_q > lo_q:
        _refuse(f"the range of {parts.tau} is empty: give lo < hi (got {lo}, {hi})")
    return _switches(parts, lo_q, hi_q, dps, name, force)


def _exact_param(which, v) -> sp.Rational:
    from symdelay.core.params import as_parameter

    x = as_parameter(which, v, positive=False)
    if not x.is_Rational:
        _refuse(f"{which} must be a number, got {v!r}")
    return x


def _switches(parts: LagParts, lo_q, hi_q, dps, name, force, F2=None):
    F2 = parts.mpoly() if F2 is None else F2
    const, zero_polys, factors = _prepare(F2)
    count_zero = const
    for p, m in zero_polys:
        ex = exact_counts([sp.Rational(int(c.p), int(c.q)) for c in reversed(p.coeffs())])
        count_zero += m * ex.rhp
    g = parts.scale
    notes = []
    if g != 1:
        notes.append(f"z = exp(-{g}*r*{parts.tau}): every lag is (theta + 2 pi k)/({g} omega)")
    if parts.denominator != 1:
        notes.append(f"the denominator {parts.denominator} (every root in Re r < 0) was cleared")
    prec = work_bits(dps)
    for _attempt in range(_ATTEMPTS):
        got = _attempt_at(parts, factors, count_zero, lo_q, hi_q, dps, prec, force)
        if got is not None:
            break
        prec *= 2
    else:
        raise CertificationError(
            "the crossings could not be separated or their directions proved at "
            f"{prec // 2} bits: a tangency or two switches at one lag? (undecided)"
        )
    crossings, switches, count_lo, beyond, axis0 = got
    axis_exact = sum(
        m * exact_counts([sp.Rational(int(c.p), int(c.q)) for c in reversed(p.coeffs())]).axis
        for p, m in zero_polys
    )
    if axis0 != axis_exact:
        raise VerificationError(
            f"{axis_exact} roots of F(r, 1) on the axis, {axis0} crossings at tau = 0"
        )
    if axis0:
        notes.append(
            f"{axis0} roots on the imaginary axis at {parts.tau} = 0 (F(r, 1)): counted by "
            "their direction for small lags"
        )
    with mpmath.workdps(dps + GUARD), flint.ctx.workprec(prec):  # no ball rounded here
        scale = mpmath.mpf(int(g.p)) / int(g.q)
        recs = tuple(
            LagCrossing(_mpf(w), _mpf(th), dr, m, text, dps, scale)
            for w, th, dr, m, text in crossings
        )
        sw_recs = []
        for tb, w, k, change, after in switches:  # tb: the ball of g * tau
            lo_e, hi_e = (_rational(_exact_end(tb, side)) / g for side in ("lower", "upper"))
            sw_recs.append(LagSwitch(_mpf(tb) / scale, lo_e, hi_e, _mpf(w), k, change, after, dps))
        crit, crit_b, crit_w = _critical(count_lo, lo_q, sw_recs)
        if crit is None:
            crit = mpmath.inf
        beyond_v = None if beyond is None else mpmath.mpf(int(beyond.p)) / int(beyond.q)
    counts = [count_lo, *(s[4] for s in switches)]
    stab = any(a > 0 and b == 0 for a, b in itertools.pairwise(counts))
    if beyond is not None:
        notes.append(
            f"the unstable count stays positive for every {parts.tau} above "
            f"{_fmt(beyond_v, 10)} (destabilising crossings outnumber the stabilising ones); "
            "the switches are listed up to there"
        )
    if not crossings:
        notes.append(
            "no crossing frequency w > 0 and r = 0 is not a root: the unstable count does not "
            f"depend on {parts.tau} (delay-independent)"
        )
    rng_hi = mpmath.inf if hi_q is None else mpmath.mpf(int(hi_q.p)) / int(hi_q.q)
    return LagSwitches(
        name,
        str(parts.expression),
        str(parts.tau),
        dps,
        mpmath.mpf(int(lo_q.p)) / int(lo_q.q),
        rng_hi,
        recs,
        tuple(sw_recs),
        count_zero,
        count_lo,
        crit,
        crit_b,
        crit_w,
        beyond_v,
        not crossings,
        stab,
        tuple(notes),
    )


def _critical(count_lo, lo_q, sw_recs):
    """``(value, bracket, omega)`` of the first lag in range where the count becomes
    positive (``lo`` itself when unstable just above it)."""
    if count_lo > 0:
        return mpmath.mpf(int(lo_q.p)) / int(lo_q.q), (lo_q, lo_q), None
    prev = count_lo
    for rec in sw_recs:
        if prev == 0 and rec.count_after > 0:
            return rec.tau, (rec.lower, rec.upper), rec.omega
        prev = rec.count_after
    return None, None, None


def _attempt_at(parts, factors, count_zero, lo_q, hi_q, dps, prec, force):
    """One pass at ``prec`` bits: None when a proof needs more bits."""
    crossings = _crossings_at(factors, prec, dps)
    if crossings is None:
        return None
    g = _q(parts.scale)
    with flint.ctx.workprec(prec):
        two_pi = 2 * flint.arb.pi()
        # the count just above 0: F(r, 1), plus the pairs on the axis at tau = 0 moving right
        axis0 = sum(2 * m for w, th, d, m, _ in crossings if th.is_zero())
        count0 = count_zero + sum(2 * m for w, th, d, m, _ in crossings if th.is_zero() and d > 0)
        # the lags are computed in the variable T = g tau (z = exp(-r T))
        lo_T = flint.arb(_q(lo_q) * g)
        beyond = None
        if hi_q is None:
            hi_T, beyond = _unbounded_end(crossings, count0, two_pi)
        else:
            hi_T = flint.arb(_q(hi_q) * g)
        # every switch in (0, hi]: (T ball, w, k, change)
        total = (
            0 if hi_T is None else sum(float((hi_T * w / two_pi).mid()) + 1 for w, *_ in crossings)
        )
        if total > MAX_SWITCHES and not force:
            _refuse(
                f"about {int(total)} switches up to hi (budget {MAX_SWITCHES}): give a smaller "
                "hi, or force=True"
            )
        events = []
        for w, th, d, m, _t in crossings if hi_T is not None else ():
            k = 1 if th.is_zero() else 0
            while True:
                T = (th + two_pi * k) / w
                if hi_T < T:
                    break
                if T.contains(hi_T) or (not hi_T > T):
                    return None  # at the end of the range: more bits (never exactly equal)
                events.append((T, w, k, 2 * m * d))
                k += 1
        events.sort(key=lambda e: e[0].mid())
        for a, b in itertools.pairwise(events):
            if a[0].overlaps(b[0]):
                return None
        if any(not _tight(e[0], dps) for e in events):
            return None
        count = count0
        switches = []
        for T, w, k, change in events:
            if T.overlaps(lo_T):
                return None
            count += change
            if count < 0:
                raise VerificationError(f"a negative unstable count after the lag {T}")
            if lo_T < T:
                switches.append((T, w, k, change, count))
        count_lo = count - sum(s[3] for s in switches)
    beyond_q = None if beyond is None else beyond / g
    return crossings, switches, count_lo, beyond_q, axis0


def _refuse_unbounded():
    _refuse(
        "the destabilising and stabilising crossings balance (their frequencies sum to the "
        "same): the unstable count does not grow; give hi (the largest lag of interest)"
    )


def _unbounded_end(crossings, count0, two_pi):
    """``(hi_T, T*)`` for an unbounded range: ``T*`` (exact) above which the count is
    positive for every lag (see the module docstring, step 6); ``(None, None)`` when there
    is no crossing."""
    if not crossings:
        return None, None
    pi = two_pi / 2
    slope = sum((d * m * w for w, th, d, m, _ in crossings), flint.arb(0))
    if slope.contains(0):
        _refuse_unbounded()
    if slope < 0:
        raise VerificationError("the stabilising crossings outrun the destabilising ones")
    const = flint.arb(0)
    for _w, th, d, m, _ in crossings:
        th1 = two_pi if th.is_zero() else th
        const += d * m * th1 / pi
        if d < 0:
            const += 2 * m
    T = (const - count0 + 1) / (slope / pi)
    T = max(T, flint.arb(0))
    Tq = _exact_end(T, "upper") + 1
    return flint.arb(Tq), Tq


# ========================================================================= windows
def critical_lag_curve(F, tau, param, values, dps: int = 15, *, var=None) -> list:
    """The critical lag (first lag where the unstable count becomes positive) of
    ``F(var, tau; param)`` at each of ``values`` of ``param``, certified point by point.

    The elimination's input is read once (:func:`lag_parts` with ``param`` symbolic); each
    point substitutes its exact value and runs the exact factorisation, resultant and Arb
    isolation of :func:`lag_switches`, stopping at the first crossing (from a count of 0 at
    ``tau = 0+`` the first crossing is destabilising: a machine check).

    Parameters
    ----------
    F : sympy.Expr or str
        The characteristic function in ``var``, ``tau`` and ``param``.
    tau : sympy.Symbol or str
        The lag.
    param : sympy.Symbol or str
        The parameter of the curve (polynomial in the coefficients of ``F``).
    values : iterable of numbers or str
        Its values (each made exact by the one conversion rule).
    dps : int, default 15
        Significant digits (5..10000).
    var : sympy.Symbol or str, optional
        The spectral variable (default ``r``).

    Returns
    -------
    list of (mpmath.mpf, mpmath.mpf or None)
        ``(critical lag, its crossing frequency)`` per value: ``(0, None)`` when unstable
        for small lags, ``(inf, None)`` when no lag destabilises.

    Examples
    --------
    >>> from symdelay.core.lazy import sympy as sp
    >>> r, tau, th = sp.symbols("r tau theta")
    >>> [mpmath.nstr(t, 10) for t, _w in critical_lag_curve(r + 1 + th * sp.exp(-r * tau), tau, th, [2, "0.5"])]
    ['1.209199576', '+inf']
    """
    from symdelay.core.params import as_parameter

    dps = as_dps(dps)
    name = str(param)
    parts = lag_parts(F, tau, var, params=(param,))
    g = _q(parts.scale)
    at = _mpoly_at(parts)
    out = []
    for v in values:
        # an exact rational is already what the conversion rule would give
        x = v if isinstance(v, sp.Rational) else as_parameter(name, v, positive=False)
        if not x.is_Rational:
            _refuse(f"{name} must be a number, got {v!r}")
        _const, _zp, factors = _prepare(at(_q(x)))
        count0 = _const + sum(m * exact_counts(list(reversed(p.coeffs()))).rhp for p, m in _zp)
        if count0:  # unstable at tau = 0+ already, whatever the crossings
            out.append((0, None))
            continue
        prec = work_bits(dps)
        for _attempt in range(_ATTEMPTS):
            got = _first_crossing(factors, count0, dps, prec)
            if got is not None:
                break
            prec *= 2
        else:
            raise CertificationError(f"the first crossing at {name} = {x} is undecided")
        T, w = got
        if T is None:
            out.append((mpmath.inf if w is None else 0, None))
        else:
            with flint.ctx.workprec(prec):
                out.append((T / flint.arb(g), w))
    with mpmath.workdps(dps + GUARD):  # once for the curve (not once per point)
        return [(mpmath.mpf(T), None) if w is None else (_mpf(T), _mpf(w)) for T, w in out]


def _mpoly_at(parts: LagParts):
    """``x -> parts.mpoly({param: x})`` for the one parameter of a curve, ``x`` an fmpq: the
    same exact polynomial, its coefficients read once into fmpq (not per point in SymPy)."""
    ctx = flint.fmpq_mpoly_ctx.get(_NAMES, "lex")
    table = [(k, j, ps[0] if ps else 0, _fmpq(c)) for (k, j, *ps), c in parts.terms.items()]

    def at(x):
        out: dict = {}
        for k, j, e, c in table:
            v = c * x**e if e else c
            if v != 0:
                out[(k, j)] = out.get((k, j), 0) + v
        return ctx.from_dict({m: c for m, c in out.items() if c != 0} or {(0, 0): 0})

    return at


def _first_crossing(factors, count0, dps, prec):
    """``(T, w)`` of the first destabilising crossing (``T = g tau``), ``(None, None)``
    when there is none, ``(None, 0)`` when unstable for small lags; None: more bits."""
    crossings = _crossings_at(factors, prec, dps)
    if crossings is None:
        return None
    if count0 + sum(2 * m for _w, th, d, m, _ in crossings if th.is_zero() and d > 0):
        return None, 0
    with flint.ctx.workprec(prec):
        two_pi = 2 * flint.arb.pi()
        firsts = sorted(
            (((two_pi if th.is_zero() else th) / w, w, d) for w, th, d, _m, _t in crossings),
            key=lambda e: e[0].mid(),
        )
        if not firsts:
            return None, None
        T, w, d = firsts[0]
        if len(firsts) > 1 and T.overlaps(firsts[1][0]):
            return None
        if d < 0:
            raise VerificationError("the first crossing from a stable equation is stabilising")
        return T, w
