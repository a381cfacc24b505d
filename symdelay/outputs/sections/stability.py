"""Report section: Routh–Hurwitz stability conditions and the stability/oscillation distinction."""

from __future__ import annotations

from symdelay.core import symbols as S
from symdelay.core.latex import relations_tex, tex
from symdelay.models.erlang.charpoly import characteristic_polynomial
from symdelay.models.erlang.stability import difference_routh, founding_closed_forms
from symdelay.outputs.report import Section
from symdelay.outputs.stability_tex import critical_block, oscillation_block, routh_table

__all__ = ["ORDER", "build", "SECTION_L"]

ORDER = 30

#: L values summarised in the section.
SECTION_L = (1, 2, 3, 4)


def build(ctx) -> Section:
    del ctx  # no figures; the same brief content in quick mode
    two = founding_closed_forms(2)
    parts = [
        "The Routh--Hurwitz engine (\\texttt{symdelay routh}) gives exact conditions for "
        "any real polynomial. Applied to the difference mode "
        f"${tex(characteristic_polynomial(S.L))}$ and simplified under "
        f"{relations_tex(two['assumptions'])}, stability is "
        "$-\\mu < \\lambda\\theta < k_c(\\mu, \\gamma)$, $k_c$ the smallest positive root of "
        "the last Hurwitz determinant.\n",
        "\\paragraph{$L = 2$.} Routh array:\n" + routh_table(difference_routh(2)),
    ]
    for L in SECTION_L:
        parts.append(f"\\paragraph{{$L = {L}$.}} " + critical_block(L, founding_closed_forms(L)))
    one = founding_closed_forms(1)
    parts.append(
        "\\paragraph{Stability versus oscillation.} For $L = 1$ the equilibrium is stable for "
        "every $\\theta \\ge 0$; the inequality of Abe and Phung-Duc \\cite{AbePhungDuc} "
        f"${tex(one['oscillation_condition'])}$ is where the roots become complex (damped "
        "oscillation), not a stability boundary (\\texttt{symdelay verify} reports it as "
        "\\emph{sufficient} for stability and \\emph{equivalent} to oscillation).\n\n"
        + "\\paragraph{Oscillation at $L = 2$.} "
        + oscillation_block(two)
    )
    return Section("Stability conditions (Routh--Hurwitz)", "".join(parts))
