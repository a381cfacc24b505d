"""Inputs for the delay-count tests: the model layer's own ``Lag``, ``LinearTerm`` and
``Linearisation`` built from matrices and laws directly (no transition table)."""

from __future__ import annotations

import sympy as sp

from symdelay.model.lags import Lag, Linearisation, LinearTerm


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
