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


def _run(cmd, tex_path, timeout, log):
    """Run ``cmd`` in the directory of ``tex_path``; ``None`` or a failed PdfResult."""
    try:
        proc = subprocess.run(
            cmd, cwd=tex_path.parent, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        msg = f"{cmd[0]} did not finish within {timeout:g} s on {tex_path}; see its log {log}"
        return PdfResult(tex_path, None, msg, failed=True, log=log)
    except OSError as exc:
        msg = f"{cmd[0]} could not be run on {tex_path}: {exc.strerror}"
        return PdfResult(tex_path, None, msg, failed=True, log=None)
    if proc.returncode != 0:
        lines = proc.stdout.splitlines()
        bad = "!" if cmd[0] == "pdflatex" else "I "
        err = next((ln for ln in lines if ln.startswith(bad)), "no error line in its output")
        msg = f"{cmd[0]} failed on {tex_path}: {err.strip()}; see its log {log}"
        return PdfResult(tex_path, None, msg, failed=True, log=log)
    return None


def compile_pdf(
    tex_path, runs: int = 2, timeout: float = 300, bibliography: bool = False
) -> PdfResult:
    """Compile ``tex_path`` with pdflatex in its own directory (``runs`` passes); with
    ``bibliography``, BibTeX after the first pass and two more passes (citations and the
    contents resolved)."""
    tex_path = Path(tex_path)
    if not pdflatex_available():
        return PdfResult(
            tex_path,
            None,
            f"pdflatex not found; wrote {tex_path}. To build the PDF: {INSTALL_HINT}",
        )
    log = tex_path.with_suffix(".log")
    latex = ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", tex_path.name]
    steps = [latex] * runs
    if bibliography:
        if shutil.which("bibtex") is None:
            return PdfResult(
                tex_path, None, f"bibtex not found; wrote {tex_path}. {INSTALL_HINT}",
                failed=True,
            )  # fmt: skip
        steps = [latex, ["bibtex", tex_path.stem], latex, latex]
    for cmd in steps:
        failed = _run(
            cmd, tex_path, timeout, tex_path.with_suffix(".blg") if cmd[0] == "bibtex" else log
        )
        if failed is not None:
            return failed
    pdf = tex_path.with_suffix(".pdf")
    return PdfResult(tex_path, pdf, f"wrote {pdf}")
