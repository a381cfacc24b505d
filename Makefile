# Two commands on a fresh machine:  make report  and  make test.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
TEX_PACKAGES := texlive-latex-base texlive-latex-recommended

.PHONY: report test lint format derivations bench tex system-test clean docs

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

venv: $(STAMP)

# The Debian packages each of the two commands needs: the report, pdflatex; the tests,
# pdflatex and headless Chromium with its driver (the docs and explorer browser tests).
# As root with apt-get they are installed here; otherwise the one command to run is printed
# (the report still writes its .tex and figures; the tests that need them fail under CI).
TEST_PACKAGES := $(TEX_PACKAGES) chromium chromium-driver

define install_missing
	@missing=""; \
	for pkg in $(1); do \
	  case $$pkg in \
	    texlive-latex-base) cmd=pdflatex ;; chromium) cmd=chromium ;; \
	    chromium-driver) cmd=chromedriver ;; *) cmd=$$pkg ;; \
	  esac; \
	  if [ "$$pkg" = texlive-latex-recommended ]; then \
	    kpsewhich booktabs.sty >/dev/null 2>&1 || missing="$$missing $$pkg"; \
	  elif ! command -v $$cmd >/dev/null 2>&1; then missing="$$missing $$pkg"; fi; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else \
	    echo "missing Debian packages; to install them run: sudo apt-get install$$missing"; \
	  fi; \
	fi
endef

tex:
	$(call install_missing,$(TEX_PACKAGES))

system-test:
	$(call install_missing,$(TEST_PACKAGES))

report: $(STAMP) tex
	$(VENV)/bin/symdelay report --out out/

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

# pytest includes tests/test_docs.py: the Sphinx site built with warnings as errors, its
# notebooks executed and its doctests run. The files are shared among the cores (at most
# four workers; a file stays on one worker, so its module fixtures are built once).
test: system-test lint
	$(PY) -m pytest -n auto --maxprocesses=4 --dist loadfile --durations=30

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
