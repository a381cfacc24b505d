"""The SQ(d) mean field with phase-type service, derived from the transition table.

State ``x_{k,j}``: the fraction of servers holding k jobs whose job in service is in phase
j (k = 1..K, j = 1..m; queues longer than K are cut: an arrival that would make K + 1 jobs
is lost). With ``s_k = sum_{n >= k} sum_j x_{n,j}`` (``s_0 = 1``) and
``P_d(x, y) = (x^d - y^d)/(x - y) = sum_i x^i y^(d-1-i)``, the N-server jumps are

==========================================  ===============================================
arrival to an empty queue, starts phase j   ``lam alpha_j (1 - s_1^d)``
arrival to a queue of length k, phase j     ``lam x_{k,j} P_d(s_k, s_{k+1})`` (k < K)
phase i -> j at level k                     ``S_ij x_{k,i}``
completion in phase i at level k            ``e_i x_{k,i}``, next job starts in j w.p. alpha_j
==========================================  ===============================================

(an arrival joins a queue of length k with probability ``s_k^d - s_{k+1}^d`` — all d
samples at >= k, not all at >= k+1 — and that queue is uniform among the length-k queues,
hence in phase j with probability ``x_{k,j}/(s_k - s_{k+1})``; the quotient is ``P_d``).
Everything below is derived from this table by :class:`~symdelay.model.Model`.

>>> from symdelay.models.sqd.service import exponential
>>> m = sqd_model(exponential(), d=2, K=2)
>>> m.drift[1]
lam*x_1**2 + 2*lam*x_1*x_2 - x_2
>>> exponential_reduction(2, 4).result
True
"""

from __future__ import annotations

from functools import cache
from typing import ClassVar

from symdelay.core.derivation import Derivation, require_equal, require_zero
from symdelay.core.errors import SymdelayInputError
from symdelay.core.latex import Equation
from symdelay.core.lazy import sympy as sp
from symdelay.core.symbols import lam
from symdelay.model import Model
from symdelay.models.phase_type import PhaseType
from symdelay.models.sqd.closed_form import as_d, d_sym, exponential_fixed_point, k_sym

__all__ = [
    "P_d",
    "as_d",
    "sqd_model",
    "SQDModel",
    "state_name",
    "exponential_reduction",
    "exponential_fixed_point",
    "tail_symbols",
]


def P_d(x, y, d):
    """``(x^d - y^d)/(x - y)``: a polynomial for integer d, the quotient for symbolic d."""
    if isinstance(d, (int, sp.Integer)):
        return sp.Add(*[x**i * y ** (int(d) - 1 - i) for i in range(int(d))])
    return (x**d - y**d) / (x - y)


def state_name(k: int, j: int, m: int) -> str:
    """``x_k`` (one phase) or ``x_k_j``."""
    return f"x_{k}" if m == 1 else f"x_{k}_{j}"


def tail_symbols(K: int) -> list:
    """``[s_1, ..., s_K]``."""
    return [sp.Symbol(f"s_{k}") for k in range(1, K + 1)]


class SQDModel(Model):
    """The truncated SQ(d) model; its equilibrium is the Newton fixed point of
    :mod:`symdelay.models.sqd.fixed_point` (SymPy's polynomial solve is not attempted)."""

    service: PhaseType
    d: int
    K: int

    #: the family's own fluid integrator and simulator, behind the entries
    SPECIALISATIONS: ClassVar[dict] = {
        "fluid": "symdelay.models.sqd.fluid:specialised_fluid",
        "simulate": "symdelay.models.sqd.simulate:specialised_simulate",
    }

    def default_start(self) -> list:
        """The empty system (every server idle): SQ(d)'s conventional start."""
        return [0.0] * len(self.states)

    def record_options(self) -> dict:
        """What a record names besides the parameter values: ``d``, ``K`` and the service."""
        return {"d": self.d, "K": self.K, "service": self.service.kind}

    def _check_rates_nonnegative(self) -> None:
        """Rates checked on the state space of this model: the simplex ``sum x <= 1``.

        (The generic check decides on the whole orthant, where ``1 - s_1^d`` is negative.) At
        24 random points of the simplex each rate must be >= 0, exactly.
        """
        import random

        rng = random.Random(20261130)
        n = len(self.states)
        for _ in range(24):
            cuts = sorted(sp.Rational(rng.randint(0, 10**6), 10**6) for _ in range(n))
            pts = [cuts[0]] + [cuts[i] - cuts[i - 1] for i in range(1, n)]
            at = dict(zip(self.states, pts))
            for p in self.parameters:
                if p not in self.values:
                    at[p] = sp.Rational(rng.randint(1, 999), 1000)
            for t in self.transitions:
                v = t.rate.xreplace(self.values).xreplace(at)
                if v.is_number and v.is_negative:
                    raise SymdelayInputError(
                        f"{self.source}: transition '{t.name}': rate {t.rate} is negative on the "
                        "simplex: check the service (alpha, S)"
                    )

    @property
    def equilibrium(self):  # type: ignore[override]
        cached = self.__dict__.get("_sqd_equilibrium")
        if cached is None:
            from symdelay.model.core import Equilibrium
            from symdelay.models.sqd.fixed_point import truncated_fixed_point

            if self.free_parameters:
                raise SymdelayInputError("give lam a value: the SQ(d) fixed point is numeric")
            fp = truncated_fixed_point(self.service, self.d, self.values[lam], self.K, dps=30)
            point = {
                sp.Symbol(state_name(k + 1, j + 1, self.service.phases)): sp.Float(
                    str(fp.x[k][j]), 30
                )
                for k in range(self.K)
                for j in range(self.service.phases)
            }
            point = {s: point[sp.Symbol(s.name)] for s in self.states}
            cached = Equilibrium(point, False, fp.residual, "Newton (symdelay.models.sqd)")
            self.__dict__["_sqd_equilibrium"] = cached
        return cached

    @property
    def jacobian(self):  # type: ignore[override]
        """The Jacobian at the fixed point from the family's block-tridiagonal one in the
        tail variables ``u = A x`` (``u_{k,j} = sum_{n >= k} x_{n,j}``), carried to the
        states by ``A^-1 J_u A`` (Floats at the equilibrium's working precision): no SymPy
        derivative of the ``(K m)^2`` entries (13 s at K = 30)."""
        cached = self.__dict__.get("_sqd_jacobian")
        if cached is None:
            cached = self.__dict__["_sqd_jacobian"] = _tail_jacobian(self)
        return cached


def _tail_jacobian(model) -> sp.ImmutableMatrix:
    """:attr:`SQDModel.jacobian`."""
    from types import SimpleNamespace

    import mpmath

    from symdelay.core.precision import workdps
    from symdelay.model.equilibrium import EQUILIBRIUM_DPS
    from symdelay.models.sqd.fixed_point import jacobian_matrix

    m, K = model.service.phases, model.K
    point = model.equilibrium.point
    lam = model.values[sp.Symbol("lam")]
    at = SimpleNamespace(service=model.service, d=model.d, lam=lam, truncation=K)
    with workdps(EQUILIBRIUM_DPS):
        x = [[mpmath.mpf(point[sp.Symbol(state_name(k, j, m))]) for j in range(1, m + 1)]
             for k in range(1, K + 1)]  # fmt: skip
        u = [[mpmath.fsum(x[n][j] for n in range(k, K)) for j in range(m)] for k in range(K)]
        Ju = jacobian_matrix(at, EQUILIBRIUM_DPS, u=u).tolist()
        n = K * m
        # J_u A: column block c is the sum of the column blocks 0..c of J_u (A x: cumulative)
        for row in Ju:
            for c in range(m, n):
                row[c] += row[c - m]
        # A^-1 (J_u A): row block k minus row block k + 1
        Jx = [[Ju[r][c] - (Ju[r + m][c] if r + m < n else 0) for c in range(n)] for r in range(n)]
        return sp.ImmutableMatrix(n, n, [sp.Float(v, EQUILIBRIUM_DPS) for row in Jx for v in row])


def sqd_model(service: PhaseType, d=2, K=6, lam_value=None) -> SQDModel:
    """The truncated SQ(d) model as a transition table (``lam`` symbolic unless given)."""
    d = as_d(d)
    K = int(K)
    if K < 1:
        raise SymdelayInputError(f"the truncation level K must be >= 1, got {K}")
    m = service.phases
    names = [[state_name(k, j, m) for j in range(1, m + 1)] for k in range(1, K + 1)]
    x = [[sp.Symbol(n) for n in row] for row in names]
    s = (
        [sp.Integer(1)]
        + [sp.Add(*[x[n][j] for n in range(k - 1, K) for j in range(m)]) for k in range(1, K + 1)]
        + [sp.Integer(0)]
    )
    a, S, e = service.alpha, service.S, service.exit_rates
    T = []
    for j in range(m):
        if a[j] != 0:
            T.append((f"arrive 0->1 ({j + 1})", {names[0][j]: 1}, lam * a[j] * (1 - s[1] ** d)))
    for k in range(1, K):
        for j in range(m):
            T.append(
                (
                    f"arrive {k}->{k + 1} ({j + 1})",
                    {names[k - 1][j]: -1, names[k][j]: 1},
                    lam * x[k - 1][j] * P_d(s[k], s[k + 1], d),
                )
            )
    for k in range(1, K + 1):
        for i in range(m):
            for j in range(m):
                if i != j and S[i, j] != 0:
                    T.append(
                        (
                            f"phase {i + 1}->{j + 1} at {k}",
                            {names[k - 1][i]: -1, names[k - 1][j]: 1},
                            S[i, j] * x[k - 1][i],
                        )
                    )
            if e[i] == 0:
                continue
            if k == 1:
                T.append((f"complete at 1 ({i + 1})", {names[0][i]: -1}, e[i] * x[0][i]))
                continue
            for j in range(m):
                if a[j] == 0:
                    continue
                change = {names[k - 1][i]: -1}
                change[names[k - 2][j]] = change.get(names[k - 2][j], 0) + 1
                T.append((f"complete at {k} ({i + 1}->{j + 1})", change, e[i] * a[j] * x[k - 1][i]))
    params = {"lam": "positive"}
    params.update({str(p): dom for p, dom in service.parameters.items()})
    model = SQDModel(
        f"SQ({d}), {service.kind} service, truncated at K = {K}",
        [n for row in names for n in row],
        params,
        T,
        values=None if lam_value is None else {"lam": lam_value},
        description="supermarket model: N servers, join the shortest of d sampled queues",
        latex_names={sp.Symbol(n): _latex_state(n) for row in names for n in row},
        source="sqd",
    )
    model.service, model.d, model.K = service, d, K
    return model


def _latex_state(name: str) -> str:
    parts = name.split("_")[1:]
    return "x_{" + ",".join(parts) + "}"


def to_tails(model: SQDModel) -> list:
    """The drift of ``s_k = sum_{n>=k} x_n`` (one phase), written in the s variables."""
    K = model.K
    xs = model.states
    ss = tail_symbols(K)
    back = {xs[k]: ss[k] - (ss[k + 1] if k + 1 < K else 0) for k in range(K)}
    out = []
    for k in range(K):
        f = sp.Add(*[model.drift[n] for n in range(k, K)])
        out.append(sp.expand(f.xreplace(back)))
    return out


@cache
def exponential_reduction(d=2, K: int = 5) -> Derivation:
    """Exponential service: the tails of the x-drift are the classical SQ(d) ODE.

    Checked twice: for integer ``d`` on the model built from the transition table (with
    ``lam`` symbolic), and for symbolic ``d`` on one level, where SymPy cancels
    ``x_k P_d(s_k, s_{k+1}) = s_k^d - s_{k+1}^d``.
    """
    from symdelay.models.sqd.service import exponential

    d = as_d(d)
    D = Derivation(f"SQ({d}) with exponential service: reduction to the tail ODE")
    model = sqd_model(exponential(), d=d, K=K)
    tails = to_tails(model)
    ss = [sp.Integer(1), *tail_symbols(K), sp.Integer(0)]
    for k in range(1, K + 1):
        # at the top level s_{K+1} = 0: the lost arrivals never entered level K + 1
        classical = lam * (ss[k - 1] ** d - ss[k] ** d) - (ss[k] - ss[k + 1])
        require_zero(sp.expand(tails[k - 1] - classical), f"tail ODE at level {k}")
    _dk, dk1, dk2 = sp.symbols("s_{k-1} s_k s_{k+1}", positive=True)
    xk = dk1 - dk2
    generic = sp.cancel(xk * P_d(dk1, dk2, d_sym))
    require_equal(generic, dk1**d_sym - dk2**d_sym, "x_k P_d(s_k, s_{k+1}) for symbolic d")
    D.add(
        "flux",
        "For symbolic d, SymPy cancels the routing flux out of level k:",
        Equation(sp.Symbol("x_k") * sp.Function("P_d")(dk1, dk2), generic),
        "cancel",
    )
    sk = sp.Function("s")
    t = sp.Symbol("t")
    D.add(
        "ode",
        "so the tails obey the classical ODE (checked level by level on the model's drift):",
        Equation(
            sp.Derivative(sk(k_sym, t), t),
            lam * (sk(k_sym - 1, t) ** d_sym - sk(k_sym, t) ** d_sym)
            - (sk(k_sym, t) - sk(k_sym + 1, t)),
        ),
        f"sum of the model's drift over levels >= k, d = {d}, K = {K}",
    )
    D.result = True
    return D.freeze()
