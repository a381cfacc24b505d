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

from dataclasses import dataclass

from symdelay.core.errors import SymdelayInputError, VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.params import as_parameter
from symdelay.core.symbols import lam as LAM
from symdelay.core.symbols import mu as MU
from symdelay.core.symbols import theta as THETA
from symdelay.model import Model
from symdelay.models.phase import PhaseType

__all__ = ["delayed_routing_model", "two_queue_erlang", "swap_mode", "LagLimit", "lag_limit"]

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
        moves = [[] for _ in range(m)]  # the nonzero off-diagonal rates, row by row
        for (ell, k), rate in sorted(S.todok().items()):
            if k != ell and rate != 0:
                moves[ell].append((k, rate))
        for ell in range(m):
            for k, rate in moves[ell]:
                transitions.append(
                    (
                        f"phase {ell + 1} -> {k + 1} (server {i + 1})",
                        {zn[i][ell]: -1, zn[i][k]: 1},
                        rate * z[i][ell],
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
    return delayed_routing_model(
        N=2,
        delay=PhaseType.erlang(L, options["D"]),
        mu=options["mu"],
        lam=options["lam"],
        theta=options["theta"],
        kappa=kappa,
        name=name,
    )


def swap_mode(rows, pairs, kind: str) -> tuple:
    """The exact (nonlinear) sum or difference dynamics of a system with a swap symmetry.

    ``rows``: ``[(F_a, F_b)]``, the right-hand sides of the two members of each orbit whose
    mode row is formed; ``pairs``: ``[(a, b, c)]``, each swapped symbol ``a``, its image
    ``b`` and the mode coordinate ``c`` that replaces ``a``: ``a = b + c`` for the
    ``"difference"`` (``c = a - b``), ``a = c - b`` for the ``"sum"`` (``c = a + b``). Every
    row ``F_a -+ F_b`` is checked closed (no ``b`` is left after the substitution, once the
    exponentials of the swapped symbols have cancelled); where exponentials remain (logit
    routing) SymPy rewrites them as ``tanh`` (``exp(u) = (1 + tanh(u/2))/(1 - tanh(u/2))``)
    and cancels, and the result is checked equal to the row by rewriting it back in
    exponentials. Linear rows come with their common factors pulled out.

    >>> q1, q2, x, th = sp.symbols("q1 q2 x theta")
    >>> p1 = sp.exp(-th * q1) / (sp.exp(-th * q1) + sp.exp(-th * q2))
    >>> swap_mode([(p1, p1.xreplace({q1: q2, q2: q1}))], [(q1, q2, x)], "difference")
    (-tanh(theta*x/2),)
    """
    if kind not in ("sum", "difference"):
        raise ValueError(f"kind must be 'sum' or 'difference', got {kind!r}")
    sign = -1 if kind == "difference" else 1
    shift = {a: (b + c if sign < 0 else c - b) for a, b, c in pairs}
    others = {b for _, b, _ in pairs}
    out = []
    for Fa, Fb in rows:
        raw = (Fa + sign * Fb).xreplace(shift)
        row = sp.expand(raw)
        if row.has(sp.exp):  # the exponentials of the swapped symbols cancel
            row = sp.cancel(sp.powsimp(row))
        if row.free_symbols & others:
            raise VerificationError(f"the {kind} mode is not closed: {row}")
        if not row.has(sp.exp):
            out.append(sp.factor_terms(row))
            continue
        row = sp.cancel(row.rewrite(sp.tanh))
        gap = (row - raw).rewrite(sp.exp)
        if sp.cancel(sp.powsimp(sp.expand(gap))) != 0 and sp.simplify(gap) != 0:
            raise VerificationError(f"the tanh form {row} of the {kind} row {raw} failed")
        out.append(row)
    return tuple(out)


@dataclass(frozen=True)
class LagLimit:
    """The family with every job's delay replaced by the constant mean delay ``D``.

    ``queues``: the queue states; ``routed[i]``: the rate at which jobs are routed to queue
    ``i`` (a function of the queues the dispatcher observes); ``served[i]``: the rate at
    which they leave it. The delay-differential system is

        q_i'(t) = routed_i(q(t - D)) - served_i(q(t)).
    """

    queues: tuple
    routed: tuple
    served: tuple

    def drift(self, now, delayed) -> tuple:
        """``q_i'(t)`` with the queues at ``t`` (``now``) and at ``t - D`` (``delayed``)."""
        at_now, at_lag = dict(zip(self.queues, now)), dict(zip(self.queues, delayed))
        return tuple(
            a.xreplace(at_lag) - b.xreplace(at_now) for a, b in zip(self.routed, self.served)
        )

    def linear_difference(self) -> tuple:
        """``(a, b)``: the difference ``x = q_1 - q_2`` of two queues linearised at a symmetric
        point, ``x'(t) = a x(t) + b x(t - D)`` (checked free of the point).

        >>> from symdelay.models.erlang.founding import symbolic_founding
        >>> lag_limit(symbolic_founding(1)).linear_difference()
        (-mu, -lam*theta)
        """
        now, lag = sp.symbols("now_1 now_2"), sp.symbols("lag_1 lag_2")
        x, xd = sp.symbols("x x_D")
        F = self.drift(now, lag)
        raw = (F[0] - F[1]).xreplace({now[0]: now[1] + x, lag[0]: lag[1] + xd})
        at = {x: 0, xd: 0}
        slopes = tuple(sp.cancel(sp.powsimp(sp.diff(raw, v).xreplace(at))) for v in (x, xd))
        if any(e.free_symbols & {*now, *lag} for e in slopes):
            raise VerificationError(f"the linearised difference {slopes} depends on the point")
        return slopes

    def mode(self, kind: str) -> tuple:
        """``(c, c_D, row)``: the ``"difference"`` ``x = q_1 - q_2`` (or the ``"sum"``) of two
        queues obeys ``c'(t) = row(c(t), c(t - D))``, derived by :func:`swap_mode` (closed,
        exact; the logit difference as ``tanh``).

        >>> from symdelay.models.erlang.founding import symbolic_founding
        >>> lag_limit(symbolic_founding(1)).mode("difference")
        (x, x_D, -2*lam*tanh(theta*x_D/2) - mu*x)
        """
        if len(self.queues) != 2:
            raise SymdelayInputError(f"a {kind} mode needs two queues, not {len(self.queues)}")
        now, lag = sp.symbols("now_1 now_2"), sp.symbols("lag_1 lag_2")
        F = self.drift(now, lag)
        c = sp.Symbol("x" if kind == "difference" else "s")
        cd = sp.Symbol(f"{c.name}_D")
        (row,) = swap_mode([F], [(now[0], now[1], c), (lag[0], lag[1], cd)], kind)
        return c, cd, row


def lag_limit(model: Model) -> LagLimit:
    """The family's limit ``L -> oo`` at fixed mean delay ``D`` (:class:`LagLimit`), read off
    a table of the family.

    An Erlang(L) delay of mean ``D`` has variance ``D^2/L``: in the limit a job routed at
    ``u`` enters service at ``u + D``, so the flow into queue ``i`` at ``t`` is the routing
    rate at ``t - D`` (the polynomials tend to ``r + mu + lam theta exp(-r D)``,
    :func:`symdelay.models.erlang.charpoly.infinite_L_limit`; the fluid paths converge at rate
    ``O(1/L)``, :func:`symdelay.models.dde.steps.compare_with_action_delay`). A jump that adds a job
    is an arrival into a delay phase, one that removes a job a service, one that moves a job a
    step along the delay chain, followed to the queue the job joins. The routing must observe
    the queues alone (in-flight weights ``kappa`` 0).

    >>> from symdelay.models.erlang.founding import symbolic_founding
    >>> lim = lag_limit(symbolic_founding(1))
    >>> lim.queues, lim.served
    ((q1, q2), (mu*q1, mu*q2))
    >>> lim.routed[0]
    2*lam*exp(-q1*theta)/(exp(-q2*theta) + exp(-q1*theta))
    """
    states, arrivals, served, moves = model.states, [], {}, {}
    for t in model.transitions:
        up = [i for i, c in enumerate(t.change) if c > 0]
        down = [i for i, c in enumerate(t.change) if c < 0]
        if any(abs(c) > 1 for c in t.change) or len(up) > 1 or len(down) > 1:
            raise SymdelayInputError(f"{model.name}: transition '{t.name}' moves more than one job")
        rate = t.rate.xreplace(model.values)
        if not down:
            arrivals.append((up[0], rate))
        elif not up:
            served[down[0]] = served.get(down[0], 0) + rate
        elif moves.setdefault(down[0], up[0]) != up[0]:
            raise SymdelayInputError(f"{model.name}: the lag limit needs delay phases in a chain")
    queues = sorted(served)
    routed = dict.fromkeys(queues, sp.Integer(0))
    for i, rate in arrivals:
        if rate.free_symbols & set(states) - {states[k] for k in queues}:
            raise SymdelayInputError(
                f"{model.name}: the routing observes jobs in flight; the constant-lag limit "
                "needs routing on the queues alone (kappa = 0)"
            )
        seen = {i}
        while i not in served:  # along the chain to the queue
            i = moves.get(i)
            if i is None or i in seen:
                raise SymdelayInputError(f"{model.name}: a routed job reaches no queue")
            seen.add(i)
        routed[i] += rate
    return LagLimit(
        tuple(states[k] for k in queues), tuple(routed.values()), tuple(served[k] for k in queues)
    )
