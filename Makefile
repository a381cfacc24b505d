# Two commands on a fresh machine:  make report  and  make test.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
TEX_PACKAGES := texlive-latex-base texlive-latex-recommended

.PHONY: report test lint format derivations bench tex clean docs

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

venv: $(STAMP)

# Install pdflatex when we can (root with apt-get); otherwise the report still writes
# the .tex and the figures and says which command would install what is missing.
tex:
	@if ! command -v pdflatex >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing pdflatex ($(TEX_PACKAGES))"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(TEX_PACKAGES) >/dev/null; \
	  else \
	    echo "pdflatex not found; to build PDFs run: sudo apt-get install $(TEX_PACKAGES)"; \
	  fi; \
	fi

report: $(STAMP) tex
	$(VENV)/bin/symdelay report --out out/

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

# pytest includes tests/test_docs.py: the Sphinx site built with warnings as errors, its
# notebooks executed and its doctests run
test: lint
	$(PY) -m pytest

# the documentation site: docs/_build/html/index.html (tutorial notebooks executed); it
# reads offline: MathJax comes from the docs extra (sphinx-mathjax-offline) into _static/
docs: $(STAMP)
	$(VENV)/bin/sphinx-build -W --keep-going -b html docs docs/_build/html
	@echo "open docs/_build/html/index.html"

derivations: $(STAMP)
	$(VENV)/bin/symdelay derive --out derivations/

# the benchmark peers (SimPy, GillesPy2) come from the bench extra; Octave and DDE-BIFTOOL,
# when present, are found by benchmarks/bench_e2e.py (it says how to install them otherwise)
bench: $(STAMP)
	$(PY) -m pip install --quiet -e '.[test,bench]'
	$(PY) benchmarks/run.py

clean:
	rm -rf out .pytest_cache docs/_build docs/jupyter_execute
