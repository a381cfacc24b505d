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
            "claim with a transcendental function (exp, log, sin, cos, tanh, acos, asin, atan, "
            "pi, E), which the decision procedure cannot decide, is searched instead (method "
            "'search'): its exact counterexamples refute, but a direction it leaves open is "
            "only searched. A delay model: a claim that names no lag is decided against "
            "stability for every value of the lags; a claim that names a lag (D < "
            "acos(-mu/(lam*theta))/sqrt((lam*theta)**2 - mu**2)) against stability at the "
            "given lags, exactly for Hayes' class (every lagged mode r + a + b exp(-r tau)), "
            "otherwise by a labelled search whose points are decided by the certified count "
            "(--points, --box). Printed: for each direction what decided it (how it was proven, or "
            "its exact counterexample), and the search only when it is the evidence."
        ),
        epilog=(
            "exit status: 0 every direction proven or refuted (by an exact, re-checked "
            "counterexample); 3 an answer from a search, not a proof (a direction with no "
            "counterexample found); 4 undecided within the budget (raise --timeout); 2 bad "
            "input. 3 and 4 say why in one line on stderr."
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
    p.add_argument(
        "--points",
        default=None,
        kind="integer",
        metavar="N",
        help="a delay model and a claim that names a lag (stability at the given lags): the "
        "points the labelled search decides (default 400, 10..100000); refused elsewhere",
    )
    p.add_argument(
        "--box",
        action="append",
        default=[],
        kind="range",
        metavar="NAME=LO:HI",
        help="the same search: draw parameter NAME from [LO, HI] (inside its domain; "
        "default 0.1:10 log-uniform for a positive one; repeatable, once per name)",
    )
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
        points=None if args.points is None else int(args.points),
        box=_box(args.box),
    )
    if args.json:
        emit_json(res.to_json())
        return _exit(res)
    where = f"L = {res.L}" if res.L is not None else f"model {res.model_name}"
    lines = [f"claim: {res.claim}   ({where})"]
    if res.assume:
        lines.append("assuming: " + " and ".join(res.assume))
    if res.fallback:
        lines.append(res.fallback)
    rechecks = []
    for target in res.directions:  # only the targets decided for this model
        rel = getattr(res, f"relation_to_{target}")
        tag = "proven" if res.proven[target] else "not proven"
        lines.append(f"relation to {target}: {rel}   ({tag})")
        for direction, word, arrow in zip(DIRECTIONS, _WORDS[target], ARROWS[target], strict=True):
            lines.append("  " + _evidence(res, target, direction, word, arrow))
            if res.counterexamples[target][direction]:
                rechecks.append(res.evidence.get(target, {}).get(direction, ""))
    rechecks = [r for r in dict.fromkeys(rechecks) if r]
    if rechecks:
        lines.append("counterexamples: " + "; ".join(rechecks))
    lines += list(res.remarks)
    s = res.search
    if res.exit_status == "search" and s["points"]:  # the search is the evidence
        ranges = ", ".join(f"{k} in [{a}, {b}]" for k, (a, b) in s["ranges"].items())
        lines.append(
            f"searched: {s['points']} points ({ranges}), {s['exact_points']} decided exactly, "
            f"{s['boundary_points'] + s['line_points']} of them near the boundaries; "
            f"{s['skipped']} skipped"
        )
    emit("\n".join(lines))
    return _exit(res)


def _box(items) -> dict | None:
    """``--box NAME=LO:HI`` (repeatable) as ``{name: (lo, hi)}`` (texts; read exactly by
    the search), each name once."""
    from symdelay.core.errors import SymdelayInputError

    out: dict = {}
    for text in items:
        name, _, rng = text.partition("=")
        lo, _, hi = rng.partition(":")
        if name.strip() in out:
            raise SymdelayInputError(f"--box {name.strip()} given twice: give each name once")
        out[name.strip()] = (lo.strip(), hi.strip())
    return out or None


def _evidence(res, target: str, direction: str, word, arrow: str) -> str:
    """One line: what decided ``direction`` of ``target`` (its counterexample, how it was
    proven, or that it is open and why)."""
    from symdelay.analysis.claim_result import DIRECTIONS, OPEN, PROVEN

    status = res.directions[target][direction]
    pt = res.counterexamples[target][direction]
    how = res.methods.get(target, {}).get(direction) or ""
    verdict = res.verdicts[target][direction]  # the model's at the point
    if pt and target == "stability":
        word = f"claim holds but {verdict}" if direction == DIRECTIONS[0] else word
        return f"{word}: {_point(pt)}"
    if pt:
        return f"{word}: {_point(pt)}   ({verdict} there)"
    note = res.evidence.get(target, {}).get(direction) or ""
    if status == PROVEN:
        why = note if note.startswith(how) else f"{how}: {note}" if note else how
        return f"{arrow}: proven ({why})"
    if status == OPEN:
        return f"{arrow}: {status} (search: not proven)"
    tried = res.details.get(target, {}).get(direction, {}).get("tried") or note
    return f"{arrow}: {status}" + (f" ({tried})" if tried else "")


#: the exit code of each :attr:`ClaimResult.exit_status` (2 is bad input, as everywhere)
EXIT_CODES = {"proven": 0, "search": 3, "undecided": 4}


def _exit(res) -> int:
    """The exit code (:data:`EXIT_CODES`); for 3 and 4 one line on stderr says why the
    answer is not a proof."""
    import sys

    status = res.exit_status
    if status == "proven":
        return 0
    from symdelay.analysis.claim_result import ARROWS, DIRECTIONS

    open_ = [
        ARROWS.get(t, DIRECTIONS)[DIRECTIONS.index(d)]
        for t, per in res.directions.items()
        for d, s in per.items()
        if s not in ("proven", "refuted")
    ]
    why = (
        "answer from a search, not a proof"
        if status == "search"
        else "undecided within the budget (raise --timeout)"
    )
    reason = f"; {res.fallback}" if res.fallback else ""
    print(
        f"symdelay: {why}: {', '.join(open_)} (exit {EXIT_CODES[status]}){reason}",
        file=sys.stderr,
    )
    return EXIT_CODES[status]
