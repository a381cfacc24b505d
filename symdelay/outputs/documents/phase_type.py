"""``derivations/phase_type.tex``: the two-queue model with a phase-type action delay.

The model is built from its transition table by :mod:`symdelay.models.delayed_routing`; the
characteristic equation of the difference mode is derived twice — as the determinant of the
mode's Jacobian block, and in closed form ``r + mu + lam theta alpha (rI - S)^{-1} s`` — and
SymPy checks that they agree for a general two-phase delay and the named families.
"""

from __future__ import annotations

from symdelay.core.errors import VerificationError
from symdelay.core.latex import Equation, display, document, escape, tex
from symdelay.core.lazy import sympy as sp
from symdelay.core.symbols import r
from symdelay.models import build_model
from symdelay.models.phase_type import PhaseType, characteristic_function
from symdelay.outputs.model_tex import long_lines, model_body

__all__ = ["FILENAME", "build", "general_two_phase", "FAMILIES"]

FILENAME = "phase_type.tex"

_a, _e1, _e2, _s12, _s21 = sp.symbols("a e1 e2 s12 s21")


def general_two_phase() -> PhaseType:
    """Two phases, start in phase 1 w.p. ``a``; moves ``s12``, ``s21``; exits ``e1``, ``e2``."""
    S = sp.Matrix([[-_e1 - _s12, _s12], [_s21, -_e2 - _s21]])
    domains = {_a: "probability", _e1: "nonnegative", _e2: "nonnegative"}
    domains.update({_s12: "nonnegative", _s21: "nonnegative"})
    return PhaseType(sp.Matrix([[_a, 1 - _a]]), S, "ph", domains)


def FAMILIES() -> list[tuple[str, PhaseType]]:
    """The named delays whose equation the document checks (all with mean 1 where possible)."""
    return [
        ("Erlang(3), mean 1", PhaseType.erlang(3, D=1)),
        ("hypoexponential, rates 2, 3, 6", PhaseType.hypoexp([2, 3, 6])),
        (
            "hyperexponential, (0.3, 0.7), rates (0.5, 2)",
            PhaseType.hyperexp(["0.3", "0.7"], ["0.5", 2]),
        ),
        (
            "Coxian, rates (1, 2, 4), continue (1/2, 1/4)",
            PhaseType.coxian([1, 2, 4], ["1/2", "1/4"]),
        ),
    ]


def _checked_equation(delay: PhaseType):
    """(difference-mode determinant, closed form times det(rI - S)); raises if they differ."""
    m = build_model("phase_type", delay=delay)
    block = next(md for md in m.modes if md.name == "difference")
    S = delay.S
    closed = sp.expand(sp.cancel(characteristic_function(delay) * (r * sp.eye(S.rows) - S).det()))
    if sp.expand(block.charpoly - closed) != 0:
        raise VerificationError(
            f"phase-type equation disagrees with the determinant for {delay.kind}"
        )
    return m, block, closed


def build() -> str:
    d = general_two_phase()
    m, _block, closed = _checked_equation(d)
    Fstar = sp.Symbol("Fstar")
    names = {**m.latex_names, _e1: "e_1", _e2: "e_2", _s12: "s_{12}", _s21: "s_{21}"}
    names[Fstar] = "F^*(r)"
    out = [
        "A phase-type delay is the absorption time of a Markov chain on $m$ transient phases, "
        "started in the row vector $\\alpha$ and moving by the sub-generator $S$; jobs leave "
        "phase $\\ell$ for service at rate $s_\\ell$, $s = -S\\mathbf 1$. Erlang, "
        "hypoexponential, hyperexponential and Coxian delays are special cases. This document "
        "derives the model with a general two-phase delay from its transition table.\n\n",
        display(Equation(sp.Symbol("alpha"), d.alpha), names),
        display(Equation(sp.Symbol("S"), d.S), names),
        model_body(m).replace("\\section{", "\\section{Two-phase delay: ", 1),
        "\\section{The characteristic equation in closed form}\n",
        "Linearising the logit rule at the symmetric point, $2\\lambda(p_1 - p_2) \\approx "
        "-\\lambda\\theta x$; with $w$ the vector of phase differences, $\\dot w = -\\lambda\\theta x"
        "\\,\\alpha + w S$ and $\\dot x = w s - \\mu x$. Laplace-transforming gives\n",
        "\\[ r + \\mu + \\lambda\\theta\\, F^*(r) = 0 \\]\n",
        "with $F^*(r) = \\alpha (rI - S)^{-1} s$ the Laplace transform of the delay. For the "
        "two-phase delay above,\n",
        display(Equation(Fstar, sp.factor(d.laplace_transform())), names),
        "and multiplying by $\\det(rI - S)$ gives exactly the difference factor of the "
        "previous section (SymPy checked the two polynomials are equal):\n",
        "\\begin{align*}\nP(r) = {}& " + long_lines(closed, names) + "\n\\end{align*}\n",
        "\\section{Named delays}\n",
        "For each delay below the same two paths were compared (determinant of the "
        "difference-mode block, closed form); they agree.\n\\begin{itemize}\n",
    ]
    for label, delay in FAMILIES():
        _, _, poly = _checked_equation(delay)
        out.append(
            f"\\item {escape(label)}: mean ${tex(delay.mean)}$, squared coefficient of "
            f"variation ${tex(delay.scv)}$,\n"
            f"\\begin{{align*}}\n& {long_lines(sp.collect(poly, r))} = 0\n\\end{{align*}}\n"
        )
    out.append("\\end{itemize}\n")
    return document("Phase-type action delays", "".join(out))
