"""Certified characteristic roots (finite L and the Lambert-W limit L = oo).

See :mod:`symdelay.models.erlang.roots.solve` for the method and :mod:`symdelay.analysis.certify` for the
proofs; :mod:`symdelay.models.erlang.roots.crosscheck` compares with double-precision numpy;
:mod:`symdelay.analysis.polyroots` solves any polynomial with exact coefficients (model-generic).
"""

from symdelay.core.lazy import exports

#: public name -> the module that defines it (imported when first asked for)
_PUBLIC = {
    "exact_counts": "symdelay.analysis.polyroots",
    "polynomial_roots": "symdelay.analysis.polyroots",
    **{
        n: "symdelay.models.erlang.roots.solve"
        for n in (
            "ALL_ROOTS_MAX_L",
            "RIGHTMOST_MAX_L",
            "CertifiedRoot",
            "RootSet",
            "characteristic_roots",
            "parse_branches",
        )
    },
}

__all__ = list(_PUBLIC)

__getattr__, __dir__ = exports(globals(), _PUBLIC)
