"""The version of symdelay, in one place (the facade and every result record read it)."""

__version__ = "0.1.0"
