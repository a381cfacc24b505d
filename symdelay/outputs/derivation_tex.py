"""LaTeX for the model-to-characteristic-equation derivation (shared by document and report).

Every displayed formula is printed from an object that :mod:`symdelay.models.erlang.charpoly` or the
model computed and checked (the fluid ODEs, equilibrium and modes from the founding model's
transition table, :class:`~symdelay.models.erlang.action_delay.ActionDelayModel`); the
prose around them is the only hand-written text.
"""

from __future__ import annotations

from symdelay.core.latex import Equation, display, tex
from symdelay.core.lazy import sympy as sp
from symdelay.core.symbols import L
from symdelay.models import ActionDelayModel
from symdelay.models.erlang import charpoly
from symdelay.models.erlang.linearize import difference_jacobian_entry
from symdelay.outputs.model_tex import dotted

__all__ = [
    "model_section",
    "characteristic_section",
    "special_cases_section",
    "limit_section",
    "checks_table",
    "concrete_L_section",
    "derivation_body",
    "CHECK_RANGE",
    "FULL_CHECK_RANGE",
]

#: L values whose explicit determinants are checked against the general formula.
CHECK_RANGE = range(1, 13)
#: L values whose full 2(L+1) polynomial is checked to factor into the two modes.
FULL_CHECK_RANGE = range(1, 7)


def _dot(name: str) -> sp.Symbol:
    """``z_{1,2}`` -> ``\\dot{z}_{1,2}`` (the dot on the letter, not the subscript)."""
    return sp.Symbol(dotted(name))


def _equations(model, lhs_symbols, rhs, names=None) -> str:
    names = {**model.latex_names, **(names or {})}
    rows = [
        tex(_dot(names.get(s, tex(s))), names) + " &= " + tex(f, names)
        for s, f in zip(lhs_symbols, rhs, strict=True)
    ]
    return "\\begin{align*}\n" + " \\\\\n".join(rows) + "\n\\end{align*}\n"


def model_section(example_L: int = 2) -> str:
    """Model, equilibrium and modes, shown for ``example_L`` phases."""
    m = ActionDelayModel(L=example_L)
    p1, _ = m.routing_probabilities()
    eq = m.equilibrium()
    lhs, tanh_form = m.logit_difference_identity()
    diff = m.difference_system()
    summ = m.sum_system()
    out = [
        "\\subsection{Fluid model}\n",
        "Jobs arrive at rate $2\\eta\\lambda$ and are routed by the multinomial-logit rule on the "
        "current scaled queue lengths,\n",
        display(Equation(sp.Symbol("p_1"), p1), m.latex_names),
        f"then spend an Erlang delay of $L$ phases of rate $\\gamma = L/D$ before service. "
        f"For $L = {example_L}$ the fluid limit has $2(L+1) = {len(m.state)}$ equations "
        "(the general-$L$ chain has the same shape):\n",
        _equations(m, m.state, [sp.factor_terms(f) for f in m.fluid_rhs()]),
        "\\subsection{Symmetric equilibrium}\n",
        "Imposing $q_1 = q_2$, $z_{1,\\ell} = z_{2,\\ell}$ makes the routing probabilities "
        "$1/2$ and the system linear; SymPy solves it, and the solution makes every right-hand "
        "side of the nonlinear system vanish:\n",
        "\\begin{align*}\n"
        + " \\\\\n".join(f"{tex(s, m.latex_names)} &= {tex(v)}" for s, v in eq.items())
        + "\n\\end{align*}\n",
        "\\subsection{Sum and difference modes}\n",
        "SymPy verifies (rewriting in exponentials) the identity\n",
        display(Equation(lhs, tanh_form), m.latex_names),
        "so with $x = q_1 - q_2$ and $w_\\ell = z_{1,\\ell} - z_{2,\\ell}$ the difference "
        "dynamics are closed and exactly nonlinear (checked: after substituting "
        "$q_1 = q_2 + x$, $z_{1,\\ell} = z_{2,\\ell} + w_\\ell$ no $q_2$ or $z_{2,\\ell}$ is left):\n",
        _equations(m, diff.state, diff.rhs),
        "The sum mode $y = q_1 + q_2$, $s_\\ell = z_{1,\\ell} + z_{2,\\ell}$ is linear and free "
        "of $\\theta$:\n",
        _equations(m, summ.state, summ.rhs),
    ]
    return "".join(out)


def characteristic_section() -> str:
    """The structured Jacobian and the general-L determinant, step by step."""
    d = charpoly.derive_characteristic_equation()
    i, j = sp.symbols("i j")
    J3 = d["jacobian"].expr.subs(L, 3).as_explicit()
    prose = {
        "detM": "Write $rI - J = \\begin{pmatrix} a & b^{\\mathsf T} \\\\ c & M \\end{pmatrix}$ "
        "with $a = r + \\mu$, $b = (0,\\dots,0,-\\gamma)^{\\mathsf T}$, "
        "$c = (\\lambda\\theta, 0, \\dots, 0)^{\\mathsf T}$. The block $M$ is lower bidiagonal, "
        "so its determinant is a product that SymPy evaluates:\n",
        "recurrence": "The vector $y = M^{-1} c$ solves the first-order recurrence\n",
        "initial": "with initial value\n",
        "y": "which \\texttt{rsolve} solves (the solution is substituted back and checked):\n",
        "eigenvector": "Hence $v(r) = (1, -y_1, \\dots, -y_L)$ satisfies $(rI - J)v = 0$ "
        "exactly when the characteristic equation below holds; its components are\n",
        "schur": "The Schur complement gives $\\det(rI - J) = \\det M \\,(a - b^{\\mathsf T} "
        "M^{-1} c)$:\n",
        "result": "and SymPy expands it (checked equal to the Schur form) to the characteristic "
        "polynomial of the difference mode:\n",
    }
    out = [
        "\\subsection{Difference Jacobian for symbolic $L$}\n",
        "The $(L+1)\\times(L+1)$ Jacobian of the difference mode at $0$ (rows $x, w_1, "
        "\\dots, w_L$, indices from $0$) is a SymPy \\texttt{FunctionMatrix} with entries\n",
        display(Equation(sp.Symbol("J_{ij}"), difference_jacobian_entry(i, j, L))),
        "for example, at $L = 3$,\n",
        display(Equation(sp.Symbol("J"), J3)),
        "\\subsection{Characteristic equation for general $L$}\n",
    ]
    for step in d:
        if step.key in prose:
            out.append(prose[step.key])
            out.append(display(step.expr))
    return "".join(out)


def special_cases_section() -> str:
    """L = 1 (oscillation vs stability) and L = 2."""
    one, two = charpoly.special_case(1), charpoly.special_case(2)
    verdict = (
        "Both coefficients are positive for all $\\mu, \\gamma, \\lambda > 0$ and "
        "$\\theta \\ge 0$ (checked by SymPy under these assumptions), so the equilibrium is "
        "asymptotically stable for every $\\theta \\ge 0$."
        if one.stable_for_all_nonnegative_theta
        else "The coefficients are not positive for all parameters."
    )
    return "".join(
        [
            "\\subsection{One phase: $L = 1$}\n",
            display(Equation(sp.Symbol("P_1"), one.polynomial)),
            "Its discriminant, split by SymPy into its $\\theta$-free part (a square) and "
            "the rest, is\n",
            display(Equation(sp.Symbol(r"\Delta"), one.discriminant)),
            "so the roots are complex (the imbalance decays with oscillation) if and only if\n",
            display(one.oscillation_condition),
            "\\textbf{This is an oscillation boundary, not a stability boundary.} ",
            verdict,
            "\n\n\\subsection{Two phases: $L = 2$}\n",
            "The characteristic polynomial is a cubic,\n",
            display(Equation(sp.Symbol("P_2"), two.polynomial)),
            "and, unlike $L = 1$, the equilibrium can lose stability through a Hopf "
            "bifurcation as $\\lambda\\theta$ grows.\n\n",
        ]
    )


def limit_section() -> str:
    """L -> infinity and the equivalence with the delayed-information model."""
    lim = charpoly.infinite_L_limit()
    dde = charpoly.delayed_information_equation()
    erl = charpoly.erlang_information_equation()
    out = ["\\subsection{The limit $L \\to \\infty$ at fixed mean delay}\n"]
    words = {
        "divided": "For $r \\ne -\\gamma$ divide by $(r+\\gamma)^L$:\n",
        "gamma": "substitute $\\gamma = L/D$:\n",
        "limit": "and let SymPy take the limit:\n",
        "result": "The limiting characteristic equation is\n",
    }
    for step in lim:
        out += [words[step.key], display(step.expr)]
    out.append("\\subsection{Equivalence with the delayed-information model}\n")
    out += [
        "The delayed-information model (queue lengths observed $D$ time units ago)\n",
        display(dde["dde"].expr),
        "with the ansatz $x(t) = e^{rt}$ gives, after division by $e^{rt}$,\n",
        display(dde["result"].expr),
        "which SymPy finds equal to the $L\\to\\infty$ limit above. With an "
        "Erlang-distributed information delay of density\n",
        display(erl["density"].expr),
        "the ansatz produces its Laplace transform (computed by SymPy)\n",
        display(erl["laplace"].expr),
        "and the characteristic equation\n",
        display(erl["result"].expr),
        "which, multiplied by $(r+\\gamma)^L$, is exactly the action-delay polynomial:\n",
        display(erl["equivalence"].expr),
        "The two kinds of delay therefore share the same linearised imbalance dynamics "
        "for every $L$, and in the limit.\n\n",
    ]
    return "".join(out)


def checks_table(
    check_range=CHECK_RANGE, full_range=FULL_CHECK_RANGE, method: str = "berkowitz"
) -> str:
    """Table of explicit-determinant checks (no timings: the document is reproducible)."""
    rows = []
    for n in check_range:
        c = charpoly.verify_difference_determinant(n, method)
        full = charpoly.verify_full_factorisation(n) if n in full_range else None
        rows.append(
            f"{n} & {n + 1} & {'yes' if c.agrees else 'NO'} & "
            f"{'yes' if c.structured_agrees else 'NO'} & "
            + (f"{2 * (n + 1)} & {'yes' if full.agrees else 'NO'}" if full else "-- & --")
            + " \\\\"
        )
    return (
        "\\subsection{Machine checks for concrete $L$}\n"
        "For each $L$ the difference Jacobian is rebuilt from the fluid ODEs (independently of "
        "the structured matrix), its characteristic polynomial computed by "
        f"the {method} algorithm and compared with the general formula at that $L$; the "
        "structured \\texttt{FunctionMatrix} is compared entry by entry; and for the smaller "
        "$L$ the characteristic polynomial of the full $2(L+1)$-dimensional Jacobian is checked "
        "to equal the sum-mode factor $(r+\\mu)(r+\\gamma)^L$ (itself computed from the sum "
        "Jacobian) times the difference-mode factor.\n\n"
        "\\begin{center}\n\\begin{tabular}{rrccrc}\n\\toprule\n"
        "$L$ & size & $\\det$ = formula & structured = explicit & full size & full factors \\\\\n"
        "\\midrule\n" + "\n".join(rows) + "\n\\bottomrule\n\\end{tabular}\n\\end{center}\n"
    )


def concrete_L_section(n: int) -> str:
    """Everything for one concrete L: Jacobians, explicit polynomials, factorisation."""
    m = ActionDelayModel(L=n)
    full = charpoly.verify_full_factorisation(n)
    c = charpoly.verify_difference_determinant(n)
    return "".join(
        [
            f"\\subsection{{Jacobians for $L = {n}$}}\n",
            "Full Jacobian at the symmetric equilibrium (state order "
            + ", ".join(f"${tex(s, m.latex_names)}$" for s in m.state)
            + "):\n",
            display(Equation(sp.Symbol("J"), m.jacobian())),
            "Difference Jacobian (rows $x, w_1, \\dots$):\n",
            display(Equation(sp.Symbol("J_{-}"), m.difference_jacobian())),
            "\\subsection{Characteristic polynomials}\n",
            "Explicit determinant of the difference mode (expanded):\n",
            display(Equation(sp.Symbol("P"), c.explicit)),
            f"equal to the general formula at $L = {n}$: "
            f"{'verified' if c.agrees else 'FAILED'}. "
            "The full characteristic polynomial factors as\n",
            display(Equation(sp.Symbol("P_{full}"), full.factored)),
            f"(expanded product equal to the explicit determinant: "
            f"{'verified' if full.agrees else 'FAILED'}).\n\n",
        ]
    )


def derivation_body() -> str:
    """The whole general derivation (model to equivalence, with the check table)."""
    return "".join(
        [
            "\\section{From the model to the characteristic equation}\n",
            model_section(),
            characteristic_section(),
            special_cases_section(),
            limit_section(),
            checks_table(),
        ]
    )
