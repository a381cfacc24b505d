"""N >= 2 symmetric servers with logit routing and a phase-type (default Erlang) delay.

The cyclic shift of the servers is a symmetry; its N Fourier modes split the Jacobian. The
symmetric (sum) mode is free of theta; the N - 1 others share one characteristic
polynomial, the two-server difference equation with the per-server arrival rate lam:
``r + mu + lam theta alpha (rI - S)^{-1} s = 0``.

>>> m = model(N=3, L=1)
>>> [(f.mode, f.multiplicity) for f in m.factors]
[('sum', 1), ('sum', 1), ('difference (2 copies)', 2)]
"""

from __future__ import annotations

from .delayed_routing import delayed_routing_model
from .phase_type import PhaseType

__all__ = ["model", "INFO"]

INFO = {
    "name": "nserver",
    "parameters": ["N", "L", "mu", "lam", "theta", "D"],
    "description": "N symmetric queues, logit routing, Erlang(L, mean D) or phase-type delay",
}


def model(N=3, L=2, mu=None, lam=None, theta=None, D=None, delay: PhaseType | None = None):
    """N queues; ``delay`` overrides the Erlang(L, D) delay."""
    d = delay if delay is not None else PhaseType.erlang(L, D)
    return delayed_routing_model(
        N=N, delay=d, mu=mu, lam=lam, theta=theta, name=f"{N} queues, logit routing, {d.kind} delay"
    )
