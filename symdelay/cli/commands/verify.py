"""``symdelay verify``: is a claimed relation a stability (or oscillation) condition?"""

from __future__ import annotations

from symdelay.cli import door
from symdelay.cli.commands._common import add_common, emit, emit_json

__all__ = ["register", "run"]

_WORDS = {
    "stability": (None, "stable but claim fails"),  # claim holds but (the verdict there)
    "oscillation": ("claim holds but not oscillating", "oscillating but claim fails"),
}


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "verify",
        help="check a claimed relation against stability (and oscillation)",
        description=(
            "Decide whether the claim (a relation in the model's parameters; for the founding "
            "model in mu, gamma, lam, theta, D, for --L inf in mu, lam, theta, D) is "
            "equivalent, necessary, sufficient or neither for asymptotic stability (and, for "
            "the founding model, for oscillation: rightmost roots non-real), over the "
            "parameters' domains (theta >= 0 unless --theta-real) and the --assume "
            "relations. Each direction is proven (exact reasoning: the founding model's exact "
            "class or interval certificate, or the decision procedure, z3 nlsat, for any model "
            "with polynomial characteristic factors), refuted (an exact counterexample "
            "checked by an independent path) or left open: 'no counterexample found' after a "
            "search (founding model, claims outside what is decided exactly), 'undecided "
            "within the budget' after a timeout; an open direction never gives a relation. A "
            "claim with a transcendental function (exp, log, sin, cos, tanh, pi, E), which "
            "the decision procedure cannot decide, is searched instead: the result is printed "
            "labelled as a search (method 'search'), one line on stderr says so, exit 2."
        ),
    )
    p.add_argument("--claim", required=True, help="a relation, e.g. 'lam*theta < mu'")
    p.add_argument(
        "--assume",
        action="append",
        default=[],
        metavar="TEXT",
        help="a relation the parameters satisfy, e.g. 'mu < gamma' (repeatable; decided by "
        "the decision procedure: stability only)",
    )
    p.add_argument(
        "--timeout",
        default=None,
        kind="number",
        metavar="SECONDS",
        help="the decision procedure's budget per check (default 10): z3 resource units "
        "worth SECONDS of its work, the same answer however loaded the machine; the wall "
        "clock stops a check at ten times SECONDS",
    )
    p.add_argument("--theta-real", action="store_true", help="allow theta < 0 too")
    add_common(p, run, model={"refuses": dict.fromkeys(("mu", "lam", "theta", "D"), WHY)})


#: why verify takes no parameter values
WHY = "a claim is decided over all parameter values; write values into the claim"


def _point(pt: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in pt.items())


def _timeout_ms(text) -> int:
    from symdelay.analysis.claims import DEFAULT_TIMEOUT_MS
    from symdelay.core.errors import SymdelayInputError

    if text is None:
        return DEFAULT_TIMEOUT_MS
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not seconds > 0 or seconds == float("inf"):
        raise SymdelayInputError(f"--timeout takes a positive number of seconds, got '{text}'")
    return max(1, round(seconds * 1000))


def run(args) -> int:
    from symdelay.analysis.claim_result import ARROWS, DIRECTIONS
    from symdelay.analysis.claims import verify

    erlang_shape = getattr(args, "delay", None) in (None, "erlang")
    if hasattr(args, "L") and erlang_shape:  # the family has delay phases: say how many
        door.need(args, "L")
    timeout_ms = _timeout_ms(args.timeout)
    res = verify(
        door.model_from_args(args),
        args.claim,
        assume=tuple(args.assume),
        theta_real=args.theta_real,
        timeout_ms=timeout_ms,
    )
    if args.json:
        emit_json(res.to_json())
        return _fallback_exit(res)
    where = f"L = {res.L}" if res.L is not None else f"model {res.model_name}"
    lines = [f"claim: {res.claim}   ({where})"]
    if res.assume:
        lines.append("assuming: " + " and ".join(res.assume))
    for target in ("stability", "oscillation"):
        if target not in res.directions:
            lines.append(
                f"relation to {target}: not decided (the decision procedure decides stability)"
            )
            continue
        rel = getattr(res, f"relation_to_{target}")
        tag = "proven" if res.proven[target] else "not proven"
        lines.append(f"relation to {target}: {rel}   ({tag})")
        for direction, word, arrow in zip(DIRECTIONS, _WORDS[target], ARROWS[target], strict=True):
            status = res.directions[target][direction]
            pt = res.counterexamples[target][direction]
            how = res.methods.get(target, {}).get(direction)
            verdict = res.verdicts[target][direction]  # the model's at the point
            if pt and target == "stability":
                word = f"claim holds but {verdict}" if direction == DIRECTIONS[0] else word
                lines.append(f"  {word}: {_point(pt)}")
            elif pt:
                lines.append(f"  {word}: {_point(pt)}   ({verdict} there)")
            elif how == "decision procedure":
                lines.append(f"  {arrow}: {status} (decision procedure)")
            elif how == "search":
                lines.append(f"  {arrow}: {status} (search: not proven)")
    s = res.search
    if s["points"]:
        ranges = ", ".join(f"{k} in [{a}, {b}]" for k, (a, b) in s["ranges"].items())
        lines.append(
            f"searched: {s['points']} points ({ranges}), {s['exact_points']} decided exactly, "
            f"{s['boundary_points'] + s['line_points']} of them near the boundaries; "
            f"{s['skipped']} skipped"
        )
    lines.append(res.explanation)
    emit("\n".join(lines))
    return _fallback_exit(res)


def _fallback_exit(res) -> int:
    """0; or, when the decision procedure could not decide the claim (a transcendental
    function) and the result is a search, one line on stderr saying so and 2 (bad input:
    the claim asked for a decision)."""
    import sys

    if not res.fallback:
        return 0
    print(
        f"symdelay: {res.fallback} (the result printed is a search, not a decision)",
        file=sys.stderr,
    )
    return 2
