"""The linear-noise variance of a delay model against long exact simulations (issue 33:
"long simulations' sample variance within their confidence interval"): the stationary
Var(q1 - q2) * eta of one long path, with a batch-means standard error, against
``symdelay.variance`` (the certified integral of the delay model's spectrum) and, for the
information lag, Kuechler & Mensch's closed form for dx = -(a x(t) + b x(t - D)) dt + sigma dW
written here (a = mu, b = lam theta, sigma^2 = 4 lam: x = q1 - q2 jumps by +-1 at total rate
4 lam at equilibrium). The same band rejects the closed form at half the lag and the
undelayed variance sigma^2 / (2 (a + b)) (the test can fail)."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import symdelay

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "models"
ETA, T, BURN, BATCHES = 400, 4000, 50.0, 20


def _km(a, b, D, sigma2):
    w0 = math.sqrt(b * b - a * a)
    return sigma2 / 2 * (1 + b / w0 * math.sin(w0 * D)) / (a + b * math.cos(w0 * D))


def _sample(model):
    path = symdelay.simulate(model, T=T, eta=ETA, seed=20261206, dt=0.25)
    t, q = np.asarray(path.t), np.asarray(path.values)[0]
    x = (q[:, 0] - q[:, 1])[t >= BURN] * np.sqrt(ETA)
    # batches of ~200 time units, far beyond the correlation time (a few units)
    v = np.array([np.mean(c**2) - np.mean(c) ** 2 for c in np.array_split(x, BATCHES)])
    return v.mean(), v.std(ddof=1) / np.sqrt(BATCHES)


@pytest.mark.parametrize(
    ("name", "values"),
    [
        ("information_delay", {"mu": 1, "lam": 1, "theta": "3/2", "D": 1}),
        ("moving_average", {"mu": 1, "lam": 1, "theta": 3, "Delta": 2}),
    ],
)
def test_sample_variance_of_a_long_path_is_the_lna_variance(name, values):
    model = symdelay.load_toml(EXAMPLES / f"{name}.toml", **values)
    lna = float(symdelay.variance(model, dps=5).record()["var_x_over_eta"])  # 1e-5 is plenty
    mean, se = _sample(model)
    assert abs(mean - lna) < 4 * se, (mean, se, lna)
    undelayed = 4 / (2 * (1 + float(values["lam"]) * float(Fraction(str(values["theta"])))))
    assert abs(mean - undelayed) > 8 * se
    if name == "information_delay":
        km = _km(1.0, 1.5, 1.0, 4.0)
        assert abs(km - lna) < 1e-4 * km  # the certified value (5 digits) is the closed form
        assert abs(mean - _km(1.0, 1.5, 0.5, 4.0)) > 8 * se  # half the lag: rejected


def _noisy_derivative_variance(mu, k, D, p, sigma2):
    """The variance if the announced velocity were the noisy path's own derivative
    (G = 1/Delta, without the noise's feed-through N = 1 + k p e^{-rD}): scipy's quad over
    quarter periods, the tail sigma2/(pi W)."""
    from scipy.integrate import quad

    def s(w):
        r = 1j * w
        return sigma2 / abs(r + mu + k * (1 + p * r) * np.exp(-r * D)) ** 2

    step, top = math.pi / (4 * D), 3000.0
    body = sum(quad(s, a, a + step, limit=100)[0] for a in np.arange(0.0, top, step))
    return body / math.pi + sigma2 / (math.pi * top)


def test_announcement_sample_variance_is_the_lna_variance_with_the_drift_read():
    """The announcement (dot read as the drift): 24 exact paths (the recursion over the whole
    past makes one long path quadratic in T) against the certified variance of
    G = Delta^-1 N; the same band rejects the noisy-derivative reading (G = Delta^-1, 50%
    larger at lam theta p = 3/5) and the undelayed variance."""
    model = symdelay.load_toml(
        EXAMPLES / "announcement.toml", mu=1, lam=1, D=1, theta="3/2", p="2/5"
    )
    lna = float(symdelay.variance(model, dps=5).record()["var_x_over_eta"])
    eta, horizon, burn, reps = 200, 80.0, 20.0, 24
    v = []
    for i in range(reps):
        path = symdelay.simulate(model, T=horizon, eta=eta, seed=7100 + i, dt=0.25)
        t, q = np.asarray(path.t), np.asarray(path.values)[0]
        x = (q[:, 0] - q[:, 1])[t >= burn] * np.sqrt(eta)
        v.append(np.mean(x**2))  # the mean of q1 - q2 is 0 by the swap symmetry
    mean, se = float(np.mean(v)), float(np.std(v, ddof=1) / np.sqrt(reps))
    assert abs(mean - lna) < 4 * se, (mean, se, lna)
    noisy = _noisy_derivative_variance(1.0, 1.5, 1.0, 0.4, 4.0)
    assert noisy > 1.4 * lna
    assert abs(mean - noisy) > 8 * se, (mean, se, noisy)
    assert abs(mean - 4 / (2 * (1 + 1.5))) > 8 * se
