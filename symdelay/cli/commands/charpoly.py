"""``symdelay charpoly``: the characteristic polynomial (:func:`symdelay.analysis.charpoly.charpoly`);
for the founding model the difference mode's, at any L, symbolic L or L = inf."""

from __future__ import annotations

from symdelay.cli import door
from symdelay.cli.commands._common import add_common, emit, emit_json

__all__ = ["register", "run"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "charpoly",
        help="characteristic polynomial of the difference mode (any L, symbolic L, or L=inf)",
        description="Print the characteristic polynomial det(rI - J) of the difference mode.",
    )
    p.add_argument("--full", action="store_true", help="the full polynomial, factored by mode")
    add_common(p, run)


def run(args) -> int:
    from symdelay.analysis.charpoly import charpoly

    res = charpoly(door.model_from_args(args), full=args.full)
    if args.json:
        emit_json(res.to_json())
    else:
        emit(res.text())
    return 0
