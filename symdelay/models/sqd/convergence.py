"""Convergence of the N-server SQ(d) system to its mean field, measured.

For each N, ``replications`` independent runs (seeds: children of ``SeedSequence(seed)``),
each from empty with a warm-up of ``warmup`` time units (default 20 relaxation times of the
mean field, ``-1/Re(rightmost eigenvalue)``), then ``T_N`` measured time units. Per N:

* the **bias** of the mean sojourn time, ``E_N[T] - T_mf``: its estimate is the mean over
  replications of the run's mean sojourn (Little: ``sum_k s_k / lam`` from the exact time
  averages), with the control variate ``s_1 - rho`` (``E[s_1] = rho`` exactly for every N:
  a server is busy a fraction rho of the time, so the control adds no bias; regression
  estimator, coefficient fitted per N, Student t on R - 2 degrees of freedom). The same for
  ``s_2``, ``s_3``; ``s_1`` itself is reported without control (its bias is 0 for every N).
* the **fluctuations**: the standard deviation of the instantaneous ``s_k(t)`` over the
  batch boundaries after the warm-up (all servers brought up to date there), pooled over
  replications; its CI from the spread between replications.

Rates: the bias is fitted as ``C N^-p`` by weighted nonlinear least squares on the *signed*
errors (so N where the bias is below the noise still count, with their weight), the
fluctuations as ``C N^-q`` by weighted least squares in logs; 95% intervals from the
covariance, inflated by ``sqrt(chi2/dof)`` when that exceeds 1. The slope of log error
against log N is ``-p`` (resp. ``-q``).

>>> r = convergence_in_N(2, "0.8", Ns=(20, 40), replications=4, events_per_N=2e5, seed=1)
>>> [row.N for row in r.rows]
[20, 40]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from symdelay.core.errors import SymdelayInputError
from symdelay.core.result import Result
from symdelay.models.sqd.batches import batch_interval, t975
from symdelay.models.sqd.fixed_point import fixed_point
from symdelay.models.sqd.meanfield import as_d
from symdelay.models.sqd.service import exponential
from symdelay.models.sqd.simulate import simulate

__all__ = ["convergence_in_N", "ConvergenceResult", "NRow", "power_fit"]


@dataclass
class Estimate(Result):
    value: float
    lo: float
    hi: float

    @property
    def half(self) -> float:
        return (self.hi - self.lo) / 2

    def record(self) -> dict:
        return {"value": self.value, "ci95": [self.lo, self.hi]}


@dataclass
class NRow(Result):
    """One N: bias of E[T] and of s_1..s_levels, fluctuation sd of s_k(t), cost."""

    N: int
    T: float
    replications: int
    sojourn_bias: Estimate
    tail_bias: list  # Estimate per k
    fluct_sd: list  # Estimate per k (sd of the instantaneous s_k)
    events: int
    seconds: float


@dataclass
class PowerFit(Result):
    """``y ~ C N^-p``: exponent p with a 95% interval, C, chi2 per degree of freedom."""

    p: float
    lo: float
    hi: float
    C: float
    chi2_dof: float
    points: int

    def record(self) -> dict:
        return {
            "p": self.p,
            "ci95": [self.lo, self.hi],
            "C": self.C,
            "chi2_dof": self.chi2_dof,
            "points": self.points,
        }


@dataclass
class ConvergenceResult(Result):
    d: int
    lam: object
    service: str
    mean_field_sojourn: float
    mean_field_tail: list
    warmup: float
    rows: list
    bias_fit: PowerFit | None  # mean sojourn time
    tail_bias_fits: list  # per k >= 2 (s_1 has no bias)
    fluct_fits: list  # per k
    notes: list = field(default_factory=list)


def _t(dof: int) -> float:
    return t975(max(dof, 1))


def _mean_ci(x: np.ndarray) -> Estimate:
    return Estimate(*batch_interval(x))


def _control_ci(y: np.ndarray, x: np.ndarray, mu: float) -> Estimate:
    """Regression (control-variate) estimate of E[y] given E[x] = mu, with its 95% CI."""
    R = y.size
    xc = x - x.mean()
    sxx = float(xc @ xc)
    if R < 4 or sxx == 0:
        return _mean_ci(y)
    beta = float(xc @ (y - y.mean())) / sxx
    est = float(y.mean() - beta * (x.mean() - mu))
    resid = y - y.mean() - beta * xc
    s2 = float(resid @ resid) / (R - 2)
    se = math.sqrt(s2 * (1 / R + (x.mean() - mu) ** 2 / sxx))
    h = _t(R - 2) * se
    return Estimate(est, est - h, est + h)


def power_fit(Ns, values, halves, *, log=False) -> PowerFit | None:
    """Fit ``values ~ C N^-p`` (weights from the 95% half-widths). ``log=True``: least
    squares of log(values) on log N (values positive); otherwise nonlinear least squares
    on the signed values."""
    from scipy.optimize import curve_fit

    N = np.asarray(Ns, dtype=float)
    y = np.asarray(values, dtype=float)
    se = np.asarray(halves, dtype=float) / 1.96
    ok = np.isfinite(y) & np.isfinite(se) & (se > 0)
    if log:
        ok &= y > 0
    N, y, se = N[ok], y[ok], se[ok]
    if N.size < 3:
        return None
    if log:
        X = np.column_stack([np.ones_like(N), -np.log(N)])
        w = (y / se) ** 2  # se of log y = se / y
        A = X.T @ (w[:, None] * X)
        coef = np.linalg.solve(A, X.T @ (w * np.log(y)))
        cov = np.linalg.inv(A)
        r = np.log(y) - X @ coef
        chi2 = float(r @ (w * r))
        logC, p = coef
        C = math.exp(logC)
        var_p = cov[1, 1]
    else:
        i0 = int(np.argmin(N))
        p0 = (1.0, y[i0] * N[i0])
        try:
            (C, p), cov = curve_fit(
                lambda n, C, p: C * n ** (-p), N, y, p0=(p0[1], p0[0]), sigma=se,
                absolute_sigma=True, maxfev=20000,
            )  # fmt: skip
        except RuntimeError:
            return None
        r = (y - C * N ** (-p)) / se
        chi2 = float(r @ r)
        var_p = cov[1, 1]
    dof = N.size - 2
    scale = max(1.0, chi2 / dof) if dof > 0 else 1.0
    h = _t(dof) * math.sqrt(var_p * scale)
    return PowerFit(float(p), float(p - h), float(p + h), float(C), chi2 / max(dof, 1), N.size)


def convergence_in_N(
    d=2,
    lam="0.9",
    service=None,
    *,
    Ns=(100, 300, 1000, 3000, 10000, 30000, 100000),
    replications=10,
    events_per_N=1e8,
    warmup=None,
    min_T=50.0,
    levels=3,
    batches=100,
    seed=1,
    backend="auto",
) -> ConvergenceResult:
    """Measure the bias and the fluctuations of SQ(d) at each N (module text).

    ``events_per_N``: the measured events (after warm-up) spent per N, split over the
    replications (T_N = max(min_T, events / (R (1 + rho) lam N))); ``service``: a
    phase-type service (default Exp(1)), simulated exactly; ``batches``: boundaries per
    run where the instantaneous tail is recorded."""
    from symdelay.models.sqd.stability import relaxation_time

    d = as_d(d)
    service = service if service is not None else exponential()
    R = int(replications)
    if R < 4:
        raise SymdelayInputError("need at least 4 replications per N for the intervals")
    Ns = sorted({int(n) for n in Ns})
    if len(Ns) < 1 or Ns[0] < d:
        raise SymdelayInputError(f"every N must be >= d = {d}")
    fp = fixed_point(d, lam, service, dps=15)
    lamf = float(fp.lam)
    rho = lamf * float(service.mean)
    mf_T = float(fp.mean_sojourn)
    mf_tail = [float(v) for v in fp.tail[:levels]] + [0.0] * max(0, levels - len(fp.tail))
    if warmup is None:
        tau = relaxation_time(fp)
        warmup = round(20 * tau, 1)
    seeds = np.random.SeedSequence(seed).spawn(len(Ns) * R)
    rows = []
    for a, N in enumerate(Ns):
        T_meas = max(float(min_T), float(events_per_N) / (R * (1 + rho) * lamf * N))
        little, s, snaps, events, secs = [], [], [], 0, 0.0
        for r in range(R):
            rng = np.random.default_rng(seeds[a * R + r])
            res = simulate(
                N, d, fp.lam, service, T=warmup + T_meas, warmup=warmup, seed=rng,
                batches=batches, backend=backend,
            )  # fmt: skip
            info = res.info
            tail = list(info["tail"]) + [0.0] * (40 - len(info["tail"]))
            little.append(sum(info["tail"]) / lamf)
            s.append(tail[:levels])
            snap = res.values[0, 1:, :levels]  # the boundaries after the warm-up
            snaps.append(np.pad(snap, ((0, 0), (0, levels - snap.shape[1]))))
            events += int(res.events.sum())
            secs += info["seconds"]
        little, s = np.array(little), np.array(s)
        bias = _control_ci(little - mf_T, s[:, 0], rho)
        tb = [_mean_ci(s[:, 0] - mf_tail[0])]
        tb += [_control_ci(s[:, k] - mf_tail[k], s[:, 0], rho) for k in range(1, levels)]
        pooled = np.concatenate(snaps)
        fl = []
        for k in range(levels):
            per = np.array([sn[:, k].std(ddof=1) for sn in snaps])
            e = _mean_ci(per)
            v = float(pooled[:, k].std(ddof=1))
            fl.append(Estimate(v, v - e.half, v + e.half))
        rows.append(NRow(N, T_meas, R, bias, tb, fl, events, secs))
    Nv = [r.N for r in rows]
    bfit = power_fit(Nv, [r.sojourn_bias.value for r in rows], [r.sojourn_bias.half for r in rows])  # fmt: skip
    tfits = [None] + [
        power_fit(Nv, [r.tail_bias[k].value for r in rows], [r.tail_bias[k].half for r in rows])
        for k in range(1, levels)
    ]
    ffits = []
    for k in range(levels):
        sd = [r.fluct_sd[k] for r in rows]
        ffits.append(power_fit(Nv, [e.value for e in sd], [e.half for e in sd], log=True))
    notes = []
    resolved = [r.N for r in rows if r.sojourn_bias.lo > 0 or r.sojourn_bias.hi < 0]
    unresolved = [r.N for r in rows if r.N not in resolved]
    if unresolved:
        notes.append(
            "bias of E[T] not resolved (95% CI contains 0) at N = "
            + ", ".join(str(n) for n in unresolved)
        )
    label = service.kind if hasattr(service, "kind") else str(service)
    return ConvergenceResult(
        d, fp.lam, label, mf_T, mf_tail, warmup, rows, bfit, tfits, ffits, notes
    )
