"""Analyses that take a :class:`~symdelay.model.Model`: roots (the entry :func:`roots`; the
fluid path is :func:`symdelay.analysis.fluid.fluid`).

They need numbers for every parameter (``model.with_values(...)``); they say which are
missing otherwise. Roots are certified per factor of the characteristic polynomial by
:func:`symdelay.analysis.polyroots.polynomial_roots` (counts decided exactly). Where the
equilibrium was found numerically, the polynomial is the one at the proved midpoint (its
coefficients made exact), and the record says so.
"""

from __future__ import annotations

import mpmath

from symdelay.analysis.entry import entry_doc
from symdelay.analysis.rootset import RootSet
from symdelay.core import symbols as _symbols
from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import module as _lazy_module
from symdelay.core.lazy import sympy as sp
from symdelay.core.params import as_dps
from symdelay.model.core import has_lags

np = _lazy_module("numpy")  # imported at first use

__all__ = [
    "roots",
    "default_initial",
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


@entry_doc
def roots(
    model,
    dps: int = 30,
    *,
    rightmost: int | None = None,
    branches=None,
    box=None,
    force: bool | None = None,
    method: str = "auto",
) -> RootSet:
    """Certified characteristic roots of ``model``, with the certified counts and the verdict.

    The family's specialisation first (the founding model: the sum mode's roots ``-mu``,
    ``-gamma`` exactly and the difference mode's by the Erlang branch structure, up to
    L = 10^4 all roots, ``rightmost=K`` up to L = 10^7, ``L = inf`` by Lambert W); otherwise
    every root of ``det(r I - J)``, certified factor by factor and listed by mode. A delay
    model whose mode functions are not polynomials (``exp(-r tau)``: infinitely many roots)
    lists the ``rightmost`` roots (default 6) or every root in ``box``, each certified, with
    the proof that none is missing (:func:`symdelay.analysis.delayroots.delay_roots`).

    Parameters
    ----------
    model : Model
        The model, every parameter a number.
    dps : int, default 30
        Significant digits of every root (5..10000); each root carries a proved error radius.
    rightmost : int, optional
        The founding model (up to L = 10^7) and delay models: list only the ``rightmost``
        roots of largest real part; the counts and the verdict stay those of the whole
        spectrum. Default: every root (a delay model: 6).
    branches : tuple of two ints, optional
        The founding model at ``L = inf`` only (a delay equation, infinitely many roots):
        the Lambert-W branches ``(k1, k2)``, ``k1 <= k2``, whose roots are listed (default
        ``(-3, 3)``).
    box : tuple of four numbers, optional
        A delay model only: ``(x0, x1, y0, y1)``, every root with ``x0 < Re r < x1`` and
        ``y0 < Im r < y1`` (numbers or their decimal text, made exact).
    force : bool or None, default None
        The cost guard: None (the API's default) runs unguarded; True or False (the command
        line's ``--force`` given or not) estimates the cost first
        (:func:`check_analysis_cost`) and True runs whatever the estimate.
    method : {"auto", "generic", "specialised"}, default "auto"
        %(method)s

    Returns
    -------
    RootSet
        The certified roots (value and radius, tagged with their factor's mode), the exact
        counts of roots in the right half-plane (``unstable_count``) and on the axis, the
        ``spectral_abscissa`` and the ``verdict``.

    Raises
    ------
    CertificationError
        When a root cannot be certified at the digits asked.

    Examples
    --------
    >>> from symdelay.models import build_model
    >>> m = build_model("nserver", N=2, L=1, mu=1, lam=1, theta=2, D=2)
    >>> res = roots(m, dps=15)
    >>> res.unstable_count, res.verdict, [f.mode for f in res.factors]
    (0, 'stable', ['sum', 'difference'])
    """
    from symdelay.analysis.entry import require_table, specialised

    kw = {"dps": dps, "rightmost": rightmost, "branches": branches, "force": force}
    result = None if box is not None else specialised(model, "roots", method, **kw)
    if result is not None:
        return result
    if _delay_model(model):
        from symdelay.analysis.delayroots import delay_roots

        if branches is not None:
            raise SymdelayInputError(
                f"branches= is for the founding model at L = inf; {model.name} takes "
                "rightmost= or box="
            )
        if rightmost is not None and (isinstance(rightmost, bool) or not int(rightmost) >= 1):
            raise SymdelayInputError(f"rightmost must be an integer >= 1, got {rightmost!r}")
        return delay_roots(model, as_dps(dps), rightmost=rightmost, box=box, force=bool(force))
    if box is not None:
        raise SymdelayInputError(
            f"box= is for delay models (infinitely many roots); {model.name} gives all its roots"
        )
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


def _delay_model(model) -> bool:
    """A model with lags whose mode functions are not polynomials (the dispatch rule: its
    ``factors`` raise :class:`~symdelay.core.errors.DelayModelError`)."""
    if not has_lags(model):
        return False
    from symdelay.model.modes import rational_numerator

    return any(rational_numerator(f.factor) is None for f in model.characteristic_factors)


def _model_roots(model, dps: int) -> RootSet:
    """All roots of ``det(rI - J)``, certified per irreducible factor, listed by mode."""
    from dataclasses import replace

    from symdelay.analysis.charpoly import mode_factors, model_parameters
    from symdelay.analysis.polyroots import polynomial_roots
    from symdelay.analysis.rootset import order_key

    require_values(model, "roots")
    notes = []
    if not model.equilibrium.exact:
        notes.append(
            "equilibrium found numerically (proved within "
            f"{mpmath.nstr(model.equilibrium.radius, 3)}): roots are those of the polynomial "
            "at its midpoint"
        )
    factors = mode_factors(model)
    found, counts, methods = [], [], {}
    for mf in factors:
        unstable = axis = 0
        for f, e in mf.parts:
            poly = f.factor
            floats = poly.atoms(sp.Float)
            if floats:
                poly = poly.xreplace({x: sp.Rational(x) for x in floats})
            rs = polynomial_roots(poly, _symbols.r, dps=dps)
            methods.update(dict.fromkeys(rs.count_methods))
            found += [
                replace(z, multiplicity=z.multiplicity * e * mf.multiplicity, mode=mf.mode)
                for z in rs
            ]
            unstable += rs.unstable_count * e
            axis += rs.axis_count * e
        counts.append((unstable, axis))
    found.sort(key=order_key)
    return RootSet(
        dps,
        found,
        factors,
        tuple(counts),
        parameters=model_parameters(model),
        count_methods=tuple(methods),
        notes=tuple(notes),
        model_name=model.name,
    )


def default_initial(model) -> np.ndarray:
    """The scaled state a fluid path or a simulation starts from when none is given: the
    model's own :meth:`~symdelay.model.Model.default_start` (one default per model, whichever
    path runs)."""
    return np.asarray(model.default_start(), dtype=float)
