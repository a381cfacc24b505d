"""Argument and output helpers shared by simulate, fluid and variance (founding and generic
paths alike): the time grid, the initial state, CSV files with their parameters."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from symdelay.core.errors import SymdelayInputError

__all__ = [
    "add_horizon_arguments",
    "double",
    "RATE_DEFAULTS",
    "parse_initial",
    "check_outputs",
    "emit_series",
    "add_weights",
    "weights_of",
]


#: the founding model's values for the runs of simulate, fluid and variance
RATE_DEFAULTS = {"L": "2", "mu": "1", "lam": "1", "theta": "2", "D": "1"}


def add_horizon_arguments(p, what: str, initial: str) -> None:
    """``--T --dt``: the time grid of simulate and fluid; ``--initial`` (its help
    ``initial``), ``--json``, ``--csv`` (printing and writing ``what``) and ``--force``."""
    p.add_argument("--T", default="20", kind="number", help="time horizon (default 20)")
    p.add_argument("--dt", default="0.1", kind="number", help="grid step (default 0.1)")
    p.add_argument("--initial", default=None, help=initial)
    p.add_argument("--json", action="store_true", help=f"print the {what} as JSON")
    p.add_argument(
        "--csv", metavar="FILE", help=f"write the {what} as a CSV table ('-': standard output)"
    )
    p.add_argument(
        "--force", action="store_true", help="run even when the estimated cost is over budget"
    )


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


def add_weights(p, what: str) -> None:
    """``--weights W1,W2,...``: the combination ``w . X`` of the states whose ``what`` is
    computed (the entry's ``weights=``)."""
    p.add_argument(
        "--weights",
        default=None,
        kind="numbers",
        metavar="W1,W2,...",
        help=f"the {what} of the combination w . X of the states, one number per state in "
        "the model's order (default: the first imbalance of its symmetry, q1 - q2; needed "
        "for a model that declares no symmetry)",
    )


def weights_of(args, model):
    """``--weights`` as exact rationals, one per state of ``model`` (None when not given)."""
    if args.weights is None:
        return None
    from symdelay.core.exact import exact_number

    items = str(args.weights).split(",")
    n = len(model.states)
    if len(items) != n:
        raise SymdelayInputError(
            f"--weights needs one number per state of {model.name} ({n}: "
            f"{', '.join(map(str, model.states))}), got {len(items)}"
        )
    return [exact_number("--weights", t) for t in items]
