"""Limit cycles of the fluid model of any model: records, vector fields, Newton--shooting
with Floquet multipliers, continuation in theta, and the entry :func:`limit_cycle`.

For ``y' = f(y)`` (a :class:`VectorField`) a periodic orbit through ``y0`` with period ``T``
solves

    phi(T/2; y0) - S y0 = 0,     x(y0) = 0,                          (S-symmetric orbit)

(``phi`` the flow; ``S`` the symmetry involution, ``-I`` for the founding model's difference
system, the queue swap for a full fluid model; without a symmetry the full period with
``S = I``), the second equation a Poincare section on the observed imbalance. Newton's
method solves it with the exact Jacobian ``[Phi - S, f(phi)/2; e_x^T, 0]``: ``Phi = d phi /
d y0`` comes from the variational equations ``Phi' = J(y) Phi`` integrated with the orbit
(SciPy ``DOP853``, ``rtol = 1e-11``). The monodromy matrix of the converged orbit is
``(S Phi)^2`` (equivariance); its eigenvalues are the Floquet multipliers. The trivial one
is the multiplier whose eigenvector is the flow direction ``f(y0)`` (its distance from 1 is
reported as an accuracy check); each multiplier carries an error bound (its change when the
monodromy is integrated again at a 100 times looser tolerance, plus the trivial
multiplier's distance from 1), and the cycle is stable when every other multiplier is
inside the unit circle by more than its error, unstable when one is outside by more than
its error, and undecided (``stable`` None, with the reason) otherwise
(:func:`decide_stability`).

:func:`limit_cycle` asks the model's family first (the founding model's exact difference
system, its harmonic-balance start and the delay-differential collocation for L = inf);
the generic path integrates the model's full drift (:func:`model_field`), starts at the
normal-form prediction (:func:`symdelay.analysis.normal_form.normal_form`) just above
``theta_c`` and continues in ``theta`` with a secant predictor in ``sqrt(theta - theta_c)``
(the natural parameter of a Hopf branch), halving the step when Newton fails. Where a D_3
symmetry (three symmetric servers) makes the imaginary pair double, the start is the orbit
the equivariant normal form predicts on its stable branch (:func:`choose_pattern`, the
rotating wave where it is stable), and each cycle's ``pattern`` is the isotropy measured on
the computed orbit (:func:`orbit_pattern`).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np
from scipy.integrate import solve_ivp

from symdelay.analysis.entry import entry_doc, specialised
from symdelay.analysis.floquet import ERROR_FACTOR, decide_stability, stability_word
from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.core.params import INFINITE_L, as_positive_number
from symdelay.core.result import Result

__all__ = [
    "LimitCycle",
    "CycleFamily",
    "ShootingError",
    "VectorField",
    "limit_cycle",
    "model_field",
    "parse_theta_list",
    "shoot",
    "continue_cycles",
    "run_cycles",
    "RTOL",
    "START_FRACTION",
    "check_start_fraction",
    "ERROR_RTOL",
    "ERROR_FACTOR",
    "decide_stability",
    "stability_word",
]


class ShootingError(SymdelayInputError):
    """Newton--shooting did not converge (the message says what was tried)."""


@dataclass(frozen=True, eq=False)
class LimitCycle(Result):
    """One periodic orbit: amplitude of ``x`` (half its peak-to-peak), period, Floquet
    multipliers (sorted by modulus, the trivial one included, at ``trivial_index``), each
    with its error bound (``multiplier_errors``), stability (``True``, ``False`` or ``None``:
    undecided, ``stability_reason`` says why; :func:`decide_stability`), the orbit
    sampled over one period (``t``, ``y``: rows are states) and, at a D_3-symmetric Hopf
    point, its ``pattern`` (:func:`orbit_pattern`; None elsewhere)."""

    theta: float
    amplitude_x: float
    period: float
    multipliers: np.ndarray
    stable: bool | None
    method: str
    y0: np.ndarray
    t: np.ndarray
    y: np.ndarray
    newton_steps: int
    residual: float
    trivial_error: float
    system: str = ""
    theta_text: str | None = None
    model_name: str | None = None
    trivial_index: int | None = None
    multiplier_errors: np.ndarray | None = None
    stability_reason: str = ""
    pattern: dict | None = None
    #: a collocation orbit's estimated largest error between its nodes (a delay model's
    #: cycles; None for an orbit from shooting)
    mesh_error: float | None = None

    @property
    def x(self) -> np.ndarray:
        return self.y[0] if self.y.ndim == 2 else self.y

    @property
    def nontrivial(self) -> np.ndarray:
        """The Floquet multipliers without the trivial one (the flow direction's)."""
        return _nontrivial(self.multipliers, self.trivial_index)

    def stability_text(self) -> str:
        """``yes``, ``no`` or ``undecided``."""
        return stability_word(self.stable)

    def record(self) -> dict:
        errs = self.multiplier_errors
        k = _trivial_index(self.multipliers, self.trivial_index)
        return {
            "theta": self.theta_text if self.theta_text is not None else repr(self.theta),
            "amplitude_x": _fmt(self.amplitude_x),
            "period": _fmt(self.period),
            "floquet_multipliers": [
                {
                    "re": _fmt(m.real),
                    "im": _fmt(m.imag),
                    "abs": _fmt(abs(m)),
                    "error": None if errs is None else _fmt(errs[i]),
                    "trivial": i == k,
                }
                for i, m in enumerate(self.multipliers)
            ],
            "stable": None if self.stable is None else bool(self.stable),
            "stability_reason": self.stability_reason,
            "method": self.method,
            "system": self.system,
            "trivial_multiplier_error": _fmt(self.trivial_error),
            "newton_residual": _fmt(self.residual),
            "pattern": self.pattern,
        } | ({} if self.mesh_error is None else {"mesh_error": _fmt(self.mesh_error)})

    def latex(self) -> str:
        mu = max((abs(m) for m in self.nontrivial), default=0.0)
        word = {True: "stable", False: "unstable", None: "stability undecided"}[self.stable]
        return (
            rf"\theta = {self.theta:g}:\ A_x = {self.amplitude_x:.10g},\ T = {self.period:.10g},"
            rf"\ \max|\rho| = {mu:.4g}\ (\text{{{word}}})"
        )


@dataclass(frozen=True, eq=False)
class CycleFamily(Result):
    """A continuation in theta: the cycles at the requested values (``points``) and every
    cycle the path computed (``path``); ``L`` the founding model's (None for another)."""

    L: object
    theta_c: float
    points: list
    path: list = field(default_factory=list)
    normal_form: object = None
    model_name: str | None = None

    def arrays(self):
        """``(theta, amplitude_x, period, max |non-trivial multiplier|)`` over the path."""
        cs = self.path or self.points
        th = np.array([c.theta for c in cs])
        return (
            th,
            np.array([c.amplitude_x for c in cs]),
            np.array([c.period for c in cs]),
            np.array([max((abs(m) for m in c.nontrivial), default=0.0) for c in cs]),
        )

    def record(self) -> dict:
        return {
            "L": "inf" if self.L is INFINITE_L else self.L,
            "theta_c": _fmt(self.theta_c),
            "points": [c.record() for c in self.points],
            # where the continuation started: the first orbit it computed (the DDE's path,
            # L = inf, lists the orbits at the values asked only: not stated)
            "path_start": (
                _fmt(self.path[0].theta) if self.path and self.L is not INFINITE_L else None
            ),
        }

    def latex(self) -> str:
        rows = r"\\ ".join(
            rf"{c.theta:g} & {c.amplitude_x:.8g} & {c.period:.8g}" for c in self.points
        )
        return r"\begin{array}{rrr}\theta & A_x & T\\ \hline " + rows + r"\end{array}"


def _fmt(v) -> str:
    return repr(float(v))


def _trivial_index(mults, k=None) -> int | None:
    mults = np.asarray(mults)
    if mults.size == 0:
        return None
    return int(np.argmin(np.abs(mults - 1))) if k is None else int(k)


def _nontrivial(mults, k=None):
    mults = np.asarray(mults)
    if mults.size == 0:
        return mults
    return np.delete(mults, _trivial_index(mults, k))


def _floquet(field, y0, Phi, Phi_loose):
    """Floquet multipliers of the orbit through ``y0`` (period ``T``) from ``Phi`` (the
    shooting interval's fundamental matrix at ``RTOL``) and ``Phi_loose`` (the same at
    :data:`ERROR_RTOL`): ``(multipliers sorted by modulus, index of the trivial one, error
    bounds)``.

    The trivial multiplier is the one whose eigenvector is the flow direction ``f(y0)``
    (largest ``|cos|`` of the angle), not the one nearest 1. Each multiplier's error is
    :data:`ERROR_FACTOR` times its change between the two tolerances (matched by nearest
    value), plus the trivial multiplier's distance from its exact value 1 (the effect of
    the Newton residual and of rounding on a multiplier whose value is known), plus the
    rounding of the eigenvalue solve (``64 eps ||M||``)."""
    n = field.n
    S = field.S if field.S is not None else np.eye(n)

    def eig(P):
        A = S @ P
        ev, V = np.linalg.eig(A)
        return (ev**2 if field.S is not None else ev), V, A

    m, V, A = eig(Phi)
    m2, _, _ = eig(Phi_loose)
    order = np.argsort(-np.abs(m))
    m, V = m[order], V[:, order]
    fl = field.f(y0)
    fl = fl / np.linalg.norm(fl)
    cos = np.abs(fl @ V.conj()) / np.linalg.norm(V, axis=0)
    k = int(np.argmax(cos))
    triv = float(abs(m[k] - 1))
    M = A @ A if field.S is not None else A
    floor = 64 * np.finfo(float).eps * max(1.0, float(np.linalg.norm(M, 2)))
    used = np.zeros(m2.size, dtype=bool)
    err = np.empty(m.size)
    for i in np.argsort(np.abs(m - 1)):  # match the ones nearest the circle first
        d = np.abs(m2 - m[i])
        d[used] = np.inf
        j = int(np.argmin(d))
        used[j] = True
        err[i] = ERROR_FACTOR * float(d[j]) + triv + floor
    return m, k, err


def parse_theta_list(theta) -> list[tuple[float, str]]:
    """``theta``: a number, a list, or text read by the one parser of list-valued options
    (:func:`symdelay.core.options.values_text`: ``"a,b,c"``, a range ``"lo:hi:n"`` of n
    exact points, ends included, or ``"geom:lo:hi:n"``); returns ``(value, text)`` pairs,
    the text exact (``40/9``: a range and the list of its points give the same)."""
    from symdelay.core.options import values_text

    if isinstance(theta, str):
        items = values_text("theta", theta)
    elif isinstance(theta, (list, tuple, np.ndarray)):
        items = list(theta)
    else:
        items = [theta]
    if not items or any(isinstance(s, str) and not s for s in items):
        raise SymdelayInputError(f"--theta must list numbers, e.g. 10 or 10,12,15, got {theta!r}")
    out = []
    for s in items:
        try:
            v = float(as_positive_number("theta", s))
        except SymdelayInputError:
            raise SymdelayInputError(
                f"theta must be positive numbers (a list a,b,c or a range lo:hi:n), got {s!r}"
            ) from None
        out.append((v, str(s).strip() if isinstance(s, str) else repr(v)))
    return out


@dataclass(frozen=True)
class VectorField:
    """``f(y)``, ``jac(y)`` (float64), observed weights, symmetry ``S`` (or None), names."""

    name: str
    n: int
    f: Callable
    jac: Callable
    weights: np.ndarray
    S: np.ndarray | None
    names: tuple
    equilibrium: np.ndarray

    def observe(self, y) -> np.ndarray:
        return self.weights @ np.asarray(y)


#: Relative tolerance of the orbit integrations (absolute: RTOL * 1e-3).
RTOL = 1e-11
#: The looser tolerance of the second integration of the monodromy that bounds the
#: multipliers' error (:data:`ERROR_FACTOR`).
ERROR_RTOL = 100 * RTOL
#: Newton stops when the correction is below this (relative to the orbit's size).
NEWTON_TOL = 1e-10
#: ... or when the shooting residual is below this times the orbit's size (relative to
#: it: the integrations' own tolerance is RTOL = 1e-11).
RESIDUAL_TOL = 1e-12
#: theta above this multiple of theta_c is refused: the logit routing is then a relay
#: (sign function) and the double-precision integrations overflow.
MAX_THETA_OVER_CRITICAL = 1e6
MAX_NEWTON = 25
#: Where the continuation of :func:`limit_cycle` starts by default: ``theta_c (1 +
#: START_FRACTION)``, with the normal form's amplitude there.
START_FRACTION = 1e-3


def check_start_fraction(name: str, value) -> float:
    """``start_fraction`` of :func:`limit_cycle` (the command's ``--start-fraction``) as a
    double, finite and > 0, else one line naming ``name``: the one rule of both."""
    try:
        x = float(value)
    except (TypeError, ValueError, OverflowError):
        raise SymdelayInputError(f"{name} must be a number > 0, got {value!r}") from None
    if isinstance(value, bool) or not (math.isfinite(x) and x > 0):
        raise SymdelayInputError(
            f"{name} must be a finite number > 0 (the continuation starts at theta_c (1 + "
            f"{name})), got {value!r}"
        )
    return x


def _flow(field: VectorField, y0, T, with_phi: bool, dense: bool = False, rtol: float = RTOL):
    n = field.n
    if with_phi:

        def rhs(t, Y):
            y = Y[:n]
            Phi = Y[n:].reshape(n, n)
            return np.concatenate([field.f(y), (field.jac(y) @ Phi).ravel()])

        Y0 = np.concatenate([y0, np.eye(n).ravel()])
    else:

        def rhs(t, Y):
            return field.f(Y)

        Y0 = np.asarray(y0, dtype=float)
    scale = max(1e-3, float(np.max(np.abs(y0))))
    sol = solve_ivp(
        rhs, (0.0, T), Y0, method="DOP853", rtol=rtol, atol=rtol * 1e-3 * scale, dense_output=dense
    )
    if not sol.success:
        raise ShootingError(f"the orbit integration failed ({sol.message})")
    return sol


def shoot(field: VectorField, y0, T, *, max_steps: int = MAX_NEWTON):
    """Newton--shooting from ``(y0, T)``; returns ``(y0, T, Phi, steps, residual, sol)``
    where ``Phi`` is ``d phi(T/2)/d y0`` (symmetric) or the monodromy (no symmetry) and
    ``sol`` the dense integration over the shooting interval."""
    n = field.n
    S = field.S if field.S is not None else np.eye(n)
    frac = 0.5 if field.S is not None else 1.0
    y0 = np.asarray(y0, dtype=float).copy()
    T = float(T)
    size = float(np.max(np.abs(y0 - field.equilibrium)))
    if not size > 0:
        raise ShootingError("the starting orbit is the equilibrium")
    res = np.inf
    for step in range(1, max_steps + 1):
        sol = _flow(field, y0, frac * T, True)
        yT, Phi = sol.y[:n, -1], sol.y[n:, -1].reshape(n, n)
        G = np.concatenate([yT - S @ y0, [field.weights @ (y0 - field.equilibrium)]])
        res = float(np.max(np.abs(G)))
        if step > 1 and res <= RESIDUAL_TOL * size:
            # converged in the residual: near theta_c the shooting Jacobian is nearly
            # singular and the Newton step is rounding noise, not a distance to the orbit
            sol = _flow(field, y0, frac * T, True, dense=True)
            return y0, T, sol.y[n:, -1].reshape(n, n), step, res, sol
        Jm = np.zeros((n + 1, n + 1))
        Jm[:n, :n] = Phi - S
        Jm[:n, n] = frac * field.f(yT)
        Jm[n, :n] = field.weights
        try:
            d = np.linalg.solve(Jm, -G)
        except np.linalg.LinAlgError:
            raise ShootingError("singular shooting Jacobian (the orbit collapsed)") from None
        y0 = y0 + d[:n]
        T = T + d[n]
        size = float(np.max(np.abs(y0 - field.equilibrium)))
        if not (np.all(np.isfinite(y0)) and np.isfinite(T) and T > 0):
            raise ShootingError("Newton left the admissible range (period <= 0)")
        if size < 1e-9:
            raise ShootingError("Newton converged to the equilibrium, not to a cycle")
        if np.max(np.abs(d[:n])) <= NEWTON_TOL * max(size, 1e-3) and abs(d[n]) <= NEWTON_TOL * T:
            sol = _flow(field, y0, frac * T, True, dense=True)
            Phi = sol.y[n:, -1].reshape(n, n)
            return y0, T, Phi, step, res, sol
    raise ShootingError(f"Newton did not converge in {max_steps} steps (last residual {res:.2e})")


def _finish(field, y0, T, Phi, steps, res, sol, theta, method, text=None) -> LimitCycle:
    n = field.n
    S = field.S if field.S is not None else np.eye(n)
    frac = 0.5 if field.S is not None else 1.0
    loose = _flow(field, y0, frac * T, True, rtol=ERROR_RTOL)
    Phi_loose = loose.y[n:, -1].reshape(n, n)
    mults, k, errs = _floquet(field, y0, Phi, Phi_loose)
    triv = float(abs(mults[k] - 1))
    stable, why = decide_stability(mults, errs, k)
    # the orbit over one period, and the extremes of x refined on the dense output
    frac = 0.5 if field.S is not None else 1.0
    tt = np.linspace(0.0, frac * T, 801)
    half = sol.sol(tt)[:n]
    if field.S is not None:
        t = np.concatenate([tt, tt[1:] + frac * T])
        y = np.concatenate([half, (S @ half)[:, 1:]], axis=1)
    else:
        t, y = tt, half
    xs = field.weights @ sol.sol(tt)[:n]
    hi = _refine_extreme(sol, field, tt, xs, +1)
    lo = _refine_extreme(sol, field, tt, xs, -1)
    # symmetric orbit: x(t + T/2) = -x(t), the extremes are +-amp
    amp = max(hi, -lo) if field.S is not None else (hi - lo) / 2
    return LimitCycle(
        float(theta),
        float(amp),
        float(T),
        mults,
        stable,
        method,
        y0,
        t,
        y,
        steps,
        res,
        triv,
        field.name,
        text,
        trivial_index=k,
        multiplier_errors=errs,
        stability_reason=why,
    )


def _refine_extreme(sol, field, tt, xs, sign):
    from scipy.optimize import minimize_scalar

    n = field.n
    i = int(np.argmax(sign * xs))
    a, b = tt[max(i - 1, 0)], tt[min(i + 1, len(tt) - 1)]
    if b <= a:
        return float(xs[i])
    r = minimize_scalar(
        lambda s: -sign * float(field.weights @ sol.sol(s)[:n]),
        bounds=(a, b),
        method="bounded",
        options={"xatol": 1e-13},
    )
    return max(sign * float(xs[i]), -float(r.fun)) * sign


def continue_cycles(
    make_field, nf_start, theta_c, targets, method, *, max_halvings=12, direct=None
):
    """March from ``theta_c`` through the sorted ``targets`` (secant predictor in
    ``sqrt(theta - theta_c)``); returns (cycles at targets, every cycle computed).

    ``direct``: ``(theta, y0, T)``, a guess at the first target (harmonic balance); tried
    first, and the march from ``nf_start`` is the fallback when Newton fails from it."""
    s_of = lambda th: np.sqrt(th - theta_c)  # noqa: E731
    path = []
    hist = []  # (s, y0, T)
    first = None
    if direct is not None:
        try:
            fld = make_field(direct[0])
            first = (direct[0], *shoot(fld, direct[1], direct[2], max_steps=12))
        except ShootingError:
            first = None
    if first is None:
        start_th, start_y0, start_T = nf_start
        fld = make_field(start_th)
        first = (start_th, *shoot(fld, start_y0, start_T))
    start_th, y0, T, Phi, k, res, sol = first
    path.append(_finish(fld, y0, T, Phi, k, res, sol, start_th, method))
    hist.append((s_of(start_th), y0, T))
    out = {}
    order = sorted(range(len(targets)), key=lambda i: targets[i][0])
    cur = start_th
    max_ds = None
    for i in order:
        th_target, text = targets[i]
        if th_target <= cur and (th_target == cur or abs(th_target - cur) < 1e-14 * cur):
            path[-1] = replace(path[-1], theta_text=text)
            out[i] = path[-1]
            continue
        if max_ds is None:
            max_ds = max(hist[0][0], 0.05 * np.sqrt(theta_c))
        tried = []
        while hist[-1][0] < s_of(th_target) - 1e-15:
            s_next = min(hist[-1][0] + max_ds, s_of(th_target))
            th_next = theta_c + s_next**2
            if abs(s_next - s_of(th_target)) < 1e-15:
                th_next = th_target
            ok = False
            for _ in range(max_halvings):
                y_pred, T_pred = _predict(hist, s_next)
                try:
                    fld = make_field(th_next)
                    y0, T, Phi, k, res, sol = shoot(fld, y_pred, T_pred)
                    ok = True
                    break
                except ShootingError as exc:
                    tried.append(f"theta={th_next:.6g}: {exc}")
                    s_next = hist[-1][0] + (s_next - hist[-1][0]) / 2
                    th_next = theta_c + s_next**2
            if not ok:
                raise ShootingError(
                    f"continuation stopped at theta = {theta_c + hist[-1][0] ** 2:.6g} "
                    f"(target {th_target:g}): {len(tried)} Newton attempts with halved steps "
                    f"failed, last: {tried[-1]}"
                )
            cyc = _finish(fld, y0, T, Phi, k, res, sol, th_next, method)
            path.append(cyc)
            hist.append((s_next, y0, T))
            if k <= 3:
                max_ds = min(max_ds * 1.5, 0.5 * np.sqrt(th_target))
            elif k >= 7:
                max_ds = max_ds / 2
        last = path[-1] = replace(path[-1], theta_text=text)
        out[i] = last
        cur = last.theta
    return [out[i] for i in range(len(targets))], path


def _predict(hist, s):
    if len(hist) == 1:
        s0, y0, T0 = hist[0]
        return y0 * (s / s0 if s0 > 0 else 1.0), T0
    (s1, y1, T1), (s2, y2, T2) = hist[-2], hist[-1]
    a = (s - s2) / (s2 - s1)
    return y2 + a * (y2 - y1), T2 + a * (T2 - T1)


def _single(theta) -> bool:
    return not isinstance(theta, (list, tuple, np.ndarray)) and not (
        isinstance(theta, str) and ("," in theta or ":" in theta)
    )


@entry_doc
def limit_cycle(
    model,
    theta,
    *,
    system: str | None = None,
    start_fraction: float | None = None,
    max_modes: int | None = None,
    method: str = "auto",
) -> LimitCycle | CycleFamily:
    """The limit cycle of ``model`` at ``theta``, or the family of cycles continued from
    ``theta_c`` to each value of ``theta``.

    Newton shooting from the normal form's prediction just above ``theta_c``, continued in
    ``theta``; each cycle with its Floquet multipliers. At a double imaginary pair of three
    symmetric servers (D_3) the prediction is the stable branch's of the equivariant normal
    form (the rotating wave), and ``pattern`` names the symmetry found on each orbit. The family's specialisation first (the
    founding model: its exact difference system, ``L = inf`` by Fourier collocation of the
    delay equation), else the model's full drift.

    Parameters
    ----------
    model : Model
        The model with ``theta`` free and a number for every other parameter. A model with
        lags: its branch of cycles by collocation of the delay equations from the lowest
        Hopf point in ``theta`` (:func:`symdelay.analysis.continuation.cycles`, 40
        intervals), the first orbit met at each value asked (on a subcritical branch, the
        unstable inner cycle before the fold); ``mesh_error`` is the orbit's estimated
        error.
    theta : number, str or sequence
        One value above ``theta_c`` (a :class:`LimitCycle`), a list of values or the text of
        a range ``"start:stop:count"`` (count values, ends included): a :class:`CycleFamily`.
    system : {"difference", "full"}, optional
        The founding model only: its exact ``L + 1``-dimensional difference system (the
        default) or the ``2(L+1)``-dimensional fluid model. The generic path always integrates
        the full drift and refuses this option.
    start_fraction : float, optional
        Where the continuation starts: ``theta_c (1 + start_fraction)`` (or the smallest
        ``theta`` asked, if nearer), with the normal form's amplitude there; finite and
        ``> 0``, default :data:`START_FRACTION` (1e-3); a family's record states it
        (``path_start``). The founding model at finite ``L`` first tries Newton straight at
        the smallest ``theta`` from the harmonic-balance amplitude and marches from the
        normal form only if that fails: given, ``start_fraction`` asks for the march.
        Refused at ``L = inf`` (the collocation starts from the harmonic balance) and for a
        model with lags (its branch starts at the Hopf point).
    max_modes : int, optional
        The founding model at ``L = inf`` only (refused elsewhere): the largest number of
        Fourier modes of the collocation, from
        :data:`~symdelay.models.erlang.nonlinear.dde_cycles.N_START` (63) to the default
        :data:`~symdelay.models.erlang.nonlinear.dde_cycles.N_MAX` (2047); a cycle that
        needs more is refused in one line.
    method : {"auto", "generic", "specialised"}, default "auto"
        %(method)s

    Returns
    -------
    LimitCycle or CycleFamily
        One cycle (amplitude of ``x``, period, Floquet multipliers with error bounds,
        ``stable``: True, False or None when a multiplier is within its error of the unit
        circle, the orbit over one period), or the cycles at the values asked (``points``) and along the
        continuation (``path``) with the normal form.
    """
    if start_fraction is not None:
        start_fraction = check_start_fraction("start_fraction", start_fraction)
    kw = {"system": system, "start_fraction": start_fraction, "max_modes": max_modes}
    result = specialised(model, "limit_cycle", method, theta, **kw)
    if result is not None:
        return result
    if system is not None:
        raise SymdelayInputError(
            "--system is for the founding model: a model of the model layer is always "
            "integrated in full"
        )
    if max_modes is not None:
        raise SymdelayInputError(
            "--max-modes is for the founding model at L = inf (the Fourier collocation of its "
            f"delay equation): {model.name}'s cycles are not computed that way; leave it out"
        )
    if getattr(model, "lags", None):
        if start_fraction is not None:
            raise SymdelayInputError(
                "--start-fraction is for the cycles started from the normal form: a delay "
                "model's branch of cycles starts at the Hopf point by collocation; leave it out"
            )
        return _delay_limit_cycle(model, theta)
    from symdelay.analysis.normal_form import normal_form

    targets = parse_theta_list(theta)
    nf = normal_form(model)

    def make(th):
        return model_field(model, th)

    method_text = "Newton-shooting (full drift of the model, DOP853 variational equations)"
    if nf.equivariant is not None:
        pat = nf.equivariant.patterns[choose_pattern(nf)]
        method_text += (
            f", started on the {pat['pattern']} ({pat['isotropy']}) of the D_3-equivariant "
            "normal form"
        )
    res = run_cycles(
        nf,
        make,
        targets,
        _single(theta),
        method_text,
        None,
        start_fraction,
        model.name,
        at=lambda text: model.with_values(theta=text),
    )
    if nf.equivariant is None:
        return res
    if isinstance(res, LimitCycle):
        return replace(res, pattern=orbit_pattern(res, nf, model))
    pts = [replace(c, pattern=orbit_pattern(c, nf, model)) for c in res.points]
    return replace(res, points=pts)


#: Mesh intervals of a delay model's cycles in :func:`limit_cycle` (degree 4: an estimated
#: error of the orbit near 1e-8 for the examples; the record carries its estimate).
DELAY_INTERVALS = 40


def _delay_limit_cycle(model, theta):
    """``limit_cycle`` of a delay model: the branch of cycles continued by collocation from
    the lowest Hopf point in ``theta`` (:func:`symdelay.analysis.continuation.cycles`),
    landed at each value asked."""
    from symdelay.analysis.continuation import cycles

    targets = parse_theta_list(theta)
    hi_text = max(targets)[1]
    branch = cycles(
        model,
        "theta",
        "1/1000000",
        hi_text,
        intervals=DELAY_INTERVALS,
        max_points=1000,
        _targets=[v for v, _ in targets],
    )
    th_c = float(branch.start["value"])
    side = branch.start["side"]
    for v, text in targets:
        if v not in branch.landed:
            if (side == "above" and not v > th_c) or (side == "below" and not v < th_c):
                raise not_above_critical(text, th_c, model.with_values(theta=text))
            raise SymdelayInputError(
                f"the branch of cycles from the Hopf point theta_c = {th_c:.12g} does not "
                f"reach theta = {text} (it stopped: {branch.stop}, {branch.stop_reason})"
            )
    method = (
        "orthogonal collocation of the delay equations on Gauss points (degree "
        f"{branch.degree}, {branch.intervals} mesh intervals, adapted), continued from the "
        f"Hopf point theta_c = {th_c:.12g}; Floquet multipliers of the discretised "
        "monodromy operator (error: the mesh against every other mesh point)"
    )
    from symdelay.analysis.bvp import NEWTON_TOL

    n = len(model.states)
    # Newton stopped with the collocation residual below this (relative to the orbit's size)
    residual = 1e3 * NEWTON_TOL

    def record(c, text):
        return LimitCycle(
            c.value if text is None else float(c.value),
            c.amplitude,
            c.period,
            c.multipliers,
            c.stable,
            method,
            c.y[:n, 0],
            c.t,
            c.y[:n],
            0,
            residual,
            float(abs(c.multipliers[c.trivial_index] - 1)),
            "delay",
            text,
            model.name,
            c.trivial_index,
            c.multiplier_errors,
            c.stability_reason,
            mesh_error=c.mesh_error,
        )

    pts = [record(branch.landed[v], text) for v, text in targets]
    if _single(theta):
        return pts[0]
    path = [record(c, None) for c in branch.points]
    return CycleFamily(None, th_c, pts, path, None, model.name)


def not_above_critical(text: str, th_c: float, point) -> SymdelayInputError:
    """The refusal of a ``theta`` not above ``theta_c`` (a cycle is continued from above it),
    naming the one verdict there (:func:`symdelay.analysis.stability.stability` of the model
    ``point`` at that theta: stable, marginal with its roots on the axis, or unstable but too
    close to ``theta_c`` for the continuation)."""
    from symdelay.analysis.stability import stability

    res = stability(point)
    if res.verdict == "unstable":
        return SymdelayInputError(
            f"theta = {text} is within 1e-12 of theta_c = {th_c:.12g}: the equilibrium is "
            "unstable there (decided exactly) but the cycle is too small to continue; give "
            "theta further above theta_c"
        )
    return SymdelayInputError(
        f"theta = {text} is not above theta_c = {th_c:.12g}: the equilibrium is "
        f"{res.verdict_text()} there, and a cycle is continued from above theta_c"
    )


def run_cycles(
    nf, make, targets, single, method, Lkey, start_fraction, model_name, direct=None, at=None
):
    """From the normal form ``nf`` and the field builder ``make``: the cycles at
    ``targets`` (checked against ``theta_c``); ``direct(nf, make, th_c, theta)`` an optional
    first guess at the smallest target; ``at(theta_text)``: the model at that theta (the
    verdict a refusal names)."""
    th_c = float(nf.theta_c)
    for v, text in targets:
        if not v > th_c * (1 + 1e-12):
            raise not_above_critical(text, th_c, at(text))
        if not v < th_c * MAX_THETA_OVER_CRITICAL:
            raise SymdelayInputError(
                f"theta = {text} is more than {MAX_THETA_OVER_CRITICAL:g} theta_c (theta_c = "
                f"{th_c:.6g}): routing is then a relay (sign function) and the double-precision "
                f"orbit integration overflows; give theta below {th_c * MAX_THETA_OVER_CRITICAL:.3g}"
            )
    th_min = min(v for v, _ in targets)
    frac = START_FRACTION if start_fraction is None else start_fraction
    start = _normal_form_start(nf, make, th_c, th_min, frac)
    guess = None if direct is None else direct(nf, make, th_c, th_min)
    pts, path = continue_cycles(make, start, th_c, targets, method, direct=guess)
    if single:
        return replace(pts[0], model_name=model_name)
    return CycleFamily(Lkey, th_c, pts, path, nf, model_name)


def _normal_form_start(nf, make, th_c, th_min, frac):
    """``(theta, y0, T)`` just above ``theta_c`` from the normal form: the eigenvector
    ``q`` scaled to the predicted amplitude, phase with ``x = 0`` and ``x`` increasing. At a
    multiple pair with the D_3 normal form: the chosen branch's orbit
    (:func:`_equivariant_start`)."""
    th = th_c + min(frac * th_c, (th_min - th_c))
    fld = make(th)
    if getattr(nf, "equivariant", None) is not None:
        return _equivariant_start(nf, fld, th, th_c)
    J = fld.jac(fld.equilibrium)
    ev, V = np.linalg.eig(J)
    k = int(np.argmin(np.abs(ev - 1j * float(nf.omega))))
    q = V[:, k]
    qx = fld.weights @ q
    q = q / qx
    amp = float(nf.amplitude_coefficient) * np.sqrt(th - th_c)
    y0 = fld.equilibrium + amp * np.imag(q)
    return th, y0, 2 * np.pi / float(nf.omega)


# ------------------------------------------------------- symmetric Hopf points (D_3)
#: A spatio-temporal symmetry ``P y(t) = y(t + s T)`` holds on a computed orbit when it
#: holds to this, relative to the orbit's largest excursion (the integrations' tolerance is
#: RTOL = 1e-11; the shift is applied by Fourier interpolation of 800 samples).
SYMMETRY_TOL = 1e-6


def choose_pattern(nf) -> int:
    """The index of the branch of ``nf.equivariant.patterns`` the cycle is continued on: a
    stable branch whose cycles live above ``theta_c`` (the rotating wave at three symmetric
    servers), else the first branch above ``theta_c``; refused in one line when none is."""
    pats = nf.equivariant.patterns
    above = [i for i, p in enumerate(pats) if p["side"] == "above"]
    stable = [i for i in above if pats[i]["stable"] is True]
    if stable:
        return stable[0]
    if above:
        return above[0]
    names = "; ".join(f"{p['pattern']} {p['isotropy']}: {p['side']}" for p in pats)
    raise SymdelayInputError(
        f"no branch of cycles bifurcates above theta_c = {float(nf.theta_c):.12g} ({names}): "
        "a cycle is continued from above theta_c"
    )


def _pattern_vector(eq, index: int) -> np.ndarray:
    """The centre vector of branch ``index`` (the order of
    :func:`symdelay.analysis.equivariant._patterns`): ``q1`` (rotating wave), ``q1 + q2``
    (standing wave, ``kappa``), ``q1 - q2`` (standing wave, ``kappa`` with half the
    period)."""
    q1 = np.array([complex(v) for v in eq.q1])
    q2 = np.array([complex(v) for v in eq.q2])
    return (q1, q1 + q2, q1 - q2)[index]


def _equivariant_start(nf, fld, th, th_c):
    """``(theta, y0, T)``: the predicted orbit of the chosen branch (:func:`choose_pattern`),
    ``y = y* + 2 rho Re(v e^{i omega t})`` at ``t = 0`` with ``rho^2 = -Re r' (theta -
    theta_c) / Re coef`` (``coef`` = ``A`` on the rotating wave, ``A + B`` on the standing
    waves; :mod:`symdelay.analysis.equivariant`)."""
    eq = nf.equivariant
    i = choose_pattern(nf)
    coef = eq.A if i == 0 else eq.A + eq.B
    rho = np.sqrt(abs(float((eq.r_prime.real * (th - th_c)) / coef.real)))
    y0 = fld.equilibrium + 2 * rho * np.real(_pattern_vector(eq, i))
    return th, y0, 2 * np.pi / float(nf.omega)


def _shifted(y: np.ndarray, frac: float) -> np.ndarray:
    """``y(t + frac T)`` on the same uniform samples of one period (rows = states; the last
    sample, equal to the first, left out) by Fourier interpolation."""
    n = y.shape[1]
    k = np.fft.fftfreq(n, 1.0 / n)
    return np.real(np.fft.ifft(np.fft.fft(y, axis=1) * np.exp(2j * np.pi * k * frac), axis=1))


def orbit_pattern(cycle: LimitCycle, nf, model) -> dict:
    """The pattern of a computed orbit at a D_3-symmetric Hopf point, measured on the orbit:
    which of the three isotropy subgroups holds (``sigma`` with a third of the period: the
    rotating wave; ``kappa``: a standing wave; ``kappa`` with half the period: the other
    standing wave), each symmetry's residual ``max_t |P y(t) - y(t + s T)|`` relative to the
    orbit's largest excursion, the phase lags of the servers behind the first (periods, from
    the first Fourier coefficient of each server's state) and their amplitudes (half
    peak-to-peak of the orbit's 800 samples), beside the normal form's prediction for the branch it was started on."""
    eq = nf.equivariant
    names = [s.name for s in model.states]
    idx = {nm: i for i, nm in enumerate(names)}
    sigma = list(model.permutation)
    kappa = [idx[eq.reflection.get(nm, nm)] for nm in names]
    y = np.asarray(cycle.y)[:, :-1]  # uniform samples of one period, the end left out
    dev = y - y.mean(axis=1, keepdims=True)
    scale = float(np.max(np.abs(dev))) or 1.0

    def residual(perm, frac):
        Py = np.empty_like(y)
        Py[perm] = y  # (P y)[perm[i]] = y[i]
        return float(np.max(np.abs(Py - _shifted(y, frac)))) / scale

    rot = {f: residual(sigma, f) for f in (1 / 3, 2 / 3)}
    shift = min(rot, key=rot.get)
    checks = [
        ("rotating wave", "Z3~ (the 3-cycle with a third of the period)", rot[shift]),
        ("standing wave", "Z2(kappa) (the reflection)", residual(kappa, 0.0)),
        ("standing wave", "Z2~(kappa) (the reflection with half the period)", residual(kappa, 0.5)),
    ]
    held = [c for c in checks if c[2] <= SYMMETRY_TOL]
    c1 = np.fft.fft(y, axis=1)[:, 1]
    orbit = [idx[nm] for nm in eq.orbit]
    big = max(abs(c1[i]) for i in orbit)
    ref = orbit[0]
    lags = {}
    for i in orbit:
        if abs(c1[i]) <= 1e-6 * big:
            lags[names[i]] = None
            continue
        lag = (np.angle(c1[ref]) - np.angle(c1[i])) / (2 * np.pi)
        lag -= np.floor(lag)
        lags[names[i]] = _fmt(0.0 if abs(lag - 1) < 1e-12 else lag)
    started = nf.equivariant.patterns[choose_pattern(nf)]
    return {
        "pattern": held[0][0] if len(held) == 1 else None,
        "isotropy": held[0][1] if len(held) == 1 else None,
        "started_from": f"{started['pattern']}, {started['isotropy']}",
        "symmetry_residuals": {iso: _fmt(r) for _, iso, r in checks},
        "tolerance": _fmt(SYMMETRY_TOL),
        "rotating_shift": "T/3" if shift < 0.5 else "2T/3",
        "phase_lags": lags,
        "predicted_phase_lags": started["phase_lags"],
        "amplitudes": {names[i]: _fmt(float(np.ptp(y[i])) / 2) for i in orbit},
        "predicted_amplitude_coefficients": started["amplitudes"],
    }


def pattern_text(pattern: dict | None) -> str | None:
    """One line naming a cycle's pattern (:func:`orbit_pattern`'s record), None without one."""
    if not pattern:
        return None
    lags = ", ".join(
        f"{k} {'at rest' if v is None else f'{float(v):.6f}'}"
        for k, v in pattern["phase_lags"].items()
    )
    if pattern["pattern"] is None:
        res = "; ".join(f"{k} {float(v):.1e}" for k, v in pattern["symmetry_residuals"].items())
        return (
            f"pattern: none of the D_3 isotropies holds on the orbit to {pattern['tolerance']} "
            f"(residuals: {res}); started from the {pattern['started_from']}; phase lags "
            f"(periods): {lags}"
        )
    res = float(pattern["symmetry_residuals"][pattern["isotropy"]])
    return (
        f"pattern: {pattern['pattern']}, {pattern['isotropy']}, holds on the orbit to "
        f"{res:.1e}; phase lags (periods) behind {next(iter(pattern['phase_lags']))}: {lags}"
    )


# ------------------------------------------------------------------------ fields
def model_field(model, theta) -> VectorField:
    """The full drift of a model of the model layer at ``theta`` (``theta`` must be free)."""
    from symdelay.analysis.stochastic import difference_weights
    from symdelay.core.symbols import theta as TH

    if TH not in model.domains:
        raise SymdelayInputError(f"{model.name} has no parameter theta")
    if TH in model.values:
        raise SymdelayInputError(
            f"theta has a value in the model ({model.values[TH]}): build it with theta free"
        )
    missing = [str(q) for q in model.free_parameters if q != TH]
    if missing:
        raise SymdelayInputError("the limit cycle needs numbers for " + ", ".join(missing))
    f_num, j_num = _lambdified(model)
    th = float(theta)

    def f(y):
        return np.asarray(f_num(th, *y), dtype=float).ravel()

    def jac(y):
        return np.asarray(j_num(th, *y), dtype=float)

    w = difference_weights(model)
    if w is None:
        raise SymdelayInputError(
            f"{model.name} declares no symmetry: there is no imbalance to follow"
        )
    n = len(model.states)
    S = None
    if model.permutation is not None:
        S = np.zeros((n, n))
        for i, j in enumerate(model.permutation):
            S[j, i] = 1.0
        if not np.allclose(S @ S, np.eye(n)):
            S = None  # cycles of length > 2: no half-period involution
    eq = np.array(
        [float(sp.sympify(model.equilibrium.point[s]).subs({TH: theta})) for s in model.states]
    )
    return VectorField(
        model.name, n, f, jac, np.array(w, dtype=float), S, tuple(s.name for s in model.states), eq
    )


def _lambdified(model):
    cached = getattr(model, "_nonlinear_lambdified", None)
    if cached is not None:
        return cached
    from symdelay.core.symbols import theta as TH

    F = sp.Matrix(model.drift)
    J = model.drift_jacobian.xreplace(model.values)
    args = (TH, *model.states)
    out = (sp.lambdify(args, F, "numpy", cse=True), sp.lambdify(args, J, "numpy", cse=True))
    with contextlib.suppress(AttributeError):  # a model with __slots__: no cache
        model._nonlinear_lambdified = out
    return out
