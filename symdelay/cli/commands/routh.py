"""``symdelay routh``: the Routh array, conditions and root counts of a polynomial."""

from __future__ import annotations

from symdelay.cli.commands._common import add_common, emit, emit_json

__all__ = ["register", "run", "routh_record"]


def routh_record(poly: str, var: str = "s") -> dict:
    """The JSON object printed by ``symdelay routh --json``."""
    from symdelay.analysis.routh import routh_hurwitz

    return routh_hurwitz(poly, var).to_json()


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "routh",
        help="Routh–Hurwitz array, stability conditions and root counts of a polynomial",
        description=(
            "Exact Routh array (epsilon rule for a zero first entry, auxiliary polynomial "
            "for a zero row), the conditions for all roots in the open left half-plane, and "
            "the numbers of roots in the right half-plane and on the imaginary axis."
        ),
    )
    p.add_argument("polynomial", help="the polynomial, e.g. 's**4 + s**3 + 3*s**2 + 3*s + 3'")
    p.add_argument("--var", default="s", help="the polynomial variable (default s)")
    add_common(p, run, force=True, model=False)


def run(args) -> int:
    from symdelay.analysis.routh import routh_hurwitz

    res = routh_hurwitz(args.polynomial, args.var, force=args.force)
    if args.json:
        emit_json(res.to_json())
        return 0

    def show(x):
        return "depends on the symbols" if x is None else str(x)

    lines = []
    if res.multiplier != 1:
        analysed = sum(c * res.var ** (res.degree - i) for i, c in enumerate(res.coefficients))
        lines.append(
            f"multiplied by {res.multiplier} to clear denominators (same roots): {analysed}"
        )
    lines += [f"Routh array of {res.polynomial} in {res.var}:", res.format_table(), ""]
    if res.epsilon_rows:
        lines.append(f"epsilon rule (epsilon -> 0+) in rows {list(res.epsilon_rows)}")
    for k, A in res.auxiliary_polynomials:
        lines.append(f"zero row after row {k}: auxiliary polynomial {A}")
    lines.append("conditions (all roots in Re < 0):")
    lines += [f"  {c}" for c in res.conditions]
    lines.append(f"stable: {show(res.is_stable)}")
    lines.append(f"roots in Re > 0: {show(res.rhp_count)}")
    lines.append(f"roots on the imaginary axis: {show(res.imaginary_axis_count)}")
    emit("\n".join(lines))
    return 0
