"""The past of a delay model before time 0, as a table: :func:`read_history` reads it (the
fluid path's ``--history`` and the simulation's alike; :mod:`symdelay.analysis.dfluid`
interpolates it, :mod:`symdelay.analysis.kernel.lagrun` rounds it to counts), ``EMPTY``
names "nothing decided before 0" (action delays)."""

from __future__ import annotations

import csv
import os

import numpy as np

from symdelay.core.errors import SymdelayInputError

__all__ = ["read_history", "EMPTY", "MAX_HISTORY_BYTES"]

#: ``history=EMPTY``: nothing decided before time 0 (action delays).
EMPTY = "empty"
#: The largest history file read.
MAX_HISTORY_BYTES = 64 << 20


def read_history(history, names, what: str = "--history") -> tuple:
    """``(t, values)`` of a history table: a CSV file (a path; ``#`` lines are comments) or
    a mapping ``{"t": [...], name: [...]}``; columns exactly ``t`` and the states, ``t``
    strictly increasing and ending at 0, every value finite."""
    if isinstance(history, (str, os.PathLike)):
        path = os.fspath(history)
        try:
            if os.path.getsize(path) > MAX_HISTORY_BYTES:
                raise SymdelayInputError(
                    f"{what}: {path!r} is larger than {MAX_HISTORY_BYTES >> 20} MiB: give a "
                    "coarser table (it is interpolated linearly)"
                )
            with open(path, newline="", encoding="utf-8") as fh:
                rows = [r for r in csv.reader(fh) if r and not r[0].lstrip().startswith("#")]
        except OSError as e:
            raise SymdelayInputError(f"{what}: cannot read {path!r} ({e.strerror})") from None
        except UnicodeDecodeError:
            raise SymdelayInputError(f"{what}: {path!r} is not UTF-8 text (a CSV)") from None
        if not rows:
            raise SymdelayInputError(f"{what}: {path!r} has no header: give columns t, "
                                     + ", ".join(names))  # fmt: skip
        header = [h.strip() for h in rows[0]]
        if len(set(header)) != len(header):
            raise SymdelayInputError(f"{what}: a column is named twice in {header}")
        table = {h: [] for h in header}
        for k, row in enumerate(rows[1:], start=2):
            if len(row) != len(header):
                raise SymdelayInputError(
                    f"{what}: row {k} has {len(row)} values for {len(header)} columns"
                )
            for h, cell in zip(header, row):
                table[h].append(cell.strip())
    elif isinstance(history, dict):
        table = {str(k): list(np.atleast_1d(v)) for k, v in history.items()}
    else:
        raise SymdelayInputError(
            f"{what} must be 'empty', a CSV file or a table {{'t': [...], state: [...]}}, got "
            f"{type(history).__name__}"
        )
    want = ["t", *names]
    if set(table) != set(want):
        missing = [c for c in want if c not in table]
        extra = [c for c in table if c not in want]
        wrong = f"missing {', '.join(missing)}" if missing else f"unknown {', '.join(extra)}"
        raise SymdelayInputError(
            f"{what}: the columns must be t and the states ({', '.join(names)}); {wrong}"
        )
    try:
        cols = [np.array([float(x) for x in table[c]], dtype=float) for c in want]
    except (TypeError, ValueError):
        raise SymdelayInputError(f"{what}: every value must be a number") from None
    t = cols[0]
    if t.size < 2:
        raise SymdelayInputError(f"{what}: give at least two rows (times t <= 0)")
    if not all(np.all(np.isfinite(c)) for c in cols):
        raise SymdelayInputError(f"{what}: every value must be finite")
    if not np.all(np.diff(t) > 0):
        raise SymdelayInputError(f"{what}: the times t must be strictly increasing")
    if t[-1] != 0:
        raise SymdelayInputError(f"{what}: the table must end at t = 0 (its last t is {t[-1]:g})")
    return t, np.column_stack(cols[1:])
