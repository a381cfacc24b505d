"""The door: the model a command runs on is built here, once, from the family's declared
options (``OPTIONS`` in each family module, :class:`symdelay.core.options.Option`).

A command that takes a model calls :func:`add_model` when it builds its parser and
:func:`model_from_args` when it runs. Which family's options the parser gets is read from
the command line before parsing (``--model NAME``, ``--model-file FILE``; the founding
``erlang`` model by default; ``--kappa`` with the founding model is the ``inflight`` family, as
in earlier releases), so a command shows and accepts the options of the model it will run
and refuses, with one line, an option of another family or one the command does not use.
"""

from __future__ import annotations

import importlib
import importlib.util

from symdelay.core.errors import SymdelayInputError
from symdelay.core.exact import read_number

__all__ = [
    "Selection",
    "select",
    "family_module",
    "family_names",
    "add_model",
    "add_family",
    "model_from_args",
    "given_options",
    "CURRENT",
    "owner_of",
    "blame",
    "beyond_range",
]

DEFAULT_FAMILY = "erlang"


class Selection:
    """What the command line names: a built-in family, or a model file."""

    __slots__ = ("family", "file", "named")

    def __init__(
        self, family: str | None = DEFAULT_FAMILY, file: str | None = None, named: bool = False
    ):
        #: ``named``: the command line gave --model or --model-file (not a default)
        self.family, self.file, self.named = family, file, named

    def __repr__(self) -> str:
        return f"Selection(family={self.family!r}, file={self.file!r})"


def _value_after(argv, flag):
    for i, tok in enumerate(argv):
        if tok == flag and i + 1 < len(argv):
            return argv[i + 1]
        if tok.startswith(flag + "="):
            return tok.split("=", 1)[1]
    return None


def select(argv) -> Selection:
    """The family (or model file) ``argv`` names, read before argparse parses it."""
    argv = list(argv or [])
    file = _value_after(argv, "--model-file")
    name = _value_after(argv, "--model")
    if file is not None:
        return Selection(None, file, named=True)
    if name in (None, DEFAULT_FAMILY) and any(
        t == "--kappa" or t.startswith("--kappa=") for t in argv
    ):
        return Selection("inflight")  # the founding model with weights of jobs in flight
    if name is None:
        return Selection(DEFAULT_FAMILY)
    return Selection(name, named=True)


def family_module(name: str):
    """The module that declares family ``name`` (``INFO``, ``OPTIONS``, ``model``), imported
    alone: a family module imports its mathematics only when it builds a model."""
    if not name or not name.replace("_", "a").isalnum() or name.startswith("_"):
        raise SymdelayInputError(
            f"--model '{name}' is not a model name: use one of " + ", ".join(family_names())
        )
    spec = importlib.util.find_spec(f"symdelay.models.{name}")
    if spec is None:
        raise SymdelayInputError(f"unknown model '{name}': use one of " + ", ".join(family_names()))
    module = f"symdelay.models.{name}" + (".family" if spec.submodule_search_locations else "")
    mod = importlib.import_module(module)
    if not hasattr(mod, "INFO"):
        raise SymdelayInputError(f"unknown model '{name}': use one of " + ", ".join(family_names()))
    return mod


def family_names() -> list[str]:
    import pkgutil

    import symdelay.models as models

    out = []
    for info in pkgutil.iter_modules(models.__path__):
        if info.name.startswith("_"):
            continue
        if info.ispkg or info.name not in ("delayed_routing", "phase"):
            out.append(info.name)
    return sorted(n for n in out if n not in ("delayed_routing", "phase"))


def owner_of(flag: str) -> list[str]:
    """The families that declare the option ``flag`` (``--mu2`` -> ``['hetero']``)."""
    out = []
    for name in family_names():
        try:
            mod = family_module(name)
        except SymdelayInputError:  # pragma: no cover - a broken family
            continue
        if any(o.flag == flag for o in getattr(mod, "OPTIONS", ())):
            out.append(name)
    return out


#: the selection of the command line being parsed (set by :func:`symdelay.cli.build_parser`)
CURRENT = Selection()


def add_model(
    p, selection: Selection | None = None, *, own=(), defaults=None, refuses=None
) -> None:
    """Give parser ``p`` the model options: ``--model``, ``--model-file``, ``--set`` and the
    selected family's declared options, except those the command declares itself
    (``own``). ``defaults``: the command's defaults for some options (as text).
    ``refuses``: ``{name: why}``, options of the family the command never takes (the
    parameter it computes): left out of ``--help`` and refused with ``why`` when given."""
    import argparse

    refuses = dict(refuses or {})
    selection = CURRENT if selection is None else selection
    g = p.add_argument_group("model")
    g.add_argument(
        "--model",
        default=None,
        metavar="NAME",
        help=f"built-in model (default {DEFAULT_FAMILY}; 'symdelay models' lists them); "
        "its options are shown by 'symdelay COMMAND --model NAME --help'",
    )
    g.add_argument(
        "--model-file", default=None, metavar="FILE.toml", help="a model written as TOML"
    )
    g.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        kind="setting",
        help="a parameter value of a --model-file model (repeatable, once per name)",
    )
    p.set_defaults(_door_selection=selection, _door_own=tuple(own), _door_defaults=defaults or {})
    if selection.file is not None:
        return
    try:
        mod = family_module(selection.family)
    except SymdelayInputError:
        return  # reported when the command runs
    defaults = defaults or {}
    title = f"options of model {selection.family}"
    h = p.add_argument_group(title, mod.INFO.get("description"))
    for o in getattr(mod, "OPTIONS", ()):
        if o.name in own:
            continue
        if o.name in refuses:
            h.add_argument(
                o.flag, dest=o.name, default=None, help=argparse.SUPPRESS, refused=refuses[o.name]
            )
            continue
        default = defaults.get(o.name)
        shown = o.help + (f" (default {default})" if default is not None else "")
        kw = {"choices": o.choices} if o.choices else {}
        free = o.name if o.free or o.kind == "count" else None  # --kappa kappa, --L L
        h.add_argument(
            o.flag, dest=o.name, default=None, metavar=o.metavar, help=shown, kind=o.kind,
            own=free, **kw,
        )  # fmt: skip


def add_family(p, family: str) -> None:
    """For a command of one family that declares that family's options itself (its own
    flags and defaults): :func:`model_from_args` builds the model from them, with no
    ``--model``, ``--model-file`` or ``--set`` (``unstable-theta``, ``kappa-star``)."""
    p.set_defaults(
        _door_selection=Selection(family),
        _door_own=(),
        _door_defaults={},
        model=None,
        model_file=None,
        set=[],
    )


def parse_settings(items) -> dict:
    """``["mu=1", "lam=0.5"]`` -> ``{"mu": "1", "lam": "0.5"}``; a name given twice is refused."""
    out = {}
    for item in items or []:
        name, sep, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or not name or not value:
            raise SymdelayInputError(f"--set takes NAME=VALUE, got '{item}'")
        if name in out:
            raise SymdelayInputError(f"--set {name} is given twice: give each parameter once")
        read_number(f"--set {name}", value)  # a number, never a formula
        out[name] = value
    return out


def _family_dests(sel: Selection) -> set:
    if sel.file is not None:
        return set()
    try:
        return {o.name for o in getattr(family_module(sel.family), "OPTIONS", ())}
    except SymdelayInputError:
        return set()


#: options that describe an Erlang delay: a command's defaults for them do not apply when the
#: command line chose another delay shape (``--delay hyperexp ...``)
ERLANG_SHAPE = ("L", "D")


def _other_shape(args) -> bool:
    return getattr(args, "delay", None) not in (None, "erlang")


def given_options(args) -> dict:
    """The family options given on the command line (and the command's defaults), as text."""
    sel = args._door_selection
    if sel.file is not None:
        return {}
    mod = family_module(sel.family)
    out = {}
    for o in getattr(mod, "OPTIONS", ()):
        if o.name in args._door_own:
            continue
        value = getattr(args, o.name, None)
        if value is None and not (o.name in ERLANG_SHAPE and _other_shape(args)):
            value = args._door_defaults.get(o.name)
        if value is not None:
            out[o.name] = value
    return out


def model_from_args(args, **override):
    """The model the command line names, built once by its family (or the TOML loader);
    :func:`check` has refused what no command takes."""
    sel = args._door_selection
    if args.model_file is not None:
        from symdelay.model.core import load_toml

        if not str(args.model_file).strip():
            raise SymdelayInputError("--model-file needs a file name")
        stray = {k: v for k, v in vars(args).items() if k in _family_dests(sel) and v is not None}
        if stray:
            flag = "--" + next(iter(stray)).replace("_", "-")
            raise SymdelayInputError(
                f"{flag} is an option of a built-in model; a model file takes its parameters "
                "as --set NAME=VALUE"
            )
        return load_toml(args.model_file, **parse_settings(args.set), **override)
    mod = family_module(sel.family)
    declared = {o.name for o in getattr(mod, "OPTIONS", ())}
    for name in override:
        if name not in declared:
            flag = "--" + name.replace("_", "-")
            raise SymdelayInputError(
                f"'{args.command}' {flag} needs a model with a parameter {name}; "
                f"model {sel.family} has none"
            )
    options = {**given_options(args), **override}
    from symdelay.models import rebuildable

    return rebuildable(mod.model(**options), sel.family, options)


def model_for_sweep(args, over: str, first):
    """The model a sweep over ``over`` starts from: built without ``over`` when its family
    states that varying it is a substitution into that model (``sweep_substitution``: the
    Erlang delay's ``D`` as ``gamma = L/D``; the sweep then prepares the model once), else
    built at the first value (each point then rebuilds it)."""
    if args.model_file is None and getattr(args, over, None) is not None:
        mod = family_module(args._door_selection.family)
        hook = getattr(mod, "sweep_substitution", None)
        options = {k: v for k, v in given_options(args).items() if k != over}
        if hook is not None and hook(options, over) is not None:
            return model_from_args(args, **{over: None})
    return model_from_args(args, **{over: first})


def model_free_in(args, name: str):
    """The model, with ``name`` left free when its family declares an option ``name`` the
    command line did not give and the model would otherwise fix it (a phase-type shape's
    mean ``D``, fixed by its rates unless given: a worst delay or a window over D leaves it
    a parameter, the rates rescaled to mean D)."""
    model = model_from_args(args)
    if args.model_file is not None or name in (getattr(model, "options", None) or {}):
        return model  # a family model object that leaves its options free by itself
    names = {str(p) for p in getattr(model, "parameters", ())}
    if name in names or (name == "D" and "gamma" in names):
        return model  # a parameter already, or D of an Erlang chain with a free rate gamma
    declared = {o.name for o in getattr(family_module(args._door_selection.family), "OPTIONS", ())}
    if name in declared and getattr(args, name, None) is None:
        return model_from_args(args, **{name: name})
    return model


def need(args, *names) -> None:
    """Refuse a run that lacks options the selected model needs for this command."""
    missing = [n for n in names if getattr(args, n, None) is None]
    if missing:
        sel = args._door_selection
        who = f"model {sel.family}" if sel.file is None else sel.file
        raise SymdelayInputError(
            f"'{args.command}' with {who} needs " + ", ".join(f"--{n}" for n in missing)
        )


def refuse(args, *names, why: str) -> None:
    """Refuse options the selected model declares but this command cannot use."""
    for n in names:
        if getattr(args, n, None) is not None:
            flag = "--" + n.replace("_", "-")
            raise SymdelayInputError(f"'{args.command}' does not use {flag}: {why}")


def check(args) -> None:
    """What every command that takes a model refuses before it runs: ``--model`` with
    ``--model-file``, and ``--set`` for a built-in model (it sets a model file's parameters)."""
    if getattr(args, "model_file", None) is not None and getattr(args, "model", None) is not None:
        raise SymdelayInputError("give --model or --model-file, not both")
    file = getattr(args, "model_file", None) or getattr(args, "file", None)
    if getattr(args, "set", None) and file is None:
        family = args._door_selection.family
        raise SymdelayInputError(
            "--set is for --model-file models; a built-in model takes its options "
            f"(see 'symdelay {args.command} --model {family} --help')"
        )


def _given_numbers(args):
    """``(flag, text, Fraction)`` for every number the command line gave (in an option
    read by a number kind, or a --set value)."""
    import re

    from symdelay.core.exact import _DECIMAL_TEXT, _FRACTION_TEXT, exact_fraction

    given = getattr(args, "_given", {})
    items = [(flag, value) for _, flag, value in given.values() if isinstance(value, str)]
    settings = [v for v in getattr(args, "set", None) or [] if isinstance(v, str)]
    items += [(f"--set {n}", v) for n, _, v in (x.partition("=") for x in settings)]
    out = []
    for flag, text in items:
        for token in re.split(r"[\s,;:=\[\]]+", text):
            if _DECIMAL_TEXT.fullmatch(token) or _FRACTION_TEXT.fullmatch(token):
                try:
                    out.append((flag, token, exact_fraction(flag, token)))
                except SymdelayInputError:
                    continue
    return out


#: what a computation in double precision (or a conversion to one) raises on a number it
#: cannot hold
NUMERIC_RANGE_ERRORS = (OverflowError, ZeroDivisionError, FloatingPointError)


def beyond_range(exc: BaseException, args) -> SymdelayInputError | None:
    """A refusal naming the options the user typed for an arithmetic failure (an overflow,
    a division by a number that underflowed, an integer too long to print) of a run given
    numbers far from 1: the computation cannot hold them, which is said in one line naming
    them (exit 2), not reported as a bug. ``None`` when no such number was given (a bug)."""
    import math

    arithmetic = isinstance(exc, NUMERIC_RANGE_ERRORS) or (
        isinstance(exc, ValueError)
        and any(w in str(exc) for w in ("Exceeds the limit", "math domain", "infs or NaNs"))
    )
    if args is None or not arithmetic:
        return None

    def digits(q):  # decimal exponent of |q| (q != 0)
        return abs(math.log10(abs(q.numerator)) - math.log10(q.denominator))

    far = [(flag, text, q) for flag, text, q in _given_numbers(args) if q != 0 and digits(q) >= 12]
    if not far:
        return None
    far.sort(key=lambda item: -digits(item[2]))
    named = ", ".join(
        f"{flag} {text if len(text) <= 24 else text[:20] + '...'}" for flag, text, _ in far[:3]
    )
    if "Exceeds the limit" in str(exc):
        where = "the exact numbers this computation builds from it have more digits than Python prints (4300)"
    elif any(digits(q) > 307 for _, _, q in far):
        where = "beyond the double-precision range (about 1e-308 to 1e308) this computation uses"
    else:
        where = "too far from 1 for this computation, which overflows double precision with it"
    return SymdelayInputError(f"{named}: {where}; give values nearer 1")


def blame(exc: SymdelayInputError, args) -> SymdelayInputError:
    """The error to report for ``exc``: a model's refusal of a number too long for its
    transition table (``exc.max_digits``) names the option the user typed that holds such
    a number (``--S "[[-1e-300,0],[0,-1e300]]"``), not the transition it reached."""
    limit = getattr(exc, "max_digits", None)
    if limit is None or args is None:
        return exc
    for flag, token, q in _given_numbers(args):
        if max(abs(q.numerator), q.denominator) >= 10**limit:
            return SymdelayInputError(
                f"{flag}: {token} has more than {limit} digits as an exact fraction "
                f"(numerator or denominator); a model with a transition table takes "
                f"numbers of at most {limit} digits: give a shorter one"
            )
    return exc
