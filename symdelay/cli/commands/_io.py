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
    "check_output_choice",
    "check_output_file",
    "write_csv",
    "command_line",
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


def check_output_choice(args) -> None:
    """``--csv -`` and ``--json`` cannot both have standard output."""
    if args.json and args.csv == "-":
        raise SymdelayInputError(
            "--json and --csv - both write to standard output: choose one, "
            "or give --csv a file name"
        )


def check_output_file(path: str) -> None:
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


def write_csv(path: str, comments: list[str], header: list[str], rows, fmt) -> None:
    """``# comment`` lines, a header line and the rows; ``path == "-"`` is standard output."""
    import numpy as np

    rows = np.asarray(rows)
    fmts = [fmt] * (rows.shape[1] if rows.ndim == 2 else 0) if isinstance(fmt, str) else fmt

    def cell(f, v) -> str:
        # "%.17g" prints 0.59999999999999998 for 0.6: the shortest round-trip repr instead
        return repr(float(v)).removesuffix(".0") if f == "%.17g" else f % v

    def put(fh) -> None:
        for line in comments:
            fh.write(f"# {line}\n")
        fh.write(",".join(header) + "\n")
        for row in rows:
            fh.write(",".join(cell(f, v) for f, v in zip(fmts, row)) + "\n")

    if path == "-":
        put(sys.stdout)
        return
    try:
        with open(path, "w", newline="") as fh:
            put(fh)
    except OSError as exc:
        raise SymdelayInputError(
            f"cannot write --csv {path}: {exc.strerror}; choose a writable file"
        ) from None


def command_line(name: str, parameters: dict) -> str:
    """The parameters as JSON on one line, for the comment lines of a CSV file."""
    from symdelay import __version__

    return f"symdelay {__version__} {name}; parameters: " + json.dumps(parameters)
