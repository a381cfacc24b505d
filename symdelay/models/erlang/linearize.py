"""The difference Jacobian for every L: the one structured statement of the founding model.

A transition table has a concrete number of phases; the derivation for the symbol L needs
the pattern of the difference Jacobian itself. :func:`difference_jacobian_entry` states it
once (``-mu`` at (0, 0), the corner ``gamma`` at (0, L), the routing gain ``-lam*theta`` at
(1, 0), ``-gamma`` on the diagonal of the delay block and ``gamma`` below it);
:func:`structured_difference_jacobian` is it as a SymPy ``FunctionMatrix`` and
:func:`difference_jacobian_numeric` evaluates it in floats. The tests and the derivation's
check table compare it with the difference block of the transition table
(:class:`~symdelay.models.erlang.action_delay.ActionDelayModel`) for concrete L.

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

from functools import cache

from symdelay.core.lazy import module
from symdelay.core.lazy import sympy as sp
from symdelay.core.symbols import L, gamma, lam, mu, theta

np = module("numpy")  # imported at first use (the numeric Jacobian only)

__all__ = [
    "structured_difference_jacobian",
    "difference_jacobian_entry",
    "difference_jacobian_numeric",
]


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


@cache
def _entry_numpy():
    """:func:`difference_jacobian_entry` as a NumPy function of index arrays and numbers."""
    i, j = sp.symbols("i j", integer=True, nonnegative=True)
    args = (i, j, L, mu, lam, theta, gamma)
    return sp.lambdify(args, difference_jacobian_entry(i, j, L), "numpy")


def difference_jacobian_numeric(L: int, mu, lam, theta, D):
    """The difference Jacobian in floats (``gamma = L/D``): :func:`difference_jacobian_entry`
    evaluated on the index grid; for numerics at large L.

    >>> difference_jacobian_numeric(2, 1, 1, 5, 1)
    array([[-1.,  0.,  2.],
           [-5., -2.,  0.],
           [ 0.,  2., -2.]])
    """
    i, j = np.indices((L + 1, L + 1))
    J = _entry_numpy()(i, j, L, float(mu), float(lam), float(theta), L / float(D))
    return np.asarray(J, dtype=float)
