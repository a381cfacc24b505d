"""The founding model through the generic layer: two queues, Erlang(L, mean D) action delay.

:class:`~symdelay.models.erlang.action_delay.ActionDelayModel` keeps the symbolic-L derivation and
the fast paths; this constructor gives the same system as a transition table, so that the
generic machinery (modes, factors, Routh) can be compared with them.

>>> m = model(L=1)
>>> [f.mode for f in m.factors]
['sum', 'sum', 'difference']
"""

from __future__ import annotations

from symdelay.core.options import Option

__all__ = ["model", "INFO", "OPTIONS"]

INFO = {
    "name": "erlang",
    "parameters": ["L", "mu", "lam", "theta", "D"],
    "description": "the founding model: two queues, logit routing on queue lengths, "
    "Erlang(L, mean D) action delay",
}


OPTIONS = (
    Option("L", "number of Erlang delay phases: an integer >= 1, or inf", "count", "2"),
    Option("mu", "service rate (> 0)"),
    Option("lam", "per-server arrival rate (> 0)"),
    Option("theta", "routing sensitivity (>= 0)"),
    Option("D", "mean action delay (> 0; without it the phase rate gamma stays symbolic)"),
)


def model(L=2, mu=None, lam=None, theta=None, D=None):
    """The founding model with ``L`` phases; ``D`` None leaves the phase rate ``gamma``."""
    from symdelay.models.delayed_routing import delayed_routing_model
    from symdelay.models.phase import PhaseType

    return delayed_routing_model(
        N=2,
        delay=PhaseType.erlang(L, D),
        mu=mu,
        lam=lam,
        theta=theta,
        name=f"two queues, logit routing, Erlang({L}) action delay",
    )
