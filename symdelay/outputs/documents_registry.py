"""Finding and writing the standalone documents of :mod:`symdelay.outputs.documents`."""

from __future__ import annotations

from pathlib import Path

from symdelay.core.latex import document
from symdelay.outputs.derivation_tex import concrete_L_section, model_section
from symdelay.outputs.pdf import PdfResult, compile_pdf

__all__ = ["document_modules", "write_documents", "concrete_document", "write_concrete"]


def document_modules() -> list:
    """Every document module, sorted by file name."""
    from symdelay.core.discovery import public_modules
    from symdelay.outputs import documents

    return sorted(public_modules(documents), key=lambda m: m.FILENAME)


def write_documents(out_dir, *, pdf: bool = False, progress=None) -> list[PdfResult]:
    """Write every registered document into ``out_dir`` (and compile if ``pdf``)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    results = []
    for mod in document_modules():
        if progress:
            progress(f"writing {mod.FILENAME}")
        path = out / mod.FILENAME
        path.write_text(mod.build())
        results.append(compile_pdf(path) if pdf else PdfResult(path, None, f"wrote {path}"))
    return results


def concrete_document(n: int) -> str:
    """A document for one concrete L: model, equilibrium, modes, Jacobians, polynomials."""
    body = (
        f"\\section{{The action-delay model with $L = {n}$}}\n"
        + model_section(example_L=n)
        + concrete_L_section(n)
    )
    return document(f"Action delay with $L = {n}$ phases", body)


def write_concrete(n: int, out_dir, *, pdf: bool = False) -> PdfResult:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"action_delay_L{n}.tex"
    path.write_text(concrete_document(n))
    return compile_pdf(path) if pdf else PdfResult(path, None, f"wrote {path}")
