"""Results of a sweep in Parquet: one row per task, written as tasks finish.

While a sweep runs, finished rows go to part files in ``<out>.parts/`` (one small Parquet
file per flush, written to a temporary name and renamed, so a killed run leaves only whole
files). When the run ends — normally, by an error, or by Ctrl-C — the parts are merged into
``<out>`` (written beside it, then renamed over it) and removed. Reading takes the file and
any parts a killed run left, and keeps the first row of each task, so a run killed at any
moment loses at most the rows of its last unflushed second and never duplicates a task.

Columns: ``task``, ``replication``, the grid parameters, ``seed`` (None for analyses without
one), ``status`` (``"ok"`` or ``"failed"``), ``error`` (one line, None when ok), the
analysis' outputs, ``seconds`` (wall time of the task), ``worker``, ``run`` (1 for the first
run, 2 for the first ``--resume``, ...), ``symdelay_version`` and ``spec_hash``. The spec
itself, its hash and the number of tasks are in the file's metadata (:func:`read_meta`).
"""

from __future__ import annotations

import contextlib
import json
import os
import uuid
from pathlib import Path

from symdelay.core.errors import SymdelayInputError

__all__ = [
    "Store",
    "read_results",
    "read_meta",
    "status",
    "first_failure",
    "ordered",
    "META_KEY",
    "BOOKKEEPING",
]

META_KEY = b"symdelay.sweep"

#: Columns that describe how a task ran, not what it computed (they differ between runs).
BOOKKEEPING = ("seconds", "worker", "run")


def _pa():
    import pyarrow as pa
    import pyarrow.parquet as pq

    return pa, pq


class Store:
    """The results file ``path`` and its part directory."""

    def __init__(self, path):
        self.path = Path(path)
        self.parts = self.path.with_name(self.path.name + ".parts")

    # ----------------------------------------------------------------- state
    def part_files(self) -> list[Path]:
        if not self.parts.is_dir():
            return []
        return sorted(p for p in self.parts.glob("*.parquet"))

    def exists(self) -> bool:
        return self.path.exists() or bool(self.part_files())

    def check_writable(self) -> None:
        if self.path.is_dir():
            raise SymdelayInputError(f"--out {self.path} is a directory: give a file name")
        parent = self.path.parent if str(self.path.parent) else Path(".")
        if not parent.is_dir():
            raise SymdelayInputError(f"--out {self.path}: folder {parent} does not exist")
        if not os.access(parent, os.W_OK):
            raise SymdelayInputError(f"--out {self.path}: folder {parent} is not writable")

    # ------------------------------------------------------------------ read
    def _files(self) -> list[Path]:
        return ([self.path] if self.path.exists() else []) + self.part_files()

    def meta(self) -> dict:
        """The metadata of the sweep (spec, spec_hash, total, axes)."""
        _, pq = _pa()
        for f in self._files():
            try:
                md = pq.read_schema(f).metadata or {}
            except (OSError, ValueError) as exc:  # pyarrow: ArrowInvalid is a ValueError
                raise SymdelayInputError(
                    f"{f} is not a sweep results file ({exc}); give the --out of a sweep"
                ) from None
            if META_KEY in md:
                return json.loads(md[META_KEY])
            raise SymdelayInputError(f"{f} was not written by symdelay sweep")
        raise SymdelayInputError(f"no sweep results at {self.path}: run 'symdelay sweep run'")

    def read(self, meta: dict | None = None):
        """Every row, first row per task kept, sorted by task (a pyarrow Table), its columns
        in a fixed order (:func:`ordered`) whatever order the tasks finished in."""
        pa, pq = _pa()
        tables = []
        for f in self._files():
            try:
                tables.append(pq.read_table(f))
            except (OSError, ValueError) as exc:  # pyarrow: ArrowInvalid is a ValueError
                raise SymdelayInputError(f"cannot read {f}: {exc}") from None
        if not tables:
            raise SymdelayInputError(f"no sweep results at {self.path}: run 'symdelay sweep run'")
        table = pa.concat_tables(
            [t.replace_schema_metadata(None) for t in tables], promote_options="permissive"
        )
        return ordered(_first_per_task(table), meta if meta is not None else self.meta())

    # ----------------------------------------------------------------- write
    def append(self, rows: list[dict], meta: dict) -> None:
        """Write ``rows`` as one part file (atomically: temporary name, then rename)."""
        if not rows:
            return
        _, pq = _pa()
        self.parts.mkdir(exist_ok=True)
        table = _table(rows, meta)
        name = f"{min(r['task'] for r in rows):012d}-{uuid.uuid4().hex[:8]}.parquet"
        tmp = self.parts / (name + ".tmp")
        pq.write_table(table, tmp)
        os.replace(tmp, self.parts / name)

    def consolidate(self, meta: dict) -> None:
        """Merge the file and the parts into the file; remove the parts."""
        parts = self.part_files()
        if not parts:
            if self.parts.is_dir():
                _remove_tree(self.parts)
            return
        _, pq = _pa()
        table = self.read(meta).replace_schema_metadata({META_KEY: json.dumps(meta)})
        tmp = self.path.with_name(self.path.name + ".tmp")
        pq.write_table(table, tmp)
        os.replace(tmp, self.path)
        for p in parts:
            p.unlink(missing_ok=True)
        _remove_tree(self.parts)


def _remove_tree(folder: Path) -> None:
    for p in folder.glob("*"):
        p.unlink(missing_ok=True)
    with contextlib.suppress(OSError):  # someone else wrote into it
        folder.rmdir()


def cell(v):
    """A value as a Parquet cell: a number, text, a boolean or None as it is, anything else
    as its JSON (text)."""
    if v is None or isinstance(v, bool | int | float | str):
        return v
    return json.dumps(v, default=str)


def _table(rows: list[dict], meta: dict):
    pa, _ = _pa()
    order = meta.get("columns") or []
    names = list(dict.fromkeys([*order, *(k for r in rows for k in r)]))
    cols = {n: [cell(r.get(n)) for r in rows] for n in names}
    arrays = {}
    for n, values in cols.items():
        try:
            arrays[n] = pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError):  # mixed types: keep them as text
            arrays[n] = pa.array([None if v is None else str(v) for v in values])
    table = pa.table(arrays)
    return table.replace_schema_metadata({META_KEY: json.dumps(meta)})


_TAIL = ("seconds", "worker", "run", "symdelay_version", "spec_hash")


def ordered(table, meta: dict):
    """Columns in a fixed order: task, replication, parameters, seed, status, error (the
    metadata's ``columns``), the outputs in the order the analysis returns them (``outputs``),
    any others by name, then the bookkeeping."""
    names = table.column_names
    head = [c for c in [*meta.get("columns", []), *meta.get("outputs", [])] if c in names]
    tail = [c for c in _TAIL if c in names]
    rest = sorted(c for c in names if c not in head and c not in tail)
    return table.select([*head, *rest, *tail])


def _first_per_task(table):
    import pyarrow.compute as pc

    tasks = table.column("task").to_numpy(zero_copy_only=False)
    import numpy as np

    _, first = np.unique(tasks, return_index=True)
    table = table.take(first)
    return table.take(pc.sort_indices(table, sort_keys=[("task", "ascending")]))


def read_results(path):
    """The results table of a sweep as a pandas DataFrame (``df.attrs["sweep"]`` holds the
    metadata: spec, spec_hash, total, axes)."""
    store = Store(path)
    meta = store.meta()
    df = store.read().to_pandas()
    df.attrs["sweep"] = meta
    return df


def read_meta(path) -> dict:
    """The metadata of a results file: ``spec``, ``spec_hash``, ``total``, ``axes``."""
    return Store(path).meta()


def status(path) -> dict:
    """``{"total", "done", "failed", "spec_hash"}``: ``done`` counts every task that has a
    row (failed ones included), so ``total - done`` tasks are missing."""
    store = Store(path)
    meta = store.meta()
    table = store.read()
    st = table.column("status").to_pylist()
    return {
        "total": int(meta["total"]),
        "done": len(st),
        "failed": sum(1 for s in st if s == "failed"),
        "spec_hash": meta["spec_hash"],
    }


def first_failure(path) -> dict | None:
    """``{"task", "error"}`` of the failed task of lowest index in a results file, or None."""
    table = Store(path).read()
    failed = [i for i, s in enumerate(table.column("status").to_pylist()) if s == "failed"]
    if not failed:
        return None
    tasks = table.column("task").to_pylist()
    i = min(failed, key=lambda j: tasks[j])
    return {"task": int(tasks[i]), "error": str(table.column("error")[i].as_py())}
