"""Committed derivations are reproducible and compile; the report builds."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import require_pdflatex

from symdelay.outputs.documents_registry import document_modules, write_concrete
from symdelay.outputs.pdf import compile_pdf
from symdelay.outputs.report import write_report

ROOT = Path(__file__).resolve().parents[1]
DERIVATIONS = ROOT / "derivations"


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory):
    out = tmp_path_factory.mktemp("derivations")
    for mod in document_modules():
        (out / mod.FILENAME).write_text(mod.build())
    return out


def test_every_document_is_committed(regenerated):
    committed = {p.name for p in DERIVATIONS.glob("*.tex")}
    generated = {p.name for p in regenerated.glob("*.tex")}
    assert generated == committed, "run `make derivations` and commit derivations/"


@pytest.mark.parametrize("mod", document_modules(), ids=lambda m: m.FILENAME)
def test_committed_document_matches_code(regenerated, mod):
    new = (regenerated / mod.FILENAME).read_text()
    old = (DERIVATIONS / mod.FILENAME).read_text()
    assert new == old, f"derivations/{mod.FILENAME} is stale: run `make derivations`"


@pytest.mark.parametrize("mod", document_modules(), ids=lambda m: m.FILENAME)
def test_document_compiles(regenerated, mod):
    require_pdflatex()
    result = compile_pdf(regenerated / mod.FILENAME)
    assert result.pdf is not None and result.pdf.stat().st_size > 1000, result.message


def test_concrete_L_document_compiles(tmp_path):
    require_pdflatex()
    result = write_concrete(3, tmp_path, pdf=True)
    assert result.pdf is not None, result.message
    assert "L = 3" in result.tex.read_text()


def test_report_quick(tmp_path):
    require_pdflatex()
    result = write_report(tmp_path, quick=True)
    assert result.pdf is not None, result.message
    assert (tmp_path / "report.tex").exists()


def test_report_without_pdflatex_still_writes_tex(tmp_path):
    """With no pdflatex on PATH the command writes the .tex and says how to install it."""
    import os
    import sys

    env = dict(os.environ, PATH=str(Path(sys.executable).parent))
    proc = subprocess.run(
        [sys.executable, "-m", "symdelay", "derive", "--L", "1", "--out", str(tmp_path), "--pdf"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert proc.returncode == 2
    assert "apt-get install texlive-latex-base" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert (tmp_path / "action_delay_L1.tex").exists()
