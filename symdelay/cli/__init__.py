"""The ``symdelay`` command: a thin face over the public API.

Each sub-command lives in ``symdelay/cli/commands/<name>.py`` and defines
``register(subparsers)``; this module collects them, runs one, and turns input errors into
one line on stderr and exit status 2. Its parsers hold the rules every option follows (given
twice: refused; its text read by the rule of its ``kind``; refused where it has no effect:
:class:`_Option`), and its error boundary names the options that hold numbers a computation
could not hold (:func:`symdelay.cli.door.beyond_range`).
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys

from symdelay import __version__
from symdelay.core.errors import CertificationError, SymdelayInputError, VerificationError

__all__ = ["main", "build_parser", "COMMAND_MODULES"]


def _command_modules() -> tuple[str, ...]:
    """Every public module of ``symdelay.cli.commands`` (each one sub-command)."""
    from symdelay.cli import commands
    from symdelay.core.discovery import public_module_names

    return public_module_names(commands)


#: Sub-command modules, in the order ``--help`` lists them.
COMMAND_MODULES = _command_modules()


class _Option:
    """What every option of symdelay's parsers shares (a mixin of the store actions).

    * given twice on one command line, an option is refused (argparse would keep the last);
    * ``kind=`` (a key of :data:`symdelay.core.options.READERS`): its text is read by the one
      rule of that kind, and a bad value is refused naming the flag typed;
    * ``refused="why"``: an option the command never takes (hidden from ``--help``), refused
      with the reason;
    * ``only_with={"dest": (values...)}``: the option has an effect only when option
      ``dest`` has one of these values; ``not_with=("dest", ...)``: none when one of these
      options is given.

    The last two are checked once the whole line is parsed (:func:`check_given`).
    """

    def __init__(
        self, *args, kind=None, own=None, only_with=None, not_with=(), refused=None, **kwargs
    ):
        super().__init__(*args, **kwargs)
        self.kind, self.own, self.refused = kind, own, refused
        self.only_with, self.not_with = dict(only_with or {}), tuple(not_with)

    def seen(self, parser, namespace, option_string, values):
        given = namespace.__dict__.setdefault("_given", {})
        if self.dest in given and given[self.dest][0] is self:
            before = given[self.dest][2]
            again = "" if values is None else f" ('{before}', then '{values}')"
            parser.error(f"{option_string} is given twice{again}: give it once")
        given[self.dest] = (self, option_string, values)


class _Store(_Option, argparse._StoreAction):
    def __call__(self, parser, namespace, values, option_string=None):
        self.seen(parser, namespace, option_string, values)
        setattr(namespace, self.dest, values)


class _Flag(_Option, argparse._StoreTrueAction):
    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault("_given", {})
        if self.dest not in given:  # a flag twice means the same: taken once
            given[self.dest] = (self, option_string, None)
        setattr(namespace, self.dest, True)


class _Append(_Option, argparse._AppendAction):
    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault("_given", {})
        given.setdefault(self.dest, (self, option_string, values))
        super().__call__(parser, namespace, values, option_string)


def check_given(args) -> None:
    """What the parser leaves to the end of the line, in one line each (exit 2): every
    option given is read by the rule of its ``kind`` (its text replaced by the checked one:
    an integer by its digits), then refused where it has no effect (``only_with`` /
    ``not_with`` of its declaration)."""
    from symdelay.core.options import read_option

    given = getattr(args, "_given", {})
    for action, flag, _ in given.values():
        if action.refused is not None:  # an option the command never takes (not in --help)
            raise SymdelayInputError(f"'{args.command}' takes no {flag}: {action.refused}")
    for dest, (action, flag, _) in given.items():
        if action.kind is None:
            continue
        value = getattr(args, dest)
        if isinstance(value, list):
            setattr(args, dest, [read_option(action.kind, flag, v, action.own) for v in value])
        elif isinstance(value, str):
            setattr(args, dest, read_option(action.kind, flag, value, action.own))
    for action, flag, _ in given.values():
        for other in action.not_with:
            if other in given:
                raise SymdelayInputError(
                    f"{flag} has no effect with {given[other][1]}: give one of them"
                )
        for other, values in action.only_with.items():
            if not hasattr(args, other):  # a condition of another sub-command's options
                continue
            value = getattr(args, other)
            if value not in values:
                other_flag = "--" + other.replace("_", "-")
                which = " or ".join(f"{other_flag} {v}" for v in values)
                default = "" if other in given else " (the default)"
                raise SymdelayInputError(
                    f"{flag} has no effect with {other_flag} {value}{default}: it is for {which}"
                )


class _Parser(argparse.ArgumentParser):
    """An argparse parser whose errors are one line, exit status 2.

    Abbreviated options are refused: with many models' options, ``--mu`` must not silently
    become ``--mu1``. Negative numbers in any notation (``-1e308``, ``-0.3,1.3``) are values,
    not options. Its options are :class:`_Option` s: given twice, refused; read by their
    ``kind``; refused where they have no effect.
    """

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = _NEGATIVE
        self._has_negative_number_optionals = []
        self.register("action", None, _Store)
        self.register("action", "store", _Store)
        self.register("action", "store_true", _Flag)
        self.register("action", "append", _Append)

    def error(self, message):
        prog = self.prog
        if prog == "symdelay" and _COMMAND[0]:
            prog = _innermost(self).prog
        if message.startswith("unrecognized arguments:"):
            message = _unrecognized(message, prog, self)
        self.exit(2, f"symdelay: error: {message} (see '{prog} --help')\n")


#: the command of the command line being parsed, and its words (for error messages)
_COMMAND: list = [None]
_ARGV: list = [()]

#: what argparse must read as a value: a negative number, list of numbers or range
_NEGATIVE = re.compile(r"^-(\d|\.\d|inf\b|oo\b)[\w.+\-:,/]*$", re.IGNORECASE)


def _innermost(parser):
    """The (sub-)parser of the command line being parsed: ``symdelay lb fluid ...``."""
    words = [t for t in _ARGV[0] if not t.startswith("-")]
    for word in words:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs or word not in subs[0].choices:
            break
        parser = subs[0].choices[word]
    return parser


def _unrecognized(message: str, prog: str, parser=None) -> str:
    """Say whose option an unknown flag is (another model family's, or nobody's)."""
    from symdelay.cli import door

    flags = [t for t in message.split(":", 1)[1].split() if t.startswith("--")]
    if not flags:
        return message
    flag = flags[0].split("=", 1)[0]
    inner = _innermost(parser) if parser is not None else None
    if inner is not None and "--model" not in inner._option_string_actions:
        return f"'{inner.prog}' takes no {flag}"  # a command that runs no model of a family
    sel = door.CURRENT
    if sel.file is None:
        try:
            door.family_module(sel.family)
        except SymdelayInputError as exc:
            return str(exc)
    owners = door.owner_of(flag)
    current = f"--model-file {sel.file}" if sel.file else f"model {sel.family}"
    if sel.file is None and sel.family in owners:  # the model has it, this command does not
        return f"'{prog}' takes no {flag}"
    if owners:
        if sel.file:
            return (
                f"{flag} is an option of the built-in model(s) {', '.join(owners)}; a model "
                "file takes its parameters as --set NAME=VALUE"
            )
        return (
            f"{flag} is not an option of {current}: it belongs to --model "
            + " or --model ".join(owners)
        )
    return f"{flag} is not an option of '{prog}' with {current}"


def build_parser(argv=None) -> argparse.ArgumentParser:
    """The parser for ``argv`` (default ``sys.argv[1:]``): the model options a command gets
    are those of the model the command line names (:mod:`symdelay.cli.door`)."""
    from symdelay.cli import door

    argv = sys.argv[1:] if argv is None else list(argv)
    door.CURRENT = door.select(argv)
    _COMMAND[0] = next((t for t in argv if not t.startswith("-")), None)
    _ARGV[0] = tuple(argv)
    parser = _Parser(
        prog="symdelay",
        description="Symbolic and high-precision analysis of load balancing with action delay.",
    )
    parser.add_argument("--version", action="version", version=f"symdelay {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    # a command named on the line is registered alone when its module has its name (each
    # module builds its options: all of them cost ~10 ms of every run); otherwise, and for
    # --help or a name that is no command, every module (argparse lists the choices)
    own = (_COMMAND[0] or "").replace("-", "_")
    if own in COMMAND_MODULES:
        importlib.import_module(f".commands.{own}", __package__).register(sub)
        if _COMMAND[0] in sub.choices:
            return parser
        return build_parser_all(parser, sub, skip=own)
    return build_parser_all(parser, sub)


def build_parser_all(parser, sub, skip=None):
    """Register every command module (but ``skip``, already registered) on ``sub``."""
    for name in COMMAND_MODULES:
        if name != skip:
            importlib.import_module(f".commands.{name}", __package__).register(sub)
    return parser


#: exit status of an internal error (BSD sysexits EX_SOFTWARE)
EXIT_BUG = 70


def main(argv=None) -> int:
    """Run the CLI; returns the exit status (0 ok; 2 refused: bad input, or a result that
    could not be certified, with the cause; 130 interrupted; 70 a bug of symdelay; 1 only
    for a failed external tool: pdflatex). Every error is one line on stderr."""
    args = None
    try:
        parser = build_parser(argv)
        args = parser.parse_args(argv)
        check_given(args)
        if hasattr(args, "_door_selection"):
            from symdelay.cli import door

            door.check(args)
        if getattr(args, "plot", None) is not None:  # before the work: a file it can write
            from symdelay.cli.commands._common import check_plot

            check_plot(args)
        status = args.func(args)
    except SymdelayInputError as exc:
        from symdelay.cli import door

        print(f"symdelay: error: {door.blame(exc, args)}", file=sys.stderr)
        return 2
    except CertificationError as exc:
        # a computation that could not prove its answer: no number is printed, the run is
        # refused in one line with the cause (and what to change), as bad input is
        print(f"symdelay: error: could not certify the result: {exc}", file=sys.stderr)
        return 2
    except VerificationError as exc:  # a check of symdelay's own result failed: a bug
        if os.environ.get("SYMDELAY_DEBUG"):
            raise
        text = " ".join(str(exc).split())[:300]
        print(
            f"symdelay: internal error (a bug in symdelay): a check of its own result failed: "
            f"{text}; please report it with the command line",
            file=sys.stderr,
        )
        return EXIT_BUG
    except KeyboardInterrupt:
        print("symdelay: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (``symdelay ... | head``): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except MemoryError:
        print(
            "symdelay: error: out of memory: choose smaller sizes (see the command's --help)",
            file=sys.stderr,
        )
        return 2
    except Exception as exc:  # the error boundary: a bug of ours, said in one line
        from symdelay.cli import door

        refused = door.beyond_range(exc, args)  # numbers the computation cannot hold
        if refused is not None:
            print(f"symdelay: error: {refused}", file=sys.stderr)
            return 2
        if os.environ.get("SYMDELAY_DEBUG"):
            raise
        text = " ".join(str(exc).split())[:300]
        print(
            f"symdelay: internal error (a bug in symdelay): {type(exc).__name__}: {text}; "
            "please report it with the command line (SYMDELAY_DEBUG=1 shows the traceback)",
            file=sys.stderr,
        )
        return EXIT_BUG
    return 0 if status is None else int(status)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
