"""``symdelay variance``: LNA stationary variance of the imbalance, Var(Q1-Q2)/eta."""

from __future__ import annotations

from symdelay.cli import door
from symdelay.cli.commands._common import add_common, add_plot, emit, emit_json, write_plot
from symdelay.cli.commands._io import RATE_DEFAULTS, add_weights, weights_of

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
            "mu, lam, theta, D for L <= 2. A model with lags: the certified integral of its "
            "linear-noise spectrum G(i w) B G(i w)^* (G = Delta^-1 N, N = I unless dot() is read "
            "through a lag, as the drift), with its error bound. "
            "Refused at or above the Hopf threshold, where there is no stationary variance."
        ),
    )
    p.add_argument(
        "--dps",
        default=None,
        kind="integer",
        help="significant digits (5..10000; default 30 for a table, 8 for a model with lags "
        "and 6 for a neutral one, whose variance is a certified integral costing about "
        "10^(dps/2))",
    )
    add_weights(p, "variance")
    add_plot(p)
    add_common(p, run, force=True, model={"defaults": {**RATE_DEFAULTS, "L": "1"}})


def run(args) -> int:
    from symdelay.analysis.stochastic import variance

    model = door.model_from_args(args)
    res = variance(model, dps=args.dps, force=args.force, weights=weights_of(args, model))
    if args.json:
        emit_json(res.to_json())
    else:
        emit(res.summary())
    write_plot(args, res)
    return 0
