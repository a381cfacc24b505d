"""``symdelay variance``: LNA stationary variance of the imbalance, Var(Q1-Q2)/eta."""

from __future__ import annotations

from symdelay.cli import door
from symdelay.cli.commands._common import add_common, add_plot, emit, emit_json, write_plot
from symdelay.cli.commands._io import RATE_DEFAULTS

__all__ = ["register", "run"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "variance",
        help="stationary variance of the imbalance (linear-noise approximation)",
        description=(
            "The stationary variance of the imbalance, lim Var(Q1-Q2)/eta as eta -> infinity, "
            "from the Lyapunov equation of the linear-noise approximation around the "
            "symmetric equilibrium: exact rational arithmetic for L <= 12, else a "
            "double-precision solve refined to --dps digits; the closed form in "
            "mu, lam, theta, D for L <= 2. Refused at or above the Hopf threshold, where "
            "there is no stationary variance."
        ),
    )
    add_plot(p)
    add_common(p, run, dps="30", force=True, model={"defaults": {**RATE_DEFAULTS, "L": "1"}})


def run(args) -> int:
    from symdelay.analysis.stochastic import variance

    res = variance(door.model_from_args(args), dps=args.dps, force=args.force)
    if args.json:
        emit_json(res.to_json())
    else:
        emit(res.summary())
    write_plot(args, res)
    return 0
