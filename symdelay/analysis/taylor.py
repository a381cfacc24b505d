"""Partial derivatives of an expression at a point by truncated Taylor arithmetic, exactly.

Repeated ``sp.diff`` of a rate such as ``2 lam / (1 + exp(h(z)))`` grows the expression at
every order (the fifth derivatives the Bautin coefficient needs took seconds). Here the
expression tree is evaluated once on truncated multivariate Taylor polynomials in the
displacements ``d_k = v_k - base_k`` (coefficients SymPy expressions in the remaining
symbols, already at the point), so every intermediate stays a polynomial of degree at most
``order``: sums and products are truncated, a power with a constant exponent is the binomial
series around the base value, and a function of one argument ``F(a0 + d)`` is
``sum_k F^(k)(a0) d^k / k!`` (``F^(k)`` by SymPy in one dummy variable). The partial
derivative ``d^alpha f`` is the coefficient of ``d^alpha`` times ``alpha!``.

>>> from symdelay.core.lazy import sympy as sp
>>> x, y = sp.symbols("x y")
>>> d = taylor_derivatives(sp.exp(x * y), [x, y], {x: 1, y: 2}, 2)
>>> d[(0,)], d[(0, 1)], d[(1, 1)]
(2*exp(2), 3*exp(2), exp(2))
"""

from __future__ import annotations

import itertools
import math

from symdelay.core.lazy import sympy as sp

__all__ = ["taylor_derivatives"]


def _mul(a: dict, b: dict, order: int) -> dict:
    out: dict = {}
    for ka, va in a.items():
        da = sum(ka)
        for kb, vb in b.items():
            if da + sum(kb) > order:
                continue
            k = tuple(i + j for i, j in zip(ka, kb))
            out[k] = out.get(k, 0) + va * vb
    return {k: v for k, v in out.items() if v != 0}


def _add(a: dict, b: dict, c=1) -> dict:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + c * v
    return {k: v for k, v in out.items() if v != 0}


def _series(a: dict, coeffs, order: int, zero: tuple) -> dict:
    """``sum_k coeffs[k] (a - a0)^k`` truncated (``coeffs`` a callable ``k -> expr``)."""
    delta = {k: v for k, v in a.items() if k != zero}
    out = {zero: coeffs(0)} if coeffs(0) != 0 else {}
    power = {zero: sp.Integer(1)}
    for k in range(1, order + 1):
        power = _mul(power, delta, order)
        if not power:
            break
        c = coeffs(k)
        if c != 0:
            out = _add(out, power, c)
    return out


def taylor_derivatives(f, variables, base: dict, order: int) -> dict:
    """Every non-zero partial derivative of ``f`` in ``variables`` up to ``order`` at
    ``base`` (``{variable: value}``, SymPy): ``{index tuple: expr}``, the index tuple the
    sorted positions in ``variables`` (``(0, 0, 1)`` is ``d^3 f / dv0^2 dv1``; ``()`` the
    value). Raises NotImplementedError on a node it does not expand (a function of several
    arguments, a piecewise): the caller differentiates symbolically then."""
    n = len(variables)
    zero = (0,) * n
    index = {v: i for i, v in enumerate(variables)}
    varset = set(variables)
    cache: dict = {}

    def go(e) -> dict:
        if e in cache:
            return cache[e]
        if e in index:
            unit = tuple(int(j == index[e]) for j in range(n))
            b = sp.sympify(base[e])
            r = {unit: sp.Integer(1), **({zero: b} if b != 0 else {})}
        elif not (e.free_symbols & varset):
            r = {zero: e} if e != 0 else {}
        elif isinstance(e, sp.Add):
            r = {}
            for a in e.args:
                r = _add(r, go(a))
        elif isinstance(e, sp.Mul):
            r = {zero: sp.Integer(1)}
            for a in e.args:
                r = _mul(r, go(a), order)
        elif isinstance(e, sp.Pow) and not (e.exp.free_symbols & varset):
            a, p = go(e.base), e.exp
            if p.is_Integer and p >= 0:
                r = {zero: sp.Integer(1)}
                for _ in range(int(p)):
                    r = _mul(r, a, order)
            else:
                a0 = a.get(zero, 0)
                if a0 == 0:
                    raise NotImplementedError("a power of a vanishing base")
                r = _series(a, lambda k, a0=a0, p=p: sp.binomial(p, k) * a0 ** (p - k), order,
                            zero)  # fmt: skip
        elif isinstance(e, sp.Pow):  # b^g = exp(g log b)
            r = go(sp.exp(e.exp * sp.log(e.base), evaluate=False))
        elif isinstance(e, sp.Function) and len(e.args) == 1:
            a = go(e.args[0])
            a0 = a.get(zero, sp.Integer(0))
            t = sp.Dummy("t")
            F = e.func(t)
            ders = [F]
            for _ in range(order):
                ders.append(sp.diff(ders[-1], t))
            vals = [d.xreplace({t: a0}) for d in ders]
            r = _series(a, lambda k: vals[k] / math.factorial(k), order, zero)
        else:
            raise NotImplementedError(f"no Taylor expansion of {type(e).__name__}")
        cache[e] = r
        return r

    series = go(sp.sympify(f))
    out = {}
    for k, v in series.items():
        idx = tuple(itertools.chain.from_iterable([i] * m for i, m in enumerate(k)))
        out[idx] = v * math.prod(math.factorial(m) for m in k)
    return out
