"""``symdelay roots``: certified characteristic roots (:func:`symdelay.analysis.roots.roots`).

symdelay roots --L 200 --mu 1 --lam 1 --theta 5 --D 1 --dps 50 --json
symdelay roots --L 1000000 --mu 1 --lam 1 --theta 5 --D 1 --rightmost 2
symdelay roots --L inf --mu 1 --lam 1 --theta 5 --D 1 --branches -3..3
symdelay roots --model phase_type --delay hypoexp --rates 1,2 --mu 1 --lam 1 --theta 3
"""

from __future__ import annotations

from symdelay.cli import door
from symdelay.cli.commands._common import emit, emit_json
from symdelay.core.errors import SymdelayInputError

__all__ = ["register", "run", "roots_record"]


def roots_record(args, model=None):
    """The :class:`~symdelay.analysis.rootset.RootSet` for parsed arguments: the model the
    door builds (or ``model``), through the entry :func:`symdelay.analysis.roots.roots`."""
    from symdelay.analysis.roots import roots
    from symdelay.models.erlang.roots import parse_branches

    model = door.model_from_args(args) if model is None else model
    return roots(
        model,
        dps=args.dps,
        rightmost=None if args.rightmost is None else _positive_int(args.rightmost),
        branches=None if args.branches is None else parse_branches(args.branches),
        force=False,
    )


def _positive_int(text):
    try:
        value = int(str(text).strip())
    except ValueError:
        value = 0
    if value < 1:
        raise SymdelayInputError(f"--rightmost must be an integer >= 1, got '{text}'")
    return value


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "roots",
        help="certified characteristic roots (all for L <= 10^4, K rightmost, or L = inf)",
        description="Roots of (r+mu)(r+gamma)^L + lam theta gamma^L (gamma = L/D), each with "
        "a proved error radius, and the certified number of unstable roots; for another model "
        "every root of det(rI - J), factor by factor.",
    )
    p.add_argument(
        "--dps",
        default="50",
        kind="integer",
        help="significant decimal digits (5..10000, default 50)",
    )
    p.add_argument(
        "--rightmost", default=None, kind="integer", help="only the K rightmost roots (L <= 10^7)"
    )
    p.add_argument(
        "--branches",
        default=None,
        kind="branches",
        help="Lambert-W branches for --L inf (K1..K2, default -3..3)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    door.add_model(p)
    p.set_defaults(func=run)


def run(args) -> int:
    model = door.model_from_args(args)
    res = roots_record(args, model)  # a failed certification: one line, exit 2 (cli.main)
    if res.per_factor:
        return _print_factors(args, model, res)
    return _print_roots(args, res)


def _print_roots(args, res) -> int:
    """The founding model's roots (its difference mode), as in every release."""
    import mpmath

    rec = res.to_json()
    if args.json:
        emit_json(rec)
        return 0
    if res.mode == "all":
        head = f"L = {rec['L']}: {len(res)} roots (all), unstable_count = {res.unstable_count}"
    else:
        head = (
            f"L = {rec['L']}: {len(res)} roots listed ({res.mode}), {rec['listed_unstable']} of "
            f"them unstable; whole spectrum: unstable_count = {res.unstable_count}"
        )
    sa = "spectral abscissa" if res.mode == "all" else "largest Re of the listed roots"
    emit(f"{head}, on the imaginary axis = {res.axis_count}, {sa} = {rec['spectral_abscissa']}")
    with mpmath.workdps(8):
        for z, item in zip(res, rec["roots"]):
            emit(f"  {item['re']}  {item['im']}i   +- {mpmath.nstr(z.radius, 3)}")
    return 0


def _print_factors(args, model, res) -> int:
    """A model's roots factor by factor, with its parameter values."""
    record = res.to_json()
    record["parameters"] = {
        "model": model.name,
        **{str(k): str(v) for k, v in model.values.items()},
    }
    if args.json:
        emit_json(record)
        return 0
    lines = [
        f"{res.model_name}: {res.unstable_count} root(s) with Re r > 0, {res.axis_count} on the "
        f"imaginary axis (certified, counted with multiplicity)"
    ]
    for f in record["factors"]:
        lines.append(
            f"[{f['mode']}] {f['factor']}"
            + (f" (x{f['multiplicity']})" if f["multiplicity"] > 1 else "")
        )
        for z in f["roots"]:
            sign = "-" if z["im"].startswith("-") else "+"
            mult = f", multiplicity {z['multiplicity']}" if "multiplicity" in z else ""
            lines.append(
                f"    {z['re']} {sign} {z['im'].lstrip('-')}i  (radius {z['radius']}{mult})"
            )
    lines += [f"note: {n}" for n in record["notes"]]
    emit("\n".join(lines))
    return 0
