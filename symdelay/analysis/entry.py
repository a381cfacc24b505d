"""How an analysis entry chooses its path: the model's specialisation first, the generic
machinery otherwise.

Every public analysis (``critical``, ``roots``, ``stability``, ``simulate``, ``fluid``,
``variance``, ``window``, ``worst_delay``, ``limit_cycle``, ``normal_form``, ``verify``) takes
the model first and a ``method``:

- ``"auto"`` (default): the family's fast path for the quantity when it offers one and it
  applies (it returns ``None`` when it does not: another parameter swept, an option it has no
  closed form for), else the generic path;
- ``"generic"``: the generic path only (tests and benchmarks compare the two);
- ``"specialised"``: the fast path only; refused when the model offers none or it declines.

Both paths return the same record type.

>>> from symdelay.models import build_model
>>> m = build_model("nserver", N=3, L=1, mu=1, lam=1, D=1)
>>> specialisation(m, "critical", "auto") is None
True
>>> specialisation(m, "critical", "fast")
Traceback (most recent call last):
...
symdelay.core.errors.SymdelayInputError: method must be one of auto, generic, specialised, got 'fast'
"""

from __future__ import annotations

from symdelay.core.errors import SymdelayInputError

__all__ = ["METHODS", "specialisation", "declined", "require_table", "closed_form"]

METHODS = ("auto", "generic", "specialised")


def specialisation(model, quantity: str, method: str = "auto"):
    """The fast path to try for ``quantity`` (a function of the model and the entry's
    keywords, returning the result or ``None`` to decline), or ``None`` for the generic path."""
    if method not in METHODS:
        raise SymdelayInputError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if method == "generic":
        return None
    special = getattr(model, "special", None)
    fn = special(quantity) if special is not None else None
    if fn is None and method == "specialised":
        raise SymdelayInputError(
            f"{getattr(model, 'name', model)} offers no specialised {quantity}: use method='auto'"
        )
    return fn


def declined(model, quantity: str, method: str) -> None:
    """Called when the fast path returned ``None``: refuse under ``method="specialised"``."""
    if method == "specialised":
        raise SymdelayInputError(
            f"the specialised {quantity} of {model.name} does not apply here: use method='auto'"
        )


def require_table(model, quantity: str) -> None:
    """The generic path needs a transition table (a :class:`~symdelay.model.Model`)."""
    from symdelay.model.core import Model

    if not isinstance(model, Model):
        raise SymdelayInputError(
            f"{getattr(model, 'name', model)} is not a transition table: the generic {quantity} "
            "needs one (this model answers only through its own closed forms)"
        )


def closed_form(model, quantity: str):
    """What the model's family states in closed form about ``quantity`` (its
    ``SPECIALISATIONS["<quantity>_closed_form"]``, a function of the model), cached on the
    model; None where it states nothing. Every path attaches the same one."""
    special = getattr(model, "special", None)
    fn = special(f"{quantity}_closed_form") if special is not None else None
    if fn is None:
        return None
    return model.cached(f"{quantity} closed form", lambda: fn(model))


def family_options(model) -> dict | None:
    """The checked options a family's model object carries (the founding and in-flight
    models: ``L``, ``mu``, ...; None for a plain transition table)."""
    options = getattr(model, "options", None)
    return options if isinstance(options, dict) else None
