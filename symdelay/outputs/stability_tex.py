"""LaTeX pieces shared by the stability document and the report section (printing only)."""

from __future__ import annotations

import mpmath

from symdelay.analysis.critical import critical
from symdelay.analysis.routh import RouthResult
from symdelay.core.latex import escape, tex
from symdelay.core.lazy import sympy as sp
from symdelay.core.symbols import theta
from symdelay.models.erlang.founding import FoundingModel

__all__ = [
    "routh_table",
    "first_column",
    "conditions_block",
    "critical_block",
    "oscillation_block",
    "long_display",
    "relation_display",
]

_K = sp.Symbol("k_c")


_WIDTH = 110  # characters of LaTeX source per displayed line, roughly a line of the page


def _terms_tex(expr) -> list[str]:
    out = []
    for i, term in enumerate(sp.Add.make_args(expr)):
        t = tex(term)
        out.append(t if i == 0 or t.startswith("-") else "+ " + t)
    return out


def long_display(lhs_tex: str, rel: str, expr) -> str:
    """``lhs rel expr`` displayed; a long sum is broken over lines, anything else scaled."""
    body = tex(expr)
    if len(lhs_tex) + len(body) <= _WIDTH:
        return f"\\begin{{equation*}}\n{lhs_tex} {rel} {body}\n\\end{{equation*}}\n"
    if isinstance(expr, sp.Add):
        lines, cur = [], f"{lhs_tex} {rel} "
        for t in _terms_tex(expr):
            if len(cur) + len(t) > _WIDTH and cur.strip():
                lines.append(cur)
                cur = ""
            cur += " " + t
        lines.append(cur)
        return "\\begin{multline*}\n" + " \\\\\n".join(lines) + "\n\\end{multline*}\n"
    return (
        "\\begin{equation*}\n\\resizebox{\\linewidth}{!}{$\\displaystyle "
        f"{lhs_tex} {rel} {body}$}}\n\\end{{equation*}}\n"
    )


def relation_display(cond) -> str:
    """A relational ``a > b`` (or a conjunction) displayed, broken when long."""
    if isinstance(cond, sp.And):
        return "".join(relation_display(c) for c in cond.args)
    rel = {">": ">", "<": "<", ">=": "\\ge", "<=": "\\le"}[cond.rel_op]
    if len(tex(cond.lhs)) > _WIDTH:  # long left side: write it as  rhs <rel'> lhs
        flipped = {">": "<", "<": ">", "\\ge": "\\le", "\\le": "\\ge"}[rel]
        return long_display(tex(cond.rhs), flipped, cond.lhs)
    return long_display(tex(cond.lhs), rel, cond.rhs)


def _eq(lhs, rhs, rel="=") -> str:
    return long_display(tex(lhs), rel, rhs)


def routh_table(res: RouthResult) -> str:
    """The Routh array as a LaTeX tabular (one row per power of the variable)."""
    width = max(len(row) for row in res.table)
    lines = [f"\\begin{{tabular}}{{l{'c' * width}}}", "\\toprule"]
    for k, row in enumerate(res.table):
        cells = [f"${tex(c)}$" for c in row] + [""] * (width - len(row))
        lines.append(f"${tex(res.var ** (res.degree - k))}$ & " + " & ".join(cells) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}"]
    return "\\begin{center}\n" + "\n".join(lines) + "\n\\end{center}\n"


def first_column(res: RouthResult) -> str:
    """The first column, one displayed formula per row (for arrays too wide for a table)."""
    out = []
    for k, row in enumerate(res.table):
        out.append(_eq(sp.Symbol(f"R_{{{k},0}}"), sp.factor(row[0])))
    return "".join(out)


def conditions_block(forms: dict) -> str:
    """The founding conditions under ``theta >= 0`` (its closed forms,
    :func:`symdelay.models.erlang.stability.founding_closed_forms`)."""
    if forms["stable_for_all_theta"]:
        return (
            "Every Routh condition holds on the domain: the equilibrium is stable for every "
            "$\\theta \\ge 0$ (and every $\\lambda\\theta > -\\mu$).\n"
        )
    body = "".join(relation_display(c) for c in forms["conditions_under_assumptions"])
    return "The Routh conditions not implied by the domain are\n" + body


def critical_block(L: int, forms: dict, digits: int = 20) -> str:
    """The Hopf value of lam*theta: closed form (and in D), or the numeric route."""
    if L == 1:
        return "No $\\theta \\ge 0$ destabilises: there is no critical value.\n"
    if forms["critical_lam_theta"] is not None:
        return (
            "The critical value (smallest positive root of $\\Delta_L$):\n"
            + _eq(_K, forms["critical_lam_theta"])
            + "and with $\\gamma = L/D$\n"
            + _eq(_K, forms["critical_lam_theta_in_D"])
        )
    # lam*theta_c at mu = gamma = 1: the critical theta at lam = 1, D = L
    at = FoundingModel(L=L, mu=1, lam=1)
    value = critical(at, at=[L], dps=digits).critical
    return (
        f"$\\Delta_L$ has degree {sp.degree(forms['hopf_polynomial'], theta)} in "
        "$\\lambda\\theta$ and SymPy gives no usable closed form; $k_c$ is its smallest "
        "positive root, isolated exactly and refined numerically. At $\\mu = \\gamma = 1$: "
        f"$k_c = {mpmath.nstr(value, digits)}$.\n"
    )


def oscillation_block(forms: dict) -> str:
    osc = forms["oscillation_condition"]
    if osc is None:
        return (
            "The oscillation set (rightmost roots non-real) has no closed form here; "
            + escape(
                "symdelay.models.erlang.stability.is_oscillatory_at decides it point by point, exactly."
            )
            + "\n"
        )
    return (
        "Oscillation condition (the rightmost roots are non-real), a different set from the "
        "stability region:\n" + relation_display(osc)
    )
