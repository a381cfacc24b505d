"""Hopf points in one parameter of a table whose equilibrium has no decided closed form.

Where the closed-form equilibrium cannot be singled out with the parameter ``p`` free (the
food chain's five solutions in radicals of ``b1``, whose signs depend on ``b1``), the
equilibrium is *followed* along the range instead, as MatCont and AUTO do, and every Hopf
point on it is located and proved:

1. **The chosen equilibrium at the start.** At the range's low end (an exact rational) every
   real zero of the drift is enumerated and the one with every state positive picked
   (:func:`symdelay.model.equilibrium.certified_equilibrium`, the model's own rule; refused
   where it leaves several or none).
2. **Followed.** Newton's method carries it over ``SCAN`` equally spaced values of ``p``
   (as :func:`symdelay.analysis.stability_map_moving.first_crossing` scans, with numpy's
   eigenvalues counted in ``Re > 0``); the branch stops where Newton fails or a state
   leaves ``> 0`` (said in the record).
3. **Located.** Where the count changes by two with a complex pair, bisection on the count
   brackets the crossing, and Newton solves the Hopf system in eigenvector form (MatCont's:
   ``F = 0``, ``J v = i w v`` split into real and imaginary parts, ``v`` normalised; no
   determinant is formed); a Krawczyk test in Arb
   (:func:`symdelay.analysis.map_core._krawczyk`) proves one solution
   ``(p_c, w, states, v)`` with ``w > 0`` in a box ``10^-(dps+2)`` wide (relative).
4. **Proved to be a crossing of the chosen equilibrium.** At ``p_c -+ delta`` (exact
   rationals) the equilibrium is enumerated again and picked by the rule (so it is the
   model's equilibrium there, not another branch), and the Hurwitz determinant
   ``Delta_(n-1)`` of ``det(r I - J)`` at its Arb ball has opposite certain signs at the
   two ends: a real-part crossing of the chosen equilibrium lies between them.

:func:`hopf_coefficients` gives Kuznetsov's ``c1`` and the crossing speed ``r'`` at such a
point from the drift's derivatives at the numeric equilibrium (``r'`` along the equilibrium:
``dJ/dp + sum_k dJ/ds_k ds_k/dp``, ``ds/dp = -J^-1 dF/dp``), what the closed-form path
reads from :class:`symdelay.analysis.normal_form.FirstLyapunov`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import mpmath
import numpy as np

from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp

__all__ = [
    "MovingHopf",
    "HopfPoint",
    "moving_hopf_points",
    "hopf_coefficients",
    "range_normal_form_fields",
    "range_first_crossing",
]

#: values of the parameter at which the followed equilibrium's eigenvalues are counted
SCAN = 64


@dataclass(frozen=True)
class HopfPoint:
    """One proved Hopf point: ``value``, ``omega`` and the equilibrium there (``state``),
    mpf proved by Krawczyk, and the bracket ``(lo, hi)`` (exact rationals) at whose ends the
    Hurwitz determinant has the opposite signs ``signs``."""

    value: object
    omega: object
    state: tuple
    bracket: tuple
    signs: tuple
    box: tuple | None = None


@dataclass(frozen=True)
class MovingHopf:
    """The followed equilibrium over ``[lo, hi]`` and its Hopf points; ``grid``/``states``
    the scan, ``stop`` why the branch ended early (None: it covered the range), ``note``
    what was searched; ``follow(p)`` the followed equilibrium at ``p`` (Newton from the
    nearest scan point, doubles)."""

    points: tuple
    grid: np.ndarray
    states: np.ndarray
    stop: str | None
    note: str
    follow: object
    counts: tuple = ()


class _Follow:
    """The drift and its Jacobian in the states and the parameter (values substituted; no
    determinant formed), numpy evaluators for Newton and the eigenvalues, and the Hopf
    system in eigenvector form (MatCont's): ``F = 0``, ``J v_r + w v_i = 0``,
    ``J v_i - w v_r = 0``, ``c . v_r = 1``, ``c . v_i = 0`` in ``(p, w, s, v_r, v_i)``."""

    def __init__(self, model, sym):
        self.model, self.sym = model, sym
        self.states = list(model.states)
        self.n = len(self.states)
        self.drift = [sp.sympify(e).xreplace(model.values) for e in model.drift]
        extra = set().union(*(e.free_symbols for e in self.drift)) - {*self.states, sym}
        if extra:
            raise SymdelayInputError(
                "give numbers for " + ", ".join(sorted(map(str, extra))) + " (every parameter "
                "but the one continued)"
            )
        self.J = sp.Matrix(self.drift).jacobian(self.states)
        args = [*self.states, sym]
        self._F = sp.lambdify(args, self.drift, "numpy")
        self._Jf = sp.lambdify(args, list(self.J), "numpy")
        self._hopf = {}

    def F(self, s, p):
        with np.errstate(all="ignore"):
            return np.array(self._F(*s, p), dtype=float)

    def Jac(self, s, p):
        with np.errstate(all="ignore"):
            return np.array(self._Jf(*s, p), dtype=float).reshape(self.n, self.n)

    def newton(self, s0, p):
        s = np.array(s0, dtype=float)
        for _ in range(50):
            try:
                d = np.linalg.solve(self.Jac(s, p), self.F(s, p))
            except np.linalg.LinAlgError:
                return None
            s = s - d
            if not np.all(np.isfinite(s)):
                return None
            if np.max(np.abs(d)) <= 1e-14 * (1 + np.max(np.abs(s))):
                return s
        return None

    def eig(self, s, p):
        return np.linalg.eigvals(self.Jac(s, p))

    def hopf_system(self, c):
        """The Hopf system with the normalising vector ``c`` (exact rationals)."""
        from symdelay.analysis.map_core import System, W

        key = tuple(c)
        if key not in self._hopf:
            n = self.n
            vr = sp.symbols(f"vr0:{n}", real=True)
            vi = sp.symbols(f"vi0:{n}", real=True)
            Jr = self.J * sp.Matrix(vr)
            Ji = self.J * sp.Matrix(vi)
            eqs = [*self.drift]
            eqs += [Jr[i] + W * vi[i] for i in range(n)]
            eqs += [Ji[i] - W * vr[i] for i in range(n)]
            eqs += [sum(ci * v for ci, v in zip(c, vr)) - 1, sum(ci * v for ci, v in zip(c, vi))]
            syms = [self.sym, W, *self.states, *vr, *vi]
            self._hopf[key] = System(eqs, syms, polynomial=False)
        return self._hopf[key]


def _setup(model, param):
    from symdelay.analysis.window import _resolve

    sym, rp = _resolve(model, param)
    if rp is not None:
        raise SymdelayInputError(
            f"the equilibrium of {model.name} is followed numerically in a declared parameter "
            f"only, not in {param} (a reparametrisation): give a number for it"
        )
    return sym, model.cached(f"followed equilibrium {param}", lambda: _Follow(model, sym))


def _chosen(model, param, value):
    """The model's equilibrium at ``param = value`` (exact), every real zero enumerated and
    picked by the rule: ``(Equilibrium, float array)``; refused in one line otherwise."""
    from symdelay.model.equilibrium import _certified, _nonsmooth

    m = model.with_values(**{param: value})
    if _nonsmooth(m):
        raise SymdelayInputError(
            f"{model.name}: the equilibrium has no closed form in {param} and piecewise rates "
            "are not followed numerically: give a number for " + param
        )
    try:
        eq = _certified(m)
    except SymdelayInputError as exc:
        raise SymdelayInputError(
            f"{exc} (at {param} = {value}, where the equilibrium followed in {param} starts)"
        ) from None
    if eq is None:
        raise SymdelayInputError(
            f"{model.name}: the equilibrium has no closed form in {param} and its zeros at "
            f"{param} = {value} cannot be enumerated (a drift that is not rational in the "
            f"states, or zeros that are not isolated): give a number for {param}"
        )
    return eq, np.array([float(eq.point[s]) for s in model.states])


def _hurwitz_sign(st, ball, value, prec):
    """The sign (+1, -1; 0 undecided) of the Hurwitz determinant ``Delta_(n-1)`` of
    ``det(r I - J)`` at the Arb state ``ball`` and the exact ``value``."""
    import flint

    from symdelay.model.arb_eval import arb_evaluator

    n = st.n
    with flint.ctx.workprec(prec):
        ev = st.model.cached(
            "followed jacobian arb", lambda: arb_evaluator(list(st.J), [*st.states, st.sym])
        )
        ent = ev([*ball, flint.arb(flint.fmpq(value.p, value.q))])
        J = flint.arb_mat(n, n, ent)
        cp = J.charpoly()  # det(x I - J), monic
        a = [cp[n - k] for k in range(n + 1)]  # a[0] = 1, a[k]: coefficient of x^(n-k)
        m = n - 1
        if m == 0:
            d = -a[1]  # n = 1 has no pair: never a Hopf point (not reached)
        else:
            H = flint.arb_mat(m, m)
            for i in range(m):
                for j in range(m):
                    k = 2 * (j + 1) - (i + 1)
                    H[i, j] = a[k] if 0 <= k <= n else 0
            d = H.det()
        if d > 0:
            return 1
        if d < 0:
            return -1
        return 0


def moving_hopf_points(model, param: str, lo, hi, dps: int = 15) -> MovingHopf:
    """The Hopf points of the followed equilibrium in ``param`` over ``[lo, hi]`` (exact
    rationals or decimal strings; every other parameter a number): module docstring."""
    import flint

    from symdelay.analysis.map_core import _krawczyk, newton_np
    from symdelay.core.exact import exact_number
    from symdelay.core.precision import GUARD, bits

    lo, hi = exact_number("lo", lo), exact_number("hi", hi)
    _sym, st = _setup(model, param)
    _, s0 = _chosen(model, param, lo)
    grid = np.linspace(float(lo), float(hi), SCAN)
    states = [s0]
    counts = [int(np.sum(st.eig(s0, grid[0]).real > 0))]
    stop = None
    for v in grid[1:]:
        s = st.newton(states[-1], v)
        if s is None or not np.all(s > 0):
            stop = (
                f"the equilibrium followed from {param} = {lo} is lost near {param} = {v:.6g} "
                + ("(Newton failed)" if s is None else "(a state reaches 0)")
            )
            break
        states.append(s)
        counts.append(int(np.sum(st.eig(s, v).real > 0)))
    grid = grid[: len(states)]
    found = []
    prec = 2 * bits(dps, 20)
    for k in range(len(grid) - 1):
        if counts[k + 1] == counts[k]:
            continue
        a, b = (grid[k], states[k], counts[k]), (grid[k + 1], states[k + 1], counts[k + 1])
        for _ in range(60):
            m = 0.5 * (a[0] + b[0])
            sm = st.newton(a[1], m)
            if sm is None:
                break
            c = int(np.sum(st.eig(sm, m).real > 0))
            a, b = ((m, sm, c), b) if c == a[2] else (a, (m, sm, c))
            if b[0] - a[0] <= 1e-13 * (1 + abs(b[0])):
                break
        ev = st.eig(b[1], b[0])
        near = sorted(ev, key=lambda e: abs(e.real))
        if abs(counts[k + 1] - counts[k]) != 2 or abs(near[0].imag) <= 1e-9 * (1 + abs(near[0])):
            continue  # a real root crosses (a fold), not a Hopf point
        pm = 0.5 * (a[0] + b[0])
        lam = near[0] if near[0].imag > 0 else np.conj(near[0])
        vals, vecs = np.linalg.eig(st.Jac(b[1], pm))
        v = vecs[:, int(np.argmin(np.abs(vals - lam)))]
        v = v / v[int(np.argmax(np.abs(v)))]  # the largest entry 1 (real)
        c = [sp.Rational(round(float(t) * 2**20), 2**20) for t in v.real]
        scale = float(sum(float(ci) * t for ci, t in zip(c, v.real)))
        v = v / scale
        system = st.hopf_system(c)
        z = np.array([pm, lam.imag, *b[1], *v.real, *v.imag])
        z = newton_np(system, z, list(range(len(z))))
        if z is None:
            raise SymdelayInputError(
                f"the Hopf point of {model.name} in {param} near {b[0]:.8g} did not converge: "
                "give a narrower range or start from a cycle (--start VALUE)"
            )
        box = []
        with mpmath.workdps(dps + GUARD):
            nz = len(z)
            ok, sol = _krawczyk(
                system, [float(t) for t in z], list(range(nz)), [None] * nz, dps + 2, boxes=box
            )
        if ok is None or not sol[1] > 0:
            raise SymdelayInputError(
                f"the Hopf point of {model.name} in {param} near {z[0]:.8g} could not be proved "
                "(Krawczyk): start from a cycle instead (--start VALUE)"
            )
        pc = sol[0]
        width = 1e-7 * (1 + abs(float(pc)))
        pa = sp.Rational(mpmath.nstr(pc - width, dps + 5))
        pb = sp.Rational(mpmath.nstr(pc + width, dps + 5))
        signs = []
        for end in (pa, pb):
            eq, s_end = _chosen(model, param, end)
            guess = st.newton(b[1], float(end))
            if guess is None or np.max(np.abs(guess - s_end)) > 1e-6 * (1 + np.max(np.abs(s_end))):
                raise SymdelayInputError(
                    f"{model.name}: the equilibrium followed in {param} is not the model's "
                    f"(every state positive) near {param} = {float(end):.8g}: give a range "
                    "on which that equilibrium exists"
                )
            with flint.ctx.workprec(prec):
                r = flint.arb(mpmath.nstr(eq.radius, 5)) if eq.radius else flint.arb(0)
                ball = [flint.arb(str(eq.point[s])) + flint.arb(0, r) for s in model.states]
            signs.append(_hurwitz_sign(st, ball, end, prec))
        if 0 in signs or signs[0] == signs[1]:
            raise SymdelayInputError(
                f"the Hopf point of {model.name} at {param} ~ {mpmath.nstr(pc, 10)}: the sign "
                "change of the Hurwitz determinant across it is not proved: start from a cycle "
                "(--start VALUE)"
            )
        found.append(
            HopfPoint(pc, sol[1], tuple(sol[2 : 2 + st.n]), (pa, pb), tuple(signs), tuple(box))
        )
    note = (
        f"equilibrium with every state positive (every real zero of the drift enumerated at "
        f"{param} = {lo}) followed by Newton over {len(grid)} of {SCAN} equally spaced values "
        f"in [{lo}, {hi}], its eigenvalues counted (double precision); each Hopf point "
        "bracketed by bisection, solved with its equilibrium and proved by Krawczyk (Arb), "
        "the Hurwitz determinant's sign change across it proved on the equilibrium picked "
        "again at each end"
    )
    scan = np.array(states)

    def follow(p):
        k = int(np.argmin(np.abs(grid - float(p))))
        s = st.newton(scan[k], float(p))
        if s is None:
            raise SymdelayInputError(
                f"the equilibrium of {model.name} followed in {param} is lost at {param} = "
                f"{float(p):.8g}"
            )
        return s

    return MovingHopf(tuple(found), grid, scan, stop, note, follow, tuple(counts))


def _tensor_exprs(model, param):
    """The Jacobian's entries (by rows), the non-zero second and third derivatives of the
    drift in the states, ``dF/dp`` and ``dJ/dp`` (by rows), as SymPy expressions in the
    states and ``param`` (every other parameter substituted): ``(exprs, H keys, T keys)``,
    cached on the model. Both the mpmath evaluation (:func:`hopf_coefficients`) and the Arb
    one (:func:`range_normal_form_fields`) read them."""

    def build():
        sym, st = _setup(model, param)
        states, n = st.states, st.n
        drift = st.drift
        J = sp.Matrix(drift).jacobian(states)
        H, T = {}, {}
        for i, F in enumerate(drift):
            for a, b in itertools.combinations_with_replacement(range(n), 2):
                d2 = sp.diff(F, states[a], states[b])
                if d2 == 0:
                    continue
                H[(i, a, b)] = d2
                for c in range(b, n):
                    d3 = sp.diff(d2, states[c])
                    if d3 != 0:
                        T[(i, a, b, c)] = d3
        Fp = [sp.diff(F, sym) for F in drift]
        Jp = sp.diff(J, sym)
        return [*J, *H.values(), *T.values(), *Fp, *Jp], list(H), list(T)

    return model.cached(f"moving hopf tensor expressions {param}", build)


def _unpack(vals, n, hk, tk):
    """``(A, H, T3, Fp, Jp)`` from the evaluated :func:`_tensor_exprs` (``A``, ``Jp`` lists
    of rows; ``H``, ``T3`` filled over every order of the indices)."""
    k = 0
    A = [list(vals[k + i * n : k + (i + 1) * n]) for i in range(n)]
    k += n * n
    H, T3 = {}, {}
    for i, a, b in hk:
        for u, w in {(a, b), (b, a)}:
            H[(i, u, w)] = vals[k]
        k += 1
    for i, a, b, c in tk:
        for perm in set(itertools.permutations((a, b, c))):
            T3[(i, *perm)] = vals[k]
        k += 1
    Fp = list(vals[k : k + n])
    k += n
    Jp = [list(vals[k + i * n : k + (i + 1) * n]) for i in range(n)]
    return A, H, T3, Fp, Jp


def hopf_coefficients(model, param: str, value, omega, state):
    """:class:`symdelay.analysis.projection.HopfCoefficients` (``c1``, ``r'``, ``q``,
    ``l1``) at the Hopf point ``param = value`` with the equilibrium ``state`` (mpf), in
    mpmath at the working precision in force (module docstring)."""
    from symdelay.analysis.projection import HopfCoefficients, c1_coefficient, eigenvectors

    sym, st = _setup(model, param)
    states = st.states
    n = st.n

    def build():
        exprs, hk, tk = _tensor_exprs(model, param)
        return sp.lambdify([*states, sym], exprs, "mpmath"), hk, tk

    f, hk, tk = model.cached(f"moving hopf tensors {param}", build)
    vals = f(*[mpmath.mpf(v) for v in state], mpmath.mpf(value))
    Ar, H, T3, Fpl, Jpr = _unpack(vals, n, hk, tk)
    A, Fp, Jp = mpmath.matrix(Ar), mpmath.matrix(Fpl), mpmath.matrix(Jpr)
    sdot = mpmath.lu_solve(A, -Fp)  # ds/dp
    # dA/dp along the equilibrium: dJ/dp + sum_c dJ/ds_c ds_c/dp (second derivatives H)
    dA = Jp.copy()
    for (i, a, b), v in H.items():
        dA[i, a] += v * sdot[b]
    eig = eigenvectors(A, omega, pin=None)
    q = [eig.q[i] for i in range(n)]
    pc = [mpmath.conj(eig.p[i]) for i in range(n)]

    def solve(kk, b):
        M = A - mpmath.mpc(0, kk * omega) * mpmath.eye(n)
        x = mpmath.lu_solve(M, mpmath.matrix(b))
        return [x[i] for i in range(n)]

    c1 = c1_coefficient(q, pc, H, T3, solve)
    Aq = [mpmath.fsum(dA[i, j] * q[j] for j in range(n)) for i in range(n)]
    rp = mpmath.fsum(pc[i] * Aq[i] for i in range(n))
    norm2 = mpmath.fsum(abs(v) ** 2 for v in q)
    residual = mpmath.mnorm(A * eig.q - mpmath.mpc(0, omega) * eig.q, 1)
    return HopfCoefficients(c1, rp, eig.q, mpmath.re(c1) / norm2 / omega, residual)


def _scanned(mh) -> str:
    """What the scan of :func:`moving_hopf_points` looked at, for a refusal."""
    return (
        f"at each of the {len(mh.grid)} equally spaced values of the scan; a pair that "
        "crosses and crosses back between two of them is not seen"
    )


def range_normal_form_fields(model, param: str, lo, hi, dps: int = 15) -> dict:
    """The fields of the :class:`~symdelay.analysis.normal_form.NormalForm` at the first Hopf
    point in ``[lo, hi]`` of the equilibrium followed numerically in ``param``
    (:func:`moving_hopf_points`): the path of ``normal_form(model, param=..., lo=..., hi=...)``.

    ``l1`` is bounded by evaluating Kuznetsov's formula
    (:func:`symdelay.analysis.projection.c1_coefficient`, the package's one formula) in Arb
    balls over the Krawczyk box of the Hopf system: the box holds ``(p_c, omega, x*, v)``
    with ``v`` the critical eigenvector, so every quantity computed from it (the left
    eigenvector solved in ``acb``, the resolvents, ``c1``, ``r' = <p, (dJ/dp + d2F/ds2 .
    ds/dp) q>`` with ``ds/dp = -J^-1 dF/dp``) is a ball holding its value at the Hopf point,
    and ``l1_radius`` covers the uncertainty of the point. ``l1`` is normalised by the
    observed combination of the cycles (:class:`symdelay.analysis.bvp.OrbitField`: the
    imbalance of a model with a symmetry, the first state otherwise).

    Parameters
    ----------
    model : Model
        A transition table without lags whose drift is rational in the states, ``param``
        free and a number for every other parameter.
    param : str
        The bifurcation parameter.
    lo, hi : str or Rational
        The range searched (exact; decimal text is read exactly).
    dps : int, default 15
        Significant digits (5..10000) of the Hopf point, ``c1`` and ``l1``.

    Returns
    -------
    dict
        Keyword arguments of ``NormalForm``, with ``hopf_points`` (every Hopf point found
        in the range, the first described) and ``observed``.
    """
    import flint

    from symdelay.analysis.bvp import _observed_text
    from symdelay.analysis.projection import c1_coefficient
    from symdelay.analysis.stochastic import difference_weights
    from symdelay.core.numbers import format_number
    from symdelay.core.params import as_dps
    from symdelay.core.precision import GUARD, work_bits
    from symdelay.model.arb_eval import arb_evaluator

    dps = as_dps(dps)
    mh = moving_hopf_points(model, param, lo, hi, dps=dps)
    lo_t, hi_t = str(lo), str(hi)
    if not mh.points:
        counts = sorted(set(mh.counts))
        stop = f" ({mh.stop})" if mh.stop else ""
        what = (
            f"the unstable count is {counts[0]} throughout ({_scanned(mh)})"
            if len(counts) == 1
            else "the unstable count changes only by real roots ("
            + " -> ".join(str(c) for c, _ in itertools.groupby(mh.counts))
            + ")"
        )
        raise SymdelayInputError(f"no Hopf point in [{lo_t}, {hi_t}]: {what}{stop}")
    h0 = mh.points[0]
    sym, st = _setup(model, param)
    n = st.n
    # a multiple imaginary pair has no scalar l1: the Krawczyk box proves the eigenvector
    # system's solution isolated; the count of eigenvalues at i omega says it once more
    ev = st.eig(np.array([float(v) for v in h0.state]), float(h0.value))
    w0 = float(h0.omega)
    if int(np.sum(np.abs(ev - 1j * w0) < 1e-6 * (1 + w0))) >= 2:
        raise SymdelayInputError(
            f"the imaginary pair at {param} = {float(h0.value):.10g} is multiple: a scalar l1 "
            f"is not defined there; leave --range out for the equivariant answer"
        )
    weights = difference_weights(model)
    if weights is None:
        weights = [1] + [0] * (n - 1)
    observed = _observed_text(st.states, weights)
    exprs, hk, tk = _tensor_exprs(model, param)
    f = model.cached(
        f"moving hopf tensors arb {param}",
        lambda: arb_evaluator(exprs, [*st.states, sym], cse=True),
    )
    box = h0.box
    with flint.ctx.workprec(work_bits(dps, 2 * GUARD)), mpmath.workdps(dps + 2 * GUARD):
        pb, wb = box[0], box[1]
        sb = list(box[2 : 2 + n])
        q = [flint.acb(box[2 + n + i], box[2 + 2 * n + i]) for i in range(n)]
        A, H, T3, Fp, Jp = _unpack(f([*sb, pb]), n, hk, tk)
        iw = flint.acb(0, wb)

        def mat(k):
            return flint.acb_mat(
                n, n, [A[i][j] - (k * iw if i == j else 0) for i in range(n) for j in range(n)]
            )

        try:
            # conj(p): conj(p)^T (A - i w) = 0, its largest component (from doubles) 1, the
            # column of q's largest component left out (implied at the Hopf point)
            Af = np.array([[float(a.mid()) for a in row] for row in A])
            evl, U = np.linalg.eig(Af.T)
            drop = int(np.argmax(np.abs(U[:, int(np.argmin(np.abs(evl + 1j * w0)))])))
            piv = int(np.argmax([abs(complex(v.mid())) for v in q]))
            rows = [r for r in range(n) if r != drop]
            cols = [c for c in range(n) if c != piv]
            M = mat(1)
            Mt = flint.acb_mat(n - 1, n - 1, [M[r, c] for c in cols for r in rows])
            rt = flint.acb_mat(n - 1, 1, [-M[drop, c] for c in cols])
            solt = Mt.solve(rt)
            pc = [flint.acb(1)] * n
            for t, r in enumerate(rows):
                pc[r] = solt[t, 0]
            scale = sum((pc[i] * q[i] for i in range(n)), flint.acb(0))
            pc = [v / scale for v in pc]

            def solve(k, b):
                x = mat(k).solve(flint.acb_mat(n, 1, b))
                return [x[i, 0] for i in range(n)]

            c1 = c1_coefficient(q, pc, H, T3, solve)
            sdot = solve(0, [-v for v in Fp])  # ds/dp along the equilibrium
            dAq = [
                sum(
                    (
                        (Jp[i][j] + sum((v * sdot[b] for (ii, a, b), v in H.items()
                                         if ii == i and a == j), flint.acb(0))) * q[j]
                        for j in range(n)
                    ),
                    flint.acb(0),
                )
                for i in range(n)
            ]  # fmt: skip
            rp = sum((pc[i] * dAq[i] for i in range(n)), flint.acb(0))
        except ZeroDivisionError:
            raise SymdelayInputError(
                f"the normal form at the Hopf point {param} = {float(h0.value):.10g}: a linear "
                "solve over its Krawczyk box is not certified (the box too wide): raise --dps"
            ) from None
        cq = sum((weights[j] * q[j] for j in range(n)), flint.acb(0))
        if 0 in abs(cq):
            raise SymdelayInputError(
                f"the critical eigenvector of {model.name} does not move the observed "
                f"{observed}: no amplitude of it to give"
            )
        c1x_b = c1 / abs(cq) ** 2
        l1_b = c1x_b.real / wb
        norm2 = sum((abs(v) ** 2 for v in q), flint.arb(0))
        l1u_b = c1.real / norm2 / wb

        def mp(z):
            return mpmath.mpc(mpmath.mpf(z.real.mid().str(dps + 2 * GUARD, radius=False)),
                              mpmath.mpf(z.imag.mid().str(dps + 2 * GUARD, radius=False)))  # fmt: skip

        c1x, c1m, rpm = mp(c1x_b), mp(c1), mp(rp)
        l1 = mpmath.re(mp(flint.acb(l1_b)))
        l1_rad = mpmath.mpf(l1_b.rad().str(5, radius=False))
        acq = mpmath.re(mp(flint.acb(abs(cq))))
        if mpmath.re(c1m) != 0:
            amp = 2 * acq * mpmath.sqrt(abs(mpmath.re(rpm) / mpmath.re(c1m)))
            slope = mpmath.im(rpm) - mpmath.im(c1m) * mpmath.re(rpm) / mpmath.re(c1m)
        else:
            amp = slope = mpmath.nan
        pc_v, w_v = +mpmath.mpf(h0.value), +mpmath.mpf(h0.omega)
        l1u = mpmath.re(mp(flint.acb(l1u_b)))
        box_rad = mpmath.mpf(pb.rad().str(5, radius=False))
    checks = {
        "hopf_point_proved": True,
        "hopf_box_radius": box_rad,
        "hurwitz_signs": f"{h0.signs[0]:+d} at {param} = {h0.bracket[0]}, "
        f"{h0.signs[1]:+d} at {param} = {h0.bracket[1]}",
        "search": mh.note,
        "range": f"[{lo_t}, {hi_t}]",
    }
    if mh.stop:
        checks["branch_stop"] = mh.stop
    hopf_points = tuple(
        {
            "value": format_number(p.value, dps),
            "omega": format_number(p.omega, dps),
            "bracket": [str(p.bracket[0]), str(p.bracket[1])],
        }
        for p in mh.points
    )
    from symdelay.analysis.entry import family_options

    own = family_options(model) or {}
    return dict(
        L=own.get("L"), mu=own.get("mu"), lam=own.get("lam"), D=own.get("D"), dps=dps,
        theta_c=pc_v, omega=w_v, c1=c1x,
        r_prime=rpm, l1=l1, l1_unit=l1u,
        amplitude_coefficient=amp, omega_slope=slope, method=_RANGE_METHOD,
        model_name=model.name, checks=checks, multiplicity=1, param=param,
        l1_radius=l1_rad, observed=observed, hopf_points=hopf_points,
    )  # fmt: skip


_RANGE_METHOD = (
    "the equilibrium followed numerically in the parameter, the Hopf point proved by a "
    "Krawczyk box of its eigenvector system; Kuznetsov's projection formula evaluated in "
    "Arb balls over the box"
)


def range_first_crossing(model, param: str, lo, hi, dps: int = 15):
    """The first crossing of the equilibrium followed numerically in ``param`` over
    ``[lo, hi]`` (:func:`moving_hopf_points`), where it is a proved Hopf point:
    ``(value, omega, note)`` (mpf, the Krawczyk box's midpoints; ``note`` what was searched
    and the unstable counts on either side). Refused in one line where the count never
    changes in the range, or where it first changes through a real root (not located)."""
    mh = moving_hopf_points(model, param, lo, hi, dps=dps)
    counts = list(mh.counts)
    k = next((i for i in range(len(counts) - 1) if counts[i + 1] != counts[i]), None)
    stop = f" ({mh.stop})" if mh.stop else ""
    if k is None:
        raise SymdelayInputError(
            f"no crossing in [{lo}, {hi}]: the unstable count is {counts[0]} throughout "
            f"({_scanned(mh)}){stop}"
        )
    a, b = mh.grid[k], mh.grid[k + 1]
    first = mh.points[0] if mh.points else None
    if first is None or not a <= float(first.value) <= b:
        raise SymdelayInputError(
            f"the first crossing in [{lo}, {hi}], between {param} = {a:.8g} and {b:.8g} (the "
            f"unstable count {counts[k]} -> {counts[k + 1]}), is a real root: it is not "
            "located (only Hopf points are)"
        )
    note = (
        f"the first crossing in [{lo}, {hi}] of the {mh.note}: a Hopf point, the unstable "
        f"count {counts[k]} below it and {counts[k + 1]} above; proved in "
        f"[{first.bracket[0]}, {first.bracket[1]}] by the Hurwitz determinant's signs "
        f"{first.signs[0]:+d}, {first.signs[1]:+d}" + (f"; {mh.stop}" if mh.stop else "")
    )
    return first.value, first.omega, note
