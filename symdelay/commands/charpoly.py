"""``symdelay charpoly``: the characteristic polynomial of the difference mode."""

from __future__ import annotations

import sympy as sp

from ..charpoly import characteristic_polynomial, infinite_L_limit
from ..errors import SymdelayInputError
from ..outputs.latex import tex
from ..params import as_L_or_inf, as_parameter
from ..symbols import SYMBOLS
from ._common import emit, emit_json

__all__ = ["register", "run", "charpoly_record"]


def charpoly_record(L_value, full: bool = False, **params) -> dict:
    """The JSON object printed by ``symdelay charpoly`` (params: mu, lam, theta, D)."""
    if L_value == sp.oo:
        if full:
            raise SymdelayInputError(
                "--full needs a finite L: the limit L -> inf has no full polynomial"
            )
        values = {
            SYMBOLS[k]: as_parameter(k, v, positive=(k != "theta"))
            for k, v in params.items()
            if v is not None
        }
        eq = infinite_L_limit().result.subs(values)
        return {"L": "inf", "equation": str(eq), "latex": tex(eq) + " = 0"}
    poly = characteristic_polynomial(L_value, full=full, **params)
    key_L = L_value if isinstance(L_value, int) else str(L_value)
    return {"L": key_L, "polynomial": str(poly), "latex": tex(poly)}


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "charpoly",
        help="characteristic polynomial of the difference mode (any L, symbolic L, or L=inf)",
        description="Print the characteristic polynomial det(rI - J) of the difference mode.",
    )
    p.add_argument("--L", required=True, help="number of delay phases: integer >= 1, L, or inf")
    p.add_argument("--full", action="store_true", help="the full 2(L+1) polynomial, factored")
    for name, what in (
        ("mu", "service rate"),
        ("lam", "per-server arrival rate"),
        ("theta", "routing sensitivity"),
        ("D", "mean action delay (sets gamma = L/D)"),
    ):
        p.add_argument(f"--{name}", help=f"{what}: a number to substitute (default: symbol)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args) -> int:
    params = {k: getattr(args, k) for k in ("mu", "lam", "theta", "D")}
    record = charpoly_record(as_L_or_inf(args.L, allow_symbol=True), full=args.full, **params)
    if args.json:
        emit_json(record)
    else:
        lhs = record.get("polynomial", record.get("equation"))
        emit(f"L = {record['L']}:  {lhs}" + (" = 0" if "equation" in record else ""))
    return 0
