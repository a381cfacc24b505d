"""The report reads as a paper: every figure captioned, labelled and legible, captions that say
what the legends say, no ASCII mathematics or raw identifiers in the text, a bibliography with
the references cited, and progress bars on a terminal only.

The quick report is built once (in this process, so the matplotlib figures can be read) and
compiled with pdflatex and BibTeX."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from matplotlib.lines import Line2D

from symdelay.outputs import report
from symdelay.outputs.pdf import compile_pdf, pdflatex_available
from symdelay.outputs.progress import bar_enabled, progress_bar

#: The text width of the report in inches (article, letter paper, 2.5 cm margins).
TEXTWIDTH_IN = report.TEXTWIDTH_IN
#: The smallest type a reader should be given, at print size.
MIN_PT = 7.0


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    ctx = report.ReportContext(out, quick=True)
    parts = report.build_sections(ctx)  # in this process: the figures stay readable
    tex = report.report_document("".join(parts.values()), date="2026-01-01")
    (out / "report.tex").write_text(tex)
    (out / "references.bib").write_text(report.BIBLIOGRAPHY.read_text())
    return out, ctx, tex


# ------------------------------------------------------------------------------ figures
def _axes(fig):
    """The data axes of a figure (not colour bars, not hidden panels)."""
    return [
        ax
        for ax in fig.axes
        if ax.get_visible() and ax.get_label() != "<colorbar>" and ax.has_data()
    ]


def test_every_figure_is_captioned_and_labelled_in_the_tex(built):
    out, _ctx, tex = built
    floats = re.findall(r"\\begin\{figure\}(.*?)\\end\{figure\}", tex, re.S)
    graphics = re.findall(r"\\includegraphics(?:\[[^]]*\])?\{([^}]*)\}", tex)
    assert graphics, "the quick report has no figure"
    in_floats = [g for f in floats for g in re.findall(r"\\includegraphics[^{]*\{([^}]*)\}", f)]
    assert sorted(graphics) == sorted(in_floats), "a figure outside a numbered float"
    for f in floats:
        cap = re.search(r"\\caption\{(.+)\}", f, re.S)
        assert cap and len(cap.group(1).strip()) > 20, f"a figure without a caption: {f[:120]}"
    for g in graphics:
        assert (out / g).is_file(), g


def test_every_figure_has_axis_labels(built):
    _, ctx, _ = built
    assert ctx.figures
    for entry in ctx.figures:
        axes = _axes(entry.figure)
        assert axes, entry.path
        for ax in axes:
            if ax.name == "polar":
                continue
            # panels that share an axis with a labelled neighbour need no label of their own
            xs = ax.get_shared_x_axes().get_siblings(ax)
            ys = ax.get_shared_y_axes().get_siblings(ax)
            assert any(a.get_xlabel().strip() for a in xs), f"{entry.path}: no x label"
            assert any(a.get_ylabel().strip() for a in ys), f"{entry.path}: no y label"


def _legends(fig):
    return [leg for leg in [*fig.legends, *(ax.get_legend() for ax in fig.axes)] if leg]


def test_legends_are_legible_at_print_size(built):
    """Legend text is at least 7 pt once the figure is scaled to its width in the text."""
    _, ctx, _ = built
    checked = 0
    for entry in ctx.figures:
        if entry.width is None:
            continue
        scale = entry.width * TEXTWIDTH_IN / entry.figure.get_figwidth()
        for leg in _legends(entry.figure):
            for t in leg.get_texts():
                size = t.get_fontsize() * scale
                assert size >= MIN_PT - 0.05, (
                    f"{entry.path}: legend entry {t.get_text()!r} prints at {size:.1f} pt"
                )
                checked += 1
    assert checked > 10


_STYLE = {"-": "solid", "--": "dashed", ":": "dotted", "-.": "dash-dotted"}


def test_captions_say_what_the_legends_show(built):
    """Where a caption names line styles ("dashed: X"), the legend entry X is drawn dashed;
    a map's caption lists exactly the counts its legend shades."""
    _, ctx, _ = built
    styled = 0
    for entry in ctx.figures:
        if not entry.caption:
            continue
        styles = r"(solid|dashed|dotted|dash-dotted)"
        pairs = re.findall(rf"{styles}: (.+?)(?=; {styles}:|\)\.|\.$|$)", entry.caption, flags=re.S)
        pairs = [(p[0], p[1]) for p in pairs]
        handles = {}
        for leg in _legends(entry.figure):
            for h, t in zip(leg.legend_handles, leg.get_texts(), strict=True):
                if isinstance(h, Line2D):
                    handles[t.get_text()] = _STYLE.get(h.get_linestyle(), h.get_linestyle())
                else:
                    handles[t.get_text()] = "patch"
        for style, label in pairs:
            label = label.strip().rstrip(".")
            if label in handles:
                assert handles[label] == style, (
                    f"{entry.path}: the caption says {style} for {label!r}, the legend draws "
                    f"it {handles[label]}"
                )
                styled += 1
        if "unstable roots (" in entry.caption:
            shaded = sorted(
                int(t.split()[0])
                for t in handles
                if t.endswith("unstable roots") and t[0].isdigit()
            )
            if shaded:
                listed = re.search(r"unstable roots \(([0-9, ]+)\)", entry.caption).group(1)
                assert [int(v) for v in listed.split(",")] == shaded, entry.path
    assert styled >= 2, "no caption describes its line styles"


# ------------------------------------------------------------------------------ the text
def _prose(tex: str) -> str:
    """The report's running text: without maths, verbatim-like commands, labels, refs,
    citations, file names and the preamble."""
    body = tex.split("\\begin{document}", 1)[1]
    for env in ("equation", "equation*", "align", "align*", "gather", "gather*", "multline*"):
        e = re.escape(env)
        body = re.sub(rf"\\begin\{{{e}\}}.*?\\end\{{{e}\}}", " ", body, flags=re.S)
    body = re.sub(r"\\\[.*?\\\]", " ", body, flags=re.S)
    body = re.sub(r"\$\$.*?\$\$", " ", body, flags=re.S)
    body = re.sub(r"(?<!\\)\$.*?(?<!\\)\$", " ", body, flags=re.S)
    body = re.sub(r"\\(texttt|label|ref|cite|includegraphics|bibliography\w*|url)"
                  r"(\[[^]]*\])?\{[^}]*\}", " ", body)  # fmt: skip
    return body


def test_no_ascii_mathematics_or_identifiers_in_the_text(built):
    _, _, tex = built
    text = _prose(tex)
    bad = {
        "an ASCII arrow": r"->|<-",
        "an ASCII infinity": r"\binf\b|\boo\b",
        "a plural in brackets": r"\w\(s\)",
        "a snake_case identifier": r"\b[a-z]+\\?_[a-z]+\b",
        "an ASCII power": r"\w\^\w|\)\^",
        "an ASCII inequality": r"\s(<=|>=|!=)\s",
    }
    for what, pattern in bad.items():
        hits = [m.group(0) for m in re.finditer(pattern, text)]
        assert not hits, f"{what} in the report text: {hits[:5]}"


def test_every_formula_display_has_a_left_hand_side(built):
    _, _, tex = built
    for m in re.finditer(r"\\begin\{equation\*?\}(.*?)\\end\{equation\*?\}", tex, re.S):
        body = m.group(1).strip()
        if body.startswith("\\begin{aligned}"):
            continue
        assert re.search(r"=|<|>|\\le|\\ge|\\ne|\\in|\\to", body), f"no relation: {body[:80]}"


def test_numbered_sections_contents_version_and_date(built):
    _, _, tex = built
    assert "\\tableofcontents" in tex
    assert "\\section*" not in tex and "\\subsection*" not in tex
    from symdelay.core.version import __version__

    assert f"symdelay {__version__}" in tex
    assert "\\date{2026-01-01}" in tex


def test_bibliography_holds_every_reference_cited(built):
    out, _, tex = built
    keys = report.cited_keys(tex)
    bib = report.BIBLIOGRAPHY.read_text()
    entries = set(re.findall(r"@\w+\{([^,]+),", bib))
    assert {"AbePhungDuc", "PenderRandWesson2017", "Mitzenmacher2001"} <= keys
    assert keys <= entries, f"cited without an entry: {keys - entries}"
    assert "the paper" not in _prose(tex), "a paper referred to without naming it"
    if not pdflatex_available():  # CI=true turns a missing pdflatex into a failure
        import os

        assert not os.environ.get("CI"), "pdflatex is needed under CI"
        return
    res = compile_pdf(out / "report.tex", bibliography=True)
    assert res.pdf is not None, res.message
    bbl = (out / "report.bbl").read_text()
    assert sorted(re.findall(r"\\bibitem\{([^}]*)\}", bbl)) == sorted(keys)
    log = (out / "report.log").read_text(errors="replace")
    assert "undefined" not in log.lower() or "Reference" not in log, "an unresolved \\ref"


# ------------------------------------------------------------------------------ progress
class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_only_on_a_terminal(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    pipe, tty = io.StringIO(), _Tty()
    for stream in (pipe, tty):
        with progress_bar(3, "work", stream=stream) as bar:
            for _ in range(3):
                bar.update(1)
    assert pipe.getvalue() == ""
    assert "\r" in tty.getvalue()
    monkeypatch.setenv("CI", "true")
    assert not bar_enabled(_Tty())


def test_piped_report_writes_no_progress_lines(tmp_path, monkeypatch, capfd):
    """``symdelay report > log 2>&1``: stdout and stderr are pipes; nothing but the result
    line is written (the sections here are the two quickest)."""
    from symdelay.cli import main
    from symdelay.outputs.sections import derivation, stability

    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setattr(report, "section_modules", lambda: [derivation, stability])
    code = main(["report", "--out", str(tmp_path / "r"), "--quick", "--no-pdf"])
    err = capfd.readouterr()
    assert code == 0
    assert "\r" not in err.err and "\r" not in err.out
    assert "section" not in err.err
    assert Path(tmp_path / "r" / "report.tex").is_file()


# ------------------------------------------------------------------------- scheduling
def test_jobs_build_every_section_once_shared_results_in_one_worker():
    """Every section is in exactly one job; the sections that share a result (TOGETHER)
    are in the same job; the jobs come longest first by the measured seconds."""
    mods = report.section_modules()
    jobs = report.plan_jobs(mods)
    names = [m.__name__.rsplit(".", 1)[-1] for job in jobs for m in job]
    assert sorted(names) == sorted(m.__name__.rsplit(".", 1)[-1] for m in mods)
    assert len(names) == len(set(names))
    for group in report.TOGETHER:
        homes = {
            i for i, job in enumerate(jobs) for m in job if m.__name__.rsplit(".", 1)[-1] in group
        }
        assert len(homes) == 1, group
    cost = [sum(report.EXPECTED_SECONDS.get(m.__name__.rsplit(".", 1)[-1], 10) for m in j)
            for j in jobs]  # fmt: skip
    assert cost == sorted(cost, reverse=True)
    assert set(report.EXPECTED_SECONDS) <= set(names), "a timed section no longer exists"


def test_shared_results_are_computed_once_per_process():
    """The in-flight and maps sections read one kappa* record; theta_c is the Hopf
    solver's (L = 2, mu = lam = D = 1: theta_c = 9 exactly, the founding closed form)."""
    from symdelay.outputs.sections import _shared

    assert _shared.kappa_star_record(2) is _shared.kappa_star_record(2)
    assert abs(_shared.founding_theta_c(2) - 9) < 1e-12
    assert _shared.founding_theta_c(1) == float("inf")


# ------------------------------------------------------------- action versus information
def _section(tex: str, title: str) -> str:
    return tex.split(f"\\section{{{title}}}", 1)[1].split("\\section{", 1)[0]


def test_action_information_prints_its_records(built):
    """The section's table and text print the records it computed (the quick report's,
    cached in this process): theta_c from ``critical`` and the Hopf solver, A from the fluid
    paths (read here from the records' own grid), Var/eta, the peak and Q from
    ``spectrum``; and those records agree with closed forms computed here: the constant
    lags' theta_c solves Pender, Rand and Wesson's arccos(-mu/k)/sqrt(k^2 - mu^2) = D, their
    variance is Kuechler and Mensch's."""
    import math
    from fractions import Fraction

    import mpmath
    import numpy as np

    from symdelay.outputs.sections import action_information as ai

    _, _, tex = built
    body = _section(tex, ai.TITLE)
    res = ai.results(True)  # the records the section was built from
    table = re.search(r"\\midrule(.*?)\\bottomrule", body, re.S).group(1)
    rows = [[c.strip() for c in r.split("&")] for r in table.split("\\\\") if "&" in r]
    assert [r[0] for r in rows] == res.labels
    rows = [[c.strip("$") for c in r] for r in rows]
    (a1, b1), (a2, b2) = res.budget.windows
    for cells, label in zip(rows, res.labels, strict=True):
        s = res.spectra[label]
        assert float(cells[1]) == round(float(res.theta_c[label]), 5)
        ts = res.paths[label]
        x = ts["q1"] - ts["q2"]
        late = x[(ts.t >= a2 - 1e-9) & (ts.t <= b2 + 1e-9)]
        if float(res.theta_c[label]) < ai.THETA_CYCLE:
            decimals = len(cells[2].split(".")[1])
            assert abs(float(cells[2]) - (late.max() - late.min()) / 2) <= 0.5 * 10**-decimals
        else:
            early = x[(ts.t >= a1 - 1e-9) & (ts.t <= b1 + 1e-9)]
            assert cells[2] == "decays" and np.ptp(late) < np.ptp(early)
        assert float(cells[3]) == round(s.variance, 5)
        assert float(cells[4]) == round(s.peak_frequency, 3)
        assert float(cells[5]) == round(s.quality_factor, 3)
    mu, lam, D = (ai.RATES[k] for k in ("mu", "lam", "D"))
    with mpmath.workdps(30):
        k = mpmath.findroot(lambda k: mpmath.acos(-mu / k) / mpmath.sqrt(k**2 - mu**2) - D, 2.2)
    for label in (ai.ACTION, ai.INFO):
        assert abs(float(res.theta_c[label]) - float(k / lam)) < 1e-11
    assert f"\\theta_c = {float(k / lam):.5f}" in body
    # dx = -(a x(t) + b x(t - D)) dt + sigma dW, sigma^2 = 4 lam: at the equilibrium each
    # queue's arrivals and services both have rate lam
    a, b, sigma2 = mu, lam * float(Fraction(ai.THETA_NOISE)), 4 * lam
    w0 = math.sqrt(b * b - a * a)
    km = sigma2 / 2 * (1 + b / w0 * math.sin(w0 * D)) / (a + b * math.cos(w0 * D))
    for label in (ai.ACTION, ai.INFO):
        assert abs(res.spectra[label].variance - km) < 1e-5
    assert f"{km:.6g}" in body
    assert np.max(np.abs(res.spectra[ai.ACTION].S / res.spectra[ai.INFO].S - 1)) < 1e-9
