"""``symdelay charpoly``: the characteristic polynomial of the difference mode."""

from __future__ import annotations

from symdelay.cli import door
from symdelay.cli.commands._common import emit, emit_json
from symdelay.core.errors import SymdelayInputError

__all__ = ["register", "run", "charpoly_record", "model_charpoly_record"]


def model_charpoly_record(model, full: bool = False) -> dict:
    """The ``charpoly`` record of any model: the difference mode's (or, with ``full`` or
    without such a mode, the whole) polynomial, and every factor with its mode."""
    import sympy as sp

    from symdelay.core.latex import tex

    factors = model.factors
    chosen = [f for f in factors if f.mode.startswith("difference")] if not full else []
    poly = sp.Mul(*[f.factor**f.multiplicity for f in (chosen or factors)])
    return {
        "model": model.name,
        "parameters": {str(k): str(v) for k, v in model.values.items()},
        "polynomial": str(poly),
        "latex": tex(poly, model.latex_names),
        "factors": [f.to_json() for f in factors],
    }


#: The most decimal digits of one exact number printed (Python refuses to print an int of
#: more than 4300 digits; such a polynomial is unreadable anyway).
MAX_PRINTED_DIGITS = 4000


def _refuse_huge_numbers(poly, L_value) -> None:
    """Refuse, in one line, a polynomial whose exact coefficients cannot be printed."""
    import sympy as sp

    bits = max(
        (max(int(q.p).bit_length(), int(q.q).bit_length()) for q in poly.atoms(sp.Rational)),
        default=0,
    )
    digits = int(bits * 0.30103) + 1
    if digits > MAX_PRINTED_DIGITS:
        raise SymdelayInputError(
            f"the exact polynomial at L = {L_value} and these values has a coefficient of "
            f"about {digits} digits (more than {MAX_PRINTED_DIGITS}): use values nearer 1, "
            "fewer phases, or leave a parameter symbolic (e.g. omit --D)"
        )


def charpoly_record(L_value, full: bool = False, **params) -> dict:
    """The JSON object printed by ``symdelay charpoly`` (params: mu, lam, theta, D)."""
    import sympy as sp

    from symdelay.core.latex import tex
    from symdelay.core.params import as_parameter
    from symdelay.core.symbols import SYMBOLS
    from symdelay.models.erlang.charpoly import characteristic_polynomial, infinite_L_limit

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
    _refuse_huge_numbers(poly, L_value)
    key_L = L_value if isinstance(L_value, int) else str(L_value)
    return {"L": key_L, "polynomial": str(poly), "latex": tex(poly)}


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "charpoly",
        help="characteristic polynomial of the difference mode (any L, symbolic L, or L=inf)",
        description="Print the characteristic polynomial det(rI - J) of the difference mode.",
    )
    p.add_argument("--full", action="store_true", help="the full polynomial, factored by mode")
    door.add_model(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args) -> int:
    from symdelay.core.params import as_L_or_inf

    if not door.founding(args):
        record = model_charpoly_record(door.model_from_args(args), full=args.full)
        if args.json:
            emit_json(record)
            return 0
        lines = [f"{record['model']}:  {record['polynomial']}"]
        lines += [
            f"  [{f['mode']}] {f['factor']}"
            + (f" (x{f['multiplicity']})" if f["multiplicity"] > 1 else "")
            for f in record["factors"]
        ]
        emit("\n".join(lines))
        return 0
    if args.L is None:
        raise SymdelayInputError(
            "--L is required for the founding model: an integer >= 1, L, or inf"
        )
    params = {k: getattr(args, k) for k in ("mu", "lam", "theta", "D")}
    L_value = as_L_or_inf(args.L, allow_symbol=True)
    record = charpoly_record(L_value, full=args.full, **params)
    if args.full and isinstance(L_value, int):
        record["factors"] = model_charpoly_record(door.model_from_args(args), full=True)["factors"]
    if args.json:
        emit_json(record)
    else:
        lhs = record.get("polynomial", record.get("equation"))
        emit(f"L = {record['L']}:  {lhs}" + (" = 0" if "equation" in record else ""))
    return 0
