"""``symdelay window``: the mean delays D at which the equilibrium is unstable for fixed theta."""

from __future__ import annotations

from symdelay.cli import door
from symdelay.cli.commands._common import emit, emit_json

__all__ = ["register", "run"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "window",
        help="instability window: the delays D with theta > theta_c(D), as exact intervals",
        description=(
            "The set of mean delays D at which the equilibrium is unstable for the given "
            "theta: open intervals (a right end may be 'inf'). theta < 0 routes jobs towards "
            "the longer queue: then a real root crosses zero at lam*theta = -mu for every D."
        ),
    )
    p.add_argument("--dps", default="15", help="significant digits (5..10000, default 15)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    door.add_model(p, own=("D",))
    p.set_defaults(func=run)


def run(args) -> int:
    from symdelay.core.params import as_dps, as_L_or_inf
    from symdelay.models.erlang.hopf import instability_window

    door.founding_only(args, "'symdelay critical --model ... --D d1,d2,...' to trace theta_c(D)")
    door.need(args, "L", "theta", "mu", "lam")
    w = instability_window(as_L_or_inf(args.L), args.theta, args.mu, args.lam, dps=as_dps(args.dps))
    record = w.to_json()
    if args.json:
        emit_json(record)
        return 0
    if not record["intervals"]:
        body = "stable for every D > 0 (no delay destabilises)"
    else:
        body = "unstable for D in " + " U ".join(f"({a}, {b})" for a, b in record["intervals"])
    emit(f"L = {record['L']}, theta = {record['theta']}: {body}\n{record['explanation']}")
    return 0
