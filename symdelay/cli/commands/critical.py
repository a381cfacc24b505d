"""``symdelay critical``: the critical theta_c(D) and Hopf frequency at given delays; with
``--param NAME`` the critical value of another parameter (a lag: the first stability switch),
with ``--over NAME --at LIST`` swept over any parameter (a model file's lag)."""

from __future__ import annotations

from symdelay.cli import door
from symdelay.cli.commands._common import add_common, add_plot, emit, emit_json, write_plot
from symdelay.core.errors import SymdelayInputError

__all__ = ["register", "run", "parse_D_list", "text_lines"]


def parse_D_list(text: str) -> list[str]:
    """The delays of ``--D``: a list ``0.5,1,2``, a range ``lo:hi:n`` or ``geom:lo:hi:n``
    (:func:`symdelay.core.options.values_text`: each exact, as text)."""
    from symdelay.core.options import values_text

    return values_text("--D", text)


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "critical",
        help="critical theta_c(D) (Hopf boundary) and crossing frequency omega at given delays",
        description=(
            "For each mean delay D, the smallest theta at which a pair of roots of the "
            "difference mode crosses the imaginary axis (theta_c, 'inf' if none), and the "
            "crossing frequency omega. --L inf is the delay-differential limit."
        ),
    )
    p.add_argument(
        "--D",
        default=None,
        kind="values",
        not_with=("at",),
        help="mean delays: a list 0.5,1,2,4, a range LO:HI:N (N points, ends included) or "
        "geom:LO:HI:N (geometric spacing)",
    )
    p.add_argument(
        "--param",
        default=None,
        metavar="NAME",
        help="the parameter whose critical value is computed (default theta); a lag's "
        "parameter (D of a model file's lag) gives the critical lag: the first stability "
        "switch, from the exact crossing frequencies of one constant lag, otherwise "
        "certified crossings (distributed, several or neutral lags)",
    )
    p.add_argument(
        "--over",
        default=None,
        metavar="NAME",
        help="the parameter swept by --at (default D): e.g. a model file's lag",
    )
    p.add_argument(
        "--at",
        default=None,
        kind="values",
        help="the values of --over: a list, LO:HI:N or geom:LO:HI:N (the critical value at each)",
    )
    p.add_argument(
        "--range",
        default=None,
        metavar="LO:HI",
        not_with=("at",),
        help="the first crossing of --param NAME (default theta) in [LO, HI] on the "
        "equilibrium followed numerically (every real zero of the drift enumerated at LO, "
        "followed by Newton), where it is a Hopf point proved by a Krawczyk box: for a "
        "transition table whose equilibrium has no closed form in NAME (e.g. --param b1 "
        "--range 2:2.4 for tests/data/food_chain.toml); refused where no root crosses in "
        "the range or a real root crosses first",
    )
    add_plot(p)
    add_common(
        p,
        run,
        dps="15",
        force=True,
        model={"own": ("D",), "refuses": {"theta": "critical computes theta_c"}},
    )


def text_lines(curve) -> list[str]:
    """The text output: the model's options, then one aligned row per delay (the delay as
    its exact digits, :func:`symdelay.core.numbers.grid_texts`; theta_c and omega at the
    precision asked)."""
    from symdelay.core.numbers import grid_texts, text_table

    record = {**curve.header(), "points": curve.point_records()}  # no closed forms needed
    key, over = f"{curve.param}_c", curve.over
    if curve.method == "specialised":
        head = ", ".join(f"{k} = {v}" for k, v in record["parameters"].items())
    else:
        given_at = ", ".join(f"{k} = {v}" for k, v in record["parameters"].items())
        at_text = f" at {given_at}" if given_at else ""
        head = f"{curve.model_name}: critical {curve.param}{at_text} by the generic Hopf crossing"
    points = record["points"]
    given = [p[over] for p in points if p[over] is not None]
    shown = iter(grid_texts(given)) if given else iter(())
    rows, stable = [], False
    for p in points:
        at = "(own)" if p[over] is None else next(shown)
        if p["omega"] is None and p[key] == "inf" and "note" not in p:
            stable = True
        rows.append([at, p[key], "-" if p["omega"] is None else p["omega"]])
    if given:
        lines = [head, text_table([over, key, "omega"], rows)]
    else:  # one point at the model's own values: no column of a parameter not swept
        lines = [head, text_table([key, "omega"], [row[1:] for row in rows])]
    if stable:
        lines.append(f"{key} = inf, omega -: no crossing, stable for every {curve.param} >= 0")
    for p in points:
        if p.get("note"):
            at = "(own)" if p[over] is None else p[over]
            lines.append(
                f"note ({over} = {at}): {p['note']}"
                if p[over] is not None
                else f"note: {p['note']}"
            )
    if given and any(p[over] is None for p in points):
        lines.append("(own): the model's own delay")
    return lines


def run(args) -> int:
    from symdelay.analysis.critical import critical
    from symdelay.core.options import values_text
    from symdelay.core.params import as_dps

    if args.model_file and args.D is not None:
        raise SymdelayInputError(
            "--D is for built-in models; give a model file's delay with --set, or sweep it "
            "with --over D --at LIST"
        )
    if args.over is not None and args.at is None:
        raise SymdelayInputError(f"--over {args.over} needs --at LIST: the values to sweep")
    param = args.param or "theta"
    over = args.over or ("D" if param != "D" else "theta")
    if param == over:
        raise SymdelayInputError(
            f"--param {param} and --over {over} name the same parameter: sweep another one"
        )
    if param != "theta" and args.D is not None:
        raise SymdelayInputError(
            f"--D sweeps the delay for the critical theta; with --param {param} use "
            "--over NAME --at LIST"
        )
    dps = as_dps(args.dps)
    # no --D / --at: the model's own delay (a phase-type delay given by its rates, a model
    # file's lag given with --set), one point
    at = None
    span = {}
    if args.range is not None:
        from symdelay.cli.commands.cycles import _range

        span = dict(zip(("lo", "hi"), _range("--range", args.range)))
    if args.at is not None:
        at = values_text("--at", args.at)
    elif args.D is not None:
        at = parse_D_list(args.D)
    if at is None:
        model = door.model_from_args(args)
    elif args.model_file is not None:
        model = door.model_from_args(args)  # the swept parameter left free (no --set)
    else:  # the model at the first value (a family may need one to build), swept over all
        model = door.model_for_sweep(args, over, at[0])
    if span and at is not None:  # --D of a built-in model: the one delay of the range's model
        if len(at) != 1:
            raise SymdelayInputError("--range finds one critical value: give one delay --D")
        model, at = door.model_from_args(args, D=at[0]), None
    curve = critical(model, param, over=over, at=at, dps=dps, force=args.force, **span)
    if args.json:
        emit_json(curve.to_json())
    else:
        emit("\n".join(text_lines(curve)))
    write_plot(args, curve)
    return 0
