"""Shared symbols, constants and small helpers of the Hopf analysis."""

from __future__ import annotations

import mpmath

from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.core.symbols import D, gamma, lam, mu, theta

_MU, _LAM = mu, lam  # the symbols, for functions whose arguments are named mu, lam


omega = sp.Symbol("omega", positive=True)
alpha = sp.Symbol("alpha", positive=True)
_k = sp.Symbol("k", positive=True)  # k = lam*theta
_P = {s: sp.Symbol(s.name, positive=True) for s in (mu, gamma, D, lam, theta)}
_BACK = {v: k for k, v in _P.items()}
_Lpos = sp.Symbol("L", positive=True, integer=True)


def _plain(expr):
    """Map the positive dummies back to the canonical (assumption-free) symbols."""
    return sp.sympify(expr).xreplace(_BACK)


def _to_mpf(x) -> mpmath.mpf:
    """An exact SymPy number as an mpmath number at the current working precision."""
    x = sp.sympify(x)
    if x.is_Rational:
        return mpmath.mpf(x.p) / x.q
    return mpmath.mpf(str(sp.N(x, mpmath.mp.dps + 5)))


def _require_rational(name, x):
    if not sp.sympify(x).is_Rational:
        raise SymdelayInputError(
            f"{name} must be a rational number here (a decimal or a fraction), got {x}"
        )
    return x


def require_numbers(options: dict, names, what: str) -> None:
    """Refuse in one line, naming the options, when one that the founding model's ``what``
    needs has no number."""
    missing = [n for n in names if options[n] is None]
    if missing:
        raise SymdelayInputError(
            f"{what} of the founding model needs numbers for {', '.join(missing)} "
            f"(--{', --'.join(missing)})"
        )
