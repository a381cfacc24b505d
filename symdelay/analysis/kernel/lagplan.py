"""How a generated kernel reads the lags of a table (see :mod:`symdelay.analysis.kernel`,
"Lags"): the distinct lagged expressions (*channels*, each with a history of the
piecewise-constant path), the look-backs (*pointers*: one per channel and constant
look-back, moving forward only), the lagged values the rates read (one symbol ``lv_m`` per
``delayed(E, k)``, a weighted sum of pointer readings) and the action-delayed transitions
(their constant delays). Everything the kernel's source depends on is symbolic (the parameter
*names*); the numbers (look-backs, weights, delays) are run-time values (:meth:`LagPlan.numbers`),
so one compiled kernel serves every parameter value, as for the tables without lags.

What cannot be simulated exactly here is refused in one line (:class:`LagPlan`)."""

from __future__ import annotations

from typing import NamedTuple

from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp

__all__: list = []


class Term(NamedTuple):
    """``weight * reading``: ``kind`` ``"v"`` (the channel's value at ``T - d``) or ``"i"``
    (its running integral ``int_0^(T - d) E``) at pointer ``pointer``."""

    weight: object  # SymPy expression in the parameters
    kind: str
    pointer: int


class LagPlan:
    """The lags of a table as a kernel reads them.

    ``states``: the state symbols; ``transitions``: ``(name, rate)`` pairs (rates with
    ``delayed(E, NAME)``); ``lags``: ``{name: Lag}`` (symbolic); ``actions``: ``{transition
    index: lag name}`` for the action-delayed transitions; ``label``: the model's name (for the
    messages). Attributes: ``channels`` (the expressions ``E``), ``pointers`` (``(channel,
    look-back expression)``), ``symbols`` (``(Symbol, [Term])``), ``replace`` (occurrence ->
    symbol), ``action_delay`` (``{transition index: delay expression}``).
    """

    def __init__(self, states, transitions, lags, actions, label: str) -> None:
        from symdelay.model.lags import delayed_function

        delayed, dot = delayed_function()
        self.states = tuple(states)
        self.label = label
        self.channels: list = []
        self.pointers: list = []
        self.symbols: list = []
        self.replace: dict = {}
        self.action_delay: dict = {}
        by_name = {sp.Symbol(k): lag for k, lag in lags.items()}
        for j, (name, rate) in enumerate(transitions):
            occ = sorted(rate.atoms(delayed), key=sp.default_sort_key)
            if occ and j in actions:
                raise SymdelayInputError(
                    f"{label}: transition '{name}' is action-delayed and its rate reads a "
                    "lagged value: the exact simulation of that combination is not built yet "
                    "(fluid answers for it)"
                )
            for o in occ:
                if o in self.replace:
                    continue
                E, k = o.args
                if E.has(dot):
                    raise SymdelayInputError(
                        f"{label}: transition '{name}' reads dot() through a lag (a neutral "
                        "model): a jump path's derivative is a sum of jumps, and the drift as "
                        "its velocity would need the whole past; fluid answers for this model"
                    )
                terms = self._terms(E, by_name[k], name)
                sym = sp.Symbol(f"lv_{len(self.symbols)}")
                self.symbols.append((sym, terms))
                self.replace[o] = sym
        for j, lagname in actions.items():
            lag = lags[lagname]
            if lag.kind != "constant":
                raise SymdelayInputError(
                    f"{label}: transition '{transitions[j][0]}' has a {lag.kind} action delay "
                    f"'{lagname}': the exact simulation is built for constant action delays "
                    "(a FIFO of scheduled entries); fluid answers for this model"
                )
            self.action_delay[j] = lag.args["value"]

    def _channel(self, E) -> int:
        if E not in self.channels:
            self.channels.append(E)
        return self.channels.index(E)

    def _pointer(self, c: int, d) -> int:
        key = (c, sp.sympify(d))
        if key not in self.pointers:
            self.pointers.append(key)
        return self.pointers.index(key)

    def _terms(self, E, lag, where: str) -> list:
        """The readings of ``delayed(E, lag)`` as weighted terms."""
        if lag.kind == "constant":
            return [Term(sp.Integer(1), "v", self._pointer(self._channel(E), lag.args["value"]))]
        if lag.kind == "uniform":
            a, b = lag.args["low"], lag.args["high"]
            c = self._channel(E)
            w = 1 / (b - a)
            return [Term(w, "i", self._pointer(c, a)), Term(-w, "i", self._pointer(c, b))]
        if lag.kind == "mixture":
            out = []
            for w, m in zip(lag.args["weights"], lag.args["lags"]):
                out += [Term(w * t.weight, t.kind, t.pointer) for t in self._terms(E, m, where)]
            return out
        raise SymdelayInputError(
            f"{self.label}: transition '{where}' reads information through the {lag.kind} lag "
            f"'{lag.name}': the exact simulation reads constant lags, uniform windows and "
            "mixtures of them (a chain's closed form between events is not built yet); fluid "
            "answers for this model"
        )

    # ------------------------------------------------------------ what the kernel needs
    @property
    def information(self) -> bool:
        """Whether a rate reads a lagged value."""
        return bool(self.symbols)

    def structure(self) -> str:
        """A text of everything the generated source depends on (no numbers): part of the
        generation cache's key."""
        from symdelay.analysis.kernel.table import _canonical_text

        memo: dict = {}
        parts = [f"C:{_canonical_text(E, memo)}" for E in self.channels]
        parts += [f"P:{c}:{_canonical_text(d, memo)}" for c, d in self.pointers]
        for sym, terms in self.symbols:
            parts.append(f"S:{sym}:" + ",".join(f"{t.kind}{t.pointer}" for t in terms))
        parts += [f"A:{j}" for j in sorted(self.action_delay)]
        return "|".join(parts)

    def numbers(self, values: dict) -> list:
        """The run-time numbers, in the order the kernel reads them (``lagc``): the look-back
        of every pointer, the weight of every term (symbol by symbol), the delay of every
        action transition (table order). Refuses a negative look-back or a weight that is
        not finite."""
        out = []

        def num(e, what):
            v = sp.sympify(e).xreplace(values)
            try:
                x = float(v)
            except TypeError:
                raise SymdelayInputError(
                    f"{self.label}: {what} is {v}, not a number: give every parameter"
                ) from None
            if not abs(x) < float("inf"):
                raise SymdelayInputError(f"{self.label}: {what} is {x}, not finite")
            return x

        for c, d in self.pointers:
            x = num(d, f"the look-back {d} of {self.channels[c]}")
            if x < 0:
                raise SymdelayInputError(f"{self.label}: the look-back {d} is {x} < 0")
            out.append(x)
        for _sym, terms in self.symbols:
            out += [num(t.weight, f"the weight {t.weight} of a lagged value") for t in terms]
        for j in sorted(self.action_delay):
            x = num(self.action_delay[j], "an action delay")
            if not x > 0:
                raise SymdelayInputError(
                    f"{self.label}: the action delay {self.action_delay[j]} is {x}: it must be > 0"
                )
            out.append(x)
        return out

    def back(self, values: dict) -> float:
        """The longest look-back (information) or action delay, at ``values``."""
        nums = self.numbers(values)
        P = len(self.pointers)
        return max(nums[:P] + nums[len(nums) - len(self.action_delay) :], default=0.0)
