"""Hopf crossings of the difference mode: critical θ curves, instability windows, worst delay.

Everything here starts from the characteristic equation derived in :mod:`symdelay.models.erlang.charpoly`,

    P(r) = F(r) + lam*theta*gamma**L,   F(r) = (r + mu) (r + gamma)**L      (finite L)
    P(r) = (r + mu) + lam*theta*exp(-r D)                                    (L = oo)

and substitutes ``r = i*omega`` with SymPy. A root on the imaginary axis with ``omega > 0`` and
``theta > 0`` means ``F(i omega) = -lam theta gamma**L``: a *modulus* condition
``lam theta = |F(i omega)| / gamma**L`` and a *phase* condition ``arg F(i omega) = pi``
(mod ``2 pi``). The phase is a sum of arctangents, increasing and concave in ``omega``, with
supremum ``(L + 1) pi / 2``; for ``L = 1`` it never reaches ``pi`` (no crossing: stable for
every ``theta >= 0``). The first crossing (phase ``= pi``) has the smallest modulus, so it is
the critical value ``theta_c(D)``.

With ``omega = gamma tan(alpha)`` the crossing curve is explicit (derived in
:func:`hopf_parametrisation`)::

    gamma(alpha) = -mu tan(L alpha) / tan(alpha),
    lam theta(alpha) = -mu / (cos(alpha)**L cos(L alpha)),   pi/(2L) < alpha < min(pi/L, pi/2),

``D = L / gamma`` increasing in ``alpha``. The stationary point of ``theta`` along it solves
``sin((L + 1) alpha) = 0``, which gives the worst-case delay in closed form for every L >= 2.

>>> from symdelay.models.erlang.hopf import critical_theta
>>> c = critical_theta(3, 1, 1, [3], dps=20)
>>> c.points[0].theta_c
mpf('4.0')
>>> critical_theta(1, 1, 1, 2).points[0].theta_c
mpf('+inf')
"""

from symdelay.core.lazy import exports

#: public name -> the module that defines it (imported when first asked for; the numeric
#: critical path then needs neither the derivation nor SymPy)
_PUBLIC = {
    "critical_theta": "symdelay.models.erlang.hopf.curve",
    "DelayLimits": "symdelay.models.erlang.hopf.derivation",
    "HopfConditions": "symdelay.models.erlang.hopf.derivation",
    "HopfParametrisation": "symdelay.models.erlang.hopf.derivation",
    "critical_closed_form": "symdelay.models.erlang.hopf.derivation",
    "delay_limits": "symdelay.models.erlang.hopf.derivation",
    "general_delay_limits": "symdelay.models.erlang.hopf.derivation",
    "hopf_conditions": "symdelay.models.erlang.hopf.derivation",
    "hopf_parametrisation": "symdelay.models.erlang.hopf.derivation",
    "real_imaginary_parts": "symdelay.models.erlang.hopf.derivation",
    "instability_window": "symdelay.models.erlang.hopf.window",
    "WorstDelayTrend": "symdelay.models.erlang.hopf.worst",
    "worst_delay": "symdelay.models.erlang.hopf.worst",
    "worst_delay_closed_form": "symdelay.models.erlang.hopf.worst",
    "worst_delay_trend": "symdelay.models.erlang.hopf.worst",
}

__all__ = list(_PUBLIC)

__getattr__, __dir__ = exports(globals(), _PUBLIC)
