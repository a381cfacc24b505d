"""The founding model's branch of cycles at ``L = inf``: the family's specialisation of the
``cycles`` entry (:func:`symdelay.analysis.continuation.cycles`).

The limit ``L = inf`` has no table of delay phases; it is the delay equation
``q_i'(t) = routed_i(q(t - D)) - mu q_i(t)``, which the family writes as a transition table
with a constant action lag ``D``
(:meth:`~symdelay.models.erlang.founding.FoundingModel.limit_table`, its rates read off the
family's own table). The branch is the generic delay continuation of that table
(collocation, :mod:`symdelay.analysis.dbvp`); the record is the usual
:class:`~symdelay.analysis.continuation.CycleBranch`, named after the founding model.
A finite ``L`` declines (the generic path continues the table of phases).
"""

from __future__ import annotations

__all__ = ["specialised_cycles"]


def specialised_cycles(model, param="theta", lo=None, hi=None, **keywords):
    """The branch of cycles of the founding model at ``L = inf`` (None for a finite ``L``:
    the generic path answers). ``keywords``: those of the ``cycles`` entry."""
    if not getattr(model, "infinite", False):
        return None
    from symdelay.analysis.continuation import cycles

    return cycles(model.limit_table(), param, lo, hi, method="generic", **keywords)
