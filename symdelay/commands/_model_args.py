"""The model options every analysis command shares: ``--model NAME`` or ``--model-file``.

``--model erlang`` (the default) keeps each command's own behaviour; other models are built
by :func:`model_from_args` from the options below, checked once, at the door.
"""

from __future__ import annotations

from symdelay.errors import SymdelayInputError

__all__ = ["add_model_arguments", "model_from_args", "delay_from_args", "parse_settings"]


FOUNDING = ("L", "mu", "lam", "theta", "D")
_FOUNDING_HELP = {
    "L": "number of Erlang delay phases",
    "mu": "service rate",
    "lam": "per-server arrival rate",
    "theta": "routing sensitivity",
    "D": "mean action delay",
}


def add_model_arguments(p, *, founding_options=FOUNDING) -> None:
    """Add ``--model``, ``--model-file``, ``--set`` and the built-in models' options to ``p``.

    ``founding_options``: which of ``--L --mu --lam --theta --D`` to add here (a command
    that defines some of them itself leaves those out; ``False`` adds none).
    """
    g = p.add_argument_group("model (default: the founding model)")
    g.add_argument(
        "--model", default=None, help="built-in model (see 'symdelay models'); default erlang"
    )
    g.add_argument(
        "--model-file", default=None, metavar="FILE.toml", help="a model written as TOML"
    )
    g.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a parameter value for --model-file models (repeatable)",
    )
    for name in founding_options or ():
        g.add_argument(f"--{name}", default=None, help=_FOUNDING_HELP[name])
    g.add_argument("--N", default=None, help="nserver: number of servers (>= 2)")
    g.add_argument("--mu1", default=None, help="hetero: service rate of server 1")
    g.add_argument("--mu2", default=None, help="hetero: service rate of server 2")
    g.add_argument("--D1", default=None, help="hetero: mean delay before server 1")
    g.add_argument("--D2", default=None, help="hetero: mean delay before server 2")
    g.add_argument(
        "--kappa",
        default=None,
        help="weight(s) of jobs in flight in the routing (founding model -> inflight model), "
        "e.g. 0.1 or 1,0.5",
    )
    g.add_argument(
        "--delay",
        default=None,
        choices=("erlang", "hypoexp", "hyperexp", "coxian", "ph"),
        help="phase-type delay shape (model phase_type or nserver)",
    )
    g.add_argument(
        "--rates", default=None, help="phase rates, e.g. 1,2,3 (hypoexp, hyperexp, coxian)"
    )
    g.add_argument("--probs", default=None, help="hyperexp: branch probabilities, e.g. 0.3,0.7")
    g.add_argument(
        "--continue-probs", default=None, help="coxian: probabilities to go on after each phase"
    )
    g.add_argument("--alpha", default=None, help="ph: initial probabilities, e.g. 1,0")
    g.add_argument("--S", default=None, help='ph: sub-generator, e.g. "[[-2,1],[0,-3]]"')


def parse_settings(items) -> dict:
    """``["mu=1", "lam=0.5"]`` -> ``{"mu": "1", "lam": "0.5"}``."""
    out = {}
    for item in items or []:
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise SymdelayInputError(f"--set takes NAME=VALUE, got '{item}'")
        out[name.strip()] = value.strip()
    return out


def _int(name, value):
    try:
        v = int(str(value))
    except ValueError:
        raise SymdelayInputError(f"--{name} must be an integer, got '{value}'") from None
    return v


def delay_from_args(args):
    """The :class:`PhaseType` the options describe."""
    from symdelay.models.phase_type import PhaseType

    kind = args.delay or "erlang"
    need = {
        "hypoexp": ("rates",),
        "hyperexp": ("probs", "rates"),
        "coxian": ("rates", "continue_probs"),
        "ph": ("alpha", "S"),
    }.get(kind, ())
    for n in need:
        if getattr(args, n) is None:
            raise SymdelayInputError(f"--delay {kind} needs --{n.replace('_', '-')}")
    if kind == "erlang":
        return PhaseType.erlang(_int("L", args.L or 2), args.D)
    if kind == "hypoexp":
        return PhaseType.hypoexp(args.rates)
    if kind == "hyperexp":
        return PhaseType.hyperexp(args.probs, args.rates)
    if kind == "coxian":
        return PhaseType.coxian(args.rates, args.continue_probs)
    return PhaseType.general(args.alpha.split(","), args.S)


def _check_build(N: int, args) -> None:
    """Building N symbolic servers costs about N^2 (each logit rate sums N exponentials;
    measured: N = 160 in about 15 s): refused over the shared budget unless --force."""
    from symdelay.budget import check_budget, power_cost

    check_budget(
        f"building the model of {N} servers",
        power_cost(N, 6e-4, 2),
        force=getattr(args, "force", False),
        shrink="a smaller --N",
    )


def model_from_args(args):
    """The :class:`~symdelay.model.Model` the options name (``None`` values stay symbolic)."""
    from symdelay.model import load_toml
    from symdelay.models import build_model

    if args.model_file and args.model:
        raise SymdelayInputError("give --model or --model-file, not both")
    if args.model_file:
        return load_toml(args.model_file, **parse_settings(args.set))
    if args.set:
        raise SymdelayInputError("--set is for --model-file models; built-in models take options")
    name = args.model or "erlang"
    if args.kappa is not None and name not in ("erlang", "inflight"):
        raise SymdelayInputError(
            f"--kappa (weights of jobs in flight) is for the founding model, not --model {name}"
        )
    if args.kappa is not None:
        name = "inflight"
    common = {"lam": args.lam, "theta": args.theta}
    if name == "erlang":
        return build_model(name, L=_int("L", args.L or 2), mu=args.mu, D=args.D, **common)
    if name == "phase_type":
        return build_model(name, delay=delay_from_args(args), mu=args.mu, **common)
    if name == "nserver":
        N = _int("N", args.N or 3)
        _check_build(N, args)
        return build_model(name, N=N, mu=args.mu, delay=delay_from_args(args), **common)
    if name == "hetero":
        return build_model(
            name,
            L=_int("L", args.L or 1),
            mu1=args.mu1,
            mu2=args.mu2,
            D=args.D,
            D1=args.D1,
            D2=args.D2,
            **common,
        )
    if name == "inflight":
        kappa = args.kappa or "1"
        weights = [k for k in kappa.split(",")] if "," in kappa else kappa
        return build_model(
            name, L=_int("L", args.L or 2), mu=args.mu, D=args.D, kappa=weights, **common
        )
    if name == "dde":
        return build_model(name, mu=args.mu, D=args.D, **common)
    if name in ("lb", "sqd"):  # their own options live in 'symdelay lb' / 'symdelay sqd'
        return build_model(name, lam=args.lam)
    return build_model(name)
