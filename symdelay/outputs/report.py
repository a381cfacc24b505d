"""The report: every section module in :mod:`symdelay.outputs.sections`, in ``ORDER``.

``write_report(out_dir)`` writes ``report.tex``, ``references.bib`` and the figures and,
when ``pdflatex`` is available, ``report.pdf``. The report reads as a paper: a title with
the version and the date, a table of contents, numbered sections, every figure and table
numbered and captioned, and the papers it reproduces in a bibliography
(``symdelay/outputs/references.bib``, cited with ``\\cite``).

Sections register their figures through :meth:`ReportContext.figure`, which saves the image
and keeps the figure beside its caption (``ctx.figures``), so that a test can check every
figure's axis labels and that its caption agrees with its legend.
"""

from __future__ import annotations

import datetime
import importlib
import pkgutil
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from symdelay.core.errors import SymdelayInputError
from symdelay.core.latex import PREAMBLE
from symdelay.core.version import __version__
from symdelay.outputs.pdf import PdfResult, compile_pdf
from symdelay.outputs.progress import progress_bar

__all__ = [
    "ReportContext",
    "Section",
    "FigureEntry",
    "figure_tex",
    "table_tex",
    "as_float",
    "write_report",
    "build_sections",
    "cited_keys",
    "default_jobs",
    "plan_jobs",
    "EXPECTED_SECONDS",
    "TOGETHER",
    "section_modules",
    "prepare_output_dir",
    "report_document",
    "BIBLIOGRAPHY",
    "TITLE",
    "legible",
    "TEXTWIDTH_IN",
]

TITLE = "Load balancing with action delay: a symdelay report"

#: The BibTeX file of the papers the report reproduces (copied next to ``report.tex``).
BIBLIOGRAPHY = Path(__file__).with_name("references.bib")


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


@dataclass(frozen=True)
class FigureEntry:
    """A figure of the report: its file, label, caption and the matplotlib figure drawn
    (kept so that the tests can read its axes and legends)."""

    path: str
    label: str | None
    caption: str | None
    figure: object
    width: float | None = None


@dataclass
class ReportContext:
    """What a section needs to know: where to write figures, and how thorough to be.
    ``figures`` collects every figure registered by :meth:`figure`."""

    out_dir: Path
    quick: bool = False
    figures: list = field(default_factory=list)

    @property
    def figures_dir(self) -> Path:
        d = self.out_dir / "figures"
        d.mkdir(parents=True, exist_ok=True)
        return d

    def save(self, fig, name: str) -> str:
        """Write ``fig`` into the figures folder; its path as the report's LaTeX names it.
        The figure is registered (without a caption: :meth:`figure` gives one)."""
        fig.savefig(self.figures_dir / name)
        path = f"figures/{name}"
        self.figures.append(FigureEntry(path, None, None, fig))
        return path

    def caption(self, path: str, caption: str, width="0.9") -> str:
        """The numbered, captioned float of a figure saved before with :meth:`save`."""
        i = next(i for i, f in enumerate(self.figures) if f.path == path)
        legible(self.figures[i].figure, width)
        self.figures[i].figure.savefig(self.figures_dir / Path(path).name)
        label = "fig:" + Path(path).stem
        self.figures[i] = FigureEntry(path, label, caption, self.figures[i].figure, float(width))
        return figure_tex(path, caption, width, label=label)

    def figure(self, fig, name: str, caption: str, width="0.8") -> str:
        """Save ``fig`` as ``figures/name`` and return its numbered, captioned float
        (label ``fig:<name without suffix>``, for ``\\ref``), its type legible at
        ``width`` of the text width (:func:`legible`)."""
        legible(fig, width)
        path = self.save(fig, name)
        label = "fig:" + Path(name).stem
        self.figures[-1] = FigureEntry(path, label, caption, fig, float(width))
        return figure_tex(path, caption, width, label=label)


#: The report's text width in inches (article class, letter paper, 2.5 cm margins) and the
#: smallest type a figure may print at.
TEXTWIDTH_IN = 8.5 - 2 * 2.5 / 2.54
MIN_PRINT_PT = 7.2


def legible(fig, width) -> None:
    """Raise every legend entry, axis label and tick label of ``fig`` that would print
    below :data:`MIN_PRINT_PT` once the figure is scaled to ``width`` of the text width.

    The plotting functions draw at their own size; only the report knows the size a figure
    is printed at, so the rule is applied here, once, for every figure of the report."""
    scale = float(width) * TEXTWIDTH_IN / fig.get_figwidth()
    least = MIN_PRINT_PT / scale
    texts = []
    for leg in [*fig.legends, *(ax.get_legend() for ax in fig.axes)]:
        if leg is not None:
            texts += [*leg.get_texts(), leg.get_title()]
    for ax in fig.axes:
        texts += [ax.xaxis.label, ax.yaxis.label, ax.title]
        texts += [*ax.get_xticklabels(), *ax.get_yticklabels(), *ax.texts]
    for t in texts:
        if t.get_text() and t.get_fontsize() < least:
            t.set_fontsize(least)
    for ax in fig.axes:
        if ax.xaxis.get_ticklabels() and ax.xaxis.get_ticklabels()[0].get_fontsize() < least:
            ax.tick_params(labelsize=least)


def figure_tex(path: str, caption: str, width="0.8", label: str | None = None) -> str:
    """A floating figure: the image ``path`` at ``width`` of the text width, captioned and,
    with ``label``, labelled."""
    lab = f"\\label{{{label}}}" if label else ""
    return (
        "\\begin{figure}[htbp]\n\\centering\n"
        f"\\includegraphics[width={width}\\textwidth]{{{path}}}\n"
        f"\\caption{{{caption}}}{lab}\n\\end{{figure}}\n\n"
    )


def table_tex(
    header, rows, caption: str, *, align: str | None = None, label: str | None = None,
    size: str = "\\small", fit: bool = False,
) -> str:  # fmt: skip
    """A floating, numbered table with booktabs rules: ``header`` (LaTeX cells), ``rows``
    (lists of LaTeX cells, or a string for a full-width line), the caption above it.
    ``fit`` scales a wide table to the text width."""
    align = align or "l" * len(header)
    body = []
    for r in rows:
        if isinstance(r, str):
            body.append(f"\\multicolumn{{{len(header)}}}{{l}}{{{r}}} \\\\")
        else:
            body.append(" & ".join(r) + " \\\\")
    tab = (
        f"\\begin{{tabular}}{{{align}}}\n\\toprule\n"
        + " & ".join(header)
        + " \\\\\n\\midrule\n"
        + "\n".join(body)
        + "\n\\bottomrule\n\\end{tabular}"
    )
    if fit:
        tab = f"\\resizebox{{\\textwidth}}{{!}}{{{tab}}}"
    lab = f"\\label{{{label}}}" if label else ""
    return (
        f"\\begin{{table}}[htbp]\n\\centering{size}\n\\caption{{{caption}}}{lab}\n"
        f"{tab}\n\\end{{table}}\n\n"
    )


def as_float(block: str, caption: str, label: str | None = None) -> str:
    """A ``center`` block holding a tabular, made a numbered table float with ``caption``
    above it (the section builds the tabular; the float is the report's)."""
    inner = block.strip()
    if inner.startswith("\\begin{center}"):
        inner = inner[len("\\begin{center}") :]
    if inner.endswith("\\end{center}"):
        inner = inner[: -len("\\end{center}")]
    lab = f"\\label{{{label}}}" if label else ""
    return (
        f"\\begin{{table}}[htbp]\n\\centering\n\\caption{{{caption}}}{lab}\n"
        f"{inner.strip()}\n\\end{{table}}\n\n"
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


_INTRO = r"""\noindent This report is generated by symdelay: every formula is printed from the
SymPy object the analysis computed, every number from the record of a certified or checked
computation, every figure from the same data as its caption. It reproduces and extends the
analysis of load balancing in two parallel infinite-server queues with an action delay
represented by Erlang phases \cite{AbePhungDuc}, in which a routing decision by the
multinomial-logit rule takes effect only after the delay; the delayed-information model of
Pender, Rand and Wesson \cite{PenderRandWesson2017,PenderRandWesson2020} is its limit of
infinitely many phases. Related delayed-information models, which the toolkit also
analyses, are stale load information in large systems \cite{Mitzenmacher2000}, delay
announcements \cite{NovitzkyAnnouncement2020} and general choice functions
\cite{DoldoPender2022}.
"""


def report_document(body: str, *, date: str | None = None) -> str:
    """The report's LaTeX: title, version, date, contents, ``body``, bibliography."""
    date = date or datetime.date.today().isoformat()
    return (
        PREAMBLE
        + "\\usepackage[hidelinks]{hyperref}\n"
        + "\\usepackage[font=small,labelfont=bf]{caption}\n"
        + "\\setcounter{tocdepth}{2}\n"
        # room for two-digit subsection numbers in the contents (11.10 ran into its title)
        + "\\makeatletter\\renewcommand*\\l@subsection{\\@dottedtocline{2}{1.5em}{2.9em}}"
        "\\makeatother\n"
        + f"\\title{{{TITLE}}}\n"
        + f"\\author{{generated by symdelay {__version__}}}\n"
        + f"\\date{{{date}}}\n"
        + "\\begin{document}\n\\maketitle\n"
        + _INTRO
        + "\\tableofcontents\n\\clearpage\n"
        + body.rstrip("\n")
        + "\n\n\\bibliographystyle{plain}\n\\bibliography{references}\n\\end{document}\n"
    )


def cited_keys(tex: str) -> set:
    """The keys of every ``\\cite{...}`` in ``tex``."""
    return {k.strip() for m in re.findall(r"\\cite\{([^}]*)\}", tex) for k in m.split(",")}


#: CPU seconds of each section in its worker on this machine (the full report; measured by
#: benchmarks/bench_report.py, benchmarks/results/report.txt; "maps" after "inflight" in
#: the same worker, whose kappa* it reads): the workers take the longest job first
#: (:func:`plan_jobs`), so that the two finish together.
EXPECTED_SECONDS = {
    "sqd_herding": 103, "inflight": 47, "stochastic": 44, "sqd": 39, "lb": 31,
    "nonlinear": 26, "maps": 23, "roots": 12, "phase_type": 5, "critical": 5, "nserver": 3,
    "derivation": 3, "delays": 2, "stability": 1, "action_information": 4,
}  # fmt: skip

#: Sections that print a result another one computes (``sections/_shared.py`` keeps it per
#: process): each group is built in one worker process, one section after the other, so
#: that the shared result is computed once per run.
TOGETHER = (
    ("inflight", "maps"),  # kappa* of the in-flight model
    # theta_c, the founding closed forms and LNA matrices (action_information's spectra)
    ("stochastic", "stability", "action_information"),
)


def _short(mod_name: str) -> str:
    return mod_name.rsplit(".", 1)[-1]


def plan_jobs(mods) -> list[tuple]:
    """The sections ``mods`` as worker jobs: the groups of :data:`TOGETHER` (those of them
    present) and every other section alone, the longest job (by :data:`EXPECTED_SECONDS`)
    first.

    >>> [tuple(_short(m.__name__) for m in job) for job in plan_jobs(section_modules())][:3]
    [('sqd_herding',), ('inflight', 'maps'), ('stochastic', 'stability', 'action_information')]
    """
    by_name = {_short(m.__name__): m for m in mods}
    jobs, placed = [], set()
    for group in TOGETHER:
        job = tuple(by_name[n] for n in group if n in by_name)
        if job:
            jobs.append(job)
            placed |= {_short(m.__name__) for m in job}
    jobs += [(m,) for m in mods if _short(m.__name__) not in placed]

    def cost(job):
        return sum(EXPECTED_SECONDS.get(_short(m.__name__), 10) for m in job)

    return sorted(jobs, key=lambda job: -cost(job))


def _build_job(mod_names, out_dir: str, quick: bool) -> list:
    """Build the sections ``mod_names`` one after the other in one worker process (they
    share the results of ``sections/_shared.py``): ``[(module name, LaTeX, CPU seconds,
    wall seconds), ...]``."""
    import time

    from symdelay.core.budget import forced

    ctx = ReportContext(Path(out_dir), quick=quick)
    out = []
    with forced():
        for name in mod_names:
            cpu, wall = time.process_time(), time.perf_counter()
            latex = importlib.import_module(name).build(ctx).latex()
            out.append((name, latex, time.process_time() - cpu, time.perf_counter() - wall))
    return out


def default_jobs() -> int:
    """Worker processes for the sections: the cores this process may use, at most 2 (the
    sections are independent; beyond two the longest ones bound the time)."""
    import os

    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        n = os.cpu_count() or 1
    return max(1, min(2, n))


def build_sections(ctx: ReportContext, mods=None, bar=None) -> dict:
    """Build the sections ``mods`` (default: all) in this process, in order: ``{module
    name: LaTeX}``; ``ctx.figures`` collects their figures."""
    from symdelay.core.budget import forced

    parts = {}
    with forced():
        for mod in section_modules() if mods is None else mods:
            if bar is not None:
                bar.set_description(f"report: {_short(mod.__name__)}")
            parts[mod.__name__] = mod.build(ctx).latex()
            if bar is not None:
                bar.update(1)
    return parts


def write_report(
    out_dir,
    *,
    pdf: bool = True,
    quick: bool = False,
    progress=None,
    jobs: int | None = None,
    timings: dict | None = None,
) -> PdfResult:
    """Write ``report.tex`` (+ figures, + ``report.pdf`` if ``pdf``) into ``out_dir``.

    ``progress``: a stream for the progress bar (drawn only when it is a terminal and not
    under CI; default ``sys.stderr``), or ``False`` for none. ``jobs``: worker processes
    building sections side by side (default :func:`default_jobs`; 1 builds them in this
    process). ``timings``: a dict filled with ``{section: (CPU seconds, wall seconds)}`` of
    each section in the process that built it (benchmarks/bench_report.py reads it).

    The sections' runs are sized here, not by a user: the cost guard is lifted for them
    (:func:`symdelay.core.budget.forced`; the whole report takes minutes)."""
    out = prepare_output_dir(out_dir)
    mods = section_modules()
    jobs = default_jobs() if jobs is None else max(1, int(jobs))
    stream = sys.stderr if progress is None else (progress or None)
    parts: dict = {}
    times = {} if timings is None else timings
    with progress_bar(len(mods), "report", stream=stream, unit="section") as bar:
        if jobs == 1:
            for mod in mods:  # in this process: the shared results are computed once
                bar.set_description(f"report: {_short(mod.__name__)}")
                for name, latex, cpu, wall in _build_job([mod.__name__], str(out), quick):
                    parts[name] = latex
                    times[_short(name)] = (cpu, wall)
                bar.update(1)
        else:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor, as_completed

            spawn = multiprocessing.get_context("spawn")  # no fork of a process with threads
            with ProcessPoolExecutor(max_workers=jobs, mp_context=spawn) as pool:
                futures = [
                    pool.submit(_build_job, [m.__name__ for m in job], str(out), quick)
                    for job in plan_jobs(mods)
                ]
                for fut in as_completed(futures):
                    for name, latex, cpu, wall in fut.result():
                        parts[name] = latex
                        times[_short(name)] = (cpu, wall)
                        bar.set_description(f"report: {_short(name)} done")
                        bar.update(1)
    tex = report_document("".join(parts[m.__name__] for m in mods))
    tex_path = out / "report.tex"
    tex_path.write_text(tex)
    (out / "references.bib").write_text(BIBLIOGRAPHY.read_text())
    if not pdf:
        return PdfResult(tex_path, None, "PDF not requested")
    return compile_pdf(tex_path, bibliography=bool(cited_keys(tex)))
