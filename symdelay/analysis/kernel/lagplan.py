"""How a generated kernel reads the lags of a table (see :mod:`symdelay.analysis.kernel`,
"Lags"): the distinct lagged expressions (*channels*, each with a history of the
piecewise-constant path), the look-backs (*pointers*: one per channel and constant
look-back, moving forward only), the *chains* of the exponential, Erlang and phase-type lags
(their phases fed by a channel), the lagged values the rates read (one symbol ``lv_m`` per
``delayed(E, k)``, a weighted sum of pointer readings) and the action-delayed transitions
(their constant delays), and the drift recursion of ``dot()`` read through a constant lag
(:func:`drift_recursion`: every lagged value then one component of it, term kind ``"d"``).
Everything the kernel's source depends on is symbolic (the parameter
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
    (its running integral ``int_0^(T - d) E``) at pointer ``pointer``, or ``"c"`` (the
    output of an Erlang chain fed by the channel: ``pointer`` is the chain's index)."""

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
        self.chains: list = []  # (channel, shape, mean): an exponential or Erlang lag
        self.symbols: list = []
        self.replace: dict = {}
        self.action_delay: dict = {}
        by_name = {sp.Symbol(k): lag for k, lag in lags.items()}
        #: the drift recursion of ``dot()`` read through a constant lag (None without):
        #: ``{"lag": name, "tau": look-back, "exprs": [E_m], "dots": [state indices]}``,
        #: every lagged value of the table one component ``V_m`` of it (term kind "d")
        self.dot = _dot_spec(self.states, transitions, by_name, actions, label, delayed, dot)
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
                if self.dot is not None:  # a component of the drift recursion
                    m = self.dot["exprs"].index(E)
                    terms = [Term(sp.Integer(1), "d", m)]
                else:
                    terms = self._terms(E, by_name[k], name)
                sym = sp.Symbol(f"lv_{len(self.symbols)}")
                self.symbols.append((sym, terms))
                self.replace[o] = sym
        self.action_law: dict = {}  # transition index -> Lag (distributed: a heap)
        for j, lagname in actions.items():
            lag = lags[lagname]
            if lag.kind == "constant":
                self.action_delay[j] = lag.args["value"]
            else:
                _check_sampled(lag, f"{label}: transition '{transitions[j][0]}'")
                self.action_law[j] = lag

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
        if lag.kind == "phase_type":
            if len(lag.args["alpha"]) > MAX_PHASES:
                raise SymdelayInputError(
                    f"{self.label}: the phase-type lag '{lag.name}' has more than {MAX_PHASES} "
                    "phases: the exact simulation reads up to that many; fluid answers for it"
                )
            key = (self._channel(E), lag, None)
            if key not in self.chains:
                self.chains.append(key)
            return [Term(sp.Integer(1), "c", self.chains.index(key))]
        shape = {"exponential": sp.Integer(1), "gamma": lag.args.get("shape")}.get(lag.kind)
        if shape is not None and not (shape.is_number and not shape.is_Integer):
            key = (self._channel(E), shape, lag.args["mean"])
            if key not in self.chains:
                self.chains.append(key)
            return [Term(sp.Integer(1), "c", self.chains.index(key))]
        raise SymdelayInputError(
            f"{self.label}: transition '{where}' reads information through the {lag.kind} lag "
            f"'{lag.name}': the exact simulation reads constant lags, uniform windows, "
            "exponential, Erlang and phase-type lags (their chain between events) and "
            "mixtures of them; fluid answers for this model"
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
        parts += [f"K:{c}:{'ph' if m is None else 'erlang'}" for c, _, m in self.chains]
        for sym, terms in self.symbols:
            parts.append(f"S:{sym}:" + ",".join(f"{t.kind}{t.pointer}" for t in terms))
        if self.dot is not None:
            parts.append(f"R:{len(self.dot['exprs'])}:{self.dot['dots']}")
        parts += [f"A:{j}" for j in sorted(self.action_delay)]
        parts += [f"H:{j}" for j in sorted(self.action_law)]  # a law's program: numbers
        return "|".join(parts)

    @property
    def actions(self) -> list:
        """The action-delayed transitions (table order): constant delays (a FIFO each) and
        distributed ones (one heap)."""
        return sorted(set(self.action_delay) | set(self.action_law))

    def numbers(self, values: dict) -> list:
        """The run-time numbers, in the order the kernel reads them (``lagc``): the look-back
        of every pointer, the weight of every term (symbol by symbol), the delay of every
        action transition (table order). Refuses a negative look-back or a weight that is
        not finite."""
        out = []

        def num(e, what):
            return _number(e, values, f"{self.label}: {what} is")

        for c, d in self.pointers:
            x = num(d, f"the look-back {d} of {self.channels[c]}")
            if x < 0:
                raise SymdelayInputError(f"{self.label}: the look-back {d} is {x} < 0")
            out.append(x)
        for _sym, terms in self.symbols:
            out += [num(t.weight, f"the weight {t.weight} of a lagged value") for t in terms]
        # per chain: its phases k, their rate k / mean, where its state starts (the states,
        # one after another: the time of its last update, then the k phases)
        state = 0
        blocks: list = []  # a phase-type chain's numbers, after the programs
        patch = []
        for c, shape, mean in self.chains:
            if mean is None:  # a phase-type lag (shape holds the Lag)
                block = phase_block(shape, values, self.label)
                n = int(block[0])
                patch.append((len(out) + 1, len(blocks)))
                out += [float(n), 0.0, float(state)]  # where its block starts: patched
                blocks += block
                state += n + 1
                continue
            k, m = num(shape, "an Erlang lag's shape"), num(mean, "an Erlang lag's mean")
            if not (k >= 1 and k == int(k) and k <= MAX_CHAIN):
                raise SymdelayInputError(
                    f"{self.label}: an Erlang information lag of {self.channels[c]} has shape "
                    f"{k}: the exact simulation reads whole shapes 1..{MAX_CHAIN} (its Poisson "
                    "weights in double precision); fluid answers for this model"
                )
            if not m > 0:
                raise SymdelayInputError(f"{self.label}: a lag's mean is {m}: it must be > 0")
            out += [k, k / m, float(state)]
            state += int(k) + 1
        # one number per action (table order): a constant delay, or where the program of a
        # distributed one starts (the programs follow): the kernel's source does not depend
        # on the laws' sizes
        programs: list = []
        start = len(out) + len(self.actions)
        for j in self.actions:
            if j in self.action_law:
                out.append(float(start + len(programs)))
                programs += program(self.action_law[j], values, self.label)
                continue
            x = num(self.action_delay[j], "an action delay")
            if not x > 0:
                raise SymdelayInputError(
                    f"{self.label}: the action delay {self.action_delay[j]} is {x}: it must be > 0"
                )
            out.append(x)
        if self.dot is not None:  # no chains nor actions then: the look-back is last
            x = num(self.dot["tau"], f"the lag '{self.dot['lag']}' dot() is read through")
            if not x > 0:
                raise SymdelayInputError(
                    f"{self.label}: the lag '{self.dot['lag']}' that dot() is read through is "
                    f"{x}: the drift recursion needs a lag > 0"
                )
            out.append(x)
        base = len(out) + len(programs)
        for at, rel in patch:
            out[at] = float(base + rel)
        return out + programs + blocks

    def back(self, values: dict) -> float:
        """The longest look-back (information) or constant action delay, at ``values`` (a
        distributed action delay keeps its entries in a heap: not a look-back)."""
        nums = self.numbers(values)
        P = len(self.pointers)
        start = P + sum(len(ts) for _, ts in self.symbols) + 3 * len(self.chains)
        delays = [nums[start + a] for a, j in enumerate(self.actions)
                  if j not in self.action_law]  # fmt: skip
        if self.dot is not None:
            delays.append(nums[start])
        return max(nums[:P] + delays, default=0.0)


# ---------------------------------------------------------------------------------------
# a distributed action delay drawn by a small program of numbers (the same draws in C and
# in the twin): [kind, ...] with kind 0 constant [v], 1 uniform [a, b - a], 2 exponential
# [mean], 3 Erlang [k, mean / k], 4 phase type [n, cumulative alpha (n), per phase: its
# rate, the cumulative probabilities of the next phase (n) and of the exit], 5 mixture
# [m, cumulative weights (m), each member's offset (m)] then the members' programs.
#: The most phases of an Erlang information lag read in closed form.
MAX_CHAIN = 500
#: The most phases of a phase-type information lag (uniformization, on the stack).
MAX_PHASES = 64


def phase_block(lag, values: dict, label: str) -> list:
    """The numbers a kernel reads a phase-type information lag ``(alpha, S)`` by: ``[n,
    lambda, P (n x n, row major), u (n), s0 (n), a0]`` with ``lambda = max(-S_ii)``, ``P = I +
    S / lambda`` (uniformization: ``exp(S h) = sum_m Pois(m; lambda h) P^m``, every term
    >= 0), ``u = alpha (-S)^-1`` (the chain's steady state per unit input), ``s0 = -S 1`` (the
    exit rates) and ``a0 = 1 - sum alpha`` (the mass at 0)."""
    import numpy as np

    def num(e):
        try:
            return float(sp.sympify(e).xreplace(values))
        except TypeError:
            raise SymdelayInputError(
                f"{label}: the phase-type lag '{lag.name}' has {e}, not a number"
            ) from None

    alpha = np.array([num(x) for x in lag.args["alpha"]])
    n = alpha.size
    S = np.array([[num(lag.args["S"][i, j]) for j in range(n)] for i in range(n)])
    lam = float(np.max(-np.diag(S)))
    P = np.eye(n) + S / lam
    if not (lam > 0 and np.all(np.isfinite(P)) and np.all(P >= -1e-15)):
        raise SymdelayInputError(
            f"{label}: the phase-type lag '{lag.name}' is not a sub-generator (S_ii < 0, S_ij >= 0)"
        )
    P = np.maximum(P, 0.0)
    u = np.linalg.solve(-S.T, alpha)
    s0 = -S @ np.ones(n)
    return [float(n), lam, *P.ravel().tolist(), *u.tolist(), *s0.tolist(), 1.0 - alpha.sum()]


def _check_sampled(lag, where: str) -> None:
    """Refuse a law the program cannot draw (a gamma of non-integer shape)."""
    if lag.kind == "mixture":
        for m in lag.args["lags"]:
            _check_sampled(m, where)
    elif lag.kind == "gamma" and lag.args["shape"].is_number and not lag.args["shape"].is_Integer:
        raise SymdelayInputError(
            f"{where}: the gamma action delay '{lag.name}' has the non-integer shape "
            f"{lag.args['shape']}: the exact simulation draws Erlang (integer-shape) gamma "
            "delays; fluid answers for it"
        )


def _number(e, values: dict, said: str) -> float:
    """``e`` at ``values`` as a finite float; else one line, ``said`` its start."""
    v = sp.sympify(e).xreplace(values)
    try:
        x = float(v)
    except TypeError:
        raise SymdelayInputError(f"{said} {v}, not a number: give every parameter") from None
    if not abs(x) < float("inf"):
        raise SymdelayInputError(f"{said} {x}, not finite")
    return x


def program(lag, values: dict, label: str) -> list:
    """The program of a law at ``values`` (floats)."""
    import itertools

    def num(e):
        return _number(e, values, f"{label}: the lag '{lag.name}' has")

    def bad(what):
        return SymdelayInputError(f"{label}: the action delay '{lag.name}': {what}")

    a = lag.args
    if lag.kind == "constant":
        v = num(a["value"])
        if v < 0:
            raise bad(f"its value is {v} < 0")
        return [0.0, v]
    if lag.kind == "uniform":
        lo, hi = num(a["low"]), num(a["high"])
        if not 0 <= lo < hi:
            raise bad(f"low {lo} and high {hi} must satisfy 0 <= low < high")
        return [1.0, lo, hi - lo]
    if lag.kind == "exponential":
        m = num(a["mean"])
        if not m > 0:
            raise bad(f"its mean is {m}: it must be > 0")
        return [2.0, m]
    if lag.kind == "gamma":
        k, m = num(a["shape"]), num(a["mean"])
        if not (k >= 1 and k == int(k) and k <= 10**6):
            raise bad(f"its shape {k} must be a whole number in 1..10^6 (Erlang)")
        if not m > 0:
            raise bad(f"its mean is {m}: it must be > 0")
        return [3.0, k, m / k]
    if lag.kind == "phase_type":
        alpha = [num(x) for x in a["alpha"]]
        n = len(alpha)
        S = [[num(a["S"][i, j]) for j in range(n)] for i in range(n)]
        out = [4.0, float(n), *itertools.accumulate(alpha)]
        for i in range(n):
            rate = -S[i][i]
            if not rate > 0:
                raise bad(f"S[{i}][{i}] = {S[i][i]}: every phase must be left at a rate > 0")
            moves = [S[i][j] / rate if j != i else 0.0 for j in range(n)]
            out += [rate, *itertools.accumulate(moves), 1.0]
        return out
    # a mixture
    members = [program(x, values, label) for x in a["lags"]]
    w = [num(x) for x in a["weights"]]
    m = len(members)
    out = [5.0, float(m), *itertools.accumulate(w)]
    pos = 2 + 2 * m
    for p in members:
        out.append(float(pos))
        pos += len(p)
    for p in members:
        out += p
    return out


# ---------------------------------------------------------------------------------------
# dot() read through a constant lag (the announcement): the drift recursion


def _dot_spec(states, transitions, by_name, actions, label, delayed, dot):
    """The drift recursion of a table whose rates read ``dot(x)`` inside ``delayed(E,
    tau)`` (``None`` when none does), or a one-line refusal of what it does not build."""
    occ: dict = {}  # occurrence -> the first transition reading it
    for name, rate in transitions:
        for o in sorted(rate.atoms(delayed), key=sp.default_sort_key):
            occ.setdefault(o, name)
    with_dot = [o for o in occ if o.args[0].has(dot)]
    if not with_dot:
        return None
    first = with_dot[0]
    lag = by_name[first.args[1]]
    if lag.kind == "mixture":
        raise SymdelayInputError(
            f"{label}: transition '{occ[first]}' reads dot() through the mixture '{lag.name}': "
            "the exact simulation reads dot() (the drift) through one constant lag, a "
            "recursion at t - tau, t - 2 tau, ...; through several look-backs it would branch "
            "(about b^(t/tau) drifts per draw); fluid answers for this model"
        )
    if lag.kind != "constant":
        raise SymdelayInputError(
            f"{label}: transition '{occ[first]}' reads dot() through the {lag.kind} lag "
            f"'{lag.name}': the exact simulation reads dot() (the drift) through one constant "
            "lag, a recursion at t - tau, t - 2 tau, ...; through a distributed lag it would "
            "need the drift at every past time (the fluid path, too, reads dot() only through "
            "constant lags and mixtures of them)"
        )
    tau = lag.args["value"]
    for o, name in occ.items():
        E, k = o.args
        other = by_name[k]
        if other.kind != "constant" or sp.expand(other.args["value"] - tau) != 0:
            raise SymdelayInputError(
                f"{label}: transition '{name}' reads the {other.kind} lag '{other.name}' beside "
                f"dot() through the constant lag '{lag.name}': the drift recursion would branch "
                "(each level reading both lags: about b^(t/tau) drifts per draw); the exact "
                "simulation reads dot() when every lagged value reads that one constant lag; "
                "fluid answers for this model"
            )
        if E.atoms(delayed):
            raise SymdelayInputError(
                f"{label}: transition '{name}' nests a lag inside a lag: not simulated; fluid "
                "answers for this model"
            )
        for d in E.atoms(dot):
            if len(d.args) != 1 or d.args[0] not in states:
                raise SymdelayInputError(
                    f"{label}: transition '{name}' reads {d}: dot() takes one state"
                )
    if actions:
        j = min(actions)
        raise SymdelayInputError(
            f"{label}: transition '{transitions[j][0]}' is action-delayed in a model that reads "
            "dot() through a lag: the drift recursion with scheduled jumps is not built yet; "
            "fluid answers for this model"
        )
    exprs: list = []
    for o in occ:
        if o.args[0] not in exprs:
            exprs.append(o.args[0])
    dots = sorted({states.index(d.args[0]) for E in exprs for d in E.atoms(dot)})
    return {"lag": lag.name, "tau": tau, "exprs": exprs, "dots": dots}


def drift_recursion(plan, states, jumps, rates, repl: dict, sv, V, hs, hd) -> tuple:
    """The step of the drift recursion and its start (SymPy), for a table whose rates read
    ``dot()`` through the constant lag ``tau`` (``plan.dot``).

    In the stochastic system ``dot(x)`` at time ``s`` is the drift of ``x`` there: ``f_x(s)
    = sum_nu nu_x beta_nu(X(s) / eta, V(s))``, every rate with the lagged values ``V(s)`` it
    reads at ``s`` (the scaling of the fluid path). Every lagged value reads ``tau``, so
    ``V_m(s) = E_m(X(s - tau) / eta, f(s - tau))``, which reads ``V(s - tau)``: the step
    ``G_m(states, V)`` maps the values at ``s - tau`` to those at ``s``. Before 0 the
    history gives the states and their derivative (``hd``): the start ``B_m(hs, hd)``.

    ``rates``: the rates with the lagged values as ``plan.symbols`` (``repl`` maps states and
    parameters to the kernel's symbols ``sv`` and ``p_k``); ``V``, ``hs``, ``hd``: the
    symbols of the components, of the scaled states and of their derivatives. Returns ``(G,
    B)``: lists over the components (``G`` in ``sv``, ``p_k`` and ``V``; ``B`` in ``hs``,
    ``hd`` and ``p_k``)."""
    from symdelay.model.lags import delayed_function

    _, dot = delayed_function()
    comp = {sym: V[terms[0].pointer] for sym, terms in plan.symbols}
    n = len(states)
    drift = [sp.Integer(0)] * n
    for nu, r in zip(jumps, rates):
        for i in range(n):
            if nu[i]:
                drift[i] += int(nu[i]) * r.xreplace(comp)
    G, B = [], []
    for E in plan.dot["exprs"]:
        dots = {dot(states[i]): drift[i] for i in range(n)}
        G.append(E.xreplace(dots).xreplace(repl).xreplace(comp))
        start = {dot(states[i]): hd[i] for i in range(n)}
        B.append(E.xreplace(start).xreplace(repl).xreplace(dict(zip(sv, hs))))
    return G, B
