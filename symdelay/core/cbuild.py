"""Compiling the small C kernels (founding simulator, SQ(d), LB) into the user's cache.

One place for where compiled libraries live and how they are built: the system C compiler
(``$CC``, gcc or cc) with ``-O2 -fPIC -shared -ffp-contract=off`` (no fused multiply-add, so
the C kernels and their Python twins do the same IEEE-754 operations), written under a
temporary name and moved into place atomically, so concurrent first uses are safe. A kernel
may ask for code tuned to this processor (``native=True``: ``-march=native``, on x86-64 with
``-mno-avx``; still without contraction, so the same IEEE-754 operations): its library name then hashes the flags, the
compiler and the processor too (a cache directory shared by other machines never hands one
a library built for another), and a compiler that refuses the flag gets the portable build.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

__all__ = ["cache_dir", "choose_backend", "compile_library", "load_library", "machine_id"]


def cache_dir() -> Path:
    """``$SYMDELAY_CACHE_DIR``, else ``$XDG_CACHE_HOME/symdelay`` (``~/.cache/symdelay``)."""
    base = os.environ.get("SYMDELAY_CACHE_DIR")
    if base:
        return Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return Path(xdg if xdg else Path.home() / ".cache") / "symdelay"


#: Flags added for ``native=True`` builds: this processor's instruction set, on x86-64 without
#: AVX (the kernels are scalar: VEX and EVEX encodings gain nothing there, and on an AVX-512
#: processor, AMD Zen 4, the same source ran 20-30% slower built with AVX than without)
NATIVE_FLAGS = (
    ("-march=native", "-mno-avx")
    if platform.machine().lower() in ("x86_64", "amd64")
    else ("-march=native",)
)


def _compiler() -> str | None:
    return os.environ.get("CC") or shutil.which("gcc") or shutil.which("cc")


@functools.lru_cache(maxsize=1)
def machine_id() -> str:
    """The processor as far as code generation cares: architecture, and on Linux the model
    and feature lines of /proc/cpuinfo (read once per process)."""
    parts = [platform.system(), platform.machine()]
    try:
        with open("/proc/cpuinfo") as f:
            seen = set()
            for line in f:
                if not line.strip() and seen:
                    break  # the first processor's block is enough
                key = line.split(":", 1)[0].strip()
                if key in ("model name", "flags", "Features", "CPU part") and key not in seen:
                    seen.add(key)
                    parts.append(line.strip())
    except OSError:  # no /proc (macOS, BSD): what the platform module knows
        parts.append(platform.processor())
    return "\n".join(parts)


def compile_library(source: str, target: Path, label: str, extra_flags=()) -> None:
    """Compile the C ``source`` into the shared library ``target``; ``OSError`` on failure
    (``label`` names the kernel in the message). ``extra_flags`` go after the usual ones."""
    cc = _compiler()
    if cc is None:
        raise OSError("no C compiler found (gcc or cc)")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        src = Path(tmp) / "kernel.c"
        src.write_text(source)
        lib = Path(tmp) / target.name
        cmd = [cc, "-O2", "-fPIC", "-shared", "-ffp-contract=off", *extra_flags]
        cmd += ["-o", str(lib), str(src), "-lm"]
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


def load_library(source: str, prefix: str, label: str, bind: Callable, *, native: bool = False):
    """The kernel function of the C ``source``: compiled at first use into
    ``cache_dir()/PREFIX-HASH.so`` (the hash of the source, so an edited kernel is rebuilt),
    loaded with :mod:`ctypes` and handed to ``bind(lib)``, which returns the function with its
    argument types set. ``None`` when it cannot be built (no compiler) or ``SYMDELAY_NO_C``
    is set; loaded once per process. ``native``: tuned to this processor (the hash then
    covers the flags, the compiler and :func:`machine_id`); the portable build when the
    compiler refuses."""
    if os.environ.get("SYMDELAY_NO_C"):
        return None
    attempts = [NATIVE_FLAGS, ()] if native else [()]
    for flags in attempts:
        h = hashlib.sha256(source.encode())
        if flags:
            h.update("\0".join(["", *flags, str(_compiler()), machine_id()]).encode())
        digest = h.hexdigest()[:16]
        key = (prefix, digest)
        with _lock:
            if key in _loaded:
                fn = _loaded[key]
            else:
                fn = None
                try:
                    ext = ".dylib" if sys.platform == "darwin" else ".so"
                    target = cache_dir() / f"{prefix}-{digest}{ext}"
                    if not target.exists():
                        compile_library(source, target, label, flags)
                    bound = bind(ctypes.CDLL(str(target)))
                    fn = None if bound is None else _Kernel(bound)
                except OSError:
                    fn = None
                _loaded[key] = fn
        if fn is not None:
            return fn
    return None


def choose_backend(backend: str, load: Callable):
    """The compiled kernel a simulator runs for ``backend``, or ``None`` for its Python
    twin: ``"auto"`` (the compiled one when ``load()`` gives it), ``"c"`` (refused without
    one) or ``"python"``."""
    from symdelay.core.errors import SymdelayInputError

    if backend not in ("auto", "c", "python"):
        raise SymdelayInputError(f"backend must be auto, c or python, got {backend!r}")
    fn = None if backend == "python" else load()
    if backend == "c" and fn is None:
        raise SymdelayInputError(
            "the C backend is not available (no working C compiler, or SYMDELAY_NO_C set)"
        )
    return fn
