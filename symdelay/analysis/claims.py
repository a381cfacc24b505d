"""Is a claimed relation a stability (or oscillation) condition? The entry :func:`verify`.

The family's specialisation comes first (the founding model's exact class and interval
certificate, :mod:`symdelay.models.erlang.claims`); the generic path decides every target
(stability and the family's own, :func:`symdelay.analysis.decide.targets_of`) by the
decision procedure (:mod:`symdelay.analysis.decide`), or, for a claim with a transcendental
function, by the one counterexample search (:mod:`symdelay.analysis.claim_search`). Every
path returns one :class:`~symdelay.analysis.claim_result.ClaimResult`.
"""

from __future__ import annotations

from symdelay.analysis.claim_result import DEFAULT_TIMEOUT_MS, ClaimResult
from symdelay.analysis.entry import entry_doc, require_table, specialised
from symdelay.core.errors import SymdelayInputError, TranscendentalClaimError
from symdelay.model.core import has_lags

__all__ = [
    "ClaimResult",
    "verify",
    "verify_generic",
    "DEFAULT_TIMEOUT_MS",
    "theta_assumption",
]


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


@entry_doc
def verify(
    model,
    claim: str,
    *,
    assume=(),
    theta_real: bool = False,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    method: str = "auto",
    points: int | None = None,
    box: dict | None = None,
) -> ClaimResult:
    """Is ``claim`` equivalent, necessary, sufficient or neither for stability (and for the
    targets the model's family defines: the founding model's oscillation) of ``model``?

    Parameters
    ----------
    model : Model
        The model (its free parameters are the claim's names; the founding model also
        reads ``D = L/gamma``).
    claim : str
        Relations joined by ``and`` / ``or`` / ``not`` (``&``, ``|``, ``~``), chains
        ``a < b < c``; arithmetic, powers, ``sqrt``, ``Abs``; ``exp``, ``log``, ``sin``,
        ``cos``, ``tan``, ``sinh``, ``cosh``, ``tanh``, ``acos``, ``asin``, ``atan``,
        ``pi``, ``E`` make it a search. A delay model: a claim that names no lag is about
        stability for every value of the lags (decided exactly, polynomial claims only);
        one that names a lag (``D < acos(-mu/(lam*theta))/sqrt((lam*theta)**2 - mu**2)``)
        about stability at the given lags (:mod:`symdelay.analysis.lagclaims`: exactly for
        Hayes' class, else a labelled search).
    assume : str or sequence of str, default ()
        Relations the parameters satisfy besides their domains (the same language), e.g.
        ``"theta >= 0"``.
    theta_real : bool, default False
        Let ``theta`` range over the reals (routing towards longer queues too); otherwise
        ``theta >= 0``.
    timeout_ms : int, default 10000
        The decision procedure's budget per check, in milliseconds (a positive integer); a
        check that runs out leaves its direction ``undecided within the budget``.
    method : {"auto", "generic", "specialised"}, default "auto"
        %(method)s
    points : int or None, default None
        A delay model and a claim that names a lag (stability at the given lag values):
        the points the labelled search decides (default 400, 10..100000); refused
        elsewhere.
    box : dict or None, default None
        The same search: ``{name: (lo, hi)}`` ranges to draw parameters from (inside their
        domains; default ``[0.1, 10]`` log-uniform for a positive one); refused elsewhere.

    Returns
    -------
    ClaimResult
        Each direction proven, refuted (an exact counterexample, re-checked by a second
        path) or left open (``no counterexample found`` after a search; ``undecided within
        the budget`` after a timeout), never a relation then.
    """
    from symdelay.analysis.decide import _check_arguments

    assume = _check_arguments(assume, timeout_ms)
    kw = {"assume": assume, "theta_real": theta_real, "timeout_ms": timeout_ms}
    if points is None and not box:
        result = specialised(model, "verify", method, claim, **kw)
        if result is not None:
            return result
    require_table(model, "verify")
    if has_lags(model):
        from symdelay.model.modes import rational_numerator

        if any(rational_numerator(f.factor) is None for f in model.characteristic_factors):
            # a transcendental characteristic function: against stability for every lag
            from symdelay.analysis.delayclaims import verify_delay

            return verify_delay(
                model,
                claim,
                assume=assume,
                theta_real=theta_real,
                timeout_ms=timeout_ms,
                points=points,
                box=box,
            )
    if points is not None or box:
        raise SymdelayInputError(
            "points and box set the search of a claim that names a lag of a delay model "
            f"with a transcendental characteristic function; {getattr(model, 'name', 'this model')} "
            "is decided without them: leave them out"
        )
    return verify_generic(model, claim, assume=assume, theta_real=theta_real, timeout_ms=timeout_ms)


def verify_generic(model, claim, *, assume, theta_real, timeout_ms) -> ClaimResult:
    """The generic path: the decision procedure for every target, the search when the
    claim is transcendental."""
    from symdelay.analysis.claim_result import model_L
    from symdelay.analysis.decide import decide_targets, targets_of

    assume = (*assume, *[a for a in theta_assumption(model, theta_real) if a not in assume])
    try:
        targets = targets_of(model)
        return decide_targets(
            model, claim, targets, assume, timeout_ms, theta_real, L=model_L(model)
        )
    except TranscendentalClaimError:
        from symdelay.analysis.claim_search import search_claim

        return search_claim(model, claim, assume=assume, theta_real=theta_real)
