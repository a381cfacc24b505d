"""Fluctuations of the announcement with velocity (a neutral delay model) through the one
variance and spectrum entries, with ``dot(x)`` read as the drift of ``x``: the noise enters
through ``N = I - sum M_d K_d`` and ``G = Delta^-1 N`` (symdelay.analysis.dnoise).

Checked against: the information lag's certified variance at ``p = 0``; an independent
second path, the linear stochastic equation of the difference mode simulated in discrete
time (Euler-Maruyama, the drift stored and read back ``D`` later, two step sizes and
Richardson's extrapolation to ``h = 0``), whose sample variance must hold the certified value
in its confidence interval and whose periodogram must follow the spectrum, while the
noisy-derivative reading ``G = Delta^-1`` fails both; and the scalar difference mode's
spectrum written out with mpmath for the command line's record."""

from __future__ import annotations

import json
from pathlib import Path

import mpmath
import numpy as np
import pytest
import sympy as sp

from symdelay.analysis.dnoise import delay_noise
from symdelay.analysis.spectrum import spectrum
from symdelay.analysis.stochastic import variance
from symdelay.core.errors import SymdelayInputError
from symdelay.model import load_toml

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "models"
#: 99.9 % two-sided normal quantile: the confidence interval of the simulated variance
Z = 3.29


def announcement(**values):
    return load_toml(EXAMPLES / "announcement.toml").with_values(**values)


def difference_mode(p, mu=1, k=1, D=1, sigma2=4):
    """``S(w)`` of the difference mode ``x = q1 - q2`` written out: ``Delta = r + mu + k (1 +
    p r) e^(-r D)``, ``N = 1 + k p e^(-r D)``; ``drift=False`` is the noisy-derivative reading
    ``G = 1/Delta``. ``sigma2 = c^T B c = 4 lam``."""

    def S(w, drift=True):
        e = mpmath.exp(-1j * w * D)
        delta = 1j * w + mu + k * (1 + p * 1j * w) * e
        n = 1 + k * p * e if drift else 1
        return sigma2 * abs(n) ** 2 / abs(delta) ** 2

    return S


def simulate_linear(p, h, R, T, burn, rng, *, mu=1.0, k=1.0, D=1.0, sigma2=4.0, keep=False):
    """``R`` independent paths of ``X' = -mu X - k A + sigma xi``, ``A(t) = X(t - D) + p f(t -
    D)`` with ``f = -mu X - k A`` the drift (not the noisy increment), by Euler-Maruyama with
    ``D/h`` steps per lag, started at 0 with a zero history. Returns the per-path time
    averages of ``X^2`` over ``[burn, burn + T]`` (and the path there when ``keep``)."""
    m = round(D / h)
    assert abs(m * h - D) < 1e-12
    steps, first = round((burn + T) / h), round(burn / h)
    xs = np.zeros((m + 1, R))  # rings indexed by step mod (m + 1)
    fs = np.zeros((m + 1, R))
    x = np.zeros(R)
    total = np.zeros(R)
    path = np.empty((steps - first, R)) if keep else None
    amp = np.sqrt(sigma2 * h)
    for n in range(steps):
        lagged = (n + 1) % (m + 1)  # the slot of step n - m
        a = xs[lagged] + p * fs[lagged] if n >= m else 0.0
        f = -mu * x - k * a
        xs[n % (m + 1)], fs[n % (m + 1)] = x, f
        if n >= first:
            total += x * x
            if keep:
                path[n - first] = x
        x = x + h * f + amp * rng.standard_normal(R)
    return total / (steps - first), path


def integral(p, drift=True, W=2000.0, h=0.002):
    """``(1/pi) int_0^oo S`` of :func:`difference_mode` by numpy's trapezoid sum on ``[0,
    W]`` and the tail ``sigma2 <|N|^2>/(pi W)``, ``<|N|^2>`` the mean over a period (``1 +
    p^2``, or ``1/(1 - p^2)`` for ``|1/N|^2``): a few 1e-4 accurate, a plain second opinion."""
    w = np.arange(0.0, W + h / 2, h)
    e = np.exp(-1j * w)
    S = (
        4
        * np.abs((1 + p * e) if drift else 1) ** 2
        / np.abs(1j * w + 1 + (1 + p * 1j * w) * e) ** 2
    )
    mean_n2 = 1 + p * p if drift else 1 / (1 - p * p)
    return float(h * (S.sum() - (S[0] + S[-1]) / 2) / np.pi + 4 * mean_n2 / (np.pi * W))


def test_p_zero_is_the_information_lag():
    """Without the velocity term the announcement is the information lag: the same
    certified variance (Kuechler-Mensch's closed form is checked there)."""
    vals = {"mu": 1, "lam": 1, "theta": sp.Rational(3, 2), "D": 1}
    info = variance(load_toml(EXAMPLES / "information_delay.toml").with_values(**vals), dps=6)
    ann = variance(announcement(p=0, **vals), dps=6)
    assert ann.decimal() == info.decimal() and ann.error_bound <= 1e-6 * float(ann.value)
    assert "drift" not in ann.method  # a retarded model: nothing to say about dot


def test_simulated_linear_equation_holds_the_certified_variance_and_spectrum():
    """lam theta p = 1/2: the certified variance against the extrapolated sample variance
    of the linear equation (Richardson from h = D/40 and D/80: the Euler bias is O(h), about
    0.016 between them: the discrete recursion's own stationary variances are 1.8644 and
    1.8487, extrapolated 1.8331), and the spectrum against the periodogram of the h = D/40
    paths. The noisy-derivative reading (G = Delta^-1: 2.000 against 1.833) fails both."""
    m = announcement(mu=1, lam=1, theta=1, D=1, p=sp.Rational(1, 2))
    v = variance(m, dps=5)
    certified = float(v.value)
    assert float(v.error_bound) <= 1e-5 * certified and "drift of x" in v.method
    S = difference_mode(0.5)
    wrong = integral(0.5, drift=False)
    assert abs(integral(0.5) - certified) < 1e-3  # the trapezoid sum itself

    rng = np.random.default_rng(20261206)
    T, R = 100.0, 1000
    coarse, path = simulate_linear(0.5, 1 / 40, R, T, 20.0, rng, keep=True)
    fine, _ = simulate_linear(0.5, 1 / 80, R, T, 20.0, rng)
    estimate = 2 * fine.mean() - coarse.mean()
    se = np.sqrt((4 * fine.var(ddof=1) + coarse.var(ddof=1)) / R)
    assert abs(estimate - certified) <= Z * se, (estimate, se, certified)
    assert abs(estimate - wrong) > 3 * Z * se, (estimate, se, wrong)

    # the periodogram of the h = D/40 paths (two-sided, angular: E |h sum X e^(-iwt)|^2 / T
    # -> S(w)), averaged over the paths and the bins within 0.15 of each frequency
    h = 1 / 40
    spec = np.abs(h * np.fft.rfft(path, axis=0)) ** 2 / T
    freq = 2 * np.pi * np.fft.rfftfreq(path.shape[0], d=h)
    omegas = [0.5, 1.5, 3.0]
    product = delay_noise(m).spectrum_values([1, -1], omegas)
    for w, s in zip(omegas, product):
        assert abs(s - float(S(w))) <= 1e-9 * s  # the product's S is the difference mode's
    for w, s in zip(omegas, product):
        sim = spec[np.abs(freq - w) <= 0.15].mean()
        assert abs(sim - s) <= 0.1 * s, (w, sim, s)
        # |N(i w)|^2 = 1.25 + cos w: 2.13, 1.32, 0.26 -- the noisy-derivative reading is off
        if w != 1.5:
            assert abs(sim - float(S(w, drift=False))) > 0.4 * sim


def test_command_line_spectrum_of_the_announcement(run_cli):
    """The brief's example (lam theta p = 1/5) from the command line: the spectrum's S is the
    difference mode's, its peak the maximum of that function (found here by mpmath) and its
    variance the certified integral (against a trapezoid sum). lam theta p >= 1 is refused in
    one line."""
    args = ["--model-file", str(EXAMPLES / "announcement.toml")]
    for kv in ("mu=1", "lam=1", "D=1", "p=0.2", "theta=1"):
        args += ["--set", kv]
    code, out, err = run_cli("spectrum", *args, "--points", "5", "--omega-max", "4", "--json")
    assert code == 0, err
    rec = json.loads(out)
    S = difference_mode(0.2)
    for w, s in zip(rec["omega"], rec["S"]):
        assert abs(s - float(S(w))) <= 1e-9 * s
    assert abs(float(rec["variance_x_over_eta"]) - integral(0.2)) <= 1e-3
    assert "G = Delta(i w)^-1 N(i w)" in rec["method"] and "read as the drift" in rec["method"]
    with mpmath.workdps(20):
        peak = mpmath.findroot(lambda w: mpmath.diff(S, w), 1.8)
    assert abs(float(rec["peak_frequency"]) - float(peak)) <= 1e-6
    code, out, err = run_cli("variance", *args[:-2], "--set", "theta=5")  # lam theta p = 1
    assert code == 2 and "difference operator" in err and err.count("\n") == 1
    with pytest.raises(SymdelayInputError, match="difference operator"):
        variance(announcement(mu=1, lam=1, D=1, p=sp.Rational(1, 2), theta=3))


def test_spectrum_peak_nears_the_hopf_frequency():
    """lam p = 1/10, D = 1: the Hopf point (theta_c, omega_c) of the difference mode solved
    here by mpmath from Delta(i omega) = 0; at 0.97 theta_c the spectrum's peak lies near
    omega_c and is sharp (a quasi-cycle: Q > 30; at theta = 1 S(0) is above half the peak)."""
    p = mpmath.mpf("0.1")

    def delta(theta, w):
        d = 1j * w + 1 + theta * (1 + p * 1j * w) * mpmath.exp(-1j * w)
        return [d.real, d.imag]

    with mpmath.workdps(30):
        theta_c, omega_c = mpmath.findroot(delta, (2.4, 2.2))
    theta = sp.Rational(97, 100) * sp.Rational(mpmath.nstr(theta_c, 20))
    s = spectrum(announcement(mu=1, lam=1, D=1, p=sp.Rational(1, 10), theta=theta), points=3)
    assert abs(s.peak_frequency - float(omega_c)) < 0.02
    assert s.quality_factor is not None and s.quality_factor > 30


def test_an_announced_input_has_the_closed_form_of_the_drift_reading():
    """A neutral model with a one-sided derivative term (N = I - M_d e^(-r D), M_d nilpotent:
    the matrix algebra of G = Delta^-1 N off the symmetric case). y is an M/M/oo queue
    (dy = (1 - y) dt + noise, its drift -xi_y linearised); x is served at rate x and arrives
    at rate exp(b (1 - a)), a = y(t - D) + p dot(y)(t - D) announced. With dot(y) the drift,
    a = y(t - D) + p (1 - y(t - D)), so xi_x' = -xi_x - b (1 - p) xi_y(t - D) + noise and

        S_xx(w) = (2 + 2 b^2 (1 - p)^2 / (w^2 + 1)) / (w^2 + 1),  Var(x) = 1 + b^2 (1 - p)^2 / 2,

    (the noisy-derivative reading: 1 + b^2 (1 + p^2) / 2); D drops out of both."""
    from symdelay.model.core import Model

    b, p = 1, sp.Rational(1, 2)
    m = Model(
        "announced input",
        ["x", "y"],
        {"b": "positive", "p": "nonnegative", "D": "positive"},
        [
            ("x up", {"x": 1}, "exp(b*(1 - delayed(y + p*dot(y), tau)))"),
            ("x down", {"x": -1}, "x"),
            ("y up", {"y": 1}, "1"),
            ("y down", {"y": -1}, "y"),
        ],
        lags={"tau": {"kind": "constant", "value": "D"}},
        values={"b": b, "p": p, "D": sp.Rational(3, 2)},
    )
    assert m.linearisation.neutral
    v = variance(m, dps=6, weights=[1, 0])
    exact = 1 + sp.Rational(b * b) * (1 - p) ** 2 / 2
    assert abs(v.value - exact) <= v.error_bound and v.decimal() == "1.12500"
    assert abs(v.value - (1 + b * b * (1 + p * p) / 2)) > 0.4  # the other reading: 1.625
    omegas = [0.0, 0.4, 1.3, 5.0]
    for w, s in zip(omegas, delay_noise(m).spectrum_values([1, 0], omegas)):
        expected = (2 + 2 * b * b * float(1 - p) ** 2 / (w * w + 1)) / (w * w + 1)
        assert abs(s - expected) <= 1e-12 * expected
