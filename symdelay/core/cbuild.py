"""Compiling the small C kernels (founding simulator, SQ(d), LB) into the user's cache.

One place for where compiled libraries live and how they are built: the system C compiler
(``$CC``, gcc or cc) with ``-O2 -fPIC -shared -ffp-contract=off`` (no fused multiply-add, so
the C kernels and their Python twins do the same IEEE-754 operations), written under a
temporary name and moved into place atomically, so concurrent first uses are safe.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

__all__ = ["cache_dir", "compile_library"]


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
