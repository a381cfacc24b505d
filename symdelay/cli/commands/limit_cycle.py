"""``symdelay limit-cycle``: the periodic orbit of the fluid model beyond theta_c."""

from __future__ import annotations

from symdelay.cli import door
from symdelay.cli.commands._common import add_common, emit, emit_json
from symdelay.core.errors import SymdelayInputError

__all__ = ["register", "run"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "limit-cycle",
        help="limit cycle beyond theta_c: amplitude of x, period, Floquet multipliers",
        description=(
            "The periodic orbit born at the Hopf point, computed directly (Newton-shooting "
            "with the variational equations; Fourier collocation for --L inf), continued in "
            "theta from theta_c. --theta takes one value, a list a,b,c or a range "
            "start:stop:count (then the JSON has 'points')."
        ),
    )
    p.add_argument(
        "--theta",
        default=None,
        kind="values",
        help="routing sensitivity above theta_c: 10, 10,12,15 or 9.5:180:100",
    )
    p.add_argument(
        "--system",
        default=None,
        choices=("difference", "full"),
        help="the L+1 difference system (default) or the full 2(L+1) fluid model",
    )
    add_common(p, run, force=True, model={"own": ("theta",)})


def _points(text: str) -> int:
    """How many orbits ``--theta`` asks for (the API checks the values themselves)."""
    parts = str(text).split(":")
    if len(parts) == 3:
        try:
            return max(1, int(float(parts[2])))
        except (ValueError, OverflowError):
            return 1
    return len(str(text).split(","))


def _check_cost(args) -> None:
    """Each orbit is a Newton-shooting solve with the (L+1)^2 variational equations
    (L = 2: well under 0.1 s per point on a loaded core); L = inf: Fourier collocation."""
    from symdelay.core.budget import check_budget, power_cost
    from symdelay.core.params import as_L, is_infinite_L

    n = _points(args.theta)
    if args.L is None or is_infinite_L(args.L):
        per_point = 0.5
    else:
        per_point = power_cost(as_L(args.L, allow_symbol=False) + 1, 0.01, 2)
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
    _check_cost(args)
    res = limit_cycle(door.model_from_args(args), args.theta, system=args.system)
    rec = res.to_json()
    if args.json:
        emit_json(rec)
        return 0
    points = rec["points"] if isinstance(res, CycleFamily) else [rec]
    lines = [f"{'theta':>12}  {'amplitude_x':>20}  {'period':>20}  {'max|rho|':>10}  stable"]
    for pt in points:
        rho = sorted(float(m["abs"]) for m in pt["floquet_multipliers"])
        second = rho[-2] if len(rho) > 1 else float("nan")
        lines.append(
            f"{pt['theta']:>12}  {pt['amplitude_x']:>20}  {pt['period']:>20}  "
            f"{second:>10.4g}  {pt['stable']}"
        )
    lines.append(f"method: {points[0]['method']}")
    emit("\n".join(lines))
    return 0
