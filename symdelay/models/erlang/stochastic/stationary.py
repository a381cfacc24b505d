"""Long-run checks of the stationary regime: simulated imbalance variance with batch-means
confidence intervals, the Hopf threshold in theta, and the LNA variance
as a function of theta.

>>> round(hopf_theta(L=2, mu=1, lam=1, D=1), 9)  # L=2: lam*theta_c = 2(mu+gamma)^2/gamma
9.0
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import numpy as np

from symdelay.analysis.stochastic import SimulatedVariance
from symdelay.core.checks import check_rates
from symdelay.core.errors import SymdelayInputError
from symdelay.models.erlang.stochastic.variance import variance

__all__ = [
    "simulated_variance",
    "spectral_abscissa",
    "hopf_theta",
    "variance_curve",
    "minimising_theta",
]


def simulated_variance(
    L=1, eta=1000, mu=1, lam=1, theta=2, D=1, *, T=2000, burn_in=50, dt=0.25, batches=20,
    seed=7, level=0.95, progress: Callable[[int], None] | None = None,
) -> SimulatedVariance:  # fmt: skip
    """``Var(Q1 - Q2)/eta`` of the founding model from one long path: a convenience calling
    :func:`symdelay.analysis.stochastic.simulated_variance`."""
    from symdelay.analysis.stochastic import simulated_variance as entry
    from symdelay.models.erlang.family import model

    check_rates(L, mu, lam, theta, D)
    return entry(
        model(L=L, mu=mu, lam=lam, theta=theta, D=D), eta, T=T, burn_in=burn_in, dt=dt,
        batches=batches, seed=seed, level=level, progress=progress,
    )  # fmt: skip


def spectral_abscissa(L, mu, lam, theta, D) -> float:
    """Largest real part of the eigenvalues of the difference Jacobian: the rightmost
    certified root of the difference mode (:func:`symdelay.analysis.roots.roots`)."""
    from symdelay.analysis.roots import roots
    from symdelay.models.erlang.family import model

    rs = roots(model(L=L, mu=mu, lam=lam, theta=theta, D=D), dps=15, rightmost=1)
    return float(rs.spectral_abscissa)


def hopf_theta(L, mu, lam, D) -> float:
    """theta_c(D) as a float, ``inf`` when no crossing (e.g. L = 1).

    The one production path, :func:`symdelay.models.erlang.hopf.critical_theta`; the tests check it
    against bisection on the eigenvalues of the difference Jacobian.
    """
    from symdelay.models.erlang.hopf import critical_theta

    point = critical_theta(int(L), mu, lam, [D], dps=15).to_json()["points"][0]
    return float(point["theta_c"])


def variance_curve(L, thetas, mu=1, lam=1, D=1) -> np.ndarray:
    """LNA ``Var(Q1-Q2)/eta`` at each theta (NaN at or above the Hopf threshold)."""
    out = np.full(len(thetas), np.nan)
    for k, th in enumerate(thetas):
        with contextlib.suppress(SymdelayInputError):
            out[k] = float(variance(L=L, mu=mu, lam=lam, theta=th, D=D, closed_form=False))
    return out


def minimising_theta(L, mu=1, lam=1, D=1) -> tuple[float, float]:
    """``(theta*, Var at theta*)`` minimising the LNA variance over ``[0, theta_c)``
    (``theta* = inf`` when the variance decreases all the way, as for L = 1)."""
    from scipy.optimize import minimize_scalar

    tc = hopf_theta(L, mu, lam, D)
    if not np.isfinite(tc):
        return float("inf"), float("nan")
    f = lambda th: float(variance(L=L, mu=mu, lam=lam, theta=th, D=D, closed_form=False))  # noqa: E731
    res = minimize_scalar(
        f, bounds=(0.0, tc * (1 - 1e-6)), method="bounded", options={"xatol": 1e-6}
    )
    return float(res.x), float(res.fun)
