"""The founding model: two queues, logit routing on queue lengths, Erlang(L, mean D) delay.

``model(L, mu, lam, theta, D)`` checks its options once and returns a
:class:`FoundingModel`. Every analysis takes it like any other model; the fast paths of the
symbolic-L derivation (closed-form Hopf curves, trinomial and Lambert-W roots, the claims
engine's exact branch) are its
:attr:`~FoundingModel.SPECIALISATIONS`, which each analysis entry asks for first. The
transition table (2(L+1) states) is built only when a generic analysis asks for it, so that a
closed-form answer at L = 10^4 never builds a 20,002-state table; ``L = inf`` (the
delay-differential limit) has none, and a generic analysis of it says so.

>>> m = model(L=1)
>>> [f.mode for f in m.factors]
['sum', 'sum', 'difference']
>>> model(L=3, mu=1, lam="0.5").options["lam"]
1/2
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from symdelay.core.options import RATES, Option

if TYPE_CHECKING:
    from symdelay.models.erlang.founding import FoundingModel

__all__ = ["model", "INFO", "OPTIONS"]

INFO = {
    "name": "erlang",
    "parameters": ["L", "mu", "lam", "theta", "D"],
    "description": "the founding model: two queues, logit routing on queue lengths, "
    "Erlang(L, mean D) action delay",
}


OPTIONS = (
    Option("L", "number of Erlang delay phases: an integer >= 1, or inf", "count", "2"),
    *RATES,
    Option("D", "mean action delay (> 0; without it the phase rate gamma stays symbolic)"),
)


def model(L=2, mu=None, lam=None, theta=None, D=None) -> FoundingModel:
    """The founding model with ``L`` phases; ``D`` None leaves the phase rate ``gamma``."""
    from symdelay.models.erlang.founding import FoundingModel

    return FoundingModel(L=L, mu=mu, lam=lam, theta=theta, D=D)


def sweep_substitution(options: dict, over: str):
    """Varying ``D`` of a model built without it is ``gamma = L/D`` (its table's Erlang delay:
    :func:`erlang_D_substitution`); None otherwise."""
    return erlang_D_substitution(options, over)


def erlang_D_substitution(options: dict, over: str):
    """``value -> {gamma: L/value}`` for a model whose Erlang(L) delay was built with ``D``
    not given: :meth:`symdelay.models.phase.PhaseType.erlang` puts ``gamma`` wherever the
    phase rate ``L/D`` goes, so when nothing else of the model reads ``D``, the model at ``D``
    is this one at ``gamma = L/D`` (a family's ``sweep_substitution`` says when). None for
    another option, ``D`` given or ``L`` not a whole number. Light: SymPy loads only when the
    substitution is used."""
    if over != "D" or options.get("D") is not None:
        return None
    L = 2 if options.get("L") is None else options["L"]
    if isinstance(L, str):
        L = L.strip()
        if not L.isdigit():
            return None
        L = int(L)
    if isinstance(L, bool) or not isinstance(L, int) or L < 1:
        return None

    def at(value):
        from symdelay.core.params import as_parameter
        from symdelay.core.symbols import gamma

        return {gamma: L / as_parameter("D", value)}

    return at


def __getattr__(name):
    # FoundingModel and NoTable live in .founding (it imports SymPy); the command line reads
    # this module for INFO and OPTIONS only
    if name in ("FoundingModel", "NoTable"):
        from symdelay.models.erlang import founding

        return getattr(founding, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
