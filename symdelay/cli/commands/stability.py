"""``symdelay stability``: stability conditions and the critical lam*theta for one L."""

from __future__ import annotations

from symdelay.cli import door
from symdelay.cli.commands._common import emit, emit_json
from symdelay.cli.commands._model_run import run_stability
from symdelay.core.budget import honour_force
from symdelay.models.erlang import ASSUMPTIONS

__all__ = ["register", "run"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "stability",
        help="stability conditions of the difference mode and the critical lam*theta",
        description=(
            "Routh–Hurwitz stability conditions of (r+mu)(r+gamma)^L + lam*theta*gamma^L, "
            f"simplified under {ASSUMPTIONS}; the Hopf boundary lam*theta = k_c(mu, gamma); "
            "the oscillation condition (rightmost roots non-real), which is a different set."
        ),
    )
    door.add_model(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--force", action="store_true", help="run even when the estimated cost is over budget"
    )
    p.set_defaults(func=honour_force(run))


def run(args) -> int:
    from symdelay.core.params import as_L
    from symdelay.models.erlang.stability import stability_conditions

    if not door.founding(args):
        return run_stability(args)
    door.need(args, "L")
    door.refuse(
        args,
        "mu",
        "lam",
        "theta",
        "D",
        why="the founding model's conditions are stated in the symbols mu, gamma, lam*theta; "
        "for the verdict at numbers use 'symdelay stability --model phase_type --delay erlang "
        "--L N --mu ... --lam ... --theta ... --D ...' (the same system as a transition table)",
    )
    res = stability_conditions(as_L(args.L, allow_symbol=False), force=args.force)
    if args.json:
        emit_json(res.to_json())
        return 0
    lines = [f"L = {res.L}: characteristic polynomial {res.polynomial}", f"under {ASSUMPTIONS}:"]
    if res.stable_for_all_theta:
        lines.append("  stable for every theta >= 0 (no condition remains)")
    lines += [f"  stable iff {c}" if len(res.conditions) == 1 else f"  {c}" for c in res.conditions]
    crit = res.critical_lam_theta
    if res.L >= 2:
        lines.append(
            "critical lam*theta (Hopf): "
            + (str(crit) if crit is not None else "no closed form; smallest positive root of")
            + ("" if crit is not None else f" {res.hopf_polynomial} = 0 (lam*theta)")
        )
    lines.append(
        "oscillation (rightmost roots non-real, not a stability boundary): "
        + str(res.oscillation_condition)
    )
    emit("\n".join(lines))
    return 0
