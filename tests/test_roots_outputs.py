"""The roots report section and figures (quick mode)."""

from __future__ import annotations

from symdelay.outputs.report import ReportContext
from symdelay.outputs.sections import roots as section


def test_roots_section_quick(tmp_path):
    ctx = ReportContext(tmp_path, quick=True)
    sec = section.build(ctx)
    assert section.ORDER == 50
    assert sec.title == "Certified characteristic roots"
    for name in ("roots_locus.pdf", "roots_convergence.pdf", "roots_numpy.pdf"):
        assert (ctx.figures_dir / name).stat().st_size > 1000
        assert f"figures/{name}" in sec.body
    # the convergence fit printed in the text is about 1/L
    assert "L^{-0.9" in sec.body or "L^{-1.0" in sec.body
