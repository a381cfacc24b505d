"""``kappa=`` on the founding model's conveniences: the same arguments, with weights of the
jobs in flight, name the ``inflight`` model (routing on ``q_i + kappa z_i``).

>>> m = inflight_model(2, kappa=0.05, mu=1, lam=1, D=1)
>>> m.values[next(p for p in m.values if str(p) == "mu")]
1
"""

from __future__ import annotations

from symdelay.core.errors import SymdelayInputError

__all__ = ["inflight_model"]


def inflight_model(L, kappa, **values):
    """The ``inflight`` model with ``L`` phases, in-flight weights ``kappa`` (one, or one per
    phase) and the founding options given in ``values`` (``D`` a number or a one-item list)."""
    from symdelay.core.params import is_infinite_L
    from symdelay.models import build_model

    D = values.get("D")
    if isinstance(D, (list, tuple)):
        if len(D) != 1:
            raise SymdelayInputError(f"kappa= takes one delay D, got {len(D)}")
        values["D"] = D[0]
    if is_infinite_L(L):
        raise SymdelayInputError(
            "kappa= needs a finite L (for L = inf see symdelay.models.inflight.kappa_star_limit)"
        )
    weights = list(kappa) if isinstance(kappa, (list, tuple)) else kappa
    given = {k: v for k, v in values.items() if v is not None}
    return build_model("inflight", L=int(L), kappa=weights, **given)
