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
rationals and the parameter values entered as mpmath numbers at the working precision, ``exp``,
``log`` and powers by their Taylor series around the constant term), and each monomial
``w^e = z^a conj(z)^b`` of degree ``d`` gives

    (i omega s - J) h_e + sum_v Q_v G_{v,e} = R_e,    s = |a| - |b|.

Where ``i omega s`` is not an eigenvalue of ``J`` the normal form keeps no term (``G_{v,e} =
0``) and ``h_e = (i omega s - J)^-1 R_e``; where it is (``s = +-1``, resonant monomials), the
bordered system with ``conj(p_j)^T h_e = 0`` (h has no component in the centre eigenspace)
gives ``G_{j,e} = conj(p_j)^T R_e`` and ``h_e``. The coefficients of the normal form at degree
3 are Kuznetsov's multivariate projection formula; at degree 5 they are the ones the
equivariant analysis needs (:mod:`symdelay.analysis.equivariant`).
"""

from __future__ import annotations

import itertools

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
        return not any(self.c[1:])

    def __add__(self, other):
        if not isinstance(other, Series):
            c = list(self.c)
            c[0] = c[0] + other
            return Series(self.mono, c, self.top)
        return Series(self.mono, [x + y for x, y in zip(self.c, other.c)], self.top)

    def scale(self, k):
        return Series(self.mono, [k * x if x else 0 for x in self.c], self.top)

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
            if x:
                for j, k in row:
                    y = b[j]
                    if y:
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

    def exp(self):
        e0 = mpmath.exp(self.c[0])
        return self._compose([e0 / mpmath.factorial(k) for k in range(self.top + 1)])

    def log(self):
        c0 = self.c[0]
        return self._compose(
            [mpmath.log(c0)] + [(-1) ** (k + 1) / (k * c0**k) for k in range(1, self.top + 1)]
        )

    def power(self, p):
        """``self ** p``: integer ``p >= 0`` by products, any other by the binomial series."""
        if isinstance(p, int) and p >= 0:
            out = Series.const(self.mono, 1, self.top)
            for _ in range(p):
                out = out * self
            return out
        c0 = self.c[0]
        coefs, b = [], mpmath.mpf(1)
        for k in range(self.top + 1):
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
        out = Series.const(mono, _number(expr, env), top)
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
            p = int(ex) if ex.is_Integer else _number(ex, env)
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


def _number(expr, env):
    """An expression free of the states as an mpmath number at the working precision
    (exact rationals divided in mpmath; the parameters' values from ``env``)."""
    if expr.is_Rational:
        return mpmath.mpf(expr.p) / expr.q
    syms = sorted(expr.free_symbols, key=str)
    missing = [str(q) for q in syms if q not in env]
    if missing:
        raise SeriesUnsupported("the drift needs numbers for " + ", ".join(missing))
    return sp.lambdify(syms, expr, "mpmath")(*(env[q] for q in syms))


def centre_normal_form(drift, states, point, env, J, omega, Q, P, order: int = 5) -> dict:
    """The normal form ``G`` on the centre manifold of the imaginary eigenvalue ``i omega``
    of multiplicity ``m = len(Q)`` (module docstring), to degree ``order``.

    ``drift``: SymPy expressions (one per state) in the ``states`` symbols and the symbols
    of ``env`` (mpmath numbers); ``point``: the equilibrium (mpmath numbers); ``J``: the
    Jacobian there (an mpmath matrix); ``Q``: the right eigenvectors (lists), ``P``: the
    rows ``conj(p_j)`` with ``conj(p_j)^T q_k = delta_jk``. Returns ``{"mono": Monomials,
    "G": [coefficient lists of G_1..G_2m], "H": [series of each state's displacement]}``;
    the coefficient of ``z^a conj(z)^b`` in ``z_j'`` is ``G[j][mono.index[a + b]]``."""
    m = len(Q)
    n = len(states)
    nv = 2 * m
    mono = Monomials(nv, order)
    iw = mpmath.mpc(0, omega)
    Qall = [list(q) for q in Q] + [[mpmath.conj(x) for x in q] for q in Q]
    Pall = [list(p) for p in P] + [[mpmath.conj(x) for x in p] for p in P]
    sign = [1] * m + [-1] * m
    Hc = [[0] * mono.size for _ in range(n)]
    for v in range(nv):
        u = mono.unit(v)
        for i in range(n):
            Hc[i][u] = Qall[v][i]
    Gc = [[0] * mono.size for _ in range(nv)]
    bordered = {}

    def border(s):
        if s not in bordered:
            M = mpmath.matrix(n + m, n + m)
            for i in range(n):
                for j in range(n):
                    M[i, j] = (iw * s if i == j else 0) - J[i, j]
            vs = range(m) if s == 1 else range(m, nv)
            for c, v in enumerate(vs):
                for i in range(n):
                    M[i, n + c] = Qall[v][i]
                    M[n + c, i] = Pall[v][i]
            bordered[s] = (mpmath.inverse(M), list(vs))  # one factorisation per shift
        return bordered[s]

    shifted = {}

    def shifted_matrix(s):
        if s not in shifted:
            M = mpmath.matrix(n, n)
            for i in range(n):
                for j in range(n):
                    M[i, j] = (iw * s if i == j else 0) - J[i, j]
            shifted[s] = mpmath.inverse(M)
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
                x = Minv * mpmath.matrix(R + [0] * m)
                for c, v in enumerate(vs):
                    Gc[v][e_idx] = x[n + c]
                h = [x[i] for i in range(n)]
            elif d < order:
                x = shifted_matrix(s) * mpmath.matrix(R)
                h = [x[i] for i in range(n)]
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
