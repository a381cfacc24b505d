"""The Hopf normal form of any model of the model layer (the generic path).

The critical theta and frequency come from :func:`symdelay.analysis.critical.critical`
(generic path); the Jacobian ``A(theta)`` and its derivative from :attr:`Model.jacobian`; the quadratic and
cubic forms ``B``, ``C`` from SymPy derivatives of the full drift at the equilibrium, all
evaluated in mpmath at ``dps`` + guard digits, and Kuznetsov's formula
(:mod:`._projection`) gives ``c1`` (quadratic terms included: models without the
symmetric equilibrium have them). ``l1`` and the amplitude are reported for the imbalance
``x = q1 - q2`` (:func:`symdelay.analysis.stochastic.difference_weights`), normalised by
``q_x = 1`` as on the founding model's fast path, which the tests compare with this one.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import mpmath
import numpy as np

from symdelay.analysis.entry import declined, specialisation
from symdelay.analysis.projection import eigenvectors, first_lyapunov
from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.core.numbers import format_exact, format_number
from symdelay.core.params import INFINITE_L, as_dps
from symdelay.core.precision import GUARD
from symdelay.core.result import Result
from symdelay.core.symbols import theta as TH

__all__ = ["NormalForm", "normal_form", "model_normal_form"]


STRUCTURAL_REASON = (
    "theta enters the linearisation only as the slope lam*theta of the saturating "
    "nonlinearity 2*lam*tanh(theta*y/2), so c1 = -(theta**3/4)*r'(theta)*|q_y|**2; "
    "at the first crossing Re r'(theta_c) > 0, hence l1 < 0 (supercritical) and the "
    "frequency does not move at first order"
)


@dataclass(frozen=True)
class NormalForm(Result):
    """The Hopf normal form at ``theta_c``: ``c1``, ``l1``, amplitude and period laws.

    ``l1`` is normalised by ``q_y = 1`` (``y`` = the imbalance ``x = q1 - q2``, the
    coordinate the logit rule observes for the founding model); ``l1_unit`` is Kuznetsov's
    normalisation ``<q, q> = 1`` (finite state only). ``amplitude_coefficient``: ``c`` in
    ``A(theta) ~ c sqrt(theta - theta_c)``, ``A`` half the peak-to-peak of ``x``;
    ``omega_slope``: ``d omega / d theta`` at ``theta_c`` from the normal form (zero up to
    rounding: the frequency is stationary). ``closed_l1``, ``closed_amplitude``: the
    founding model's closed forms (SymPy, from
    :func:`symdelay.models.erlang.nonlinear.symbolic.symbolic_normal_form`; None elsewhere).
    ``model_name``: the model's name (``L``, ``mu``, ``lam``, ``D`` are the founding
    model's options, None for another model).
    """

    L: object
    mu: object
    lam: object
    D: object
    dps: int
    theta_c: mpmath.mpf
    omega: mpmath.mpf
    c1: mpmath.mpc
    r_prime: mpmath.mpc
    l1: mpmath.mpf
    l1_unit: mpmath.mpf | None
    amplitude_coefficient: mpmath.mpf
    omega_slope: mpmath.mpf
    closed_l1: sp.Expr | None = None
    closed_amplitude: sp.Expr | None = None
    method: str = ""
    model_name: str | None = None
    checks: dict = field(default_factory=dict)

    @property
    def criticality(self) -> str:
        tol = mpmath.mpf(10) ** (-(self.dps // 2)) * (1 + abs(self.c1))
        if abs(self.l1) <= tol:
            return "degenerate"
        return "supercritical" if self.l1 < 0 else "subcritical"

    @property
    def describing_coefficient(self) -> mpmath.mpf:
        """``4 theta_c^(-3/2)``: the harmonic-balance amplitude coefficient (see
        :func:`symdelay.models.erlang.nonlinear.symbolic.describing_function_series`)."""
        with mpmath.workdps(self.dps + GUARD):
            return 4 / self.theta_c ** (mpmath.mpf(3) / 2)

    @property
    def period(self) -> mpmath.mpf:
        return 2 * mpmath.pi / self.omega

    def amplitude(self, theta):
        """``c sqrt(theta - theta_c)`` (float numpy; NaN below ``theta_c``)."""
        th = np.asarray(theta, dtype=float)
        with np.errstate(invalid="ignore"):
            return float(self.amplitude_coefficient) * np.sqrt(th - float(self.theta_c))

    def record(self) -> dict:
        d = self.dps
        from symdelay.core.latex import tex

        return {
            "L": "inf" if self.L is INFINITE_L else self.L,
            "model": self.model_name,
            "mu": None if self.mu is None else format_exact(self.mu),
            "lam": None if self.lam is None else format_exact(self.lam),
            "D": None if self.D is None else format_exact(self.D),
            "theta_c": format_number(self.theta_c, d),
            "omega": format_number(self.omega, d),
            "period": format_number(self.period, d),
            "l1": format_number(self.l1, d),
            "l1_normalisation": "q_x = 1 (x = q1 - q2)",
            "l1_unit_norm": None if self.l1_unit is None else format_number(self.l1_unit, d),
            "c1": {
                "re": format_number(mpmath.re(self.c1), d),
                "im": format_number(mpmath.im(self.c1), d),
            },
            "r_prime": {
                "re": format_number(mpmath.re(self.r_prime), d),
                "im": format_number(mpmath.im(self.r_prime), d),
            },
            "criticality": self.criticality,
            "amplitude_coefficient": format_number(self.amplitude_coefficient, d),
            "omega_slope": format_number(self.omega_slope, d),
            "describing_function_coefficient": format_number(self.describing_coefficient, d),
            "closed_form": {
                "l1": None if self.closed_l1 is None else str(self.closed_l1),
                "amplitude_coefficient": None
                if self.closed_amplitude is None
                else str(self.closed_amplitude),
            },
            "closed_form_latex": {
                "l1": None if self.closed_l1 is None else tex(self.closed_l1),
                "amplitude_coefficient": None
                if self.closed_amplitude is None
                else tex(self.closed_amplitude),
            },
            "structural_reason": STRUCTURAL_REASON,
            "method": self.method,
            "checks": {
                k: (v if isinstance(v, (bool, str)) else format_number(v, 6))
                for k, v in self.checks.items()
            },
        }

    def latex(self) -> str:
        n = 10
        s = (
            rf"\theta_c = {mpmath.nstr(self.theta_c, n)},\ \omega_c = "
            rf"{mpmath.nstr(self.omega, n)},\ \ell_1 = {mpmath.nstr(self.l1, n)}"
            rf"\ (\text{{{self.criticality}}}),\ A \approx "
            rf"{mpmath.nstr(self.amplitude_coefficient, n)}\sqrt{{\theta-\theta_c}}"
        )
        if self.closed_l1 is not None:
            from symdelay.core.latex import tex

            s += rf",\quad \ell_1 = {tex(self.closed_l1)}"
        return s

    def plot(self, cycles=None, theta_max=None):
        """Amplitude law ``c sqrt(theta - theta_c)`` (and computed cycles, if given)."""
        from symdelay.core.display import draw

        return draw(self, cycles, theta_max)


def _num(e, subs, wp):
    v = sp.N(sp.sympify(e).xreplace(subs), wp)
    if not v.is_number:
        raise SymdelayInputError(f"a value is missing: {e} does not evaluate to a number")
    re, im = v.as_real_imag()
    if im != 0:
        return mpmath.mpc(str(re), str(im))
    return mpmath.mpf(str(re))


def normal_form(model, dps: int = 15, *, method: str = "auto") -> NormalForm:
    """The Hopf normal form of ``model`` at ``theta_c`` (``theta`` free, numbers for the
    rest): the family's specialisation first (the founding model's structured eigenvectors
    and closed forms), else the generic projection formula on the full drift
    (:func:`model_normal_form`)."""
    fast = specialisation(model, "normal_form", method)
    if fast is not None:
        result = fast(model, dps=dps)
        if result is not None:
            return result
        declined(model, "normal_form", method)
    return model_normal_form(model, dps=dps)


def model_normal_form(model, dps: int = 15) -> NormalForm:
    """:class:`NormalForm` of a model with ``theta`` free and numbers for the rest (the
    generic path of :func:`normal_form`)."""
    from symdelay.analysis.critical import critical
    from symdelay.analysis.stochastic import difference_weights

    dps = as_dps(dps)
    wp = dps + 2 * GUARD
    crit = critical(model, "theta", dps=dps + GUARD, method="generic")
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
