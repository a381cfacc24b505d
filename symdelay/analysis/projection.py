"""Kuznetsov's projection formula for the first Lyapunov coefficient, in mpmath.

For ``y' = A y + B(y, y)/2 + C(y, y, y)/6 + ...`` with a simple pair ``+-i omega`` of
``A`` and no other eigenvalue on the imaginary axis, take ``A q = i omega q`` and
``A^T p = -i omega p`` with ``<p, q> = conj(p)^T q = 1``. Then (Kuznetsov, *Elements of
Applied Bifurcation Theory*, 3rd ed., eq. (3.20); MatCont and DDE-BIFTOOL use the same)

    c1 = 1/2 <p, C(q, q, conj q) - 2 B(q, A^-1 B(q, conj q))
                 + B(conj q, (2 i omega - A)^-1 B(q, q))>,        l1 = Re(c1) / omega,

and the restriction to the centre manifold is ``z' = i omega z + c1 z |z|^2 + O(|z|^4)``.
With a parameter ``p`` entering ``A``, the crossing eigenvalue moves at
``r'(p) = <p, A_p q>``; the cycle born at the crossing has ``|z|^2 = -Re r' (p - p_c)/Re c1``
and frequency ``omega + (Im r' - Im c1 Re r' / Re c1) (p - p_c)``.

:func:`eigenvectors` finds ``q``, ``p`` in mpmath at the working precision in force;
:func:`c1_coefficient` is the formula itself, for vectors in any number type (mpmath,
doubles, Arb balls), so that every evaluation of ``l1`` in the package
(:class:`symdelay.analysis.normal_form.FirstLyapunov`) runs this one code.
"""

from __future__ import annotations

from dataclasses import dataclass

import mpmath
import numpy as np

from symdelay.core.errors import VerificationError

__all__ = ["CriticalEigen", "HopfCoefficients", "eigenvectors", "c1_coefficient"]


@dataclass(frozen=True)
class CriticalEigen:
    """``q``, ``p`` (columns) at ``i omega``, normalised by ``<p, q> = 1`` and the
    component ``q[pin] = 1`` (the observable the caller cares about, if given)."""

    omega: object
    q: object
    p: object


def _largest_component(M) -> int:
    """Index of the largest entry of the (float) right singular vector of ``M`` for its
    smallest singular value: a safe component to pin to 1."""
    Mf = np.array([[complex(M[i, j]) for j in range(M.cols)] for i in range(M.rows)])
    v = np.linalg.svd(Mf)[2][-1].conj()
    return int(np.argmax(np.abs(v)))


def _null_vector(M, pin: int | None = None):
    """The vector ``v`` with ``M v = 0`` and ``v[pin] = 1`` (a one-dimensional kernel)."""
    n = M.rows
    if pin is None:
        pin = _largest_component(M)
    keep = list(range(n))
    # drop the equation that is a combination of the others: try each, keep the best solve
    best, best_res = None, None
    cols = [j for j in range(n) if j != pin]
    for drop in range(n):
        rows = [i for i in keep if i != drop]
        S = mpmath.matrix(n - 1, n - 1)
        rhs = mpmath.matrix(n - 1, 1)
        for a, i in enumerate(rows):
            rhs[a] = -M[i, pin]
            for b, j in enumerate(cols):
                S[a, b] = M[i, j]
        try:
            sol = mpmath.lu_solve(S, rhs)
        except ZeroDivisionError:
            continue
        v = mpmath.matrix(n, 1)
        v[pin] = 1
        for b, j in enumerate(cols):
            v[j] = sol[b]
        res = mpmath.mnorm(M * v, 1)
        if best is None or res < best_res:
            best, best_res = v, res
        if res < mpmath.mpf(10) ** (-(mpmath.mp.dps - 5)) * (1 + mpmath.mnorm(M, 1)):
            break
    if best is None:
        raise VerificationError("no eigenvector: the matrix has no kernel at i omega")
    return best


def _H(M):
    return M.transpose_conj()


def eigenvectors(A, omega, pin: int = 0) -> CriticalEigen:
    """``q`` (``q[pin] = 1``) and ``p`` with ``<p, q> = 1`` for the eigenvalue ``i omega``."""
    n = A.rows
    iw = mpmath.mpc(0, omega)
    M = A - iw * mpmath.eye(n)
    q = _null_vector(M, pin)
    # left: conj(p)^T (A - i omega) = 0  <=>  (A - i omega)^H p = 0
    p = _null_vector(_H(M))
    s = (_H(p) * q)[0]
    p = p * mpmath.conj(1 / s)  # conj(p)^T q = 1
    return CriticalEigen(omega, q, p)


def c1_coefficient(q, pc, H, T3, solve):
    """Kuznetsov's ``c1`` for vectors given as lists, in any number type (mpmath, Python
    complex, Arb): the one formula of the package.

    ``q``: ``A q = i w q``; ``pc``: ``conj(p)`` with ``conj(p)^T q = 1``; ``H``:
    ``{(i, a, b): d^2 F_i / ds_a ds_b}`` and ``T3``: ``{(i, a, b, c): d^3 F_i / ...}`` (every
    order of the indices present); ``solve(k, b)``: ``x`` with ``(A - k i w I) x = b`` for
    ``k = 0`` and ``k = 2`` (called only where ``H`` has entries).

        c1 = 1/2 <p, C(q, q, conj q) - 2 B(q, A^-1 B(q, conj q))
                     + B(conj q, (2 i w - A)^-1 B(q, q))>
    """
    n = len(q)
    qb = [v.conjugate() for v in q]

    def Bf(u, v):
        out = [0 * q[0]] * n
        for (i, j, m), h in H.items():
            out[i] = out[i] + h * u[j] * v[m]
        return out

    total = [0 * q[0]] * n
    for (i, j, m, k), t in T3.items():
        total[i] = total[i] + t * q[j] * q[m] * qb[k]
    if H:
        u = solve(0, Bf(q, qb))
        v = solve(2, Bf(q, q))  # (A - 2iw) v = B(q, q): v = -(2iw - A)^-1 B(q, q)
        t1, t2 = Bf(q, u), Bf(qb, v)
        total = [total[i] - 2 * t1[i] - t2[i] for i in range(n)]
    c1 = 0 * q[0]
    for i in range(n):
        c1 = c1 + pc[i] * total[i]
    return c1 / 2


@dataclass(frozen=True)
class HopfCoefficients:
    """At one Hopf point: ``c1`` and ``r'`` for the critical eigenvector ``q`` (a column,
    any scale: ``c1`` scales like ``|q|^2``, ``r'`` does not), ``l1`` (Kuznetsov's
    normalisation ``<q, q> = 1``: ``Re c1 / (|q|^2 omega)``) and the eigenvector residual."""

    c1: object
    r_prime: object
    q: object
    l1: object
    residual: object
