"""Certified stability at numbers of a delay model, one mode at a time.

The characteristic matrix of a linearisation (``A0`` and terms ``(M_k, K_k, lags, derivative)``)
is ``Delta(r) = r I - A0 - sum_k (r if derivative else 1) M_k K_k(r)``; its determinant is the
mode's characteristic function. :func:`unstable_count` proves the number of its roots with
``Re r > 0`` by the argument principle in Arb (:func:`symdelay.analysis.certify.count_zeros`)
on a box proved to hold them all, and decides the root ``r = 0`` exactly.

**The box.** Every kernel is the Laplace transform of a probability law on ``[0, oo)``, so
``|K_k(r)| <= 1`` for ``Re r >= 0`` (more generally ``|K_k(r)| <= kappa_k = K_k(-c)`` for
``Re r >= -c``: ``|E e^{-rX}| <= E e^{cX}``). Let ``P0 = |A0| + sum_{non-derivative}
kappa_k |M_k|`` and ``Pd = sum_{derivative} kappa_k |M_k|`` (entrywise absolute values,
non-negative matrices). If ``Delta(r) v = 0``, ``v != 0``, then
``r v = A0 v + sum_n K_k M_k v + r sum_d K_k M_k v``, so entrywise
``|r| |v| <= P0 |v| + |r| Pd |v|``. When the spectral radius ``rho(Pd) < 1`` (proved by a
positive vector ``w`` with ``Pd w < w`` entrywise: Collatz–Wielandt), ``(I - Pd)^{-1} =
sum_j Pd^j >= 0`` and ``|r| |v| <= Q |v|`` with ``Q = (I - Pd)^{-1} P0 >= 0``; for a
non-negative matrix ``Q x >= s x`` with ``x >= 0``, ``x != 0`` implies ``rho(Q) >= s``, so
``|r| <= rho(Q) <= max_i (Q w)_i / w_i`` for every positive ``w``. With ``w = 1`` this is
the induced infinity norm, and ``||Q|| <= (||A0|| + sum_n ||M_k||) / (1 - sum_d ||M_k||)``:
the bound of the brief; the Perron vector of ``Q`` (computed in doubles, checked in Arb)
gives a tighter one (for a companion matrix, Cauchy's root bound). The count runs on
``[0, R] x [-R, R]`` with ``R`` above that bound (every entry an Arb upper bound).

**Neutral equations.** With derivative terms the bound needs ``rho(Pd) < 1``. For constant
lags this is the strong stability of the difference operator ``I - sum_d M_k e^{-r tau_k}``
(Hale & Verduyn Lunel: its roots stay in ``Re r <= -eps < 0`` for every choice of the lags),
and for any kernels it keeps ``det(I - sum_d M_k K_k(r))`` away from 0 in ``Re r >= 0``.
When it cannot be proved the count refuses in one line (the difference operator is then
unstable, marginal, or stable only for special lag ratios: not robustly decidable).

**The imaginary axis.** ``r = 0`` is decided exactly: ``Delta(0) = -A0 - sum_{non-derivative}
M_k`` (``K_k(0) = 1``); when its determinant is exactly 0 the multiplicity comes from the exact
Taylor coefficients of ``det Delta`` (the kernels' moments), the contour detours around 0
through ``Re r < 0`` and a small box around 0 is proved to hold no other root. A root
``i omega``, ``omega != 0``, cannot be proved in general (a transcendental equation); where
the contour cannot be resolved to segments of width ``10^-dps`` the answer is *undecided*,
saying where.

>>> from types import SimpleNamespace as NS
>>> import sympy as sp
>>> from symdelay.core.symbols import r
>>> tau = NS(name="tau", kind="constant", args={"value": sp.Integer(1)})
>>> term = NS(matrix=sp.Matrix([[2]]), kernel=sp.exp(-r), lags=("tau",), derivative=False)
>>> lin = NS(A0=sp.Matrix([[-1]]), terms=(term,))      # Delta(r) = r + 1 - 2 e^{-r}
>>> unstable_count(lin, {"tau": tau}).unstable          # Delta(0) = -1 < 0: one real root > 0
1
>>> lin2 = NS(A0=sp.Matrix([[-1]]), terms=(NS(matrix=sp.Matrix([[-2]]), kernel=sp.exp(-r),
...     lags=("tau",), derivative=False),))
>>> res = unstable_count(lin2, {"tau": tau})   # r + 1 + 2 e^{-r}: tau_c = 2 pi/(3 sqrt 3) > 1
>>> res.verdict, res.unstable, res.axis
('stable', 0, 0)
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from symdelay.core.errors import CertificationError, SymdelayInputError, VerificationError
from symdelay.core.lazy import sympy as sp

__all__ = [
    "LagCount",
    "CharacteristicMatrix",
    "root_bound",
    "unstable_count",
]

#: largest matrix the Taylor expansion at r = 0 is attempted for (exact determinants)
MAX_TAYLOR_ORDER = 64


@dataclass(frozen=True)
class LagCount:
    """The certified count of one characteristic matrix: ``unstable`` roots in ``Re r > 0``
    (None when undecided), ``axis`` roots at ``r = 0`` (with multiplicity; the only axis
    roots it can prove), ``verdict`` (stable / marginal / unstable / undecided), ``bound``
    (the ``R`` of the box ``[0, R] x [-R, R]``, an upper bound of ``|r|`` over ``Re r >= 0``),
    ``decided_by`` (what was proved, or where and why it is undecided), ``where`` (the
    point where the contour failed, when undecided) and ``segments`` (contour segments)."""

    unstable: int | None
    axis: int
    verdict: str
    bound: object
    decided_by: str
    where: object = None
    segments: int = 0


# ------------------------------------------------------------------ the characteristic matrix
def _free(expr) -> set:
    from symdelay.core.symbols import r

    return {s for s in getattr(expr, "free_symbols", set()) if s != r}


def _entry_ball(e):
    """A SymPy number as an ``acb``: exact rationals and algebraic numbers enclosed; a Float
    (an equilibrium certified numerically) widened by its own precision."""
    import flint

    from symdelay.model.arb_eval import to_arb

    e = sp.sympify(e)
    env = {}
    floats = e.atoms(sp.Float)
    if floats:
        subs = {}
        for i, f in enumerate(floats):
            s = sp.Symbol(f"_float{i}")
            q = sp.Rational(f)
            ball = flint.arb(flint.fmpq(int(q.p), int(q.q)))
            env[s] = ball * (1 + flint.arb(0, flint.arb(2) ** (1 - f._prec)))
            subs[f] = s
        e = e.xreplace(subs)
    v = to_arb(e, env)
    return v if isinstance(v, flint.acb) else flint.acb(v)


class CharacteristicMatrix:
    """``Delta(r)`` of a linearisation at numbers, evaluated in Arb balls.

    ``linearisation``: an object with ``A0`` (n x n SymPy matrix) and ``terms`` (each with
    ``matrix``, ``kernel`` (SymPy in ``r``), ``lags`` (names) and ``derivative``), as the
    model's ``Linearisation``; ``lags``: the model's ``{name: Lag}``. A term whose lags are
    all in ``lags`` has its kernel evaluated from the lag kinds
    (:mod:`symdelay.analysis.lagkernels`, exact at and near ``r = 0``); otherwise from its
    kernel expression (:func:`symdelay.model.arb_eval.to_arb` on complex balls), with a
    removable singularity at ``r = 0`` enclosed by Cauchy's estimate.
    """

    def __init__(self, linearisation, lags=None):
        from symdelay.core.symbols import r

        A0 = sp.Matrix(linearisation.A0)
        self.n = A0.rows
        if A0.rows != A0.cols:
            raise SymdelayInputError(f"A0 is {A0.rows} x {A0.cols}: it must be square")
        lags = dict(lags or {})
        free = _free(A0)
        self.terms = []
        for t in linearisation.terms:
            M = sp.Matrix(t.matrix)
            if M.shape != A0.shape:
                raise SymdelayInputError(
                    f"a term's matrix is {M.rows} x {M.cols}, A0 is {self.n} x {self.n}"
                )
            free |= _free(M)
            names = tuple(getattr(t, "lags", ()) or ())
            objs = (
                tuple(lags[nm] for nm in names)
                if names and all(nm in lags for nm in names)
                else None
            )
            if objs is None:
                free |= _free(t.kernel)
            if M.is_zero_matrix:
                continue
            self.terms.append((M, sp.sympify(t.kernel), objs, bool(t.derivative)))
        if free:
            raise SymdelayInputError(
                "the certified count is at numbers only: give a value to "
                + ", ".join(sorted(map(str, free)))
            )
        self.A0 = A0
        self.neutral = any(t[3] for t in self.terms)
        self.real = all(e.is_real for e in A0) and all(
            all(e.is_real for e in M) and (objs is not None or not K.has(sp.I))
            for M, K, objs, _ in self.terms
        )
        self._r = r
        self._cache: dict = {}

    # the longest lag (segments per unit length of the contour follow its oscillation)
    def scale(self) -> float:
        from symdelay.analysis.lagkernels import lag_number

        longest = 1.0
        for _M, K, objs, _d in self.terms:
            if objs is None:
                longest = max(longest, *(float(-c) for c in _exp_rates(K)), 1.0)
                continue
            total = 0.0
            for lag in objs:
                total += _lag_extent(lag, lag_number)
            longest = max(longest, total)
        return longest

    def evaluator(self, prec: int):
        """``(F, dF)``: ``z -> det Delta(z)`` and its derivative on ``acb`` balls, built at
        ``prec`` bits (call them inside ``flint.ctx.workprec(prec)``)."""
        if prec in self._cache:
            return self._cache[prec]
        import flint

        with flint.ctx.workprec(prec):
            n = self.n
            A0 = flint.acb_mat(n, n, [_entry_ball(e) for e in self.A0])
            terms = []
            for M, K, objs, deriv in self.terms:
                Mb = flint.acb_mat(n, n, [_entry_ball(e) for e in M])
                k, dk = _term_kernel(K, objs, self._r, prec)
                terms.append((Mb, k, dk, deriv))
            one = flint.acb_mat(n, n, [1 if i == j else 0 for i in range(n) for j in range(n)])

        def delta(z):
            D = one * z - A0
            for Mb, k, _dk, deriv in terms:
                c = k(z)
                D -= Mb * (c * z if deriv else c)
            return D

        def ddelta(z):
            D = one
            for Mb, k, dk, deriv in terms:
                c = k(z) + z * dk(z) if deriv else dk(z)
                D = D - Mb * c
            return D

        if n == 1:
            a0 = A0[0, 0]
            sc = [(Mb[0, 0], k, dk, deriv) for Mb, k, dk, deriv in terms]

            def F(z):
                v = z - a0
                for m, k, _dk, deriv in sc:
                    c = k(z)
                    v -= m * (c * z if deriv else c)
                return v

            def dF(z):
                v = flint.acb(1)
                for m, k, dk, deriv in sc:
                    v -= m * (k(z) + z * dk(z) if deriv else dk(z))
                return v

        else:

            def F(z):
                return delta(z).det()

            def dF(z):
                # Jacobi: d det = sum over columns j of det(Delta with column j differentiated)
                D, dD = delta(z).tolist(), ddelta(z).tolist()
                total = flint.acb(0)
                for j in range(n):
                    rows = [[*row[:j], drow[j], *row[j + 1 :]] for row, drow in zip(D, dD)]
                    total += flint.acb_mat(rows).det()
                return total

        self._cache[prec] = (F, dF)
        return F, dF

    def kernel_bounds(self, shift=0):
        """``kappa_k``: Arb upper bounds of ``|K_k(r)|`` on ``Re r >= -shift`` (1 at shift
        0), or None for a term whose bound is infinite there."""
        import flint

        from symdelay.analysis.lagkernels import mgf_bound

        out = []
        for _M, _K, objs, _d in self.terms:
            if not shift:
                out.append(flint.arb(1))
                continue
            if objs is None:
                out.append(None)
                continue
            b = flint.arb(1)
            for lag in objs:
                m = mgf_bound(lag, shift)
                if m is None:
                    b = None
                    break
                b *= m
            out.append(b)
        return out


def _exp_rates(K):
    """The coefficients ``c`` of ``r`` in the exponents ``exp(c r)`` of an expression."""
    from symdelay.core.symbols import r

    out = []
    for e in K.atoms(sp.exp):
        c = sp.expand(e.args[0]).coeff(r)
        if c.is_number and c.is_real:
            out.append(c)
    return out


def _lag_extent(lag, lag_number) -> float:
    if lag.kind == "constant":
        return float(lag_number(lag, "value"))
    if lag.kind == "uniform":
        return float(lag_number(lag, "high"))
    if lag.kind == "mixture":
        return max(_lag_extent(s, lag_number) for s in lag.args["lags"])
    return 1.0


def _term_kernel(K, objs, r, prec):
    """``(k, dk)`` on ``acb`` balls for one term: the product of its lags' kernels, or its
    expression."""
    import flint

    if objs is not None:
        from symdelay.analysis.lagkernels import kernel, kernel_derivative

        ks = [kernel(lag) for lag in objs]
        dks = [kernel_derivative(lag) for lag in objs]
        if len(ks) == 1:
            return ks[0], dks[0]

        def k(z):
            v = flint.acb(1)
            for f in ks:
                v *= f(z)
            return v

        def dk(z):
            vals = [f(z) for f in ks]
            total = flint.acb(0)
            for i, g in enumerate(dks):
                p = g(z)
                for j, v in enumerate(vals):
                    if j != i:
                        p *= v
                total += p
            return total

        return k, dk
    return _expression_kernel(K, r, prec), _expression_kernel(sp.diff(K, r), r, prec)


def _expression_kernel(K, r, prec):
    """``z -> K(z)`` from a SymPy expression; on a ball holding 0 where the expression is
    not finite (a removable singularity, e.g. ``(1 - e^{-r}) / r``), ``K(0)`` (SymPy's
    limit) plus Cauchy's estimate ``|K(z) - K(0)| <= M |z| / (rho - |z|)``, ``M`` an Arb
    bound of ``|K|`` on the circle ``|w| = rho`` (``rho = 1/2``, inside the kernels'
    half-plane of analyticity)."""
    import flint

    from symdelay.model.arb_eval import to_arb

    state: dict = {}

    def direct(z):
        v = to_arb(K, {r: z})
        return v if isinstance(v, flint.acb) else flint.acb(v)

    def near_zero(z):
        if "k0" not in state:
            k0 = sp.limit(K, r, 0)
            if not k0.is_finite:
                raise CertificationError(f"kernel {K} is not finite at r = 0")
            rho = flint.arb(1) / 2
            pieces, M = 64, flint.arb(0)
            for j in range(pieces):
                # a box around the arc from angle 2 pi j/64 to 2 pi (j+1)/64 of |w| = rho
                th = flint.arb.pi() * (2 * j + 1) / pieces
                c = flint.acb(rho * th.cos(), rho * th.sin())
                half = rho * flint.arb.pi() / pieces * 11 / 10
                ball = flint.acb(
                    flint.arb(c.real.mid(), half.upper()), flint.arb(c.imag.mid(), half.upper())
                )
                M = max(M, direct(ball).abs_upper())
            state["k0"], state["rho"], state["M"] = _entry_ball(k0), rho, M
        a = z.abs_upper()
        if not a < state["rho"] / 2:
            raise CertificationError(f"kernel {K} cannot be enclosed near r = {z}")
        err = (state["M"] * a / (state["rho"] - a)).upper()
        return state["k0"] + flint.acb(flint.arb(0, err), flint.arb(0, err))

    def k(z):
        v = direct(z)
        if v.is_finite():
            return v
        if z.contains(0):
            return near_zero(z)
        return v

    del prec
    return k


# ------------------------------------------------------------------ the bound
def _perron(P) -> list:
    """A positive vector near the Perron vector of the non-negative matrix ``P`` (doubles)."""
    if len(P) == 1:  # what the eigenvector below is for a 1 x 1 (a scalar mode: no numpy)
        return [1.0]
    import numpy as np

    A = np.array(P, dtype=float)
    n = A.shape[0]
    A = A + 1e-9 * (A.max() + 1e-300) * np.ones((n, n))
    vals, vecs = np.linalg.eig(A)
    v = np.abs(vecs[:, int(np.argmax(vals.real))].real)
    v = np.maximum(v / v.max(), 1e-12)
    return [float(x) for x in v]


def _collatz(P, w):
    """``max_i (P w)_i / w_i`` (an Arb upper bound of rho(P) for P >= 0, w > 0)."""
    import flint

    n = len(w)
    best = flint.arb(0)
    for i in range(n):
        s = sum((P[i][j] * w[j] for j in range(n)), flint.arb(0))
        best = max(best, (s / w[i]).upper())
    return best


def _spectral_bound(P):
    """An Arb upper bound of ``rho(P)`` for a non-negative (upper-bound) matrix: the smaller
    Collatz–Wielandt bound of the vectors ``1`` and ``P``'s Perron vector."""
    import flint

    n = len(P)
    ones = [flint.arb(1)] * n
    best = _collatz(P, ones)
    try:
        w = [flint.arb(x) for x in _perron([[float(x) for x in row] for row in P])]
        best = min(best, _collatz(P, w))
    except (ValueError, ArithmeticError):  # pragma: no cover - a degenerate Perron vector
        pass
    return best


def root_bound(cm: CharacteristicMatrix, shift=0, prec: int = 128):
    """``(R, rho_d)``: an Arb upper bound ``R`` of ``|r|`` over the roots of ``det Delta``
    with ``Re r >= -shift`` (module docstring), and the proved bound ``rho_d`` of the
    spectral radius of ``Pd`` (0 without derivative terms). Raises
    :class:`SymdelayInputError` when ``rho(Pd) < 1`` cannot be proved (the difference operator
    of a neutral equation), and returns ``R = None`` when a kernel bound is infinite at this
    shift."""
    import flint

    n = cm.n
    with flint.ctx.workprec(prec):
        kappa = cm.kernel_bounds(shift)
        P0 = [[_entry_ball(cm.A0[i, j]).abs_upper() for j in range(n)] for i in range(n)]
        Pd = [[flint.arb(0)] * n for _ in range(n)]
        for (M, _K, _objs, deriv), kap in zip(cm.terms, kappa):
            if kap is None:
                return None, None
            target = Pd if deriv else P0
            for i in range(n):
                for j in range(n):
                    if M[i, j] != 0:
                        target[i][j] = target[i][j] + kap * _entry_ball(M[i, j]).abs_upper()
        rho_d = flint.arb(0)
        if cm.neutral:
            rho_d = _spectral_bound(Pd)
            if not rho_d < 1:
                raise SymdelayInputError(_neutral_refusal(cm, rho_d))
            inv = (
                flint.arb_mat(n, n, [int(i == j) for i in range(n) for j in range(n)])
                - flint.arb_mat([[x.upper() for x in row] for row in Pd])
            ).inv()
            Ib = [[max(inv[i, j].upper(), flint.arb(0)) for j in range(n)] for i in range(n)]
            Q = [
                [
                    sum((Ib[i][k] * P0[k][j] for k in range(n)), flint.arb(0)).upper()
                    for j in range(n)
                ]
                for i in range(n)
            ]
        else:
            Q = P0
        R = _spectral_bound(Q)
        return R, rho_d


def _neutral_refusal(cm, rho_d) -> str:
    """The one line refusing a neutral equation whose difference operator is not proved
    stable (with the exact reason in the scalar one-lag case)."""
    head = "the difference operator of the neutral equation is not proven stable: "
    d_terms = [t for t in cm.terms if t[3]]
    if cm.n == 1 and len(d_terms) == 1 and d_terms[0][2] and len(d_terms[0][2]) == 1:
        lag = d_terms[0][2][0]
        if lag.kind == "constant":
            m = abs(d_terms[0][0][0, 0])
            if m > 1:
                return (
                    head + f"1 - m e^(-r tau) with |m| = {m} > 1 has infinitely many roots "
                    "in Re r > 0 (unstable); give a derivative coefficient of modulus below 1"
                )
            if m == 1:
                return (
                    head + "1 - m e^(-r tau) with |m| = 1 has its roots on the imaginary axis "
                    "(not asymptotically stable); give a derivative coefficient of modulus below 1"
                )
    return (
        head + f"the spectral radius of sum |M_k| over the derivative terms is not proved "
        f"below 1 (bound {rho_d.str(5, radius=False)}); stability for every lag needs it below 1"
    )


def _dyadic_above(x, extra=None):
    """A dyadic number (exact in Arb) strictly above the ball ``x``, a little beyond it."""
    import mpmath

    from symdelay.analysis.certify import arb_to_mpf_upper

    with mpmath.workprec(64):
        v = arb_to_mpf_upper(x) * mpmath.mpf(1.0625) + mpmath.mpf(2) ** -20
        if extra is not None:
            v = max(v, extra)
        m, e = mpmath.frexp(v)
        return mpmath.ldexp(mpmath.ceil(m * 2**16) / 2**16, e)


# ------------------------------------------------------------------ r = 0, exactly
def _exact_zero(c) -> bool | None:
    """Is the SymPy number ``c`` exactly 0? (None: not decidable, a Float entry)."""
    import flint

    c = sp.sympify(c)
    if c.is_Rational:
        return c == 0
    with flint.ctx.workprec(256):
        b = _entry_ball(c)
    if not b.contains(0):
        return False
    if c.has(sp.Float):
        return None
    X = sp.Symbol("X")
    try:
        return sp.minimal_polynomial(c, X) == X
    except (NotImplementedError, ValueError):
        return None


def _kernel_series(K, objs, r, t, order):
    """The Taylor polynomial of one term's kernel at 0 in ``t``, to ``t^(order-1)``."""
    from symdelay.analysis.lagkernels import moments

    if objs is None:
        s = sp.series(K, r, 0, order).removeO().subs(r, t)
        return sp.expand(s)
    out = sp.Integer(1)
    for lag in objs:
        mu = moments(lag, order)
        poly = sum((-t) ** j * mu[j] / sp.factorial(j) for j in range(order))
        out = sp.expand(out * poly)
        out = sum(out.coeff(t, j) * t**j for j in range(order))
    return out


def origin_multiplicity(cm: CharacteristicMatrix) -> tuple[int | None, str]:
    """The multiplicity of ``r = 0`` as a root of ``det Delta`` (0: not a root), exactly,
    and how it was decided; None when a Float entry leaves it open."""
    import flint

    F, _ = cm.evaluator(128)
    with flint.ctx.workprec(128):
        if not F(flint.acb(0)).contains(0):
            return 0, "det Delta(0) != 0 (Arb enclosure)"
    t = sp.Symbol("t")
    order = 2
    while order <= MAX_TAYLOR_ORDER:
        D = t * sp.eye(cm.n) - cm.A0
        for M, K, objs, deriv in cm.terms:
            D -= M * (t if deriv else 1) * _kernel_series(K, objs, cm._r, t, order)
        det = sp.expand(D.det(method="berkowitz"))
        for j in range(order):
            z = _exact_zero(det.coeff(t, j))
            if z is None:
                return None, (
                    f"the Taylor coefficient of t^{j} of det Delta at 0 is within rounding of 0 "
                    "and the entries are Floats (a numerically certified equilibrium): "
                    "whether r = 0 is a root is not decidable"
                )
            if not z:
                how = "det Delta(0) = 0 exactly" if j else "det Delta(0) != 0 exactly"
                if j:
                    how += f"; the first nonzero Taylor coefficient is that of r^{j} (exact)"
                return j, how
        order *= 2
    return None, f"det Delta vanishes to order {MAX_TAYLOR_ORDER} at r = 0 (identically zero?)"


# ------------------------------------------------------------------ the count
def unstable_count(
    linearisation,
    lags=None,
    *,
    dps: int = 20,
    force: bool = False,
    max_segments: int = 400_000,
) -> LagCount:
    """The certified number of roots of ``det Delta(r)`` with ``Re r > 0`` (module docstring).

    Parameters
    ----------
    linearisation : Linearisation
        ``A0`` and ``terms`` (``matrix``, ``kernel``, ``lags``, ``derivative``) at numbers
        (one mode's blocks, or a whole model's).
    lags : dict or None, default None
        ``{name: Lag}`` (``kind`` and numeric ``args``): the terms' kernels evaluated from
        their kinds; without it, from their expressions.
    dps : int, default 20
        Digits: the contour is refined down to segments of width ``10^-dps`` (relative)
        before an axis root is declared undecidable there.
    force : bool, default False
        Run even when the estimated work is over the budget (:mod:`symdelay.core.budget`).
    max_segments : int, default 400000
        The contour's segment budget.

    Returns
    -------
    LagCount
        ``unstable`` (None when undecided), ``axis`` (the multiplicity of the root 0),
        ``verdict`` and ``decided_by``.
    """
    import flint
    import mpmath

    from symdelay.analysis.certify import ContourError
    from symdelay.core.budget import check_budget, duration
    from symdelay.core.params import as_dps
    from symdelay.core.precision import work_bits

    dps = as_dps(dps)
    cm = (
        linearisation
        if isinstance(linearisation, CharacteristicMatrix)
        else CharacteristicMatrix(linearisation, lags)
    )
    Rb, rho_d = root_bound(cm)
    R = _dyadic_above(Rb)
    m0, how0 = origin_multiplicity(cm)
    bound_text = f"|r| <= {mpmath.nstr(R, 8)} for every root with Re r >= 0"
    if cm.neutral:
        bound_text += (
            f" (difference operator: spectral radius of sum |M_k| <= "
            f"{rho_d.str(5, radius=False)} < 1)"
        )
    if m0 is None:
        return LagCount(None, 0, "undecided", R, f"undecided: {how0}")
    ppu = 4 * cm.scale()
    # the cost: one evaluation timed, times the segments a contour of this size needs
    F64, _ = cm.evaluator(64)
    with flint.ctx.workprec(64):
        t0 = time.perf_counter()
        F64(flint.acb(flint.arb(1) / 3, flint.arb(1) / 7))
        per = time.perf_counter() - t0
    est = per * 3 * (4 * float(R) * ppu + 64) * (1 if cm.real else 2)
    check_budget(
        f"the certified count on the box [0, {mpmath.nstr(R, 4)}] x [-R, R]",
        est,
        force=force,
        shrink="smaller rates or lags (the box holds every root with Re r >= 0)",
    )
    del duration
    stats: dict = {}
    attempts = [(64, mpmath.mpf(2) ** -40), (work_bits(dps), mpmath.mpf(10) ** -dps)]
    last = None
    for prec, width in attempts:
        F, _ = cm.evaluator(prec)
        try:
            n = _count_right(cm, F, R, m0, prec, width, ppu, max_segments, stats)
        except ContourError as exc:
            last = exc
            continue
        verdict = "unstable" if n else ("marginal" if m0 else "stable")
        text = (
            f"argument principle in Arb ({prec} bits) on [0, R] x [-R, R], {bound_text}: "
            f"{n} root{'s' if n != 1 else ''} in Re r > 0; r = 0: {how0}"
            + (f" (multiplicity {m0}; the contour detours around it)" if m0 else "")
            + ("; conjugate symmetry halves the contour" if cm.real else "")
        )
        return LagCount(n, m0, verdict, R, text, None, stats.get("segments", 0))
    where = last.where
    axis = where is not None and abs(where.real) <= max(last.width or 0, mpmath.mpf(10) ** -dps)
    if axis:
        reason = (
            f"undecided: a root on or within {mpmath.nstr(last.width, 3)} of the imaginary axis "
            f"near r = {mpmath.nstr(where.imag, 12)}i could not be excluded (argument principle "
            f"on [0, R] x [-R, R], {bound_text}, segments refined to width 10^-{dps})"
        )
    else:
        reason = f"undecided: {last} (box [0, R] x [-R, R], {bound_text})"
    return LagCount(None, m0, "undecided", R, reason, where, stats.get("segments", 0))


def _count_right(cm, F, R, m0, prec, width, ppu, max_segments, stats) -> int:
    """Roots in ``Re r > 0`` inside the box, the origin (a root of multiplicity ``m0``)
    detoured through ``Re r < 0``."""
    import mpmath

    from symdelay.analysis.certify import ContourError, argument_change, count_zeros, winding

    kw = {
        "prec": prec,
        "pieces_per_unit": ppu,
        "max_segments": max_segments,
        "min_width": width,
        "stats": stats,
    }
    if not m0:
        return count_zeros(F, 0, R, -R, R, symmetric=cm.real, **kw)
    eps = min(R, mpmath.mpf(1)) / 16
    for _ in range(12):
        try:
            near = count_zeros(F, -eps, eps, -eps, eps, symmetric=cm.real, **kw)
        except (ContourError, CertificationError):
            eps /= 16
            continue
        if near < m0:
            raise VerificationError(
                f"{near} zeros near r = 0, fewer than the exact multiplicity {m0} of r = 0"
            )
        if near == m0:
            break
        eps /= 16
    else:
        raise ContourError(
            "no small box around r = 0 holds only the root r = 0: another root lies "
            "within 10^-12 of it",
            mpmath.mpc(0),
            eps,
        )
    if cm.real:
        path = [(R, 0), (R, R), (0, R), (0, eps), (-eps, eps), (-eps, 0)]
        total = 2 * argument_change(F, path, **kw)
    else:
        path = [
            (0, -R),
            (R, -R),
            (R, R),
            (0, R),
            (0, eps),
            (-eps, eps),
            (-eps, -eps),
            (0, -eps),
            (0, -R),
        ]
        total = argument_change(F, path, **kw)
    return winding(total, prec) - m0


# ------------------------------------------------------------------ the model's record
def _mode_groups(model):
    """``[(mode name, linearisation, function, copies)]``: one entry per distinct mode
    function (the model's ``characteristic_factors`` name the copies, as tables do)."""
    from symdelay.analysis.charpoly import _COPIES

    modes = list(getattr(model, "delay_modes", ()) or ())
    by_name = {m.name: m for m in modes}
    factors = list(getattr(model, "characteristic_factors", ()) or ())
    out = []
    if factors and modes:
        for f in factors:
            label = str(f.mode)
            m = _COPIES.match(label)
            name = m["name"] if m else label
            if name not in by_name:
                raise VerificationError(f"factor of mode {label!r} has no delay mode")
            out.append((name, by_name[name].linearisation, f.factor, int(f.multiplicity)))
        return out
    if modes:
        return [(m.name, m.linearisation, m.function, 1) for m in modes]
    lin = model.linearisation
    return [("all", lin, sp.Matrix(lin.matrix()).det(), 1)]


def _fraction_of(x):
    """An mpf (a dyadic number) as the exact Fraction it is."""
    from fractions import Fraction

    import mpmath

    m, e = mpmath.mpf(x).man_exp
    return Fraction(int(m)) * Fraction(2) ** int(e)


def _mp_dyadic(x):
    """A dyadic number of 30 bits at or below the mpf ``x``."""
    import mpmath

    if x == 0:
        return mpmath.mpf(0)
    m, e = mpmath.frexp(x)
    return mpmath.ldexp(mpmath.floor(m * 2**30) / 2**30, e)
