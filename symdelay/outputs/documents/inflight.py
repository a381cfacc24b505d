"""``derivations/inflight.tex``: routing that counts jobs in flight.

Every formula is printed from the SymPy object that was checked: the characteristic equation
for symbolic L and weights (:func:`symdelay.models.inflight.charpoly.derive_inflight_equation`), its
L -> oo limit, the crossing curve in the (kappa, lam theta) plane, the closed form of kappa*
at L = 2, the identity that gives kappa* = 1/2 in the delay-differential limit, and the
explicit determinants for L = 1..8.
"""

from __future__ import annotations

from symdelay.core.latex import Equation, display, document
from symdelay.core.lazy import sympy as sp
from symdelay.models.inflight.charpoly import (
    derive_inflight_equation,
    inflight_limit,
    nonlinear_difference_rhs,
    verify_inflight_determinant,
)
from symdelay.models.inflight.curve import kappa_star, symbolic_crossing_curve

__all__ = ["FILENAME", "build", "DETERMINANT_LS"]

FILENAME = "inflight.tex"

#: The L for which the explicit determinant is checked against the general formula.
DETERMINANT_LS = tuple(range(1, 9))

_NAMES = {sp.Symbol("P_0"): "P_0", sp.Symbol("u_1"): "u_1"}

_PROSE = {
    "structure": "The Jacobian of the difference mode is the founding one, $J_0$, plus a "
    "rank-one term: $J = J_0 - \\lambda\\theta\\, e_{w_1} k^{\\mathsf T}$ with $k = (0, "
    "\\kappa_1, \\dots, \\kappa_L)$. By the matrix determinant lemma, $\\det(rI - J) = "
    "P_0(r)\\,\\bigl(1 + \\lambda\\theta\\, k^{\\mathsf T} u\\bigr)$ where $(rI - J_0) u = "
    "e_{w_1}$ and $P_0$ is the founding characteristic polynomial:\n",
    "recurrence": "The rows $w_2, \\dots, w_L$ of $(rI - J_0)u = e_{w_1}$ are a first-order "
    "recurrence, solved by \\texttt{rsolve} (and substituted back):\n",
    "u1": "The row of $x$ gives $u_x = \\gamma u_L/(r + \\mu)$, and the row of $w_1$, "
    "$\\lambda\\theta u_x + (r + \\gamma) u_1 = 1$, then gives\n",
    "per_phase": "Hence, for weights $\\kappa_k$ on the phases,\n",
    "geometric": "With one weight $\\kappa$ for every phase the sum is geometric "
    "(\\texttt{summation}, valid for $r \\ne 0$):\n",
    "uniform": "so that\n",
    "spurious": "The factor $1/r$ is spurious: $(r+\\gamma)^L - \\gamma^L$ vanishes at "
    "$r = 0$, and SymPy checks\n",
    "polynomial": "So $P$ is a polynomial of degree $L + 1$. Clearing the denominator by "
    "multiplying with $r$ would add the root $r = 0$, which is not an eigenvalue "
    "(at $r = 0$, $P = \\gamma^{L-1}(\\mu\\gamma + \\lambda\\theta(\\gamma + \\kappa\\mu L)) "
    "> 0$):\n",
}


def _curve_L2() -> str:
    """The crossing curve at L = 2 in (t = omega^2), and kappa* in closed form."""
    cv = symbolic_crossing_curve(2)
    kap, a, crit = cv["kappa"], cv["a"], cv["critical"]
    closed = kappa_star(2, 1, 1, dps=15).closed_form["kappa_star"]
    return "".join(
        [
            "At $L = 2$ (with $t = \\omega^2$) the curve is\n",
            display(Equation(sp.Symbol("kappa(t)"), kap), {sp.Symbol("kappa(t)"): "\\kappa(t)"}),
            display(Equation(sp.Symbol("a(t)"), a)),
            "so $a(t) > 0$ for every $t$, $\\kappa(t) < 0$ for $t < \\gamma(\\gamma + 2\\mu)$, "
            "and $\\kappa(t)$ has one positive critical point,\n",
            display(Equation(sp.Symbol("t^*"), crit[0])),
            "at which SymPy's value simplifies (checked against the certified value) to\n",
            display(Equation(sp.Symbol("kappa^*"), closed)),
            "As $D \\to 0$ ($\\gamma \\to \\infty$) this tends to $1/9$; as $D \\to \\infty$ "
            "it vanishes like $(\\gamma/\\mu)^2$.\n\n",
        ]
    )


def _limit_identity() -> str:
    w, m, s, c = sp.symbols("omega mu s c", positive=True)
    kap = sp.Rational(1, 2) - (w * c + m * s) ** 2 / (2 * s**2 * (m**2 + w**2))
    return "".join(
        [
            "In the limit $L \\to \\infty$ the curve is explicit. With $\\varphi = \\omega D$, "
            "$s = \\sin(\\varphi/2)$, $c = \\cos(\\varphi/2)$, Cramer's rule gives "
            "$a(\\omega) = (\\mu^2 + \\omega^2)\\, s / (\\mu s + \\omega c)$ and (identity "
            "checked by SymPy in \\texttt{kappa\\_star\\_limit})\n",
            display(
                Equation(sp.Symbol("kappa(omega)"), kap),
                {sp.Symbol("kappa(omega)"): "\\kappa(\\omega)"},
            ),
            "Hence $\\kappa(\\omega) \\le 1/2$, with equality only where $\\omega c + \\mu s = "
            "0$, i.e.\\ where $a(\\omega)$ is infinite: every weight below $1/2$ is destabilised "
            "by some (large) $\\theta$, and every weight above is stable for all $\\theta$. "
            "\\textbf{In the delay-differential limit $\\kappa^* = 1/2$ for every $\\mu D$.}\n\n",
        ]
    )


def build() -> str:
    d = derive_inflight_equation()
    state, rhs = nonlinear_difference_rhs(3)
    names = {s: s.name.replace("_", "_{") + "}" if "_" in s.name else s.name for s in state}
    out = [
        "The dispatcher routes on $o_i = q_i + \\sum_\\ell \\kappa_\\ell z_{i,\\ell}$, the jobs "
        "in service plus the weighted jobs it has sent to queue $i$ that are still in flight "
        "($\\kappa = 0$: the founding model; $\\kappa = 1$: it counts every job it sent). In the "
        "difference coordinates $x = q_1 - q_2$, $w_\\ell = z_{1,\\ell} - z_{2,\\ell}$ the "
        "fluid model is closed and exactly nonlinear; at $L = 3$:\n",
        "".join(
            display(Equation(sp.Symbol(f"d{s.name}/dt"), e), names)
            for s, e in zip(state, rhs, strict=True)
        ),
        "\\section{Characteristic equation for symbolic $L$}\n",
    ]
    for step in d:
        if step.key in _PROSE:
            out.append(_PROSE[step.key])
            out.append(display(step.expr, _NAMES))
    lim = inflight_limit()
    out += [
        "\\subsection{The limit $L \\to \\infty$}\n",
        "Dividing by $(r+\\gamma)^L$ with $\\gamma = L/D$ and using $(1 + rD/L)^{-L} \\to "
        "e^{-rD}$ gives the characteristic function of the delayed-information model that "
        "also counts the jobs sent in the last $D$ time units:\n",
        display(lim.result),
        "\\section{Where counting jobs in flight stabilises}\n",
        "Write $P(r) = A(r) + a(\\gamma^L + \\kappa W(r))$ with $a = \\lambda\\theta$, $A = "
        "(r+\\mu)(r+\\gamma)^L$ and $W = (r+\\mu)\\sum_\\ell e_\\ell\\gamma^{\\ell-1}"
        "(r+\\gamma)^{L-\\ell}$. $P(i\\omega) = 0$ is linear in $a$ and $a\\kappa$; with $t = "
        "\\omega^2$, $A(i\\omega) = R_A(t) + i\\omega I_A(t)$ (likewise $W$) and $C = R_A I_W - "
        "I_A R_W$, Cramer's rule gives the crossing curve\n",
        "\\begin{equation*}\n\\kappa(t) = \\frac{\\gamma^L I_A(t)}{C(t)}, \\qquad a(t) = "
        "-\\frac{C(t)}{\\gamma^L I_W(t)}.\n\\end{equation*}\n",
        "A root reaches the imaginary axis at $(\\kappa, a)$ iff $(\\kappa, a) = (\\kappa(t), "
        "a(t))$ with $t > 0$, $a(t) > 0$ ($P(0) > 0$ for $\\kappa \\ge 0$: no real crossing). "
        "The weights that some $\\theta$ destabilises are the image of $\\kappa(t)$ over "
        "$\\{a(t) > 0\\}$; its extremes are at roots of $I_A' C - I_A C'$ or at the ends "
        "(roots of $C$, $I_W$), all isolated by Arb from exact polynomials. For a fixed "
        "$\\kappa$ the crossings are at the positive roots of $\\gamma^L I_A - \\kappa C$ and "
        "the unstable-root count between consecutive crossings is exact (Cauchy index), so "
        "the unstable $\\theta$ form a finite union of intervals, bounded windows included.\n\n",
        _curve_L2(),
        _limit_identity(),
        "\\section{Checks}\n",
        "The explicit determinant $\\det(rI - J)$ of the Jacobian that SymPy differentiates "
        "from the tanh system (Berkowitz) equals the general-$L$ formula with $L$ substituted, "
        "for one weight $\\kappa$ and for per-phase weights $\\kappa_1, \\dots, \\kappa_L$:\n\n",
        "\\begin{center}\n\\begin{tabular}{rccc}\n\\toprule\n$L$ & degree & one weight & "
        "per phase \\\\\n\\midrule\n",
    ]
    for n in DETERMINANT_LS:
        a = verify_inflight_determinant(n)
        b = verify_inflight_determinant(n, per_phase=True)
        out.append(
            f"{n} & {a.degree} & {'equal' if a.equal else 'DIFFERENT'} & "
            f"{'equal' if b.equal else 'DIFFERENT'} \\\\\n"
        )
    out.append("\\bottomrule\n\\end{tabular}\n\\end{center}\n")
    return document("Routing that counts jobs in flight", "".join(out))
