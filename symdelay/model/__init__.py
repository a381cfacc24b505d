"""The generic model layer: a model is its transition table; everything else is derived."""

from .core import DOMAINS, Equilibrium, Factor, Model, Transition
from .modes import Mode
from .stability import ModelStability
from .toml_loader import load_toml, model_from_dict

__all__ = [
    "DOMAINS",
    "Equilibrium",
    "Factor",
    "Mode",
    "Model",
    "ModelStability",
    "Transition",
    "load_toml",
    "model_from_dict",
]
