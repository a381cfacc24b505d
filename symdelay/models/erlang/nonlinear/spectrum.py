"""The linear-noise power spectrum of the imbalance: quasi-cycles below ``theta_c``.

Below the Hopf point the fluctuation ``xi = sqrt(eta) (s - s*)`` of the difference
coordinates is, to leading order, the Ornstein--Uhlenbeck process
``d xi = A xi dt + B^(1/2) dW`` (``A``, ``B`` from :func:`symdelay.models.erlang.stochastic.lna_matrices`,
derived from the transition table). Its stationary power spectrum (two-sided, angular
frequency, ``Var = (1/2 pi) int S d omega``) is

    S(omega) = e_x^T (i omega - A)^-1 B (i omega - A)^-H e_x = N(omega^2) / |P(i omega)|^2,

``P`` the characteristic polynomial of the difference mode. As ``theta -> theta_c`` a pair of
roots of ``P`` approaches ``+-i omega_c``, so ``S`` grows a peak there whose width shrinks
like the distance of the roots from the axis: noise-driven oscillations (quasi-cycles) with
quality factor ``Q = omega_peak / (full width at half maximum)`` -> inf.
:func:`spectrum_closed_form` gives ``S`` in closed form (SymPy) for ``L = 1, 2``;
:func:`spectrum` evaluates it on a grid for any L (numpy, or any model through ``model=``:
its full Jacobian and diffusion matrix); :func:`periodogram` estimates it from simulated
paths (Welch), in the same normalisation.

>>> s = spectrum(2, 1, 1, 8, 1)
>>> round(s.peak_frequency, 4), round(s.quality_factor, 2)
(2.7178, 21.57)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from symdelay.core.errors import CertificationError, SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.core.params import as_L, as_parameter, as_positive_number
from symdelay.core.symbols import D as DD
from symdelay.core.symbols import gamma as GAMMA
from symdelay.core.symbols import lam as LAM
from symdelay.core.symbols import mu as MU
from symdelay.core.symbols import theta as THETA

__all__ = ["Spectrum", "spectrum", "spectrum_closed_form", "periodogram", "lna_spectrum_matrix"]

omega = sp.Symbol("omega", real=True)


@dataclass
class Spectrum:
    """``S(omega)`` on ``omega`` (two-sided, angular), peak, quality factor, variance."""

    L: object
    parameters: dict
    omega: np.ndarray
    S: np.ndarray
    peak_frequency: float
    peak_value: float
    quality_factor: float | None
    variance: float
    closed_form: sp.Expr | None = None
    method: str = ""

    def to_json(self) -> dict:
        from symdelay.core.latex import tex

        return {
            "L": self.L,
            "parameters": {k: str(v) for k, v in self.parameters.items()},
            "omega": [float(w) for w in self.omega],
            "S": [float(s) for s in self.S],
            "peak_frequency": repr(float(self.peak_frequency)),
            "peak_value": repr(float(self.peak_value)),
            "quality_factor": None if self.quality_factor is None else repr(self.quality_factor),
            "variance_x_over_eta": repr(float(self.variance)),
            "normalisation": "two-sided in angular frequency: Var(x)/eta = (1/(2 pi)) int S",
            "closed_form": None if self.closed_form is None else str(self.closed_form),
            "closed_form_latex": None if self.closed_form is None else tex(self.closed_form),
            "method": self.method,
        }

    def _repr_latex_(self) -> str:
        q = "-" if self.quality_factor is None else f"{self.quality_factor:.4g}"
        head = (
            rf"\omega_{{peak}} = {self.peak_frequency:.6g},\ Q = {q},\ "
            rf"\mathrm{{Var}}(x)/\eta = {self.variance:.6g}"
        )
        if self.closed_form is not None:
            from symdelay.core.latex import tex

            head += rf",\quad S(\omega) = {tex(self.closed_form)}"
        return f"${head}$"

    def plot(self, periodogram=None):
        from symdelay.core.display import draw

        return draw(self, periodogram)


def _require_finite(A, B) -> None:
    if not (np.all(np.isfinite(A)) and np.all(np.isfinite(np.asarray(B, float)))):
        raise SymdelayInputError(
            "the spectrum is computed in double precision and these rates leave its range "
            "(about 1e308): give mu, lam, theta and D of moderate size"
        )


def lna_spectrum_matrix(A: np.ndarray, B: np.ndarray, weights, omegas) -> np.ndarray:
    """``c^T (i w - A)^-1 B (i w - A)^-H c`` for each ``w`` (float numpy)."""
    A = np.asarray(A, float)
    _require_finite(A, B)
    n = A.shape[0]
    c = np.asarray(weights, float)
    out = np.empty(len(omegas))
    eye = np.eye(n)
    for k, w in enumerate(omegas):
        h = np.linalg.solve((1j * w * eye - A).T, c)  # h^T = c^T (i w - A)^-1
        out[k] = float(np.real(h @ B @ h.conj()))
    return out


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


def _peak_and_q(A, B, w, scale):
    """Peak frequency and value (grid of 4001 points on ``[0, 4 scale]``, refined by a
    bounded scalar search) and ``Q = omega_peak / FWHM`` with both half-maximum points
    found by Brent's method; ``Q`` None when the peak is at ``omega = 0`` or the spectrum
    does not fall to half its peak above it."""
    from scipy.optimize import brentq, minimize_scalar

    def S_at(v):
        return lna_spectrum_matrix(A, B, w, [v])[0]

    grid = np.linspace(0.0, 4 * scale, 4001)
    S = lna_spectrum_matrix(A, B, w, grid)
    k = int(np.argmax(S))
    if k == 0:
        return 0.0, float(S[0]), None
    hi = grid[min(k + 1, len(grid) - 1)]
    r = minimize_scalar(
        lambda v: -S_at(v),
        bounds=(grid[k - 1], hi),
        method="bounded",
        options={"xatol": 1e-12 * max(1.0, scale)},
    )
    wp, Sp = float(r.x), float(-r.fun)
    half = Sp / 2
    if S_at(0.0) >= half:
        return wp, Sp, None
    top = wp
    while S_at(top) >= half:
        top = 2 * top + scale
        if top > 1e6 * scale:
            return wp, Sp, None
    wl = brentq(lambda v: S_at(v) - half, 0.0, wp, xtol=1e-14 * scale)
    wr = brentq(lambda v: S_at(v) - half, wp, top, xtol=1e-14 * scale)
    return wp, Sp, float(wp / (wr - wl))


def _check_grid_cost(n_states: int, points: int, force: bool) -> None:
    """Each grid point is one ``n x n`` complex solve (measured: 10^5 points of a 3-state
    system in about 2 s) and the grid holds ``(i w - A)^-1`` for every point."""
    from symdelay.core.budget import check_budget, check_memory, power_cost

    what = f"the spectrum on {points} grid points ({n_states} states)"
    shrink = "fewer --points (or a smaller L)"
    check_memory(what, 16.0 * points * (n_states * n_states + 4), force=force, shrink=shrink)
    check_budget(what, points * power_cost(n_states, 7.4e-7, 3), force=force, shrink=shrink)


def spectrum(
    L=2, mu=1, lam=1, theta=8, D=1, *, omegas=None, points: int = 4001, model=None,
    force: bool = False,
):  # fmt: skip
    """The LNA spectrum of ``x = q1 - q2`` on a grid (default ``0..4 omega_scale``), its
    peak frequency (refined), quality factor and ``Var(x)/eta`` (the integral, checked
    against the Lyapunov solution in the tests). ``model``: any stable model of the model
    layer (its full Jacobian and diffusion matrix; imbalance weights); the founding model
    (:class:`~symdelay.models.erlang.family.FoundingModel`) takes its own path, from its
    options."""
    from symdelay.models.erlang.founding import FoundingModel

    closed = None
    if isinstance(model, FoundingModel):  # the difference mode, closed forms for L <= 2
        o = model.options
        missing = [n for n in ("mu", "lam", "theta", "D") if o[n] is None]
        if missing:
            raise SymdelayInputError(
                "the spectrum of the founding model needs numbers for "
                + ", ".join(missing)
                + " (--"
                + ", --".join(missing)
                + ")"
            )
        L, mu, lam, theta, D = model.L, o["mu"], o["lam"], o["theta"], o["D"]
        model = None
    if model is not None:
        from symdelay.analysis.stability import require_stable
        from symdelay.analysis.stochastic import difference_weights

        require_stable(model, "stationary spectrum")
        w = difference_weights(model)
        A = np.array(model.jacobian.evalf(), dtype=float)
        B = np.array(model.diffusion.evalf(), dtype=float)
        Lkey, params = None, {k.name: v for k, v in model.values.items()}
        method = "LNA of the model's full Jacobian and diffusion matrix"
    else:
        from symdelay.models.erlang.stochastic.variance import lna_matrices

        Lv = as_L(L, allow_symbol=False)
        vals = {
            MU: as_positive_number("mu", mu),
            LAM: as_positive_number("lam", lam),
            DD: as_positive_number("D", D),
        }
        th = as_parameter("theta", theta, positive=False)
        if not (th.is_number and th.is_real and th >= 0):
            raise SymdelayInputError(
                f"theta must be a number >= 0 (0: routing ignores the queues), got {theta}"
            )
        g = sp.Rational(Lv) / vals[DD]
        subs = {MU: vals[MU], LAM: vals[LAM], THETA: th, GAMMA: g}
        As, Bs = lna_matrices(Lv)
        A = np.array(As.subs(subs).evalf(), dtype=float)
        B = np.array(Bs.subs(subs).evalf(), dtype=float)
        _require_finite(A, B)
        from symdelay.analysis.stability import require_stable

        # the one verdict at this point (exact; stable, marginal or unstable)
        require_stable(
            FoundingModel(L=Lv, mu=vals[MU], lam=vals[LAM], theta=th, D=vals[DD]),
            "stationary spectrum",
        )
        w = [1] + [0] * Lv
        Lkey = Lv
        params = {"mu": vals[MU], "lam": vals[LAM], "theta": th, "D": vals[DD]}
        if Lv <= 2:
            closed = spectrum_closed_form(Lv)
        method = "LNA: e_x^T (i w - A)^-1 B (i w - A)^-H e_x (difference mode)"
    ev = np.linalg.eigvals(A)
    scale = max(float(np.max(np.abs(ev.imag))), float(np.max(np.abs(ev))) / 4, 1e-6)
    if omegas is None:
        omegas = np.linspace(0.0, 4 * scale, points)
    omegas = np.asarray(omegas, float)
    _check_grid_cost(A.shape[0], omegas.size, force)
    S = lna_spectrum_matrix(A, B, w, omegas)
    wp, Sp, Q = _peak_and_q(A, B, w, scale)
    if model is None:
        # from the exact rates (exact Lyapunov solve for small L, refined otherwise): a
        # float solve gave Var = -6e23 at D = 1e40, where the eigenvalues span 40 decades
        from symdelay.models.erlang.stochastic.variance import variance

        res = variance(Lv, vals[MU], vals[LAM], th, vals[DD], dps=20, closed_form=False)
        var = float(res)
    else:
        from scipy.linalg import solve_continuous_lyapunov

        Sigma = solve_continuous_lyapunov(A, -B)
        var = float(np.asarray(w) @ Sigma @ np.asarray(w))
        residual = np.max(np.abs(A @ Sigma + Sigma @ A.T + B))
        if not (var > 0 and residual <= 1e-8 * max(np.max(np.abs(B)), 1e-300)):
            raise CertificationError(
                "the stationary variance could not be computed accurately in floating point "
                f"(Lyapunov residual {residual:.3g}): use values nearer 1 or 'symdelay variance'"
            )
    return Spectrum(Lkey, params, omegas, S, wp, Sp, Q, var, closed, method)


def periodogram(sim, eta: int, burn_in: float = 20.0, segment: float = 100.0):
    """``(omega, S_hat)``: Welch estimate of the spectrum of ``sqrt(eta) x`` from simulated
    paths (a :class:`~symdelay.analysis.timeseries.TimeSeries` of the founding model, replications averaged), in the
    normalisation of :class:`Spectrum` (two-sided, angular: ``S_hat(2 pi f) = P(f)/2`` for
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
