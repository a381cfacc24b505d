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
    """``pdf`` is the PDF path, or None with ``message`` saying why."""

    tex: Path
    pdf: Path | None
    message: str


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
    for _ in range(runs):
        proc = subprocess.run(
            ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", tex_path.name],
            cwd=tex_path.parent,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if proc.returncode != 0:
            log = proc.stdout.splitlines()
            err = next((ln for ln in log if ln.startswith("!")), "see the .log file")
            return PdfResult(tex_path, None, f"pdflatex failed on {tex_path}: {err}")
    pdf = tex_path.with_suffix(".pdf")
    return PdfResult(tex_path, pdf, f"wrote {pdf}")
