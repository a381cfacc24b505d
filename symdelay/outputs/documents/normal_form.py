"""``derivations/normal_form.tex``: the first Lyapunov coefficient, derived symbolically.

Every formula is printed from the SymPy objects of :func:`symdelay.models.erlang.nonlinear.symbolic_normal_form`
and :func:`symdelay.models.erlang.nonlinear.describing_function_series` (deterministic: no numbers that
depend on timing or floating point).
"""

from __future__ import annotations

from symdelay.core.latex import document, tex
from symdelay.core.lazy import sympy as sp
from symdelay.models.erlang.nonlinear import describing_function_series, symbolic_normal_form
from symdelay.models.erlang.nonlinear.spectrum import spectrum_closed_form
from symdelay.models.erlang.nonlinear.symbolic import cubic_coefficient
from symdelay.outputs.model_tex import dotted

__all__ = ["FILENAME", "build", "SYMBOLIC_L"]

FILENAME = "normal_form.tex"

#: L values derived in the document.
SYMBOLIC_L = (2, 3)


def _eq(lhs: str, rhs) -> str:
    return f"\\[ {lhs} = {tex(rhs) if not isinstance(rhs, str) else rhs} \\]\n"


def _one_L(L: int) -> str:
    s = symbolic_normal_form(L)
    out = [f"\\section*{{$L = {L}$}}\n"]
    out.append("The difference system and its linearisation:\n")
    rows = " \\\\ ".join(f"{dotted(tex(v))} &= {tex(f)}" for v, f in zip(s.state, s.rhs))
    out.append(f"\\begin{{align*}} {rows} \\end{{align*}}\n")
    out.append(_eq("A", s.A))
    out.append(
        "Quadratic form: zero (checked: every Hessian of the right-hand side vanishes at 0). "
        "Cubic form: only $\\partial^3/\\partial x^3$ is non-zero, "
        + _eq("\\left(\\partial_x^3 f_i(0)\\right)_i", sp.Matrix(s.cubic).T)
    )
    out.append(
        "Right eigenvector ($q_x = 1$) and left eigenvector "
        "($\\bar p^T$ a row of $\\operatorname{adj}(A - r)$, "
        "$\\bar p^T q = 1$), as functions of the eigenvalue $r$:\n"
    )
    out.append(_eq("q(r)", s.q.T))
    out.append(_eq("\\bar p(r)", s.p.T))
    out.append(
        "Kuznetsov's projection formula without quadratic terms, "
        "$c_1 = \\tfrac12\\langle p, C(q, q, \\bar q)\\rangle$, and the eigenvalue "
        "speed $r'(\\theta) = \\langle p, A_\\theta q\\rangle$:\n"
    )
    out.append(_eq("c_1(r)", s.c1))
    out.append(_eq("r'(\\theta)", s.r_prime))
    out.append(_eq("\\frac{c_1}{r'(\\theta)}", s.ratio))
    if s.omega2 is not None:
        out.append(
            "At the Hopf point ($\\operatorname{Im} P(i\\omega) = 0$, "
            "$\\lambda\\theta_c$ from the Hopf conditions):\n"
        )
        out.append(_eq("\\omega_c^2", s.omega2))
        out.append(_eq("\\lambda\\theta_c", s.lam_theta_c))
        out.append(_eq("\\ell_1 = \\frac{\\operatorname{Re} c_1}{\\omega_c}", s.l1))
        out.append(_eq("\\ell_1\\big|_{\\gamma = L/D}", s.in_D(s.l1)))
    if s.amplitude is not None:
        out.append(
            _eq("c = 2\\sqrt{-\\frac{\\operatorname{Re} r'}{\\operatorname{Re} c_1}}", s.amplitude)
        )
    return "".join(out)


def build() -> str:
    N, c_df = describing_function_series()
    head = (
        "\\section*{Setting}\n"
        "The exact difference system $\\dot x = \\gamma w_L - \\mu x$, "
        "$\\dot w_1 = -2\\lambda\\tanh(\\theta x/2) - \\gamma w_1$, "
        "$\\dot w_\\ell = \\gamma(w_{\\ell-1} - w_\\ell)$ has the Hopf point $\\theta_c$ of "
        "the characteristic equation $(r+\\mu)(r+\\gamma)^L + \\lambda\\theta\\gamma^L = 0$. "
        "With $f(y) = Ay + \\tfrac12 B(y,y) + \\tfrac16 C(y,y,y) + \\dots$, "
        "$Aq = i\\omega q$, $A^T p = -i\\omega p$, $\\langle p, q\\rangle = \\bar p^T q = 1$, "
        "Kuznetsov's formula is\n"
        "\\[ c_1 = \\tfrac12\\langle p, C(q,q,\\bar q) - 2B(q, A^{-1}B(q,\\bar q)) + "
        "B(\\bar q, (2i\\omega - A)^{-1}B(q,q))\\rangle, \\qquad "
        "\\ell_1 = \\operatorname{Re} c_1/\\omega, \\]\n"
        "and the cycle has $|z|^2 = -\\operatorname{Re} r'\\,(\\theta-\\theta_c)/"
        "\\operatorname{Re} c_1$, $x \\approx 2|z|\\cos\\omega t$ ($q_x = 1$). "
        "The cubic coefficient of $-2\\lambda\\tanh(\\theta x/2)$ is "
        f"$g'''(0) = {tex(cubic_coefficient())}$.\n\n"
        "\\section*{Result}\n"
        "For every $L$ derived below, SymPy finds $c_1 = -\\frac{\\theta^3}{4} r'(\\theta)$ "
        "identically in $r$. On the imaginary axis $F(i\\omega) = \\rho e^{i\\phi}$ with "
        "$F = (r+\\mu)(r+\\gamma)^L$, $\\phi' > 0$; at the crossing $\\phi = \\pi$, "
        "$F'(i\\omega) = -\\rho\\phi' + i\\rho'$ and "
        "$r' = -\\lambda\\gamma^L/F'(i\\omega)$, so "
        "$\\operatorname{Re} r' = \\lambda\\gamma^L\\rho\\phi'/|F'|^2 > 0$ and "
        "$\\ell_1 < 0$: supercritical for every $L$ (and, with $\\phi = \\omega D + "
        "\\arctan(\\omega/\\mu)$, for the DDE). The amplitude coefficient is "
        "$c = 4\\theta_c^{-3/2}$ and $d\\omega/d\\theta = \\operatorname{Im} r' - "
        "\\operatorname{Im} c_1 \\operatorname{Re} r'/\\operatorname{Re} c_1 = 0$.\n\n"
        "\\section*{Harmonic balance}\n"
        f"The describing function of $\\tanh$ at amplitude $a$: $N(a) = {tex(N)} + O(a^4)$; "
        "the balance $\\lambda\\theta N(\\theta A/2) = \\lambda\\theta_c$ at the frequency "
        f"$\\omega_c$ gives $A \\approx {tex(c_df)}\\sqrt{{\\theta - \\theta_c}}$: the normal "
        "form's leading term. The relay limit ($\\theta \\to \\infty$) of the balance is "
        "$A = 8/(\\pi\\theta_c)$.\n\n"
    )
    body = head + "".join(_one_L(L) for L in SYMBOLIC_L)
    spec = "\\section*{Linear-noise spectrum of the imbalance}\n"
    for L in (1, 2):
        spec += _eq(f"S_{{L={L}}}(\\omega)", spectrum_closed_form(L))
    return document("Hopf normal form of the action-delay model", body + spec)
