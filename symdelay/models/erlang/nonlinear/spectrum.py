"""The founding model's linear-noise spectrum: its fast path and closed form, specialisations
of :func:`symdelay.analysis.spectrum.spectrum`, and the Welch periodogram of simulated paths.

The imbalances ``(x, w_1..w_L)`` of the founding model form a closed Ornstein--Uhlenbeck
process whose matrices ``A``, ``B`` (:func:`symdelay.models.erlang.stochastic.lna_matrices`,
the transition table's own, derived once per L) give ``S(omega) = N(omega^2) / |P(i
omega)|^2``, ``P`` the characteristic polynomial of the difference mode.
:func:`spectrum_closed_form` gives ``S`` in closed form (SymPy) for ``L = 1, 2``;
:func:`periodogram` estimates it from simulated paths (Welch), in the same normalisation.

>>> s = spectrum(2, 1, 1, 8, 1)
>>> round(s.peak_frequency, 4), round(s.quality_factor, 2)
(2.7178, 21.57)
"""

from __future__ import annotations

from functools import cache

import numpy as np

from symdelay.analysis.spectrum import _require_finite, spectrum_of
from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.core.symbols import gamma as GAMMA
from symdelay.core.symbols import lam as LAM
from symdelay.core.symbols import mu as MU
from symdelay.core.symbols import theta as THETA
from symdelay.models.erlang.hopf._common import require_numbers
from symdelay.models.erlang.loose import founding_doc

__all__ = [
    "spectrum",
    "specialised_spectrum",
    "spectrum_closed_form",
    "family_spectrum_closed_form",
    "periodogram",
]

omega = sp.Symbol("omega", real=True)


@cache
def spectrum_closed_form(L: int):
    """``S(omega)`` in closed form (SymPy, symbols ``mu, lam, theta, gamma, omega``) for
    ``L <= 2``: the numerator and ``|P(i omega)|^2`` expanded in ``omega^2``.

    >>> sp.numer(spectrum_closed_form(1))
    4*lam*(gamma**2 + omega**2)
    """
    from symdelay.models.erlang.stochastic.variance import lna_matrices

    if L > 2:
        return None
    A, B = lna_matrices(L)
    pos = {s: sp.Symbol(s.name, positive=True) for s in (MU, LAM, THETA, GAMMA)}
    A, B = A.xreplace(pos), B.xreplace(pos)
    n = A.rows
    M = sp.I * omega * sp.eye(n) - A
    P = sp.expand(M.det())
    row = M.adjugate().row(0)  # e_x^T M^-1 = row / P
    num = sp.expand((row * B * row.conjugate().T)[0])
    num = sp.expand(sp.expand_complex(num))
    den = sp.expand(sp.expand_complex(P * sp.conjugate(P)))
    if sp.im(num) != 0 or sp.im(den) != 0:  # pragma: no cover
        raise ArithmeticError("the spectrum is not real")
    back = {v: k for k, v in pos.items()}
    return (sp.factor(num) / sp.collect(den, omega)).xreplace(back)


def family_spectrum_closed_form(model):
    """The founding family's closed form of ``S(omega)`` (L <= 2; None otherwise): attached
    by the entry on every path."""
    L = getattr(model, "L", None)
    return spectrum_closed_form(L) if isinstance(L, int) else None


def specialised_spectrum(model, *, omegas=None, points=4001, force=False):
    """The founding model's spectrum: the imbalance matrices derived once per L, at the
    model's numbers (the variance from its own exact Lyapunov solve)."""
    from symdelay.analysis.stochastic import variance
    from symdelay.models.erlang.stochastic.variance import lna_matrices

    o = model.options
    require_numbers(o, ("mu", "lam", "theta", "D"), "the spectrum")
    if model.infinite:
        return None
    L, th = model.L, o["theta"]
    if not (th.is_number and th.is_real and th >= 0):
        raise SymdelayInputError(
            f"theta must be a number >= 0 (0: routing ignores the queues), got {th}"
        )
    subs = {MU: o["mu"], LAM: o["lam"], THETA: th, GAMMA: sp.Integer(L) / o["D"]}
    As, Bs = lna_matrices(L)
    A = np.array(As.subs(subs).evalf(), dtype=float)
    B = np.array(Bs.subs(subs).evalf(), dtype=float)
    _require_finite(A, B)
    # Var(x)/eta from the exact rates (exact Lyapunov solve for small L, refined
    # otherwise): a float solve gave Var = -6e23 at D = 1e40, where the eigenvalues span
    # 40 decades
    var = variance(model, dps=20, closed_form=False, method="specialised", force=force)
    return spectrum_of(
        model,
        A,
        B,
        [1] + [0] * L,
        var,
        omegas=omegas,
        points=points,
        force=force,
        method="LNA: e_x^T (i w - A)^-1 B (i w - A)^-H e_x (difference mode)",
    )


@founding_doc
def spectrum(L=2, mu=1, lam=1, theta=8, D=1, *, omegas=None, points: int = 4001, force=False):
    """The linear-noise spectrum of ``x = q1 - q2`` of the founding model below its Hopf point:
    the convenience of :func:`symdelay.spectrum` on ``build_model("erlang", L=L, ...)``.

    Parameters
    ----------
    L : int, default 2
        The number of Erlang phases of the delay, an integer ``>= 1``.
    %(rates)s
    theta : number or str, default 8
        The routing sensitivity, below ``theta_c``.
    omegas, points, force
        As for :func:`symdelay.spectrum`.

    Returns
    -------
    Spectrum
        ``omega``, ``S``, the peak, the quality factor and ``Var(x)/eta``.
    """
    from symdelay.analysis.spectrum import spectrum as entry
    from symdelay.models.erlang.family import model

    founding = model(L=L, mu=mu, lam=lam, theta=theta, D=D)
    return entry(founding, omegas=omegas, points=points, force=force)


def periodogram(sim, eta: int, burn_in: float = 20.0, segment: float = 100.0):
    """``(omega, S_hat)``: Welch estimate of the spectrum of ``sqrt(eta) x`` from simulated
    paths (a :class:`~symdelay.analysis.timeseries.TimeSeries` of the founding model, replications averaged), in the
    normalisation of :class:`~symdelay.analysis.spectrum.Spectrum` (two-sided, angular: ``S_hat(2 pi f) = P(f)/2`` for
    the one-sided Welch density ``P``), with the standard error across replications."""
    from scipy.signal import welch

    t = np.asarray(sim.t)
    dt = float(t[1] - t[0])
    x = sim.state("q1") - sim.state("q2")  # (replications, len(t))
    keep = t >= burn_in
    xs = np.sqrt(eta) * (x[:, keep] - x[:, keep].mean(axis=1, keepdims=True))
    nper = min(int(segment / dt), xs.shape[1])
    est = []
    for row in xs:
        f, P = welch(row, fs=1 / dt, nperseg=nper, detrend="constant")
        est.append(P / 2)
    est = np.array(est)
    se = est.std(axis=0, ddof=1) / np.sqrt(len(est)) if len(est) > 1 else np.full(len(f), np.nan)
    return 2 * np.pi * f, est.mean(axis=0), se
