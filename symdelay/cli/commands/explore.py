"""``symdelay explore``: the interactive explorer in the browser (a Bokeh server page,
:mod:`symdelay.outputs.explorer`).

symdelay explore                                   # the founding model, map in (D, theta)
symdelay explore --L 5 --theta 3 --port 5007
symdelay explore --model nserver --N 3 --x mu --y theta
symdelay explore --model-file examples/models/erlang2.toml --set gamma=2 --x gamma

The page is served on 127.0.0.1 only; the command prints the address and runs until Ctrl-C
(exit status 130). It opens a browser tab itself only when there is a graphical display
(``--no-browser``: never).
"""

from __future__ import annotations

from symdelay.cli import door
from symdelay.core.errors import SymdelayInputError

__all__ = ["register", "run", "explorer_from_args", "port_from_args"]

#: the starting point where the command line gives none (the founding model's usual one)
DEFAULTS = {
    "L": "2",
    "mu": "1",
    "lam": "1",
    "theta": "2",
    "D": "1",
    "mu1": "1",
    "mu2": "2",
}

DESCRIPTION = (
    "Serve an interactive page on http://127.0.0.1:PORT/: a slider for each numeric "
    "parameter of the model and, beside them, the stability map in two parameters (--x, "
    "--y; default D and theta) with the current point marked, the characteristic roots in "
    "the complex plane and the fluid path of the imbalance q1 - q2 from a small "
    "perturbation (T = 20). Moving a slider recomputes all three. For the founding model the "
    "map is the Hopf boundary theta_c(D) with the unstable side shaded; for another model a "
    "coarse grid of first crossings (symdelay critical), filled in point by point. Ctrl-C "
    "stops the server (exit status 130)."
)


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "explore",
        help="interactive explorer in the browser (sliders, map, roots, fluid path)",
        description=DESCRIPTION,
    )
    p.add_argument(
        "--x",
        default=None,
        kind="range|name",
        metavar="NAME[=LO:HI]",
        help="the map's horizontal parameter, optionally with its range (also its slider's)",
    )
    p.add_argument(
        "--y",
        default=None,
        kind="range|name",
        metavar="NAME[=LO:HI]",
        help="the map's vertical parameter (as --x)",
    )
    p.add_argument(
        "--port",
        default="5006",
        kind="integer",
        help="port on 127.0.0.1 (default 5006; 0: a free port)",
    )
    p.add_argument(
        "--no-browser",
        action="store_true",
        help="never open a browser tab (without it, one is opened only on a graphical display)",
    )
    door.add_model(p, defaults=DEFAULTS)
    p.set_defaults(func=run)


def port_from_args(args) -> int:
    text = str(args.port).strip()
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise SymdelayInputError(
            f"--port must be an integer 0..65535 (0: a free port), got '{text}'"
        )
    return port


def explorer_from_args(args):
    """The :class:`~symdelay.outputs.explorer.Explorer` the parsed command line names."""
    from symdelay.outputs.explorer import Explorer

    sel = args._door_selection
    if args.model_file is not None:
        door.model_from_args(args)  # the door's checks (stray family options, --set)
        return Explorer(
            file=args.model_file,
            settings=door.parse_settings(args.set),
            x=args.x,
            y=args.y,
            open_browser=not args.no_browser,
        )
    door.model_from_args(args)  # one line for options the model refuses
    return Explorer(
        sel.family,
        _with_family_defaults(args, door.given_options(args)),
        x=args.x,
        y=args.y,
        open_browser=not args.no_browser,
    )


def _with_family_defaults(args, given: dict) -> dict:
    """The given options (:func:`symdelay.cli.door.given_options`) and, for a numeric option
    not given, the family's own default (a slider for ``--N`` of nserver too; an Erlang
    delay's L and D only with that delay), in the family's declared order (the sliders')."""
    from symdelay.outputs.explorer import NUMERIC_KINDS

    out, skip = {}, door.ERLANG_SHAPE if door._other_shape(args) else ()
    for o in door.family_module(args._door_selection.family).OPTIONS:
        if o.name in given:
            out[o.name] = given[o.name]
        elif o.default is not None and o.kind in NUMERIC_KINDS and o.name not in skip:
            out[o.name] = o.default
    return out


def run(args) -> int:
    from symdelay.outputs.explorer import serve

    port = port_from_args(args)
    explorer = explorer_from_args(args)
    first = explorer.update(explorer.initial_state, with_map=False)
    if first["errors"]:
        panel, message = next(iter(first["errors"].items()))
        raise SymdelayInputError(f"the explorer cannot show {explorer.label}: {panel}: {message}")
    serve(explorer, port, announce=_announce)
    return 0


def _announce(line: str) -> None:
    print(line, flush=True)  # read at once by whoever started the server
