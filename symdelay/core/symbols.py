"""The canonical symbols of symdelay.

One name per quantity, shared by code, JSON and LaTeX (see ``docs/model.md``):

>>> from symdelay.core.symbols import r, mu, lam, theta, gamma, D, L, eta
>>> import sympy as sp
>>> sp.sympify("mu + lam*theta", locals=SYMBOLS) == mu + lam * theta
True

The symbols carry no assumptions, so that a string printed by symdelay parses back
(``sympify``) to exactly the same expression in a reader's own SymPy session.
Derivations that need assumptions (positivity, integrality) substitute assumption-laden
dummies internally and map back.
"""

from __future__ import annotations

from symdelay.core.lazy import sympy as sp

__all__ = [  # the symbols themselves are made at first use (below)
    *("r", "mu", "lam", "theta", "gamma", "D", "L", "eta", "SYMBOLS", "LATEX_NAMES"),
    "positive_versions",
]

_NAMES = ("r", "mu", "lam", "theta", "gamma", "D", "L", "eta")


def __getattr__(name):
    # the symbols are made at their first use (PEP 562), so importing this module (or
    # ``from symdelay.core import symbols``) does not import SymPy
    if name not in ("SYMBOLS", "LATEX_NAMES", *_NAMES):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    made = dict(zip(_NAMES, sp.symbols(" ".join(_NAMES)), strict=True))
    #: Name -> symbol, for parsing user text and JSON.
    made["SYMBOLS"] = {n: made[n] for n in _NAMES}
    #: Symbol -> LaTeX, where the default printer would not give the conventional glyph.
    made["LATEX_NAMES"] = {made["lam"]: r"\lambda"}
    for key, value in made.items():
        globals().setdefault(key, value)
    return globals()[name]


def positive_versions(*symbols: sp.Symbol) -> dict[sp.Symbol, sp.Symbol]:
    """Map each symbol to a positive (``L``: positive integer) symbol of the same name.

    >>> m = positive_versions(mu, L)
    >>> m[mu].is_positive, m[L].is_integer
    (True, True)
    """
    out = {}
    for s in symbols:
        if s == __getattr__("L"):
            out[s] = sp.Symbol(s.name, integer=True, positive=True)
        else:
            out[s] = sp.Symbol(s.name, positive=True)
    return out
