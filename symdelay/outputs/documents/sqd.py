"""``derivations/sqd.tex``: the SQ(d) mean field with phase-type service, derived.

Printed from the objects SymPy checked: the model's transition table and drift (Erlang(2)
service, d = 2, K = 3), the reduction of exponential service to the classical tail ODE, the
fixed point solved by ``rsolve``, and the tail bound that fixes the truncation. The steps'
descriptions are ASCII (for terminals); here each is printed in LaTeX with its formulas from
SymPy objects (:func:`_step_texts`).
"""

from __future__ import annotations

from symdelay.core.latex import display, document, escape, tex
from symdelay.core.lazy import sympy as sp
from symdelay.models.sqd.meanfield import exponential_fixed_point, exponential_reduction, sqd_model
from symdelay.models.sqd.service import service_from_options
from symdelay.outputs.model_tex import dotted, long_lines

__all__ = ["FILENAME", "build", "derivation_body"]

FILENAME = "sqd.tex"


def _m(expr) -> str:
    """Inline maths printed from a SymPy object."""
    return f"${tex(expr)}$"


def _step_texts(d: int, K: int) -> dict:
    """LaTeX for the steps' plain-text descriptions and checks, every formula printed from
    SymPy objects (the step texts themselves are ASCII, for terminals and JSON)."""
    k, j, dd = sp.Symbol("k"), sp.Symbol("j"), sp.Symbol("d")
    lam = sp.Symbol("lam")
    a, s_ = sp.IndexedBase("a"), sp.IndexedBase("s")
    a_k, s_k = a[k], s_[k]
    EQ, ET = sp.Symbol("E[Q]"), sp.Symbol("E[T]")
    tele = sp.Eq(lam * s_[k - 1] ** dd, s_[k])
    return {
        "flux": (
            f"For symbolic {_m(dd)}, SymPy cancels the routing flux out of level {_m(k)}:",
            "\\texttt{cancel}",
        ),
        "ode": (
            "so the tails obey the classical ODE (checked level by level on the model's drift):",
            f"sum of the model's drift over the levels {_m(sp.Ge(j, k))}, "
            f"{_m(sp.Eq(dd, d))}, {_m(sp.Eq(sp.Symbol('K'), K))}",
        ),
        "recurrence": (
            "Telescoping the fixed-point equations from level $k$ upwards gives "
            f"{_m(tele)}; in logarithms ({_m(sp.Eq(a_k, sp.log(s_k)))}) this is linear, and "
            "SymPy's \\texttt{rsolve} gives",
            f"\\texttt{{rsolve}} of {_m(sp.Eq(a[k], dd * a[k - 1] + sp.log(lam)))}, "
            f"{_m(sp.Eq(a[0], 0))}",
        ),
        "tail": (
            f"The fixed point ({_m(tele)} checked for symbolic {_m(dd)} and {_m(k)}, so the "
            "ODE's right-hand side vanishes):",
            f"\\texttt{{simplify}} of the exponents of {_m(lam)}",
        ),
        "sojourn": (
            "By Little's law the mean sojourn time is "
            + _m(sp.Eq(ET, EQ / lam))
            + " with "
            + _m(sp.Eq(EQ, sp.Sum(s_[k], (k, 1, sp.oo))))
            + ":",
            "\\texttt{simplify} of the exponent",
        ),
    }


def _steps(D, texts: dict) -> str:
    out = []
    for s in D:
        text, check = texts[s.key] if s.key in texts else (escape(s.text), escape(s.check or ""))
        out.append(text + "\n" + display(s.expr))
        if s.check:
            out.append(f"\\emph{{Checked by SymPy:}} {check}.\n\n")
    return "".join(out)


def derivation_body() -> str:
    """The LaTeX of the derivation (shared by the document and the report section)."""
    svc = service_from_options("erlang", k=2)
    m = sqd_model(svc, d=2, K=3)
    names = m.latex_names
    rows = []
    for t in m.transitions:
        change = ", ".join(
            f"${tex(s, names)} {'+' if c > 0 else '-'}= {abs(c)}$"
            for s, c in zip(m.states, t.change)
            if c
        )
        name = escape(t.name).replace("-\\textgreater{}", "$\\to$")
        rows.append(f"{name} & {change} & ${tex(t.rate, names)}$ \\\\")
    D1 = exponential_reduction(2, 5)
    D2 = exponential_fixed_point()
    texts = _step_texts(2, 5)
    return (
        "\\subsection*{The model}\n"
        "$N$ servers with FCFS queues; arrivals Poisson($\\lambda N$); each samples $d$ "
        "queues uniformly with replacement and joins the shortest. Service is phase-type "
        "$(\\alpha, S)$ with exit rates $e = -S\\mathbf{1}$ and mean 1. The state "
        "$x_{k,j}$ is the fraction of servers with $k$ jobs whose job in service is in "
        "phase $j$; $s_k = \\sum_{n\\ge k}\\sum_j x_{n,j}$, $s_0 = 1$. An arrival joins a "
        "queue of length $k$ with probability $s_k^d - s_{k+1}^d$, uniform among those "
        "queues, so in phase $j$ with probability $x_{k,j}/(s_k - s_{k+1})$: the rate is "
        "$\\lambda x_{k,j} P_d(s_k, s_{k+1})$ with "
        "$P_d(x, y) = (x^d - y^d)/(x-y) = \\sum_{i<d} x^i y^{d-1-i}$. Queues are cut at "
        "length $K$ (an arrival to a full queue is lost).\n\n"
        "Transition table for Erlang(2) service of mean 1, $d = 2$, $K = 3$ "
        "(generated from the model):\n\n"
        "{\\small\\begin{longtable}{lll}\n\\toprule jump & change & rate \\\\ \\midrule\n"
        + "\n".join(rows)
        + "\n\\bottomrule\\end{longtable}}\n\n"
        "Its fluid drift (SymPy, $\\dot x = \\sum_\\nu \\nu\\,\\beta_\\nu(x)$), first two "
        "states:\n"
        + "".join(
            "\\begin{align*}\n"
            + dotted(names[x])
            + " &= "
            + long_lines(sp.expand(f), names, 6)
            + "\n\\end{align*}\n"
            for x, f in list(zip(m.states, m.drift))[:2]
        )
        + "In the phase-wise tails $u_{k,j} = \\sum_{n\\ge k} x_{n,j}$ the system is block "
        "tridiagonal, which the Newton solver uses:\n"
        "\\begin{align*}\n"
        "\\dot u_1 &= \\lambda\\alpha(1 - s_1^d) + u_1 S + (u_2 e)\\,\\alpha,\\\\\n"
        "\\dot u_k &= \\lambda(u_{k-1} - u_k) P_d(s_{k-1}, s_k) + u_k S + (u_{k+1} e)\\,"
        "\\alpha, \\quad k \\ge 2.\n\\end{align*}\n"
        "The tests check this form against the drift SymPy derives from the table.\n\n"
        "\\subsection*{Exponential service: the classical tail ODE}\n"
        + _steps(D1, texts)
        + "\\subsection*{The fixed point for exponential service}\n"
        + _steps(D2, texts)
        + "\\subsection*{Truncation: a proved tail bound}\n"
        "At the fixed point of the untruncated system a tagged queue is a stationary "
        "Markov chain. Jobs enter position $k+1$ of a queue at rate $\\lambda s_k^d$ (all "
        "$d$ samples hold at least $k$ jobs) and stay there for one residual service "
        "(a fresh arrival; mean at most $r_{\\max} = \\max_j ((-S)^{-1}\\mathbf 1)_j$) or one "
        "full service (a job moved down; mean 1). Little's law for position $k+1$ gives\n"
        "\\begin{equation*}\ns_{k+1} \\le \\lambda\\, r_{\\max}\\, s_k^d, \\qquad s_1 = \\lambda,"
        "\n\\end{equation*}\n"
        "and, for the whole queue, $E[Q] \\le (\\lambda + \\lambda(r_{\\max}-1)\\lambda^d)"
        "/(1-\\lambda^d)$, hence $s_k \\le E[Q]/k$. For exponential service $r_{\\max} = 1$ "
        "and the first bound is the exact recursion. The truncation level $K$ is the first "
        "with the bound on $s_{K+1}$ below $10^{-(\\mathrm{dps}+3)}$.\n\n"
        "\\paragraph{$d = 1$: a matrix-geometric certificate.} The recursion above does not "
        "decay when $d = 1$ and $\\lambda r_{\\max} \\ge 1$. With $d = 1$ every queue is an "
        "M/PH/1 queue and the fixed point is its stationary law, matrix-geometric: "
        "$x_0 = 1-\\rho$, $x_k = (1-\\rho)\\,\\alpha R^k$ ($k \\ge 1$) with "
        "$R = \\lambda(\\lambda I - \\lambda\\mathbf 1\\alpha - S)^{-1}$ (Neuts). symdelay checks "
        "in exact rational arithmetic that $R \\ge 0$, that "
        "$\\lambda I + R(S - \\lambda I) + R^2 e\\alpha = 0$ (so the levels $k \\ge 1$ "
        "balance), that $\\alpha R e = \\lambda$ (level 0) and that the law sums to 1; being a "
        "stationary law of the irreducible positive recurrent chain, it is the fixed point. "
        "Then, for a rational $c < 1$ just above the spectral radius $\\eta$ of $R$, it solves "
        "$w = (I - R/c)^{-1}\\mathbf 1$ exactly and checks $w > 0$. Since $R \\ge 0$, "
        "$w = \\mathbf 1 + (R/c)w \\ge \\mathbf 1$ and $Rw = c(w - \\mathbf 1) \\le c\\,w$, "
        "so $R^n\\mathbf 1 \\le R^n w \\le c^n w$ and\n"
        "\\begin{equation*}\ns_k = (1-\\rho)\\sum_{n \\ge k} \\alpha R^n \\mathbf 1 \\le "
        "\\frac{(1-\\rho)\\,(\\alpha w)}{1-c}\\, c^k,\n\\end{equation*}\n"
        "a proved bound decaying at (nearly) the true rate $\\eta$ (the caudal "
        "characteristic). A $c$ below $\\eta$ cannot pass: the solve then has a non-positive "
        "entry (Perron--Frobenius). The tests compare the bound and Newton's tails with the "
        "exact matrix-geometric tails and its mean with Pollaczek--Khinchine.\n\n"
        "\\subsection*{Local and global stability}\n"
        "Local stability of the fixed point is decided by the rightmost eigenvalue of the "
        "truncated Jacobian (block tridiagonal in $u$; similar to the Jacobian in $x$). For "
        "exponential service the fixed point is known to attract every solution with "
        "finite mean (Vvedenskaya--Dobrushin--Karpelevich; Mitzenmacher). For general "
        "service, uniqueness of the invariant state of the hydrodynamic equations is known "
        "(Aghajani--Ramanan), but global attraction is open; symdelay computes local "
        "stability of the truncated system only and does not prove global convergence.\n"
    )


def build() -> str:
    return document("The supermarket model SQ(d) with phase-type service", derivation_body())
