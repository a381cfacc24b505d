"""The information-delay family (Pender, Rand & Wesson; Doldo & Pender): N queues routed on
queue lengths the dispatcher sees through a lag.

``model(N, mu, lam, theta, D, choice, service_rates, lag, lag_shape)`` builds a
:class:`~symdelay.model.Model` with one declared lag ``tau`` (:mod:`symdelay.model.lags`)
and the transition table

    arrival to i:  N lam G(delayed(q_i, tau)) / sum_j G(delayed(q_j, tau)),
    service i:     mu_i q_i,

``G`` the choice function (default the logit ``exp(-theta*x)``; any positive expression in
one state name ``x`` and the parameters, such as the Lomax survival function
``(1 + theta*x)**(-3)``: read as data by the safe parser). Every lag kind has mean ``D``:
``constant`` (the lengths seen ``D`` ago), ``uniform`` (the moving average over the last
``2D``), ``gamma`` (shape ``lag_shape``), ``exponential``. Every linear analysis is the lag
core's (the characteristic matrix, its modes, certified counts and switches); the constant
lag, two equal queues and the logit are the founding model's ``L = inf`` limit, whose closed
forms (Hayes' region, the critical delay, Lambert-W roots, the worst delay) are the model's
specialisations (:mod:`symdelay.models.dde.closed`). Its fluid path is the fluid entry's
(:func:`symdelay.analysis.fluid.fluid`: the generic method of steps of
:mod:`symdelay.analysis.dfluid` for every lag kind, and for that case the specialisation
:func:`symdelay.models.dde.steps.specialised_fluid`).

This module is read by the command line for ``INFO`` and ``OPTIONS`` alone: the model is
built by :mod:`symdelay.models.dde.build` (SymPy) when asked for.

>>> m = model(mu=1, lam=1, theta=2, D=1)
>>> [str(f.factor) for f in m.characteristic_factors]
['r + 1', 'r + 1 + 2*exp(-r)']
"""

from __future__ import annotations

from symdelay.core.options import RATES, Option
from symdelay.models.dde.kinds import LAG_KINDS, LOGIT

__all__ = ["INFO", "OPTIONS", "model"]

INFO = {
    "name": "dde",
    "parameters": ["N", "mu", "lam", "theta", "D", "choice", "service_rates", "lag", "lag_shape"],
    "description": "the information-delay family (Pender, Rand & Wesson; Doldo & Pender): N "
    "queues routed by a choice function of queue lengths seen through a lag of mean D "
    "(constant, uniform, gamma, exponential), no action delay",
}

OPTIONS = (
    Option("N", "number of queues (integer >= 2)", "integer", "2"),
    *RATES,
    Option("D", "mean information lag (> 0)"),
    Option(
        "choice",
        "choice function G(x) of a queue length x (routing proportional to G of the lagged "
        "lengths), in x, theta and numbers, e.g. a Lomax survival (1 + theta*x)**(-3)",
        "text",
        LOGIT,
    ),
    Option("service_rates", "unequal service rates mu1,...,muN (instead of --mu)", "numbers"),
    Option("lag", "law of the information lag, of mean D", "choice", "constant", LAG_KINDS),
    Option("lag_shape", "gamma lag: shape k > 0 (Erlang for an integer)", "number"),
)


def model(
    N=2,
    mu=None,
    lam=None,
    theta=None,
    D=None,
    choice=LOGIT,
    service_rates=None,
    lag="constant",
    lag_shape=None,
):
    """The information-delay model (:class:`~symdelay.models.dde.build.InformationDelayModel`,
    a :class:`~symdelay.model.Model` with the lag ``tau``); a parameter left None stays
    symbolic. See :func:`symdelay.models.dde.build.information_delay_model`."""
    from symdelay.models.dde.build import information_delay_model

    return information_delay_model(
        N=N,
        mu=mu,
        lam=lam,
        theta=theta,
        D=D,
        choice=choice,
        service_rates=service_rates,
        lag=lag,
        lag_shape=lag_shape,
    )
