"""The founding model: two infinite-server queues, logit routing, Erlang action delay.

Parameters may be numbers (made exact) or expressions in the canonical symbols. Give the
delay as its mean ``D`` (then ``gamma = L/D``) or leave it out (then ``gamma`` is the symbol
``gamma`` and ``D = L/gamma``).

>>> m = ActionDelayModel(L=1)
>>> m.equilibrium()[m.q[0]]
lam/mu
>>> m.difference_jacobian()
Matrix([
[       -mu,  gamma],
[-lam*theta, -gamma]])
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from symdelay.core.errors import SymdelayInputError, VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.params import as_L, as_parameter
from symdelay.core.result import Result

__all__ = ["ActionDelayModel", "ModeSystem"]


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
        from symdelay.models.erlang.linearize import jacobian_at

        return jacobian_at(self.rhs, self.state, self.equilibrium)


class ActionDelayModel:
    """Two queues, logit routing on current queue lengths, Erlang(L, mean D) action delay.

    ``L`` is an integer >= 1 or the symbol ``L`` (then only the structured difference
    Jacobian and the characteristic equation are available: explicit state vectors need
    a concrete L).
    """

    def __init__(self, L, mu=None, lam=None, theta=None, D=None, *, gamma=None):
        self.L = as_L(L)
        self.mu = as_parameter("mu", mu)
        self.lam = as_parameter("lam", lam)
        self.theta = as_parameter("theta", theta, positive=False)
        if D is not None and gamma is not None:
            raise SymdelayInputError("give the delay as D (mean) or gamma (phase rate), not both")
        if D is not None:
            self.D = as_parameter("D", D)
            self.gamma = sp.Integer(self.L) / self.D if isinstance(self.L, int) else self.L / self.D
        else:
            self.gamma = as_parameter("gamma", gamma)
            self.D = self.L / self.gamma

    # ------------------------------------------------------------------ state
    @property
    def concrete(self) -> bool:
        """True when L is a number, so the state vector is explicit."""
        return isinstance(self.L, int)

    def _need_concrete(self, what: str):
        if not self.concrete:
            raise SymdelayInputError(
                f"{what} needs a concrete L: give L as an integer >= 1 "
                "(for symbolic L use structured_difference_jacobian or the characteristic equation)"
            )

    @cached_property
    def q(self) -> tuple:
        """Scaled numbers in service ``(q1, q2)``."""
        return sp.symbols("q1 q2")

    @cached_property
    def z(self) -> tuple:
        """``z[i][l-1]``: scaled numbers routed to server i+1 and in delay phase l."""
        self._need_concrete("the state vector")
        return tuple(sp.symbols(f"z{i}_1:{self.L + 1}") for i in (1, 2))

    @property
    def state(self) -> tuple:
        """``(q1, q2, z1_1..z1_L, z2_1..z2_L)``: 2(L+1) coordinates."""
        return (*self.q, *self.z[0], *self.z[1])

    @cached_property
    def latex_names(self) -> dict:
        """LaTeX for the state symbols (``z1_2`` prints as ``z_{1,2}``)."""
        names = {self.q[0]: "q_{1}", self.q[1]: "q_{2}"}
        if self.concrete:
            for i in (0, 1):
                for ell, s in enumerate(self.z[i], start=1):
                    names[s] = f"z_{{{i + 1},{ell}}}"
        return names

    # ------------------------------------------------------------ fluid model
    def routing_probabilities(self) -> tuple:
        """Multinomial-logit probabilities ``(p1, p2)`` of the current scaled queues."""
        q1, q2 = self.q
        e1, e2 = sp.exp(-self.theta * q1), sp.exp(-self.theta * q2)
        return (e1 / (e1 + e2), e2 / (e1 + e2))

    def fluid_rhs(self) -> tuple:
        """Right-hand sides of the 2(L+1) fluid ODEs, in the order of :attr:`state`."""
        self._need_concrete("the fluid ODEs")
        g, m = self.gamma, self.mu
        p = self.routing_probabilities()
        dq = [g * self.z[i][-1] - m * self.q[i] for i in (0, 1)]
        dz = []
        for i in (0, 1):
            zi = self.z[i]
            dz.append(
                [2 * self.lam * p[i] - g * zi[0]]
                + [g * (zi[ell - 1] - zi[ell]) for ell in range(1, self.L)]
            )
        return (*dq, *dz[0], *dz[1])

    def fluid_equations(self) -> list:
        """The fluid ODEs as ``Eq(Derivative(s(t), t), rhs)`` (for display)."""
        t = sp.Symbol("t")
        return [
            sp.Eq(sp.Derivative(sp.Function(s.name)(t), t), f)
            for s, f in zip(self.state, self.fluid_rhs())
        ]

    def equilibrium(self) -> dict:
        """The symmetric equilibrium ``{state symbol: value}``, solved by SymPy.

        Symmetry makes the logit probabilities 1/2; see the private solver.
        """
        return dict(self._equilibrium)

    @cached_property
    def _equilibrium(self) -> dict:
        """Solve for the symmetric equilibrium (not typed in).

        Symmetry (q1 = q2, z1_l = z2_l) makes the logit probabilities 1/2 and the
        system linear; SymPy solves it and the solution is then substituted back into the
        full nonlinear right-hand side, which must vanish.
        """
        self._need_concrete("the equilibrium")
        sym = {self.q[1]: self.q[0], **dict(zip(self.z[1], self.z[0]))}
        unknowns = (self.q[0], *self.z[0])
        reduced = [sp.simplify(f.subs(sym)) for f in self.fluid_rhs()]
        sols = sp.solve(reduced, unknowns, dict=True)
        if len(sols) != 1:
            raise VerificationError(f"expected one symmetric equilibrium, got {sols}")
        point = {s: sols[0][s] for s in unknowns}
        point.update({s2: point[s1] for s2, s1 in sym.items()})
        residual = [sp.simplify(f.subs(point)) for f in self.fluid_rhs()]
        if any(res != 0 for res in residual):
            raise VerificationError(f"equilibrium check failed: {residual}")
        return {s: point[s] for s in self.state}

    # ------------------------------------------------------------------ modes
    @cached_property
    def x(self) -> sp.Symbol:
        """Imbalance ``x = q1 - q2``."""
        return sp.Symbol("x")

    @cached_property
    def w(self) -> tuple:
        """``w_l = z1_l - z2_l``."""
        self._need_concrete("the mode coordinates")
        return sp.symbols(f"w1:{self.L + 1}")

    def logit_difference_identity(self) -> tuple:
        """``(p1 - p2, -tanh(theta x / 2))`` and SymPy's proof they are equal."""
        p1, p2 = self.routing_probabilities()
        q1, q2 = self.q
        lhs = p1 - p2
        rhs = -sp.tanh(self.theta * self.x / 2)
        if sp.simplify((lhs - rhs.subs(self.x, q1 - q2)).rewrite(sp.exp)) != 0:
            raise VerificationError("p1 - p2 = -tanh(theta x/2) failed")
        return lhs, rhs

    def difference_system(self) -> ModeSystem:
        """The exact (nonlinear) difference dynamics; see :meth:`_difference_system`."""
        return self._difference_system

    @cached_property
    def _difference_system(self) -> ModeSystem:
        """Derive the exact difference dynamics in ``(x, w_1..w_L)``.

        Derived by substituting ``q1 = q2 + x``, ``z1_l = z2_l + w_l`` into
        ``d(q1 - q2)/dt`` etc.; SymPy checks that the result no longer depends on
        ``q2, z2_l`` (the difference mode is closed) and equals the tanh form.
        """
        self._need_concrete("the difference system")
        f = self.fluid_rhs()
        n = self.L + 1
        shift = {self.q[0]: self.q[1] + self.x}
        shift.update({a: b + wl for a, b, wl in zip(self.z[0], self.z[1], self.w)})
        diffs = [f[0] - f[1]] + [f[2 + ell] - f[2 + self.L + ell] for ell in range(self.L)]
        diffs = [d.subs(shift) for d in diffs]
        _, tanh_form = self.logit_difference_identity()
        g = self.gamma
        expected = [g * self.w[-1] - self.mu * self.x]
        expected.append(2 * self.lam * tanh_form - g * self.w[0])
        expected += [g * (self.w[ell - 1] - self.w[ell]) for ell in range(1, self.L)]
        others = {self.q[1], *self.z[1]}
        for d, e in zip(diffs, expected):
            if sp.simplify((d - e).rewrite(sp.exp)) != 0:
                raise VerificationError(f"difference system check failed: {d} != {e}")
        closed = all(not (e.free_symbols & others) for e in expected)
        if not closed:
            raise VerificationError("difference system is not closed")
        definition = {self.x: self.q[0] - self.q[1]}
        definition.update({wl: a - b for wl, a, b in zip(self.w, self.z[0], self.z[1])})
        return ModeSystem(
            name="difference",
            state=(self.x, *self.w),
            rhs=tuple(expected),
            definition=definition,
            checks={"logit_identity": True, "closed": True, "n": n},
            equilibrium={s: 0 for s in (self.x, *self.w)},
        )

    def sum_system(self) -> ModeSystem:
        """The sum mode ``y = q1 + q2``, ``s_l = z1_l + z2_l``: linear and free of theta."""
        self._need_concrete("the sum system")
        f = self.fluid_rhs()
        y, s = sp.Symbol("y"), sp.symbols(f"s1:{self.L + 1}")
        sums = [f[0] + f[1]] + [f[2 + ell] + f[2 + self.L + ell] for ell in range(self.L)]
        shift = {self.q[0]: y - self.q[1]}
        shift.update({a: sl - b for a, b, sl in zip(self.z[0], self.z[1], s)})
        rhs = tuple(sp.simplify(sp.expand(d.subs(shift))) for d in sums)
        others = {self.q[1], *self.z[1]}
        if any(e.free_symbols & others for e in rhs):
            raise VerificationError(f"sum mode is not closed: {rhs}")
        if any(e.has(self.theta) for e in rhs if not self.theta.is_number):
            raise VerificationError(f"sum mode depends on theta: {rhs}")
        eq = self.equilibrium()
        return ModeSystem(
            name="sum",
            state=(y, *s),
            rhs=rhs,
            definition={
                y: self.q[0] + self.q[1],
                **{sl: a + b for sl, a, b in zip(s, self.z[0], self.z[1])},
            },
            checks={
                "linear": all(sp.Poly(e, y, *s).total_degree() <= 1 for e in rhs),
                "theta_free": True,
            },
            equilibrium={y: 2 * eq[self.q[0]], **{sl: 2 * eq[z] for sl, z in zip(s, self.z[0])}},
        )

    # -------------------------------------------------------------- Jacobians
    def jacobian(self) -> sp.Matrix:
        """Jacobian of the full 2(L+1) fluid system at the symmetric equilibrium."""
        from symdelay.models.erlang.linearize import jacobian_at

        return jacobian_at(self.fluid_rhs(), self.state, self.equilibrium())

    def difference_jacobian(self):
        """(L+1)x(L+1) Jacobian of the difference mode at 0 (rows x, w_1..w_L).

        For symbolic L this is the structured :func:`~symdelay.models.erlang.linearize.structured_difference_jacobian`.
        """
        if not self.concrete:
            return self.structured_difference_jacobian()
        return self.difference_system().jacobian()

    def structured_difference_jacobian(self):
        """The bidiagonal-plus-corner pattern as a SymPy ``FunctionMatrix`` (any L)."""
        from symdelay.models.erlang.linearize import structured_difference_jacobian

        return structured_difference_jacobian(
            self.L, mu=self.mu, lam=self.lam, theta=self.theta, gamma=self.gamma
        )

    def sum_jacobian(self) -> sp.Matrix:
        """Jacobian of the sum mode (constant: the sum mode is linear)."""
        return self.sum_system().jacobian()

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
