"""Linearisation: Jacobians at an equilibrium, explicit or structured for symbolic L.

>>> J = structured_difference_jacobian(L)
>>> J.shape
(L + 1, L + 1)
>>> J.subs(L, 2).as_explicit()
Matrix([
[       -mu,      0,  gamma],
[-lam*theta, -gamma,      0],
[         0,  gamma, -gamma]])
"""

from __future__ import annotations

import numpy as np

from symdelay.core.lazy import sympy as sp
from symdelay.core.symbols import L, gamma, lam, mu, theta

__all__ = [
    "jacobian_at",
    "structured_difference_jacobian",
    "difference_jacobian_entry",
    "difference_jacobian_numeric",
]


def jacobian_at(rhs, state, point) -> sp.Matrix:
    """``d rhs / d state`` evaluated at ``point`` (a dict), simplified entrywise."""
    J = sp.Matrix(list(rhs)).jacobian(sp.Matrix(list(state)))
    return J.subs(point).applyfunc(sp.simplify)


def difference_jacobian_entry(i, j, n_phases, mu=mu, lam=lam, theta=theta, gamma=gamma):
    """Entry (i, j) (0-based; row 0 is x, row l is w_l) of the difference Jacobian.

    The pattern: ``-mu`` at (0,0), ``gamma`` in the corner (0, L), ``-lam*theta`` at (1,0),
    ``-gamma`` on the diagonal of the delay block and ``gamma`` below it.
    """
    E = sp.Eq
    return sp.Piecewise(
        (-mu, E(i, 0) & E(j, 0)),
        (gamma, E(i, 0) & E(j, n_phases)),
        (-lam * theta, E(i, 1) & E(j, 0)),
        (-gamma, E(i, j) & (i >= 1)),
        (gamma, E(j, i - 1) & (i >= 2)),
        (0, True),
    )


def structured_difference_jacobian(n_phases=L, *, mu=mu, lam=lam, theta=theta, gamma=gamma):
    """The (L+1)x(L+1) difference Jacobian as a ``FunctionMatrix``, for any (symbolic) L.

    Substitute a number for ``L`` and call ``.as_explicit()`` to get the ordinary matrix.
    """
    i, j = sp.symbols("i j", integer=True, nonnegative=True)
    entry = difference_jacobian_entry(i, j, n_phases, mu, lam, theta, gamma)
    return sp.FunctionMatrix(n_phases + 1, n_phases + 1, sp.Lambda((i, j), entry))


def difference_jacobian_numeric(L: int, mu, lam, theta, D) -> np.ndarray:
    """The difference Jacobian in floats, filled from the pattern of
    :func:`difference_jacobian_entry` in O(L) (``gamma = L/D``); for numerics at large L.

    >>> difference_jacobian_numeric(2, 1, 1, 5, 1)
    array([[-1.,  0.,  2.],
           [-5., -2.,  0.],
           [ 0.,  2., -2.]])
    """
    g = L / float(D)
    J = np.zeros((L + 1, L + 1))
    J[0, 0] = -float(mu)
    J[0, L] = g
    J[1, 0] = -float(lam) * float(theta)
    idx = np.arange(1, L + 1)
    J[idx, idx] = -g
    J[idx[1:], idx[:-1]] = g
    return J
