"""Local stability of a model's equilibrium: Routh–Hurwitz on every factor.

Parameters carry their declared domains while signs are decided (``mu > 0`` is dropped as a
condition when ``mu`` is declared positive); the conditions are printed in the plain symbols.
``stable`` is True / False / None (None: depends on the free parameters), as SymPy's
``TransferFunction.is_stable`` answers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from symdelay.analysis.routh import routh_hurwitz
from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.core.result import Result
from symdelay.core.symbols import r
from symdelay.model.equilibrium import _with_domains

__all__ = ["Stability", "stability", "is_stable", "model_record"]


@dataclass(frozen=True)
class Stability(Result):
    """Conditions (a conjunction) for every root of the characteristic polynomial to lie in
    ``Re r < 0``, and the verdict ``stable`` (True / False / None: depends on parameters).

    Generic path: Routh–Hurwitz on every factor (``per_factor``: ``(Factor, RouthResult)``).
    The founding model's path (``L`` set) adds its closed forms: ``polynomial`` (the
    difference mode), ``routh`` (its Routh–Hurwitz result, unsimplified), ``conditions``
    simplified under ``assumptions``, the Hopf polynomial ``Delta_L`` in ``lam*theta`` and
    its closed-form root ``critical_lam_theta`` (None for L = 1 and where SymPy's root is no
    usable closed form), the ``oscillation_condition`` (rightmost roots non-real; a different
    set) and its threshold ``oscillation_lam_theta``; ``values``: the numbers the verdict was
    decided at (exactly, by Routh–Hurwitz on the rational polynomial).
    """

    conditions: tuple
    stable: bool | None
    per_factor: tuple = ()
    model_name: str | None = None
    L: int | None = None
    polynomial: sp.Expr | None = None
    routh: object = None
    hopf_polynomial: sp.Expr | None = None
    critical_lam_theta: sp.Expr | None = None
    oscillation_condition: sp.Basic | None = None
    oscillation_lam_theta: sp.Expr | None = None
    stable_for_all_theta: bool | None = None
    assumptions: str | None = None
    values: dict = field(default_factory=dict)

    @property
    def condition(self) -> sp.Basic:
        return sp.And(*self.conditions)

    @property
    def critical_lam_theta_in_D(self) -> sp.Expr | None:
        """``k_c`` with ``gamma = L/D`` (the founding model)."""
        from symdelay.core.symbols import D, gamma

        if self.critical_lam_theta is None:
            return None
        return sp.factor(self.critical_lam_theta.subs(gamma, self.L / D))

    def critical_value(self, mu_value, gamma_value, dps: int = 30):
        """``k_c = (lam*theta)_c`` at numbers ``mu, gamma``: the smallest positive root of the
        Hopf polynomial (a founding record's), isolated exactly and refined to ``dps`` digits
        (``mpmath.inf`` when there is no Hopf polynomial: L = 1 never crosses).

        >>> import symdelay
        >>> symdelay.stability_conditions(2).critical_value(1, 2, dps=20)
        mpf('9.0')
        """
        import mpmath

        from symdelay.core.params import as_dps, as_parameter
        from symdelay.core.symbols import gamma, lam, mu, theta

        if self.L is None:
            raise SymdelayInputError(
                "critical_value reads the founding model's Hopf polynomial in lam*theta; for "
                "another model use symdelay.critical(model, ...)"
            )
        dps = as_dps(dps)
        m, g = as_parameter("mu", mu_value), as_parameter("gamma", gamma_value)
        if self.hopf_polynomial is None:
            return mpmath.inf
        k = sp.Symbol("k")
        f = sp.Poly(
            sp.expand(sp.sympify(self.hopf_polynomial).subs(lam, k / theta)).subs(
                {mu: m, gamma: g}
            ),
            k,
        )
        positive = [x for x in f.real_roots() if x.is_positive]
        if not positive:
            return mpmath.inf
        value = sp.Float(min(positive).evalf(dps + 5), dps + 5)
        with mpmath.workdps(dps):
            return +mpmath.mpf(value._mpf_)

    def record(self) -> dict:
        if self.L is None:
            return self._generic_record()
        return self._founding_record()

    def _generic_record(self) -> dict:
        from symdelay.core.latex import tex

        return {
            "conditions": [str(c) for c in self.conditions],
            "conditions_latex": [tex(c) for c in self.conditions],
            "stable": self.stable,
            "factors": [
                {
                    "factor": str(f.factor),
                    "mode": f.mode,
                    "stable": res.is_stable,
                    "rhp_count": res.rhp_count,
                }
                for f, res in self.per_factor
            ],
        }

    def _founding_record(self) -> dict:
        from symdelay.core.latex import tex

        crit = self.critical_lam_theta
        osc = self.oscillation_condition

        def text(x):
            return None if x is None else str(x)

        def latex(x):
            return None if x is None else tex(x)

        out = {
            "L": self.L,
            "assumptions": self.assumptions,
            "conditions": [str(c) for c in self.conditions],
            "critical_lam_theta": text(crit),
            "critical_lam_theta_in_D": None if crit is None else str(self.critical_lam_theta_in_D),
            "hopf_polynomial": text(self.hopf_polynomial),
            "stable_for_all_theta": self.stable_for_all_theta,
            "oscillation_condition": text(osc),
            "oscillation_lam_theta": str(self.oscillation_lam_theta),
            "routh_conditions": [str(c) for c in self.routh.conditions],
            "theta_negative": (
                "theta < 0 routes jobs towards the longer queue; a real root crosses 0 at "
                "lam*theta = -mu, so then stability also needs lam*theta > -mu"
            ),
            # the same formulas as LaTeX (symdelay's names: lam -> \lambda)
            "conditions_latex": [tex(c) for c in self.conditions],
            "critical_lam_theta_latex": latex(crit),
            "critical_lam_theta_in_D_latex": (
                None if crit is None else tex(self.critical_lam_theta_in_D)
            ),
            "hopf_polynomial_latex": latex(self.hopf_polynomial),
            "oscillation_condition_latex": latex(osc),
            "oscillation_lam_theta_latex": tex(self.oscillation_lam_theta),
            "routh_conditions_latex": [tex(c) for c in self.routh.conditions],
            "stable": self.stable,
        }
        if self.values:
            out["values"] = {k: str(v) for k, v in self.values.items()}
        return out

    def latex(self) -> str:
        from symdelay.core.latex import tex

        if self.L is None:
            if not self.conditions:
                return r"\text{stable}" if self.stable else r"\text{unstable}"
            return r" \;\wedge\; ".join(tex(c) for c in self.conditions)
        if not self.conditions:
            body = r"\text{stable for every } \theta \ge 0"
        else:
            body = r" \;\wedge\; ".join(tex(c) for c in self.conditions)
        if self.critical_lam_theta is not None:
            body += rf", \qquad (\lambda\theta)_c = {tex(self.critical_lam_theta)}"
        return f"L = {self.L}:\\quad {body}"


def stability(model, method: str = "auto", *, force: bool | None = None) -> Stability:
    """Stability of ``model``'s equilibrium: the family's closed forms first (the founding
    model: its conditions in ``mu, gamma, lam*theta`` for one L, and the exact verdict at the
    numbers it has), else Routh–Hurwitz on every factor (computed once per model).

    ``force``: None (the API) runs the generic path unguarded and estimates the founding
    model's symbolic work (refused over the budget); ``True``/``False`` (``--force``)
    estimates both first.

    >>> from symdelay.models import build_model
    >>> stability(build_model("nserver", N=3, L=1, mu=1, lam=1, theta=3, D=1)).stable
    True
    """
    from symdelay.analysis.entry import declined, require_table, specialisation

    fast = specialisation(model, "stability", method)
    if fast is not None:
        result = fast(model, force=force)
        if result is not None:
            return result
        declined(model, "stability", method)
    require_table(model, "stability")
    if force is not None:
        from symdelay.analysis.roots import check_analysis_cost

        check_analysis_cost(model, force=force)
    return model.cached("stability", lambda: _stability(model))


def is_stable(model) -> bool | None:
    """True / False, or None when the answer depends on the free parameters."""
    return stability(model).stable


def model_record(model) -> dict:
    """The record of ``symdelay analyze --json``: the model's derived data and its stability
    (Routh–Hurwitz on the transition table's factors)."""
    return {**model.to_json(), "stability": stability(model, method="generic").record()}


def _stability(model) -> Stability:
    assume = _with_domains(model)
    back = {v: k for k, v in assume.items()}
    conditions: list = []
    per: list = []
    verdicts = []
    for f in model.factors:
        res = routh_hurwitz(f.factor.xreplace(assume), r)
        per.append((f, res))
        verdicts.append(res.is_stable)
        for c in res.lienard_chipart:
            lhs = sp.factor(c.lhs)
            if lhs.is_positive:
                continue
            # drop positive factors known from the domains
            if isinstance(lhs, sp.Mul):
                keep = [a for a in lhs.args if not a.is_positive]
                sign = sp.Mul(*[a for a in lhs.args if a.is_number])
                lhs = sp.Mul(*keep) if sign.is_positive or not keep else lhs
            cond = sp.StrictGreaterThan(lhs.xreplace(back), 0, evaluate=False)
            if cond not in conditions:
                conditions.append(cond)
    if all(v is True for v in verdicts):
        stable = True
    elif any(v is False for v in verdicts):
        stable = False
    else:
        stable = None
    return Stability(tuple(conditions), stable, tuple(per), model_name=model.name)
