"""One time-series record for every path (issue 31): the JSON rule (states ``base_1..base_n``
as ``base``), the table contract of ``to_pandas`` / CSV / ``to_xarray``, one schema per
model whatever the path (the SQ(d) and LB specialisations against the generic machinery),
the overflow-free softmax of the compiled drift against mpmath."""

from __future__ import annotations

import csv
import io
import json
import math

import mpmath
import numpy as np
import pytest
import sympy as sp

from symdelay.analysis.fluid import compile_rhs, fluid
from symdelay.analysis.stochastic import simulate
from symdelay.analysis.timeseries import TimeSeries, state_keys
from symdelay.core.errors import SymdelayInputError
from symdelay.models import build_model

# ------------------------------------------------------------------ the record itself


def _series(R=2, kind="simulation"):
    states = ("q1", "q2", "z1_1", "z1_2", "z2_1", "z2_2")
    t = np.array([0.0, 0.5, 1.0])
    values = np.arange(R * 3 * 6, dtype=float).reshape(R, 3, 6) / 8
    events = np.arange(1, R + 1) if kind == "simulation" else None
    return TimeSeries(states, t, values, {"eta": 8, "seed": 1}, kind=kind, events=events)


def test_state_keys_group_numbered_states_and_never_collide():
    assert state_keys(["q1", "q2", "z1_1", "z1_2", "z2_1", "z2_2"]) == [
        ("q1", 0), ("q2", 1), ("z1", [2, 3]), ("z2", [4, 5]),
    ]  # fmt: skip
    # the SQ(d) model's phases: x_k_j grouped by level, in index order whatever the order
    assert state_keys(["x_1_2", "x_1_1", "x_2_1"]) == [("x_1", [1, 0]), ("x_2", [2])]
    # not grouped: a gap in 1..n, a leading zero, a base that is itself a state
    assert state_keys(["a_1", "a_3"]) == [("a_1", 0), ("a_3", 1)]
    assert state_keys(["a_01", "a_1"]) == [("a_01", 0), ("a", [1])]
    assert state_keys(["x", "x_1", "x_2"]) == [("x", 0), ("x_1", 1), ("x_2", 2)]
    # a state named like one of the record's own keys
    assert state_keys(["t_1", "info", "events_1"]) == [
        ("t_1", 0), ("state:info", 1), ("events_1", 2),
    ]  # fmt: skip


def test_json_rule_one_and_many_replications():
    one = _series(R=1).record()
    assert one["z1"] == [[2 / 8, 8 / 8, 14 / 8], [3 / 8, 9 / 8, 15 / 8]]
    assert one["q1"] == [0.0, 6 / 8, 12 / 8] and one["events"] == 1
    assert set(one) == {"parameters", "kind", "states", "t", "info", "events", "q1", "q2"} | {
        "z1",
        "z2",
    }
    many = _series(R=2).record()
    assert many["events"] == 3 and len(many["replications"]) == 2
    second = many["replications"][1]
    assert second["events"] == 2 and second["t"] == [0.0, 0.5, 1.0]
    assert second["q2"] == [19 / 8, 25 / 8, 31 / 8]
    # a deterministic path has no events and no replication column
    flu = _series(R=1, kind="fluid").record()
    assert "events" not in flu and flu["kind"] == "fluid"


def test_views_and_replications():
    s = _series(R=2)
    assert s["q1"].shape == (2, 3) and s["z1"].shape == (2, 2, 3)
    assert s.state("q2").shape == (2, 3) and s["t"] is s.t
    one = s.replication(1)
    assert one.replications == 1 and one["q1"].tolist() == s["q1"][1].tolist()
    assert one.events.tolist() == [2]
    with pytest.raises(SymdelayInputError, match="replication 2"):
        s.replication(2)
    with pytest.raises(KeyError, match="no state 'w'"):
        s["w"]
    with pytest.raises(ValueError, match="shape"):
        TimeSeries(("a",), np.zeros(3), np.zeros((1, 2, 1)), {})


def test_pandas_csv_and_xarray_hold_the_same_table():
    s = _series(R=2)
    frame = s.to_pandas()
    assert list(frame.columns) == ["t", "replication", *s.states]
    assert len(frame) == 2 * 3 and frame["replication"].tolist() == [0, 0, 0, 1, 1, 1]
    assert frame["z2_1"].tolist() == s.values[:, :, 4].ravel().tolist()
    text = s.to_csv()
    lines = text.splitlines()
    assert lines[0].startswith("# symdelay ") and '"eta": 8' in lines[0]
    rows = list(csv.reader(io.StringIO("\n".join(lines[1:]))))
    assert rows[0] == list(frame.columns)
    assert [[float(v) for v in r] for r in rows[1:]] == frame.to_numpy().tolist()
    ds = s.to_xarray()
    assert ds["q1"].dims == ("replication", "t") and ds["q1"].values.tolist() == s["q1"].tolist()
    flu = _series(R=1, kind="fluid")
    assert list(flu.to_pandas().columns) == ["t", *flu.states]
    assert flu.to_xarray()["z1_2"].dims == ("t",)


def test_every_producer_returns_the_record_and_json_round_trips():
    from symdelay.models.dde import model as dde
    from symdelay.models.erlang.stochastic import fluid_difference

    m = build_model("nserver", N=3, L=1, mu=1, lam=1, theta=2, D=1)
    records = [
        simulate(m, eta=50, T=1, dt=0.5, seed=2),
        fluid(m, T=1, dt=0.5),
        fluid_difference(L=2, T=1, dt=0.5),
        dde(mu=1, lam=1, theta=2, D=1).integrate(1, dt=0.5),
    ]
    for r in records:
        assert type(r) is TimeSeries and r.t.tolist() == [0.0, 0.5, 1.0]
        j = json.loads(json.dumps(r.to_json()))
        assert {"model", "parameters", "kind", "states", "t", "info"} <= set(j)
        assert r.summary().endswith("(use --json or --csv)")
    assert records[0].to_json()["z1"] == [records[0]["z1_1"].tolist()]  # z1_1 alone is z1
    assert set(records[2].to_json()) >= {"x", "w"}  # the difference mode's x, w_1..w_L


# ------------------------------------------------------------------ one schema per model


def test_sqd_fluid_specialised_equals_generic_and_the_cli_agrees(run_cli):
    """The SQ(d) mean field integrated in its tail variables (BDF, its own Jacobian) and the
    table's drift (the generic compiled path, DOP853): one record, values to 1e-8; the
    command ``sqd fluid`` prints the record ``fluid --model sqd`` prints."""
    m = build_model("sqd", d=2, K=5, lam="0.8")
    y0 = [0.3, 0.2, 0.1, 0.05, 0.0]
    a = fluid(m, T=10, dt=2, initial=y0)
    b = fluid(m, T=10, dt=2, initial=y0, method="generic")
    assert a.info["solver"]["method"] == "BDF" and b.info["solver"]["method"] == "DOP853"
    assert set(a.to_json()) == set(b.to_json()) and a.parameters == b.parameters
    assert np.max(np.abs(a.values - b.values)) < 1e-8
    st, out, _ = run_cli("fluid", "--model", "sqd", "--d", "2", "--K", "5", "--lam", "0.8",
                         "--T", "10", "--dt", "2", "--json")  # fmt: skip
    st2, out2, _ = run_cli("sqd", "fluid", "--d", "2", "--K", "5", "--lam", "0.8", "--T", "10",
                           "--points", "6", "--json")  # fmt: skip
    j, j2 = json.loads(out), json.loads(out2)
    assert st == st2 == 0 and set(j) == set(j2) and j["states"] == j2["states"]
    assert j["t"] == j2["t"] and np.allclose(j["x"], j2["x"], atol=1e-12)
    assert j["parameters"] == j2["parameters"]


def test_lb_fluid_answers_through_the_entry_as_the_sliding_euler_path(run_cli):
    """The LB model's fluid through the entry: the family's Euler path (its drift slides on
    the balanced set), which the entry refused before; from the start it settles at the
    closed-form equilibrium x_j = w_j (1 - kappa/d_j)."""
    m = build_model("lb", stations="N=50,mu=1;N=100,mu=1/2", xi=2, d="1,2", lam="1/2")
    eq = [float(m.equilibrium.point[s]) for s in m.states]
    path = fluid(m, T=30, dt=1)
    assert path.info["solver"]["method"] == "Euler" and path.states == ("x1", "x2")
    assert np.allclose(path.values[0, -1], eq, atol=5e-3)
    st, out, err = run_cli("fluid", "--model", "lb", "--stations", "N=50,mu=1;N=100,mu=1/2",
                           "--xi", "2", "--d", "1,2", "--lam", "1/2", "--T", "2", "--json")  # fmt: skip
    assert st == 0, err
    assert json.loads(out)["states"] == ["x1", "x2"]


def test_lb_simulation_specialised_agrees_with_the_generated_kernel():
    """The LB model behind the simulate entry: its own kernel and the kernel generated from
    its table (the Heaviside-switched rates printed in C) give one record and the same law,
    the mean of x_j at T over 30 replications (z < 4.5)."""
    m = build_model("lb", stations="N=20,mu=1;N=40,mu=1/2", xi=2, lam="3/5")
    kw = dict(T=3, dt=1, seed=5, replications=30, initial=[0, 40])
    a = simulate(m, **kw)
    b = simulate(m, eta=60, **kw, method="generic")
    assert a.parameters["eta"] == 60 and set(a.to_json()) == set(b.to_json())
    for j in range(2):
        x, y = a.values[:, -1, j], b.values[:, -1, j]
        se = math.hypot(x.std(ddof=1), y.std(ddof=1)) / math.sqrt(30)
        assert abs(x.mean() - y.mean()) < 4.5 * se, (j, x.mean(), y.mean())
    assert a.values[:, -1, 0].mean() > 0.1  # station 1 filled from empty
    with pytest.raises(SymdelayInputError, match="multiple of 3"):
        simulate(m, eta=100, T=1)


# ------------------------------------------------------------------ overflow-free softmax


@pytest.mark.parametrize("theta", ["2", "800", "10**40", "10**90"])
def test_compiled_softmax_equals_mpmath_without_overflow(theta):
    """The logit routing of three servers at any theta: the compiled drift (largest exponent
    subtracted) against the same expression evaluated by mpmath at 60 digits; no warning."""
    import warnings

    q = sp.symbols("q1:4")
    th = sp.sympify(theta)
    w = [sp.exp(-th * qi) for qi in q]
    rhs = [3 * wi / sp.Add(*w) - qi for wi, qi in zip(w, q)]
    c = compile_rhs(q, rhs)
    for y in ([0.3, 0.2, 0.9], [1.0, 1.0 + 1e-12, 0.5], [7.0, 0.0, 0.0]):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = c.f(0.0, np.array(y))
        with mpmath.workdps(60):
            ws = [mpmath.exp(-mpmath.mpf(str(th)) * mpmath.mpf(v)) for v in y]
            want = [float(3 * wi / sum(ws) - mpmath.mpf(v)) for wi, v in zip(ws, y)]
        assert np.allclose(got, want, rtol=1e-12, atol=1e-300), (y, got, want)
