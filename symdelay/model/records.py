"""The records a model is made of and derives: an equilibrium, a factor of the characteristic
polynomial (data only; :mod:`symdelay.model.core` builds them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from symdelay.core.display import LatexDisplay, ReadOnlyDict
from symdelay.core.lazy import sympy as sp

__all__ = ["Equilibrium", "Factor"]


@dataclass(frozen=True)
class Equilibrium:
    """An equilibrium point ``{state: value}``.

    ``exact``: solved by SymPy and substituted back (the drift vanishes identically).
    Otherwise the point was found numerically and ``radius`` bounds, by a proved interval
    Newton (Krawczyk) test, the distance of every coordinate from the unique zero of the
    drift in the box around it.
    """

    point: dict
    exact: bool
    radius: Any = 0
    method: str = "sympy.solve"

    def __post_init__(self):
        # read-only: a caller changing the point must not change the model's Jacobian
        object.__setattr__(self, "point", ReadOnlyDict(self.point))

    def to_json(self) -> dict:
        return {
            "point": {str(k): str(v) for k, v in self.point.items()},
            "exact": self.exact,
            "radius": str(self.radius),
            "method": self.method,
        }


@dataclass(frozen=True)
class Factor(LatexDisplay):
    """A factor of the characteristic polynomial, its multiplicity and the mode it comes from."""

    factor: sp.Expr
    multiplicity: int
    mode: str

    def to_json(self) -> dict:
        from symdelay.core.latex import tex

        return {
            "factor": str(self.factor),
            "multiplicity": self.multiplicity,
            "mode": self.mode,
            "latex": tex(self.factor),
        }

    def latex(self) -> str:
        from symdelay.core.latex import tex

        power = f"^{{{self.multiplicity}}}" if self.multiplicity > 1 else ""
        return rf"\left({tex(self.factor)}\right){power} \quad \text{{({self.mode})}}"


def _cycles(perm) -> list[list[int]]:
    seen, out = set(), []
    for i in range(len(perm)):
        if i in seen:
            continue
        cyc, j = [], i
        while j not in seen:
            seen.add(j)
            cyc.append(j)
            j = perm[j]
        out.append(cyc)
    return out


def _is_zero(expr, values=None, domains=None) -> bool | None:
    """Is ``expr`` (``values`` substituted) zero wherever it is defined on ``domains``
    (``{symbol: domain}``; a symbol not named is real)? True or False when decided, None
    when not (:func:`symdelay.model.signs.zero_on`). A complex ``expr`` (roots of unity of
    a symmetry's modes) is zero when its real and imaginary parts are."""
    from symdelay.model.signs import zero_on

    e = expr.xreplace(values or {})
    if e == 0:
        return True
    domains = domains or {}
    if e.has(sp.I):
        parts = sp.collect(sp.expand(e), sp.I, evaluate=False)
        if set(parts) <= {sp.S.One, sp.I} and not any(p.has(sp.I) for p in parts.values()):
            answers = [zero_on(p, domains) for p in parts.values()]
            return False if False in answers else (True if all(answers) else None)
    return zero_on(e, domains)
