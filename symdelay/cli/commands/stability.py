"""``symdelay stability``: stability conditions (:func:`symdelay.analysis.stability.stability`);
for the founding model the closed-form conditions and the critical lam*theta for one L."""

from __future__ import annotations

from symdelay.cli import door
from symdelay.cli.commands._common import emit, emit_json
from symdelay.core.budget import honour_force
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
            "With numbers for mu, lam, theta and D, also the exact verdict there. For another "
            "model: Routh–Hurwitz on every factor of det(rI - J)."
        ),
    )
    door.add_model(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--force", action="store_true", help="run even when the estimated cost is over budget"
    )
    p.add_argument(
        "--minimal",
        action="store_true",
        help="only the conditions not implied by the others (theta >= 0 where theta is real; "
        "each dropped condition proven implied by the decision procedure, z3 nlsat)",
    )
    p.set_defaults(func=honour_force(run))


def run(args) -> int:
    from symdelay.analysis.stability import stability

    model = door.model_from_args(args)
    if args.minimal:
        return _print_minimal(args, model)
    res = stability(model, force=args.force)
    if res.L is None:
        return _print_generic(args, model, res)
    return _print_founding(args, res)


def _print_generic(args, model, res) -> int:
    record = {"model": model.name, **res.record()}
    record["factors_all"] = [f.to_json() for f in model.factors]
    if args.json:
        emit_json(record)
        return 0
    verdict = {True: "stable", False: "unstable", None: "stable exactly when:"}
    lines = [f"{model.name}: {verdict[record['stable']]}"]
    lines += [f"  {c}" for c in record["conditions"]]
    emit("\n".join(lines))
    return 0


def _print_founding(args, res) -> int:
    if args.json:
        emit_json(res.to_json())
        return 0
    lines = [f"L = {res.L}: characteristic polynomial {res.polynomial}", f"under {ASSUMPTIONS}:"]
    if res.stable_for_all_theta:
        lines.append("  stable for every theta >= 0 (no condition remains)")
    lines += [f"  stable iff {c}" if len(res.conditions) == 1 else f"  {c}" for c in res.conditions]
    crit = res.critical_lam_theta
    if res.L >= 2:
        lines.append(
            "critical lam*theta (Hopf): "
            + (str(crit) if crit is not None else "no closed form; smallest positive root of")
            + ("" if crit is not None else f" {res.hopf_polynomial} = 0 (lam*theta)")
        )
    lines.append(
        "oscillation (rightmost roots non-real, not a stability boundary): "
        + str(res.oscillation_condition)
    )
    if res.values:
        at = ", ".join(f"{k} = {v}" for k, v in res.values.items())
        if res.stable is None:
            missing = [k for k in ("mu", "lam", "theta", "D") if k not in res.values]
            lines.append(f"at {at}: the verdict needs " + ", ".join(missing) + " as well")
        else:
            lines.append(f"at {at}: {'stable' if res.stable else 'unstable'} (exact)")
    emit("\n".join(lines))
    return 0


def _print_minimal(args, model) -> int:
    from symdelay.analysis.claims import theta_assumption
    from symdelay.analysis.decide import minimal_conditions

    res = minimal_conditions(model, assume=theta_assumption(model, False))
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
