"""``derivations/action_delay.tex``: model to characteristic equation, machine-checked."""

from __future__ import annotations

from symdelay.core.latex import document
from symdelay.outputs.derivation_tex import derivation_body

__all__ = ["FILENAME", "build"]

FILENAME = "action_delay.tex"


def build() -> str:
    return document(
        "Action delay via phase representation: the characteristic equation", derivation_body()
    )
