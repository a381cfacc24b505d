"""The one record of :func:`symdelay.analysis.claims.verify`: :class:`ClaimResult`.

Kept apart from the entry so that the decision procedure
(:mod:`symdelay.analysis.decide`), which the entry calls, can build it without an import
cycle.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from symdelay.core.errors import VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.result import Result

__all__ = [
    "ClaimResult",
    "Outcome",
    "model_L",
    "ARROWS",
    "DIRECTIONS",
    "DEFAULT_TIMEOUT_MS",
    "TARGETS",
    "METHODS",
    "STATUSES",
    "VERDICTS",
    "assemble",
]

#: the decision procedure's budget per check (milliseconds)
DEFAULT_TIMEOUT_MS = 10_000
TARGETS = ("stability", "oscillation")
DIRECTIONS = ("claim_implies_target", "target_implies_claim")
#: how a direction was decided (``methods[target][direction]``)
METHODS = ("decision procedure", "exact class", "interval certificate", "search")
PROVEN, REFUTED = "proven", "refuted"
OPEN, UNDECIDED = "no counterexample found", "undecided within the budget"
STATUSES = (PROVEN, REFUTED, OPEN, UNDECIDED)
#: the model's verdict at a counterexample (``counterexample_verdicts``)
VERDICTS = ("stable", "marginal", "unstable")
_COUNTS = ("points", "random_points", "boundary_points", "line_points", "exact_points")
#: the search record when no search ran (every record has the same keys)
NO_SEARCH = {
    **dict.fromkeys((*_COUNTS, "skipped", "outside_assumptions"), 0),
    **{"ranges": {}, "structure": [], "claim": None, "seed": None, "seconds": 0.0},
}


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
    (strings), or None; ``verdicts[target][d]`` the model's verdict there (``stable``,
    ``marginal`` or ``unstable``: JSON ``counterexample_verdicts``), computed by the second
    path that checked the point. ``counterexample`` / ``oscillation_counterexample``: the
    first of these for each target. ``search``: what the one counterexample search
    searched (the same keys on every path; ``points`` 0 when no search ran).
    ``details[target][d]``: the decision procedure's checks (what, answer, seconds), the
    kind of counterexample (rational / algebraic) and, when undecided, what was tried.
    ``evidence[target][d]``: what decided ``d``, in words (how it was proven, or how its
    counterexample was re-checked); ``remarks``: the further sentences of the explanation
    (each applies to this claim). ``fallback``: why the decision procedure did not decide
    the claim and what was done instead (a transcendental function: ``"the decision procedure cannot decide exp
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
    verdicts: dict = field(default_factory=dict)
    search: dict = field(default_factory=dict)
    model_name: str | None = None
    assume: tuple = ()
    methods: dict = field(default_factory=dict)
    formulas: dict = field(default_factory=dict)
    details: dict = field(default_factory=dict)
    scaling: str | None = None
    timeout_ms: int | None = None
    fallback: str | None = None
    evidence: dict = field(default_factory=dict)
    remarks: tuple = ()

    @property
    def exit_status(self) -> str:
        """How much of the answer is proven: ``"proven"`` (every direction of every target
        proven or refuted by an exact, re-checked counterexample), ``"search"`` (some
        direction rests on a search: *no counterexample found*, not a proof) or
        ``"undecided"`` (some direction undecided within the budget, none only searched)."""
        statuses = {s for per in self.directions.values() for s in per.values()}
        if OPEN in statuses:
            return "search"
        return "undecided" if UNDECIDED in statuses else "proven"

    def direction_records(self, target: str = "stability") -> list[dict]:
        """One flat record per direction of ``target`` (direction, status, method,
        formula_smt2, counterexample, the verdict there and the decision procedure's
        details)."""
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
                    "verdict": self.verdicts.get(target, {}).get(d),
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
            "counterexample_verdicts": self.verdicts,
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


def relation(sa: str, sb: str) -> tuple[str, bool]:
    """The relation of a claim to a target from the statuses of its two directions (claim =>
    target, target => claim): a word and True when both are "proven" or "refuted", else what is
    known, with the status of each direction left open."""
    words = {
        (PROVEN, PROVEN): "equivalent",
        (REFUTED, PROVEN): "necessary",
        (PROVEN, REFUTED): "sufficient",
        (REFUTED, REFUTED): "neither",
    }
    if (sa, sb) in words:
        return words[sa, sb], True
    a = {PROVEN: "sufficient", REFUTED: "not sufficient"}.get(sa)
    b = {PROVEN: "necessary", REFUTED: "not necessary"}.get(sb)
    parts = [w for w in (a, b) if w]
    for status in (OPEN, UNDECIDED):
        left = [w for w, s in (("sufficiency", sa), ("necessity", sb)) if s == status]
        if left:
            parts.append(f"{' and '.join(left)}: {status}")
    return "; ".join(parts), False


@dataclass
class Outcome:
    """One direction of one target: ``status`` (one of :data:`STATUSES`), ``method`` (one
    of :data:`METHODS`), ``counterexample`` (name -> exact value, strings; never None when
    refuted), ``verdict`` (the model's there, one of :data:`VERDICTS`; given with every
    counterexample, by the second path that checked it), ``formulas`` (SMT-LIB2 texts decided), ``kind`` of the counterexample
    (``rational`` / ``algebraic``), the decision procedure's ``checks``, ``seconds``,
    ``tried`` (when undecided) and ``note`` (how it was decided, in words)."""

    status: str
    method: str
    counterexample: dict | None = None
    verdict: str | None = None
    formulas: list = field(default_factory=list)
    kind: str | None = None
    checks: list = field(default_factory=list)
    seconds: float = 0.0
    tried: str | None = None
    note: str = ""

    def __post_init__(self):
        if self.status not in STATUSES or self.method not in METHODS:
            raise VerificationError(f"unknown status or method: {self.status}, {self.method}")
        if self.status == REFUTED and not self.counterexample:
            raise VerificationError(f"a refuted direction without its counterexample ({self})")
        if bool(self.counterexample) != (self.verdict in VERDICTS):
            raise VerificationError(f"a counterexample without the verdict there ({self})")
        if self.counterexample and self.kind is None:
            self.kind = "rational"


#: each target's two directions in words
ARROWS = {
    "stability": ("claim => stable", "stable => claim"),
    "oscillation": ("claim => oscillating", "oscillating => claim"),
}


def _say(target: str, d: str, o: Outcome) -> str:
    words = ARROWS.get(target, (f"claim => {target}", f"{target} => claim"))[DIRECTIONS.index(d)]
    if o.status == REFUTED:
        return f"{words}: refuted at {o.counterexample} ({o.verdict} there)"
    if o.status == PROVEN:
        return f"{words}: proven ({o.note})"
    if o.status == OPEN:
        return f"{words}: {OPEN} (search: not proven)"
    return f"{words}: {UNDECIDED} ({o.tried or o.note})"


def assemble(
    model,
    claim: str,
    condition,
    outcomes: dict,
    *,
    L=None,
    theta_real: bool = False,
    assume=(),
    search: dict | None = None,
    scaling: str | None = None,
    timeout_ms: int | None = None,
    fallback: str | None = None,
    notes=(),
) -> ClaimResult:
    """The one :class:`ClaimResult` of every path: ``outcomes[target][direction]`` an
    :class:`Outcome`; ``search`` the search's record (``None``: no search ran); ``notes``
    further sentences of the explanation (after the verdicts)."""

    def each(f):
        return {t: {d: f(o) for d, o in per.items()} for t, per in outcomes.items()}

    rels, proven = {}, {}
    for t, per in outcomes.items():
        rels[t], proven[t] = relation(per[DIRECTIONS[0]].status, per[DIRECTIONS[1]].status)
    ces = each(lambda o: o.counterexample)
    first = {t: c[DIRECTIONS[0]] or c[DIRECTIONS[1]] for t, c in ces.items()}
    search = dict(NO_SEARCH) if search is None else search
    parts = [fallback] if fallback else []
    for t, per in outcomes.items():
        head = f"{claim}: {rels[t]}" if proven[t] else f"{claim}: not decided ({rels[t]})"
        parts.append(f"{t}: {head}; " + "; ".join(_say(t, d, o) for d, o in per.items()))
    every = [o for per in outcomes.values() for o in per.values()]
    for note in dict.fromkeys(o.note for o in every if o.status == REFUTED and o.note):
        parts.append(f"counterexamples: {note}")
    parts += list(notes)
    if search["points"]:
        ranges = ", ".join(f"{k} in [{a}, {b}]" for k, (a, b) in search["ranges"].items())
        parts.append(
            f"searched {search['points']} points ({ranges}; {search['exact_points']} decided "
            f"exactly, {search['boundary_points'] + search['line_points']} near the "
            f"boundaries), {search['skipped']} skipped (undecided there)"
        )
    if scaling:
        parts.append(f"scaling: {scaling}")
    return ClaimResult(
        model_name=getattr(model, "name", None),
        L=L,
        claim=claim,
        condition=condition,
        theta_real=theta_real,
        relation_to_stability=rels["stability"],
        relation_to_oscillation=rels.get("oscillation"),
        counterexample=first["stability"],
        oscillation_counterexample=first.get("oscillation"),
        explanation=". ".join(parts) + ".",
        proven=proven,
        directions=each(lambda o: o.status),
        counterexamples=ces,
        verdicts=each(lambda o: o.verdict),
        search=search,
        assume=tuple(assume),
        methods=each(lambda o: o.method),
        formulas=each(lambda o: list(o.formulas)),
        details=each(
            lambda o: {
                "counterexample_kind": o.kind,
                "checks": o.checks,
                "seconds": o.seconds,
                "timeout_ms": timeout_ms,
                "tried": o.tried,
            }
        ),
        scaling=scaling,
        timeout_ms=timeout_ms,
        fallback=fallback,
        evidence=each(lambda o: o.note),
        remarks=tuple(notes),
    )


def model_L(model):
    """The ``L`` option of a family's model (an int, ``"inf"``), else None."""
    from symdelay.analysis.entry import family_options

    L = (family_options(model) or {}).get("L")
    if L is None or isinstance(L, int):
        return L
    return "inf" if str(L) in ("oo", "inf") else str(L)
