"""``derivations/stability.tex``: Routh arrays, stability conditions and the Hopf boundary.

Every formula is printed from the objects :mod:`symdelay.analysis.routh` and :mod:`symdelay.models.erlang.stability`
computed.
"""

from __future__ import annotations

from symdelay.analysis.routh import routh_hurwitz
from symdelay.core.latex import document, escape, tex
from symdelay.core.lazy import sympy as sp
from symdelay.core.symbols import gamma, lam, mu, r, theta
from symdelay.models.erlang.charpoly import special_case
from symdelay.models.erlang.stability import (
    ASSUMPTIONS,
    difference_routh,
    founding_closed_forms,
    oscillation_threshold,
)
from symdelay.outputs.stability_tex import (
    conditions_block,
    critical_block,
    first_column,
    oscillation_block,
    relation_display,
    routh_table,
)

__all__ = ["FILENAME", "build", "TABLE_L", "COLUMN_L", "CONDITION_L", "OSCILLATION_L"]

FILENAME = "stability.tex"
#: L values whose full Routh array is printed / whose first column is printed.
TABLE_L = (1, 2)
COLUMN_L = (3, 4)
#: L values of the stability-condition section.
CONDITION_L = tuple(range(1, 9))
#: L values whose oscillation condition is printed.
OSCILLATION_L = (2, 3, 4, 5)


def _engine_section() -> str:
    s = sp.Symbol("s")
    eps = routh_hurwitz(s**4 + s**3 + 3 * s**2 + 3 * s + 3, s)
    aux = routh_hurwitz(s**5 + 2 * s**4 + 24 * s**3 + 48 * s**2 - 25 * s - 50, s)
    return (
        "\\section{The Routh--Hurwitz engine}\n"
        "Rows are computed fraction-free: row $k$ is the classical row times the Hurwitz "
        "determinant $\\Delta_{k-1}$, every division is exact, and the first column is "
        "$\\Delta_1, \\Delta_2, \\dots$. A zero first entry is replaced by $\\epsilon \\to 0^+$; "
        "a zero row by the derivative of the auxiliary polynomial of the row above. "
        f"For ${tex(eps.polynomial)}$ ({eps.rhp_count} roots with $\\Re r > 0$):\n"
        + routh_table(eps)
        + f"For ${tex(aux.polynomial)}$ the auxiliary polynomial is "
        f"${tex(aux.auxiliary_polynomials[0][1])}$: {aux.rhp_count} root in $\\Re r > 0$ and "
        f"{aux.imaginary_axis_count} on the imaginary axis.\n" + routh_table(aux)
    )


def _arrays_section() -> str:
    out = ["\\section{Routh arrays of the difference mode}\n"]
    for L in TABLE_L + COLUMN_L:
        res = difference_routh(L)
        out.append(f"\\subsection*{{$L = {L}$}}\n$P(r) = {tex(res.polynomial)}$.\n")
        out.append(routh_table(res) if L in TABLE_L else first_column(res))
    return "".join(out)


def _conditions_section() -> str:
    out = [
        "\\section{Stability conditions and the critical $\\lambda\\theta$}\n",
        f"Conditions are simplified under {escape(ASSUMPTIONS)}: conditions and factors "
        "positive there are dropped. Every crossing of the imaginary axis at $k = "
        "\\lambda\\theta > 0$ goes to the right, since with $Q = (r+\\mu)(r+\\gamma)^L$ "
        "$\\Re(dr/dk) = \\Re(Q/Q')/k > 0$ ($\\Re (Q'/Q)(i\\omega) = \\mu/(\\omega^2+\\mu^2) + "
        "L\\gamma/(\\omega^2+\\gamma^2)$). Hence the equilibrium is stable exactly for "
        "$-\\mu < \\lambda\\theta < k_c$: $\\theta < 0$ (routing towards the longer queue) "
        "loses stability when a real root crosses $0$ at $\\lambda\\theta = -\\mu$.\n",
    ]
    for L in CONDITION_L:
        forms = founding_closed_forms(L)
        out.append(f"\\subsection*{{$L = {L}$}}\n")
        if L <= 5:
            out.append(conditions_block(forms))
        else:
            out.append(
                f"{len(forms['conditions_under_assumptions'])} Routh conditions remain "
                f"(printed by \\texttt{{symdelay stability --L {L}}}).\n"
            )
        out.append(critical_block(L, forms))
    return "".join(out)


def _oscillation_section() -> str:
    one = special_case(1)
    return (
        "\\section{Stability is not oscillation}\n"
        "For $L = 1$ the characteristic polynomial\n"
        f"\\begin{{equation*}}\n{tex(one.polynomial)}\n\\end{{equation*}}\n"
        "has positive coefficients for every $\\theta \\ge 0$, so it is stable for all "
        "$\\theta$. Its roots are complex exactly when\n"
        f"\\begin{{equation*}}\n{tex(one.oscillation_condition)}\n\\end{{equation*}}\n"
        "an \\emph{oscillation} boundary (damped oscillation), not a stability boundary.\n\n"
        "For every $L$ the oscillation set is one bound on $\\lambda\\theta$. With "
        "$F(r) = (r+\\mu)(r+\\gamma)^L$ the real roots solve $F(r) = -\\lambda\\theta"
        "\\gamma^L$; $F'$ vanishes at $-\\gamma$ and at "
        + f"$r^* = {tex(_critical_point())}$"
        + ", where the real root next to $-\\mu$ becomes double. At a real root $y$ with "
        "$F'(y) > 0$, $|F(y + ib)| > |F(y)|$ for $b \\ne 0$, so by Rouch\\'e on "
        "$\\Re r \\ge y$ the characteristic polynomial has as many roots there as $F$. For "
        "$\\gamma > \\mu$ this leaves the real root alone on the right up to the double root, "
        "and only non-real roots on the right beyond it; for $\\gamma \\le \\mu$ and $L \\ge 2$ "
        "at least two non-real roots lie right of every real root as soon as "
        "$\\lambda\\theta > 0$. Hence (minimal form, printed from "
        "\\texttt{oscillation\\_threshold}):\n"
        + "".join(
            f"\\paragraph{{$L = {L}$.}}\n" + oscillation_block(founding_closed_forms(L))
            for L in OSCILLATION_L
        )
        + "\\paragraph{$L = \\infty$.} The rightmost root is $-\\mu + W_0(-\\lambda\\theta D "
        "e^{\\mu D})/D$, non-real exactly when the argument is below $-1/e$:\n"
        + relation_display(
            sp.StrictGreaterThan(lam * theta, oscillation_threshold("inf"), evaluate=False)
        )
    )


def _critical_point():
    """r* with F'(r*) = 0 besides -gamma (solved, for the text)."""
    L_ = sp.Symbol("L", positive=True)
    F = (r + mu) * (r + gamma) ** L_
    lin = sp.simplify(sp.diff(F, r) / (r + gamma) ** (L_ - 1))
    (rs,) = sp.solve(lin, r)
    return sp.factor(rs)


def build() -> str:
    body = _engine_section() + _arrays_section() + _conditions_section() + _oscillation_section()
    return document("Stability of the action-delay model: Routh--Hurwitz and Hopf", body)
