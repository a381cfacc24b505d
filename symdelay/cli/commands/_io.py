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
    "double",
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
    p.add_argument("--T", default="20", kind="number", help="time horizon (default 20)")
    p.add_argument("--dt", default="0.1", kind="number", help="grid step (default 0.1)")


def parse_initial(text):
    """A comma-separated list, in brackets or not (``1,0,0`` or ``[1,0,0]``), each a number
    by the one rule, as doubles; ``None`` stays ``None``."""
    from symdelay.core.options import read_option

    if text is None:
        return None
    body = text.strip()
    if body.startswith("[") and body.endswith("]"):
        body = body[1:-1]
    read_option("numbers", "--initial", body)
    return [double("--initial", v) for v in body.split(",")]


def double(flag: str, text) -> float:
    """An option's number (read by the one rule) as a double, for a computation done in
    doubles; a value beyond the double range (or a non-zero one below it) is refused in one
    line naming ``flag``."""
    from symdelay.core.exact import read_number

    x = read_number(flag, text, inf=False)
    try:
        out = float(x)
    except OverflowError:
        out = float("inf")
    if out in (float("inf"), float("-inf")) or (x != 0 and abs(out) < 2.2250738585072014e-308):
        raise SymdelayInputError(
            f"{flag} = {str(text).strip()} is outside the range of double precision "
            "(about 1e-308 to 1e308), in which this computation runs: give a value inside it"
        )
    return out


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
