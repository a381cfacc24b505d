"""Built-in models, one family each: a module defining ``INFO`` and ``model(**options)``, or a
package whose ``family`` module does (``erlang/``, ``inflight/``, ``sqd/``, ``lb/``: the family
and its specialisations).

>>> {'dde', 'erlang', 'hetero', 'inflight', 'nserver', 'phase_type'} <= set(builtin_models())
True
"""

import functools
import importlib
import pkgutil

from symdelay.core.errors import SymdelayInputError

__all__ = [
    "ActionDelayModel",
    "builtin_models",
    "build_model",
    "model_options",
    "Rebuild",
    "rebuildable",
]


def builtin_models() -> dict:
    """Every built-in model family, by name.

    Returns
    -------
    dict
        ``{name: module}`` of the modules under ``symdelay/models/`` that define ``INFO``
        (a package's ``family`` module), sorted by name: each has ``INFO``, ``OPTIONS`` and
        ``model(**options)`` (see :func:`build_model`).

    Examples
    --------
    >>> {"dde", "erlang", "inflight", "nserver", "phase_type"} <= set(builtin_models())
    True
    """
    return dict(_families())


@functools.cache
def _families() -> dict:
    """The package's family modules, found once per process (a directory scan and an
    import each: a few milliseconds that every ``build_model`` paid)."""
    found = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        name = f"{__name__}.{info.name}"
        if info.ispkg:
            name += ".family"
        module = importlib.import_module(name)
        if hasattr(module, "INFO"):
            found[module.INFO["name"]] = module
    return dict(sorted(found.items()))


def model_options(name: str) -> tuple[str, ...]:
    """The options ``build_model(name, ...)`` takes (the keywords of the module's ``model``)."""
    import inspect

    found = builtin_models()
    if not isinstance(name, str) or name not in found:
        _unknown_model(name, found)
    sig = inspect.signature(found[name].model)
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return tuple(p.name for p in sig.parameters.values() if p.kind in kinds)


def _unknown_model(name, found):

    raise SymdelayInputError(f"unknown model {name!r}: use one of " + ", ".join(sorted(found)))


def build_model(name: str, **options):
    """The built-in model family ``name`` built with ``options``.

    Parameters
    ----------
    name : str
        The family: one of :func:`builtin_models` (``"erlang"``, the founding model;
        ``"phase_type"``, ``"nserver"``, ``"hetero"``, ``"inflight"``, ``"dde"``, ``"sqd"``,
        ``"lb"``); ``symdelay models`` lists them with their options.
    **options
        The family's options (its module's ``OPTIONS``; the founding model's ``L, mu, lam,
        theta, D``): numbers or their decimal text, made exact and checked at the door; an
        option left out stays a symbol where the family allows it. An option the family does
        not have is refused, with the list of those it has.

    Returns
    -------
    Model
        The family's model object (a :class:`~symdelay.model.Model`, or the family's subclass
        with its specialisations), which can be built again with some options changed
        (``model.rebuild(D=2)``).

    Examples
    --------
    >>> build_model("erlang", L=2, mu=1, lam=1, theta=2, D=1)
    FoundingModel(L=2, mu=1, lam=1, theta=2, D=1)
    >>> build_model("erlang", frob=1)
    Traceback (most recent call last):
    ...
    symdelay.core.errors.SymdelayInputError: model 'erlang' has no option 'frob': its options are L, mu, lam, theta, D
    """

    found = builtin_models()
    if not isinstance(name, str) or name not in found:
        _unknown_model(name, found)
    accepted = model_options(name)
    declared = [o.name for o in getattr(found[name], "OPTIONS", ())]
    accepted = tuple(dict.fromkeys([*declared, *[a for a in accepted if a != "shape"]]))
    unknown = [k for k in options if k not in accepted]
    if unknown:
        raise SymdelayInputError(
            f"model '{name}' has no option '{unknown[0]}': its options are " + ", ".join(accepted)
        )
    try:
        return rebuildable(found[name].model(**options), name, options)
    except TypeError as exc:  # a value of the wrong kind that no check caught
        raise SymdelayInputError(
            f"model '{name}': an option has a value of the wrong type ({exc}); its options are "
            + ", ".join(accepted)
        ) from None


def __getattr__(name):
    # the founding model's symbolic-L class, loaded when first asked for
    if name == "ActionDelayModel":
        from symdelay.models.erlang.action_delay import ActionDelayModel

        return ActionDelayModel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Rebuild:
    """How a model built by family ``name`` from ``options`` is built again with some of them
    changed: ``model.rebuild(D=2)``. An analysis that sweeps an option the model keeps
    inside its rates (``critical`` over the mean delay of a phase-type delay) calls it."""

    def __init__(self, name: str, options: dict):
        self.name, self.options = name, dict(options)

    def __call__(self, **changes):
        return build_model(self.name, **{**self.options, **changes})

    def substitution(self, over: str):
        """``value -> {symbol: value}`` when the family states that varying ``over`` is that
        substitution into the model built without it (its module's ``sweep_substitution``),
        else None."""
        hook = getattr(builtin_models().get(self.name), "sweep_substitution", None)
        return None if hook is None else hook(self.options, over)

    def __repr__(self) -> str:
        return f"Rebuild({self.name!r}, {self.options!r})"


def rebuildable(model, name: str, options: dict):
    """``model`` with :class:`Rebuild` attached as ``model.rebuild`` (when it takes one)."""
    import contextlib

    with contextlib.suppress(AttributeError):  # a model class with fixed attributes
        model.rebuild = Rebuild(name, options)
    return model
