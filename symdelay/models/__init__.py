"""Models: each module states one stochastic system's fluid limit symbolically."""

from .action_delay import ActionDelayModel

__all__ = ["ActionDelayModel"]
