"""``symdelay verify``: is a claimed inequality a stability (or oscillation) condition?"""

from __future__ import annotations

from symdelay.cli import door
from symdelay.cli.commands._common import emit, emit_json

__all__ = ["register", "run"]

_WORDS = {
    "stability": ("claim holds but unstable", "stable but claim fails"),
    "oscillation": ("claim holds but not oscillating", "oscillating but claim fails"),
}


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "verify",
        help="check a claimed inequality against stability and oscillation",
        description=(
            "Decide whether the claim (in mu, gamma, lam, theta, D; for --L inf in mu, lam, "
            "theta, D) is equivalent, necessary, sufficient or neither for asymptotic "
            "stability and for oscillation (rightmost roots non-real), over mu, lam, gamma > 0 "
            "and theta >= 0. Each direction is proven (exact reasoning), refuted (an exact "
            "counterexample checked by an independent path) or only searched: then the "
            "output says 'no counterexample found' and what was searched."
        ),
    )
    p.add_argument("--claim", required=True, help="an inequality, e.g. 'lam*theta < mu'")
    p.add_argument("--theta-real", action="store_true", help="allow theta < 0 too")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    door.add_model(p)
    p.set_defaults(func=run)


def _point(pt: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in pt.items())


def run(args) -> int:
    from symdelay.analysis.claims import verify

    if hasattr(args, "L"):  # the family has delay phases: say how many
        door.need(args, "L")
    door.refuse(
        args,
        "mu",
        "lam",
        "theta",
        "D",
        why="a claim is decided over all parameter values; write values into the claim",
    )
    res = verify(door.model_from_args(args), args.claim, theta_real=args.theta_real)
    if args.json:
        emit_json(res.to_json())
        return 0
    lines = [f"claim: {res.claim}   (L = {res.L})"]
    for target, rel in (
        ("stability", res.relation_to_stability),
        ("oscillation", res.relation_to_oscillation),
    ):
        tag = "proven" if res.proven[target] else "not proven"
        lines.append(f"relation to {target}: {rel}   ({tag})")
        for direction, word in zip(
            ("claim_implies_target", "target_implies_claim"), _WORDS[target], strict=True
        ):
            status = res.directions[target][direction]
            pt = res.counterexamples[target][direction]
            if pt:
                lines.append(f"  {word}: {_point(pt)}")
            elif status == "refuted":
                lines.append(f"  {word}: somewhere (exact sign analysis)")
    s = res.search
    lines.append(
        f"searched: {s['points']} points ("
        + ", ".join(f"{k} in [{a}, {b}]" for k, (a, b) in s["ranges"].items())
        + f") and {s['optimisations']} local optimisations"
    )
    lines.append(res.explanation)
    emit("\n".join(lines))
    return 0
