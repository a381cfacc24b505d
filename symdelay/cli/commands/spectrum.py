"""``symdelay spectrum``: the linear-noise power spectrum of the imbalance below theta_c."""

from __future__ import annotations

from symdelay.cli import door
from symdelay.cli.commands._common import add_common, add_plot, emit, emit_json, write_plot
from symdelay.cli.commands._io import add_weights, weights_of
from symdelay.core.errors import SymdelayInputError

__all__ = ["register", "run"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "spectrum",
        help="LNA power spectrum of x = q1 - q2 below theta_c: peak frequency, quality factor",
        description=(
            "S(omega) = e_x^T (i omega - A)^-1 B (i omega - A)^-H e_x of the linear-noise "
            "approximation (two-sided, angular frequency: Var(x)/eta = (1/2pi) int S), on a "
            "frequency grid, with its peak frequency and quality factor (closed form for "
            "L = 1, 2). A model with lags: S(omega) = c^T G B G^* c with G = Delta(i omega)^-1 N, "
            "the inverse of its characteristic matrix times, for a neutral model (dot() read "
            "through a lag, as the drift), its difference operator N = I - sum M_d K_d."
        ),
    )
    p.add_argument("--points", default="401", kind="integer", help="grid points (default 401)")
    p.add_argument("--omega-max", default=None, kind="number", help="largest frequency of the grid")
    add_weights(p, "spectrum")
    add_plot(p)
    add_common(p, run, force=True)


def _grid(args):
    import numpy as np

    try:
        n = int(args.points)
    except ValueError:
        raise SymdelayInputError(f"--points must be an integer >= 3, got '{args.points}'") from None
    if n < 3:
        raise SymdelayInputError(f"--points must be an integer >= 3, got {n}")
    if n > 10**9:
        raise SymdelayInputError(f"--points must be at most 10^9, got a {len(str(n))}-digit number")
    from symdelay.analysis.spectrum import check_grid_cost

    try:  # before the grid is allocated (the smallest system: the difference mode)
        from symdelay.core.params import as_L

        states = as_L(getattr(args, "L", None), allow_symbol=False) + 1
    except SymdelayInputError:
        states = 2  # the analysis refuses the L itself
    check_grid_cost(max(states, 2), n, args.force)
    if args.omega_max is None:
        return n, None
    try:
        wmax = float(args.omega_max)
    except ValueError:
        raise SymdelayInputError(f"--omega-max must be a number, got '{args.omega_max}'") from None
    if not (np.isfinite(wmax) and wmax > 0):
        raise SymdelayInputError(f"--omega-max must be positive and finite, got {args.omega_max}")
    return n, np.linspace(0.0, wmax, n)


def run(args) -> int:
    from symdelay.analysis.spectrum import spectrum

    n, grid = _grid(args)
    model = door.model_from_args(args)
    s = spectrum(model, omegas=grid, points=n, force=args.force, weights=weights_of(args, model))
    rec = s.to_json()
    write_plot(args, s)
    if args.json:
        emit_json(rec)
        return 0
    q = rec["quality_factor"] or "- (no interior peak)"
    lines = [
        f"peak frequency {rec['peak_frequency']}, peak S = {rec['peak_value']}, quality factor {q}",
        f"Var(x)/eta = {rec['variance_x_over_eta']} ({rec['normalisation']})",
    ]
    if rec["closed_form"]:
        lines.append(f"S(omega) = {rec['closed_form']}")
    emit("\n".join(lines))
    return 0
