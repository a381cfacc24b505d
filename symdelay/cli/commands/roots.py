"""``symdelay roots``: certified characteristic roots (:func:`symdelay.analysis.roots.roots`).

symdelay roots --L 200 --mu 1 --lam 1 --theta 5 --D 1 --dps 50 --json
symdelay roots --L 1000000 --mu 1 --lam 1 --theta 5 --D 1 --rightmost 2
symdelay roots --L inf --mu 1 --lam 1 --theta 5 --D 1 --branches -3..3
symdelay roots --model phase_type --delay hypoexp --rates 1,2 --mu 1 --lam 1 --theta 3
symdelay roots --model-file examples/models/information_delay.toml --set mu=1 --set lam=1 \
    --set theta=2 --set D=1 --rightmost 4
symdelay roots --model-file examples/models/information_delay.toml ... --box -3,1,0,30
"""

from __future__ import annotations

from symdelay.cli import door
from symdelay.cli.commands._common import add_common, add_plot, emit, emit_json, write_plot
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
        box=None if args.box is None else _box(args.box),
        force=args.force,
    )


def _box(text):
    items = [t.strip() for t in str(text).split(",")]
    if len(items) != 4:
        raise SymdelayInputError(
            f"--box takes four numbers X0,X1,Y0,Y1 (the box X0 < Re r < X1, Y0 < Im r < Y1), "
            f"got '{text}'"
        )
    return tuple(items)


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
        description="Every root of the characteristic function, factor by factor (the founding "
        "model: the sum mode (r+mu)(r+gamma)^L and the difference mode (r+mu)(r+gamma)^L + "
        "lam theta gamma^L, gamma = L/D), each with a proved error radius that covers the "
        "digits printed, the certified counts in Re r > 0 and on the imaginary axis, and the "
        "verdict (stable, marginal, unstable).",
    )
    p.add_argument(
        "--rightmost",
        default=None,
        kind="integer",
        help="only the K rightmost roots (founding model L <= 10^7; a delay model: default 6)",
    )
    p.add_argument(
        "--box",
        default=None,
        kind="numbers",
        metavar="X0,X1,Y0,Y1",
        help="a delay model: every root with X0 < Re r < X1, Y0 < Im r < Y1 (write "
        "--box=-3,1,0,30 when X0 is negative)",
        not_with=("rightmost", "branches"),
    )
    p.add_argument(
        "--branches",
        default=None,
        kind="branches",
        help="Lambert-W branches for --L inf (K1..K2, default -3..3)",
    )
    add_plot(p)
    add_common(p, run, dps="50", force=True)


def run(args) -> int:
    model = door.model_from_args(args)
    res = roots_record(args, model)  # a failed certification: one line, exit 2 (cli.main)
    if args.json:
        emit_json(res.to_json())
    else:
        emit(res.text())
    write_plot(args, res)
    return 0
