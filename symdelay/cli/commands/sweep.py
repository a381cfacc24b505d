"""``symdelay sweep run|status|plot``: a grid of one analysis on Dask, results in Parquet."""

from __future__ import annotations

import json

from symdelay.cli.commands._common import emit, emit_json, image_path, save_figure
from symdelay.core.budget import MAX_TASKS
from symdelay.core.errors import SymdelayInputError

__all__ = ["register", "run_sweep", "run_status", "run_plot"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "sweep",
        help="run a grid of one analysis (serially or on Dask), results in Parquet",
        description=(
            "A sweep is a TOML file naming an analysis (critical, roots, simulate, variance, "
            "stability, limit-cycle, sqd-fixed-point, model-stability for any model, ...), "
            "fixed parameters, a grid (lists, ranges, log-ranges, zips, products), replications and a base seed. Results go to a Parquet file as tasks "
            "finish; --resume computes only what is missing. A sweep file is data: it names "
            "a registered analysis only, never code to run."
        ),
    )
    sub = p.add_subparsers(dest="sweep_command", metavar="ACTION")
    sub.required = True

    r = sub.add_parser(
        "run",
        help="run a sweep spec",
        description=(
            "Run a sweep spec. The spec names a registered analysis; a Python function of "
            "your own runs only when you allow it here by name (--allow-python), never "
            "because a file names it. Grids over the task budget are refused unless --force."
        ),
    )
    r.add_argument("spec", metavar="SPEC.toml", help="the sweep spec")
    r.add_argument("--out", required=True, help="results file (Parquet)")
    where = r.add_mutually_exclusive_group()
    where.add_argument(
        "--workers",
        default=None,
        kind="integer",
        help="embedded LocalCluster with N worker processes (the default, one per core)",
    )
    where.add_argument(
        "--scheduler", default=None, help="a running Dask scheduler, tcp://HOST:PORT"
    )
    where.add_argument("--serial", action="store_true", help="run in this process, without Dask")
    r.add_argument("--resume", action="store_true", help="complete an interrupted --out")
    r.add_argument(
        "--allow-python",
        action="append",
        default=[],
        metavar="MODULE:FUNCTION",
        help=(
            "let the spec name this Python function of yours as its analysis (imported and "
            "run: give only code you trust; repeatable). Without it a spec naming anything "
            "but a registered analysis is refused, and nothing it names is imported"
        ),
    )
    r.add_argument(
        "--allow-path",
        action="append",
        default=[],
        metavar="DIR",
        help=(
            "let the spec's paths (model_file) lead into this folder (repeatable); without "
            "it a path is relative to the spec's folder and refused outside it"
        ),
    )
    r.add_argument(
        "--force",
        action="store_true",
        help=f"run a grid of more than {MAX_TASKS:,} tasks (refused otherwise)",
    )
    r.add_argument(
        "--batch",
        default="auto",
        help="tasks per Dask task (default auto: sized from the first tasks' times, ~0.2 s "
        "each, smaller towards the end)",
    )
    r.add_argument(
        "--dashboard",
        action="store_true",
        help="serve the Dask dashboard of the embedded LocalCluster (off: faster start-up)",
    )
    r.add_argument("--no-progress", action="store_true", help="no progress bar")
    r.add_argument("--json", action="store_true", help="print the status as one JSON object")
    r.set_defaults(func=run_sweep)

    s = sub.add_parser(
        "status",
        help="tasks done and failed in a results file",
        description="Tasks done (failed ones included) and failed, and the spec's hash.",
    )
    s.add_argument("results", metavar="RESULTS", help="a results file of 'sweep run'")
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.set_defaults(func=run_status)

    pl = sub.add_parser(
        "plot",
        help="draw a sweep (heatmap, or lines without --y)",
        description="A heatmap of --z over (--x, --y), or lines of --z against --x.",
    )
    pl.add_argument("results", metavar="RESULTS", help="a results file of 'sweep run'")
    pl.add_argument("--x", required=True, help="grid parameter on the horizontal axis")
    pl.add_argument("--y", default=None, help="grid parameter on the vertical axis (heatmap)")
    pl.add_argument("--z", required=True, help="output to draw (e.g. spectral_abscissa)")
    pl.add_argument(
        "--where",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="fix another grid parameter (repeatable)",
    )
    pl.add_argument(
        "--out",
        default=None,
        help="image file, written exactly as named; its suffix is the format (.png, .pdf, "
        ".svg, ...; default: RESULTS with .png)",
    )
    pl.set_defaults(func=run_plot)


def _summary(st: dict, computed: int, seconds: float, out: str) -> str:
    ok = st["done"] - st["failed"]
    missing = st["total"] - st["done"]
    text = (
        f"sweep: {st['done']}/{st['total']} tasks done ({ok} ok, {st['failed']} failed), "
        f"{computed} computed in {seconds:.1f} s; results in {out}"
    )
    return text + (f"; {missing} missing (run again with --resume)" if missing else "")


def run_sweep(args) -> int:
    import sys
    import time

    from symdelay.sweep.analyses import ANALYSES
    from symdelay.sweep.runner import run
    from symdelay.sweep.spec import load_spec
    from symdelay.sweep.store import status

    spec = load_spec(
        args.spec, allow_python=args.allow_python, force=args.force, allow_paths=args.allow_path
    )
    if spec.analysis in set(args.allow_python) and spec.analysis not in ANALYSES:
        print(
            f"sweep: running your Python function {spec.analysis} (allowed by --allow-python)",
            file=sys.stderr,
        )
    batch = None
    if args.batch != "auto":
        try:
            batch = int(args.batch)
        except ValueError:
            batch = 0
        if batch < 1:
            raise SymdelayInputError(
                f"--batch must be 'auto' or an integer >= 1, got '{args.batch}'"
            )
    workers = None if args.workers is None else int(args.workers)  # >= 1: the runner's check
    t0 = time.perf_counter()
    counter = {"n": 0}

    def count(progress) -> None:
        counter["n"] = progress.computed

    try:
        run(
            spec,
            out=args.out,
            workers=workers,
            scheduler=args.scheduler,
            serial=args.serial,
            resume=args.resume,
            batch=batch,
            progress=count,
            show_progress=False if args.no_progress else None,
            dashboard=args.dashboard,
        )
    except KeyboardInterrupt:  # one line, exit 130 (the rows so far are in --out)
        try:
            text = _summary(status(args.out), counter["n"], time.perf_counter() - t0, args.out)
        except SymdelayInputError:  # interrupted before the first row was written
            text = f"no task finished; nothing written to {args.out}"
        print(f"symdelay: interrupted; {text.removeprefix('sweep: ')}", file=sys.stderr)
        return 130
    st = status(args.out)
    print(_summary(st, counter["n"], time.perf_counter() - t0, args.out), file=sys.stderr)
    if args.json:
        emit_json(st)
    if st["failed"]:
        print(f"symdelay: {_failures(st, args.out)}", file=sys.stderr)
        return 1
    return 0


def _failures(st: dict, out: str) -> str:
    """One line: how many tasks failed, where their errors are, the first of them."""
    from symdelay.sweep.store import first_failure

    n = st["failed"]
    first = first_failure(out)
    shown = f"; the first (task {first['task']}): {first['error'][:200]}" if first else ""
    return (
        f"{n} task{'s' if n != 1 else ''} failed: each is a row of {out} with status "
        f"'failed' and its error in column 'error' (symdelay sweep status {out}){shown}"
    )


def run_status(args) -> int:
    from symdelay.sweep.store import status

    st = status(args.results)
    if args.json:
        emit_json(st)
    else:
        emit(
            f"{st['done']}/{st['total']} tasks done, {st['failed']} failed, "
            f"{st['total'] - st['done']} missing; spec hash {st['spec_hash']}"
        )
        if st["failed"]:
            emit(_failures(st, args.results))
    return 0


def _parse_where(items) -> dict:
    out = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise SymdelayInputError(f"--where takes NAME=VALUE, got '{item}'")
        try:
            out[name.strip()] = json.loads(value)
        except json.JSONDecodeError:
            out[name.strip()] = value.strip()
    return out


def run_plot(args) -> int:
    from pathlib import Path

    import matplotlib

    matplotlib.use("Agg")
    from symdelay.sweep.plotting import plot_results

    out = args.out or str(Path(args.results).with_suffix(".png"))
    path, fmt = image_path("--out", out)
    ax = plot_results(args.results, x=args.x, y=args.y, z=args.z, where=_parse_where(args.where))
    save_figure(ax.figure, path, fmt)
    emit(str(path))
    return 0
