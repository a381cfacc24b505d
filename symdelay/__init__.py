"""symdelay: symbolic and high-precision analysis of load balancing with action delay.

One name per quantity, model first: build a model (:func:`build_model`, :func:`load_toml`,
:class:`Model`) and ask it a question (:func:`charpoly`, :func:`stability`, :func:`roots`,
:func:`critical`, :func:`window`, :func:`extremum`, :func:`worst_delay`, :func:`simulate`,
:func:`fluid`, :func:`variance`, :func:`spectrum`, :func:`normal_form`, :func:`limit_cycle`,
:func:`cycles`, :func:`stability_map`, :func:`verify`, :func:`minimal_conditions`); each
returns one record, whichever path (the family's fast path or the generic machinery) answered. The founding
model's loose-argument conveniences (``critical_theta(L, mu, lam, D)``, the symbolic-L
derivation, ...) are in :mod:`symdelay.founding`.

The public names load on first use (``symdelay.critical`` imports the critical-parameter
code when it is first asked for), so that ``import symdelay`` and the command line start
fast.

>>> import symdelay
>>> symdelay.routh_hurwitz.__module__
'symdelay.analysis.routh'
>>> symdelay.founding.critical_theta.__module__
'symdelay.models.erlang.hopf.curve'
"""

from symdelay.core.lazy import exports as _exports
from symdelay.core.version import __version__  # noqa: F401

#: public name -> the module that defines it (imported when the name is first asked for)
_PUBLIC = {
    # the entries: f(model, ...) -> one record per quantity
    "charpoly": "symdelay.analysis.charpoly",
    "stability": "symdelay.analysis.stability",
    "roots": "symdelay.analysis.roots",
    "critical": "symdelay.analysis.critical",
    "window": "symdelay.analysis.window",
    "extremum": "symdelay.analysis.window",
    "worst_delay": "symdelay.analysis.window",
    "simulate": "symdelay.analysis.stochastic",
    "fluid": "symdelay.analysis.fluid",
    "variance": "symdelay.analysis.stochastic",
    "spectrum": "symdelay.analysis.spectrum",
    "normal_form": "symdelay.analysis.normal_form",
    "limit_cycle": "symdelay.analysis.cycles",
    "cycles": "symdelay.analysis.continuation",
    "stability_map": "symdelay.analysis.stability_map",
    "verify": "symdelay.analysis.claims",
    "minimal_conditions": "symdelay.analysis.decide",
    # models
    "Model": "symdelay.model.core",
    "load_toml": "symdelay.model.core",
    "build_model": "symdelay.models",
    "builtin_models": "symdelay.models",
    "PhaseType": "symdelay.models.phase",
    # records
    "CharPoly": "symdelay.analysis.charpoly",
    "Stability": "symdelay.analysis.stability",
    "RootSet": "symdelay.analysis.rootset",
    "CertifiedRoot": "symdelay.analysis.rootset",
    "StabilityMap": "symdelay.analysis.map_core",
    "ClaimResult": "symdelay.analysis.claim_result",
    "MinimalConditions": "symdelay.analysis.decide",
    "CycleBranch": "symdelay.analysis.continuation",
    # a polynomial's Routh-Hurwitz table, formulas in and out
    "routh_hurwitz": "symdelay.analysis.routh",
    "tex": "symdelay.core.latex",
    "parse_output": "symdelay.core.parsing",
    # errors
    "SymdelayInputError": "symdelay.core.errors",
    "CertificationError": "symdelay.core.errors",
    "VerificationError": "symdelay.core.errors",
}

__all__ = list(_PUBLIC)

#: subpackages reached as attributes without an import of their own
#: (``symdelay.founding.critical_theta``, ``symdelay.sweep.run``)
_NAMESPACES = ("founding", "sweep")

_public_attr, _ = _exports(globals(), _PUBLIC)


def __getattr__(name):
    if name in _NAMESPACES:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    return _public_attr(name)


def __dir__():
    return sorted([*__all__, *_NAMESPACES, "__version__"])
