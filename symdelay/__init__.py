"""symdelay: symbolic and high-precision analysis of load balancing with action delay.

The public names load on first use (``symdelay.critical_theta`` imports the Hopf code when it
is first asked for), so that ``import symdelay`` and the command line start fast.

>>> import symdelay
>>> symdelay.routh_hurwitz.__module__
'symdelay.analysis.routh'
"""

import importlib

from symdelay.core.version import __version__  # noqa: F401

#: public name -> (module, attribute)
_PUBLIC = {
    "stability": ("symdelay.analysis.stability", "stability"),
    "Stability": ("symdelay.analysis.stability", "Stability"),
    "roots": ("symdelay.analysis.roots", "roots"),
    "critical": ("symdelay.analysis.critical", "critical"),
    "is_stable": ("symdelay.analysis.stability", "is_stable"),
    "window": ("symdelay.analysis.window", "window"),
    "extremum": ("symdelay.analysis.window", "extremum"),
    "stability_map": ("symdelay.analysis.stability_map", "stability_map"),
    "StabilityMap": ("symdelay.analysis.stability_map", "StabilityMap"),
    "critical_parameter": ("symdelay.analysis.crossing", "critical_parameter"),
    "polynomial_roots": ("symdelay.analysis.polyroots", "polynomial_roots"),
    "routh_hurwitz": ("symdelay.analysis.routh", "routh_hurwitz"),
    "CertificationError": ("symdelay.core.errors", "CertificationError"),
    "SymdelayInputError": ("symdelay.core.errors", "SymdelayInputError"),
    "VerificationError": ("symdelay.core.errors", "VerificationError"),
    "tex": ("symdelay.core.latex", "tex"),
    "parse_output": ("symdelay.core.parsing", "parse_output"),
    "Model": ("symdelay.model", "Model"),
    "load_toml": ("symdelay.model", "load_toml"),
    "ActionDelayModel": ("symdelay.models", "ActionDelayModel"),
    "build_model": ("symdelay.models", "build_model"),
    "builtin_models": ("symdelay.models", "builtin_models"),
    "charpoly": ("symdelay.models.erlang", "charpoly"),
    "CharPoly": ("symdelay.analysis.charpoly", "CharPoly"),
    "characteristic_polynomial": ("symdelay.models.erlang.charpoly", "characteristic_polynomial"),
    "delayed_information_equation": (
        "symdelay.models.erlang.charpoly",
        "delayed_information_equation",
    ),
    "derive_characteristic_equation": (
        "symdelay.models.erlang.charpoly",
        "derive_characteristic_equation",
    ),
    "eigenvector": ("symdelay.models.erlang.charpoly", "eigenvector"),
    "erlang_information_equation": (
        "symdelay.models.erlang.charpoly",
        "erlang_information_equation",
    ),
    "infinite_L_limit": ("symdelay.models.erlang.charpoly", "infinite_L_limit"),
    "special_case": ("symdelay.models.erlang.charpoly", "special_case"),
    "verify_difference_determinant": (
        "symdelay.models.erlang.charpoly",
        "verify_difference_determinant",
    ),
    "verify_full_factorisation": ("symdelay.models.erlang.charpoly", "verify_full_factorisation"),
    "verify": ("symdelay.analysis.claims", "verify"),
    "minimal_conditions": ("symdelay.analysis.decide", "minimal_conditions"),
    "MinimalConditions": ("symdelay.analysis.decide", "MinimalConditions"),
    "ClaimResult": ("symdelay.analysis.claim_result", "ClaimResult"),
    "critical_theta": ("symdelay.models.erlang.hopf", "critical_theta"),
    "instability_window": ("symdelay.models.erlang.hopf", "instability_window"),
    "worst_delay": ("symdelay.analysis.window", "worst_delay"),
    "normal_form": ("symdelay.analysis.normal_form", "normal_form"),
    "limit_cycle": ("symdelay.analysis.cycles", "limit_cycle"),
    "CertifiedRoot": ("symdelay.models.erlang.roots", "CertifiedRoot"),
    "RootSet": ("symdelay.analysis.rootset", "RootSet"),
    "characteristic_roots": ("symdelay.models.erlang.roots", "characteristic_roots"),
    "stability_conditions": ("symdelay.models.erlang.stability", "stability_conditions"),
    "fluid": ("symdelay.analysis.fluid", "fluid"),
    "fluid_limit_study": ("symdelay.models.erlang.stochastic", "fluid_limit_study"),
    "simulate": ("symdelay.analysis.stochastic", "simulate"),
    "variance": ("symdelay.analysis.stochastic", "variance"),
    "kappa_star": ("symdelay.models.inflight", "kappa_star"),
    "optimize_weights": ("symdelay.models.inflight", "optimize_weights"),
    "unstable_theta": ("symdelay.models.inflight", "unstable_theta"),
    "PhaseType": ("symdelay.models.phase_type", "PhaseType"),
}

__all__ = [
    "stability",
    "Stability",
    "roots",
    "critical",
    "is_stable",
    "window",
    "extremum",
    "stability_map",
    "StabilityMap",
    "ActionDelayModel",
    "Model",
    "PhaseType",
    "build_model",
    "builtin_models",
    "load_toml",
    "CertifiedRoot",
    "RootSet",
    "characteristic_roots",
    "critical_parameter",
    "kappa_star",
    "optimize_weights",
    "unstable_theta",
    "parse_output",
    "polynomial_roots",
    "critical_theta",
    "instability_window",
    "worst_delay",
    "normal_form",
    "limit_cycle",
    "characteristic_polynomial",
    "charpoly",
    "CharPoly",
    "delayed_information_equation",
    "derive_characteristic_equation",
    "eigenvector",
    "erlang_information_equation",
    "infinite_L_limit",
    "special_case",
    "verify_difference_determinant",
    "verify_full_factorisation",
    "CertificationError",
    "SymdelayInputError",
    "VerificationError",
    "fluid",
    "fluid_limit_study",
    "simulate",
    "variance",
    "routh_hurwitz",
    "stability_conditions",
    "tex",
    "verify",
    "minimal_conditions",
    "MinimalConditions",
    "ClaimResult",
]


def __getattr__(name):
    try:
        module, attr = _PUBLIC[name]
    except KeyError:
        raise AttributeError(f"module 'symdelay' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_PUBLIC))
