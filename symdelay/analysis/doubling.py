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

__all__ = ["pd_eigenfunction", "doubled_orbit", "first_doubled"]


def pd_eigenfunction(solver: PeriodicBVP, orbit: Orbit):
    """``(rho, V)``: the real multiplier of the orbit's monodromy nearest -1 and its
    eigenfunction at the mesh nodes (``V`` shaped like ``orbit.U``, ``v(1) = rho v(0)``),
    normalised to ``int |v|^2 dt = 1``; the monodromy is the product of the collocation's
    interval maps (:meth:`PeriodicBVP.interval_maps`), the same as its multipliers'."""
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
