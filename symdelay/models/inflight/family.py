"""Routing that counts jobs in flight: the dispatcher observes q_i + sum_l kappa_l z_{i,l}.

``kappa = 0`` is the founding model; ``kappa = 1`` counts every job already sent to server i
and still in its delay. The model only; its analysis is the same generic pipeline.

>>> m = model(L=1, kappa=1)
>>> m.factors[-1].factor
gamma*lam*theta + gamma*mu + gamma*r + lam*mu*theta + lam*r*theta + mu*r + r**2
"""

from __future__ import annotations

from symdelay.core.options import Option

__all__ = ["model", "INFO", "OPTIONS"]

INFO = {
    "name": "inflight",
    "parameters": ["L", "mu", "lam", "theta", "D", "kappa"],
    "description": "two queues, logit routing on q_i + sum_l kappa_l z_il (jobs in flight), "
    "Erlang(L, mean D) delay",
}


OPTIONS = (
    Option("L", "number of Erlang delay phases (integer >= 1)", "integer", "2"),
    Option("mu", "service rate (> 0)"),
    Option("lam", "per-server arrival rate (> 0)"),
    Option("theta", "routing sensitivity (>= 0)"),
    Option("D", "mean action delay (> 0)"),
    Option(
        "kappa", "weight of jobs in flight: one for every phase, or one per phase", "numbers", "1"
    ),
)


def model(L=2, mu=None, lam=None, theta=None, D=None, kappa=1):
    """``kappa``: one weight for every phase, or a list of L weights; the text ``"kappa"``
    leaves the weight a free parameter ``kappa >= 0`` (as a map over kappa needs)."""
    from symdelay.core.errors import SymdelayInputError
    from symdelay.core.params import as_L, as_parameter
    from symdelay.models.delayed_routing import delayed_routing_model
    from symdelay.models.phase import PhaseType

    L = as_L(L, allow_symbol=False)
    if kappa is None:
        raise SymdelayInputError("give kappa, the weight of jobs in flight (e.g. 1, or 1,0.5)")
    if isinstance(kappa, str):
        kappa = [k.strip() for k in kappa.split(",")] if "," in kappa else kappa.strip()
    weights = list(kappa) if isinstance(kappa, (list, tuple)) else [kappa] * L
    for w in weights:
        if isinstance(w, str) and w.strip() == "kappa":
            continue  # left free: a parameter kappa >= 0 of the model (a map over kappa)
        value = as_parameter("kappa", w, positive=False)
        if value.is_number and value < 0:
            raise SymdelayInputError(
                f"kappa must be >= 0 (a weight of the jobs in flight), got {w}"
            )
    return delayed_routing_model(
        N=2,
        delay=PhaseType.erlang(L, D),
        mu=mu,
        lam=lam,
        theta=theta,
        kappa=weights,
        name=f"two queues, routing on jobs in service and in flight, Erlang({L}) delay",
    )
