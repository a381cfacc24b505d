"""The information-delay family ``dde`` (:mod:`symdelay.models.dde.family`): N queues routed
by a choice function of queue lengths seen through a lag; its model
(:mod:`~symdelay.models.dde.build`), the founding model's ``L = inf`` closed forms as its
specialisations (:mod:`~symdelay.models.dde.closed`) and the method of steps of the
two-queue logit case (:mod:`~symdelay.models.dde.steps`: the fluid entry's specialisation
for it; every other model of the family takes the generic delay fluid,
:mod:`symdelay.analysis.dfluid`). Names load on first use.
"""

from __future__ import annotations

import importlib

__all__ = [
    "INFO",
    "OPTIONS",
    "model",
    "InformationDelayModel",
    "FoundingLimitModel",
    "integrate",
    "compare_with_action_delay",
    "ActionDelayComparison",
    "difference_functions",
    "DEFAULT_SOLVER",
]

_WHERE = {
    "INFO": "family",
    "OPTIONS": "family",
    "model": "family",
    "InformationDelayModel": "build",
    "FoundingLimitModel": "build",
    "integrate": "steps",
    "compare_with_action_delay": "steps",
    "ActionDelayComparison": "steps",
    "difference_functions": "steps",
    "DEFAULT_SOLVER": "steps",
}


def __getattr__(name):
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{where}"), name)
