"""The two caches of a generated kernel, both in the directory of
:mod:`symdelay.core.cbuild`: the generation result (sources, index tables, coefficient code)
as ``gen-KEY.json``, KEY a content hash of the table (states, jumps, a hash-seed independent
text of the rates, parameter names) and of the generator (every file of this package, the
template included, and SymPy's version); the shared library as ``generated-HASH.so``, HASH
that of the C source (:func:`symdelay.core.cbuild.load_library`), so an edited template or
writer rebuilds it. A second build of the same table (other parameter values included) costs
no SymPy and no gcc."""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import threading
from pathlib import Path

import numpy as np

from symdelay.analysis.kernel.cwriter import FUNC
from symdelay.analysis.kernel.table import _canonical_text
from symdelay.core.cbuild import cache_dir, load_library
from symdelay.core.lazy import sympy as sp
from symdelay.core.rng import C_SOURCE as RNG_C_SOURCE

__all__: list = []


def _package_digest(folder: Path | None = None) -> str:
    """A hash of every source file of this package (the generator: Python and template), or
    of those in ``folder``."""
    h = hashlib.sha256()
    here = Path(__file__).parent if folder is None else folder
    for path in sorted([*here.glob("*.py"), *here.glob("*.c")]):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


#: The generator's own source: part of every cache key (an edited generator regenerates).
GENERATOR_DIGEST = _package_digest()


def cache_key(states, jumps, rates, parameters, extra: str = "") -> str:
    """Content hash of the table (states, jumps, rates, parameter names; ``extra``: the
    structure of its lags, when it has any) and of the generator: the name of the cached
    generation result."""
    h = hashlib.sha256()
    h.update(GENERATOR_DIGEST.encode())
    h.update(RNG_C_SOURCE.encode())  # the generated sources embed the generator
    h.update(sp.__version__.encode())  # and SymPy's printing
    memo: dict = {}
    h.update("|".join(map(sp.srepr, states)).encode())
    h.update(np.ascontiguousarray(jumps).tobytes())
    for r in rates:
        h.update(b"\0" + _canonical_text(r, memo).encode())
    h.update("|".join(sorted(map(sp.srepr, parameters))).encode())
    if extra:
        h.update(b"\0lags\0" + extra.encode())
    return h.hexdigest()[:24]


def cache_path(states, jumps, rates, parameters, extra: str = "") -> Path | None:
    """Where the generation of this table is cached; ``None`` when it is not (two parameters
    of one name, or ``SYMDELAY_NO_GEN_CACHE`` set)."""
    names = [str(p) for p in parameters]
    if len(set(names)) != len(names) or os.environ.get("SYMDELAY_NO_GEN_CACHE"):
        return None
    return cache_dir() / f"gen-{cache_key(states, jumps, rates, parameters, extra)}.json"


def read_generation(path: Path | None) -> dict | None:
    """The stored entry at ``path`` when it is one of this generator, else ``None``."""
    if path is None:
        return None
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if isinstance(data, dict) and data.get("version") == GENERATOR_DIGEST:
        return data
    return None


def write_generation(path: Path | None, data: dict) -> None:
    """Store ``data`` at ``path`` atomically (concurrent first uses are safe); a read-only
    cache is left alone (generated again next time)."""
    if path is None:
        return
    data = {**data, "version": GENERATOR_DIGEST}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps(data))
        os.replace(tmp, path)
    except OSError:
        pass


def _bind(lib):
    fn = getattr(lib, FUNC)
    i64p = np.ctypeslib.ndpointer(np.int64, flags="C_CONTIGUOUS")
    u64p = np.ctypeslib.ndpointer(np.uint64, flags="C_CONTIGUOUS")
    f64p = np.ctypeslib.ndpointer(np.float64, flags="C_CONTIGUOUS")
    fn.argtypes = [f64p, f64p, i64p, ctypes.c_double, i64p, u64p, f64p, f64p, ctypes.c_int64]
    fn.argtypes += [i64p, i64p, ctypes.c_int64, i64p, f64p, f64p, i64p]
    fn.restype = ctypes.c_int64
    return fn


def _bind_lags(lib):
    fn = _bind(lib)
    i64p = np.ctypeslib.ndpointer(np.int64, flags="C_CONTIGUOUS")
    f64p = np.ctypeslib.ndpointer(np.float64, flags="C_CONTIGUOUS")
    fn.argtypes = [*fn.argtypes, f64p, i64p, f64p, f64p, f64p, f64p]  # the sections LAGS
    return fn


def load_shared(source: str, lags: bool = False):
    """The compiled kernel of the C ``source`` (built into the cache at first use, for this
    processor), or ``None`` when no compiler works or ``SYMDELAY_NO_C`` is set; ``lags``:
    a kernel with the arguments of the sections LAGS."""
    bind = _bind_lags if lags else _bind
    return load_library(source, "generated", "the generated kernel", bind, native=True)
