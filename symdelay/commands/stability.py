"""``symdelay stability``: stability conditions and the critical lam*theta for one L."""

from __future__ import annotations

from symdelay.budget import honour_force
from symdelay.commands._common import emit, emit_json
from symdelay.commands._model_args import add_model_arguments
from symdelay.commands._model_run import run_stability, wants_model
from symdelay.errors import SymdelayInputError
from symdelay.params import as_L
from symdelay.stability import ASSUMPTIONS, stability_conditions

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
    p.add_argument("--L", default=None, help="number of delay phases (integer >= 1)")
    add_model_arguments(p, founding_options=("mu", "lam", "theta", "D"))
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--force", action="store_true", help="run even when the estimated cost is over budget"
    )
    p.set_defaults(func=honour_force(run))


def run(args) -> int:
    if wants_model(args):
        return run_stability(args)
    if args.L is None:
        raise SymdelayInputError("--L is required for the founding model (an integer >= 1)")
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
