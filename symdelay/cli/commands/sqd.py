"""``symdelay sqd``: the supermarket model SQ(d) — fixed point, simulation, fluid transient.

``simulate`` and ``fluid`` print a :class:`~symdelay.analysis.timeseries.TimeSeries` (JSON
``{"model", "parameters", "kind", "states", "t", "info", ...}``; ``--csv FILE`` the table):
the simulation's instantaneous tails ``s`` at the batch boundaries with the estimates in
``info``; the fluid path through the ``fluid`` entry, the record ``symdelay fluid --model
sqd`` prints (the states ``x_k``, fraction of servers with k jobs).
"""

from __future__ import annotations

from symdelay.cli.commands._common import emit, emit_json
from symdelay.cli.commands._io import check_outputs, emit_series
from symdelay.core.errors import SymdelayInputError

__all__ = ["register", "run"]


#: the service options and the shapes each is for (given with another shape: refused)
SHAPE_OPTIONS = {
    "k": ("erlang",),
    "probs": ("hyperexp", "coxian"),
    "rates": ("hyperexp", "hypoexp", "coxian"),
    "alpha": ("ph",),
    "S": ("ph",),
}


def _service_args(p, *, general=False) -> None:
    """The phase-type service options; ``general``: the command also takes
    ``--service-dist``, which replaces them (given together: refused)."""
    g = p.add_argument_group("service (scaled to mean 1 unless --mean)")
    other = ("service_dist",) if general else ()
    g.add_argument(
        "--service",
        default="exp",
        choices=("exp", "erlang", "hyperexp", "hypoexp", "coxian", "ph"),
        not_with=other,
        help="phase-type service shape",
    )
    kinds = {"k": "integer", "probs": "numbers", "rates": "numbers", "alpha": "numbers"}
    helps = {
        "k": "erlang: number of phases",
        "probs": "hyperexp: probabilities; coxian: continue",
        "rates": "phase rates, e.g. 0.5,2",
        "alpha": "ph: initial probabilities, e.g. 1,0",
        "S": 'ph: sub-generator, e.g. "[[-2,1],[0,-3]]"',
    }
    for name, shapes in SHAPE_OPTIONS.items():
        g.add_argument(
            f"--{name}",
            default=None,
            kind=kinds.get(name, "matrix"),
            only_with={"service": shapes},
            not_with=other,
            help=helps[name],
        )
    g.add_argument("--mean", default="1", kind="number", help="mean service time (default 1)")


def _common(p, csv: bool = False) -> None:
    p.add_argument(
        "--d", default="2", kind="integer", help="number of queues sampled (integer >= 1)"
    )
    p.add_argument(
        "--lam", default="0.9", kind="number", help="arrival rate per server (lam * mean < 1)"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    if csv:
        p.add_argument(
            "--csv", metavar="FILE", help="write the paths as a CSV table ('-': standard output)"
        )
    p.add_argument(
        "--force",
        action="store_true",
        help="run even when the estimated running time or memory is over the budget",
    )


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "sqd",
        help="supermarket model SQ(d): fixed point, simulation, fluid transient",
        description="N servers, each arrival joins the shortest of d sampled queues.",
    )
    sub = p.add_subparsers(dest="sqd_command", metavar="{fixed-point,simulate,fluid}")
    fp = sub.add_parser("fixed-point", help="mean-field fixed point (Newton, proved truncation)")
    _common(fp)
    _service_args(fp)
    fp.add_argument("--dps", default="15", kind="integer", help="significant digits (default 15)")
    fp.add_argument("--stability", action="store_true", help="also the rightmost eigenvalue")
    fp.set_defaults(func=run_fixed_point)
    sm = sub.add_parser("simulate", help="exact discrete-event simulation of N servers")
    sm.add_argument("--N", default="1000", kind="integer", help="number of servers (>= d)")
    _common(sm, csv=True)
    _service_args(sm, general=True)
    sm.add_argument(
        "--service-dist",
        default=None,
        help="true distribution instead of a phase type: deterministic, lognormal:scv=4, "
        "weibull:shape=0.5, pareto:alpha=3, gamma:scv=0.5",
    )
    sm.add_argument("--T", default="2000", kind="number", help="simulated time")
    sm.add_argument("--warmup", default=None, kind="number", help="warm-up time (default T/10)")
    sm.add_argument(
        "--batches", default="20", kind="integer", help="batches for batch means (default 20)"
    )
    sm.add_argument("--seed", default="1", kind="integer", help="random seed")
    sm.add_argument(
        "--backend",
        default="auto",
        choices=("auto", "c", "python"),
        help="event loop: the compiled kernel (auto: when a C compiler is found) or the "
        "pure-Python twin (same path, slower)",
    )
    sm.add_argument("--delay-L", default=None, kind="integer", help="Erlang action delay: phases L")
    sm.add_argument("--delay-D", default=None, kind="number", help="Erlang action delay: mean D")
    sm.set_defaults(func=run_simulate)
    fl = sub.add_parser("fluid", help="transient of the mean field from a start")
    _common(fl, csv=True)
    _service_args(fl)
    fl.add_argument("--T", default="50", kind="number", help="time horizon")
    fl.add_argument(
        "--start", default="empty", help="empty, fixed, or tails s_1,s_2,... e.g. 0.5,0.2"
    )
    fl.add_argument(
        "--K", default=None, kind="integer", help="truncation level (default: from the bound)"
    )
    fl.add_argument("--points", default="51", kind="integer", help="output times")
    fl.set_defaults(func=run_fluid)
    p.set_defaults(func=run)


def run(args) -> int:
    raise SymdelayInputError("give a sub-command: symdelay sqd fixed-point|simulate|fluid")


def _service(args):
    from symdelay.models.sqd.service import service_from_options

    return service_from_options(
        args.service,
        k=args.k,
        probs=args.probs,
        rates=args.rates,
        alpha=args.alpha,
        S=args.S,
        mean=args.mean,
        force=args.force,
    )


def run_fixed_point(args) -> int:
    from symdelay.core.params import as_dps
    from symdelay.models.sqd import fixed_point

    fp = fixed_point(args.d, args.lam, _service(args), dps=as_dps(args.dps), force=args.force)
    rec = fp.to_json()
    if args.stability:  # the roots entry on the model at the fixed point's truncation
        from symdelay.models.sqd.stability import stability_at

        rs = stability_at(fp, force=args.force)
        import mpmath

        rec["rightmost_eigenvalue"] = mpmath.nstr(rs.roots[0].value, fp.dps)  # rightmost first
        rec["stable"] = rs.is_stable
        rec["roots"] = rs.to_json()
    if args.json:
        emit_json(rec)
        return 0
    lines = [
        f"SQ({rec['d']}), lam = {rec['lam']}, service {rec['service']['kind']} "
        f"(mean {rec['service']['mean']}, scv {rec['service']['scv']}), K = {rec['truncation']}",
        f"mean queue   {rec['mean_queue']}",
        f"mean sojourn {rec['mean_sojourn']}",
    ]
    if rec["closed_form"]:
        lines.append(f"s_k = {rec['closed_form']}")
    lines += [f"s_{k + 1:<3} {v}" for k, v in enumerate(rec["tail"][:12])]
    if args.stability:
        lines.append(f"rightmost eigenvalue {rec['rightmost_eigenvalue']}")
    emit("\n".join(lines))
    return 0


def run_simulate(args) -> int:
    from symdelay.models.sqd.service import parse_service_dist
    from symdelay.models.sqd.simulate import simulate

    check_outputs(args)
    service = (
        parse_service_dist(args.service_dist, args.mean) if args.service_dist else _service(args)
    )
    delay = None
    if args.delay_L is not None or args.delay_D is not None:
        delay = (args.delay_L or 1, args.delay_D or 0)
    r = simulate(
        args.N,
        args.d,
        args.lam,
        service,
        T=args.T,
        seed=args.seed,
        warmup=args.warmup,
        batches=args.batches,
        delay=delay,
        backend=args.backend,
        force=args.force,
    )
    if emit_series(args, r, "sqd simulate"):
        return 0
    p, i = r.parameters, r.info
    events = int(r.events.sum())
    lines = [
        f"SQ({p['d']}), N = {p['N']}, lam = {p['lam']}, service {p['service']}, T = {p['T']}",
        f"mean sojourn {i['mean_sojourn']:.6g}  95% CI [{i['ci95'][0]:.6g}, {i['ci95'][1]:.6g}] "
        f"({i['ci_method']})",
        f"events {events:,} in {i['seconds']:.2f} s ({i['events_per_second'] or 0:,.0f} events/s)",
    ]
    lines += [f"s_{k + 1:<3} {v:.6g}" for k, v in enumerate(i["tail"][:10])]
    emit("\n".join(lines))
    return 0


def run_fluid(args) -> int:
    from symdelay.models.sqd.fluid import fluid, tails

    check_outputs(args)
    tr = fluid(
        args.d, args.lam, _service(args), T=args.T, start=args.start, K=args.K,
        points=args.points, force=args.force,
    )  # fmt: skip
    if emit_series(args, tr, "sqd fluid"):
        return 0
    p = tr.parameters
    s = tails(tr)
    cols = min(3, p["K"])  # as many columns as the path has levels
    header = f"{'t':>8} " + " ".join(f"{f's_{k}':>8}" for k in range(1, cols + 1))
    lines = [f"SQ({p['d']}), lam = {p['lam']}, K = {p['K']}", header]
    for t, row in zip(tr.t, s):
        lines.append(f"{t:8.3f} " + " ".join(f"{v:8.6f}" for v in row[:cols]))
    lines += [f"note: {n}" for n in tr.info.get("notes", [])]
    emit("\n".join(lines))
    return 0
