"""Report section: certified characteristic roots, numpy cross-check, the L -> oo limit."""

from __future__ import annotations

import math

import mpmath

from symdelay.core.latex import escape
from symdelay.models.erlang.roots import characteristic_roots
from symdelay.models.erlang.roots.crosscheck import (
    lambert_convergence,
    numpy_discrepancy,
    root_locus,
    trust_limit,
)
from symdelay.outputs.plots_roots import convergence_figure, discrepancy_figure, root_locus_figure
from symdelay.outputs.report import Section, table_tex

__all__ = ["ORDER", "build", "PARAMS"]

ORDER = 50

#: mu, lam, theta, D used in the tables (the locus varies theta).
PARAMS = (1, 1, 5, 1)


def _fmt(x: float) -> str:
    return "overflow" if not math.isfinite(x) else f"${_sci(x, 1)}$"


def _sci(x: float, digits: int = 2) -> str:
    """LaTeX ``a \\times 10^{b}``."""
    if not math.isfinite(x):
        return "\\infty"
    m, e = f"{x:.{digits}e}".split("e")
    return f"{m}\\times 10^{{{int(e)}}}"


def build(ctx) -> Section:
    mu, lam, theta, D = PARAMS
    quick = ctx.quick
    thetas = [0.2, 0.5, 1, 2, 5] if quick else [0.1, 0.2, 0.35, 0.5, 1, 1.5, 2, 3, 5, 7, 10]
    locus = root_locus([2, 5] if quick else [2, 5, 20], thetas, mu, lam, D, dps=20)
    fig_locus = ctx.figure(
        root_locus_figure(locus),
        "roots_locus.pdf",
        f"Root locus as $\\theta$ grows ({escape(', '.join(str(t) for t in thetas))}) for "
        f"$L\\in\\{{{', '.join(str(n) for n in locus.finite)}\\}}$ and the "
        "delay-differential roots $r_k=-\\mu+W_k(-\\lambda\\theta D e^{\\mu D})/D$ (crosses), "
        f"$\\mu={mu}$, $\\lambda={lam}$, $D={D}$.",
    )

    Lc = [10, 100, 1000] if quick else [10, 30, 100, 300, 1000, 3000, 10**4, 10**5, 10**6]
    conv = lambert_convergence(Lc, mu, lam, theta, D, dps=30)
    fig_conv = ctx.figure(
        convergence_figure(conv),
        "roots_convergence.pdf",
        "Convergence of the rightmost root to the delay-differential limit.",
        width="0.7",
    )

    Ld = [5, 10, 20, 50] if quick else [5, 10, 20, 30, 50, 100, 200, 400]
    eig = [numpy_discrepancy(n, mu, lam, theta, D) for n in Ld]
    poly = [numpy_discrepancy(n, mu, lam, theta, D, method="roots") for n in Ld]
    fig_numpy = ctx.figure(
        discrepancy_figure(eig, poly),
        "roots_numpy.pdf",
        "Largest discrepancy between double-precision roots and the certified roots.",
        width="0.7",
    )

    p_fit, c_fit, l_trust = trust_limit(eig, 1e-8)
    rows = []
    for e, p in zip(eig, poly):
        rows.append([f"${e.L}$", _fmt(e.max_abs), _fmt(e.max_rel), _fmt(p.max_abs)])
    conv_rows = [[f"${n}$", f"${_sci(err)}$"] for n, err in zip(conv.Ls, conv.errors)]
    demo = characteristic_roots(200, mu, lam, theta, D, dps=30)
    with mpmath.workdps(30):
        top = demo[0]
        top_txt = f"{mpmath.nstr(top.value.real, 20)} \\pm {mpmath.nstr(top.value.imag, 20)}\\,i"
        rad = _sci(float(top.radius))
    table_np = table_tex(
        ["$L$", "eigenvalues: max error", "relative", "numpy.roots: max error"],
        rows,
        "Double-precision roots against the certified roots (numpy eigenvalues of the "
        "difference Jacobian, and numpy.roots of the expanded polynomial).",
        align="rccc",
    )
    table_conv = table_tex(
        ["$L$", "$|r_L-r_\\infty|$"],
        conv_rows,
        "Distance of the rightmost Erlang root from the rightmost Lambert-W root.",
        align="rc",
    )
    body = rf"""
The roots of $(r+\mu)(r+\gamma)^L+\lambda\theta\gamma^L$ are computed by
\texttt{{symdelay.characteristic\_roots}} after the substitution $u=(r+\gamma)/\gamma$,
derived by SymPy from the characteristic polynomial, which gives the well-scaled equation
$u^L(u+a)+c=0$ with $a=(\mu-\gamma)/\gamma$, $c=\lambda\theta/\gamma$. Each root lies in one
sector $|\arg u - 2\pi k/L|\le\pi/L$ and is a fixed point of the branch map
$u\mapsto e^{{2\pi i k/L}}(-c/(u+a))^{{1/L}}$; the sector containing $-a$ holds one more root,
which Vieta's relation supplies. Newton's method refines every root to the requested digits,
and Arb interval arithmetic (python-flint) proves, for each root, a disc that contains
exactly one zero (a contraction argument for $z\mapsto z-yF(z)$). The discs are proved pairwise
disjoint, so the $L+1$ discs hold all $L+1$ roots, and the number of roots in the right
half-plane is read off the discs (none meets the axis). The tests compare that count with the
argument principle on the box $|r+\mu|\le|\lambda\theta|$, which contains every root with
$\operatorname{{Re}} r\ge0$, and with the exact Routh array.

Parameters here: $\mu={mu}$, $\lambda={lam}$, $\theta={theta}$, $D={D}$ (time units).
At $L=200$ the rightmost pair is ${top_txt}$, certified to within ${rad}$, and
{demo.unstable_count} roots are unstable.

{fig_locus}
\paragraph{{Double precision.}} Eigenvalues of the difference Jacobian computed by numpy
agree with the certified roots to a few units in the last place relative to $1+|r|$; the
relative error grows like ${_sci(c_fit)}\,L^{{{p_fit:.2f}}}$ (fit), so double precision keeps
8 trustworthy digits up to $L\approx{_sci(l_trust)}$ (extrapolated). The roots of the expanded
polynomial (numpy.roots), whose coefficients grow like $\gamma^L$, are wrong in the first
digit by $L=50$, and the coefficients overflow double precision from $L\approx 150$.

{table_np}
{fig_numpy}
\paragraph{{The delay limit.}} The rightmost Erlang root approaches the rightmost
Lambert-W root $r_\infty$ with error $\approx {conv.constant:.3g}\,L^{{{conv.slope:.3f}}}$
(least-squares fit on log-log axes), i.e.\ like $1/L$.

{table_conv}
{fig_conv}
"""
    return Section("Certified characteristic roots", body)
