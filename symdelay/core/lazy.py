"""Public names of a package that load on first use (PEP 562), so that importing a package
(for its declared options, say) does not import its mathematics.

>>> import types
>>> m = types.ModuleType("demo")
>>> m.__getattr__, m.__dir__ = exports(m.__dict__, {"sqrt": "math"})
>>> m.sqrt(4.0)
2.0
"""

from __future__ import annotations

import importlib

__all__ = ["exports"]


def exports(namespace: dict, public: dict[str, str]):
    """``__getattr__`` and ``__dir__`` for a module whose name ``n`` lives in module
    ``public[n]`` (imported, and kept in ``namespace``, when first asked for)."""

    def __getattr__(name):
        try:
            module = public[name]
        except KeyError:
            raise AttributeError(
                f"module {namespace.get('__name__')!r} has no attribute {name!r}"
            ) from None
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__():
        return sorted(set(namespace) | set(public))

    return __getattr__, __dir__
