"""The Hopf normal form of the exact nonlinear difference system, at any precision.

At ``theta_c`` a pair ``+-i omega_c`` crosses (:func:`symdelay.models.erlang.hopf.critical_theta`). The
first Lyapunov coefficient ``l1 = Re c1 / omega_c`` of the system *with* ``tanh`` decides
the kind of bifurcation: ``l1 < 0`` supercritical (a small stable cycle is born for
``theta > theta_c``), ``l1 > 0`` subcritical. Three paths compute ``c1``:

* finite L (fast path): Kuznetsov's projection formula with the eigenvectors of the
  structured difference Jacobian from their recursions (``q`` from its rows, ``p`` from its
  columns), in mpmath at ``dps`` + guard digits, for any L;
* ``L = inf``: the scalar delay equation ``x' = -mu x - 2 lam tanh(theta x(t - D)/2)``,
  whose centre-manifold projection is ``c1 = g'''(0) e^(-i omega D) / (2 Delta'(i omega))``
  (``Delta(r) = r + mu + lam theta e^(-r D)``, ``q(s) = e^(i omega s)``);
* any model of the model layer (``model=``): the general formula with the quadratic and
  cubic forms of its full drift, differentiated by SymPy at the equilibrium
  (:mod:`._projection`); the founding model through it is the test of the fast path.

**Structural result** (proved by SymPy in :mod:`.symbolic` for each L, and true for the
DDE and for every model in which theta is the gain of one logit difference): the linear
part depends on theta only through the slope ``lam theta`` of the nonlinearity
``2 lam tanh(theta y / 2)`` whose cubic term is ``-lam theta^3 y^3 / 12``, so

    c1 = -(theta^3 / 4) r'(theta) |q_y|^2          (q_y: the observed component of q).

At the first crossing ``Re r'(theta_c) > 0`` (the phase of ``(r + mu)(r + gamma)^L`` on the
imaginary axis increases with omega), hence ``l1 < 0`` for every L, every ``mu, lam, D``
and ``L = inf``: **always supercritical**. The cycle's amplitude in the observed
coordinate is ``A = 4 theta_c^(-3/2) sqrt(theta - theta_c)`` — it depends on ``L, mu, D``
only through ``theta_c`` — and, ``c1 / r'`` being real, its frequency does not move at
first order: ``T = 2 pi / omega_c + O((theta - theta_c)^2)``. The describing function
(first harmonic balance) gives the same two leading terms.

>>> nf = normal_form(2, 1, 1, 1, dps=20)
>>> nf.criticality, nf.to_json()["l1"]
('supercritical', '-3.9051579051893420098')
>>> nf.to_json()["amplitude_coefficient"]
'0.14814814814814814815'
"""

from __future__ import annotations

from functools import cache

import mpmath
import numpy as np

from symdelay.analysis.normal_form import NormalForm
from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.core.params import INFINITE_L, as_dps, as_L_or_inf, as_positive_number
from symdelay.core.precision import GUARD
from symdelay.models.erlang.hopf import critical_theta
from symdelay.models.erlang.hopf._common import require_numbers
from symdelay.models.erlang.loose import founding_doc
from symdelay.models.erlang.nonlinear.symbolic import (
    CLOSED_L1_MAX_L,
    cubic_coefficient,
    symbolic_normal_form,
)

__all__ = ["NormalForm", "normal_form", "describing_function_amplitude", "GUARD"]


def _mp(x):
    x = sp.sympify(x)
    if x.is_Rational:
        return mpmath.mpf(int(x.p)) / int(x.q)
    return mpmath.mpf(str(sp.N(x, mpmath.mp.dps + 5)))


def _structured(L, m, lm, g, k, w, g3):
    """Eigenvectors of the difference Jacobian at ``i omega`` from its recursions, and
    ``(c1, r', |q|^2)`` by the projection formula (only ``w_1`` carries the cubic term)."""
    r = mpmath.mpc(0, w)
    q = [mpmath.mpc(1)]
    q.append(-k / (r + g))
    for _ in range(2, L + 1):
        q.append(q[-1] * g / (r + g))
    pb = [mpmath.mpc(0)] * (L + 1)  # conj(p), from the columns of A - r
    pb[0] = mpmath.mpc(1)
    pb[L] = g * pb[0] / (g + r)
    for ell in range(L - 1, 0, -1):
        pb[ell] = g * pb[ell + 1] / (g + r)
    s = mpmath.fsum(a * b for a, b in zip(pb, q))
    pb = [a / s for a in pb]
    col_x = -(m + r) * pb[0] - k * pb[1]  # the remaining column: zero on the eigenvalue
    c1 = pb[1] * g3 * abs(q[0]) ** 2 * q[0] / 2
    rp = pb[1] * (-lm) * q[0]
    return c1, rp, mpmath.fsum(abs(a) ** 2 for a in q), abs(col_x)


def describing_function_amplitude(theta, theta_c):
    """Harmonic-balance amplitude of ``x`` at ``theta``: ``N(theta A / 2) = theta_c / theta``
    with ``N(a) = (2/(pi a)) int_0^pi tanh(a sin phi) sin phi dphi`` (float; 0 below
    ``theta_c``). Small ``theta - theta_c``: ``4 theta_c^(-3/2) sqrt(theta - theta_c)``;
    ``theta -> inf``: ``8 / (pi theta_c)`` (relay)."""
    from scipy.integrate import quad
    from scipy.optimize import brentq

    def N(a):
        if a < 1e-6:
            return 1 - a * a / 4
        val = quad(lambda p: np.tanh(a * np.sin(p)) * np.sin(p), 0, np.pi, limit=200)[0]
        return 2 * val / (np.pi * a)

    out = []
    for th in np.atleast_1d(np.asarray(theta, dtype=float)):
        ratio = theta_c / th
        if ratio >= 1:
            out.append(0.0)
            continue
        a_hi = max(8.0, 8 / ratio)
        a = brentq(lambda a, c=ratio: N(a) - c, 0.0, a_hi, xtol=1e-14)
        out.append(2 * a / th)
    return np.array(out)


@founding_doc
def normal_form(L=2, mu=1, lam=1, D=1, dps: int = 15) -> NormalForm:
    """The first Lyapunov coefficient, criticality, amplitude and period laws of the founding
    model at ``theta_c``: the convenience of :func:`symdelay.normal_form` on
    ``build_model("erlang", L=L, mu=mu, lam=lam, D=D)`` (its fast path).

    Parameters
    ----------
    L : int, str or float, default 2
        The number of Erlang phases, an integer ``>= 2`` (``L = 1`` has no Hopf point), or
        ``"inf"`` / ``math.inf`` (the delay equation).
    %(rates)s
    dps : int, default 15
        Significant digits (5..10000) of ``theta_c``, ``omega``, ``c1`` and ``l1``.

    Returns
    -------
    NormalForm
        ``theta_c``, ``omega``, ``l1`` (negative: supercritical), the amplitude coefficient
        and the closed forms.
    """
    from symdelay.analysis.normal_form import normal_form as entry
    from symdelay.models.erlang.family import model

    return entry(model(L=L, mu=mu, lam=lam, D=D), dps=dps, method="specialised")


@cache
def closed_forms(L) -> tuple:
    """``(l1, amplitude_coefficient)`` of the founding model in closed form (in ``mu, lam,
    D``): ``l1`` for L <= 3, the amplitude for L <= 5, None elsewhere."""
    if not isinstance(L, int) or L > 5:
        return None, None
    sym = symbolic_normal_form(L)
    amp = None if sym.amplitude is None else sym.in_D(sym.amplitude)
    l1 = sym.in_D(sym.l1) if sym.l1 is not None and L <= CLOSED_L1_MAX_L else None
    return l1, amp


def family_closed_forms(model) -> tuple:
    """The founding family's closed forms of the normal form (:func:`closed_forms` at the
    model's L): attached by the entry on every path."""
    return closed_forms(getattr(model, "L", None))


def specialised_normal_form(model, dps: int = 15):
    """The founding model's normal form (structured eigenvectors, closed forms for
    L <= 5, the DDE for L = inf); ``None`` (the generic path) when theta is given."""
    o = model.options
    if o["theta"] is not None:
        return None
    require_numbers(o, ("mu", "lam", "D"), "the normal form")
    return _closed(model.name, model.L, o["mu"], o["lam"], o["D"], as_dps(dps))


def _closed(model_name, L, mu, lam, D, dps):
    Lv = as_L_or_inf(L)
    m = as_positive_number("mu", mu)
    lm = as_positive_number("lam", lam)
    Dq = as_positive_number("D", D)
    if Lv == 1:
        raise SymdelayInputError(
            "L = 1 has no Hopf point: (r+mu)(r+gamma) + lam*theta*gamma has both roots in the "
            "left half-plane for every theta >= 0, so there is no cycle; use L >= 2 or inf"
        )
    wp = dps + GUARD
    pt = critical_theta(Lv, m, lm, [Dq], dps=wp).points[0]
    g3_expr = cubic_coefficient()
    with mpmath.workdps(wp + GUARD):
        th_c, w = +pt.theta_c, +pt.omega
        mm, lmm, Dm = _mp(m), _mp(lm), _mp(Dq)
        k = lmm * th_c
        g3 = lmm * th_c**3 / 2
        if sp.simplify(g3_expr - sp.Symbol("lam") * sp.Symbol("theta") ** 3 / 2) != 0:
            raise SymdelayInputError("unexpected cubic coefficient")  # pragma: no cover
        checks = {}
        if Lv is INFINITE_L:
            iw = mpmath.mpc(0, w)
            E = mpmath.exp(-iw * Dm)
            dDelta = 1 - k * Dm * E
            c1 = g3 * E / (2 * dDelta)
            rp = -lmm * E / dDelta
            qn2 = None
            checks["characteristic_residual"] = abs(iw + mm + k * E)
            method = "centre-manifold projection of the scalar DDE (q(s) = exp(i omega s))"
            closed_l1 = closed_amp = None
        else:
            g = Lv / Dm
            c1, rp, qn2, res = _structured(Lv, mm, lmm, g, k, w, g3)
            checks["characteristic_residual"] = res
            method = "Kuznetsov projection formula, structured eigenvectors (q_x = 1)"
            closed_l1, closed_amp = closed_forms(Lv)
            vals = {sp.Symbol("mu"): m, sp.Symbol("lam"): lm, sp.Symbol("D"): Dq}
            if closed_amp is not None:
                checks["closed_amplitude_error"] = abs(
                    _mp(closed_amp.subs(vals)) - 4 / th_c ** mpmath.mpf(1.5)
                )
            if closed_l1 is not None:
                checks["closed_l1_error"] = abs(_mp(closed_l1.subs(vals)) - mpmath.re(c1) / w)
        l1 = mpmath.re(c1) / w
        amp = 2 * mpmath.sqrt(-mpmath.re(rp) / mpmath.re(c1)) if mpmath.re(c1) < 0 else mpmath.nan
        slope = mpmath.im(rp) - mpmath.im(c1) * mpmath.re(rp) / mpmath.re(c1)
        checks["ratio_c1_over_rprime_plus_theta3_over_4"] = abs(c1 / rp + th_c**3 / 4)
        # <q, q> = 1 in the model's state (q1, q2, z1_*, z2_*): the antisymmetric vector with
        # imbalances q has half the squared norm of q, so l1 there is 2 Re c1 / (|q|^2 w)
        l1_unit = None if qn2 is None else 2 * l1 / qn2
    return NormalForm(
        Lv,
        m,
        lm,
        Dq,
        dps,
        th_c,
        w,
        c1,
        rp,
        l1,
        l1_unit,
        amp,
        slope,
        closed_l1,
        closed_amp,
        method,
        model_name,
        checks,
    )
