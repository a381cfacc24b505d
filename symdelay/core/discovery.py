"""Finding the plug-in modules of a package (commands, models, documents, report sections)."""

from __future__ import annotations

import importlib
import pkgutil

__all__ = ["public_module_names", "public_modules"]


def public_module_names(package) -> tuple[str, ...]:
    """Sorted names of the modules of ``package`` that do not start with ``_``."""
    return tuple(
        sorted(m.name for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_"))
    )


def public_modules(package) -> list:
    """The imported public modules of ``package``, sorted by name."""
    return [
        importlib.import_module(f"{package.__name__}.{n}") for n in public_module_names(package)
    ]
