"""Argument and output helpers shared by simulate, fluid and variance (founding and generic
paths alike): the time grid, the initial state, CSV files with their parameters."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from symdelay.core.errors import SymdelayInputError

__all__ = [
    "add_horizon_arguments",
    "RATE_DEFAULTS",
    "parse_initial",
    "check_outputs",
    "emit_series",
]


#: the founding model's values for the runs of simulate, fluid and variance
RATE_DEFAULTS = {"L": "2", "mu": "1", "lam": "1", "theta": "2", "D": "1"}


def add_horizon_arguments(p) -> None:
    """``--T --dt``: the time grid of simulate and fluid."""
    p.add_argument("--T", default="20", help="time horizon (default 20)")
    p.add_argument("--dt", default="0.1", help="grid step (default 0.1)")


def parse_initial(text):
    """A comma-separated list or a JSON list; ``None`` stays ``None``."""
    if text is None:
        return None
    try:
        value = json.loads(text) if text.strip().startswith("[") else text.split(",")
        return [float(v) for v in value]
    except (ValueError, TypeError):
        raise SymdelayInputError(
            f"--initial must be comma-separated numbers, got '{text}'"
        ) from None


def check_outputs(args) -> None:
    """Before the work: ``--csv -`` and ``--json`` cannot both have standard output, and a
    ``--csv`` file must be writable."""
    if args.json and args.csv == "-":
        raise SymdelayInputError(
            "--json and --csv - both write to standard output: choose one, "
            "or give --csv a file name"
        )
    if args.csv is not None:
        _check_output_file(args.csv)


def _check_output_file(path: str) -> None:
    """Make sure ``path`` can be written before a long computation (``-`` is stdout)."""
    if path == "-":
        return
    if not str(path).strip():
        raise SymdelayInputError("--csv needs a file name ('-' for standard output)")
    target = Path(path)
    if target.is_dir():
        raise SymdelayInputError(f"--csv {path} is a directory: give a file name")
    existed = target.exists()
    try:
        with open(target, "a"):
            pass
    except OSError as exc:
        raise SymdelayInputError(
            f"cannot write --csv {path}: {exc.strerror}; choose a writable file"
        ) from None
    if not existed:
        os.unlink(target)


def emit_series(args, res, command: str) -> bool:
    """``--csv FILE`` (``-``: standard output) and ``--json`` of a time series: its table
    (:meth:`~symdelay.analysis.timeseries.TimeSeries.to_csv`, the parameters on a ``#``
    line) and its record; True when one of them was written."""
    from symdelay.cli.commands._common import emit_json

    if args.csv is not None:
        res.to_csv(sys.stdout if args.csv == "-" else args.csv, command=command)
    if args.json:
        emit_json(res.to_json())
    return args.json or args.csv is not None
