"""``symdelay stability``: stability conditions (:func:`symdelay.analysis.stability.stability`);
for the founding model the closed-form conditions and the critical lam*theta for one L."""

from __future__ import annotations

from symdelay.cli import door
from symdelay.cli.commands._common import add_common, emit, emit_json
from symdelay.core.errors import SymdelayInputError
from symdelay.models.erlang import ASSUMPTIONS

__all__ = ["register", "run"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "stability",
        help="stability conditions of the difference mode and the critical lam*theta",
        description=(
            "Routh–Hurwitz stability conditions of (r+mu)(r+gamma)^L + lam*theta*gamma^L, "
            f"simplified under {ASSUMPTIONS}; the Hopf boundary lam*theta = k_c(mu, gamma); "
            "the oscillation condition (rightmost roots non-real), which is a different set. "
            "With numbers for every parameter, the verdict there, decided exactly: stable, "
            "marginal (no root in Re r > 0, some on the imaginary axis, named with their "
            "frequencies) or unstable. For another model: Routh–Hurwitz on every factor of "
            "det(rI - J)."
        ),
    )
    p.add_argument(
        "--minimal",
        action="store_true",
        help="only the conditions not implied by the others (theta >= 0 where theta is real; "
        "each dropped condition proven implied by the decision procedure, z3 nlsat)",
    )
    p.add_argument(
        "--assume",
        action="append",
        default=[],
        metavar="TEXT",
        help="with --minimal: a relation the parameters satisfy besides their domains and "
        "theta >= 0, e.g. 'mu < gamma' (repeatable; the claim language of verify)",
    )
    p.add_argument(
        "--timeout",
        default=None,
        kind="number",
        metavar="SECONDS",
        help="with --minimal: the decision procedure's budget per check (default 10); a "
        "condition whose check runs out is kept and listed",
    )
    add_common(p, run, dps="20", force=True)


def run(args) -> int:
    from symdelay.analysis.stability import stability
    from symdelay.core.params import as_dps

    given = getattr(args, "_given", {})
    if args.minimal and "dps" in given:
        raise SymdelayInputError(
            "--dps has no effect with --minimal: the minimal conditions are exact"
        )
    for dest in ("assume", "timeout"):
        if not args.minimal and dest in given:
            raise SymdelayInputError(
                f"--{dest} is for --minimal (the minimal conditions): give --minimal, or "
                f"leave --{dest} out"
            )
    model = door.model_from_args(args)
    if args.minimal:
        return _print_minimal(args, model)
    res = stability(model, force=args.force, dps=as_dps(args.dps))
    if args.json:
        emit_json(res.to_json())
    else:
        emit(res.text())
    return 0


def _print_minimal(args, model) -> int:
    from symdelay.analysis.claims import theta_assumption
    from symdelay.analysis.decide import minimal_conditions
    from symdelay.cli.commands.verify import _timeout_ms

    res = minimal_conditions(
        model,
        assume=(*theta_assumption(model, False), *args.assume),
        timeout_ms=_timeout_ms(args.timeout),
    )
    if args.json:
        emit_json(res.to_json())
        return 0
    lines = [f"{model.name}: stable exactly when (minimal: no condition implied by the others)"]
    if res.assume:
        lines[0] += ", assuming " + " and ".join(res.assume)
    lines += [f"  {c}" for c in res.conditions] or ["  (no condition remains)"]
    if res.dropped:
        lines.append(
            f"dropped {len(res.dropped)} condition(s), each proven implied by the others "
            "(decision procedure, z3 nlsat: unsat):"
        )
        lines += [f"  {c}" for c, _ in res.dropped]
    if res.kept_undecided:
        lines.append(
            "kept because the decision procedure ran out of time (the list may not be "
            "minimal): " + "; ".join(str(c) for c in res.kept_undecided)
        )
    emit("\n".join(lines))
    return 0
