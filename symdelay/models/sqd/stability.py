"""Local stability of the SQ(d) fixed point: the family's Jacobian behind the entries.

``roots(model)`` and ``stability(model)`` answer for the truncated SQ(d) model
(:class:`~symdelay.models.sqd.meanfield.SQDModel`, ``build_model("sqd", ...)``) like for
every other model: certified roots and Routh-Hurwitz on its characteristic polynomial. What
the family brings is the Jacobian at its fixed point (:func:`model_jacobian`, the model's
``jacobian``): the block-tridiagonal Jacobian of the drift in the tail variables
``u_{k,j} = sum_{n >= k} x_{n,j}`` (:func:`~symdelay.models.sqd.fixed_point.jacobian_u`)
carried to the model's states by the similarity ``J_x = A^-1 J_u A`` (``u = A x``), in
mpmath at the model's working precision; SymPy differentiating and evaluating the ``(K m)^2``
entries took 13 s at K = 30. :func:`stability_at` is the entry on the model at a fixed
point's truncation (``symdelay sqd fixed-point --stability``).

>>> from symdelay.models.sqd.fixed_point import fixed_point
>>> rs = stability_at(fixed_point(2, "0.5", method="newton"))
>>> rs.unstable_count, float(rs.spectral_abscissa) < 0
(0, True)
"""

from __future__ import annotations

import mpmath

from symdelay.core.lazy import sympy as sp
from symdelay.core.precision import workdps

__all__ = ["model_jacobian", "stability_at", "relaxation_time"]


def model_jacobian(model) -> sp.ImmutableMatrix:
    """The Jacobian of the SQ(d) model's drift at its fixed point, in its states
    ``x_{k,j}`` (Floats at the equilibrium's working precision)."""
    from types import SimpleNamespace

    from symdelay.model.equilibrium import EQUILIBRIUM_DPS
    from symdelay.models.sqd.fixed_point import jacobian_matrix
    from symdelay.models.sqd.meanfield import state_name

    m, K = model.service.phases, model.K
    point = model.equilibrium.point
    lam = model.values[sp.Symbol("lam")]
    at = SimpleNamespace(service=model.service, d=model.d, lam=lam, truncation=K)
    with workdps(EQUILIBRIUM_DPS):
        x = [[mpmath.mpf(point[sp.Symbol(state_name(k, j, m))]) for j in range(1, m + 1)]
             for k in range(1, K + 1)]  # fmt: skip
        u = [[mpmath.fsum(x[n][j] for n in range(k, K)) for j in range(m)] for k in range(K)]
        Ju = jacobian_matrix(at, EQUILIBRIUM_DPS, u=u).tolist()
        n = K * m
        # J_u A: column block c is the sum of the column blocks 0..c of J_u (A x: cumulative)
        for row in Ju:
            for c in range(m, n):
                row[c] += row[c - m]
        # A^-1 (J_u A): row block k minus row block k + 1
        Jx = [[Ju[r][c] - (Ju[r + m][c] if r + m < n else 0) for c in range(n)] for r in range(n)]
        return sp.ImmutableMatrix(n, n, [sp.Float(v, EQUILIBRIUM_DPS) for row in Jx for v in row])


def stability_at(fp, *, force: bool | None = None):
    """The certified roots (:func:`symdelay.analysis.roots.roots`) of the SQ(d) model at the
    fixed point ``fp``'s truncation, service and load, at its digits."""
    from symdelay.analysis.roots import roots
    from symdelay.models.sqd.meanfield import sqd_model

    model = sqd_model(fp.service, d=fp.d, K=fp.truncation, lam_value=fp.lam)
    return roots(model, dps=fp.dps, force=force)


def relaxation_time(fp) -> float:
    """``-1 / Re r`` of the rightmost eigenvalue of the truncated Jacobian at ``fp`` in
    double precision: a time scale (the simulation's warm-up), not a verdict."""
    import numpy as np

    from symdelay.models.sqd.fixed_point import jacobian_matrix

    J = np.array(jacobian_matrix(fp).tolist(), dtype=float)
    return -1 / float(np.max(np.linalg.eigvals(J).real))
