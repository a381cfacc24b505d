"""SQ(d) simulation: exact M/G/1 at d = 1 (Pollaczek-Khinchine), the mean field at large N
with confidence intervals, the true-distribution and phase-type paths, the delayed model."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from symdelay.models.sqd import fixed_point, parse_service_dist
from symdelay.models.sqd.delayed import delayed_fixed_point
from symdelay.models.sqd.service import service_from_options
from symdelay.models.sqd.simulate import simulate


@pytest.mark.parametrize("text", ["deterministic", "lognormal:scv=2"])
def test_d1_is_mg1_pollaczek_khinchine(text):
    """With d = 1 every queue is an M/G/1 queue, for every N: E[T] = 1 + lam(1+c^2)/(2(1-lam))."""
    dist = parse_service_dist(text)
    lam = 0.6
    pk = 1 + lam * (1 + float(dist.scv)) / (2 * (1 - lam))
    r = simulate(400, 1, "0.6", dist, T=3000, seed=3).info
    lo, hi = r["ci95"]
    slack = 0.25 * (hi - lo)
    assert lo - slack < pk < hi + slack, (pk, r["ci95"])
    assert abs(r["tail"][0] - lam) < 0.01


@pytest.mark.slow
def test_large_N_matches_mean_field_exponential_and_phase_type():
    for svc in (None, service_from_options("hyperexp", probs="0.3,0.7", rates="0.5,2")):
        fp = fixed_point(2, "0.9", svc)
        r = simulate(5000, 2, "0.9", svc, T=300, seed=11).info
        lo, hi = r["ci95"]
        bias = 0.02 * float(fp.mean_sojourn)  # O(1/N) finite-N bias allowance
        assert lo - bias < float(fp.mean_sojourn) < hi + bias, (fp.mean_sojourn, r["ci95"])
        for k in range(3):
            assert abs(r["tail"][k] - float(fp.tail[k])) < 0.01


def test_delayed_simulation_matches_delayed_mean_field():
    mf = delayed_fixed_point(2, "0.8", L=1, D="1", K=20, M=10)
    sim = simulate(3000, 2, "0.8", None, T=250, seed=5, delay=(1, 1))
    r = sim.info
    lo, hi = r["ci95"]
    bias = 0.02 * mf.mean_sojourn
    assert lo - bias < mf.mean_sojourn < hi + bias, (mf.mean_sojourn, r["ci95"])
    # the delayed loop records the tails at the batch boundaries too (their mean: s_1 ~ lam)
    assert sim.values.shape == (1, 21, len(sim.states)) and abs(sim["s_1"][1:].mean() - 0.8) < 0.03
    assert mf.edge_mass < 1e-6
    # herding: the delay makes the station sojourn longer than plain SQ(2)
    assert mf.mean_sojourn > float(fixed_point(2, "0.8").mean_sojourn)


def test_cli_contract_and_bad_input(run_cli):
    status, out, _ = run_cli(
        "sqd", "simulate", "--N", "200", "--d", "2", "--lam", "0.9",
        "--service-dist", "weibull:shape=0.5", "--T", "50", "--seed", "1", "--json",
    )  # fmt: skip
    assert status == 0
    rec = json.loads(out)
    info = rec  # the estimates at the top level (issue 11's contract), not under "info"
    for key in ("mean_sojourn", "ci95", "tail"):
        assert key in info and key not in rec["info"]
    assert rec["events"] > 0 and rec["states"][0] == "s_1" and len(rec["s"]) == len(rec["states"])
    assert all(len(row) == 21 == len(rec["t"]) for row in rec["s"])
    assert float(info["ci95"][0]) <= float(info["mean_sojourn"]) <= float(info["ci95"][1])
    for argv, words in (
        (["--N", "1", "--d", "2"], "N = 1 < d = 2"),
        (["--lam", "1"], "unstable"),
        (["--service-dist", "pareto:alpha=0.9"], "finite mean"),
        (["--d", "-1"], "d must be"),
    ):
        status, out, err = run_cli("sqd", "simulate", *argv)
        assert status == 2 and out == "" and err.count("\n") == 1 and words in err, err


@pytest.mark.parametrize(
    "N,d,lam,text",
    [(40, 2, "0.95", "lognormal:scv=4"), (25, 3, "0.9", "deterministic"), (5, 1, "0.8", None)],
)
def test_c_kernel_and_python_twin_make_the_same_path(N, d, lam, text, monkeypatch):
    """Two implementations of the event loop, same draws: every output bit-identical. The
    node pool's size does not change the path: a pool of 2 nodes (grown many times) gives
    the same result as the default one."""
    import importlib

    sim = importlib.import_module("symdelay.models.sqd.simulate")  # the module (the package's
    # attribute of that name is the function)

    sim.kernel_for("c")  # the C kernel must compile here (a compiler is part of the test setup)
    svc = parse_service_dist(text) if text else service_from_options("hyperexp", probs="0.3,0.7", rates="0.5,2")  # fmt: skip
    a = simulate(N, d, lam, svc, T=300, seed=9, backend="c")
    b = simulate(N, d, lam, svc, T=300, seed=9, backend="python")
    monkeypatch.setattr(sim, "POOL_PER_SERVER", 0)
    monkeypatch.setattr(sim, "POOL_EXTRA", 2)
    c = simulate(N, d, lam, svc, T=300, seed=9, backend="c")
    assert (a.info["backend"], b.info["backend"]) == ("c", "python")
    assert a.events[0] == b.events[0] == c.events[0] > 1000
    assert a.info["sojourn_batches"] == b.info["sojourn_batches"] == c.info["sojourn_batches"]
    assert a.info["tail"] == b.info["tail"] == c.info["tail"]
    assert np.array_equal(a.values, b.values) and np.array_equal(a.values, c.values)


def test_snapshots_are_fractions_and_lengths_are_consistent():
    """Snapshots are counts / N of servers with length >= k: non-increasing in k, in
    multiples of 1/N; their average over boundaries estimates the same s_k as the time
    average (Little: s_1 -> lam)."""
    r = simulate(200, 2, "0.7", None, T=2000, seed=2, batches=40)
    assert r.t.tolist() == [200.0 + 45.0 * b for b in range(41)]  # the batch boundaries
    for snap in r.values[0]:
        assert all(a >= b for a, b in itertools.pairwise(snap))
        assert all(abs(v * 200 - round(v * 200)) < 1e-9 for v in snap)
    mean_s1 = r["s_1"][1:].mean()
    assert abs(mean_s1 - 0.7) < 0.03 and abs(r.info["tail"][0] - 0.7) < 0.01


def test_cli_backends_agree(run_cli):
    argv = ["sqd", "simulate", "--N", "30", "--d", "2", "--lam", "0.8", "--T", "60", "--json"]
    recs = []
    for be in ("c", "python"):
        status, out, _ = run_cli(*argv, "--backend", be)
        assert status == 0
        recs.append(json.loads(out))
    assert [r["info"]["backend"] for r in recs] == ["c", "python"]
    for key in ("mean_sojourn", "ci95", "tail"):
        assert recs[0][key] == recs[1][key]
    assert recs[0]["events"] == recs[1]["events"] and recs[0]["s"] == recs[1]["s"]


@pytest.mark.parametrize("seed", [3, 4])
def test_the_sqd_model_simulates_through_the_entry_with_the_generic_law(seed):
    """The sqd model behind the simulate entry: its own kernel (untruncated, from the empty
    system) and the kernel generated from its transition table (truncated at K = 6, where
    the tail beyond is of order lam^63) give one record (same keys, same parameters) and the
    same law: the mean of each state x_k at t = 4 agrees, z < 4.5 over 40 replications."""
    from symdelay.analysis.stochastic import simulate as entry
    from symdelay.models import build_model

    m = build_model("sqd", d=2, K=6, lam="0.5")
    kw = dict(eta=500, T=4, dt=2, seed=seed, replications=40)
    a = entry(m, **kw)
    b = entry(m, **kw, method="generic")
    assert a.info["backend"] in ("c", "python") and "transitions" in b.info
    assert set(a.to_json()) == set(b.to_json()) and a.parameters == b.parameters
    assert a.states == b.states == tuple(f"x_{k}" for k in range(1, 7))
    for k in range(3):
        x, y = a.values[:, -1, k], b.values[:, -1, k]
        se = np.hypot(x.std(ddof=1), y.std(ddof=1)) / np.sqrt(40)
        assert abs(x.mean() - y.mean()) < 4.5 * se + 1e-12, (k, x.mean(), y.mean())
    assert a.values[:, -1, 0].mean() > 0.3  # the path is not trivial
