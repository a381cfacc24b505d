"""``symdelay simulate``: exact sample paths of the stochastic system (scaled by eta).

The record is a :class:`~symdelay.analysis.timeseries.TimeSeries`. JSON: one replication ->
``{"model", "parameters", "kind", "states", "t", "info", "events", <state keys>}``, the
states ``base_1..base_n`` given together as ``base`` (the founding model: ``q1, q2, z1, z2``,
``z1[l-1]`` the path of ``z_{1,l}``); R > 1 -> ``{..., "events": total, "replications": [one
object {"events", "t", <state keys>} each]}``. ``parameters`` holds everything needed to
repeat the run, seed included. ``--csv FILE`` (``-`` for standard output) writes a ``#``
comment line (symdelay's version and the parameters as JSON), then the columns ``t,
replication`` and one per state (the table of ``TimeSeries.to_pandas``).
"""

from __future__ import annotations

import sys

from symdelay.cli import door
from symdelay.cli.commands._common import add_plot, emit, write_plot
from symdelay.cli.commands._io import (
    RATE_DEFAULTS,
    add_horizon_arguments,
    check_outputs,
    emit_series,
    parse_initial,
)
from symdelay.core.budget import honour_force

__all__ = ["register", "run"]

DESCRIPTION = (
    "Simulate the two-queue jump process exactly (every arrival, delay phase and service "
    "completion; Gillespie's direct method in a compiled kernel) and record the state "
    "scaled by 1/eta on the grid 0, dt, ..., T: a kernel generated from the model's "
    "transition table (the SQ(d) and LB models: their own kernels). Default start: for the "
    "founding model (no --model, or --model erlang) the paper's Q1=0, Q2=eta, every delay "
    "phase empty; for the sqd model the empty system; for another model, eta times its "
    "equilibrium with its first state raised by half (set to 1 if it is 0), rounded to "
    "counts. "
    "A model with lags (a [lags] table: information read through a lag, action delays) "
    "is simulated exactly too: lagged values read from the path's recorded past, "
    "delayed jobs landing at their scheduled times, the past before 0 given by --history "
    "(default: the start held constant; 'empty' for nothing decided before 0); its output "
    "adds in_transit[TRANSITION] (jobs decided and not yet landed) after the states, and "
    "the memory its history used. "
    "--initial sets the start. The expected number of "
    "events is estimated first: a run of more than about a minute (the shared budget) is refused "
    "unless --force. A progress bar shows on a terminal; Ctrl-C stops the run (exit status "
    "130). JSON and CSV output carry the parameters and the seed."
)


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "simulate", help="exact simulation of the jump process", description=DESCRIPTION
    )
    door.add_model(p, defaults=RATE_DEFAULTS)
    add_horizon_arguments(
        p,
        "paths",
        "initial job counts: for the founding model Q1,Q2,Z1_1..Z1_L,Z2_1..Z2_L "
        "(default 0,eta,0,...); for another model one count per state, in the model's order "
        "of states (default: see above)",
    )
    p.add_argument(
        "--eta",
        default=None,
        kind="integer",
        help="system scale (integer >= 1; default 1000, for the lb model its stations' servers)",
    )
    p.add_argument(
        "--seed", default="1", kind="integer", help="random seed, an integer >= 0 (default 1)"
    )
    p.add_argument(
        "--replications", default="1", kind="integer", help="independent paths (default 1)"
    )
    p.add_argument(
        "--history",
        default=None,
        metavar="FILE.csv|empty",
        help="a model with lags: the states before 0, as a CSV table with the columns t and "
        "the state names, scaled like --initial of fluid (t increasing to 0, back to at least "
        "the longest lag; interpolated linearly, rounded to counts round(eta*value)), or "
        "'empty': nothing routed before 0 (action delays only). Default: the initial counts "
        "held constant (an action delay's jobs in transit at 0 drawn at their rates)",
    )
    p.add_argument(
        "--backend",
        default="auto",
        choices=("auto", "c", "python"),
        help="event loop: the generated C kernel (auto: when a C compiler is found) or its "
        "Python twin, which draws the same numbers (same paths, slower)",
    )
    add_plot(p)
    p.set_defaults(func=honour_force(run))


class _Bar:
    """A tqdm bar on stderr in units of simulated time (summed over replications)."""

    def __init__(self, total: float):
        from tqdm import tqdm

        self.bar = tqdm(
            total=total,
            file=sys.stderr,
            leave=False,
            delay=0.5,
            dynamic_ncols=True,
            desc="simulate",
            bar_format="{desc}: {percentage:3.0f}%|{bar}| t={n:.4g}/{total:.4g} "
            "[{elapsed}<{remaining}{postfix}]",
        )

    def __call__(self, time_done: float, events: int) -> None:
        self.bar.n = time_done
        self.bar.set_postfix_str(f"{events:.3g} events", refresh=False)
        self.bar.refresh()

    def close(self) -> None:
        self.bar.close()


def run(args) -> int:
    import numpy as np

    from symdelay.analysis.stochastic import simulate

    check_outputs(args)
    model = door.model_from_args(args)
    bar = None
    if not args.json and sys.stderr.isatty():
        try:
            T = float(args.T) * float(args.replications)
        except ValueError:
            T = None  # the simulation reports the bad value
        if T is not None and np.isfinite(T) and T > 0:
            bar = _Bar(T)
    try:
        res = simulate(
            model, eta=args.eta, T=args.T, dt=args.dt, seed=args.seed,
            replications=args.replications, initial=parse_initial(args.initial),
            force=args.force, monitor=bar, history=args.history, backend=args.backend,
        )  # fmt: skip
    finally:
        if bar is not None:
            bar.close()
    if not emit_series(args, res, "simulate"):
        emit(res.summary())
    write_plot(args, res)
    return 0
