"""Two unequal servers: service rates mu1 != mu2, and possibly unequal mean delays.

No symmetry: the equilibrium is not symmetric and, with logit routing, solves a
transcendental equation; it is found by Newton's method and proved by a Krawczyk test
(:mod:`symdelay.model.equilibrium`). The full Jacobian is analysed as one mode.

>>> m = model(mu1=1, mu2=2, lam=1, theta=1, D1=1, D2=1, L=1)
>>> from symdelay.analysis.stability import is_stable
>>> m.equilibrium.exact, is_stable(m)
(False, True)
"""

from __future__ import annotations

from symdelay.core.errors import SymdelayInputError
from symdelay.core.options import RATES, Option
from symdelay.core.params import as_parameter
from symdelay.models.delayed_routing import delayed_routing_model
from symdelay.models.phase_type import PhaseType

__all__ = ["model", "INFO"]

INFO = {
    "name": "hetero",
    "parameters": ["L", "mu1", "mu2", "lam", "theta", "D1", "D2"],
    "description": "two unequal servers (mu1, mu2; mean delays D1, D2), logit routing, "
    "Erlang(L) delays",
}


OPTIONS = (
    Option("L", "number of Erlang phases of each delay (integer >= 1)", "integer", "1"),
    Option("mu1", "service rate of server 1 (> 0)"),
    Option("mu2", "service rate of server 2 (> 0)"),
    *RATES[1:],
    Option("D", "mean delay before both servers (> 0)"),
    Option("D1", "mean delay before server 1 (> 0; overrides D)"),
    Option("D2", "mean delay before server 2 (> 0; overrides D)"),
)


def model(mu1=None, mu2=None, lam=None, theta=None, D1=None, D2=None, L=1, D=None):
    """Unequal servers; ``D`` sets both mean delays unless ``D1``/``D2`` are given."""
    D1 = D if D1 is None else D1
    D2 = D if D2 is None else D2
    if D1 is None or D2 is None:
        raise SymdelayInputError("give the mean delays D1 and D2 (or D for both)")
    # checked here so that an error names the option (D1, D2), not the Erlang mean D
    D1, D2 = as_parameter("D1", D1), as_parameter("D2", D2)
    return delayed_routing_model(
        N=2,
        delay=[PhaseType.erlang(L, D1), PhaseType.erlang(L, D2)],
        mu=[mu1, mu2],
        lam=lam,
        theta=theta,
        name=f"two unequal queues, logit routing, Erlang({L}) delays",
    )
