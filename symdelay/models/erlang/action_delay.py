"""The founding model as the derivation reads it: a view of its transition table.

:class:`ActionDelayModel` holds the founding model's parameters (numbers made exact, or
expressions in the canonical symbols; the delay as its mean ``D`` with ``gamma = L/D``, or as
the phase rate ``gamma``) and reads every concrete-L quantity off the founding model's
transition table (:func:`~symdelay.models.erlang.founding.symbolic_founding`: one table per
L with symbolic parameters, shared by every view), its values substituted: the fluid ODEs
(the table's drift), the symmetric equilibrium, the Jacobian and the sum and difference
Jacobians (the blocks of the table's declared swap symmetry). The exact nonlinear sum and
difference systems are derived from the drift
(:func:`~symdelay.models.delayed_routing.swap_mode`), and their Jacobians are checked equal
to the table's mode blocks. The symbol L has no table: its difference Jacobian is the
structured one of :mod:`.linearize`, checked against the table for concrete L.
:attr:`ActionDelayModel.model` is the founding model object itself (for the analyses).

>>> m = ActionDelayModel(L=1)
>>> m.equilibrium()[m.q[0]]
lam/mu
>>> m.difference_jacobian()
Matrix([
[       -mu,  gamma],
[-lam*theta, -gamma]])
>>> ActionDelayModel(L=2, mu=1, lam=1, theta=2, D=1).model
FoundingModel(L=2, mu=1, lam=1, theta=2, D=1)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache, cached_property

from symdelay.core.errors import SymdelayInputError, VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.params import as_L, as_parameter
from symdelay.core.result import Result

__all__ = ["ActionDelayModel", "ModeSystem", "routing_term"]


@dataclass(frozen=True)
class ModeSystem(Result):
    """A closed subsystem (sum or difference mode) of the fluid ODEs.

    ``state`` are the mode coordinates, ``rhs`` their time derivatives (exact, nonlinear
    where the model is), ``definition`` maps each coordinate to its expression in the
    original state, and ``checks`` records the identities SymPy verified on the way.
    """

    name: str
    state: tuple
    rhs: tuple
    definition: dict
    checks: dict
    equilibrium: dict

    def jacobian(self) -> sp.Matrix:
        """Jacobian of the mode's right-hand side at its equilibrium."""
        J = sp.Matrix(list(self.rhs)).jacobian(sp.Matrix(list(self.state)))
        return J.xreplace(self.equilibrium).applyfunc(sp.simplify)


class ActionDelayModel:
    """The founding model as the derivation reads it: two queues, logit routing on current
    queue lengths, Erlang(L, mean D) action delay.

    A view of the founding model's transition table: the fluid ODEs (:meth:`fluid_rhs`),
    the symmetric equilibrium, the Jacobian and the sum and difference systems are read off
    the table for a concrete L; for the symbol ``L`` only the structured difference Jacobian
    (:meth:`difference_jacobian`) and the characteristic equation are available.
    :attr:`model` is the founding model object itself, for the analyses.

    Parameters
    ----------
    L : int or Symbol
        The number of Erlang phases of the delay, an integer ``>= 1``, or the symbol ``L``
        (``symdelay.core.symbols.L``) for the general-L derivation.
    mu, lam, theta : number, str or sympy.Expr, optional
        The service rate and the arrival rate per queue (``> 0``), the routing sensitivity of
        the logit rule (real; ``theta > 0`` favours the shorter queue); numbers and their
        decimal text are made exact. Default: the symbols.
    D : number, str or sympy.Expr, optional
        The mean delay (``> 0``); the phase rate is then ``gamma = L/D``. Give ``D`` or
        ``gamma``, not both. Default: neither, the symbol ``gamma``.
    gamma : number, str or sympy.Expr, optional
        The phase rate of the delay (``> 0``) instead of its mean (``D = L/gamma``).
    """

    def __init__(self, L, mu=None, lam=None, theta=None, D=None, *, gamma=None):
        self.L = as_L(L)
        self.mu = as_parameter("mu", mu)
        self.lam = as_parameter("lam", lam)
        self.theta = as_parameter("theta", theta, positive=False)
        if D is not None and gamma is not None:
            raise SymdelayInputError("give the delay as D (mean) or gamma (phase rate), not both")
        L_exact = sp.Integer(self.L) if isinstance(self.L, int) else self.L
        self._delay_given = D is not None or gamma is not None
        if D is not None:
            self.D = as_parameter("D", D)
            self.gamma = L_exact / self.D
        else:
            self.gamma = as_parameter("gamma", gamma)
            self.D = L_exact / self.gamma

    # ------------------------------------------------------------------ the table
    @property
    def concrete(self) -> bool:
        """True when L is a number, so the state vector is explicit."""
        return isinstance(self.L, int)

    def _need_concrete(self, what: str):
        if not self.concrete:
            raise SymdelayInputError(
                f"{what} needs a concrete L: give L as an integer >= 1 "
                "(for symbolic L use difference_jacobian or the characteristic equation)"
            )

    @cached_property
    def model(self):
        """The founding model object with these options
        (:class:`~symdelay.models.erlang.founding.FoundingModel`), for the analyses."""
        from symdelay.core.symbols import SYMBOLS
        from symdelay.models.erlang.founding import FoundingModel

        given = {
            k: v
            for k, v in (("mu", self.mu), ("lam", self.lam), ("theta", self.theta))
            if v != SYMBOLS[k]
        }
        return FoundingModel(L=self.L, D=self.D if self._delay_given else None, **given)

    def _founding(self, L: int):
        from symdelay.models.erlang.founding import symbolic_founding

        return symbolic_founding(L)

    @cached_property
    def _table(self):
        """The founding model of this L with symbolic parameters (its transition table)."""
        self._need_concrete("the state vector")
        return self._founding(self.L)

    @cached_property
    def _values(self) -> dict:
        """``{symbol: value}`` of the parameters given (substituted into what is read)."""
        from symdelay.core.symbols import gamma, lam, mu, theta

        pairs = ((mu, self.mu), (lam, self.lam), (theta, self.theta), (gamma, self.gamma))
        return {s: v for s, v in pairs if v != s}

    def _at(self, expr):
        return expr.xreplace(self._values) if self._values else expr

    # ------------------------------------------------------------------ state
    @cached_property
    def _names(self) -> tuple:
        """The table's state symbols, named as the table names them (without building it)."""
        from symdelay.models.delayed_routing import _state_names

        q, z = _state_names(2, self.L if self.concrete else 1)
        return tuple(sp.Symbol(s) for s in (*q, *z[0], *z[1]))

    @property
    def q(self) -> tuple:
        """Scaled numbers in service ``(q1, q2)``."""
        return self._names[:2]

    @cached_property
    def z(self) -> tuple:
        """``z[i][l-1]``: scaled numbers routed to server i+1 and in delay phase l."""
        self._need_concrete("the state vector")
        return (self._names[2 : 2 + self.L], self._names[2 + self.L :])

    @property
    def state(self) -> tuple:
        """``(q1, q2, z1_1..z1_L, z2_1..z2_L)``: the 2(L+1) states of the table."""
        self._need_concrete("the state vector")
        return self._names

    @cached_property
    def latex_names(self) -> dict:
        """LaTeX for the state symbols (``z1_2`` prints as ``z_{1,2}``)."""
        if not self.concrete:
            return {self.q[0]: "q_{1}", self.q[1]: "q_{2}"}
        return dict(self._table.latex_names)

    # ------------------------------------------------------------ fluid model
    def routing_probabilities(self) -> tuple:
        """Multinomial-logit probabilities ``(p1, p2)`` of the current scaled queues: the
        table's routing rates over their sum (``2 lam``)."""
        from symdelay.models.delayed_routing import lag_limit

        routed = lag_limit(self._founding(self.L if self.concrete else 1)).routed
        total = sp.simplify(sp.Add(*routed))
        return tuple(self._at(p / total) for p in routed)

    def fluid_rhs(self) -> tuple:
        """Right-hand sides of the 2(L+1) fluid ODEs, in the order of :attr:`state`: the
        drift of the transition table."""
        self._need_concrete("the fluid ODEs")
        return tuple(self._at(f) for f in self._table.drift)

    def equilibrium(self) -> dict:
        """The symmetric equilibrium ``{state symbol: value}`` of the table: solved on the
        symmetric subspace (where the logit probabilities are 1/2 and the drift linear) by
        exact elimination, then substituted back into the full nonlinear drift."""
        self._need_concrete("the equilibrium")
        return {s: self._at(v) for s, v in self._table.equilibrium.point.items()}

    # ------------------------------------------------------------------ modes
    @cached_property
    def x(self) -> sp.Symbol:
        """Imbalance ``x = q1 - q2``."""
        return sp.Symbol("x")

    def logit_difference_identity(self) -> tuple:
        """``(p1 - p2, -tanh(theta x / 2))``: SymPy rewrites the logit difference with
        ``q1 = q2 + x`` as a ``tanh`` and checks it by rewriting back in exponentials."""
        from symdelay.models.delayed_routing import swap_mode

        p1, p2 = self.routing_probabilities()
        q1, q2 = self.q
        (tanh_form,) = swap_mode([(p1, p2)], [(q1, q2, self.x)], "difference")
        return p1 - p2, tanh_form

    def difference_system(self) -> ModeSystem:
        """The exact (nonlinear) difference dynamics in ``(x, w_1..w_L)``, derived from the
        table (see :meth:`_mode_system`)."""
        return self._mode_system("difference")

    def sum_system(self) -> ModeSystem:
        """The sum mode ``y = q1 + q2``, ``s_l = z1_l + z2_l``: linear and free of theta."""
        return self._mode_system("sum")

    def _mode_system(self, kind: str) -> ModeSystem:
        self._need_concrete(f"the {kind} system")
        table = self._table
        system = table.cached(f"{kind} system", lambda: _derive_mode_system(table, kind))
        if not self._values:
            return system
        return replace(
            system,
            rhs=tuple(self._at(e) for e in system.rhs),
            equilibrium={s: self._at(v) for s, v in system.equilibrium.items()},
        )

    # -------------------------------------------------------------- Jacobians
    def _block(self, kind: str) -> sp.Matrix:
        self._need_concrete(f"the {kind} Jacobian")
        block = next(m for m in self._table.modes if m.name == kind).jacobian
        return sp.Matrix(self._at(block))

    def jacobian(self) -> sp.Matrix:
        """Jacobian of the full 2(L+1) fluid system at the symmetric equilibrium."""
        self._need_concrete("the Jacobian")
        return sp.Matrix(self._at(self._table.jacobian))

    def difference_jacobian(self):
        """(L+1)x(L+1) Jacobian of the difference mode at 0 (rows x, w_1..w_L): the table's
        difference block; for symbolic L the structured ``FunctionMatrix``
        (:func:`~symdelay.models.erlang.linearize.structured_difference_jacobian`)."""
        if self.concrete:
            return self._block("difference")
        from symdelay.models.erlang.linearize import structured_difference_jacobian

        return structured_difference_jacobian(
            self.L, mu=self.mu, lam=self.lam, theta=self.theta, gamma=self.gamma
        )

    def sum_jacobian(self) -> sp.Matrix:
        """Jacobian of the sum mode (constant: the sum mode is linear): the table's block."""
        return self._block("sum")

    def parameters(self) -> dict:
        """The parameters by canonical name."""
        return {
            "L": self.L,
            "mu": self.mu,
            "lam": self.lam,
            "theta": self.theta,
            "D": self.D,
            "gamma": self.gamma,
        }

    def __repr__(self) -> str:
        return (
            f"ActionDelayModel(L={self.L}, mu={self.mu}, lam={self.lam}, "
            f"theta={self.theta}, D={self.D})"
        )


def _derive_mode_system(table, kind: str) -> ModeSystem:
    """The exact ``kind`` ("sum" or "difference") dynamics of the two-queue table: one
    coordinate per orbit of its swap symmetry (``x``/``y`` for the queues, ``w_l``/``s_l`` for
    delay phase l), the rows derived from its drift by
    :func:`~symdelay.models.delayed_routing.swap_mode` (closed: checked), and the Jacobian at
    the mode's equilibrium checked equal to the table's block of that mode."""
    from symdelay.core.symbols import theta
    from symdelay.model.records import _cycles
    from symdelay.models.delayed_routing import swap_mode

    states, F, eq = table.states, table.drift, table.equilibrium.point
    orbits = _cycles(table.permutation)
    if any(len(o) != 2 for o in orbits):
        raise VerificationError(f"{table.name}: the symmetry is not a swap of two servers")
    head, phase = ("x", "w") if kind == "difference" else ("y", "s")
    coords = (sp.Symbol(head), *sp.symbols(f"{phase}1:{len(orbits)}"))
    sign = -1 if kind == "difference" else 1
    pairs = [(states[a], states[b], c) for (a, b), c in zip(orbits, coords)]
    rhs = swap_mode([(F[a], F[b]) for a, b in orbits], pairs, kind)
    definition = {c: a + sign * b for a, b, c in pairs}
    point = {c: sp.simplify(eq[a] + sign * eq[b]) for a, b, c in pairs}
    checks = {"closed": True, "jacobian_is_mode_block": True}
    if kind == "difference":
        checks.update({"logit_identity": True, "n": len(coords)})
    else:
        checks["linear"] = all(sp.Poly(e, *coords).total_degree() <= 1 for e in rhs)
        checks["theta_free"] = not any(e.has(theta) for e in rhs)
        if not checks["theta_free"]:
            raise VerificationError(f"sum mode depends on theta: {rhs}")
    system = ModeSystem(kind, coords, rhs, definition, checks, point)
    block = next(m for m in table.modes if m.name == kind).jacobian
    if (system.jacobian() - block).applyfunc(sp.simplify) != sp.zeros(*block.shape):
        raise VerificationError(f"the {kind} system's Jacobian is not the table's {kind} block")
    return system


@cache
def routing_term() -> tuple:
    """``(row, col, x, g)``: where and how the routing enters the difference system.

    Read off the table's difference system at L = 1: ``g`` is the part of its rows that
    moves with theta (the row at theta = 0 subtracted), found in one row (``w_1``) and a
    function of one coordinate (``x``) alone, both checked. For every L the chain rows do
    not depend on theta: the structured Jacobian's one theta-entry is the routing gain
    ``g'(0)`` at ``(row, col) = (1, 0)`` (:mod:`.linearize`; the numeric field checks it).

    >>> routing_term()
    (1, 0, x, -2*lam*tanh(theta*x/2))
    """
    from symdelay.core.symbols import theta

    system = ActionDelayModel(1).difference_system()
    moved = [(k, e - e.xreplace({theta: 0})) for k, e in enumerate(system.rhs) if e.has(theta)]
    if len(moved) != 1:
        raise VerificationError(f"the routing enters {len(moved)} rows of {system.rhs}")
    row, g = moved[0]
    cols = [k for k, s in enumerate(system.state) if g.has(s)]
    if len(cols) != 1:
        raise VerificationError(f"the routing term {g} is not a function of one coordinate")
    return row, cols[0], system.state[cols[0]], g
