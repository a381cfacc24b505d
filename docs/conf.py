"""Sphinx configuration of the symdelay documentation (``make docs``)."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import symdelay  # noqa: E402

# MathJax ships with the site: the formulas typeset without a network. The PyPI package
# sphinx-mathjax-offline (in the docs extra) holds MathJax 3.2.2; setup() below copies it into
# _build/html/_static/mathjax, and mathjax_path is relative to _static, so every page loads
# MathJax from inside the site, never from a CDN.
MATHJAX_PACKAGE = "sphinx-mathjax-offline"
_spec = importlib.util.find_spec(MATHJAX_PACKAGE)
if _spec is None or not _spec.submodule_search_locations:
    raise RuntimeError(
        "MathJax for the offline site is missing: install the docs extra "
        f"(pip install -e '.[docs]', or make venv), which brings the package {MATHJAX_PACKAGE}"
    )
MATHJAX_DIR = Path(next(iter(_spec.submodule_search_locations))) / "static" / "mathjax"

project = "symdelay"
author = "the symdelay authors"
copyright = "the symdelay authors"
release = version = symdelay.__version__

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinx.ext.doctest",
    "sphinx.ext.viewcode",
]

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb"}
exclude_patterns = ["_build", "jupyter_execute", ".jupyter_cache", "**.ipynb_checkpoints"]
root_doc = "index"

# MyST: $...$ and $$...$$ math, ::: fences, definition lists
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3

# Notebooks are executed on every build (they are tests): an error fails the build.
nb_execution_mode = os.environ.get("SYMDELAY_DOCS_EXECUTE", "force")
nb_execution_timeout = 300
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_merge_streams = True
# Markdown that a cell displays (the theory pages' derivations) is parsed as MyST, with the
# extensions above: its $$...$$ become math nodes that MathJax typesets (CommonMark would
# leave them as text and eat the backslash of every \\).
nb_render_markdown_format = "myst"

mathjax_path = "mathjax/tex-chtml.js"  # relative: _static/mathjax/ (see MATHJAX_DIR)

# API reference: autodoc with NumPy-style sections (napoleon)
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": False}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_preserve_defaults = True
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False

html_theme = "alabaster"
html_title = f"symdelay {release}"
html_theme_options = {"description": "Load balancing with action delay, symbolically"}
html_static_path: list[str] = []

# doctest builder: the pages' >>> examples run in a fresh namespace with symdelay imported
doctest_global_setup = "import symdelay"
# only the explicit doctest blocks of the pages (the docstrings' examples run under pytest)
doctest_test_doctest_blocks = ""
if nb_execution_mode == "off":  # the doctest pass: no kernel ran, so no lexer was reported
    suppress_warnings = ["myst-nb.lexer", "mystnb.lexer"]


def _copy_mathjax(app, exc):
    """After an HTML build, put MathJax where ``mathjax_path`` points."""
    if exc is None and app.builder.format == "html":
        from sphinx.util.fileutil import copy_asset

        copy_asset(str(MATHJAX_DIR), str(Path(app.outdir) / "_static" / "mathjax"))


def setup(app):
    if not (MATHJAX_DIR / mathjax_path.split("/", 1)[1]).is_file():
        raise RuntimeError(f"{MATHJAX_PACKAGE} holds no {mathjax_path} under {MATHJAX_DIR}")
    app.connect("build-finished", _copy_mathjax)
