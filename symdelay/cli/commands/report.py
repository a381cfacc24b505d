"""``symdelay report``: the main job, a PDF report of the founding model."""

from __future__ import annotations

import sys

from symdelay.cli.commands._common import emit
from symdelay.core.errors import SymdelayInputError

__all__ = ["register", "run"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "report",
        help="write DIR/report.tex, its figures and DIR/report.pdf",
        description=(
            "Run the analyses on their defaults and write a report (sections built in two "
            "worker processes). A progress bar is drawn on a terminal only: piped, "
            "redirected or under CI (CI set) nothing is written but the result line."
        ),
    )
    p.add_argument("--out", required=True, help="output directory (created if missing)")
    p.add_argument("--no-pdf", action="store_true", help="write the .tex and figures only")
    p.add_argument("--quick", action="store_true", help="smaller checks and simulations")
    p.set_defaults(func=run)


def run(args) -> int:
    from symdelay.outputs.report import prepare_output_dir, write_report

    prepare_output_dir(args.out)
    try:
        result = write_report(
            args.out,
            pdf=not args.no_pdf,
            quick=args.quick,
            progress=sys.stderr,  # a bar on a terminal only: nothing in a pipe or a log
        )
    except OSError as exc:
        raise SymdelayInputError(
            f"cannot write the report in {args.out} ({exc.strerror}): "
            "choose a writable directory with --out"
        ) from None
    # a missing pdflatex is not an error (the .tex and figures are written and the message
    # says how to install it); a pdflatex that ran and failed is, but not the user's input:
    # its own exit status 1 and the log's location.
    if result.failed:
        print(f"symdelay: {result.message}", file=sys.stderr)
        return 1
    emit(result.message)
    return 0
