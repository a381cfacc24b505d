"""The founding model as a model object: :class:`FoundingModel` (options checked once, its
fast paths named in ``SPECIALISATIONS``, its transition table built on first use).

Kept apart from :mod:`symdelay.models.erlang.family`, which the command line reads for the
options alone: this module imports the model layer (SymPy).

>>> FoundingModel(L=3, mu=1, lam="0.5").options["lam"]
1/2
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import ClassVar

from symdelay.core.errors import SymdelayInputError
from symdelay.core.exact import exact_fraction
from symdelay.core.params import as_L_or_inf, is_infinite_L
from symdelay.model.core import Model, NoTable, TableOnDemand

__all__ = ["FoundingModel", "NoTable"]

_S = "symdelay.models.erlang."


def _checked(name: str, value, positive: bool):
    """An option checked at the door: a number becomes the ``Fraction`` it denotes
    (:func:`symdelay.core.exact.exact_fraction`, SymPy not needed), anything else goes
    through :func:`symdelay.core.params.as_parameter` (expressions; its errors)."""
    if value is None:
        return None
    try:
        f = exact_fraction(name, value)
    except SymdelayInputError:
        f = None
    if f is not None and (f.numerator > 0 or not positive):
        return f
    from symdelay.core.params import as_parameter

    return as_parameter(name, value, positive=positive)


class FoundingModel(TableOnDemand):
    """The founding model with checked options ``L, mu, lam, theta, D`` (exact; ``None``:
    symbolic). It is a :class:`~symdelay.model.Model`: the transition table's attributes
    (``states``, ``factors``, ``equilibrium``, ...) are built on first use. ``L`` may be
    ``inf`` (the delay-differential limit) or the symbol ``L`` (the characteristic
    polynomial for every L); neither has a table."""

    SPECIALISATIONS: ClassVar[dict] = {
        "critical": _S + "hopf.curve:specialised_critical",
        "roots": _S + "roots.solve:specialised_roots",
        "stability": _S + "stability:specialised_stability",
        "charpoly": _S + "charpoly:specialised_charpoly",
        "simulate": _S + "stochastic.simulate:specialised_simulate",
        "fluid": _S + "stochastic.fluid:specialised_fluid",
        "variance": _S + "stochastic.variance:specialised_variance",
        "window": _S + "hopf.window:specialised_window",
        "worst_delay": _S + "hopf.worst:specialised_worst_delay",
        "limit_cycle": _S + "nonlinear.orbits:specialised_limit_cycle",
        "verify": _S + "claims:specialised_verify",
        "claim_targets": _S + "claims:claim_targets",
        "normal_form": _S + "nonlinear.normal_form:specialised_normal_form",
        "stability_map": _S + "hopf.map:specialised_stability_map",
    }

    def __init__(self, L=2, mu=None, lam=None, theta=None, D=None):
        self.infinite = is_infinite_L(L)
        #: the number of phases without SymPy: an int, ``math.inf`` (the limit) or the symbol
        self.phases = math.inf if self.infinite else as_L_or_inf(L, allow_symbol=True)
        L = self.phases
        #: L is the symbol L (the characteristic polynomial for every L; no table either)
        self.symbolic = not self.infinite and not isinstance(L, int)
        #: the checked options as the numeric paths read them: a ``Fraction`` for a number,
        #: a SymPy expression for an expression, None where not given (no SymPy for numbers)
        self.numbers = {
            "mu": _checked("mu", mu, True),
            "lam": _checked("lam", lam, True),
            "theta": _checked("theta", theta, False),
            "D": _checked("D", D, True),
        }
        self.name = (
            f"two queues, logit routing, Erlang({'inf' if self.infinite else L}) action delay"
        )

    @property
    def L(self):
        """The number of phases: an int, SymPy's ``oo`` (the delay-differential limit) or the
        symbol ``L``; numeric paths read :attr:`phases` (``math.inf`` for the limit)."""
        if self.infinite:
            from symdelay.core.lazy import sympy as sp

            return sp.oo
        return self.phases

    @property
    def options(self) -> dict:
        """The checked options (exact SymPy numbers or expressions, None where not given);
        ``L`` an int, ``oo`` or the symbol ``L``."""
        found = self.__dict__.get("_options")
        if found is None:
            from symdelay.core.lazy import sympy as sp

            found = {"L": self.L}
            for k, v in self.numbers.items():
                found[k] = sp.Rational(v.numerator, v.denominator) if isinstance(v, Fraction) else v
            self.__dict__["_options"] = found
        return found

    _OWN: ClassVar[tuple] = ("phases", "infinite", "symbolic", "numbers", "name")

    def _no_table(self, name: str) -> str | None:
        shown = self.__dict__.get("name", "the founding model")
        if self.__dict__.get("symbolic"):
            return (
                f"{shown}: L is a symbol, which has no transition table ({name}); give L as an "
                "integer >= 1 (its closed form answers the characteristic polynomial)"
            )
        if self.__dict__.get("infinite"):
            return (
                f"{shown}: L = inf is the delay-differential limit, which has no transition "
                f"table ({name}); its analyses are the closed forms (critical, roots, "
                "stability, verify)"
            )
        return None

    def _table(self) -> Model:
        from symdelay.models.delayed_routing import two_queue_erlang

        return two_queue_erlang(self.L, self.options, self.name)

    def default_start(self) -> list:
        """The paper's start, on every path: ``q1 = 0``, ``q2 = 1``, all delay phases empty."""
        if not isinstance(self.L, int):
            raise NoTable(f"{self.name}: a start state needs a finite, concrete L")
        return [0.0, 1.0] + [0.0] * (2 * self.L)

    def with_values(self, **values) -> Model:
        """The same model with more options given numbers (a founding model while only
        founding options are given; otherwise the transition table's)."""
        if set(values) <= set(self.options):
            return FoundingModel(**{**self.options, **values})
        return Model.with_values(self, **values)

    def __repr__(self) -> str:
        given = ", ".join(f"{k}={v}" for k, v in self.options.items() if v is not None)
        return f"FoundingModel({given})"
