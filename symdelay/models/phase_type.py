"""Phase-type action delays (alpha, S) and the two-queue model with such a delay.

A phase-type distribution is the absorption time of a Markov chain on ``m`` transient phases
started in ``alpha`` with sub-generator ``S``; the exit rates are ``s = -S 1``. Erlang,
hypoexponential, hyperexponential and Coxian delays are special cases. With this delay the
difference mode's characteristic equation is

    r + mu + lam theta alpha (r I - S)^{-1} s = 0,

which :func:`characteristic_function` derives symbolically and the tests compare with the
determinant of the model's difference-mode Jacobian.

>>> d = PhaseType.erlang(2, D=1)
>>> d.mean, d.scv
(1, 1/2)
>>> PhaseType.hyperexp([0.5, 0.5], [1, 3]).mean
2/3
"""

from __future__ import annotations

from dataclasses import dataclass

from symdelay.core.lazy import sympy as sp
from symdelay.core.options import RATES
from symdelay.core.params import as_parameter
from symdelay.core.result import Result
from symdelay.core.symbols import lam, mu, r, theta
from symdelay.models.delayed_routing import delayed_routing_model
from symdelay.models.phase import (
    DELAY_OPTIONS,
    PhaseType,
    delay_from_options,
    parse_matrix,
    scaled,
)

__all__ = [
    "PhaseType",
    "ShapePoint",
    "characteristic_function",
    "critical_by_shape",
    "model",
    "parse_matrix",
    "scaled",
    "shape_families",
    "INFO",
]

INFO = {
    "name": "phase_type",
    "parameters": ["mu", "lam", "theta", "delay"],
    "description": "two queues, logit routing, phase-type action delay "
    "(--delay erlang|hypoexp|hyperexp|coxian|ph)",
}


def characteristic_function(delay: PhaseType, lam_theta=None) -> sp.Expr:
    """``r + mu + lam theta alpha (rI - S)^{-1} s`` for the difference mode, symbolically."""
    k = lam * theta if lam_theta is None else lam_theta
    return r + mu + k * delay.laplace_transform(r)


OPTIONS = (*RATES, *DELAY_OPTIONS)


def model(
    delay="erlang",
    *,
    mu=None,
    lam=None,
    theta=None,
    N=2,
    kappa=None,
    name=None,
    description="",
    **shape,
):
    """Two queues, logit routing on queue lengths, phase-type action delay: ``delay`` a
    :class:`PhaseType` or a shape name with its numbers (:func:`delay_from_options`)."""
    d = delay_from_options(delay, **shape)
    return delayed_routing_model(
        N=N,
        delay=d,
        mu=mu,
        lam=lam,
        theta=theta,
        kappa=kappa,
        name=name,
        description=description,
    )


def sweep_substitution(options: dict, over: str):
    """Varying ``over`` as a substitution into the model built without it, where this family
    knows one: the Erlang delay by name with ``D`` not given (:func:`erlang_D_substitution`).
    None for another option, another shape or ``D`` fixed. A sweep uses it instead of
    building the model at two ``D``; tests build both and compare their tables."""
    shape = ("rates", "probs", "continue_probs", "alpha", "S")
    if options.get("delay", "erlang") != "erlang" or any(options.get(k) is not None for k in shape):
        return None
    from symdelay.models.erlang.family import erlang_D_substitution

    return erlang_D_substitution(options, over)


def shape_families(k_max: int = 12) -> dict:
    """Delay shapes of mean 1 spanning the squared coefficient of variation (SCV).

    ``erlang``: Erlang(k), SCV 1/k; ``hypoexp``: two phases in series with rates a and
    a/(a-1) (SCV in [1/2, 1)); ``hyperexp``: two exponential branches with balanced means,
    probabilities p, 1 - p (SCV = 1/(2p(1-p)) - 1 >= 1).
    """
    half = sp.Rational(1, 2)
    return {
        "erlang": [PhaseType.erlang(k, D=1) for k in range(1, k_max + 1)],
        "hypoexp": [
            PhaseType.hypoexp([a, a / (a - 1)])
            for a in (sp.Rational(9, 4), *map(sp.Integer, (3, 4, 6, 10)))
        ],
        "hyperexp": [
            PhaseType.hyperexp([p, 1 - p], [2 * p, 2 * (1 - p)])
            for p in (half, sp.Rational(1, 4), sp.Rational(1, 10))
        ],
    }


@dataclass(frozen=True)
class ShapePoint(Result):
    """Critical theta of one delay shape at mean ``D`` (``inf``: stable for every theta > 0)."""

    family: str
    scv: sp.Expr
    D: sp.Expr
    theta_c: object  # mpmath.mpf


def critical_by_shape(D_values, mu=1, lam=1, k_max: int = 12, dps: int = 15) -> list[ShapePoint]:
    """theta_c of every shape of :func:`shape_families` at each mean delay ``D``."""
    from symdelay.analysis.critical import critical

    out = []
    for D in D_values:
        for family, delays in shape_families(k_max).items():
            for d in delays:
                m = model(scaled(d, D), mu=mu, lam=lam)
                c = critical(m, "theta", dps=dps)
                out.append(ShapePoint(family, d.scv, as_parameter("D", D), c.critical))
    return out
