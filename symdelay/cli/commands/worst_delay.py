"""``symdelay worst-delay``: the mean delay D* minimising theta_c, and theta* = min theta_c;
with ``--kind max`` the delay maximising it, with ``--kind stable`` the smallest value from
which the equilibrium is stable for every theta (:func:`symdelay.analysis.window.extremum`)."""

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
            "and the delay D* where it is attained; closed forms in mu, lam where derived. "
            "--over and --param name other parameters (the critical value of --param "
            "minimised over --over); --kind max gives the most robust value, --kind stable "
            "the smallest value of --over from which every --param > 0 is stable."
        ),
    )
    p.add_argument(
        "--over",
        default=None,
        metavar="NAME",
        help="the parameter varied (default D, the mean delay); left out of the model's options",
    )
    p.add_argument(
        "--param",
        default=None,
        metavar="NAME",
        help="the parameter whose critical value is minimised (default theta); left out of "
        "the model's options (give --theta then, e.g. --param lam --theta 4)",
    )
    p.add_argument(
        "--kind",
        default=None,
        choices=("min", "max", "stable"),
        help="min (default): the worst value of --over, where the critical value of --param "
        "is least; max: the most robust one, where it is largest; stable: the smallest value "
        "of --over from which the equilibrium is stable for every --param > 0, with every "
        "range of --over where it is (the kappa-star of any parameter)",
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
    add_common(p, run, dps="15", force=True)


def run(args) -> int:
    from symdelay.analysis.window import worst_delay
    from symdelay.core.params import as_dps

    if args.param is not None and not args.param.strip():
        raise SymdelayInputError(
            "--param needs a NAME: the parameter whose critical value is minimised"
        )
    over, param = args.over or "D", (args.param or "theta").strip()
    if over == param:
        raise SymdelayInputError(
            f"--over {over} and --param {param} name the same parameter: minimise the "
            "critical value of another one"
        )
    if getattr(args, over, None) is not None:
        flag = "--" + over.replace("_", "-")
        raise SymdelayInputError(f"worst-delay varies {over}: leave {flag} out")
    if getattr(args, param, None) is not None:
        flag = "--" + param.replace("_", "-")
        raise SymdelayInputError(
            f"worst-delay minimises {param}_c, the critical {param}: leave {flag} out"
        )
    model = door.model_free_in(args, over)
    kw = {
        "param": param,
        "lo": args.lo,
        "hi": args.hi,
        "dps": as_dps(args.dps),
        "force": args.force,
    }
    if args.kind in (None, "min"):
        res = worst_delay(model, over, **kw)
    else:
        from symdelay.analysis.window import extremum

        res = extremum(model, over, kind=args.kind, **kw)
    record = res.to_json()
    if args.json:
        emit_json(record)
        return 0
    emit("\n".join(text_lines(record)))
    return 0


def text_lines(record: dict) -> list[str]:
    """The extremum as text: where, the critical value there (with the family's closed
    forms beside), and how the path found it."""
    over, param, kind = record["over"], record["param"], record.get("kind", "min")
    head, how = head_and_how(record)
    if kind == "stable":
        if record["x_star"] is None:
            return [f"{head}: no {over} keeps the equilibrium stable for every {param} > 0", *how]
        sets = ", ".join(f"[{a}, {b}]" for a, b in record["stable_set"])
        return [
            head,
            f"{over}* = {record['x_star']}: stable for every {param} > 0 from there",
            f"stable for every {param} > 0 on {over} in {sets}",
            *how,
        ]
    word = "minimum" if kind == "min" else "maximum"
    if record["x_star"] is None:
        return [f"{head}: {param}_c has no {word} over {over} (no {param} destabilises)", *how]
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
    if kind == "max":
        lines[1] += f"   (the {word} of {param}_c over {over})"
    if record["omega"]:
        lines.append(f"omega* = {', '.join(record['omega'])}")
    return lines + how


def _value(v) -> str:
    return "its limit at that end, not computed (bounded in the notes)" if v is None else v
