"""Report section: action versus information delay, side by side.

The founding model's Erlang(L) action delay (a few ``L``), the constant action delay
(``examples/models/constant_action_delay.toml``) and the constant information lag
(``examples/models/information_delay.toml``) at ``mu = lam = D = 1``: their characteristic
functions and critical ``theta``, their fluid paths from one initial state (the action
delays' pipeline empty at ``t = 0``), the amplitude of the oscillation beyond ``theta_c``
and the linear-noise spectra below it.

:func:`results` computes every record once (the entries ``critical``, ``fluid``,
``spectrum`` and ``variance``; the founding ``theta_c`` from
:mod:`symdelay.outputs.sections._shared`), :func:`build` writes the text, the table and the
two figures from it: every number printed is read from those records, and every statement
that compares two of them is decided on the numbers (a test checks the printed numbers
against the records). The identities that must hold whatever the numbers (the founding
difference factor is ``(r + gamma)^L chi_L``, the constant lags' ``theta_c`` is the closed
form's, the two constant lags' paths coincide with the same history) raise a
:class:`~symdelay.core.errors.VerificationError` when they fail.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass

from symdelay.core.errors import VerificationError
from symdelay.core.latex import tex
from symdelay.core.lazy import sympy as sp
from symdelay.outputs.report import Section, table_tex

__all__ = [
    "ORDER",
    "TITLE",
    "build",
    "results",
    "Results",
    "findings",
    "Findings",
    "Budget",
    "amplitudes",
    "half_swing",
    "above",
    "founding_difference",
    "critical_delay",
    "closed_theta_c",
    "RATES",
    "START",
    "THETA_CYCLE",
    "THETA_NOISE",
    "FULL",
    "QUICK",
    "INFO",
    "ACTION",
    "erlang_label",
    "table_rows",
]

ORDER = 65
TITLE = "Action versus information delay"

#: The rates of every computation here.
RATES = {"mu": 1, "lam": 1, "D": 1}
#: ``(q1, q2)`` at ``t = 0`` for every model (the founding model's delay phases empty).
START = (1.5, 0.5)
#: theta of the fluid paths: beyond the constant lags' theta_c and the founding model's at
#: L >= 4, below it at L = 2.
THETA_CYCLE = 6
#: theta of the spectra: below every theta_c (exact: the models are built at this value).
THETA_NOISE = "3/2"
#: Tolerances of the fluid paths (well below the sampling error of the amplitudes on the
#: output grid, which the text bounds and which decides the decimals printed).
RTOL, ATOL = 1e-8, 1e-10
#: Largest difference of two paths of one delay equation, each solved to RTOL (the
#: integration error, grown along the unstable directions): beyond it, a bug.
SAME_PATH = 1e-4
#: Digits of the constant lags' critical theta (compared with the closed form to DIGITS).
DIGITS = 12

INFO = "constant information lag"
ACTION = "constant action delay"


def erlang_label(L) -> str:
    """The label of the founding model with ``L`` phases (legend, table)."""
    return f"Erlang, $L = {L}$"


@dataclass(frozen=True)
class Budget:
    """How much to compute: the founding model's ``L``, the horizon of the fluid paths and
    the two windows of the amplitude, their output step, the horizon of the held-history
    comparison and of the transient panel, and the frequencies of the spectra."""

    Ls: tuple
    T: float
    windows: tuple
    dt: float
    held_T: float
    n_omega: int
    omega_max: float = 5.0


FULL = Budget(Ls=(2, 4, 8), T=30, windows=((14, 22), (22, 30)), dt=0.01, held_T=8, n_omega=201)
QUICK = Budget(Ls=(2, 4), T=20, windows=((10, 15), (15, 20)), dt=0.05, held_T=4, n_omega=61)


@dataclass(frozen=True)
class Results:
    """Every record the section prints (labels as in the table: the founding model's
    :func:`erlang_label`, then :data:`ACTION`, :data:`INFO`)."""

    budget: Budget
    factors: dict  # INFO / ACTION -> {mode: characteristic function}
    in_transit: dict  # the action delay's mass in transit at equilibrium, per transition
    founding: object  # the founding difference factor, symbolic L
    chi: object  # founding / (r + gamma)^L with gamma = L/D
    theta_c: dict  # label -> critical theta (mpf for the lags, float for the founding)
    theta_c_closed: object  # the closed form's root (mpf)
    critical_delay: object  # D_c(mu, lam, theta), canonical symbols
    paths: dict  # label -> TimeSeries at THETA_CYCLE from START, T = budget.T
    held: object  # the action delay with the held history, T = budget.held_T
    spectra: dict  # label -> Spectrum at THETA_NOISE
    variance: object  # the information lag's StationaryVariance (certified integral)

    @property
    def labels(self) -> list:
        return [erlang_label(L) for L in self.budget.Ls] + [ACTION, INFO]


# ----------------------------------------------------------------------------- models
def _values(**extra) -> dict:
    return {**RATES, **extra}


def _lag_model(stem: str, **values):
    from symdelay.outputs.documents.delays import example_model

    return example_model(stem, **values)


def _erlang(L, **values):
    from symdelay.models import build_model

    return build_model("erlang", L=L, **values)


def _modes(model) -> dict:
    out = {}
    for f in model.characteristic_factors:
        out.setdefault(f.mode, f.factor)
    return out


# ------------------------------------------------------------------------ computations
def founding_difference():
    """The founding model's difference factor for symbolic ``L``
    (:func:`symdelay.models.erlang.charpoly.characteristic_polynomial`, derived) and
    ``chi_L = F_L / (r + gamma)^L`` with ``gamma = L/D``, checked exactly."""
    from symdelay.core.symbols import D, L, gamma, lam, mu, r, theta
    from symdelay.models.erlang.charpoly import characteristic_polynomial

    F = characteristic_polynomial(L)
    chi = r + mu + lam * theta * gamma**L * (r + gamma) ** (-L)
    if sp.expand(F - sp.expand(chi * (r + gamma) ** L)) != 0:
        raise VerificationError(f"the founding difference factor {F} is not (r+gamma)^L chi_L")
    chi_D = r + mu + lam * theta * (1 + r * D / L) ** (-L)
    at = {L: 3, D: sp.Rational(1, 2), r: sp.Rational(1, 3), mu: 2, lam: 5, theta: 7}
    if chi.subs(gamma, L / D).xreplace(at) != chi_D.xreplace(at):
        raise VerificationError("chi_L with gamma = L/D is not r + mu + lam theta (1 + rD/L)^-L")
    return F, chi_D


def critical_delay(info):
    """``D_c(mu, lam, theta)`` of the constant lags, from the information lag's difference
    mode crossing the imaginary axis
    (:func:`symdelay.outputs.documents.delays.crossing_conditions`), in positive symbols,
    and the map to them from the canonical ones."""
    from symdelay.core.symbols import D, lam, mu, positive_versions, theta
    from symdelay.outputs.documents.delays import crossing_conditions

    pos = positive_versions(mu, lam, theta, D)
    F = _modes(info)["difference"]
    W, c, s, w = crossing_conditions(F.xreplace(pos), pos[D])
    if not s.is_positive:
        raise VerificationError("sin(omega D) of the information lag is not positive")
    omega = sp.sqrt(W)
    return sp.acos(c.subs(w, omega)) / omega, pos


def closed_theta_c(Dc, pos):
    """The root in theta of ``D_c(mu, lam, theta) = D`` at :data:`RATES`: ``D_c`` falls from
    infinity at ``lam theta = mu``; a bracket, then Anderson's method at ``DIGITS + 10``
    digits."""
    import mpmath

    from symdelay.core.symbols import lam, mu, theta

    at = {pos[mu]: RATES["mu"], pos[lam]: RATES["lam"]}
    f = sp.lambdify(pos[theta], Dc.xreplace(at), "mpmath")
    with mpmath.workdps(DIGITS + 10):
        lo = mpmath.mpf(RATES["mu"]) / RATES["lam"] * (1 + mpmath.mpf(10) ** -6)
        hi = 2 * lo
        while f(hi) > RATES["D"]:
            hi *= 2
        return mpmath.findroot(lambda t: f(t) - RATES["D"], (lo, hi), solver="anderson")


def _fluid(model, budget: Budget, T=None, **kw):
    from symdelay.analysis.fluid import fluid

    return fluid(model, T=T or budget.T, dt=budget.dt, rtol=RTOL, atol=ATOL, **kw)


@functools.cache
def results(quick: bool = False) -> Results:
    """Every record of the section (computed once per process and budget)."""
    import mpmath
    import numpy as np

    from symdelay.analysis.critical import critical
    from symdelay.analysis.spectrum import DELAY_SPECTRUM_DPS, spectrum
    from symdelay.analysis.stochastic import variance
    from symdelay.outputs.sections._shared import founding_theta_c

    budget = QUICK if quick else FULL
    info, action = _lag_model("information_delay"), _lag_model("constant_action_delay")
    factors = {INFO: _modes(info), ACTION: _modes(action)}
    founding, chi = founding_difference()

    theta_c = {erlang_label(L): founding_theta_c(L, **RATES) for L in budget.Ls}
    for label, m in ((ACTION, action), (INFO, info)):
        point = critical(m.with_values(**RATES), "theta", dps=DIGITS + 3).points[0]
        theta_c[label] = point.critical
    Dc, pos = critical_delay(info)
    closed = closed_theta_c(Dc, pos)
    with mpmath.workdps(DIGITS + 10):
        for label in (ACTION, INFO):
            if abs(theta_c[label] - closed) > mpmath.mpf(10) ** -DIGITS * closed:
                raise VerificationError(f"theta_c of the {label}: {theta_c[label]} != {closed}")

    cyc = _values(theta=THETA_CYCLE)
    paths = {
        erlang_label(L): _fluid(_erlang(L, **cyc), budget, initial=[*START] + [0] * (2 * L))
        for L in budget.Ls
    }
    act_cyc = action.with_values(**cyc)
    paths[ACTION] = _fluid(act_cyc, budget, initial=list(START), history="empty")
    paths[INFO] = _fluid(info.with_values(**cyc), budget, initial=list(START))
    held = _fluid(act_cyc, budget, T=budget.held_T, initial=list(START))

    noise = _values(theta=sp.Rational(THETA_NOISE))
    omegas = np.linspace(0.0, budget.omega_max, budget.n_omega)
    spectra = {erlang_label(L): spectrum(_erlang(L, **noise), omegas=omegas) for L in budget.Ls}
    noisy = {ACTION: action.with_values(**noise), INFO: info.with_values(**noise)}
    for label, m in noisy.items():
        spectra[label] = spectrum(m, omegas=omegas)
    # the record the spectrum's variance came from (cached on the model): its error bound
    var = variance(noisy[INFO], dps=DELAY_SPECTRUM_DPS, closed_form=False)
    back = {v: k for k, v in pos.items()}
    return Results(
        budget, factors, action.in_transit(), founding, chi, theta_c, closed,
        Dc.xreplace(back), paths, held, spectra, var,
    )  # fmt: skip


# ------------------------------------------------------------------------ read-outs
def _x(ts):
    return ts["q1"] - ts["q2"]


def half_swing(ts, window) -> tuple[float, float]:
    """Half the peak-to-peak of ``q1 - q2`` on the grid points of ``window`` and a bound of
    its sampling error: a smooth path's maximum between two grid points exceeds the larger
    of them by at most ``h^2 max|x''| / 8``, and ``h^2 x''`` is the second difference."""
    import numpy as np

    t, x = ts.t, _x(ts)
    a, b = window
    xs = x[(t >= a - 1e-9) & (t <= b + 1e-9)]
    return float(xs.max() - xs.min()) / 2, float(np.max(np.abs(np.diff(xs, 2)))) / 8


def amplitudes(res: Results) -> dict:
    """``{label: (A on the first window, A on the second, sampling bound)}``."""
    w1, w2 = res.budget.windows
    out = {}
    for label, ts in res.paths.items():
        a1, e1 = half_swing(ts, w1)
        a2, e2 = half_swing(ts, w2)
        out[label] = (a1, a2, max(e1, e2))
    return out


def above(res: Results, label) -> bool:
    """Is ``THETA_CYCLE`` beyond the model's critical theta?"""
    return float(res.theta_c[label]) < THETA_CYCLE


def _increasing(values) -> bool:
    return all(a < b for a, b in itertools.pairwise(values))


@dataclass(frozen=True)
class Findings:
    """What the numbers say, decided once (the text and the summary read it)."""

    same_factors: bool  # the constant lags' characteristic functions are equal
    same_theta_c: bool  # and so their critical theta (to DIGITS)
    theta_c_falls: bool  # the founding theta_c decreases with L towards the lags'
    held_gap: float  # action (held history) vs information lag, max |x| difference
    empty_gap: float  # action (empty pipeline) vs information lag on [0, held_T]
    drain_gap: float  # empty pipeline: q1 + q2 against 2 exp(-mu t) on [0, D]
    settle: float  # largest change of A between the two windows (models above theta_c)
    sampling: float  # largest sampling bound of A (models above theta_c)
    decimals: int  # decimals of A that the two bounds allow
    same_amplitude: bool  # the constant lags' A agree within the two bounds
    amplitude_gap: float  # |A(action) - A(information)|
    amplitude_grows: bool  # the founding A grows with L and stays below the lags'
    spectrum_gap: float  # largest relative difference of the constant lags' S
    same_spectrum: bool
    variance_rises: bool  # the founding Var grows with L and stays below the lags'
    km: tuple  # Kuechler-Mensch: (formula, omega_0 expression, value, sigma^2, inside)


def _decimals(bound: float) -> int:
    """Decimals whose half unit the error ``bound`` does not exceed (1 to 4)."""
    import math

    if not bound > 0:
        return 4
    return max(1, min(4, math.floor(-math.log10(2 * bound))))


def _km_variance(res: Results):
    """Kuechler and Mensch's stationary variance of ``dx = -(a x(t) + b x(t - D)) dt +
    sigma dW`` (``b > a``), with ``a = mu``, ``b = lam theta`` and ``sigma^2 = c^T B c`` read
    from the variance record: ``(formula, omega_0, value, sigma^2, inside the bound)``."""
    a, b, sigma, Dl, w0 = sp.symbols("a b sigma D omega_0", positive=True)
    formula = sigma**2 / 2 * (1 + b / w0 * sp.sin(w0 * Dl)) / (a + b * sp.cos(w0 * Dl))
    omega0 = sp.sqrt(b**2 - a**2)
    v = res.variance
    c = sp.Matrix(v.weights)
    sigma2 = (c.T * sp.Matrix(v.B) * c)[0, 0]
    at = {a: RATES["mu"], b: RATES["lam"] * sp.Rational(THETA_NOISE), Dl: RATES["D"]}
    if not at[b] > at[a]:
        raise VerificationError("the closed form is written for lam*theta > mu")
    value = float(sp.N(formula.subs(w0, omega0).subs(sigma, sp.sqrt(sigma2)).xreplace(at), 20))
    inside = abs(float(v.value) - value) <= float(v.error_bound) + 1e-15 * value
    return formula, omega0, value, sigma2, inside


def findings(res: Results) -> Findings:
    """Every comparison the text states, decided on the records."""
    import mpmath
    import numpy as np

    b = res.budget
    fi, fa = res.factors[INFO], res.factors[ACTION]
    same_factors = set(fi) == set(fa) and all(sp.expand(fi[m] - fa[m]) == 0 for m in fi)
    lags = [res.theta_c[ACTION], res.theta_c[INFO]]
    with mpmath.workdps(DIGITS + 10):
        same_theta_c = abs(lags[0] - lags[1]) <= mpmath.mpf(10) ** -DIGITS * lags[0]
    erl_c = [float(res.theta_c[erlang_label(L)]) for L in b.Ls]
    theta_c_falls = len(erl_c) > 1 and _increasing(erl_c[::-1]) and erl_c[-1] > float(max(lags))

    info, act, held = res.paths[INFO], res.paths[ACTION], res.held
    n = len(held.t)
    if not np.allclose(held.t, info.t[:n]):
        raise VerificationError("the held-history path is not on the information lag's grid")
    held_gap = float(np.max(np.abs(_x(held) - _x(info)[:n])))
    if held_gap > SAME_PATH:
        raise VerificationError(
            f"with the held history the constant action delay's path is {held_gap:.2e} from "
            "the information lag's (the same delay equation)"
        )
    on = act.t <= b.held_T + 1e-9
    empty_gap = float(np.max(np.abs(_x(act)[on] - _x(info)[on])))
    first = act.t <= RATES["D"] + 1e-9
    drain = 2 * np.exp(-RATES["mu"] * act.t[first])
    drain_gap = float(np.max(np.abs(act["q1"][first] + act["q2"][first] - drain)))

    amp = amplitudes(res)
    up = [k for k in res.labels if above(res, k)]
    settle = max(abs(amp[k][0] - amp[k][1]) for k in up)
    sampling = max(amp[k][2] for k in up)
    gap = abs(amp[ACTION][1] - amp[INFO][1])
    # every L, a decaying oscillation's (small) late amplitude included: two L at least
    erl_a = [amp[erlang_label(L)][1] for L in b.Ls]
    grows = len(erl_a) > 1 and _increasing(erl_a) and erl_a[-1] < min(amp[ACTION][1], amp[INFO][1])

    S_a, S_i = res.spectra[ACTION].S, res.spectra[INFO].S
    spectrum_gap = float(np.max(np.abs(S_a - S_i) / np.abs(S_i)))
    var = [res.spectra[erlang_label(L)].variance for L in b.Ls]
    rises = len(var) > 1 and _increasing(var) and var[-1] < res.spectra[INFO].variance
    return Findings(
        same_factors, bool(same_theta_c), theta_c_falls, held_gap, empty_gap, drain_gap,
        settle, sampling, _decimals(settle + sampling), gap <= 2 * sampling + settle, gap,
        grows, spectrum_gap, spectrum_gap < 1e-9, rises, _km_variance(res),
    )  # fmt: skip


def _sci(v: float, digits: int = 1) -> str:
    """``v`` as ``m \\times 10^{e}`` (LaTeX, in maths)."""
    m, e = f"{v:.{digits - 1}e}".split("e")
    return f"{m} \\times 10^{{{int(e)}}}"


def _fmt_theta_c(v) -> str:
    return f"{float(v):.5f}"


def table_rows(res: Results) -> list:
    """The table's rows as the numbers they print: ``(label, theta_c, A or None when the
    oscillation decays, Var(x)/eta, omega_peak, Q)``."""
    amp = amplitudes(res)
    rows = []
    for label in res.labels:
        s = res.spectra[label]
        a = amp[label][1] if above(res, label) else None
        rows.append(
            (label, float(res.theta_c[label]), a, s.variance, s.peak_frequency, s.quality_factor)
        )
    return rows


# ------------------------------------------------------------------------------ text
def _linearisation_text(res: Results, f: Findings) -> str:
    from symdelay.core.parsing import parse_output

    transit = sorted({tex(parse_output(v)) for v in res.in_transit.values()})
    shown = ",\\qquad ".join(
        f"F_{{\\mathrm{{{m}}}}}(r) = {tex(F)}" for m, F in res.factors[INFO].items()
    )
    lags = [res.theta_c[ACTION], res.theta_c[INFO]]
    return (
        "\\paragraph{One linearisation.} The two constant lags have different fluid "
        f"equations (the action delay keeps ${', '.join(transit)}$ per queue in transit at "
        "equilibrium, the information lag nothing) "
        + (
            "but, mode by mode, the same characteristic functions (equal as SymPy "
            f"expressions):\n\\[ {shown}. \\]\n"
            if f.same_factors
            else "and, computed, different characteristic functions.\n"
        )
        + "The founding model's difference factor, derived for symbolic $L$, is "
        f"$F_L(r) = {tex(res.founding)} = (r + \\gamma)^L \\chi_L(r)$ with "
        f"$\\chi_L(r) = {tex(res.chi)}$ at $\\gamma = L/D$, which tends to the constant lags' "
        "difference factor as $L \\to \\infty$. The critical $\\theta$ (the first crossing, "
        "\\texttt{critical}) is "
        + (
            f"the same for both constant lags, $\\theta_c = {_fmt_theta_c(lags[0])}\\ldots$"
            if f.same_theta_c
            else f"${_fmt_theta_c(lags[0])}$ for the action delay and "
            f"${_fmt_theta_c(lags[1])}$ for the information lag"
        )
        + f", equal to {DIGITS} digits to the root of $D_c = D$, where\n"
        f"\\[ D_c = {tex(res.critical_delay)} \\]\n"
        "is the critical delay of Pender, Rand and Wesson \\cite{PenderRandWesson2017} (see "
        "the section on delays of information). The founding model's (the Hopf solver) "
        + (
            "decreases with $L$ towards it"
            if f.theta_c_falls
            else "does not decrease with $L$ towards it"
        )
        + " (Table~\\ref{tab:action_information}).\n\n"
    )


def _transient_text(res: Results, f: Findings) -> str:
    b = res.budget
    solver = res.paths[INFO].info.get("solver", {})
    return (
        "\\paragraph{Different transients.} Every model starts from "
        f"$q_1 = {START[0]}$, $q_2 = {START[1]}$ at $\\theta = {THETA_CYCLE}$ "
        "(Figure~\\ref{fig:action_information_transients}; fluid paths by "
        f"\\texttt{{fluid}}, the {solver.get('scheme', 'method of steps')} with "
        f"{solver.get('method', 'DOP853')}, relative tolerance ${_sci(RTOL)}$). For the "
        "information lag the history is that state held before $0$ (the dispatcher has seen "
        "it for a while); for the constant action delay the pipeline is empty at $t = 0$ "
        "(nothing routed before $0$), and so are the founding model's delay phases. With the "
        "held history instead (jobs routed on the imbalanced state during $[-D, 0]$ still in "
        "transit) the constant action delay's path is the information lag's: they differ by "
        f"at most ${_sci(max(f.held_gap, 1e-16))}$ on $[0, {b.held_T:g}]$ (the integration "
        "error), for the queues obey the same delay equation (a job joining at $t$ was routed "
        "on $q(t - D)$ in both). With the empty pipeline nothing arrives before $t = D$: the "
        f"total $q_1 + q_2$ follows $2e^{{-\\mu t}}$ on $[0, D]$ (largest deviation "
        f"${_sci(max(f.drain_gap, 1e-16))}$) and the imbalance takes another course, up to "
        f"${f.empty_gap:.2f}$ from the information lag's on $[0, {b.held_T:g}]$.\n\n"
    )


def _amplitude_text(res: Results, f: Findings) -> str:
    amp = amplitudes(res)
    (a1, b1), (a2, b2) = res.budget.windows
    d = f.decimals
    decays = []
    for k in res.labels:
        if above(res, k):
            continue
        x1, x2, _ = amp[k]
        decays.append(
            f"{k.replace('Erlang, ', 'the Erlang model with ')} ($\\theta_c = "
            f"{_fmt_theta_c(res.theta_c[k])}$) the oscillation "
            + ("decays" if x2 < x1 else "does not decay")
            + f": half its peak-to-peak is ${_sci(x1, 2)}$ on $[{a1:g}, {b1:g}]$ and "
            f"${_sci(x2, 2)}$ on $[{a2:g}, {b2:g}]$"
        )
    A_act, A_info = amp[ACTION][1], amp[INFO][1]
    return (
        "\\paragraph{Beyond $\\theta_c$.} The amplitude $A$ is half the peak-to-peak of "
        f"$q_1 - q_2$ on $[{a2:g}, {b2:g}]$ of the same paths (grid step "
        f"${res.budget.dt:g}$, sampling error at most ${_sci(f.sampling)}$ from the second "
        "differences); for every model above its $\\theta_c$ it differs from the same measure "
        f"on $[{a1:g}, {b1:g}]$ by at most ${_sci(max(f.settle, 1e-16))}$: the paths have "
        "settled on their cycles. "
        + (
            f"The two constant lags end on the same oscillation, $A = {A_info:.{d}f}$ (the two "
            f"differ by ${_sci(max(f.amplitude_gap, 1e-16))}$): their queues obey one delay "
            "equation, and the start only shifts its phase. "
            if f.same_amplitude
            else f"The constant lags' amplitudes differ: $A = {A_act:.{d}f}$ for the action "
            f"delay and ${A_info:.{d}f}$ for the information lag. "
        )
        + (
            "The Erlang action delay's amplitude is smaller and grows with $L$ towards theirs"
            if f.amplitude_grows
            else "The Erlang action delay's amplitudes do not grow with $L$ towards theirs"
        )
        + ("; for " + "; for ".join(decays) if decays else "")
        + ".\n\n"
    )


def _spectrum_text(res: Results, f: Findings) -> str:
    formula, omega0, km, sigma2, inside = f.km
    v = res.variance
    n = len(res.spectra[INFO].S)
    return (
        f"\\paragraph{{Below $\\theta_c$: fluctuations.}} At $\\theta = {THETA_NOISE}$ every "
        "model is stable, and the jump process with $\\eta$ jobs per unit fluctuates about "
        "its equilibrium; the linear-noise spectrum of $x = q_1 - q_2$ is "
        "$S(\\omega) = c^{T} G(i\\omega) B\\, G(i\\omega)^{*} c$ with $G = \\Delta^{-1}$ "
        "(\\texttt{spectrum}; Figure~\\ref{fig:action_information_spectra}) and "
        "$\\operatorname{Var}(x)/\\eta$ its integral (\\texttt{variance}: a certified Arb "
        f"integral for the lags, error at most ${_sci(float(v.error_bound))}$; the exact "
        "Lyapunov solve for the founding model's table). "
        + (
            f"The two constant lags give the same spectrum: at each of the {n} frequencies of "
            "the figure they differ by a relative "
            f"${_sci(max(f.spectrum_gap, 1e-17))}$ at most. Both "
            "ingredients are equal: $\\Delta$ (above) and the noise "
            "$B = \\sum_\\nu \\nu\\nu^{T}\\beta_\\nu$ at the equilibrium, for an "
            "action-delayed transition is decided at rate $\\beta_\\nu$ and lands after its "
            "delay, and a Poisson stream displaced by independent delays is again Poisson, so "
            "its landing noise enters with the intensity of an undelayed arrival's. "
            if f.same_spectrum
            else f"The two constant lags' spectra differ by a relative ${_sci(f.spectrum_gap)}$. "
        )
        + "Their variance, the certified "
        f"${float(v.value):.{v.dps}g}$, "
        + ("is" if inside else "is not")
        + " Küchler and Mensch's closed form \\cite{KuchlerMensch1992} for the linear delay "
        "equation "
        "$dx = -(a\\,x(t) + b\\,x(t - D))\\,dt + \\sigma\\,dW$,\n"
        f"\\[ \\operatorname{{Var}} x = {tex(formula)} = {km:.{v.dps}g},\\qquad "
        f"\\omega_0 = {tex(omega0)}, \\]\n"
        f"at $a = \\mu$, $b = \\lambda\\theta$, $\\sigma^2 = c^{{T}} B c = {tex(sigma2)}$"
        + (" (within the error bound). " if inside else " (outside the error bound). ")
        + "The founding model's $\\Delta$ is the Erlang one, and its spectrum another"
        + (
            ": its variance rises with $L$ towards the constant lags'.\n\n"
            if f.variance_rises
            else ".\n\n"
        )
    )


def _summary_text(f: Findings) -> str:
    share = []
    if f.same_factors and f.same_theta_c:
        share.append("the linearisation and $\\theta_c$")
    if f.same_amplitude:
        share.append("the oscillation beyond it")
    if f.same_spectrum:
        share.append("the spectrum below it")
    differ = [
        w
        for w, ok in (
            ("the linearisation", f.same_factors and f.same_theta_c),
            ("the amplitude beyond $\\theta_c$", f.same_amplitude),
            ("the fluctuation spectrum", f.same_spectrum),
        )
        if not ok
    ]
    founding = [
        w
        for w, ok in (
            ("a larger $\\theta_c$", f.theta_c_falls),
            ("a smaller amplitude", f.amplitude_grows),
            ("a lower variance", f.variance_rises),
        )
        if ok
    ]
    text = (
        "\\paragraph{In short.} Action and information delay were expected to share the "
        "linearisation and to differ in the transient, in the amplitude beyond $\\theta_c$ "
        "and in the fluctuation spectrum. Computed, the constant action delay and the "
        "constant information lag "
    )
    if not differ:
        text += (
            f"share {', '.join(share[:-1])} and {share[-1]}, and differ only in the "
            "transient, through what is in the pipeline at $t = 0$. "
        )
    else:
        text += "differ in the transient and in " + " and in ".join(differ) + ". "
    if founding:
        text += (
            "The founding Erlang($L$) action delay differs from both at finite $L$ ("
            + ", ".join(founding)
            + ") and tends to them as $L$ grows."
        )
    return text + "\n\n"


# ---------------------------------------------------------------------------- floats
def _table(res: Results, f: Findings) -> str:
    rows = []
    for label, tc, a, var, wp, q in table_rows(res):
        rows.append(
            [
                label,
                f"${_fmt_theta_c(tc)}$",
                "decays" if a is None else f"${a:.{f.decimals}f}$",
                f"${var:.5f}$",
                f"${wp:.3f}$",
                f"${q:.3f}$",
            ]
        )
    a2, b2 = res.budget.windows[1]
    return table_tex(
        [
            "model",
            "$\\theta_c$",
            f"$A$, $\\theta = {THETA_CYCLE}$",
            f"$\\operatorname{{Var}}(x)/\\eta$, $\\theta = {THETA_NOISE}$",
            "$\\omega_{\\mathrm{peak}}$",
            "$Q$",
        ],
        rows,
        "Action versus information delay at $\\mu = \\lambda = D = 1$: the critical "
        f"$\\theta_c$; the amplitude $A$ of $q_1 - q_2$ at $\\theta = {THETA_CYCLE}$ (half "
        f"its peak-to-peak on $[{a2:g}, {b2:g}]$; `decays' below $\\theta_c$); at "
        f"$\\theta = {THETA_NOISE}$ the stationary variance of the imbalance, the peak "
        "frequency of its spectrum and the quality factor $Q$ (peak frequency over the width "
        "at half maximum).",
        align="lrrrrr",
        label="tab:action_information",
    )


_STYLES = {ACTION: "C3--", INFO: "C0-"}
_ERLANG_STYLES = ("C1-", "C4-", "C2-", "C5-")


def _style(res: Results, label) -> str:
    if label in _STYLES:
        return _STYLES[label]
    return _ERLANG_STYLES[[erlang_label(L) for L in res.budget.Ls].index(label) % 4]


def _transient_figure(ctx, res: Results) -> str:
    from symdelay.outputs.plots_action import transient_figure

    b = res.budget
    names = {INFO: f"{INFO} (held history)", ACTION: f"{ACTION} (empty pipeline)"}
    paths = {}
    for k in [INFO, ACTION] + [erlang_label(L) for L in b.Ls[1:]]:
        ts = res.paths[k]
        paths[names.get(k, f"{k} (empty pipeline)")] = (ts.t, ts["q1"], ts["q2"], _style(res, k))
    held = f"{ACTION} (held history)"
    paths[held] = (res.held.t, res.held["q1"], res.held["q2"], "k:")
    fig = transient_figure(paths, t_imbalance=min(16.0, b.T), t_total=4.0, mark=RATES["D"])
    shown = ", ".join(f"$L = {L}$" for L in b.Ls[1:])
    caption = (
        f"Fluid paths from $q_1 = {START[0]}$, $q_2 = {START[1]}$ at $\\theta = {THETA_CYCLE}$, "
        f"$\\mu = \\lambda = D = 1$: the constant lags (solid: {names[INFO]}; dashed: "
        f"{names[ACTION]}; dotted: {held}, on $[0, {b.held_T:g}]$, on top of the solid "
        f"line) and the founding model ({shown}). (a) The imbalance. (b) The jobs in the "
        "queues: with the empty pipeline nothing arrives before $t = D$ (grey line)."
    )
    return ctx.figure(fig, "action_information_transients.pdf", caption, width="1.0")


def _spectra_figure(ctx, res: Results) -> str:
    from symdelay.outputs.plots_action import spectra_figure

    spectra = {}
    for k in [erlang_label(L) for L in res.budget.Ls] + [INFO, ACTION]:
        s = res.spectra[k]
        spectra[k] = (s.omega, s.S, _style(res, k))
    caption = (
        f"Linear-noise spectra of $q_1 - q_2$ at $\\theta = {THETA_NOISE}$, "
        f"$\\mu = \\lambda = D = 1$ (solid: {INFO}; dashed: {ACTION}, on top of it) and of "
        "the founding model."
    )
    return ctx.figure(
        spectra_figure(spectra), "action_information_spectra.pdf", caption, width="0.7"
    )


def build(ctx) -> Section:
    res = results(ctx.quick)
    f = findings(res)
    intro = (
        "Three ways for the dispatcher of the two queues to be late, side by side at "
        "$\\mu = \\lambda = D = 1$: the founding model's Erlang($L$) action delay "
        "\\cite{AbePhungDuc} (a job routed by the logit of the current lengths spends an "
        "Erlang($L$) time of mean $D$ in transit), the constant action delay (the example "
        "model \\texttt{constant\\_action\\_delay}: the job joins its queue exactly $D$ later) "
        "and the constant information lag of Pender, Rand and Wesson "
        "\\cite{PenderRandWesson2017} (the example model \\texttt{information\\_delay}: "
        "routed on the lengths seen $D$ ago, the job joins at once). "
        "Table~\\ref{tab:action_information} collects what is compared below.\n\n"
    )
    body = (
        intro
        + _linearisation_text(res, f)
        + _table(res, f)
        + _transient_text(res, f)
        + _transient_figure(ctx, res)
        + _amplitude_text(res, f)
        + _spectrum_text(res, f)
        + _spectra_figure(ctx, res)
        + _summary_text(f)
    )
    return Section(TITLE, body)
