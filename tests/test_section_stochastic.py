"""The stochastic report section prints its formulas from the analysis objects."""

from pathlib import Path

import pytest
import sympy as sp

from symdelay.core import symbols as S
from symdelay.core.latex import tex
from symdelay.models.erlang.charpoly import special_case
from symdelay.models.erlang.stability import stability_conditions
from symdelay.models.erlang.stochastic import (
    closed_form_singularity,
    closed_form_variance,
    hopf_theta,
)
from symdelay.outputs.report import ReportContext
from symdelay.outputs.sections import stochastic

FIGURES = [
    "figures/stochastic_paths_L1.pdf",
    "figures/stochastic_paths_L2.pdf",
    "figures/stochastic_wave.pdf",
    "figures/stochastic_phase_wL.pdf",
    "figures/stochastic_phase_theta.pdf",
    "figures/stochastic_imbalance.pdf",
    "figures/stochastic_fluid_limit.pdf",
    "figures/stochastic_variance.pdf",
]


@pytest.fixture(scope="module")
def section(tmp_path_factory):
    out = tmp_path_factory.mktemp("stochastic")
    return stochastic.build(ReportContext(Path(out), quick=True))


def test_figures_in_order(section):
    assert section.figures == FIGURES
    for f in FIGURES:
        assert section.body.count(f"{{{f}}}") == 1


def test_formulas_come_from_the_analysis_objects(section):
    two = stability_conditions(2)
    oscillation = special_case(1).oscillation_condition
    for expr in (
        two.closed_forms["critical_lam_theta"],  # 2*(gamma + mu)**2/gamma
        two.closed_forms["critical_lam_theta_in_D"],
        sp.Not(oscillation),  # the L = 1 roots are real
        closed_form_variance(1),
        closed_form_variance(2),
        closed_form_singularity(2),
    ):
        assert tex(expr) in section.body, expr
    # the sweep's bound is the condition at mu = lam = 1, gamma = 1/D = 1/4
    at = {S.mu: 1, S.lam: 1, S.gamma: sp.Rational(1, 4)}
    assert tex(sp.Not(oscillation.subs(at))) == "\\theta \\leq \\frac{9}{16}"
    assert tex(sp.Not(oscillation.subs(at))) in section.body


def test_no_hand_typed_formulas_or_stale_wording(section):
    body = section.body
    for hand in ("2(\\mu+\\gamma)^2/\\gamma", "4\\gamma\\lambda\\theta\\le", "2\\lambda/\\mu"):
        assert hand not in body
    assert "bisection" not in body
    assert "True" not in body and "False" not in body
    assert "Hopf solver" in body


def test_critical_value_agrees_with_the_hopf_solver(section):
    """The text says 'equal to the closed form': the solver and k_c agree at its numbers."""
    p = stochastic.FIGURE_PARAMETERS
    k_c = (
        stability_conditions(2)
        .closed_forms["critical_lam_theta_in_D"]
        .subs({S.mu: sp.Rational(1, 5), S.D: sp.Rational(5, 2)})
    )
    assert k_c == sp.Rational(5, 2)
    assert p["lam"] * hopf_theta(2, p["mu"], p["lam"], p["D"]) == pytest.approx(2.5, rel=1e-12)
    assert "equal to the closed form" in section.body
    assert "confirm it" in section.body


def test_variance_singularity_is_the_routh_hurwitz_boundary():
    """Claimed in the section: the L = 2 variance blows up at lam*theta = k_c."""
    k_c = stability_conditions(2).closed_forms["critical_lam_theta_in_D"]
    assert sp.simplify(S.lam * closed_form_singularity(2) - k_c) == 0


def test_public_constants_unchanged():
    assert stochastic.ORDER == 60
    assert stochastic.FIGURE_PARAMETERS == {"mu": 0.2, "lam": 2, "theta": 5, "D": 2.5}
    assert stochastic.PHASE_THETAS == {"small": (0.05, 0.2, 0.5), "large": (10,)}
    assert stochastic.VARIANCE_CASES[0] == (1, 2, 1) and len(stochastic.VARIANCE_CASES) == 6
