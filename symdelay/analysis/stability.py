"""Local stability of a model's equilibrium: Routh–Hurwitz on every factor.

Parameters carry their declared domains while signs are decided (``mu > 0`` is dropped as a
condition when ``mu`` is declared positive); the conditions are printed in the plain symbols.
``stable`` is True / False / None (None: depends on the free parameters), as SymPy's
``TransferFunction.is_stable`` answers.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from symdelay.analysis.routh import routh_hurwitz
from symdelay.core.display import LatexDisplay
from symdelay.core.symbols import r
from symdelay.model.equilibrium import _with_domains

__all__ = ["ModelStability", "model_stability", "is_stable", "model_record"]


@dataclass(frozen=True)
class ModelStability(LatexDisplay):
    """Conditions (conjunction) for every root of every factor to lie in Re r < 0."""

    conditions: tuple
    stable: bool | None
    per_factor: tuple  # (Factor, RouthResult)

    def to_json(self) -> dict:
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

    @property
    def condition(self) -> sp.Basic:
        return sp.And(*self.conditions)

    def latex(self) -> str:
        from symdelay.core.latex import tex

        if not self.conditions:
            return r"\text{stable}" if self.stable else r"\text{unstable}"
        return r" \;\wedge\; ".join(tex(c) for c in self.conditions)


def model_stability(model) -> ModelStability:
    """Routh–Hurwitz conditions of every factor of ``model`` (computed once per model)."""
    return model.cached("stability", lambda: _stability(model))


def is_stable(model) -> bool | None:
    """True / False, or None when the answer depends on the free parameters."""
    return model_stability(model).stable


def model_record(model) -> dict:
    """The record of ``symdelay analyze --json``: the model's derived data and its stability."""
    return {**model.to_json(), "stability": model_stability(model).to_json()}


def _stability(model) -> ModelStability:
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
    return ModelStability(tuple(conditions), stable, tuple(per))
