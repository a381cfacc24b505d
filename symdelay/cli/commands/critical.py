"""``symdelay critical``: the critical theta_c(D) and Hopf frequency at given delays."""

from __future__ import annotations

from symdelay.cli.commands._common import emit, emit_json
from symdelay.cli.commands._model_args import add_model_arguments
from symdelay.cli.commands._model_run import run_critical, wants_model
from symdelay.core.errors import SymdelayInputError
from symdelay.core.params import as_dps, as_L_or_inf
from symdelay.models.erlang.hopf import critical_theta, format_exact

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
    p.add_argument("--L", default=None, help="number of delay phases: integer >= 1, or inf")
    p.add_argument("--mu", default=None, help="service rate (> 0)")
    p.add_argument("--lam", default=None, help="per-server arrival rate (> 0)")
    p.add_argument("--D", default=None, help="mean delays, comma-separated, e.g. 0.5,1,2,4")
    p.add_argument("--theta", default=None, help=argparse_suppress())
    add_model_arguments(p, founding_options=False)
    p.add_argument("--dps", default="15", help="significant digits (5..10000, default 15)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def argparse_suppress():
    import argparse

    return argparse.SUPPRESS


def run(args) -> int:
    if args.theta is not None:
        raise SymdelayInputError("critical computes theta_c: leave --theta out")
    if wants_model(args):
        if args.model_file:
            if args.D is not None:
                raise SymdelayInputError(
                    "--D is for built-in models; give a model file's delay with --set"
                )
            return run_critical(args, [None])
        # no --D: the model's own delay (e.g. a phase-type delay given by its rates)
        return run_critical(args, [None] if args.D is None else parse_D_list(args.D))
    missing = [n for n in ("L", "mu", "lam", "D") if getattr(args, n) is None]
    if missing:
        raise SymdelayInputError("the founding model needs " + ", ".join(f"--{n}" for n in missing))
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
