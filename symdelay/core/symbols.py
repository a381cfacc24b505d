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

import sympy as sp

__all__ = [
    "r",
    "mu",
    "lam",
    "theta",
    "gamma",
    "D",
    "L",
    "eta",
    "SYMBOLS",
    "LATEX_NAMES",
    "positive_versions",
]

r, mu, lam, theta, gamma, D, L, eta = sp.symbols("r mu lam theta gamma D L eta")

#: Name -> symbol, for parsing user text and JSON.
SYMBOLS: dict[str, sp.Symbol] = {s.name: s for s in (r, mu, lam, theta, gamma, D, L, eta)}

#: Symbol -> LaTeX, where the default printer would not give the conventional glyph.
LATEX_NAMES: dict[sp.Symbol, str] = {lam: r"\lambda"}


def positive_versions(*symbols: sp.Symbol) -> dict[sp.Symbol, sp.Symbol]:
    """Map each symbol to a positive (``L``: positive integer) symbol of the same name.

    >>> m = positive_versions(mu, L)
    >>> m[mu].is_positive, m[L].is_integer
    (True, True)
    """
    out = {}
    for s in symbols:
        if s == L:
            out[s] = sp.Symbol(s.name, integer=True, positive=True)
        else:
            out[s] = sp.Symbol(s.name, positive=True)
    return out
