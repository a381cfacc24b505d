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
from functools import lru_cache
from typing import ClassVar

from symdelay.core.errors import SymdelayInputError
from symdelay.core.exact import exact_fraction
from symdelay.core.params import as_L_or_inf, is_infinite_L
from symdelay.model.core import Model, NoTable, TableOnDemand

__all__ = ["FoundingModel", "NoTable", "symbolic_founding"]

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


@lru_cache(maxsize=16)
def _table_of(L, numbers: tuple, name: str) -> Model:
    """The transition table of the founding model with these checked options, built once
    per options (models are data: equal options, equal tables)."""
    from symdelay.core.lazy import sympy as sp
    from symdelay.models.delayed_routing import two_queue_erlang

    options = {"L": L}
    for k, v in numbers:
        options[k] = sp.Rational(v.numerator, v.denominator) if isinstance(v, Fraction) else v
    table = two_queue_erlang(L, options, name)
    _closed_equilibrium(table)
    return table


@lru_cache(maxsize=16)
def _limit_table_of(numbers: tuple, name: str) -> Model:
    """The founding model's ``L = inf`` limit as a transition table with a constant action
    lag ``tau = D`` (a job routed at ``t`` by the logit of the queue lengths joins its queue
    at ``t + D``): the routing and service rates are read off the family's own table
    (:func:`~symdelay.models.delayed_routing.lag_limit` of the one-phase table with these
    options), not written again. The same fluid equation as
    ``examples/models/constant_action_delay.toml``."""
    from symdelay.models.delayed_routing import lag_limit

    limit = lag_limit(_table_of(1, numbers, name))
    values = {k: v for k, v in numbers if v is not None}
    parameters = {"mu": "positive", "lam": "positive", "theta": "real", "D": "positive"}
    names = [q.name for q in limit.queues]
    transitions = [
        (f"arrival to {i + 1}", {q: 1}, rate, "tau")
        for i, (q, rate) in enumerate(zip(names, limit.routed))
    ]
    transitions += [
        (f"service {i + 1}", {q: -1}, rate) for i, (q, rate) in enumerate(zip(names, limit.served))
    ]
    return Model(
        name,
        names,
        parameters,
        transitions,
        symmetry=[names],
        values={k: (str(v) if isinstance(v, Fraction) else v) for k, v in values.items()},
        description="the founding model's L = inf limit: a constant action delay D",
        source="model 'erlang' (L = inf)",
        mode_names={"0": "sum", "1": "difference"},
        lags={"tau": {"kind": "constant", "value": "D"}},
    )


@lru_cache(maxsize=16)
def _store_of(L, numbers: tuple, name: str) -> dict:
    """What was computed for the founding model with these checked options (one store per
    options, as :func:`_table_of` gives one table)."""
    return {}


def _closed_equilibrium(table: Model) -> None:
    """The symmetric equilibrium ``q_i = lam/mu``, ``z_{i,l} = lam D/L`` set as the table's,
    once its drift is checked to vanish there identically (otherwise the table solves for
    it): the same point SymPy's solve finds, without the solve."""
    from symdelay.core.lazy import sympy as sp
    from symdelay.model.records import Equilibrium

    sym = {p.name: p for p in table.parameters}
    val = {p.name: v for p, v in table.values.items()}
    mu, lam = val.get("mu", sym.get("mu")), val.get("lam", sym.get("lam"))
    # the phase rate gamma = L/D: the rate of the step out of server 1's first phase over z1_1
    z11 = sp.Symbol("z1_1")
    first = table.states.index(z11)
    phase = next(t.rate for t in table.transitions if t.change[first] == -1)
    gamma = sp.cancel(phase / z11).xreplace(table.values)
    point = {s: lam / mu if s.name[0] == "q" else lam / gamma for s in table.states}
    at = {**point, **table.values}
    if all(sp.expand(sp.sympify(d).xreplace(at)) == 0 for d in table.drift):
        table.__dict__["equilibrium"] = Equilibrium(point, True, 0, "closed form, drift zero")


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
        "variance": _S + "stochastic.variance:specialised_variance",
        "window": _S + "hopf.window:specialised_window",
        "worst_delay": _S + "hopf.worst:specialised_worst_delay",
        "limit_cycle": _S + "nonlinear.cycles:specialised_limit_cycle",
        "cycles": _S + "nonlinear.branch:specialised_cycles",
        "verify": _S + "claims:specialised_verify",
        "claim_targets": _S + "claims:claim_targets",
        "normal_form": _S + "nonlinear.normal_form:specialised_normal_form",
        "spectrum": _S + "nonlinear.spectrum:specialised_spectrum",
        "stability_map": _S + "hopf.map:specialised_stability_map",
    }
    #: quantity -> the family's closed forms (a function of the model), which both paths of
    #: the entry attach to their record (:func:`symdelay.analysis.entry.closed_forms`)
    CLOSED_FORMS: ClassVar[dict] = {
        "critical": _S + "hopf.curve:critical_closed_forms",
        "worst_delay": _S + "hopf.worst:worst_delay_closed_forms",
        "stability": _S + "stability:stability_closed_forms",
        "charpoly": _S + "charpoly:closed_forms",
        "variance": _S + "stochastic.variance:variance_closed_form",
        "normal_form": _S + "nonlinear.normal_form:family_closed_forms",
        "spectrum": _S + "nonlinear.spectrum:family_spectrum_closed_form",
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

    def record_options(self) -> dict:
        """The options as the records print them, without SymPy: ``L`` (an int,
        ``math.inf`` or the symbol) and the checked numbers."""
        return {"L": self.phases, **self.numbers}

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

    def limit_table(self) -> Model:
        """At ``L = inf``: the delay-differential limit as a transition table with a constant
        action lag ``D`` (:func:`_limit_table_of`), for the generic delay analyses that a
        fast path of the family hands it to (the branch of cycles)."""
        if not self.infinite:
            raise NoTable(f"{self.name}: the constant-lag table is the L = inf limit's")
        return _limit_table_of(tuple(self.numbers.items()), self.name)

    def _table(self) -> Model:
        return _table_of(self.L, tuple(self.numbers.items()), self.name)

    def cached(self, key: str, compute):
        """Equal founding models share what was computed from them (a kernel generated from
        the table, a compiled drift, closed forms): the analyses of a model rebuilt from the
        same options are not repeated. The store does not build the table (a number too
        long for a table is still answered by the closed forms and the fast paths)."""
        if self.infinite or self.symbolic:
            return Model.cached(self, key, compute)
        store = _store_of(self.L, tuple(self.numbers.items()), self.name)
        if key not in store:
            store[key] = compute()
        return store[key]

    @property
    def equilibrium(self):
        """The table's equilibrium (its closed form, checked on the drift: see
        :func:`_closed_equilibrium`), shared by equal models."""
        why = self._no_table("its equilibrium")
        if why is not None:
            raise NoTable(why)
        return self._table().equilibrium

    def state_count(self) -> int:
        """``2 (L + 1)``, known without building the table."""
        why = self._no_table("its states")
        if why is not None:
            raise NoTable(why)
        return 2 * self.L + 2

    def default_start(self) -> list:
        """The paper's start, on every path: ``q1 = 0``, ``q2 = 1``, all delay phases empty."""
        if not isinstance(self.L, int):
            raise NoTable(f"{self.name}: a start state needs a finite, concrete L")
        return [0.0, 1.0] + [0.0] * (2 * self.L)


@lru_cache(maxsize=32)
def symbolic_founding(L: int) -> FoundingModel:
    """The founding model with ``L`` phases and ``mu, lam, theta, gamma`` symbolic: one object
    per L, whose transition table (with its equilibrium, Jacobian and modes, derived once)
    the derivation views (:class:`~symdelay.models.erlang.action_delay.ActionDelayModel`) and
    the constant-lag limit (:func:`~symdelay.models.delayed_routing.lag_limit`) read.

    >>> symbolic_founding(1).drift[0]
    gamma*z1_1 - mu*q1
    """
    return FoundingModel(L=L)
