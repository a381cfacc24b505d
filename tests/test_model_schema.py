"""The JSON Schema of a model file (``symdelay/data/model-file.schema.json``) against the
loader that reads model files (``symdelay.model.toml_loader``).

What is compared:

* the schema is valid draft 2020-12, and states the loader's own constants: its keys, the
  domains, the reserved names, the longest formula (so a key added to one and not the other
  fails here);
* every model file the loader accepts validates: the shipped ``examples/models/*.toml`` and
  every model text of the test suite, collected from ``tests/*.py`` (see :func:`suite_texts`);
* every model file the loader refuses for a structural reason (an unknown key, a value of the
  wrong type, a missing key, an unknown domain, an empty list, a bad name) is refused by the
  schema too: a table of mutations applied to every accepted file, and random values of a
  wrong type in every slot of the file (hypothesis);
* the shipped file is found through ``symdelay.model.schema_path()`` and printed by
  ``symdelay models --schema``.

What the schema cannot see (the loader refuses these when it reads the file; the tests
below check that the schema accepts them, as an editor would): the contents of a rate (its
syntax, the names it uses, its sign on the state space, its nesting depth, numbers of more
than 100 digits), cross-references (a change or a symmetry naming an unknown state, a value
for an undeclared parameter, a name that is both a state and a parameter, a state in two
cycles), cycles of unequal lengths or a permutation that is not a symmetry of the table, a
value outside its parameter's domain or not a number (``"mu"``, ``nan``), and a change
written ``1.0`` (JSON Schema counts 1.0 as an integer; the loader wants an integer).
"""

from __future__ import annotations

import ast
import copy
import decimal
import functools
import importlib.resources
import json
import sys
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft7Validator, Draft202012Validator

from symdelay.core.errors import SymdelayInputError
from symdelay.model import model_from_dict, schema_path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
EXAMPLES = sorted((ROOT / "examples" / "models").glob("*.toml"))
SCHEMA = json.loads(schema_path().read_text(encoding="utf-8"))
VALIDATOR = Draft202012Validator(SCHEMA)

#: Words of the loader's refusals that the schema states too (a key, a type, a kind, an
#: empty list, a name's spelling): the schema must refuse such a file.
STRUCTURAL = (
    "unknown key",
    "missing key",
    "' must be a ",
    "must be a [[transitions]] table",
    "names must be strings",
    "swap must be a list of cycles",
    "must hold one key, swap",
    "[values] must map",
    "[latex] must map",
    "must be true or false",
    "has domain",
    "parameters must map names to domains",
    "is not a plain identifier",
    "is reserved",
    "names is empty",
    "is listed twice",
    "no [[transitions]]",
    "change is zero",
    "needs a non-empty name",
    "each cycle must list two or more states",
    "empty expression",
)
#: Refusals the schema states only in part: a state twice in one cycle (not in two cycles),
#: a change 0.5 or "1" (not 1.0).
EITHER = ("appears in two cycles", "must be an integer")


def schema_errors(instance) -> list[str]:
    """The schema's complaints about a parsed model file (empty: valid)."""
    return sorted(f"{list(e.absolute_path)}: {e.message}" for e in VALIDATOR.iter_errors(instance))


def as_loaded(instance):
    """The tables as the loader reads them: floats as the decimals they print."""
    if isinstance(instance, dict):
        return {k: as_loaded(v) for k, v in instance.items()}
    if isinstance(instance, list):
        return [as_loaded(v) for v in instance]
    if isinstance(instance, float):
        return decimal.Decimal(repr(instance))
    return instance


@functools.cache
def _verdict(text: str) -> str | None:
    data = tomllib.loads(text, parse_float=decimal.Decimal)
    return loader_verdict_of(data)


def loader_verdict_of(data: dict) -> str | None:
    """``None`` if the loader accepts the tables, else its one-line refusal."""
    try:
        model_from_dict(copy.deepcopy(data), source="m.toml")
    except SymdelayInputError as exc:
        return str(exc)
    return None


def loader_verdict(text: str) -> str | None:
    """The loader's verdict on a TOML text (``None``: accepted), once per text."""
    return _verdict(text)


# ------------------------------------------------------------------ the texts of the suite


def _fold(node, names=None):
    """The value of a string expression made of literals (``"a" + "b"``, ``"9" * 3``), the
    module's string constants (``names``) and ``.format`` calls on them with literal
    arguments (``_QUEUES.format(lag="", y1="q1")``)."""
    names = names or {}
    if isinstance(node, ast.Constant) and isinstance(node.value, str | int):
        return node.value
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
    ):
        template = _fold(node.func.value, names)
        args = [_fold(a, names) for a in node.args]
        kwargs = {k.arg: _fold(k.value, names) for k in node.keywords}
        if not isinstance(template, str) or None in args or None in kwargs.values():
            return None
        if None in kwargs:  # a ** argument
            return None
        try:
            return template.format(*args, **kwargs)
        except (IndexError, KeyError, ValueError):
            return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Mult):
        left, right = _fold(node.left, names), _fold(node.right, names)
        if (
            left is None
            or right is None
            or any(isinstance(x, int) and x > 200_000 for x in (left, right))
        ):
            return None
        try:
            out = left + right if isinstance(node.op, ast.Add) else left * right
        except TypeError:
            return None
        return out if isinstance(out, str) and len(out) < 200_000 else None
    return None


def _fills(node) -> list[str]:
    """The literal texts an argument may stand for (both arms of ``a if c else b``)."""
    if isinstance(node, ast.IfExp):
        return _fills(node.body) + _fills(node.orelse)
    value = _fold(node)
    return [value] if isinstance(value, str) else []


def _module_texts(path: Path, examples: dict[str, str]) -> dict[str, str]:
    """The model texts one test module builds from literals: its string constants that hold
    a ``[state]`` table, and each of them (and each shipped example, which the suite reads
    and edits) with every ``.replace(old, new)`` of the module applied whose arguments are
    literals; a placeholder a helper fills from its argument (``birth_death(tmp_path,
    "a*x")`` -> ``BIRTH_DEATH.replace("RATE", rate)``) is filled with each literal the
    module passes for it."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bases, pairs = {}, []
    placeholders = {}  # function name -> [(argument index, keyword, placeholder)]
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef):
            continue
        params = [a.arg for a in fn.args.args]
        for call in ast.walk(fn):
            if (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute)
                and call.func.attr == "replace"
                and len(call.args) >= 2
                and isinstance(call.args[1], ast.Name)
                and call.args[1].id in params
                and isinstance(_fold(call.args[0]), str)
            ):
                arg = call.args[1].id
                placeholders.setdefault(fn.name, []).append(
                    (params.index(arg), arg, _fold(call.args[0]))
                )
    names = {}  # the module's string constants, for the .format templates built on them
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Name) and isinstance(_fold(stmt.value), str):
                names[target.id] = _fold(stmt.value)
    for node in ast.walk(tree):
        value = _fold(node, names)
        if isinstance(value, str) and "[state]" in value and "transitions" in value:
            bases[f"{path.name}:{node.lineno}"] = value
        if not isinstance(node, ast.Call):
            continue
        is_replace = isinstance(node.func, ast.Attribute) and node.func.attr == "replace"
        if is_replace and len(node.args) >= 2 and isinstance(_fold(node.args[0]), str):
            pairs += [(_fold(node.args[0]), new) for new in _fills(node.args[1])]
        if isinstance(node.func, ast.Name) and node.func.id in placeholders:
            for index, keyword, old in placeholders[node.func.id]:
                given = [k.value for k in node.keywords if k.arg == keyword]
                given += node.args[index : index + 1]
                for arg in given:
                    pairs += [(old, new) for new in _fills(arg)]
    texts = dict(bases)
    source = path.read_text(encoding="utf-8")
    shipped = {f"{path.name}:{n}": text for n, text in examples.items() if n in source}
    for name, text in [*bases.items(), *shipped.items()]:
        for k, (old, new) in enumerate(pairs):
            if old in text and old != new:
                texts[f"{name}+replace{k}"] = text.replace(old, new)
                if text.count(old) > 1:
                    texts[f"{name}+replace{k}x1"] = text.replace(old, new, 1)
    return texts


#: helpers of the suite that write model files, and where they are defined
GENERATORS = {
    "two_queue_toml": "test_decide",
    "founding_toml": "test_model_layer",
    "three_server_text": "test_equivariant_hopf",
}


def _generated() -> dict[str, object]:
    """Every call of a generator with literal arguments in the suite, called."""
    out = {}
    sys.path.insert(0, str(TESTS))
    try:
        for path in sorted(TESTS.glob("test_*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                    continue
                if node.func.id not in GENERATORS:
                    continue
                try:
                    args = [ast.literal_eval(a) for a in node.args]
                    kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
                except ValueError:
                    continue  # an argument that is not a literal (a parametrized L)
                module = __import__(GENERATORS[node.func.id])
                made = getattr(module, node.func.id)(*args, **kwargs)
                out[f"{path.name}:{node.lineno}:{node.func.id}"] = made
    finally:
        sys.path.remove(str(TESTS))
    return out


@functools.lru_cache(maxsize=1)
def suite_texts() -> dict[str, str]:
    """Every model text of the suite, by where it comes from. Collected from the source of
    ``tests/*.py``, not listed by hand, so a model text added to a test is checked here:
    literals holding a ``[state]`` table, the same with the ``.replace`` edits and helper
    placeholders of their module filled in (:func:`_module_texts`), and the results of the
    generators :data:`GENERATORS` at their literal call sites. Texts built from f-strings
    elsewhere are not seen; those in the suite are edits of the shipped examples with
    transitions added in the same format."""
    examples = {p.name: p.read_text(encoding="utf-8") for p in EXAMPLES}
    texts = {}
    for path in sorted(TESTS.glob("test_*.py")):
        if path.name == Path(__file__).name:
            continue
        texts.update(_module_texts(path, examples))
    for name, made in _generated().items():
        if isinstance(made, str):
            texts[name] = made
    return texts


@functools.lru_cache(maxsize=1)
def corpus() -> tuple:
    """``(origin, tables for the schema, loader verdict)`` of every model file: the examples,
    the suite's texts that are TOML (the others the loader refuses as not TOML, before any
    key is read), and the generated tables."""
    out = []
    for path in EXAMPLES:
        text = path.read_text(encoding="utf-8")
        out.append((f"examples/models/{path.name}", tomllib.loads(text), loader_verdict(text)))
    for name, text in sorted(suite_texts().items()):
        try:
            data = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, ValueError, RecursionError):
            continue
        out.append((name, data, loader_verdict(text)))
    for name, made in sorted(_generated().items()):
        if isinstance(made, dict):
            out.append((name, made, loader_verdict_of(as_loaded(made))))
    return tuple(out)


@pytest.fixture(scope="module")
def files():
    return corpus()


# ------------------------------------------------------------------ (a) the schema itself


def test_schema_is_valid_draft_2020_12():
    Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert SCHEMA["$id"] and SCHEMA["title"]
    # editors built on an older draft read the same keywords: the schema is valid draft 7
    Draft7Validator.check_schema({k: v for k, v in SCHEMA.items() if k != "$schema"})


def _properties(node, path=""):
    """Every ``properties`` entry of the schema with its path."""
    if isinstance(node, dict):
        for key, sub in node.get("properties", {}).items():
            yield f"{path}.{key}".lstrip("."), sub
            yield from _properties(sub, f"{path}.{key}")
        for key, sub in node.get("$defs", {}).items():
            yield from _properties(sub, key)


def test_every_property_is_described():
    described = dict(_properties(SCHEMA))
    assert len(described) >= 13
    for path, sub in described.items():
        target = sub
        if "$ref" in sub and "description" not in sub:
            target = SCHEMA["$defs"][sub["$ref"].rsplit("/", 1)[1]]
        assert len(target.get("description", "")) > 20, path


def test_schema_states_the_loaders_constants():
    """The keys, domains, reserved names and formula length the loader uses."""
    from symdelay.core import parsing
    from symdelay.model import toml_loader
    from symdelay.model.core import DOMAINS, RESERVED

    assert set(SCHEMA["properties"]) == toml_loader._TOP
    transition = SCHEMA["$defs"]["transition"]
    assert set(transition["properties"]) == set(toml_loader._TRANSITION_KEYS)
    assert tuple(SCHEMA["$defs"]["domain"]["enum"]) == DOMAINS
    assert len(SCHEMA["$defs"]["domain"]["x-taplo"]["docs"]["enumValues"]) == len(DOMAINS)
    reserved = SCHEMA["$defs"]["identifier"]["allOf"][1]["not"]["enum"]
    assert set(reserved) == RESERVED
    assert transition["properties"]["rate"]["maxLength"] == parsing._MAX_LENGTH


# ------------------------------------------------------------------ (b) accepted files


def test_the_suite_has_model_texts(files):
    """The collector finds the model texts of every test module that writes one."""
    accepted = [name for name, _, verdict in files if verdict is None]
    writers = {p.name for p in TESTS.glob("test_*.py") if "[[transitions]]" in p.read_text("utf-8")}
    writers.discard(Path(__file__).name)
    seen = {name.split(":")[0].split("+")[0] for name in accepted}
    # test_stability_map.py builds its one text with f-strings from the erlang2 example;
    # test_bautin_l2.py builds its texts with f-strings and functions and validates them
    # against this schema itself
    assert writers - seen <= {"test_stability_map.py", "test_bautin_l2.py"}, writers - seen
    assert len(accepted) >= 20, accepted


def test_every_accepted_model_file_validates(files):
    accepted = 0
    for name, data, verdict in files:
        if verdict is None:
            assert schema_errors(data) == [], name
            accepted += 1
    assert accepted >= len(EXAMPLES)


def test_refusals_of_the_suite_agree_with_the_schema(files):
    """Each refused text of the suite differs from an accepted one in one place: refused for
    a structural reason, the schema refuses it too; for a reason the schema cannot see (a
    rate, a cross-reference, a value: see the module's docstring), the schema accepts it,
    as an editor would."""
    structural = semantic = 0
    for name, data, verdict in files:
        if verdict is None or any(w in verdict for w in EITHER):
            continue
        if any(w in verdict for w in STRUCTURAL):
            assert schema_errors(data), (name, verdict)
            structural += 1
        else:
            assert schema_errors(data) == [], (name, verdict)
            semantic += 1
    assert structural >= 2 and semantic >= 5, (structural, semantic)


# ------------------------------------------------------------------ (c) refused files


def _first(data, key):
    return data[key][0]


#: name -> edit of a parsed model file (in place) that the loader refuses for a structural
#: reason; ``None`` where the edit does not apply to the file (no symmetry)
MUTATIONS = {
    "unknown top-level key": lambda d: d.update(parameter={"mu": "positive"}),
    "$schema key (taplo's other way; use the #:schema comment)": lambda d: d.update(
        {"$schema": "model-file.schema.json"}
    ),
    "unknown key in a transition": lambda d: _first(d, "transitions").update(comment="x"),
    "rates for rate": lambda d: _first(d, "transitions").update(
        rates=_first(d, "transitions").pop("rate")
    ),
    "unknown key in [state]": lambda d: d["state"].update(initial=[0]),
    "unknown key in [symmetry]": lambda d: (
        d["symmetry"].update(cycles=d["symmetry"].pop("swap")) if "symmetry" in d else None
    ),
    "missing name": lambda d: d.pop("name"),
    "missing parameters": lambda d: d.pop("parameters"),
    "missing state": lambda d: d.pop("state"),
    "missing names": lambda d: d["state"].pop("names"),
    "missing transitions": lambda d: d.pop("transitions"),
    "missing change": lambda d: _first(d, "transitions").pop("change"),
    "missing rate": lambda d: _first(d, "transitions").pop("rate"),
    "empty [symmetry]": lambda d: d.update(symmetry={}),
    "name a number": lambda d: d.update(name=3),
    "name blank": lambda d: d.update(name="   "),
    "description a number": lambda d: d.update(description=3),
    "parameters a string": lambda d: d.update(parameters="mu"),
    "unknown domain": lambda d: d["parameters"].update(mu="big"),
    "domain a number": lambda d: d["parameters"].update(mu=1),
    "domain capitalised": lambda d: d["parameters"].update(mu="Positive"),
    "names a string": lambda d: d["state"].update(names="q1"),
    "names empty": lambda d: d["state"].update(names=[]),
    "a name a number": lambda d: d["state"]["names"].append(3),
    "a name twice": lambda d: d["state"]["names"].append(d["state"]["names"][0]),
    "a state named r": lambda d: d["state"]["names"].append("r"),
    "a parameter named t": lambda d: d["parameters"].update(t="real"),
    "a name with __": lambda d: d["parameters"].update(__x="real"),
    "a name with a digit first": lambda d: d["state"]["names"].append("1q"),
    "a name with a dash": lambda d: d["parameters"].update({"g-1": "real"}),
    "transitions a table": lambda d: d.update(transitions={"change": {}, "rate": "1"}),
    "transitions empty": lambda d: d.update(transitions=[]),
    "a transition a string": lambda d: d["transitions"].append("mu*q1"),
    "transition name a number": lambda d: _first(d, "transitions").update(name=1),
    "change a string": lambda d: _first(d, "transitions").update(change="q1"),
    "change empty": lambda d: _first(d, "transitions").update(change={}),
    "change zero": lambda d: _first(d, "transitions").update(change={d["state"]["names"][0]: 0}),
    "change a half": lambda d: _first(d, "transitions").update(
        change={d["state"]["names"][0]: 0.5}
    ),
    "change in quotes": lambda d: _first(d, "transitions").update(
        change={d["state"]["names"][0]: "1"}
    ),
    "change true": lambda d: _first(d, "transitions").update(change={d["state"]["names"][0]: True}),
    "rate true": lambda d: _first(d, "transitions").update(rate=True),
    "rate a list": lambda d: _first(d, "transitions").update(rate=["mu", "q1"]),
    "rate empty": lambda d: _first(d, "transitions").update(rate=""),
    "rate too long": lambda d: _first(d, "transitions").update(rate="+".join(["q1"] * 7000)),
    "assume_nonnegative in quotes": lambda d: _first(d, "transitions").update(
        assume_nonnegative="true"
    ),
    "swap a string": lambda d: d.update(symmetry={"swap": "q1"}),
    "swap one cycle unbracketed": lambda d: d.update(symmetry={"swap": d["state"]["names"][:2]}),
    "a cycle of one": lambda d: d.update(symmetry={"swap": [d["state"]["names"][:1]]}),
    "a state twice in a cycle": lambda d: d.update(
        symmetry={"swap": [[d["state"]["names"][0]] * 2]}
    ),
    "values a number": lambda d: d.update(values=3),
    "a value true": lambda d: d.update(values={next(iter(d["parameters"])): True}),
    "a value a list": lambda d: d.update(values={next(iter(d["parameters"])): [1]}),
    "a value blank": lambda d: d.update(values={next(iter(d["parameters"])): " "}),
    "latex a string": lambda d: d.update(latex="z"),
    "a latex entry a number": lambda d: d.update(latex={"q1": 1}),
}


@functools.lru_cache(maxsize=1)
def accepted_bases() -> tuple:
    """The accepted files the mutations start from: the examples and the suite's smallest
    accepted texts (one per module), as parsed tables."""
    bases = {}
    for name, data, verdict in corpus():
        module = name.split(":")[0].split("+")[0]
        if verdict is None and (module not in bases or len(str(data)) < len(str(bases[module]))):
            bases[module] = data
    return tuple(sorted(bases.items()))


def test_structural_mutations_are_refused_by_both():
    refused = 0
    for base_name, base in accepted_bases():
        for name, mutate in MUTATIONS.items():
            data = copy.deepcopy(base)
            if mutate(data) is None and data == base:
                continue  # the edit does not apply (a file without symmetry)
            verdict = loader_verdict_of(as_loaded(data))
            assert verdict is not None, (base_name, name)
            assert schema_errors(data), (base_name, name, verdict)
            refused += 1
    assert refused >= len(MUTATIONS) * 3


#: the slots of a model file and the JSON types each admits
_SLOTS = {
    ("name",): {"string"},
    ("description",): {"string"},
    ("parameters",): {"object"},
    ("parameters", "mu"): {"domain"},
    ("state",): {"object"},
    ("state", "names"): {"array"},
    ("state", "names", 0): {"identifier"},
    ("transitions",): {"array"},
    ("transitions", 0): {"object"},
    ("transitions", 0, "name"): {"string"},
    ("transitions", 0, "change"): {"object"},
    ("transitions", 0, "change", "q1"): {"integer"},
    ("transitions", 0, "rate"): {"string", "number"},
    ("transitions", 0, "assume_nonnegative"): {"boolean"},
    ("symmetry",): {"object"},
    ("symmetry", "swap"): {"array"},
    ("symmetry", "swap", 0): {"array"},
    ("values",): {"object"},
    ("values", "mu"): {"string", "number"},
    ("latex",): {"object"},
    ("latex", "q1"): {"string"},
}

_SMALL = """
name = "m"
description = "two queues"
[parameters]
mu = "positive"
lam = "positive"
[values]
mu = 1
[state]
names = ["q1", "q2"]
[[transitions]]
name = "in 1"
change = { q1 = 1 }
rate = "lam"
assume_nonnegative = false
[[transitions]]
name = "in 2"
change = { q2 = 1 }
rate = "lam"
[[transitions]]
name = "out 1"
change = { q1 = -1 }
rate = "mu*q1"
[[transitions]]
name = "out 2"
change = { q2 = -1 }
rate = "mu*q2"
[symmetry]
swap = [["q1", "q2"]]
[latex]
q1 = "q_1"
"""

_JSON_TYPES = {
    "string": st.text(max_size=8),
    "integer": st.integers(-5, 5),
    "number": st.floats(allow_nan=False, allow_infinity=False).filter(lambda x: x != int(x)),
    "boolean": st.booleans(),
    "array": st.lists(st.integers(0, 3), max_size=2),
    "object": st.dictionaries(st.sampled_from(["a", "q1"]), st.integers(0, 3), max_size=2),
}


def _wrong_value(kinds: set[str]):
    """A JSON value of none of ``kinds`` (``domain``/``identifier`` are strings of a kind)."""
    kinds = set(kinds)
    if kinds & {"domain", "identifier"}:
        kinds.add("string")  # a string of the wrong kind is the mutation table's concern
    if "number" in kinds:
        kinds.add("integer")
    return st.one_of(*(s for k, s in _JSON_TYPES.items() if k not in kinds))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(sorted(_SLOTS, key=str)).flatmap(
        lambda slot: st.tuples(st.just(slot), _wrong_value(_SLOTS[slot]))
    )
)
def test_a_value_of_the_wrong_type_anywhere_is_refused_by_both(slot_value):
    """A value of a wrong JSON type in any slot of a complete model file: both refuse.
    (A float with an integer value is left out: ``1.0`` in ``change``, see the module.)"""
    slot, value = slot_value
    data = tomllib.loads(_SMALL)
    node = data
    for key in slot[:-1]:
        node = node[key]
    node[slot[-1]] = value
    assert loader_verdict_of(as_loaded(data)) is not None, (slot, value)
    assert schema_errors(data), (slot, value)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126), max_size=6))
def test_names_are_identifiers_for_both(name):
    """An ASCII parameter name: the schema's identifier rule is the loader's (both
    directions; non-ASCII letters, which both accept, are not drawn)."""
    data = {
        "name": "m",
        "parameters": {name: "positive", "mu": "positive"},
        "state": {"names": ["x"]},
        "transitions": [
            {"change": {"x": 1}, "rate": "1"},
            {"change": {"x": -1}, "rate": "mu*x"},
        ],
    }
    if name in ("x", "mu"):
        return  # a clash of names, or the same key twice: not a matter of spelling
    assert (loader_verdict_of(data) is None) == (schema_errors(data) == []), name


def test_a_non_ascii_name_is_accepted_by_both():
    data = {
        "name": "m",
        "parameters": {"λ": "positive", "mu": "positive"},
        "state": {"names": ["θ"]},
        "transitions": [
            {"change": {"θ": 1}, "rate": "λ"},
            {"change": {"θ": -1}, "rate": "mu*θ"},
        ],
    }
    assert loader_verdict_of(data) is None and schema_errors(data) == []


# ------------------------------------------------------------------ (d) the shipped file


def test_the_schema_ships_in_the_package_and_the_api_names_it():
    path = schema_path()
    assert path.is_file() and path.name == "model-file.schema.json"
    packaged = importlib.resources.files("symdelay").joinpath("data", "model-file.schema.json")
    assert Path(str(packaged)).resolve() == path
    import symdelay.model

    assert "schema_path" in symdelay.model.__all__
    # an installed wheel holds it: the package data of pyproject.toml names it
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    data = pyproject["tool"]["setuptools"]["package-data"]["symdelay"]
    assert any(path.match(f"symdelay/{pattern}") for pattern in data)


def test_models_schema_prints_it(run_cli, capsys):
    status, out, err = run_cli("models", "--schema")
    assert status == 0, err
    assert json.loads(out) == SCHEMA
    status, out, err = run_cli("models", "--schema", "--json")
    assert status == 2 and out == "" and "--schema" in err and err.count("\n") == 1
    with pytest.raises(SystemExit):
        run_cli("models", "--help")
    out = " ".join(capsys.readouterr().out.split())
    assert "--schema print the JSON Schema of a model file" in out


def test_the_reference_page_names_every_key_and_domain():
    page = (ROOT / "docs" / "model-file.md").read_text("utf-8")
    for path, _ in _properties(SCHEMA):
        key = path.rsplit(".", 1)[-1]
        assert any(f"`{form}`" in page for form in (key, f"[{key}]", f"[[{key}]]")), path
    for domain in SCHEMA["$defs"]["domain"]["enum"]:
        assert f"`{domain}`" in page, domain
    assert "model-file" in (ROOT / "docs" / "index.md").read_text("utf-8")


def test_the_reference_pages_toml_is_right():
    """Every TOML block of docs/model-file.md: a complete model file is accepted by the
    loader and valid; a fragment, put into the first complete file, is valid (the taplo
    configuration block aside)."""
    import re

    page = (ROOT / "docs" / "model-file.md").read_text("utf-8")
    blocks = [tomllib.loads(b) for b in re.findall(r"```toml\n(.*?)```", page, re.S)]
    complete = [b for b in blocks if {"name", "transitions"} <= set(b)]
    assert len(complete) >= 2 and len(blocks) >= 15
    for data in complete:
        assert loader_verdict_of(as_loaded(data)) is None, data["name"]
        assert schema_errors(data) == [], data["name"]
    for data in blocks:
        if "rule" in data:
            continue
        assert schema_errors({**complete[0], **data}) == [], data
