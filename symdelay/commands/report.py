"""``symdelay report``: the main job, a PDF report of the founding model."""

from __future__ import annotations

import sys

from ..outputs.pdf import pdflatex_available
from ..outputs.report import write_report
from ._common import emit

__all__ = ["register", "run"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "report",
        help="write DIR/report.tex, its figures and DIR/report.pdf",
        description="Run the analysis of the founding model on its defaults and write a report.",
    )
    p.add_argument("--out", required=True, help="output directory (created if missing)")
    p.add_argument("--no-pdf", action="store_true", help="write the .tex and figures only")
    p.add_argument("--quick", action="store_true", help="smaller checks and simulations")
    p.set_defaults(func=run)


def run(args) -> int:
    result = write_report(
        args.out,
        pdf=not args.no_pdf,
        quick=args.quick,
        progress=lambda m: print(m, file=sys.stderr, flush=True),
    )
    emit(result.message)
    # a missing pdflatex is not an error (the .tex and figures are written and the message
    # says how to install it); a pdflatex that ran and failed is.
    return 1 if result.pdf is None and pdflatex_available() and not args.no_pdf else 0
