"""Progress bars of long runs (the report, its sections): drawn on a terminal, silent when
the output is piped, redirected to a file or read by a CI log.

A bar redraws its line with carriage returns; a log file would keep every redraw. So a bar
is drawn only when its stream is a terminal and the environment is not a CI runner
(``CI`` set, as GitHub Actions, GitLab CI and most others set it). Otherwise the object
returned still counts (``n``) but writes nothing.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager

__all__ = ["progress_bar", "bar_enabled"]


def bar_enabled(stream) -> bool:
    """Whether a bar may be drawn on ``stream``: a terminal, and not under CI."""
    if stream is None or os.environ.get("CI", "").strip().lower() not in ("", "0", "false"):
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (OSError, ValueError):  # a closed stream
        return False


@contextmanager
def progress_bar(total: int, desc: str, *, stream=sys.stderr, unit: str = "step"):
    """A tqdm bar of ``total`` steps on ``stream`` (``None``: no bar), disabled unless
    :func:`bar_enabled`; yields it (``update``, ``set_description``) and closes it, leaving
    no line behind."""
    from tqdm import tqdm

    bar = tqdm(
        total=total, desc=desc, file=stream, unit=unit, leave=False, dynamic_ncols=True,
        disable=not bar_enabled(stream),
    )  # fmt: skip
    try:
        yield bar
    finally:
        bar.close()
