"""Limit cycles of the delayed-information DDE (L = inf): Fourier collocation, Floquet
multipliers by a pseudospectral monodromy operator.

The difference ``x = q1 - q2`` of the two-queue constant-lag model (:mod:`symdelay.models.dde`)
obeys ``x'(t) = f(x(t), x(t - D)) = -mu x(t) - 2 lam tanh(theta x(t - D) / 2)`` (``f`` and
its partial derivatives compiled from the model's one statement,
:func:`~symdelay.models.dde.steps.difference_functions`). A ``T``-periodic solution is a
trigonometric polynomial in the phase ``phi = 2 pi t / T``; on ``N`` (odd) equispaced
nodes the derivative is the spectral matrix ``(2 pi / T) D_1`` and the delay the exact
spectral shift ``S_delta`` by ``delta = 2 pi D / T`` (diagonal in Fourier space). Newton
solves the ``N`` collocation equations and the phase condition ``x(0) = 0`` for the nodal
values and ``T``, with the exact Jacobian; ``N`` doubles until the Fourier tail is below
``1e-11`` of the largest coefficient (the relay regime at large theta needs more modes).

Floquet multipliers: the monodromy operator of the variational equation
``y'(t) = f_x y(t) + f_D y(t - D)`` (the partial derivatives of ``f`` along the cycle; here
``f_x = -mu``, ``f_D = -lam theta sech^2(theta x(t - D)/2)``), acting on
histories on ``[-D, 0]``, is discretised on ``m`` Chebyshev nodes (Breda, Maset and
Vermiglio): each Lagrange basis history is integrated over one period by the method of
steps (SciPy ``DOP853`` with dense output, one interval of length ``D`` at a time), and the
values at ``T + s_i`` form the matrix whose eigenvalues approximate the dominant
multipliers (one of them 1).
"""

from __future__ import annotations

import numpy as np
from scipy.integrate import solve_ivp

from symdelay.analysis.cycles import (
    CycleFamily,
    LimitCycle,
    ShootingError,
    _single,
    decide_stability,
    parse_theta_list,
)
from symdelay.core.errors import SymdelayInputError
from symdelay.core.params import INFINITE_L, as_positive_number
from symdelay.models.dde import difference_functions

__all__ = [
    "dde_limit_cycle",
    "collocate",
    "dde_floquet",
    "check_max_modes",
    "DDE_METHOD",
    "ResolutionError",
]

DDE_METHOD = "Fourier collocation of the DDE (Newton), Chebyshev monodromy for Floquet"
TAIL = 1e-11
N_START = 63
N_MAX = 2047
M_CHEB = 40
#: the nodes of the coarser monodromy whose difference bounds the multipliers' error
M_CHEB_ERROR = 30


def _spectral(N, T, D):
    k = np.fft.fftfreq(N, 1.0 / N)  # integer wave numbers (N odd: no Nyquist mode)
    delta = 2 * np.pi * D / T
    F = np.fft.fft(np.eye(N), axis=0)
    Finv = lambda M: np.real(np.fft.ifft(M, axis=0))  # noqa: E731
    D1 = Finv((1j * k)[:, None] * F)
    S = Finv(np.exp(-1j * k * delta)[:, None] * F)
    return D1, S


def _partials(x, xd, mu, lam, theta):
    """``f``, ``f_x``, ``f_D`` at the arrays ``x(t)``, ``x(t - D)`` (constants broadcast)."""
    return (np.broadcast_to(F(x, xd, mu, lam, theta), x.shape) for F in difference_functions())


def _residual(x, T, mu, lam, theta, D):
    N = x.size
    D1, S = _spectral(N, T, D)
    xd = S @ x
    dx = D1 @ x
    f, fx, fd = _partials(x, xd, mu, lam, theta)
    R = (2 * np.pi / T) * dx - f
    J = np.empty((N + 1, N + 1))
    J[:N, :N] = (2 * np.pi / T) * D1 - np.diag(fx) - fd[:, None] * S
    dS = (2 * np.pi * D / T**2) * (S @ dx)  # d(S x)/dT
    J[:N, N] = -(2 * np.pi / T**2) * dx - fd * dS
    J[N, :] = 0
    J[N, 0] = 1
    return np.concatenate([R, [x[0]]]), J


def _resample(x, N):
    """Trigonometric interpolation of the nodal values ``x`` onto ``N`` nodes."""
    M = x.size
    X = np.fft.fft(x)
    k = np.fft.fftfreq(M, 1.0 / M).astype(int)
    Y = np.zeros(N, dtype=complex)
    for c, kk in zip(X, k):
        if abs(kk) <= (N - 1) // 2:
            Y[kk % N] += c
    return np.real(np.fft.ifft(Y)) * N / M


def check_max_modes(name: str, value) -> int:
    """``max_modes`` of the limit cycle at ``L = inf`` (the command's ``--max-modes``): an
    integer from :data:`N_START` (the collocation's first size) to :data:`N_MAX` (its dense
    matrices grow as the square of it), else one line naming ``name``: the one rule of both.

    >>> check_max_modes("max_modes", 127)
    127
    """
    import numbers

    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise SymdelayInputError(f"{name} must be an integer, got {value!r}")
    if not N_START <= value <= N_MAX:
        raise SymdelayInputError(
            f"{name} must be from {N_START} (the collocation's first size) to {N_MAX} (its "
            f"dense matrices grow as the square), got {value}"
        )
    return int(value)


class ResolutionError(ShootingError):
    """The cycle needs more Fourier modes than allowed (not cured by a smaller step)."""


def collocate(mu, lam, theta, D, x0, T0, *, N=N_START, max_steps=30, max_modes=N_MAX):
    """Newton on the collocation equations from nodal values ``x0`` (any odd size; resampled
    to ``N``) and period ``T0``; ``N`` doubles until the Fourier tail is below ``TAIL``.
    Returns ``(x, T, steps)``."""
    x = _resample(np.asarray(x0, float), N)
    T = float(T0)
    total = 0
    while True:
        for _step in range(1, max_steps + 1):
            G, J = _residual(x, T, mu, lam, theta, D)
            try:
                d = np.linalg.solve(J, -G)
            except np.linalg.LinAlgError:
                raise ShootingError("singular collocation Jacobian") from None
            x, T = x + d[:-1], T + d[-1]
            total += 1
            if not (np.all(np.isfinite(x)) and np.isfinite(T) and T > 0):
                raise ShootingError("Newton left the admissible range (period <= 0)")
            if np.max(np.abs(x)) < 1e-9:
                raise ShootingError("Newton converged to the equilibrium, not to a cycle")
            if np.max(np.abs(d)) < 1e-12 * max(1.0, np.max(np.abs(x))):
                break
        else:
            raise ShootingError(f"collocation Newton did not converge in {max_steps} steps")
        X = np.abs(np.fft.fft(x))
        k = np.abs(np.fft.fftfreq(N, 1.0 / N))
        tail = X[k > N / 3].max() / X.max()
        if tail < TAIL:
            return x, T, total
        if max_modes < 2 * N + 1:
            raise ResolutionError(
                f"at theta = {theta:.6g} the cycle needs more than {max_modes} Fourier modes "
                f"(tail {tail:.1e}): theta is too large for the collocation"
            )
        x = _resample(x, 2 * N + 1)
        N = 2 * N + 1


def _trig(x, T):
    """A callable evaluating the trigonometric interpolant of ``x`` at times ``t``."""
    N = x.size
    X = np.fft.fft(x) / N
    k = np.fft.fftfreq(N, 1.0 / N)
    w = 2 * np.pi / T

    def ev(t):
        t = np.atleast_1d(np.asarray(t, float))
        return np.real(np.exp(1j * w * np.outer(t, k)) @ X)

    return ev


def dde_floquet(x, T, mu, lam, theta, D, m=M_CHEB, *, rtol=1e-10, vectors=False):
    """Dominant Floquet multipliers (Chebyshev monodromy on ``m`` nodes, the method of
    steps at relative tolerance ``rtol``), by modulus; with ``vectors``, also the index of
    the trivial one: the multiplier whose eigenvector (history values at the nodes) is the
    flow direction ``x'(s)`` on ``[-D, 0]``."""
    N = x.size
    k = np.fft.fftfreq(N, 1.0 / N)
    X = np.fft.fft(x) / N
    X_lag = X * np.exp(-2j * np.pi * k * D / T)  # the interpolant shifted by the delay

    def now_and_lag(t):
        e = np.exp(2j * np.pi * k * t / T)
        return float(np.real(e @ X)), float(np.real(e @ X_lag))

    j = np.arange(m)
    nodes = -D / 2 * (1 + np.cos(np.pi * j / (m - 1)))  # in [-D, 0]
    wts = (-1.0) ** j
    wts[0] *= 0.5
    wts[-1] *= 0.5

    def lagrange(s):
        """Values of the m Lagrange basis polynomials at the point ``s`` (barycentric)."""
        diff = s - nodes
        hit = np.isclose(diff, 0, atol=1e-15 * D)
        if hit.any():
            v = np.zeros(m)
            v[np.argmax(hit)] = 1
            return v
        c = wts / diff
        return c / c.sum()

    segments = []  # (t0, t1, dense)
    _, fx, fd = difference_functions("math")

    def delayed(t):
        s = t - D
        if s <= 0:
            return lagrange(s)
        for a, b, sol in segments:
            if a - 1e-12 <= s <= b + 1e-12:
                return sol(min(max(s, a), b))
        raise RuntimeError("delayed value outside the integrated range")  # pragma: no cover

    Y = np.array([lagrange(0.0)[i] for i in range(m)])  # y_j(0) = l_j(0)
    t0 = 0.0
    while t0 < T - 1e-14:
        t1 = min(t0 + D, T)

        def rhs(t, y):
            x, xd = now_and_lag(t)
            a, b = fx(x, xd, mu, lam, theta), fd(x, xd, mu, lam, theta)
            return a * y + b * delayed(t)

        sol = solve_ivp(
            rhs, (t0, t1), Y, method="DOP853", rtol=rtol, atol=rtol * 1e-3, dense_output=True
        )
        segments.append((t0, t1, sol.sol))
        Y = sol.y[:, -1]
        t0 = t1
    M = np.empty((m, m))
    for i, s in enumerate(nodes):
        t = T + s
        for a, b, sol in segments:
            if a - 1e-12 <= t <= b + 1e-12:
                M[i] = sol(min(max(t, a), b))
                break
    mults, V = np.linalg.eig(M)
    order = np.argsort(-np.abs(mults))
    mults, V = mults[order], V[:, order]
    if not vectors:
        return mults
    flow = np.real(np.exp(2j * np.pi * np.outer(nodes, k) / T) @ (2j * np.pi * k / T * X))
    cos = np.abs(flow @ V.conj()) / (np.linalg.norm(flow) * np.linalg.norm(V, axis=0))
    return mults, int(np.argmax(cos))


def _cycle(x, T, mu, lam, theta, D, steps, text=None) -> LimitCycle:
    xe = _trig(x, T)
    t = np.linspace(0.0, T, 1601)
    xs = xe(t)
    i = int(np.argmax(xs))
    from scipy.optimize import minimize_scalar

    r = minimize_scalar(
        lambda s: -xe(s)[0],
        bounds=(t[max(i - 1, 0)], t[min(i + 1, 1600)]),
        method="bounded",
        options={"xatol": 1e-13},
    )
    hi = max(xs[i], -r.fun)
    amp = float(hi)  # x(t + T/2) = -x(t)
    mults, k = dde_floquet(x, T, mu, lam, theta, D, vectors=True)
    coarse = dde_floquet(x, T, mu, lam, theta, D, M_CHEB_ERROR, rtol=1e-8)
    triv = float(abs(mults[k] - 1))
    errs = _errors(mults, coarse, triv)
    stable, why = decide_stability(mults, errs, k)
    G, _ = _residual(x, T, mu, lam, theta, D)
    return LimitCycle(
        float(theta),
        amp,
        float(T),
        mults,
        stable,
        DDE_METHOD,
        x.copy(),
        t,
        xs[None, :],
        steps,
        float(np.max(np.abs(G))),
        triv,
        "delay equation",
        text,
        trivial_index=k,
        multiplier_errors=errs,
        stability_reason=why,
    )


def _errors(mults, coarse, triv):
    """Each multiplier's error: for the dominant ``M_CHEB_ERROR // 2`` (the ones the
    pseudospectral monodromy resolves), its distance to the nearest multiplier of the
    coarser monodromy (:data:`M_CHEB_ERROR` nodes, tolerance 1e-8: spectral convergence in
    the nodes and tolerance-proportional steps make that difference larger than the error of
    the fine one), plus the trivial multiplier's distance from 1 (known exactly); the
    unresolved rest, smaller in modulus, is bounded by the last resolved one (its modulus
    plus its error)."""
    K = min(M_CHEB_ERROR // 2, mults.size)
    used = np.zeros(coarse.size, dtype=bool)
    err = np.empty(mults.size)
    for i in sorted(range(K), key=lambda i: abs(mults[i] - 1)):
        d = np.abs(coarse - mults[i])
        d[used] = np.inf
        j = int(np.argmin(d))
        used[j] = True
        err[i] = float(d[j]) + triv + 1e-14
    if mults.size > K:
        err[K:] = abs(mults[K - 1]) + err[K - 1]
    return err


def dde_limit_cycle(mu=1, lam=1, D=1, theta=10, *, max_modes: int = N_MAX):
    """The DDE's cycle at ``theta`` (a number), or a :class:`CycleFamily` (a list/range)."""
    from symdelay.models.erlang.nonlinear.normal_form import (
        describing_function_amplitude,
        normal_form,
    )

    nf = normal_form(INFINITE_L, mu, lam, D)
    m, lm, Dv = (float(as_positive_number(n, v)) for n, v in (("mu", mu), ("lam", lam), ("D", D)))
    targets = parse_theta_list(theta)
    single = _single(theta)
    th_c = float(nf.theta_c)
    for v, text in targets:
        if not v > th_c * (1 + 1e-12):
            from symdelay.analysis.cycles import not_above_critical
            from symdelay.models.erlang.founding import FoundingModel

            point = FoundingModel(L="inf", mu=nf.mu, lam=nf.lam, theta=text, D=nf.D)
            raise not_above_critical(text, th_c, point)
    w = float(nf.omega)
    th0 = th_c + min(1e-3 * th_c, min(v for v, _ in targets) - th_c)
    amp0 = float(nf.amplitude_coefficient) * np.sqrt(th0 - th_c)
    T0 = 2 * np.pi / w
    phi = 2 * np.pi * np.arange(N_START) / N_START
    x0 = amp0 * np.sin(phi)
    sq = lambda th: np.sqrt(th - th_c)  # noqa: E731
    # first: straight at the smallest target from the harmonic-balance amplitude; if Newton
    # fails there, march from the normal-form cycle just above theta_c
    th1 = min(v for v, _ in targets)
    a1 = float(describing_function_amplitude([th1], th_c)[0])
    try:
        x, T, k = collocate(m, lm, th1, Dv, a1 * np.sin(phi), T0, max_modes=max_modes)
        hist = [(sq(th1), x, T)]
    except ResolutionError as exc:
        raise ShootingError(
            f"DDE collocation stopped at theta = {th1:g} (Newton from the harmonic-balance "
            f"start converged, then the resolution check failed): {exc}"
        ) from None
    except ShootingError:
        x, T, k = collocate(m, lm, th0, Dv, x0, T0, max_modes=max_modes)
        hist = [(sq(th0), x, T)]
    path = []
    out = {}
    ds = max(sq(th0), 0.05 * np.sqrt(th_c))
    for i in sorted(range(len(targets)), key=lambda i: targets[i][0]):
        th_t, text = targets[i]
        tried = []
        while hist[-1][0] < sq(th_t) - 1e-15:
            s_next = min(hist[-1][0] + ds, sq(th_t))
            for _ in range(12):
                th_next = th_t if abs(s_next - sq(th_t)) < 1e-15 else th_c + s_next**2
                xp, Tp = _predict(hist, s_next)
                try:
                    x, T, k = collocate(m, lm, th_next, Dv, xp, Tp, N=xp.size, max_modes=max_modes)
                    break
                except ResolutionError as exc:
                    raise ShootingError(
                        f"DDE continuation stopped at theta = {th_c + hist[-1][0] ** 2:.6g} "
                        f"(target {th_t:g}): {exc}; the cycles up to there converged"
                    ) from None
                except ShootingError as exc:
                    tried.append(f"theta={th_next:.6g}: {exc}")
                    s_next = hist[-1][0] + (s_next - hist[-1][0]) / 2
            else:
                raise ShootingError(
                    f"DDE continuation stopped at theta = {th_c + hist[-1][0] ** 2:.6g} "
                    f"(target {th_t:g}) after {len(tried)} attempts, last: {tried[-1]}"
                )
            hist.append((s_next, x, T))
            ds = min(ds * 1.5, 0.5 * np.sqrt(th_t)) if k <= 4 else ds / 2
        cyc = _cycle(hist[-1][1], hist[-1][2], m, lm, th_t, Dv, k, text)
        path.append(cyc)
        out[i] = cyc
    pts = [out[i] for i in range(len(targets))]
    if single:
        return pts[0]
    return CycleFamily(INFINITE_L, th_c, pts, path, nf)


def _predict(hist, s):
    if len(hist) == 1:
        s0, x0, T0 = hist[0]
        return x0 * (s / s0 if s0 > 0 else 1.0), T0
    (s1, x1, T1), (s2, x2, T2) = hist[-2], hist[-1]
    N = max(x1.size, x2.size)
    x1, x2 = _resample(x1, N), _resample(x2, N)
    a = (s - s2) / (s2 - s1)
    return x2 + a * (x2 - x1), T2 + a * (T2 - T1)
