"""The ``symdelay`` command: a thin face over the public API.

Each sub-command lives in ``symdelay/cli/commands/<name>.py`` and defines
``register(subparsers)``; this module only collects them, runs one, and turns input errors
into one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from symdelay.core.errors import CertificationError, SymdelayInputError, VerificationError

__all__ = ["main", "build_parser", "COMMAND_MODULES"]


def _command_modules() -> tuple[str, ...]:
    """Every public module of ``symdelay.cli.commands`` (each one sub-command)."""
    from symdelay.cli import commands
    from symdelay.core.discovery import public_module_names

    return public_module_names(commands)


#: Sub-command modules, in the order ``--help`` lists them.
COMMAND_MODULES = _command_modules()


class _Parser(argparse.ArgumentParser):
    """An argparse parser whose errors are one line, exit status 2.

    Abbreviated options are refused: with many models' options, ``--mu`` must not silently
    become ``--mu1``.
    """

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message):
        self.exit(2, f"symdelay: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="symdelay",
        description="Symbolic and high-precision analysis of load balancing with action delay.",
    )
    from symdelay import __version__

    parser.add_argument("--version", action="version", version=f"symdelay {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(f".commands.{name}", __package__).register(sub)
    return parser


def main(argv=None) -> int:
    """Run the CLI; returns the exit status (0 ok, 2 bad input)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status = args.func(args)
    except SymdelayInputError as exc:
        print(f"symdelay: error: {exc}", file=sys.stderr)
        return 2
    except (CertificationError, VerificationError) as exc:
        # a computation that could not prove its answer: say so, print no number
        print(f"symdelay: could not certify the result: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("symdelay: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (``symdelay ... | head``): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return 0 if status is None else int(status)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
