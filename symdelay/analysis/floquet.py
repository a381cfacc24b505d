"""The stability of a periodic orbit from its Floquet multipliers and their error bounds,
shared by the shooting cycles (:mod:`symdelay.analysis.cycles`) and the collocation branches
(:mod:`symdelay.analysis.bvp`, :mod:`symdelay.analysis.continuation`,
:mod:`symdelay.analysis.dbvp`); :mod:`symdelay.analysis.cycles` re-exports its names."""

from __future__ import annotations

import numpy as np

__all__ = ["ERROR_FACTOR", "decide_stability", "multiplier_errors", "stability_word"]


def stability_word(stable) -> str:
    """The text of a cycle's ``stable``: ``yes``, ``no`` or ``undecided`` (``None``)."""
    return "undecided" if stable is None else ("yes" if stable else "no")


#: The error of the multipliers is the difference between the monodromy integrated at
#: ``RTOL`` and at ``ERROR_RTOL`` (= 100 RTOL), times :data:`ERROR_FACTOR`: DOP853 with
#: step control is tolerance-proportional, so the difference is about the error of the
#: looser run, ~100 times that of the reported one; the factor 1 keeps that margin of ~100
#: for a departure from proportionality.
ERROR_FACTOR = 1.0


def decide_stability(mults, errors, k) -> tuple[bool | None, str]:
    """The orbit's stability from its Floquet multipliers ``mults``, their error bounds
    ``errors`` and the index ``k`` of the trivial multiplier (excluded): ``True`` when every
    other ``|m| < 1 - err``, ``False`` when one ``|m| > 1 + err``, else ``None`` with the
    reason (a multiplier within its error of the unit circle).

    >>> decide_stability([1.0, 0.5], [1e-9, 1e-9], 0)
    (True, 'every non-trivial multiplier is inside the unit circle by more than its error')
    >>> decide_stability([1.0, 1 - 1e-12], [1e-9, 1e-9], 0)[0] is None
    True
    """
    mults = np.asarray(mults, dtype=complex)
    errors = np.asarray(errors, dtype=float)
    idx = [i for i in range(mults.size) if i != k]
    if not idx:
        return True, "no non-trivial multiplier"
    out = [i for i in idx if abs(mults[i]) > 1 + errors[i]]
    if out:
        i = out[0]
        return False, (
            f"multiplier {abs(mults[i]):.15g} is outside the unit circle by more than its "
            f"error {errors[i]:.2g}"
        )
    near = [i for i in idx if not abs(mults[i]) < 1 - errors[i]]
    if near:
        i = near[0]
        return None, (
            f"undecided: |multiplier| = {abs(mults[i]):.15g} is within its error "
            f"{errors[i]:.2g} of the unit circle (a bifurcation of the cycle, or too close "
            "to the Hopf point for double precision)"
        )
    return True, "every non-trivial multiplier is inside the unit circle by more than its error"


def multiplier_errors(ev, ev0, k: int, M):
    """Error bounds of the multipliers ``ev`` (eigenvalues of the monodromy matrix ``M``;
    ``ev[k]`` the trivial one): for each, its distance to the nearest unused eigenvalue of the
    coarser discretisation ``ev0`` (matched nearest-to-1 first) times :data:`ERROR_FACTOR`,
    plus the trivial multiplier's distance to 1 and a rounding floor."""
    import numpy as np

    triv = float(abs(ev[k] - 1))
    floor = 64 * np.finfo(float).eps * max(1.0, float(np.linalg.norm(M, 2)))
    used = np.zeros(ev0.size, dtype=bool)
    err = np.empty(ev.size)
    for i in np.argsort(np.abs(ev - 1)):
        d = np.abs(ev0 - ev[i])
        d[used] = np.inf
        jm = int(np.argmin(d))
        used[jm] = True
        err[i] = ERROR_FACTOR * float(d[jm]) + triv + floor
    return err
