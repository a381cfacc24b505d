"""The exact simulator of a model: the kernel generated from its transition table
(:mod:`symdelay.analysis.kernel`, where :class:`GeneratedKernel` and its parts live), built
once per model.

>>> from symdelay.models import build_model
>>> k = generated_kernel(build_model("erlang", L=2, mu=1, lam=1, theta=2, D=1))
>>> k.classes["count_classes"]  # the Erlang phases of each queue's delay
2
"""

from __future__ import annotations

from symdelay.analysis.kernel import GeneratedKernel, KernelRun, check_table
from symdelay.model.core import has_lags

__all__ = ["GeneratedKernel", "KernelRun", "check_table", "generated_kernel"]


def generated_kernel(model) -> GeneratedKernel:
    """The exact simulator generated from ``model``'s transition table (built once per model,
    compiled at first run); a model with lags reads them as :mod:`symdelay.analysis.kernel`
    says ("Lags"), and what it cannot read exactly is refused in one line."""
    lags = dict(model.lags) if has_lags(model) else None
    actions = {t.name: t.lag for t in model.transitions if t.lag} if lags else None
    return model.cached(
        "kernel",
        lambda: GeneratedKernel(
            model.states,
            [(t.name, t.change, t.rate) for t in model.transitions],
            model.values,
            lags=lags,
            actions=actions,
            label=model.name,
        ),
    )
