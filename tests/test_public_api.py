"""The public API resolves and explains itself.

* Every name of ``symdelay.__all__`` and ``symdelay.founding.__all__`` imports in a fresh
  interpreter (no other import before it) and is the object of the module it names.
* The top level has one model-first name per quantity; the loose-argument conveniences of
  the founding model live in ``symdelay.founding``; no helper module leaks out.
* Every public callable documents each parameter of its signature in a numpydoc
  ``Parameters`` section, nothing else there, and (functions) what it returns, in the manner
  of python-control's ``control/tests/docstrings_test.py``.
* Every ``symdelay.X`` (``from symdelay import X``) that README.md, CONTRIBUTING.md and the
  documentation under docs/ name exists.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from numpydoc.docscrape import NumpyDocString

import symdelay
from symdelay import founding
from symdelay.core.result import Result

ROOT = Path(__file__).resolve().parent.parent

# ------------------------------------------------------------------ names resolve

FRESH = """
import importlib, json, sys
out = {}
for space in ("symdelay", "symdelay.founding"):
    package = importlib.import_module(space)
    for name in package.__all__:
        try:
            exec(f"from {space} import {name} as obj", globals())
        except Exception as exc:
            out[f"{space}.{name}"] = f"{type(exc).__name__}: {exc}"
            continue
        home = importlib.import_module(package._PUBLIC[name])
        same = getattr(home, name, None) is obj
        defined = getattr(obj, "__module__", home.__name__) == home.__name__
        out[f"{space}.{name}"] = "ok" if same and defined else f"not the object of {home.__name__}"
print(json.dumps(out))
"""


def test_every_public_name_imports_in_a_fresh_interpreter():
    """Each name once, in the order of ``__all__``, in one new process: a name that resolves
    only after another module was imported fails here (``from symdelay import charpoly``
    did, by the test suite's import order hiding it)."""
    proc = subprocess.run(
        [sys.executable, "-c", FRESH], capture_output=True, text=True, check=True, cwd=ROOT
    )
    found = json.loads(proc.stdout)
    expected = [f"symdelay.{n}" for n in symdelay.__all__]
    expected += [f"symdelay.founding.{n}" for n in founding.__all__]
    assert sorted(found) == sorted(expected)
    assert {k: v for k, v in found.items() if v != "ok"} == {}


def test_each_name_alone_in_a_fresh_interpreter():
    """The names of the earlier failure, each the first import of its process."""
    for line in (
        "from symdelay import charpoly; import symdelay.analysis.charpoly as m; "
        "assert charpoly is m.charpoly",
        "from symdelay import spectrum; import symdelay.analysis.spectrum as m; "
        "assert spectrum is m.spectrum",
        "import symdelay; assert symdelay.founding.critical_theta.__name__ == 'critical_theta'",
        "import symdelay; assert callable(symdelay.sweep.run)",
    ):
        subprocess.run([sys.executable, "-c", line], check=True, cwd=ROOT)


def test_the_check_sees_a_name_that_does_not_resolve():
    code = FRESH.replace(
        "for name in package.__all__:", "for name in [*package.__all__, 'nonexistent']:"
    ).replace("package._PUBLIC[name]", "package._PUBLIC.get(name, 'json')")
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    found = json.loads(proc.stdout)
    assert found["symdelay.nonexistent"].startswith("ImportError")
    assert found["symdelay.founding.nonexistent"].startswith("ImportError")


def test_import_symdelay_stays_light():
    code = "import sys, symdelay; print(sorted(m for m in ('sympy', 'numpy', 'mpmath') if m in sys.modules))"
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert proc.stdout.strip() == "[]"


# ------------------------------------------------------------------ one name per quantity

#: the model-first entries, one per quantity (CONTRIBUTING.md's table)
ENTRIES = {
    "charpoly": "symdelay.analysis.charpoly",
    "stability": "symdelay.analysis.stability",
    "roots": "symdelay.analysis.roots",
    "critical": "symdelay.analysis.critical",
    "window": "symdelay.analysis.window",
    "extremum": "symdelay.analysis.window",
    "worst_delay": "symdelay.analysis.window",
    "simulate": "symdelay.analysis.stochastic",
    "fluid": "symdelay.analysis.fluid",
    "variance": "symdelay.analysis.stochastic",
    "spectrum": "symdelay.analysis.spectrum",
    "normal_form": "symdelay.analysis.normal_form",
    "limit_cycle": "symdelay.analysis.cycles",
    "cycles": "symdelay.analysis.continuation",
    "stability_map": "symdelay.analysis.stability_map",
    "verify": "symdelay.analysis.claims",
    "minimal_conditions": "symdelay.analysis.decide",
}

#: names that left the top level: the loose-argument conveniences (now in
#: ``symdelay.founding``) and second names of a quantity that has its entry
MOVED = {
    "critical_theta": "founding",
    "instability_window": "founding",
    "characteristic_roots": "founding",
    "stability_conditions": "founding",
    "characteristic_polynomial": "founding",
    "derive_characteristic_equation": "founding",
    "kappa_star": "founding",
    "unstable_theta": "founding",
    "optimize_weights": "founding",
    "fluid_limit_study": "founding",
    "ActionDelayModel": "founding",
    "critical_parameter": "symdelay.analysis.crossing",
    "polynomial_roots": "symdelay.analysis.polyroots",
    "is_stable": "symdelay.analysis.stability",
}


def test_the_top_level_entries_are_the_model_first_ones():
    for name, module in ENTRIES.items():
        entry = getattr(symdelay, name)
        assert entry is getattr(importlib.import_module(module), name), name
        first = next(iter(inspect.signature(entry).parameters))
        assert first == "model", (name, first)


def test_loose_argument_functions_are_not_at_the_top_level():
    for name, home in MOVED.items():
        assert name not in symdelay.__all__
        with pytest.raises(AttributeError):
            getattr(symdelay, name)
        where = founding if home == "founding" else importlib.import_module(home)
        assert callable(getattr(where, name))
    # every function at the top level takes a model first, or is not about a model at all
    for name in symdelay.__all__:
        obj = getattr(symdelay, name)
        if inspect.isfunction(obj) and name not in ENTRIES:
            params = list(inspect.signature(obj).parameters)
            assert name in {
                "build_model",
                "builtin_models",
                "load_toml",
                "routh_hurwitz",
                "tex",
                "parse_output",
            }, (name, params)


def test_every_founding_convenience_takes_loose_numbers():
    """Nothing in ``symdelay.founding`` takes a model: those are the entries' job."""
    for name in founding.__all__:
        params = list(inspect.signature(getattr(founding, name)).parameters)
        assert "model" not in params, name


def test_no_helper_leaks_and_dir_lists_the_public_names():
    assert "importlib" not in vars(symdelay) or not hasattr(symdelay, "importlib")
    with pytest.raises(AttributeError):
        symdelay.importlib  # noqa: B018
    assert set(symdelay.__all__) <= set(dir(symdelay))
    assert {n for n in dir(symdelay) if not n.startswith("_")} == {
        *symdelay.__all__,
        "founding",
        "sweep",
    }
    assert dir(founding) == sorted(founding.__all__)
    assert len(set(symdelay.__all__)) == len(symdelay.__all__)
    assert not set(symdelay.__all__) & set(founding.__all__) - {
        # the same quantity's loose convenience bears the entry's name in the namespace
        "simulate",
        "fluid",
        "variance",
        "worst_delay",
        "spectrum",
        "normal_form",
        "limit_cycle",
        "verify",
    }


# ------------------------------------------------------------------ docstrings

#: classes a user builds: their docstrings document the constructor (numpydoc's way), and
#: their alternative constructors (classmethods) are checked like functions
BUILT_BY_USERS = {"Model", "PhaseType", "ActionDelayModel"}


def public_callables():
    """``(qualified name, object, is a class)`` of every public callable: functions of
    both namespaces, the classes users build and those classes' public classmethods."""
    out = []
    for space in (symdelay, founding):
        for name in space.__all__:
            obj = getattr(space, name)
            qual = f"{space.__name__}.{name}"
            if inspect.isclass(obj):
                if name in BUILT_BY_USERS:
                    out.append((qual, obj, True))
                    for attr, raw in vars(obj).items():
                        if isinstance(raw, classmethod) and not attr.startswith("_"):
                            out.append((f"{qual}.{attr}", getattr(obj, attr), False))
                continue
            assert callable(obj), qual
            out.append((qual, obj, False))
    return out


def test_classes_not_checked_are_records_or_errors():
    """A class at the top level is built by users (checked below), a record an entry
    returns (a :class:`Result`) or a part of one (a frozen dataclass: a certified root), or
    an exception."""
    for space in (symdelay, founding):
        for name in space.__all__:
            obj = getattr(space, name)
            if inspect.isclass(obj) and name not in BUILT_BY_USERS:
                frozen = dataclasses.is_dataclass(obj) and obj.__dataclass_params__.frozen
                assert issubclass(obj, (Result, Exception)) or frozen, name


def _documented(doc: NumpyDocString, section: str) -> dict[str, str]:
    """``{name: description}`` of a section; ``a, b : type`` documents both names."""
    out = {}
    for p in doc[section]:
        for name in p.name.split(","):
            out[name.strip()] = " ".join(p.desc).strip()
    return out


def _expected(sig: inspect.Signature, documented: dict) -> set[str]:
    names = set()
    for name, par in sig.parameters.items():
        if name in ("self", "cls") or name.startswith("_"):
            continue
        if par.kind is inspect.Parameter.VAR_POSITIONAL:
            if f"*{name}" in documented:
                names.add(f"*{name}")
            continue
        if par.kind is inspect.Parameter.VAR_KEYWORD:
            names.add(f"**{name}")  # what a **kwargs takes is always said
            continue
        names.add(name)
    return names


def docstring_problems(qual: str, obj, is_class: bool) -> list[str]:
    raw = obj.__doc__
    if not raw:
        return [f"{qual}: no docstring"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an unknown section heading is an error
        try:
            doc = NumpyDocString(inspect.cleandoc(raw))
        except Exception as exc:  # reported, with the object's name
            return [f"{qual}: the docstring does not parse as numpydoc: {exc}"]
    problems = []
    if not " ".join(doc["Summary"]).strip():
        problems.append(f"{qual}: no summary line")
    documented = _documented(doc, "Parameters") | _documented(doc, "Other Parameters")
    expected = _expected(inspect.signature(obj), documented)
    for name in sorted(expected - set(documented)):
        problems.append(f"{qual}: parameter {name!r} is not documented")
    for name in sorted(set(documented) - expected):
        problems.append(f"{qual}: documents {name!r}, which is not a parameter")
    for name, desc in documented.items():
        if name in expected and not desc:
            problems.append(f"{qual}: parameter {name!r} has no description")
    if not is_class:
        returns = doc["Returns"] or doc["Yields"]
        if not returns or not any(" ".join(r.desc).strip() or r.type for r in returns):
            problems.append(f"{qual}: no Returns section")
    return problems


@pytest.mark.parametrize(
    "qual, obj, is_class", public_callables(), ids=[q for q, *_ in public_callables()]
)
def test_every_parameter_is_documented(qual, obj, is_class):
    assert docstring_problems(qual, obj, is_class) == []


def test_the_docstring_check_sees_what_is_missing():
    def f(model, dps=15, *, method="auto", **options):
        """Something.

        Parameters
        ----------
        model : Model
            The model.
        digits : int
            Not a parameter.
        method : str

        Notes
        -----
        No Returns section.
        """

    problems = docstring_problems("f", f, False)
    assert "f: parameter 'dps' is not documented" in problems
    assert "f: parameter '**options' is not documented" in problems
    assert "f: documents 'digits', which is not a parameter" in problems
    assert "f: parameter 'method' has no description" in problems
    assert "f: no Returns section" in problems
    assert len(problems) == 5

    def g(x):
        """Text.

        Parameter
        ---------
        x : int
            Misspelled heading.
        """

    assert any("does not parse" in p for p in docstring_problems("g", g, False))


def test_the_entries_document_their_path_and_precision():
    """The options every entry shares mean the same everywhere: ``method`` names the three
    paths and ``dps`` says it is digits."""
    for name in ENTRIES:
        doc = NumpyDocString(inspect.cleandoc(getattr(symdelay, name).__doc__))
        params = _documented(doc, "Parameters")
        if "method" in params:
            for word in ('"auto"', '"generic"', '"specialised"'):
                assert word in params["method"] or word in " ".join(
                    p.type for p in doc["Parameters"] if p.name == "method"
                ), (name, word)
        if "dps" in params:
            assert "digits" in params["dps"], name


# ------------------------------------------------------------------ names in the documents


def documents() -> list[Path]:
    pages = [ROOT / "README.md", ROOT / "CONTRIBUTING.md"]
    pages += sorted(
        p
        for p in (ROOT / "docs").rglob("*")
        if p.suffix in (".md", ".rst", ".ipynb", ".txt") and "_build" not in p.parts
    )
    return pages


def _text(path: Path) -> str:
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text())["cells"]
        return "\n".join("".join(c.get("source", "")) for c in cells)
    return path.read_text()


DOTTED = re.compile(r"(?<![\w/.-])symdelay(?:\.[A-Za-z_]\w*)+")
FROM_IMPORT = re.compile(r"^\s*from\s+(symdelay(?:\.\w+)*)\s+import\s+(\([^)]*\)|[^\n#]+)", re.M)
IMPORT = re.compile(r"^\s*import\s+(symdelay(?:\.\w+)*)", re.M)


def named(text: str) -> set[str]:
    """Every dotted ``symdelay.X.Y`` and every name imported from a symdelay module."""
    found = set(DOTTED.findall(text))
    for module, names in FROM_IMPORT.findall(text):
        for item in names.strip("()").replace("\\\n", " ").split(","):
            name = item.split(" as ")[0].strip()
            if name:
                found.add(f"{module}.{name}")
    found.update(IMPORT.findall(text))
    return found


def resolve(dotted: str):
    """The object ``dotted`` names: the longest prefix that is a module, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        module = ".".join(parts[:cut])
        try:
            obj = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name is not None and not module.startswith(exc.name):
                raise  # a module that exists failed to import one of its own
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ModuleNotFoundError(dotted)


def test_every_name_the_documents_use_exists():
    missing = []
    for page in documents():
        for name in sorted(named(_text(page))):
            try:
                resolve(name)
            except (AttributeError, ImportError) as exc:
                missing.append(f"{page.relative_to(ROOT)}: {name} ({exc})")
    assert missing == []


def test_the_document_check_sees_a_missing_name():
    text = (
        "Call `symdelay.critical_theta(2, 1, 1, D)` or symdelay.founding.critical_theta;\n"
        "```python\nfrom symdelay import roots, charpoly as cp, nothing_here\n"
        "from symdelay.founding import (\n    kappa_star,\n    kappa_nowhere,\n)\n```\n"
        "see symdelay/models/erlang/ and symdelay.models.erlang.hopf.curve.critical_theta."
    )
    names = named(text)
    assert names == {
        "symdelay.critical_theta",
        "symdelay.founding",
        "symdelay.founding.critical_theta",
        "symdelay.roots",
        "symdelay.charpoly",
        "symdelay.nothing_here",
        "symdelay.founding.kappa_star",
        "symdelay.founding.kappa_nowhere",
        "symdelay.models.erlang.hopf.curve.critical_theta",
    }
    bad = set()
    for name in names:
        try:
            resolve(name)
        except (AttributeError, ImportError):
            bad.add(name)
    assert bad == {
        "symdelay.critical_theta",
        "symdelay.nothing_here",
        "symdelay.founding.kappa_nowhere",
    }
