"""An independent second path for the second Lyapunov coefficient ``l2`` of a transition
table's fluid ODE, kept for the tests only: the production path is
:func:`symdelay.analysis.dnormal.bautin_l2` (exact derivatives of the rates, in Arb balls,
for tables and delay models alike); this one takes the multilinear forms by central finite
differences of the drift in mpmath, not interval-bounded.

The formulas are Kuznetsov's for the generalised Hopf (Bautin) normal form
``z' = i omega z + c1 z |z|^2 + c2 z |z|^4`` (Kuznetsov, *Elements of Applied Bifurcation
Theory*, 3rd ed., section 8.7; DDE-BIFTOOL's ``nmfm_genh`` writes them for delay equations
and reduces to these for an ODE): with ``A q = i omega q``, ``p A = i omega p``, ``p q = 1``
and the multilinear forms ``B, C, D, E`` of the drift's second to fifth derivatives at the
equilibrium::

    h20 = (2 i omega - A)^-1 B(q, q),  h11 = -A^-1 B(q, qb),
    c1  = 1/2 p [B(qb, h20) + 2 B(q, h11) + C(q, q, qb)],
    h30 = (3 i omega - A)^-1 [3 B(q, h20) + C(q, q, q)],
    h21 : (i omega - A) h21 = B(qb, h20) + 2 B(q, h11) + C(q, q, qb) - 2 c1 q, p h21 = 0,
    h31 = (2 i omega - A)^-1 [B(qb, h30) + 3 B(q, h21) + 3 B(h20, h11) + 3 C(q, qb, h20)
          + 3 C(q, q, h11) + D(q, q, q, qb) - 6 c1 h20],
    h22 = -A^-1 [2 B(qb, h21) + 2 B(h11, h11) + 2 B(q, h21b) + B(h20, h20b) + C(qb, qb, h20)
          + C(q, q, h20b) + 4 C(q, qb, h11) + D(q, q, qb, qb)],
    c2  = 1/12 p [6 B(h11, h21) + 3 B(h21b, h20) + B(h20b, h30) + 3 B(q, h22) + 2 B(qb, h31)
          + 6 C(qb, h20, h11) + 6 C(q, h11, h11) + 3 C(q, h20, h20b) + 6 C(q, qb, h21)
          + 3 C(q, q, h21b) + C(qb, qb, h30) + 6 D(q, q, qb, h11) + 3 D(q, qb, qb, h20)
          + D(q, q, q, h20b) + E(q, q, q, qb, qb)],

``l1 = Re c1 / omega`` and ``l2 = Re c2 / omega`` (``|q| = 1``). The forms are evaluated in
mpmath by central differences of the drift at complex points (the drift is analytic):
``M(v1, ..., vk) = sum_eps eps1...epsk f(x* + h sum eps_i v_i) / (2h)^k`` over the ``2^k``
sign patterns, at enough digits that the ``O(h^2)`` truncation and the cancellation both stay
below the digits asked for.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import mpmath

from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp

__all__ = ["BautinCoefficients", "second_lyapunov"]


@dataclass(frozen=True)
class BautinCoefficients:
    """``c1``, ``c2`` (for the critical eigenvector ``q`` of unit norm, ``p q = 1``),
    ``l1 = Re c1 / omega``, ``l2 = Re c2 / omega`` and ``q`` itself (mpmath)."""

    c1: object
    c2: object
    l1: object
    l2: object
    q: tuple
    omega: object


def second_lyapunov(model, names, values, omega, dps: int = 20) -> BautinCoefficients:
    """``c1``, ``c2``, ``l1`` and ``l2`` at the Hopf point where the parameters ``names`` have
    ``values`` (every other parameter a number in ``model``) and the critical pair is
    ``+- i omega``, to about ``dps`` digits (see the module docstring)."""
    from symdelay.analysis.window import _resolve

    eq = model.equilibrium
    if not eq.exact:
        raise SymdelayInputError("the equilibrium has no closed form: no l2")
    subs = {}
    syms = []
    for name in names:
        sym, rp = _resolve(model, name)
        syms.append(sym)
        if rp is not None:
            subs[rp.base] = rp.L / sym
    states = list(model.states)
    vals = dict(model.values)
    drift = [sp.sympify(e).xreplace(vals).xreplace(subs) for e in model.drift]
    point = [sp.sympify(eq.point[s]).xreplace(vals).xreplace(subs) for s in states]
    free = set().union(*(e.free_symbols for e in drift + point)) - set(states) - set(syms)
    if free:
        raise SymdelayInputError("l2 needs numbers for " + ", ".join(sorted(map(str, free))))
    f = sp.lambdify((*syms, *states), drift, "mpmath")
    x0f = sp.lambdify(syms, point, "mpmath")
    n = len(states)
    work = 6 * dps + 40  # the fifth differences lose about 5 * (digits of h)
    with mpmath.workdps(work):
        par = [_number(name, v) for name, v in zip(names, values)]
        x0 = [mpmath.mpmathify(v) for v in x0f(*par)]
        h = mpmath.mpf(10) ** (-(dps + 8))

        def F(x):
            return [mpmath.mpmathify(v) for v in f(*par, *x)]

        def form(*vs):
            k = len(vs)
            acc = [mpmath.mpc(0)] * n
            for eps in itertools.product((1, -1), repeat=k):
                sgn = 1
                for e in eps:
                    sgn *= e
                pt = [x0[i] + h * sum(e * v[i] for e, v in zip(eps, vs)) for i in range(n)]
                y = F(pt)
                for i in range(n):
                    acc[i] += sgn * y[i]
            den = (2 * h) ** k
            return [a / den for a in acc]

        E_ = [[mpmath.mpf(int(i == j)) for j in range(n)] for i in range(n)]
        A = mpmath.matrix(n, n)
        for j in range(n):
            col = form(E_[j])
            for i in range(n):
                A[i, j] = mpmath.re(col[i])
        w = _number("omega", omega)
        ev, ER = mpmath.eig(A)
        k = min(range(n), key=lambda i: abs(ev[i] - 1j * w))
        if abs(ev[k] - 1j * w) > mpmath.mpf(10) ** (-dps // 2) * (1 + w):
            raise SymdelayInputError(
                f"i omega = {mpmath.nstr(w, 10)}i is not an eigenvalue of the Jacobian there "
                f"(nearest {mpmath.nstr(ev[k], 10)}): not a Hopf point"
            )
        w = mpmath.im(ev[k])
        q = [ER[i, k] for i in range(n)]
        nq = mpmath.sqrt(mpmath.fsum(abs(v) ** 2 for v in q))
        q = [v / nq for v in q]
        evl, EL = mpmath.eig(A.T)
        kl = min(range(n), key=lambda i: abs(evl[i] - 1j * w))
        p = [EL[i, kl] for i in range(n)]
        pq = mpmath.fsum(p[i] * q[i] for i in range(n))
        p = [v / pq for v in p]
        qb = [mpmath.conj(v) for v in q]
        I = mpmath.eye(n)

        def solve(M, b):
            x = mpmath.lu_solve(M, mpmath.matrix(b))
            return [x[i] for i in range(n)]

        def dot(u):
            return mpmath.fsum(p[i] * u[i] for i in range(n))

        def add(*terms):
            out = [mpmath.mpc(0)] * n
            for c, v in terms:
                for i in range(n):
                    out[i] += c * v[i]
            return out

        def conj(v):
            return [mpmath.conj(a) for a in v]

        B, C, D = form, form, form
        M2, M3, M1 = 2j * w * I - A, 3j * w * I - A, 1j * w * I - A
        h20 = solve(M2, B(q, q))
        h11 = solve(-A, B(q, qb))
        r21 = add((1, B(qb, h20)), (2, B(q, h11)), (1, C(q, q, qb)))
        c1 = dot(r21) / 2
        h30 = solve(M3, add((3, B(q, h20)), (1, C(q, q, q))))
        # (i w - A) h21 = r21 - 2 c1 q with p h21 = 0: the bordered system
        Mb = mpmath.matrix(n + 1, n + 1)
        for i in range(n):
            for j in range(n):
                Mb[i, j] = M1[i, j]
            Mb[i, n] = q[i]
            Mb[n, i] = p[i]
        rhs = [*add((1, r21), (-2 * c1, q)), mpmath.mpc(0)]
        xs = mpmath.lu_solve(Mb, mpmath.matrix(rhs))
        h21 = [xs[i] for i in range(n)]
        h20b, h21b = conj(h20), conj(h21)
        h31 = solve(
            M2,
            add(
                (1, B(qb, h30)), (3, B(q, h21)), (3, B(h20, h11)), (3, C(q, qb, h20)),
                (3, C(q, q, h11)), (1, D(q, q, q, qb)), (-6 * c1, h20),
            ),
        )  # fmt: skip
        h22 = solve(
            -A,
            add(
                (2, B(qb, h21)), (2, B(h11, h11)), (2, B(q, h21b)), (1, B(h20, h20b)),
                (1, C(qb, qb, h20)), (1, C(q, q, h20b)), (4, C(q, qb, h11)),
                (1, D(q, q, qb, qb)),
            ),
        )  # fmt: skip
        c2 = (
            dot(
                add(
                    (6, B(h11, h21)), (3, B(h21b, h20)), (1, B(h20b, h30)), (3, B(q, h22)),
                    (2, B(qb, h31)), (6, C(qb, h20, h11)), (6, C(q, h11, h11)),
                    (3, C(q, h20, h20b)), (6, C(q, qb, h21)), (3, C(q, q, h21b)),
                    (1, C(qb, qb, h30)), (6, D(q, q, qb, h11)), (3, D(q, qb, qb, h20)),
                    (1, D(q, q, q, h20b)), (1, form(q, q, q, qb, qb)),
                )
            )
            / 12
        )  # fmt: skip
        out = BautinCoefficients(
            +c1, +c2, mpmath.re(c1) / w, mpmath.re(c2) / w, tuple(+v for v in q), +w
        )
    return out


def _number(name, v):
    """``v`` at the working precision: decimal text or a fraction exactly, mpmath numbers
    as they are."""
    if isinstance(v, str):
        from symdelay.core.exact import exact_fraction

        fr = exact_fraction(name, v)
        return mpmath.mpf(fr.numerator) / fr.denominator
    return mpmath.mpmathify(v)
