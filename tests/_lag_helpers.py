"""Linearisation-like inputs for the delay-count tests (the fields of the model's
``Linearisation``, ``LinearTerm`` and ``Lag``), built without the model layer's lag core."""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

from symdelay.core.symbols import r


@dataclass(frozen=True)
class Lag:
    name: str
    kind: str
    args: dict = field(default_factory=dict)

    def laplace(self, s=r):
        a = self.args
        if self.kind == "constant":
            return sp.exp(-s * a["value"])
        if self.kind == "uniform":
            lo, hi = a["low"], a["high"]
            return (sp.exp(-s * lo) - sp.exp(-s * hi)) / (s * (hi - lo))
        if self.kind == "gamma":
            return (1 + s * a["mean"] / a["shape"]) ** (-a["shape"])
        if self.kind == "exponential":
            return 1 / (1 + s * a["mean"])
        if self.kind == "mixture":
            return sum(w * lag.laplace(s) for lag, w in zip(a["lags"], a["weights"]))
        alpha = sp.Matrix([list(a["alpha"])])
        S = sp.Matrix(a["S"])
        s0 = -S * sp.ones(S.rows, 1)
        return (alpha * (s * sp.eye(S.rows) - S).inv() * s0)[0] + 1 - sum(a["alpha"])


@dataclass(frozen=True)
class LinearTerm:
    matrix: sp.ImmutableMatrix
    kernel: sp.Expr
    lags: tuple
    derivative: bool = False


@dataclass(frozen=True)
class Linearisation:
    A0: sp.ImmutableMatrix
    terms: tuple

    def matrix(self, s=r):
        n = self.A0.rows
        D = s * sp.eye(n) - self.A0
        for t in self.terms:
            D -= (s if t.derivative else 1) * t.matrix * t.kernel.subs(r, s)
        return D


def q(x) -> sp.Rational:
    """An exact rational from a Fraction, int or decimal text."""
    from symdelay.core.exact import exact_number

    return exact_number(str(x)) if not isinstance(x, int) else sp.Integer(x)


def lag(kind, name=None, **args):
    return Lag(name or kind, kind, args)


def term(M, lags, derivative=False):
    """A term ``M K(r)`` with ``K`` the product of the lags' kernels."""
    M = sp.ImmutableMatrix(M if isinstance(M, list | sp.MatrixBase) else [[M]])
    K = sp.Mul(*[lg.laplace() for lg in lags])
    return LinearTerm(M, K, tuple(lg.name for lg in lags), derivative)


def linearisation(A0, *terms):
    A0 = sp.ImmutableMatrix(A0 if isinstance(A0, list | sp.MatrixBase) else [[A0]])
    return Linearisation(A0, tuple(terms))


def lag_map(*lin_terms_lags) -> dict:
    return {lg.name: lg for lg in lin_terms_lags}


def scalar(mu, a, lg, derivative=None):
    """``r + mu + a K(r)`` (and ``- m r K(r)`` with ``derivative = m``) as a 1 x 1
    linearisation with its lags."""
    terms = [term(-a, [lg])]
    if derivative is not None:
        terms.append(term(derivative, [lg], derivative=True))
    return linearisation(-mu, *terms), {lg.name: lg}
