"""The normal form on a centre manifold by truncated power series, to any order (fifth here).

For ``x' = F(x)`` with an equilibrium ``x*``, ``J = DF(x*)`` and a semisimple imaginary
eigenvalue ``i omega`` of multiplicity ``m`` (right vectors ``q_1..q_m``, left vectors with
``conj(p_j)^T q_k = delta_jk``; no other eigenvalue ``i omega k`` for an integer ``k``), the
centre manifold ``x = x* + H(w)`` over ``w = (z_1..z_m, conj z_1..conj z_m)`` and the reduced
field ``w' = G(w)`` satisfy the invariance equation

    F(x* + H(w)) = DH(w) G(w),     H = Q z + conj(Q) conj(z) + O(|w|^2),
                                   G_j = i omega z_j + O(|w|^3) (and the conjugates).

Both are multivariate polynomials in ``w`` (every coefficient a vector of ``C^n``) solved
degree by degree: at degree ``d`` the terms of ``F(x* + H_{<d})`` and of ``DH_{>=2} G_{>=2}``
of that degree are known (:class:`Series` arithmetic on the drift's expression tree: exact
rationals and the parameter values entered as numbers, ``exp``, ``log`` and powers by their
Taylor series around the constant term), and each monomial
``w^e = z^a conj(z)^b`` of degree ``d`` gives

    (i omega s - J) h_e + sum_v Q_v G_{v,e} = R_e,    s = |a| - |b|.

Where ``i omega s`` is not an eigenvalue of ``J`` the normal form keeps no term (``G_{v,e} =
0``) and ``h_e = (i omega s - J)^-1 R_e``; where it is (``s = +-1``, resonant monomials), the
bordered system with ``conj(p_j)^T h_e = 0`` (h has no component in the centre eigenspace)
gives ``G_{j,e} = conj(p_j)^T R_e`` and ``h_e``. The coefficients of the normal form at degree
3 are Kuznetsov's multivariate projection formula; at degree 5 they are the ones the
equivariant analysis needs (:mod:`symdelay.analysis.equivariant`).

The numbers are those of ``J``: a python-flint ``acb_mat`` runs everything in Arb balls
(constants by :func:`symdelay.model.arb_eval.to_arb`, ``exp``/``log``/powers of balls, the
linear systems by ``acb_mat.inv``, an enclosure of the inverse over the balls: every
coefficient returned is a ball holding the exact one for every value in the inputs' balls,
the verdicts' proofs); an mpmath matrix runs in mpmath at the working precision in force.
A coefficient exactly zero is skipped in products; a ball that only holds zero is kept.
"""

from __future__ import annotations

import fractions
import itertools
import math

import mpmath

from symdelay.core.lazy import sympy as sp

__all__ = ["Monomials", "Series", "series_of", "centre_normal_form", "SeriesUnsupported"]


class SeriesUnsupported(ValueError):
    """The drift has a function the series arithmetic does not expand (one line why)."""


class Monomials:
    """The monomials of degree ``<= order`` in ``nvar`` variables, their index and the table
    of products (per monomial ``i``, the pairs ``(j, k)``: monomial ``i`` times ``j`` is ``k``)
    truncated at each degree."""

    def __init__(self, nvar: int, order: int):
        self.nvar, self.order = nvar, order
        self.zero = 0  # an exact zero of the number type in use (acb: the balls' path)
        exps = [
            e
            for d in range(order + 1)
            for e in sorted(
                (e for e in itertools.product(range(d + 1), repeat=nvar) if sum(e) == d),
                reverse=True,
            )
        ]
        self.exps = exps
        self.index = {e: i for i, e in enumerate(exps)}
        self.degree = [sum(e) for e in exps]
        self.size = len(exps)
        self.pairs = {}
        for top in range(order + 1):
            table = []  # (i, [(j, k), ...]): a row per monomial i, skipped when its coefficient is 0
            for i, a in enumerate(exps):
                da = self.degree[i]
                if da > top:
                    break
                row = []
                for j, b in enumerate(exps):
                    if da + self.degree[j] > top:
                        break
                    row.append((j, self.index[tuple(x + y for x, y in zip(a, b))]))
                table.append((i, row))
            self.pairs[top] = table

    def unit(self, v: int) -> int:
        """The index of the variable ``v`` (the monomial of degree 1)."""
        return self.index[tuple(1 if k == v else 0 for k in range(self.nvar))]


class Series:
    """A truncated power series: coefficients on :class:`Monomials` (degree ``<= top``)."""

    __slots__ = ("c", "mono", "top")

    def __init__(self, mono: Monomials, c, top: int):
        self.mono, self.c, self.top = mono, c, top

    @classmethod
    def const(cls, mono, value, top):
        c = [0] * mono.size
        c[0] = value
        return cls(mono, c, top)

    def is_const(self) -> bool:
        return all(x == 0 for x in self.c[1:])

    def __add__(self, other):
        if not isinstance(other, Series):
            c = list(self.c)
            c[0] = c[0] + other
            return Series(self.mono, c, self.top)
        return Series(self.mono, [x + y for x, y in zip(self.c, other.c)], self.top)

    def scale(self, k):
        return Series(self.mono, [0 if x == 0 else k * x for x in self.c], self.top)

    def __mul__(self, other):
        if not isinstance(other, Series):
            return self.scale(other)
        if other.is_const():
            return self.scale(other.c[0])
        if self.is_const():
            return other.scale(self.c[0])
        out = [0] * self.mono.size
        a, b = self.c, other.c
        for i, row in self.mono.pairs[self.top]:
            x = a[i]
            if not x == 0:  # noqa: SIM201 - a ball holding 0 (not exactly 0) is kept
                for j, k in row:
                    y = b[j]
                    if not y == 0:  # noqa: SIM201 - as x
                        out[k] += x * y
        return Series(self.mono, out, self.top)

    def _compose(self, coefs):
        """``sum_k coefs[k] (self - c0)^k`` (a function's Taylor series at ``c0``)."""
        s = Series(self.mono, [0, *self.c[1:]], self.top)
        out = Series.const(self.mono, coefs[0], self.top)
        power = None
        for k in range(1, self.top + 1):
            power = s if power is None else power * s
            out = out + power.scale(coefs[k])
        return out

    def _c0(self):
        """The constant term, a ball on the balls' path (an exact 0 or integer made one)."""
        c0 = self.c[0]
        return self.mono.zero + c0 if _is_ball(self.mono.zero) else c0

    def exp(self):
        c0 = self._c0()
        e0 = c0.exp() if _is_ball(c0) else mpmath.exp(c0)
        return self._compose([e0 / math.factorial(k) for k in range(self.top + 1)])

    def log(self):
        c0 = self._c0()
        if _is_ball(c0) and c0.real.contains(0) and c0.imag.contains(0):
            raise ZeroDivisionError("log of a ball holding 0")
        head = c0.log() if _is_ball(c0) else mpmath.log(c0)
        return self._compose(
            [head] + [(-1) ** (k + 1) / (k * c0**k) for k in range(1, self.top + 1)]
        )

    def power(self, p):
        """``self ** p``: integer ``p >= 0`` by products, any other by the binomial series."""
        if isinstance(p, int) and p >= 0:
            out = Series.const(self.mono, 1, self.top)
            for _ in range(p):
                out = out * self
            return out
        c0 = self._c0()
        coefs, b = [], fractions.Fraction(1) if isinstance(p, int) else 1
        for k in range(self.top + 1):
            if isinstance(b, fractions.Fraction):  # the binomial exactly, then one rounding
                coefs.append(_rational(b, c0) * c0 ** (p - k))
            else:
                coefs.append(b * c0 ** (p - k))
            b = b * (p - k) / (k + 1)
        return self._compose(coefs)


def series_of(expr, env: dict, states: dict, mono: Monomials, top: int, memo: dict) -> Series:
    """The SymPy expression ``expr`` as a :class:`Series`: ``states`` maps each state symbol
    to its series, ``env`` every other symbol to an mpmath number; ``memo`` is shared between
    the components (common subexpressions such as a logit denominator are expanded once)."""
    got = memo.get(expr)
    if got is not None:
        return got
    if expr in states:
        out = states[expr]
    elif not (expr.free_symbols & states.keys()):
        out = Series.const(mono, _number(expr, env, _is_ball(mono.zero)), top)
    elif expr.is_Add:
        out = None
        for a in expr.args:
            t = series_of(a, env, states, mono, top, memo)
            out = t if out is None else out + t
    elif expr.is_Mul:
        out = None
        for a in expr.args:
            t = series_of(a, env, states, mono, top, memo)
            out = t if out is None else out * t
    elif expr.is_Pow:
        base, ex = expr.args
        if ex.free_symbols & states.keys():
            out = series_of(sp.exp(ex * sp.log(base)), env, states, mono, top, memo)
        else:
            b = series_of(base, env, states, mono, top, memo)
            p = int(ex) if ex.is_Integer else _number(ex, env, _is_ball(mono.zero))
            out = b.power(p)
    elif isinstance(expr, sp.exp):
        out = series_of(expr.args[0], env, states, mono, top, memo).exp()
    elif isinstance(expr, sp.log):
        out = series_of(expr.args[0], env, states, mono, top, memo).log()
    else:
        raise SeriesUnsupported(
            f"the drift's {type(expr).__name__}(...) has no Taylor expansion here "
            "(sums, products, powers, exp and log are expanded)"
        )
    memo[expr] = out
    return out


def _rational(q, like):
    """The fraction ``q`` as a number of the type of ``like`` (an exact ball for Arb)."""
    if _is_ball(like):
        import flint

        return flint.acb(flint.fmpq(q.numerator, q.denominator))
    return mpmath.mpf(q.numerator) / q.denominator


def _is_ball(x) -> bool:
    return type(x).__name__ in ("acb", "arb")


def _number(expr, env, balls: bool = False):
    """An expression free of the states as a number: an ``acb`` ball (``balls``: exact
    rationals exact, :func:`symdelay.model.arb_eval.to_arb`) or mpmath at the working
    precision (exact rationals divided in mpmath); the parameters' values from ``env``."""
    syms = sorted(expr.free_symbols, key=str)
    missing = [str(q) for q in syms if q not in env]
    if missing:
        raise SeriesUnsupported("the drift needs numbers for " + ", ".join(missing))
    if balls:
        import flint

        from symdelay.model.arb_eval import to_arb

        try:
            return flint.acb(to_arb(expr, env))
        except NotImplementedError as exc:
            raise SeriesUnsupported(f"the drift's {exc}") from None
    if expr.is_Rational:
        return mpmath.mpf(expr.p) / expr.q
    return sp.lambdify(syms, expr, "mpmath")(*(env[q] for q in syms))


def centre_normal_form(drift, states, point, env, J, omega, Q, P, order: int = 5) -> dict:
    """The normal form ``G`` on the centre manifold of the imaginary eigenvalue ``i omega``
    of multiplicity ``m = len(Q)`` (module docstring), to degree ``order``.

    ``drift``: SymPy expressions (one per state) in the ``states`` symbols and the symbols
    of ``env``; ``point``: the equilibrium; ``J``: the Jacobian there, an mpmath matrix (the
    numbers mpmath) or a python-flint ``acb_mat`` (every number an Arb ball: ``env`` and
    ``point`` balls, ``omega`` an ``arb``; a linear system not invertible over the balls
    raises ZeroDivisionError); ``Q``: the right eigenvectors (lists), ``P``: the
    rows ``conj(p_j)`` with ``conj(p_j)^T q_k = delta_jk``. Returns ``{"mono": Monomials,
    "G": [coefficient lists of G_1..G_2m], "H": [series of each state's displacement]}``;
    the coefficient of ``z^a conj(z)^b`` in ``z_j'`` is ``G[j][mono.index[a + b]]``."""
    m = len(Q)
    n = len(states)
    nv = 2 * m
    mono = Monomials(nv, order)
    balls = type(J).__name__ == "acb_mat"
    if balls:
        import flint

        mono.zero = flint.acb(0)
        iw = flint.acb(0, omega)

        def conj(x):
            return x.conjugate()

        def inverse(rows):
            k = len(rows)
            return flint.acb_mat(k, k, [x for row in rows for x in row]).inv()

        def apply(Minv, b):
            x = Minv * flint.acb_mat(len(b), 1, b)
            return [x[i, 0] for i in range(len(b))]
    else:
        iw = mpmath.mpc(0, omega)
        conj = mpmath.conj

        def inverse(rows):
            return mpmath.inverse(mpmath.matrix(rows))

        def apply(Minv, b):
            x = Minv * mpmath.matrix(b)
            return [x[i] for i in range(len(b))]

    Qall = [list(q) for q in Q] + [[conj(x) for x in q] for q in Q]
    Pall = [list(p) for p in P] + [[conj(x) for x in p] for p in P]
    sign = [1] * m + [-1] * m
    Hc = [[0] * mono.size for _ in range(n)]
    for v in range(nv):
        u = mono.unit(v)
        for i in range(n):
            Hc[i][u] = Qall[v][i]
    Gc = [[0] * mono.size for _ in range(nv)]
    bordered = {}

    def shifted_rows(s):
        return [[(iw * s if i == j else 0) - J[i, j] for j in range(n)] for i in range(n)]

    def border(s):
        if s not in bordered:
            vs = list(range(m) if s == 1 else range(m, nv))
            rows = [row + [Qall[v][i] for v in vs] for i, row in enumerate(shifted_rows(s))]
            rows += [[Pall[v][i] for i in range(n)] + [0] * m for v in vs]
            bordered[s] = (inverse(rows), vs)  # one inverse per shift
        return bordered[s]

    shifted = {}

    def shifted_matrix(s):
        if s not in shifted:
            shifted[s] = inverse(shifted_rows(s))
        return shifted[s]

    sym_states = list(states)
    for d in range(2, order + 1):
        series = {s: Series(mono, [point[i], *Hc[i][1:]], d) for i, s in enumerate(sym_states)}
        memo = {}
        Fd = [series_of(F, env, series, mono, d, memo).c for F in drift]
        # DH_{>=2} G_{>=2}: the known part of the right side at degree d
        corr = [[0] * mono.size for _ in range(n)]
        if d >= 4:
            Gs = [Series(mono, [0] * (1 + nv) + Gc[v][1 + nv :], d) for v in range(nv)]
            for i in range(n):
                Hs = [0] * (1 + nv) + Hc[i][1 + nv :]
                tot = None
                for v in range(nv):
                    dH = _derivative(mono, Hs, v)
                    t = Series(mono, dH, d) * Gs[v]
                    tot = t if tot is None else tot + t
                corr[i] = tot.c
        for e_idx, e in enumerate(mono.exps):
            if mono.degree[e_idx] != d:
                continue
            s = sum(e[:m]) - sum(e[m:])
            R = [Fd[i][e_idx] - corr[i][e_idx] for i in range(n)]
            if s in (1, -1):
                Minv, vs = border(s)
                x = apply(Minv, R + [0] * m)
                for c, v in enumerate(vs):
                    Gc[v][e_idx] = x[n + c]
                h = x[:n]
            elif d < order:
                h = apply(shifted_matrix(s), R)
            else:
                continue
            for i in range(n):
                Hc[i][e_idx] = h[i]
    for v in range(nv):
        Gc[v][mono.unit(v)] = iw * sign[v]
    return {"mono": mono, "G": Gc, "H": Hc}


def _derivative(mono, c, v):
    """The coefficients of ``d/dw_v`` of the series ``c``."""
    out = [0] * mono.size
    for i, e in enumerate(mono.exps):
        if e[v] and c[i]:
            f = list(e)
            f[v] -= 1
            out[mono.index[tuple(f)]] = e[v] * c[i]
    return out
