"""Vector fields whose periodic orbits :mod:`.cycles` computes (float64 numpy callables).

A :class:`VectorField` is ``y' = f(y)`` with its Jacobian, the observed coordinate
``x = weights . y`` (the imbalance ``q1 - q2``) and, when the model has one, the involution
``S`` of its symmetry (``f(S y) = S f(y)``): the cycles born at the Hopf point of the
difference mode are ``S``-symmetric, ``y(t + T/2) = S y(t)``, which halves the shooting
interval. Two builders:

* :func:`difference_field`: the exact difference system of the founding model
  (``x' = gamma w_L - mu x``, ``w_1' = -2 lam tanh(theta x / 2) - gamma w_1``, ...), from
  the SymPy system :meth:`ActionDelayModel.difference_system` (checked against it), with
  ``S = -I``;
* :func:`model_field`: any model of the model layer, its full drift and Jacobian generated
  from the transition table by SymPy's code printer (``lambdify``), ``S`` the permutation
  of its symmetry. For the founding model this is the full ``2(L+1)`` fluid model.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from symdelay.analysis.cycles import VectorField, model_field
from symdelay.core.errors import VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.params import exact_number
from symdelay.models.erlang.action_delay import ActionDelayModel

__all__ = ["VectorField", "difference_field", "model_field", "sech2"]


@cache
def _difference_symbolic(L: int):
    sysm = ActionDelayModel(L).difference_system()
    return sysm.state, sysm.rhs


def sech2(u):
    """``sech(u)^2`` without overflow: ``4 e^(-2|u|) / (1 + e^(-2|u|))^2``."""
    e = np.exp(-2 * np.abs(u))
    return 4 * e / (1 + e) ** 2


def difference_field(L: int, mu, lam, D, theta) -> VectorField:
    """The exact difference system (``L + 1`` states ``x, w_1..w_L``), structured numpy."""
    m, lm, th = float(mu), float(lam), float(theta)
    g = L / float(D)
    n = L + 1
    A = np.zeros((n, n))
    A[0, 0], A[0, L] = -m, g
    for ell in range(1, n):
        A[ell, ell] = -g
        if ell > 1:
            A[ell, ell - 1] = g
    half = th / 2

    def f(y):
        out = A @ y
        out[1] -= 2 * lm * np.tanh(half * y[0])
        return out

    def jac(y):
        J = A.copy()
        J[1, 0] = -lm * th * sech2(half * y[0])
        return J

    if L <= 4:  # the structure is the SymPy system's (checked at a random point)
        st, rhs = _difference_symbolic(L)
        vals = {
            "mu": mu,
            "lam": lam,
            "theta": theta,
            "gamma": sp.Rational(L) / exact_number("D", D),
        }
        subs = {sp.Symbol(k): v for k, v in vals.items()}
        y = np.linspace(0.3, -0.2, n)
        ref = np.array([float(e.subs(subs).subs(dict(zip(st, y)))) for e in rhs])
        if not np.allclose(ref, f(y), rtol=1e-12, atol=1e-14):
            raise VerificationError("the numeric difference field differs from the SymPy system")
    w = np.zeros(n)
    w[0] = 1.0
    names = ("x", *[f"w{ell}" for ell in range(1, n)])
    return VectorField(f"difference system, L = {L}", n, f, jac, w, -np.eye(n), names, np.zeros(n))
