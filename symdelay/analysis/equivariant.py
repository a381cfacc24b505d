"""Hopf bifurcation with D_3 symmetry: three symmetric servers (the equivariant answer).

Where a declared 3-cycle ``sigma`` of the states (three symmetric servers) makes the
imaginary pair ``+- i omega`` of the Jacobian ``J`` double, one scalar first Lyapunov
coefficient is not defined; the answer is the D_3 x S^1-equivariant Hopf theorem
(Golubitsky, Stewart & Schaeffer, *Singularities and Groups in Bifurcation Theory II*,
ch. XVIII, sec. 1; Golubitsky & Stewart, *The Symmetry Perspective*, ch. 4).

**The group.** ``sigma`` is the model's declared permutation (every cycle of length 3);
a reflection ``kappa`` (``kappa sigma kappa = sigma^-1``) is searched among the
permutations that map each orbit ``(s, sigma s, sigma^2 s)`` of ``sigma`` to itself as
``sigma^k s0 -> sigma^-k s0`` (one base state ``s0`` per orbit), and is accepted only if
it maps the drift to itself exactly (SymPy, every component). Without such a reflection
the group is Z_3 only and the answer is refused in one line. A permutation acts on a
state vector by ``(P x)[pi(i)] = x[i]``.

**The centre eigenspace** ``ker(J - i omega)`` (complex dimension 2): ``q1`` spans its part
where ``P_sigma q1 = e^{2 pi i/3} q1`` (the Fourier vector of each orbit times the null vector
of the mode's block), ``q2 = P_kappa q1`` (then ``P_sigma q2 = e^{-2 pi i/3} q2``);
``p1, p2`` the dual left eigenvectors, ``conj(p_j)^T q_k = delta_jk`` (``p2 = P_kappa p1``).
On ``x = x* + z1 q1 + z2 q2 + c.c.`` the 3-cycle acts as
``(z1, z2) -> (e^{2 pi i/3} z1, e^{-2 pi i/3} z2)`` and ``kappa`` as ``(z1, z2) -> (z2, z1)``.

**The normal form to cubic order.** With ``F(x* + y) = J y + B(y, y)/2 + C(y, y, y)/6 + ...``
and ``y = Q z + conj(Q z) + H2(z, conj z) + ...`` the second-order terms are
``h_ab = (2 i omega - J)^-1 B(q_a, q_b)`` and ``h_a,cbar = -J^-1 B(q_a, conj q_c)``, and the
coefficient of the resonant monomial ``z_a z_b conj(z_c)`` in ``z_j'`` is (the multivariate
form of Kuznetsov's projection formula; ``1/2`` when ``a = b``)::

    G^j_{ab,c} = <p_j, C(q_a, q_b, conj q_c) + B(conj q_c, h_ab) + B(q_a, h_b,cbar)
                        + B(q_b, h_a,cbar)>.

D_3 x S^1 equivariance leaves only ``z1 |z1|^2`` and ``z1 |z2|^2``::

    z1' = z1 (lambda(p) + A |z1|^2 + B |z2|^2),   z2' = z2 (lambda(p) + A |z2|^2 + B |z1|^2)

with ``lambda(p) = i omega + r' (p - p_c)``, ``A = G^1_{11,1}``, ``B = G^1_{12,2}``. The ten
other resonant coefficients are computed too: the eight that D_3 forbids must vanish and the
two of ``z2'`` must repeat ``A`` and ``B`` (the check ``d3_equivariance_residual``); likewise
``<p_j, J_p q_k> = r' delta_jk`` (``crossing_matrix_residual``).

**The branches** (the C-axial isotropy subgroups of D_3 x S^1 on C^2; ``mu = Re r' (p - p_c)``,
``rho^2`` the squared amplitude of ``z``):

* rotating wave ``(z, 0)``, isotropy ``Z3~`` (``sigma`` with a third of the period): the three
  servers oscillate alike, each a third of the period after the previous one;
  ``rho^2 = -mu / Re A``. Eigenvalues of the amplitude equations there (beside the zero of
  the S^1 phase): ``2 Re A rho^2`` (radial) and ``Re(B - A) rho^2`` (twice: the ``z2``
  direction). Supercritical iff ``Re A < 0``; stable iff ``Re A < 0`` and ``Re(B - A) < 0``.
* standing wave ``(z, z)``, isotropy ``Z2(kappa)``: the two servers ``kappa`` swaps in phase,
  the third in antiphase with twice their amplitude; ``rho^2 = -mu / Re(A + B)``.
* standing wave ``(z, -z)``, isotropy ``Z2~(kappa)`` (``kappa`` with half the period): the
  server ``kappa`` fixes at rest to first order, the two others in antiphase;
  ``rho^2 = -mu / Re(A + B)``. (For D_3 the two kinds of standing wave are not conjugate:
  the ratio ``z2/z1`` is a cube root of ``1`` on one and of ``-1`` on the other.)

  On both: eigenvalues ``2 Re(A + B) rho^2`` (along the branch) and ``2 Re(A - B) rho^2``
  (``|z1| - |z2|``), and a third, the relative phase of ``z1`` and ``z2``, that is **zero at
  cubic order** (the cubic truncation has the symmetry of two independent phases).

**The fifth order** (what decides the standing waves when ``Re(A + B) < 0`` and
``Re(A - B) < 0``). The D_3 x S^1-equivariant monomials of degree 5 in ``z1'`` are
``z1 |z1|^4``, ``z1 |z1|^2 |z2|^2``, ``z1 |z2|^4`` (T^2-invariant, like the cubic ones) and
``conj(z1)^2 z2^3``, the only one that sees the relative phase (``z1 conj(z2)`` has weight
2 under the 3-cycle, so ``(z1 conj z2)^3`` is the lowest invariant that is not a function of
``|z1|, |z2|``)::

    z1' = z1 (lambda + A |z1|^2 + B |z2|^2 + P(|z1|^2, |z2|^2)) + C conj(z1)^2 z2^3,
    z2' = z2 (lambda + A |z2|^2 + B |z1|^2 + P(|z2|^2, |z1|^2)) + C conj(z2)^2 z1^3.

With ``z_j = r_j e^{i phi_j}`` and ``psi = phi1 - phi2``::

    r1'  = r1 Re(lambda + A r1^2 + B r2^2 + P) + r1^2 r2^3 Re(C e^{-3 i psi})
    phi1' = Im(lambda + A r1^2 + B r2^2 + P) + r1 r2^3 Im(C e^{-3 i psi})

and the mirror equations for ``r2, phi2`` (``e^{+3 i psi}``). The standing waves are
``r1 = r2 = r`` with ``eps = e^{3 i psi} = +1`` (``psi = 0``: ``(z, z)``, and its images
``psi = +-2 pi/3`` under the 3-cycle) or ``eps = -1`` (``psi = pi``: ``(z, -z)``). The
reflection ``(r1, r2, psi) -> (r2, r1, -psi)`` splits the linearisation into the direction
``r1 + r2`` (eigenvalue ``2 Re(A + B) r^2 + O(r^4)``) and the block in ``(u, psi)``,
``u = r1 - r2``, where every entry is computed from the equations above (using the
equilibrium ``Re(lambda + (A + B) r^2 + P) = -eps Re C r^4``)::

    [ 2 Re(A - B) r^2 + O(r^4)          6 eps Im C r^5      ]
    [ 2 Im(A - B) r   + O(r^3)         -6 eps Re C r^4      ]

Its trace is ``2 Re(A - B) r^2 + O(r^4)`` (negative here) and its determinant, of order
``r^6`` (the ``Im`` entries couple at the same order as the diagonal ones), is::

    det = -12 eps r^6 (Re(A - B) Re C + Im(A - B) Im C) + O(r^8)
        = -12 eps r^6 Re(conj(A - B) C) + O(r^8).

So, with ``Re(A + B) < 0`` and ``Re(A - B) < 0``, the standing wave ``(z, z)`` is stable
iff ``Re(conj(A - B) C) < 0`` and ``(z, -z)`` iff ``Re(conj(A - B) C) > 0``: exactly one of
them, the other a saddle. The slow eigenvalue is ``det / trace = -6 eps Re(conj(A - B) C) /
Re(A - B) r^4`` (``relative_phase_eigenvalue_over_rho4`` in the record, ``r = rho``). Note
that ``Re C`` alone does not decide: with ``A - B = -1/2 - i`` and ``C = 1 - 3 i`` the
diagonal entry favours ``(z, z)`` but the determinant makes ``(z, -z)`` the stable one
(checked by integrating this truncated normal form: tests/test_equivariant_fifth.py). The
criterion does not depend on the choices of the normal form at cubic order (their Lie
brackets with the T^2-equivariant cubic terms are T^2-equivariant: ``C`` is unchanged) and
scales by ``|c|^6 > 0`` under ``q1 -> c q1``. Golubitsky, Stewart & Schaeffer (vol. II,
ch. XVIII) treat D_n Hopf with the same term ``conj(z1)^{n-1} z2^n``; their text was not at
hand to compare symbols, so the criterion rests on the derivation above and on the
integrations in the tests (the truncated normal form, and the fluid ODE of a D_3 table where
the cubic order does not decide).

``C`` is computed, only where the cubic order does not decide, by :func:`fifth_order`: the
centre-manifold normal form to degree 5 by truncated power series of the drift
(:mod:`symdelay.analysis.nfseries`; its cubic coefficients repeat ``A`` and ``B`` and the
resonant coefficients D_3 forbids vanish, both checks in the record).

**Proofs.** ``A``, ``B``, ``C`` and the checks are computed in Arb balls (python-flint
``acb``): the tensors of the drift at the ball of the parameter's value and the frequency
``omega`` that a Krawczyk test proves to hold the Hopf point
(:func:`symdelay.analysis.normal_form._hopf_balls`), ``q1`` and ``p1`` as null vectors of
the mode's block with one component fixed to 1 and one row dropped (for every point of the
balls the reduced system's solution, so the eigenvectors at the true point), normalised in
``acb``, and the linear systems by ``acb_mat``. Every sign that decides a verdict
(``Re A``, ``Re(A + B)``, ``Re(A - B)``, ``Re(B - A)``, ``Re(conj(A - B) C)``, ``Re r'``)
is proved where its ball excludes 0; where it holds 0 the verdict is null with the ball in
the reason. In the record each standing wave has ``"fifth_order"`` (null where not
computed; else ``"C"`` as ``{"re", "im"}`` (midpoints), ``"criterion"`` the formula
``Re(conj(A - B) C)``, ``"criterion_value"``, ``"criterion_error"`` (the ball's radius) and
``"method"``) and ``"relative_phase_eigenvalue_over_rho4"``; the checks gain
``fifth_order_cubic_A_difference``, ``fifth_order_cubic_B_difference`` (relative to
``|A| + |B|``) and ``fifth_order_d3_residual`` (upper bounds from the balls). The rest of
the spectrum is placed by the Routh array of ``det(x I - J) / (x^2 + omega^2)^2``
in Arb (:func:`_other_spectrum_sign`); ``other_spectrum_max_real`` in the checks is its
estimate in doubles (a number to read, not a proof).

So: supercritical iff ``Re(A + B) < 0``; unstable (``stable: false``) if ``Re(A + B) > 0``
or ``Re(A - B) > 0``; otherwise the fifth order decides as above (``stable: null`` with the
reason where ``C`` is not computed, e.g. a drift with a function the series do not expand).

Every branch is unstable when ``J`` has an eigenvalue with positive real part beside the
critical ones (``other_spectrum``). The amplitude law on each branch, ``rho ~
sqrt(-Re r' (p - p_c) / Re coef)``, is translated to the states of the first orbit of
``sigma`` (the queues): state ``k`` oscillates as ``2 rho |v_k| cos(omega t + arg v_k)`` with
``v = q1``, ``q1 + q2`` or ``q1 - q2``; its amplitude coefficient is ``2 |v_k| sqrt(|Re r' /
Re coef|)`` (half the peak-to-peak) and its phase lag behind the first state of the orbit
``(arg v_0 - arg v_k) / (2 pi)`` periods.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import mpmath

from symdelay.core.lazy import sympy as sp

__all__ = [
    "D3Hopf",
    "d3_hopf",
    "find_reflection",
    "fifth_order",
    "relative_phase_eigenvalue",
    "STANDING_PHASE_REASON",
]

STANDING_PHASE_REASON = (
    "the eigenvalues of order rho^2 are negative, but the relative phase of z1 and z2 is "
    "neutral at cubic order: the fifth-order term conj(z1)^2 z2^3 (not computed{why}) makes "
    "exactly one of the two standing waves stable"
)


@dataclass(frozen=True)
class D3Hopf:
    """The D_3 x S^1 normal form at one Hopf point (see the module docstring): ``A``, ``B``,
    the crossing speed ``r_prime``, the eigenvectors ``q1``, ``q2`` (mpmath columns), the
    reflection found (``reflection``: ``{state: image}``), the branches (``patterns``: a list
    of dicts, the record's), the checks and the fifth-order coefficient ``C`` of
    ``conj(z1)^2 z2^3`` (None where it is not computed). ``A``, ``B``, ``C`` are the midpoints
    of the Arb balls in ``balls`` (``{"A", "B", "r_prime"[, "C"]}``: python-flint ``acb``,
    each holding the exact value; the verdicts' proofs)."""

    A: mpmath.mpc
    B: mpmath.mpc
    r_prime: mpmath.mpc
    omega: mpmath.mpf
    q1: object
    q2: object
    reflection: dict
    orbit: tuple
    patterns: list
    checks: dict = field(default_factory=dict)
    C: mpmath.mpc | None = None
    balls: dict = field(default_factory=dict, compare=False)


def _cycles(perm) -> list:
    """The cycles of the permutation ``perm`` that move a state (fixed points left out)."""
    from symdelay.model.records import _cycles as all_cycles

    return [c for c in all_cycles(perm) if len(c) > 1]


def find_reflection(model) -> tuple | None:
    """A permutation ``kappa`` of the states (a tuple ``kappa[i]`` = the image of state ``i``)
    with ``kappa sigma kappa = sigma^-1`` that maps the drift to itself, for the model's
    declared 3-cycle ``sigma``; None when there is none (searched: every choice of one base
    state per orbit, pruned by the dependency graph of the drift, each candidate checked
    exactly on every component of the drift).

    >>> from symdelay.models import build_model
    >>> m = build_model("nserver", N=3, L=1, mu=1, lam=1, D=1)
    >>> [m.states[i].name for i in find_reflection(m)]
    ['q1', 'q3', 'q2', 'z1_1', 'z3_1', 'z2_1']
    """
    perm = model.permutation
    if perm is None:
        return None
    orbits = _cycles(perm)
    if not orbits or any(len(c) != 3 for c in orbits):
        return None
    n = len(perm)
    fixed = [i for i in range(n) if perm[i] == i]
    states = model.states
    drift = [sp.sympify(F).xreplace(model.values) for F in model.drift]
    deps = [{k for k, s in enumerate(states) if F.has(s)} for F in drift]

    def mapping(offsets):
        kap = list(range(n))
        for orb, j in zip(orbits, offsets):
            for k in range(3):
                kap[orb[(j + k) % 3]] = orb[(j - k) % 3]
        return kap

    def consistent(kap, known):
        # the dependency graph restricted to the states placed so far is preserved
        for i in known:
            for k in deps[i]:
                if k in known and kap[k] not in deps[kap[i]]:
                    return False
        return True

    def search(offsets):
        if len(offsets) == len(orbits):
            return mapping(offsets)
        for j in range(3) if offsets else (0,):  # kappa sigma^k: the first base is free
            trial = [*offsets, j]
            kap = mapping(trial + [0] * (len(orbits) - len(trial)))
            known = set(fixed).union(*(orbits[t] for t in range(len(trial))))
            if consistent(kap, known):
                found = search(trial)
                if found is not None and _maps_drift(drift, states, found):
                    return found
        return None

    found = search([])
    return None if found is None else tuple(found)


def _maps_drift(drift, states, kap) -> bool:
    """``F(P x) = P F(x)`` exactly: component ``kappa(i)`` of the drift at the permuted
    state equals component ``i`` (``(P x)[kappa(i)] = x[i]``)."""
    sub = {states[kap[i]]: states[i] for i in range(len(states))}
    for i, F in enumerate(drift):
        lhs = drift[kap[i]].xreplace(sub)
        if lhs == F:
            continue
        if sp.simplify(lhs - F) != 0:
            return False
    return True


def _apply(perm, v):
    """``P v`` for the permutation ``perm``: ``(P v)[perm[i]] = v[i]``."""
    out = [None] * len(v)
    for i, j in enumerate(perm):
        out[j] = v[i]
    return out


def _null(M, m):
    """The null vector of the ``m x m`` acb matrix ``M`` (rows of lists) with its largest
    component fixed to 1 and the row of the largest component of the left null vector left
    out (both chosen from the midpoints in doubles): for every point of the balls the
    reduced system's solution, so at the true point the null vector (the dropped row is
    implied where ``M`` has rank ``m - 1``). ZeroDivisionError where the reduced system is
    not invertible over the balls."""
    import flint
    import numpy as np

    if m == 1:
        return [flint.acb(1)]
    M0 = np.array([[complex(float(x.real.mid()), float(x.imag.mid())) for x in row] for row in M])
    _, _, vh = np.linalg.svd(M0)
    piv = int(np.argmax(np.abs(vh[-1])))
    u, _, _ = np.linalg.svd(M0)
    drop = int(np.argmax(np.abs(u[:, -1])))
    rows = [r for r in range(m) if r != drop]
    cols = [c for c in range(m) if c != piv]
    sol = flint.acb_mat(m - 1, m - 1, [M[r][c] for r in rows for c in cols]).solve(
        flint.acb_mat(m - 1, 1, [-M[r][piv] for r in rows])
    )
    y = [flint.acb(1)] * m
    for t, c in enumerate(cols):
        y[c] = sol[t, 0]
    return y


def _centre_vectors(J, w, orbits, kappa, n):
    """``q1, q2`` and the rows ``conj(p1), conj(p2)`` (lists of acb balls) for the Jacobian
    ``J`` (rows of acb) and the frequency ball ``w`` (module docstring): ``q1`` the Fourier
    vectors of the orbits times the null vector of the mode's block (:func:`_null`), the
    left vector likewise, normalised in acb."""
    import flint

    iw = flint.acb(0, w)
    e3 = flint.acb(-1, flint.arb(3).sqrt()) / 2  # e^{2 pi i/3}
    pw = [flint.acb(1), e3.conjugate(), e3]  # e3^-k
    m = len(orbits)
    V = [[flint.acb(0)] * m for _ in range(n)]
    for c, orb in enumerate(orbits):
        for k, st in enumerate(orb):
            V[st][c] = pw[k]
    nz = [[k for k in range(n) if not V[k][c].is_zero()] for c in range(m)]
    JV = [[sum((J[i][k] * V[k][c] for k in nz[c]), flint.acb(0)) for c in range(m)]
          for i in range(n)]  # fmt: skip
    block = [[sum((V[i][a].conjugate() * JV[i][c] for i in range(n)), flint.acb(0)) / 3
              - (iw if a == c else 0) for c in range(m)] for a in range(m)]  # fmt: skip
    y = _null(block, m)
    # the left vector: conj(p)^T (J - i w) = 0 on the same eigenspace, i.e. the null vector
    # of the transposed block, and conj(p1) = conj(V) yt
    yt = _null([[block[c][a] for c in range(m)] for a in range(m)], m)
    q1 = [sum((V[i][c] * y[c] for c in range(m)), flint.acb(0)) for i in range(n)]
    pc1 = [sum((V[i][c].conjugate() * yt[c] for c in range(m)), flint.acb(0)) for i in range(n)]
    s = sum((pc1[i] * q1[i] for i in range(n)), flint.acb(0))
    pc1 = [x / s for x in pc1]  # conj(p1)^T q1 = 1
    return q1, _apply(kappa, q1), pc1, _apply(kappa, pc1)


def d3_hopf(tensors, n, omega, model, kappa, r_prime_factor, dps, fifth=None) -> D3Hopf:
    """The D_3 normal form at a Hopf point in Arb balls (python-flint; call inside the Arb
    precision wanted): ``tensors`` and ``omega`` balls (``arb``; mpmath numbers are taken as
    the exact binary values they hold), every coefficient a ball, every sign proved or left
    undecided (module docstring).

    ``tensors``: ``(J, H, T3, dJ)`` dicts of the Jacobian, second and third derivatives of the
    drift at the equilibrium (every index order present) and the derivative of the Jacobian in
    the parameter (:meth:`symdelay.analysis.normal_form.FirstLyapunov._tensors`); ``kappa``:
    the reflection (:func:`find_reflection`); ``r_prime_factor``: the crossing speed of the
    factor (implicit function theorem), compared with the projected one; ``fifth``:
    ``(first_lyapunov, value)`` (:class:`symdelay.analysis.normal_form.FirstLyapunov` and the
    parameter's value at the Hopf point, a ball) to compute the fifth-order coefficient
    ``C`` from the drift (:func:`fifth_order`) where the cubic order does not decide the standing waves
    (``Re(A + B) < 0``, ``Re(A - B) < 0``, no other unstable eigenvalue; elsewhere ``C`` decides
    nothing and is not computed), None to leave it out (the standing waves' stability is
    then undecided where the cubic order does not decide it)."""
    import flint

    from symdelay.analysis.dnormal import _mp

    Jd, H, T3, dJ = ({k: _as_ball(v) for k, v in t.items()} for t in tensors)
    sigma = model.permutation
    orbits = _cycles(sigma)
    w = _as_ball(omega)
    iw = flint.acb(0, w)
    zero = flint.acb(0)
    J = [[zero] * n for _ in range(n)]
    for (i, j), v in Jd.items():
        J[i][j] = flint.acb(v)
    q1l, q2l, pc1, pc2 = _centre_vectors(J, w, orbits, kappa, n)
    qs = [q1l, q2l]
    pcs = [pc1, pc2]
    qbs = [[v.conjugate() for v in q] for q in qs]

    def Bf(u, v):
        out = [zero] * n
        for (i, a, b), h in H.items():
            out[i] += h * u[a] * v[b]
        return out

    def Cf(u, v, x):
        out = [zero] * n
        for (i, a, b, c), t in T3.items():
            out[i] += t * u[a] * v[b] * x[c]
        return out

    mats = {}

    def solve(k, b):
        if k not in mats:
            mats[k] = flint.acb_mat(
                n, n, [J[i][j] - (k * iw if i == j else 0) for i in range(n) for j in range(n)]
            ).inv()
        x = mats[k] * flint.acb_mat(n, 1, b)
        return [x[i, 0] for i in range(n)]

    def dot(pc, v):
        return sum((pc[i] * v[i] for i in range(n)), zero)

    hh, hb = {}, {}
    if H:
        for a, b in itertools.combinations_with_replacement(range(2), 2):
            hh[a, b] = [-v for v in solve(2, Bf(qs[a], qs[b]))]  # (2 i w - J)^-1 B(q_a, q_b)
        for a in range(2):
            for c in range(2):
                hb[a, c] = [-v for v in solve(0, Bf(qs[a], qbs[c]))]  # -J^-1 B(q_a, conj q_c)

    def G(j, a, b, c):
        tot = Cf(qs[a], qs[b], qbs[c])
        if H:
            parts = (Bf(qbs[c], hh[a, b]), Bf(qs[a], hb[b, c]), Bf(qs[b], hb[a, c]))
            tot = [tot[i] + sum(p[i] for p in parts) for i in range(n)]
        g = dot(pcs[j], tot)
        return g / 2 if a == b else g

    coef = {
        (j, a, b, c): G(j, a, b, c)
        for j in range(2)
        for a, b in itertools.combinations_with_replacement(range(2), 2)
        for c in range(2)
    }
    Ab, Bb = coef[0, 0, 0, 0], coef[0, 0, 1, 1]
    kept = {(0, 0, 0, 0): Ab, (0, 0, 1, 1): Bb, (1, 1, 1, 1): Ab, (1, 0, 1, 0): Bb}
    scale = _upper(abs(Ab) + abs(Bb))
    equiv = max(_upper(abs(v - kept.get(k, 0))) for k, v in coef.items()) / scale
    # the crossing: <p_j, J_p q_k> = r' delta_jk
    Rm = [[zero] * 2 for _ in range(2)]
    for j in range(2):
        for k in range(2):
            Jq = [zero] * n
            for (i, c), v in dJ.items():
                Jq[i] += v * qs[k][c]
            Rm[j][k] = dot(pcs[j], Jq)
    rp = Rm[0][0]
    rp_abs = _lower(abs(rp))
    cross = (
        max(_upper(abs(Rm[0][1])), _upper(abs(Rm[1][0])), _upper(abs(Rm[1][1] - rp))) / rp_abs
        if rp_abs > 0
        else mpmath.inf
    )
    jnorm = max(sum(_upper(abs(J[i][j])) for i in range(n)) for j in range(n))
    residual = max(
        sum(_upper(abs(sum((J[i][k] * q[k] for k in range(n)), zero) - iw * q[i]))
            for i in range(n))
        for q in qs
    ) / (1 + jnorm)  # fmt: skip
    # the rest of the spectrum (doubles are enough to place it away from the axis)
    A, B = _mp(Ab), _mp(Bb)
    Jmid = mpmath.matrix([[_mpr(x) for x in row] for row in J])
    other = _other_spectrum(Jmid, _mp(flint.acb(w)).real)
    spectrum = _other_spectrum_sign(Jd, n, w)
    checks = {
        "d3_equivariance_residual": equiv,
        "crossing_matrix_residual": cross,
        "r_prime_projection_minus_factor": _upper(abs(rp - _as_ball(r_prime_factor))),
        "centre_eigenvector_residual": residual,
        "other_spectrum_max_real": other,
    }
    orbit = tuple(orbits[0])
    five = None
    undecided = _sign(Ab.real + Bb.real) < 0 and _sign(Ab.real - Bb.real) < 0 and spectrum < 1
    if fifth is not None and undecided:  # only there does the fifth order decide anything
        five = fifth_order(
            model, fifth[0], _as_ball(fifth[1]), w, kappa, dps, vectors=(q1l, q2l, pc1, pc2)
        )
        if five.get("C") is not None:
            checks["fifth_order_cubic_A_difference"] = _upper(abs(five["A"] - Ab)) / scale
            checks["fifth_order_cubic_B_difference"] = _upper(abs(five["B"] - Bb)) / scale
            checks["fifth_order_d3_residual"] = five["d3_residual"]
    qmid = [[_mp(x) for x in q] for q in qs]
    patterns = _patterns(Ab, Bb, rp, qmid, orbit, model, spectrum, dps, five)
    return D3Hopf(
        A, B, r_prime_factor, _mp(flint.acb(w)).real, qmid[0], qmid[1],
        {model.states[i].name: model.states[kappa[i]].name for i in range(n) if kappa[i] != i},
        tuple(model.states[i].name for i in orbit), patterns, checks,
        None if five is None or five.get("C") is None else _mp(five["C"]),
        {"A": Ab, "B": Bb, "r_prime": rp,
         **({} if five is None or five.get("C") is None else {"C": five["C"]})},
    )  # fmt: skip


def _as_ball(x):
    """An Arb ball as given; an mpmath/Python number as the exact ball of its binary value."""
    import flint

    if type(x).__name__ in ("arb", "acb"):
        return x
    if isinstance(x, (int, float)):
        return flint.arb(x)
    x = mpmath.mpmathify(x)
    if isinstance(x, mpmath.mpc):
        return flint.acb(_as_ball(x.real), _as_ball(x.imag))
    sign, man, exp, _ = x._mpf_
    return (-1) ** sign * flint.arb(flint.fmpz(int(man))) * flint.arb(2) ** int(exp)


def _upper(x) -> mpmath.mpf:
    """An upper bound of the (real) ball ``x`` as mpmath."""
    from symdelay.analysis.dnormal import _mpf

    x = x.real if type(x).__name__ == "acb" else x
    return _mpf(x.upper())


def _lower(x) -> mpmath.mpf:
    from symdelay.analysis.dnormal import _mpf

    x = x.real if type(x).__name__ == "acb" else x
    return _mpf(x.lower())


def _mpr(x) -> mpmath.mpf:
    """The midpoint of the real ball ``x`` (or of an acb's real part) as mpmath."""
    from symdelay.analysis.dnormal import _mp

    return mpmath.re(_mp(x))


def _sign(x) -> int:
    """The sign of the real ball ``x``, proved: ``1`` or ``-1`` where the ball excludes 0,
    ``0`` where it holds 0 (undecided)."""
    if x > 0:
        return 1
    if x < 0:
        return -1
    return 0


def _ball_text(x) -> str:
    """``value +- radius`` of the real ball ``x`` (3 digits each)."""
    from symdelay.analysis.dnormal import _mpf

    return f"{mpmath.nstr(_mpf(x.mid()), 3)} +- {mpmath.nstr(_mpf(x.rad()), 3)}"


def relative_phase_eigenvalue(A, B, C, eps):
    """The relative phase's eigenvalue over ``rho^4`` on the standing wave ``z2 = eps z1``
    (``eps = +1``: ``(z, z)``, ``-1``: ``(z, -z)``), ``det / trace`` of the ``(u, psi)``
    block (module docstring): ``-6 eps Re(conj(A - B) C) / Re(A - B)``.

    >>> relative_phase_eigenvalue(-1 + 1j, -0.5 + 2j, 1 - 3j, -1)  # (z, -z) stable here
    -30.0
    """
    return -6 * eps * (((A - B).conjugate() * C).real) / (A - B).real


def fifth_order(model, lyap, value, omega, kappa, dps, vectors) -> dict:
    """The fifth-order normal form on the centre manifold (module docstring), in Arb balls
    (python-flint ``acb``; call inside the Arb precision wanted): ``A``, ``B`` (degree 3, for
    the comparison with :func:`d3_hopf`), ``C`` (the coefficient of ``conj(z1)^2 z2^3`` in
    ``z1'``), ``criterion`` (``Re(conj(A - B) C)``, a real ball), ``d3_residual`` (an upper
    bound of the largest resonant coefficient of degree 5 that D_3 forbids, and of the
    mismatch of ``z2'``'s mirror terms, over the largest allowed one) and ``scale``. Every
    ball holds the exact value for every point of the balls ``value`` (the parameter) and
    ``omega`` that is the Hopf point. ``vectors``: ``(q1, q2, conj(p1), conj(p2))`` from
    :func:`_centre_vectors`. ``{"C": None, "reason": ...}`` where the drift has a function
    the series do not expand, or a linear system is not invertible over the balls."""
    from symdelay.analysis.nfseries import SeriesUnsupported

    try:
        return _fifth_at(model, lyap, value, omega, kappa, vectors)
    except SeriesUnsupported as exc:
        return {"C": None, "reason": str(exc)}
    except ZeroDivisionError:
        return {
            "C": None,
            "reason": "a term of the drift is singular at the equilibrium (a power or log of "
            "0), or a linear system is not invertible over the balls",
        }


def _fifth_at(model, lyap, value, omega, kappa, vectors) -> dict:
    """:func:`fifth_order` (its body)."""
    import flint

    from symdelay.analysis.nfseries import SeriesUnsupported, _number, centre_normal_form
    from symdelay.analysis.window import _resolve

    sym = lyap._syms[0]
    _, rp = _resolve(model, str(sym))
    env = {sym: value}
    subs = {}
    if rp is not None:
        subs[rp.base] = rp.L / sym
    states = list(model.states)
    drift = [sp.sympify(F).xreplace(subs) for F in model.drift]
    free = set().union(*(F.free_symbols for F in drift)) - set(states) - {sym}
    if free:
        raise SeriesUnsupported("the drift needs numbers for " + ", ".join(sorted(map(str, free))))
    point = [
        _number(sp.sympify(model.equilibrium.point[s]).xreplace(subs), env, balls=True)
        for s in states
    ]
    n = len(states)
    Jd = lyap.tensors_arb((value,))[0]
    J = flint.acb_mat(n, n)
    for (i, j), x in Jd.items():
        J[i, j] = flint.acb(x)
    q1, q2, p1, p2 = vectors
    nf = centre_normal_form(drift, states, point, env, J, omega, [q1, q2], [p1, p2], order=5)
    mono, G = nf["mono"], nf["G"]

    def coef(j, e):
        return G[j][mono.index[e]]

    A, B, C = coef(0, (2, 0, 1, 0)), coef(0, (1, 1, 0, 1)), coef(0, (0, 3, 2, 0))
    # the D_3 x S^1-equivariant terms of degree 5 in z1': z1 |z1|^4, z1 |z1|^2 |z2|^2,
    # z1 |z2|^4 and conj(z1)^2 z2^3; in z2' their mirror images (z1 <-> z2)
    allowed = {(3, 0, 2, 0), (2, 1, 1, 1), (1, 2, 0, 2), (0, 3, 2, 0)}

    def mirror(e):
        return (e[1], e[0], e[3], e[2])

    forbidden, mirrored, scale = mpmath.mpf(0), mpmath.mpf(0), mpmath.mpf(0)
    for idx, e in enumerate(mono.exps):
        if mono.degree[idx] != 5 or sum(e[:2]) - sum(e[2:]) != 1:
            continue
        g1 = flint.acb(G[0][idx])
        if e in allowed:
            scale = max(scale, _upper(abs(g1)))
            mirrored = max(mirrored, _upper(abs(coef(1, mirror(e)) - g1)))
        else:
            forbidden = max(forbidden, _upper(abs(g1)), _upper(abs(flint.acb(coef(1, mirror(e))))))
    scale = scale or mpmath.mpf(1)
    return {
        "A": A,
        "B": B,
        "C": C,
        "criterion": ((A - B).conjugate() * C).real,
        "scale": scale,
        "d3_residual": max(forbidden, mirrored) / scale,
    }


def _other_spectrum(J, w) -> float:
    """The largest real part of the eigenvalues of ``J`` other than the four ``+- i w``."""
    import numpy as np

    from symdelay.core.precision import one_blas_thread

    Jf = np.array([[float(J[i, j]) for j in range(J.cols)] for i in range(J.rows)])
    with one_blas_thread():
        ev = np.linalg.eigvals(Jf)
    order = np.argsort(np.minimum(np.abs(ev - 1j * float(w)), np.abs(ev + 1j * float(w))))
    rest = ev[order[4:]]
    return float(np.max(rest.real)) if len(rest) else float("-inf")


def _other_spectrum_sign(Jd, n, w) -> int:
    """Where the eigenvalues of ``J`` other than the double pair ``+- i w`` lie, proved:
    ``-1`` all in ``Re < 0``, ``1`` one at least in ``Re > 0``, ``0`` undecided (one on the
    axis, or a ball that holds 0). ``det(x I - J)`` of the ball matrix (Arb ``charpoly``)
    divided by ``(x^2 + w^2)^2`` (synthetic division of balls: an enclosure of the exact
    quotient for every point of the balls), then the Routh array of the quotient in Arb: no
    entry of its first column holding 0, the number of sign changes counts the roots in
    ``Re > 0`` (and none is on the axis)."""
    import flint

    J = flint.arb_mat(n, n)
    for (i, j), v in Jd.items():
        J[i, j] = v
    cp = J.charpoly()
    c = [cp[n - k] for k in range(n + 1)]  # highest first, monic
    w2 = w * w
    for _ in range(2):  # divide by x^2 + w^2, twice
        q = []
        rem = list(c)
        for k in range(len(c) - 2):
            lead = rem[k]
            q.append(lead)
            rem[k + 2] = rem[k + 2] - lead * w2
        c = q
    if len(c) <= 1:
        return -1
    first = _routh_first_column(c)
    if first is None:
        return 0
    changes = sum(1 for u, v in itertools.pairwise(first) if (u > 0) != (v > 0))
    return 1 if changes else -1


def _routh_first_column(cs):
    """The first column of the Routh array of ``sum cs[k] x^(n-k)`` (Arb balls, highest
    first), or None where an entry's ball holds 0 (the count is then not proved)."""
    rows = [cs[0::2], cs[1::2]]
    n = len(cs) - 1
    first = [cs[0]]
    if _sign(cs[0]) == 0:
        return None
    for _ in range(n):
        a, b = rows[-2], rows[-1]
        if not b or _sign(b[0]) == 0:
            return None
        first.append(b[0])
        nxt = [
            (
                b[0] * (a[j + 1] if j + 1 < len(a) else 0)
                - a[0] * (b[j + 1] if j + 1 < len(b) else 0)
            )
            / b[0]
            for j in range(max(len(a), len(b)) - 1)
        ]
        rows.append(nxt)
    return first if len(first) == n + 1 else None


def _patterns(A, B, rp, qs, orbit, model, spectrum, dps, five=None) -> list:
    """The three branches (module docstring): criticality, stability, amplitude law;
    ``five`` (:func:`fifth_order`, or None) decides the standing waves' relative phase.
    ``A``, ``B``, ``rp`` are acb balls: every sign is proved (the ball excludes 0) or left
    undecided with the ball in the reason (:func:`_sign`)."""
    reA, reB = A.real, B.real
    q1, q2 = qs
    names = [model.states[i].name for i in orbit]
    spectrum_unstable = spectrum > 0
    spectrum_marginal = spectrum == 0
    sign = _sign

    def phase(eps):
        """The relative phase's eigenvalue over rho^4 on the standing wave ``z2 = eps z1``:
        ``(ball, reason_if_not_computed, fifth_order_record)``."""
        if five is None or five.get("C") is None:
            why = "" if five is None else ": " + five["reason"]
            return None, STANDING_PHASE_REASON.format(why=why), None
        C, S = five["C"], five["criterion"]
        value = relative_phase_eigenvalue(A, B, C, eps) if sign(reA - reB) != 0 else None
        rec = {
            "C": {"re": _fmt(_mpr(C.real), dps), "im": _fmt(_mpr(C.imag), dps)},
            "criterion": "Re(conj(A - B) C)",
            "criterion_value": _fmt(_mpr(S), dps),
            "criterion_error": mpmath.nstr(_upper(S.rad()), 3),
            "method": (
                "centre-manifold normal form to degree 5 by truncated power series of the "
                "drift in interval arithmetic (Arb balls, python-flint, over the certified "
                "balls of the Hopf point and omega; error: the ball's radius)"
            ),
        }
        return value, None, rec

    def branch(pattern, isotropy, coef, v, eigen, description, eps=None):
        """``eigen``: the real parts whose signs decide stability (a list of
        ``(value, name)``), ``None`` entries marking the relative phase, neutral at cubic
        order, decided at fifth order on the standing wave ``z2 = eps z1``."""
        re_c = coef.real
        ph, ph_why, five_rec = (None, None, None) if eps is None else phase(eps)
        crit = {-1: "supercritical", 1: "subcritical", 0: "degenerate"}[sign(re_c)]
        stable, why = None, None
        if crit == "degenerate":
            why = (
                "the ball of Re of the branch's cubic coefficient holds 0 "
                f"({_ball_text(re_c)}): its sign is not proved"
            )
        elif spectrum_unstable:
            stable, why = False, "the Jacobian has an eigenvalue with Re > 0 beside +-i omega"
        elif any(sign(x) > 0 for x, _ in eigen if x is not None):
            bad = [nm for x, nm in eigen if x is not None and sign(x) > 0]
            stable, why = False, "positive: " + ", ".join(bad)
        elif any(x is not None and sign(x) == 0 for x, _ in eigen):
            zero = [f"{nm} = {_ball_text(x)}" for x, nm in eigen if x is not None and sign(x) == 0]
            why = (
                "the ball of an eigenvalue of order rho^2 holds 0 ("
                + ", ".join(zero)
                + "): its sign is not proved"
            )
        elif any(x is None for x, _ in eigen) and ph is None:
            why = ph_why or "the relative phase's eigenvalue is not defined (Re(A - B) = 0)"
        elif any(x is None for x, _ in eigen) and sign(ph) == 0:
            why = (
                "the relative phase's eigenvalue -6 eps Re(conj(A - B) C) / Re(A - B) rho^4 "
                f"is not proved nonzero (its ball {_ball_text(ph)} times rho^4 holds 0): the "
                "fifth order does not decide"
            )
        elif any(x is None for x, _ in eigen) and sign(ph) > 0:
            stable, why = (
                False,
                (
                    "positive: relative phase -6 eps Re(conj(A - B) C) / Re(A - B) rho^4 (fifth "
                    "order)"
                ),
            )
        elif spectrum_marginal:
            why = (
                "the Jacobian's other eigenvalues are not proved in Re < 0 (the Routh array "
                "of its characteristic polynomial without +-i omega has a ball holding 0: an "
                "eigenvalue on the imaginary axis, or too wide balls)"
            )
        else:
            stable = True
        side = None
        amp = None
        amps, lags = {}, {}
        if crit != "degenerate" and sign(rp.real) != 0:
            side = "above" if -sign(rp.real) * sign(re_c) > 0 else "below"
            k = mpmath.sqrt(abs(_mpr(rp.real) / _mpr(re_c)))
            amp = max(2 * abs(v[i]) * k for i in orbit)
            amps = {nm: _fmt(2 * abs(v[i]) * k, dps) for nm, i in zip(names, orbit)}
        big = max(abs(v[i]) for i in orbit)
        ref = next(i for i in orbit if abs(v[i]) > big * mpmath.mpf(10) ** (-(dps // 2)))
        for nm, i in zip(names, orbit):
            if abs(v[i]) <= big * mpmath.mpf(10) ** (-(dps // 2)):
                lags[nm] = None  # at rest to first order
                continue
            lag = (mpmath.arg(v[ref]) - mpmath.arg(v[i])) / (2 * mpmath.pi)
            lag -= mpmath.floor(lag)
            if abs(lag - 1) <= mpmath.mpf(10) ** (-(dps // 2)):
                lag = mpmath.mpf(0)
            lags[nm] = _fmt(lag, dps)
        return {
            "pattern": pattern,
            "isotropy": isotropy,
            "description": description,
            "coefficient": {"re": _fmt(_mpr(re_c), dps), "im": _fmt(_mpr(coef.imag), dps)},
            "criticality": crit,
            "stable": stable,
            "stability_reason": why,
            "eigenvalues_over_rho2": {
                nm: (None if x is None else _fmt(_mpr(x), dps)) for x, nm in eigen
            },
            "relative_phase_eigenvalue_over_rho4": None if ph is None else _fmt(_mpr(ph), dps),
            "fifth_order": five_rec,
            "amplitude_coefficient": None if amp is None else _fmt(amp, dps),
            "amplitudes": amps,
            "side": side,
            "phase_lags": lags,
        }

    lo = names[0]
    return [
        branch(
            "rotating wave",
            "Z3~ (the 3-cycle with a third of the period)",
            A,
            q1,
            [(2 * reA, "radial 2 Re A"), (reB - reA, "Re(B - A)")],
            "z2 = 0: the servers of each orbit oscillate alike, each a third of the period "
            f"after the previous one (phase lags behind {lo}); z1 = 0 is its mirror image",
        ),
        branch(
            "standing wave",
            "Z2(kappa) (the reflection)",
            A + B,
            [q1[i] + q2[i] for i in range(len(q1))],
            [
                (2 * (reA + reB), "along the branch 2 Re(A + B)"),
                (2 * (reA - reB), "transverse 2 Re(A - B)"),
                (None, "relative phase (fifth order)"),
            ],
            "z1 = z2: the two servers the reflection swaps in phase, the third in antiphase",
            eps=1,
        ),
        branch(
            "standing wave",
            "Z2~(kappa) (the reflection with half the period)",
            A + B,
            [q1[i] - q2[i] for i in range(len(q1))],
            [
                (2 * (reA + reB), "along the branch 2 Re(A + B)"),
                (2 * (reA - reB), "transverse 2 Re(A - B)"),
                (None, "relative phase (fifth order)"),
            ],
            "z1 = -z2: the server the reflection fixes at rest to first order (it oscillates "
            "at twice the frequency), the two others in antiphase",
            eps=-1,
        ),
    ]


def _fmt(x, dps):
    from symdelay.core.numbers import format_number

    return format_number(x, dps)
