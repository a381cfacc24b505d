"""``symdelay worst-delay``: the mean delay D* minimising theta_c, and theta* = min theta_c."""

from __future__ import annotations

from symdelay.cli.commands._common import emit, emit_json
from symdelay.cli.commands._model_args import add_model_arguments
from symdelay.cli.commands._model_run import refuse_specific
from symdelay.core.params import as_dps, as_L_or_inf
from symdelay.models.erlang.hopf import worst_delay

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
    p.add_argument("--L", required=True, help="number of delay phases: integer >= 1, or inf")
    p.add_argument("--mu", required=True, help="service rate (> 0)")
    p.add_argument("--lam", required=True, help="per-server arrival rate (> 0)")
    p.add_argument("--dps", default="15", help="significant digits (5..10000, default 15)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_model_arguments(p, founding_options=False)
    p.set_defaults(func=run)


def run(args) -> int:
    refuse_specific(
        args, "worst-delay", "'symdelay critical --model ... --D d1,d2,...' and take the minimum"
    )
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
