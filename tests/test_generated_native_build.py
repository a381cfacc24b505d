"""The generated kernel's processor-tuned build: its library name covers the flags, the
compiler and the processor (a cache shared by machines never hands one a library built for
another), a compiler that refuses the flag gives the portable build, and either build runs
the Python twin's paths bit for bit."""

from __future__ import annotations

import hashlib

import numpy as np
import sympy as sp

from symdelay.analysis.simulate import GeneratedKernel
from symdelay.core import cbuild
from symdelay.core.checks import time_grid


def _kernel():
    x, y = sp.symbols("x y")
    table = [
        ("in", [1, 0], sp.Rational(3, 2) / (1 + sp.exp(-x + y))),
        ("move", [-1, 1], 2 * x),
        ("out", [0, -1], y),
    ]
    return GeneratedKernel([x, y], table, {})


def _libs(tmp_path):
    return sorted(p.name for p in tmp_path.glob("generated-*"))


def _paths_agree(k):
    grid = time_grid(8, 0.1)
    c = k.run_replications(40, [5, 5], grid, seed=7, replications=2, backend="c")
    p = k.run_replications(40, [5, 5], grid, seed=7, replications=2, backend="python")
    assert c.events > 500
    assert np.array_equal(c.paths, p.paths)
    assert np.array_equal(c.transition_counts, p.transition_counts)


def test_native_library_is_keyed_by_the_processor(tmp_path, monkeypatch):
    monkeypatch.setenv("SYMDELAY_CACHE_DIR", str(tmp_path))
    k = _kernel()
    assert k.c_function() is not None
    portable = hashlib.sha256(k.c_source.encode()).hexdigest()[:16]
    (first,) = _libs(tmp_path)
    assert portable not in first  # the tuned build has its own name
    _paths_agree(k)
    # another processor: another library, compiled anew beside the first
    monkeypatch.setattr(cbuild, "machine_id", lambda: "another processor")
    k2 = _kernel()
    assert k2.c_source == k.c_source and k2.c_function() is not None
    libs = _libs(tmp_path)
    assert len(libs) == 2 and first in libs
    _paths_agree(k2)


def test_a_compiler_refusing_the_flag_gives_the_portable_build(tmp_path, monkeypatch):
    monkeypatch.setenv("SYMDELAY_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(cbuild, "NATIVE_FLAGS", ("-fno-such-flag-for-symdelay",))
    k = _kernel()
    assert k.c_function() is not None
    portable = hashlib.sha256(k.c_source.encode()).hexdigest()[:16]
    assert _libs(tmp_path) == [f"generated-{portable}.so"]
    _paths_agree(k)
