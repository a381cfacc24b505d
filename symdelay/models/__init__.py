"""Built-in models, one family each: a module defining ``INFO`` and ``model(**options)``, or a
package whose ``family`` module does (``erlang/``, ``inflight/``, ``sqd/``, ``lb/``: the family
and its specialisations).

>>> {'dde', 'erlang', 'hetero', 'inflight', 'nserver', 'phase_type'} <= set(builtin_models())
True
"""

import importlib
import pkgutil

from symdelay.core.errors import SymdelayInputError

__all__ = ["ActionDelayModel", "builtin_models", "build_model"]


def builtin_models() -> dict:
    """``{name: module}`` of every built-in model family (the modules defining ``INFO``)."""
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


def build_model(name: str, **options):
    """The built-in model ``name`` built with ``options`` (see each family's ``model``)."""
    found = builtin_models()
    if name not in found:
        raise SymdelayInputError(f"unknown model '{name}': use one of " + ", ".join(sorted(found)))
    return found[name].model(**options)


def __getattr__(name):
    # the founding model's symbolic-L class, loaded when first asked for
    if name == "ActionDelayModel":
        from symdelay.models.erlang.action_delay import ActionDelayModel

        return ActionDelayModel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
