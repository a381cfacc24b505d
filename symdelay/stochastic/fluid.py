"""The fluid limit integrated numerically: SciPy ``solve_ivp`` on the model layer's ODEs.

The right-hand side is :meth:`ActionDelayModel.fluid_rhs` (or the exact difference system)
turned into NumPy code by :func:`sympy.lambdify` together with its Jacobian, once per
``(L, mu, lam, theta, D)`` (cached). Default solver: ``DOP853`` (explicit Runge--Kutta of
order 8) with ``rtol = 1e-10``, ``atol = 1e-12``; any ``solve_ivp`` method can be chosen
(implicit ones get the exact Jacobian).

>>> f = fluid(L=1, mu=1, lam=1, theta=2, D=1, T=2, dt=1)
>>> [round(float(v), 6) for v in f.q1 + f.q2]  # the sum mode relaxes to 2 lam/mu = 2
[1.0, 0.896362, 1.323324]
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import sympy as sp

from .. import symbols as sym
from ..errors import SymdelayInputError, VerificationError
from ..models import ActionDelayModel
from ._inputs import check_horizon, check_rates, time_grid
from ._models import symbolic_model

__all__ = ["fluid", "fluid_difference", "FluidResult", "DifferenceResult", "DEFAULT_SOLVER"]

#: The default integrator and tolerances.
DEFAULT_SOLVER = {"method": "DOP853", "rtol": 1e-10, "atol": 1e-12}


@lru_cache(maxsize=64)
def _model(L, mu, lam, theta, D) -> ActionDelayModel:
    return ActionDelayModel(L=L, mu=mu, lam=lam, theta=theta, D=D)


def _symbolic_difference_system(L):
    return symbolic_model(L).difference_system()


@lru_cache(maxsize=64)
def _compiled(L, mu, lam, theta, D, mode: str):
    """``(f(t, y), jac(t, y))`` lambdified from the model's symbolic right-hand side."""
    if mode == "full":
        m = _model(L, mu, lam, theta, D)
        state, rhs = m.state, m.fluid_rhs()
    else:
        # Derived once per L with symbolic parameters (the model layer's tanh check needs
        # theta symbolic), then the numbers are substituted.
        ds = _symbolic_difference_system(L)
        values = {sym.mu: mu, sym.lam: lam, sym.theta: theta, sym.gamma: sp.Integer(L) / D}
        state, rhs = ds.state, tuple(e.subs(values) for e in ds.rhs)
    rhs_m = sp.Matrix(rhs)
    jac_m = rhs_m.jacobian(sp.Matrix(state))
    f_l = sp.lambdify(state, list(rhs), modules="numpy")
    j_l = sp.lambdify(state, jac_m.tolist(), modules="numpy")

    def f(t, y):
        return np.array(f_l(*y), dtype=float)

    def jac(t, y):
        return np.array(j_l(*y), dtype=float)

    return f, jac, tuple(str(s) for s in state)


def _solve(f, jac, y0, grid, method, rtol, atol):
    from scipy.integrate import solve_ivp  # imported on use: it is slow to import

    kw = {"jac": jac} if method in ("Radau", "BDF", "LSODA") else {}
    sol = solve_ivp(
        f, (0.0, float(grid[-1])), y0, method=method, t_eval=grid, rtol=rtol, atol=atol, **kw
    )
    if not sol.success:
        raise VerificationError(f"solve_ivp ({method}) failed: {sol.message}")
    return sol.y


def _check_initial(initial, n, what):
    try:
        y0 = np.asarray(initial, dtype=float)
    except (TypeError, ValueError):
        raise SymdelayInputError(f"initial must be {n} numbers ({what}), got {initial!r}") from None
    if y0.ndim != 1 or y0.size != n:
        raise SymdelayInputError(f"initial must have {n} entries ({what}), got {y0.size}")
    if not np.all(np.isfinite(y0)):
        raise SymdelayInputError("initial must contain finite numbers")
    return y0


@dataclass
class FluidResult:
    """The fluid solution on a grid: ``q1, q2`` (1-D), ``z1, z2`` (``L x len(t)``)."""

    L: int
    parameters: dict
    t: np.ndarray
    y: np.ndarray  # (len(t), 2L+2), columns in the order of ActionDelayModel.state
    solver: dict

    @property
    def q1(self):
        return self.y[:, 0]

    @property
    def q2(self):
        return self.y[:, 1]

    @property
    def z1(self):
        return self.y[:, 2 : 2 + self.L].T

    @property
    def z2(self):
        return self.y[:, 2 + self.L :].T

    @property
    def x(self):
        return self.q1 - self.q2

    @property
    def w(self):
        """``w[l-1] = z1_l - z2_l``."""
        return self.z1 - self.z2

    def __getitem__(self, key):
        if key in ("t", "q1", "q2", "z1", "z2"):
            return getattr(self, key)
        raise KeyError(key)

    def to_json(self) -> dict:
        """``{"t", "q1", "q2", "z1", "z2"}`` (same keys and grid as ``simulate``)."""
        return {
            "t": self.t.tolist(),
            "q1": self.q1.tolist(),
            "q2": self.q2.tolist(),
            "z1": self.z1.tolist(),
            "z2": self.z2.tolist(),
        }


def fluid(
    L=2,
    mu=1,
    lam=1,
    theta=2,
    D=1,
    T=20,
    dt=0.1,
    initial=None,
    *,
    method: str = DEFAULT_SOLVER["method"],
    rtol: float = DEFAULT_SOLVER["rtol"],
    atol: float = DEFAULT_SOLVER["atol"],
) -> FluidResult:
    """Integrate the 2(L+1) fluid ODEs on the grid ``0, dt, ..., floor(T/dt) dt``.

    ``initial`` is the scaled state ``q1, q2, z1_1..z1_L, z2_1..z2_L`` (default
    ``q1 = 0, q2 = 1``, the rest 0, like the paper and :func:`simulate`).
    """
    p = check_rates(L, mu, lam, theta, D)
    L = p["L"]
    T, dt = check_horizon(T, dt)
    grid = time_grid(T, dt)
    n = 2 * L + 2
    if initial is None:
        y0 = np.zeros(n)
        y0[1] = 1.0
    else:
        y0 = _check_initial(initial, n, "q1, q2, z1_1..z1_L, z2_1..z2_L")
        if np.any(y0 < 0):
            raise SymdelayInputError("initial must contain scaled job counts >= 0")
    f, jac, _ = _compiled(L, p["mu"], p["lam"], p["theta"], p["D"], "full")
    y = _solve(f, jac, y0, grid, method, rtol, atol)
    params = {k: p[k] for k in ("mu", "lam", "theta", "D", "gamma")}
    return FluidResult(L, params, grid, y.T, {"method": method, "rtol": rtol, "atol": atol})


@dataclass
class DifferenceResult:
    """The exact (tanh) difference dynamics ``x, w_1..w_L`` on a grid."""

    L: int
    parameters: dict
    t: np.ndarray
    x: np.ndarray
    w: np.ndarray  # (L, len(t))
    solver: dict

    def to_json(self) -> dict:
        return {"t": self.t.tolist(), "x": self.x.tolist(), "w": self.w.tolist()}


def fluid_difference(
    L=2,
    mu=1,
    lam=1,
    theta=2,
    D=1,
    T=20,
    dt=0.1,
    initial=(0.5,),
    *,
    method: str = DEFAULT_SOLVER["method"],
    rtol: float = DEFAULT_SOLVER["rtol"],
    atol: float = DEFAULT_SOLVER["atol"],
) -> DifferenceResult:
    """Integrate the closed difference mode from ``(x(0), w_1(0), ..)`` (missing w's are 0).

    The default start ``(0.5, 0, ..., 0)`` is the paper's phase-plot start.
    """
    p = check_rates(L, mu, lam, theta, D)
    L = p["L"]
    T, dt = check_horizon(T, dt)
    grid = time_grid(T, dt)
    init = _check_initial(initial, len(initial) if initial else 0, "x, w_1, ...")
    if not 1 <= init.size <= L + 1:
        raise SymdelayInputError(f"initial must have 1 to L+1 = {L + 1} entries (x, w_1..w_L)")
    y0 = np.zeros(L + 1)
    y0[: init.size] = init
    f, jac, _ = _compiled(L, p["mu"], p["lam"], p["theta"], p["D"], "difference")
    y = _solve(f, jac, y0, grid, method, rtol, atol)
    params = {k: p[k] for k in ("mu", "lam", "theta", "D", "gamma")}
    return DifferenceResult(
        L, params, grid, y[0], y[1:], {"method": method, "rtol": rtol, "atol": atol}
    )
