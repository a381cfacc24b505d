"""A model is its transition table: a density-dependent family of jump processes.

A :class:`Model` holds state names, parameters with their domains, and transitions, each a
jump vector ``nu`` and a *scaled* rate ``beta_nu(s)`` (the jump process ``X`` jumps by ``nu``
at rate ``eta * beta_nu(X / eta)``; Kurtz). Everything else is derived from that one table,
once, and cached on the object:

* the fluid drift ``F(s) = sum_nu nu beta_nu(s)``;
* the equilibrium (SymPy ``solve`` where it can, certified numerics where it cannot);
* the Jacobian at the equilibrium and the linear-noise diffusion ``sum_nu nu nu^T beta_nu``;
* with a declared permutation symmetry, the modes (symmetric / antisymmetric or, for a cycle
  of k states, the k Fourier modes) and the factored characteristic polynomial of each.

>>> import sympy as sp
>>> m = Model(
...     "birth-death",
...     states=["x"],
...     parameters={"a": "positive", "b": "positive"},
...     transitions=[("birth", {"x": 1}, "a"), ("death", {"x": -1}, "b*x")],
... )
>>> m.drift
(a - b*x,)
>>> m.equilibrium.point
{x: a/b}
>>> m.charpoly
b + r
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

from symdelay.core import symbols as _symbols
from symdelay.core.display import LatexDisplay, ReadOnlyDict
from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.core.result import Result
from symdelay.model.records import Equilibrium, Factor, _cycles, _is_zero

__all__ = [
    "Model",
    "NoTable",
    "DelayModelError",
    "has_lags",
    "Specialisable",
    "TableOnDemand",
    "Transition",
    "DOMAINS",
    "Equilibrium",
    "Factor",
    "load_toml",
    "model_from_dict",
]

#: Parameter domains a model may declare.
DOMAINS = ("positive", "nonnegative", "real", "probability")

#: Names a model may not use for a state or a parameter.
RESERVED = frozenset({"r", "t"})


@dataclass(frozen=True)
class Transition(Result):
    """One jump: its name, the change ``nu`` (a tuple, one entry per state), scaled rate."""

    name: str
    change: tuple
    rate: sp.Expr
    #: the name of the lag after which the jump takes effect (an action delay), or None
    lag: str | None = None


def _check_identifier(kind: str, name, where: str) -> str:
    if not isinstance(name, str) or not name.isidentifier() or name.startswith("__"):
        raise SymdelayInputError(
            f"{where}: {kind} name {name!r} is not a plain identifier: use letters, digits, _"
        )
    if name in RESERVED:
        raise SymdelayInputError(
            f"{where}: '{name}' is reserved (r is the eigenvalue, t the time): rename the {kind}"
        )
    return name


def _check_names(text: str, allowed, label: str) -> None:
    """Refuse a rate naming anything but the model's states and parameters."""
    from symdelay.core.parsing import _MAX_LENGTH, ALLOWED_FUNCTIONS, _ast

    if len(text) > _MAX_LENGTH:
        return  # the parser refuses it, with the limit
    try:
        tree, _ = _ast(text.replace("^", "**").strip())
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return  # the parser gives the error
    called = {
        n.func.id
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id not in allowed:
            if node.id in called and node.id in ALLOWED_FUNCTIONS:
                continue
            if node.id in called:
                return  # the parser refuses the call and says which functions are allowed
            raise SymdelayInputError(
                f"{label}: unknown name '{node.id}' in the rate: use "
                + ", ".join(allowed)
                + ", or declare it in [parameters] or [state]"
            )


#: Seconds per squared state of a model's symbolic Jacobian (measured 0.44 s at 93 states,
#: 3 servers with Erlang(30) delays) and of its characteristic factors (the Jacobian, the
#: modes and their determinants: 5 s at 63 states): a model of thousands of states (--L 1000)
#: is refused before the work starts, unless forced (:func:`symdelay.core.budget.forced`)
COST_SECONDS = {"jacobian": 5e-5, "factors": 1.3e-3, "lag chains": 1.8e-4}


#: Most decimal digits of a number in a model (numerator or denominator): the factoring of
#: the characteristic polynomial grows with the size of its coefficients.
MAX_DIGITS = 100


def _check_number_size(expr, label: str) -> None:
    limit = 10**MAX_DIGITS
    for q in expr.atoms(sp.Rational):
        if abs(q.p) >= limit or q.q >= limit:
            exc = SymdelayInputError(
                f"{label}: a number with more than {MAX_DIGITS} digits: give a shorter one"
            )
            exc.max_digits = MAX_DIGITS  # the command line names the option that gave it
            raise exc


def _symbol(name: str) -> sp.Symbol:
    """The canonical symbol for a canonical name, else a plain symbol."""
    return _symbols.SYMBOLS.get(name, sp.Symbol(name))


def _exact_value(name: str, value, domain: str, where: str) -> sp.Expr:
    from symdelay.core.params import _NONFINITE_WORDS, _nonfinite, as_parameter, exact_number

    if isinstance(value, str) and value.strip().lower() in _NONFINITE_WORDS:
        raise SymdelayInputError(f"{where}: {_nonfinite(name, value.strip())}")
    if isinstance(value, sp.Basic) and value.is_number:
        floats = value.atoms(sp.Float)
        expr = value.xreplace({f: exact_number(name, f) for f in floats}) if floats else value
    elif isinstance(value, str):
        from symdelay.core.parsing import parse_expression

        try:
            expr = parse_expression(value)
        except SymdelayInputError as exc:
            raise SymdelayInputError(f"{where}: the value of {name}: {exc}") from None
        if not expr.is_number:
            raise SymdelayInputError(f"{where}: the value of {name} must be a number, got {value}")
    else:
        try:
            expr = as_parameter("value", value, positive=False)
        except SymdelayInputError as exc:
            if "nan and inf" in str(exc):
                raise SymdelayInputError(f"{where}: {_nonfinite(name, value)}") from None
            raise SymdelayInputError(
                f"{where}: the value of {name} must be a finite number, got {value!r}"
            ) from None
    _check_number_size(expr, f"{where}: the value of {name}")
    if expr.is_real is not True or not expr.is_finite:
        raise SymdelayInputError(f"{where}: the value of {name} must be real, got {value}")
    if domain == "positive" and not expr > 0:
        raise SymdelayInputError(f"{where}: {name} must be positive, got {value}")
    if domain == "probability" and not 0 <= expr <= 1:
        raise SymdelayInputError(
            f"{where}: {name} is a probability: give a value in [0, 1], got {value}"
        )
    if domain == "nonnegative" and not expr >= 0:
        raise SymdelayInputError(f"{where}: {name} must be >= 0, got {value}")
    return expr


class Specialisable:
    """What a model offers an analysis entry besides its data: fast paths by quantity."""

    #: quantity -> ``"module:function"``: the fast paths (closed forms, a family's own kernels)
    #: this model's family offers. Each analysis entry asks for its quantity first
    #: (:func:`symdelay.analysis.entry.specialisation`) and runs the generic machinery when
    #: there is none or it declines. Names, resolved when asked for: the model layer imports
    #: nothing of the families.
    SPECIALISATIONS: ClassVar[dict] = {}

    def special(self, quantity: str):
        """The function of this family's fast path for ``quantity``, or ``None``."""
        import sys

        target = self.SPECIALISATIONS.get(quantity)
        if target is None:
            return None
        module, _, attr = target.partition(":")
        found = sys.modules.get(module)  # imported already: the import machinery skipped
        if found is None:
            import importlib

            found = importlib.import_module(module)
        return getattr(found, attr)


class Model(Specialisable, LatexDisplay):
    """A density-dependent family of jump processes, checked at the door: the transition table
    every analysis reads.

    Every rate must be ``>= 0`` on the state space (states ``>= 0``, parameters in their
    domains) wherever it is defined: decided exactly
    (:func:`symdelay.model.signs.nonnegative_on`), a rate that is negative somewhere refused
    with the point. A rate whose sign cannot be decided (a function of unknown sign, the
    decision procedure's time) is refused too, unless its transition is named in
    ``assume_nonnegative``. A declared symmetry must map the table to itself.

    Parameters
    ----------
    name : str
        The model's name (non-empty), shown in records and messages.
    states : sequence of str or Symbol
        The scaled state variables, in order (identifiers; not ``r`` or ``t``).
    parameters : dict
        ``{name: domain}`` with domain in :data:`DOMAINS` (``"positive"``,
        ``"nonnegative"``, ``"real"``, ``"probability"``); canonical names (``mu``, ``lam``,
        ``theta``, ``gamma``, ``D``, ...) print as their Greek letters.
    transitions : sequence
        ``(name, change, rate)`` triples (or :class:`Transition`): ``change`` a ``{state:
        int}`` mapping or a tuple with one integer per state, ``rate`` the scaled rate as a
        SymPy expression or its text (parsed safely, never evaluated).
    symmetry : sequence of sequences or dict, optional
        A permutation of the states that maps the table to itself, as cycles (``[["q1",
        "q2"], ["z1", "z2"]]``) or a mapping ``{state: image}``; it splits the linearisation
        into modes (sum and difference for a swap). Default: none.
    values : dict, optional
        ``{parameter: number}`` for some parameters (numbers or their decimal text, made
        exact and checked against the domain); the rest stay symbolic
        (:meth:`with_values` sets more later).
    description : str, default ""
        One line saying what the model is (``symdelay models`` prints it).
    latex_names : dict, optional
        ``{symbol: LaTeX}`` for names that are not canonical.
    source : str, default "model"
        Where the model came from (a file's path), the prefix of every refusal.
    mode_names : dict, optional
        ``{str(j): name}``: the name of the ``j``-th mode of the symmetry (default ``"sum"`` /
        ``"difference"`` for a swap, ``"symmetric"`` / ``"fourier j"`` otherwise).
    assume_nonnegative : sequence of str, default ()
        Names of transitions whose rate the user asserts ``>= 0`` where the sign cannot be
        decided (kept in :attr:`assumed_nonnegative`; such a rate is still refused where it is
        shown negative: by the decision procedure given a short time or, for a large
        expression, by evaluation at a few points in interval arithmetic).
    lags : dict, optional
        ``{name: spec}``: the lags the rates read through ``delayed(EXPR, NAME)`` and the
        transitions name as ``lag`` (an action delay): each spec a dict with ``kind``
        (constant, uniform, gamma, exponential, mixture, phase_type) and its arguments as
        expressions in the parameters (:mod:`symdelay.model.lags`). A transition may then
        be ``(name, change, rate, lag)``. Default: none.

    Examples
    --------
    >>> m = Model(
    ...     "birth-death", ["x"], {"lam": "positive", "mu": "positive"},
    ...     [("arrive", {"x": 1}, "lam"), ("leave", {"x": -1}, "mu*x")],
    ... )
    >>> m.equilibrium.point, m.jacobian
    ({x: lam/mu}, Matrix([[-mu]]))
    """

    def __init__(
        self,
        name: str,
        states,
        parameters: dict,
        transitions,
        *,
        symmetry=None,
        values: dict | None = None,
        description: str = "",
        latex_names: dict | None = None,
        source: str = "model",
        mode_names: dict | None = None,
        assume_nonnegative=(),
        lags: dict | None = None,
    ):
        where = source
        if not isinstance(name, str) or not name.strip():
            raise SymdelayInputError(f"{where}: the model needs a non-empty name")
        self.name = name
        self.description = description
        self.source = source
        self.mode_names = ReadOnlyDict(mode_names or {})
        # ---- states
        names = [s.name if isinstance(s, sp.Symbol) else s for s in states]
        if not names:
            raise SymdelayInputError(f"{where}: [state] names is empty: list the state variables")
        for s in names:
            _check_identifier("state", s, where)
        if len(set(names)) != len(names):
            dup = next(s for s in names if names.count(s) > 1)
            raise SymdelayInputError(f"{where}: state '{dup}' is listed twice")
        self.states: tuple = tuple(_symbol(s) for s in names)
        # ---- parameters
        if not isinstance(parameters, dict):
            raise SymdelayInputError(f"{where}: parameters must map names to domains")
        self.domains: dict = {}
        for p, dom in parameters.items():
            _check_identifier("parameter", p, where)
            if p in names:
                raise SymdelayInputError(f"{where}: '{p}' is both a state and a parameter")
            if dom not in DOMAINS:
                raise SymdelayInputError(
                    f"{where}: parameter {p} has domain {dom!r}: use one of " + ", ".join(DOMAINS)
                )
            self.domains[_symbol(p)] = dom
        self.domains = ReadOnlyDict(self.domains)
        self.parameters: tuple = tuple(self.domains)
        # ---- values
        self.values: dict = {}
        for p, v in (values or {}).items():
            sym = _symbol(p) if isinstance(p, str) else p
            if sym not in self.domains:
                raise SymdelayInputError(
                    f"{where}: value given for unknown parameter '{p}': declare it in [parameters]"
                )
            self.values[sym] = _exact_value(str(sym), v, self.domains[sym], where)
        # read-only, like every mapping the model hands out: its caches depend on them
        self.values = ReadOnlyDict(self.values)
        self.latex_names = ReadOnlyDict(latex_names or {})
        # ---- lags (before the transitions, whose rates read them)
        self.lags = ReadOnlyDict(self._lags(lags))
        # ---- transitions
        self.transitions: tuple = tuple(self._transition(t, k) for k, t in enumerate(transitions))
        if not self.transitions:
            raise SymdelayInputError(f"{where}: no [[transitions]]: list at least one")
        # ---- symmetry
        self.permutation: tuple | None = self._permutation(symmetry) if symmetry else None
        names_ = [t.name for t in self.transitions]
        for name_ in assume_nonnegative:
            if name_ not in names_:
                raise SymdelayInputError(
                    f"{where}: assume_nonnegative names no transition '{name_}': use one of "
                    + ", ".join(names_)
                )
        #: transitions whose rate is asserted (not proven) to be >= 0
        self.assumed_nonnegative: tuple = tuple(dict.fromkeys(assume_nonnegative))
        self._check_rates_nonnegative()
        if self.permutation is not None:
            self._check_symmetry()

    # ------------------------------------------------------------ input
    def _lags(self, lags) -> dict:
        from symdelay.model.lags import make_lags

        if not lags:
            return {}
        where = self.source
        out = make_lags(dict(lags), {p.name: p for p in self.parameters}, where)
        for name, lag in out.items():
            _check_identifier("lag", name, where)
            if _symbol(name) in self.domains or name in {s.name for s in self.states}:
                raise SymdelayInputError(
                    f"{where}: lag '{name}' has the name of a state or a parameter: rename it"
                )
            lag.check(self.domains, self.values, where)
        return out

    def _transition(self, t, k: int) -> Transition:
        where = self.source
        lag = None
        if isinstance(t, Transition):
            tname, change, rate, lag = t.name, t.change, t.rate, t.lag
        else:
            try:
                tname, change, rate, *rest = t
                if len(rest) > 1:
                    raise ValueError
                lag = rest[0] if rest else None
            except (TypeError, ValueError):
                raise SymdelayInputError(
                    f"{where}: transition {k + 1} must be (name, change, rate) or "
                    "(name, change, rate, lag)"
                ) from None
        label = f"{where}: transition '{tname}'"
        if lag is not None and lag not in self.lags:
            known = ", ".join(self.lags) or "none declared"
            raise SymdelayInputError(
                f"{label}: lag '{lag}' is not a declared lag ({known}): declare it in [lags]"
            )
        index = self.__dict__.get("_state_index")
        if index is None or len(index) != len(self.states):  # built once per model
            index = self.__dict__["_state_index"] = {s.name: i for i, s in enumerate(self.states)}
        if isinstance(change, dict):
            vec = [0] * len(self.states)
            for s, c in change.items():
                if s not in index:
                    raise SymdelayInputError(
                        f"{label}: change names unknown state '{s}': use one of " + ", ".join(index)
                    )
                if isinstance(c, bool) or not isinstance(c, int):
                    raise SymdelayInputError(
                        f"{label}: change of {s} must be an integer, got {c!r}"
                    )
                vec[index[s]] = c
            change = tuple(vec)
        else:
            change = tuple(int(c) for c in change)
            if len(change) != len(self.states):
                raise SymdelayInputError(
                    f"{label}: change has {len(change)} entries, not {len(self.states)}"
                )
        if not any(change):
            raise SymdelayInputError(f"{label}: change is zero: a transition must move the state")
        if isinstance(rate, str):
            from symdelay.core.parsing import parse_rate

            allowed = [s.name for s in self.states] + [p.name for p in self.parameters]
            functions = None
            if not self.lags and _calls(rate, ("delayed", "dot")):
                raise SymdelayInputError(
                    f"{label}: delayed(...) and dot(...) read a lag, and the model declares "
                    'none: declare it in [lags], e.g. tau = { kind = "constant", value = "D" }'
                )
            if self.lags:
                from symdelay.model.lags import check_lag_names, delayed_function

                check_lag_names(rate, self.lags, label)
                allowed += list(self.lags)
                delayed, dot = delayed_function()
                functions = {"delayed": delayed, "dot": dot}
            _check_names(rate, allowed, label)
            try:
                rate = parse_rate(rate, variables=allowed, functions=functions)
            except SymdelayInputError as exc:
                raise SymdelayInputError(f"{label}: {exc}") from None
            rate = rate.xreplace({_symbol(n): _symbol(n) for n in allowed})
        elif not isinstance(rate, sp.Basic):
            try:
                from symdelay.core.params import exact_number

                rate = exact_number(label, rate) if isinstance(rate, (int, float)) else None
            except (TypeError, ValueError):
                rate = None
            if rate is None:
                raise SymdelayInputError(f"{label}: rate must be an expression")
        if isinstance(
            rate, (sp.Rel, sp.logic.boolalg.BooleanFunction, sp.logic.boolalg.BooleanAtom)
        ):
            raise SymdelayInputError(f"{label}: rate must be an expression, not a relation")
        _check_number_size(rate, label)
        known = set(self.states) | set(self.parameters)
        if self.lags:
            from symdelay.model.lags import check_rate

            check_rate(rate, self.states, self.lags, label)
            known |= {_symbol(n) for n in self.lags}
        unknown = sorted(str(s) for s in rate.free_symbols - known)
        if unknown:
            raise SymdelayInputError(
                f"{label}: unknown name '{unknown[0]}' in the rate: declare it in [parameters] "
                "or [state]"
            )
        return Transition(str(tname), change, rate, lag)

    def _permutation(self, symmetry) -> tuple:
        where = f"{self.source}: [symmetry]"
        index = {s.name: i for i, s in enumerate(self.states)}
        perm = list(range(len(self.states)))
        if isinstance(symmetry, dict):
            pairs = list(symmetry.items())
        else:
            pairs = []
            for cycle in symmetry:
                if not isinstance(cycle, (list, tuple)) or len(cycle) < 2:
                    raise SymdelayInputError(f"{where}: each cycle must list two or more states")
                cyc = [c.name if isinstance(c, sp.Symbol) else c for c in cycle]
                pairs += [(cyc[i], cyc[(i + 1) % len(cyc)]) for i in range(len(cyc))]
        seen = set()
        for a, b in pairs:
            a = a.name if isinstance(a, sp.Symbol) else a
            b = b.name if isinstance(b, sp.Symbol) else b
            for s in (a, b):
                if s not in index:
                    raise SymdelayInputError(f"{where}: unknown state '{s}'")
            if a in seen:
                raise SymdelayInputError(f"{where}: state '{a}' appears in two cycles")
            seen.add(a)
            perm[index[a]] = index[b]
        if sorted(perm) != list(range(len(perm))):
            raise SymdelayInputError(f"{where}: the cycles do not form a permutation")
        lengths = {len(c) for c in _cycles(perm) if len(c) > 1}
        if len(lengths) > 1:
            raise SymdelayInputError(
                f"{where}: all cycles must have the same length (got {sorted(lengths)})"
            )
        if not lengths:
            raise SymdelayInputError(f"{where}: the permutation moves no state")
        return tuple(perm)

    @property
    def variable_domains(self) -> dict:
        """``{symbol: domain}`` of the states (``nonnegative``) and the free parameters:
        where the model's sign and zero decisions quantify."""
        out = {s: "nonnegative" for s in self.states}
        out.update({p: d for p, d in self.domains.items() if p not in self.values})
        return out

    def _check_rates_nonnegative(self) -> None:
        """Every rate ``>= 0`` on the state space wherever it is defined, decided exactly
        (one decision per rate shape: rates that differ only in the names of states and
        parameters of the same domains share it, see :func:`_rate_decision`). The
        decision procedure has :data:`_RATE_TIMEOUT_MS` per shape and the model
        ``DEFAULT_SECONDS`` in all (most shapes take milliseconds)."""
        import time

        from symdelay.core.budget import DEFAULT_SECONDS
        from symdelay.model.signs import negative_somewhere

        domains = self.variable_domains
        deadline = time.monotonic() + DEFAULT_SECONDS
        for t in self.transitions:
            rate = t.rate.xreplace(self.values)
            rate_domains = domains
            if self.lags:  # a past value ranges over its expression's domain
                rate, past = _past_as_symbols(rate, self.states)
                rate_domains = {**domains, **past}
            if rate.has(sp.I, sp.zoo, sp.nan, sp.oo):
                raise SymdelayInputError(
                    f"{self.source}: transition '{t.name}': rate {t.rate} is not a finite real "
                    "number: a rate must be real and >= 0 on the state space"
                )
            left = int(1000 * (deadline - time.monotonic()))
            asserted = t.name in self.assumed_nonnegative
            if asserted and not _small(rate):  # taken as asserted, unless seen negative
                d = negative_somewhere(rate, rate_domains)
            else:  # decided; an asserted rate briefly, and taken as asserted if undecided
                most = _ASSERTED_TIMEOUT_MS if asserted else _RATE_TIMEOUT_MS
                d = _rate_decision(rate, rate_domains, max(1, min(most, left)))
                if asserted and d.holds is None:
                    continue
            if d.holds:
                continue
            shown = str(t.rate)
            shown = shown if len(shown) <= 120 else shown[:100] + " ... " + shown[-15:]
            label = f"{self.source}: transition '{t.name}': rate {shown}"
            if d.holds is False and d.witness is None:
                raise SymdelayInputError(f"{label} is {d.how}: a rate must be real and >= 0")
            if d.holds is False:
                at = ", ".join(f"{k}={v}" for k, v in sorted(d.witness.items(), key=str))
                raise SymdelayInputError(
                    f"{label} is negative{' at ' + at if at else ''}: a rate must be >= 0 on "
                    "the state space (states >= 0, parameters in their domains)"
                )
            raise SymdelayInputError(
                f"{label}: cannot decide that it is >= 0 on the state space ({d.how}); "
                "if it is, assert it: assume_nonnegative = true in its [[transitions]] table"
            )

    def _check_symmetry(self) -> None:
        """The permuted jump process equals the original: total rate per jump vector matches."""
        perm = self.permutation
        sub = {self.states[i]: self.states[perm[i]] for i in range(len(perm))}
        by_change: dict = {}
        first_name: dict = {}  # the first transition of each jump vector (for messages)
        for t in self.transitions:  # jumps after different lags are different jumps
            key = (t.change, t.lag)
            by_change[key] = by_change.get(key, 0) + t.rate
            first_name.setdefault(key, t.name)
        domains = self.variable_domains
        for (change, lag), rate in by_change.items():
            moved = [0] * len(change)
            for i, c in enumerate(change):
                moved[perm[i]] = c
            target = by_change.get((tuple(moved), lag))
            image = rate.xreplace(sub)
            zero = None
            if target is not None:
                zero = _is_zero(target - image, self.values, domains)
            name = first_name[(change, lag)]
            if target is None or zero is False:
                raise SymdelayInputError(
                    f"{self.source}: the declared symmetry is not one of the transitions: "
                    f"'{name}' has no image under the permutation; fix [symmetry] or the rates"
                )
            if zero is None:
                raise SymdelayInputError(
                    f"{self.source}: cannot decide that the declared symmetry maps '{name}' "
                    "onto the rate of its image (an identity neither the decision procedure "
                    "nor simplify settles): write the two rates alike, or drop [symmetry]"
                )

    # ------------------------------------------------------------ derived, cached
    def require_no_lags(self, what: str, *, not_yet: bool = False) -> None:
        """Refuse ``what`` of a model with lags, in one line saying what answers for it:
        ``not_yet`` for what delay models will have (time paths), else what they have not
        (an ODE's drift, a polynomial)."""
        if self.lags:
            why = (
                "is not built for delay models yet"
                if not_yet
                else "is not defined for a delay model"
            )
            raise DelayModelError(
                f"{self.name} has lags ({', '.join(self.lags)}): {what} {why}; its linearisation "
                "is the characteristic matrix (charpoly, stability, critical, window and roots "
                "answer for it)"
            )

    @cached_property
    def steady_drift(self) -> tuple:
        """``F(s) = sum_nu nu beta_nu(s)`` with every lag collapsed (``delayed(E, k)`` is
        ``E``, ``dot`` is 0): its zeros are the equilibria (the drift itself for a model
        without lags)."""
        from symdelay.model.lags import steady

        F = [sp.Integer(0)] * len(self.states)
        for t in self.transitions:
            rate = t.rate.xreplace(self.values)
            if self.lags:
                rate = steady(rate)
            for i, c in enumerate(t.change):
                if c:
                    F[i] += c * rate
        return tuple(sp.expand(f) if not f.has(sp.exp) else f for f in F)

    @cached_property
    def steady_jacobian(self) -> sp.Matrix:
        """``dF/ds`` of :attr:`steady_drift`, as a function of the state."""
        self.check_cost("jacobian")
        # piecewise-smooth rates (Min, Max, Abs, Heaviside) differentiated branch by branch
        from symdelay.model.pieces import as_piecewise

        drift = [as_piecewise(f) for f in self.steady_drift]
        return sp.ImmutableMatrix(sp.Matrix(drift).jacobian(self.states))

    @property
    def drift(self) -> tuple:
        """``F(s) = sum_nu nu beta_nu(s)`` (with the parameter values substituted); refused
        for a model with lags (its right-hand side reads the past)."""
        self.require_no_lags("the drift F(s) of an ODE (fluid paths, limit cycles, normal forms)")
        return self.steady_drift

    @property
    def drift_jacobian(self) -> sp.Matrix:
        """``dF/ds`` as a function of the state."""
        self.require_no_lags("the Jacobian of an ODE")
        return self.steady_jacobian

    @cached_property
    def equilibrium(self) -> Equilibrium:
        """The equilibrium, solved (see :mod:`symdelay.model.equilibrium`)."""
        from symdelay.model.equilibrium import find_equilibrium

        return find_equilibrium(self)

    @cached_property
    def jacobian(self) -> sp.Matrix:
        """The Jacobian of the drift at the equilibrium."""
        from symdelay.model.equilibrium import at_point

        self.require_no_lags("the Jacobian (a polynomial linearisation)")
        return sp.ImmutableMatrix(at_point(self.drift_jacobian, self.equilibrium))

    @cached_property
    def linearisation(self):
        """The linearisation at the equilibrium: ``A0`` and one term per kernel
        (:class:`symdelay.model.lags.Linearisation`; ``A0 = J`` and no term without lags)."""
        from symdelay.model.lags import Linearisation, linearise

        if not self.lags:
            return Linearisation(self.jacobian, ())
        self.check_cost("jacobian")
        return linearise(self)

    @property
    def characteristic_matrix(self) -> sp.Matrix:
        """``Delta(r) = r I - A0 - sum_k (r if derivative else 1) M_k K_k(r)``."""
        return self.linearisation.matrix()

    @cached_property
    def delay_modes(self) -> tuple:
        """The modes of the characteristic matrix by the symmetry (one ``full`` mode without
        one): :class:`symdelay.model.modes.DelayMode` s."""
        from symdelay.model.modes import decompose_linearisation

        self.check_cost("factors")
        self._check_chain_cost()
        return decompose_linearisation(self)

    def _check_chain_cost(self) -> None:
        """Refuse, in one line and unless forced, rational lags whose chains would make the
        modes' polynomials too large to expand and factor: the degree of a mode is about its
        block's size times one plus the phases of the lags (measured: a gamma lag of shape
        400 on the founding table, 29 s)."""
        from symdelay.core.budget import check_budget, power_cost
        from symdelay.model.records import _cycles

        values = dict(self.values)
        phases = sum(lag.xreplace(values).chain_size() for lag in self.lags.values())
        if not phases:
            return
        cycle = 1
        if self.permutation is not None:
            cycle = max(len(c) for c in _cycles(self.permutation))
        degree = max(1, len(self.states) // cycle) * (1 + phases)
        check_budget(
            f"the characteristic polynomials of {self.name} (lags of {phases} phases, "
            f"degree about {degree})",
            power_cost(degree, COST_SECONDS["lag chains"], 2),
            shrink="lags with fewer phases (a smaller gamma shape), or a constant lag",
        )

    @cached_property
    def characteristic_factors(self) -> tuple:
        """``det Delta(r)`` by mode, as :class:`Factor` s: the polynomial factors for a model
        without lags, each mode's characteristic function (``exp(-r tau)`` terms, kernels'
        transforms) for a delay model."""
        if not self.lags:
            return self.factors
        from symdelay.model.modes import delay_factors

        return delay_factors(self.delay_modes)

    @cached_property
    def diffusion(self) -> sp.Matrix:
        """``B = sum_nu nu nu^T beta_nu`` at the equilibrium (linear-noise approximation)."""
        from symdelay.model.equilibrium import at_point

        self.require_no_lags("the linear-noise diffusion (variance, spectrum)", not_yet=True)
        n = len(self.states)
        B = sp.zeros(n, n)
        for t in self.transitions:
            v = sp.Matrix(t.change)
            B += v * v.T * t.rate.xreplace(self.values)
        return sp.ImmutableMatrix(at_point(B, self.equilibrium))

    @cached_property
    def modes(self) -> tuple:
        """The modes: one per character of the symmetry (or one ``full`` mode)."""
        from symdelay.model.modes import decompose

        self.require_no_lags("the modes of a polynomial linearisation")
        self.check_cost("factors")
        return decompose(self)

    def check_cost(self, work: str) -> None:
        """Refuse, in one line, symbolic ``work`` (``"jacobian"`` or ``"factors"``, see
        :data:`COST_SECONDS`) whose estimate for this many states is over the time budget."""
        from symdelay.core.budget import check_budget, power_cost

        n = len(self.states)
        what = {"jacobian": "the symbolic Jacobian", "factors": "the characteristic factors"}
        check_budget(
            f"{what[work]} of {self.name} ({n} states)",
            power_cost(n, COST_SECONDS[work], 2),
            shrink="a model with fewer states (a smaller --N or --L)",
        )

    @cached_property
    def factors(self) -> tuple:
        """The characteristic polynomial ``det(rI - J)`` as :class:`Factor` s, by mode."""
        from symdelay.model.modes import factor_modes

        if self.lags:  # rational kernels: the polynomial of the chain they stand for
            factors = self.characteristic_factors
            if any(_not_polynomial(f.factor) for f in factors):
                self.require_no_lags(
                    "the characteristic polynomial (a lag's transform is not rational)"
                )
            return factors
        return factor_modes(self.modes)

    @cached_property
    def charpoly(self) -> sp.Expr:
        """``det(rI - J)``: the product of the factors (not expanded)."""
        return sp.Mul(*[f.factor**f.multiplicity for f in self.factors])

    def equilibrium_is_closed_form_in(self, p) -> bool:
        """True if the equilibrium can be found with ``p`` left symbolic (SymPy solves it)."""
        from symdelay.model.equilibrium import _exact

        if p not in self.free_parameters:
            return True
        # one SymPy solve per model (it does not depend on p)
        return self.cached("equilibrium closed form", lambda: _exact(self) is not None)

    def cached(self, key: str, compute):
        """The result of an analysis of this model, computed once: ``compute()`` the first
        time ``key`` is asked for (analyses keep their results here, the model stays data)."""
        store = self.__dict__.setdefault("_analyses", {})
        if key not in store:
            store[key] = compute()
        return store[key]

    def default_start(self) -> list:
        """The scaled state a fluid path or a simulation starts from when none is given: the
        equilibrium with the first state raised by half its value (or set to 1 if it is 0).
        A family with a conventional start (the founding model's paper) overrides it. At
        numbers an equilibrium not yet solved is taken from every real zero of the drift
        (:func:`~symdelay.model.equilibrium.certified_equilibrium`, tenths of a second)
        rather than SymPy's closed form (seconds for a cubic in radicals)."""
        from symdelay.model.equilibrium import certified_equilibrium

        eq = self.__dict__.get("equilibrium")
        if eq is None and not self.free_parameters:
            eq = certified_equilibrium(self)
        if eq is None:
            eq = self.equilibrium
        y0 = [float(eq.point[s]) for s in self.states]
        y0[0] = y0[0] * 1.5 if y0[0] != 0 else 1.0
        return y0

    # ------------------------------------------------------------ derived models
    @classmethod
    def from_toml(cls, path, **values) -> Model:
        """A model file read into a model, as :func:`symdelay.load_toml` reads it.

        Parameters
        ----------
        path : str or os.PathLike
            The model file (TOML).
        **values
            Numbers for parameters the file declares; the others stay symbolic.

        Returns
        -------
        Model
            The model, checked at the door.
        """
        from symdelay.model.toml_loader import read_model_file

        return cls(**read_model_file(path, values))

    def with_values(self, **values) -> Model:
        """The same model with more parameters given numbers."""
        merged = {str(k): v for k, v in self.values.items()}
        merged.update(values)
        return Model(
            self.name,
            self.states,
            {str(p): d for p, d in self.domains.items()},
            self.transitions,
            symmetry=None if self.permutation is None else self._perm_mapping(),
            values=merged,
            description=self.description,
            latex_names=self.latex_names,
            source=self.source,
            mode_names=self.mode_names,
            assume_nonnegative=self.assumed_nonnegative,
            lags=self.lags,
        )

    def at_values(self, values: dict) -> Model:
        """This model with numbers for some of its free parameters (``{symbol: number}``),
        its equilibrium and factored characteristic polynomial those of this model with the
        numbers substituted instead of derived again (a sweep over parameter values derives
        them once; the rest is derived from the values when asked for). Needs this model's
        equilibrium in closed form (else :meth:`with_values`); analyses cached on this model
        are not carried over.
        """
        import copy

        if type(self) is not Model or self.lags:
            raise SymdelayInputError(f"{self.name}: at_values is for a plain transition table")
        exact = {}
        for k, v in values.items():
            if k not in self.domains or k in self.values:
                raise SymdelayInputError(f"{k} is not a free parameter of {self.name}")
            exact[k] = _exact_value(str(k), v, self.domains[k], self.source)
        if not self.equilibrium.exact:
            raise SymdelayInputError(
                f"{self.name}: the equilibrium has no closed form; use with_values"
            )
        self.factors  # noqa: B018 - derived here once, with the parameters free
        d = self.__dict__

        def at(e):
            return e.xreplace(exact)

        new = copy.copy(self)
        n = new.__dict__
        for name in (
            "_analyses",
            "steady_drift",
            "steady_jacobian",
            "jacobian",
            "diffusion",
            "modes",
        ):
            n.pop(name, None)  # derived again from the values if asked for
        n["values"] = ReadOnlyDict({**self.values, **exact})
        eq = self.equilibrium
        n["equilibrium"] = Equilibrium({s: at(v) for s, v in eq.point.items()}, True, 0, eq.method)
        n["factors"] = tuple(
            Factor(sp.expand(at(f.factor)), f.multiplicity, f.mode) for f in d["factors"]
        )
        n.pop("charpoly", None)
        return new

    def _perm_mapping(self) -> dict:
        return {self.states[i].name: self.states[j].name for i, j in enumerate(self.permutation)}

    @property
    def free_parameters(self) -> tuple:
        """Parameters without a value."""
        return tuple(p for p in self.parameters if p not in self.values)

    # ------------------------------------------------------------ display
    def to_json(self) -> dict:
        """The analysis record of ``symdelay analyze --json``."""
        from symdelay.core.latex import tex

        out = {
            "name": self.name,
            "state": [s.name for s in self.states],
            "parameters": {str(p): d for p, d in self.domains.items()},
            "values": {str(p): str(v) for p, v in self.values.items()},
            "equilibrium": {s.name: str(v) for s, v in self.equilibrium.point.items()},
            "equilibrium_exact": self.equilibrium.exact,
        }
        if not self.lags:
            J = self.jacobian
            return {
                **out,
                "jacobian": [[str(x) for x in J.row(i)] for i in range(J.rows)],
                "charpoly": str(self.charpoly),
                "charpoly_latex": tex(self.charpoly, self.latex_names),
                "factors": [f.to_json() for f in self.factors],
            }
        # a delay model: no Jacobian; the characteristic matrix's terms and its factors (the
        # polynomial of the chain a rational kernel stands for, else the mode's function)
        factors = self.characteristic_factors
        function = sp.Mul(*[f.factor**f.multiplicity for f in factors])
        return {
            **out,
            "lags": {name: lag.to_json() for name, lag in self.lags.items()},
            "in_transit": self.in_transit(),
            "jacobian": None,
            "linearisation": self.linearisation.to_json(),
            "charpoly": str(function),
            "charpoly_latex": tex(function, self.latex_names),
            "factors": [f.to_json() for f in factors],
        }

    def in_transit(self) -> dict:
        """``{transition: rate x mean lag}`` at the equilibrium: the mass of each
        action-delayed transition decided and not yet in effect (Little's law)."""
        from symdelay.model.equilibrium import at_point

        out = {}
        for t in self.transitions:
            if t.lag:
                from symdelay.model.lags import steady

                rate = steady(t.rate.xreplace(dict(self.values)))
                mean = self.lags[t.lag].xreplace(dict(self.values)).mean()
                value = at_point(sp.Matrix([rate * mean]), self.equilibrium)[0]
                out[t.name] = str(value)
        return out

    @cached_property
    def delay_equations(self) -> tuple:
        """The right-hand sides of the fluid equations, one per state, as written with the
        lags: ``sum_nu nu beta_nu``, an information lag as ``delayed(E, LAG)`` in the rate
        and an action-delayed transition's whole rate seen through its lag
        (``delayed(beta_nu, LAG)``: decided at ``t - u``, in effect at ``t``); the drift
        itself for a model without lags. For display: the linear analyses read
        :attr:`linearisation`."""
        if not self.lags:
            return self.drift
        from symdelay.model.lags import delayed_function

        delayed, _ = delayed_function()
        F = [sp.Integer(0)] * len(self.states)
        for t in self.transitions:
            rate = t.rate.xreplace(self.values)
            if t.lag:
                rate = delayed(rate, sp.Symbol(t.lag))
            for i, c in enumerate(t.change):
                if c:
                    F[i] += c * rate
        return tuple(F)

    def latex(self) -> str:
        """The fluid equations ``ds/dt = F(s)`` (aligned); with lags the delay equations,
        ``x(t - tau)`` for a constant lag and ``(k * x)(t)`` for a distributed one
        (:func:`symdelay.core.latex.tex`)."""
        from symdelay.core.latex import lag_printing, tex

        names = {**self.latex_names}
        lags = lag_printing(self.lags) if self.lags else None
        rows = [
            rf"\dot {{{tex(s, names)}}} &= {tex(f, names, lags=lags, states=self.states)}"
            for s, f in zip(self.states, self.delay_equations)
        ]
        return r"\begin{aligned}" + r"\\ ".join(rows) + r"\end{aligned}"

    def __repr__(self) -> str:
        vals = ", ".join(f"{k}={v}" for k, v in self.values.items())
        return f"Model({self.name!r}, {len(self.states)} states, {len(self.transitions)} transitions{', ' + vals if vals else ''})"


#: rate shape -> its Decision (bounded: cleared when full)
_RATE_DECISIONS: dict = {}
_RATE_DECISIONS_MAX = 4096

#: the decision procedure's time for one rate shape (milliseconds); for an asserted one
_RATE_TIMEOUT_MS = 2000
_ASSERTED_TIMEOUT_MS = 500

#: an asserted rate with more nodes than this is only evaluated, not decided
_ASSERTED_MAX_NODES = 200


def _small(rate) -> bool:
    """At most :data:`_ASSERTED_MAX_NODES` nodes (counted with an early stop)."""
    nodes = enumerate(sp.preorder_traversal(rate))
    return all(n <= _ASSERTED_MAX_NODES for n, _ in nodes)


def _rate_decision(rate, domains: dict, timeout_ms: int = _RATE_TIMEOUT_MS):
    """:func:`~symdelay.model.signs.nonnegative_on` of ``rate``, cached by its shape: the
    rate without a positive constant factor, its symbols renamed in the order of (domain,
    name), so ``gamma*z_1_1`` and ``2*gamma*z_2_7`` (hundreds of delay phases) are decided
    once per process."""
    from symdelay.model.signs import Decision, nonnegative_on

    syms = sorted(rate.free_symbols, key=lambda s: (domains[s], s.name))
    canon = {s: sp.Symbol(f"v{i}") for i, s in enumerate(syms)}
    c, rest = rate.as_coeff_Mul()
    if c.is_Rational and c > 0 and syms:  # a positive factor does not change the sign
        rate = rest
    shape = rate.xreplace(canon)
    key = (shape, tuple(domains[s] for s in syms))
    got = _RATE_DECISIONS.get(key)
    if got is None:
        got = nonnegative_on(shape, {canon[s]: domains[s] for s in syms}, timeout_ms)
        if len(_RATE_DECISIONS) >= _RATE_DECISIONS_MAX:
            _RATE_DECISIONS.clear()
        if not got.timed_out:  # more time may decide it: asked again next time
            _RATE_DECISIONS[key] = got
    if got.witness:
        back = {v: s for s, v in canon.items()}
        got = Decision(got.holds, got.how, {back[v]: x for v, x in got.witness.items()})
    return got


def _order(perm) -> int:
    return math.lcm(*[len(c) for c in _cycles(perm)])


def _calls(text: str, names) -> bool:
    """Whether ``text`` calls one of ``names`` (read from its syntax tree, not evaluated)."""
    from symdelay.core.parsing import _ast

    try:
        tree, _ = _ast(text.replace("^", "**").strip())
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in names
        for n in ast.walk(tree)
    )


def _not_polynomial(f) -> bool:
    from symdelay.core.symbols import r

    try:
        p = sp.Poly(f, r)
    except sp.PolynomialError:
        return True
    return any(c.has(r) for c in p.coeffs())


def has_lags(model) -> bool:
    """Whether ``model`` declares lags, read without building anything: a family's model
    that builds its table on demand (the founding model) has none, and asking it must not
    build a table of a million states."""
    return bool(vars(model).get("lags")) if hasattr(model, "__dict__") else False


class DelayModelError(SymdelayInputError):
    """What a model with lags does not have (an ODE drift, a characteristic polynomial)."""


def _past_as_symbols(rate, states) -> tuple:
    """``rate`` with each ``delayed(E, k)`` a symbol of ``E``'s domain (nonnegative when
    ``E`` is a state), and those domains: a rate must be >= 0 whatever the past was."""
    from symdelay.model.lags import occurrences

    out, domains = {}, {}
    for j, o in enumerate(occurrences(rate)):
        sym = sp.Symbol(f"past_{j}")
        out[o] = sym
        domains[sym] = "nonnegative" if o.args[0] in states else "real"
    return rate.xreplace(out), domains


class NoTable(SymdelayInputError, AttributeError):
    """A family's model object that has no transition table (a limit, a symbolic L)."""


class TableOnDemand(Model):
    """A family's model object (checked options, fast paths) whose transition table is
    built on first use: an attribute the instance lacks (``states``, ``factors``, ...) comes
    from ``_table()``, copied in once. ``_OWN``: the object's own attribute names (never
    looked up in the table); ``_no_table(name)``: why there is none, or None; ``options``:
    the checked options, which build the object again (:meth:`with_values`)."""

    _OWN: ClassVar[tuple] = ()

    def _table(self) -> Model:  # pragma: no cover - every subclass builds one
        raise NotImplementedError

    def _no_table(self, name: str) -> str | None:
        return None

    def with_values(self, **values) -> Model:
        """The same model with more options given numbers (the family's model object while
        only its own options are given; otherwise the transition table's)."""
        if set(values) <= set(self.options):
            return type(self)(**{**self.options, **values})
        return Model.with_values(self, **values)

    def __repr__(self) -> str:
        given = ", ".join(f"{k}={v}" for k, v in self.options.items() if v is not None)
        return f"{type(self).__name__}({given})"

    def __getattr__(self, name):
        # only attributes the instance lacks arrive here: the transition table's
        if name.startswith("__") or name in type(self)._OWN:
            raise AttributeError(name)
        why = self._no_table(name)
        if why is not None:
            raise NoTable(why)
        for k, v in self._table().__dict__.items():
            self.__dict__.setdefault(k, v)
        return object.__getattribute__(self, name)


def load_toml(path, **values) -> Model:
    """Read a model file (TOML: states, parameters, transitions, symmetry) into a
    :class:`Model`.

    The file is data: its formulas are parsed with the expression whitelist, never evaluated,
    each held to the parser's caps on length and nesting; decimals in it are the exact
    rationals they denote. See ``examples/models/`` and the tutorial "Your own model".

    Parameters
    ----------
    path : str or os.PathLike
        The file: a regular file of at most ``MAX_FILE_BYTES`` bytes of UTF-8 TOML.
    **values
        Numbers for parameters the file declares (``mu=1``, ``lam="0.5"``), made exact and
        checked against their domains; the others stay symbolic.

    Returns
    -------
    Model
        The model, checked at the door (rates ``>= 0``, the symmetry a symmetry of the table).
    """
    return Model.from_toml(path, **values)


def model_from_dict(data: dict, *, source: str = "model", values: dict | None = None) -> Model:
    """Build a :class:`Model` from a model file's parsed TOML tables (a dict)."""
    from symdelay.model.toml_loader import model_arguments

    return Model(**model_arguments(data, source=source, values=values))
