"""Committed derivations are reproducible and compile; the report builds."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from conftest import require_pdflatex

from symdelay.outputs.documents_registry import (
    concrete_document,
    document_modules,
    write_concrete,
)
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
    _assert_nontrivial("report.tex", (tmp_path / "report.tex").read_text())


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


_DISPLAY = re.compile(
    r"\\begin\{(equation\*?|align\*?|multline\*?)\}(.*?)\\end\{\1\}", flags=re.DOTALL
)


def _displays(text: str) -> list[str]:
    return [m.group(2).strip() for m in _DISPLAY.finditer(text)]


def _assert_nontrivial(name: str, text: str) -> None:
    assert "\\text{True}" not in text and "\\text{False}" not in text, name
    bodies = _displays(text)
    assert bodies, name
    for body in bodies:
        rows = [row.strip() for row in body.split("\\\\")]
        for row in rows:
            assert row and row not in ("True", "False"), (name, body)


def test_every_displayed_formula_is_nontrivial(regenerated):
    """No formula evaluated away to True/False (sp.Eq(Symbol, Matrix) is False in SymPy 1.14)."""
    for mod in document_modules():
        _assert_nontrivial(mod.FILENAME, (regenerated / mod.FILENAME).read_text())
    concrete = concrete_document(2)
    _assert_nontrivial("derive --L 2", concrete)
    # the matrices themselves are printed: full 6x6 and difference 3x3 Jacobians at L = 2
    assert concrete.count("\\begin{matrix}") >= 2
    assert "J = \\left[\\begin{matrix}" in concrete
    general = (regenerated / "action_delay.tex").read_text()
    assert "J = \\left[\\begin{matrix}- \\mu & 0 & 0 & \\gamma" in general


def test_tex_refuses_an_evaluated_equation():
    import sympy as sp

    from symdelay.core.errors import VerificationError
    from symdelay.core.latex import Equation, display

    with pytest.raises(VerificationError, match="Equation"):
        display(sp.Eq(sp.Symbol("J"), sp.Matrix([[1]])))
    assert display(Equation(sp.Symbol("J"), sp.Matrix([[1]]))).count("matrix") == 2


def test_time_derivatives_dot_the_letter_not_the_subscript(regenerated):
    """``\\dot{x}_{1,1}``, never ``\\dot{x_{1,1}}`` (which puts the dot over the subscript),
    in every committed derivation and in the concrete-L document."""
    over_subscript = re.compile(r"\\dot\{[^{}]*_")
    texts = {m.FILENAME: (regenerated / m.FILENAME).read_text() for m in document_modules()}
    texts["derive --L 2"] = concrete_document(2)
    for name, text in texts.items():
        assert not over_subscript.search(text), (name, over_subscript.search(text).group())
    assert "\\dot{x}_{1,1}" in texts["sqd.tex"] and "\\dot{w}_{1}" in texts["normal_form.tex"]
