"""The Halfin–Whitt diffusion of LB(xi, c, d): collapse, 1-d limit, stationary law.

Scaling (docs/lb.md): ``n = sum_j N_j`` servers, ``N_j = w_j n``, and
``lambda_n = sum_j N_j mu_j - beta sqrt(n) mu_bar`` with ``mu_bar = sum_j w_j mu_j``.

*State-space collapse.* While some sampled station has an idle server the policy joins the
largest ``d_j I_j / N_j`` (``I_j`` idle servers), so the idle servers settle where these are
equal: ``I_j = v_j I`` with ``v_j = (w_j/d_j) / sum_i (w_i/d_i)``. While all are full it joins
the least ``c_j (Q_j + 1)/(N_j mu_j)``, so the queues settle at ``Q_j = u_j Q`` with
``u_j = (w_j mu_j/c_j) / sum_i (w_i mu_i/c_i)`` and every station's expected delay is
proportional to ``1/c_j``. The collapse needs the sampling to be able to send each set of
stations its capacity share (:meth:`LBPolicy.balance_margin` > 0).

*One-dimensional limit.* ``Y = (sum_j X_j - n)/sqrt(n)`` has the drift ``-beta mu_bar`` above 0
and ``-beta mu_bar - m_I y`` below (``m_I = sum_j v_j mu_j``, the idleness-weighted service
rate), and the infinitesimal variance ``2 mu_bar``. With ``a = m_I / mu_bar`` its stationary
law has masses ``1/beta`` above and ``Phi(beta/sqrt(a)) / (sqrt(a) phi(beta/sqrt(a)))`` below
zero, so ``P(wait) = [1 + beta Phi(beta/sqrt a) / (sqrt(a) phi(beta/sqrt a))]^-1`` — the
classical Halfin–Whitt value when ``a = 1`` (identical stations, any c, d).

>>> from symdelay.models.lb.policy import LBPolicy
>>> import mpmath
>>> p = LBPolicy.from_text("N=50,mu=1;N=50,mu=1", xi="2")
>>> r = diffusion(p, beta="0.5", dps=15)
>>> mpmath.nstr(r.p_wait, 14)
'0.50453864099794'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import mpmath

from symdelay.core.derivation import Derivation, require_equal
from symdelay.core.errors import SymdelayInputError
from symdelay.core.latex import Equation
from symdelay.core.lazy import sympy as sp
from symdelay.core.params import as_dps
from symdelay.core.precision import workdps
from symdelay.core.result import Result
from symdelay.models.lb.policy import LBPolicy, as_rational

__all__ = [
    "collapse",
    "Collapse",
    "stationary_law",
    "halfin_whitt_reduction",
    "diffusion",
    "LBDiffusion",
    "arrival_rate",
    "simulation_rate",
    "estimate_seconds",
    "beta_of",
    "p_wait_closed_form",
    "BETA",
    "A",
]

#: Symbols of the limit: beta (spare capacity) and a = m_I / mu_bar.
BETA = sp.Symbol("beta", positive=True)
A = sp.Symbol("a", positive=True)
_Y = sp.Symbol("y", real=True)
_MUBAR = sp.Symbol("mubar", positive=True)


def _Phi(x):
    return (1 + sp.erf(x / sp.sqrt(2))) / 2


def _phi(x):
    return sp.exp(-(x**2) / 2) / sp.sqrt(2 * sp.pi)


@dataclass(frozen=True)
class Collapse(Result):
    """The collapse configuration and the constants of the 1-d limit (exact)."""

    idle_shares: tuple  # v_j
    queue_shares: tuple  # u_j
    mean_rate: sp.Rational  # mu_bar
    idle_rate: sp.Rational  # m_I
    a: sp.Rational  # m_I / mu_bar
    margin: sp.Rational  # balance margin of the sampling (> 0 for the collapse)


def collapse(policy: LBPolicy) -> Collapse:
    """Shares of idleness and queue in the collapse, and ``a`` (refuses a weak sampling)."""
    policy.require_balance()
    w = policy.shares
    mus = [s.mu for s in policy.stations]
    iw = [wj / dj for wj, dj in zip(w, policy.d)]
    qw = [wj * mj / cj for wj, mj, cj in zip(w, mus, policy.c)]
    siw, sqw = sum(iw), sum(qw)  # once: O(J)
    v = tuple(x / siw for x in iw)
    u = tuple(x / sqw for x in qw)
    mubar = policy.mean_rate
    m_idle = sum(vj * mj for vj, mj in zip(v, mus))
    return Collapse(v, u, mubar, m_idle, m_idle / mubar, policy.balance_margin())


@lru_cache(maxsize=1)
def stationary_law() -> Derivation:
    """The 1-d limit diffusion and its stationary law, derived by SymPy (symbols beta, a).

    Time is measured so that the variance is ``2 mu_bar``; the speed density is
    ``exp(int_0^y 2 m(s) / sigma^2 ds)``, integrated on each side of 0.
    """
    y = _Y
    d = Derivation("stationary law of the LB(xi, c, d) diffusion")
    m_up = -BETA * _MUBAR
    m_down = -BETA * _MUBAR - A * _MUBAR * y
    d.add(
        "drift",
        "drift of Y (a = m_I / mu_bar)",
        Equation(sp.Symbol("m(y)"), sp.Piecewise((m_up, y >= 0), (m_down, True))),
    )
    d.add("variance", "infinitesimal variance", Equation(sp.Symbol("sigma^2"), 2 * _MUBAR))
    dens_up = sp.exp(sp.integrate(2 * m_up / (2 * _MUBAR), (y, 0, y)))
    dens_down = sp.exp(sp.integrate(2 * m_down / (2 * _MUBAR), (y, 0, y)))
    d.add("density", "unnormalised density above / below 0", sp.Tuple(dens_up, dens_down))
    M_up = sp.integrate(dens_up, (y, 0, sp.oo))
    M_down = sp.simplify(sp.integrate(dens_down, (y, -sp.oo, 0)))
    d.add("mass_up", "mass above 0", Equation(sp.Symbol("M_+"), M_up), "integrate")
    d.add("mass_down", "mass below 0", Equation(sp.Symbol("M_-"), M_down), "integrate")
    Z = M_up + M_down
    p_wait = sp.simplify(M_up / Z)
    phi_form = 1 / (1 + BETA * _Phi(BETA / sp.sqrt(A)) / (sp.sqrt(A) * _phi(BETA / sp.sqrt(A))))
    require_equal(p_wait, phi_form, "P(wait) = [1 + beta Phi(beta/sqrt a)/(sqrt a phi)]^-1")
    d.add(
        "p_wait",
        "probability of waiting, P(Y >= 0)",
        Equation(sp.Symbol("P_wait"), phi_form),
        "M_+/(M_+ + M_-) equals the Phi/phi form (simplify)",
    )
    EQ = sp.simplify(sp.integrate(y * dens_up, (y, 0, sp.oo)) / Z)
    require_equal(EQ, p_wait / BETA, "E[Y+] = P(wait)/beta")
    d.add("mean_queue", "mean scaled queue E[Y+]", Equation(sp.Symbol("E[Y^+]"), phi_form / BETA))
    EI = sp.integrate(-y * dens_down, (y, -sp.oo, 0)) / Z
    EI_form = (1 + BETA * M_down) / (A * Z)
    require_equal(EI, EI_form, "E[Y-] = (1 + beta M_-)/(a (M_+ + M_-))")
    d.add(
        "mean_idle",
        "mean scaled idle servers E[Y-]",
        Equation(sp.Symbol("E[Y^-]"), sp.simplify(EI_form)),
        "integrate",
    )
    d.result = phi_form
    return d.freeze()


@lru_cache(maxsize=1)
def halfin_whitt_reduction() -> Derivation:
    """Identical stations, xi = J: the limit is the classical Halfin–Whitt P(wait), symbolically.

    J stations of rate mu with arbitrary d_j (three distinct symbols, and symbolic J with one
    d): ``m_I = mu`` so ``a = 1``, and ``P(wait) = [1 + beta Phi(beta)/phi(beta)]^-1``.
    xi = J samples every station, so the sampling reaches every set (margin 1).
    """
    mu = sp.Symbol("mu", positive=True)
    J = sp.Symbol("J", integer=True, positive=True)
    j = sp.Symbol("j", integer=True, positive=True)
    dsym = sp.symbols("d1:4", positive=True)
    d = Derivation("identical stations: the classical Halfin-Whitt limit")
    # three stations, distinct d
    w = [sp.Rational(1, 3)] * 3
    v = [wi / di for wi, di in zip(w, dsym)]
    m_idle3 = sp.simplify(sum(vi * mu for vi in v) / sum(v))
    require_equal(m_idle3, mu, "m_I = mu for three identical stations, any d")
    d.add("m_idle_3", "idleness-weighted rate, J = 3, any d_j", Equation(sp.Symbol("m_I"), m_idle3))
    dj = sp.Function("d")(j)
    m_idleJ = sp.simplify(
        sp.Sum(mu / (J * dj), (j, 1, J)).doit() / sp.Sum(1 / (J * dj), (j, 1, J)).doit()
    )
    require_equal(m_idleJ, mu, "m_I = mu for J identical stations")
    d.add("m_idle_J", "symbolic J", Equation(sp.Symbol("m_I"), m_idleJ), "Sum, doit, simplify")
    mubar = sp.simplify(sp.Sum(mu / J, (j, 1, J)).doit())
    a = sp.simplify(m_idleJ / mubar)
    d.add("a", "a = m_I / mu_bar", Equation(A, a))
    reach = 1 - sp.binomial(J - 1, J) / sp.binomial(J, J)
    d.add("reach", "xi = J: P(sample meets one station)", Equation(sp.Symbol("f(1)"), reach))
    p = stationary_law().result.subs(A, a)
    classical = 1 / (1 + BETA * _Phi(BETA) / _phi(BETA))
    require_equal(p, classical, "P(wait) reduces to the Halfin–Whitt formula")
    d.add(
        "p_wait",
        "P(wait) with a = 1: the Halfin-Whitt formula",
        Equation(sp.Symbol("P_wait"), classical),
        "simplify(P(wait)|_{a=1} - [1 + beta Phi(beta)/phi(beta)]^-1) = 0",
    )
    d.result = classical
    return d.freeze()


def p_wait_closed_form(a) -> sp.Expr:
    """``P(wait)`` as a SymPy expression in ``beta`` for a given exact ``a``."""
    return stationary_law().result.subs(A, a)


def arrival_rate(policy: LBPolicy, beta) -> sp.Rational:
    """``lambda = sum N_j mu_j - beta sqrt(n) mu_bar`` (exact; may contain sqrt(n))."""
    b = as_rational("beta", beta)
    lam = policy.capacity - b * sp.sqrt(policy.n) * policy.mean_rate
    if not lam > 0:
        raise SymdelayInputError(f"beta = {beta} leaves no arrivals for n = {policy.n}: lower it")
    return lam


def simulation_rate(policy: LBPolicy, beta, digits: int = 30) -> sp.Rational:
    """:func:`arrival_rate` for the simulator: exact when rational, else the exact rational
    of its ``digits``-digit decimal (``sqrt(n)`` is irrational unless n is a square; the
    simulator runs in doubles, 17 digits)."""
    lam = arrival_rate(policy, beta)
    if lam.is_Rational:
        return lam
    return sp.Rational(str(sp.N(lam, digits)))


def beta_of(policy: LBPolicy, lam) -> sp.Expr:
    """The ``beta`` of an arrival rate: ``(sum N_j mu_j - lam) / (sqrt(n) mu_bar)``."""
    lr = as_rational("lam", lam)
    if not lr < policy.capacity:
        raise SymdelayInputError(
            f"lam = {lam} is at or beyond capacity sum N_j mu_j = {policy.capacity}: lower it"
        )
    return (policy.capacity - lr) / (sp.sqrt(policy.n) * policy.mean_rate)


@dataclass
class LBDiffusion(Result):
    """Stationary values of the limit diffusion (mpmath numbers at ``dps`` digits).

    ``mean_queue_scaled`` is ``E[Q]/sqrt(n)``, ``mean_idle_scaled`` ``E[I]/sqrt(n)`` (total
    idle servers), ``mean_delay_scaled`` ``sqrt(n) E[W]``. Per station: ``utilisation``
    ``1 - E[I_j]/N_j`` at the given ``N_j``, ``idle_share`` ``v_j``, ``idle_ratio_scaled``
    ``sqrt(n) E[I_j]/N_j``, ``queue_share`` ``u_j``, ``mean_delay_scaled`` ``sqrt(n) E[W_j]``.
    """

    policy: LBPolicy
    beta: sp.Rational
    collapse: Collapse
    p_wait: mpmath.mpf
    mean_queue_scaled: mpmath.mpf
    mean_idle_scaled: mpmath.mpf
    mean_delay_scaled: mpmath.mpf
    stations: list
    closed_form: sp.Expr | None
    dps: int
    notes: list = field(default_factory=list)

    def record(self) -> dict:
        s = self.dps

        def f(x):
            return mpmath.nstr(x, s)

        return {
            "beta": str(self.beta),
            "a": str(self.collapse.a),
            "p_wait": f(self.p_wait),
            "mean_queue_scaled": f(self.mean_queue_scaled),
            "mean_idle_scaled": f(self.mean_idle_scaled),
            "mean_delay_scaled": f(self.mean_delay_scaled),
            "stations": [{k: f(v) for k, v in st.items()} for st in self.stations],
            "closed_form": {
                "p_wait": None if self.closed_form is None else str(self.closed_form),
            },
            "policy": self.policy.to_json(),
            "dps": self.dps,
            "notes": list(self.notes),
        }


def estimate_seconds(J: int, xi_values: int = 1, dps: int = 30) -> float:
    """Rough single-core time of :func:`diffusion` for ``J`` stations and a law of xi on
    ``xi_values`` values: O(J) exact sums, O(J xi_values) binomials for the balance margin
    (measured: 1.2 s for J = 2000, one value)."""
    return 0.05 + J * (6e-4 + 5e-5 * xi_values) * (1 + dps / 100)


def diffusion(policy: LBPolicy, beta, dps: int = 30, force: bool = False) -> LBDiffusion:
    """Stationary values of the Halfin–Whitt limit of ``policy`` at spare capacity ``beta``
    (its cost estimated from J first, refused over the budget unless ``force``)."""
    from symdelay.models.sqd._budget import check_budget

    dps = as_dps(dps)
    check_budget(
        f"the diffusion of {policy.J} stations",
        estimate_seconds(policy.J, len(policy.xi), dps),
        force=force,
        shrink="the number of stations or of values of xi",
    )
    b = as_rational("beta", beta)
    col = collapse(policy)
    closed = p_wait_closed_form(col.a)
    with workdps(dps):
        B = mpmath.mpf(b.p) / b.q
        a = mpmath.mpf(col.a.p) / col.a.q
        x = B / mpmath.sqrt(a)
        M_up = 1 / B
        M_down = mpmath.ncdf(x) / (mpmath.sqrt(a) * mpmath.npdf(x))
        Z = M_up + M_down
        pw = M_up / Z
        EQ = pw / B
        EI = (1 + B * M_down) / (a * Z)
        mubar = mpmath.mpf(col.mean_rate.p) / col.mean_rate.q
        sqrt_n = mpmath.sqrt(policy.n)
        qden = sum(
            (sp.Rational(s.N, policy.n) * s.mu / cj for s, cj in zip(policy.stations, policy.c)),
            sp.Integer(0),
        )
        stations = []
        for s, v, u, cj in zip(policy.stations, col.idle_shares, col.queue_shares, policy.c):
            wj = sp.Rational(s.N, policy.n)
            idle_j = mpmath.mpf(v.p) / v.q * EI  # E[I_j]/sqrt(n)
            ratio = idle_j / (mpmath.mpf(wj.p) / wj.q)
            delay_factor = 1 / (cj * qden)
            stations.append(
                {
                    "utilisation": 1 - ratio / sqrt_n,
                    "idle_share": mpmath.mpf(v.p) / v.q,
                    "idle_ratio_scaled": ratio,
                    "queue_share": mpmath.mpf(u.p) / u.q,
                    "mean_queue_scaled": mpmath.mpf(u.p) / u.q * EQ,
                    "mean_delay_scaled": EQ * (mpmath.mpf(delay_factor.p) / delay_factor.q),
                }
            )
        out = LBDiffusion(
            policy,
            b,
            col,
            +pw,
            +EQ,
            +EI,
            EQ / mubar,
            stations,
            closed,
            dps,
        )
    with mpmath.workdps(dps):
        out.p_wait, out.mean_queue_scaled = +out.p_wait, +out.mean_queue_scaled
        out.mean_idle_scaled, out.mean_delay_scaled = +out.mean_idle_scaled, +out.mean_delay_scaled
        out.stations = [{k: +v for k, v in st.items()} for st in out.stations]
    return out
