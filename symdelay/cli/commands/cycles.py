"""``symdelay cycles``: the branch of periodic orbits continued in one parameter from its Hopf
point, with stability and special points (folds of cycles, period doublings, tori)."""

from __future__ import annotations

from symdelay.cli import door
from symdelay.cli.commands._common import add_common, add_plot, emit, emit_json, write_plot
from symdelay.core.errors import SymdelayInputError

__all__ = ["register", "run"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "cycles",
        help="branch of limit cycles continued from the Hopf point: amplitude, period, "
        "stability, folds of cycles (LPC), period doublings (PD), tori (NS), branch points (BPC)",
        description=(
            "The periodic orbits born at the Hopf point in a range of one parameter, "
            "continued by pseudo-arclength (orthogonal collocation on Gauss points, mesh "
            "adapted), each with its Floquet multipliers and stability (yes / no / "
            "undecided), and the special points located on the branch: LPC (fold of "
            "cycles), PD (period doubling), NS (Neimark-Sacker), BPC (a multiplier through +1 "
            "without a fold: a branch point of cycles). --theta LO:HI continues in "
            "theta; --in NAME --range LO:HI in another parameter (then --theta, if the model "
            "has it, is a value). --start VALUE begins at the cycle at theta = VALUE instead "
            "(with --in NAME: the cycle the fluid path settles on at NAME = VALUE; "
            "--direction up or down). --switch LEVELS continues the branch of doubled "
            "cycles from every period doubling, for LEVELS levels of the cascade. Transition "
            "tables (ODE fluid models) and delay models (a model file with lags: the delay "
            "equations collocated on the periodic profile, multipliers of the discretised "
            "monodromy operator; the founding model at --L inf is its delay equation, "
            "written with a constant action delay D)."
        ),
    )
    p.add_argument(
        "--theta",
        default=None,
        metavar="LO:HI",
        help="the range of theta (e.g. 8:20); with --in NAME, the value of theta",
    )
    p.add_argument(
        "--in",
        dest="param",
        default=None,
        metavar="NAME",
        help="the parameter continued (default theta); any parameter of the model, left "
        "out of its options",
    )
    p.add_argument(
        "--range",
        default=None,
        metavar="LO:HI",
        help="the range of the parameter of --in NAME (e.g. 0.5:2); where the equilibrium "
        "has no closed form in NAME it is followed numerically over the range from LO",
    )
    p.add_argument(
        "--start",
        default=None,
        metavar="VALUE",
        kind="number",
        help="start from the cycle at theta = VALUE (as limit-cycle computes it: Newton "
        "shooting on the model's drift, collocation for a delay model) instead of the Hopf "
        "point; with --in NAME, from the cycle the fluid path (from the model's default "
        "start) settles on at NAME = VALUE",
    )
    p.add_argument(
        "--direction",
        default=None,
        choices=("up", "down"),
        help="with --start: continue towards larger (up, the default) or smaller theta",
    )
    p.add_argument(
        "--intervals",
        default="20",
        kind="integer",
        help="mesh intervals of the collocation (4..2000, default 20)",
    )
    p.add_argument(
        "--degree",
        default="4",
        kind="integer",
        help="degree of the collocation polynomials, Gauss points per interval (2..7, default 4)",
    )
    p.add_argument(
        "--max-points",
        default="200",
        kind="integer",
        help="the most orbits on the branch (default 200): the continuation stops there",
    )
    p.add_argument(
        "--switch",
        default="0",
        kind="integer",
        metavar="LEVELS",
        help="at every period doubling (PD) continue the branch of doubled cycles, and so on "
        "for LEVELS levels of the cascade (0..4, default 0: none); the JSON's "
        '"doubled_branches" holds them',
    )
    p.add_argument(
        "--no-adapt",
        action="store_true",
        help="keep the uniform mesh (default: adapted every three steps)",
    )
    p.add_argument(
        "--step",
        default=None,
        kind="number",
        help="the first arclength step, > 0 (default: from the first orbit's size)",
    )
    p.add_argument(
        "--max-step",
        default=None,
        kind="number",
        help="the largest arclength step, > 0 (default: 5%% of the range's width plus the "
        "orbit's size; the norm is sqrt(int |u|^2 dt + T^2 + p^2))",
    )
    add_plot(p)
    add_common(p, run, force=True, model={"own": ("theta",)})


def _step(flag: str, text):
    """``--step`` / ``--max-step``: a double > 0 (refused before any orbit is computed)."""
    from symdelay.cli.commands._io import double

    if text is None:
        return None
    x = double(flag, text)
    if not x > 0:
        raise SymdelayInputError(f"{flag} must be > 0, got {text}")
    return x


def _range(flag: str, text: str) -> tuple[str, str]:
    """``LO:HI`` -> the two texts (each read exactly by the entry)."""
    from symdelay.core.exact import exact_fraction

    parts = str(text).split(":")
    if len(parts) != 2 or not all(s.strip() for s in parts):
        raise SymdelayInputError(f"{flag} takes a range LO:HI (e.g. 8:20), got '{text}'")
    lo, hi = (s.strip() for s in parts)
    a, b = exact_fraction(flag, lo), exact_fraction(flag, hi)
    if not a < b:
        raise SymdelayInputError(f"{flag} takes LO:HI with LO < HI, got '{text}'")
    return lo, hi


def run(args) -> int:
    from symdelay.analysis.continuation import MAX_POINTS, MAX_SWITCH_LEVELS, cycles

    param = args.param or "theta"
    if param == "theta":
        if args.range is not None:
            raise SymdelayInputError(
                "--range is the range of --in NAME: give theta's as --theta LO:HI"
            )
        if args.theta is None:
            raise SymdelayInputError("give the range of theta as --theta LO:HI (e.g. 8:20)")
        lo, hi = _range("--theta", args.theta)
        model = door.model_from_args(args)
    else:
        if args.range is None:
            raise SymdelayInputError(f"give the range of {param} as --range LO:HI")
        if getattr(args, param, None) is not None:
            flag = "--" + param.replace("_", "-")
            raise SymdelayInputError(f"cycles --in {param} continues in {param}: leave {flag} out")
        lo, hi = _range("--range", args.range)
        extra = {}
        if args.theta is not None:
            if args.model_file is not None:
                raise SymdelayInputError("a model file takes theta as --set theta=VALUE")
            extra["theta"] = args.theta
        model = door.model_from_args(args, **extra)
    sizes = {}
    for dest, flag, (a, b) in (
        ("intervals", "--intervals", (4, 2000)),
        ("degree", "--degree", (2, 7)),
        ("max_points", "--max-points", (2, MAX_POINTS)),
        ("switch", "--switch", (0, MAX_SWITCH_LEVELS)),
    ):
        sizes[dest] = int(getattr(args, dest))
        if not a <= sizes[dest] <= b:
            raise SymdelayInputError(f"{flag} must be from {a} to {b}, got {sizes[dest]}")
    steps = {"step": _step("--step", args.step), "max_step": _step("--max-step", args.max_step)}
    start = None
    if args.direction is not None and args.start is None:
        raise SymdelayInputError("--direction has no effect without --start: give both")
    if args.start is not None and param == "theta":
        from symdelay.analysis.cycles import limit_cycle

        # the founding model at L = inf has no table of phases: its own (the DDE's) cycle
        at_inf = getattr(model, "infinite", False) is True
        start = limit_cycle(model, args.start, method="auto" if at_inf else "generic")
    elif args.start is not None:
        start = args.start  # the value of NAME: the cycle the fluid path settles on there
    res = cycles(
        model,
        param,
        lo,
        hi,
        start=start,
        direction=-1 if args.direction == "down" else 1,
        **sizes,
        adapt=not args.no_adapt,
        **steps,
        force=args.force,
    )
    write_plot(args, res)
    if args.json:
        emit_json(res.to_json())
        return 0
    emit(res.text())
    return 0
