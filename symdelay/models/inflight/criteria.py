"""Which weight is best? Three criteria for routing on queue plus in-flight jobs.

For the difference mode ``(x, w_1..w_L)`` of two queues with an Erlang(L, mean D) delay and
per-phase weights ``kappa_l`` (see :mod:`symdelay.models.inflight.charpoly`):

1. **decay** — the rate of convergence to equilibrium: ``-alpha``, ``alpha`` the spectral
   abscissa of the difference Jacobian (larger is better; ``<= 0`` means unstable).
2. **tolerance** — the time ``T_eps`` after which ``|x(t)| <= eps |x(0)|`` for good,
   started from an imbalance of the queues with the jobs in flight balanced:
   ``x(0) = x0`` (default ``lam/mu``, the load of one queue at equilibrium), ``w(0) = 0``,
   ``eps = 0.05`` by default. *Linear*: ``x(t) = sum_k c_k exp(r_k t)`` from the
   eigen-decomposition; ``|x(t)| <= sum |c_k| exp(alpha t)`` gives a horizon past which the
   band holds, and the last exit before it is found by a scan at a quarter of the fastest
   period and bisection. *Nonlinear*: the exact tanh system integrated (DOP853, tight
   tolerances, dense output) to the same kind of horizon, recomputed from the state reached
   (so the linear bound holds from there on up to a factor ``1 + O(|x|)``).
3. **variance** — the linear-noise stationary variance of ``Q1 - Q2`` per unit ``eta``:
   ``J S + S J^T + G = 0`` in the imbalances, and its simulated counterpart (batch means on
   one long path of the exact jump process).

The Jacobian ``J`` and the diffusion ``G`` of the imbalances ``(x, w_1..w_L)`` are the
in-flight model's own: its transition table with every parameter and every phase's weight
free, restricted to the imbalances (:func:`symdelay.analysis.lna.imbalance_lna`) and
lambdified once per L (:func:`imbalance_matrices`). A variance that double precision cannot
give (a non-finite or inaccurate Lyapunov solve, a value that is not positive) is solved
exactly in rational arithmetic from the same matrices.

:func:`optimize_weights` finds the best single weight (and, ``per_phase=True``, the best
vector) for each criterion on ``[0, kappa_max]``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from symdelay.core.errors import SymdelayInputError
from symdelay.core.params import as_L, as_number
from symdelay.core.result import Result

__all__ = [
    "CRITERIA",
    "Rates",
    "rates",
    "imbalance_matrices",
    "decay_rate",
    "tolerance_time",
    "lna_variance",
    "simulated_variance",
    "criterion_value",
    "OptimalWeights",
    "optimize_weights",
]

#: Criterion names accepted by :func:`optimize_weights` (``tolerance-linear``: the linear
#: version of the tolerance time).
CRITERIA = ("decay", "tolerance", "tolerance-linear", "variance")

#: The largest step of the uniform grid of weights; a wider range of weights is also
#: searched on a log-spaced grid (an optimum near 1 is not missed on [0, 1e300]).
WIDE_STEP = 0.25

#: Whether a larger value is better.
MAXIMISE = {"decay": True, "tolerance": False, "tolerance-linear": False, "variance": False}


@dataclass(frozen=True)
class Rates:
    """Checked float parameters of one system (weights separately)."""

    L: int
    mu: float
    lam: float
    theta: float
    D: float

    @property
    def gamma(self) -> float:
        return self.L / self.D


def rates(L, mu=1, lam=1, theta=1, D=1) -> Rates:
    """Check the parameters at the door (``theta >= 0``, the rest positive)."""
    L = int(as_L(L, allow_symbol=False))
    vals = {
        name: float(as_number(name, v, positive=name != "theta"))
        for name, v in (("mu", mu), ("lam", lam), ("theta", theta), ("D", D))
    }
    if vals["theta"] < 0:
        raise SymdelayInputError(f"theta must be >= 0, got {theta}")
    return Rates(L, **vals)


def _weights(p: Rates, kappa) -> np.ndarray:
    k = np.atleast_1d(np.asarray(kappa, dtype=float))
    if k.size == 1:
        k = np.full(p.L, float(k[0]))
    if k.size != p.L:
        raise SymdelayInputError(f"give one weight or {p.L} weights (one per delay phase)")
    if not np.all(np.isfinite(k)) or np.any(k < 0):
        raise SymdelayInputError("weights must be finite and >= 0")
    return k


#: L -> (the in-flight transition table with every parameter and weight free, its
#: imbalance LNA, the float function of it): built once per L and process
_TABLES: dict = {}


def _imbalance_lna(L: int):
    found = _TABLES.get(L)
    if found is None:
        from symdelay.analysis.lna import imbalance_lna
        from symdelay.core.lazy import sympy as sp
        from symdelay.models.delayed_routing import two_queue_erlang

        free = dict.fromkeys(("mu", "lam", "theta", "D"))
        weights = [sp.Symbol(f"kappa_{ell + 1}") for ell in range(L)]
        table = two_queue_erlang(L, free, f"in-flight weights, Erlang({L}) delay", weights)
        lin = imbalance_lna(table)
        order = ("mu", "lam", "theta", "gamma", *(w.name for w in weights))
        found = (table, lin, table.cached("imbalance lna, floats", lambda: lin.numeric(order)))
        _TABLES[L] = found
    return found


def imbalance_matrices(p: Rates, kappa) -> tuple[np.ndarray, np.ndarray]:
    """``(J, G)``: the Jacobian and the diffusion matrix of the imbalances ``(x,
    w_1..w_L)`` (``x = q1 - q2``, ``w_l = z1_l - z2_l``) with weights ``kappa`` (one, or one
    per phase), as floats: the in-flight model's own, lambdified once per L."""
    return _imbalance_lna(p.L)[2](p.mu, p.lam, p.theta, p.gamma, *_weights(p, kappa))


def decay_rate(p: Rates, kappa) -> float:
    """``-alpha``: minus the spectral abscissa of the difference Jacobian."""
    return float(-np.max(np.linalg.eigvals(imbalance_matrices(p, kappa)[0]).real))


def lna_variance(p: Rates, kappa) -> float:
    """``Var(Q1 - Q2)/eta`` in the linear-noise approximation (``inf`` if unstable): double
    precision where it can be trusted, else exact (never negative)."""
    from symdelay.analysis.lna import float_lyapunov

    J, G = imbalance_matrices(p, kappa)
    if np.all(np.isfinite(J)):
        with np.errstate(all="ignore"):
            alpha = float(np.max(np.linalg.eigvals(J).real))
        if alpha >= 0:
            return math.inf
        S = float_lyapunov(J, G)
        if S is not None and S[0, 0] > 0:
            return float(S[0, 0])
    return _exact_variance(p, _weights(p, kappa))


def _exact_variance(p: Rates, k) -> float:
    """The variance from the exact rational values of the parameters and weights (their
    decimal texts), where doubles fail; ``inf`` where the exact Routh-Hurwitz test finds the
    equilibrium not stable."""
    from symdelay.analysis.lna import stationary_covariance
    from symdelay.core.params import exact_number

    _, lin, _ = _imbalance_lna(p.L)
    vals = {n: exact_number(n, getattr(p, n)) for n in ("mu", "lam", "theta")}
    vals.update({f"kappa_{ell + 1}": exact_number("kappa", v) for ell, v in enumerate(k)})
    vals["gamma"] = exact_number("L", p.L) / exact_number("D", p.D)
    A, B = lin.exact({s: vals[s.name] for s in lin.parameters})
    try:
        S = stationary_covariance(A, B)
    except SymdelayInputError:  # not Hurwitz
        return math.inf
    return float(S[0, 0])


def _initial(p: Rates, x0) -> np.ndarray:
    y = np.zeros(p.L + 1)
    y[0] = p.lam / p.mu if x0 is None else float(x0)
    if y[0] == 0 or not np.isfinite(y[0]):
        raise SymdelayInputError("x0 must be a finite non-zero imbalance")
    return y


def _last_exit(f, t0, t1, band, step) -> float:
    """Last t in [t0, t1] with |f(t)| >= band (t0 if none), by a scan and bisection."""
    from scipy import optimize

    ts = np.arange(t0, t1 + step, step)
    vals = np.abs(f(ts)) - band
    idx = np.nonzero(vals >= 0)[0]
    if idx.size == 0:
        return t0
    i = idx[-1]
    if i + 1 >= ts.size:
        return t1
    g = lambda t: abs(float(f(np.array([t]))[0])) - band  # noqa: E731
    a, b = float(ts[i]), float(ts[i + 1])
    # f on one point can differ from f on the grid in the last bits: a scan value on the band
    # itself may change sign; the crossing is then that end, to rounding
    if g(a) < 0:
        return a
    if g(b) >= 0:
        return b
    return float(optimize.brentq(g, a, b, xtol=1e-12))


def _linear_parts(J, y0):
    vals, vecs = np.linalg.eig(J)
    c = np.linalg.solve(vecs, y0.astype(complex))
    coef = vecs[0, :] * c  # x(t) = sum coef_k exp(r_k t)
    return vals, coef


def tolerance_time(p: Rates, kappa, *, eps=0.05, x0=None, nonlinear=True) -> float:
    """``T_eps``: the last time ``|x(t)| > eps |x(0)|`` (``inf`` if the mode does not decay)."""
    eps = float(eps)
    if not 0 < eps < 1:
        raise SymdelayInputError(f"eps must be in (0, 1), got {eps}")
    J = imbalance_matrices(p, kappa)[0]
    y0 = _initial(p, x0)
    band = eps * abs(y0[0])
    vals, coef = _linear_parts(J, y0)
    alpha = float(np.max(vals.real))
    if alpha >= 0:
        return math.inf
    fastest = max(float(np.max(np.abs(vals.imag))), 1e-12)
    step = min(math.pi / (8 * fastest), 0.25 / abs(alpha), 0.05 * p.D + 0.01)

    def horizon(c_abs):
        return max(math.log(max(c_abs, band) / band) / -alpha, 0.0)

    if not nonlinear:
        T = horizon(float(np.sum(np.abs(coef))))

        def x_lin(ts):
            return np.real(np.exp(np.outer(ts, vals)) @ coef)

        return _last_exit(x_lin, 0.0, T + step, band, step)
    from scipy.integrate import solve_ivp

    k = _weights(p, kappa)
    g, n = p.gamma, p.L

    def rhs(_t, y):
        out = np.empty_like(y)
        out[0] = g * y[n] - p.mu * y[0]
        obs = y[0] + k @ y[1:]
        out[1] = -2 * p.lam * math.tanh(p.theta * obs / 2) - g * y[1]
        out[2:] = g * (y[1:n] - y[2:])
        return out

    t0, y = 0.0, y0
    last = 0.0
    for _ in range(60):
        _, c = _linear_parts(J, y)
        T = t0 + horizon(float(np.sum(np.abs(c)))) * 1.2 + 10 * step
        sol = solve_ivp(
            rhs, (t0, T), y, method="DOP853", rtol=1e-10, atol=1e-12 * abs(y0[0]), dense_output=True
        )
        if not sol.success:
            raise SymdelayInputError(f"the fluid integration failed: {sol.message}")

        def x_nl(ts, sol=sol):
            return sol.sol(ts)[0]

        last = max(last, _last_exit(x_nl, t0, T, band, step))
        y_end = sol.y[:, -1]
        _, c_end = _linear_parts(J, y_end)
        if float(np.sum(np.abs(c_end))) <= 0.5 * band:  # stays in the band from here on
            return last
        t0, y = T, y_end
    raise SymdelayInputError("the fluid path did not settle into the band: is it oscillating?")


def simulated_variance(
    p: Rates, kappa, *, eta=500, T=2000.0, burn_in=50.0, dt=0.25, batches=20, seed=7, level=0.95
):
    """Simulated ``Var(Q1 - Q2)/eta`` of the ``inflight`` model with weights ``kappa``
    (:func:`symdelay.analysis.stochastic.simulated_variance`). Returns ``(estimate, (lo,
    hi))``."""
    from symdelay.analysis.stochastic import simulated_variance as entry
    from symdelay.models import build_model

    k = _weights(p, kappa)
    values = {n: _exact(getattr(p, n)) for n in ("mu", "lam", "theta", "D")}
    model = build_model("inflight", L=p.L, kappa=[_exact(v) for v in k], **values)
    sv = entry(model, eta, T=T, burn_in=burn_in, dt=dt, batches=batches, seed=seed,
               level=level, force=True)  # fmt: skip
    return sv.estimate, sv.interval


def _exact(x: float):
    """The float's exact decimal (its repr), not a nearby fraction of small denominator."""
    from symdelay.core.params import exact_number

    return str(exact_number("a parameter", x))


def criterion_value(criterion: str, p: Rates, kappa, **opts) -> float:
    """The value of one criterion (decay: larger is better; the others: smaller)."""
    if criterion == "decay":
        return decay_rate(p, kappa)
    if criterion == "variance":
        return lna_variance(p, kappa)
    if criterion == "tolerance":
        return tolerance_time(p, kappa, nonlinear=True, **opts)
    if criterion == "tolerance-linear":
        return tolerance_time(p, kappa, nonlinear=False, **opts)
    raise SymdelayInputError(f"unknown criterion '{criterion}': use one of {', '.join(CRITERIA)}")


@dataclass(frozen=True)
class OptimalWeights(Result):
    """The best weight(s) for one criterion, the value there and at ``kappa = 0`` and ``1``."""

    criterion: str
    kappa: float | tuple
    value: float
    at_kappa_0: float
    at_kappa_1: float
    kappa_max: float
    evaluations: int
    method: str
    options: dict = field(default_factory=dict)

    def record(self) -> dict:
        f = _fmt
        k = [f(v) for v in self.kappa] if isinstance(self.kappa, tuple) else f(self.kappa)
        return {
            "criterion": self.criterion,
            "kappa": k,
            "value": f(self.value),
            "at_kappa_0": f(self.at_kappa_0),
            "at_kappa_1": f(self.at_kappa_1),
            "kappa_max": f(self.kappa_max),
            "evaluations": self.evaluations,
            "method": self.method,
            "options": {k: str(v) for k, v in self.options.items()},
        }


def _fmt(x: float) -> str:
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.10g}"


#: A double-precision value of a linear criterion is trusted when the difference
#: Jacobian's largest entry is at most this many times its spectral abscissa (the rounding
#: of the eigenvalues and of the Lyapunov solve is at most about 1e-16 times that ratio);
#: beyond it (weights of 1e20, time scales far apart) the point is evaluated exactly.
TRUSTED_RATIO = 1e10
#: The objective the searches see where the criterion is undefined (unstable weights) or
#: cannot be evaluated: finite, above every value (an infinite one turns Brent's parabolic
#: steps into inf - inf); plus the spectral abscissa, so that the search is led back.
_PENALTY = 1e100
#: Weights up to this value are searched on a uniform grid; beyond it (a large or infinite
#: kappa_max) the grid is uniform in kappa / (1 + kappa), which reaches every scale.
_UNIFORM_UP_TO = 2.0


def _t(k: float) -> float:
    return 1.0 if math.isinf(k) else k / (1.0 + k)


def _kappa(t: float, kappa_max: float) -> float:
    return kappa_max if t >= _t(kappa_max) else t / (1.0 - t)


class _Evaluator:
    """One criterion at weights ``k`` (a vector, one per phase), where it can be trusted:
    in double precision when the Jacobian is well scaled, else exactly by the generic entries
    (the certified roots of the difference mode, the exact linear-noise variance). ``None``
    where neither can (a nonlinear criterion, or an exact evaluation over its budget)."""

    def __init__(self, criterion, p: Rates, opts):
        self.criterion, self.p, self.opts = criterion, p, opts
        self.evaluations = self.exact = 0
        self.unevaluated: list = []
        self.over_budget = False

    def __call__(self, k) -> float | None:
        self.evaluations += 1
        J = imbalance_matrices(self.p, k)[0]
        alpha = float(np.max(np.linalg.eigvals(J).real))
        scale = float(np.max(np.abs(J)))
        if scale <= TRUSTED_RATIO * abs(alpha):
            if self.criterion != "decay" and alpha >= 0:
                return math.inf  # unstable: no stationary variance, no settling time
            v = criterion_value(self.criterion, self.p, k, **self.opts)
            if self.criterion != "variance" or v > 0:
                return v
        return self.exactly(k)

    def exactly(self, k) -> float | None:
        if self.criterion not in ("decay", "variance"):
            self.unevaluated.append(k)
            return None
        from symdelay.analysis.roots import check_analysis_cost, roots
        from symdelay.analysis.stochastic import variance
        from symdelay.models import build_model

        p = self.p
        if self.over_budget:  # the exact paths cost the same at every point of one L
            self.unevaluated.append(k)
            return None
        try:
            model = build_model(
                "inflight",
                L=p.L,
                mu=_exact(p.mu),
                lam=_exact(p.lam),
                theta=_exact(p.theta),
                D=_exact(p.D),
                kappa=[_exact(float(v)) for v in np.broadcast_to(k, (p.L,))],
            )
            try:
                check_analysis_cost(model)  # the exact paths below, within the shared budget
            except SymdelayInputError:
                self.over_budget = True
                raise
            diff = roots(model, dps=20).mode_roots("difference")
            alpha = float(diff.spectral_abscissa)
            self.exact += 1
            if self.criterion == "decay":
                return -alpha
            if diff.unstable_count or diff.axis_count:
                return math.inf
            v = float(variance(model, dps=20).value)
        except SymdelayInputError:  # beyond the model's number size, or over the budget
            self.unevaluated.append(k)
            return None
        if not v > 0:
            from symdelay.core.errors import VerificationError

            raise VerificationError(f"the exact variance at kappa = {k} is {v}, not positive")
        return v


def optimize_weights(
    L,
    mu=1,
    lam=1,
    theta=1,
    D=1,
    criterion="variance",
    *,
    per_phase=False,
    kappa_max=2.0,
    grid=81,
    eps=0.05,
    x0=None,
    pattern=None,
) -> OptimalWeights:
    """The in-flight weight on ``[0, kappa_max]`` (or the per-phase weights) that is best for
    ``criterion``.

    One weight: the criterion on a grid of ``grid`` points uniform on ``[0, 2]`` (and, for a
    larger or infinite ``kappa_max``, ``grid`` more uniform in ``kappa / (1 + kappa)`` up to
    ``kappa_max``), then Brent's bounded method in ``kappa / (1 + kappa)`` on the bracket
    around the best grid point. Per phase: Powell's method with bounds from the best single
    weight (and from the best one-phase pattern). Every point is evaluated where the value can
    be trusted: never a negative variance, never a value of rounding noise; where the
    criterion is undefined (unstable weights) or cannot be evaluated the searches see a finite
    penalty above every value.

    Parameters
    ----------
    L : int
        The number of Erlang phases, an integer ``>= 1``.
    mu, lam, theta, D : number or str, default 1
        The service rate, the arrival rate per queue, the routing sensitivity and the mean
        delay (the others ``> 0``).
    criterion : {"variance", "decay", "tolerance", "tolerance-linear"}, default "variance"
        What is optimised (:data:`CRITERIA`): the linear-noise variance of ``Q1 - Q2`` per
        ``eta`` (smaller is better), the decay rate ``-alpha`` (larger), the time ``T_eps``
        after which the imbalance stays within ``eps`` of its start (smaller; nonlinear, or
        from the linearisation).
    per_phase : bool, default False
        Optimise one weight per phase instead of one for all (not with ``pattern``).
    kappa_max : float, default 2.0
        The largest weight searched (``> 0``, may be ``inf``).
    grid : int, default 81
        Points of the initial grid.
    eps : float, default 0.05
        The tolerance criteria's band, in ``(0, 1)``: ``|x(t)| <= eps |x(0)|``.
    x0 : float, optional
        The tolerance criteria's initial imbalance ``x(0)`` (default ``lam/mu``, the load of
        one queue), the jobs in flight balanced.
    pattern : str or sequence of numbers, optional
        Observe only some phases (weights ``kappa * pattern``, see
        :func:`symdelay.models.inflight.model.observation_pattern`).

    Returns
    -------
    OptimalWeights
        The best ``kappa`` (a number, or a tuple per phase), the criterion there and at
        ``kappa = 0`` and ``1``, the evaluations and the method.
    """
    from scipy import optimize

    if criterion not in CRITERIA:
        raise SymdelayInputError(
            f"unknown criterion '{criterion}': use one of {', '.join(CRITERIA)}"
        )
    p = rates(L, mu, lam, theta, D)
    kappa_max = float(kappa_max)
    if not kappa_max > 0:  # nan too
        raise SymdelayInputError(f"kappa_max must be a positive number or inf, got {kappa_max}")
    opts = {"eps": eps, "x0": x0} if criterion.startswith("tolerance") else {}
    sign = -1.0 if MAXIMISE[criterion] else 1.0
    evaluate = _Evaluator(criterion, p, opts)
    e = np.ones(p.L)
    if pattern is not None:
        from symdelay.models.inflight.curve import observation_pattern

        e = np.array([float(v) for v in observation_pattern(pattern, p.L)])
        if per_phase:
            raise SymdelayInputError("give per_phase or a pattern, not both")

    def cost(k):
        """The signed criterion (smaller is better), the penalty where it has no value."""
        k = np.clip(np.asarray(k, dtype=float), 0.0, kappa_max)  # Powell may step outside
        if not np.all(np.isfinite(k)):
            return 2 * _PENALTY
        v = evaluate(k * e if k.ndim == 0 else k)
        if v is not None and math.isfinite(v):
            return sign * v
        J = imbalance_matrices(p, k * e if k.ndim == 0 else k)[0]
        return _PENALTY * (2 if v is None else 1) + max(0.0, float(np.linalg.eigvals(J).real.max()))

    # the searches' variable: kappa itself on [0, 2], kappa/(1 + kappa) for a larger range
    wide = kappa_max > _UNIFORM_UP_TO

    def to_x(k):
        return _t(k) if wide else k

    def to_k(x):
        return _kappa(x, kappa_max) if wide else x

    def cost_x(x):
        xs = np.clip(np.asarray(x, dtype=float), 0.0, to_x(kappa_max))
        return cost(np.array([to_k(float(v)) for v in xs]) if xs.ndim else to_k(float(xs)))

    n = int(grid)
    ks = list(np.linspace(0.0, min(kappa_max, _UNIFORM_UP_TO), n))
    if kappa_max > _UNIFORM_UP_TO:
        tail = np.linspace(_t(_UNIFORM_UP_TO), _t(kappa_max), n + 1)[1:]
        ks += [_kappa(float(t), kappa_max) for t in tail if t < 1.0 or math.isfinite(kappa_max)]
    ks = np.array(ks)
    vals = np.array([cost(k) for k in ks])
    i = int(np.argmin(vals))
    lo, hi = ks[max(i - 1, 0)], ks[min(i + 1, ks.size - 1)]
    best_k, best = float(ks[i]), float(vals[i])
    if hi > lo and best < _PENALTY:
        res = optimize.minimize_scalar(
            cost_x,
            bounds=(to_x(lo), to_x(hi)),
            method="bounded",
            options={"xatol": 1e-10 if wide else 1e-9},
        )
        if res.fun < best:
            best_k, best = to_k(float(res.x)), float(res.fun)
    shown = "inf" if math.isinf(kappa_max) else f"{kappa_max:g}"
    method = f"grid of {ks.size} on [0, {shown}]"
    if kappa_max > _UNIFORM_UP_TO:
        method += f" (uniform up to {_UNIFORM_UP_TO:g}, then in kappa/(1+kappa))"
    method += " + bounded Brent"
    result_k: float | tuple = best_k
    if per_phase and p.L > 1:
        x_best = to_x(best_k)
        starts = [np.full(p.L, x_best)]
        for ell in range(p.L):
            s0 = np.zeros(p.L)
            s0[ell] = x_best if best_k > 0 else to_x(min(kappa_max, _UNIFORM_UP_TO) / 2)
            starts.append(s0)
        best_vec = np.full(p.L, best_k)
        bound = to_x(kappa_max) if math.isfinite(kappa_max) else _t(float(ks[-1]))
        for s0 in starts:
            res = optimize.minimize(
                cost_x,
                s0,
                method="Powell",
                bounds=[(0.0, bound)] * p.L,
                options={"xtol": 1e-8, "ftol": 1e-12, "maxfev": 4000},
            )
            if res.fun < best:
                best = float(res.fun)
                best_vec = np.array([to_k(float(x)) for x in np.clip(res.x, 0, bound)])
        result_k = tuple(float(v) for v in best_vec)
        method += f"; per phase: Powell with bounds from {len(starts)} starts"
    if evaluate.exact:
        method += f"; {evaluate.exact} point(s) beyond double precision evaluated exactly"
    if evaluate.unevaluated:
        method += (
            f"; {len(evaluate.unevaluated)} point(s) (weights up to "
            f"{max(float(np.max(k)) for k in evaluate.unevaluated):.3g}) beyond double "
            "precision could not be evaluated exactly and were left out"
        )
    value = sign * best if best < _PENALTY else math.inf
    at = [evaluate(np.zeros(p.L)), evaluate(e)]
    return OptimalWeights(
        criterion,
        result_k,
        value,
        math.nan if at[0] is None else at[0],
        math.nan if at[1] is None else at[1],
        kappa_max,
        evaluate.evaluations,
        method,
        {"L": p.L, "mu": p.mu, "lam": p.lam, "theta": p.theta, "D": p.D, **opts},
    )
