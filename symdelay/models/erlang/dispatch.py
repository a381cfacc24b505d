"""``model=`` for the founding model's analysis functions: one keyword, the generic path.

``critical_theta(model=m)``, ``characteristic_roots(model=m)``, ``stability_conditions(model=m)``,
``characteristic_polynomial(model=m)``, ``simulate(model=m, ...)``, ``fluid(model=m, ...)`` and
``variance(model=m)`` hand the model to the model layer; without ``model`` they run the founding
model's own (specialised) path, unchanged. The result is the model layer's record type.

``kappa=`` (a weight, or one weight per delay phase) on the same functions routes the founding
model's own arguments to the built-in ``inflight`` model (routing on queue plus ``kappa`` times
the jobs in flight):

>>> import symdelay
>>> symdelay.critical_theta(2, 1, 1, [1], kappa=0.05).to_json()["critical"][:8]
'15.25900'

>>> import symdelay
>>> m = symdelay.build_model("nserver", N=3, L=2, mu=1, lam=1, D=1)
>>> symdelay.critical_theta(model=m).to_json()["critical"]
'9.00000000000000'
"""

from __future__ import annotations

import functools
import inspect

from symdelay.core.errors import SymdelayInputError

__all__ = ["accepts_model", "GENERIC"]


def _charpoly(model, full: bool = True):
    return model.charpoly


def _stability(model):
    from symdelay.analysis.stability import model_stability

    return model_stability(model)


def _critical(model, dps: int = 15, param: str = "theta"):
    from symdelay.analysis.critical import model_critical

    return model_critical(model, param, dps=dps)


def _roots(model, dps: int = 30):
    from symdelay.analysis.roots import model_roots

    return model_roots(model, dps=dps)


def _simulate(model, eta=1000, T=20, dt=0.1, initial=None, seed=1, replications=1):
    from symdelay.analysis.stochastic import model_simulate

    return model_simulate(
        model, eta, T, dt=dt, initial=initial, seed=seed, replications=replications
    )


def _fluid(model, T=20, dt=0.1, initial=None):
    from symdelay.analysis.roots import model_fluid

    return model_fluid(model, T, initial=initial, points=round(float(T) / float(dt)) + 1)


def _variance(model, dps: int = 30):
    from symdelay.analysis.stochastic import model_variance

    return model_variance(model, dps=dps)[0]


#: function name -> the model-layer path it dispatches to.
GENERIC = {
    "characteristic_polynomial": _charpoly,
    "stability_conditions": _stability,
    "critical_theta": _critical,
    "characteristic_roots": _roots,
    "simulate": _simulate,
    "fluid": _fluid,
    "variance": _variance,
}


_FOUNDING = ("L", "mu", "lam", "theta", "D")


def _inflight_from_founding(f, args, kwargs, kappa):
    """The ``inflight`` model from a founding call's arguments, and the options left over."""
    from symdelay.models import build_model

    sig = inspect.signature(f)
    try:
        bound = sig.bind_partial(*args, **kwargs)
    except TypeError as exc:
        raise SymdelayInputError(f"{f.__name__}: {exc}") from None
    given = dict(bound.arguments)
    defaults = {
        k: v.default for k, v in sig.parameters.items() if v.default is not inspect.Parameter.empty
    }
    values = {k: given.pop(k, defaults.get(k)) for k in _FOUNDING if k in sig.parameters}
    D = values.get("D")
    if isinstance(D, (list, tuple)):
        if len(D) != 1:
            raise SymdelayInputError(f"{f.__name__}(kappa=...) takes one delay D, got {len(D)}")
        values["D"] = D[0]
    if str(values.get("L")).strip().lower() in ("inf", "oo"):
        raise SymdelayInputError(
            "kappa= needs a finite L (for L = inf see symdelay.models.inflight.kappa_star_limit)"
        )
    weights = list(kappa) if isinstance(kappa, (list, tuple)) else kappa
    L = values.pop("L", 2)
    model = build_model("inflight", L=int(L), kappa=weights, **values)
    return model, given


def accepts_model(f):
    """Give ``f`` the keywords ``model=`` (run the generic path on that model) and ``kappa=``
    (the founding model with in-flight weights: the ``inflight`` model, generic path)."""
    generic = GENERIC[f.__name__]

    @functools.wraps(f)
    def wrapper(*args, model=None, kappa=None, **kwargs):
        if kappa is not None:
            if model is not None:
                raise SymdelayInputError("give model= or kappa=, not both")
            model, kwargs = _inflight_from_founding(f, args, kwargs, kappa)
            args = ()
        if model is None:
            return f(*args, **kwargs)
        if args:
            raise SymdelayInputError(
                f"{f.__name__}(model=...) takes the model's options as keywords only"
            )
        try:
            return generic(model, **kwargs)
        except TypeError as exc:
            raise SymdelayInputError(
                f"{f.__name__}(model=...) does not take those options ({exc}); see "
                "symdelay.models.erlang.dispatch"
            ) from None

    return wrapper
