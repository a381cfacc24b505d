"""``symdelay normal-form``: first Lyapunov coefficient and amplitude law at the Hopf point."""

from __future__ import annotations

from symdelay.cli import door
from symdelay.cli.commands._common import emit, emit_json
from symdelay.core.errors import SymdelayInputError

__all__ = ["register", "run"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "normal-form",
        help="Hopf normal form: first Lyapunov coefficient l1, super/subcritical, amplitude law",
        description=(
            "At the Hopf point theta_c of the exact nonlinear difference system (with tanh): "
            "the first Lyapunov coefficient l1 (Kuznetsov's projection formula, q_x = 1), "
            "whether the bifurcation is super- or subcritical, and c in the amplitude law "
            "A ~ c sqrt(theta - theta_c) of x = q1 - q2; closed forms where SymPy finds them "
            "(L = 2, 3). --L inf is the delay-differential limit."
        ),
    )
    door.add_model(p)
    p.add_argument(
        "--dps", default="15", kind="integer", help="significant digits (5..10000, default 15)"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args) -> int:
    from symdelay.analysis.normal_form import normal_form
    from symdelay.core.params import as_dps

    dps = as_dps(args.dps)
    if getattr(args, "theta", None) is not None:
        raise SymdelayInputError(
            "normal-form works at theta_c, which it computes: leave --theta out"
        )
    nf = normal_form(door.model_from_args(args), dps=dps)
    rec = nf.to_json()
    if args.json:
        emit_json(rec)
        return 0
    head = (
        rec["model"]
        if rec["L"] is None  # the founding model: its options
        else f"L = {rec['L']}, mu = {rec['mu']}, lam = {rec['lam']}, D = {rec['D']}"
    )
    lines = [
        head,
        f"  theta_c = {rec['theta_c']}, omega_c = {rec['omega']}, period = {rec['period']}",
        f"  l1 = {rec['l1']}  ({rec['criticality']}; normalised by {rec['l1_normalisation']})",
        f"  amplitude of x: A ~ {rec['amplitude_coefficient']} * sqrt(theta - theta_c)",
        f"  d omega / d theta at theta_c = {rec['omega_slope']} (frequency stationary)",
    ]
    cf = rec["closed_form"]
    if cf["l1"] is not None:
        lines.append(f"  closed form l1 = {cf['l1']}")
    if cf["amplitude_coefficient"] is not None:
        lines.append(f"  closed form c = {cf['amplitude_coefficient']}")
    lines.append(f"  why: {rec['structural_reason']}")
    emit("\n".join(lines))
    return 0
