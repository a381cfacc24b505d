"""The API and the command line expose the same capabilities.

For every public function of ``symdelay`` (its ``__all__``) and every entry of
``symdelay/analysis`` (the functions decorated with ``@entry_doc``), the keywords of its
signature are compared with the options of the command(s) that call it, read from the
commands' own argparse parsers:

* every keyword of the entry has a flag: ``foo_bar`` is ``--foo-bar`` (or a positional of
  that name), a range's ``lo`` and ``hi`` are one ``--range LO:HI`` when the command has it,
  other spellings are named in :data:`RENAMED`; or it is in :data:`API_ONLY` with the
  reason it has no flag;
* every option of the command has a keyword of one of the entries it calls; or it is in
  :data:`CLI_ONLY` with its reason. The model's own options (the door's ``--model``,
  ``--model-file``, ``--set`` and the family's ``--L``, ``--mu``, ... including those a
  command declares itself) are the entry's ``model`` argument.

A keyword or option added later with the same name on both sides passes without an edit
here; one added on one side only fails until it gets its flag (or keyword), or a reason in
the lists below. An entry of the lists that no longer applies fails too, so the lists stay
the true record of the differences.
"""

from __future__ import annotations

import argparse
import ast
import functools
import inspect
from pathlib import Path

import pytest

import symdelay
from symdelay.cli import build_parser

ROOT = Path(symdelay.__file__).resolve().parent

#: public function -> the command(s) that call it ("sqd simulate": a sub-command)
COMMANDS = {
    "charpoly": ("charpoly",),
    "stability": ("stability",),
    "roots": ("roots",),
    "critical": ("critical",),
    "window": ("window",),
    "worst_delay": ("worst-delay",),
    "extremum": ("worst-delay",),  # worst-delay --kind max|stable (min: worst_delay)
    "simulate": ("simulate",),
    "fluid": ("fluid",),
    "variance": ("variance",),
    "spectrum": ("spectrum",),
    "normal_form": ("normal-form",),
    "limit_cycle": ("limit-cycle",),
    "cycles": ("cycles",),
    "stability_map": ("map",),
    "verify": ("verify",),
    "minimal_conditions": ("stability",),  # stability --minimal
    "routh_hurwitz": ("routh",),
    "builtin_models": ("models",),
}

#: public functions without a command of their own, each with the reason
NO_COMMAND = {
    "load_toml": "the door's --model-file FILE.toml --set NAME=VALUE on every model command",
    "build_model": "the door's --model NAME and the family's options on every model command",
    "tex": "LaTeX of a SymPy expression for a notebook; the command line prints records "
    "(analyze --tex writes the LaTeX report)",
    "parse_output": "reads printed output back into SymPy in Python; nothing to run",
}

#: (entry, keyword) -> the flag that carries it under another name
RENAMED = {
    ("window", "vary"): "--in",
    ("normal_form", "param"): "--in",
    ("cycles", "param"): "--in",
    ("cycles", "adapt"): "--no-adapt",  # adapt=False
    ("verify", "timeout_ms"): "--timeout",  # seconds on the command line
    ("minimal_conditions", "timeout_ms"): "--timeout",  # stability --minimal --timeout
    ("routh_hurwitz", "poly"): "polynomial",  # the positional argument
    # the command's grid is evenly spaced on 0..OMEGA_MAX with --points points; an
    # arbitrary array of frequencies is the API's
    ("spectrum", "omegas"): "--omega-max",
}

#: the keywords every entry may have without a flag, with the reason
API_ONLY_ALL = {
    "model": "the door builds it: --model/--model-file/--set and the family's options",
    "method": "which path answers (the family's specialisation or the generic machinery); "
    "both give the same record (tests/_parity.py), so a flag would change nothing a user "
    "sees: the command line takes auto, benchmarks/bench_paths.py times the two",
}

#: (entry, keyword) without a flag, with the reason
API_ONLY = {
    ("simulate", "progress"): "a Python callable (a progress bar's update)",
    ("simulate", "monitor"): "a Python callable run while the kernel runs",
    ("simulate", "threads"): "speed only: each replication has its own random stream, the "
    "paths do not depend on the threads (the command uses one per core)",
    ("simulate", "chunk_events"): "speed only: events per kernel call, the result does "
    "not depend on it (Ctrl-C is checked between calls)",
    ("variance", "closed_form"): "whether the family's closed form is attached beside the "
    "computed value; the command always attaches it",
    ("minimal_conditions", "aliases"): "names for expressions inside assume=, a notebook "
    "convenience: on the command line the expression is written out in --assume",
    ("extremum", "param_lo"): "the range of --param searched is (0, oo) on the command line: "
    "extremum with param_lo / param_hi inside the range of the critical values fails to "
    "separate its breakpoints (CertificationError at any dps, e.g. the founding model L = 3, "
    "param_lo = 4.5); no flag until the entry answers there",
    ("extremum", "param_hi"): "as param_lo",
    ("critical", "float64"): "a speed switch of the family's fast path for figures and "
    "scans (the report's figure, the explorer, the claims' scans): the same solver in float64, "
    "about 14 digits and no certificate, 2.5 times faster (5000 delays of the founding model "
    "at L = 3: 0.76 s against 1.9 s); the command prints certified digits only, and its --plot "
    "runs the certified path",
}

#: options every command may have without a keyword, with the reason
CLI_ONLY_ALL = {
    "--json": "output format: the record's to_json() on stdout",
    "--plot": "output: the record's figure (record.plot() in Python)",
    "--csv": "output: the record's table written as CSV",
}

#: (command, option) without a keyword, with the reason
CLI_ONLY = {
    ("stability", "--minimal"): "selects the entry minimal_conditions instead of stability",
    ("limit-cycle", "--force"): "the command's own cost estimate of the orbits asked for, "
    "before it calls the entry (limit_cycle has no cost guard)",
    ("models", "--schema"): "prints the JSON Schema of a model file "
    "(symdelay.model.toml_loader.schema_path()), not the list of builtin_models()",
    ("cycles", "--theta"): "the model's theta (its family option), or its range LO:HI when "
    "--in is theta: lo, hi",
    ("critical", "--D"): "the model's D (the family option critical declares itself)",
    ("limit-cycle", "--theta"): "theta= of the entry (its values, a list or a range)",
}


# ------------------------------------------------------------------------- introspection
def _command_parser(command: str):
    words = command.split()
    p = build_parser(words)
    for word in words:
        sub = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction))
        p = sub.choices[word]
    return p


def _model_options(parser) -> set[str]:
    """The options that are the model: the door's groups and the family options the
    command declares itself (``own``)."""
    out = set()
    for g in parser._action_groups:
        title = g.title or ""
        if title == "model" or title.startswith("options of model"):
            for a in g._group_actions:
                out.update(s for s in a.option_strings if s.startswith("--"))
    own = parser.get_default("_door_own") or ()
    out.update("--" + name.replace("_", "-") for name in own)
    return out


@functools.cache
def command_options(command: str) -> tuple[set[str], set[str]]:
    """``(options, model options)`` of ``command``: each option by its long flag, each
    positional by its name."""
    p = _command_parser(command)
    opts = set()
    for a in p._actions:
        if isinstance(a, argparse._HelpAction | argparse._SubParsersAction):
            continue
        longs = [s for s in a.option_strings if s.startswith("--")]
        if longs:
            opts.add(longs[0])
        elif not a.option_strings:
            opts.add(a.dest)
    return opts, _model_options(p)


@functools.cache
def _definition(name: str):
    """The top-level ``def`` or ``class`` of public name ``name`` in the module that
    defines it, read from its source (importing every entry would take seconds)."""
    module = symdelay._PUBLIC[name]
    path = ROOT.parent / (module.replace(".", "/") + ".py")
    if not path.exists():
        path = ROOT.parent / module.replace(".", "/") / "__init__.py"
    tree = ast.parse(path.read_text(), str(path))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name == name:
            return node
    return None  # defined elsewhere and imported there: read it from the object


def entry_keywords(name: str) -> list[str]:
    """The public keywords of entry ``name`` (a leading underscore is private)."""
    node = _definition(name)
    if node is None:
        sig = inspect.signature(getattr(symdelay, name))
        names = [
            k for k, p in sig.parameters.items() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        ]
    else:
        a = node.args
        names = [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
    return [k for k in names if not k.startswith("_")]


def flag_of(entry: str, keyword: str, options: set[str]) -> str | None:
    """The option of ``options`` that carries ``keyword`` of ``entry``, or None."""
    if (entry, keyword) in RENAMED:
        return RENAMED[entry, keyword]
    for option in ("--" + keyword.replace("_", "-"), keyword):
        if option in options:
            return option
    if keyword in ("lo", "hi") and "--range" in options:  # a range LO:HI in one option
        return "--range"
    return None


@functools.cache
def entry_functions() -> frozenset[str]:
    """The functions of ``symdelay/analysis`` decorated with ``@entry_doc``."""
    out = set()
    for path in sorted((ROOT / "analysis").glob("*.py")):
        text = path.read_text()
        if "@entry_doc" not in text:  # parsing them all would take seconds
            continue
        tree = ast.parse(text, str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and any(
                isinstance(d, ast.Name) and d.id == "entry_doc" for d in node.decorator_list
            ):
                out.add(node.name)
    return frozenset(out)


def public_functions() -> set[str]:
    """The functions of ``symdelay.__all__`` (the records, the model classes and the errors
    are classes)."""
    out = set()
    for name in symdelay.__all__:
        node = _definition(name)
        if isinstance(node, ast.FunctionDef) or (
            node is None and inspect.isfunction(getattr(symdelay, name))
        ):
            out.add(name)
    return out


def gaps() -> tuple[list, list]:
    """``(keywords without a flag, options without a keyword)``, the allow-lists applied:
    ``[(entry, keyword, command)]`` and ``[(command, option)]``."""
    api_only, cli_only = [], []
    served: dict[str, set[str]] = {}  # command -> the keywords of the entries it calls
    for entry, commands in COMMANDS.items():
        for command in commands:
            options, _ = command_options(command)
            for k in entry_keywords(entry):
                if k in API_ONLY_ALL or (entry, k) in API_ONLY:
                    continue
                flag = flag_of(entry, k, options)
                if flag is None or flag not in options:
                    api_only.append((entry, k, command))
                else:
                    served.setdefault(command, set()).add(flag)
    for command in sorted({c for cs in COMMANDS.values() for c in cs}):
        options, model = command_options(command)
        for option in sorted(options - model - served.get(command, set())):
            if option in CLI_ONLY_ALL or (command, option) in CLI_ONLY:
                continue
            cli_only.append((command, option))
    return api_only, cli_only


# --------------------------------------------------------------------------------- tests
def test_every_public_function_and_entry_is_classified():
    """A new public function or entry names its command here, or why it has none."""
    public = public_functions()
    assert entry_functions() <= public, entry_functions() - public
    assert set(COMMANDS) | set(NO_COMMAND) == public, (set(COMMANDS) | set(NO_COMMAND)) ^ public
    assert not set(COMMANDS) & set(NO_COMMAND)


def test_every_keyword_has_a_flag_and_every_flag_a_keyword():
    api_only, cli_only = gaps()
    lines = [f"{e}(..., {k}=) has no option in 'symdelay {c}'" for e, k, c in api_only]
    lines += [f"'symdelay {c}' has {o}, no keyword of the entries it calls" for c, o in cli_only]
    assert not lines, "\n".join(lines)


def test_the_allow_lists_hold_no_stale_entry():
    """Each listed difference is still one: the keyword exists and has no flag (else the
    entry here goes), the option exists and has no keyword, a renamed flag exists."""
    stale = []
    for (entry, k), _why in API_ONLY.items():
        if k not in entry_keywords(entry):
            stale.append(f"API_ONLY ({entry}, {k}): {entry} has no keyword {k}")
            continue
        for command in COMMANDS[entry]:
            options, _ = command_options(command)
            auto = ("--" + k.replace("_", "-"), k)
            if any(o in options for o in auto):
                stale.append(f"API_ONLY ({entry}, {k}): 'symdelay {command}' has it now")
    for (entry, k), flag in RENAMED.items():
        if k not in entry_keywords(entry):
            stale.append(f"RENAMED ({entry}, {k}): {entry} has no keyword {k}")
        for command in COMMANDS[entry]:
            if flag not in command_options(command)[0]:
                stale.append(f"RENAMED ({entry}, {k}): 'symdelay {command}' has no {flag}")
    for (command, option), _why in CLI_ONLY.items():
        if option not in command_options(command)[0]:
            stale.append(f"CLI_ONLY ({command}, {option}): the command has no {option}")
    assert not stale, "\n".join(stale)


@pytest.mark.parametrize(
    ("entry", "keyword", "options", "expected"),
    [
        ("window", "lo", {"--lo", "--hi"}, "--lo"),
        ("cycles", "hi", {"--range"}, "--range"),
        ("normal_form", "lo", {"--in", "--range", "--dps"}, "--range"),  # the LO:HI option
        ("normal_form", "new_keyword", {"--new-keyword"}, "--new-keyword"),
        ("normal_form", "new_keyword", {"--in"}, None),
    ],
)
def test_the_matching_rule(entry, keyword, options, expected):
    """A same-named option (underscores as dashes) matches with no entry in the lists, and
    so does a range's lo and hi given as one --range LO:HI."""
    assert flag_of(entry, keyword, options) == expected
