"""Branch switching at a period doubling: the first orbit of the doubled branch.

At a period-doubling point (PD) of a branch of cycles a Floquet multiplier is -1: the
variational equation ``v' = T J(u(t)) v`` has a solution with ``v(1) = -v(0)`` (time scaled
by the period), the eigenfunction of the monodromy's multiplier -1 carried along the orbit.
Traversed twice, the cycle is a periodic orbit of period ``2 T``, and ``phi``, equal to
``v`` on the first lap and to ``-v`` on the second, is periodic on the doubled orbit: at the
PD the doubled system has a branch point, its null space spanned by the old branch's
tangent and by ``(phi, 0, 0)`` (Doedel, Keller & Kernevez 1991, the period-doubling switch
of AUTO and MatCont). The doubled branch leaves along ``phi``: the first orbit is the
correction, by the pseudo-arclength Newton method of :class:`symdelay.analysis.bvp
.PeriodicBVP` on the doubled mesh, of ``u_2 + ds phi`` with the arclength border along
``phi``, which keeps the correction off the old branch (whose tangent has no ``phi``
component). The orbit found must differ from its own half-period shift (a true period
``2 T``): otherwise the switch is refused, saying so.
"""

from __future__ import annotations

import math

import numpy as np

from symdelay.analysis.bvp import Collocation, NewtonFailed, Orbit, PeriodicBVP

__all__ = [
    "pd_eigenfunction",
    "doubled_orbit",
    "first_doubled",
    "settled_cycle",
    "settled_delay_cycle",
]


def pd_eigenfunction(solver: PeriodicBVP, orbit: Orbit):
    """``(rho, V)``: the real multiplier of the orbit's monodromy nearest -1 and its
    eigenfunction at the mesh nodes (``V`` shaped like ``orbit.U``, ``v(1) = rho v(0)``),
    normalised to ``int |v|^2 dt = 1``; the monodromy is the product of the collocation's
    interval maps (:meth:`PeriodicBVP.interval_maps`), the same as its multipliers'."""
    if hasattr(solver, "pd_eigenfunction"):  # a delay model: from its monodromy operator
        return solver.pd_eigenfunction(orbit)
    coll, n, m = orbit.coll, solver.F.n, orbit.coll.m
    Ug, _ = coll.at_gauss(orbit.U)
    X = solver.interval_maps(coll, Ug, orbit.T, orbit.p)
    M = np.eye(n)
    for j in range(coll.N):
        M = X[j][-n:] @ M
    ev, W = np.linalg.eig(M)
    k = int(np.argmin(np.abs(ev + 1)))
    rho = complex(ev[k])
    v = np.real(W[:, k])
    V = np.empty_like(orbit.U)
    for j in range(coll.N):
        V[j * m] = v
        nodes = (X[j] @ v).reshape(m, n)
        V[j * m + 1 : (j + 1) * m] = nodes[:-1]
        v = nodes[-1]
    norm = math.sqrt(float(np.sum(coll.ip_weights(V) * V)))
    return rho, V / norm


def doubled_orbit(orbit: Orbit):
    """``(coll2, U2)``: the orbit traversed twice, on the mesh of ``2 N`` intervals made of
    the mesh halved and repeated (its nodal values are the old ones, twice)."""
    mesh = orbit.coll.mesh
    coll2 = Collocation(orbit.coll.m, np.concatenate([mesh[:-1] / 2, 0.5 + mesh / 2]))
    return coll2, np.vstack([orbit.U, orbit.U])


def first_doubled(solver: PeriodicBVP, orbit: Orbit, ds: float, max_dp: float, tries: int = 8):
    """The first orbit of the doubled branch at the PD ``orbit``: ``(base, first, rho)``,
    ``base`` the PD orbit traversed twice with the tangent ``(phi, 0, 0)``, ``first`` the
    corrected orbit at arclength ``ds`` along ``phi`` (quartered, up to ``tries`` times,
    when Newton fails, returns to the old branch or moves the parameter by more than
    ``max_dp``: the doubled branch is a parabola ``p - p_PD ~ c ds^2`` there, and a first
    orbit far from the PD could step over the next one). Raises :class:`NewtonFailed`
    saying why."""
    rho, V = pd_eigenfunction(solver, orbit)
    coll2, U2 = doubled_orbit(orbit)
    phi = np.vstack([V, -V])
    phi /= math.sqrt(float(np.sum(coll2.ip_weights(phi) * phi)))
    base = Orbit(coll2, U2, 2 * orbit.T, orbit.p, (phi, 0.0, 0.0))
    half = orbit.U.shape[0]
    why = "no step tried"
    for _ in range(tries):
        try:
            U, T, p, it = solver.correct(
                coll2, U2 + ds * phi, base.T, base.p, U2, step=(base, base.tangent, ds)
            )
        except (NewtonFailed, np.linalg.LinAlgError) as exc:
            why = f"Newton failed at the step {ds:.3g} along the eigenfunction ({exc})"
            ds /= 4
            continue
        shift = float(np.max(np.abs(U[:half] - U[half:])))
        if shift <= 1e-3 * ds:
            why = f"the step {ds:.3g} along the eigenfunction fell back on the undoubled cycle"
        elif abs(p - base.p) > max_dp:
            why = (
                f"the step {ds:.3g} along the eigenfunction moved the parameter by {p - base.p:.3g}"
            )
        else:
            return base, Orbit(coll2, U, T, p, iterations=it), rho
        ds /= 4
    raise NewtonFailed(why)


def settled_cycle(field, value: float, y0, *, chunk: float, chunks: int = 40, max_laps: int = 8):
    """The periodic orbit the fluid path from ``y0`` settles on at the parameter ``value``:
    ``(t, y, period, laps)`` over one period, or a one-line :class:`SymdelayInputError`.

    The ODE is integrated (SciPy's LSODA, rtol 1e-10, with the field's Jacobian) in pieces of
    length ``chunk``; the returns to the section where the observed quantity crosses the
    middle of its range upwards in a piece are compared: the path has settled when the state
    at each of the last three returns is within ``1e-6`` (relative) of the state ``k``
    returns before (``k = laps``, the smallest from 1 to ``max_laps``: a cycle born of
    period doublings returns after 2, 4, ... laps), and the period is the time of those
    ``k`` laps. A path that
    does not settle in ``chunks`` pieces (chaos, a slow transient, a path going to the
    equilibrium) is refused."""
    from scipy.integrate import solve_ivp

    from symdelay.core.errors import SymdelayInputError

    w = field.weights
    f = lambda t, y: field.f(y[None, :], value)[0]  # noqa: E731
    jac = lambda t, y: field.jac_dense(y[None, :], value)[0]  # noqa: E731
    y = np.asarray(y0, dtype=float)
    t0, times, states = 0.0, [], []
    for _ in range(chunks):
        sol = solve_ivp(f, (t0, t0 + chunk), y, method="LSODA", jac=jac, rtol=1e-10,
                        atol=1e-12, dense_output=True)  # fmt: skip
        if not sol.success:
            raise SymdelayInputError(
                f"the fluid path at {field.name} = {value:.10g} failed ({sol.message}): "
                "no cycle to start from"
            )
        tt = np.linspace(t0, t0 + chunk, 20001)
        Y = sol.sol(tt)
        x = w @ Y
        c = 0.5 * (x.max() + x.min())
        if x.max() - x.min() <= 1e-8 * (1 + abs(c)):
            times, states = [], []  # no oscillation in this piece: the path is at rest
        else:
            for k in np.nonzero((x[:-1] < c) & (x[1:] >= c))[0]:
                # the crossing refined by a Newton step on the dense output
                tc = tt[k] + (c - x[k]) / (x[k + 1] - x[k]) * (tt[k + 1] - tt[k])
                for _ in range(3):
                    yc = sol.sol(tc)
                    tc -= (w @ yc - c) / (w @ f(tc, yc))
                times.append(tc)
                states.append(sol.sol(tc))
        t0, y = t0 + chunk, sol.y[:, -1]
        period = _repeat(times, states, max_laps)
        if period is not None:  # one period from the earlier return, on its dense output
            T, ys, k = period
            sol = solve_ivp(f, (0.0, T), ys, method="LSODA", jac=jac, rtol=1e-10, atol=1e-12,
                            dense_output=True)  # fmt: skip
            tt = np.linspace(0.0, T, 2001)
            return tt, sol.sol(tt), T, k
    raise SymdelayInputError(
        f"the fluid path at {field.name} = {value:.10g} did not settle on a cycle of up to "
        f"{max_laps} laps within t = {t0:.6g} (chaos, a slow transient or a stable "
        "equilibrium there): start from another value"
    )


def settled_delay_cycle(model, weights, *, horizon: float, lookback: float = 0.0,
                        doublings: int = 3, max_laps: int = 8, force: bool = False):  # fmt: skip
    """The periodic orbit the fluid path of the delay model ``model`` (every parameter a
    number) settles on: ``(t, y, period, laps)`` over one period (``y`` the model's states,
    one row each), or a one-line :class:`SymdelayInputError`.

    The path is :func:`symdelay.analysis.dfluid.delay_fluid` from the model's default start
    held constant before 0 (DOP853 by the method of steps, rtol 1e-10); its returns to the
    section where ``weights . y`` crosses the middle of its range upwards (over the last
    half of the path; each crossing refined by secant steps on the dense output) are
    compared as :func:`settled_cycle` compares the ODE's: the state at each of the last
    three returns within ``1e-6`` (relative) of the state ``k`` returns before, the
    smallest ``k`` from 1 to ``max_laps``. The state of a delay equation is its history
    segment: it is compared at 17 points over the ``lookback`` before the return (at
    least the longest time between returns; the present state alone does not tell a
    scalar equation's laps apart). A path that has not settled by ``horizon`` is
    integrated again over twice the horizon, up to ``doublings`` times, then refused."""
    from symdelay.analysis.dfluid import delay_fluid
    from symdelay.core.errors import SymdelayInputError

    w = np.asarray(weights, dtype=float)
    n = w.size
    T = float(horizon)
    for _attempt in range(doublings + 1):
        res = delay_fluid(model, T=T, dt=T / 200, rtol=1e-10, atol=1e-12, force=force)

        def x_at(times, res=res):
            return res.at(np.atleast_1d(times))[:, :n] @ w

        tt = np.linspace(T / 2, T, 40001)
        Y = res.at(tt)[:, :n]
        x = Y @ w
        c = 0.5 * (x.max() + x.min())
        times, states = [], []
        if not x.max() - x.min() > 1e-8 * (1 + abs(c)):
            raise SymdelayInputError(
                f"the fluid path of {model.name} settles on the equilibrium (its "
                f"oscillation over t in [{T / 2:.6g}, {T:.6g}] is below 1e-8): no cycle to "
                "start from there; start from another value"
            )
        for k in np.nonzero((x[:-1] < c) & (x[1:] >= c))[0]:
            a, b, xa, xb = tt[k], tt[k + 1], x[k] - c, x[k + 1] - c
            for _step in range(6):  # secant steps kept inside the bracket
                tc = a - xa * (b - a) / (xb - xa) if xb != xa else 0.5 * (a + b)
                xc = float(x_at(tc)[0]) - c
                if xc == 0:
                    break
                a, xa = (tc, xc) if xc < 0 else (a, xa)
                b, xb = (tc, xc) if xc > 0 else (b, xb)
            times.append(tc)
        gap = float(np.max(np.diff(times))) if len(times) > 1 else 0.0
        span = max(float(lookback), gap)
        back = np.linspace(0.0, span, 17)
        times = [tc for tc in times if tc - span >= -float(lookback)]
        states = [res.at(tc - back)[:, :n].ravel() for tc in times]
        period = _repeat(times, states, max_laps)
        if period is not None:
            P, _, k = period
            t0 = times[-1 - k]
            t = np.linspace(0.0, P, 2001)
            return t, res.at(t0 + t)[:, :n].T, P, k
        T *= 2
    raise SymdelayInputError(
        f"the fluid path of {model.name} did not settle on a cycle of up to {max_laps} laps "
        f"within t = {T / 2:.6g} (chaos, a slow transient or a stable equilibrium there): "
        "start from another value"
    )


def _repeat(times, states, max_laps):
    """``(period, state at the earlier return, k)`` when each of the last three returns repeats the one ``k``
    returns before (the smallest ``k``), else None."""
    for k in range(1, max_laps + 1):
        if len(states) < k + 3:
            return None
        ok = all(
            np.max(np.abs(states[-j] - states[-j - k])) <= 1e-6 * (1 + np.max(np.abs(states[-j])))
            for j in (1, 2, 3)
        )
        if ok:
            return times[-1] - times[-1 - k], states[-1 - k], k
    return None
