"""``symdelay worst-delay``: the mean delay D* minimising theta_c, and theta* = min theta_c."""

from __future__ import annotations

from symdelay.cli import door
from symdelay.cli.commands._common import emit, emit_json
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
    p.add_argument("--force", action="store_true", help="run even above the cost estimate's limit")
    p.add_argument(
        "--dps", default="15", kind="integer", help="significant digits (5..10000, default 15)"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    door.add_model(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from symdelay.analysis.window import worst_delay
    from symdelay.core.params import as_dps

    over = args.over or "D"
    door.refuse(args, "theta", why="worst-delay minimises theta_c: leave --theta out")
    if getattr(args, over, None) is not None:
        flag = "--" + over.replace("_", "-")
        raise SymdelayInputError(f"worst-delay varies {over}: leave {flag} out")
    model = door.model_free_in(args, over)
    res = worst_delay(model, over, dps=as_dps(args.dps), force=args.force)
    record = res.to_json()
    if args.json:
        emit_json(record)
        return 0
    if "explanation" in res.details:  # the founding model's closed form
        return _founding_text(record)
    if record["x_star"] is None:
        emit(f"{record['model']}: theta_c has no minimum over {over} (no theta destabilises)")
        return 0
    where = "" if record["attained"] else " (approached at the end of the range, not attained)"
    lines = [
        f"{record['model']}",
        f"{over}*     = {record['x_star']}{where}",
        f"theta*  = {record['critical']}",
        f"method: {record['method']}",
    ]
    lines += [f"note: {n}" for n in record["notes"]]
    emit("\n".join(lines))
    return 0


def _founding_text(record) -> int:
    cf = record["closed_form"]
    if record["D_star"] is None:
        emit(
            f"L = {record['L']}: no theta >= 0 destabilises, so there is no worst delay\n"
            f"{record['explanation']}"
        )
        return 0
    emit(
        f"L = {record['L']}\n"
        f"D*      = {record['D_star']}   (closed form: {cf['D_star']})\n"
        f"theta*  = {record['theta_star']}   (closed form: {cf['theta_star']})\n"
        f"omega*  = {record['omega_star']}\n"
        f"{record['explanation']}"
    )
    return 0
