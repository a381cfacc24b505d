"""The equations the root finder solves, derived by SymPy from the characteristic polynomial.

Nothing here is typed in: :func:`branch_equation` substitutes ``r = gamma (u - 1)`` into
:func:`symdelay.models.erlang.charpoly.characteristic_polynomial` and reads off the well-scaled form

    u^L (u + a) + c = 0,    a = (mu - gamma)/gamma,   c = lam theta / gamma,

:func:`normalised_equation` divides the polynomial by ``(r + gamma)^L`` (the function whose
zeros the Newton iteration and the certificates use, scaled like the DDE equation), and
:func:`lambert_w_roots_formula` solves ``r + mu + lam theta exp(-D r) = 0`` with SymPy.

>>> eq = branch_equation()
>>> eq.a, eq.c
(-1 + mu/gamma, lam*theta/gamma)
>>> lambert_w_roots_formula()
-mu + LambertW(-D*lam*theta*exp(D*mu), k)/D
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from symdelay.core.errors import VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.result import Result
from symdelay.core.symbols import D, L, gamma, lam, mu, positive_versions, r, theta
from symdelay.models.erlang.charpoly import characteristic_polynomial, infinite_L_limit

__all__ = [
    "BranchEquation",
    "branch_equation",
    "normalised_equation",
    "lambert_w_roots_formula",
    "ball_functions",
    "u",
    "k",
]

#: The scaled variable u = (r + gamma)/gamma and the Lambert-W branch index.
u = sp.Symbol("u")
k = sp.Symbol("k", integer=True)


@dataclass(frozen=True)
class BranchEquation(Result):
    """``u^L (u + a) + c = 0`` with ``a``, ``c`` in the canonical symbols."""

    a: sp.Expr
    c: sp.Expr
    substitution: sp.Eq

    @property
    def lhs(self) -> sp.Expr:
        return u**L * (u + self.a) + self.c


@cache
def branch_equation() -> BranchEquation:
    """Substitute ``r = gamma (u - 1)`` in P, divide by ``gamma^(L+1)``, collect ``u^L``.

    The identity ``(gamma u)^L = gamma^L u^L`` holds for integer L; SymPy applies it under
    positive assumptions (``expand_power_base``), which is enough because both sides are
    polynomials in u. The result is checked against P for L = 1..4.
    """
    pos = positive_versions(L, gamma)
    Lp, gp = pos[L], pos[gamma]
    up = sp.Symbol("u", positive=True)
    P = characteristic_polynomial(L).subs(pos)
    Q = sp.expand_power_base(P.subs(r, gp * (up - 1)) / gp ** (Lp + 1), force=True)
    Q = sp.powsimp(sp.expand(Q), force=True)
    parts = sp.collect(Q, up**Lp, evaluate=False)
    if set(parts) != {up**Lp, sp.S.One}:
        raise VerificationError(f"unexpected form of the u-equation: {Q}")
    back = {Lp: L, gp: gamma, up: u}
    a = sp.expand(parts[up**Lp] - up).subs(back)
    c = sp.expand(parts[sp.S.One]).subs(back)
    if a.has(u) or c.has(u):
        raise VerificationError("the u-equation is not of the form u^L (u + a) + c")
    eq = BranchEquation(a, c, sp.Eq(r, gamma * (u - 1)))
    for n in range(1, 5):  # independent check: expand both sides for concrete L
        lhs = sp.expand(eq.lhs.subs(L, n) * gamma ** (n + 1))
        rhs = sp.expand(characteristic_polynomial(n).subs(r, gamma * (u - 1)))
        if sp.simplify(lhs - rhs) != 0:
            raise VerificationError(f"u-equation differs from P at L = {n}")
    return eq


@cache
def normalised_equation() -> tuple[sp.Expr, sp.Expr]:
    """``F(r) = P(r)/(r+gamma)^L`` and ``F'(r)``: ``r + mu + lam theta (gamma/(r+gamma))^L``.

    F has the zeros of P (P(-gamma) != 0 when lam theta != 0); with gamma = L/D it tends to
    the DDE function ``r + mu + lam theta exp(-D r)`` (:func:`symdelay.models.erlang.charpoly.infinite_L_limit`).
    """
    F = sp.powsimp(sp.expand(characteristic_polynomial(L) / (r + gamma) ** L), force=True)
    return F, sp.diff(F, r)


@cache
def lambert_w_roots_formula() -> sp.Expr:
    """The roots of ``r + mu + lam theta exp(-D r)`` as ``-mu + W_k(-lam theta D e^{mu D})/D``.

    SymPy's ``solve`` gives the principal branch; every branch ``W_k`` solves the same
    equation (``W e^W = z`` holds on each branch), which is checked numerically here for a
    few branches at 30 digits.
    """
    G = infinite_L_limit().result
    sols = sp.solve(G, r)
    if len(sols) != 1 or not sols[0].has(sp.LambertW):
        raise VerificationError(f"unexpected solution of the DDE equation: {sols}")
    general = sols[0].replace(sp.LambertW, lambda z: sp.LambertW(z, k))
    values = {mu: sp.Rational(1), lam: sp.Rational(3, 2), theta: sp.Rational(5, 3), D: 2}
    for kk in (-2, 0, 1, 3):
        root = general.subs(values).subs(k, kk).evalf(30)
        res = G.subs(values).subs(r, root).evalf(30)
        if abs(res) > 1e-25:
            raise VerificationError(f"Lambert-W branch {kk} does not solve the DDE equation")
    return general


def _ball_exp(z):
    return z.exp()


@cache
def ball_functions(limit: bool = False):
    """``(F, F')`` lambdified for Arb balls (python-flint ``acb``), ``limit``: the DDE's.

    Generated from :func:`normalised_equation` (resp. :func:`infinite_L_limit`; common
    subexpressions shared); arguments ``(r, mu, lam, theta, gamma, L)``, resp.
    ``(r, mu, lam, theta, D)`` for the L = oo limit. Pure arithmetic (and ``exp``), so
    Arb's rigorous operations apply.
    """
    if not limit:
        F, dF = normalised_equation()
        return sp.lambdify((r, mu, lam, theta, gamma, L), [F, dF], modules=[{}], cse=True)
    G = infinite_L_limit().result
    return sp.lambdify(
        (r, mu, lam, theta, D), [G, sp.diff(G, r)], modules=[{"exp": _ball_exp}], cse=True
    )
