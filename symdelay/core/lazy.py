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
    ``public[n]`` (imported, and kept in ``namespace``, when first asked for).

    A public name that is also a submodule's name (``sqd.fixed_point`` the function, in
    ``sqd/fixed_point.py``) stays the public object: the import system's binding of the
    submodule onto the package is not kept for such names.
    """
    import sys
    import types

    name_of = namespace.get("__name__")
    module = sys.modules.get(name_of)
    if module is not None and any(
        public[n].rsplit(".", 1)[-1] == n for n in public
    ):  # pragma: no branch

        class _Package(types.ModuleType):
            def __setattr__(self, key, value):
                if (
                    key in public
                    and isinstance(value, types.ModuleType)
                    and value.__name__ == public[key]
                ):
                    return  # keep the public object of that name
                super().__setattr__(key, value)

        module.__class__ = _Package

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
