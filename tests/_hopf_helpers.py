"""Second paths for the Hopf tests: numpy Jacobian eigenvalues and Lambert W roots."""

from __future__ import annotations

import mpmath
import numpy as np


def difference_jacobian(L: int, mu: float, lam_theta: float, gamma: float) -> np.ndarray:
    """The (L+1)x(L+1) difference Jacobian built from its pattern (rows x, w_1..w_L)."""
    J = np.zeros((L + 1, L + 1))
    J[0, 0] = -mu
    J[0, L] = gamma
    J[1, 0] = -lam_theta
    for ell in range(1, L + 1):
        J[ell, ell] = -gamma
        if ell >= 2:
            J[ell, ell - 1] = gamma
    return J


def rightmost_eigenvalue(L, mu, lam, theta, D) -> complex:
    """Rightmost eigenvalue of the numeric difference Jacobian (upper imaginary part on ties)."""
    ev = np.linalg.eigvals(difference_jacobian(L, mu, lam * theta, L / D))
    top = ev[np.argmax(ev.real)]
    return complex(top.real, abs(top.imag))


def lambert_rightmost(mu, lam, theta, D, dps=30) -> mpmath.mpc:
    """Rightmost root of r + mu + lam theta exp(-r D) = 0: r = -mu + W_0(-lam theta D e^{mu D})/D.

    (r + mu) e^{(r + mu) D} = -lam theta D e^{mu D} / D; principal branch = rightmost root.
    """
    with mpmath.workdps(dps):
        mu, lam, theta, D = (mpmath.mpf(x) for x in (mu, lam, theta, D))
        z = -lam * theta * D * mpmath.exp(mu * D)
        r = -mu + mpmath.lambertw(z, 0) / D
        # it is a root
        assert abs(r + mu + lam * theta * mpmath.exp(-r * D)) < mpmath.mpf(10) ** (5 - dps) * (
            1 + abs(r)
        )
        return mpmath.mpc(r.real, abs(r.imag))


def float_curve(L, mu, lam, D):
    """``(theta_c, omega)`` float arrays of the founding model over the delays ``D``: the
    entry's float64 run (:func:`symdelay.analysis.critical.critical`, ``float64=True``)."""
    from symdelay.analysis.critical import critical
    from symdelay.models.erlang.founding import FoundingModel

    _, th, om = critical(FoundingModel(L=L, mu=mu, lam=lam), at=D, float64=True).arrays()
    return th, om
