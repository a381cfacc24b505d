"""The documentation typesets its formulas without a network.

Headless Chromium opens the built pages from the file system (the build of
tests/test_docs.py, made once per session); MathJax, shipped inside the site, must have
turned every formula element into an ``mjx-container`` and left no raw TeX delimiters in the
text. A copy of a page without the shipped MathJax is the control: there the same checks see
the raw ``\\(`` and no ``mjx-container``, so they can fail.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from test_docs import html_site

pytestmark = pytest.mark.slow

#: elements whose text is code or machinery, not prose: raw delimiters there are fine
SKIP = {"script", "style", "pre", "code", "textarea", "mjx-container"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source"}
RAW_TEX = re.compile(r"\\\(|\\\)|\\\[|\\\]|\$\$|\\begin\{")


class Scan(HTMLParser):
    """Formula elements (class ``math``), whether each holds an ``mjx-container``, and the
    prose text (outside SKIP elements)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, int | None]] = []  # (tag, index of the formula it opens)
        self.formulas: list[bool] = []  # one per class="math" element: typeset?
        self.containers = 0
        self.text: list[str] = []
        self.scripts: list[str] = []

    def _open_formulas(self):
        return [i for _, i in self.stack if i is not None]

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "script" and attrs.get("src"):
            self.scripts.append(attrs["src"])
        if tag == "mjx-container":
            self.containers += 1
            for i in self._open_formulas():
                self.formulas[i] = True
        if tag in VOID:
            return
        index = None
        if "math" in (attrs.get("class") or "").split():
            index = len(self.formulas)
            self.formulas.append(False)
        self.stack.append((tag, index))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        for k in range(len(self.stack) - 1, -1, -1):
            if self.stack[k][0] == tag:
                del self.stack[k:]
                return

    def handle_data(self, data):
        if not any(t in SKIP for t, _ in self.stack):
            self.text.append(data)


def scan(html: str) -> Scan:
    s = Scan()
    s.feed(html)
    s.close()
    return s


def chromium_exe() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        pytest.fail(
            "headless Chromium is needed for the docs browser test: "
            "apt-get install chromium chromium-driver (.ci/run installs them)"
        )
    return exe


def chromium(page: Path, profile: Path, *args: str) -> subprocess.CompletedProcess:
    """Open ``page`` (a file) in headless Chromium; the virtual time budget lets MathJax
    finish before the DOM is dumped or the screenshot taken."""
    return subprocess.run(
        [
            chromium_exe(),
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--no-first-run",
            "--disable-extensions",
            f"--user-data-dir={profile}",
            "--virtual-time-budget=30000",
            *args,
            page.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )


def dump_dom(page: Path, profile: Path) -> str:
    res = chromium(page, profile, "--dump-dom")
    assert res.returncode == 0 and "<html" in res.stdout, res.stderr[-2000:]
    return res.stdout


@pytest.fixture(scope="module")
def site():
    out, res = html_site()
    assert res.returncode == 0, res.stderr[-4000:]
    return out


def pages_with_formulas(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if scan(p.read_text()).formulas)


def test_mathjax_is_shipped_inside_the_site(site):
    pages = pages_with_formulas(site)
    assert {"tutorials/critical.html", "theory/hopf.html", "tutorials/stability.html"} <= {
        p.relative_to(site).as_posix() for p in pages
    }
    for page in site.rglob("*.html"):
        for src in scan(page.read_text()).scripts:
            assert "//" not in src, (page, src)  # no CDN, no absolute URL
            assert (page.parent / src.split("?")[0]).resolve().is_file(), (page, src)
    for page in pages:
        srcs = scan(page.read_text()).scripts
        assert any(s.endswith("_static/mathjax/tex-chtml.js") for s in srcs), page
    # the fonts the CommonHTML output asks for are there too
    assert list((site / "_static/mathjax/output/chtml/fonts/woff-v2").glob("MathJax_Main-*.woff"))


def test_every_formula_is_typeset_in_headless_chromium(site, tmp_path):
    for page in pages_with_formulas(site):
        before = scan(page.read_text())
        assert RAW_TEX.search("".join(before.text)), page  # the raw TeX is there to typeset
        after = scan(dump_dom(page, tmp_path / "profile"))
        name = page.relative_to(site)
        assert after.formulas and all(after.formulas), (name, after.formulas)
        assert after.containers >= len(before.formulas), name
        raw = RAW_TEX.findall("".join(after.text))
        assert not raw, (name, raw)


def test_without_the_shipped_mathjax_the_check_fails(site, tmp_path):
    # the control: the same page with MathJax left out of the site stays raw TeX
    copy = tmp_path / "site"
    shutil.copytree(site / "_static", copy / "_static", ignore=shutil.ignore_patterns("mathjax"))
    (copy / "tutorials").mkdir()
    shutil.copy(site / "tutorials" / "critical.html", copy / "tutorials" / "critical.html")
    after = scan(dump_dom(copy / "tutorials" / "critical.html", tmp_path / "profile"))
    assert after.formulas and not any(after.formulas) and after.containers == 0
    assert RAW_TEX.search("".join(after.text))
