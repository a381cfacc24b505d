"""The report: every section module in :mod:`symdelay.outputs.sections`, in ``ORDER``.

``write_report(out_dir)`` writes ``report.tex`` and the figures and, when ``pdflatex`` is
available, ``report.pdf``.
"""

from __future__ import annotations

import importlib
import pkgutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from symdelay.core.errors import SymdelayInputError
from symdelay.core.latex import document
from symdelay.outputs.pdf import PdfResult, compile_pdf

__all__ = [
    "ReportContext",
    "Section",
    "figure_tex",
    "write_report",
    "section_modules",
    "prepare_output_dir",
]


def prepare_output_dir(path) -> Path:
    """Create the output directory ``path`` (and its parents) and make sure a file can be
    written in it, before any long computation; a :class:`SymdelayInputError` otherwise."""
    if not str(path).strip():
        raise SymdelayInputError("--out needs a directory name (use --out . for this one)")
    out = Path(path)
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out):
            pass
    except FileExistsError:
        raise SymdelayInputError(
            f"--out {path} exists and is not a directory: give a directory"
        ) from None
    except OSError as exc:
        raise SymdelayInputError(
            f"cannot write to the output directory {path} ({exc.strerror}): "
            "choose a writable directory with --out"
        ) from None
    return out


@dataclass
class ReportContext:
    """What a section needs to know: where to write figures, and how thorough to be."""

    out_dir: Path
    quick: bool = False

    @property
    def figures_dir(self) -> Path:
        d = self.out_dir / "figures"
        d.mkdir(parents=True, exist_ok=True)
        return d

    def save(self, fig, name: str) -> str:
        """Write ``fig`` into the figures folder; its path as the report's LaTeX names it."""
        fig.savefig(self.figures_dir / name)
        return f"figures/{name}"


def figure_tex(path: str, caption: str, width="0.8") -> str:
    """A floating figure: the image ``path`` at ``width`` of the text width, captioned."""
    return (
        "\\begin{figure}[htbp]\n\\centering\n"
        f"\\includegraphics[width={width}\\textwidth]{{{path}}}\n"
        f"\\caption{{{caption}}}\n\\end{{figure}}\n\n"
    )


@dataclass
class Section:
    """A titled LaTeX section body and the figure files it refers to."""

    title: str
    body: str
    figures: list[Path] = field(default_factory=list)

    def latex(self) -> str:
        return f"\\section{{{self.title}}}\n{self.body.rstrip()}\n\n"


def section_modules() -> list:
    """The section modules, sorted by their ``ORDER``."""
    from symdelay.outputs import sections

    mods = [
        importlib.import_module(f"{sections.__name__}.{m.name}")
        for m in pkgutil.iter_modules(sections.__path__)
        if not m.name.startswith("_")
    ]
    return sorted(mods, key=lambda m: (m.ORDER, m.__name__))


def write_report(out_dir, *, pdf: bool = True, quick: bool = False, progress=None) -> PdfResult:
    """Write ``report.tex`` (+ figures, + ``report.pdf`` if ``pdf``) into ``out_dir``.

    The sections' runs are sized here, not by a user: the cost guard is lifted for them
    (:func:`symdelay.core.budget.forced`; the whole report takes minutes)."""
    from symdelay.core.budget import forced

    out = prepare_output_dir(out_dir)
    ctx = ReportContext(out, quick=quick)
    body = []
    with forced():
        for mod in section_modules():
            if progress:
                progress(f"section: {mod.__name__.rsplit('.', 1)[-1]}")
            body.append(mod.build(ctx).latex())
    tex_path = out / "report.tex"
    tex_path.write_text(
        document("symdelay report: load balancing with action delay", "".join(body))
    )
    if not pdf:
        return PdfResult(tex_path, None, "PDF not requested")
    return compile_pdf(tex_path)
