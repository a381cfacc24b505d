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

>>> res = stability_conditions(2)
>>> res.critical_lam_theta
2*(gamma + mu)**2/gamma
>>> res.conditions
(lam*theta < 2*(gamma + mu)**2/gamma,)
>>> stability_conditions(1).critical_lam_theta is None
True

The *oscillation* condition (the rightmost roots are non-real) is a different set: for
``L = 1`` it is ``4 gamma lam theta > (mu - gamma)^2``, which never destabilises; for every
L it is one bound ``lam*theta > k_o(mu, gamma)`` (:func:`oscillation_threshold`).

>>> stability_conditions(2).oscillation_condition
lam*theta > 4*Max(0, gamma - mu)**3/(27*gamma**2)
"""

from __future__ import annotations

import dataclasses
from functools import cache

from symdelay.analysis.routh import routh_hurwitz
from symdelay.analysis.stability import Stability
from symdelay.core.errors import SymdelayInputError, VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.params import as_L
from symdelay.core.symbols import D, gamma, lam, mu, r, theta
from symdelay.models.erlang.charpoly import characteristic_polynomial, special_case

__all__ = [
    "Stability",
    "stability_conditions",
    "specialised_stability",
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


def _essential_factor(expr):
    """``expr`` with the factors positive on the domain removed (sign preserved)."""
    c, factors = sp.factor_list(expr)
    keep = [f**e for f, e in factors if not _positive_on_domain(f)]
    return sp.sign(c) * sp.Mul(*keep)


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
    lin = sp.cancel(sp.diff(F, r) / (r + gamma) ** (n - 1))
    (rs,) = sp.solve(lin, r)
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


#: Seconds per L^4 of the symbolic conditions (measured: L = 20 in about 4 s, L = 30 in 21 s).
SECONDS_PER_L4 = 4e-5


def stability_conditions(L, *, force: bool = False, kappa=None) -> Stability:
    """Routh–Hurwitz stability conditions of the difference mode for ``L`` phases: the
    founding model's :func:`~symdelay.analysis.stability.stability` (a convenience).

    ``conditions`` hold under ``mu, gamma, lam > 0`` and ``theta >= 0``. The work grows
    like ``L^4``: over the shared budget (:mod:`symdelay.core.budget`) it is refused unless
    ``force``. ``kappa`` (weights of the jobs in flight) gives the ``inflight`` model's
    conditions (Routh–Hurwitz on its factors).
    """
    from symdelay.analysis.stability import stability
    from symdelay.models.erlang.founding import FoundingModel

    if kappa is not None:
        from symdelay.models.erlang.kappa import inflight_model

        return stability(inflight_model(as_L(L, allow_symbol=False), kappa))
    model = FoundingModel(L=as_L(L, allow_symbol=False))
    return stability(model, method="specialised", force=force)


def specialised_stability(model, force=None) -> Stability:
    """The founding model's stability (:func:`~symdelay.analysis.stability.stability`): the
    conditions for its L in closed form, and, when every option is a number, the exact
    verdict there (Routh–Hurwitz on the rational polynomial, any sign of theta). It applies
    to every finite L (it never declines); L = inf and symbolic L are refused."""
    from symdelay.core.budget import check_budget, power_cost

    if model.infinite or isinstance(model.L, sp.Symbol):
        raise SymdelayInputError(
            f"L must be an integer >= 1 (number of delay phases), got '{'inf' if model.infinite else model.L}': the "
            "stability conditions are for a finite number of phases (for L = inf, "
            "'symdelay roots --L inf' counts the unstable roots)"
        )
    n = as_L(model.L, allow_symbol=False)
    if n not in _DONE:
        check_budget(
            f"the symbolic stability conditions for L = {n}",
            power_cost(n, SECONDS_PER_L4, 4),
            force=bool(force),
            shrink="a smaller --L (for numbers: 'symdelay roots' counts the unstable roots)",
        )
    res = _stability_conditions(n)
    _DONE.add(n)
    o = model.options
    given = {k: o[k] for k in ("mu", "lam", "theta", "D") if o[k] is not None}
    if not given:
        return res
    verdict = None
    if len(given) == 4:
        verdict = _stable_at(n, o["mu"], sp.Integer(n) / o["D"], o["lam"] * o["theta"])
    return dataclasses.replace(res, stable=verdict, values=given, model_name=model.name)


_DONE: set = set()  # L already computed (cached): no estimate needed


@cache
def _stability_conditions(n: int) -> Stability:
    """The cached work, keyed on the normalised ``n`` (``2`` and ``"2"`` are one entry)."""
    P = sp.expand(characteristic_polynomial(n))
    res = routh_hurwitz(P, r, force=True)  # estimated by stability_conditions
    conditions = []
    for cond in res.conditions:
        poly = _in_k(cond.lhs)
        if _positive_on_domain(poly):
            continue
        conditions.append(_to_lam_theta(_as_k_inequality(_essential_factor(poly))))
    hopf = crit = None
    if n >= 2:
        hopf_k = _essential_factor(_in_k(res.hurwitz_determinants[n - 1]))
        hopf = _to_lam_theta(hopf_k)
        crit = _closed_root(hopf_k)
    osc = _oscillation_condition(n)
    from symdelay.models.erlang.founding import FoundingModel

    return Stability(
        conditions=tuple(conditions),
        stable=None,
        model_name=FoundingModel(L=n).name,
        L=n,
        polynomial=P,
        routh=res,
        hopf_polynomial=hopf,
        critical_lam_theta=crit,
        oscillation_condition=osc,
        oscillation_lam_theta=oscillation_threshold(n),
        stable_for_all_theta=not conditions,
        assumptions=ASSUMPTIONS,
    )


def _poly_at(L, m, g, k):
    return sp.Poly(characteristic_polynomial(L).subs({mu: m, gamma: g, lam: k, theta: 1}), r)


def _stable_at(L, mu_value, gamma_value, lam_theta) -> bool:
    """The specialisation's verdict, exact: Routh count on the rational polynomial (no
    roots with Re >= 0)."""
    res = routh_hurwitz(_poly_at(L, mu_value, gamma_value, lam_theta).as_expr(), r)
    return res.rhp_count == 0 and res.imaginary_axis_count == 0


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
