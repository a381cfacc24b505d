"""Helpers shared by the sub-commands: argument types and output."""

from __future__ import annotations

import contextlib
import json
import sys

from symdelay.core.errors import SymdelayInputError

__all__ = [
    "emit_json",
    "emit",
    "json_default",
    "add_common",
    "add_plot",
    "check_plot",
    "write_plot",
    "image_path",
    "save_figure",
]


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


# ------------------------------------------------------------------------ --plot FILE
#: the formats ``--plot`` writes, read from the file's suffix
PLOT_FORMATS = ("png", "pdf", "svg")


def add_plot(p) -> None:
    """``--plot FILE``: the figure registered for the command's result
    (:func:`symdelay.core.display.draw`), written as PNG, PDF or SVG by the suffix."""
    p.add_argument(
        "--plot",
        default=None,
        metavar="FILE",
        kind="image",
        help="also draw the result's figure into FILE (.png, .pdf or .svg, by the suffix)",
    )


def image_path(flag: str, out: str, formats=None):
    """``(path, format)`` of an image to write, or one line saying why not: the suffix must
    be one of ``formats`` (default: every format matplotlib writes; matplotlib would
    otherwise append ``.png`` to the name), an existing file a regular file, and the folder
    must exist."""
    from pathlib import Path

    if not str(out).strip():
        raise SymdelayInputError(f"{flag} needs a file name")
    path = Path(out)
    fmt = path.suffix[1:].lower()
    if formats is None:
        from matplotlib.backend_bases import FigureCanvasBase

        formats = sorted(FigureCanvasBase.get_supported_filetypes())
    if fmt not in formats:
        raise SymdelayInputError(
            f"{flag} {out}: give an image file name ending in "
            + ", ".join(f".{f}" for f in formats[:-1])
            + f" or .{formats[-1]}"
            + " (the suffix is the format; the name is written exactly as given)"
        )
    if path.exists() and not path.is_file():
        raise SymdelayInputError(f"{flag} {out} exists and is not a regular file: give a file name")
    parent = path.parent
    if not parent.is_dir():
        raise SymdelayInputError(f"{flag} {out}: folder {parent} does not exist")
    return path, fmt


def check_plot(args) -> None:
    """Before the work: a ``--plot`` file that cannot be written is refused in one line."""
    out = getattr(args, "plot", None)
    if out is not None:
        image_path("--plot", out, PLOT_FORMATS)


def save_figure(fig, path, fmt: str, flag: str = "--out", dpi: int = 120) -> None:
    """Write the figure to exactly ``path``: to a new file beside it, then renamed over it
    (a folder where no file can be made, such as /proc, is refused in one line)."""
    import os
    import uuid

    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    try:  # the mode a new file gets (0666 less the umask)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as exc:
        raise SymdelayInputError(
            f"cannot write {flag} {path}: {exc.strerror} in folder {path.parent}; "
            "choose a writable file"
        ) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fig.savefig(fh, format=fmt, dpi=dpi, bbox_inches="tight")
        os.replace(tmp, path)
    except (OSError, ValueError) as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        reason = getattr(exc, "strerror", None) or str(exc)
        raise SymdelayInputError(f"cannot write {flag} {path}: {reason}") from None


def figure_of(drawn):
    """The matplotlib figure a plotter returned (a Figure, or Axes on one)."""
    from matplotlib.figure import Figure

    if isinstance(drawn, Figure):
        return drawn
    if isinstance(drawn, (list, tuple)) and drawn:
        drawn = drawn[0]
    fig = getattr(drawn, "figure", None)
    if fig is None:  # pragma: no cover - a plotter returns a Figure or Axes
        raise TypeError(f"a plotter returned {type(drawn).__name__}, not a figure")
    return fig


def write_plot(args, result) -> None:
    """``--plot FILE``: draw ``result``'s registered figure (matplotlib with the Agg backend,
    imported here, so that a run without --plot never loads it) and write it by the suffix."""
    out = getattr(args, "plot", None)
    if out is None:
        return
    path, fmt = image_path("--plot", out, PLOT_FORMATS)
    import matplotlib

    if "matplotlib.pyplot" not in sys.modules:  # a process of its own: no display needed
        matplotlib.use("Agg")
    fig = figure_of(result.plot())
    try:
        save_figure(fig, path, fmt, "--plot", dpi=150)
    finally:
        if "matplotlib.pyplot" in sys.modules:
            import matplotlib.pyplot as plt

            plt.close(fig)
