"""``symdelay lb``: LB(xi, c, d) routing across many-server stations (docs/lb.md).

Sub-commands: ``diffusion`` (Halfin–Whitt stationary values), ``simulate`` (exact CTMC with
95 % intervals: a :class:`~symdelay.analysis.timeseries.TimeSeries` of the scaled numbers
``x_j`` at the batch boundaries, the estimates in its ``info``; ``--csv FILE`` the table),
``design`` (weights c, d for a target), ``fluid`` (fluid equilibrium; the fluid path is
``symdelay fluid --model lb``).
"""

from __future__ import annotations

from symdelay.cli.commands._common import emit, emit_json

__all__ = ["register", "run"]


def _system_arguments(p, *, weights=True, delays=True) -> None:
    """The stations, the sampling and the weights (``delays=False``: no c, the fluid
    equilibrium below capacity, where delays vanish on the fluid scale)."""
    p.add_argument(
        "--stations",
        required=True,
        help='stations, e.g. "N=50,mu=1;N=100,mu=0.5" (servers and service rate each)',
    )
    p.add_argument(
        "--xi",
        default=None,
        kind="integer",
        not_with=("xi_dist",),
        help="stations sampled per arrival, fixed (default J)",
    )
    p.add_argument("--xi-dist", default=None, help="law of xi, e.g. 2:0.5,3:0.5")
    if weights and delays:
        # the weights of LB routing: the other routings, and a design that solves for them,
        # do not read them
        p.add_argument(
            "--c",
            default=None,
            kind="numbers",
            only_with={
                "routing": ("lb",),
                "target": ("equal-utilisation", "idle-ratio", "min-delay"),
            },
            help="delay weights c_j, e.g. 1,1 (default ones)",
        )
    if weights:
        p.add_argument(
            "--d",
            default=None,
            kind="numbers",
            only_with={"routing": ("lb",), "target": ("equal-delay", "delay-ratio")},
            help="idleness weights d_j, e.g. 1,1 (default ones)",
        )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument(
        "--force", action="store_true", help="run even when the estimated time is over budget"
    )


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "lb",
        help="LB(xi, c, d) routing across many-server stations (Halfin-Whitt regime)",
        description="Balanced routing with partial information: sample xi stations; if all "
        "are full join the least c-weighted expected delay, else the largest d-weighted "
        "idleness ratio. Definitions: docs/lb.md.",
    )
    sub = p.add_subparsers(dest="lb_command", metavar="SUBCOMMAND", parser_class=type(p))
    sub.required = True

    q = sub.add_parser("diffusion", help="stationary values of the Halfin-Whitt diffusion")
    _system_arguments(q)
    q.add_argument(
        "--beta",
        required=True,
        kind="number",
        help="spare capacity: lam = sum N_j mu_j - beta sqrt(n) mu_bar, n = sum N_j",
    )
    q.add_argument("--dps", default="30", kind="integer", help="decimal digits (default 30)")
    q.set_defaults(func=run_diffusion)

    q = sub.add_parser("simulate", help="exact simulation with 95%% batch-means intervals")
    _system_arguments(q)
    g = q.add_mutually_exclusive_group(required=True)
    g.add_argument(
        "--lam", default=None, kind="number", help="total arrival rate (below sum N_j mu_j)"
    )
    g.add_argument(
        "--beta",
        default=None,
        kind="number",
        help="or the spare capacity beta (as in diffusion)",
    )
    q.add_argument("--T", default="1000", kind="number", help="simulated time (default 1000)")
    q.add_argument(
        "--warmup", default=None, kind="number", help="warm-up time discarded (default T/10)"
    )
    q.add_argument(
        "--batches", default="20", kind="integer", help="batches for the intervals (default 20)"
    )
    q.add_argument("--seed", default="1", kind="integer", help="random seed (default 1)")
    q.add_argument(
        "--routing",
        default="lb",
        choices=("lb", "shortest", "random"),
        help="lb (default), shortest of the xi sampled by number present (JSQ when xi = J), "
        "or random in proportion to capacity",
    )
    q.add_argument(
        "--csv", metavar="FILE", help="write the paths as a CSV table ('-': standard output)"
    )
    q.set_defaults(func=run_simulate)

    q = sub.add_parser("design", help="weights c, d for a target, from the diffusion")
    _system_arguments(q)
    q.add_argument("--beta", required=True, kind="number", help="spare capacity beta")
    q.add_argument(
        "--target",
        required=True,
        choices=("equal-utilisation", "equal-delay", "min-delay", "delay-ratio", "idle-ratio"),
        help="what the weights should achieve",
    )
    q.add_argument(
        "--ratio",
        default=None,
        kind="numbers",
        only_with={"target": ("delay-ratio", "idle-ratio")},
        help="delay-ratio / idle-ratio: e.g. 1,2",
    )
    q.add_argument(
        "--d-max",
        default="10",
        kind="number",
        only_with={"target": ("min-delay",)},
        help="min-delay: largest d_j / d_min (default 10)",
    )
    q.add_argument("--dps", default="30", kind="integer", help="decimal digits (default 30)")
    q.set_defaults(func=run_design)

    q = sub.add_parser("fluid", help="fluid equilibrium below capacity (exact)")
    _system_arguments(q, delays=False)
    q.add_argument(
        "--lam", required=True, kind="number", help="arrival rate per server (below mu_bar)"
    )
    q.set_defaults(func=run_fluid)
    p.set_defaults(func=lambda args: p.error("give a sub-command"))


def _policy(args):
    from symdelay.models.lb.policy import LBPolicy

    return LBPolicy.from_text(
        args.stations, xi=args.xi, xi_dist=args.xi_dist, c=getattr(args, "c", None),
        d=getattr(args, "d", None),
    )  # fmt: skip


def _int(name, text) -> int:
    from symdelay.core.errors import SymdelayInputError

    try:
        v = int(str(text).strip())
    except ValueError:
        raise SymdelayInputError(f"--{name} must be a whole number, got {text!r}") from None
    return v


def run_diffusion(args) -> int:
    from symdelay.models.lb.diffusion import diffusion

    res = diffusion(_policy(args), args.beta, dps=args.dps, force=args.force)
    if args.json:
        emit_json(res.to_json())
        return 0
    j = res.to_json()
    lines = [
        f"a = m_I/mu_bar = {j['a']}",
        f"P(wait) -> {j['p_wait']}",
        f"E[Q]/sqrt(n) -> {j['mean_queue_scaled']}",
        f"sqrt(n) E[W] -> {j['mean_delay_scaled']}",
    ]
    for k, s in enumerate(j["stations"], 1):
        lines.append(
            f"station {k}: utilisation {s['utilisation']}, idle share {s['idle_share']}, "
            f"sqrt(n) E[W_j] {s['mean_delay_scaled']}"
        )
    lines.append(f"closed form: P(wait) = {j['closed_form']['p_wait']}")
    emit("\n".join(lines))
    return 0


def run_simulate(args) -> int:
    from symdelay.cli.commands._io import check_outputs, emit_series
    from symdelay.models.lb.diffusion import simulation_rate
    from symdelay.models.lb.simulate import simulate

    check_outputs(args)
    pol = _policy(args)
    lam = args.lam if args.lam is not None else simulation_rate(pol, args.beta)
    res = simulate(
        pol, lam, args.T, seed=_int("seed", args.seed), warmup=args.warmup,
        batches=_int("batches", args.batches), routing=args.routing, force=args.force,
    )  # fmt: skip
    if emit_series(args, res, "lb simulate"):
        return 0
    i = res.info
    p_wait, mean_wait = i["p_wait"], i["mean_wait"]
    lines = [
        f"events {int(res.events.sum())} ({i['backend']})",
        f"P(wait) {p_wait.value:.5g}  95% [{p_wait.lo:.5g}, {p_wait.hi:.5g}]",
        f"mean wait {mean_wait.value:.5g}  95% [{mean_wait.lo:.5g}, {mean_wait.hi:.5g}]",
    ]
    for k, s in enumerate(i["stations"], 1):
        u, w = s["utilisation"], s["mean_wait"]
        lines.append(
            f"station {k}: utilisation {u.value:.5g} [{u.lo:.5g}, {u.hi:.5g}], "
            f"mean wait {w.value:.5g} [{w.lo:.5g}, {w.hi:.5g}]"
        )
    emit("\n".join(lines))
    return 0


def run_design(args) -> int:
    from symdelay.models.lb.design import design

    res = design(
        _policy(args), args.beta, args.target, ratio=args.ratio, d_max=args.d_max,
        dps=args.dps, force=args.force,
    )  # fmt: skip
    if args.json:
        emit_json(res.to_json())
        return 0
    j = res.to_json()
    emit(
        f"c = {', '.join(j['c'])}\nd = {', '.join(j['d'])}\n"
        f"predicted P(wait) {j['predicted']['p_wait']}, sqrt(n) E[W] "
        f"{j['predicted']['mean_delay_scaled']}"
    )
    return 0


def run_fluid(args) -> int:
    from symdelay.models.lb.fluid import fluid_equilibrium

    res = fluid_equilibrium(_policy(args), args.lam, force=args.force)
    if args.json:
        emit_json(res.to_json())
        return 0
    j = res.to_json()
    emit(
        f"kappa = {j['kappa']}\nx = {', '.join(j['x'])}\n"
        f"utilisation = {', '.join(j['utilisation'])}\n"
        f"relaxation rate of the total m_I = {j['relaxation_rate']}"
    )
    return 0


run = run_diffusion
