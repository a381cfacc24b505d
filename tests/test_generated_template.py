"""The C kernel's template (symdelay/analysis/kernel/kernel_template.c) and the function that
fills it: every placeholder and section resolved, a disagreement between template and writer
refused, the template shipped as package data and covered by the caches' keys (an edited
template regenerates and rebuilds)."""

from __future__ import annotations

import re
import shutil
import tomllib
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from symdelay.analysis.kernel import cache, cwriter
from symdelay.analysis.simulate import GeneratedKernel
from symdelay.core.errors import VerificationError

ROOT = Path(__file__).resolve().parent.parent


def test_fill_substitutes_and_keeps_the_chosen_sections():
    t = "a {{X}}\n//@ if A\nin A\n//@ if B\nin B\n//@ else\nnot B {{Y}}\n//@ endif\n//@ endif\nz\n"
    assert cwriter.fill(t, {"X": 1, "Y": "y"}, {"A": True, "B": False}) == "a 1\nin A\nnot B y\nz\n"
    assert cwriter.fill(t, {"X": 1, "Y": "y"}, {"A": True, "B": True}) == "a 1\nin A\nin B\nz\n"
    assert cwriter.fill(t, {"X": 1, "Y": "y"}, {"A": False, "B": False}) == "a 1\nz\n"


@pytest.mark.parametrize(
    "template, values, sections",
    [
        ("{{X}} {{Y}}\n", {"X": 1}, {}),  # a placeholder without a value
        ("{{X}}\n", {"X": 1, "Z": 2}, {}),  # a value without a placeholder
        ("//@ if A\nx\n//@ endif\n", {}, {}),  # a section without a value
        ("x\n", {}, {"A": True}),  # a value without a section
        ("//@ if A\nx\n", {}, {"A": True}),  # not closed
        ("x\n//@ endif\n", {}, {}),  # closed twice
    ],
)
def test_fill_refuses_a_disagreement(template, values, sections):
    with pytest.raises(VerificationError):
        cwriter.fill(template, values, sections)


def _kernels():
    x, y = sp.symbols("x y")
    lam, theta = sp.symbols("lam theta")
    e = np.eye(2, dtype=int)
    w1, w2 = sp.exp(-theta * x), sp.exp(-theta * y)
    yield GeneratedKernel([x], [("in", [1], lam), ("out", [-1], x)], {lam: 2})  # linear
    yield GeneratedKernel(  # a lazy class (the routing of arrivals) and a general rate
        [x, y],
        [
            ("a1", e[0], lam * w1 / (w1 + w2)),
            ("a2", e[1], lam * w2 / (w1 + w2)),
            ("s1", -e[0], x),
            ("s2", -e[1], y**2),
        ],
        {lam: 1, theta: 2},
    )


def test_the_generated_source_is_the_template_resolved():
    """No placeholder or section marker is left, and every line of the template outside the
    sections and placeholders is in the source as it is (so the library's hash covers it)."""
    fixed, depth = [], 0  # the lines outside every section, without a placeholder
    for ln in cwriter.template_text().splitlines():
        depth += ln.startswith("//@ if") - ln.startswith("//@ endif")
        if depth == 0 and "//@" not in ln and "{{" not in ln:
            fixed.append(ln)
    assert len(fixed) > 150
    for k in _kernels():
        assert not re.search(r"\{\{[A-Z]", k.c_source)  # no placeholder
        assert not re.search(r"^\s*//@", k.c_source, re.MULTILINE)  # no section marker
        lines = set(k.c_source.splitlines())
        assert all(ln in lines for ln in fixed)


def test_the_template_is_package_data():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = data["tool"]["setuptools"]["package-data"]["symdelay"]
    assert "analysis/kernel/kernel_template.c" in patterns
    assert (ROOT / "symdelay" / "analysis" / "kernel" / "kernel_template.c").is_file()


def test_an_edited_template_changes_the_generation_key(tmp_path):
    """The generation cache's key covers every file of the generator, the template
    included: an edited template is generated again (and its source, hence its library's
    name, changes)."""
    here = Path(cwriter.__file__).parent
    copy = tmp_path / "kernel"
    copy.mkdir()
    for path in [*here.glob("*.py"), *here.glob("*.c")]:
        shutil.copy(path, copy / path.name)
    assert cache._package_digest(copy) == cache.GENERATOR_DIGEST
    with open(copy / cwriter.TEMPLATE_NAME, "a") as f:
        f.write("/* edited */\n")
    assert cache._package_digest(copy) != cache.GENERATOR_DIGEST
