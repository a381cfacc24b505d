"""The generic paths of the analysis commands: ``--model NAME`` (other than ``erlang``) or
``--model-file FILE``. Each handler builds the model once, calls the model-layer analysis
and prints its record; the founding model's own paths stay in each command module."""

from __future__ import annotations

from symdelay.cli.commands._common import emit, emit_json
from symdelay.cli.door import given_options, model_from_args
from symdelay.core.errors import SymdelayInputError

__all__ = [
    "run_stability",
    "run_simulate",
    "run_fluid",
    "run_variance",
    "run_derive",
    "run_critical",
    "run_roots",
]


def _transition_model(args, analysis: bool = True, **override):
    from symdelay.analysis.roots import check_analysis_cost
    from symdelay.model import Model

    model = model_from_args(args, **override)
    if not isinstance(model, Model):
        raise SymdelayInputError(
            f"{model.name} is a delay-differential model, not a transition table: use "
            "--L inf with the founding model's commands, or 'symdelay analyze --model dde'"
        )
    if analysis:  # the symbolic analysis (stability, roots, variance, derivation)
        check_analysis_cost(model, force=getattr(args, "force", False))
    return model


def _params(model, **extra) -> dict:
    out = {"model": model.name, **{str(k): str(v) for k, v in model.values.items()}}
    out.update({k: v for k, v in extra.items() if v is not None})
    return out


def run_stability(args) -> int:
    model = _transition_model(args)
    from symdelay.analysis.stability import model_stability

    record = {"model": model.name, **model_stability(model).to_json()}
    record["factors_all"] = [f.to_json() for f in model.factors]
    if args.json:
        emit_json(record)
        return 0
    verdict = {True: "stable", False: "unstable", None: "stable exactly when:"}
    lines = [f"{model.name}: {verdict[record['stable']]}"]
    lines += [f"  {c}" for c in record["conditions"]]
    emit("\n".join(lines))
    return 0


def _initial(args, model):
    from symdelay.cli.commands._io import parse_initial

    values = parse_initial(getattr(args, "initial", None))
    if values is not None and len(values) != len(model.states):
        raise SymdelayInputError(
            f"--initial needs {len(model.states)} values: "
            + ", ".join(s.name for s in model.states)
        )
    return values


def _write_table(args, name, parameters, header, rows) -> None:
    from symdelay.cli.commands._io import command_line, write_csv

    write_csv(args.csv, [command_line(name, parameters)], header, rows, "%.17g")


def run_fluid(args) -> int:
    import numpy as np

    from symdelay.analysis.roots import model_fluid
    from symdelay.cli.commands._io import check_output_choice, check_output_file

    check_output_choice(args)
    if args.csv is not None:
        check_output_file(args.csv)
    model = _transition_model(args, analysis=False)
    from symdelay.core.checks import check_horizon

    T, dt = check_horizon(args.T, args.dt)
    path = model_fluid(model, T, initial=_initial(args, model), points=round(T / dt) + 1)
    params = _params(model, T=args.T, dt=args.dt, initial=args.initial)
    if args.csv is not None:
        names = [s.name for s in model.states]
        _write_table(args, "fluid", params, ["t", *names], np.column_stack([path.t, path.y]))
    if args.json:
        record = path.to_json()
        record["parameters"] = params
        emit_json(record)
    elif args.csv is None:
        end = ", ".join(f"{s.name}={path.y[-1, i]:.6g}" for i, s in enumerate(model.states))
        emit(f"fluid solution of {model.name} at t={path.t[-1]:g}: {end} (use --json or --csv)")
    return 0


#: Events per second the generated kernel sustains (benchmarks/results/generated_simulator.txt,
#: rounded down); the budget is the shared one (:mod:`symdelay.core.budget`).
EVENTS_PER_SECOND = 1.5e7
#: Compiling the generated kernel: seconds per (number of states)^2 (30 servers with
#: Erlang(2) delays, 90 states: about 15 s).
COMPILE_SECONDS_PER_STATE2 = 1.8e-3


def _check_size(args, model, reps: int) -> None:
    """Refuse, before starting, a run expected to take longer than the shared budget."""
    from symdelay.analysis.roots import require_values
    from symdelay.core.budget import check_budget
    from symdelay.core.checks import check_eta, check_horizon

    require_values(model, "simulation")
    eta = check_eta(args.eta)
    point = {**model.equilibrium.point, **model.values}
    total = float(sum(t.rate.xreplace(point) for t in model.transitions))
    T, _ = check_horizon(args.T, args.dt)
    try:
        events = eta * T * float(reps) * total
    except OverflowError:
        events = float("inf")
    n = len(model.states)
    check_budget(
        f"generating and compiling the simulator of {model.name} ({n} states)",
        COMPILE_SECONDS_PER_STATE2 * n * n,
        force=getattr(args, "force", False),
        shrink="a model with fewer states (a smaller --N or --L)",
    )
    check_budget(
        f"this run (about {events:.1g} events; total rate at the equilibrium {total:.3g} per "
        "unit eta)",
        events / EVENTS_PER_SECOND,
        force=getattr(args, "force", False),
        shrink="a smaller --eta, --T or --replications",
    )


def run_simulate(args) -> int:
    import numpy as np

    from symdelay.analysis.stochastic import model_simulate
    from symdelay.cli.commands._io import check_output_choice, check_output_file

    check_output_choice(args)
    if args.csv is not None:
        check_output_file(args.csv)
    model = _transition_model(args, analysis=False)
    try:
        seed, reps = int(args.seed), int(args.replications)
    except ValueError:
        raise SymdelayInputError("--seed and --replications must be integers") from None
    if reps < 1:
        raise SymdelayInputError(f"--replications must be >= 1, got {reps}")
    init = _initial(args, model)
    if init is not None:
        init = [v / float(args.eta) for v in init]  # counts -> scaled state
    _check_size(args, model, reps)
    sim = model_simulate(
        model, args.eta, args.T, dt=args.dt, initial=init, seed=seed, replications=reps
    )
    params = _params(model, eta=sim.eta, seed=seed, T=args.T, dt=args.dt, replications=reps)
    if args.csv is not None:
        names = [s.name for s in model.states]
        rows = np.vstack(
            [
                np.column_stack([np.full(sim.grid.size, k), sim.grid, p])
                for k, p in enumerate(sim.paths)
            ]
        )
        _write_table(args, "simulate", params, ["replication", "t", *names], rows)
    if args.json:
        record = sim.to_json()
        record["parameters"] = params
        emit_json(record)
    elif args.csv is None:
        end = ", ".join(
            f"{s.name}={sim.paths[:, -1, i].mean():.6g}" for i, s in enumerate(model.states)
        )
        emit(
            f"simulated {reps} path(s) of {model.name} (seed {seed}), {sim.events} events; at "
            f"t={sim.grid[-1]:g} (mean over replications): {end} (use --json or --csv)"
        )
    return 0


def run_variance(args) -> int:
    import mpmath

    from symdelay.analysis.stochastic import difference_weights, model_variance
    from symdelay.core.params import as_dps

    dps = as_dps(args.dps)
    model = _transition_model(args)
    value, ln = model_variance(model, dps=dps)
    w = difference_weights(model)
    with mpmath.workdps(dps + 10):
        decimal = mpmath.nstr(
            mpmath.mpf(value.p) / value.q
            if value.is_Rational
            else mpmath.mpf(str(value.evalf(dps + 10))),
            dps,
        )
    record = {
        "parameters": _params(model, dps=dps),
        "weights": [str(x) for x in w],
        "var_over_eta": decimal,
        "exact_value": str(value) if ln.exact else None,
        "exact": ln.exact,
    }
    if args.json:
        emit_json(record)
    else:
        terms = []
        for x, s in zip(w, model.states):
            if x == 0:
                continue
            coef = "" if abs(x) == 1 else f"{abs(x)}*"
            terms.append(("- " if x < 0 else "+ ") + coef + s.name)
        names = " ".join(terms).removeprefix("+ ")
        emit(f"Var({names.lstrip('+')})/eta -> {decimal}" + (f" (= {value})" if ln.exact else ""))
    return 0


def run_derive(args) -> int:
    from pathlib import Path

    from symdelay.outputs.model_tex import model_document
    from symdelay.outputs.pdf import compile_pdf
    from symdelay.outputs.report import prepare_output_dir

    model = _transition_model(args)
    prepare_output_dir(args.out)
    slug = "".join(c if c.isalnum() else "_" for c in model.name).strip("_")[:60] or "model"
    path = Path(args.out) / f"{slug}.tex"
    try:
        path.write_text(model_document(model))
    except OSError as exc:
        raise SymdelayInputError(
            f"cannot write {path} ({exc.strerror}): choose a writable directory with --out"
        ) from None
    if not args.pdf:
        emit(f"wrote {path}")
        return 0
    res = compile_pdf(path)
    if res.failed:
        import sys

        print(f"symdelay: {res.message}", file=sys.stderr)
        return 1
    if res.pdf is None:
        raise SymdelayInputError(res.message)
    emit(res.message)
    return 0


def run_critical(args, D_items) -> int:
    """theta_c (the generic Hopf crossing) at each mean delay, in the founding keys."""
    from symdelay.analysis.critical import model_critical
    from symdelay.core.numbers import format_number
    from symdelay.core.params import as_dps

    dps = as_dps(args.dps)
    points = []
    name = None
    for D in D_items:
        model = _transition_model(args) if D is None else _transition_model(args, D=D)
        name = model.name
        c = model_critical(model, "theta", dps=dps)
        points.append(
            {
                "D": D,
                "theta_c": format_number(c.critical, dps),
                "omega": None if c.omega is None else format_number(c.omega, dps),
                "mode": c.mode,
            }
        )
    given = given_options(args)
    record = {
        "model": name,
        "L": given.get("L"),
        "mu": given.get("mu"),
        "lam": given.get("lam"),
        "points": points,
    }
    if args.json:
        emit_json(record)
        return 0
    lines = [f"{name}: critical theta by the generic Hopf crossing"]
    for p in points:
        where = "the model's own delay" if p["D"] is None else f"D = {p['D']}"
        om = p["omega"] if p["omega"] is not None else "- (no crossing: stable for every theta > 0)"
        lines.append(f"  {where}: theta_c = {p['theta_c']}, omega = {om}")
    emit("\n".join(lines))
    return 0


def run_roots(args) -> int:
    from symdelay.analysis.roots import model_roots
    from symdelay.core.params import as_dps

    model = _transition_model(args)
    res = model_roots(model, dps=as_dps(args.dps))
    record = res.to_json()
    record["parameters"] = _params(model)
    if args.json:
        emit_json(record)
        return 0
    lines = [
        f"{model.name}: {res.unstable_count} root(s) with Re r > 0, {res.axis_count} on the "
        f"imaginary axis (certified, counted with multiplicity)"
    ]
    for f in record["factors"]:
        lines.append(
            f"[{f['mode']}] {f['factor']}"
            + (f" (x{f['multiplicity']})" if f["multiplicity"] > 1 else "")
        )
        for z in f["roots"]:
            sign = "-" if z["im"].startswith("-") else "+"
            mult = f", multiplicity {z['multiplicity']}" if "multiplicity" in z else ""
            lines.append(
                f"    {z['re']} {sign} {z['im'].lstrip('-')}i  (radius {z['radius']}{mult})"
            )
    lines += [f"note: {n}" for n in record["notes"]]
    emit("\n".join(lines))
    return 0
