"""Limit cycles of the fluid model by Newton--shooting, with Floquet multipliers.

For ``y' = f(y)`` (a :class:`~.fields.VectorField`) a periodic orbit through ``y0`` with
period ``T`` solves

    phi(T/2; y0) - S y0 = 0,     x(y0) = 0,                          (S-symmetric orbit)

(``phi`` the flow; ``S`` the symmetry involution, ``-I`` for the difference system, the
queue swap for the full fluid model; without a symmetry the full period with ``S = I``),
the second equation a Poincare section on the observed imbalance. Newton's method solves it
with the exact Jacobian ``[Phi - S, f(phi)/2; e_x^T, 0]``: ``Phi = d phi / d y0`` comes from
the variational equations ``Phi' = J(y) Phi`` integrated with the orbit (SciPy ``DOP853``,
``rtol = 1e-11``). No long transient integration is involved. The monodromy matrix of the
converged orbit is ``(S Phi)^2`` (equivariance: ``D phi`` at ``S y0`` is ``S Phi S``); its
eigenvalues are the Floquet multipliers, one of them 1 (the flow direction), reported with
its distance from 1 as an accuracy check.

:func:`limit_cycle` starts at the normal-form prediction (:mod:`.normal_form`) just above
``theta_c`` and continues in ``theta`` with a secant predictor in ``sqrt(theta - theta_c)``
(the natural parameter of a Hopf branch), halving the step when Newton fails.

>>> c = limit_cycle(2, 1, 1, 1, theta=10)
>>> round(c.amplitude_x, 6), round(c.period, 6), c.stable
(0.135928, 2.221752, True)
"""

from __future__ import annotations

import numpy as np
from scipy.integrate import solve_ivp

from symdelay.core.errors import SymdelayInputError
from symdelay.core.params import INFINITE_L, as_L_or_inf
from symdelay.models.erlang.nonlinear.fields import VectorField, difference_field, model_field
from symdelay.models.erlang.nonlinear.orbits import (
    CycleFamily,
    LimitCycle,
    ShootingError,
    parse_theta_list,
)

__all__ = [
    "LimitCycle",
    "CycleFamily",
    "limit_cycle",
    "shoot",
    "ShootingError",
    "RTOL",
    "parse_theta_list",
]

#: Relative tolerance of the orbit integrations (absolute: RTOL * 1e-3).
RTOL = 1e-11
#: Newton stops when the correction is below this (relative to the orbit's size).
NEWTON_TOL = 1e-10
#: ... or when the shooting residual is below this times the orbit's size (relative to
#: it: the integrations' own tolerance is RTOL = 1e-11).
RESIDUAL_TOL = 1e-12
#: theta above this multiple of theta_c is refused: the logit routing is then a relay
#: (sign function) and the double-precision integrations overflow.
MAX_THETA_OVER_CRITICAL = 1e6
MAX_NEWTON = 25


def _flow(field: VectorField, y0, T, with_phi: bool, dense: bool = False):
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
        rhs, (0.0, T), Y0, method="DOP853", rtol=RTOL, atol=RTOL * 1e-3 * scale, dense_output=dense
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
    mults = np.linalg.eigvals(S @ Phi) ** 2 if field.S is not None else np.linalg.eigvals(Phi)
    mults = mults[np.argsort(-np.abs(mults))]
    k = int(np.argmin(np.abs(mults - 1)))
    triv = float(abs(mults[k] - 1))
    rest = np.delete(mults, k)
    stable = bool(np.all(np.abs(rest) < 1 - 10 * max(triv, 1e-9)))
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
            path[-1].theta_text = text
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
        last = path[-1]
        last.theta_text = text
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


def limit_cycle(
    L=2,
    mu=1,
    lam=1,
    D=1,
    theta=10,
    *,
    system: str = "difference",
    model=None,
    start_fraction: float = 1e-3,
    max_modes: int | None = None,
) -> LimitCycle | CycleFamily:
    """The limit cycle at ``theta`` (one number: a :class:`LimitCycle`; a list or a range
    ``"a:b:count"``: a :class:`CycleFamily` continued from ``theta_c``).

    ``system``: ``"difference"`` (the exact ``L + 1``-dimensional difference system) or
    ``"full"`` (the ``2(L+1)`` fluid model, through the model layer); ``L = inf``: the
    delay-differential equation (:mod:`.dde_cycles`). ``model``: any model of the model
    layer with ``theta`` free (its full drift). ``max_modes``: largest number of Fourier
    modes of the DDE collocation (default :data:`.dde_cycles.N_MAX`).
    """
    from symdelay.models.erlang.nonlinear.normal_form import normal_form

    targets = parse_theta_list(theta)
    single = not isinstance(theta, (list, tuple, np.ndarray)) and not (
        isinstance(theta, str) and ("," in theta or ":" in theta)
    )
    if model is not None:
        nf = normal_form(model=model)

        def make(th):
            return model_field(model, th)

        method = "Newton-shooting (full drift of the model, DOP853 variational equations)"
        Lkey = None
    else:
        Lv = as_L_or_inf(L)
        if Lv == 1:
            raise SymdelayInputError(
                "L = 1 has no Hopf point (stable for every theta >= 0): there is no limit "
                "cycle; use L >= 2 or inf"
            )
        if system not in ("difference", "full"):
            raise SymdelayInputError(f"system must be 'difference' or 'full', got {system!r}")
        if Lv is INFINITE_L:
            from symdelay.models.erlang.nonlinear.dde_cycles import dde_limit_cycle

            extra = {} if max_modes is None else {"max_modes": max_modes}
            return dde_limit_cycle(mu, lam, D, theta, **extra)
        nf = normal_form(Lv, mu, lam, D)
        Lkey = Lv
        if system == "difference":

            def make(th):
                return difference_field(Lv, nf.mu, nf.lam, nf.D, th)

            method = "Newton-shooting on the difference system (DOP853 variational equations)"
        else:
            from symdelay.models import build_model

            full_model = build_model("erlang", L=Lv, mu=nf.mu, lam=nf.lam, D=nf.D)

            def make(th):
                return model_field(full_model, th)

            method = "Newton-shooting on the full fluid model (DOP853 variational equations)"
    th_c = float(nf.theta_c)
    for v, text in targets:
        if not v > th_c * (1 + 1e-12):
            raise SymdelayInputError(
                f"theta = {text} is not above theta_c = {th_c:.12g}: the equilibrium is "
                "stable there and there is no cycle (the bifurcation is supercritical)"
            )
        if not v < th_c * MAX_THETA_OVER_CRITICAL:
            raise SymdelayInputError(
                f"theta = {text} is more than {MAX_THETA_OVER_CRITICAL:g} theta_c (theta_c = "
                f"{th_c:.6g}): routing is then a relay (sign function) and the double-precision "
                f"orbit integration overflows; give theta below {th_c * MAX_THETA_OVER_CRITICAL:.3g}"
            )
    th_min = min(v for v, _ in targets)
    start = _normal_form_start(nf, make, th_c, th_min, start_fraction)
    direct = None if model is not None else _harmonic_balance_start(nf, make, th_c, th_min)
    pts, path = continue_cycles(make, start, th_c, targets, method, direct=direct)
    if single:
        return pts[0]
    return CycleFamily(Lkey, th_c, pts, path, nf)


def _normal_form_start(nf, make, th_c, th_min, frac):
    """``(theta, y0, T)`` just above ``theta_c`` from the normal form: the eigenvector
    ``q`` scaled to the predicted amplitude, phase with ``x = 0`` and ``x`` increasing."""
    th = th_c + min(frac * th_c, (th_min - th_c))
    fld = make(th)
    J = fld.jac(fld.equilibrium)
    ev, V = np.linalg.eig(J)
    k = int(np.argmin(np.abs(ev - 1j * float(nf.omega))))
    q = V[:, k]
    qx = fld.weights @ q
    q = q / qx
    amp = float(nf.amplitude_coefficient) * np.sqrt(th - th_c)
    y0 = fld.equilibrium + amp * np.imag(q)
    return th, y0, 2 * np.pi / float(nf.omega)


def _harmonic_balance_start(nf, make, th_c, theta):
    """``(theta, y0, T)`` at ``theta`` itself: the critical eigenvector scaled to the
    harmonic-balance amplitude (:func:`.normal_form.describing_function_amplitude`, which
    holds from theta_c to the relay limit), period ``2 pi / omega_c``."""
    from symdelay.models.erlang.nonlinear.normal_form import describing_function_amplitude

    fld = make(th_c)
    ev, V = np.linalg.eig(fld.jac(fld.equilibrium))
    k = int(np.argmin(np.abs(ev - 1j * float(nf.omega))))
    q = V[:, k] / (fld.weights @ V[:, k])
    amp = float(describing_function_amplitude([theta], th_c)[0])
    return theta, fld.equilibrium + amp * np.imag(q), 2 * np.pi / float(nf.omega)
