"""The first Lyapunov coefficient of the difference system in closed form (SymPy).

The exact nonlinear difference system (:meth:`ActionDelayModel.difference_system`, with
``tanh``) is expanded at the origin; the Jacobian ``A``, the right eigenvector ``q(r)``
(``q_x = 1``, from the rows ``w_1..w_L`` of ``(A - r) q = 0``) and the left eigenvector
``p(r)`` (a row of the adjugate of ``A - r``, which is a left null vector wherever
``det(A - r) = 0``), normalised by ``conj(p)^T q = 1``, give Kuznetsov's projection formula
(:mod:`._projection`) as a function of ``r``. The quadratic form of the drift vanishes
(``tanh`` is odd), so ``c1 = <p, C(q, q, conj q)>/2``, and the eigenvalue derivative is
``r'(theta) = <p, A_theta q>``. SymPy then proves, for each L, the identity

    c1 = -(theta^3 / 4) r'(theta)          (at every eigenvalue r, not only at the crossing),

which says that ``c1`` is a *negative real multiple* of ``r'``: the bifurcation is
supercritical wherever the crossing is transversal and destabilising, and the frequency of
the cycle does not move at first order in ``theta - theta_c``. At the crossing
(``r = i omega_c``, ``omega_c`` and ``lam theta_c`` from the Hopf conditions) the closed
form of ``l1 = Re c1 / omega_c`` follows for ``L = 2, 3`` (the Hopf frequency solves a
linear equation in ``omega^2`` there), and the amplitude coefficient
``c = 2 sqrt(-Re r' / Re c1) = 4 theta_c^(-3/2)`` for every L with a closed ``theta_c``.

>>> s = symbolic_normal_form(2)
>>> s.ratio
-theta**3/4
>>> s.l1
-(gamma + mu)**5/(gamma**(3/2)*lam**2*sqrt(gamma + 2*mu)*(5*gamma + mu))
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from symdelay.core.display import LatexDisplay
from symdelay.core.errors import VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.symbols import D, gamma, lam, mu, r, theta
from symdelay.models.erlang.action_delay import ActionDelayModel, routing_term
from symdelay.models.erlang.stability import founding_closed_forms

__all__ = [
    "SymbolicNormalForm",
    "symbolic_normal_form",
    "CLOSED_L1_MAX_L",
    "cubic_coefficient",
    "describing_function_series",
]

#: Largest L for which the closed form of l1 is derived (Hopf frequency linear in omega^2).
CLOSED_L1_MAX_L = 3
#: Largest L with a closed theta_c (so a closed amplitude coefficient).
CLOSED_THETA_MAX_L = 5

omega = sp.Symbol("omega", positive=True)
_POS = {s: sp.Symbol(s.name, positive=True) for s in (mu, lam, theta, gamma)}
_BACK = {v: k for k, v in _POS.items()}


@dataclass(frozen=True)
class SymbolicNormalForm(LatexDisplay):
    """Closed forms for one L (symbols ``mu, lam, theta, gamma``; ``r`` the eigenvalue).

    ``q``, ``p``: eigenvectors as functions of ``r``; ``c1``, ``r_prime``: Kuznetsov's
    ``c1(r)`` and ``r'(theta)``; ``ratio = c1 / r'`` (proved constant in ``r``);
    ``omega2``: ``omega_c^2`` (None beyond :data:`CLOSED_L1_MAX_L`); ``lam_theta_c``;
    ``l1`` (None where no closed form); ``amplitude``: ``4 theta_c^(-3/2)`` (None where
    ``theta_c`` has none).
    """

    L: int
    state: tuple
    rhs: tuple
    A: sp.Matrix
    cubic: tuple
    quadratic_zero: bool
    q: sp.Matrix
    p: sp.Matrix
    c1: sp.Expr
    r_prime: sp.Expr
    ratio: sp.Expr
    omega2: sp.Expr | None
    lam_theta_c: sp.Expr | None
    l1: sp.Expr | None
    amplitude: sp.Expr | None

    def in_D(self, expr):
        """``expr`` with ``gamma = L/D``."""
        if expr is None:
            return None
        e = sp.sympify(expr).subs(gamma, self.L / D)
        return sp.factor(e) if not e.has(sp.Pow) or self.L <= CLOSED_L1_MAX_L else e

    def latex(self) -> str:
        from symdelay.core.latex import tex

        parts = [rf"c_1 = {tex(self.ratio)}\, r'(\theta)"]
        if self.l1 is not None:
            parts.append(rf"\ell_1 = {tex(self.l1)}")
        if self.amplitude is not None:
            parts.append(rf"A \approx {tex(self.amplitude)}\sqrt{{\theta-\theta_c}}")
        return r",\quad ".join(parts)


def cubic_coefficient():
    """``g'''(0)`` of the routing term ``g(x) = -2 lam tanh(theta x / 2)`` of the difference
    system (:func:`~symdelay.models.erlang.action_delay.routing_term`), derived:
    ``lam theta^3 / 2``.

    >>> cubic_coefficient()
    lam*theta**3/2
    """
    _, _, x, g = routing_term()
    return sp.diff(g, x, 3).subs(x, 0)


def describing_function_series():
    """``N(a) = 1 - a^2/4 + O(a^4)``: the describing function of ``tanh`` at input amplitude
    ``a`` (first Fourier coefficient of ``tanh(a sin phi)`` over ``a``), from its Taylor
    series, and the harmonic-balance amplitude ``A^2 = 16 (theta - theta_c)/theta_c^3``.

    >>> describing_function_series()
    (1 - a**2/4, 4/theta_c**(3/2))
    """
    a, phi = sp.symbols("a phi", positive=True)
    u = a * sp.sin(phi)
    series = sp.series(sp.tanh(u), a, 0, 4).removeO()
    N = sp.integrate(sp.expand(series * sp.sin(phi)), (phi, 0, 2 * sp.pi)) / (sp.pi * a)
    N = sp.expand(N)
    # harmonic balance: lam theta N(theta A / 2) = lam theta_c, to first order in theta - th_c
    th_c, A, eps = sp.symbols("theta_c A epsilon", positive=True)
    bal = sp.expand((th_c + eps) * N.subs(a, (th_c + eps) * A / 2) - th_c)
    A2 = sp.symbols("A2", positive=True)
    lead = sp.series(bal.subs(A, sp.sqrt(A2 * eps)), eps, 0, 2).removeO().coeff(eps, 1)
    c2 = sp.solve(lead, A2)[0]
    return N, sp.sqrt(c2)


@cache
def symbolic_normal_form(L: int) -> SymbolicNormalForm:
    """Derive the closed forms for ``L`` phases (see the module text)."""
    if not isinstance(L, int) or L < 1:
        raise VerificationError("symbolic_normal_form needs an integer L >= 1")
    sysm = ActionDelayModel(L).difference_system()
    st, rhs = sysm.state, sysm.rhs
    n = len(st)
    origin = {s: 0 for s in st}
    A = sp.Matrix(rhs).jacobian(st).subs(origin)
    hess = [sp.hessian(f, st).subs(origin) for f in rhs]
    quadratic_zero = all(h == sp.zeros(n, n) for h in hess)
    if not quadratic_zero:  # pragma: no cover - tanh is odd
        raise VerificationError("the difference system has quadratic terms")
    # cubic form: only pure third derivatives in x occur (the nonlinearity is tanh of x)
    x0 = st[0]
    cubic = tuple(sp.diff(f, x0, 3).subs(origin) for f in rhs)
    for f in rhs:
        for s in st[1:]:
            if sp.diff(f, x0, 2, s).subs(origin) != 0 or sp.diff(f, s, 3).subs(origin) != 0:
                raise VerificationError("unexpected cubic terms in the difference system")
    M = A - r * sp.eye(n)
    qs = sp.symbols(f"q1:{n}")
    qv = sp.Matrix([1, *qs])
    sol = sp.solve(list((M * qv)[1:]), qs, dict=True)
    if len(sol) != 1:  # pragma: no cover
        raise VerificationError("the right eigenvector is not unique")
    q = qv.subs(sol[0]).applyfunc(sp.factor)
    pb = M.adjugate().row(0)
    norm = sp.factor((pb * q)[0])
    pb = (pb / norm).applyfunc(sp.factor)  # conj(p)^T, as a function of r
    # conj(p)^T M = (det M / norm) e_x^T: a left null vector wherever det M = 0
    left = (pb * M - sp.Matrix([[M.det() / norm] + [0] * (n - 1)])).applyfunc(sp.cancel)
    if left != sp.zeros(1, n):
        raise VerificationError("the adjugate row is not a left eigenvector")  # pragma: no cover
    # q = q(r), conj(q) = q(conj r); with q_x = 1 and only x entering C: C(q,q,qb) = cubic
    c1 = sp.factor(sp.Rational(1, 2) * sum(pb[i] * cubic[i] for i in range(n)))
    r_prime = sp.factor((pb * A.diff(theta) * q)[0])
    ratio = sp.factor(sp.cancel(c1 / r_prime))
    if ratio.has(r):
        raise VerificationError("c1 / r' depends on r")  # pragma: no cover
    omega2 = lam_theta_c = l1 = amplitude = None
    if L >= 2:
        lam_theta_c = founding_closed_forms(L)["critical_lam_theta"]
    if lam_theta_c is not None and L <= CLOSED_THETA_MAX_L:
        # c = 2 sqrt(-Re r'/Re c1) |q_x| = 2 sqrt(-1/ratio) at theta_c (ratio real): a
        # power of theta_c alone; theta_c = (lam theta_c)/lam substituted unexpanded
        in_theta = sp.powsimp(2 * sp.sqrt(-1 / ratio.xreplace(_POS)), force=True)
        th_c = sp.Symbol("theta_c", positive=True)
        amplitude = _plain(in_theta.subs(_POS[theta], th_c)).subs(th_c, lam_theta_c / lam)
    if lam_theta_c is not None and L <= CLOSED_L1_MAX_L:
        omega2 = _hopf_omega2(A, lam_theta_c)
        if omega2 is not None:
            w = sp.sqrt(omega2.xreplace(_POS))
            expr = (c1 / omega).subs(r, sp.I * omega).xreplace(_POS)
            expr = sp.re(sp.expand_complex(expr)).subs(omega, w)
            expr = expr.subs(_POS[theta], lam_theta_c.xreplace(_POS) / _POS[lam])
            l1 = _plain(sp.factor(sp.simplify(expr)))
    return SymbolicNormalForm(
        L,
        st,
        rhs,
        A,
        cubic,
        quadratic_zero,
        q,
        pb.T,
        c1,
        r_prime,
        ratio,
        omega2,
        lam_theta_c,
        l1,
        amplitude,
    )


def _plain(e):
    return sp.sympify(e).xreplace(_BACK)


def _hopf_omega2(A, lam_theta_c):
    """``omega_c^2`` from ``Im P(i omega) = 0`` when that is linear in ``omega^2``."""
    n = A.rows
    P = sp.expand((r * sp.eye(n) - A).det())
    s = sp.Symbol("s", positive=True)
    im = sp.expand(sp.im(sp.expand_complex(P.subs(r, sp.I * omega).xreplace(_POS))) / omega)
    poly = sp.Poly(im.subs(omega, sp.sqrt(s)), s)
    if poly.degree() != 1:
        return None
    sol = sp.solve(poly.as_expr(), s)[0]
    return sp.factor(_plain(sol.subs(_POS[theta], lam_theta_c.xreplace(_POS) / _POS[lam])))
