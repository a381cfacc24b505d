"""The fluid path of any model: ``ds/dt = F(s)`` (the eta -> infinity limit of the scaled
jump process) integrated on a time grid, behind one entry that takes the model first.

:func:`fluid` asks the model's family for its own integrator first (the SQ(d) mean field's
block-tridiagonal BDF, the LB model's sliding Euler path, the two-queue logit constant-lag
model's method of steps); otherwise the drift of the transition table is compiled once per
model (:func:`compile_rhs`, :mod:`symdelay.analysis.fluid_ode`) and integrated by SciPy's
``solve_ivp``, and a model with lags goes to the method of steps with dense output
(:func:`symdelay.analysis.dfluid.delay_fluid`). Every path returns a
:class:`~symdelay.analysis.timeseries.TimeSeries`.

Overflow. A routing probability of the logit (softmax) form ``c_k exp(b_k) / sum_j c_j
exp(b_j)`` overflows in doubles for large ``theta q`` (``inf/inf``). The compiled drift reads
each such ratio as a symbol ``P_k`` evaluated with the largest exponent subtracted,
``w_j = c_j exp(d_j - max d)``, ``P_k = w_k / sum w``, where ``d_j = b_j - b_0`` is simplified
symbolically (so ``theta (q_1 - q_2)``, finite however large ``theta q`` is): no term
overflows, and ``P`` tends to 0 or 1 as it should. The Jacobian follows by the chain rule,
``dP_k/ds = P_k (dd_k/ds - sum_l P_l dd_l/ds)``.

Solver. ``"auto"``: DOP853 (explicit Runge-Kutta of order 8), or LSODA with the exact sparse
Jacobian when the fastest rate at which one state relaxes on its own, ``max_i |dF_i/ds_i|``
at the start, times ``T`` exceeds 10^4 (an explicit method would crawl); any ``solve_ivp``
method can be named (the implicit ones get the Jacobian). Defaults ``rtol = 1e-10``,
``atol = 1e-12``.
"""

from __future__ import annotations

from symdelay.analysis.entry import entry_doc, specialised
from symdelay.analysis.fluid_ode import (
    DEFAULT_ATOL,
    DEFAULT_RTOL,
    STIFF,
    CompiledRHS,
    check_fluid_cost,
    check_tolerance,
    compile_rhs,
    integrate,
)
from symdelay.analysis.timeseries import TimeSeries
from symdelay.core.errors import SymdelayInputError

__all__ = [
    "fluid",
    "check_fluid_cost",
    "compile_rhs",
    "check_tolerance",
    "CompiledRHS",
    "integrate",
    "DEFAULT_RTOL",
    "DEFAULT_ATOL",
    "STIFF",
]

# ---------------------------------------------------------------------------------------
# the entry


@entry_doc
def fluid(
    model,
    T=20,
    dt=0.1,
    initial=None,
    method: str = "auto",
    *,
    solver: str = "auto",
    rtol: float | None = None,
    atol: float | None = None,
    force: bool = False,
    history=None,
) -> TimeSeries:
    """Integrate the fluid equations of ``model`` on the grid ``0, dt, ..., floor(T/dt) dt``:
    the drift of its transition table, or, for a model with lags, its delay equations by the
    method of steps (:mod:`symdelay.analysis.dfluid`).

    Parameters
    ----------
    model : Model
        The model (its transition table), every parameter a number.
    T : number, default 20
        The horizon, in the model's time units; ``T > 0``.
    dt : number, default 0.1
        The step of the output grid (``0 < dt <= T``); the integrator chooses its own steps.
    initial : sequence of float, optional
        The scaled state at time 0, one value per state in the model's order; default the
        model's start (:meth:`~symdelay.model.Model.default_start`: the founding model's
        ``q1 = 0, q2 = 1``; a table's equilibrium with its first state raised by half; the
        SQ(d) model's empty system). For a model with lags, and unless ``history`` says
        otherwise, the history is this state held constant before 0.
    method : {"auto", "generic", "specialised"}, default "auto"
        %(method)s
        Here ``"auto"`` is the family's own integrator where it has one (SQ(d), LB), else the
        table's drift compiled once per model.
    solver : str, default "auto"
        ``"auto"`` (DOP853, or LSODA with the exact Jacobian when stiff) or a
        :func:`scipy.integrate.solve_ivp` method name.
    rtol, atol : float, optional
        The solver's relative and absolute tolerances, each finite and ``> 0`` (default
        1e-10 and 1e-12; :func:`~symdelay.analysis.fluid_ode.check_tolerance`, the rule of
        the command's ``--rtol`` / ``--atol`` too).
    force : bool, default False
        Run even when the estimated cost is over the shared budget.
    history : None, "empty", str or dict, optional
        A model with lags only: the states before 0. ``None``: ``initial`` held constant;
        ``"empty"``: nothing decided before 0 (action delays only); a CSV file or a table
        ``{"t": [...], state: [...]}`` with ``t`` increasing to 0 over at least the longest
        lag, interpolated linearly.

    Returns
    -------
    TimeSeries
        ``kind="fluid"``: the path of every state on the grid, ``info["solver"]`` the
        integrator and its tolerances (with lags: the scheme, pieces, breakpoints and error
        control; a column ``in_transit[<transition>]`` per action-delayed transition, and
        ``res.at(times)`` the dense solution).

    Examples
    --------
    >>> from symdelay.models import build_model
    >>> f = fluid(build_model("nserver", N=2, L=1, mu=1, lam=1, theta=2, D=1), T=1, dt=0.5)
    >>> f.t.tolist(), f.states
    ([0.0, 0.5, 1.0], ('q1', 'q2', 'z1_1', 'z2_1'))
    """
    # checked before any path runs (each path's integrator checks them again): one rule
    rtol = None if rtol is None else check_tolerance("rtol", rtol)
    atol = None if atol is None else check_tolerance("atol", atol)
    kw = dict(T=T, dt=dt, initial=initial, solver=solver, rtol=rtol, atol=atol, force=force)
    from symdelay.model.core import has_lags

    lags = has_lags(model)  # read without building a family's table (an Erlang(2000) chain)
    if history is not None and not lags:
        raise SymdelayInputError(
            f"--history is for a model with lags: {getattr(model, 'name', model)} has none "
            "(its path starts from --initial alone)"
        )
    if lags:
        kw["history"] = history
    result = specialised(model, "fluid", method, **kw)
    if result is not None:
        return result
    from symdelay.analysis.stochastic import need_table

    need_table(model, "fluid path")
    if lags:
        from symdelay.analysis.dfluid import delay_fluid

        return delay_fluid(model, **kw)
    return _generic_fluid(model, **kw)


def compiled_drift(model) -> CompiledRHS:
    """The model's drift compiled once per model (:func:`compile_rhs`)."""

    def compute():
        from symdelay.core.lazy import sympy as sp

        values = {p: sp.Float(v, 17) if not v.is_Rational else v for p, v in model.values.items()}
        return compile_rhs(model.states, [sp.sympify(e).xreplace(values) for e in model.drift])

    return model.cached("fluid drift", compute)


#: right-hand side evaluations allowed a path whose drift jumps (Heaviside, Piecewise)
MAX_STEP_EVALUATIONS = 200_000


def _bounded(model, rhs: CompiledRHS) -> CompiledRHS:
    """``rhs`` itself, or, where the drift may jump across a switch of a state (a step of
    ``Heaviside``, ``sign`` or a ``Piecewise``), one that refuses in one line after
    :data:`MAX_STEP_EVALUATIONS` evaluations: a path that slides along a step makes the
    error control shrink the steps without end."""
    from symdelay.core.lazy import sympy as sp

    states = set(model.states)
    jumps = [
        a
        for f in model.drift
        for a in sp.sympify(f).atoms(sp.Heaviside, sp.sign, sp.Piecewise)
        if a.free_symbols & states
    ]
    if not jumps:
        return rhs
    count = [0]
    f0 = rhs.f

    def f(t, y):
        count[0] += 1
        if count[0] > MAX_STEP_EVALUATIONS:
            raise SymdelayInputError(
                f"the fluid path of {model.name} reached a step of {jumps[0]} near t = "
                f"{t:.6g} and slides along it (a discontinuous drift the integrator cannot "
                "follow to its tolerance); a shorter --T, or parameters whose path stays off "
                "the step"
            )
        return f0(t, y)

    return CompiledRHS(rhs.n, f, rhs.jac, rhs.diagonal)


def _generic_fluid(model, *, T, dt, initial, solver, rtol, atol, force) -> TimeSeries:
    from symdelay.analysis.roots import default_initial, require_values
    from symdelay.analysis.stochastic import check_table_cost, run_parameters, state_count
    from symdelay.core.checks import check_horizon, check_state, time_grid

    Tf, dtf = check_horizon(T, dt)
    n = state_count(model)
    check_fluid_cost(f"the fluid path of {model.name} ({n} states, T = {Tf:g})", n, Tf, dtf, force)
    check_table_cost(model, force)
    require_values(model, "the fluid path")
    names = [s.name for s in model.states]
    y0 = default_initial(model) if initial is None else check_state(initial, names)
    grid = time_grid(Tf, dtf)
    y, record = integrate(_bounded(model, compiled_drift(model)), y0, grid, solver, rtol, atol)
    params = run_parameters(model)
    params.update(T=Tf, dt=dtf, initial=y0.tolist())
    return TimeSeries(
        tuple(names), grid, y, params, kind="fluid", model_name=model.name,
        info={"solver": record},
    )  # fmt: skip
