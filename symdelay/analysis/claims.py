"""Is a claimed inequality a stability (or oscillation) condition? The record and the entry.

:func:`verify` asks the model's family for its claims engine: the founding model's
(:mod:`symdelay.models.erlang.claims`, exact reasoning, exact counterexamples and a
documented search). A generic path for other models is the subject of a later issue: for
now :func:`verify` refuses them with one line.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

from symdelay.analysis.entry import declined, specialisation
from symdelay.core.errors import SymdelayInputError
from symdelay.core.result import Result

__all__ = ["ClaimResult", "verify"]


@dataclass(frozen=True)
class ClaimResult(Result):
    """The verdict on one claim.

    ``relation_to_stability``: ``equivalent`` (claim <=> stable), ``necessary`` (stable =>
    claim only), ``sufficient`` (claim => stable only) or ``neither`` when both directions
    are decided (``proven["stability"]`` True); otherwise a phrase that says which
    direction is refuted or proven and where no counterexample was found. The same for
    oscillation. ``directions[target][d]`` is ``proven``, ``refuted`` or ``no counterexample
    found`` for ``d`` in ``claim_implies_target``, ``target_implies_claim``.
    ``counterexamples[target][d]``: the exact point refuting ``d`` (strings of rationals:
    mu, lam, theta, D and, for finite L, gamma), or None. ``counterexample`` /
    ``oscillation_counterexample``: the first of these for each target. ``search``: what
    was searched (ranges, number of points, local optimisations).
    """

    L: int | str
    claim: str
    condition: sp.Basic
    theta_real: bool
    relation_to_stability: str
    relation_to_oscillation: str
    counterexample: dict | None
    oscillation_counterexample: dict | None
    explanation: str
    proven: dict = field(default_factory=dict)
    directions: dict = field(default_factory=dict)
    counterexamples: dict = field(default_factory=dict)
    search: dict = field(default_factory=dict)
    model_name: str | None = None

    def latex(self) -> str:
        """The claim and its relation to stability and to oscillation."""
        from symdelay.core.display import latex_text
        from symdelay.core.latex import tex as _tex

        lines = (
            rf"{_tex(self.condition)} \quad (L = {self.L})",
            latex_text(f"relation to stability: {self.relation_to_stability}"),
            latex_text(f"relation to oscillation: {self.relation_to_oscillation}"),
        )
        return r"\begin{gathered}" + r" \\ ".join(lines) + r"\end{gathered}"

    def record(self) -> dict:
        from symdelay.core.latex import tex

        return {
            "L": self.L,
            "claim": self.claim,
            "theta_real": self.theta_real,
            "relation_to_stability": self.relation_to_stability,
            "relation_to_oscillation": self.relation_to_oscillation,
            "counterexample": self.counterexample,
            "oscillation_counterexample": self.oscillation_counterexample,
            "proven": self.proven,
            "explanation": self.explanation,
            "directions": self.directions,
            "counterexamples": self.counterexamples,
            "search": self.search,
            # the claim as LaTeX (symdelay's names: lam -> \lambda)
            "latex": tex(self.condition),
        }


def verify(model, claim: str, *, theta_real: bool = False, method: str = "auto") -> ClaimResult:
    """Is ``claim`` (an inequality in the model's parameters) equivalent, necessary,
    sufficient or neither for stability and for oscillation of ``model``? Each direction is
    proven, refuted (an exact counterexample) or only searched (:class:`ClaimResult`).
    ``theta_real``: allow ``theta < 0`` too."""
    fast = specialisation(model, "verify", method)
    if fast is not None:
        result = fast(model, claim, theta_real=theta_real)
        if result is not None:
            return result
        declined(model, "verify", method)
    raise SymdelayInputError(
        f"verify decides claims for the founding model (erlang) only; a generic path for "
        f"{getattr(model, 'name', model)} is not written yet: use 'symdelay stability "
        "--model ...' for its exact conditions"
    )
