"""The critical value of one parameter of a model: the first crossing over all its factors.

Every factor of ``det(rI - J)`` that depends on the parameter goes to
:func:`symdelay.hopf.generic.critical_parameter` (exact resultants, counts of unstable
roots checked on both sides); the model's critical value is the smallest crossing among
them. The other parameters need numbers.

>>> from symdelay.models import build_model
>>> c = model_critical(build_model("erlang", L=2, mu=1, lam=1, D=1), dps=15)
>>> c.to_json()["critical"], c.to_json()["mode"]
('9.00000000000000', 'difference')
"""

from __future__ import annotations

from dataclasses import dataclass

import mpmath

from ..display import LatexDisplay
from ..errors import SymdelayInputError
from ..params import as_dps
from ..symbols import r

__all__ = ["ModelCritical", "model_critical"]


@dataclass(frozen=True)
class ModelCritical(LatexDisplay):
    """``critical`` (inf: no crossing for any value > 0), the factor it comes from, and
    every factor's :class:`~symdelay.hopf.generic.CriticalParameter`."""

    model_name: str
    param: str
    critical: mpmath.mpf
    omega: mpmath.mpf | None
    mode: str | None
    per_factor: tuple  # (Factor, CriticalParameter)
    dps: int

    def latex(self) -> str:
        from ..outputs.latex import tex
        from .core import _symbol

        head = f"{tex(_symbol(self.param))}_c = {_latex_number(self.critical)}"
        if self.omega is None:
            return head
        return head + rf",\quad \omega = {_latex_number(self.omega)}"

    def to_json(self) -> dict:
        from ..hopf.curve import format_number

        return {
            "model": self.model_name,
            "param": self.param,
            "critical": format_number(self.critical, self.dps),
            "omega": format_number(self.omega, self.dps),
            "mode": self.mode,
            "factors": [
                {"factor": str(f.factor), "mode": f.mode, **c.to_json()} for f, c in self.per_factor
            ],
        }


def _latex_number(x) -> str:
    return r"\infty" if x == mpmath.inf else mpmath.nstr(x, 15)


def model_critical(model, param: str = "theta", dps: int = 15) -> ModelCritical:
    """The smallest ``param > 0`` at which roots of some factor cross the imaginary axis."""
    from ..hopf.generic import critical_parameter
    from .core import _symbol

    dps = as_dps(dps)
    p = _symbol(param)
    if p not in model.domains:
        raise SymdelayInputError(
            f"'{param}' is not a parameter of {model.name}: use one of "
            + ", ".join(str(q) for q in model.parameters)
        )
    if p in model.values:
        raise SymdelayInputError(f"{param} has a value ({model.values[p]}): leave it free")
    missing = [str(q) for q in model.free_parameters if q != p]
    if missing:
        raise SymdelayInputError(
            f"the critical {param} needs numbers for " + ", ".join(missing) + ": give them"
        )
    per = []
    for f in model.factors:
        if f.factor.has(p):
            per.append((f, critical_parameter(f.factor, r, p, dps=dps)))
    if not per:
        return ModelCritical(model.name, param, mpmath.inf, None, None, (), dps)
    f, best = min(per, key=lambda fc: fc[1].p_c)
    return ModelCritical(model.name, param, best.p_c, best.omega, f.mode, tuple(per), dps)
