"""The linear-noise power spectrum of an imbalance, for any model: quasi-cycles below the
Hopf point.

Below the Hopf point the fluctuation ``xi = sqrt(eta) (s - s*)`` is, to leading order, the
Ornstein--Uhlenbeck process ``d xi = A xi dt + B^(1/2) dW`` (``A``, ``B`` the model's
Jacobian and diffusion matrix at its equilibrium). The stationary power spectrum of
``x = c . xi`` (two-sided, angular frequency, ``Var(x) = (1/2 pi) int S d omega``) is

    S(omega) = c^T (i omega - A)^-1 B (i omega - A)^-H c.

As the equilibrium nears its Hopf point a pair of eigenvalues of ``A`` approaches
``+-i omega_c``, so ``S`` grows a peak there whose width shrinks like the distance of the
eigenvalues from the axis: noise-driven oscillations (quasi-cycles) with quality factor
``Q = omega_peak / (full width at half maximum)`` -> inf.

One entry, :func:`spectrum` -> :class:`Spectrum`. The generic path takes ``A``, ``B`` from
the model's own table restricted to its imbalances
(:func:`symdelay.analysis.lna.imbalance_lna`; the full state when weights are given); the
founding model's fast path reads the same matrices derived once per L. ``Var(x)/eta`` is
:func:`symdelay.analysis.stochastic.variance` (exact Lyapunov solve), not the integral.

A model with lags has no finite ``A``: its fluctuation is a linear stochastic delay equation
and ``S(omega) = c^T G(i omega) B G(i omega)^* c`` with ``G = Delta^-1 N`` (``Delta`` its
characteristic matrix; ``N = I - sum_d M_d K_d`` over the derivative terms of a neutral
model, where ``dot(x)`` is read as the drift of ``x``, ``N = I`` otherwise:
:mod:`symdelay.analysis.dnoise`, where the noise of an action delay is worked out too),
evaluated in Arb balls on the grid; the peak and ``Q`` are found as for a table
(:func:`peak_and_q`) on ``[0, 2 a]`` (``a`` bounds every root of the closed right
half-plane, so the least damped roots lie below it: ``||A0|| + sum ||M_k||``, or for a
neutral model the bound that its difference operator's inverse gives,
:meth:`DelayNoise.tail_constants`); ``Var(x)/eta`` is the variance entry's certified
integral of the same ``S`` at :data:`DELAY_SPECTRUM_DPS` digits.

>>> from symdelay.models import build_model
>>> s = spectrum(build_model("nserver", N=2, L=2, mu=1, lam=1, theta=8, D=1), points=51)
>>> round(s.peak_frequency, 4), round(s.quality_factor, 2), s.to_json()["variance_x_over_eta"]
(2.7178, 21.57, '9.11111111111111')
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from symdelay.analysis.entry import declined, entry_doc, specialisation
from symdelay.core.errors import SymdelayInputError
from symdelay.core.result import Result

__all__ = ["Spectrum", "spectrum", "lna_spectrum_matrix", "check_grid_cost", "spectrum_of"]

NORMALISATION = "two-sided in angular frequency: Var(x)/eta = (1/(2 pi)) int S"


@dataclass(frozen=True, eq=False)
class Spectrum(Result):
    """``S(omega)`` on ``omega`` (two-sided, angular) of the imbalance ``imbalance``, its
    peak, quality factor and ``Var(x)/eta``. ``parameters``: the model's own options (or its
    parameter values); ``L``: the model's number of delay phases where it has that option
    (None otherwise); ``closed_form``: the family's closed form of ``S`` where it states one
    (the founding model, L <= 2), attached on every path; ``method``: the path."""

    L: object
    parameters: dict
    omega: np.ndarray
    S: np.ndarray
    peak_frequency: float
    peak_value: float
    quality_factor: float | None
    variance: float | None
    imbalance: str = "q1 - q2"
    closed_form: object = None
    method: str = ""
    model_name: str | None = None

    def record(self) -> dict:
        from symdelay.core.latex import tex

        cf = self.closed_form
        return {
            "L": self.L,
            "parameters": dict(self.parameters),
            "omega": [float(w) for w in self.omega],
            "S": [float(s) for s in self.S],
            "peak_frequency": repr(float(self.peak_frequency)),
            "peak_value": repr(float(self.peak_value)),
            "quality_factor": None if self.quality_factor is None else repr(self.quality_factor),
            "variance_x_over_eta": None if self.variance is None else repr(float(self.variance)),
            "normalisation": NORMALISATION,
            "imbalance": self.imbalance,
            "closed_form": None if cf is None else str(cf),
            "closed_form_latex": None if cf is None else tex(cf),
            "method": self.method,
        }

    def latex(self) -> str:
        q = "-" if self.quality_factor is None else f"{self.quality_factor:.4g}"
        var = "-" if self.variance is None else f"{self.variance:.6g}"
        head = (
            rf"\omega_{{peak}} = {self.peak_frequency:.6g},\ Q = {q},\ "
            rf"\mathrm{{Var}}(x)/\eta = {var}"
        )
        if self.closed_form is not None:
            from symdelay.core.latex import tex

            head += rf",\quad S(\omega) = {tex(self.closed_form)}"
        return head


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


def _peak_and_q(A, B, w, scale):
    """:func:`peak_and_q` of the spectrum of ``A``, ``B`` and the weights ``w``."""
    return peak_and_q(
        lambda v: lna_spectrum_matrix(A, B, w, [v])[0],
        lambda grid: lna_spectrum_matrix(A, B, w, grid),
        scale,
    )


def peak_and_q(S_at, S_grid, scale, points: int = 4001):
    """Peak frequency and value of a spectrum (``S_at(w)``, ``S_grid(ws)``: on a grid of
    ``points`` on ``[0, 4 scale]``, refined by a bounded scalar search) and
    ``Q = omega_peak / FWHM`` with both half-maximum points found by Brent's method; ``Q``
    None when the peak is at ``omega = 0`` or the spectrum does not fall to half its peak
    above it."""
    from scipy.optimize import brentq, minimize_scalar

    grid = np.linspace(0.0, 4 * scale, points)
    S = np.asarray(S_grid(grid), dtype=float)
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


def check_grid_cost(n_states: int, points: int, force: bool) -> None:
    """Each grid point is one ``n x n`` complex solve (measured: 10^5 points of a 3-state
    system in about 2 s) and the grid holds ``(i w - A)^-1`` for every point."""
    from symdelay.core.budget import check_budget, check_memory, power_cost

    what = f"the spectrum on {points} grid points ({n_states} states)"
    shrink = "fewer --points (or a smaller L)"
    check_memory(what, 16.0 * points * (n_states * n_states + 4), force=force, shrink=shrink)
    check_budget(what, points * power_cost(n_states, 7.4e-7, 3), force=force, shrink=shrink)


@entry_doc
def spectrum(
    model,
    *,
    omegas=None,
    points: int = 4001,
    weights=None,
    force: bool = False,
    method: str = "auto",
) -> Spectrum:
    """The linear-noise power spectrum of an imbalance of ``model`` below its Hopf point
    (quasi-cycles), with its peak, quality factor and variance.

    The peak frequency is refined, the quality factor found from the half-maximum points,
    and ``Var(x)/eta`` is :func:`symdelay.analysis.stochastic.variance` of the same imbalance
    (an exact Lyapunov solve, not the integral of ``S``).

    Parameters
    ----------
    model : Model
        The model, every parameter a number, its equilibrium stable (refused otherwise: no
        stationary spectrum, the message names the verdict); a table or a model with lags
        (then ``S = c^T G B G^* c``, ``G = Delta^-1 N``: the inverse of its characteristic
        matrix, times the difference operator ``N`` of a neutral model, whose ``dot(x)`` is
        read as the drift of ``x``; :mod:`symdelay.analysis.dnoise`).
    omegas : array_like of float, optional
        The angular frequencies ``omega >= 0`` at which ``S`` is evaluated. Default: ``points``
        evenly spaced on ``0 .. 4 omega_scale``, ``omega_scale`` the largest imaginary part of
        the Jacobian's eigenvalues (a model with lags: ``a/2``, ``a`` the bound on its roots
        in the right half-plane, the sum of its linearisation's matrix norms; for a neutral
        model the norm of ``(I - P_d)^-1 P_0``, :mod:`symdelay.analysis.dnoise`).
    points : int, default 4001
        The number of grid points when ``omegas`` is not given.
    weights : sequence of numbers, optional
        ``c`` of the imbalance ``x = c . xi``, one number per state in the model's order.
        Default: the first imbalance of the symmetry (``q1 - q2``).
    force : bool, default False
        Run even when the estimated cost of the grid is over the shared budget.
    method : {"auto", "generic", "specialised"}, default "auto"
        %(method)s
        Here ``"auto"`` is the founding model's imbalance matrices (derived once per L; only
        for the default ``weights``), else the model's own table.

    Returns
    -------
    Spectrum
        ``omega`` and ``S`` (two-sided, angular: ``Var(x)/eta = (1/2 pi) int S d omega``),
        ``peak_frequency``, ``peak_value``, ``quality_factor`` (None without a peak),
        ``variance`` (``Var(x)/eta``) and the family's
        ``closed_form`` of ``S`` (the founding model at ``L <= 2``).

    Examples
    --------
    >>> from symdelay.models import build_model
    >>> s = spectrum(build_model("nserver", N=2, L=2, mu=1, lam=1, theta=8, D=1), points=51)
    >>> round(s.peak_frequency, 4), s.to_json()["variance_x_over_eta"]
    (2.7178, '9.11111111111111')
    """
    from symdelay.analysis.stability import require_stable
    from symdelay.analysis.stochastic import need_table, with_closed_form

    fast = specialisation(model, "spectrum", method)
    require_stable(model, "stationary spectrum")  # the one verdict at this point
    if fast is not None and weights is None:
        result = fast(model, omegas=omegas, points=points, force=force)
        if result is not None:
            return with_closed_form(model, "spectrum", result)
        declined(model, "spectrum", method)
    elif fast is not None:
        declined(model, "spectrum", method)  # the fast path knows only q1 - q2
    need_table(model, "spectrum")
    from symdelay.model.core import has_lags

    if has_lags(model):
        return _delay_spectrum(model, omegas, points, weights, force)
    result = _generic(model, omegas, points, weights, force)
    return with_closed_form(model, "spectrum", result, weights is None)


def _generic(model, omegas, points, weights, force) -> Spectrum:
    from symdelay.analysis.lna import imbalance_lna
    from symdelay.analysis.roots import require_values
    from symdelay.analysis.stochastic import variance

    require_values(model, "the spectrum")
    if weights is None:
        lin = imbalance_lna(model)
        if lin.x is None:
            raise SymdelayInputError(
                "this model declares no symmetry, so there is no imbalance to default to: give "
                "weights (one per state)"
            )
        A, B, c = lin.A, lin.B, lin.x
        how = "its imbalances" if lin.projected else "its states"
    else:
        A, B, c = model.jacobian, model.diffusion, list(weights)
        how = "its states"
    A = np.array(A.evalf(), dtype=float)
    B = np.array(B.evalf(), dtype=float)
    var = variance(model, dps=20, weights=weights, closed_form=False, force=force, method="generic")
    return spectrum_of(
        model,
        A,
        B,
        c,
        var,
        omegas=omegas,
        points=points,
        force=force,
        method=f"LNA of the model's Jacobian and diffusion matrix on {how}",
    )


#: Seconds per frequency of a delay model's spectrum per n^2 (an n x n solve in Arb balls,
#: twice), calibrated on this machine.
DELAY_SECONDS_PER_POINT = 6e-5
#: The grid of a delay model's peak search (each point two solves in Arb; the peak is then
#: refined by a bounded search and its half-maximum points by Brent's method).
PEAK_POINTS = 1601
#: The digits of the variance a delay model's spectrum reports (a float in the record).
DELAY_SPECTRUM_DPS = 6


def _delay_spectrum(model, omegas, points, weights, force) -> Spectrum:
    """A model with lags: ``S(w) = c^T G(i w) B G(i w)^* c`` with ``G = Delta^-1 N``
    (:mod:`symdelay.analysis.dnoise`), evaluated in Arb balls (the kernels' own
    transforms, removable singularities enclosed); ``Var`` from the variance entry (the
    certified integral of the same ``S``)."""
    from symdelay.analysis.dnoise import delay_noise
    from symdelay.analysis.roots import require_values
    from symdelay.analysis.stochastic import DOT_READING, _delay_variance, _variance_weights
    from symdelay.core.budget import check_budget

    require_values(model, "the spectrum")
    c = _variance_weights(model, weights)
    noise = delay_noise(model)
    a, _ = noise.tail_constants()
    # every root in Re r >= 0 has |r| <= a, and the peak of a stable model's spectrum lies
    # near its least damped roots: the grid covers [0, 2 a]
    scale = max(a / 2, 1e-6)
    if omegas is None:
        omegas = np.linspace(0.0, 4 * scale, points)
    omegas = np.asarray(omegas, float)
    n = noise.n
    check_grid_cost(n, omegas.size, force)
    check_budget(
        f"the delay spectrum on {omegas.size} + {PEAK_POINTS} frequencies ({n} states)",
        DELAY_SECONDS_PER_POINT * n * n * (omegas.size + PEAK_POINTS + 200),
        force=force,
        shrink="fewer --points",
    )
    S = np.array(noise.spectrum_values(c, omegas))
    wp, Sp, Q = peak_and_q(
        lambda v: noise.spectrum_values(c, [v])[0],
        lambda grid: noise.spectrum_values(c, grid),
        scale,
        points=PEAK_POINTS,
    )
    # the variance entry's own path for a model with lags (no closed form to attach), told
    # what to suggest when its integral is over the budget: this command has no --dps
    v = _delay_variance(
        model,
        DELAY_SPECTRUM_DPS,
        weights,
        force,
        shrink=(
            f"parameters further from the stability boundary (the spectrum's variance is "
            f"certified to {DELAY_SPECTRUM_DPS} digits; `variance --dps 5` asks fewer)"
        ),
    )
    var, imbalance = float(v), v.imbalance()
    method = (
        "linear-noise spectrum of the delay model: c^T G(i w) B G(i w)^* c, "
        + ("G = Delta(i w)^-1 N(i w)" if noise.neutral else "G = Delta(i w)^-1")
        + " in Arb balls"
        + (f"; {DOT_READING}" if noise.neutral else "")
    )
    return _record(model, omegas, S, (wp, Sp, Q), var, imbalance, method)


def _record(model, omegas, S, peak, var, imbalance, method) -> Spectrum:
    """The one :class:`Spectrum` of both paths: ``peak`` is ``(frequency, value, Q)``."""
    from symdelay.analysis.entry import family_options
    from symdelay.analysis.stochastic import variance_parameters

    options = family_options(model) or {}
    wp, Sp, Q = peak
    return Spectrum(
        L=options.get("L"),
        parameters=variance_parameters(model),
        omega=omegas,
        S=S,
        peak_frequency=wp,
        peak_value=Sp,
        quality_factor=Q,
        variance=var,
        imbalance=imbalance,
        method=method,
        model_name=model.name,
    )


def spectrum_of(model, A, B, c, var, *, omegas, points, force, method) -> Spectrum:
    """:class:`Spectrum` from float ``A``, ``B`` and the weights ``c`` in their coordinates
    and the variance record ``var`` (both paths end here)."""

    _require_finite(A, B)
    ev = np.linalg.eigvals(A)
    scale = max(float(np.max(np.abs(ev.imag))), float(np.max(np.abs(ev))) / 4, 1e-6)
    if omegas is None:
        omegas = np.linspace(0.0, 4 * scale, points)
    omegas = np.asarray(omegas, float)
    check_grid_cost(A.shape[0], omegas.size, force)
    S = lna_spectrum_matrix(A, B, c, omegas)
    peak = _peak_and_q(A, B, c, scale)
    return _record(model, omegas, S, peak, float(var), var.imbalance(), method)
