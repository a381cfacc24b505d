"""The documentation is part of the tests: the Sphinx site builds with warnings as errors,
every tutorial notebook executes without error, the pages' doctests pass; result objects
display in Jupyter (HTML tables, LaTeX, ``.plot()`` Axes)."""

from __future__ import annotations

import atexit
import functools
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt

import symdelay

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SPHINX = [sys.executable, "-m", "sphinx"]


def build(builder: str, out: Path, **env):
    env = {**{k: v for k, v in os.environ.items() if k != "MPLBACKEND"}, **env}
    return subprocess.run(
        [*SPHINX, "-E", "-W", "--keep-going", "-q", "-b", builder, str(DOCS), str(out)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=900,
    )


@functools.cache
def html_site() -> tuple[Path, subprocess.CompletedProcess]:
    """The HTML site, built once per test session (notebooks executed): the directory and
    the finished sphinx-build. tests/test_docs_browser.py opens the same build."""
    tmp = Path(tempfile.mkdtemp(prefix="symdelay-docs-"))
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    out = tmp / "html"
    return out, build("html", out, SYMDELAY_DOCS_EXECUTE="force")


def notebooks() -> list[Path]:
    return sorted(p for p in DOCS.rglob("*.md") if "file_format: mystnb" in p.read_text())


@pytest.mark.slow
def test_site_builds_warning_free_with_every_notebook_executed():
    out, res = html_site()
    assert res.returncode == 0, res.stderr[-4000:]
    assert (out / "index.html").is_file()
    nbs = notebooks()
    names = {p.relative_to(DOCS).with_suffix("").as_posix() for p in nbs}
    assert {
        f"tutorials/{n}"
        for n in (
            "derivation",
            "stability",
            "critical",
            "information-delays",
            "action-vs-information",
            "cycles",
            "roots",
            "stochastic",
            "own-model",
            "sweeps",
            "maps",
        )
    } <= names
    assert {"theory/characteristic-equation", "theory/hopf"} <= names
    for p in nbs:
        page = (out / p.relative_to(DOCS)).with_suffix(".html").read_text()
        # executed: every code cell has its output; no error output anywhere
        cells = len(re.findall(r'class="cell(?: tag_[\w-]+)* docutils container"', page))
        outputs = page.count('class="cell_output docutils container"')
        assert cells > 0 and outputs > 0, p
        assert "Traceback" not in page, p
        # no error in any cell's output (the code itself may name an exception it catches)
        for output in page.split('class="cell_output')[1:]:
            output = re.split(r'class="cell(?: tag_[\w-]+)* docutils container"', output)[0]
            assert "Error</span>" not in output and "output traceback" not in output, p
    sweeps = (out / "tutorials" / "sweeps.html").read_text()
    assert "spectral_abscissa" in sweeps and "<img" in sweeps
    model = (out / "model.html").read_text()
    assert "The model symdelay is built around" in model
    api = (out / "api.html").read_text()
    for name in (
        "symdelay.critical",
        "symdelay.charpoly",
        "symdelay.founding.critical_theta",
        "symdelay.sweep.runner.run",
        "symdelay.sweep.to_xarray",
        "symdelay.founding.characteristic_roots",
    ):
        assert f'id="{name}"' in api, name


def test_pages_doctests_pass(tmp_path):
    out = tmp_path / "doctest"
    res = build("doctest", out, SYMDELAY_DOCS_EXECUTE="off")
    assert res.returncode == 0, res.stderr[-4000:]
    report = (out / "output.txt").read_text()
    tests = int(re.search(r"(\d+) tests", report).group(1))
    assert tests >= 3 and "0 failures in tests" in report


def test_results_display_in_jupyter():
    curve = symdelay.founding.critical_theta(2, 1, 1, [1, 2])
    html = curve._repr_html_()
    assert html.startswith("<table>") and "<td>9.00000000000000</td>" in html
    ax = curve.plot()
    assert isinstance(ax, matplotlib.axes.Axes)
    assert list(ax.get_lines()[0].get_ydata()) == [9.0, 8.0]

    rs = symdelay.founding.characteristic_roots(2, 1, 1, 3, 1, dps=15)
    assert rs.to_json()["roots"][0]["re"] in rs._repr_html_()
    ax = rs.plot()
    xs = sorted(ax.get_lines()[-1].get_xdata())
    assert xs == sorted(float(z.value.real) for z in rs)

    st = symdelay.founding.stability_conditions(2)._repr_latex_()
    assert (
        st.startswith("$")
        and symdelay.tex(
            symdelay.founding.stability_conditions(2).closed_forms["critical_lam_theta"]
        )
        in st
    )
    assert "stable for every" in symdelay.founding.stability_conditions(1)._repr_latex_()
    founding = symdelay.build_model("erlang", L=1, mu=1, lam=1, theta=2, D=1)
    v = symdelay.variance(founding)
    assert v._repr_latex_().endswith(symdelay.tex(v.var_x_over_eta) + "$")

    sim = symdelay.simulate(founding, eta=50, T=1, seed=1, replications=2)
    ax = sim.plot()  # q1 and q2 (the states not in a numbered group), each replication
    lines = ax.get_lines()
    assert len(lines) == 4 and list(lines[1].get_ydata()) == list(sim["q1"][1])
    assert list(lines[3].get_ydata()) == list(sim["q2"][1])
    fl = symdelay.fluid(founding, T=1)
    ax = fl.plot()
    assert [ln.get_label() for ln in ax.get_lines()] == ["q1", "q2"]
    ax = fl.plot(states=["q1", "z1_1"])
    assert list(ax.get_lines()[1].get_ydata()) == list(fl["z1_1"])


def test_critical_curve_shading_reaches_the_top_of_the_axes():
    # the unstable side of theta_c(D) is everything above the curve: the shading must reach
    # the top of the axes however high that is (another curve drawn, set_ylim), never stop
    # at a fixed multiple of the curve, and must not widen the axes itself
    D = np.logspace(-1, 2, 60)
    low = symdelay.founding.critical_theta(8, 1, 1, D)
    high = symdelay.founding.critical_theta(2, 1, 1, D)
    th_low = np.array([float(p.theta_c) for p in low.points])
    ax = low.plot()
    ax.figure.canvas.draw()
    assert max(ax.get_ylim()) < 1.1 * th_low.max()  # autoscaled on the curve, not the shade
    shade = ax.collections[-1]
    high.plot(ax=ax)
    for top in (None, 0.9 * max(ax.get_ylim()), 5 * th_low.max()):
        if top is not None:
            ax.set_ylim(0, top)
        ax.figure.canvas.draw()
        path = shade.get_paths()[0]
        ytop = max(ax.get_ylim())
        assert ytop > 2 * th_low.max()
        for d, th in zip(D[::7], th_low[::7], strict=True):
            assert path.contains_point((d, 0.5 * (th + ytop)))  # above the curve: shaded
            assert path.contains_point((d, 0.999 * ytop))  # up to the top
            assert not path.contains_point((d, 0.9 * th))  # below the curve: not shaded
    plt.close("all")


def test_kappa_star_legend_stands_clear_of_the_curves_and_the_limit_line():
    import sympy as sp

    from symdelay.outputs.plots_inflight import kappa_star_figure

    Ls = [1, 2, 5, 10, 50]
    # curves that climb into the upper right, up to just under the dashed L = oo line
    values = {f"$\\mu D = {m}$": [0.5 * (1 - 1 / (1 + m * L)) for L in Ls] for m in (1, 4, 40)}
    fig = kappa_star_figure(Ls, values, limit=sp.Rational(1, 2))
    fig.draw_without_rendering()  # runs the layout, as savefig does
    ax = fig.axes[0]
    legend = fig.legends[0].get_window_extent()
    assert not legend.overlaps(ax.get_window_extent())  # outside the axes: covers nothing
    dashed = [ln for ln in ax.get_lines() if ln.get_linestyle() == "--"]
    assert len(dashed) == 1 and list(dashed[0].get_ydata()) == [0.5, 0.5]
    assert dashed[0].get_label() == "$L = \\infty$: $\\frac{1}{2}$"  # printed from the object
    assert max(ax.get_ylim()) > 0.5  # the line is inside the axes, not on their edge


def test_report_states_the_stability_domain_as_formulas():
    from symdelay.core.latex import relations_tex
    from symdelay.outputs.sections import stability

    body = stability.build(None).body
    first = body.split("\n", 1)[0]
    for relation in ("$\\mu > 0$", "$\\gamma > 0$", "$\\lambda > 0$", "$\\theta \\geq 0$"):
        assert relation in first
    assert "textgreater" not in body and "theta >=" not in body and " mu " not in first
    # the difference mode as SymPy prints it: (r + mu)(r + gamma)^L + lam theta gamma^L
    assert (
        "\\gamma^{L} \\lambda \\theta + \\left(\\gamma + r\\right)^{L} \\left(\\mu + r\\right)"
        in first
    )
    for bad in ("mu >> 0", "__import__('os') > 0", "x > 0", "mu > a"):
        with pytest.raises(symdelay.core.errors.VerificationError):
            relations_tex(bad)


def test_delay_shape_legend_leaves_the_dashed_limits_uncovered():
    from types import SimpleNamespace

    import mpmath

    from symdelay.outputs.plots_models import critical_vs_scv_figure

    def pt(family, D, scv, th):
        return SimpleNamespace(family=family, D=D, scv=scv, theta_c=th)

    points = [pt("erlang", D, 1 / L, 2 + 3 / L + D) for D in (1, 4) for L in (2, 3, 5)]
    points += [pt("hyperexp", D, s, mpmath.inf) for D in (1, 4) for s in (1.5, 4)]
    fig = critical_vs_scv_figure(points, {1: 1.2, 4: 1.05})  # limits near the bottom right
    fig.draw_without_rendering()
    ax = fig.axes[0]
    legend = fig.legends[0]
    assert not legend.get_window_extent().overlaps(ax.get_window_extent())
    labels = [t.get_text() for t in legend.get_texts()]
    assert "deterministic (SCV 0), $D = 1$" in labels and "deterministic (SCV 0), $D = 4$" in labels
    # the legend names the infinite critical value and where it is drawn (the row at infinity)
    assert any(t.startswith("hyperexp: stable for every $\\theta > 0$") for t in labels), labels
    shown = {t.get_text() for t in ax.get_xticklabels() if t.get_text()}
    assert shown == {"0.2", "0.5", "1", "2"}  # round values, no colliding minor labels


def test_hopf_figures_keep_their_legends_off_the_lines():
    from symdelay.outputs.plots_hopf import critical_curves_figure, stability_region_figure

    D = np.logspace(-2, 2, 50)
    th = 1 + 4 * (np.log10(D) ** 2) + 1 / D  # a U-shaped boundary, high at both ends
    fig = critical_curves_figure(D, {"$L = 2$": th, "$L = 3$": th / 2}, ["$L = 1$"], (1, "floor"))
    fig.draw_without_rendering()
    ax = fig.axes[0]
    assert not fig.legends[0].get_window_extent().overlaps(ax.get_window_extent())
    assert not ax.texts  # the no-curve note is a legend entry, not a box over the floor line
    assert any("$L = 1$: stable" in t.get_text() for t in fig.legends[0].get_texts())

    fig = stability_region_figure(D, th, "$L = 4$", 3.0, [(0.5, 2.0)], D_star=1.0)
    fig.draw_without_rendering()
    ax = fig.axes[0]
    assert not fig.legends[0].get_window_extent().overlaps(ax.get_window_extent())
    dashed = [ln for ln in ax.get_lines() if ln.get_linestyle() in ("--", ":")]
    assert {float(ln.get_xdata()[0]) for ln in dashed} == {0.5, 1.0, 2.0}
