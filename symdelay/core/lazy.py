"""Loading on first use: public names of a package (PEP 562), so that importing a package
(for its declared options, say) does not import its mathematics, and whole modules
(:func:`module`), so that a numeric path that never touches SymPy never pays for importing
it.

>>> import types
>>> m = types.ModuleType("demo")
>>> m.__getattr__, m.__dir__ = exports(m.__dict__, {"sqrt": "math"})
>>> m.sqrt(4.0)
2.0
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
import types

__all__ = ["exports", "loaded", "module"]


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


class _LazyModule(types.ModuleType):
    """Stands for a module not yet imported; the first attribute access imports it (under a
    lock: a second thread waits for the finished module) and copies its namespace in, then
    becomes a plain module (attribute access as fast as the module's own; what the module
    gains later, a subpackage imported afterwards, is found through a PEP 562
    ``__getattr__``). ``sys.modules`` is not touched before the import, so ``import
    sympy.polys`` elsewhere runs the normal import; a failed import (Ctrl-C during it)
    leaves the stand-in as it was, to be tried again."""

    def __getattribute__(self, attr):
        get = object.__getattribute__
        namespace = get(self, "__dict__")
        with namespace["_symdelay_lock"]:
            if get(self, "__class__") is _LazyModule:
                real = importlib.import_module(namespace["_symdelay_name"])
                namespace.update(real.__dict__)
                if "__getattr__" not in real.__dict__:

                    def late(name, real=real):
                        return getattr(real, name)

                    namespace["__getattr__"] = late
                self.__class__ = types.ModuleType
        return getattr(self, attr)


_lock = threading.Lock()
_stand_ins: dict[str, types.ModuleType] = {}


def loaded(name: str) -> bool:
    """Whether module ``name`` has been imported: ``isinstance(x, sympy.Basic)`` can only
    be true if ``loaded("sympy")``.

    >>> loaded("json")
    True
    """
    return name in sys.modules


def module(name: str) -> types.ModuleType:
    """The module ``name``, imported at its first attribute access (``sp =
    module("sympy")`` instead of ``import sympy as sp``); a module already imported is
    returned as it is.

    >>> module("json").dumps([1])
    '[1]'
    """
    found = sys.modules.get(name)
    if found is not None:
        return found
    with _lock:
        lazy = _stand_ins.get(name)
        if lazy is None:
            if importlib.util.find_spec(name) is None:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            lazy = types.ModuleType(name)
            lazy.__dict__.update(_symdelay_name=name, _symdelay_lock=threading.RLock())
            lazy.__class__ = _LazyModule
            _stand_ins[name] = lazy
        return lazy


#: SymPy, loaded at its first use: ``from symdelay.core.lazy import sympy as sp`` in every
#: module of the package, so a command whose path needs no symbolic algebra never imports it
sympy = module("sympy")
