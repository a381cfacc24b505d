"""Vector fields whose periodic orbits :mod:`.cycles` computes (float64 numpy callables).

A :class:`VectorField` is ``y' = f(y)`` with its Jacobian, the observed coordinate
``x = weights . y`` (the imbalance ``q1 - q2``) and, when the model has one, the involution
``S`` of its symmetry (``f(S y) = S f(y)``): the cycles born at the Hopf point of the
difference mode are ``S``-symmetric, ``y(t + T/2) = S y(t)``, which halves the shooting
interval. Two builders:

* :func:`difference_field`: the exact difference system of the founding model, for any L:
  the structured difference Jacobian without its routing gain
  (:func:`~symdelay.models.erlang.linearize.difference_jacobian_numeric` at theta = 0) plus
  the routing term read off the transition table
  (:func:`~symdelay.models.erlang.action_delay.routing_term`, ``-2 lam tanh(theta x / 2)``),
  compiled by SymPy's code printer; checked against the gain of the structured Jacobian and,
  for small L, against the table's difference system; ``S = -I``;
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
from symdelay.models.erlang.action_delay import ActionDelayModel, routing_term
from symdelay.models.erlang.linearize import difference_jacobian_numeric

__all__ = ["VectorField", "difference_field", "model_field"]

#: Largest L whose numeric field is also checked against the table's SymPy system.
CHECKED_L = 4


@cache
def _routing():
    """``(row, col, g, g')``: the routing term and its derivative as functions of floats
    ``(x, mu, lam, theta, gamma)``."""
    from symdelay.core.symbols import gamma, lam, mu, theta

    row, col, x, g = routing_term()
    args = (x, mu, lam, theta, gamma)
    return row, col, sp.lambdify(args, g, "math"), sp.lambdify(args, sp.diff(g, x), "math")


def difference_field(L: int, mu, lam, D, theta) -> VectorField:
    """The exact difference system (``L + 1`` states ``x, w_1..w_L``), structured numpy."""
    row, col, g, dg = _routing()
    p = (float(mu), float(lam), float(theta), L / float(D))
    n = L + 1
    A = difference_jacobian_numeric(L, p[0], p[1], 0.0, D)
    gain = difference_jacobian_numeric(L, *p[:3], D) - A
    expected = np.zeros((n, n))
    expected[row, col] = dg(0.0, *p)
    if not np.allclose(gain, expected, rtol=1e-14, atol=0.0):
        raise VerificationError("the routing term's gain is not the structured Jacobian's")

    def f(y):
        out = A @ y
        out[row] += g(float(y[col]), *p)
        return out

    def jac(y):
        J = A.copy()
        J[row, col] += dg(float(y[col]), *p)
        return J

    if L <= CHECKED_L:  # the table's SymPy system (checked at a random point)
        system = ActionDelayModel(L, mu=mu, lam=lam, theta=theta, D=D).difference_system()
        y = np.linspace(0.3, -0.2, n)
        ref = np.array([float(e.xreplace(dict(zip(system.state, y)))) for e in system.rhs])
        if not np.allclose(ref, f(y), rtol=1e-12, atol=1e-14):
            raise VerificationError("the numeric difference field differs from the SymPy system")
    w = np.zeros(n)
    w[0] = 1.0
    names = ("x", *[f"w{ell}" for ell in range(1, n)])
    return VectorField(f"difference system, L = {L}", n, f, jac, w, -np.eye(n), names, np.zeros(n))
