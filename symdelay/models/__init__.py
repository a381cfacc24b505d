"""Built-in models, one module each; every module with ``INFO`` and ``model(**options)``.

>>> {'dde', 'erlang', 'hetero', 'inflight', 'nserver', 'phase_type'} <= set(builtin_models())
True
"""

from symdelay.models.action_delay import ActionDelayModel

__all__ = ["ActionDelayModel", "builtin_models", "build_model"]


def builtin_models() -> dict:
    """``{name: module}`` of every built-in model module (those defining ``INFO``)."""
    from symdelay import models
    from symdelay._discovery import public_modules

    return {m.INFO["name"]: m for m in public_modules(models) if hasattr(m, "INFO")}


def build_model(name: str, **options):
    """The built-in model ``name`` built with ``options`` (see each module's ``model``)."""
    from symdelay.errors import SymdelayInputError

    found = builtin_models()
    if name not in found:
        raise SymdelayInputError(f"unknown model '{name}': use one of " + ", ".join(sorted(found)))
    return found[name].model(**options)
