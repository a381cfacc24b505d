"""Kernels of lags in Arb complex balls: ``K(z) = E[exp(-z X)]`` and ``K'(z)``, rigorously.

A lag is a probability law on ``[0, oo)`` given by its kind and exact numeric arguments
(the ``Lag`` of the model layer, or any object with ``kind`` and ``args``):

* ``constant`` (``value`` tau): ``exp(-z tau)``;
* ``uniform`` (``low`` a, ``high`` b): ``(exp(-z a) - exp(-z b)) / (z (b - a))``, evaluated
  as ``exp(-z c) sinc(i z h)`` with ``c = (a + b)/2``, ``h = (b - a)/2`` (Arb's ``sinc``
  encloses the removable singularity rigorously on a ball holding 0, where the contour of
  the argument principle passes); ``K'`` through ``0F1(; 5/2; z^2 h^2/4)``
  (``d/dw 0F1(; b; w) = 0F1(; b + 1; w)/b``);
* ``gamma`` (``shape`` k, ``mean`` m): ``(1 + z m/k)^(-k)`` on the principal branch (analytic
  for ``Re z > -k/m``); ``exponential`` (``mean`` m): ``1/(1 + z m)``;
* ``mixture`` (``lags``, ``weights``): ``sum w_i K_i``;
* ``phase_type`` (``alpha``, ``S``): ``alpha (zI - S)^(-1) s0 + (1 - alpha 1)``, ``s0 = -S 1``
  (the atom at 0 when ``alpha`` sums below 1).

The Taylor coefficients at 0 are the moments, ``K(z) = sum_j (-z)^j E[X^j] / j!``
(:func:`moments`, exact), and ``|K(z)| <= K(-c)`` for ``Re z >= -c`` (:func:`mgf_bound`:
``|E e^{-zX}| <= E e^{cX}``), the bound the root counts rest on.

>>> import flint
>>> from types import SimpleNamespace as Lag
>>> u = Lag(kind="uniform", args={"low": 0, "high": 2})
>>> k = kernel(u)
>>> k(flint.acb(0)).real      # K(0) = 1, through the removable singularity
1.00000000000000
>>> moments(u, 3)
[1, 1, 4/3]
"""

from __future__ import annotations

from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp

__all__ = [
    "KINDS",
    "kernel",
    "kernel_at",
    "kernel_derivative",
    "moments",
    "mgf_bound",
    "lag_number",
]

KINDS = ("constant", "uniform", "gamma", "exponential", "mixture", "phase_type")


def lag_number(lag, key):
    """The argument ``key`` of ``lag`` as an exact SymPy number (refused when symbolic)."""
    value = lag.args[key]
    e = sp.sympify(value) if isinstance(value, int | float | str) else value
    if isinstance(value, float):
        e = sp.Float(value)
    if not getattr(e, "is_number", False):
        raise SymdelayInputError(
            f"lag {_name(lag)}: {key} = {value} is not a number: the certified count is at "
            "numbers only (give every parameter a value)"
        )
    return e


def _name(lag) -> str:
    return getattr(lag, "name", lag.kind)


def _ball(e):
    """A SymPy number as an Arb ball (rational exactly; Floats widened by their precision)."""
    import flint

    from symdelay.model.arb_eval import to_arb

    if isinstance(e, sp.Float):
        q = sp.Rational(e)
        return flint.arb(flint.fmpq(int(q.p), int(q.q))) * (
            1 + flint.arb(0, flint.arb(2) ** (1 - e._prec))
        )
    return to_arb(e, {})


def _check(lag):
    if lag.kind not in KINDS:
        raise SymdelayInputError(f"lag {_name(lag)}: unknown kind {lag.kind!r}; use one of {KINDS}")


def kernel(lag):
    """``z -> K(z)`` for ``z`` an ``acb`` ball (build and call inside one Arb precision)."""
    import flint

    _check(lag)
    kind = lag.kind
    if kind == "constant":
        tau = _ball(lag_number(lag, "value"))
        return lambda z: (-z * tau).exp()
    if kind == "uniform":
        a, b = _ball(lag_number(lag, "low")), _ball(lag_number(lag, "high"))
        c, h = (a + b) / 2, (b - a) / 2
        ih = flint.acb(0, h)
        return lambda z: (-z * c).exp() * (z * ih).sinc()
    if kind == "gamma":
        k_expr = lag_number(lag, "shape")
        k, m = _ball(k_expr), _ball(lag_number(lag, "mean"))
        if k_expr.is_Integer:
            n = int(k_expr)
            return lambda z: 1 / (1 + z * m / k) ** n
        return lambda z: (1 + z * m / k) ** (-k)
    if kind == "exponential":
        m = _ball(lag_number(lag, "mean"))
        return lambda z: 1 / (1 + z * m)
    if kind == "mixture":
        parts = [
            (kernel(sub), _ball(_weight(w)))
            for sub, w in zip(lag.args["lags"], lag.args["weights"])
        ]
        return lambda z: sum((w * f(z) for f, w in parts), flint.acb(0))
    alpha, S, s0, atom = _phase_type(lag)
    n = S.nrows()

    def ph(z):
        x = _shifted(z, S, n).solve(s0)
        return sum((alpha[i] * x[i, 0] for i in range(n)), flint.acb(atom))

    return ph


def _shifted(z, S, n):
    """``zI - S`` as an ``acb_mat`` (the resolvent's matrix of a phase-type law)."""
    import flint

    return flint.acb_mat(n, n, [(z if i == j else 0) - S[i, j] for i in range(n) for j in range(n)])


def kernel_derivative(lag):
    """``z -> K'(z)`` for ``z`` an ``acb`` ball."""
    import flint

    _check(lag)
    kind = lag.kind
    if kind == "constant":
        tau = _ball(lag_number(lag, "value"))
        return lambda z: -tau * (-z * tau).exp()
    if kind == "uniform":
        a, b = _ball(lag_number(lag, "low")), _ball(lag_number(lag, "high"))
        c, h = (a + b) / 2, (b - a) / 2
        ih = flint.acb(0, h)
        five_halves = flint.acb(5) / 2

        def du(z):
            e = (-z * c).exp()
            w = z * z * h * h / 4
            return -c * e * (z * ih).sinc() + e * z * h * h / 3 * w.hypgeom_0f1(five_halves)

        return du
    if kind == "gamma":
        k_expr = lag_number(lag, "shape")
        k, m = _ball(k_expr), _ball(lag_number(lag, "mean"))
        if k_expr.is_Integer:
            n = int(k_expr)
            return lambda z: -m / (1 + z * m / k) ** (n + 1)
        return lambda z: -m * (1 + z * m / k) ** (-k - 1)
    if kind == "exponential":
        m = _ball(lag_number(lag, "mean"))
        return lambda z: -m / (1 + z * m) ** 2
    if kind == "mixture":
        parts = [
            (kernel_derivative(sub), _ball(_weight(w)))
            for sub, w in zip(lag.args["lags"], lag.args["weights"])
        ]
        return lambda z: sum((w * f(z) for f, w in parts), flint.acb(0))
    alpha, S, s0, _atom = _phase_type(lag)
    n = S.nrows()

    def dph(z):
        A = _shifted(z, S, n)
        x = A.solve(A.solve(s0))
        return -sum((alpha[i] * x[i, 0] for i in range(n)), flint.acb(0))

    return dph


def _weight(w):
    e = sp.sympify(w) if isinstance(w, int | str) else w
    if not getattr(e, "is_number", False):
        raise SymdelayInputError(
            f"mixture weight {w} is not a number: the certified count is at numbers only"
        )
    return e


def _phase_type(lag):
    import flint

    alpha = [_ball(_weight(a)) for a in lag.args["alpha"]]
    S_expr = sp.Matrix(lag.args["S"])
    n = S_expr.rows
    S = flint.acb_mat(n, n, [_ball(_weight(x)) for x in S_expr])
    s0 = flint.acb_mat(n, 1, [-sum((S[i, j] for j in range(n)), flint.acb(0)) for i in range(n)])
    atom = 1 - sum(alpha, flint.arb(0))
    return alpha, S, s0, atom


def moments(lag, count: int) -> list:
    """``[E X^0, ..., E X^(count-1)]`` exactly (SymPy numbers): the Taylor coefficients of
    ``K`` at 0 are ``(-1)^j E X^j / j!``."""
    _check(lag)
    kind = lag.kind
    js = range(count)
    if kind == "constant":
        t = lag_number(lag, "value")
        return [t**j for j in js]
    if kind == "uniform":
        a, b = lag_number(lag, "low"), lag_number(lag, "high")
        return [(b ** (j + 1) - a ** (j + 1)) / ((j + 1) * (b - a)) for j in js]
    if kind == "gamma":
        k, m = lag_number(lag, "shape"), lag_number(lag, "mean")
        return [(m / k) ** j * sp.rf(k, j) for j in js]
    if kind == "exponential":
        m = lag_number(lag, "mean")
        return [m**j * sp.factorial(j) for j in js]
    if kind == "mixture":
        parts = [moments(sub, count) for sub in lag.args["lags"]]
        ws = [_weight(w) for w in lag.args["weights"]]
        return [sum(w * p[j] for w, p in zip(ws, parts)) for j in js]
    alpha = sp.Matrix([[_weight(a) for a in lag.args["alpha"]]])
    S = sp.Matrix(lag.args["S"]).applyfunc(_weight)
    Tinv = (-S).inv()
    one = sp.ones(S.rows, 1)
    out, P = [], sp.eye(S.rows)
    for j in js:
        # E X^j = j! alpha (-S)^(-j) 1 (the atom at 0 adds only to j = 0)
        val = sp.factorial(j) * (alpha * P * one)[0]
        out.append(val + (1 - sum(alpha)) if j == 0 else val)
        P = P * Tinv
    return out


def mgf_bound(lag, shift):
    """An Arb upper bound of ``E exp(shift X) = K(-shift)`` for ``shift >= 0`` (so
    ``|K(z)| <= mgf_bound`` for ``Re z >= -shift``), or None when it is infinite (the
    shift reaches the kernel's abscissa of convergence)."""
    import flint

    c = shift if isinstance(shift, flint.arb) else _ball(_rational(shift))
    if c == 0:
        return flint.arb(1)
    kind = lag.kind
    if kind in ("constant", "uniform"):
        v = kernel(lag)(flint.acb(-c)).real
        return v.upper() if v.is_finite() else None
    if kind in ("gamma", "exponential"):
        k = _ball(lag_number(lag, "shape")) if kind == "gamma" else flint.arb(1)
        m = _ball(lag_number(lag, "mean"))
        base = 1 - c * m / k
        if not base > 0:
            return None
        return (base ** (-k)).upper()
    if kind == "mixture":
        total = flint.arb(0)
        for sub, w in zip(lag.args["lags"], lag.args["weights"]):
            b = mgf_bound(sub, c)
            if b is None:
                return None
            total += abs(_ball(_weight(w))) * b
        return total.upper()
    # phase type: finite iff -c exceeds every eigenvalue's real part of S (the decay rate)
    import mpmath

    S_num = sp.Matrix(lag.args["S"]).applyfunc(_weight)
    with mpmath.workdps(30):
        eig = mpmath.eig(mpmath.matrix(S_num.evalf(30).tolist()))[0]
        decay = -max(float(mpmath.re(e)) for e in eig)
    if not float(c.upper()) < 0.5 * decay:
        return None
    v = kernel(lag)(flint.acb(-c))
    if not v.is_finite():
        return None
    return abs(v).upper()


def _rational(x):
    from fractions import Fraction

    if isinstance(x, Fraction):
        return sp.Rational(x.numerator, x.denominator)
    return sp.Rational(x)  # ints, SymPy numbers, floats (their exact binary value)


def kernel_at(lag, env):
    """``z -> K(z)`` on ``acb`` balls for a lag whose arguments are expressions in the
    symbols of ``env`` (symbol -> ``arb`` ball): one enclosure for every parameter value in
    the balls (the lag-parameter crossings of :mod:`symdelay.analysis.lagparam` subdivide
    boxes of a lag's parameter with it). The forms are those of :func:`kernel` (the uniform
    law through ``sinc``, rigorous on a ball holding ``z = 0`` or a zero width).

    Parameters
    ----------
    lag : Lag
        The law (``kind`` and ``args``, SymPy expressions in the symbols of ``env`` and
        numbers).
    env : dict
        ``{symbol: flint.arb}``: a ball for every symbol left in the arguments.

    Returns
    -------
    callable
        ``z -> K(z)`` on ``acb`` balls (call it inside the Arb precision it was built at).
    """
    import flint

    from symdelay.model.arb_eval import to_arb

    _check(lag)

    def arg(key):
        v = lag.args[key]
        return to_arb(sp.sympify(v), env)

    kind = lag.kind
    if kind == "constant":
        tau = arg("value")
        return lambda z: (-z * tau).exp()
    if kind == "uniform":
        a, b = arg("low"), arg("high")
        c, h = (a + b) / 2, (b - a) / 2
        ih = flint.acb(0) + flint.acb(0, 1) * h
        return lambda z: (-z * c).exp() * (z * ih).sinc()
    if kind == "gamma":
        k_expr = sp.sympify(lag.args["shape"])
        k, m = arg("shape"), arg("mean")
        if k_expr.is_Integer:
            n = int(k_expr)
            return lambda z: 1 / (1 + z * m / k) ** n
        return lambda z: (1 + z * m / k) ** (-k)
    if kind == "exponential":
        m = arg("mean")
        return lambda z: 1 / (1 + z * m)
    if kind == "mixture":
        parts = [
            (kernel_at(sub, env), to_arb(sp.sympify(w), env))
            for sub, w in zip(lag.args["lags"], lag.args["weights"])
        ]
        return lambda z: sum((w * f(z) for f, w in parts), flint.acb(0))
    alpha = [to_arb(sp.sympify(a), env) for a in lag.args["alpha"]]
    S_expr = sp.Matrix(lag.args["S"])
    n = S_expr.rows
    S = flint.acb_mat(n, n, [to_arb(x, env) for x in S_expr])
    s0 = flint.acb_mat(n, 1, [-sum((S[i, j] for j in range(n)), flint.acb(0)) for i in range(n)])
    atom = 1 - sum(alpha, flint.arb(0))

    def ph(z):
        x = _shifted(z, S, n).solve(s0)
        return sum((alpha[i] * x[i, 0] for i in range(n)), flint.acb(atom))

    return ph
