"""Helpers shared by the sub-commands: argument types and output."""

from __future__ import annotations

import json
import sys

__all__ = ["emit_json", "emit", "json_default", "add_common"]


def json_default(obj):
    """What :func:`json.dump` cannot write itself: NumPy scalars and arrays as Python numbers
    (a float32 by its own shortest repr, ``0.1`` not ``0.10000000149011612``), exact SymPy
    and mpmath numbers as their text (never through a float, which would underflow)."""
    import numpy as np

    if isinstance(obj, np.integer | np.bool_):
        return obj.item()
    if isinstance(obj, np.floating):
        return float(str(obj)) if obj.dtype != np.float64 else float(obj)
    if isinstance(obj, np.ndarray):
        return (
            obj.tolist() if obj.dtype in (np.float64, np.int64) else [json_default(v) for v in obj]
        )
    import mpmath
    import sympy as sp

    if isinstance(obj, sp.Basic | mpmath.mpf):
        return str(obj)
    raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable")


def emit_json(obj) -> None:
    """Print one JSON object on stdout (floats as their shortest round-trip repr)."""
    json.dump(obj, sys.stdout, indent=None, separators=(", ", ": "), default=json_default)
    sys.stdout.write("\n")


def emit(text: str) -> None:
    """Print human-readable output."""
    sys.stdout.write(text.rstrip("\n") + "\n")


def add_common(p, run, *, dps=None, force=False, json=True, model=True) -> None:
    """The options most commands share, then ``run`` as the command's function: ``--dps``
    with default ``dps`` (when given), ``--force`` (``run`` then under
    :func:`~symdelay.core.budget.honour_force`), ``--json``, and the model's options
    (``model``: True, or the keywords of :func:`symdelay.cli.door.add_model`)."""
    from symdelay.cli import door
    from symdelay.core.budget import honour_force

    if dps is not None:
        p.add_argument(
            "--dps",
            default=dps,
            kind="integer",
            help=f"significant digits (5..10000, default {dps})",
        )
    if force:
        p.add_argument(
            "--force", action="store_true", help="run even when the estimated cost is over budget"
        )
        run = honour_force(run)
    if json:
        p.add_argument("--json", action="store_true", help="print one JSON object")
    if model:
        door.add_model(p, **(model if isinstance(model, dict) else {}))
    p.set_defaults(func=run)
