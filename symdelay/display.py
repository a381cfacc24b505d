"""Display once, on a base class: every result that has a formula shows it in a notebook.

A class defines :meth:`LatexDisplay.latex` (the LaTeX of its mathematics, without ``$``);
the mixin gives ``_repr_latex_`` for Jupyter, printed with symdelay's names.

>>> import sympy as sp
>>> class Show(LatexDisplay):
...     def latex(self):
...         return tex(sp.Symbol("lam") * sp.Symbol("theta"))
>>> Show()._repr_latex_()
'$\\\\displaystyle \\\\lambda \\\\theta$'
"""

from __future__ import annotations

from .outputs.latex import tex

__all__ = ["LatexDisplay", "tex"]


class LatexDisplay:
    """Mixin: ``_repr_latex_`` from ``latex()``."""

    def latex(self) -> str:  # pragma: no cover - each class defines it
        raise NotImplementedError

    def _repr_latex_(self) -> str:
        return f"$\\displaystyle {self.latex()}$"
