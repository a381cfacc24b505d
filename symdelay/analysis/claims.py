"""Is a claimed relation a stability (or oscillation) condition? The entry.

:func:`verify` asks the model's family for its claims engine first: the founding model's
(:mod:`symdelay.models.erlang.claims`: its exact homogeneous class, the interval
certificate at ``L = inf``, a documented search, and the decision procedure for every
finite-L stability direction the exact class leaves open). Every other model with
polynomial characteristic factors goes to the decision procedure
(:func:`symdelay.analysis.decide.decide`, z3 nlsat: exact, complete). A claim (or an
assumption) with a transcendental function (``exp``, ``sin``, ``pi``, ...), which the
decision procedure cannot decide, falls back to a search labelled as such
(:func:`symdelay.analysis.claim_search.search_claim`: exact counterexamples, or ``no
counterexample found``; never a relation on the strength of sampling; ``fallback`` says
why). All return :class:`~symdelay.analysis.claim_result.ClaimResult`.
"""

from __future__ import annotations

from symdelay.analysis.claim_result import ClaimResult
from symdelay.analysis.entry import declined, require_table, specialisation
from symdelay.core.errors import SymdelayInputError, TranscendentalClaimError

__all__ = [
    "ClaimResult",
    "verify",
    "DEFAULT_TIMEOUT_MS",
    "theta_assumption",
    "fallback_reason",
]

#: the decision procedure's budget per check (milliseconds)
DEFAULT_TIMEOUT_MS = 10_000


def theta_assumption(model, theta_real: bool) -> tuple:
    """``("theta >= 0",)`` for a model whose routing sensitivity ``theta`` ranges over the
    reals (symdelay's convention: a claim is about ``theta >= 0`` unless ``theta_real``);
    ``()`` with ``theta_real``. ``theta_real`` for a model without a real ``theta`` is
    refused: there is nothing to widen."""
    theta = next((p for p in model.free_parameters if p.name == "theta"), None)
    real = theta is not None and model.domains.get(theta) == "real"
    if theta_real and not real:
        what = (
            "has no free parameter theta"
            if theta is None
            else f"declares theta {model.domains.get(theta)}"
        )
        raise SymdelayInputError(
            f"theta_real widens theta >= 0 to every real theta, but {model.name} {what}: "
            "its domains are its own (restrict them with assume)"
        )
    return ("theta >= 0",) if real and not theta_real else ()


def verify(
    model,
    claim: str,
    *,
    assume=(),
    theta_real: bool = False,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    method: str = "auto",
) -> ClaimResult:
    """Is ``claim`` (a relation in the model's parameters) equivalent, necessary, sufficient
    or neither for stability (and, for the founding model, for oscillation) of ``model``,
    over the parameters' domains and ``assume`` (relations, texts)? Each direction is
    proven, refuted (an exact counterexample, re-checked) or left open (``no
    counterexample found`` after a search; ``undecided within the budget`` after a
    timeout), never a relation then. ``theta_real``: allow ``theta < 0`` too (a model
    whose ``theta`` ranges over the reals; otherwise ``theta >= 0``). ``timeout_ms``: the
    decision procedure's budget per check."""
    if isinstance(assume, str):
        assume = (assume,)
    assume = tuple(assume)
    if isinstance(timeout_ms, bool) or not isinstance(timeout_ms, int) or timeout_ms <= 0:
        raise SymdelayInputError(f"timeout_ms must be a positive integer, got {timeout_ms!r}")
    fast = specialisation(model, "verify", method)
    if fast is not None:
        result = fast(model, claim, assume=assume, theta_real=theta_real, timeout_ms=timeout_ms)
        if result is not None:
            return result
        declined(model, "verify", method)
    require_table(model, "verify")
    from symdelay.analysis.decide import decide

    extra = theta_assumption(model, theta_real)
    assume = (*assume, *[a for a in extra if a not in assume])
    try:
        return decide(model, claim, assume=assume, timeout_ms=timeout_ms, theta_real=theta_real)
    except TranscendentalClaimError as exc:
        from symdelay.analysis.claim_search import search_claim

        return search_claim(
            model, claim, assume=assume, theta_real=theta_real, reason=fallback_reason(exc)
        )


def fallback_reason(exc: TranscendentalClaimError) -> str:
    """The one line a result records when the decision procedure refused a transcendental
    claim and the search took over."""
    return (
        f"the decision procedure cannot decide {exc.function} ({exc.expression}), a "
        "transcendental function: checked by search"
    )
