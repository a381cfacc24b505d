"""The nonlinear section's continued branches: the numbers its text prints are read back and
compared with the records it was built from (the quick report's, cached in this process), and
the records with what they must satisfy (the founding Hopf point theta_c = 9 at L = 2, the
normal form's law near it, the in-flight model's fold of cycles between its unstable inner and
stable outer cycles)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from symdelay.models.erlang.nonlinear import normal_form
from symdelay.outputs import report
from symdelay.outputs.sections import nonlinear as nl


@pytest.fixture(scope="module")
def section(tmp_path_factory):
    ctx = report.ReportContext(tmp_path_factory.mktemp("nonlinear"), quick=True)
    text, paths = nl._branch_part(ctx, True)
    return text, paths, ctx


def _num(text, pattern) -> tuple[float, float]:
    """The number after ``pattern`` (a regex) and half a unit of its last printed digit."""
    m = re.search(pattern + r"\s*(-?[0-9]+(?:\.[0-9]+)?(?:e[-+]?[0-9]+)?)", text)
    assert m, pattern
    s = m.group(1)
    mant = s.split("e")[0]
    digits = len(mant.split(".")[1]) if "." in mant else 0
    exp = int(s.split("e")[1]) if "e" in s else 0
    return float(s), 0.5 * 10.0 ** (exp - digits)


def _close(text, pattern, value, rel=1e-6):
    """The printed number equals ``value`` to the digits printed (or ``rel``, if looser)."""
    got, half = _num(text, pattern)
    assert abs(got - value) <= max(half * 1.0000001, rel * abs(value)), (pattern, got, value)


def test_founding_branch_numbers_are_its_records(section):
    text, _, _ = section
    b = nl.founding_cycles(2, True)
    p, a, T, st = b.arrays()
    nf = normal_form(2, **nl.RATES)
    # the record: the branch starts at the exact Hopf point of L = 2, mu = lam = D = 1
    assert float(b.start["value"]) == pytest.approx(9.0, abs=1e-12) and nf.theta_c == 9
    founding = text.split("The in-flight model", 1)[0]
    _close(founding, r"Hopf point \$\\theta_c =", 9.0)
    _close(founding, r"\\ell_1 =", float(nf.l1))
    _close(founding, r"reaches \$\\theta =", p[-1])
    assert p[-1] == pytest.approx(nl.QUICK_TOP * 9.0)
    n = int(re.search(r"in (\d+) orbits", founding).group(1))
    assert n == len(p)
    assert f"{int(np.sum(st == 1))} stable, {int(np.sum(st == 0))} unstable" in founding
    _close(founding, r"\|\\rho\| =", max(np.max(np.abs(c.nontrivial)) for c in b.points))
    _close(founding, r"first orbit, at \$\\theta =", p[0])
    _close(founding, r"amplitude \$A =", a[0])
    # the printed ratio is the first orbit against the founding normal form's own law
    # (structured eigenvectors), and that ratio is within 1e-3 of 1
    ratio = a[0] / float(nf.amplitude(p[0]))
    _close(founding, r"times \$", ratio)
    assert abs(ratio - 1) < 1e-3
    _close(founding, r"2\\pi/\\omega_c =", float(nf.period))
    _close(founding, r"second order \(\$", T[0])
    _close(founding, r"there, \$", T[-1])
    assert abs(T[0] / float(nf.period) - 1) < 1e-5  # the period moves at second order only
    assert "special points: none" in founding and not b.special_points


def test_inflight_branch_numbers_are_its_records(section):
    text, _, _ = section
    b = nl.inflight_branch()
    q, a, _, st = b.arrays()
    inflight = text.split("The in-flight model", 1)[1]
    mu_c = float(b.start["value"])
    _close(inflight, r"\\mu_c =", mu_c)
    _close(inflight, r"\\ell_1 =", float(b.start["l1"]))
    assert float(b.start["l1"]) > 0 and "subcritical" in inflight
    (lpc,) = [s for s in b.special_points if s.kind == "LPC"]
    assert lpc.located
    _close(inflight, r"\(LPC\) \$\\mu =", lpc.value)
    _close(inflight, r"\(amplitude \$", lpc.amplitude)
    _close(inflight, r"period \$", lpc.period)
    # the fold is the largest mu of the branch; inside it unstable, beyond it stable
    k = lpc.between[1]
    assert lpc.value >= q.max() - 1e-9 > mu_c
    assert np.all(st[: k - 1] == 0) and np.all(st[k + 1 :] == 1)
    n = int(re.search(r"branch \((\d+) orbits", inflight).group(1))
    assert n == len(q)
    assert f"{int(np.sum(st == 1))} stable, {int(np.sum(st == 0))} unstable" in inflight
    last = b.points[-1]
    assert last.value == pytest.approx(float(nl.INFLIGHT_RANGE[0])) and last.stable is True
    _close(inflight, r"on a stable cycle of amplitude \$", last.amplitude)
    first = int(np.argmin(np.abs(q - mu_c)))
    law = float(b.start["amplitude_coefficient"]) * np.sqrt(abs(q[first] - mu_c))
    _close(inflight, r"has the amplitude \$", a[first])
    assert abs(a[first] / law - 1) < 2e-3


def test_branch_figures_mark_the_special_points(section):
    _, paths, ctx = section
    assert paths == [
        "figures/nonlinear_branch_founding.pdf",
        "figures/nonlinear_branch_inflight.pdf",
    ]
    fig = next(e.figure for e in ctx.figures if e.path == paths[1])
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert texts.count("LPC") == 2 and "H" in texts
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert {"stable", "unstable"} <= set(labels) and any("normal form" in s for s in labels)


def test_branch_text_and_figures_read_as_the_report_asks(section):
    """The rules tests/test_report_paper.py applies to the whole quick report, on this part
    alone: no ASCII mathematics or identifiers in the prose, legends at least 7 pt at print
    size, captions naming the line styles the legends draw."""
    text, paths, ctx = section
    prose = re.sub(r"(?<!\\)\$.*?(?<!\\)\$", " ", text, flags=re.S)
    prose = re.sub(r"\\(label|ref|includegraphics)(\[[^]]*\])?\{[^}]*\}", " ", prose)
    for pattern in (r"->|<-", r"\binf\b", r"\b[a-z]+\\?_[a-z]+\b", r"\w\^\w", r"\s(<=|>=)\s"):
        assert not re.search(pattern, prose), pattern
    styles = {"-": "solid", "--": "dashed", ":": "dotted", "-.": "dash-dotted"}
    for entry in (e for e in ctx.figures if e.path in paths):
        scale = entry.width * report.TEXTWIDTH_IN / entry.figure.get_figwidth()
        leg = entry.figure.axes[0].get_legend()
        drawn = {
            t.get_text(): styles[h.get_linestyle()]
            for h, t in zip(leg.legend_handles, leg.get_texts(), strict=True)
        }
        assert min(t.get_fontsize() for t in leg.get_texts()) * scale >= 6.95
        for label, style in drawn.items():
            assert f"{style}: {label}" in entry.caption, (label, style)
