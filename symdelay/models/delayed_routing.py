"""The family behind the built-in models: N queues, logit routing, phase-type action delays.

Jobs arrive at total rate ``N lam`` (scaled). The dispatcher sends a job to server ``i`` with
the multinomial-logit probability of the *observed* loads

    o_i = q_i + sum_l kappa_l z_{i,l},        p_i = exp(-theta o_i) / sum_j exp(-theta o_j),

(``kappa = 0``: the founding model's queue lengths; ``kappa = 1``: queue plus every job in
flight). The job's delay starts in phase ``l`` with probability ``alpha_l`` and moves by the
sub-generator ``S`` of the delay of server ``i``; on absorption it enters service, where it
stays an Exp(``mu_i``) time. The transition table below is all the code states; every
analysis derives what it needs from it.
"""

from __future__ import annotations

from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.core.params import as_parameter
from symdelay.core.symbols import lam as LAM
from symdelay.core.symbols import mu as MU
from symdelay.core.symbols import theta as THETA
from symdelay.model import Model
from symdelay.models.phase import PhaseType

__all__ = ["delayed_routing_model"]

#: a free in-flight weight: ``kappa`` entries may be ``c * KAPPA`` (``c >= 0`` rational)
KAPPA = sp.Symbol("kappa")


def _weight(k):
    """One in-flight weight: a number, a non-negative rational times ``KAPPA``, or a free
    weight of its own (a symbol ``kappa_<phase>``: every phase weighted independently)."""
    if isinstance(k, sp.Symbol) and k.name.startswith("kappa_"):
        return k
    if isinstance(k, sp.Basic) and k.free_symbols == {KAPPA}:
        c = sp.cancel(k / KAPPA)
        if c.is_Rational and c >= 0:
            return c * KAPPA
        raise SymdelayInputError(f"a free in-flight weight is c*kappa with c >= 0, got {k}")
    return as_parameter("kappa", k, positive=False)


def _value(name: str, value, positive: bool):
    """``value`` made exact; errors name the option (``mu2 must be positive, got -2``)."""
    if isinstance(value, sp.Basic) and not value.is_number:
        return value
    try:
        return as_parameter(name, value, positive=positive)
    except SymdelayInputError as exc:
        if str(exc).startswith(name + " "):
            raise
        raise SymdelayInputError(f"{name}: {exc}") from None


#: the in-flight weight left free (``kappa="kappa"``)
KAPPA = sp.Symbol("kappa")


def _is_kappa_name(k) -> bool:
    return (isinstance(k, str) and k.strip() == "kappa") or k == KAPPA


def _state_names(N: int, m: int) -> tuple[list[str], list[list[str]]]:
    q = [f"q{i + 1}" for i in range(N)]
    z = [[f"z{i + 1}_{ell + 1}" for ell in range(m)] for i in range(N)]
    return q, z


def delayed_routing_model(
    *,
    N: int = 2,
    delay: PhaseType | list,
    mu=None,
    lam=None,
    theta=None,
    kappa=None,
    name: str | None = None,
    description: str = "",
) -> Model:
    """Build the :class:`~symdelay.model.Model` of the family.

    ``mu``: one value (or None: the symbol ``mu``) or a list of N values (unequal servers:
    parameters ``mu1..muN``). ``delay``: one :class:`PhaseType` or a list of N (unequal
    delays). ``kappa``: weights of the delay phases in the observed load (None: 0).
    Numbers become parameter values; None leaves a parameter symbolic.
    """
    if isinstance(N, bool) or not isinstance(N, int) or N < 2:
        raise SymdelayInputError(f"N must be an integer >= 2 (number of servers), got {N!r}")
    delays = list(delay) if isinstance(delay, (list, tuple)) else [delay] * N
    if len(delays) != N:
        raise SymdelayInputError(f"give one delay or {N} delays, got {len(delays)}")
    if any(not isinstance(d, PhaseType) for d in delays):
        raise SymdelayInputError("each delay must be a PhaseType")
    m = delays[0].phases
    if any(d.phases != m for d in delays):
        raise SymdelayInputError("unequal delays must have the same number of phases")
    params: dict = {"lam": "positive", "theta": "real"}
    values: dict = {}
    hetero_mu = isinstance(mu, (list, tuple))
    if hetero_mu:
        if len(mu) != N:
            raise SymdelayInputError(f"give one mu or {N} values, got {len(mu)}")
        mus = [sp.Symbol(f"mu{i + 1}") for i in range(N)]
        for i, v in enumerate(mu):
            params[f"mu{i + 1}"] = "positive"
            if v is not None:
                values[f"mu{i + 1}"] = _value(f"mu{i + 1}", v, True)
    else:
        mus = [MU] * N
        params["mu"] = "positive"
        if mu is not None:
            values["mu"] = _value("mu", mu, True)
    for d in delays:
        for p, dom in d.parameters.items():
            params[p.name] = dom
    if lam is not None:
        values["lam"] = _value("lam", lam, True)
    if theta is not None:
        values["theta"] = _value("theta", theta, False)
    kap = [0] * m if kappa is None else list(kappa)
    if len(kap) != m:
        raise SymdelayInputError(f"kappa needs one weight per delay phase ({m}), got {len(kap)}")
    if any(k is None for k in kap):
        raise SymdelayInputError("kappa must be a number (or one number per delay phase)")
    # the name "kappa" (text or symbol) leaves the weight a free parameter (a map over kappa,
    # kappa*); c*kappa with a rational c >= 0 is one free weight times a pattern
    kap = [KAPPA if _is_kappa_name(k) else _weight(k) for k in kap]
    for free in sorted(set().union(*(k.free_symbols for k in kap)), key=str):
        params[free.name] = "nonnegative"
    qn, zn = _state_names(N, m)
    q = [sp.Symbol(s) for s in qn]
    z = [[sp.Symbol(s) for s in row] for row in zn]
    observed = [q[i] + sum(k * zz for k, zz in zip(kap, z[i])) for i in range(N)]
    weights = [sp.exp(-THETA * o) for o in observed]
    total = sp.Add(*weights)
    transitions = []
    for i in range(N):
        a, S, ex = delays[i].alpha, delays[i].S, delays[i].exit_rates
        for ell in range(m):
            if a[ell] != 0:
                transitions.append(
                    (
                        f"arrival to {i + 1}, phase {ell + 1}",
                        {zn[i][ell]: 1},
                        N * LAM * a[ell] * weights[i] / total,
                    )
                )
        for ell in range(m):
            for k in range(m):
                if k != ell and S[ell, k] != 0:
                    transitions.append(
                        (
                            f"phase {ell + 1} -> {k + 1} (server {i + 1})",
                            {zn[i][ell]: -1, zn[i][k]: 1},
                            S[ell, k] * z[i][ell],
                        )
                    )
            if ex[ell] != 0:
                transitions.append(
                    (
                        f"phase {ell + 1} -> service {i + 1}",
                        {zn[i][ell]: -1, qn[i]: 1},
                        ex[ell] * z[i][ell],
                    )
                )
        transitions.append((f"service {i + 1}", {qn[i]: -1}, mus[i] * q[i]))
    homogeneous = not hetero_mu and all(
        d.alpha == delays[0].alpha and d.S == delays[0].S for d in delays
    )
    symmetry = None
    if homogeneous:
        symmetry = [qn] + [[zn[i][ell] for i in range(N)] for ell in range(m)]
    latex = {sp.Symbol(s): f"q_{{{i + 1}}}" for i, s in enumerate(qn)}
    for i in range(N):
        for ell in range(m):
            latex[sp.Symbol(zn[i][ell])] = f"z_{{{i + 1},{ell + 1}}}"
    for i in range(N):
        if hetero_mu:
            latex[sp.Symbol(f"mu{i + 1}")] = rf"\mu_{{{i + 1}}}"
    if name is None:
        name = f"{N} queues, logit routing, {delays[0].kind} action delay"
    return Model(
        name,
        [*qn, *[s for row in zn for s in row]],
        params,
        transitions,
        symmetry=symmetry,
        values=values,
        description=description,
        latex_names=latex,
        source=name,
        mode_names={"0": "sum", **{str(j): "difference" for j in range(1, N)}},
    )


def two_queue_erlang(L: int, options: dict, name: str, kappa=None) -> Model:
    """The transition table of two queues with an Erlang(L) delay of mean ``options["D"]``
    and the other ``options`` (``mu``, ``lam``, ``theta``; None: symbolic), the jobs in
    flight weighted by ``kappa`` (one weight per phase; None: not observed): the table the
    founding and in-flight model objects build on first use."""
    from symdelay.models.phase import PhaseType

    return delayed_routing_model(
        N=2,
        delay=PhaseType.erlang(L, options["D"]),
        mu=options["mu"],
        lam=options["lam"],
        theta=options["theta"],
        kappa=kappa,
        name=name,
    )
