"""The transient of the SQ(d) mean field from a given start (``symdelay sqd fluid``, and
``symdelay fluid --model sqd``): :func:`specialised_fluid`, the fluid entry's
specialisation for the sqd model, and :func:`fluid`, the convenience that builds the model.

The truncated drift of :mod:`.fixed_point` integrated by SciPy's stiff solver (BDF with the
analytic Jacobian) in the phase-wise tails ``u_{k,j}``, and returned in the model's states
``x_{k,j} = u_{k,j} - u_{k+1,j}`` (a :class:`~symdelay.analysis.timeseries.TimeSeries`, the
record of the generic path too). A start is ``"empty"``, ``"fixed"`` (the fixed point) or a
list of tail fractions ``s_1 >= s_2 >= ...`` with every busy server at the stationary
residual phase mix.

The drift and its block-tridiagonal Jacobian are evaluated here with numpy on the arrays
(``K`` levels of ``m`` phases; :func:`drift_array`, :func:`jacobian_sparse`), the Jacobian
as a sparse matrix of ``(3K - 2) m^2`` entries, so one step costs ``O(K m^2)`` work plus a
sparse block-tridiagonal factorisation ``O(K m^3)``; the list-based ``drift_u`` /
``jacobian_u`` of :mod:`.fixed_point` are the independent check (tests). The cost is
estimated from ``K``, ``m`` and ``T`` first and a run over the budget of
:mod:`symdelay.models.sqd._budget` is refused unless ``force``.

>>> from symdelay.models.sqd.service import exponential
>>> tr = fluid(2, "0.9", exponential(), T=60, K=10)
>>> round(float(tails(tr)[-1][0]), 2)
0.9
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np

from symdelay.analysis.timeseries import TimeSeries
from symdelay.core.errors import SymdelayInputError
from symdelay.models.phase_type import PhaseType
from symdelay.models.sqd._budget import check_budget, check_memory
from symdelay.models.sqd.fixed_point import (
    _P,
    _Px,
    _Py,
    as_lam,
    stationary_phases,
    truncation_level,
)
from symdelay.models.sqd.meanfield import as_d

__all__ = [
    "fluid",
    "specialised_fluid",
    "tails",
    "to_states",
    "proved_levels",
    "drift_array",
    "jacobian_sparse",
    "estimate_seconds",
    "estimate_bytes",
]

#: Seconds per unit of ``K m^2`` work and BDF step, and steps expected (roughly).
STEP_SECONDS, STEPS = 2.5e-8, 400
#: Seconds per unit of ``K m^3`` (a factorisation), factorisations expected.
LU_SECONDS, FACTORISATIONS = 3.3e-9, 60
#: Largest number of output times.
POINTS_MAX = 100_000


def estimate_seconds(K: int, m: int, points: int = 51) -> float:
    """Rough single-core running time of :func:`fluid` at truncation ``K``, ``m`` phases."""
    return (
        0.2
        + STEP_SECONDS * STEPS * K * m * m
        + LU_SECONDS * FACTORISATIONS * K * m**3
        + 1e-6 * points * K
    )


def estimate_bytes(K: int, m: int, points: int = 51) -> float:
    """Bytes of the Jacobian (and its factors, about 4 copies), the BDF history and output."""
    return 4 * 16.0 * 3 * K * m * m + 8.0 * K * m * 20 + 8.0 * points * K * (m + 1)


class _Arrays:
    """The service and rate as numpy arrays for :func:`drift_array` / :func:`jacobian_sparse`."""

    def __init__(self, service: PhaseType, d: int, lam, K: int):
        m = service.phases
        self.m, self.K, self.d, self.lam = m, K, d, float(lam)
        self.alpha = np.array([float(v) for v in service.alpha], dtype=float)
        self.S = np.array(
            [[float(service.S[i, j]) for j in range(m)] for i in range(m)], dtype=float
        )
        self.e = np.array([float(v) for v in service.exit_rates], dtype=float)


def drift_array(a: _Arrays, u: np.ndarray) -> np.ndarray:
    """The drift of :func:`~symdelay.models.sqd.fixed_point.drift_u` on a ``(K, m)`` array."""
    s = u.sum(axis=1)
    out = u @ a.S
    if a.K > 1:
        out[:-1] += (u[1:] @ a.e)[:, None] * a.alpha[None, :]
        P = _P(s[:-1], s[1:], a.d)
        out[1:] += a.lam * (u[:-1] - u[1:]) * P[:, None]
    out[0] += a.lam * (1 - s[0] ** a.d) * a.alpha
    return out


def jacobian_sparse(a: _Arrays, u: np.ndarray):
    """The Jacobian of :func:`drift_array` (rows and columns ``k m + j``), a CSC matrix."""
    from scipy.sparse import coo_matrix

    K, m, lam, d = a.K, a.m, a.lam, a.d
    s = u.sum(axis=1)
    eye = np.eye(m)
    D = np.broadcast_to(a.S.T, (K, m, m)).copy()
    D[0] += -lam * d * s[0] ** (d - 1) * a.alpha[:, None] * np.ones((1, m))
    blocks, brow, bcol = [D], [np.arange(K)], [np.arange(K)]
    if K > 1:
        x = u[:-1] - u[1:]  # levels 2..K: x_j of the flow term
        P = _P(s[:-1], s[1:], d)[:, None, None]
        Px = _Px(s[:-1], s[1:], d)[:, None, None]
        Py = _Py(s[:-1], s[1:], d)[:, None, None]
        D[1:] += lam * (-P * eye + x[:, :, None] * Py)
        Lb = lam * (P * eye + x[:, :, None] * Px)
        Ub = np.broadcast_to(a.alpha[:, None] * a.e[None, :], (K - 1, m, m))
        blocks += [Lb, Ub]
        brow += [np.arange(1, K), np.arange(K - 1)]
        bcol += [np.arange(K - 1), np.arange(1, K)]
    jj, ii = np.meshgrid(np.arange(m), np.arange(m), indexing="ij")  # row j, column i
    rows = np.concatenate([(br[:, None, None] * m + jj).ravel() for br in brow])
    cols = np.concatenate([(bc[:, None, None] * m + ii).ravel() for bc in bcol])
    vals = np.concatenate([b.ravel() for b in blocks])
    return coo_matrix((vals, (rows, cols)), shape=(K * m, K * m)).tocsc()


def _whole(name: str, value, least: int) -> int:
    msg = f"--{name} must be a whole number >= {least}, got {value!r}"
    if isinstance(value, bool):
        raise SymdelayInputError(msg)
    try:
        v = int(str(value).strip())
    except ValueError:
        raise SymdelayInputError(msg) from None
    if v < least:
        raise SymdelayInputError(msg)
    return v


def _start_u(service: PhaseType, start, K: int, fp=None) -> list:
    m = service.phases
    pi = stationary_phases(service)
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
    d=2,
    lam="0.9",
    service: PhaseType | None = None,
    *,
    T=50,
    start="empty",
    K=None,
    points=201,
    force=False,
) -> TimeSeries:
    """The mean field's path on ``[0, T]`` at ``points`` equally spaced times (``points >=
    2``, both ends included), ``K`` levels (default: from the proved bound): the model
    :func:`~symdelay.models.sqd.meanfield.sqd_model` and the entry
    :func:`symdelay.analysis.fluid.fluid` (its specialisation :func:`specialised_fluid`).
    ``start``: ``"empty"``, ``"fixed"`` (the fixed point) or tail fractions ``s_1 >= s_2 >=
    ...`` with every busy server at the stationary residual phase mix."""
    from fractions import Fraction

    from symdelay.analysis.fluid import fluid as entry
    from symdelay.models.sqd.service import exponential

    d = as_d(d)
    service = service or exponential()
    lamv = as_lam(lam, service.mean)
    try:
        T = float(T)
    except (TypeError, ValueError):
        raise SymdelayInputError(f"--T must be a positive number, got {T}") from None
    if not (np.isfinite(T) and T > 0):
        raise SymdelayInputError(f"--T must be a positive finite number, got {T}")
    points = _whole("points", points, 2)
    if points > POINTS_MAX:
        raise SymdelayInputError(f"--points must be at most {POINTS_MAX}, got {points}")
    K = _whole("K", K, 1) if K is not None else proved_levels(service, d, lamv)
    m = service.phases
    size = f"the fluid path at K = {K} levels, {m} phase(s), {points} points"
    check_memory(size, estimate_bytes(K, m, points), force=force, shrink="--K or --points")
    check_budget(size, estimate_seconds(K, m, points), force=force, shrink="--K or --points")
    fp = None
    if start == "fixed":
        from symdelay.models.sqd.fixed_point import fixed_point

        fp = fixed_point(d, lamv, service, method="newton")
    u0 = np.array(_start_u(service, start, K, fp), dtype=float)
    model = _model(service, d, K, lamv)
    dt = Fraction(T) / (points - 1)
    return entry(model, T=T, dt=dt, initial=to_states(u0).ravel(), force=force)


#: The models :func:`fluid` built, by service, d, K and lam (building one costs SymPy time).
_MODELS: dict = {}


def _model(service, d: int, K: int, lam):
    """The sqd model of these options, built once (a path integrated to longer and longer
    horizons asks for the same model each time)."""
    from symdelay.models.sqd.meanfield import sqd_model

    key = (service.kind, tuple(service.alpha), tuple(service.S), d, K, lam)
    found = _MODELS.get(key)
    if found is None:
        if len(_MODELS) >= 16:
            _MODELS.pop(next(iter(_MODELS)))
        found = _MODELS[key] = sqd_model(service, d=d, K=K, lam_value=lam)
    return found


def proved_levels(service, d, lam) -> int:
    """The level at which the proved tail bound of the fixed point falls below 1e-15 (at
    least 4): the default truncation of a fluid path."""
    return max(truncation_level(service, d, lam, 12), 4)


def to_states(u: np.ndarray) -> np.ndarray:
    """The model's states ``x_{k,j}`` from the phase-wise tails ``u_{k,j}`` (the last two
    axes ``(K, m)``): ``x_k = u_k - u_{k+1}``."""
    x = u.copy()
    x[..., :-1, :] -= u[..., 1:, :]
    return x


def tails(ts) -> np.ndarray:
    """The tail fractions ``s_k(t) = sum_{n >= k} sum_j x_{n,j}(t)`` of an SQ(d) time series
    (rows: times of the first replication, columns: k = 1..K)."""
    K = max(int(s.split("_")[1]) for s in ts.states)
    per_level = ts.values[0].reshape(ts.t.size, K, -1).sum(axis=2)
    return np.cumsum(per_level[:, ::-1], axis=1)[:, ::-1]


def specialised_fluid(
    model, *, T, dt, initial=None, solver="auto", rtol=None, atol=None, force=False
) -> TimeSeries | None:
    """The SQ(d) model's fluid path, the fluid entry's specialisation: the drift in the
    phase-wise tails (block tridiagonal, :func:`drift_array`), integrated by SciPy's BDF
    with the analytic sparse Jacobian (:func:`jacobian_sparse`), ``rtol = 1e-10``,
    ``atol = 1e-13`` by default; the path is returned in the model's states. Declines
    (``None``) while ``lam`` is symbolic."""
    from scipy.integrate import solve_ivp

    from symdelay.analysis.fluid import check_tolerance
    from symdelay.analysis.stochastic import run_parameters
    from symdelay.core.checks import check_horizon, check_state, time_grid
    from symdelay.core.symbols import lam as LAM

    if model.free_parameters:
        return None
    T, dt = check_horizon(T, dt)
    grid = time_grid(T, dt)
    service, d, K, lamv = model.service, model.d, model.K, model.values[LAM]
    m = service.phases
    size = f"the fluid path at K = {K} levels, {m} phase(s), {grid.size} points"
    check_memory(size, estimate_bytes(K, m, grid.size), force=force, shrink="--K or --points")
    check_budget(size, estimate_seconds(K, m, grid.size), force=force, shrink="--K or --points")
    n = K * m
    names = [s.name for s in model.states]
    x0 = (
        np.asarray(model.default_start(), float) if initial is None else check_state(initial, names)
    )
    method = "BDF" if solver == "auto" else solver
    rtol = 1e-10 if rtol is None else check_tolerance("rtol", rtol)
    atol = 1e-13 if atol is None else check_tolerance("atol", atol)
    arrays = _Arrays(service, d, lamv, K)
    u0 = np.cumsum(x0.reshape(K, m)[::-1], axis=0)[::-1].ravel()  # the tails by phase

    def f(_t, y):
        return drift_array(arrays, y.reshape(K, m)).ravel()

    def jac(_t, y):
        return jacobian_sparse(arrays, y.reshape(K, m))

    kw = {"jac": jac} if method in ("Radau", "BDF", "LSODA") else {}
    with (
        np.errstate(over="raise", invalid="raise", divide="raise"),
        warnings.catch_warnings(record=True) as said,
    ):
        warnings.simplefilter("always")
        try:
            sol = solve_ivp(f, (0, float(grid[-1])), u0, method=method, t_eval=grid, rtol=rtol,
                            atol=atol, **kw)  # fmt: skip
        except ValueError as exc:  # an unknown method
            raise SymdelayInputError(f"solver {solver!r}: {exc}") from None
        except (FloatingPointError, RuntimeError, np.linalg.LinAlgError) as exc:
            raise SymdelayInputError(
                f"the integration failed ({' '.join(str(exc).split())}): the rates (the service "
                "mean, lam) are too far from 1 for double precision; give values nearer 1"
            ) from None
    if said:
        raise SymdelayInputError(
            f"the integration did not meet its tolerances ({said[0].message}): give a service "
            "mean and lam nearer 1"
        )
    if not sol.success:
        raise SymdelayInputError(f"the integration failed at T = {T:g} ({sol.message}): lower --T")
    x = to_states(sol.y.T.reshape(grid.size, K, m)).reshape(grid.size, n)
    notes = []
    proved = proved_levels(service, d, lamv)
    if proved > K:
        notes.append(
            f"K = {K} is below the level {proved} at which the proved tail bound of the fixed "
            "point falls below 1e-15: this is the path of the truncated system (no jobs "
            f"beyond {K} per queue), which can differ from the mean field"
        )
    params = run_parameters(model)
    params.update(T=T, dt=dt, initial=x0.tolist())
    info = {"solver": {"method": method, "rtol": rtol, "atol": atol}, "notes": notes}
    return TimeSeries(
        tuple(s.name for s in model.states), grid, x, params, kind="fluid",
        model_name=model.name, info=info,
    )  # fmt: skip
