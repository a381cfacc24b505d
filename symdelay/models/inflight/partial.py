"""Partial observation of the delay: which observed phases remove every instability, and how
much of the full-information benefit each criterion keeps.

A pattern ``e`` says which delay phases the dispatcher sees (``first``: it learns of a job
only in the first phase after sending it; ``last``: only in the last phase before arrival;
``first-half`` / ``last-half``). Seeing each job in flight independently with probability
``p`` gives, in the fluid limit, the uniform weight ``kappa = p`` (the expected observed
count), so it removes every instability exactly when ``p > kappa*``.

For each pattern :func:`observation_table` reports the certified ``kappa*`` of the pattern
(the smallest weight on the observed phases that is stable for every ``theta``; ``None`` if
no weight is), whether weight 1 (counting every observed job) suffices, and, at a given
``theta``, the share of the full-information improvement each criterion keeps:
``(v_pattern - v_0) / (v_all - v_0)``, ``v`` the criterion at the best weight on the pattern,
on all phases, and at ``kappa = 0``.
"""

from __future__ import annotations

from dataclasses import dataclass

from symdelay.core.result import Result
from symdelay.models.inflight.criteria import optimize_weights
from symdelay.models.inflight.curve import PATTERNS, kappa_star, unstable_theta

__all__ = [
    "ObservationRow",
    "observation_table",
    "LINEAR_CRITERIA",
    "thinned_model",
    "thinned_variance",
]

LINEAR_CRITERIA = ("decay", "tolerance-linear", "variance")


@dataclass(frozen=True)
class ObservationRow(Result):
    """One pattern at one L."""

    L: int
    pattern: str
    kappa_star: float | None
    weight_one_suffices: bool
    kept: dict  # criterion -> share of the full-information benefit (0..1)
    best_kappa: dict  # criterion -> best weight on the pattern
    theta: float = 0.0


def observation_table(
    Ls=(2, 3, 5), mu=1, lam=1, D=1, theta_factor=0.8, patterns=PATTERNS,
    criteria=LINEAR_CRITERIA, dps=15,
) -> list[ObservationRow]:  # fmt: skip
    """Rows for every ``L`` and pattern (see the module docstring), each criterion at
    ``theta = theta_factor * theta_c`` (``theta_c``: the founding model's first crossing,
    so that ``kappa = 0`` is stable and every share is finite)."""
    rows = []
    for L in Ls:
        founding = unstable_theta(L, 0, mu, lam, D, dps=dps)
        theta = float(theta_factor) * (
            float(founding.intervals[0][0]) if founding.intervals else 10.0
        )
        full = {c: optimize_weights(L, mu, lam, theta, D, c) for c in criteria}
        for name in patterns:
            if L == 1 and name != "all":
                continue
            ks = kappa_star(L, mu, D, pattern=name, dps=dps)
            kst = None if ks.kappa_star is None else float(ks.kappa_star)
            kept, best = {}, {}
            for c in criteria:
                res = full[c] if name == "all" else optimize_weights(
                    L, mu, lam, theta, D, c, pattern=name
                )  # fmt: skip
                base, top = full[c].at_kappa_0, full[c].value
                kept[c] = (res.value - base) / (top - base) if top != base else 1.0
                best[c] = res.kappa
            rows.append(
                ObservationRow(L, name, kst, kst is not None and kst < 1, kept, best, theta)
            )
    return rows


def thinned_model(L, p, mu=1, lam=1, theta=1, D=1):
    """The jump process in which each job sent is visible to the dispatcher with probability
    ``p`` (decided once per job): two Erlang(L, mean D) branches, entered with probabilities
    ``p`` and ``1 - p``, the visible branch counted with weight 1. Its fluid limit is the
    uniform weight ``kappa = p`` (same difference-mode eigenvalues, plus decaying ones); its
    noise is not."""
    import sympy as sp

    from symdelay.core.params import as_L, as_parameter
    from symdelay.models.delayed_routing import delayed_routing_model
    from symdelay.models.phase_type import PhaseType

    L = int(as_L(L, allow_symbol=False))
    pq = as_parameter("kappa", p, positive=False)
    if not (pq.is_Rational and 0 <= pq <= 1):
        raise ValueError(f"p must be a probability in [0, 1], got {p}")
    g = sp.Integer(L) / as_parameter("D", D)
    S = [[0] * (2 * L) for _ in range(2 * L)]
    for b in range(2):
        for ell in range(L):
            i = b * L + ell
            S[i][i] = -g
            if ell < L - 1:
                S[i][i + 1] = g
    alpha = [pq] + [0] * (L - 1) + [1 - pq] + [0] * (L - 1)
    delay = PhaseType.general(alpha, S)
    return delayed_routing_model(
        N=2, delay=delay, mu=mu, lam=lam, theta=theta, kappa=[1] * L + [0] * L,
        name=f"two queues, each job in flight visible with probability {pq}, Erlang({L}) delay",
    )  # fmt: skip


def thinned_variance(L, p, mu=1, lam=1, theta=1, D=1) -> float:
    """LNA ``Var(Q1 - Q2)/eta`` of :func:`thinned_model` (exact rational, as a float)."""
    from symdelay.analysis.stochastic import variance

    v = variance(thinned_model(L, p, mu, lam, theta, D)).value
    return float(v)
