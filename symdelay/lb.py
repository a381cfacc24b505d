"""LB(xi, c, d): the family's public names under ``symdelay.lb`` (as its commands'
Python equivalents were first named), the same objects as :mod:`symdelay.models.lb`,
loaded on first use.

>>> import symdelay.lb, symdelay.models.lb
>>> symdelay.lb.simulate is symdelay.models.lb.simulate
True
"""

from symdelay.core.lazy import exports as _exports
from symdelay.models.lb import _PUBLIC, __all__  # noqa: F401

__getattr__, __dir__ = _exports(globals(), _PUBLIC)
