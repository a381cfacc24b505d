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

from symdelay.analysis.entry import entry_doc, specialised
from symdelay.analysis.projection import HopfCoefficients
from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.core.numbers import format_number, option_text
from symdelay.core.params import INFINITE_L, as_dps
from symdelay.core.precision import GUARD
from symdelay.core.result import Result

__all__ = [
    "NormalForm",
    "normal_form",
    "model_normal_form",
    "FirstLyapunov",
    "HopfCoefficients",
    "first_lyapunov",
    "hopf_multiplicity",
    "MULTIPLE_NOTE",
]

#: what the record says where the imaginary pair is multiple (l1 is not defined there)
MULTIPLE_NOTE = (
    "the imaginary pair +-i omega is multiple (the model's symmetry: a factor of the "
    "characteristic polynomial with multiplicity >= 2 crosses the axis): a scalar first "
    "Lyapunov coefficient is not defined and no criticality, amplitude law or frequency "
    "slope follows from it; the equivariant Hopf theorem (Golubitsky & Stewart) decides "
    "which oscillation patterns bifurcate and their stability: see patterns (null where the "
    "equivariant normal form is not built, with patterns_reason)"
)


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

    Where the imaginary pair is multiple (``multiplicity >= 2``) the scalars ``l1``,
    ``c1``, the amplitude and frequency laws are left out of the record; three symmetric
    servers (a declared 3-cycle with a reflection: D_3) get the equivariant answer instead,
    ``equivariant`` (:class:`symdelay.analysis.equivariant.D3Hopf`: ``A``, ``B`` of
    ``z1' = z1 (lambda + A |z1|^2 + B |z2|^2)``) and ``patterns`` (one dict per branch:
    rotating wave, the two standing waves, each with its isotropy, criticality, stability,
    amplitude law and phase lags); elsewhere ``patterns`` is None and ``patterns_reason``
    says why in one line.

    ``l2`` (with ``l2_radius``, the radius of its Arb ball): the second Lyapunov
    coefficient, ``Re c2 / omega`` of the Bautin normal form
    ``z' = i omega z + c1 z |z|^2 + c2 z |z|^4`` in the same normalisation ``q_x = 1``
    (:meth:`symdelay.analysis.dnormal.DelayLyapunov.bautin`), given where ``l1`` vanishes
    or its ball holds 0 (None elsewhere): at a Bautin point its sign decides the
    criticality (negative: the cycles are born stable) and the side of the fold of cycles
    (``l1 > 0``'s side where ``l2 < 0``).

    Over a range (``normal_form(..., lo=, hi=)``): ``hopf_points``, every Hopf point found
    on the equilibrium followed numerically (the first described), and ``observed``, the
    combination of states ``l1`` and the amplitude refer to (the imbalance of a model with a
    symmetry, its first state otherwise; None on the other paths: ``q1 - q2``).
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
    multiplicity: int = 1
    patterns: object = None
    param: str = "theta"
    equivariant: object = None
    patterns_reason: str | None = None
    l1_radius: mpmath.mpf | None = None
    l2: mpmath.mpf | None = None
    l2_radius: mpmath.mpf | None = None
    observed: str | None = None
    hopf_points: tuple | None = None

    @property
    def bautin_note(self) -> str | None:
        """One line on what ``l2`` decides where ``l1`` vanishes (None without ``l2``)."""
        if self.l2 is None:
            return None
        if self.l2_radius is not None and abs(self.l2) <= self.l2_radius:
            return "the sign of l2 is undecided too (|l2| within its bound)"
        if self.l2 < 0:
            return (
                "l2 < 0: at this Bautin point the cycles are born stable (soft onset), and the "
                "fold of cycles lies on the side where l1 > 0"
            )
        return (
            "l2 > 0: at this Bautin point the cycles are born unstable (hard onset), and the "
            "fold of cycles lies on the side where l1 < 0"
        )

    @property
    def side(self) -> str | None:
        """Where the cycles born at the Hopf point live: ``"above"`` (``p > p_c``) or
        ``"below"``: the sign of ``-Re r' / Re c1`` (``rho^2 = -Re r' (p - p_c) / Re c1`` in
        the normal form); None when ``l1`` is not defined or vanishes."""
        if self.multiple or self.criticality in ("degenerate", "undecided"):
            return None
        return "above" if -mpmath.re(self.r_prime) / mpmath.re(self.c1) > 0 else "below"

    @property
    def multiple(self) -> bool:
        """The imaginary pair is multiple: ``l1`` is not defined (see :data:`MULTIPLE_NOTE`)."""
        return self.multiplicity >= 2

    @property
    def criticality(self) -> str:
        if self.multiple:
            return "undefined (multiple imaginary pair)"
        if self.l1_radius is not None and self.l1_radius == 0 and self.l1 == 0:
            return "degenerate"  # l1 = 0 proved (an exact ball): a Bautin point
        if self.l1_radius is not None and abs(self.l1) <= self.l1_radius:
            return "undecided"
        tol = mpmath.mpf(10) ** (-(self.dps // 2)) * (1 + abs(self.c1))
        if abs(self.l1) <= tol:
            return "degenerate"
        return "supercritical" if self.l1 < 0 else "subcritical"

    @property
    def structural_reason(self) -> str | None:
        """:data:`STRUCTURAL_REASON` when it holds for this model: the pair is simple, the
        parameter is ``theta`` and the computed ``c1`` equals ``-(theta**3/4) r'(theta)`` (the
        identity the reason rests on) to half the working digits; None otherwise (a model
        where theta enters in another way, e.g. a model file's own rates)."""
        if self.multiple or self.param != "theta" or self.r_prime == 0:
            return None
        scale = self.theta_c**3 / 4
        tol = mpmath.mpf(10) ** (-(self.dps // 2)) * scale
        return STRUCTURAL_REASON if abs(self.c1 / self.r_prime + scale) <= tol else None

    @property
    def describing_coefficient(self) -> mpmath.mpf:
        """``4 theta_c^(-3/2)``: the harmonic-balance amplitude coefficient (see
        :func:`symdelay.models.erlang.nonlinear.symbolic.describing_function_series`)."""
        with mpmath.workdps(self.dps + GUARD):
            return 4 / self.theta_c ** (mpmath.mpf(3) / 2)

    @property
    def period(self) -> mpmath.mpf:
        with mpmath.workdps(self.dps + GUARD):  # not at the precision in force: dps digits
            return 2 * mpmath.pi / self.omega

    def amplitude(self, theta):
        """``c sqrt(|p - p_c|)`` on the side where the cycles live (float numpy; NaN on the
        other side, and everywhere where the imaginary pair is multiple or the sign of
        ``l1`` is undecided: no scalar law, no side).
        ``theta``: values of the parameter ``param``."""
        th = np.asarray(theta, dtype=float)
        if self.multiple or self.criticality == "undecided":
            return np.full(th.shape, np.nan)
        d = th - float(self.theta_c)
        if self.side == "below":
            d = -d
        with np.errstate(invalid="ignore"):
            return float(self.amplitude_coefficient) * np.sqrt(d)

    def record(self) -> dict:
        d = self.dps
        from symdelay.core.latex import tex

        def parts(z):
            return {"re": format_number(mpmath.re(z), d), "im": format_number(mpmath.im(z), d)}

        closed = {"l1": self.closed_l1, "amplitude_coefficient": self.closed_amplitude}
        multiple = self.multiple

        def scalar(v):
            return None if multiple or v is None else format_number(v, d)

        in_theta = self.param == "theta"
        return {
            "L": "inf" if self.L is INFINITE_L else self.L,
            "model": self.model_name,
            "mu": None if self.mu is None else option_text(self.mu),
            "lam": None if self.lam is None else option_text(self.lam),
            "D": None if self.D is None else option_text(self.D),
            "param": self.param,
            "critical_value": format_number(self.theta_c, d),
            "theta_c": format_number(self.theta_c, d) if in_theta else None,
            "omega": format_number(self.omega, d),
            "period": format_number(self.period, d),
            "multiplicity": self.multiplicity,
            "l1": scalar(self.l1),
            "l1_normalisation": _normalisation(self.observed),
            "l1_unit_norm": scalar(self.l1_unit),
            "l1_radius": None if self.l1_radius is None else format_number(self.l1_radius, 3),
            "l2": None if self.l2 is None else format_number(self.l2, d),
            "l2_radius": None if self.l2_radius is None else format_number(self.l2_radius, 3),
            "c1": None if multiple else parts(self.c1),
            "r_prime": parts(self.r_prime),
            "criticality": self.criticality,
            "amplitude_coefficient": scalar(self.amplitude_coefficient),
            "amplitude_side": self.side,
            "omega_slope": scalar(self.omega_slope),
            "patterns": self.patterns,
            "patterns_reason": self.patterns_reason,
            "cubic_coefficients": self._cubic(),
            "reflection": None if self.equivariant is None else self.equivariant.reflection,
            "multiple_note": MULTIPLE_NOTE if multiple else None,
            "describing_function_coefficient": (
                scalar(self.describing_coefficient) if in_theta else None
            ),
            "closed_form": {k: None if v is None else str(v) for k, v in closed.items()},
            "closed_form_latex": {k: None if v is None else tex(v) for k, v in closed.items()},
            "structural_reason": self.structural_reason,
            "method": self.method,
            "hopf_points": None if self.hopf_points is None else list(self.hopf_points),
            "checks": {
                k: (v if isinstance(v, (bool, str)) else format_number(v, 6))
                for k, v in self.checks.items()
            },
        }

    def _cubic(self) -> dict | None:
        """``A``, ``B`` of the D_3-equivariant normal form (see
        :mod:`symdelay.analysis.equivariant`), None where it is not computed."""
        eq = self.equivariant
        if eq is None:
            return None

        def parts(z):
            d = self.dps
            return {"re": format_number(mpmath.re(z), d), "im": format_number(mpmath.im(z), d)}

        return {
            "normal_form": "z1' = z1 (lambda + A |z1|^2 + B |z2|^2), z2' = z2 (lambda + A |z2|^2"
            " + B |z1|^2), lambda = i omega + r' (p - p_c)",
            "A": parts(eq.A),
            "B": parts(eq.B),
            "eigenvectors_orbit": list(eq.orbit),
        }

    def latex(self) -> str:
        from symdelay.core.latex import tex

        n = 10
        p = tex(sp.Symbol(self.param))
        if self.multiple:
            s = (
                rf"{p}_c = {mpmath.nstr(self.theta_c, n)},\ \omega_c = "
                rf"{mpmath.nstr(self.omega, n)}:\ \pm i\omega_c\ \text{{of multiplicity "
                rf"{self.multiplicity}, }}\ \ell_1\ \text{{not defined}}"
            )
            if self.equivariant is not None:
                eq = self.equivariant

                def cx(z):
                    im = mpmath.im(z)
                    sign = "-" if im < 0 else "+"
                    return rf"{mpmath.nstr(mpmath.re(z), 8)} {sign} {mpmath.nstr(abs(im), 8)}\,i"

                s += rf";\quad D_3:\ A = {cx(eq.A)},\ B = {cx(eq.B)}"
                for pat in self.patterns:
                    word = {True: "stable", False: "unstable", None: "undecided"}[pat["stable"]]
                    s += rf",\ \text{{{pat['pattern']} ({pat['criticality']}, {word})}}"
            return s
        s = (
            rf"{p}_c = {mpmath.nstr(self.theta_c, n)},\ \omega_c = "
            rf"{mpmath.nstr(self.omega, n)},\ \ell_1 = {mpmath.nstr(self.l1, n)}"
            rf"\ (\text{{{self.criticality}}}),\ A \approx "
            rf"{mpmath.nstr(self.amplitude_coefficient, n)}"
            + (rf"\sqrt{{{p}_c-{p}}}" if self.side == "below" else rf"\sqrt{{{p}-{p}_c}}")
        )
        if self.closed_l1 is not None:
            s += rf",\quad \ell_1 = {tex(self.closed_l1)}"
        return s

    def plot(self, cycles=None, theta_max=None):
        """Amplitude law ``c sqrt(theta - theta_c)`` (and computed cycles, if given)."""
        from symdelay.core.display import draw

        return draw(self, cycles, theta_max)


def _normalisation(observed) -> str:
    """How ``l1`` is normalised: the component of ``q`` along the observed combination 1."""
    if observed is None:
        return "q_x = 1 (x = q1 - q2)"
    if " " not in observed:
        return f"q_{observed} = 1 (the observed state)"
    return f"q_x = 1 (x = {observed})"


@entry_doc
def normal_form(
    model,
    dps: int = 15,
    *,
    param: str = "theta",
    method: str = "auto",
    lo=None,
    hi=None,
) -> NormalForm:
    """The Hopf normal form of ``model`` at the critical ``theta_c``: the first Lyapunov
    coefficient, criticality, amplitude and period laws of the cycles born there.

    A model with lags: the centre-manifold reduction through its characteristic matrix
    (:mod:`symdelay.analysis.dnormal`, in Arb balls; ``l1_radius`` bounds ``l1``).
    Otherwise the family's specialisation first (the founding model's structured
    eigenvectors and closed forms), else the projection formula on the full drift
    (:func:`model_normal_form`: ``theta_c`` from :func:`~symdelay.analysis.critical.critical`,
    ``c1`` and ``r'`` from :class:`FirstLyapunov` there).

    Parameters
    ----------
    model : Model
        The model with ``theta`` free and a number for every other parameter; it must have a
        Hopf point in ``theta`` (refused when it is stable for every ``theta > 0``).
    dps : int, default 15
        Significant digits (5..10000) of ``theta_c``, ``omega``, ``c1`` and ``l1``; the
        computation carries guard digits beyond them.
    param : str, default "theta"
        The bifurcation parameter ``p`` (free in the model, every other parameter a
        number): the Hopf point ``p_c`` in it and the amplitude law
        ``A ~ c sqrt(|p - p_c|)`` on the side ``amplitude_side``; ``r'`` is ``dr/dp`` (the
        derivative of the Jacobian in ``p`` along the equilibrium, projected). Another
        parameter than ``theta`` runs the generic path.
    method : {"auto", "generic", "specialised"}, default "auto"
        %(method)s
    lo, hi : str or number, optional
        A range of ``param`` (both or neither; exact, decimal text read exactly): the
        equilibrium of a transition table without lags is followed numerically over it
        (every real zero enumerated at ``lo``), the Hopf points on it located and proved
        (Krawczyk), and the normal form given at the first, ``l1`` bounded by Arb balls over
        the proved box (``l1_radius``), the others listed in ``hopf_points``
        (:func:`symdelay.analysis.hopf_numeric.range_normal_form_fields`). The path for a
        model whose equilibrium has no closed form in ``param``; with a closed form it
        restricts the search to the range the same way (the closed form's own path, without
        a range, gives the first crossing from stability instead). Refused for a model with
        lags and with ``method="specialised"``.

    Returns
    -------
    NormalForm
        ``theta_c`` and the frequency ``omega``, ``c1``, ``l1`` (normalised by the imbalance
        ``x``; negative: supercritical), the amplitude coefficient ``c`` of
        ``A(theta) ~ c sqrt(theta - theta_c)``, the frequency slope and the family's closed
        forms.

    Examples
    --------
    >>> from symdelay.models import build_model
    >>> nf = normal_form(build_model("erlang", L=2, mu=1, lam=1, D=1))
    >>> nf.theta_c, nf.l1 < 0
    (mpf('9.0'), True)
    """
    from symdelay.model.core import has_lags

    if (lo is None) != (hi is None):
        raise SymdelayInputError("normal_form: give both lo and hi of the range, or neither")
    if lo is not None:
        return _range_normal_form(model, dps, param, method, lo, hi)
    if has_lags(model):
        if method == "specialised":
            raise SymdelayInputError(
                "a model with lags has no specialised normal form: use method='generic'"
            )
        from symdelay.analysis.dnormal import delay_normal_form_fields

        return NormalForm(**delay_normal_form_fields(model, dps=dps, param=param))
    if param != "theta":
        if method == "specialised":
            raise SymdelayInputError(
                f"the specialised normal form is in theta only: use method='generic' for {param}"
            )
        return model_normal_form(model, dps=dps, param=param)
    result = specialised(model, "normal_form", method, dps=dps)
    if result is None:
        result = model_normal_form(model, dps=dps)
    return _with_closed_forms(model, result)


def _range_normal_form(model, dps, param, method, lo, hi) -> NormalForm:
    """:func:`normal_form` over the range ``[lo, hi]`` of ``param``: the Hopf points of the
    equilibrium followed numerically (see the entry's ``lo, hi``)."""
    from symdelay.analysis.hopf_numeric import range_normal_form_fields
    from symdelay.core.exact import exact_number
    from symdelay.model.core import has_lags

    a, b = exact_number("lo", str(lo)), exact_number("hi", str(hi))
    if not a < b:
        raise SymdelayInputError(f"the range of {param} needs lo < hi, got [{lo}, {hi}]")
    if has_lags(model):
        raise SymdelayInputError(
            f"a range of {param} follows a transition table's equilibrium numerically; "
            f"{model.name} has lags: leave the range out (the first Hopf point in {param})"
        )
    if method == "specialised":
        raise SymdelayInputError(
            "the normal form over a range has no specialised path: use method='generic'"
        )
    return NormalForm(**range_normal_form_fields(model, param, lo, hi, dps=dps))


def _with_closed_forms(model, result: NormalForm) -> NormalForm:
    """The family's closed forms of ``l1`` and the amplitude, whichever path computed."""
    import dataclasses

    from symdelay.analysis.entry import closed_forms

    found = closed_forms(model, "normal_form")
    if found is None:
        return result
    return dataclasses.replace(result, closed_l1=found[0], closed_amplitude=found[1])


def model_normal_form(model, dps: int = 15, param: str = "theta") -> NormalForm:
    """:class:`NormalForm` of a model with ``param`` free and numbers for the rest (the
    generic path of :func:`normal_form`): the critical point from
    :func:`symdelay.analysis.critical.critical`, ``c1`` and ``r'`` from
    :class:`FirstLyapunov` there (``r' = dr/d param`` along the equilibrium)."""
    from symdelay.analysis.critical import critical
    from symdelay.analysis.stochastic import difference_weights

    dps = as_dps(dps)
    wp = dps + 2 * GUARD
    crit = critical(model, param, dps=dps + GUARD, method="generic")
    if crit.omega is None or not mpmath.isfinite(crit.critical):
        raise SymdelayInputError(
            f"{model.name} has no Hopf point in {param} (stable over its whole range): no cycle"
        )
    if crit.omega == 0:
        raise SymdelayInputError(
            f"{model.name} loses stability through a real root at {param} = "
            f"{mpmath.nstr(crit.critical, 10)}: not a Hopf point"
        )
    weights = difference_weights(model)
    if weights is None:
        raise SymdelayInputError(f"{model.name} declares no symmetry: no imbalance to follow")
    from symdelay.analysis.entry import family_options

    own = family_options(model) or {}
    with mpmath.workdps(wp):
        th_c, w = +crit.critical, +crit.omega
        mult, rp_ift = hopf_multiplicity(model, param, th_c, w, dps)
    # the projection runs at a multiple pair too: its scalars stay out of the record, but
    # the limit-cycle computation starts from its eigenvector and amplitude
    lyap = first_lyapunov(model, (param,), derivative=True)
    with mpmath.workdps(wp):
        hopf = lyap.hopf((th_c,), w)
        c1, rp, q = hopf.c1, hopf.r_prime, hopf.q
        cq = mpmath.fsum(weights[j] * q[j] for j in range(len(q)))
        c1x = c1 / abs(cq) ** 2  # the normalisation q_x = 1 (q -> q / q_x)
        l1 = mpmath.re(c1x) / w
        # rho^2 = -Re r' (p - p_c) / Re c1, A = 2 |q_x| rho: the stable cycles (Re c1 < 0)
        # on the side where the equilibrium is unstable, the unstable ones (Re c1 > 0) on the
        # side where it is stable (``side``)
        amp = (
            2 * abs(cq) * mpmath.sqrt(abs(mpmath.re(rp) / mpmath.re(c1)))
            if mpmath.re(c1) != 0
            else mpmath.nan
        )
        slope = (  # the frequency along the cycles: undefined where Re c1 = 0 (Bautin)
            mpmath.im(rp) - mpmath.im(c1) * mpmath.re(rp) / mpmath.re(c1)
            if mpmath.re(c1) != 0
            else mpmath.nan
        )
        checks = {
            "eigenvector_residual": hopf.residual,
            "quadratic_terms": bool(lyap.H_idx),
            "c1_over_rprime": mpmath.re(c1x / rp),
        }
        equivariant, reason = None, None
        if mult >= 2:
            # the projection's r' takes one eigenvector of a multiple eigenvalue: the
            # crossing speed of the factor (implicit function theorem) is the one defined
            rp = rp_ift
            del checks["c1_over_rprime"]
            equivariant, reason = _equivariant(model, lyap, th_c, w, mult, rp_ift, dps)
            if equivariant is not None:
                checks.update(equivariant.checks)
        else:
            checks["r_prime_projection_minus_factor"] = abs(rp - rp_ift)
    l2 = l2_rad = None
    if mult == 1 and abs(l1) <= mpmath.mpf(10) ** (-(dps // 2)) * (1 + abs(c1x)):
        l2, l2_rad = _table_l2(model, param, th_c, w, weights, dps)
    return NormalForm(
        own.get("L"),
        own.get("mu"),
        own.get("lam"),
        own.get("D"),
        dps,
        th_c,
        w,
        c1x,
        rp,
        l1,
        hopf.l1,
        amp,
        slope,
        None,
        None,
        "Kuznetsov projection formula on the full drift of the model (SymPy derivatives)",
        model.name,
        checks,
        mult,
        patterns=None if equivariant is None else equivariant.patterns,
        param=param,
        equivariant=equivariant,
        patterns_reason=reason,
        l2=l2,
        l2_radius=l2_rad,
    )


def _table_l2(model, param, value, omega, weights, dps):
    """``(l2, radius)`` at a degenerate Hopf point of a table (``l1`` zero to half the
    digits): :func:`symdelay.analysis.dnormal.bautin_l2` in Arb balls of the working
    relative width around ``(value, omega)``; ``(None, None)`` where the equilibrium has no
    closed form (the forms are differentiated along it) or a linear solve is not certified
    over the balls."""
    import flint

    from symdelay.analysis.dnormal import _ball, _mp, _rad, bautin_l2
    from symdelay.core.precision import work_bits

    if not model.equilibrium.exact:
        return None, None
    rel = 10.0 ** (-(dps + GUARD - 2))
    with mpmath.workdps(dps + 2 * GUARD), flint.ctx.workprec(work_bits(dps, 2 * GUARD)):
        try:
            b = bautin_l2(model, param, _ball(value, rel), _ball(omega, rel), weights)
        except ZeroDivisionError:  # a linear solve not certified over the balls
            return None, None
        return mpmath.re(_mp(b)), _rad(b)


def _equivariant(model, lyap, value, omega, mult, r_prime, dps):
    """``(D3Hopf, None)`` at a double Hopf pair made by a declared 3-cycle with a reflection
    (:mod:`symdelay.analysis.equivariant`), else ``(None, reason)``: one line saying why the
    patterns are not given."""
    from symdelay.analysis.equivariant import d3_hopf, find_reflection

    refusal = _patterns_refusal(model, mult)
    if refusal is not None:
        return None, refusal
    kappa = find_reflection(model)
    if kappa is None:
        return None, (
            "the declared 3-cycle has no reflection among the symmetries of the drift "
            "(D_3 needs one): the Z_3 normal form is not built"
        )
    import flint

    from symdelay.core.precision import work_bits

    with flint.ctx.workprec(work_bits(dps, 2 * GUARD)):
        balls = _hopf_balls(model, lyap, value, omega, dps)
        if balls is None:
            return None, (
                "the Hopf point is not proved by a Krawczyk box around the computed one: "
                "the equivariant normal form's signs would not be proved, no patterns given"
            )
        vb, wb = balls
        try:
            tensors = lyap.tensors_arb((vb,))
            found = d3_hopf(tensors, lyap.n, wb, model, kappa, r_prime, dps, fifth=(lyap, vb))
        except ZeroDivisionError:
            return None, (
                "a linear system of the equivariant normal form is not invertible over the "
                "balls of the Hopf point: no patterns given"
            )
    tol = mpmath.mpf(10) ** (-(dps // 2))
    bad = [
        f"{k} = {mpmath.nstr(found.checks[k], 3)}"
        for k in ("d3_equivariance_residual", "crossing_matrix_residual")
        if not found.checks[k] <= tol
    ]
    if bad:  # pragma: no cover - a symmetry of the drift makes both vanish
        return None, (
            "the computed normal form is not D_3-equivariant to half the working digits ("
            + ", ".join(bad)
            + "): no patterns given"
        )
    return found, None


def _hopf_balls(model, lyap, value, omega, dps):
    """Balls ``(p_c, omega)`` proved (Krawczyk, :func:`symdelay.analysis.dnormal._certify`)
    to hold the Hopf point of the factor of the characteristic polynomial that vanishes at
    ``r = i omega`` near the computed ``(value, omega)``, or None where no box passes."""
    from symdelay.analysis.dnormal import _certify
    from symdelay.analysis.window import _resolve
    from symdelay.core.symbols import r as R

    sym, rp = _resolve(model, str(lyap._syms[0]))
    subs = {} if rp is None else {rp.base: rp.L / sym}
    iw = mpmath.mpc(0, omega)
    best = None
    for fac in model.factors:
        e = sp.sympify(fac.factor).xreplace(model.values).xreplace(subs)
        if e.free_symbols - {sym, R}:
            continue
        f = sp.lambdify((sym, R), e, "mpmath")
        size = abs(f(value, iw))
        if best is None or size < best[0]:
            best = (size, e)
    if best is None:
        return None
    return _certify(best[1], R, sym, value, omega, 10.0 ** (-(dps + GUARD - 2)))


def _patterns_refusal(model, mult) -> str | None:
    """Why the equivariant normal form is not built for this double point (one line), or
    None where it is (multiplicity 2 under a declared symmetry of 3-cycles)."""
    perm = model.permutation
    lengths = set() if perm is None else {len(c) for c in _perm_cycles(perm)}
    if mult == 2 and lengths == {3}:
        return None
    k = max(lengths) if lengths else None
    what = (
        f"the symmetry of {k} servers (S_{k} on a {k - 1}-dimensional eigenspace)"
        if k and k >= 4
        else "this symmetry"
    )
    return (
        f"the imaginary pair has multiplicity {mult} under {what}: the equivariant normal "
        "form is built for three symmetric servers only (D_3, multiplicity 2)"
    )


def _perm_cycles(perm) -> list:
    from symdelay.analysis.equivariant import _cycles

    return _cycles(perm)


def hopf_multiplicity(model, name, value, omega, dps):
    """``(multiplicity, r')`` of the imaginary pair ``+- i omega`` at ``name = value``: the
    sum of the multiplicities of the factors of the characteristic polynomial
    (:attr:`Model.factors`, equal factors of symmetric modes merged) that vanish at
    ``r = i omega`` (to ``dps // 2`` digits, relative to the size of their terms), and the
    crossing speed ``dr/d name = -(df/d name) / (df/dr)`` of the (first) such factor by the
    implicit function theorem, in mpmath at the working precision in force."""
    from symdelay.analysis.window import _resolve
    from symdelay.core.symbols import r as R

    sym, rp = _resolve(model, name)
    subs = {} if rp is None else {rp.base: rp.L / sym}  # D of an Erlang chain: gamma = L/D
    iw = mpmath.mpc(0, omega)
    tol = mpmath.mpf(10) ** (-(dps // 2))
    mult, speed = 0, None
    for fac in model.factors:
        e = sp.sympify(fac.factor).xreplace(model.values).xreplace(subs)
        if e.free_symbols - {sym, R}:
            raise SymdelayInputError(
                "the normal form needs numbers for "
                + ", ".join(sorted(map(str, e.free_symbols - {sym, R})))
            )
        poly = sp.Poly(sp.expand(e), R)
        coeffs = [sp.lambdify(sym, c, "mpmath") for c in poly.all_coeffs()]
        cs = [mpmath.mpmathify(c(value)) for c in coeffs]
        val = mpmath.polyval(cs, iw)
        size = mpmath.fsum(abs(c) * abs(omega) ** k for k, c in enumerate(reversed(cs)))
        if abs(val) > tol * (1 + size):
            continue
        mult += int(fac.multiplicity)
        if speed is None:
            fr = mpmath.polyval(_dpoly(cs), iw)
            ft = sp.lambdify((sym, R), sp.diff(e, sym), "mpmath")(value, iw)
            speed = -ft / fr
    if mult == 0:
        raise SymdelayInputError(  # pragma: no cover - critical() found this crossing
            f"no factor of {model.name} vanishes at r = i*{mpmath.nstr(omega, 10)}"
        )
    return mult, speed


def _dpoly(cs):
    """Coefficients (highest first) of the derivative of the polynomial ``cs``."""
    n = len(cs) - 1
    return [c * (n - k) for k, c in enumerate(cs[:-1])] or [mpmath.mpf(0)]


# ------------------------------------------------------------------------------ l1
def first_lyapunov(model, names, *, derivative: bool = False) -> FirstLyapunov:
    """The model's :class:`FirstLyapunov` in the parameters ``names``, cached on the model."""
    key = f"first lyapunov {' '.join(names)}{' d' if derivative else ''}"
    return model.cached(key, lambda: FirstLyapunov(model, names, derivative=derivative))


class FirstLyapunov:
    """The first Lyapunov coefficient ``l1`` of a model at its Hopf points, as a function of
    the parameters ``names`` (every other one a number): the one computation of ``l1`` that
    :func:`normal_form`, :func:`symdelay.analysis.stability_map.stability_map` (its
    Bautin points) and the explorer read.

    The drift's Jacobian, second and third derivatives at the equilibrium (in closed form)
    are SymPy expressions in ``names``, evaluated in mpmath (:meth:`hopf`, ``__call__``), in
    doubles (:meth:`fast`, the scan along a curve) or in Arb (:meth:`arb`, the proofs);
    each evaluation finds the critical eigenvectors in its number type and applies
    Kuznetsov's formula, :func:`symdelay.analysis.projection.c1_coefficient`.
    ``derivative``: ``dA/d names[0]`` too, for ``r'`` (:meth:`hopf`)."""

    def __init__(self, model, names, *, derivative: bool = False):
        from symdelay.analysis.window import _resolve

        eq = model.equilibrium
        if not eq.exact:
            raise SymdelayInputError("the equilibrium has no closed form")
        subs = {}
        syms = []
        for name in names:
            sym, rp = _resolve(model, name)
            syms.append(sym)
            if rp is not None:
                subs[rp.base] = rp.L / sym
        states = model.states
        n = len(states)
        point = dict(eq.point)

        def at(e):
            e = sp.sympify(e).xreplace(point)
            return e.xreplace(subs) if subs else e

        entries, self.A_idx, self.H_idx, self.T_idx, self.dA_idx = [], [], [], [], []
        J = model.drift_jacobian
        for i in range(n):
            for j in range(n):
                e = at(J[i, j])
                if e != 0:
                    self.A_idx.append((i, j))
                    entries.append(e)
        # the entries in the order _tensors reads them: A, every H, every T, then dA
        second, third, dA = [], [], []
        for i, F in enumerate(model.drift):
            deps = [k for k, st in enumerate(states) if F.has(st)]
            for a, b in itertools.combinations_with_replacement(deps, 2):
                d2 = sp.diff(F, states[a], states[b])
                if d2 == 0:
                    continue
                e = at(d2)
                if e != 0:
                    self.H_idx.append((i, a, b))
                    second.append(e)
                for c in deps:
                    if c < b:
                        continue
                    d3 = sp.diff(d2, states[c])
                    if d3 == 0:
                        continue
                    e3 = at(d3)
                    if e3 != 0:
                        self.T_idx.append((i, a, b, c))
                        third.append(e3)
        if derivative:
            for (i, j), e in zip(self.A_idx, entries[: len(self.A_idx)]):
                d = sp.diff(e, syms[0])
                if d != 0:
                    self.dA_idx.append((i, j))
                    dA.append(d)
        entries += second + third + dA
        free = set().union(*(e.free_symbols for e in entries)) - set(syms)
        if free:
            raise SymdelayInputError(
                "the normal form needs numbers for " + ", ".join(sorted(map(str, free)))
            )
        self.n = n
        self._entries, self._syms = entries, syms
        self._f_mp = self._f_np = self._f_arb = self._keys = None

    # -------------------------------------------------------------- the tensors
    def _tensors(self, vals):
        """``(A, H, T3, dA)`` dicts from the evaluated entries (second and third derivatives
        filled over every order of the indices)."""
        if self._keys is None:
            k = len(self.A_idx)
            H = [((i, u, w), k + m) for m, (i, a, b) in enumerate(self.H_idx)
                 for u, w in {(a, b), (b, a)}]  # fmt: skip
            k += len(self.H_idx)
            T = [((i, *perm), k + m) for m, (i, a, b, c) in enumerate(self.T_idx)
                 for perm in set(itertools.permutations((a, b, c)))]  # fmt: skip
            k += len(self.T_idx)
            self._keys = (H, T, k)
        H, T, k = self._keys
        nA = len(self.A_idx)
        return (
            dict(zip(self.A_idx, vals[:nA])),
            {key: vals[m] for key, m in H},
            {key: vals[m] for key, m in T},
            dict(zip(self.dA_idx, vals[k:])),
        )

    # -------------------------------------------------------------- mpmath
    def tensors(self, values):
        """``(A, H, T3, dA)`` dicts at ``values`` in mpmath at the working precision in force
        (the equivariant normal form reads them)."""
        if self._f_mp is None:
            self._f_mp = sp.lambdify(self._syms, self._entries, "mpmath")
        return self._tensors(self._f_mp(*values))

    def tensors_arb(self, values):
        """``(A, H, T3, dA)`` dicts of Arb balls at the balls ``values`` (call inside the Arb
        precision wanted; the equivariant normal form's proofs read them)."""
        from symdelay.model.arb_eval import arb_evaluator

        if self._f_arb is None:
            self._f_arb = arb_evaluator(self._entries, self._syms, cse=True)
        return self._tensors(self._f_arb(list(values)))

    def hopf(self, values, w) -> HopfCoefficients:
        """``c1``, ``r'`` (with ``derivative``), ``q`` and ``l1`` at the Hopf point
        ``values``, frequency ``w``, in mpmath at the working precision in force."""
        from symdelay.analysis.projection import c1_coefficient, eigenvectors

        if self._f_mp is None:
            self._f_mp = sp.lambdify(self._syms, self._entries, "mpmath")
        n = self.n
        Aent, H, T3, dA = self._tensors(self._f_mp(*values))
        A = mpmath.matrix(n, n)
        for (i, j), v in Aent.items():
            A[i, j] = v
        eig = eigenvectors(A, w, pin=None)
        q = [eig.q[i] for i in range(n)]
        pc = [mpmath.conj(eig.p[i]) for i in range(n)]

        def solve(k, b):
            M = A - mpmath.mpc(0, k * w) * mpmath.eye(n)
            x = mpmath.lu_solve(M, mpmath.matrix(b))
            return [x[i] for i in range(n)]

        c1 = c1_coefficient(q, pc, H, T3, solve)
        rp = None
        if self.dA_idx:
            Aq = [mpmath.mpf(0)] * n
            for (i, j), v in dA.items():
                Aq[i] += v * q[j]
            rp = mpmath.fsum(pc[i] * Aq[i] for i in range(n))
        norm2 = mpmath.fsum(abs(v) ** 2 for v in q)
        residual = mpmath.mnorm(A * eig.q - mpmath.mpc(0, w) * eig.q, 1)
        return HopfCoefficients(c1, rp, eig.q, mpmath.re(c1) / norm2 / w, residual)

    def __call__(self, *args):
        """``l1`` (``<q, q> = 1``) at ``(*values, omega)``, in mpmath."""
        return self.hopf(args[:-1], args[-1]).l1

    # -------------------------------------------------------------- doubles
    def fast(self, *args) -> float:
        """``l1`` (``<q, q> = 1``) at ``(*values, omega)`` in double precision (numpy): the
        scan along a curve."""
        from symdelay.analysis.projection import c1_coefficient

        if self._f_np is None:
            self._f_np = sp.lambdify(self._syms, self._entries, "numpy")
        n, w = self.n, float(args[-1])
        vals = np.asarray(self._f_np(*map(float, args[:-1])), dtype=float).tolist()
        Aent, H, T3, _ = self._tensors(vals)
        A = np.zeros((n, n))
        for (i, j), v in Aent.items():
            A[i, j] = v
        ev, V = np.linalg.eig(A)
        q = V[:, np.argmin(np.abs(ev - 1j * w))]
        evl, U = np.linalg.eig(A.T)
        p = U[:, np.argmin(np.abs(evl + 1j * w))]
        q = q / np.linalg.norm(q)
        p = p / np.conj(np.vdot(p, q))  # conj(p)^T q = 1

        def solve(k, b):
            return list(np.linalg.solve(A - k * 1j * w * np.eye(n), np.asarray(b, complex)))

        c1 = c1_coefficient(list(q), list(np.conj(p)), H, T3, solve)
        return float(complex(c1).real) / w

    # -------------------------------------------------------------- Arb
    def arb(self, *args):
        """An Arb ball containing ``Re c1`` (``c1`` with the critical eigenvector scaled so
        that one component is 1: a positive multiple of the unit-norm ``c1``, so the same
        sign as ``l1``) for every point of the balls ``(*values, omega)`` that is a Hopf
        point, or None where a linear solve cannot be certified over them (then ``l1`` is
        not proved well defined there)."""
        import flint

        from symdelay.analysis.projection import c1_coefficient
        from symdelay.model.arb_eval import arb_evaluator

        if self._f_arb is None:
            self._f_arb = arb_evaluator(self._entries, self._syms, cse=True)
        n, w = self.n, args[-1]
        vals = self._f_arb(list(args[:-1]))
        # the index of the largest component of the eigenvector, the row to drop (largest
        # component of the left eigenvector), from doubles
        mids = [float(v.mid()) for v in vals]
        A0 = np.zeros((n, n))
        for k, (i, j) in enumerate(self.A_idx):
            A0[i, j] = mids[k]
        wf = float(w.mid())
        ev, V = np.linalg.eig(A0)
        col = int(np.argmin(np.abs(ev - 1j * wf)))
        piv = int(np.argmax(np.abs(V[:, col])))
        evl, U = np.linalg.eig(A0.T)
        drop = int(np.argmax(np.abs(U[:, int(np.argmin(np.abs(evl + 1j * wf)))])))
        A = [[flint.acb(0)] * n for _ in range(n)]
        Aent, H, T3, _ = self._tensors(vals)
        for (i, j), v in Aent.items():
            A[i][j] = flint.acb(v)
        iw = flint.acb(0, w)
        try:
            # q: (A - i w) q = 0 with q[piv] = 1, the row `drop` left out (implied at a
            # Hopf point, the left eigenvector's component there being the largest)
            rows = [r for r in range(n) if r != drop]
            cols = [c for c in range(n) if c != piv]
            M = flint.acb_mat(
                n - 1, n - 1, [A[r][c] - (iw if r == c else 0) for r in rows for c in cols]
            )
            rhs = flint.acb_mat(n - 1, 1, [-(A[r][piv] - (iw if r == piv else 0)) for r in rows])
            sol = M.solve(rhs)
            q = [flint.acb(1)] * n
            for t, c in enumerate(cols):
                q[c] = sol[t, 0]
            # conj(p): the left eigenvector, conj(p)^T (A - i w) = 0, component `drop` = 1
            # (solved from the transposed system without the column `piv`)
            Mt = flint.acb_mat(
                n - 1, n - 1, [A[r][c] - (iw if r == c else 0) for c in cols for r in rows]
            )
            rt = flint.acb_mat(n - 1, 1, [-(A[drop][c] - (iw if c == drop else 0)) for c in cols])
            solt = Mt.solve(rt)
            pc = [flint.acb(1)] * n  # conj(p), unnormalised
            for t, r in enumerate(rows):
                pc[r] = solt[t, 0]
            scale = sum((pc[i] * q[i] for i in range(n)), flint.acb(0))
            pc = [v / scale for v in pc]

            def solve(k, b):
                M = flint.acb_mat(
                    n, n, [A[i][j] - (k * iw if i == j else 0) for i in range(n) for j in range(n)]
                )
                x = M.solve(flint.acb_mat(n, 1, b))
                return [x[i, 0] for i in range(n)]

            c1 = c1_coefficient(q, pc, H, T3, solve)
        except ZeroDivisionError:
            return None
        # |q|^2 > 0 and w > 0 scale l1 by a positive factor: the sign of Re c1 is l1's
        return c1.real
