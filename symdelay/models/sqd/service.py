"""Service-time distributions of SQ(d): phase-type ones (exact) and the true general ones.

Every service is scaled to mean 1 unless a mean is given. Phase-type services reuse
:class:`symdelay.models.phase_type.PhaseType`; a general distribution (deterministic,
lognormal, Weibull, Pareto) is a :class:`GeneralService` with its exact moments and a numpy
sampler, used by the simulator (the true distribution) and by the fits of :mod:`.fitting`.

>>> s = parse_service_dist("lognormal:scv=4")
>>> s.name, s.scv
('lognormal', 4)
>>> float(s.moment(2))
5.0
>>> exponential().mean, exponential(mean=2).mean
(1, 2)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import mpmath
import numpy as np

from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.core.params import as_parameter
from symdelay.core.result import Result
from symdelay.models.phase_type import PhaseType, scaled

__all__ = [
    "GeneralService",
    "parse_service_dist",
    "exponential",
    "service_from_options",
    "ph_sampler",
    "residual_means",
    "DISTRIBUTIONS",
]

#: General distributions ``--service-dist`` knows, with their shape options.
DISTRIBUTIONS = {
    "deterministic": (),
    "exponential": (),
    "lognormal": ("scv",),
    "weibull": ("shape",),
    "pareto": ("alpha",),
    "gamma": ("scv",),
}


def exponential(mean=1) -> PhaseType:
    """Exp with the given mean (one phase)."""
    m = as_parameter("mean", mean)
    return PhaseType(sp.Matrix([[1]]), sp.Matrix([[-1 / m]]), "exp")


def _positive(name, value) -> sp.Rational:
    v = as_parameter(name, value, positive=False)
    if not v.is_number or not v > 0:
        raise SymdelayInputError(f"{name} must be a positive number, got {value}")
    return v


@dataclass(frozen=True)
class GeneralService(Result):
    """A named service distribution scaled to ``mean``; ``shape`` holds its shape option."""

    name: str
    shape: dict = field(default_factory=dict)
    mean: sp.Expr = 1

    def __post_init__(self):
        if self.name not in DISTRIBUTIONS:
            raise SymdelayInputError(
                f"unknown service distribution '{self.name}': use one of "
                + ", ".join(DISTRIBUTIONS)
            )
        need = DISTRIBUTIONS[self.name]
        extra = sorted(set(self.shape) - set(need))
        if extra:
            raise SymdelayInputError(
                f"{self.name} takes {', '.join(need) or 'no option'}, not {extra[0]}"
            )
        for n in need:
            if n not in self.shape:
                raise SymdelayInputError(f"{self.name} needs {n}, e.g. {self.name}:{n}=2")
        if self.name == "pareto" and not self.shape["alpha"] > 1:
            raise SymdelayInputError(
                f"pareto:alpha={self.shape['alpha']} has no finite mean: give alpha > 1"
            )

    # ---------------------------------------------------------------- moments (exact)
    @property
    def scv(self):
        """Squared coefficient of variation (``oo`` for a Pareto with alpha <= 2)."""
        m1 = self.moment(1)
        return sp.simplify(self.moment(2) / m1**2 - 1)  # exact (no nsimplify: it may guess)

    def moment(self, j: int) -> sp.Expr:
        """``E[X^j]`` exactly (``oo`` where it does not exist)."""
        j = sp.Integer(j)
        m = self.mean
        n, sh = self.name, self.shape
        if n == "deterministic":
            return m**j
        if n == "exponential":
            return sp.factorial(j) * m**j
        if n == "gamma":
            k = 1 / sh["scv"]
            return m**j * sp.rf(k, j) / k**j
        if n == "lognormal":
            s2 = sp.log(1 + sh["scv"])
            # mean m: mu = log m - s2/2; E X^j = exp(j mu + j^2 s2/2)
            return sp.simplify(m**j * sp.exp((j**2 - j) * s2 / 2))
        if n == "weibull":
            k = sh["shape"]
            scale = m / sp.gamma(1 + 1 / k)
            return scale**j * sp.gamma(1 + j / k)
        a = sh["alpha"]  # pareto (Lomax-free classical form, x_m chosen for the mean)
        if not a > j:
            return sp.oo
        xm = m * (a - 1) / a
        return a * xm**j / (a - j)

    def cdf(self, x: float) -> float:
        """``P(X <= x)`` (floats; for fits and plots)."""
        m = float(self.mean)
        n, sh = self.name, self.shape
        if x <= 0:
            return 0.0
        if n == "deterministic":
            return 1.0 if x >= m else 0.0
        if n == "exponential":
            return float(-np.expm1(-x / m))
        if n == "gamma":
            from scipy.stats import gamma as g

            k = 1 / float(sh["scv"])
            return float(g.cdf(x, k, scale=m / k))
        if n == "lognormal":
            from math import erf, log, sqrt

            s2 = log(1 + float(sh["scv"]))
            mu = log(m) - s2 / 2
            return 0.5 * (1 + erf((log(x) - mu) / sqrt(2 * s2)))
        if n == "weibull":
            from math import exp, gamma

            k = float(sh["shape"])
            scale = m / gamma(1 + 1 / k)
            return 1 - exp(-((x / scale) ** k))
        a = float(sh["alpha"])
        xm = m * (a - 1) / a
        return 0.0 if x < xm else 1 - (xm / x) ** a

    def sampler(self, rng: np.random.Generator):
        """``draw(n) -> ndarray`` of n i.i.d. service times."""
        m = float(self.mean)
        n, sh = self.name, self.shape
        if n == "deterministic":
            return lambda size: np.full(size, m)
        if n == "exponential":
            return lambda size: rng.exponential(m, size)
        if n == "gamma":
            k = 1 / float(sh["scv"])
            return lambda size: rng.gamma(k, m / k, size)
        if n == "lognormal":
            s2 = float(sp.log(1 + sh["scv"]))
            mu = float(sp.log(m)) - s2 / 2
            return lambda size: rng.lognormal(mu, s2**0.5, size)
        if n == "weibull":
            k = float(sh["shape"])
            scale = m / float(sp.gamma(1 + 1 / sh["shape"]))
            return lambda size: scale * rng.weibull(k, size)
        a = float(sh["alpha"])
        xm = m * (a - 1) / a
        return lambda size: xm * (1 + rng.pareto(a, size))

    def label(self) -> str:
        opts = ",".join(f"{k}={v}" for k, v in self.shape.items())
        return f"{self.name}:{opts}" if opts else self.name


def parse_service_dist(text: str, mean=1) -> GeneralService:
    """``"weibull:shape=0.5"`` -> :class:`GeneralService` (options exact)."""
    name, _, rest = str(text).partition(":")
    name = name.strip().lower()
    if name not in DISTRIBUTIONS:
        raise SymdelayInputError(
            f"unknown service distribution '{name}': use one of " + ", ".join(DISTRIBUTIONS)
        )
    shape = {}
    for item in [s for s in rest.split(",") if s.strip()]:
        k, sep, v = item.partition("=")
        if not sep:
            raise SymdelayInputError(f"write the option as name=value, e.g. {name}:scv=4")
        shape[k.strip()] = _positive(k.strip(), v.strip())
    return GeneralService(name, shape, _positive("mean", mean))


#: Seconds per squared phase to build an exact (SymPy) phase type and its moments, roughly.
PHASE_SECONDS = 1.2e-4


def build_seconds(m: int) -> float:
    """Rough time to build an exact ``m``-phase service and its mean, SCV, exit rates (the
    dense ``m x m`` SymPy matrices: measured 4.6 s for Erlang(200))."""
    return PHASE_SECONDS * float(m) ** 2


def service_from_options(
    service="exp", *, k=None, probs=None, rates=None, alpha=None, S=None, mean=1, force=False
) -> PhaseType:
    """The phase-type service ``--service exp|erlang|hyperexp|hypoexp|coxian|ph``, scaled to
    ``mean`` (rates are shapes: the distribution is rescaled, only its shape is kept).
    An Erlang with too many phases to build within the budget is refused unless ``force``."""
    from symdelay.models.sqd._budget import check_budget

    kind = (service or "exp").lower()
    if kind == "exp":
        d = exponential()
    elif kind == "erlang":
        if k is None:
            raise SymdelayInputError("--service erlang needs --k (number of phases)")
        try:
            kk = int(str(k).strip())
        except ValueError:
            raise SymdelayInputError(f"--k must be an integer >= 1, got '{k}'") from None
        if kk < 1:
            raise SymdelayInputError(f"--k must be an integer >= 1, got '{k}'")
        check_budget(
            f"an exact Erlang({kk}) service ({kk} x {kk} matrices)",
            build_seconds(kk),
            force=force,
            shrink="--k",
        )
        d = PhaseType.erlang(kk, D=1)
    elif kind == "hyperexp":
        if probs is None or rates is None:
            raise SymdelayInputError("--service hyperexp needs --probs and --rates")
        d = PhaseType.hyperexp(probs, rates)
    elif kind == "hypoexp":
        if rates is None:
            raise SymdelayInputError("--service hypoexp needs --rates")
        d = PhaseType.hypoexp(rates)
    elif kind == "coxian":
        if rates is None or probs is None:
            raise SymdelayInputError("--service coxian needs --rates and --probs (continue)")
        d = PhaseType.coxian(rates, probs)
    elif kind == "ph":
        if alpha is None or S is None:
            raise SymdelayInputError("--service ph needs --alpha and --S")
        d = PhaseType.general(alpha.split(",") if isinstance(alpha, str) else alpha, S)
    else:
        raise SymdelayInputError(
            f"unknown --service '{service}': use exp, erlang, hyperexp, hypoexp, coxian or ph"
        )
    if kind == "ph" and sum(d.alpha) != 1:
        raise SymdelayInputError("alpha must sum to 1")
    return scaled(d, _positive("mean", mean))


def residual_means(ph: PhaseType) -> list:
    """``(-S)^{-1} 1``: the mean remaining service in each phase (exact)."""
    m = ph.phases
    return list((-ph.S).inv() * sp.ones(m, 1))


def ph_sampler(ph: PhaseType, rng: np.random.Generator):
    """``draw(n)``: n i.i.d. absorption times of ``(alpha, S)`` (vectorised over jobs)."""
    m = ph.phases
    S = np.array(ph.S.evalf(20).tolist(), dtype=float)
    a = np.array([float(x) for x in ph.alpha], dtype=float)
    out_rate = -np.diag(S)
    jump = np.zeros((m, m + 1))  # row i: probabilities of next phase j, or exit (m)
    for i in range(m):
        for j in range(m):
            if i != j:
                jump[i, j] = S[i, j] / out_rate[i]
        jump[i, m] = max(0.0, 1 - jump[i, :m].sum())
    cum = np.cumsum(jump, axis=1)
    cum[:, -1] = 1.0
    start = np.cumsum(a)
    start[-1] = 1.0

    def draw(size):
        phase = np.searchsorted(start, rng.random(size), side="right")
        total = np.zeros(size)
        alive = np.arange(size)
        while alive.size:
            ph_ = phase[alive]
            total[alive] += rng.exponential(1.0, alive.size) / out_rate[ph_]
            nxt = (rng.random(alive.size)[:, None] < cum[ph_]).argmax(axis=1)
            keep = nxt < m
            phase[alive[keep]] = nxt[keep]
            alive = alive[keep]
        return total

    return draw


def mp_moment(service, j: int, dps: int = 30):
    """``E[X^j]`` of a phase-type or general service as an mpmath number."""
    with mpmath.workdps(dps):
        if isinstance(service, PhaseType):
            m = service.phases
            M = (-service.S).inv()
            v = sp.factorial(j) * (service.alpha * M**j * sp.ones(m, 1))[0]
            return mpmath.mpf(sp.N(v, dps))
        return mpmath.mpf(sp.N(service.moment(j), dps))
