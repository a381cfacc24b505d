"""``symdelay limit-cycle``: the periodic orbit of the fluid model beyond theta_c."""

from __future__ import annotations

import math

from symdelay.cli import door
from symdelay.cli.commands._common import add_common, add_plot, emit, emit_json, write_plot
from symdelay.core.errors import SymdelayInputError

__all__ = ["register", "run"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "limit-cycle",
        help="limit cycle beyond theta_c: amplitude of x, period, Floquet multipliers",
        description=(
            "The periodic orbit born at the Hopf point, computed directly (Newton-shooting "
            "with the variational equations; Fourier collocation for --L inf; a delay model's "
            "by collocation of its delay equations), continued in theta from theta_c. --theta takes one value, a list a,b,c or a range "
            "lo:hi:n or geom:lo:hi:n (then the JSON has 'points')."
        ),
    )
    p.add_argument(
        "--theta",
        default=None,
        kind="values",
        help="routing sensitivity above theta_c: 10, a list 10,12,15, a range LO:HI:N "
        "(e.g. 9.5:180:100) or geom:LO:HI:N",
    )
    p.add_argument(
        "--system",
        default=None,
        choices=("difference", "full"),
        help="the L+1 difference system (default) or the full 2(L+1) fluid model",
    )
    p.add_argument(
        "--start-fraction",
        default=None,
        metavar="X",
        kind="number",
        help="start the continuation from the normal form's cycle at theta_c (1 + X), or "
        "the smallest --theta if nearer; X > 0 (default 1e-3; the JSON's path_start). The "
        "founding model otherwise tries the harmonic-balance amplitude at the smallest "
        "--theta first. Refused at --L inf and for a model with lags",
    )
    p.add_argument(
        "--max-modes",
        default=None,
        metavar="N",
        kind="integer",
        help="the founding model at --L inf (and the dde family): the largest number of "
        "Fourier modes of the collocation, 63 to 2047 (default 2047); a cycle needing more "
        "is refused. Refused elsewhere",
    )
    add_plot(p)
    add_common(p, run, force=True, model={"own": ("theta",)})


def _points(text: str) -> int:
    """How many orbits ``--theta`` asks for (read by the one parser of list-valued
    options, :func:`symdelay.core.options.values`)."""
    from symdelay.core.options import values

    return len(values("--theta", text))


def _check_cost(args) -> None:
    """Each orbit is a Newton-shooting solve with the (L+1)^2 variational equations
    (L = 2: well under 0.1 s per point on a loaded core); L = inf: Fourier collocation."""
    from symdelay.core.budget import check_budget, power_cost
    from symdelay.core.params import as_L, is_infinite_L

    n = _points(args.theta)
    L = getattr(args, "L", None)  # a family without phases (dde): the DDE collocation
    if L is None or is_infinite_L(L):
        per_point = 0.5
    else:
        per_point = power_cost(as_L(L, allow_symbol=False) + 1, 0.01, 2)
        if args.system == "full":
            per_point *= 4
    check_budget(
        f"{n} limit cycle(s)",
        n * per_point,
        force=args.force,
        shrink="fewer theta values (a shorter range or a smaller count)",
    )


def run(args) -> int:
    from symdelay.analysis.cycles import CycleFamily, limit_cycle

    if args.theta is None:
        raise SymdelayInputError("give --theta (a value above theta_c, a list or a range)")
    extra = {}
    if args.start_fraction is not None:
        from symdelay.analysis.cycles import check_start_fraction
        from symdelay.cli.commands._io import double

        x = double("--start-fraction", args.start_fraction)
        extra["start_fraction"] = check_start_fraction("--start-fraction", x)
    if args.max_modes is not None:
        from symdelay.models.erlang.nonlinear.dde_cycles import check_max_modes

        extra["max_modes"] = check_max_modes("--max-modes", int(args.max_modes))
    _check_cost(args)
    res = limit_cycle(door.model_from_args(args), args.theta, system=args.system, **extra)
    rec = res.to_json()
    write_plot(args, res)
    if args.json:
        emit_json(rec)
        return 0
    points = rec["points"] if isinstance(res, CycleFamily) else [rec]
    emit("\n".join(text_lines(points)))
    return 0


#: significant digits of the amplitude and period shown (doubles from an integration with
#: relative tolerance 1e-11: more digits would not mean anything)
DIGITS = 9


def text_lines(points) -> list[str]:
    """One aligned row per orbit: theta as its exact digits
    (:func:`symdelay.core.numbers.grid_texts`), amplitude and period to :data:`DIGITS`
    significant digits, the largest non-trivial Floquet multiplier's modulus to 4 (the
    trivial one, the flow direction's, left out), stability yes / no / undecided (then one
    line with the reason)."""
    from symdelay.analysis.cycles import pattern_text, stability_word
    from symdelay.core.numbers import format_number, grid_texts, text_table

    thetas = grid_texts([pt["theta"] for pt in points])
    digits = DIGITS
    errors = [float(pt["mesh_error"]) for pt in points if pt.get("mesh_error") is not None]
    if errors:  # a collocation orbit: the digits its estimated error leaves
        amp = min(float(pt["amplitude_x"]) for pt in points)
        digits = int(max(3, min(DIGITS, math.floor(math.log10(amp / max(max(errors), 1e-300))))))
    rows = []
    for th, pt in zip(thetas, points):
        rho = [float(m["abs"]) for m in pt["floquet_multipliers"] if not m.get("trivial")]
        second = format_number(max(rho), 4) if rho else "-"
        rows.append(
            [
                th,
                format_number(float(pt["amplitude_x"]), digits),
                format_number(float(pt["period"]), digits),
                second,
                stability_word(pt["stable"]),
            ]
        )
    table = text_table(["theta", "amplitude_x", "period", "max|rho|", "stable"], rows)
    undecided = [
        f"theta = {th}: stability {pt['stability_reason']}"
        for th, pt in zip(thetas, points)
        if pt["stable"] is None
    ]
    patterns = [
        (f"theta = {th}: " if len(points) > 1 else "") + pattern_text(pt["pattern"])
        for th, pt in zip(thetas, points)
        if pt.get("pattern")
    ]
    return [
        table,
        *undecided,
        *patterns,
        f"method: {points[0]['method']}",
        (
            f"(amplitude and period to {digits} significant digits: the collocation's "
            f"estimated error {max(errors):.1g}; --json has every digit)"
            if errors
            else f"(amplitude and period to {DIGITS} significant digits: double precision, "
            "integration tolerance 1e-11; --json has every digit)"
        ),
    ]
