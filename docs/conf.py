"""Sphinx configuration of the symdelay documentation (``make docs``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import symdelay  # noqa: E402

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
