"""Report section: from the model to the characteristic equation."""

from __future__ import annotations

from symdelay.outputs.derivation_tex import (
    characteristic_section,
    checks_table,
    limit_section,
    model_section,
    special_cases_section,
)
from symdelay.outputs.report import Section

__all__ = ["ORDER", "build"]

ORDER = 10


def build(ctx) -> Section:
    body = (
        "This section is generated from the same checked objects as "
        "\\texttt{derivations/action\\_delay.tex}.\n\n"
        + model_section()
        + characteristic_section()
        + special_cases_section()
        + limit_section()
        + (checks_table(range(1, 5), range(1, 3)) if ctx.quick else checks_table())
    )
    return Section("From the model to the characteristic equation", body)
