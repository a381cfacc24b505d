"""``symdelay fluid``: the fluid ODEs integrated on the simulation grid (same keys)."""

from __future__ import annotations

from ._common import emit, emit_json
from .simulate import add_rate_arguments, parse_initial

__all__ = ["register", "run"]


def register(subparsers) -> None:
    p = subparsers.add_parser("fluid", help="the fluid limit on a time grid (solve_ivp)")
    add_rate_arguments(p)
    p.add_argument(
        "--initial",
        default=None,
        help="scaled initial state q1,q2,z1_1..z1_L,z2_1..z2_L (default 0,1,0,...)",
    )
    p.add_argument("--json", action="store_true", help="print the solution as JSON")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..stochastic.fluid import fluid

    res = fluid(
        L=args.L, mu=args.mu, lam=args.lam, theta=args.theta, D=args.D, T=args.T,
        dt=args.dt, initial=parse_initial(args.initial),
    )  # fmt: skip
    if args.json:
        emit_json(res.to_json())
    else:
        emit(
            f"fluid solution ({res.solver['method']}, rtol={res.solver['rtol']}, "
            f"atol={res.solver['atol']}) on {res.t.size} grid points; at t={res.t[-1]:g}: "
            f"q1={res.q1[-1]:.6g} q2={res.q2[-1]:.6g} (use --json)"
        )
    return 0
