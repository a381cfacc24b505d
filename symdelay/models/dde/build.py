"""The information-delay family's transition table (see :mod:`symdelay.models.dde.family`).

The model is a :class:`~symdelay.model.Model` with one lag ``tau``: its equilibrium (the
steady drift's zero), characteristic matrix, modes and every linear analysis come from the
lag core, nothing is written here by hand. The two-queue logit model with a constant lag and
equal servers is :class:`FoundingLimitModel`, whose specialisations are the founding model's
``L = inf`` closed forms (:mod:`symdelay.models.dde.closed`).

>>> m = information_delay_model(N=3, mu=1, lam=1, theta=2, D=1)
>>> [(f.mode, f.multiplicity) for f in m.characteristic_factors]
[('sum', 1), ('difference (2 copies)', 2)]
>>> type(information_delay_model(mu=1, lam=1, D=1)).__name__
'FoundingLimitModel'
"""

from __future__ import annotations

from typing import ClassVar

from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.model import Model
from symdelay.models.dde.kinds import LAG_KINDS, LOGIT

__all__ = [
    "InformationDelayModel",
    "FoundingLimitModel",
    "information_delay_model",
    "choice_function",
    "X",
]

#: The state name a choice function is written in.
X = sp.Symbol("x")

#: Options :meth:`InformationDelayModel.with_values` rebuilds the family object from.
_REBUILT = ("mu", "lam", "theta", "D")

_S = "symdelay.models.dde.closed:"


class InformationDelayModel(Model):
    """A model of the information-delay family: the transition table with the lag ``tau``,
    and ``options`` (the family's options as given, which build it again)."""

    #: the founding model's L = inf limit (two equal queues, logit, a constant lag)
    founding_limit: ClassVar[bool] = False

    def __init__(self, options: dict, shown: dict, **table):
        super().__init__(**table)
        #: every option the model was built from (None: not given)
        self.family_options = dict(options)
        #: the options a record shows (those given, and the non-default choices)
        self.options = dict(shown)

    def with_values(self, **values) -> Model:
        """The same family model with numbers for some of ``mu, lam, theta, D`` (any other
        parameter: the plain transition table's :meth:`Model.with_values`)."""
        given = self.family_options
        if set(values) <= set(_REBUILT) and not (
            given.get("service_rates") is not None and "mu" in values
        ):
            return information_delay_model(**{**given, **values})
        return Model.with_values(self, **values)


class FoundingLimitModel(InformationDelayModel):
    """Two equal queues, logit routing, a constant lag: the founding model's ``L = inf``
    limit, whose closed forms answer first (each entry's generic path answers otherwise)."""

    founding_limit: ClassVar[bool] = True

    SPECIALISATIONS: ClassVar[dict] = {
        "critical": _S + "specialised_critical",
        "stability": _S + "specialised_stability",
        "roots": _S + "specialised_roots",
        "worst_delay": _S + "specialised_worst_delay",
        "limit_cycle": _S + "specialised_limit_cycle",
        "fluid": "symdelay.models.dde.steps:specialised_fluid",
    }
    CLOSED_FORMS: ClassVar[dict] = {
        "critical": _S + "critical_closed_forms",
        "stability": _S + "stability_closed_forms",
        "worst_delay": _S + "worst_delay_closed_forms",
    }

    def integrate(self, T, history=None, dt=0.1, **solver):
        """The nonlinear DDE on ``[0, T]`` by the method of steps
        (:func:`symdelay.models.dde.steps.integrate`, which documents the arguments)."""
        from symdelay.models.dde.steps import integrate

        return integrate(self, T, history, dt, **solver)


def choice_function(text, parameters) -> sp.Expr:
    """The choice function ``G(x)`` read from ``text`` (the safe parser: data, never run),
    in the state name ``x`` and ``parameters`` (``{name: Symbol}``); refused in one line when
    it names anything else or does not depend on ``x``.

    >>> choice_function("(1 + theta*x)**(-3)", {"theta": sp.Symbol("theta")})
    (theta*x + 1)**(-3)
    """
    from symdelay.core.parsing import parse_expression

    if not isinstance(text, str) or not text.strip():
        raise SymdelayInputError(
            f"choice must be an expression in x such as {LOGIT} (a formula in quotes)"
        )
    names = ", ".join(["x", *parameters])
    try:
        G = parse_expression(text, variables={"x": X, **parameters}, canonical=False)
    except SymdelayInputError as exc:
        raise SymdelayInputError(f"choice: {exc}; write G(x) in {names}") from None
    if isinstance(G, sp.core.relational.Relational) or not isinstance(G, sp.Expr):
        raise SymdelayInputError(f"choice: {text!r} is not an expression; write G(x) in {names}")
    if X not in G.free_symbols:
        raise SymdelayInputError(
            f"choice: {text!r} does not depend on x (the queue length): routing would ignore "
            f"the queues; write G(x) in {names}, e.g. {LOGIT}"
        )
    return G


def _lag_spec(kind, shape) -> dict:
    """The lag ``tau`` of mean ``D`` of ``kind`` (a declaration of :mod:`symdelay.model.lags`)."""
    if kind not in LAG_KINDS:
        raise SymdelayInputError(f"lag must be one of {', '.join(LAG_KINDS)}, got {kind!r}")
    if shape is not None and kind != "gamma":
        raise SymdelayInputError(
            f"lag_shape is the shape of a gamma lag: give lag='gamma', not {kind!r}"
        )
    if kind == "constant":
        return {"kind": "constant", "value": "D"}
    if kind == "uniform":  # the moving average over the last 2D (mean D)
        return {"kind": "uniform", "low": "0", "high": "2*D"}
    if kind == "exponential":
        return {"kind": "exponential", "mean": "D"}
    if shape is None:
        raise SymdelayInputError("a gamma lag needs its shape: give lag_shape (a number > 0)")
    from symdelay.core.params import as_parameter

    k = as_parameter("lag_shape", shape)
    return {"kind": "gamma", "shape": str(k), "mean": "D"}


def _count(N) -> int:
    if isinstance(N, str):
        from symdelay.core.exact import read_number

        try:
            v = read_number("N", N)
        except SymdelayInputError:
            v = None
        N = int(v) if v is not None and v.denominator == 1 else N
    if isinstance(N, bool) or not isinstance(N, int) or N < 2:
        raise SymdelayInputError(f"N must be an integer >= 2 (number of queues), got {N!r}")
    if N > 2:
        from symdelay.core.budget import check_budget, power_cost

        # each routing rate sums N choice terms: about N^2 (as the nserver family)
        check_budget(
            f"building the model of {N} queues", power_cost(N, 6e-4, 2), shrink="a smaller --N"
        )
    return N


def _service_rates(rates, N: int) -> list:
    if isinstance(rates, str):
        rates = [t for t in rates.split(",")]
    if not isinstance(rates, (list, tuple)):
        raise SymdelayInputError(f"service_rates must be {N} numbers mu1,...,mu{N}, got {rates!r}")
    if len(rates) != N:
        raise SymdelayInputError(
            f"service_rates needs one rate per queue ({N}), got {len(rates)}: give mu1,...,mu{N}"
        )
    from symdelay.core.params import as_parameter

    out = []
    for i, v in enumerate(rates, 1):
        try:
            out.append(as_parameter(f"mu{i}", v))
        except SymdelayInputError as exc:
            raise SymdelayInputError(f"service_rates: {exc}") from None
    return out


def information_delay_model(
    N=2,
    mu=None,
    lam=None,
    theta=None,
    D=None,
    choice=LOGIT,
    service_rates=None,
    lag="constant",
    lag_shape=None,
) -> InformationDelayModel:
    """The information-delay model with ``N`` queues.

    Parameters
    ----------
    N : int, default 2
        Number of queues (>= 2); the cyclic shift is the symmetry when the servers are equal.
    mu, lam, theta, D : number or None
        Service rate, per-server arrival rate (total ``N lam``), routing sensitivity
        (>= 0) and mean lag (> 0); None leaves the parameter symbolic.
    choice : str, default ``"exp(-theta*x)"``
        The choice function ``G(x)``: routing to queue ``i`` is proportional to ``G`` of its
        lagged length; an expression in ``x``, the parameters and numbers (safe parser).
    service_rates : sequence of N numbers, optional
        Unequal service rates (parameters ``mu1..muN``; not with ``mu``): no symmetry, the
        equilibrium moves with ``theta`` (found numerically and proved).
    lag : {"constant", "uniform", "gamma", "exponential"}, default "constant"
        The law of the lag, of mean ``D``: the lengths seen ``D`` ago, their moving average
        over the last ``2D``, a gamma law of shape ``lag_shape``, an exponential law.
    lag_shape : number, optional
        The gamma lag's shape ``k > 0``.

    Returns
    -------
    InformationDelayModel
        A :class:`~symdelay.model.Model` with the lag ``tau``
        (:class:`FoundingLimitModel` for two equal queues, logit and a constant lag).
    """
    from symdelay.core.params import as_parameter

    given = {
        "N": N,
        "mu": mu,
        "lam": lam,
        "theta": theta,
        "D": D,
        "choice": choice,
        "service_rates": service_rates,
        "lag": lag,
        "lag_shape": lag_shape,
    }
    N = _count(N)
    spec = _lag_spec(lag, lag_shape)
    params: dict = {"lam": "positive", "theta": "nonnegative", "D": "positive"}
    values: dict = {}
    if service_rates is not None:
        if mu is not None:
            raise SymdelayInputError("give mu (equal servers) or service_rates (unequal), not both")
        rates = _service_rates(service_rates, N)
        mus = [sp.Symbol(f"mu{i + 1}") for i in range(N)]
        for m, v in zip(mus, rates):
            params[m.name] = "positive"
            values[m.name] = v
    else:
        mus = [sp.Symbol("mu")] * N
        params = {"mu": "positive", **params}
        if mu is not None:
            values["mu"] = as_parameter("mu", mu)
    if lam is not None:
        values["lam"] = as_parameter("lam", lam)
    if theta is not None:
        values["theta"] = as_parameter("theta", theta, positive=False)
        if not values["theta"] >= 0:
            raise SymdelayInputError(f"theta must be >= 0 (routing sensitivity), got {theta}")
    if D is not None:
        values["D"] = as_parameter("D", D)
    symbols = {p: sp.Symbol(p) for p in params}
    from symdelay.core.symbols import SYMBOLS

    symbols = {p: SYMBOLS.get(p, s) for p, s in symbols.items()}
    G = choice_function(choice, symbols)
    from symdelay.model.lags import delayed_function

    delayed, _ = delayed_function()
    tau = sp.Symbol("tau")
    qs = [sp.Symbol(f"q{i + 1}") for i in range(N)]
    seen = [G.xreplace({X: delayed(q, tau)}) for q in qs]
    total = sp.Add(*seen)
    lam_s = symbols["lam"]
    transitions = [
        (f"arrival to {i + 1}", {q.name: 1}, N * lam_s * seen[i] / total) for i, q in enumerate(qs)
    ]
    transitions += [
        (f"service {i + 1}", {q.name: -1}, m * q) for i, (q, m) in enumerate(zip(qs, mus))
    ]
    equal = service_rates is None
    logit = sp.simplify(G - sp.exp(-symbols["theta"] * X)) == 0
    rule = "logit" if logit else f"choice G(x) = {G}"
    servers = "equal" if equal else "unequal"
    article = "an" if lag[0] in "aeiou" else "a"
    name = f"{N} {servers} queues, {rule} routing on lengths seen through {article} {lag} lag of mean D"
    latex = {m: rf"\mu_{{{i + 1}}}" for i, m in enumerate(mus)} if not equal else {}
    shown = {k: given[k] for k in ("mu", "lam", "theta", "D")}
    if service_rates is not None:
        shown["service_rates"] = ",".join(str(v) for v in rates)
    if N != 2:
        shown = {"N": N, **shown}
    if not logit:
        shown["choice"] = str(G)
    if lag != "constant":
        shown["lag"] = lag if lag_shape is None else f"{lag}(shape {spec['shape']})"
    founding = N == 2 and equal and logit and lag == "constant"
    cls = FoundingLimitModel if founding else InformationDelayModel
    return cls(
        given,
        shown,
        name=name,
        states=[q.name for q in qs],
        parameters=params,
        transitions=transitions,
        symmetry=[[q.name for q in qs]] if equal else None,
        values=values,
        description="information delay: routing by a choice function of lagged queue lengths",
        latex_names=latex,
        source=f"model 'dde' ({N} queues)",
        mode_names={"0": "sum", **{str(j): "difference" for j in range(1, N)}},
        lags={"tau": spec},
    )
