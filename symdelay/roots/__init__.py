"""Certified characteristic roots (finite L and the Lambert-W limit L = oo).

See :mod:`symdelay.roots.solve` for the method and :mod:`symdelay.roots.certify` for the
proofs; :mod:`symdelay.roots.crosscheck` compares with double-precision numpy;
:mod:`symdelay.roots.polynomial` solves any polynomial with exact coefficients (model-generic).
"""

from symdelay.roots.polynomial import exact_counts, polynomial_roots
from symdelay.roots.solve import (
    ALL_ROOTS_MAX_L,
    RIGHTMOST_MAX_L,
    CertifiedRoot,
    RootSet,
    characteristic_roots,
    parse_branches,
)

__all__ = [
    "ALL_ROOTS_MAX_L",
    "RIGHTMOST_MAX_L",
    "CertifiedRoot",
    "RootSet",
    "characteristic_roots",
    "parse_branches",
    "polynomial_roots",
    "exact_counts",
]
