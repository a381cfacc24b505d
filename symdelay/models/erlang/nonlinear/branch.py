"""The founding model's branch of cycles at ``L = inf``: the family's specialisation of the
``cycles`` entry (:func:`symdelay.analysis.continuation.cycles`).

The limit ``L = inf`` has no table of delay phases; it is the delay equation
``q_i'(t) = routed_i(q(t - D)) - mu q_i(t)``, which the family writes as a transition table
with a constant action lag ``D``
(:meth:`~symdelay.models.erlang.founding.FoundingModel.limit_table`, its rates read off the
family's own table). The branch is the generic delay continuation of that table
(collocation, :mod:`symdelay.analysis.dbvp`); the record is the usual
:class:`~symdelay.analysis.continuation.CycleBranch`, named after the founding model.
A finite ``L`` declines (the generic path continues the table of phases). A start cycle of
the delay equation's imbalance ``x = q1 - q2`` alone (the ``L = inf`` ``limit_cycle``) is
lifted to the queues: on a periodic orbit the sum ``s = q1 + q2`` (``s' = 2 lam - mu s``,
decoupled) is at its equilibrium ``2 lam/mu``, so ``q_{1,2} = lam/mu +- x/2`` exactly.
"""

from __future__ import annotations

__all__ = ["specialised_cycles"]


def specialised_cycles(model, param="theta", lo=None, hi=None, **keywords):
    """The branch of cycles of the founding model at ``L = inf`` (None for a finite ``L``:
    the generic path answers). ``keywords``: those of the ``cycles`` entry."""
    if not getattr(model, "infinite", False):
        return None
    from symdelay.analysis.continuation import cycles

    start = keywords.get("start")
    y = getattr(start, "y", None)
    if y is not None and getattr(y, "ndim", 0) == 2 and y.shape[0] == 1:
        keywords["start"] = _lifted(model, start)
    return cycles(model.limit_table(), param, lo, hi, method="generic", **keywords)


def _lifted(model, cycle):
    """``cycle`` (an orbit of ``x = q1 - q2`` alone) as an orbit of ``(q1, q2)``."""
    from dataclasses import replace

    import numpy as np

    mu, lam = model.numbers["mu"], model.numbers["lam"]
    if mu is None or lam is None:
        return cycle  # symbolic rates: the entry refuses them
    half = float(lam / mu)
    x = np.asarray(cycle.y[0], dtype=float)
    return replace(cycle, y=np.vstack([half + x / 2, half - x / 2]))
