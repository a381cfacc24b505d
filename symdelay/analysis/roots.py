"""Analyses that take a :class:`~symdelay.model.Model`: roots (the entry :func:`roots`) and
the fluid path.

Both need numbers for every parameter (``model.with_values(...)``); they say which are
missing otherwise. Roots are certified per factor of the characteristic polynomial by
:func:`symdelay.analysis.polyroots.polynomial_roots` (counts decided exactly). Where the
equilibrium was found numerically, the polynomial is the one at the proved midpoint (its
coefficients made exact), and the record says so.
"""

from __future__ import annotations

from dataclasses import dataclass

import mpmath
import numpy as np
import sympy as sp

from symdelay.analysis.rootset import RootSet
from symdelay.core.errors import SymdelayInputError
from symdelay.core.params import as_dps
from symdelay.core.symbols import r

__all__ = [
    "RootSet",
    "roots",
    "FluidPath",
    "model_fluid",
    "require_values",
    "check_analysis_cost",
    "analysis_seconds",
]


def analysis_seconds(model) -> float:
    """A rough single-core estimate of the symbolic analysis of ``model`` (equilibrium,
    Jacobian, modes, factored characteristic polynomial, Routh conditions).

    It grows like ``n^4`` in the number ``n`` of states (measured: 16 servers with Erlang(2)
    delays, 48 states, about 19 s), and with the cube of the digits of the exact parameter
    values (factoring polynomials whose coefficients have hundreds of digits, such as rates
    ``1e-300`` and ``1e300``, is what takes long then).
    """
    from symdelay.core.budget import power_cost

    digits = 1.0
    exprs = [sp.sympify(v) for v in model.values.values()]
    exprs += [t.rate for t in model.transitions]
    for v in exprs:
        for a in v.atoms(sp.Rational):
            digits = max(digits, 0.30103 * max(abs(a.p).bit_length(), a.q.bit_length()))
    return power_cost(len(model.states), 3.6e-6, 4) * (1 + (digits / 10) ** 3)


def check_analysis_cost(model, *, force: bool = False) -> float:
    """Refuse (unless ``force``) a symbolic analysis estimated over the shared budget."""
    from symdelay.core.budget import check_budget

    return check_budget(
        f"the symbolic analysis of {model.name} ({len(model.states)} states)",
        analysis_seconds(model),
        force=force,
        shrink="a model with fewer states (a smaller --N or --L) or parameter values with "
        "fewer digits",
    )


def require_values(model, what: str) -> None:
    """Refuse, in one line, a model with parameters still symbolic."""
    free = model.free_parameters
    if free:
        raise SymdelayInputError(
            f"{what} needs numbers for every parameter: give "
            + ", ".join(str(p) for p in free)
            + " (e.g. --set name=value, or the model's options)"
        )


def roots(
    model,
    dps: int = 30,
    *,
    rightmost: int | None = None,
    branches=None,
    force: bool | None = None,
    method: str = "auto",
) -> RootSet:
    """Certified characteristic roots of ``model``, with the certified unstable count.

    The family's specialisation first (the founding model: its difference mode, by the
    Erlang branch structure, up to L = 10^4 all roots, ``rightmost=K`` for the K rightmost up
    to L = 10^7, ``L = inf`` on the Lambert-W ``branches``); otherwise every root of
    ``det(rI - J)``, certified factor by factor (:class:`RootSet` with ``per_factor``).
    ``rightmost`` and ``branches`` exist only on the founding model's path. ``force``: None
    (the API) runs the generic path unguarded; ``True``/``False`` (``--force``) estimates its
    cost first (:func:`check_analysis_cost`).

    >>> from symdelay.models import build_model
    >>> m = build_model("nserver", N=2, L=1, mu=1, lam=1, theta=2, D=1)
    >>> res = roots(m, dps=15)
    >>> res.unstable_count, [f.mode for f, _ in res.per_factor]
    (0, ['sum', 'sum', 'difference'])
    """
    from symdelay.analysis.entry import declined, require_table, specialisation

    fast = specialisation(model, "roots", method)
    if fast is not None:
        result = fast(model, dps=dps, rightmost=rightmost, branches=branches, force=force)
        if result is not None:
            return result
        declined(model, "roots", method)
    if rightmost is not None or branches is not None:
        raise SymdelayInputError(
            "rightmost= and branches= are for the founding model (Erlang delay); "
            f"{model.name} gives all its roots"
        )
    require_table(model, "roots")
    dps = as_dps(dps)
    if force is not None:
        check_analysis_cost(model, force=force)
    return _model_roots(model, dps)


def _model_roots(model, dps: int) -> RootSet:
    """All roots of ``det(rI - J)``, certified, factor by factor."""
    from symdelay.analysis.polyroots import polynomial_roots

    require_values(model, "roots")
    notes = []
    if not model.equilibrium.exact:
        notes.append(
            "equilibrium found numerically (proved within "
            f"{mpmath.nstr(model.equilibrium.radius, 3)}): roots are those of the polynomial "
            "at its midpoint"
        )
    per = []
    for f in model.factors:
        poly = f.factor
        floats = poly.atoms(sp.Float)
        if floats:
            poly = poly.xreplace({x: sp.Rational(x) for x in floats})
        per.append((f, polynomial_roots(poly, r, dps=dps)))
    return RootSet.of_factors(model.name, per, dps, notes)


@dataclass
class FluidPath:
    """The fluid ODE's solution on a grid: ``y[k, i]`` is state ``i`` at ``t[k]``."""

    model_name: str
    states: tuple
    t: np.ndarray
    y: np.ndarray
    parameters: dict

    def __getitem__(self, name: str) -> np.ndarray:
        names = [s.name for s in self.states]
        if name not in names:
            raise KeyError(f"no state {name!r}: the states are {', '.join(names)}")
        return self.y[:, names.index(name)]

    def to_json(self) -> dict:
        return {
            "model": self.model_name,
            "parameters": {str(k): str(v) for k, v in self.parameters.items()},
            "t": self.t.tolist(),
            "states": {s.name: self.y[:, i].tolist() for i, s in enumerate(self.states)},
        }


def default_initial(model) -> np.ndarray:
    """The equilibrium with the first state raised by half its value (or by 1 if it is 0)."""
    eq = np.array([float(model.equilibrium.point[s]) for s in model.states])
    y0 = eq.copy()
    y0[0] = eq[0] * 1.5 if eq[0] != 0 else 1.0
    return y0


def model_fluid(model, T, *, initial=None, points: int = 201, rtol=1e-10, atol=1e-12) -> FluidPath:
    """Integrate ``ds/dt = F(s)`` on ``[0, T]`` (LSODA with the exact Jacobian)."""
    from scipy.integrate import solve_ivp

    require_values(model, "the fluid path")
    try:
        T = float(T)
    except (TypeError, ValueError):
        raise SymdelayInputError(f"T must be a number, got {T!r}") from None
    if not (np.isfinite(T) and T > 0):
        raise SymdelayInputError(f"T must be a positive finite time, got {T}")
    n = len(model.states)
    y0 = default_initial(model) if initial is None else np.asarray(initial, dtype=float)
    if y0.shape != (n,) or not np.all(np.isfinite(y0)) or np.any(y0 < 0):
        raise SymdelayInputError(
            f"the initial state needs {n} finite values >= 0 (in the order "
            + ", ".join(s.name for s in model.states)
            + ")"
        )
    F = sp.lambdify([model.states], list(model.drift), "numpy")
    Jf = sp.lambdify([model.states], model.drift_jacobian, "numpy")
    from symdelay.core.checks import exact_multiples
    from symdelay.core.params import exact_number

    grid = exact_multiples(exact_number("T", T) / (points - 1), points - 1)
    with np.errstate(over="raise", invalid="raise"):
        try:
            sol = solve_ivp(
                lambda t, y: np.asarray(F(y), dtype=float),
                (0.0, T),
                y0,
                method="LSODA",
                t_eval=grid,
                jac=lambda t, y: np.asarray(Jf(y), dtype=float),
                rtol=rtol,
                atol=atol,
            )
        except FloatingPointError:
            raise SymdelayInputError(
                "the fluid path overflowed: the parameters are too extreme for double "
                "precision; scale them down"
            ) from None
    if not sol.success:
        raise SymdelayInputError(f"the fluid ODE solver failed ({sol.message}); shorten T")
    return FluidPath(model.name, model.states, sol.t, sol.y.T, dict(model.values))
