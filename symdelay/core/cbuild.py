"""Compiling the small C kernels (founding simulator, SQ(d), LB) into the user's cache.

One place for where compiled libraries live and how they are built: the system C compiler
(``$CC``, gcc or cc) with ``-O2 -fPIC -shared -ffp-contract=off`` (no fused multiply-add, so
the C kernels and their Python twins do the same IEEE-754 operations), written under a
temporary name and moved into place atomically, so concurrent first uses are safe.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

__all__ = ["cache_dir", "compile_library", "load_library"]


def cache_dir() -> Path:
    """``$SYMDELAY_CACHE_DIR``, else ``$XDG_CACHE_HOME/symdelay`` (``~/.cache/symdelay``)."""
    base = os.environ.get("SYMDELAY_CACHE_DIR")
    if base:
        return Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return Path(xdg if xdg else Path.home() / ".cache") / "symdelay"


def compile_library(source: str, target: Path, label: str) -> None:
    """Compile the C ``source`` into the shared library ``target``; ``OSError`` on failure
    (``label`` names the kernel in the message)."""
    cc = os.environ.get("CC") or shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        raise OSError("no C compiler found (gcc or cc)")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        src = Path(tmp) / "kernel.c"
        src.write_text(source)
        lib = Path(tmp) / target.name
        cmd = [cc, "-O2", "-fPIC", "-shared", "-ffp-contract=off", "-o", str(lib), str(src), "-lm"]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise OSError(f"compiling {label} failed: {proc.stderr.strip()}")
        os.replace(lib, target)  # atomic: concurrent first uses are safe


_loaded: dict = {}
_lock = threading.Lock()


class _Kernel:
    """A loaded C function whose Ctrl-C stays a ``KeyboardInterrupt``: ctypes converts the
    arguments in Python (numpy's ``ndpointer.from_param``), and a SIGINT that lands there comes
    out as ``ctypes.ArgumentError("argument 7: KeyboardInterrupt: ")``, which the CLI would
    report as an internal error instead of exiting 130."""

    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, *args):
        try:
            return self.fn(*args)
        except ctypes.ArgumentError as exc:
            if "KeyboardInterrupt" in str(exc):
                raise KeyboardInterrupt from None
            raise

    def __getattr__(self, name):
        return getattr(self.fn, name)


def load_library(source: str, prefix: str, label: str, bind: Callable):
    """The kernel function of the C ``source``: compiled at first use into
    ``cache_dir()/PREFIX-HASH.so`` (the hash of the source, so an edited kernel is rebuilt),
    loaded with :mod:`ctypes` and handed to ``bind(lib)``, which returns the function with its
    argument types set. ``None`` when it cannot be built (no compiler); loaded once per
    process."""
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    key = (prefix, digest)
    with _lock:
        if key in _loaded:
            return _loaded[key]
        fn = None
        try:
            ext = ".dylib" if sys.platform == "darwin" else ".so"
            target = cache_dir() / f"{prefix}-{digest}{ext}"
            if not target.exists():
                compile_library(source, target, label)
            bound = bind(ctypes.CDLL(str(target)))
            fn = None if bound is None else _Kernel(bound)
        except OSError:
            fn = None
        _loaded[key] = fn
        return fn
