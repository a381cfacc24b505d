"""Evaluate SymPy expressions in python-flint ``arb`` balls, exactly as written.

Rational constants become exact ``fmpq`` balls (never binary floats), so the enclosure of
each value is rigorous. Only the operations models use are supported. The symbols may be
bound to real balls (``arb``) or complex boxes (``acb``): the same walk gives an ``acb``
enclosure, functions on their principal branches (``(1 + r m/k)**(-k)`` for a non-integer
``k``, ``log``), and ``I`` is the exact complex unit.

>>> import flint, sympy as sp
>>> x = sp.Symbol("x")
>>> f = arb_evaluator([x / 3 + sp.exp(-x)], [x])
>>> f([flint.arb(0)])[0]
1.00000000000000
>>> z = to_arb(sp.I * sp.exp(-2 * x), {x: flint.acb(0, 1)})  # i e^(-2i) = sin 2 + i cos 2
>>> z.overlaps(flint.acb(2).sin() + flint.acb(0, 1) * flint.acb(2).cos())
True
"""

from __future__ import annotations

from symdelay.core.lazy import sympy as sp

__all__ = ["arb_evaluator", "to_arb"]


#: SymPy's functions evaluated by the arb method of the same name
_FUNCTIONS = ("exp", "log", "sin", "cos", "tan", "sinh", "cosh", "tanh", "atan")


def _const(e):
    import flint

    if isinstance(e, sp.Integer):
        return flint.arb(int(e))
    if isinstance(e, sp.Rational):
        return flint.arb(flint.fmpq(int(e.p), int(e.q)))
    if isinstance(e, sp.Float):
        return flint.arb(sp.Rational(e).p) / flint.arb(sp.Rational(e).q)
    if e is sp.pi:
        return flint.arb.pi()
    if e is sp.E:
        return flint.arb(1).exp()
    if e is sp.I:
        return flint.acb(0, 1)
    return None


def to_arb(e, env: dict):
    """The arb ball of ``e`` with symbols bound by ``env`` (symbol -> arb)."""
    import flint

    c = _const(e)
    if c is not None:
        return c
    if isinstance(e, sp.Symbol):
        return env[e]
    if isinstance(e, sp.Add):
        total = flint.arb(0)
        for a in e.args:
            total += to_arb(a, env)
        return total
    if isinstance(e, sp.Mul):
        total = flint.arb(1)
        for a in e.args:
            total *= to_arb(a, env)
        return total
    if isinstance(e, sp.Pow):
        base = to_arb(e.base, env)
        ex = e.exp
        if isinstance(ex, sp.Integer):
            k = int(ex)
            return base**k if k >= 0 else 1 / base ** (-k)
        if isinstance(ex, sp.Rational):  # b^(p/q) as (b^(1/q))^p: 0 stays 0
            p, q = int(ex.p), int(ex.q)
            root = base.root(q)  # acb: the principal branch
            return root**p if p >= 0 else 1 / root ** (-p)
        return (to_arb(ex, env) * base.log()).exp()
    if type(e).__name__ in _FUNCTIONS:
        return getattr(to_arb(e.args[0], env), type(e).__name__)()
    if isinstance(e, sp.Abs):
        return abs(to_arb(e.args[0], env))
    raise NotImplementedError(f"cannot evaluate {type(e).__name__} in interval arithmetic")


def arb_evaluator(exprs, symbols, *, cse=False):
    """A function ``values -> [arb]`` evaluating ``exprs`` at ``symbols = values``.
    ``cse``: common subexpressions are evaluated once (SymPy's ``cse``; the enclosure stays
    rigorous, each shared ball computed once)."""
    exprs = list(exprs)
    symbols = list(symbols)
    if cse:
        steps, exprs = sp.cse(exprs)
    else:
        steps = []

    def f(values):
        env = dict(zip(symbols, values))
        for sym, e in steps:
            env[sym] = to_arb(e, env)
        return [to_arb(e, env) for e in exprs]

    return f
