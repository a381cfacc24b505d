"""``symdelay critical``: the critical theta_c(D) and Hopf frequency at given delays."""

from __future__ import annotations

from symdelay.cli import door
from symdelay.cli.commands._common import emit, emit_json
from symdelay.cli.commands._model_run import run_critical
from symdelay.core.errors import SymdelayInputError

__all__ = ["register", "run", "parse_D_list"]


def parse_D_list(text: str) -> list[str]:
    """Split ``--D 0.5,1,2`` into its items (each checked later by ``critical_theta``)."""
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
    p.add_argument("--D", default=None, help="mean delays, comma-separated, e.g. 0.5,1,2,4")
    door.add_model(p, own=("D",))
    p.add_argument("--dps", default="15", help="significant digits (5..10000, default 15)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args) -> int:
    from symdelay.core.params import as_dps, as_L_or_inf
    from symdelay.models.erlang.hopf import critical_theta, format_exact

    if getattr(args, "theta", None) is not None:
        raise SymdelayInputError("critical computes theta_c: leave --theta out")
    if not door.founding(args):
        if args.model_file:
            if args.D is not None:
                raise SymdelayInputError(
                    "--D is for built-in models; give a model file's delay with --set"
                )
            return run_critical(args, [None])
        # no --D: the model's own delay (e.g. a phase-type delay given by its rates)
        return run_critical(args, [None] if args.D is None else parse_D_list(args.D))
    door.need(args, "L", "mu", "lam", "D")
    L = as_L_or_inf(args.L)
    dps = as_dps(args.dps)
    curve = critical_theta(L, args.mu, args.lam, parse_D_list(args.D), dps=dps)
    record = curve.to_json()
    if args.json:
        emit_json(record)
        return 0
    lines = [f"L = {record['L']}, mu = {format_exact(curve.mu)}, lam = {format_exact(curve.lam)}"]
    lines.append(f"{'D':>12}  {'theta_c':>{dps + 7}}  omega")
    for pt in record["points"]:
        om = pt["omega"] if pt["omega"] is not None else "- (stable for every theta >= 0)"
        lines.append(f"{pt['D']:>12}  {pt['theta_c']:>{dps + 7}}  {om}")
    emit("\n".join(lines))
    return 0
