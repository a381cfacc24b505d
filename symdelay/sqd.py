"""The supermarket model SQ(d): the family's public names under ``symdelay.sqd`` (as its commands'
Python equivalents were first named), the same objects as :mod:`symdelay.models.sqd`,
loaded on first use.

>>> import symdelay.sqd, symdelay.models.sqd
>>> symdelay.sqd.simulate is symdelay.models.sqd.simulate
True
"""

from symdelay.core.lazy import exports as _exports
from symdelay.models.sqd import _PUBLIC, __all__  # noqa: F401

__getattr__, __dir__ = _exports(globals(), _PUBLIC)
