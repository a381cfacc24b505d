"""The Hopf report section, figures and derivation document."""

from __future__ import annotations

from symdelay.core.latex import tex
from symdelay.models.erlang.hopf import hopf_conditions, instability_window, worst_delay_trend
from symdelay.outputs.documents import hopf as hopf_doc
from symdelay.outputs.report import ReportContext
from symdelay.outputs.sections import critical


def test_section_writes_figures_and_window(tmp_path):
    ctx = ReportContext(tmp_path, quick=True)
    sec = critical.build(ctx)
    assert critical.ORDER == 40
    for name in ("hopf_theta_c.pdf", "hopf_region.pdf", "hopf_omega.pdf"):
        f = tmp_path / "figures" / name
        assert f.exists() and f.stat().st_size > 2000
        assert f"figures/{name}" in sec.body
    ((a, b),) = instability_window(critical.REGION["L"], critical.REGION["theta"], 1, 1).intervals
    assert f"{float(a):.6g}" in sec.body and f"{float(b):.6g}" in sec.body
    assert "stable for every $\\theta \\ge 0$" in sec.body


def test_document_prints_derived_objects():
    text = hopf_doc.build()
    assert hopf_doc.FILENAME == "hopf.tex"
    assert text.startswith("\\documentclass") and text.rstrip().endswith("\\end{document}")
    h = hopf_conditions(2)
    assert tex(h.lam_theta) in text and tex(h.phase) in text  # printed, not typed
    trend = worst_delay_trend()
    assert tex(trend.first_order) in text and tex(trend.theta_star) in text
    assert "Date" not in text and "\\today" not in text
