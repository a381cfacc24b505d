"""Analyses that take a :class:`~symdelay.model.Model`: roots (the fluid path is
:func:`symdelay.analysis.fluid.fluid`).

They need numbers for every parameter (``model.with_values(...)``); they say which are
missing otherwise. Roots are certified per factor of the characteristic polynomial by
:func:`symdelay.analysis.polyroots.polynomial_roots` (counts decided exactly). Where the
equilibrium was found numerically, the polynomial is the one at the proved midpoint (its
coefficients made exact), and the record says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import mpmath
import numpy as np
import sympy as sp

from symdelay.core.errors import SymdelayInputError
from symdelay.core.params import as_dps
from symdelay.core.symbols import r

__all__ = [
    "ModelRoots",
    "model_roots",
    "default_initial",
    "require_values",
    "check_analysis_cost",
    "analysis_seconds",
]


def analysis_seconds(model) -> float:
    """A rough single-core estimate of the symbolic analysis of ``model`` (equilibrium,
    Jacobian, modes, factored characteristic polynomial, Routh conditions).

    It grows like ``n^4`` in the number ``n`` of states (measured: 16 servers with Erlang(2)
    delays, 48 states, about 19 s), and with the cube of the digits of the exact parameter
    values (factoring polynomials whose coefficients have hundreds of digits, such as rates
    ``1e-300`` and ``1e300``, is what takes long then).
    """
    from symdelay.core.budget import power_cost

    digits = 1.0
    exprs = [sp.sympify(v) for v in model.values.values()]
    exprs += [t.rate for t in model.transitions]
    for v in exprs:
        for a in v.atoms(sp.Rational):
            digits = max(digits, 0.30103 * max(abs(a.p).bit_length(), a.q.bit_length()))
    return power_cost(len(model.states), 3.6e-6, 4) * (1 + (digits / 10) ** 3)


def check_analysis_cost(model, *, force: bool = False) -> float:
    """Refuse (unless ``force``) a symbolic analysis estimated over the shared budget."""
    from symdelay.core.budget import check_budget

    return check_budget(
        f"the symbolic analysis of {model.name} ({len(model.states)} states)",
        analysis_seconds(model),
        force=force,
        shrink="a model with fewer states (a smaller --N or --L) or parameter values with "
        "fewer digits",
    )


def require_values(model, what: str) -> None:
    """Refuse, in one line, a model with parameters still symbolic."""
    free = model.free_parameters
    if free:
        raise SymdelayInputError(
            f"{what} needs numbers for every parameter: give "
            + ", ".join(str(p) for p in free)
            + " (e.g. --set name=value, or the model's options)"
        )


@dataclass
class ModelRoots:
    """Certified roots of every factor; counts over the whole spectrum."""

    model_name: str
    per_factor: list  # (Factor, RootSet)
    dps: int
    notes: list = field(default_factory=list)

    @property
    def unstable_count(self) -> int:
        return sum(rs.unstable_count * f.multiplicity for f, rs in self.per_factor)

    @property
    def axis_count(self) -> int:
        return sum(rs.axis_count * f.multiplicity for f, rs in self.per_factor)

    @property
    def spectral_abscissa(self) -> mpmath.mpf:
        return max(rs.spectral_abscissa for _, rs in self.per_factor)

    @property
    def is_stable(self) -> bool:
        return self.unstable_count == 0 and self.axis_count == 0

    def _repr_latex_(self) -> str:
        """Each factor with its mode, multiplicity and unstable count; the abscissa."""
        from symdelay.core.display import display_latex, latex_array, latex_number, latex_text
        from symdelay.core.latex import tex as _tex

        rec = self.to_json()
        rows = [
            [
                _tex(f.factor),
                latex_text(f.mode),
                str(f.multiplicity),
                str(rs.unstable_count),
            ]
            for f, rs in self.per_factor
        ]
        return display_latex(
            latex_text(f"{self.model_name}: unstable roots {rec['unstable_count']}")
            + rf",\ \max \operatorname{{Re}} r = {latex_number(rec['spectral_abscissa'])}",
            latex_array([r"\text{factor}", r"\text{mode}", r"\times", r"\text{unstable}"], rows),
        )

    def to_json(self) -> dict:
        return {
            "model": self.model_name,
            "dps": self.dps,
            "unstable_count": self.unstable_count,
            "axis_count": self.axis_count,
            "stable": self.is_stable,
            "spectral_abscissa": mpmath.nstr(self.spectral_abscissa, self.dps),
            "factors": [
                {
                    "factor": str(f.factor),
                    "mode": f.mode,
                    "multiplicity": f.multiplicity,
                    "roots": [z.to_json(self.dps) for z in rs],
                    "unstable_count": rs.unstable_count,
                    "axis_count": rs.axis_count,
                }
                for f, rs in self.per_factor
            ],
            "notes": list(self.notes),
        }


def model_roots(model, dps: int = 30) -> ModelRoots:
    """All roots of ``det(rI - J)``, certified, factor by factor."""
    from symdelay.analysis.polyroots import polynomial_roots

    dps = as_dps(dps)
    require_values(model, "roots")
    notes = []
    if not model.equilibrium.exact:
        notes.append(
            "equilibrium found numerically (proved within "
            f"{mpmath.nstr(model.equilibrium.radius, 3)}): roots are those of the polynomial "
            "at its midpoint"
        )
    per = []
    for f in model.factors:
        poly = f.factor
        floats = poly.atoms(sp.Float)
        if floats:
            poly = poly.xreplace({x: sp.Rational(x) for x in floats})
        per.append((f, polynomial_roots(poly, r, dps=dps)))
    return ModelRoots(model.name, per, dps, notes)


def default_initial(model) -> np.ndarray:
    """The equilibrium with the first state raised by half its value (or by 1 if it is 0)."""
    eq = np.array([float(model.equilibrium.point[s]) for s in model.states])
    y0 = eq.copy()
    y0[0] = eq[0] * 1.5 if eq[0] != 0 else 1.0
    return y0
