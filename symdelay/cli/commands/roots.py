"""``symdelay roots``: certified characteristic roots of the difference mode.

symdelay roots --L 200 --mu 1 --lam 1 --theta 5 --D 1 --dps 50 --json
symdelay roots --L 1000000 --mu 1 --lam 1 --theta 5 --D 1 --rightmost 2
symdelay roots --L inf --mu 1 --lam 1 --theta 5 --D 1 --branches -3..3
"""

from __future__ import annotations

import re
import sys

from symdelay.cli import door
from symdelay.cli.commands._common import emit, emit_json
from symdelay.cli.commands._model_run import run_roots
from symdelay.core.errors import CertificationError, SymdelayInputError

__all__ = ["register", "run", "roots_record"]


def roots_record(args):
    """The :class:`~symdelay.models.erlang.roots.RootSet` for parsed arguments."""
    from symdelay.core.params import as_L_or_inf
    from symdelay.models.erlang.roots import characteristic_roots, parse_branches

    return characteristic_roots(
        as_L_or_inf(args.L),
        args.mu,
        args.lam,
        args.theta,
        args.D,
        dps=args.dps,
        rightmost=None if args.rightmost is None else _positive_int(args.rightmost),
        branches=parse_branches("-3..3" if args.branches is None else args.branches),
    )


def _positive_int(text):
    from symdelay.core.errors import SymdelayInputError

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
        "a proved error radius, and the certified number of unstable roots.",
    )
    # let '--branches -3..3' through (argparse would take '-3..3' for an option)
    p._negative_number_matcher = re.compile(r"^-\d+$|^-\d*\.\d+$|^-\d+\.\.-?\d+$")
    p.add_argument("--dps", default="50", help="significant decimal digits (5..10000, default 50)")
    p.add_argument("--rightmost", default=None, help="only the K rightmost roots (L <= 10^7)")
    p.add_argument(
        "--branches", default=None, help="Lambert-W branches for --L inf (K1..K2, default -3..3)"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    door.add_model(p)
    p.set_defaults(func=run)


def run(args) -> int:
    import mpmath

    if not door.founding(args):
        door.refuse(
            args, "rightmost", "branches", why="it is for the founding model (Erlang delay)"
        )
        try:
            return run_roots(args)
        except CertificationError as exc:
            print(f"symdelay: certification failed: {exc}", file=sys.stderr)
            return 1
    door.need(args, "L", "mu", "lam", "theta", "D")
    if args.branches is not None and str(args.L).strip().lower() not in ("inf", "oo"):
        raise SymdelayInputError("--branches is for --L inf (Lambert-W branches); drop it")
    try:
        res = roots_record(args)
    except CertificationError as exc:
        print(f"symdelay: certification failed: {exc}", file=sys.stderr)
        return 1
    if args.json:
        emit_json(res.to_json())
        return 0
    rec = res.to_json()
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
