"""The package's layers: imports run one way, core <- model <- analysis <- models <- outputs
<- sweep <- cli, and no module imports itself back through others (no cycle).

Measured from the source (``ast``): every ``import``/``from ... import`` of a ``symdelay``
module, at module level and inside functions alike. The package facade ``symdelay/__init__``
(the public names, loaded lazily), its namespace of the founding model's conveniences
``symdelay/founding``, the families' namespaces ``symdelay/sqd`` and ``symdelay/lb`` and
``__main__`` stand above every layer.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "symdelay"
LAYERS = ("core", "model", "analysis", "models", "outputs", "sweep", "cli")
RANK = {name: i for i, name in enumerate(LAYERS)}
#: above every layer: the public names (resolved lazily, by module name) and the entry point
FACADE = ("symdelay", "symdelay.founding", "symdelay.sqd", "symdelay.lb", "symdelay.__main__")

#: imports that still run against the layering (issue 18 allows at most 5); each is named so
#: that a new one fails the test, and removing one means deleting its line here.
KNOWN_UPWARD: set[tuple[str, str]] = set()

#: import cycles still to be cut (none); a new cycle fails the test.
KNOWN_CYCLES: list[set[str]] = []


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _imports(modules: dict[str, Path]) -> dict[str, set[str]]:
    graph = {}
    for name, path in modules.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                if node.module.startswith("symdelay"):
                    # ``from pkg import submodule`` takes the submodule; other names come
                    # from the module itself
                    for a in node.names:
                        sub = f"{node.module}.{a.name}"
                        found.add(sub if sub in modules else node.module)
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name.startswith("symdelay"))
        graph[name] = {m for m in found if m in modules and m != name}
    return graph


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in RANK else None


def _cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = set()
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.add(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(comp)
    return out


@pytest.fixture(scope="module")
def graph():
    return _imports(_modules())


def test_every_module_is_in_a_layer():
    strays = [m for m in _modules() if m not in FACADE and not _layer(m)]
    assert strays == []


def upward(graph) -> set[tuple[str, str]]:
    return {
        (a, b)
        for a, targets in graph.items()
        for b in targets
        if _layer(a) and _layer(b) and RANK[_layer(b)] > RANK[_layer(a)]
    }


def test_imports_run_downwards(graph):
    found = upward(graph)
    assert found - KNOWN_UPWARD == set(), "new imports against the layering"
    assert KNOWN_UPWARD - found == set(), "an upward import is gone: delete it from KNOWN_UPWARD"
    assert len(found) <= 5


def test_no_import_cycle(graph):
    found = [c for c in _cycles(graph)]
    new = [c for c in found if not any(c <= k for k in KNOWN_CYCLES)]
    assert new == [], "new import cycles"
    stale = [k for k in KNOWN_CYCLES if not any(c <= k for c in found)]
    assert stale == [], "a known cycle is gone: delete it from KNOWN_CYCLES"


def test_analysis_draws_and_prints_nothing():
    """Analysis and model-family modules never import matplotlib; figures are registered from
    the outputs side (``symdelay.core.display.plot``)."""
    offenders = []
    for name, path in _modules().items():
        if _layer(name) not in ("core", "model", "analysis", "models"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [(name, n) for n in names if n.split(".")[0] == "matplotlib"]
    assert offenders == []


def test_the_measurement_sees_a_planted_cycle():
    """The cycle finder and the layer check are themselves checked on a small graph."""
    g = {
        "symdelay.core.a": {"symdelay.analysis.b"},
        "symdelay.analysis.b": {"symdelay.core.a"},
        "symdelay.cli.c": {"symdelay.core.a"},
    }
    assert _cycles(g) == [{"symdelay.core.a", "symdelay.analysis.b"}]
    assert upward(g) == {("symdelay.core.a", "symdelay.analysis.b")}
