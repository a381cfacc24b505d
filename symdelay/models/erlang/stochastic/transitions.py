"""The transition table of the jump process (docs/model.md) as SymPy data.

Each transition is ``(name, change, rate)``: ``change`` the jump of the unscaled state
(a tuple of integers in the order of :attr:`ActionDelayModel.state`) and ``rate`` the
*scaled* rate ``beta(s)`` in the scaled state ``s`` (the rate of the unscaled process is
``eta * beta(S/eta)``). The fluid drift ``F(s) = sum_nu nu beta_nu(s)`` must equal the model
layer's :meth:`fluid_rhs`; :func:`check_drift` verifies it with SymPy.

>>> from symdelay.models import ActionDelayModel
>>> m = ActionDelayModel(L=1)
>>> [name for name, _, _ in transition_table(m)]
['arrival_1', 'arrival_2', 'enter_service_1', 'enter_service_2', 'service_1', 'service_2']
>>> check_drift(m)
True
"""

from __future__ import annotations

from symdelay.core.errors import VerificationError
from symdelay.core.lazy import sympy as sp

__all__ = ["transition_table", "check_drift"]


def transition_table(model) -> list[tuple[str, tuple, sp.Expr]]:
    """All transitions ``(name, change, scaled rate)`` of the model with concrete L."""
    L = model.L
    state = model.state
    index = {s: k for k, s in enumerate(state)}
    p = model.routing_probabilities()
    g, mu, lam = model.gamma, model.mu, model.lam

    def unit(*pairs):
        v = [0] * len(state)
        for sym, c in pairs:
            v[index[sym]] += c
        return tuple(v)

    table = []
    for i in (0, 1):
        table.append((f"arrival_{i + 1}", unit((model.z[i][0], 1)), 2 * lam * p[i]))
    for i in (0, 1):
        for ell in range(L - 1):
            zi = model.z[i]
            table.append(
                (f"phase_{i + 1}_{ell + 1}", unit((zi[ell], -1), (zi[ell + 1], 1)), g * zi[ell])
            )
    for i in (0, 1):
        zL = model.z[i][-1]
        table.append((f"enter_service_{i + 1}", unit((zL, -1), (model.q[i], 1)), g * zL))
    for i in (0, 1):
        table.append((f"service_{i + 1}", unit((model.q[i], -1)), mu * model.q[i]))
    return table


def check_drift(model) -> bool:
    """``sum nu * beta_nu == fluid_rhs`` componentwise (raises VerificationError if not)."""
    table = transition_table(model)
    drift = [sp.Integer(0)] * len(model.state)
    for _, change, rate in table:
        drift = [d + c * rate for d, c in zip(drift, change)]
    for d, f in zip(drift, model.fluid_rhs()):
        if sp.simplify(d - f) != 0:
            raise VerificationError(f"transition table drift {d} != fluid rhs {f}")
    return True
