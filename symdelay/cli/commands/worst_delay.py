"""``symdelay worst-delay``: the mean delay D* minimising theta_c, and theta* = min theta_c."""

from __future__ import annotations

from symdelay.cli import door
from symdelay.cli.commands._common import add_common, emit, emit_json
from symdelay.cli.commands.window import head_and_how
from symdelay.core.errors import SymdelayInputError

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
    p.add_argument(
        "--over",
        default=None,
        metavar="NAME",
        help="the parameter varied (default D, the mean delay); left out of the model's options",
    )
    p.add_argument(
        "--lo",
        default=None,
        kind="number",
        help="the smallest value of --over searched (default: the bottom of its domain); "
        "refused where the worst delay is over the whole domain (a constant lag)",
    )
    p.add_argument(
        "--hi",
        default=None,
        kind="number",
        help="the largest value of --over searched (default: the top of its domain): needed "
        "for a distributed, several or neutral lag (the certified bracket over (LO, HI]); "
        "refused where the worst delay is over the whole domain (a constant lag)",
    )
    add_common(
        p, run, dps="15", force=True,
        model={"refuses": {"theta": "worst-delay minimises theta_c: leave --theta out"}},
    )  # fmt: skip


def run(args) -> int:
    from symdelay.analysis.window import worst_delay
    from symdelay.core.params import as_dps

    over = args.over or "D"
    if getattr(args, over, None) is not None:
        flag = "--" + over.replace("_", "-")
        raise SymdelayInputError(f"worst-delay varies {over}: leave {flag} out")
    model = door.model_free_in(args, over)
    res = worst_delay(model, over, lo=args.lo, hi=args.hi, dps=as_dps(args.dps), force=args.force)
    record = res.to_json()
    if args.json:
        emit_json(record)
        return 0
    emit("\n".join(text_lines(record)))
    return 0


def text_lines(record: dict) -> list[str]:
    """The extremum as text: where, the critical value there (with the family's closed
    forms beside), and how the path found it."""
    over, param = record["over"], record["param"]
    head, how = head_and_how(record)
    if record["x_star"] is None:
        return [f"{head}: {param}_c has no minimum over {over} (no {param} destabilises)", *how]
    forms = record["closed_form"] or {}

    def closed(name):
        cf = forms.get(name)
        return "" if cf is None else f"   (closed form: {cf})"

    where = "" if record["attained"] else " (approached at the end of the range, not attained)"
    lines = [
        head,
        f"{over}* = {record['x_star']}{where}{closed(over + '_star')}",
        f"{param}* = {_value(record['critical'])}{closed(param + '_star')}",
    ]
    if record["omega"]:
        lines.append(f"omega* = {', '.join(record['omega'])}")
    return lines + how


def _value(v) -> str:
    return "its limit at that end, not computed (bounded in the notes)" if v is None else v
