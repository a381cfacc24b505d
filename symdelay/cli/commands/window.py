"""``symdelay window``: the values of one parameter (the mean delay D by default) at which the
equilibrium is unstable, the others fixed: :func:`symdelay.analysis.window.window` on the
model the door builds (the founding model's D-window from its Hopf parametrisation, any
other model or parameter from the exact crossing polynomials of its characteristic factors)."""

from __future__ import annotations

from symdelay.cli import door
from symdelay.cli.commands._common import add_common, add_plot, emit, emit_json, write_plot
from symdelay.core.errors import SymdelayInputError

__all__ = ["register", "run", "head_and_how", "text_lines"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "window",
        help="instability window: the delays D with theta > theta_c(D), as exact intervals",
        description=(
            "The set of mean delays D at which the equilibrium is unstable for the given "
            "theta: open intervals (a right end may be 'inf'). theta < 0 routes jobs towards "
            "the longer queue: then a real root crosses zero at lam*theta = -mu for every D."
        ),
    )
    p.add_argument(
        "--in",
        dest="vary",
        default=None,
        metavar="NAME",
        help="the parameter whose unstable values are computed (default D); any parameter "
        "of the model, left out of its options",
    )
    p.add_argument(
        "--lo",
        default=None,
        kind="number|inf",
        help="lower end of the range searched (default: domain)",
    )
    p.add_argument(
        "--hi",
        default=None,
        kind="number|inf",
        help="upper end of the range searched (default: domain)",
    )
    add_plot(p)
    add_common(p, run, dps="15", force=True)


def _end(flag, text, side):
    """An end of the range searched: ``inf`` on its own side is no bound (the domain's)."""
    import math

    from symdelay.core.exact import read_number

    if text is None:
        return None
    x = read_number(flag, text, inf=True)
    if isinstance(x, float) and math.isinf(x):
        if (x > 0) != (side > 0):
            raise SymdelayInputError(f"{flag} {text.strip()} leaves no range to search")
        return None
    return text


def run(args) -> int:
    from symdelay.analysis.window import window
    from symdelay.core.params import as_dps

    vary = args.vary or "D"
    if getattr(args, vary, None) is not None:
        flag = "--" + vary.replace("_", "-")
        raise SymdelayInputError(f"window varies {vary}: leave {flag} out")
    lo, hi = _end("--lo", args.lo, -1), _end("--hi", args.hi, 1)
    model = door.model_free_in(args, vary)
    w = window(model, vary, lo=lo, hi=hi, dps=as_dps(args.dps), force=args.force)
    record = w.to_json()
    if args.json:
        emit_json(record)
    else:
        emit("\n".join(text_lines(record, vary)))
    write_plot(args, w)
    return 0


def text_lines(record: dict, vary: str) -> list[str]:
    """The window as text: the unstable intervals (or the range where it is stable) and the
    pieces where the count is undecided, the model's options, and how the path found it."""
    lo, hi = record["range"]
    undecided = record.get("undecided") or []
    if not record["intervals"]:
        body = (
            f"no {vary} in ({lo}, {hi}) proved unstable"
            if undecided
            else f"stable for every {vary} in ({lo}, {hi})"
        )
    else:
        parts = [f"({a}, {b})" for a, b in record["intervals"]]
        body = f"unstable for {vary} in " + " U ".join(parts)
    if undecided:
        body += "; undecided in " + " U ".join(f"({a}, {b})" for a, b in undecided)
    head, how = head_and_how(record)
    return [f"{head}: {body}", *how]


def head_and_how(record: dict) -> tuple[str, list[str]]:
    """The model with its options shown, and the lines saying how the path found it."""
    shown = ", ".join(f"{k} = {v}" for k, v in record["parameters"].items())
    method = record["method"]
    how = [f"method: {method['path']}: {method['algorithm']}"]
    how += [f"note: {n}" for n in method["notes"]]
    return f"{record['model']}" + (f" ({shown})" if shown else ""), how
