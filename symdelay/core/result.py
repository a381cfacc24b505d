"""The one base of every analysis result.

A result is a frozen dataclass that subclasses :class:`Result`; its :meth:`record` (its own
JSON keys) is by default every field but ``model_name`` (see
:func:`jsonable`), and a result with a shape of its own defines it.
A record nested in another (a row, a station, a transition) is a :class:`Result` too and
appears in its parent's JSON through its :meth:`record`. The base gives what every result has:

- ``to_json()``: the record, plus ``"model"`` (the model's name, when the result knows it)
  and ``"symdelay_version"``, so that a stored answer says what produced it;
- ``_repr_latex_()`` from ``latex()`` (Jupyter shows the mathematics);
- ``_repr_html_()`` from ``table()`` (a result with a table shows it; the others return
  ``None``, and Jupyter falls back to the next representation);
- ``plot()``: the figure registered for the result's class by :mod:`symdelay.outputs`
  (analysis modules never import matplotlib).

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Answer(Result):
...     model_name: str
...     value: int
...     def record(self):
...         return {"value": self.value}
...     def table(self):
...         return ["value"], [[self.value]], None
>>> a = Answer("m", 3)
>>> sorted(a.to_json())
['model', 'symdelay_version', 'value']
>>> a._repr_html_()
'<table><thead><tr><th>value</th></tr></thead><tbody><tr><td>3</td></tr></tbody></table>'
"""

from __future__ import annotations

from symdelay.core.display import LatexDisplay, draw, html_table
from symdelay.core.version import __version__

__all__ = ["Result", "jsonable"]


class Result(LatexDisplay):
    """Base of the analysis results (subclasses are frozen dataclasses)."""

    # Subclasses declare a ``model_name`` field (the name of the model the result answers
    # for); the base reads it with getattr, so that no class default precedes their fields.

    def record(self) -> dict:
        """The result's own JSON keys: by default its fields (``model_name`` is the base's
        ``"model"``)."""
        import dataclasses

        return {
            f.name: jsonable(getattr(self, f.name))
            for f in dataclasses.fields(self)
            if f.name != "model_name"
        }

    def to_json(self) -> dict:
        out = dict(self.record())
        name = getattr(self, "model_name", None)
        if name is not None:
            out.setdefault("model", name)
        out["symdelay_version"] = __version__
        return out

    def table(self):
        """``(header, rows, caption)`` of the result's table, or ``None``."""
        return None

    def _repr_html_(self) -> str | None:
        t = self.table()
        if t is None:
            return None
        header, rows, caption = t
        return html_table(header, rows, caption)

    def plot(self, *args, **kwargs):
        """The result's figure (matplotlib Axes); a result without one raises ``TypeError``."""
        return draw(self, *args, **kwargs)


def jsonable(value):
    """A JSON-ready copy: SymPy and mpmath numbers as text (exact, re-parsable with
    :func:`symdelay.parse_output`), arrays as lists, nested results through their
    ``record`` (no version stamp), other objects through their ``to_json``."""
    import dataclasses
    import numbers

    import mpmath
    import numpy as np
    import sympy as sp

    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, Result):  # a nested record: its own keys, no version stamp
        return value.record()
    if hasattr(value, "to_json") and not isinstance(value, type):
        return value.to_json()
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    if isinstance(value, (sp.Basic, sp.MatrixBase)):
        return str(value)
    if isinstance(value, (mpmath.mpf, mpmath.mpc)):
        return mpmath.nstr(value, mpmath.mp.dps)
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, numbers.Number):
        return str(value)
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if dataclasses.is_dataclass(value):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return str(value)
