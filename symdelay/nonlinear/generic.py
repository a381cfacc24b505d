"""The Hopf normal form of any model of the model layer (the generic path).

The critical theta and frequency come from :func:`symdelay.model.critical.model_critical`;
the Jacobian ``A(theta)`` and its derivative from :attr:`Model.jacobian`; the quadratic and
cubic forms ``B``, ``C`` from SymPy derivatives of the full drift at the equilibrium, all
evaluated in mpmath at ``dps`` + guard digits, and Kuznetsov's formula
(:mod:`._projection`) gives ``c1`` (quadratic terms included: models without the
symmetric equilibrium have them). ``l1`` and the amplitude are reported for the imbalance
``x = q1 - q2`` (:func:`symdelay.model.stochastic.difference_weights`), normalised by
``q_x = 1`` as on the founding model's fast path, which the tests compare with this one.
"""

from __future__ import annotations

import itertools

import mpmath
import sympy as sp

from symdelay.errors import SymdelayInputError
from symdelay.nonlinear._projection import eigenvectors, first_lyapunov
from symdelay.nonlinear.normal_form import GUARD, NormalForm
from symdelay.params import as_dps
from symdelay.symbols import theta as TH

__all__ = ["model_normal_form"]


def _num(e, subs, wp):
    v = sp.N(sp.sympify(e).xreplace(subs), wp)
    if not v.is_number:
        raise SymdelayInputError(f"a value is missing: {e} does not evaluate to a number")
    re, im = v.as_real_imag()
    if im != 0:
        return mpmath.mpc(str(re), str(im))
    return mpmath.mpf(str(re))


def model_normal_form(model, dps: int = 15) -> NormalForm:
    """:class:`NormalForm` of a model with ``theta`` free and numbers for the rest."""
    from symdelay.model.critical import model_critical
    from symdelay.model.stochastic import difference_weights

    dps = as_dps(dps)
    wp = dps + 2 * GUARD
    crit = model_critical(model, "theta", dps=dps + GUARD)
    if crit.omega is None or not mpmath.isfinite(crit.critical):
        raise SymdelayInputError(
            f"{model.name} has no Hopf point in theta (stable for every theta > 0): no cycle"
        )
    if crit.omega == 0:
        raise SymdelayInputError(
            f"{model.name} loses stability through a real root at theta = "
            f"{mpmath.nstr(crit.critical, 10)}: not a Hopf point"
        )
    weights = difference_weights(model)
    if weights is None:
        raise SymdelayInputError(f"{model.name} declares no symmetry: no imbalance to follow")
    states = model.states
    n = len(states)
    with mpmath.workdps(wp):
        th_c, w = +crit.critical, +crit.omega
        th_sym = sp.Float(mpmath.nstr(th_c, wp + 5), wp + 5)
        point = {
            s: sp.sympify(v).xreplace({TH: th_sym}) for s, v in model.equilibrium.point.items()
        }
        subs = {**point, TH: th_sym}
        Jsym = model.jacobian
        A = mpmath.matrix(n, n)
        At = mpmath.matrix(n, n)
        dJ = Jsym.diff(TH)
        for i, j in itertools.product(range(n), range(n)):
            A[i, j] = _num(Jsym[i, j], {TH: th_sym}, wp)
            At[i, j] = _num(dJ[i, j], {TH: th_sym}, wp)
        # second and third derivatives of the drift at the equilibrium (sparse)
        H, T3 = {}, {}
        for i, F in enumerate(model.drift):
            deps = [k for k, s in enumerate(states) if F.has(s)]
            for j, k in itertools.combinations_with_replacement(deps, 2):
                d2 = sp.diff(F, states[j], states[k])
                if d2 == 0:
                    continue
                v = _num(d2, subs, wp)
                if v != 0:
                    for a, b in set(itertools.permutations((j, k))):
                        H[(i, a, b)] = v
                for ll in deps:
                    if ll < k:
                        continue
                    d3 = sp.diff(d2, states[ll])
                    if d3 == 0:
                        continue
                    v3 = _num(d3, subs, wp)
                    if v3 != 0:
                        for a, b, c in set(itertools.permutations((j, k, ll))):
                            T3[(i, a, b, c)] = v3

        def B(u, v):
            out = mpmath.matrix(n, 1)
            for (i, j, k), h in H.items():
                out[i] += h * u[j] * v[k]
            return out

        def C(u, v, x):
            out = mpmath.matrix(n, 1)
            for (i, j, k, ll), t in T3.items():
                out[i] += t * u[j] * v[k] * x[ll]
            return out

        eig = eigenvectors(A, w)
        c1, _, rp = first_lyapunov(A, eig, B if H else None, C, At)
        cq = mpmath.fsum(weights[j] * eig.q[j] for j in range(n))
        c1x = c1 / abs(cq) ** 2  # the normalisation q_x = 1 (q -> q / q_x)
        l1 = mpmath.re(c1x) / w
        amp = (
            2 * abs(cq) * mpmath.sqrt(-mpmath.re(rp) / mpmath.re(c1))
            if mpmath.re(c1) < 0
            else mpmath.nan
        )
        slope = mpmath.im(rp) - mpmath.im(c1) * mpmath.re(rp) / mpmath.re(c1)
        res = mpmath.mnorm(A * eig.q - mpmath.mpc(0, w) * eig.q, 1)
        checks = {
            "eigenvector_residual": res,
            "quadratic_terms": bool(H),
            "c1_over_rprime": mpmath.re(c1x / rp),
        }
    return NormalForm(
        None,
        None,
        None,
        None,
        dps,
        th_c,
        w,
        c1x,
        rp,
        l1,
        None,
        amp,
        slope,
        None,
        None,
        "Kuznetsov projection formula on the full drift of the model (SymPy derivatives)",
        model.name,
        checks,
    )
