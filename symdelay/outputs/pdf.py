"""Running pdflatex, or saying clearly how to get it."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

__all__ = ["PdfResult", "compile_pdf", "pdflatex_available", "INSTALL_HINT"]

INSTALL_HINT = "apt-get install texlive-latex-base texlive-latex-recommended"


@dataclass(frozen=True)
class PdfResult:
    """``pdf`` is the PDF path, or None with ``message`` saying why. ``failed`` is True when
    pdflatex ran and did not produce the PDF (not when it is missing); ``log`` is then its
    log file."""

    tex: Path
    pdf: Path | None
    message: str
    failed: bool = False
    log: Path | None = None


def pdflatex_available() -> bool:
    return shutil.which("pdflatex") is not None


def compile_pdf(tex_path, runs: int = 2, timeout: float = 300) -> PdfResult:
    """Compile ``tex_path`` with pdflatex in its own directory (``runs`` passes)."""
    tex_path = Path(tex_path)
    if not pdflatex_available():
        return PdfResult(
            tex_path,
            None,
            f"pdflatex not found; wrote {tex_path}. To build the PDF: {INSTALL_HINT}",
        )
    log = tex_path.with_suffix(".log")
    for _ in range(runs):
        try:
            proc = subprocess.run(
                ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", tex_path.name],
                cwd=tex_path.parent,
                capture_output=True,
                text=True,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            msg = f"pdflatex did not finish within {timeout:g} s on {tex_path}; see its log {log}"
            return PdfResult(tex_path, None, msg, failed=True, log=log)
        except OSError as exc:
            msg = f"pdflatex could not be run on {tex_path}: {exc.strerror}"
            return PdfResult(tex_path, None, msg, failed=True, log=None)
        if proc.returncode != 0:
            lines = proc.stdout.splitlines()
            err = next((ln for ln in lines if ln.startswith("!")), "no error line in its output")
            msg = f"pdflatex failed on {tex_path}: {err.strip()}; see its log {log}"
            return PdfResult(tex_path, None, msg, failed=True, log=log)
    pdf = tex_path.with_suffix(".pdf")
    return PdfResult(tex_path, pdf, f"wrote {pdf}")
