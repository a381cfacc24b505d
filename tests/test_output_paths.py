"""Output paths that cannot be written are one line and exit 2 (before any long work); a
LaTeX build that fails is not bad input: exit 1 and the location of its log."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from symdelay.core.errors import SymdelayInputError
from symdelay.outputs.pdf import PdfResult, compile_pdf
from symdelay.outputs.report import prepare_output_dir, write_report


def _one_line_error(status, out, err, *words):
    assert status == 2 and out == ""
    assert err.startswith("symdelay: error:") and err.count("\n") == 1, err
    for w in words:
        assert w in err


@pytest.mark.parametrize("command", ["derive", "report"])
def test_unwritable_output_directory(run_cli, command):
    _one_line_error(*run_cli(command, "--out", "/proc/forbidden"), "/proc/forbidden", "--out")
    _one_line_error(*run_cli(command, "--out", "/proc/forbidden/a/b"), "choose a writable")


@pytest.mark.parametrize("command", ["derive", "report"])
def test_output_directory_that_is_a_file(run_cli, command, tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    _one_line_error(*run_cli(command, "--out", str(f)), "not a directory")


def test_api_refuses_unwritable_directory_before_any_section():
    with pytest.raises(SymdelayInputError, match="cannot write to the output directory"):
        write_report("/proc/forbidden", pdf=False, quick=True)
    with pytest.raises(SymdelayInputError):
        prepare_output_dir("/proc/forbidden")


@pytest.mark.parametrize("command", ["simulate", "fluid"])
def test_unwritable_csv(run_cli, command, tmp_path):
    _one_line_error(*run_cli(command, "--csv", "/nonexistent/x.csv"), "/nonexistent/x.csv")
    _one_line_error(*run_cli(command, "--csv", str(tmp_path)), "is a directory")
    assert list(tmp_path.iterdir()) == []


def test_csv_check_leaves_no_file_when_the_run_fails(run_cli, tmp_path):
    f = tmp_path / "x.csv"
    _one_line_error(*run_cli("simulate", "--csv", str(f), "--eta", "0"), "eta")
    assert not f.exists()


def _fake_pdflatex(bin_dir: Path, body: str) -> None:
    exe = bin_dir / "pdflatex"
    exe.write_text("#!/bin/sh\n" + body)
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)


@pytest.fixture
def failing_pdflatex(tmp_path, monkeypatch):
    """A pdflatex on PATH that fails the way a missing LaTeX package does."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _fake_pdflatex(
        bin_dir,
        'echo "This is pdfTeX"\necho "! LaTeX Error: File \\`foo.sty\' not found."\nexit 1\n',
    )
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return bin_dir


def test_failed_latex_build_is_status_1_with_the_log(run_cli, tmp_path, failing_pdflatex):
    out = tmp_path / "d"
    status, stdout, err = run_cli("derive", "--L", "1", "--out", str(out), "--pdf")
    assert status == 1 and stdout == ""
    assert err.startswith("symdelay: pdflatex failed on") and err.count("\n") == 1
    assert "foo.sty" in err and str(out / "action_delay_L1.log") in err
    assert "error:" not in err  # not reported as bad input
    assert (out / "action_delay_L1.tex").exists()


def test_compile_pdf_reports_failure_and_timeout(tmp_path, failing_pdflatex):
    tex = tmp_path / "a.tex"
    tex.write_text("\\documentclass{article}\\begin{document}x\\end{document}\n")
    r = compile_pdf(tex)
    assert r.failed and r.pdf is None and r.log == tmp_path / "a.log"
    assert "foo.sty" in r.message and str(r.log) in r.message
    _fake_pdflatex(failing_pdflatex, "exec sleep 60\n")
    r = compile_pdf(tex, timeout=0.5)
    assert r.failed and "did not finish" in r.message and str(r.log) in r.message


def test_report_command_failed_build_is_status_1(run_cli, tmp_path, monkeypatch):
    from symdelay.outputs import report  # the command imports write_report from here

    tex = tmp_path / "report.tex"
    msg = f"pdflatex failed on {tex}: ! Emergency stop.; see its log {tmp_path / 'report.log'}"
    result = PdfResult(tex, None, msg, failed=True, log=tmp_path / "report.log")
    monkeypatch.setattr(report, "write_report", lambda *a, **k: result)
    status, out, err = run_cli("report", "--out", str(tmp_path))
    assert status == 1 and out == ""
    assert err == f"symdelay: {msg}\n"
    missing = PdfResult(tex, None, "pdflatex not found; wrote report.tex. To build the PDF: ...")
    monkeypatch.setattr(report, "write_report", lambda *a, **k: missing)
    status, out, err = run_cli("report", "--out", str(tmp_path))
    assert status == 0 and "pdflatex not found" in out
