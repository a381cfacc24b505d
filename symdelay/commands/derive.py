"""``symdelay derive``: write the machine-checked LaTeX derivations."""

from __future__ import annotations

import sys

from ..errors import SymdelayInputError
from ..outputs.documents_registry import write_concrete, write_documents
from ..params import as_L
from ._common import emit

__all__ = ["register", "run"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "derive",
        help="write the LaTeX derivations (all documents, or one concrete L)",
        description=(
            "Write standalone LaTeX documents whose every formula is printed from the "
            "object SymPy checked. Without --L: every document (as committed in "
            "derivations/). With --L N: the derivation for N phases."
        ),
    )
    p.add_argument("--L", help="a concrete number of phases (integer >= 1)")
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--pdf", action="store_true", help="also compile with pdflatex")
    p.set_defaults(func=run)


def _progress(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def run(args) -> int:
    if args.L is not None:
        n = as_L(args.L, allow_symbol=False)
        results = [write_concrete(n, args.out, pdf=args.pdf)]
    else:
        results = write_documents(args.out, pdf=args.pdf, progress=_progress)
    failed = [r for r in results if args.pdf and r.pdf is None]
    for r in results:
        emit(r.message if args.pdf else f"wrote {r.tex}")
    if failed:
        raise SymdelayInputError(failed[0].message)
    return 0
