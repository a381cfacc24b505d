"""The critical value of one parameter of a model: the first crossing over all its factors.

Every factor of ``det(rI - J)`` that depends on the parameter goes to
:func:`symdelay.analysis.crossing.critical_parameter` (exact resultants, counts of unstable
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

from symdelay.analysis.stability import is_stable
from symdelay.core.display import LatexDisplay
from symdelay.core.errors import SymdelayInputError
from symdelay.core.params import as_dps
from symdelay.core.symbols import r

__all__ = ["ModelCritical", "model_critical"]


@dataclass(frozen=True)
class ModelCritical(LatexDisplay):
    """``critical`` (inf: no crossing for any value > 0), the factor it comes from, and
    every factor's :class:`~symdelay.analysis.crossing.CriticalParameter`."""

    model_name: str
    param: str
    critical: mpmath.mpf
    omega: mpmath.mpf | None
    mode: str | None
    per_factor: tuple  # (Factor, CriticalParameter)
    dps: int
    note: str = ""

    def latex(self) -> str:
        from symdelay.core.latex import tex
        from symdelay.model.core import _symbol

        head = f"{tex(_symbol(self.param))}_c = {_latex_number(self.critical)}"
        if self.omega is None:
            return head
        return head + rf",\quad \omega = {_latex_number(self.omega)}"

    def to_json(self) -> dict:
        from symdelay.core.numbers import format_number

        return {
            "model": self.model_name,
            "param": self.param,
            "critical": format_number(self.critical, self.dps),
            "omega": format_number(self.omega, self.dps),
            "mode": self.mode,
            "note": self.note,
            "factors": [
                {"factor": str(f.factor), "mode": f.mode, **c.to_json()} for f, c in self.per_factor
            ],
        }


def _latex_number(x) -> str:
    return r"\infty" if x == mpmath.inf else mpmath.nstr(x, 15)


def model_critical(model, param: str = "theta", dps: int = 15) -> ModelCritical:
    """The smallest ``param > 0`` at which roots of some factor cross the imaginary axis."""
    from symdelay.analysis.crossing import critical_parameter
    from symdelay.model.core import _symbol

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
    if not model.equilibrium_is_closed_form_in(p):
        return critical_by_verdicts(model, param)
    per = []
    for f in model.factors:
        if f.factor.has(p):
            per.append((f, critical_parameter(f.factor, r, p, dps=dps)))
    if not per:
        return ModelCritical(model.name, param, mpmath.inf, None, None, (), dps)
    f, best = min(per, key=lambda fc: fc[1].p_c)
    return ModelCritical(model.name, param, best.p_c, best.omega, f.mode, tuple(per), dps)


#: Where :func:`critical_by_verdicts` looks (log-spaced), and how finely it bisects.
SEARCH = {"low": 1e-3, "high": 1e4, "points": 29, "rtol": 1e-6}


def critical_by_verdicts(model, param: str = "theta", search=None) -> ModelCritical:
    """The first ``param`` where the equilibrium loses stability, when the equilibrium itself
    moves with ``param`` (no closed form: it is re-solved and proved at every value).

    Stability at each value is decided by Routh–Hurwitz on the Jacobian's polynomial at the
    proved equilibrium; a log-spaced scan brackets the first change and bisection narrows it
    to ``rtol``. The record says what was searched; no change found means ``inf`` *within the
    searched range*, not a proof beyond it.
    """
    from symdelay.analysis.roots import roots

    cfg = {**SEARCH, **(search or {})}

    def stable(v: float) -> bool:
        return is_stable(model.with_values(**{param: v})) is True

    grid = [float(x) for x in _logspace(cfg["low"], cfg["high"], cfg["points"])]
    prev = None
    for v in grid:
        if not stable(v):
            break
        prev = v
    else:
        note = (
            f"equilibrium depends on {param}: stable at all {cfg['points']} log-spaced values "
            f"in [{cfg['low']:g}, {cfg['high']:g}]; no crossing found there"
        )
        return ModelCritical(model.name, param, mpmath.inf, None, None, (), 15, note)
    if prev is None:
        raise SymdelayInputError(
            f"the equilibrium is already unstable at {param} = {cfg['low']:g}: no threshold "
            "above it to report"
        )
    lo, hi = prev, v
    steps = 0
    while hi - lo > cfg["rtol"] * hi:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if stable(mid) else (lo, mid)
        steps += 1
    top = roots(model.with_values(**{param: hi}), dps=15, method="generic")
    rightmost = max((z for _, rs in top.per_factor for z in rs), key=lambda z: z.value.real)
    note = (
        f"equilibrium depends on {param}: re-solved and proved at every value; first loss "
        f"of stability bracketed on {cfg['points']} log-spaced values in "
        f"[{cfg['low']:g}, {cfg['high']:g}], then {steps} bisection steps to relative "
        f"{cfg['rtol']:g} (Routh verdicts); omega from the certified roots at the upper end"
    )
    return ModelCritical(
        model.name,
        param,
        mpmath.mpf(0.5 * (lo + hi)),
        abs(rightmost.value.imag),
        "full",
        (),
        7,
        note,
    )


def _logspace(low: float, high: float, n: int):
    import numpy as np

    return np.logspace(np.log10(low), np.log10(high), n)
