"""The transient of the SQ(d) mean field from a given start (``symdelay sqd fluid``).

The truncated drift of :mod:`.fixed_point` integrated by SciPy's stiff solver (BDF with the
analytic Jacobian). A start is ``"empty"``, ``"fixed"`` (the fixed point) or a list of tail
fractions ``s_1 >= s_2 >= ...`` with every busy server at the stationary residual phase mix.

>>> from symdelay.models.sqd.service import exponential
>>> tr = fluid(2, "0.9", exponential(), T=60, K=10)
>>> round(float(tr.tail[-1][0]), 2)
0.9
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from symdelay.core.display import JsonRecord
from symdelay.core.errors import SymdelayInputError
from symdelay.models.phase_type import PhaseType
from symdelay.models.sqd.fixed_point import _system, as_lam, drift_u, jacobian_u, truncation_level
from symdelay.models.sqd.meanfield import as_d

__all__ = ["FluidPath", "fluid"]


@dataclass
class FluidPath(JsonRecord):
    """Times and the tails ``s_k(t)`` (rows: times, columns: k = 1..K)."""

    d: int
    lam: object
    t: np.ndarray
    tail: np.ndarray
    truncation: int

    def to_json(self) -> dict:
        return {
            "d": self.d,
            "lam": str(self.lam),
            "t": [float(v) for v in self.t],
            "tail": [[float(v) for v in row] for row in self.tail],
            "truncation": self.truncation,
        }

    def plot(self, ax=None, levels=(1, 2, 3, 4)):
        from symdelay.core.display import draw

        return draw(self, ax=ax, levels=levels)


def _start_u(service: PhaseType, start, K: int, fp=None) -> list:
    m = service.phases
    pi = list(service.alpha * (-service.S).inv())
    tot = float(sum(pi))
    pi = [float(v) / tot for v in pi]
    if isinstance(start, str):
        if start == "empty":
            return [[0.0] * m for _ in range(K)]
        if start == "fixed":
            return [[float(v) for v in row] for row in fp.u][:K] + [[0.0] * m] * (K - len(fp.u))
        start = [v for v in start.split(",") if v.strip()]
    try:
        s = [float(v) for v in start]
    except (TypeError, ValueError):
        raise SymdelayInputError(
            "--start is empty, fixed, or tail fractions s_1,s_2,... e.g. 0.5,0.2"
        ) from None
    if any(not 0 <= v <= 1 for v in s) or any(a < b for a, b in itertools.pairwise(s)):
        raise SymdelayInputError("start tails must satisfy 1 >= s_1 >= s_2 >= ... >= 0")
    s = (s + [0.0] * K)[:K]
    return [[v * p for p in pi] for v in s]


def fluid(
    d=2, lam="0.9", service: PhaseType | None = None, *, T=50, start="empty", K=None, points=201
):
    """Integrate the truncated mean field on ``[0, T]``."""
    from scipy.integrate import solve_ivp

    from symdelay.models.sqd.service import exponential

    d = as_d(d)
    service = service or exponential()
    lamv = as_lam(lam, service.mean)
    try:
        T = float(T)
    except (TypeError, ValueError):
        raise SymdelayInputError(f"--T must be a positive number, got {T}") from None
    if not T > 0:
        raise SymdelayInputError(f"--T must be a positive number, got {T}")
    K = int(K) if K is not None else max(truncation_level(service, d, lamv, 12), 4)
    fp = None
    if start == "fixed":
        from symdelay.models.sqd.fixed_point import fixed_point

        fp = fixed_point(d, lamv, service, method="newton")
    sysf = _system(service, d, lamv, K, float)
    m = sysf.m
    u0 = np.array(_start_u(service, start, K, fp), dtype=float).ravel()

    def f(_t, y):
        return np.array(drift_u(sysf, y.reshape(K, m).tolist()), dtype=float).ravel()

    def jac(_t, y):
        Ls, Ds, Us = jacobian_u(sysf, y.reshape(K, m).tolist())
        J = np.zeros((K * m, K * m))
        for k in range(K):
            J[k * m : (k + 1) * m, k * m : (k + 1) * m] = Ds[k]
            if k > 0:
                J[k * m : (k + 1) * m, (k - 1) * m : k * m] = Ls[k]
            if k < K - 1:
                J[k * m : (k + 1) * m, (k + 1) * m : (k + 2) * m] = Us[k]
        return J

    ts = np.linspace(0, T, int(points))
    sol = solve_ivp(f, (0, T), u0, method="BDF", jac=jac, t_eval=ts, rtol=1e-10, atol=1e-13)
    if not sol.success:  # pragma: no cover
        raise SymdelayInputError(f"the integration failed: {sol.message}")
    tails = sol.y.reshape(K, m, -1).sum(axis=1).T
    return FluidPath(d, lamv, sol.t, tails, K)
