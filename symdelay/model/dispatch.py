"""``model=`` for the founding model's analysis functions: one keyword, the generic path.

``critical_theta(model=m)``, ``characteristic_roots(model=m)``, ``stability_conditions(model=m)``,
``characteristic_polynomial(model=m)``, ``simulate(model=m, ...)``, ``fluid(model=m, ...)`` and
``variance(model=m)`` hand the model to the model layer; without ``model`` they run the founding
model's own (specialised) path, unchanged. The result is the model layer's record type.

>>> import symdelay
>>> m = symdelay.build_model("nserver", N=3, L=2, mu=1, lam=1, D=1)
>>> symdelay.critical_theta(model=m).to_json()["critical"]
'9.00000000000000'
"""

from __future__ import annotations

import functools

from ..errors import SymdelayInputError

__all__ = ["accepts_model", "GENERIC"]


def _charpoly(model, full: bool = True):
    return model.charpoly


def _stability(model):
    return model.stability


def _critical(model, dps: int = 15, param: str = "theta"):
    from .critical import model_critical

    return model_critical(model, param, dps=dps)


def _roots(model, dps: int = 30):
    from .analysis import model_roots

    return model_roots(model, dps=dps)


def _simulate(model, eta=1000, T=20, dt=0.1, initial=None, seed=1, replications=1):
    from .stochastic import model_simulate

    return model_simulate(
        model, eta, T, dt=dt, initial=initial, seed=seed, replications=replications
    )


def _fluid(model, T=20, dt=0.1, initial=None):
    from .analysis import model_fluid

    return model_fluid(model, T, initial=initial, points=round(float(T) / float(dt)) + 1)


def _variance(model, dps: int = 30):
    from .stochastic import model_variance

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


def accepts_model(f):
    """Give ``f`` a keyword ``model=``: with a model, call the generic path instead."""
    generic = GENERIC[f.__name__]

    @functools.wraps(f)
    def wrapper(*args, model=None, **kwargs):
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
                "symdelay.model.dispatch"
            ) from None

    return wrapper
