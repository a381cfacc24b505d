"""``symdelay variance``: LNA stationary variance of the imbalance, Var(Q1-Q2)/eta."""

from __future__ import annotations

from symdelay.cli import door
from symdelay.cli.commands._common import emit, emit_json
from symdelay.cli.commands._io import RATE_DEFAULTS
from symdelay.cli.commands._model_run import run_variance
from symdelay.core.budget import honour_force

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
    door.add_model(p, defaults={**RATE_DEFAULTS, "L": "1"})
    p.add_argument("--dps", default="30", help="decimal digits of the value (default 30)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument(
        "--force", action="store_true", help="run even when the estimated cost is over budget"
    )
    p.set_defaults(func=honour_force(run))


def _check_cost(args) -> None:
    """The Lyapunov solve and its refinement grow like L^2 here (measured, L <= 100)."""
    from symdelay.core.budget import check_budget, power_cost
    from symdelay.core.params import as_L

    n = as_L(door.given_options(args).get("L"), allow_symbol=False)
    check_budget(
        f"the stationary variance for L = {n}",
        power_cost(n, 3e-3, 2),
        force=args.force,
        shrink="a smaller --L",
    )


def run(args) -> int:
    from symdelay.models.erlang.stochastic.variance import variance

    if not door.founding(args):
        return run_variance(args)

    _check_cost(args)
    res = variance(dps=args.dps, **door.given_options(args))
    if args.json:
        emit_json(res.to_json())
    else:
        cf = "" if res.closed_form is None else f"  closed form: {res.closed_form}"
        emit(f"Var(Q1-Q2)/eta -> {res.decimal()}{cf}")
    return 0
