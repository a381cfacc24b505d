"""``symdelay critical``: the critical theta_c(D) and Hopf frequency at given delays."""

from __future__ import annotations

from symdelay.cli import door
from symdelay.cli.commands._common import add_common, emit, emit_json
from symdelay.core.errors import SymdelayInputError

__all__ = ["register", "run", "parse_D_list", "text_lines"]


def parse_D_list(text: str) -> list[str]:
    """Split ``--D 0.5,1,2`` into its items (each checked later by the analysis)."""
    items = [s.strip() for s in str(text).split(",")]
    if not items or any(not s for s in items):
        raise SymdelayInputError(
            f"--D must be a comma-separated list of positive delays (e.g. 0.5,1,2), got '{text}'"
        )
    return items


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
        "--D", default=None, kind="numbers", help="mean delays, comma-separated, e.g. 0.5,1,2,4"
    )
    add_common(p, run, dps="15", model={"own": ("D",)})


def text_lines(curve) -> list[str]:
    """The text output: the founding model's table (its own fast path), or one line per
    point of the generic Hopf crossing."""
    record = {**curve.header(), "points": curve.point_records()}  # no closed forms needed
    if curve.method == "specialised":
        dps = curve.dps
        lines = [", ".join(f"{k} = {v}" for k, v in record["parameters"].items())]
        lines.append(f"{'D':>12}  {'theta_c':>{dps + 7}}  omega")
        for pt in record["points"]:
            om = pt["omega"] if pt["omega"] is not None else "- (stable for every theta >= 0)"
            lines.append(f"{pt['D']:>12}  {pt['theta_c']:>{dps + 7}}  {om}")
        return lines
    lines = [f"{curve.model_name}: critical theta by the generic Hopf crossing"]
    for p in record["points"]:
        where = "the model's own delay" if p["D"] is None else f"D = {p['D']}"
        om = p["omega"] if p["omega"] is not None else "- (no crossing: stable for every theta > 0)"
        lines.append(f"  {where}: theta_c = {p['theta_c']}, omega = {om}")
    return lines


def run(args) -> int:
    from symdelay.analysis.critical import critical
    from symdelay.core.params import as_dps

    if getattr(args, "theta", None) is not None:
        raise SymdelayInputError("critical computes theta_c: leave --theta out")
    if args.model_file and args.D is not None:
        raise SymdelayInputError("--D is for built-in models; give a model file's delay with --set")
    dps = as_dps(args.dps)
    # no --D: the model's own delay (a phase-type delay given by its rates, a model file)
    at = None if args.D is None else parse_D_list(args.D)
    # the model at the first delay (a family may need one to build), swept over all of them
    model = door.model_from_args(args) if at is None else door.model_for_sweep(args, "D", at[0])
    curve = critical(model, "theta", over="D", at=at, dps=dps)
    if args.json:
        emit_json(curve.to_json())
    else:
        emit("\n".join(text_lines(curve)))
    return 0
