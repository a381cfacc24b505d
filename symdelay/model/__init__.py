"""The generic model layer: a model is its transition table; everything else is derived.

Its public names load on first use, so a fast path that needs only the ``Model`` class does
not import the mode decomposition or the TOML loader.
"""

from symdelay.core.lazy import exports

#: public name -> the module that defines it (imported when first asked for)
_PUBLIC = {
    "DOMAINS": "symdelay.model.core",
    "Equilibrium": "symdelay.model.core",
    "Factor": "symdelay.model.core",
    "Model": "symdelay.model.core",
    "Transition": "symdelay.model.core",
    "NoTable": "symdelay.model.core",
    "TableOnDemand": "symdelay.model.core",
    "Mode": "symdelay.model.modes",
    "load_toml": "symdelay.model.core",
    "model_from_dict": "symdelay.model.core",
    "schema_path": "symdelay.model.toml_loader",
}

__all__ = sorted(_PUBLIC)

__getattr__, __dir__ = exports(globals(), _PUBLIC)
