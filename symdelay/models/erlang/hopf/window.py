"""Instability windows: the mean delays D at which the equilibrium is unstable for fixed theta."""

from __future__ import annotations

from functools import cache

import mpmath
from sympy.polys.polytools import intervals as _isolate

from symdelay.analysis.window import Window, WindowEnd, WindowInterval
from symdelay.core.errors import SymdelayInputError, VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.params import INFINITE_L, as_dps, as_L_or_inf, as_parameter, as_positive_number
from symdelay.core.precision import GUARD
from symdelay.models.erlang.hopf._common import _require_rational, require_numbers
from symdelay.models.erlang.hopf.derivation import hopf_conditions


@cache
def _t_polynomials(L: int):
    """``A(t) + i B(t) = (1 + i t)**L`` and ``D(t)`` numerator/denominator (SymPy)."""
    t = sp.Symbol("t", real=True)
    A, B = sp.expand((1 + sp.I * t) ** L).as_real_imag()
    if sp.expand(A**2 + B**2 - (1 + t**2) ** L) != 0:
        raise VerificationError("|1 + i t|^(2L) != (1 + t^2)^L")
    return t, sp.Poly(A, t), sp.Poly(B, t)


def _window_finite(L, k, m, dps):
    """Exact window for finite L >= 2, via ``Q(t) = k A(t) + mu (1 + t^2)^L``.

    On the crossing curve ``t = tan(alpha) = omega/gamma``, ``gamma = -mu B/(t A)`` and
    ``lam theta_c = -mu (1+t^2)^L / A``; with ``A < 0`` on the first branch,
    ``lam theta > lam theta_c`` iff ``Q(t) < 0``. D = L/gamma increases with t.
    """
    t, A, B = _t_polynomials(L)
    Q = sp.Poly(k * A.as_expr() + m * (1 + t**2) ** L, t)
    Qs = sp.Poly(sp.sqf_part(Q.as_expr()), t)
    iv = _isolate([Qs, A, B])
    iv = sorted(((sp.Rational(a), sp.Rational(b)), idx) for (a, b), idx in iv if b > 0)
    # first positive root of A, then first positive root of B after it
    t0 = next((j for j, (_, idx) in enumerate(iv) if 1 in idx and iv[j][0][0] >= 0), None)
    if t0 is None:
        return []
    t1 = next((j for j in range(t0 + 1, len(iv)) if 2 in iv[j][1]), None)
    if 0 in iv[t0][1]:
        raise VerificationError("Q and A share a root (impossible: Q(t0) = mu (1+t0^2)^L > 0)")
    end = len(iv) if t1 is None else t1
    roots = []
    for j in range(t0 + 1, end):
        if 0 in iv[j][1]:
            a, b = iv[j][0]
            # shrink the isolating interval (exactly) so that neither end is a root of Q, A
            # or B: a Q root shared with B at the branch end t1 (D -> oo) sits at b
            eps = sp.Rational(1, 10**12) * max(abs(a), abs(b), 1)
            roots.append(tuple(sp.Rational(v) for v in Qs.refine_root(a, b, eps=eps)))
    # sample points between consecutive roots (exact rationals)
    bounds = (
        [iv[t0][0][1]]
        + [x for ab in roots for x in ab]
        + ([iv[t1][0][0]] if t1 is not None else [None])
    )
    samples = []
    for j in range(len(roots) + 1):
        left, right = bounds[2 * j], bounds[2 * j + 1]
        samples.append(left + 1 if right is None else (left + right) / 2)
    Qe = Q.as_expr()
    negative = [Qe.subs(t, s) < 0 for s in samples]
    scale = max(abs(c) for c in Qs.all_coeffs())  # theta = 1e300: keep Q of order one
    Qf = sp.lambdify(t, (Qs.as_expr() / scale), "mpmath")
    Bf = sp.lambdify(t, B.as_expr(), "mpmath")

    def edges_at(work):
        # at a root of Q, A = -mu (1+t^2)^L / k, so D = -L t A/(mu B) = L t (1+t^2)^L/(k B):
        # no cancellation when mu << k (the form with A/mu loses every digit there)
        with mpmath.workdps(work):
            k_mp = mpmath.mpf(k.p) / k.q
            out = [(mpmath.mpf(0), None)]
            for a, b in roots:
                a_, b_ = mpmath.mpf(a.p) / a.q, mpmath.mpf(b.p) / b.q
                tv = (
                    a_
                    if a_ == b_
                    else mpmath.findroot(Qf, (a_, b_), solver="anderson", verify=False)
                )
                d = L * tv * (1 + tv**2) ** L / (k_mp * Bf(tv))
                out.append((d, L * tv / d))  # omega = gamma t, gamma = L/D
            return [*out, (mpmath.inf, None)]

    # near the end of the branch (D -> oo) B(t) is small and the root t must carry more
    # digits: raise the precision until two runs agree to dps + 2 digits
    work = dps + GUARD
    edges = edges_at(work)
    for _ in range(12):
        finer = edges_at(work + 20)
        tol = mpmath.mpf(10) ** (-(dps + 2))
        pairs = zip(edges[1:-1], finer[1:-1])
        if all(e == f or abs(e - f) <= tol * abs(f) for (e, _), (f, _) in pairs):
            edges = finer
            break
        work, edges = 2 * work, finer
    else:
        raise VerificationError("window end points did not converge in precision")
    return [(edges[j], edges[j + 1]) for j, neg in enumerate(negative) if neg]


def instability_window(L, theta, mu, lam, dps: int = 15) -> Window:
    """The set ``{D > 0 : the equilibrium has a root with Re r > 0}`` of the founding model at
    fixed ``theta``: the convenience of :func:`symdelay.window` in ``D`` (its closed form).

    For ``theta >= 0`` it is ``{D : theta > theta_c(D)}``, a union of open intervals found
    exactly (finite L: the real roots of a polynomial of degree 2L in ``t = omega/gamma``;
    ``L = inf``: closed form). For ``theta < 0`` (routing towards longer queues) a real root
    crosses zero at ``lam theta = -mu`` for every D, so the window is all ``D > 0`` when
    ``lam theta < -mu`` and empty otherwise.

    Parameters
    ----------
    L : int, str or float
        The number of Erlang phases, an integer ``>= 1``, or ``"inf"`` / ``math.inf``.
    theta : number or str
        The routing sensitivity (real), made exact.
    mu : number or str
        The service rate (``> 0``).
    lam : number or str
        The arrival rate per queue (``> 0``).
    dps : int, default 15
        Significant digits (5..10000) of the interval ends.

    Returns
    -------
    Window
        ``intervals`` in ``D`` (pairs of ends; empty when stable for every delay) and their
        crossing frequencies.

    Examples
    --------
    >>> instability_window(3, 5, 1, 1, dps=6).to_json()["intervals"]
    [['1.05543', '11.0938']]
    """
    from symdelay.analysis.window import window
    from symdelay.models.erlang.family import model

    return window(model(L=L, mu=mu, lam=lam, theta=theta), "D", dps=dps, method="specialised")


def specialised_window(model, vary="D", *, lo=None, hi=None, dps=15, force=False):
    """The founding model's window in D (closed form, any L including inf); ``None`` (the
    generic path) for another parameter, a range of D or ``force``."""
    o = model.options
    if vary != "D" or lo is not None or hi is not None or force or o["D"] is not None:
        return None
    require_numbers(o, ("theta", "mu", "lam"), "the window in D")
    return _closed(model.name, model.L, o["theta"], o["mu"], o["lam"], dps)


def _closed(model_name, L, theta, mu, lam, dps):
    Lv = as_L_or_inf(L)
    dps = as_dps(dps)
    th = as_parameter("theta", theta, positive=False)
    if not th.is_number:
        raise SymdelayInputError(f"theta must be a number, got '{theta}'")
    m = as_positive_number("mu", mu)
    lm = as_positive_number("lam", lam)
    for name, x in (("theta", th), ("mu", m), ("lam", lm)):
        _require_rational(name, x)
    k = lm * th
    Lname = "L = oo" if Lv is INFINITE_L else f"L = {Lv}"
    ivs = ()
    if th < 0:
        why = "theta < 0 routes jobs towards the longer queue; "
        if k < -m:
            ivs = (((mpmath.mpf(0), None), (mpmath.inf, None)),)
            why += (
                "lam*theta < -mu, so P(0) = (mu + lam theta) gamma^L < 0 and a real root is "
                "positive for every D"
            )
        else:
            why += (
                "a real root crosses r = 0 at lam*theta = -mu (for every D); here -mu <= "
                "lam*theta < 0 and |F(i omega)| >= mu gamma^L excludes other crossings: stable "
                "for every D" + (" (r = 0 is a root: marginal)" if k == -m else "")
            )
    elif Lv is INFINITE_L and k <= m:
        why = f"{Lname}: theta_c(D) decreases from oo to mu/lam; lam*theta <= mu: stable for all D"
    elif Lv is INFINITE_L:
        w1 = sp.sqrt(k**2 - m**2)
        D1 = (sp.pi - sp.atan(w1 / m)) / w1
        with mpmath.workdps(dps + GUARD):
            d1 = mpmath.mpf(str(sp.N(D1, dps + GUARD)))
            om = mpmath.mpf(str(sp.N(w1, dps + GUARD)))
            ivs = (((d1, om), (mpmath.inf, None)),)
        why = f"{Lname}: theta_c(D) decreases from oo to mu/lam; unstable for D > {D1}"
    elif not hopf_conditions(Lv).crosses:
        why = f"{Lname}: the phase never reaches pi; stable for all D"
    else:
        ivs = tuple(_window_finite(Lv, k, m, dps))
        why = (
            f"{Lname}: endpoints are the roots t of theta*lam*A(t) + mu*(1+t^2)^L on the first "
            "crossing branch, (1 + i t)^L = A + i B, D = L t (1+t^2)^L/(lam theta B(t))"
        )

    # the closed-form D-window as the one Window: each interval ((lo, omega_lo), (hi,
    # omega_hi)), omega None at a domain end; why the closed form decides it: the notes
    def end(v, w):
        kind = "domain end" if v == 0 else ("infinite" if mpmath.isinf(v) else "r = i omega")
        return WindowEnd(v, None, None, () if w is None else (w,), kind)

    intervals = tuple(WindowInterval(end(*a), end(*b), ()) for a, b in ivs)
    crossings = tuple(e for iv in intervals for e in (iv.lo, iv.hi) if e.kind == "r = i omega")
    how = (
        "closed form: the founding model's Hopf parametrisation (exact polynomial roots in "
        "t = omega/gamma)"
    )
    zero = sp.Integer(0)  # the range; the model's options are set by the entry
    return Window(
        model_name, "D", {}, dps, zero, sp.oo, intervals, crossings, (), how, True, (why,)
    )
