"""``symdelay fluid``: the fluid ODEs integrated on the simulation grid (same keys).

The record is a :class:`~symdelay.analysis.timeseries.TimeSeries` of ``kind="fluid"``: JSON
``{"model", "parameters", "kind", "states", "t", "info", <state keys>}`` (the founding model:
``q1, q2, z1, z2``, as its simulation); ``info["solver"]`` the integrator and tolerances.
``--csv FILE`` (``-`` for standard output) writes a ``#`` comment line with the parameters,
then the columns ``t`` and one per state. A model with lags adds one column
``in_transit[<transition>]`` per action-delayed transition (the mass decided and not yet in
effect); ``--history FILE.csv`` reads its past in the same layout (columns ``t`` and the
states, ``#`` lines skipped), so a path written with ``--csv`` by a model without action
delays (its times shifted to end at 0) can start another; the ``in_transit`` columns are not
states and are refused there (the mass in transit follows from the rates' past).
"""

from __future__ import annotations

from symdelay.cli import door
from symdelay.cli.commands._common import add_plot, emit, write_plot
from symdelay.cli.commands._io import (
    RATE_DEFAULTS,
    add_horizon_arguments,
    check_outputs,
    double,
    emit_series,
    parse_initial,
)
from symdelay.core.budget import honour_force

__all__ = ["register", "run", "SOLVERS"]

#: --solver: auto or a method of scipy's solve_ivp (symdelay.analysis.fluid_ode)
SOLVERS = ("auto", "RK45", "RK23", "DOP853", "Radau", "BDF", "LSODA")

DESCRIPTION = (
    "Integrate the fluid ODEs (the eta -> infinity limit of the scaled jump process: the "
    "drift of the model's transition table) with SciPy's solve_ivp on the grid 0, dt, ..., "
    "T: DOP853 with rtol 1e-10, atol 1e-12, or LSODA with the exact Jacobian when the "
    "rates make the problem stiff; the logit routing is evaluated without overflow for any "
    "theta. The sqd model integrates its mean field by BDF in tail variables, the lb model "
    "its sliding fluid by Euler steps (the same record). Default start: for the founding "
    "model (no --model, or --model erlang) q1=0, q2=1, every delay phase empty (the paper's "
    "Q1=0, Q2=eta, scaled); for the sqd model the empty system; for another model its "
    "equilibrium with its first state raised by half (set to 1 if it is 0). --initial "
    "sets the start. A model with lags (a model file with [lags], or --model dde) is "
    "integrated by the method of steps with dense output (constant lags looked up in the "
    "dense solution, uniform windows as running integrals, Erlang/exponential/phase-type "
    "lags as exact chains; the record states the error control); its history before 0 is "
    "the --initial state held constant, or --history."
)


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "fluid", help="the fluid limit on a time grid (solve_ivp)", description=DESCRIPTION
    )
    door.add_model(p, defaults=RATE_DEFAULTS)
    add_horizon_arguments(
        p,
        "solution",
        "scaled initial state: for the founding model q1,q2,z1_1..z1_L,z2_1..z2_L "
        "(default 0,1,0,...); for another model one value per state, in the model's order "
        "of states (default: see above)",
    )
    p.add_argument(
        "--history",
        default=None,
        metavar="FILE.csv|empty",
        help="a model with lags: the states before 0, as a CSV table with the columns t and "
        "the state names (t increasing to 0, back to at least the longest lag; interpolated "
        "linearly), or 'empty': nothing routed before 0 (action delays only). Default: the "
        "--initial state held constant",
    )
    p.add_argument(
        "--solver",
        default="auto",
        choices=SOLVERS,
        help="the integrator: auto (default: DOP853, or LSODA with the exact Jacobian when "
        "the rates make the problem stiff) or a solve_ivp method (the implicit ones get the "
        "exact Jacobian)",
    )
    p.add_argument(
        "--rtol",
        default=None,
        kind="number",
        help="the solver's relative tolerance, > 0 (default 1e-10)",
    )
    p.add_argument(
        "--atol",
        default=None,
        kind="number",
        help="the solver's absolute tolerance, > 0 (default 1e-12)",
    )
    add_plot(p)
    p.set_defaults(func=honour_force(run))


def _tolerance(flag: str, text):
    """``--rtol`` / ``--atol`` as a double, or None, checked by the entry's own rule
    (:func:`symdelay.analysis.fluid_ode.check_tolerance`: finite and > 0)."""
    from symdelay.analysis.fluid_ode import check_tolerance

    if text is None:
        return None
    return check_tolerance(flag, double(flag, text))


def run(args) -> int:
    from symdelay.analysis.fluid import fluid

    check_outputs(args)
    model = door.model_from_args(args)
    res = fluid(
        model,
        T=args.T,
        dt=args.dt,
        initial=parse_initial(args.initial),
        force=args.force,
        history=args.history,
        solver=args.solver,
        rtol=_tolerance("--rtol", args.rtol),
        atol=_tolerance("--atol", args.atol),
    )
    if not emit_series(args, res, "fluid"):
        emit(res.summary())
    write_plot(args, res)
    return 0
