"""The generic model layer: a model is its transition table; everything else is derived."""

from symdelay.model.core import DOMAINS, Equilibrium, Factor, Model, Transition
from symdelay.model.modes import Mode
from symdelay.model.toml_loader import load_toml, model_from_dict

__all__ = [
    "DOMAINS",
    "Equilibrium",
    "Factor",
    "Mode",
    "Model",
    "Transition",
    "load_toml",
    "model_from_dict",
]
