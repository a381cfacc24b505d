"""``symdelay worst-delay``: the mean delay D* minimising theta_c, and theta* = min theta_c."""

from __future__ import annotations

from symdelay.cli import door
from symdelay.cli.commands._common import emit, emit_json

__all__ = ["register", "run"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "worst-delay",
        help="worst-case mean delay D* = argmin theta_c(D) and theta* = min theta_c",
        description=(
            "The delay-independent threshold theta* (stable for every D when theta < theta*) "
            "and the delay D* where it is attained; closed forms in mu, lam where derived."
        ),
    )
    p.add_argument("--dps", default="15", help="significant digits (5..10000, default 15)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    door.add_model(p, own=("D",))
    p.set_defaults(func=run)


def run(args) -> int:
    from symdelay.core.params import as_dps, as_L_or_inf
    from symdelay.models.erlang.hopf import worst_delay

    door.founding_only(args, "'symdelay critical --model ... --D d1,d2,...' and take the minimum")
    door.need(args, "L", "mu", "lam")
    door.refuse(args, "theta", why="worst-delay minimises theta_c over D: leave --theta out")
    result = worst_delay(as_L_or_inf(args.L), args.mu, args.lam, dps=as_dps(args.dps))
    record = result.to_json()
    if args.json:
        emit_json(record)
        return 0
    cf = record["closed_form"]
    if record["D_star"] is None:
        emit(
            f"L = {record['L']}: no theta >= 0 destabilises, so there is no worst delay\n"
            f"{record['explanation']}"
        )
        return 0
    emit(
        f"L = {record['L']}\n"
        f"D*      = {record['D_star']}   (closed form: {cf['D_star']})\n"
        f"theta*  = {record['theta_star']}   (closed form: {cf['theta_star']})\n"
        f"omega*  = {record['omega_star']}\n"
        f"{record['explanation']}"
    )
    return 0
