"""Report section: N symmetric servers, from the generic model layer."""

from __future__ import annotations

import numpy as np

from symdelay.core.errors import VerificationError
from symdelay.core.latex import display, tex
from symdelay.core.lazy import sympy as sp
from symdelay.core.symbols import gamma, lam, mu, r, theta
from symdelay.models import build_model
from symdelay.models.erlang.charpoly import characteristic_polynomial
from symdelay.models.nserver import general_N_derivation
from symdelay.outputs.report import Section

__all__ = ["ORDER", "build", "N_VALUES", "CHECK_POINT"]

ORDER = 62

#: Server counts of the table (delay Erlang(2)).
N_VALUES = (2, 3, 4, 5, 6)
#: Parameters of the numeric check (eigenvalues of the full Jacobian).
CHECK_POINT = {mu: 1, lam: 1, theta: 3, gamma: 2}


def _check(m) -> float:
    """max |numpy char. poly of J - product of the factors| (relative), at CHECK_POINT."""
    J = np.array(m.jacobian.subs(CHECK_POINT).tolist(), dtype=float)
    from_eig = np.real(np.poly(np.linalg.eigvals(J)))
    product = np.array(
        sp.Poly(sp.expand(m.charpoly.subs(CHECK_POINT)), r).all_coeffs(), dtype=float
    )
    return float(np.max(np.abs(from_eig - product) / (1 + np.abs(product))))


def _general_N() -> str:
    """The symbolic-N step, printed from the derivation SymPy checked."""
    d = general_N_derivation()
    return (
        "\\paragraph{Symbolic $N$.} SymPy differentiates the logit rate of $N$ queues (a sum "
        "over an indexed state) and evaluates it at the symmetric point:\n"
        + display(d["rate"].expr)
        + display(d["routing"].expr, {d["routing"].expr.lhs: r"\partial a_i/\partial q_j"})
        + "On the Fourier vector $(\\omega^{mj})_j$, $\\omega = e^{2\\pi i/N}$, the "
        "$1/N$ part is $\\lambda\\theta/N$ times\n"
        + display(d["fourier"].expr)
        + "so the routing acts as $-\\lambda\\theta$ on every mode but the sum mode, for "
        "every $N$; the table above checks the consequence for concrete $N$.\n\n"
    )


def build(ctx) -> Section:
    Ns = N_VALUES[:3] if ctx.quick else N_VALUES
    diff2 = characteristic_polynomial(2)
    rows, worst = [], 0.0
    for N in Ns:
        m = build_model("nserver", N=N, L=2)
        worst = max(worst, _check(m))
        for f in m.factors:
            same = f.mode.startswith("difference") and sp.expand(f.factor - diff2) == 0
            rows.append(
                f"{N} & {f.mode} & ${tex(f.factor)}$ & {f.multiplicity}"
                + (" (= two-server)" if same else "")
                + " \\\\"
            )
    if worst > 1e-8:
        raise VerificationError(f"N-server factors disagree with numpy eigenvalues ({worst:.1e})")
    body = [
        "With $N$ servers the model is the same transition table with $N$ copies of the "
        "queue and delay states; jobs arrive at rate $N\\lambda$ and are routed by the "
        "logit rule over all $N$ queues. The cyclic shift of the servers is a symmetry "
        "(checked on the jump rates), so the Jacobian is block diagonal in the $N$ Fourier "
        "modes of the shift. The symmetric mode is the sum mode (free of $\\theta$, always "
        "stable); the other $N-1$ modes all have the characteristic polynomial of the "
        "two-server difference mode, $" + tex(diff2) + "$, with the per-server $\\lambda$. "
        "Hence $\\theta_c(D)$ does not depend on $N$: every critical curve of the two-server "
        "model holds for $N$ servers. Erlang(2) delay, $\\gamma = 2/D$:\n\n",
        "\\begin{table}[htbp]\\centering\\caption{The characteristic factors of the $N$-server model by mode, Erlang(2) delay.}\\small\n\\begin{tabular}{rllr}\n\\toprule\n"
        "$N$ & mode & factor & multiplicity \\\\ \\midrule\n",
        "\n".join(rows),
        "\n\\bottomrule\n\\end{tabular}\n\\end{table}\n\n",
        _general_N(),
        "Independent check: at $\\mu = 1$, $\\lambda = 1$, $\\theta = 3$, $\\gamma = 2$ the "
        "characteristic polynomial rebuilt from numpy's eigenvalues of the full "
        f"$N(L+1)$-dimensional Jacobian agrees with the product of the factors to "
        f"{worst:.1e} (relative, worst coefficient over the table).\n",
    ]
    return Section("N symmetric servers", "".join(body))
