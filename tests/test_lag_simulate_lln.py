"""The law of large numbers for delay models: as eta grows, the exact simulation
(``symdelay.simulate``) of a model with lags converges to the fluid path of the same model
(``symdelay.fluid``, the method of steps of symdelay/analysis/dfluid.py), an independent
path (Pender, Rand & Wesson's law of large numbers for queues with delayed information; for
an action delay, Kurtz's theorem applied to the decided-and-in-transit jobs).

For information_delay (a constant lag), moving_average (a uniform window),
constant_action_delay started with nothing in transit (``history="empty"``, the fluid of the
same history) and the same model with a distributed action delay (a mixture of a constant
and an exponential lag), at eta = 100, 400, 1600 with R replications from the same initial
state:

(a) the mean of the R paths at a few times lies within its confidence band of the fluid
    path: ``|mean - x(t)| <= z s / sqrt(R)``, ``s`` the sample standard deviation, ``z`` the
    normal quantile of a family-wise level ``ALPHA`` split over every comparison of the
    model (Bonferroni); the band is not loose: at the largest eta it rejects the fluid path
    of a wrong model (half the lag, resp. the held history instead of the empty one);
(b) the sup distance ``S = max_t,i |X_i(t) - x_i(t)|`` over the grid shrinks like
    ``eta^(-1/2)``: the ratio of its replication means at eta and 4 eta is 2 within ``z``
    standard errors of the ratio (delta method on the two means' standard errors), and the
    exponent 1 (no convergence) and 1/4 scaling (``eta^-1``) are outside that band.

The seeds are fixed: the test is deterministic; the bands say how unlikely a failure of a
correct simulator would be (``ALPHA`` per model), not a tolerance guessed from one run.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from symdelay import fluid, simulate
from symdelay.model import load_toml

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "models"

ETAS = (100, 400, 1600)
R = 100
T, DT = 6, 0.25
CHECK_TIMES = (0.5, 1.0, 2.0, 3.0, 4.5, 6.0)
#: Family-wise level of each model's comparisons (Bonferroni over them)
ALPHA = 1e-3
BASE = {"mu": 1, "lam": 1, "theta": 2}

#: case -> (model file, lag parameter, its value, the wrong model the band must reject:
#: ``{"lag": value}`` or ``{"history": ...}``, the history of the run)
CASES = {
    "information_delay": ("information_delay", "D", 1, {"lag": "1/2"}, None),
    "moving_average": ("moving_average", "Delta", 2, {"lag": 1}, None),
    "constant_action_delay": ("constant_action_delay", "D", 1, {"history": None}, "empty"),
    # a distributed action delay (D/2 with probability 1/3, else exponential of mean 2D):
    # the simulation draws each delay (a heap of entries), the fluid reads the mixture by a
    # look-up and a chain
    "mixed_action_delay": ("constant_action_delay", "D", 1, {"history": None}, "empty"),
}
#: the lag of constant_action_delay.toml, and the mixture that replaces it
CONSTANT = 'tau = { kind = "constant", value = "D" }'
MIXED = (
    'c1 = { kind = "constant", value = "D/2" }\n'
    'c2 = { kind = "exponential", mean = "2*D" }\n'
    'tau = { kind = "mixture", lags = ["c1", "c2"], weights = ["1/3", "2/3"] }'
)


def model(case, lag_value, tmp):
    name, lag = CASES[case][:2]
    path = EXAMPLES / f"{name}.toml"
    if case == "mixed_action_delay":
        text = path.read_text()
        assert CONSTANT in text
        path = tmp / f"{case}.toml"
        path.write_text(text.replace(CONSTANT, MIXED))
    return load_toml(path, **BASE, **{lag: lag_value})


def z_bonferroni(count: int) -> float:
    """The two-sided normal quantile of level ALPHA split over ``count`` comparisons."""
    return float(stats.norm.isf(ALPHA / (2 * count)))


@pytest.fixture(scope="module", params=sorted(CASES))
def runs(request, tmp_path_factory):
    return simulated(request.param, tmp_path_factory.mktemp("lln"))


def simulated(case, tmp):
    """The fluid path and the simulated paths at every eta, on the grid 0, DT, ..., T, and
    the fluid path of the wrong model."""
    _, _, value, wrong, history = CASES[case]
    m = model(case, value, tmp)
    kw = {} if history is None else {"history": history}
    fl = fluid(m, T=T, dt=DT, **kw)
    states = [s.name for s in m.states]
    x = fl.values[0][:, [fl.states.index(s) for s in states]]
    sims = {}
    for k, eta in enumerate(ETAS):
        sim = simulate(m, eta=eta, T=T, dt=DT, seed=20 + k, replications=R, **kw)
        assert list(sim.states[: len(states)]) == states
        assert np.allclose(sim.t, fl.t)
        sims[eta] = sim.values[:, :, : len(states)]
    # the fluid path of a wrong model: another lag, or the other history of an action delay
    if "lag" in wrong:
        other = fluid(model(case, wrong["lag"], tmp), T=T, dt=DT)
    else:
        other = fluid(m, T=T, dt=DT, **({} if wrong["history"] is None else wrong))
    other = other.values[0][:, [other.states.index(s) for s in states]]
    return case, np.asarray(fl.t), x, sims, other


def test_mean_path_within_band_of_fluid(runs):
    name, t, x, sims, other = runs
    idx = [int(np.argmin(np.abs(t - c))) for c in CHECK_TIMES]
    assert np.allclose(t[idx], CHECK_TIMES)
    n = x.shape[1]
    z = z_bonferroni(len(ETAS) * len(idx) * n)
    for eta, P in sims.items():
        P = P[:, idx, :]
        mean, se = P.mean(axis=0), P.std(axis=0, ddof=1) / math.sqrt(R)
        assert np.all(se > 0), f"{name} eta={eta}: the paths do not vary"
        dev = np.abs(mean - x[idx]) / se
        worst = np.unravel_index(np.argmax(dev), dev.shape)
        assert dev.max() <= z, (
            f"{name} eta={eta}: the mean of {R} paths at t={CHECK_TIMES[worst[0]]} is "
            f"{dev.max():.2f} standard errors from the fluid path (band {z:.2f})"
        )
    # the band is narrow enough to see a wrong model at the largest eta
    P = sims[ETAS[-1]][:, idx, :]
    mean, se = P.mean(axis=0), P.std(axis=0, ddof=1) / math.sqrt(R)
    assert (np.abs(mean - other[idx]) / se).max() > 3 * z, f"{name}: the band is too wide"


def sup_distance(P, x):
    """The sup over the grid and the states of |X - x|, one value per replication: its mean
    and the mean's standard error."""
    S = np.abs(P - x).max(axis=(1, 2))
    return float(S.mean()), float(S.std(ddof=1) / math.sqrt(len(S)))


def test_sup_distance_shrinks_like_inverse_root_eta(runs):
    name, _, x, sims, _ = runs
    sup = {eta: sup_distance(P, x) for eta, P in sims.items()}
    pairs = list(itertools.pairwise(ETAS))
    z = z_bonferroni(len(pairs))
    for a, b in pairs:
        (sa, ea), (sb, eb) = sup[a], sup[b]
        expect = math.sqrt(b / a)  # eta^(-1/2)
        ratio = sa / sb
        band = z * ratio * math.hypot(ea / sa, eb / sb)
        assert abs(ratio - expect) <= band, (
            f"{name}: sup distance {sa:.4g} at eta={a}, {sb:.4g} at eta={b}: ratio "
            f"{ratio:.3f}, eta^(-1/2) gives {expect:.3f} +- {band:.3f}"
        )
        # the band separates the rate from no convergence and from the rate eta^(-1)
        assert band < min(expect - 1, b / a - expect), f"{name}: the ratio's band is too wide"
