"""``symdelay derive``: write the machine-checked LaTeX derivations."""

from __future__ import annotations

import sys

from symdelay.cli import door
from symdelay.cli.commands._common import add_common, emit
from symdelay.core.budget import check_budget, power_cost
from symdelay.core.errors import SymdelayInputError

__all__ = ["register", "run"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "derive",
        help="write the LaTeX derivations (all documents, or one concrete L)",
        description=(
            "Write standalone LaTeX documents whose every formula is printed from the "
            "object SymPy checked. Without --L: every document (as committed in "
            "derivations/). With --L N: the derivation for N phases. A failed pdflatex "
            "build exits with status 1 and names its log."
        ),
    )
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--pdf", action="store_true", help="also compile with pdflatex")
    add_common(p, run, force=True, json=False)


def _progress(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def run(args) -> int:
    from symdelay.core.params import as_L
    from symdelay.models.erlang.founding import FoundingModel
    from symdelay.outputs.documents_registry import write_concrete, write_documents
    from symdelay.outputs.report import prepare_output_dir

    model = door.model_from_args(args)  # the founding model builds no table here
    if not isinstance(model, FoundingModel):
        results = [_model_derivation(args, model)]
    else:
        door.refuse(
            args,
            "mu",
            "lam",
            "theta",
            "D",
            why="the founding model's documents are symbolic; for a model at numbers use "
            "--model-file FILE --set NAME=VALUE",
        )
        n = None if args.L is None else as_L(args.L, allow_symbol=False)
        if n is not None:  # the checked derivation grows like L^2 (L = 40: about 20 s)
            check_budget(
                f"the derivation for L = {n}",
                power_cost(n, 0.013, 2),
                force=args.force,
                shrink="a smaller --L",
            )
        prepare_output_dir(args.out)
        try:
            if n is not None:
                results = [write_concrete(n, args.out, pdf=args.pdf)]
            else:
                results = write_documents(args.out, pdf=args.pdf, progress=_progress)
        except OSError as exc:
            raise SymdelayInputError(
                f"cannot write the documents in {args.out} ({exc.strerror}): "
                "choose a writable directory with --out"
            ) from None
    failed = [r for r in results if r.failed]
    missing = [r for r in results if args.pdf and r.pdf is None and not r.failed]
    for r in results:
        if not r.failed and r not in missing:
            emit(r.message if args.pdf else f"wrote {r.tex}")
    if missing:  # --pdf without pdflatex: the message says how to install it
        raise SymdelayInputError(missing[0].message)
    for r in failed:  # not the user's input: its own status, and where the log is
        print(f"symdelay: {r.message}", file=sys.stderr)
    return 1 if failed else 0


def _model_derivation(args, model):
    """The derivation document of a transition-table model (its symbolic analysis), written
    (and compiled with ``--pdf``): its :class:`~symdelay.outputs.pdf.PdfResult`."""
    from pathlib import Path

    from symdelay.analysis.entry import require_table
    from symdelay.analysis.roots import check_analysis_cost
    from symdelay.outputs.model_tex import model_document
    from symdelay.outputs.pdf import PdfResult, compile_pdf
    from symdelay.outputs.report import prepare_output_dir

    require_table(model, "derivation")
    check_analysis_cost(model, force=getattr(args, "force", False))
    prepare_output_dir(args.out)
    slug = "".join(c if c.isalnum() else "_" for c in model.name).strip("_")[:60] or "model"
    path = Path(args.out) / f"{slug}.tex"
    try:
        path.write_text(model_document(model))
    except OSError as exc:
        raise SymdelayInputError(
            f"cannot write {path} ({exc.strerror}): choose a writable directory with --out"
        ) from None
    return compile_pdf(path) if args.pdf else PdfResult(path, None, f"wrote {path}")
