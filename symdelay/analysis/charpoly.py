"""The characteristic polynomial of a model: the entry :func:`charpoly` and its record.

The generic path is the transition table's :attr:`~symdelay.model.Model.factors` (the modes of
its symmetry, each factor with its multiplicity); the founding model's specialisation answers
for symbolic ``L`` (the derived ``(r+mu)(r+gamma)^L + lam theta gamma^L``) and for ``L = inf``
(the delay equation ``r + mu + lam theta e^{-rD} = 0``).

>>> from symdelay.models import build_model
>>> charpoly(build_model("nserver", N=2, L=1, mu=1, lam=1, theta=2, D=1)).polynomial
r**2 + 2*r + 3
"""

from __future__ import annotations

from dataclasses import dataclass, field

from symdelay.core.lazy import sympy as sp
from symdelay.core.result import Result

__all__ = ["CharPoly", "charpoly"]


@dataclass(frozen=True)
class CharPoly(Result):
    """A characteristic polynomial (or, ``L = inf``, equation) and the factors it came from.

    ``polynomial``: the difference mode's polynomial (or, with ``full`` or without such a
    mode, the whole one); ``equation``: the delay equation's left side (L = inf, then
    ``polynomial`` is None); ``factors``: the model's factors (:class:`~symdelay.model.Factor`),
    empty where the founding model's closed form answered alone; ``L``: the founding model's
    number of phases (an int, the symbol ``L`` or ``"inf"``; None for other models);
    ``tex``: the LaTeX of ``polynomial`` (or of ``equation = 0``).
    """

    polynomial: sp.Expr | None
    tex: str
    factors: tuple = ()
    model_name: str | None = None
    L: object = None
    equation: sp.Expr | None = None
    parameters: dict = field(default_factory=dict)

    def record(self) -> dict:
        if self.L is None:
            return {
                "model": self.model_name,
                "parameters": {str(k): str(v) for k, v in self.parameters.items()},
                "polynomial": str(self.polynomial),
                "latex": self.tex,
                "factors": [f.to_json() for f in self.factors],
            }
        key = self.L if isinstance(self.L, int) else str(self.L)
        if self.equation is not None:
            return {"L": key, "equation": str(self.equation), "latex": self.tex}
        out = {"L": key, "polynomial": str(self.polynomial), "latex": self.tex}
        if self.factors:
            out["factors"] = [f.to_json() for f in self.factors]
        return out

    def latex(self) -> str:
        return self.tex


def charpoly(model, full: bool = False, method: str = "auto") -> CharPoly:
    """The characteristic polynomial of ``model``: the family's closed form first (the
    founding model at any L, symbolic L and L = inf), else the transition table's factors.
    ``full``: the whole polynomial rather than the difference mode's."""
    from symdelay.analysis.entry import declined, require_table, specialisation

    fast = specialisation(model, "charpoly", method)
    if fast is not None:
        result = fast(model, full=full)
        if result is not None:
            return result
        declined(model, "charpoly", method)
    require_table(model, "charpoly")
    from symdelay.core.latex import tex

    factors = model.factors
    chosen = [f for f in factors if f.mode.startswith("difference")] if not full else []
    poly = sp.Mul(*[f.factor**f.multiplicity for f in (chosen or factors)])
    return CharPoly(
        poly,
        tex(poly, model.latex_names),
        tuple(factors),
        model_name=model.name,
        parameters=dict(model.values),
    )
