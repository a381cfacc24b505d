"""``symdelay unstable-theta | kappa-star | optimize-weights``: routing that counts jobs in flight.

The dispatcher routes on ``q_i + kappa * (jobs sent to i, still in flight)`` (or per-phase
weights); see :mod:`symdelay.models.inflight`.
"""

from __future__ import annotations

from symdelay.cli import door
from symdelay.cli.commands._common import add_common, emit, emit_json
from symdelay.core.errors import SymdelayInputError

__all__ = ["register"]


def _common(p, *, theta=False, lam=True):
    p.add_argument(
        "--L", required=True, kind="count", help="number of Erlang delay phases (integer >= 1)"
    )
    p.add_argument("--mu", default="1", kind="number", help="service rate (> 0, default 1)")
    if lam:
        p.add_argument(
            "--lam", default="1", kind="number", help="per-server arrival rate (> 0, default 1)"
        )
    if theta:
        p.add_argument("--theta", required=True, kind="number", help="routing sensitivity (>= 0)")
    p.add_argument("--D", default="1", kind="number", help="mean action delay (> 0, default 1)")


def _pattern_argument(p):
    p.add_argument(
        "--pattern",
        default=None,
        kind="pattern",
        help="observed phases: all (default), first, last, first-half, last-half, or one "
        "weight per phase (e.g. 0,1) multiplying kappa",
    )


def register(subparsers) -> None:
    any_model = door.CURRENT.named and door.CURRENT.family != "inflight"
    p = subparsers.add_parser(
        "unstable-theta",
        help="the theta >= 0 at which counting in-flight jobs with weight kappa is unstable",
        description=(
            "Exact set of routing sensitivities theta >= 0 for which the equilibrium is "
            "unstable when the dispatcher routes on queue + kappa * jobs in flight (bounded "
            "windows included): crossings from the exact Hopf curve, exact root counts "
            "between them. With --model NAME or --model-file FILE: the same set for that "
            "model (its theta-window from 0: exact crossings of its characteristic factors)."
        ),
    )
    if any_model:
        add_common(p, _run_unstable_any, dps="15", force=True)
    else:
        _common(p)
        _inflight_name(p)
        p.add_argument(
            "--kappa", required=True, kind="number", help="weight of the jobs in flight (>= 0)"
        )
        _pattern_argument(p)
        door.add_family(p, "inflight")
        add_common(p, _run_unstable, dps="15", model=False)

    p = subparsers.add_parser(
        "kappa-star",
        help="the smallest in-flight weight that keeps the equilibrium stable for every theta",
        description=(
            "The smallest weight kappa* such that routing on queue + kappa * jobs in flight "
            "is stable for every theta >= 0 (certified; closed form for L = 2; --L inf: the "
            "delay-differential limit, kappa* = 1/2). Depends on L and mu*D only. With "
            "--model NAME or --model-file FILE: the smallest value of that model's parameter "
            "kappa from which it is stable for every theta > 0."
        ),
    )
    if any_model:
        add_common(p, _run_kappa_star_any, dps="30", force=True)
    else:
        _common(p, lam=False)
        _inflight_name(p)
        _pattern_argument(p)
        door.add_family(p, "inflight")
        add_common(p, _run_kappa_star, dps="30", force=True, model=False)

    p = subparsers.add_parser(
        "optimize-weights",
        help="the in-flight weight(s) best for one criterion (decay, tolerance, variance)",
        description=(
            "The weight kappa in [0, --kappa-max] (or one weight per phase with --per-phase) "
            "that is best for the criterion: decay (largest decay rate of the imbalance), "
            "tolerance (shortest time after which |q1 - q2| stays within eps |x0| in the "
            "nonlinear fluid model; tolerance-linear: the linearised one), variance (smallest "
            "linear-noise stationary variance of Q1 - Q2 per eta)."
        ),
    )
    _common(p, theta=True)
    p.add_argument(
        "--criterion",
        required=True,
        choices=("decay", "tolerance", "tolerance-linear", "variance"),
        help="what 'better' means",
    )
    p.add_argument("--per-phase", action="store_true", help="one weight per delay phase")
    tolerance = {"criterion": ("tolerance", "tolerance-linear")}
    p.add_argument(
        "--kappa-max",
        default="2",
        kind="number|inf",
        help="search weights in [0, kappa-max] (default 2; inf: every weight >= 0)",
    )
    p.add_argument(
        "--eps",
        default="0.05",
        kind="number",
        only_with=tolerance,
        help="tolerance band eps (default 0.05)",
    )
    p.add_argument(
        "--x0",
        default=None,
        kind="number",
        only_with=tolerance,
        help="tolerance: initial imbalance (default lam/mu)",
    )
    add_common(p, _run_optimize, model=False)


def _inflight_name(p) -> None:
    p.add_argument(
        "--model",
        choices=["inflight"],
        default=None,
        help="the in-flight model (the default; another NAME or --model-file FILE: that model)",
    )


def _run_unstable_any(args) -> int:
    from symdelay.analysis.window import unstable_theta
    from symdelay.core.params import as_dps

    if getattr(args, "theta", None) is not None:
        raise SymdelayInputError("unstable-theta varies theta: leave --theta out")
    model = door.model_from_args(args)
    res = unstable_theta(model, lo=0, dps=as_dps(args.dps), force=args.force)
    record = res.to_json()
    if args.json:
        emit_json(record)
        return 0
    from symdelay.cli.commands.window import text_lines

    emit("\n".join(text_lines(record, "theta")))
    return 0


def _run_kappa_star_any(args) -> int:
    from symdelay.analysis.window import kappa_star
    from symdelay.core.params import as_dps

    for name in ("kappa", "theta"):
        if getattr(args, name, None) is not None:
            raise SymdelayInputError(f"kappa-star varies {name}: leave --{name} out")
    model = door.model_from_args(args)
    if "kappa" not in {str(s) for s in getattr(model, "parameters", ())}:
        raise SymdelayInputError(
            f"{model.name} has no parameter kappa (the weight kappa-star varies): use the "
            "inflight model or a model file with a parameter kappa"
        )
    res = kappa_star(model, dps=as_dps(args.dps), force=args.force)
    record = res.to_json()
    if args.json:
        emit_json(record)
        return 0
    if record["x_star"] is None:
        emit(f"{record['model']}: no kappa keeps the equilibrium stable for every theta > 0")
        return 0
    method = record["method"]
    emit(
        f"{record['model']}: kappa* = {record['x_star']}\n"
        f"method: {method['path']}: {method['algorithm']}"
    )
    return 0


def _run_unstable(args) -> int:
    from symdelay.analysis.window import unstable_theta
    from symdelay.core.params import as_dps, is_infinite_L

    if is_infinite_L(args.L):
        raise SymdelayInputError(
            f"L must be an integer >= 1 (number of delay phases), got '{args.L}' "
            "(kappa-star --L inf gives the limit)"
        )
    if args.kappa.strip() == "kappa" or "," in args.kappa:
        raise SymdelayInputError(
            "--kappa must be one number, the weight of the jobs in flight (weights per phase: "
            "--pattern, e.g. --pattern 0,1)"
        )
    model = _numbers(door.model_from_args(args), ("mu", "lam", "D"))
    res = unstable_theta(model, lo=0, dps=as_dps(args.dps))
    record = res.to_json()
    if args.json:
        emit_json(record)
        return 0
    o = record["parameters"]
    head = f"L = {o['L']}, kappa = {o['kappa']}"
    if not record["intervals"]:
        emit(f"{head}: stable for every theta >= 0")
        return 0
    parts = [f"({lo}, {hi})" for lo, hi in record["intervals"]]
    emit(f"{head}: unstable for theta in " + " U ".join(parts))
    return 0


def _numbers(model, names):
    """The model, once its options ``names`` are numbers (these commands need them)."""
    for name in names:
        if not model.options[name].is_Rational:
            raise SymdelayInputError(f"--{name} must be a number, got '{model.options[name]}'")
    return model


def _run_kappa_star(args) -> int:
    from symdelay.analysis.window import kappa_star
    from symdelay.core.budget import check_budget, power_cost
    from symdelay.core.params import as_dps, as_L, is_infinite_L

    if not is_infinite_L(args.L):
        n = as_L(args.L, allow_symbol=False)
        # weight on every phase: closed factors, about L^0.6 (L = 10^4: 0.6 s); a pattern:
        # the exact polynomials, about L^2 and more (L = 200: about 11 s)
        every = args.pattern is None or args.pattern.strip().lower() == "all"
        check_budget(
            f"kappa* for L = {n}",
            power_cost(n, 2e-3, 0.75) if every else power_cost(n, 2.75e-4, 2),
            force=args.force,
            shrink="a smaller --L (--L inf gives the delay-differential limit)",
        )
    model = door.model_from_args(args, kappa="kappa")  # the weight is what kappa* varies
    if not model.infinite:  # (L = inf: kappa* = 1/2 for every mu D)
        _numbers(model, ("mu", "D"))
    res = kappa_star(model, dps=as_dps(args.dps))
    record = res.to_json()
    if args.json:
        emit_json(record)
        return 0
    if record["kappa_star"] is None:
        emit(f"L = {record['L']}: no weight keeps the equilibrium stable for every theta")
        return 0
    text = f"L = {record['L']}, mu = {args.mu}, D = {args.D}: kappa* = {record['kappa_star']}"
    closed = record["closed_form"]
    if closed:
        text += f"  (closed form: {closed})"
    emit(text)
    return 0


#: The criteria work in double precision: rates (and lam*theta*D) beyond this are refused.
DOUBLE_RANGE = 1e150


def _check_double_range(args) -> None:
    """One line instead of a LinAlgError from infinite matrices (``--theta 1e308``)."""
    import sympy as sp

    from symdelay.core.params import as_parameter

    values = {}
    for name in ("mu", "lam", "theta", "D"):
        v = as_parameter(name, getattr(args, name), positive=name != "theta")
        if not v.is_number:
            raise SymdelayInputError(f"--{name} must be a number, got '{getattr(args, name)}'")
        values[name] = abs(v)
    scale = values["lam"] * values["theta"] * values["D"]
    for label, v in [*values.items(), ("lam*theta*D", scale)]:
        if v > DOUBLE_RANGE or (v != 0 and v < 1 / sp.Integer(int(DOUBLE_RANGE))):
            raise SymdelayInputError(
                f"{label} = {float(v):.3g} is outside 1e-150..1e150: the criteria are computed "
                "in double precision; give values in that range"
            )


def _run_optimize(args) -> int:
    from symdelay.models.inflight.criteria import optimize_weights

    try:
        kappa_max = float(args.kappa_max)
        eps = float(args.eps)
        x0 = None if args.x0 is None else float(args.x0)
    except ValueError:
        raise SymdelayInputError(
            "--kappa-max, --eps and --x0 must be numbers (e.g. --kappa-max 2 --eps 0.05)"
        ) from None
    _check_double_range(args)
    res = optimize_weights(
        args.L,
        args.mu,
        args.lam,
        args.theta,
        args.D,
        args.criterion,
        per_phase=args.per_phase,
        kappa_max=kappa_max,
        eps=eps,
        x0=x0,
    )
    record = res.to_json()
    if args.json:
        emit_json(record)
        return 0
    emit(
        f"{record['criterion']}: best kappa = {record['kappa']}, value {record['value']} "
        f"(kappa = 0: {record['at_kappa_0']}, kappa = 1: {record['at_kappa_1']})"
    )
    return 0
