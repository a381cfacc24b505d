"""``symdelay simulate``: exact sample paths of the stochastic system (scaled by eta).

JSON: one replication -> ``{"events", "t", "q1", "q2", "z1", "z2"}`` (``z1[l-1]`` is the
path of ``z_{1,l}``); R > 1 -> ``{"events": total, "replications": [one such object each]}``.
``--csv FILE`` writes columns ``replication, t, q1, q2, z1_1.., z2_1..``.
"""

from __future__ import annotations

import json

import numpy as np

from ._common import emit, emit_json

__all__ = ["register", "run", "add_rate_arguments", "parse_initial"]


def add_rate_arguments(p, *, horizon=True, L_default="2") -> None:
    """``--L --mu --lam --theta --D`` (and ``--T --dt``) shared by simulate/fluid/variance."""
    p.add_argument(
        "--L", default=L_default, help=f"number of Erlang delay phases (default {L_default})"
    )
    p.add_argument("--mu", default="1", help="service rate (default 1)")
    p.add_argument("--lam", default="1", help="per-server arrival rate (default 1)")
    p.add_argument("--theta", default="2", help="routing sensitivity (default 2)")
    p.add_argument("--D", default="1", help="mean action delay (default 1)")
    if horizon:
        p.add_argument("--T", default="20", help="time horizon (default 20)")
        p.add_argument("--dt", default="0.1", help="grid step (default 0.1)")


def parse_initial(text):
    """A comma-separated list or a JSON list; ``None`` stays ``None``."""
    from ..errors import SymdelayInputError

    if text is None:
        return None
    try:
        value = json.loads(text) if text.strip().startswith("[") else text.split(",")
        return [float(v) for v in value]
    except (ValueError, TypeError):
        raise SymdelayInputError(
            f"--initial must be comma-separated numbers, got '{text}'"
        ) from None


def register(subparsers) -> None:
    p = subparsers.add_parser("simulate", help="exact simulation of the jump process")
    add_rate_arguments(p)
    p.add_argument("--eta", default="1000", help="system scale (integer >= 1, default 1000)")
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p.add_argument("--replications", default="1", help="independent paths (default 1)")
    p.add_argument(
        "--initial",
        default=None,
        help="initial counts Q1,Q2,Z1_1..Z1_L,Z2_1..Z2_L (default 0,eta,0,...)",
    )
    p.add_argument("--json", action="store_true", help="print the paths as JSON")
    p.add_argument("--csv", metavar="FILE", help="write the paths as a CSV table")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..stochastic.simulate import simulate

    res = simulate(
        L=args.L, eta=args.eta, mu=args.mu, lam=args.lam, theta=args.theta, D=args.D,
        T=args.T, dt=args.dt, seed=args.seed, replications=args.replications,
        initial=parse_initial(args.initial),
    )  # fmt: skip
    if args.csv:
        header, rows = res.table()
        fmt = ["%d"] + ["%.10g"] * (rows.shape[1] - 1)
        np.savetxt(args.csv, rows, delimiter=",", header=",".join(header), comments="", fmt=fmt)
    if args.json:
        emit_json(res.to_json())
    elif not args.csv:
        emit(
            f"simulated {res.replications} path(s), {res.events} events "
            f"(arrival/phase/enter_service/service: {res.transition_counts.sum(axis=0).tolist()}); "
            f"final q1={res.paths[0, -1, 0]:g} q2={res.paths[0, -1, 1]:g} (use --json or --csv)"
        )
    return 0
