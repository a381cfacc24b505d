"""The one record of :func:`symdelay.analysis.claims.verify`: :class:`ClaimResult`.

Kept apart from the entry so that the decision procedure
(:mod:`symdelay.analysis.decide`), which the entry calls, can build it without an import
cycle.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from symdelay.core.lazy import sympy as sp
from symdelay.core.result import Result

__all__ = ["ClaimResult", "DIRECTIONS", "TARGETS", "METHODS", "stability_result"]

TARGETS = ("stability", "oscillation")
DIRECTIONS = ("claim_implies_target", "target_implies_claim")
#: how a direction was decided (``methods[target][direction]``)
METHODS = ("decision procedure", "exact class", "interval certificate", "search")


@dataclass(frozen=True)
class ClaimResult(Result):
    """The verdict on one claim.

    ``relation_to_stability``: ``equivalent`` (claim <=> stable), ``necessary`` (stable =>
    claim only), ``sufficient`` (claim => stable only) or ``neither`` when both directions
    are decided (``proven["stability"]`` True); otherwise a phrase that says which
    direction is refuted or proven and which is open (``no counterexample found`` after a
    search, or ``undecided within the budget`` after a timeout of the decision procedure).
    The same for oscillation (the founding model only; ``None`` for other models: the
    decision procedure decides stability). ``directions[target][d]`` is ``proven``,
    ``refuted``, ``no counterexample found`` or ``undecided within the budget`` for ``d``
    in ``claim_implies_target``, ``target_implies_claim``; ``methods[target][d]`` how it
    was decided: ``decision procedure`` (z3 nlsat, exact), ``exact class`` (the founding
    engine's homogeneous class), ``interval certificate`` (founding, L = inf) or ``search``
    (a sampled search: a refutation it found is an exact, re-checked counterexample; a
    direction it leaves open is never called proven). ``formulas[target][d]``: the
    SMT-LIB2 text of every formula the decision procedure decided for ``d`` (re-run with
    ``z3 file.smt2``). ``counterexamples[target][d]``: the exact point refuting ``d``
    (strings), or None. ``counterexample`` / ``oscillation_counterexample``: the first of
    these for each target. ``search``: what was searched (the founding model's search, or the search a
    claim the decision procedure cannot decide falls back to), else ``{}``.
    ``details[target][d]``: the decision procedure's checks (what, answer, seconds), the
    kind of counterexample (rational / algebraic) and, when undecided, what was tried.
    ``fallback``: why the decision procedure did not decide the claim and what was done
    instead (a transcendental function: ``"the decision procedure cannot decide exp
    (exp(lam)), a transcendental function: checked by search"``), else None.
    """

    L: int | str | None
    claim: str
    condition: sp.Basic
    theta_real: bool
    relation_to_stability: str
    relation_to_oscillation: str | None
    counterexample: dict | None
    oscillation_counterexample: dict | None
    explanation: str
    proven: dict = field(default_factory=dict)
    directions: dict = field(default_factory=dict)
    counterexamples: dict = field(default_factory=dict)
    search: dict = field(default_factory=dict)
    model_name: str | None = None
    assume: tuple = ()
    methods: dict = field(default_factory=dict)
    formulas: dict = field(default_factory=dict)
    details: dict = field(default_factory=dict)
    scaling: str | None = None
    timeout_ms: int | None = None
    fallback: str | None = None

    def direction_records(self, target: str = "stability") -> list[dict]:
        """One flat record per direction of ``target`` (direction, status, method,
        formula_smt2, counterexample and the decision procedure's details)."""
        out = []
        for d in self.directions.get(target, {}):
            out.append(
                {
                    "target": target,
                    "direction": d,
                    "status": self.directions[target][d],
                    "method": self.methods.get(target, {}).get(d),
                    "formula_smt2": list(self.formulas.get(target, {}).get(d, [])),
                    "counterexample": self.counterexamples.get(target, {}).get(d),
                    **self.details.get(target, {}).get(d, {}),
                }
            )
        return out

    def latex(self) -> str:
        """The claim and its relation to stability and to oscillation."""
        from symdelay.core.display import latex_text
        from symdelay.core.latex import tex as _tex

        where = rf" \quad (L = {self.L})" if self.L is not None else ""
        lines = [
            rf"{_tex(self.condition)}{where}",
            latex_text(f"relation to stability: {self.relation_to_stability}"),
        ]
        if self.relation_to_oscillation is not None:
            lines.append(latex_text(f"relation to oscillation: {self.relation_to_oscillation}"))
        return r"\begin{gathered}" + r" \\ ".join(lines) + r"\end{gathered}"

    def table(self):
        rows = [
            [t, d.replace("_", " "), self.directions[t][d], self.methods.get(t, {}).get(d, "")]
            for t in self.directions
            for d in self.directions[t]
        ]
        return (
            ["target", "direction", "status", "method"],
            rows,
            f"{self.claim}: {self.relation_to_stability} (stability)",
        )

    def record(self) -> dict:
        from symdelay.core.latex import tex

        out = {
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
            "assume": list(self.assume),
            "method": self.methods,
            "formula_smt2": self.formulas,
            "decision": self.details,
            "scaling": self.scaling,
            "timeout_seconds": None if self.timeout_ms is None else self.timeout_ms / 1000,
            "fallback": self.fallback,
        }
        return out


def relation(sa: str, sb: str, open_status: str) -> tuple[str, bool]:
    """The relation of a claim to a target from the statuses of its two directions (claim =>
    target, target => claim): a word and True when both are "proven" or "refuted", else what is
    known, with ``open_status`` (the status of a direction left open) for the rest."""
    if sa != open_status and sb != open_status:
        words = {
            ("proven", "proven"): "equivalent",
            ("refuted", "proven"): "necessary",
            ("proven", "refuted"): "sufficient",
            ("refuted", "refuted"): "neither",
        }
        return words[(sa, sb)], True
    a = {"proven": "sufficient", "refuted": "not sufficient"}.get(sa)
    b = {"proven": "necessary", "refuted": "not necessary"}.get(sb)
    open_parts = [w for w, s in (("sufficiency", sa), ("necessity", sb)) if s == open_status]
    decided = [w for w in (a, b) if w]
    return "; ".join([*decided, f"{' and '.join(open_parts)}: {open_status}"]), False


def stability_result(
    model,
    claim,
    cf,
    *,
    theta_real,
    statuses,
    counterexamples,
    explanation,
    assume,
    method,
    open_status,
    **extra,
) -> ClaimResult:
    """The :class:`ClaimResult` of an engine that decides stability only (the decision
    procedure, the search): ``statuses`` and ``counterexamples`` keyed by direction,
    ``method`` the label of both directions; ``extra`` the engine's own fields."""
    dirs = DIRECTIONS
    rel, decided = relation(statuses[dirs[0]], statuses[dirs[1]], open_status)
    fields = {"formulas": {}, "details": {}, "search": {}, "scaling": None, "timeout_ms": None}
    fields.update(extra)
    return ClaimResult(
        model_name=getattr(model, "name", None),
        L=None,  # the founding engine sets its L
        claim=claim,
        condition=cf.condition,
        theta_real=theta_real,
        relation_to_stability=rel,
        relation_to_oscillation=None,
        counterexample=counterexamples[dirs[0]] or counterexamples[dirs[1]],
        oscillation_counterexample=None,
        explanation=explanation(rel, decided),
        proven={"stability": decided},
        directions={"stability": dict(statuses)},
        counterexamples={"stability": dict(counterexamples)},
        assume=tuple(assume),
        methods={"stability": dict.fromkeys(dirs, method)},
        **fields,
    )
