"""The options a model family declares: name, kind, default and help, once.

A family module (``symdelay/models/<name>.py`` or ``<name>/family.py``) lists its
``OPTIONS``; its ``model(**options)`` takes exactly those keywords and checks their values
(the one door: :func:`symdelay.core.params.as_parameter` makes numbers exact). The command
line builds its flags from the same list, so a family's options exist on every command that
takes a model, and an option another family declares is refused with one line.

>>> o = Option("continue_probs", "coxian: probabilities to go on after each phase", "numbers")
>>> o.flag, o.metavar
('--continue-probs', 'P1,P2,...')
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Option", "KINDS"]

#: what an option's text holds
KINDS = {
    "number": "X",
    "integer": "N",
    "count": "L",  # an integer >= 1 or inf
    "numbers": "P1,P2,...",
    "choice": "NAME",
    "text": "TEXT",
    "matrix": "[[..],[..]]",
}


@dataclass(frozen=True)
class Option:
    """One option of a model family: ``model(**{name: text})`` and ``--name`` on the CLI."""

    name: str
    help: str
    kind: str = "number"
    default: str | None = None
    choices: tuple = ()

    def __post_init__(self):
        if self.kind not in KINDS:  # pragma: no cover - a family's declaration
            raise ValueError(f"option {self.name}: unknown kind {self.kind!r}")

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def metavar(self) -> str:
        return KINDS[self.kind]

    def describe(self) -> str:
        extra = f" (default {self.default})" if self.default is not None else ""
        if self.choices:
            extra += " one of " + ", ".join(self.choices)
        return self.help + extra
