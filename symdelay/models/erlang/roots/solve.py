"""Certified characteristic roots of the difference mode, for L up to 10^4 (all) / 10^6 (rightmost).

Method (finite L). With ``u = (r + gamma)/gamma`` the polynomial becomes
``u^L (u + a) + c`` (:func:`~symdelay.models.erlang.roots.equations.branch_equation`). Every root lies in
exactly one half-open sector ``S_k = {(2 pi k - pi)/L < arg u <= (2 pi k + pi)/L}`` and is a
fixed point there of the branch map ``T_k(u) = e^{2 pi i k/L} (-c/(u + a))^{1/L}``
(principal root), whose image lies in ``S_k``; so fixed points of different branches are
different roots. Iterating ``T_k`` from ``|c|^{1/(L+1)} e^{2 pi i k/L}`` and polishing by
Newton gives L roots, one per sector; the sector that contains ``-a`` (k = 0 when
``gamma > mu``) holds one more root, given by Vieta (the roots sum to ``-a``); for L <= 24 the
seeds are the companion eigenvalues instead. All roots are then refined by Newton on
``F(r) = P(r)/(r+gamma)^L`` at ``dps`` + guard digits, in Arb alone
(:mod:`~symdelay.models.erlang.roots.arbpath`), and certified: each lies in a proved disc
(a zero of P within ``(L + 1)|P/P'|`` of the last Newton point), the discs are proved
pairwise disjoint, so the L + 1 discs hold L + 1 *distinct* roots of a polynomial of degree
L + 1 — all of them, one each. Should that fail, the general path below repeats it with
its repair of the seeds and the contraction proof of
:func:`~symdelay.analysis.certify.certify_root`. If a branch iteration had landed on a root twice,
disjointness fails; the missing roots are then searched by Newton with implicit deflation
before giving up with :class:`~symdelay.core.errors.CertificationError`.

Rightmost roots. Rightmost in r is rightmost in u (``Re r = gamma (Re u - 1)``); the roots
lie near ``|u| = (|c|/|u + a|)^{1/L}``, so the rightmost ones sit in the sectors nearest the
positive real axis. Candidates from the sectors ``|k| <= m`` and from the Lambert-W roots
(the L = oo limit) are refined and certified; then the argument principle proves that the
rectangle that must contain every root with ``Re r > x`` (``|r + mu| <= |lam theta|
(1 + x/gamma)^(-L)`` there) holds exactly the candidates found, so none is missing.

Unstable count. With all L + 1 roots certified the count is read off the discs (none may
meet the axis). For the rightmost roots and for L = oo, roots with ``Re r >= 0`` satisfy
``|r + mu| <= |lam theta|``, and the argument principle on that box gives the count
independently of the root finder, cross-checked against the certified roots. (Tests compare
the all-roots count with the argument principle and the exact Routh array.)

>>> res = characteristic_roots(1, 1, 1, 5, 1, dps=20)
>>> [f"{f.mode}: {f}" for f in res.factors]
['difference: (r + 1)**2 + 5']
>>> len(res), res.unstable_count, res.verdict
(2, 0, 'stable')
>>> mpmath.nstr(res[0].value, 15)                     # r^2 + 2 r + 6 = 0: -1 + i sqrt(5)
'(-1.0 + 2.23606797749979j)'
>>> float(res[0].radius) < 1e-25
True
"""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction
from typing import NamedTuple

import flint
import mpmath
from mpmath.libmp import from_int, from_rational, fzero, mpf_abs, mpf_shift

from symdelay.analysis.certify import (
    arb_to_mpf_upper,
    certify_root,
    check_disjoint,
    count_zeros,
    mpc_from_acb_mid,
    to_arb,
)
from symdelay.analysis.rootset import CertifiedRoot, RootSet, order_key
from symdelay.core.errors import CertificationError, SymdelayInputError
from symdelay.core.exact import to_float as _float
from symdelay.core.lazy import module as _lazy_module
from symdelay.core.lazy import sympy as sp
from symdelay.core.params import as_dps, as_L, as_parameter, is_infinite_L
from symdelay.core.precision import GUARD, work_bits
from symdelay.models.erlang.roots import arbpath
from symdelay.models.erlang.roots.arbpath import DIFFERENCE

np = _lazy_module("numpy")  # imported at first use
_make_mpf, _make_mpc = mpmath.mp.make_mpf, mpmath.mp.make_mpc
_ZERO = mpmath.mpf(0)

__all__ = [
    "CertifiedRoot",
    "RootSet",
    "characteristic_roots",
    "specialised_roots",
    "ALL_ROOTS_MAX_L",
    "RIGHTMOST_MAX_L",
    "parse_branches",
]

ALL_ROOTS_MAX_L = 10_000
SMALL_L = 24
RIGHTMOST_MAX_L = 10_000_000
#: Largest L for the exact (gcd over Q) test of roots on the imaginary axis away from 0.
AXIS_EXACT_MAX_L = 10_000


# ----------------------------------------------------------------------------- input
def parse_branches(text) -> tuple[int, int]:
    """``"-3..3"`` (or a pair) -> ``(-3, 3)``.

    >>> parse_branches("-3..3")
    (-3, 3)
    """
    if isinstance(text, tuple | list) and len(text) == 2:
        lo, hi = text
    else:
        parts = str(text).strip().split("..")
        try:
            lo, hi = (int(p) for p in parts) if len(parts) == 2 else (None, None)
        except ValueError:
            lo = hi = None
    if (
        not isinstance(lo, int)
        or not isinstance(hi, int)
        or isinstance(lo, bool)
        or lo > hi
        or hi - lo > 10_000
    ):
        raise SymdelayInputError(
            f"branches must be 'K1..K2' with integers K1 <= K2 (at most 10000 apart), got {text!r}"
        )
    return lo, hi


def _params(mu, lam, theta, D, exact=None):
    """The parameters as exact numbers: SymPy rationals, or with ``exact=Fraction`` the
    ``Fraction`` each number denotes (the L = inf path, which needs no SymPy)."""
    given = {"mu": mu, "lam": lam, "theta": theta, "D": D}
    p = {}
    for name, v in given.items():
        if exact is Fraction and isinstance(v, Fraction):
            p[name] = v
            continue
        if getattr(v, "is_Rational", False) is True and (name == "theta" or v.p > 0):
            p[name] = v  # an exact SymPy rational (the model's checked options): as it is
            continue
        p[name] = as_parameter(name, v, positive=name != "theta")
        if not p[name].is_number:
            raise SymdelayInputError(f"{name} must be a number for root finding, got '{v}'")
    return p


# ------------------------------------------------ the delay-differential limit, stored
# The L = oo characteristic function and its roots, written out once from the derivation
# (symdelay.models.erlang.charpoly.infinite_L_limit and
# symdelay.models.erlang.roots.equations.lambert_w_roots_formula; tests/test_roots_limit_stored.py
# re-derives both and compares), so that the numeric path needs no SymPy.
def _dde_balls(z, mu, lam, theta, D):
    """``(G, G')`` of ``G(r) = r + mu + lam theta exp(-D r)`` on Arb balls."""
    e = lam * theta * (-D * z).exp()
    return z + mu + e, 1 - D * e


def _lambert_root(mu, lam, theta, D, k):
    """``r_k = -mu + W_k(-lam theta D e^{mu D}) / D`` (mpmath, the working precision)."""
    return -mu + mpmath.lambertw(-lam * theta * D * mpmath.exp(mu * D), k) / D


def _mpq(v) -> mpmath.mpf:
    """An exact rational (a ``Fraction`` or a SymPy Rational) at the working precision."""
    if isinstance(v, Fraction):
        return mpmath.mpf(v.numerator) / v.denominator
    return mpmath.mpf(int(v.p)) / int(v.q)


# -------------------------------------------------------------------- F in Arb
def _arb_functions(p, L, prec: int):
    """``F`` and ``F'`` on Arb balls (lambdified from SymPy); parameters as balls at ``prec``."""
    if L is None:
        fn = _dde_balls
    else:
        from symdelay.models.erlang.roots.equations import ball_functions

        fn = ball_functions()
    with flint.ctx.workprec(prec):
        mu_, lam_, th_, D_ = (to_arb(p[n]) for n in ("mu", "lam", "theta", "D"))
        g = None if L is None else to_arb(sp.Rational(L) / p["D"])
    if L is None:

        def both(z):
            return fn(z, mu_, lam_, th_, D_)

    else:

        def both(z):
            return fn(z, mu_, lam_, th_, g, L)

    return (lambda z: both(z)[0]), (lambda z: both(z)[1]), both


def _newton_ball(z0: complex, both, prec: int):
    """Newton at ``prec`` bits on midpoints of Arb balls (Arb is just fast arithmetic here).

    The seeds are correct to ~1e-10 relative; quadratic convergence then needs a handful
    of steps. Returns the final midpoint as an mpmath ``mpc``.
    """
    with flint.ctx.workprec(prec):
        z = flint.acb(z0.real, z0.imag)
        tol = flint.arb(2) ** (-(prec // 2) - 8)
        done = False
        for _ in range(40):
            f, df = both(z)
            step = f / df
            if not step.is_finite():
                break
            z = flint.acb(z.real.mid(), z.imag.mid()) - flint.acb(step.real.mid(), step.imag.mid())
            z = flint.acb(z.real.mid(), z.imag.mid())
            if done:
                return mpc_from_acb_mid(z)
            done = bool(step.abs_upper() < tol * (1 + z.abs_upper()))
    raise CertificationError(f"Newton did not converge from r = {z0:.10g}")


# ---------------------------------------------------------------- double-precision seeds
def _sector_seeds(L, a, c, ks, iters=80):
    """Fixed points of T_k (one per sector), polished by Newton on u + a + c u^-L."""
    ks = np.asarray(ks, dtype=float)
    om = np.exp(2j * np.pi * ks / L)
    u = om * abs(c) ** (1.0 / (L + 1))
    with np.errstate(all="ignore"):
        for _ in range(iters):
            u = om * ((-c) / (u + a) + 0j) ** (1.0 / L)
        u = _newton_u(u, L, a, c)
    return u


def _newton_u(u, L, a, c, steps=12):
    with np.errstate(all="ignore"):
        for _ in range(steps):
            p = np.exp(-L * np.log(u))
            step = (u + a + c * p) / (1 - L * c * p / u)
            u = np.where(np.isfinite(step), u - step, u)
    return u


def _converged(u, L, a, c):
    """Double-precision residual test for roots of q(u) = u + a + c u^-L."""
    with np.errstate(all="ignore"):
        p = c * np.exp(-L * np.log(u))
        q = u + a + p
        scale = np.abs(u) + abs(a) + np.abs(p)
        return np.isfinite(q) & (np.abs(q) <= 1e-11 * scale * (1 + np.log1p(L)))


def _deflated_newton(u0, others, L, a, c, steps=80):
    """Newton on f(u)/prod(u - u_j), f = u^L (u + a) + c (implicit deflation, Aberth step)."""
    u = complex(u0)
    others = np.asarray(others)
    if u == 0 or not np.isfinite(u):
        return None
    for _ in range(steps):
        with np.errstate(all="ignore"):
            p = np.exp(-L * np.log(u))
            ratio = (u + a + c * p) / (1 - L * c * p / u)  # q/q', q = f/u^L
            s = np.sum(1.0 / (u - others)) - L / u  # deflate the known roots of f
            step = ratio / (1 - ratio * s)
        if not np.isfinite(step) or u == step:
            return None
        u -= step
        if abs(step) < 1e-14 * (1 + abs(u)):
            break
    return u


def _distinct_fast(values, digits=9):
    arr = np.asarray(values)
    key = np.round(arr.real, digits) + 1j * np.round(arr.imag, digits)
    _, idx = np.unique(key, return_index=True)
    return list(arr[np.sort(idx)])


def _all_seeds(L, a, c):
    """L + 1 distinct double-precision roots of u^L (u + a) + c (see the module docstring)."""
    if L <= SMALL_L:
        # few sectors are wide and T_k need not contract: use the eigenvalues of the
        # companion matrix of the *well-scaled* u-polynomial (coefficients 1, a, c)
        coeffs = np.zeros(L + 2)
        coeffs[0], coeffs[1], coeffs[-1] = 1.0, a, c
        u = _newton_u(np.roots(coeffs).astype(complex), L, a, c, steps=3)
    else:
        u = _sector_seeds(L, a, c, np.arange(L) - L // 2)
        extra = _newton_u(np.array([-a - np.sum(u)]), L, a, c)  # Vieta: roots sum to -a
        u = np.concatenate([u, extra])
    ok = _converged(u, L, a, c)
    good = _distinct_fast(u[ok])
    # repair: roots not converged or found twice are searched with deflation
    starts = [*list(u[~ok]), -a, *list(np.conj(good[-3:]))]
    rng = np.random.default_rng(1)
    tries = 0
    while len(good) < L + 1 and tries < 50 + 5 * (L + 1 - len(good)):
        tries += 1
        s0 = (
            starts.pop(0) if starts else abs(c) ** (1 / (L + 1)) * np.exp(2j * np.pi * rng.random())
        )
        others = np.array(good)
        for start in (s0, s0 * (1 + 1e-3j)):
            z = _deflated_newton(start, others, L, a, c)
            if z is None:
                continue
            z = _newton_u(np.array([z]), L, a, c, steps=2)[0]
            if _converged(np.array([z]), L, a, c)[0] and np.all(
                np.abs(others - z) > 1e-8 * (1 + abs(z))
            ):
                good.append(z)
                if abs(z.imag) > 1e-8 * (1 + abs(z)) and np.all(
                    np.abs(np.array(good) - np.conj(z)) > 1e-8 * (1 + abs(z))
                ):
                    starts.insert(0, np.conj(z))
                break
    return good


# ------------------------------------------------------------------------- public entry
def characteristic_roots(
    L, mu, lam, theta, D, dps: int = 50, rightmost: int | None = None, branches=(-3, 3), kappa=None
) -> RootSet:
    """Certified roots of the founding model's difference-mode characteristic function
    ``(r + mu)(r + gamma)^L + lam theta gamma^L`` (``gamma = L/D``): the convenience of
    :func:`symdelay.roots`, whose record (with the sum mode's roots) this one restricts to the
    difference mode.

    All ``L + 1`` roots for ``L <= 10^4``; with ``rightmost=K`` the ``K`` rightmost for
    ``L <= 10^7``; at ``L = inf`` the roots of ``r + mu + lam theta e^{-rD}`` on the Lambert-W
    branches ``branches``.

    Parameters
    ----------
    L : int, str or float
        The number of Erlang phases, an integer ``>= 1``, or ``"inf"`` / ``math.inf``.
    mu, lam, theta, D : number or str
        The service rate, the arrival rate per queue, the routing sensitivity (real,
        non-zero) and the mean delay (the others ``> 0``), each made exact.
    dps : int, default 50
        Significant digits (5..10000) of every root; each carries a proved error radius.
    rightmost : int, optional
        Only the ``rightmost`` roots of largest real part; the counts stay those of the whole
        spectrum. Default: every root.
    branches : tuple of two ints, default (-3, 3)
        ``L = inf`` only: the Lambert-W branches ``(k1, k2)``, ``k1 <= k2``, whose roots are
        listed.
    kappa : number, str or sequence, optional
        Weights of the jobs in flight: the ``inflight`` model's roots, factor by factor.

    Returns
    -------
    RootSet
        The certified roots (value and radius), the exact counts of unstable roots and the
        verdict.

    Raises
    ------
    CertificationError
        When a root cannot be certified at ``dps`` digits.

    Examples
    --------
    >>> rs = characteristic_roots(2, 1, 1, 3, 1, dps=15)
    >>> rs.unstable_count, rs.verdict
    (0, 'stable')
    """
    from symdelay.analysis.roots import roots
    from symdelay.models.erlang.founding import FoundingModel

    if kappa is not None:
        from symdelay.models.erlang.kappa import inflight_model

        m = inflight_model(L, kappa, mu=mu, lam=lam, theta=theta, D=D)
        return roots(m, dps=dps).mode_roots("difference")
    model = FoundingModel(L=L, mu=mu, lam=lam, theta=theta, D=D)
    branches = branches if model.infinite else None  # the branches of L = inf only
    if (model.numbers["theta"] or 0) == 0 or model.numbers["lam"] is None:  # the entry says
        res = roots(model, dps=dps, rightmost=rightmost, branches=branches, method="specialised")
        return res.mode_roots("difference")
    return _founding_record(model, dps, rightmost, branches, with_sum=False)


class _Solved(NamedTuple):
    """The difference mode's certified roots (tagged ``DIFFERENCE``) and
    its counts over the whole spectrum; ``scope``: ``"all"``, ``"rightmost"`` (the K
    rightmost, or all of them to be cut to K) or ``"branches"`` (L = oo)."""

    roots: list
    unstable: int
    axis: int
    scope: str
    methods: tuple
    notes: tuple = ()
    ordered: bool = False  # already in order_key's order (the Arb path's doubles)


def specialised_roots(model, dps=30, rightmost=None, branches=None, force=None) -> RootSet:
    """The founding model's roots (:func:`~symdelay.analysis.roots.roots`), the record of
    every path: the sum mode ``(r + mu)(r + gamma)^L`` (L = oo: ``r + mu``), whose roots
    ``-mu`` and ``-gamma`` (L-fold) are exact, and the difference mode by the Erlang branch
    structure (finite L) or Lambert W (L = oo). It applies to every founding model with
    numbers (it never declines)."""
    return _founding_record(model, dps, rightmost, branches)


def _founding_record(model, dps, rightmost, branches, with_sum: bool = True) -> RootSet:
    """The record of :func:`specialised_roots`; without the sum mode (``with_sum=False``,
    :func:`characteristic_roots`) the same record restricted to the difference mode."""
    o = model.numbers if model.infinite else model.options  # L = inf: Fractions, no SymPy
    if model.symbolic:
        raise SymdelayInputError(
            "L must be an integer >= 1 (number of delay phases) or inf for root finding, got L"
        )
    missing = [k for k in ("mu", "lam", "theta", "D") if o[k] is None]
    if missing:
        raise SymdelayInputError(
            "the roots of the founding model need numbers for "
            + ", ".join(missing)
            + " (--"
            + ", --".join(missing)
            + ")"
        )
    if branches is not None and not model.infinite:
        raise SymdelayInputError("--branches is for --L inf (Lambert-W branches); drop it")
    dps = as_dps(dps)
    L = model.phases
    p = _params(o["mu"], o["lam"], o["theta"], o["D"], exact=Fraction if model.infinite else None)
    if rightmost is not None and (
        isinstance(rightmost, bool) or not isinstance(rightmost, int) or rightmost < 1
    ):
        raise SymdelayInputError(f"rightmost must be an integer >= 1, got {rightmost!r}")
    factors = _factors(L, p)
    if len(factors) == 1:  # theta = 0: the difference mode is the sum mode, roots exact
        scope = "all" if rightmost is None else "rightmost"
        solved = _Solved([], 0, 0, scope, ("exact (theta = 0: -mu and -L/D)",))
    else:
        solved = _founding_roots(L, p, dps, rightmost, (-3, 3) if branches is None else branches)
    if with_sum:
        roots = _with_sum_roots(solved, L, p, _work(dps, L if isinstance(L, int) else 1))
        if len(factors) == 1:
            roots = [replace(z, multiplicity=2 * z.multiplicity) for z in roots]
        counts = ((0, 0), (solved.unstable, solved.axis))[: len(factors)]
    else:  # theta != 0 here (characteristic_roots): the difference mode alone
        roots = solved.roots if solved.ordered else sorted(solved.roots, key=order_key)
        factors, counts = factors[1:], ((solved.unstable, solved.axis),)
    if rightmost is not None:
        roots = roots[:rightmost]
    return RootSet(
        dps,
        roots,
        factors,
        counts,
        scope=solved.scope,
        parameters=model.record_options(),  # what model_parameters reads for it
        count_methods=solved.methods,
        notes=solved.notes,
        path="specialised",
        model_name=model.name,
    )


def _exact_root(num: int, den: int, mult: int, prec: int) -> CertifiedRoot:
    """The real root ``num/den`` (``den > 0``) at ``prec`` bits, its radius the rounding
    (0 for an integer)."""
    g = math.gcd(num, den)
    num, den = num // g, den // g
    if den == 1:
        v, radius = _make_mpf(from_int(num)), _ZERO
    else:
        raw = from_rational(num, den, prec, "n")
        v = _make_mpf(raw)
        radius = _make_mpf(mpf_shift(mpf_abs(raw), 1 - prec))  # |error| <= 2^-prec |v|
    return CertifiedRoot(_make_mpc((v._mpf_, fzero)), radius, None, mult, False, True, "sum")


def _with_sum_roots(solved: _Solved, L, p, work) -> list:
    """The difference mode's roots with the sum mode's (``-mu``, and ``-gamma`` L-fold;
    one root ``-mu`` (L + 1)-fold when ``mu = gamma``), in :func:`order_key`'s order."""
    import bisect

    prec = _bits(work)
    (mn, md), (dn, dd) = _pq(p["mu"]), _pq(p["D"])
    if not isinstance(L, int):  # L = oo: the sum mode is r + mu
        extra = [_exact_root(-mn, md, 1, prec)]
    elif L * dd * md == mn * dn:  # gamma = L/D equals mu
        extra = [_exact_root(-mn, md, L + 1, prec)]
    else:  # -mu and -gamma = -L dd/dn (dn > 0: D > 0)
        extra = [_exact_root(-mn, md, 1, prec), _exact_root(-L * dd, dn, L, prec)]
    roots = list(solved.roots)
    if not solved.ordered:
        roots.sort(key=order_key)
    for z in extra:
        bisect.insort(roots, z, key=order_key)
    return roots


def _factors(L, p) -> tuple:
    """The founding model's factors by mode
    (:func:`~symdelay.models.erlang.charpoly.founding_factors`); L = oo with their text made
    here, so that the path needs no SymPy until an expression is read."""
    global _finite_factors
    values = {"mu": p["mu"], "lam": p["lam"], "theta": p["theta"], "D": p["D"]}
    if isinstance(L, int):
        if _finite_factors is None:  # imported once (it loads SymPy: finite L only)
            from symdelay.models.erlang.charpoly import founding_factors as _finite_factors
        return _finite_factors(L, values)
    import functools

    from symdelay.analysis.charpoly import ModeFactor

    mu, k, D = (Fraction(*_pq(v)) for v in (p["mu"], p["lam"] * p["theta"], p["D"]))
    items = tuple(values.items())
    if k == 0:
        return (ModeFactor(functools.partial(_factor_later, items, 0), "sum", 2, f"r + {mu}"),)
    return (
        ModeFactor(functools.partial(_factor_later, items, 0), "sum", 1, f"r + {mu}"),
        ModeFactor(
            functools.partial(_factor_later, items, 1), "difference", 1, _dde_text(mu, k, D)
        ),
    )


_finite_factors = None


def _factor_later(items, index: int):
    import math

    from symdelay.models.erlang.charpoly import founding_factors

    return founding_factors(math.inf, dict(items))[index].factor


def _dde_text(mu, k, D) -> str:
    """``r + mu + k*exp(-D*r)`` as text (no SymPy: the L = oo path has none)."""
    sign, mag = ("-", -k) if k < 0 else ("+", k)
    coef = "" if mag == 1 else f"{mag}*"
    arg = "-r" if D == 1 else f"-{D}*r"
    return f"r + {mu} {sign} {coef}exp({arg})"


def _founding_roots(L, p, dps, rightmost, branches) -> _Solved:
    if is_infinite_L(L):
        return _lambert_roots(p, dps, parse_branches(branches))
    L = as_L(L, allow_symbol=False)
    if rightmost is None:
        if L > ALL_ROOTS_MAX_L:
            raise SymdelayInputError(
                f"L = {L} is too large for all roots (limit {ALL_ROOTS_MAX_L}); "
                f"use rightmost=K (--rightmost K) for the K rightmost roots, up to L = "
                f"{RIGHTMOST_MAX_L}"
            )
        return _all_or_isolated(L, p, dps)
    if L > RIGHTMOST_MAX_L:
        raise SymdelayInputError(f"L = {L} is too large (limit {RIGHTMOST_MAX_L} for --rightmost)")
    if rightmost >= L + 1 or L <= 256:
        return _all_or_isolated(L, p, dps)._replace(scope="rightmost")
    return _rescaled(_rightmost_roots, L, p, dps, rightmost)


#: The largest L whose L + 1 roots are separated at raised precision when the seeded path
#: cannot (a cluster, time scales far apart): L sectors iterated at hundreds of digits.
ISOLATED_MAX_L = 1000


def _all_or_isolated(L, p, dps) -> _Solved:
    """All L + 1 roots: by the seeded path (double-precision seeds, Newton in Arb, proved
    discs), or, where it cannot separate them (a cluster of roots closer than the seeds'
    precision, ``theta = 1e-300``; rates whose time scales are more than 10^150 apart), by
    the same branch maps iterated at a precision that resolves them (:func:`_precise_roots`)."""
    try:
        return _rescaled(_all_roots, L, p, dps)
    except (CertificationError, _SeedRange) as exc:
        if L > ISOLATED_MAX_L:
            why = str(exc).rstrip(".")
            raise CertificationError(
                f"{why}; the raised-precision path that separates clustered roots is limited "
                f"to L <= {ISOLATED_MAX_L}: give a smaller L, or lam*theta and mu nearer L/D"
            ) from None
    return _precise_roots(L, p, dps)


def _log10(x: Fraction) -> float:
    x = abs(x)
    return 0.0 if x == 0 else math.log10(x.numerator) - math.log10(x.denominator)


def _digits_apart(mu, lt, gq, L) -> int:
    """Decimal digits, beyond those asked, that tell the roots of ``u^L (u + a) + c``
    (``u = 1 + r/gamma``, ``a = mu/gamma - 1``, ``c = lam theta/gamma``) apart: a cluster of
    L roots of radius about ``|c/a|^(1/L)`` near ``u = 0`` (``c`` small), a root near ``-a``
    far from the others (``mu >> gamma``), roots ``r`` far below ``gamma`` (``u`` near 1:
    ``gamma >> mu, lam theta``)."""
    a, c = (mu - gq) / gq, lt / gq
    la, lc = _log10(a), _log10(c)
    radius = (lc - la) / L if a != 0 else lc / (L + 1)
    spacing = min(radius, lc / (L + 1)) - math.log10(L + 1)
    near_one = _log10(gq) - min(_log10(mu), _log10(lt), _log10(gq))
    largest = max(la, 0.0, lc / (L + 1))  # |u| of the largest root, in decimal digits
    return math.ceil(max(largest - spacing, 0.0) + near_one) + 5


def _complete(us, A, C, L, tol):
    """The L + 1 roots of ``u^L (u + A) + C`` from the branch-map fixed points ``us``: two
    sectors may give one root on their common edge (``u = +-i 1e-200``), so the distinct
    ones are kept, the conjugate of each non-real one added (real coefficients), Vieta's
    last root (the roots sum to ``-A``) and, for any still missing, Newton deflated by the
    roots known."""
    found = []

    def polished(u):
        for _step in range(12):  # Newton on u + A + C u^-L
            step = (u + A + C * u ** (-L)) / (1 - L * C * u ** (-L - 1))
            u -= step
            if abs(step) <= tol * abs(u):
                break
        return u

    def add(u):
        u = polished(u)
        if all(abs(u - v) > tol**0.75 * (abs(u) + abs(v)) for v in found):
            found.append(u)

    for u in us:
        add(u)
    for u in list(found):
        if abs(u.imag) > tol * abs(u):
            add(mpmath.conj(u))
    if len(found) == L:
        add(-A - mpmath.fsum(found))
    start = abs(C) ** (mpmath.mpf(1) / (L + 1)) or mpmath.mpf(1)
    tries = 0
    while len(found) < L + 1 and tries < 4 * (L + 1):
        tries += 1
        u = start * mpmath.expjpi(mpmath.mpf(2 * tries + 1) / (4 * L + 4)) * (1 + tries * tol**0.5)
        for _step in range(200):  # f/prod(u - u_j), f = u^L (u + A) + C (implicit deflation)
            f = u ** (L + 1) + A * u**L + C
            df = (L + 1) * u**L + L * A * u ** (L - 1)
            ratio = f / df
            step = ratio / (1 - ratio * mpmath.fsum(1 / (u - v) for v in found))
            u -= step
            if abs(step) <= tol * abs(u):
                break
        add(u)
    return found


#: the most digits :func:`_precise_roots` raises its precision to
_MAX_PRECISE_DIGITS = 20_000


def _precise_roots(L, p, dps) -> _Solved:
    """The L + 1 roots when double precision cannot tell them apart: in ``u = 1 + r/gamma``
    the branch map ``T_k(u) = e^{2 pi i k/L} (-c/(u + a))^{1/L}`` of each sector (see the
    module docstring) iterated in mpmath at a precision that resolves the closest roots
    (:func:`_digits_apart`), completed by :func:`_complete`, every root refined by Newton
    and certified in Arb (:func:`_certify_all`: proved discs, pairwise disjoint; L + 1 of
    them for a polynomial of degree L + 1, so none is missing); the precision is doubled
    when a certificate fails."""
    from symdelay.core.budget import check_budget

    def budget(work):
        # L sectors, each a few dozen steps of a power at `work` digits (L = 1000 at 700
        # digits: about 20 s), then L + 1 certificates
        check_budget(
            f"the {L + 1} roots at {work} digits", 2e-8 * L * work**1.6 * 40,
            shrink="a smaller L, or rates nearer each other",
        )  # fmt: skip

    gq = Fraction(*_pq(sp.Rational(L) / p["D"]))
    mu, lt = Fraction(*_pq(p["mu"])), Fraction(*_pq(p["lam"] * p["theta"]))
    a, c = (mu - gq) / gq, lt / gq
    work = _work(dps, L) + _digits_apart(mu, lt, gq, L)
    budget(work)
    while True:  # a root near the axis, far from 0, needs the digits of |r| / |Re r|
        prec = _bits(work)
        F, dF, _both = _arb_functions(p, L, prec)
        try:
            with mpmath.workdps(work):
                A, C, g = (mpmath.mpf(x.numerator) / x.denominator for x in (a, c, gq))
                tol = mpmath.mpf(10) ** (-work + 5)
                us = []
                start = abs(C) ** (mpmath.mpf(1) / (L + 1))
                for k in range(-(L // 2), L - L // 2):
                    w = mpmath.expjpi(mpmath.mpf(2 * k) / L)
                    u = w * start
                    for _step in range(200):
                        nxt = w * ((-C) / (u + A)) ** (mpmath.mpf(1) / L)
                        done = abs(nxt - u) <= tol * abs(nxt)
                        u = nxt
                        if done:
                            break
                    us.append(u)
                values = [g * (u - 1) for u in _complete(us, A, C, L, tol)]
                if len(values) != L + 1:
                    raise CertificationError(f"found {len(values)} of the {L + 1} roots")
                roots = _certify_all(values, [None] * len(values), F, dF, work)
                roots, axis = _mark_axis_roots(roots, L, p, prec)
                count = _disc_count(roots) if not axis else None
            break
        except (CertificationError, ZeroDivisionError) as exc:
            if 2 * work > _MAX_PRECISE_DIGITS:
                raise CertificationError(
                    f"the roots could not be separated at {work} digits: {exc}"
                ) from None
        work *= 2
        budget(work)
    roots.sort(key=_sort_key)
    if count is None:
        count = sum(1 for z in roots if not z.on_axis and z.value.real > 0)
    return _Solved(
        roots,
        count,
        axis,
        "all",
        ("certified roots (complete by degree)",),
        notes=(f"the roots were separated at {work} digits (a cluster, or rates far apart)",),
    )


_SEED_A_MAX, _SEED_C_MAX = 10**150, 10**308


class _SeedRange(SymdelayInputError):
    """Rates beyond what the double-precision seeds resolve (the exact isolation may)."""


def _check_seed_range(p, L) -> None:
    """The double-precision seeds need ``mu/gamma`` and ``lam theta/gamma`` in range."""
    (mn, md), (ln, ld), (tn, td), (Dn, Dd) = (
        _pq(p["mu"]),
        _pq(p["lam"]),
        _pq(p["theta"]),
        _pq(p["D"]),
    )
    # a = |mu| D / L and c = |lam theta| D / L against the bounds, in integers (D > 0)
    a_num, a_den = abs(mn) * Dn, md * Dd * L
    c_num, c_den = abs(ln * tn) * Dn, ld * td * Dd * L
    if a_num > _SEED_A_MAX * a_den or c_num > _SEED_C_MAX * c_den:
        a, c = Fraction(a_num, a_den), Fraction(c_num, c_den)
        raise _SeedRange(
            f"mu*D/L = {_float(a):.3g} and lam*theta*D/L = {_float(c):.3g}: the service and "
            "delay time scales differ by more than 10^150 (or lam*theta*D/L > 10^308), "
            "beyond the double-precision starting points; bring mu, D and lam*theta closer"
        )


#: The argument principle's segment budget (certify.count_zeros) and, for L = oo, the
#: largest |lam theta| D whose box it can search (about 2 |lam theta| D / pi roots).
MAX_SEGMENTS = 200_000
MAX_INFINITE_L_SCALE = 10_000


#: Phase rates gamma outside [1/RESCALE, RESCALE] are solved in the time unit 1/gamma.
RESCALE = 2**20


def _rescaled(solve, L, p, dps, *extra) -> _Solved:
    """``solve`` in the time unit ``1/gamma`` when gamma is far from 1 (``D = 1e40``,
    ``mu = 1e-300``): the roots scale with the rates. With ``r = gamma s`` the polynomial
    is ``gamma^(L+1)`` times the one of ``mu/gamma, lam/gamma, theta, D gamma = L``, so
    the roots are ``gamma`` times its roots (counts unchanged, gamma > 0 exact); each disc
    is scaled and widened by the rounding of the product."""
    Dn, Dd = _pq(p["D"])
    if Dn <= RESCALE * L * Dd and L * Dd <= RESCALE * Dn:  # 1/RESCALE <= L/D <= RESCALE
        _check_seed_range(p, L)
        return solve(L, p, dps, *extra)
    gq = sp.Rational(L) / p["D"]
    q = {"mu": p["mu"] / gq, "lam": p["lam"] / gq, "theta": p["theta"], "D": sp.Integer(L)}
    _check_seed_range(q, L)
    res = solve(L, q, dps, *extra)
    work = _work(dps, L)
    with mpmath.workdps(work + 10):
        g = mpmath.mpf(gq.p) / gq.q
        ulp = mpmath.mpf(2) ** (-mpmath.mp.prec + 4)
        out = []
        for z in res.roots:
            v = z.value * g
            if z.on_axis:
                v = mpmath.mpc(0, v.imag)
            elif z.value.imag == 0:
                v = mpmath.mpc(v.real, 0)
            radius = z.radius * g * (1 + ulp) + abs(v) * ulp
            out.append(replace(z, value=v, radius=radius, mode=DIFFERENCE))
    return res._replace(
        roots=out,
        notes=(*res.notes, f"solved in the time unit 1/gamma (gamma = {gq}), then scaled back"),
    )


def _work(dps, L):
    """The working digits: the guard digits and one more per digit of L (the roots cluster
    more closely as L grows)."""
    return dps + GUARD + (len(str(L)) if isinstance(L, int) else 2)


def _bits(work: int) -> int:
    """The bits of the working digits ``work`` (:func:`_work`, guard digits included)."""
    return work_bits(work, guard=0)


def _sort_key(z: CertifiedRoot):
    return (-z.value.real, -z.value.imag)


def _certify_all(values, branches, F, dF, work_dps):
    prec = _bits(work_dps)
    roots = []
    for v, k in zip(values, branches):
        radius, rho = certify_root(F, dF, v, prec)
        if v.imag != 0 and abs(v.imag) <= radius and radius + 2 * abs(v.imag) <= rho:
            # F is real on the real axis, so the conjugate of the root is a root too, within
            # radius + 2|Im v| <= rho of v: by uniqueness in that disc the root is real
            with flint.ctx.workprec(prec):
                radius = arb_to_mpf_upper(to_arb(radius) + abs(to_arb(v.imag)))
            v = mpmath.mpc(v.real, 0)
        roots.append(CertifiedRoot(v, radius, k, is_real=v.imag == 0, mode=DIFFERENCE))
    check_disjoint([z.value for z in roots], [z.radius for z in roots])
    return roots


def _rhp_count(F, p, L):
    """Argument principle on the box that must contain every root with Re r >= 0.

    There ``|r + mu| >= |r|`` and ``|r + gamma| >= max(|r|, gamma)``, so a root has
    ``|r| <= |r + mu| <= |lam theta|`` and ``|r|^(L+1) <= |lam theta| gamma^L``, and
    ``Re r <= |lam theta| - mu``: the box is ``[0, X] x [-Y, Y]`` a little beyond those
    bounds, on the scale of the roots whatever the scale of the rates (``D = 1e20``,
    ``lam = 1e300``).
    """
    k = abs(p["lam"] * p["theta"])
    if L is None:  # L = oo: only |r + mu| <= |lam theta|
        bound = abs(p["lam"] * p["theta"])
        # the box holds about 2 |lam theta| D / pi roots (the Lambert-W branches up to
        # |Im r| = |lam theta|), each costing the contour several segments
        if bound * p["D"] > MAX_INFINITE_L_SCALE:
            raise SymdelayInputError(
                f"|lam*theta|*D = {_float(bound * p['D']):.3g}: for L = inf about "
                f"{mpmath.nstr(2 * _mpq(bound * p['D']) / mpmath.pi, 3)} roots lie in the box the unstable "
                f"count must search, beyond the contour's {MAX_SEGMENTS} segments; give "
                f"|lam*theta|*D below {MAX_INFINITE_L_SCALE:g}"
            )
        x1, y1 = _float(max(bound - p["mu"], 0) + 1), _float(bound + 1)
        return count_zeros(F, 0, x1, -y1, y1, pieces_per_unit=4 * max(_float(p["D"]), 1))
    gq = sp.Rational(L) / p["D"]
    with mpmath.workdps(30):
        kk = mpmath.mpf(k.p) / k.q
        g = mpmath.mpf(gq.p) / gq.q
        # |r| <= |r + mu| <= |lam theta| bounds |Im r|; Re(r + mu) <= |lam theta| bounds
        # Re r by |lam theta| - mu; both are also below (|lam theta| gamma^L)^(1/(L+1))
        modulus = min(kk, (kk * g**L) ** (mpmath.mpf(1) / (L + 1)))
        X = min(kk - mpmath.mpf(p["mu"].p) / p["mu"].q, modulus)
        pad = mpmath.mpf(10) ** -40 * (1 + kk + g)
        X, Y = max(X, 0) * 1.01 + pad, modulus * 1.01 + pad
    return count_zeros(F, 0, X, -Y, Y, pieces_per_unit=4 * max(float(p["D"]), 1.0))


def _disc_count(roots) -> int:
    """Roots with ``Re r > 0`` among certified discs none of which meets the axis."""
    for z in roots:
        if not z.on_axis and abs(z.value.real) <= z.radius:
            raise CertificationError(
                f"root {mpmath.nstr(z.value, 15)} is within its error radius of the "
                "imaginary axis: stability undecidable at this precision"
            )
    return sum(1 for z in roots if not z.on_axis and z.value.real > 0)


def _confirm_rhp(roots, count):
    """The certified roots (some of them) against the argument principle's ``count``."""
    inside = _disc_count(roots)
    if inside > count:
        raise CertificationError(
            f"right-half-plane count mismatch: {inside} certified roots vs {count} by the "
            "argument principle"
        )


def _scaled_coefficients(L, p):
    """Rational coefficients (highest first) of ``P(gamma s)/gamma^(L+1) = (s + mu/gamma)
    (s + 1)^L + lam theta/gamma``: the imaginary axis in s is the imaginary axis in r."""
    from symdelay.models.erlang.charpoly import difference_coefficients

    gq = sp.Rational(L) / p["D"]
    return gq, difference_coefficients(L, p["mu"] / gq, sp.Integer(1), p["lam"] * p["theta"] / gq)


def _mark_axis_roots(roots, L, p, prec):
    """Decide exactly which roots whose discs meet the imaginary axis lie on it.

    Finite L: ``i w`` is a root iff ``w/gamma`` is a real root of ``gcd(R, I)`` for the
    scaled polynomial (:func:`symdelay.analysis.polyroots.axis_roots`, exact over Q). L = oo:
    for rational parameters ``r = 0`` (when ``mu + lam theta = 0``) is the only possible
    root on the axis: ``r = i w`` with ``w != 0`` would need ``e^{i w D} = -(mu + i w)/(lam
    theta)`` with ``w^2 = (lam theta)^2 - mu^2``, an algebraic ``i w D != 0`` with an
    algebraic exponential, which the Hermite-Lindemann theorem excludes.
    Returns ``(roots, axis_count)``; raises CertificationError for a disc that meets the
    axis around a root that is not on it (more digits separate it).
    """
    from symdelay.analysis.polyroots import axis_roots

    touching = [i for i, z in enumerate(roots) if abs(z.value.real) <= z.radius]
    if not touching:
        return roots, 0
    out = list(roots)
    if L is None and not all(isinstance(v, Fraction) or v.is_Rational for v in p.values()):
        raise CertificationError("a root meets the imaginary axis and a parameter is irrational")
    if L is None or all(abs(roots[i].value.imag) <= roots[i].radius for i in touching):
        # only r = 0 is in question (finite L: P(0) = (mu + lam theta) gamma^L, exact at any L)
        zero = p["mu"] + p["lam"] * p["theta"] == 0
        cands = [(flint.arb(0), 1)] if zero else []
        scale = 1
    else:
        if L > AXIS_EXACT_MAX_L:
            raise CertificationError(
                f"a root meets the imaginary axis away from 0 and L = {L} is above "
                f"{AXIS_EXACT_MAX_L}, the limit of the exact gcd test: stability undecidable"
            )
        gq, coeffs = _scaled_coefficients(L, p)
        cands = axis_roots(coeffs, prec)
        scale = gq
    found = 0
    for i in touching:
        z = roots[i]
        hit = []
        for w, _m in cands:
            with flint.ctx.workprec(prec + 64):
                wr = w * to_arb(scale)
                d = (flint.acb(to_arb(z.value.real), to_arb(z.value.imag) - wr)).abs_lower()
                if d <= to_arb(z.radius) + wr.rad():
                    hit.append(wr)
        if len(hit) != 1:
            raise CertificationError(
                f"root {mpmath.nstr(z.value, 15)} is within its error radius of the imaginary "
                "axis but not on it: stability undecidable at this precision (raise dps)"
            )
        with flint.ctx.workprec(prec + 64):
            im = mpc_from_acb_mid(flint.acb(hit[0])).real
            rad = arb_to_mpf_upper(to_arb(z.radius) + hit[0].rad() + abs(to_arb(z.value.imag - im)))
        out[i] = CertifiedRoot(mpmath.mpc(0, im), rad, z.branch, 1, True, im == 0, DIFFERENCE)
        found += 1
    if L is not None and found != sum(m for _, m in cands):  # every root with Re > x < 0 is here
        raise CertificationError(
            f"{sum(m for _, m in cands)} roots on the imaginary axis by exact arithmetic, "
            f"{found} certified discs meet it"
        )
    return out, found


def _general_all_roots(L, p, work):
    """Every root by the branch-map (or companion) seeds, refined and certified through
    the SymPy-derived F (the path for every L; :func:`_all_roots` tries Arb alone first)."""
    g = float(sp.Rational(L) / p["D"])
    a = float((p["mu"] - sp.Rational(L) / p["D"]) / (sp.Rational(L) / p["D"]))
    c = float(p["lam"] * p["theta"] / (sp.Rational(L) / p["D"]))
    seeds_u = _all_seeds(L, a, c)
    if len(seeds_u) != L + 1:
        raise CertificationError(f"found only {len(seeds_u)} of the {L + 1} roots")
    k_of = [int(np.rint(L * np.angle(z) / (2 * np.pi))) for z in seeds_u]
    prec = _bits(work)
    F, dF, both = _arb_functions(p, L, prec)
    with mpmath.workdps(work):
        values = [_newton_ball(complex(g * (z - 1)), both, prec) for z in seeds_u]
        return _certify_all(values, k_of, F, dF, work)


def _pq(v) -> tuple[int, int]:
    """Numerator and (positive) denominator of a SymPy Rational or a Fraction."""
    if isinstance(v, Fraction):
        return v.numerator, v.denominator
    return int(v.p), int(v.q)


#: how the unstable count of all L + 1 roots is known when no disc meets the axis
_COMPLETE = ("certified roots (complete by degree)",)


def _all_roots(L, p, dps) -> _Solved:
    work = _work(dps, L)
    prec = _bits(work)
    mu_, D_ = flint.fmpq(*_pq(p["mu"])), flint.fmpq(*_pq(p["D"]))
    lt_ = flint.fmpq(*_pq(p["lam"])) * flint.fmpq(*_pq(p["theta"]))
    try:
        if L <= arbpath.MAX_L:
            solved = arbpath.certified_roots(L, mu_, lt_, D_, prec, ordered=True)
        else:
            g = L / D_
            a, c = float((mu_ - g) / g), float(lt_ / g)
            seeds_u = _all_seeds(L, a, c)
            solved = arbpath.certified_roots(L, mu_, lt_, D_, prec, seeds_u, ordered=True)
    except CertificationError:
        solved = None  # the general path, with its repair of the seeds, decides
    if solved is not None and not solved.meets_axis:
        # the common case, decided on the Arb balls: no disc meets the imaginary axis, so
        # no root is on it (what _mark_axis_roots finds), the roots come rightmost first
        # (_sort_key's order) and the count is the discs' (_disc_count; see the end)
        # sorted by the doubles of the parts when all are in the normal range: the order of
        # order_key (the records' order)
        return _Solved(solved.roots, solved.rhp, 0, "all", _COMPLETE, ordered=solved.by_doubles)
    roots = _general_all_roots(L, p, work) if solved is None else solved.roots
    with mpmath.workdps(work):
        roots, axis = _mark_axis_roots(roots, L, p, prec)
    roots.sort(key=_sort_key)
    if axis:
        # the argument principle cannot run through the axis roots: exact counts instead
        # (certified discs, every sign decided; and the Cauchy index over Q for L <= 400)
        count = sum(1 for z in roots if not z.on_axis and z.value.real > 0)
        methods = ["certified roots", "exact imaginary-axis test"]
        if L <= 400:
            from symdelay.analysis.polyroots import exact_counts

            ex = exact_counts(_scaled_coefficients(L, p)[1])
            if (ex.rhp, ex.axis) != (count, axis):
                raise CertificationError(
                    f"exact counts (rhp {ex.rhp}, axis {ex.axis}) disagree with the certified "
                    f"roots (rhp {count}, axis {axis})"
                )
            methods.append("Cauchy index (exact)")
        return _Solved(roots, count, axis, "all", tuple(methods))
    # L + 1 pairwise disjoint discs, each proved to hold exactly one zero of a polynomial of
    # degree L + 1: the set is complete, so the unstable count is read off the discs once
    # none of them meets the axis (the argument principle and the Routh array, the two
    # independent counts, are compared with it in tests/test_roots_rhp_box.py)
    count = _disc_count(roots)
    return _Solved(roots, count, 0, "all", _COMPLETE)


def _lambert_seeds(p, m) -> list:
    """Double-precision seeds near the L = oo roots (a heuristic only: every root is then
    refined and certified; the exact formula is :func:`~.equations.lambert_w_roots_formula`)."""
    from scipy.special import lambertw

    mu_, D_, lt = float(p["mu"]), float(p["D"]), float(p["lam"] * p["theta"])
    with np.errstate(all="ignore"):
        z = -lt * D_ * math.exp(min(mu_ * D_, 700.0))
        out = -mu_ + lambertw(z, np.arange(-m, m + 1)) / D_
    return [complex(v) for v in out if np.isfinite(v)]


def _rightmost_roots(L, p, dps, K) -> _Solved:
    work = _work(dps, L)
    gq = sp.Rational(L) / p["D"]
    g, a, c = float(gq), float((p["mu"] - gq) / gq), float(p["lam"] * p["theta"] / gq)
    F, dF, both = _arb_functions(p, L, _bits(work))
    for m in (K + 3, 2 * K + 8, 4 * K + 20):
        u = _sector_seeds(L, a, c, np.arange(-m, m + 1))
        u = np.concatenate([u, np.conj(u)])  # real coefficients: roots come in pairs
        extra = _deflated_newton(-a + 1e-3j, np.array(_distinct_fast(u)), L, a, c)  # sector of -a
        if extra is not None:
            u = np.concatenate([u, [extra, np.conj(extra)]])
        seeds = [complex(g * (z - 1)) for z in _distinct_fast(u)] + _lambert_seeds(p, m)
        seeds = [s for s in seeds if np.isfinite(s)]
        with mpmath.workdps(work):
            vals = []
            for s in seeds:
                try:
                    v = _newton_ball(s, both, _bits(work))
                except CertificationError:
                    continue
                if v.real > -g / 2 and all(
                    abs(v - u) > mpmath.mpf(10) ** (-work // 2) * (1 + abs(v)) for u in vals
                ):
                    vals.append(v)
            if len(vals) < K:
                continue
            roots = _certify_all(vals, [None] * len(vals), F, dF, work)
        roots.sort(key=_sort_key)
        with mpmath.workdps(work):
            sig = [z.value.real for z in roots]
            lower = [s for s in sig if s < sig[K - 1] - mpmath.mpf(10) ** (-dps // 2)]
            # a round abscissa between the K-th root and the next one (exact float)
            x = float((sig[K - 1] + lower[0]) / 2) if lower else float(sig[K - 1] - 1)
            if x <= -g / 2 or any(abs(z.value.real - x) <= z.radius for z in roots):
                continue
            ahead = [z for z in roots if z.value.real > x]
        with flint.ctx.workprec(64):
            lt = to_arb(abs(p["lam"] * p["theta"]))
            Y = lt / (1 + to_arb(mpmath.mpf(x)) / to_arb(gq)) ** L
            Yf = float(arb_to_mpf_upper(Y))
        x1 = max(Yf - float(p["mu"]), float(x)) + 1
        n = count_zeros(F, float(x), x1, -Yf - 1, Yf + 1, pieces_per_unit=4 * max(float(p["D"]), 1))
        if n == len(ahead):
            if any(abs(z.value.real) <= z.radius for z in ahead):
                # a root meets the imaginary axis: decide it exactly; every root with
                # Re r > x (x < 0 here) is certified and the box count proved none missing,
                # so the unstable count is read off the certified roots
                if x >= 0:
                    raise CertificationError(
                        "a root lies on the imaginary axis and the unstable count needs more "
                        "rightmost roots: raise --rightmost"
                    )
                marked, axis = _mark_axis_roots(ahead, L, p, _bits(work))
                marked.sort(key=_sort_key)
                count = sum(1 for z in marked if not z.on_axis and z.value.real > 0)
                return _Solved(
                    marked[:K],
                    count,
                    axis,
                    "rightmost",
                    (
                        "argument principle (Re r > x)",
                        "certified roots",
                        "exact imaginary-axis test",
                    ),
                )
            count = _rhp_count(F, p, L)
            top = roots[:K]
            _confirm_rhp(top, count)
            inside = sum(z.value.real > 0 for z in top)
            if count <= K and inside != count:
                raise CertificationError("rightmost roots disagree with the unstable count")
            return _Solved(top, count, 0, "rightmost", ("argument principle",))
    raise CertificationError(
        f"could not prove that the {K} rightmost roots were found (argument-principle count "
        "disagrees with the candidates)"
    )


def _lambert_roots(p, dps, branches) -> _Solved:
    work = dps + 12
    F, dF, _ = _arb_functions(p, None, _bits(work))
    k1, k2 = branches
    with mpmath.workdps(work):
        args = [_mpq(v) for v in (p["mu"], p["lam"], p["theta"], p["D"])]
        ks = list(range(k1, k2 + 1))
        values = [mpmath.mpc(_lambert_root(*args, k)) for k in ks]
        roots = _certify_all(values, ks, F, dF, work)
        roots, axis = _mark_axis_roots(roots, None, p, _bits(work))
    if p["mu"] + p["lam"] * p["theta"] == 0 and not axis:
        axis = 1  # r = 0 is a root (on a branch not listed)
    roots.sort(key=order_key)
    count = _punctured_rhp_count(F, p) if axis else _rhp_count(F, p, None)
    _confirm_rhp(roots, count)
    return _Solved(roots, count, axis, "branches", ("argument principle",))


def _punctured_rhp_count(F, p):
    """Roots with Re r > 0 when r = 0 is a (simple) root of the DDE and no other root is on
    the axis: the argument principle on the box minus a small square ``[0, d] x [-d, d]``,
    in three rectangles, where ``d`` is below the radius within which 0 is the only root."""
    dF = _arb_functions(p, None, 128)[1]
    rho = None
    with flint.ctx.workprec(128):
        y = 1 / dF(flint.acb(0))  # F(0) = 0: T(z) = z - y F(z) maps a disc around 0 into
        for k in range(1, 80):  # itself and contracts when sup |1 - y F'| < 1 there
            t = flint.arb(2) ** (-k)
            box = flint.acb(flint.arb(0, t), flint.arb(0, t))
            if (1 - y * dF(box)).abs_upper() < 1:
                rho = float(t)  # the box contains the disc of radius t: 0 is its only root
                break
    if rho is None:
        raise CertificationError("r = 0 is not a simple root of the delay equation")
    bound = abs(p["lam"] * p["theta"])
    x1 = float(max(bound - p["mu"], 0) + 1)
    y1 = float(bound + 1)
    ppu = 4 * max(float(p["D"]), 1)
    for frac in (4, 7, 13):
        d = float(rho) / frac
        try:
            return (
                count_zeros(F, 0, x1, d, y1, pieces_per_unit=ppu)
                + count_zeros(F, 0, x1, -y1, -d, pieces_per_unit=ppu)
                + count_zeros(F, d, x1, -d, d, pieces_per_unit=ppu)
            )
        except CertificationError:
            continue
    raise CertificationError("argument principle around the root r = 0 did not converge")
