"""Shared test helpers."""

from __future__ import annotations

import os
import shutil

import pytest

from symdelay.cli import main as cli_main


def require_pdflatex():
    """pdflatex is required under CI (fail), optional on a developer machine (skip)."""
    if shutil.which("pdflatex"):
        return
    if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
        pytest.fail("pdflatex is missing under CI: .ci/run must install texlive-latex-base")
    pytest.skip("pdflatex not installed (install texlive-latex-base texlive-latex-recommended)")


@pytest.fixture
def run_cli(capsys):
    """Run the CLI in-process; returns (status, stdout, stderr)."""

    def run(*argv):
        status = cli_main(list(argv))
        out = capsys.readouterr()
        return status, out.out, out.err

    return run
