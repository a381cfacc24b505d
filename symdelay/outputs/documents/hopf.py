"""``derivations/hopf.tex``: Hopf crossings, critical curves, windows and the worst delay.

Every formula is printed from the SymPy object that :mod:`symdelay.models.erlang.hopf` derived.
"""

from __future__ import annotations

from symdelay.core.latex import document, tex
from symdelay.core.lazy import sympy as sp
from symdelay.core.symbols import D, gamma, lam, mu, theta
from symdelay.models.erlang.charpoly import characteristic_polynomial, infinite_L_limit
from symdelay.models.erlang.hopf import (
    critical_closed_form,
    delay_limits,
    general_delay_limits,
    hopf_conditions,
    hopf_parametrisation,
    real_imaginary_parts,
    worst_delay_closed_form,
    worst_delay_trend,
)

__all__ = ["FILENAME", "build", "LIMIT_L"]

FILENAME = "hopf.tex"

#: L values of the table of limits as D -> 0 and D -> oo.
LIMIT_L = (2, 3, 4, 5, 6, 10, "inf")

_OMEGA = sp.Symbol("omega", positive=True)
_ALPHA = sp.Symbol("alpha", positive=True)
_INF = "$\\infty$"


def _plain(e):
    """Positive dummies -> canonical symbols (for printing)."""
    names = {"mu": mu, "gamma": gamma, "D": D, "lam": lam, "theta": theta}
    return e.xreplace({s: names[s.name] for s in e.free_symbols if s.name in names})


def _eq(lhs, rhs) -> str:
    return f"\\begin{{equation*}}\n{tex(lhs)} = {tex(rhs)}\n\\end{{equation*}}\n"


def _finite_L_section() -> str:
    out = ["\\section{Hopf crossings for finite $L$}\n"]
    P = characteristic_polynomial(3)
    out.append(
        "The characteristic polynomial of the difference mode (derived in "
        "\\texttt{action\\_delay.tex}) is $P(r) = F(r) + \\lambda\\theta\\gamma^L$ with "
        "$F(r) = (r+\\mu)(r+\\gamma)^L$; for $L = 3$,\n"
        + _eq(sp.Symbol("P"), P)
        + "A root crosses the imaginary axis at $r = i\\omega$, $\\omega > 0$, iff "
        "$F(i\\omega) = -\\lambda\\theta\\gamma^L$. SymPy substitutes $r = i\\omega$ and takes "
        "modulus and argument factor by factor (each factor has positive real part).\n"
    )
    for L in (2, 3, 10):
        h = hopf_conditions(L)
        out.append(
            f"\\paragraph{{$L = {L}$.}} Modulus condition\n"
            + _eq(lam * theta, _plain(h.lam_theta))
            + "and phase condition\n"
            + _eq(_plain(h.phase), sp.pi)
            + f"The phase increases with $\\omega$ from $0$ to $\\lim_{{\\omega\\to\\infty}} = "
            f"{tex(h.phase_sup)}$.\n"
        )
    h1 = hopf_conditions(1)
    out.append(
        "\\paragraph{$L = 1$.} The phase is\n"
        + _eq(sp.Symbol("phi"), _plain(h1.phase))
        + f"with supremum ${tex(h1.phase_sup)}$, never attained: no $\\theta \\ge 0$ "
        "puts a root on the imaginary axis, and since the roots are in the left half-plane at "
        "$\\theta = 0$ they stay there. $L = 1$ is stable for every $\\theta \\ge 0$ (the "
        "condition $4\\gamma\\lambda\\theta > (\\mu-\\gamma)^2$ is an oscillation "
        "boundary, not a stability boundary).\n\n"
        "Because each arctangent increases and the modulus increases with $\\omega$, the "
        "first solution of the phase condition gives the smallest $\\lambda\\theta$: that "
        "is the critical value $\\theta_c(D)$ (with $\\gamma = L/D$).\n"
    )
    return "".join(out)


def _closed_forms_section() -> str:
    out = ["\\section{Closed forms for $L = 2$ and $L = 3$}\n"]
    for L in (2, 3):
        re_, im_ = real_imaginary_parts(L)
        k, w2 = critical_closed_form(L)
        out.append(
            f"For $L = {L}$ the real and imaginary parts of $P(i\\omega)$ are\n"
            + _eq(sp.Symbol("Re"), _plain(re_))
            + _eq(sp.Symbol("Im"), _plain(im_))
            + "The imaginary part divided by $\\omega$ is linear in $\\omega^2$; eliminating "
            "$\\omega$ gives\n"
            + _eq(sp.Symbol("omega") ** 2, w2)
            + _eq(lam * sp.Symbol("theta_c"), k)
            + "and with $\\gamma = L/D$:\n"
            + _eq(lam * sp.Symbol("theta_c"), sp.expand(k.subs(gamma, L / D)))
        )
    return "".join(out)


def _dde_section() -> str:
    h = hopf_conditions("inf")
    re_, im_ = real_imaginary_parts("inf")
    lim = delay_limits("inf")
    return (
        "\\section{The delay-differential limit $L = \\infty$}\n"
        "The limit equation is\n"
        + _eq(sp.Symbol("0"), infinite_L_limit().result)
        + "With $r = i\\omega$ the real and imaginary parts vanish:\n"
        + _eq(sp.Symbol("0"), _plain(re_))
        + _eq(sp.Symbol("0"), _plain(im_))
        + "that is $\\lambda\\theta\\cos\\omega D = -\\mu$, $\\lambda\\theta\\sin\\omega D = "
        "\\omega$. Modulus and phase (of $(i\\omega+\\mu)e^{i\\omega D}$):\n"
        + _eq(lam * theta, _plain(h.lam_theta))
        + _eq(_plain(h.phase), sp.pi)
        + "On the curve $D(\\omega) = (\\pi - \\arctan(\\omega/\\mu))/\\omega$ decreases and "
        "$\\lambda\\theta_c = \\sqrt{\\mu^2+\\omega^2}$ increases in $\\omega$, so "
        "$\\theta_c(D)$ decreases strictly in $D$: "
        f"$\\lambda\\theta_c \\to {tex(lim.large_D_limit)}$ as $D\\to\\infty$ (not attained) "
        f"and $D\\,\\lambda\\theta_c \\to {tex(lim.small_D_coefficient)}$ as $D\\to 0$. The "
        "instability window for $\\lambda\\theta > \\mu$ is the half-line $D > D_1$, "
        "$\\omega_1 = \\sqrt{(\\lambda\\theta)^2-\\mu^2}$, "
        "$D_1 = (\\pi - \\arctan(\\omega_1/\\mu))/\\omega_1$. The rightmost root is "
        "$r = -\\mu + W_0(-\\lambda\\theta D e^{\\mu D})/D$ (Lambert $W$), used in the tests "
        "as an independent check.\n"
    )


def _parametrisation_section() -> str:
    p = hopf_parametrisation(None)
    far = p.lam_theta_of_alpha.subs(_ALPHA, sp.pi / p.L)
    gen = general_delay_limits()
    rows = []
    for L in LIMIT_L:
        lim = delay_limits(L)
        growth = "" if lim.large_D_growth is None else f", $\\sim {tex(lim.large_D_growth)} D$"
        rows.append(
            f"{_INF if L == 'inf' else L} & ${tex(lim.small_D_coefficient)}$ & "
            f"${tex(lim.large_D_limit)}${growth} \\\\"
        )
    return (
        "\\section{Parametrisation of the critical curve and its limits}\n"
        "Put $\\omega = \\gamma\\tan\\alpha$, $\\alpha = \\arg(i\\omega+\\gamma)\\in(0,\\pi/2)$. "
        "Then $i\\omega+\\gamma = \\gamma e^{i\\alpha}/\\cos\\alpha$ and "
        "$P(i\\omega)/\\gamma^L = (\\mu + i\\gamma\\tan\\alpha)e^{iL\\alpha}\\sec^L\\alpha + "
        "\\lambda\\theta$. The imaginary part gives $\\gamma$, then the real part gives "
        "$\\lambda\\theta$ (SymPy, general $L$; checked against $P$ for each concrete $L$):\n"
        + _eq(gamma, p.gamma_of_alpha)
        + _eq(lam * theta, p.lam_theta_of_alpha)
        + _eq(sp.Symbol("omega"), p.omega_of_alpha)
        + "on the first branch $\\pi/(2L) < \\alpha < \\min(\\pi/L, \\pi/2)$, where "
        "$\\gamma$ decreases from $\\infty$ to $0$ ($D = L/\\gamma$ increases from $0$ to "
        "$\\infty$). Hence the limits of $\\lambda\\theta_c$ (SymPy \\texttt{limit} at the ends "
        "of the branch): as $D \\to 0$, $\\lambda\\theta_c \\sim c_L/D$; as $D\\to\\infty$ it "
        "tends to $\\lambda\\theta(\\pi/L) = " + tex(far) + "$ for $L\\ge3$, while for $L = 2$ "
        "($\\alpha \\to \\pi/2$) it grows linearly.\n\n"
        "In general (SymPy: $\\lambda\\theta_c/\\gamma = " + tex(gen["ratio"]) + "$ is "
        "continuous at $\\alpha = \\pi/(2L)$, and $\\lambda\\theta_c$ at $\\pi/L$ for $L\\ge3$)\n"
        + _eq(sp.Limit(D * lam * sp.Symbol("theta_c"), D, 0), gen["small_D_coefficient"])
        + _eq(sp.Limit(lam * sp.Symbol("theta_c"), D, sp.oo), gen["large_D_limit"])
        + "\\begin{center}\n\\begin{tabular}{rll}\n\\toprule\n"
        "$L$ & $c_L = \\lim_{D\\to0} D\\lambda\\theta_c$ & "
        "$\\lim_{D\\to\\infty}\\lambda\\theta_c$ \\\\\n\\midrule\n"
        + "\n".join(rows)
        + "\n\\bottomrule\n\\end{tabular}\n\\end{center}\n"
        "So for $L \\ge 3$ and $\\theta$ between $\\theta^*$ and the $D\\to\\infty$ limit the "
        "instability window in $D$ is bounded: very long delays are stable again. For "
        "$L = 2$ every window is bounded.\n\n"
        "\\paragraph{Windows exactly.} With $t = \\tan\\alpha$ and $(1+it)^L = A(t) + iB(t)$, "
        "$\\gamma = -\\mu B/(tA)$ and $\\lambda\\theta_c = -\\mu(1+t^2)^L/A$ with $A<0$ on the "
        "branch. So $\\theta > \\theta_c$ iff $Q(t) = \\lambda\\theta A(t) + \\mu(1+t^2)^L < 0$, "
        "a polynomial of degree $2L$ with rational coefficients: its real roots on the "
        "branch (isolated exactly, refined to the requested digits) are the window ends, "
        "$D = -LtA(t)/(\\mu B(t))$.\n"
    )


def _worst_section() -> str:
    p = hopf_parametrisation(None)
    w = worst_delay_trend()
    parts = []
    for L in (2, 3, 4, 5):
        _, D_cf, th_cf, _ = worst_delay_closed_form(L)
        parts.append(f"$L = {L}$: $D^* = {tex(D_cf)}$, $\\theta^* = {tex(th_cf)}$")
    small = "; ".join(parts) + "."
    return (
        "\\section{Worst-case delay and delay-independent threshold}\n"
        "Along the branch,\n"
        + _eq(sp.Derivative(sp.log(lam * theta), _ALPHA), p.stationarity)
        + "and $\\tan a + \\tan b = \\sin(a+b)/(\\cos a\\cos b)$ (checked by SymPy), so\n"
        + _eq(sp.Derivative(sp.log(lam * theta), _ALPHA), p.stationarity_factored)
        + "On the branch $\\cos\\alpha > 0 > \\cos L\\alpha$ and $\\tan L\\alpha$ increases, so "
        "the derivative increases and vanishes exactly once, where $\\sin((L+1)\\alpha) = 0$: "
        "a global minimum at\n"
        + _eq(sp.Symbol("alpha^*"), w.alpha_star)
        + "where $L\\alpha^* = \\pi - \\alpha^*$, so that\n"
        + _eq(sp.Symbol("gamma^*"), w.gamma_star)
        + _eq(sp.Symbol("D^*"), w.D_star)
        + _eq(sp.Symbol("theta^*"), w.theta_star)
        + _eq(sp.Symbol("omega^*"), w.omega_star)
        + "For $\\theta < \\theta^*$ the equilibrium is stable for every mean delay; the "
        "most destabilising delay makes the phase rate equal the service rate ($\\gamma^* = "
        "\\mu$). At concrete $L$ SymPy simplifies: "
        + small
        + " As $L\\to\\infty$ (SymPy limits)\n"
        + _eq(sp.Limit(sp.Symbol("theta^*"), sp.Symbol("L"), sp.oo), w.theta_star_limit)
        + _eq(
            sp.Limit(
                sp.Symbol("L") * (sp.Symbol("theta^*") - w.theta_star_limit), sp.Symbol("L"), sp.oo
            ),
            w.first_order,
        )
        + "while $D^* = L/\\mu\\to\\infty$: this matches the $L=\\infty$ curve, whose infimum "
        "$\\mu/\\lambda$ is approached as $D\\to\\infty$ and not attained.\n\n"
        "\\paragraph{Negative $\\theta$.} For $\\theta < 0$ (routing towards the longer queue) "
        "$P(0) = (\\mu + \\lambda\\theta)\\gamma^L$: a real root crosses $r = 0$ at "
        "$\\lambda\\theta = -\\mu$ for every $D$; since $|F(i\\omega)| \\ge \\mu\\gamma^L$, no "
        "other crossing occurs for $-\\mu < \\lambda\\theta < 0$.\n"
    )


def build() -> str:
    body = (
        "This document derives where the equilibrium of the difference mode loses stability: "
        "the critical routing sensitivity $\\theta_c(D)$ with the Hopf frequency $\\omega$, "
        "for every $L$ and for $L = \\infty$, the instability windows in $D$, and the "
        "worst-case mean delay. Every formula is printed from the SymPy object that "
        "\\texttt{symdelay.models.erlang.hopf} computed.\n\n"
        + _finite_L_section()
        + _closed_forms_section()
        + _dde_section()
        + _parametrisation_section()
        + _worst_section()
    )

    return document("Hopf crossings, critical curves and the worst-case delay", body)
