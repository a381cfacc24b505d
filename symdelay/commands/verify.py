"""``symdelay verify``: is a claimed inequality a stability (or oscillation) condition?"""

from __future__ import annotations

from ..claims import verify
from ..params import as_L
from ._common import emit, emit_json

__all__ = ["register", "run"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "verify",
        help="check a claimed inequality against stability and oscillation",
        description=(
            "Decide whether the claim (in mu, gamma, lam, theta, D) is equivalent, necessary, "
            "sufficient or neither for asymptotic stability and for oscillation, over "
            "mu, lam, gamma > 0 and theta >= 0, with an exact counterexample."
        ),
    )
    p.add_argument("--L", required=True, help="number of delay phases (integer >= 1)")
    p.add_argument("--claim", required=True, help="an inequality, e.g. 'lam*theta < mu'")
    p.add_argument("--theta-real", action="store_true", help="allow theta < 0 too")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args) -> int:
    res = verify(as_L(args.L, allow_symbol=False), args.claim, theta_real=args.theta_real)
    if args.json:
        emit_json(res.to_json())
        return 0
    lines = [
        f"claim: {res.claim}   (L = {res.L})",
        f"relation to stability:   {res.relation_to_stability}",
        f"relation to oscillation: {res.relation_to_oscillation}",
    ]
    if res.counterexample:
        lines.append(
            "counterexample: " + ", ".join(f"{k}={v}" for k, v in res.counterexample.items())
        )
    lines.append(res.explanation)
    emit("\n".join(lines))
    return 0
