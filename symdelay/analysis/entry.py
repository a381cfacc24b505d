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

from collections.abc import Mapping
from functools import cached_property

from symdelay.core.errors import SymdelayInputError

__all__ = [
    "METHODS",
    "METHOD_DOC",
    "entry_doc",
    "ClosedForms",
    "closed_forms",
    "specialisation",
    "specialised",
    "declined",
    "require_table",
    "shown_parameters",
]

METHODS = ("auto", "generic", "specialised")


#: The ``method`` parameter of every entry, documented once (:func:`entry_doc`).
METHOD_DOC = (
    'Which path answers: ``"auto"`` the model family\'s specialisation for this quantity when\n'
    '        it has one and it applies, else the generic machinery; ``"generic"`` the generic\n'
    '        machinery only; ``"specialised"`` the specialisation only (refused when the family has\n'
    "        none or it declines). Both paths give the same record\n"
    "        (:mod:`symdelay.analysis.entry`)."
)


def entry_doc(fn):
    """Fill the shared parameter text of an entry's docstring (``%(method)s``: see
    :data:`METHOD_DOC`), written once for every entry."""
    if fn.__doc__:
        fn.__doc__ = fn.__doc__.replace("%(method)s", METHOD_DOC)
    return fn


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


def specialised(model, quantity: str, method: str, *args, **keywords):
    """The answer of the family's fast path for ``quantity`` (:func:`specialisation`, called
    with ``model``, ``args`` and ``keywords``), or None for the generic path; a fast path
    that declines is refused under ``method="specialised"`` (:func:`declined`)."""
    fast = specialisation(model, quantity, method)
    result = None if fast is None else fast(model, *args, **keywords)
    if fast is not None and result is None:
        declined(model, quantity, method)
    return result


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


def family_options(model) -> dict | None:
    """The checked options a family's model object carries (the founding and in-flight
    models: ``L``, ``mu``, ...; None for a plain transition table)."""
    options = getattr(model, "options", None)
    return options if isinstance(options, dict) else None


class ClosedForms(Mapping):
    """What a model's family knows of one quantity in closed form: ``{name: SymPy
    expression or None}``, derived when first read (a numeric answer printed as text never
    pays for SymPy)."""

    def __init__(self, compute):
        self._compute = compute

    @cached_property
    def _forms(self) -> dict:
        return dict(self._compute())

    def __getitem__(self, name):
        return self._forms[name]

    def __iter__(self):
        return iter(self._forms)

    def __len__(self) -> int:
        return len(self._forms)

    def __repr__(self) -> str:
        return f"ClosedForms({self._forms!r})"


def closed_forms(model, quantity: str, lazy: bool = False):
    """What the model's family knows in closed form about ``quantity``, the same for every
    path: the family's function named in its model class's ``CLOSED_FORMS`` (``{quantity:
    "module:function"}``, the function taking the model), cached on the model; None where
    the family knows none. Both paths of an entry attach it to their record, so that the
    specialised and the generic record of one model carry the same closed forms.
    ``lazy``: a :class:`ClosedForms` mapping derived when first read (a numeric answer
    printed as text never pays for SymPy)."""
    target = getattr(type(model), "CLOSED_FORMS", {}).get(quantity)
    if target is None:
        return None

    def compute():
        import importlib

        module, _, attr = target.partition(":")
        return getattr(importlib.import_module(module), attr)(model)

    cached = getattr(model, "cached", None)
    if cached is not None:
        compute_once = compute

        def compute():
            return cached(f"closed forms:{quantity}", compute_once)

    return ClosedForms(compute) if lazy else compute()


def shown_parameters(model, skip=()) -> dict:
    """The model's own options as a record shows them (text; ``L`` an int or ``"inf"``),
    without ``skip`` and those not given: a family's model object's checked options (the
    founding model's numbers, without SymPy), the options a family built a transition table
    from, else the values of its parameters."""
    # (vars: a family's model object builds its transition table for an attribute it lacks)
    opts = vars(model).get("numbers")  # checked Fractions (no SymPy needed)
    if isinstance(opts, dict):
        opts = {"L": vars(model).get("phases"), **opts}
    else:
        opts = family_options(model)  # a family's model object: its checked options
        if opts is None:  # a transition table built by a family: the options it was given
            opts = getattr(vars(model).get("rebuild"), "options", None)
        if opts is None:
            opts = {str(k): v for k, v in model.values.items()}
    out = {}
    for k, v in opts.items():
        if v is None or k in skip:
            continue
        out[k] = _L_text(v) if k == "L" else _text(v)
    return out


def _L_text(v):
    from symdelay.core.params import is_infinite_L

    if is_infinite_L(v):
        return "inf"
    text = str(v).strip()
    return int(text) if text.isdigit() else text


def _text(v):
    """An option as text: a number by the one rule of every record
    (:func:`symdelay.core.numbers.option_text`: its exact decimal when short, ``1``, ``0.05``,
    ``1e+300``, else its exact fraction, ``1/3``); an expression as written."""
    from symdelay.core.exact import exact_fraction
    from symdelay.core.numbers import option_text

    if isinstance(v, (list, tuple)):
        return [_text(x) for x in v]
    try:
        f = exact_fraction("an option", v)
    except (SymdelayInputError, TypeError, ValueError):
        f = None
    if f is None:  # an expression, a name
        return v.strip() if isinstance(v, str) else str(v)
    return option_text(f)
