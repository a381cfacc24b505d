"""Policy design: weights c, d that meet a target, solved from the stationary diffusion.

In the limit (:mod:`symdelay.models.lb.diffusion`) station j's scaled idleness ratio is
``sqrt(n) E[I_j]/N_j = E[Y-] / (d_j sum_i w_i/d_i)`` and its scaled mean delay
``sqrt(n) E[W_j] = E[Y+] / (c_j sum_i w_i mu_i/c_i)``; ``P(wait)`` and the overall mean delay
depend on d only, through ``a = m_I/mu_bar``, and increase with a. So:

* ``equal-utilisation``: equal idleness ratios, solved for d (all equal);
* ``equal-delay``: equal station delays, solved for c (all equal);
* ``delay-ratio``: station delays in the given ratio, solved for c;
* ``idle-ratio``: idleness ratios in the given ratio, solved for d;
* ``min-delay``: the d in ``[1, d_max]^J`` with least a (a vertex: ``d_j = 1`` for the
  slower stations, ``d_max`` for the faster; the infimum over all d puts every idle server at
  the slowest stations). c does not change the mean delay; it is kept (default equal).

Weights are normalised so that station 1's is 1.

>>> from symdelay.models.lb.policy import LBPolicy
>>> p = LBPolicy.from_text("N=50,mu=1;N=100,mu=0.5", xi="2")
>>> r = design(p, beta=1, target="delay-ratio", ratio="1,2")
>>> [str(v) for v in r.c]
['1', '1/2']
"""

from __future__ import annotations

from dataclasses import dataclass

from symdelay.core.errors import SymdelayInputError, VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.result import Result
from symdelay.models.lb.diffusion import LBDiffusion, diffusion
from symdelay.models.lb.policy import LBPolicy, as_rational, parse_weights

__all__ = ["design", "LBDesign", "TARGETS"]

TARGETS = ("equal-utilisation", "equal-delay", "min-delay", "delay-ratio", "idle-ratio")


@dataclass
class LBDesign(Result):
    """The designed weights and the diffusion's prediction for them."""

    target: str
    c: tuple
    d: tuple
    predicted: LBDiffusion
    notes: list

    @property
    def policy(self) -> LBPolicy:
        return self.predicted.policy

    def record(self) -> dict:
        pred = self.predicted.to_json()
        return {
            "target": self.target,
            "c": [str(v) for v in self.c],
            "d": [str(v) for v in self.d],
            "predicted": {
                k: pred[k]
                for k in ("p_wait", "mean_queue_scaled", "mean_delay_scaled", "a", "stations")
            },
            "notes": list(self.notes),
        }


def _solve_ratio(weights_of, J: int, ratio, name: str) -> tuple:
    """Solve ``quantity_j(x) / quantity_1(x) = ratio_j / ratio_1`` for ``x`` with ``x_1 = 1``.

    Both quantities designed here have the form ``q_j(x) = 1 / (x_j tot(x))`` with one
    common factor ``tot``, so ``q_j / q_1 = x_1 / x_j`` and the unique solution is
    ``x_j = ratio_1 / ratio_j``: O(J) (``sympy.solve`` on J - 1 unknowns took 9 s at J = 8
    and did not finish at 16). Each of the J - 1 equations is checked exactly on it."""
    x = tuple(ratio[0] / rj for rj in ratio)
    q = weights_of(x)
    for j in range(1, J):
        if q[j] * ratio[0] != q[0] * ratio[j]:
            raise VerificationError(f"{name}_{j + 1} = {x[j]} does not meet the {name}-ratio")
    return x


def design(
    policy: LBPolicy, beta, target: str, *, ratio=None, d_max=10, dps: int = 30, force=False
) -> LBDesign:
    """Weights meeting ``target`` (one of :data:`TARGETS`) for ``policy``'s stations and xi."""
    if target not in TARGETS:
        raise SymdelayInputError(f"target must be one of {', '.join(TARGETS)}, got {target!r}")
    J = policy.J
    w = policy.shares
    mus = [s.mu for s in policy.stations]
    c, d = policy.c, policy.d
    notes = []
    if target in ("delay-ratio", "idle-ratio"):
        if ratio is None:
            raise SymdelayInputError(f"target {target} needs --ratio r1,r2,... (one per station)")
        rr = parse_weights(ratio, J, "ratio")
    elif ratio is not None:
        raise SymdelayInputError(f"--ratio is for delay-ratio and idle-ratio, not {target}")
    if target == "equal-utilisation" or target == "idle-ratio":
        rr = (sp.Integer(1),) * J if target == "equal-utilisation" else rr

        def idle_ratio(dd):  # sqrt(n) E[I_j]/N_j up to the common factor E[Y-]
            tot = sum(wj / dj for wj, dj in zip(w, dd))
            return [1 / (dj * tot) for dj in dd]

        d = _solve_ratio(idle_ratio, J, rr, "d")
    elif target == "equal-delay" or target == "delay-ratio":
        rr = (sp.Integer(1),) * J if target == "equal-delay" else rr

        def delay(cc):  # sqrt(n) E[W_j] up to the common factor E[Y+]
            tot = sum(wj * mj / cj for wj, mj, cj in zip(w, mus, cc))
            return [1 / (cj * tot) for cj in cc]

        c = _solve_ratio(delay, J, rr, "c")
    else:
        dm = as_rational("d_max", d_max)
        if not dm >= 1:
            raise SymdelayInputError(f"d_max must be >= 1, got {d_max}")
        best = None
        for thr in [*sorted(set(mus)), None]:
            cand = tuple(sp.Integer(1) if thr is not None and mj <= thr else dm for mj in mus)
            iw = [wj / dj for wj, dj in zip(w, cand)]
            a = sum(x * mj for x, mj in zip(iw, mus)) / sum(iw)
            if best is None or a < best[0]:
                best = (a, cand)
        d = tuple(v / best[1][0] for v in best[1])
        notes.append(
            f"P(wait) increases with a = m_I/mu_bar; least a over d in [1, {dm}]^J; "
            "c does not change the mean delay in the limit (kept)"
        )
    pol = policy.replace(c=c, d=d)
    pred = diffusion(pol, beta, dps=dps, force=force)
    return LBDesign(target, tuple(c), tuple(d), pred, notes)
