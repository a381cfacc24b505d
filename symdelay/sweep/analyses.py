"""The analyses a sweep can run: a registry of names -> ``"module:function"``.

Every entry is a function taking keyword arguments (the spec's parameters and grid values)
and returning a flat dict of JSON values (numbers, text, booleans, None) — one column each in
the results table. An analysis that takes a ``seed`` keyword gets one per task (see
:func:`symdelay.sweep.spec.task_seed`). The modules are imported only when a spec names them.

To add an analysis, add one line to :data:`ANALYSES` (the module must exist), or at run time
call :func:`register_analysis`.

A spec is data, like a model file: it never executes code. It names a registered analysis
only. A spec naming ``"mypackage.mymodule:myfunction"`` is refused unless the user allowed
exactly that name where the sweep is started (``symdelay sweep run SPEC --allow-python
mypackage.mymodule:myfunction``, or ``symdelay.sweep.run(spec, allow_python=[...])``);
no module named in a spec is imported before that.

>>> {"critical", "roots", "simulate", "variance", "stability"} <= set(ANALYSES)
True
>>> analysis_info("stability").parameters
('L', 'mu', 'lam', 'theta', 'D')
"""

from __future__ import annotations

import importlib
import inspect
import math
import re
from dataclasses import dataclass

from symdelay.core.errors import SymdelayInputError

__all__ = [
    "ANALYSES",
    "AnalysisInfo",
    "analysis_info",
    "allowed_python",
    "register_analysis",
    "resolve",
    "critical",
    "roots",
    "simulate",
    "variance",
    "stability",
    "limit_cycle",
    "sqd_fixed_point",
    "model_stability",
]

#: name -> "module:function". One line adds an analysis.
ANALYSES: dict[str, str] = {
    "critical": "symdelay.sweep.analyses:critical",
    "roots": "symdelay.sweep.analyses:roots",
    "simulate": "symdelay.sweep.analyses:simulate",
    "variance": "symdelay.sweep.analyses:variance",
    "stability": "symdelay.sweep.analyses:stability",
    "limit-cycle": "symdelay.sweep.analyses:limit_cycle",
    "sqd-fixed-point": "symdelay.sweep.analyses:sqd_fixed_point",
    "model-stability": "symdelay.sweep.analyses:model_stability",
}


def register_analysis(name: str, target) -> None:
    """Register ``target`` (``"module:function"`` or a function) under ``name``.

    A function defined in a notebook works with ``--serial`` and with a local cluster (Dask
    pickles it); a ``"module:function"`` must be importable on every worker.
    """
    if not isinstance(name, str) or not name:
        raise SymdelayInputError(f"an analysis name must be non-empty text, got {name!r}")
    if not (callable(target) or (isinstance(target, str) and ":" in target)):
        raise SymdelayInputError(f"analysis '{name}': give a function or 'module:function'")
    ANALYSES[name] = target


_PYTHON_NAME = re.compile(
    r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*"
)


def allowed_python(allow_python) -> frozenset[str]:
    """The ``"module:function"`` names a user allowed (``--allow-python``), checked.

    ``allow_python`` is None, one name, or an iterable of names; each must be written
    ``package.module:function`` (nothing is imported here).

    >>> sorted(allowed_python("mypkg.tasks:square"))
    ['mypkg.tasks:square']
    """
    if allow_python is None or allow_python is False:
        return frozenset()
    items = [allow_python] if isinstance(allow_python, str) else allow_python
    try:
        items = list(items)
    except TypeError:
        raise SymdelayInputError(
            f"allow_python must be 'module:function' or a list of them, got {allow_python!r}"
        ) from None
    for item in items:
        if not isinstance(item, str) or not _PYTHON_NAME.fullmatch(item.strip()):
            raise SymdelayInputError(
                f"--allow-python {item!r}: write the function as package.module:function"
            )
    return frozenset(item.strip() for item in items)


def _registered_names() -> str:
    return ", ".join(sorted(ANALYSES))


def resolve(target):
    """The function a ``"module:function"`` target names (a function is returned as is)."""
    if callable(target):
        return target
    module, _, attr = str(target).partition(":")
    try:
        fn = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise SymdelayInputError(f"cannot load analysis '{target}': {exc}") from None
    if not callable(fn):
        raise SymdelayInputError(f"analysis '{target}' is not a function")
    return fn


@dataclass(frozen=True)
class AnalysisInfo:
    """An analysis resolved: its target, accepted and required parameters, whether seeded."""

    name: str
    target: object
    parameters: tuple[str, ...]
    required: tuple[str, ...]
    seeded: bool
    any_keyword: bool

    @property
    def function(self):
        return resolve(self.target)

    def check_parameters(self, names) -> None:
        """Unknown or missing parameters -> one line saying which and what is known."""
        if "seed" in names and self.seeded:
            raise SymdelayInputError(
                f"analysis '{self.name}' gets a seed per task: set the spec's top-level "
                "seed instead of a parameter 'seed'"
            )
        if not self.any_keyword:
            unknown = [n for n in names if n not in self.parameters]
            if unknown:
                raise SymdelayInputError(
                    f"unknown parameter(s) {unknown} for analysis '{self.name}'; it takes "
                    + ", ".join(self.parameters)
                )
        missing = [n for n in self.required if n not in names]
        if missing:
            raise SymdelayInputError(
                f"analysis '{self.name}' needs parameter(s) {missing}: give them in "
                "[parameters] or [grid]"
            )


def analysis_info(name: str, allow_python=None) -> AnalysisInfo:
    """Look an analysis up and read its signature: a registered name, or a
    ``"module:function"`` the user allowed by exactly that name (``allow_python``).
    Anything else is refused before any module is imported.

    >>> analysis_info("os:system")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    symdelay.core.errors.SymdelayInputError: analysis 'os:system' is not a registered analysis ...
    """
    allowed = allowed_python(allow_python)
    if not isinstance(name, str):
        raise SymdelayInputError(f"analysis must be a name, got {name!r}")
    if name in ANALYSES:
        target = ANALYSES[name]
    elif name in allowed:
        target = name
    elif ":" in name:
        raise SymdelayInputError(
            f"analysis '{name}' is not a registered analysis (a sweep file names one of "
            f"{_registered_names()}); to run a Python function of your own, allow it by name "
            "where you start the sweep: symdelay sweep run SPEC --allow-python MODULE:FUNCTION"
        )
    else:
        raise SymdelayInputError(f"unknown analysis '{name}'; registered: {_registered_names()}")
    fn = resolve(target)
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        raise SymdelayInputError(f"analysis '{name}' has no readable signature") from None
    params, required, any_kw = [], [], False
    for p in sig.parameters.values():
        if p.kind is p.VAR_KEYWORD:
            any_kw = True
        elif p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            params.append(p.name)
            if p.default is p.empty and p.name != "seed":
                required.append(p.name)
    seeded = "seed" in params
    return AnalysisInfo(
        name=name,
        target=target,
        parameters=tuple(p for p in params if p != "seed"),
        required=tuple(required),
        seeded=seeded,
        any_keyword=any_kw,
    )


# ------------------------------------------------------------------ the built-in analyses
def _f(x) -> float:
    """A number (SymPy, mpmath, numpy) as a float; None stays None."""
    return None if x is None else float(x)


def _founding(L, **values):
    """The founding model with these options (the entries take it first)."""
    from symdelay.models.erlang.founding import FoundingModel

    return FoundingModel(L=L, **values)


def critical(L, mu, lam, D, dps: int = 15) -> dict:
    """The critical ``theta_c`` and Hopf frequency at one delay: the entry
    :func:`symdelay.analysis.critical.critical` on the founding model.

    ``theta_c`` is inf and ``omega`` None when no crossing exists (stable for every theta).

    >>> critical(2, 1, 1, 1)["theta_c"]
    9.0
    """
    from symdelay.analysis.critical import critical as entry

    curve = entry(_founding(L, mu=mu, lam=lam), at=[D], dps=dps)
    pt = curve.points[0]
    rec = curve.to_json()["points"][0]
    return {
        "theta_c": _f(pt.theta_c),
        "omega": _f(pt.omega),
        "theta_c_text": rec["theta_c"],
    }


def _root_summary(rs) -> dict:
    """The columns of a :class:`~symdelay.analysis.rootset.RootSet`: the spectral abscissa,
    the frequency of the rightmost root, the certified counts."""
    top = max(rs.roots, key=lambda z: (z.value.real, abs(z.value.imag)), default=None)
    return {
        "spectral_abscissa": None if top is None else float(top.value.real),
        "frequency": None if top is None else abs(float(top.value.imag)),
        "unstable_count": int(rs.unstable_count),
        "axis_count": int(rs.axis_count),
        "stable": rs.verdict == "stable",
        "verdict": rs.verdict,
    }


def roots(L, mu, lam, theta, D, dps: int = 30, rightmost: int | None = None) -> dict:
    """Certified roots summarised: the entry :func:`symdelay.analysis.roots.roots` on the
    founding model (the spectral abscissa, the frequency there, the certified count of
    unstable roots and the largest error radius).

    >>> roots(2, 1, 1, 3, 1, dps=15)["spectral_abscissa"]
    -0.5
    """
    from symdelay.analysis.roots import roots as entry

    rs = entry(_founding(L, mu=mu, lam=lam, theta=theta, D=D), dps=dps, rightmost=rightmost)
    return {
        **_root_summary(rs),
        "max_radius": max(float(z.radius) for z in rs.roots),
        "spectral_abscissa_text": rs.to_json()["spectral_abscissa"],
    }


def stability(L, mu, lam, theta, D) -> dict:
    """The exact verdict at these numbers (the entry :func:`symdelay.analysis.stability.
    stability` on the founding model) and the critical ``lam*theta`` (``lam`` times the
    entry :func:`symdelay.analysis.critical.critical`'s ``theta_c``); ``margin`` is
    ``lam*theta / (lam*theta)_c`` (< 1 stable, 0 when L = 1 never loses stability).

    >>> stability(2, 1, 1, 3, 1)
    {'stable': True, 'verdict': 'stable', 'critical_lam_theta': 9.0, 'margin': 0.3333333333333333}
    >>> stability(2, 1, 1, 9, 1)["verdict"]
    'marginal'
    """
    import mpmath

    from symdelay.analysis.critical import critical as crit
    from symdelay.analysis.stability import stability as entry

    model = _founding(L, mu=mu, lam=lam, theta=theta, D=D)
    st = entry(model)
    o = model.options
    theta_c = crit(_founding(L, mu=mu, lam=lam), at=[D], dps=15).points[0].critical
    if mpmath.isinf(theta_c):
        kc, margin = math.inf, 0.0
    else:
        kc = float(o["lam"]) * float(theta_c)
        margin = float(o["lam"] * o["theta"]) / kc
    return {
        "stable": st.verdict == "stable",
        "verdict": st.verdict,
        "critical_lam_theta": kc,
        "margin": margin,
    }


def variance(L, mu, lam, theta, D, dps: int = 30) -> dict:
    """The LNA stationary variance of the imbalance: the entry
    :func:`symdelay.analysis.stochastic.variance` on the founding model; raises (a failed
    task) where the equilibrium is unstable.

    >>> variance(1, 1, 1, 2, 1)["var_x_over_eta_text"]
    '1.33333333333333333333333333333'
    """
    from symdelay.analysis.stochastic import variance as entry

    res = entry(_founding(L, mu=mu, lam=lam, theta=theta, D=D), dps=dps)
    return {
        "var_x_over_eta": float(res.var_x_over_eta),
        "exact": bool(res.exact),
        "var_x_over_eta_text": res.decimal(),
    }


def simulate(L=2, eta=1000, mu=1, lam=1, theta=2, D=1, T=20, dt=0.1, seed=0) -> dict:
    """One exact sample path of the founding model
    (:func:`symdelay.models.erlang.stochastic.simulate`) summarised: the imbalance
    ``x = q1 - q2`` at the end, its largest absolute value and root mean square over the
    second half ``[T/2, T]``, and the number of events.

    >>> sorted(simulate(L=1, eta=100, T=2, seed=1))
    ['events', 'x_abs_max_tail', 'x_final', 'x_rms_tail', 'x_tail_mean']
    """
    import numpy as np

    from symdelay.models.erlang.stochastic import simulate as _simulate

    res = _simulate(
        L=L, eta=eta, mu=mu, lam=lam, theta=theta, D=D, T=T, dt=dt, seed=seed, threads=1
    )
    x = np.asarray(res["q1"] - res["q2"], dtype=float)
    tail = x[res.t >= res.t[-1] / 2]
    return {
        "x_final": float(x[-1]),
        "x_abs_max_tail": float(np.max(np.abs(tail))),
        "x_rms_tail": float(np.sqrt(np.mean(tail**2))),
        "x_tail_mean": float(np.mean(tail)),
        "events": int(res.events.sum()),
    }


def limit_cycle(L=2, mu=1, lam=1, D=1, theta=10, system: str = "difference") -> dict:
    """The limit cycle past the Hopf point (:func:`symdelay.analysis.cycles.limit_cycle` on the
    founding model):
    amplitude of ``x``, period, largest non-trivial Floquet multiplier and stability.

    >>> round(limit_cycle(L=2, theta=10)["period"], 6) > 0
    True
    """
    import numpy as np

    from symdelay.analysis.cycles import limit_cycle as _limit_cycle
    from symdelay.models import build_model

    cyc = _limit_cycle(build_model("erlang", L=L, mu=mu, lam=lam, D=D), theta, system=system)
    others = np.asarray(cyc.nontrivial, dtype=complex)  # the flow direction's left out
    return {
        "amplitude_x": float(cyc.amplitude_x),
        "period": float(cyc.period),
        "max_floquet_abs": float(np.max(np.abs(others))) if others.size else 0.0,
        "stable": None if cyc.stable is None else bool(cyc.stable),  # None: undecided
        "newton_residual": float(cyc.residual),
    }


def sqd_fixed_point(
    d=2, lam="0.9", service: str = "exp", k=None, probs=None, rates=None, dps: int = 15
) -> dict:
    """The SQ(d) mean-field fixed point (:func:`symdelay.models.sqd.fixed_point`) with a phase-type
    service named as ``symdelay sqd`` does (``service = "erlang"`` with ``k``, ``"hyperexp"``
    with ``probs`` and ``rates`` as comma-separated text): mean queue and sojourn time, the
    first tails and the truncation level.

    >>> sqd_fixed_point(d=2, lam="1/2")["mean_sojourn"] > 1
    True
    """
    from symdelay.models.sqd import fixed_point, service_from_options

    ph = service_from_options(service, k=k, probs=probs, rates=rates)
    fp = fixed_point(d=d, lam=lam, service=ph, dps=dps)
    out = {
        "mean_queue": float(fp.mean_queue),
        "mean_sojourn": float(fp.mean_sojourn),
        "truncation": int(fp.truncation),
        "method": fp.method,
    }
    out.update({f"s{i}": float(v) for i, v in enumerate(fp.tail[:3], start=1)})
    return out


# ------------------------------------------------------------------ any model
#: per process (each Dask worker keeps its own): (family or file, build options) -> the
#: model with its free parameters, so that the symbolic factors are derived once a sweep
_MODELS: dict = {}
_MODELS_MAX = 16


def _sweep_model(model, model_file, values: dict):
    """``(model with free parameters, {Symbol: Rational})`` for one task: a built-in family
    (``model``) or a TOML file (``model_file``). Keys naming a parameter of the model are
    substituted into its (cached) factors; ``D`` of an Erlang chain with a free ``gamma``
    is ``gamma = L/D``; every other key is an option of the family (the model is built once
    per distinct set of them)."""
    from symdelay.core.exact import exact_number
    from symdelay.model.core import TableOnDemand, _symbol

    if (model is None) == (model_file is None):
        raise SymdelayInputError(
            "analysis 'model-stability': give model (a built-in model name) or model_file "
            "(a TOML model file), one of them"
        )
    if model_file is not None:
        key = ("file", str(model_file))
        if key not in _MODELS:
            from symdelay.model import load_toml

            _MODELS[key] = load_toml(model_file)
        built, subs_keys = _MODELS[key], set(values)
    else:
        from symdelay.models import build_model

        name = str(model)
        structure = {k: v for k, v in values.items() if isinstance(v, (int, str))}
        probe_key = ("probe", name, tuple(sorted((k, str(v)) for k, v in structure.items())))
        if probe_key not in _MODELS:
            _MODELS[probe_key] = {str(p) for p in build_model(name, **structure).parameters}
        names = _MODELS[probe_key]
        subs_keys = {k for k in values if k in names or k == "D"}
        options = {k: v for k, v in values.items() if k not in subs_keys}
        key = ("family", name, tuple(sorted((k, str(v)) for k, v in options.items())))
        if key not in _MODELS:
            built = build_model(name, **options)
            if isinstance(built, TableOnDemand):  # a family's object: its transition table
                built = built._table()
            _MODELS[key] = built
        built = _MODELS[key]
        if "D" in subs_keys and _symbol("D") in built.domains:
            subs_keys.discard("D")  # a parameter of the model itself
    if len(_MODELS) > _MODELS_MAX:
        _MODELS.pop(next(iter(_MODELS)))
    subs = {}
    for k in sorted(subs_keys):
        v = exact_number(k, values[k])
        sym = _symbol(k)
        if sym in built.domains and sym not in built.values:
            subs[sym] = v
            continue
        g = _symbol("gamma")
        if k == "D" and g in built.domains and g not in built.values:
            from symdelay.analysis.window import _erlang_chain_length

            n = _erlang_chain_length(built, g)
            if n is not None and v > 0:
                subs[g] = n / v  # v is a SymPy Rational: an exact L/D
                continue
        raise SymdelayInputError(
            f"analysis 'model-stability': {k} is not a free parameter of {built.name} "
            f"(its free parameters: {', '.join(map(str, built.free_parameters)) or 'none'})"
        )
    missing = [p for p in built.free_parameters if p not in subs]
    if missing:
        raise SymdelayInputError(
            f"analysis 'model-stability': give a value for {', '.join(map(str, missing))} "
            "in [parameters] or [grid]"
        )
    return built, subs


def model_stability(model=None, model_file=None, dps: int = 15, **values) -> dict:
    """Any model at one point: the entries :func:`symdelay.analysis.roots.roots` (the exact
    count of characteristic roots with ``Re r > 0`` and on the axis, the certified spectral
    abscissa and the frequency of the rightmost root) and
    :func:`symdelay.analysis.stability.stability` (its verdict) on the model at these values.
    ``model`` names a built-in model, ``model_file`` a TOML model; the other keywords are its
    options and parameter values (see :func:`_sweep_model`). The symbolic factors are
    derived once per process and the point's are theirs with the values substituted
    (:meth:`symdelay.model.Model.at_values`).

    >>> rec = model_stability(model="phase_type", delay="hypoexp", rates="1,2", mu=1, lam=1,
    ...                       theta=3)
    >>> rec["stable"], rec["unstable_count"]
    (True, 0)
    """
    from symdelay.analysis.roots import roots as roots_entry
    from symdelay.analysis.stability import stability as stability_entry
    from symdelay.model.core import Model

    built, subs = _sweep_model(model, model_file, values)
    if _delay_model(built):
        return _delay_stability_row(built, subs, dps)
    if type(built) is Model and built.equilibrium.exact:
        point = built.at_values(subs)
    else:
        point = built.with_values(**{str(k): v for k, v in subs.items()})
    for f in point.factors:
        if any(not c.is_Rational for c in _coefficients(f.factor)):
            raise SymdelayInputError(
                f"analysis 'model-stability': the {f.mode} factor is not rational at this point"
            )
    out = _root_summary(roots_entry(point, dps=dps))
    verdict = stability_entry(point).verdict
    keys = ("unstable_count", "axis_count", "spectral_abscissa", "frequency")
    return {"stable": verdict == "stable", "verdict": verdict, **{k: out[k] for k in keys}}


def _delay_model(built) -> bool:
    """A model with lags whose mode functions are not polynomials (exp(-r tau)): its point
    is answered by the delay path of the same entries."""
    from symdelay.analysis.roots import _delay_model as is_delay

    return is_delay(built)


def _delay_stability_row(built, subs, dps: int) -> dict:
    """One point of a delay model: the certified rightmost roots (a conjugate pair whole) of
    :func:`symdelay.analysis.roots.roots` give the spectral abscissa and the frequency of the
    rightmost root; the counts over the whole spectrum are its certified counts; the verdict
    is :func:`symdelay.analysis.stability.stability`'s."""
    from symdelay.analysis.roots import roots as roots_entry
    from symdelay.analysis.stability import stability as stability_entry

    point = built.with_values(**{str(k): v for k, v in subs.items()})
    out = _root_summary(roots_entry(point, dps=dps, rightmost=1))
    verdict = stability_entry(point).verdict
    keys = ("unstable_count", "axis_count", "spectral_abscissa", "frequency")
    return {"stable": verdict == "stable", "verdict": verdict, **{k: out[k] for k in keys}}


def _coefficients(expr) -> list:
    """The coefficients of ``expr`` as a polynomial in ``r``."""
    from symdelay.core.lazy import sympy as sp
    from symdelay.core.symbols import r

    return sp.Poly(expr, r).all_coeffs()
