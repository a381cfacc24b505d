"""Local stability of the SQ(d) fixed point: Jacobian of the truncated system, rightmost
eigenvalue.

The Jacobian is taken in the tail variables ``u_{k,j}`` (block tridiagonal, see
:mod:`.fixed_point`); it is similar to the Jacobian in the ``x_{k,j}`` of the model layer
(``u = A x`` with A invertible), so the eigenvalues are the same — the tests compare the two.
The rightmost eigenvalue is located with numpy (LAPACK) and refined at ``dps`` digits by
inverse iteration with a Rayleigh shift in mpmath (for n <= ``REFINE_MAX``).

>>> from symdelay.models.sqd.fixed_point import fixed_point
>>> r = rightmost_eigenvalue(fixed_point(2, "0.5", method="newton"))
>>> r.value.real < 0
True
"""

from __future__ import annotations

from dataclasses import dataclass

import mpmath
import numpy as np

from symdelay.core.precision import workdps
from symdelay.core.result import Result
from symdelay.models.sqd.fixed_point import jacobian_matrix

__all__ = ["jacobian_matrix", "rightmost_eigenvalue", "Rightmost", "REFINE_MAX"]

#: Largest dimension refined in mpmath (dense LU per step).
REFINE_MAX = 120


@dataclass
class Rightmost(Result):
    """The rightmost eigenvalue, its numpy estimate, and whether it was refined."""

    value: object  # mpmath.mpc
    numpy_value: complex
    refined: bool
    dimension: int
    stable: bool


def rightmost_eigenvalue(fp, dps: int | None = None) -> Rightmost:
    """Rightmost eigenvalue of the Jacobian at the fixed point ``fp``."""
    dps = dps or fp.dps
    J = jacobian_matrix(fp, dps)
    n = J.rows
    A = np.array(J.tolist(), dtype=float)
    ev = np.linalg.eigvals(A)
    lam0 = complex(ev[np.argmax(ev.real)])
    refined = n <= REFINE_MAX
    value = mpmath.mpc(lam0)
    if refined:
        with workdps(dps):
            Jc = mpmath.matrix(J) * mpmath.mpc(1)
            sigma = mpmath.mpc(lam0) + mpmath.mpf(10) ** (-8) * (1 + 1j)
            v = mpmath.matrix([mpmath.mpc(1)] * n)
            for _ in range(40):
                M = Jc - sigma * mpmath.eye(n)
                w = mpmath.lu_solve(M, v)
                v = w / mpmath.norm(w)
                Jv = Jc * v
                new = sum(mpmath.conj(v[i]) * Jv[i] for i in range(n))
                done = abs(new - sigma) < mpmath.mpf(10) ** (-(dps + 3)) * (1 + abs(new))
                sigma = new
                if done:
                    break
            value = sigma
    with mpmath.workdps(dps):
        value = +value
    return Rightmost(value, lam0, refined, n, bool(mpmath.re(value) < 0))
