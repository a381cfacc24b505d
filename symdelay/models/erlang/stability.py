"""Stability of the action-delay difference mode: Routh–Hurwitz conditions and the Hopf boundary.

The characteristic polynomial ``(r+mu)(r+gamma)^L + lam*theta*gamma^L`` depends on lam and
theta only through the product ``k = lam*theta``. Under ``mu, gamma, lam > 0, theta >= 0``
the Routh conditions of :func:`symdelay.analysis.routh.routh_hurwitz` are simplified by dropping every
condition (and every factor) that is positive there; what is left is the *stability*
condition. Its boundary ``k_c(mu, gamma)`` is the smallest positive root of the last
Hurwitz determinant ``Delta_L`` (a polynomial in k of degree ``floor(L/2)``):

* at ``k = 0`` the roots are ``-mu, -gamma`` (stable);
* every crossing of the imaginary axis at ``r = i w`` with ``k > 0`` goes to the right:
  ``Re(dr/dk) = Re(Q/Q')/k > 0`` with ``Q = (r+mu)(r+gamma)^L``, because
  ``Re(Q'/Q)(i w) = mu/(w^2+mu^2) + L gamma/(w^2+gamma^2) > 0``;
* so the equilibrium is stable exactly for ``-mu < k < k_c`` (the lower end, reached only
  for theta < 0, is the real root crossing 0 at ``k = -mu``: ``a_n = gamma^L (mu + k)``).

The record's conditions hold on the model's domain (``theta`` real); the conditions under
``theta >= 0``, the Hopf polynomial and its root are the family's closed forms:

>>> res = stability_conditions(2)
>>> res.closed_forms["critical_lam_theta"]
2*(gamma + mu)**2/gamma
>>> res.closed_forms["conditions_under_assumptions"]
(lam*theta < 2*(gamma + mu)**2/gamma,)
>>> res.conditions
(lam*theta < 2*(gamma + mu)**2/gamma, lam*theta > -mu)
>>> stability_conditions(1).closed_forms["critical_lam_theta"] is None
True

The *oscillation* condition (the rightmost roots are non-real) is a different set: for
``L = 1`` it is ``4 gamma lam theta > (mu - gamma)^2``, which never destabilises; for every
L it is one bound ``lam*theta > k_o(mu, gamma)`` (:func:`oscillation_threshold`).

>>> stability_conditions(2).closed_forms["oscillation_condition"]
lam*theta > 4*Max(0, gamma - mu)**3/(27*gamma**2)

``L = oo``: Hayes' region of ``r + mu + lam theta e^{-rD} = 0``, the verdict at numbers in
certified intervals (:func:`infinite_L_verdict`).
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import NamedTuple

from symdelay.analysis.routh import routh_hurwitz
from symdelay.analysis.stability import Stability, free_conditions
from symdelay.core.errors import SymdelayInputError, VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.params import as_L
from symdelay.core.symbols import D, gamma, lam, mu, r, theta
from symdelay.models.erlang.charpoly import (
    difference_coefficients,
    special_case,
)

__all__ = [
    "Stability",
    "stability_conditions",
    "specialised_stability",
    "founding_closed_forms",
    "difference_routh",
    "infinite_L_verdict",
    "is_oscillatory_at",
    "oscillation_threshold",
    "ASSUMPTIONS",
]

#: The domain the simplified conditions hold on.
from symdelay.models.erlang import ASSUMPTIONS

_k = sp.Symbol("k")  # lam*theta
_mp, _gp = sp.Symbol("mu", positive=True), sp.Symbol("gamma", positive=True)
_kn = sp.Symbol("k", nonnegative=True)
_MAX_CLOSED_DEGREE = 2


def _in_k(expr):
    """Rewrite an expression in lam, theta as one in k = lam*theta (exact).

    Raises :class:`SymdelayInputError` when the expression depends on lam and theta
    separately (it is then not a function of k alone).
    """
    out = sp.expand(sp.sympify(expr).subs(lam, _k / theta))
    if theta in out.free_symbols:
        raise SymdelayInputError(
            f"{expr} depends on lam and theta separately, not only through lam*theta"
        )
    return out


def _positive_on_domain(expr) -> bool:
    return bool(expr.xreplace({mu: _mp, gamma: _gp, _k: _kn}).is_positive)


def _essential_factor(expr, removed=None):
    """``expr`` with the factors positive on the domain removed (sign preserved); the
    removed factors are appended to ``removed``."""
    c, factors = sp.factor_list(expr)
    keep = []
    for f, e in factors:
        if _positive_on_domain(f):
            if removed is not None:
                removed.append(f)
        else:
            keep.append(f**e)
    return sp.sign(c) * sp.Mul(*keep)


def _positive_above_minus_mu(f) -> bool:
    """``f(mu, gamma, k) > 0`` for every ``k > -mu`` (``mu, gamma > 0``), proved by SymPy
    (with ``k = t - mu``, ``t > 0``)."""
    t = sp.Symbol("t", positive=True)
    return bool(f.subs(_k, t - mu).xreplace({mu: _mp, gamma: _gp}).is_positive)


def _as_k_inequality(poly):
    """``poly > 0`` as ``k < f`` / ``k > f`` when poly is linear in k, else unchanged."""
    P = sp.Poly(poly, _k)
    if P.degree() == 1:
        a, b = P.all_coeffs()
        bound = sp.factor(-b / a)
        if _positive_on_domain(a):
            return sp.StrictGreaterThan(_k, bound, evaluate=False)
        if _positive_on_domain(-a):
            return sp.StrictLessThan(_k, bound, evaluate=False)
    return sp.StrictGreaterThan(sp.factor(poly), 0, evaluate=False)


def _to_lam_theta(expr):
    return expr.subs(_k, lam * theta)


def _closed_root(f):
    """The positive root of ``f(k)`` (degree <= 2) that the Hopf crossing takes."""
    P = sp.Poly(f, _k)
    if P.degree() > _MAX_CLOSED_DEGREE:
        return None
    roots = sp.solve(f, _k)
    # exactly one root is positive on the domain (arg Q(i w) = pi gives k > 0,
    # arg = 2 pi gives k < 0); identify it at mu = gamma = 1 and check at two more points
    positive = []
    for root in roots:
        ok = all(
            root.subs({mu: m, gamma: g}).evalf(30) > 0
            for m, g in ((1, 1), (sp.Rational(1, 3), 5), (7, sp.Rational(1, 2)))
        )
        if ok:
            positive.append(root)
    if len(positive) != 1:
        return None
    return sp.factor(sp.radsimp(positive[0]))


@cache
def oscillation_threshold(L):
    """``k_o``: the oscillation set is ``lam*theta > k_o`` (rightmost roots non-real).

    Finite L: with ``F(r) = (r+mu)(r+gamma)^L`` the real roots solve ``F(r) = -k gamma^L``.
    ``F'`` vanishes at ``-gamma`` and at ``r* = -(gamma + L mu)/(L+1)`` (solved here), and
    ``k_o = -F(r*)/gamma^L`` is where the real root next to ``-mu`` becomes double. At a
    real root ``y`` with ``F'(y) > 0``, ``|F(y + i b)| > |F(y)|`` for ``b != 0``, so by
    Rouché on ``Re r >= y`` (indented to the left of ``y``) ``P`` and ``F`` have equally
    many zeros there. Hence (``gamma > mu``): for ``0 < k <= k_o`` the real root in
    ``[r*, -mu)`` is the only root with ``Re r >=`` it (no oscillation); for ``k > k_o`` the
    only real root is left of every other root (or there is none). For ``gamma <= mu`` and
    ``L >= 2`` the same count leaves at least two non-real roots right of the rightmost real
    one for every ``k > 0``; for ``k <= 0`` the real root right of ``-min(mu, gamma)`` is
    rightmost. So ``k_o`` is returned with ``gamma - mu`` replaced by ``Max(0, gamma - mu)``
    for ``L >= 2``; for ``L = 1`` it is ``(gamma - mu)^2/(4 gamma)`` unchanged.

    ``L = oo``: ``G(r) = (r+mu) e^{rD} = -k``, ``G' = 0`` at ``r* = -mu - 1/D``, so
    ``k_o = -G(r*) = e^{-1-mu D}/D``; beyond it the principal Lambert-W root (the rightmost)
    is non-real.

    >>> oscillation_threshold(2)
    4*Max(0, gamma - mu)**3/(27*gamma**2)
    >>> oscillation_threshold("inf")
    exp(-D*mu - 1)/D
    """
    from symdelay.core.params import is_infinite_L

    if is_infinite_L(L):
        G = (r + mu) * sp.exp(r * D)
        (rs,) = sp.solve(sp.diff(G, r), r)
        return sp.simplify(-G.subs(r, rs))
    n = as_L(L, allow_symbol=False)
    F = (r + mu) * (r + gamma) ** n
    lin = sp.Poly(sp.cancel(sp.diff(F, r) / (r + gamma) ** (n - 1)), r)
    if lin.degree() != 1:  # pragma: no cover - (L+1) r + gamma + L mu
        raise VerificationError(f"F'/(r + gamma)^(L-1) = {lin.as_expr()} is not linear in r")
    rs = -lin.nth(0) / lin.nth(1)  # (sp.solve would do the same at ~0.1 s per process)
    ko = sp.factor(-F.subs(r, rs) / gamma**n)
    if n == 1:
        return ko
    d = sp.Symbol("d", positive=True)
    ko_d = sp.factor(ko.subs(mu, gamma - d))
    num, den = sp.fraction(ko_d)
    if d in den.free_symbols or not sp.Poly(num, d).is_monomial:  # pragma: no cover
        raise VerificationError(f"k_o = {ko} is not a monomial in gamma - mu")
    return ko_d.subs(d, sp.Max(0, gamma - mu))


def _oscillation_condition(L: int):
    if L == 1:
        return special_case(1).oscillation_condition
    return sp.StrictGreaterThan(lam * theta, oscillation_threshold(L), evaluate=False)


#: What theta < 0 adds to the conditions (both closed forms, finite L and L = inf).
THETA_NEGATIVE = (
    "theta < 0 routes jobs towards the longer queue; a real root crosses 0 at "
    "lam*theta = -mu, so then stability also needs lam*theta > -mu"
)

#: Seconds per L^4 of the symbolic conditions (measured: L = 20 in about 4 s, L = 30 in 21 s).
SECONDS_PER_L4 = 4e-5


def stability_conditions(L, *, force: bool = False, kappa=None) -> Stability:
    """The Routh–Hurwitz stability conditions of the founding model with ``L`` phases, every
    parameter symbolic: the convenience of :func:`symdelay.stability` on
    ``build_model("erlang", L=L)``.

    The conditions hold for ``mu, gamma, lam > 0`` and ``theta`` real; the record's
    ``closed_forms`` carry the Hopf polynomial, ``critical_lam_theta``, the oscillation
    condition and the conditions under ``theta >= 0``. The work grows like ``L^4``.

    Parameters
    ----------
    L : int or str
        The number of Erlang phases, an integer ``>= 1`` (or its text). The delay equation
        (``L = inf``) has no finite list of conditions: ask :func:`symdelay.stability` of
        ``build_model("erlang", L="inf", ...)`` at numbers (Hayes' region).
    force : bool, default False
        Run even when the symbolic work is estimated over the shared budget
        (:mod:`symdelay.core.budget`).
    kappa : number, str or sequence, optional
        Weights of the jobs in flight (one number for every phase, or one per phase): the
        ``inflight`` model's conditions (Routh–Hurwitz on its factors) instead.

    Returns
    -------
    Stability
        ``conditions`` in ``mu``, ``gamma``, ``lam`` and ``theta``, ``stable`` (None: depends
        on them) and the family's ``closed_forms``. Cached: the same ``L`` gives the same
        object.

    Examples
    --------
    >>> stability_conditions(3).closed_forms["critical_lam_theta"]
    8*(gamma + mu)**3/(3*gamma + mu)**2
    """
    from symdelay.analysis.stability import stability

    if kappa is not None:
        from symdelay.models.erlang.kappa import inflight_model

        return stability(inflight_model(as_L(L, allow_symbol=False), kappa))
    n = as_L(L, allow_symbol=False)
    founding_closed_forms(n, force=force)  # the estimate (refused over the budget), once
    return _symbolic(n)


@cache
def _symbolic(n: int) -> Stability:
    """:func:`stability_conditions` at ``L = n``, one record per process (``2`` and
    ``"2"`` are one entry)."""
    from symdelay.analysis.stability import stability
    from symdelay.models.erlang.founding import FoundingModel

    return stability(FoundingModel(L=n), method="specialised")


def specialised_stability(model, force=None, dps: int = 20) -> Stability:
    """The founding model's stability (:func:`~symdelay.analysis.stability.stability`), the
    record of every path: the conditions for its L in closed form with its numbers put in,
    and, when every option is a number, the verdict there, exactly (Routh–Hurwitz counts on
    the rational polynomial, any sign of theta; L = inf by Hayes' region in certified
    intervals, :func:`infinite_L_verdict`). It never declines; symbolic L is refused."""
    from symdelay.analysis.charpoly import model_parameters
    from symdelay.analysis.stability import EXACT_COUNTS, counts_verdict, factor_counts
    from symdelay.models.erlang.charpoly import founding_factors, model_values

    if model.symbolic:
        raise SymdelayInputError(
            f"L must be an integer >= 1 (number of delay phases) or inf, got '{model.L}': the "
            "stability conditions are for one number of phases (the characteristic "
            "polynomial for every L: 'symdelay charpoly --L L')"
        )
    values = model_values(model)
    if all(v is not None for v in values.values()):
        # the verdict needs none of them: derived (and their cost guarded) when first read
        from symdelay.analysis.entry import ClosedForms

        cf = ClosedForms(lambda: stability_closed_forms(model, force=force))
    else:
        cf = stability_closed_forms(model, force=force)
    L = sp.oo if model.infinite else model.L
    factors = founding_factors(L, values)
    common = {
        "factors": factors,
        "parameters": model_parameters(model),
        "closed_forms": cf,
        "dps": dps,
        "model_name": model.name,
    }
    if all(v is not None for v in values.values()):
        if model.infinite:
            found = infinite_L_verdict(values, dps)
            counts, verdict, decided = (found.unstable, found.axis), found.verdict, found.decided_by
            axis = tuple(("difference", w, rad, m) for w, rad, m in found.axis_roots)
        else:
            n, lt = model.L, values["lam"] * values["theta"]
            coeffs = difference_coefficients(n, values["mu"], sp.Integer(n) / values["D"], lt)
            rhp, on_axis, axis = factor_counts(coeffs, 1, "difference", int(dps * 3.33) + 30)
            counts, decided = (rhp, on_axis), EXACT_COUNTS
            verdict = counts_verdict([(None, rhp, on_axis)])
        stable = {"stable": True, "undecided": None}.get(verdict, False)
        verdicts = ((True, 0, 0), (stable, *counts))[-len(factors) :]
        return Stability(
            (),
            stable,
            verdict,
            factor_verdicts=verdicts,
            axis_roots=axis,
            decided_by=decided,
            **common,
        )
    conds, known = _conditions_at(
        "inf" if model.infinite else model.L, tuple(_substitution(model, values).items())
    )
    verdicts = ((True, None, None), (known, None, None))[-len(factors) :]
    return Stability(conds, known, None, factor_verdicts=verdicts, **common)


_lp = sp.Symbol("lam", positive=True)


def _substitution(model, values) -> dict:
    """The numbers given, as substitutions into the closed forms (``D`` -> ``gamma``)."""
    out = {}
    for name, sym in (("mu", mu), ("lam", lam), ("theta", theta)):
        if values[name] is not None:
            out[sym] = values[name]
    if values["D"] is not None:
        if model.infinite:
            out[D] = values["D"]
        else:
            out[gamma] = sp.Integer(model.L) / values["D"]
    return out


@lru_cache(maxsize=512)
def _conditions_at(L, subs: tuple):
    """The founding conditions on the model's domain (theta real) with the numbers ``subs``
    put in: ``(conditions left, known)`` (:func:`free_conditions`), cached."""
    found = infinite_L_conditions() if L == "inf" else _stability_conditions(L)["conditions"]
    values = dict(subs)
    return free_conditions(
        [c.subs(values) if values else c for c in found],
        positive={mu: _mp, gamma: _gp, lam: _lp},
    )


def stability_closed_forms(model, force=None) -> dict | None:
    """What the founding family knows in closed form about stability (the same for both
    paths; cached per L): the Hopf polynomial and ``critical_lam_theta``, the oscillation
    condition, the conditions under ``theta >= 0`` and the Routh conditions (finite L), or
    the critical delay (L = inf); None for the symbol L."""
    if model.symbolic:
        return None
    if model.infinite:
        return infinite_L_closed_forms()
    return founding_closed_forms(model.L, force=force)


def founding_closed_forms(L, force=None) -> dict:
    """The founding stability's closed forms at ``L`` phases (a dict, cached): the
    conditions under ``theta >= 0`` (``conditions_under_assumptions``), the Hopf polynomial
    ``Delta_L`` in ``lam*theta`` and its closed-form root ``critical_lam_theta`` (None for
    L = 1 and where SymPy's root is no usable closed form), ``critical_lam_theta_in_D``, the
    oscillation condition and its threshold, the Routh conditions of the symbolic
    polynomial. The work grows like ``L^4``: refused over the shared budget unless
    ``force``.

    >>> founding_closed_forms(2)["critical_lam_theta_in_D"]
    (D*mu + 2)**2/D
    """
    from symdelay.core.budget import check_budget, power_cost

    n = as_L(L, allow_symbol=False)
    if n not in _DONE:
        check_budget(
            f"the symbolic stability conditions for L = {n}",
            power_cost(n, SECONDS_PER_L4, 4),
            force=bool(force),
            shrink="a smaller --L (for numbers: 'symdelay roots' counts the unstable roots)",
        )
    found = _stability_conditions(n)
    _DONE.add(n)
    return {k: v for k, v in found.items() if k != "conditions"}


_DONE: set = set()  # L already computed (cached): no estimate needed


@cache
def _stability_conditions(n: int) -> dict:
    """The closed forms at ``L = n`` and the conditions on the model's domain (cached,
    keyed on the normalised ``n``)."""
    P = _expanded_difference(n)
    res = difference_routh(n)  # estimated by closed_forms
    under, removed = [], []
    for cond in res.conditions:
        poly = _in_k(cond.lhs)
        if _positive_on_domain(poly):
            continue  # positive for lam*theta >= 0; a Routh condition holds when stable
        under.append(_to_lam_theta(_as_k_inequality(_essential_factor(poly, removed))))
    hopf = crit = None
    if n >= 2:
        hopf_k = _hopf_factor(n)
        hopf = _to_lam_theta(hopf_k)
        crit = _closed_root(hopf_k)
    # theta real: stable exactly for -mu < lam*theta < k_c (the module docstring); the
    # conditions for lam*theta >= 0 stay exact for -mu < lam*theta < 0 when every factor
    # they dropped is positive there (a Routh condition holds while the roots are stable)
    if all(_positive_above_minus_mu(f) for f in removed):
        domain = (*under, sp.StrictGreaterThan(lam * theta, -mu, evaluate=False))
    else:  # pragma: no cover - the dropped factors are powers of gamma, mu and gamma + mu
        raise VerificationError(f"L = {n}: a dropped Routh factor changes sign above -mu")
    crit_D = None if crit is None else sp.factor(crit.subs(gamma, n / D))
    return {
        "conditions": domain,
        "assumptions": ASSUMPTIONS,
        "characteristic_polynomial": P,
        "conditions_under_assumptions": tuple(under),
        "stable_for_all_theta": not under,
        "hopf_polynomial": hopf,
        "critical_lam_theta": crit,
        "critical_lam_theta_in_D": crit_D,
        "oscillation_condition": _oscillation_condition(n),
        "oscillation_lam_theta": oscillation_threshold(n),
        "routh_conditions": tuple(res.conditions),
        "theta_negative": THETA_NEGATIVE,
    }


@cache
def difference_routh(n: int):
    """The Routh–Hurwitz result of the symbolic difference polynomial at ``L = n`` (its
    array, for the documents)."""
    return routh_hurwitz(_expanded_difference(n), r, force=True)


@cache
def _hopf_factor(n: int):
    """The Hopf polynomial ``Delta_n`` at ``L = n >= 2`` in ``k = lam theta`` (the essential
    factor of the Hurwitz determinant of order ``n``, whose smallest positive root is
    ``k_c``), without the rest of :func:`founding_closed_forms` (its closed root solves
    with SymPy, about 0.1 s per process: the claims' exact class needs only this)."""
    return _essential_factor(_in_k(difference_routh(n).hurwitz_determinants[n - 1]))


@cache
def _expanded_difference(n: int):
    """``(r + mu)(r + gamma)^n + lam theta gamma^n`` expanded, from its coefficients
    (:func:`~symdelay.models.erlang.charpoly.difference_coefficients`; equal to the expanded
    :func:`characteristic_polynomial`, a test checks it): the symbolic-L derivation behind
    that function (``rsolve``, about 0.2 s per process) is not needed at one L."""
    coeffs = difference_coefficients(n, mu, gamma, lam * theta)
    return sp.expand(sp.Add(*[c * r ** (n + 1 - i) for i, c in enumerate(coeffs)]))


# ------------------------------------------------------------------ L = oo (Hayes)
@cache
def infinite_L_conditions() -> tuple:
    """``r + mu + lam theta e^{-rD} = 0`` has every root in ``Re r < 0`` exactly when
    ``lam theta > -mu`` and (``lam theta <= mu`` or ``D`` below the critical delay) (Hayes,
    1950, for ``mu > 0``)."""
    k = lam * theta
    return (
        sp.StrictGreaterThan(k, -mu, evaluate=False),
        sp.Or(sp.LessThan(k, mu), sp.StrictLessThan(D, _critical_delay())),
    )


def _critical_delay():
    k = lam * theta
    return sp.acos(-mu / k) / sp.sqrt(k**2 - mu**2)


@cache
def infinite_L_closed_forms() -> dict:
    """The closed forms of the delay equation ``r + mu + lam theta e^{-rD} = 0``."""
    return {
        "assumptions": "mu > 0, D > 0, lam*theta real",
        "characteristic_function": r + mu + lam * theta * sp.exp(-D * r),
        "critical_lam_theta": None,
        "critical_delay": _critical_delay(),
        "hopf_frequency": sp.sqrt((lam * theta) ** 2 - mu**2),
        "oscillation_condition": sp.StrictGreaterThan(
            lam * theta, oscillation_threshold("inf"), evaluate=False
        ),
        "oscillation_lam_theta": oscillation_threshold("inf"),
        "theta_negative": THETA_NEGATIVE,
    }


class InfiniteVerdict(NamedTuple):
    verdict: str
    unstable: int | None
    axis: int
    axis_roots: tuple
    decided_by: str


#: Arb precision (bits) beyond which the certified comparison of D with a Hopf delay
#: gives up ("undecided"); equality cannot happen for rational numbers (Lindemann).
MAX_VERDICT_BITS = 1 << 16


def infinite_L_verdict(values: dict, dps: int = 20) -> InfiniteVerdict:
    """The verdict of ``r + mu + k e^{-rD} = 0`` (``k = lam theta``) at exact numbers.

    ``k < -mu``: ``F(0) = mu + k < 0`` and ``F(r) -> oo`` for real ``r -> oo``: a real root
    ``r > 0``. ``k = -mu``: ``r = 0`` is a simple root (``F'(0) = 1 + mu D``), on the axis,
    the only one there (``r = i w``, ``w != 0``, would need ``cos(w D) = -mu/k`` with ``w D``
    algebraic and non-zero, which Lindemann's theorem excludes). ``|k| <= mu``: no root
    crosses the axis as D grows from 0 (``|i w + mu| > |k|`` for ``w != 0``), so all stay in
    ``Re r < 0``. ``|k| > mu``: roots cross at ``w = sqrt(k^2 - mu^2)`` when
    ``D = D_n = (phi + 2 pi n)/w``, ``phi = acos(-mu/k)`` (``k > 0``) or ``2 pi - acos(-mu/k)``
    (``k < 0``: ``sin(w D) = w/k < 0``), each pair to the right (``|P(i w)|^2 - |Q(i w)|^2
    = w^2 + mu^2 - k^2`` increases in ``w^2``), so the count in ``Re r > 0`` is
    ``[k < -mu] + 2 #{n >= 0 : D_n < D}``; ``D`` is compared with the ``D_n`` in Arb balls,
    with more bits until they separate (they are never equal: Lindemann again).
    """
    import flint
    import mpmath

    from symdelay.core.exact import exact_fraction

    m, lm, th, d = (exact_fraction(k, values[k]) for k in ("mu", "lam", "theta", "D"))
    k = lm * th
    base = 1 if k + m < 0 else 0
    if k + m == 0:
        return InfiniteVerdict(
            "marginal",
            0,
            1,
            ((mpmath.mpf(0), mpmath.mpf(0), 1),),
            "exact: lam*theta = -mu, so r = 0 is a simple root (F'(0) = 1 + mu D > 0) and the "
            "only one on the imaginary axis (Lindemann); |lam theta| = mu: no pair crosses",
        )
    if abs(k) <= m:
        return InfiniteVerdict(
            "stable",
            0,
            0,
            (),
            "exact: -mu < lam*theta <= mu (rational comparison): no root reaches the "
            "imaginary axis for any D (Hayes)",
        )
    bits = 64
    while bits <= MAX_VERDICT_BITS:
        with flint.ctx.workprec(bits):
            K, M, Dd = (flint.arb(flint.fmpq(x.numerator, x.denominator)) for x in (k, m, d))
            w = (K * K - M * M).sqrt()
            # e^{-i w D} = -(mu + i w)/k: sin(w D) = w/k, so w D is acos(-mu/k) (k > 0) or
            # 2 pi - acos(-mu/k) (k < 0), plus 2 pi n
            phase = (-M / K).acos()
            if k < 0:
                phase = 2 * flint.arb.pi() - phase
            x = (Dd * w - phase) / (2 * flint.arb.pi())  # the crossings passed: n < x
            passed = None
            if x.upper() < 0:
                passed = 0
            elif x.lower() > 0:
                lo, hi = x.lower().floor(), x.upper().floor()
                if lo == hi:
                    passed = int(lo.unique_fmpz()) + 1
            if passed is not None:
                unstable = base + 2 * passed
                d0 = (phase / w).str(15, radius=False)
                return InfiniteVerdict(
                    "unstable" if unstable else "stable",
                    unstable,
                    0,
                    (),
                    f"certified intervals (Arb, {bits} bits): D = {d} against the Hopf delays "
                    "D_n = (phi + 2 pi n)/sqrt((lam theta)^2 - mu^2), phi = acos(-mu/(lam theta))"
                    f"{' (2 pi minus it: lam theta < 0)' if k < 0 else ''}, "
                    f"D_0 = {d0}: {passed} of them below D, each a pair crossing to the right"
                    + ("; and a real root r > 0 (lam*theta < -mu)" if base else ""),
                )
        bits *= 4
    return InfiniteVerdict(
        "undecided",
        None,
        0,
        (),
        f"certified intervals up to {MAX_VERDICT_BITS} bits could not separate D = {d} from "
        "a Hopf delay (acos(-mu/(lam theta)) + 2 pi n)/sqrt((lam theta)^2 - mu^2)",
    )


def _poly_at(L, m, g, k):
    """The difference polynomial at exact ``mu = m, gamma = g, lam theta = k``."""
    return sp.Poly(_expanded_difference(L).subs({mu: m, gamma: g, lam: k, theta: 1}), r)


def is_oscillatory_at(L, mu_value, gamma_value, lam_theta, max_refinements: int = 40):
    """Are the rightmost roots non-real at these exact numbers? (None: a tie, undecided).

    "Rightmost roots non-real": some non-real root has real part strictly greater than
    every real root. Decided exactly: real roots isolated in rational intervals, and the
    non-real roots right of a rational abscissa ``c`` counted by Routh on ``P(r + c)``.
    """
    P = _poly_at(L, mu_value, gamma_value, lam_theta)
    n = P.degree()
    n_real = P.count_roots()
    if n_real == n:
        return False
    if n_real == 0:
        return True
    eps = sp.Rational(1, 10**6)
    for _ in range(max_refinements):
        ivs = P.intervals(eps=eps)
        (a, b), mult = max(ivs, key=lambda iv: iv[0][1])
        if a == b:  # a rational root: count exactly right of it
            shifted = routh_hurwitz(P.as_expr().subs(r, r + a), r)
            if shifted.rhp_count > 0:
                return True
            return None if shifted.imaginary_axis_count > mult else False
        right_of_b = routh_hurwitz(sp.expand(P.as_expr().subs(r, r + b)), r)
        if right_of_b.rhp_count + right_of_b.imaginary_axis_count > 0:
            return True
        right_of_a = routh_hurwitz(sp.expand(P.as_expr().subs(r, r + a)), r)
        if right_of_a.rhp_count - mult == 0:
            return False
        eps = eps / 10**6
    return None
