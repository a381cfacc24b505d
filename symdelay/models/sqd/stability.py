"""Local stability of the SQ(d) fixed point, through the entries.

``roots(model)`` and ``stability(model)`` answer for the truncated SQ(d) model
(:class:`~symdelay.models.sqd.meanfield.SQDModel`, ``build_model("sqd", ...)``) like for
every other model: certified roots and Routh-Hurwitz on its characteristic polynomial; the
family brings the Jacobian at its fixed point
(:attr:`~symdelay.models.sqd.meanfield.SQDModel.jacobian`, from the block-tridiagonal one
in the tail variables). :func:`stability_at` is the roots entry on the model at a fixed
point's truncation (``symdelay sqd fixed-point --stability``).

>>> from symdelay.models.sqd.fixed_point import fixed_point
>>> rs = stability_at(fixed_point(2, "0.5", method="newton"))
>>> rs.unstable_count, float(rs.spectral_abscissa) < 0
(0, True)
"""

from __future__ import annotations

__all__ = ["stability_at", "relaxation_time"]


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
