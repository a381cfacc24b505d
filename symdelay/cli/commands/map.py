"""``symdelay map``: the stability map of a model in two parameters (Hopf and fold curves
traced by continuation and certified, regions labelled by their exact number of unstable
roots, turning and double-Hopf points): :func:`symdelay.analysis.stability_map.stability_map`
on the model the door builds."""

from __future__ import annotations

from symdelay.cli import door
from symdelay.cli.commands._common import add_common, add_plot, emit, emit_json, write_plot
from symdelay.core.errors import SymdelayInputError

__all__ = ["register", "run", "SWITCH"]

#: the values of --bautin and --fold-cycles: the API's None, True and False
SWITCH = ("auto", "yes", "no")
_SWITCH_VALUE = {"auto": None, "yes": True, "no": False}


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "map",
        help="stability map in two parameters: Hopf/fold curves, regions, special points",
        description=(
            "The stability boundary of the model in the box --x NAME=LO:HI by --y NAME=LO:HI "
            "(every other parameter a number): Hopf curves (a pair +-i omega on the axis) and "
            "fold curves (a root at 0) traced by pseudo-arclength continuation from the exact "
            "crossings on a grid of lines, every point certified (Krawczyk, Arb); the regions "
            "labelled by their exact number of roots with Re r > 0; turning points, "
            "double-Hopf and Bautin points (l1 changing sign) located to --dps digits, and "
            "from each Bautin point the curve of folds of cycles (continued by collocation, "
            "double precision) to the box's edge. The "
            "founding model in (D, theta), L = inf included, answers with its explicit Hopf "
            "branches (no seed lines: --seeds asks for the continuation)."
        ),
    )
    p.add_argument(
        "--x", required=True, metavar="NAME=LO:HI", kind="range", help="first axis and its range"
    )
    p.add_argument(
        "--y", required=True, metavar="NAME=LO:HI", kind="range", help="second axis and its range"
    )
    p.add_argument(
        "--fixed",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        kind="setting",
        help="a value for a parameter the model leaves free (repeatable)",
    )
    p.add_argument(
        "--cells",
        default="32",
        kind="integer",
        help="region grid: CELLS x CELLS exact counts (default 32)",
    )
    p.add_argument(
        "--seeds",
        default=None,
        kind="integer",
        help="grid lines each way seeding the continuation (default 9); the founding model's "
        "explicit map takes none: giving it asks for the continuation",
    )
    p.add_argument(
        "--bautin",
        default="auto",
        choices=SWITCH,
        help="look for Bautin points (l1 changing sign) on the Hopf curves: auto (default) "
        "on a map of at most 4 Hopf curves of a model of at most 12 states, or when "
        "--fold-cycles yes (a delay model's curves: l1 sampled at up to 400 points), yes "
        "everywhere (a delay model: l1 at every point), no nowhere",
    )
    p.add_argument(
        "--fold-cycles",
        default="auto",
        choices=SWITCH,
        only_with={"bautin": ("auto", "yes")},
        help="the curves of folds of cycles from each Bautin point (collocation, double "
        "precision; tens of seconds each): auto (default) when the estimated cost is within "
        "the budget, yes (refused over it without --force), no not computed",
    )
    add_plot(p)
    add_common(p, run, dps="15", force=True)


def run(args) -> int:
    from symdelay.analysis.stability_map import stability_map
    from symdelay.core.params import as_dps

    # the parser has read --x, --y (NAME=LO:HI), --fixed (NAME=VALUE) and the integers
    names = [text.partition("=")[0].strip() for text in (args.x, args.y)]
    fixed = {}
    for item in args.fixed:
        name, _, value = item.partition("=")
        if name.strip() in fixed:
            raise SymdelayInputError(f"--fixed {name.strip()} is given twice: give it once")
        fixed[name.strip()] = value.strip()
    override = {}
    sel = args._door_selection
    if sel.file is None:
        options = {o.name: o for o in getattr(door.family_module(sel.family), "OPTIONS", ())}
        for n in names:
            if n in options and getattr(args, n, None) is not None:
                flag = "--" + n.replace("_", "-")
                raise SymdelayInputError(f"map varies {n}: leave {flag} out")
            if n in options and options[n].default is not None:
                override[n] = n  # a weight with a default (kappa): left free by its name
    model = door.model_from_args(args, **override)
    m = stability_map(
        model,
        x=args.x,
        y=args.y,
        fixed=fixed or None,
        dps=as_dps(args.dps),
        cells=int(args.cells),
        seeds=None if args.seeds is None else int(args.seeds),
        force=args.force,
        bautin=_SWITCH_VALUE[args.bautin],
        fold_cycles=_SWITCH_VALUE[args.fold_cycles],
    )
    record = m.to_json()
    write_plot(args, m)
    if args.json:
        emit_json(record)
        return 0
    x, y = record["x"], record["y"]
    lines = [f"{record['model']}: {x['name']} in [{x['lo']}, {x['hi']}], "
             f"{y['name']} in [{y['lo']}, {y['hi']}]"]  # fmt: skip
    if record["fixed"]:
        lines.append("fixed: " + ", ".join(f"{k} = {v}" for k, v in record["fixed"].items()))
    for c in record["curves"]:
        a, b = c["points"][0], c["points"][-1]
        lines.append(
            f"{c['kind']} curve (factor {c['factor']}), {len(c['points'])} certified points, "
            f"from ({a['x']}, {a['y']}) to ({b['x']}, {b['y']}) [{', '.join(c['ends'])}]"
        )
    if not record["curves"]:
        lines.append("no Hopf or fold curve in the box")
    for s in record["special_points"]:
        w = s["omega"] if isinstance(s["omega"], str) else ", ".join(s["omega"])
        lines.append(
            f"{s['type']}: {x['name']} = {s['x']}, {y['name']} = {s['y']}, omega = {w}"
            + ("" if s["certified"] else " (not certified)")
        )
        if s["type"] == "bautin":
            lines.append(_bautin_line(s))
    for f in record["fold_of_cycles"]:
        a, b = f["points"][0], f["points"][-1]
        lines.append(
            f"fold of cycles from the Bautin point ({f['bautin']['x']}, {f['bautin']['y']}): "
            f"{len(f['points'])} points, from ({a['x']}, {a['y']}, amplitude {a['amplitude']}) "
            f"to ({b['x']}, {b['y']}, amplitude {b['amplitude']}) [{', '.join(f['ends'])}]"
        )
    for g in record["regions"]:
        lines.append(
            f"region: {g['unstable_roots']} unstable roots, {g['cells']} cells, e.g. at "
            f"{x['name']} = {g['point']['x']}, {y['name']} = {g['point']['y']}"
        )
    lines.append(f"searched: {record['searched']}")
    lines += [f"note: {n}" for n in record["notes"]]
    emit("\n".join(lines))
    return 0


def _bautin_line(s: dict) -> str:
    """The second Lyapunov coefficient at a Bautin point and the side of its folds."""
    if s.get("l2") is None:
        return f"  l2 not computed: {s.get('l2_note')}"
    side = (
        f"the fold of cycles lies along the Hopf curve's side where {s['fold_side']}"
        if s.get("fold_side")
        else "its sign is undecided (|l2| within its bound): no side of the fold given"
    )
    return f"  l2 = {s['l2']} (|error| <= {s['l2_radius']}): {side}"
