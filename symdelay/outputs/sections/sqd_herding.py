"""Report section: SQ(d) with an action delay (herding), its mean field against simulations
at growing N. A section of its own so that it is built beside the SQ(d) section (each takes
about a minute), not after it."""

from __future__ import annotations

from symdelay.outputs.report import Section
from symdelay.outputs.sections.sqd import herding_part

__all__ = ["ORDER", "build"]

ORDER = 81


def build(ctx) -> Section:
    return Section("SQ($d$) with action delay: herding", herding_part(ctx))
