"""Built-in models, one module each; every module with ``INFO`` and ``model(**options)``.

>>> {'dde', 'erlang', 'hetero', 'inflight', 'nserver', 'phase_type'} <= set(builtin_models())
True
"""

from symdelay.models.action_delay import ActionDelayModel

__all__ = ["ActionDelayModel", "builtin_models", "build_model", "model_options"]


def builtin_models() -> dict:
    """``{name: module}`` of every built-in model module (those defining ``INFO``)."""
    from symdelay import models
    from symdelay._discovery import public_modules

    return {m.INFO["name"]: m for m in public_modules(models) if hasattr(m, "INFO")}


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
    from symdelay.errors import SymdelayInputError

    raise SymdelayInputError(f"unknown model {name!r}: use one of " + ", ".join(sorted(found)))


def build_model(name: str, **options):
    """The built-in model ``name`` built with ``options`` (see each module's ``model``).

    An option the model does not have is refused, with the list of those it has:

    >>> build_model("erlang", frob=1)
    Traceback (most recent call last):
    ...
    symdelay.errors.SymdelayInputError: model 'erlang' has no option 'frob': its options are L, mu, lam, theta, D
    """
    from symdelay.errors import SymdelayInputError

    found = builtin_models()
    if not isinstance(name, str) or name not in found:
        _unknown_model(name, found)
    accepted = model_options(name)
    unknown = [k for k in options if k not in accepted]
    if unknown:
        raise SymdelayInputError(
            f"model '{name}' has no option '{unknown[0]}': its options are " + ", ".join(accepted)
        )
    try:
        return found[name].model(**options)
    except TypeError as exc:  # a value of the wrong kind that no check caught
        raise SymdelayInputError(
            f"model '{name}': an option has a value of the wrong type ({exc}); its options are "
            + ", ".join(accepted)
        ) from None
