"""Running sweeps serially: rows in Parquet, failed tasks recorded, Ctrl-C / kill and
--resume, status, plot and the xarray view; the example specs in a reduced form."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import symdelay
from symdelay import sweep
from symdelay.sweep import Spec
from symdelay.sweep.store import BOOKKEEPING, Store, read_meta

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "sweeps"
TESTS = Path(__file__).resolve().parent


def reduced(name: str, grid: dict, **over) -> dict:
    data = tomllib.loads((EXAMPLES / f"{name}.toml").read_text())
    data["grid"] = grid
    data.update(over)
    return data


def slow_spec(n: int, pause: float) -> dict:
    return {
        "analysis": "_sweep_tasks:slow_square",
        "parameters": {"pause": pause},
        "grid": {"x": {"start": 0, "stop": n - 1, "num": n}},
    }


def test_stability_map_example_reduced_matches_direct_calls(tmp_path):
    spec = reduced("stability_map", {"theta": [2, 9], "D": {"start": 0.5, "stop": 2, "num": 2}})
    out = tmp_path / "map.parquet"
    df = sweep.run(spec, out=out, serial=True)
    assert len(df) == 4 and (df["status"] == "ok").all() and df["task"].tolist() == [0, 1, 2, 3]
    for row in df.itertuples():
        rs = symdelay.founding.characteristic_roots(3, 1, 1, str(row.theta), str(row.D), dps=15)
        assert row.spectral_abscissa == float(rs.spectral_abscissa)
        assert row.unstable_count == rs.unstable_count
        assert row.stable == (rs.unstable_count == 0)
    # the stored file is the same table, with the spec and its hash in the metadata
    back = sweep.read_results(out)
    pd.testing.assert_frame_equal(back, df)
    meta = read_meta(out)
    assert meta["spec_hash"] == Spec.from_dict(spec).hash == df["spec_hash"].iloc[0]
    assert meta["total"] == 4 and Spec.from_dict(meta["spec"]).hash == meta["spec_hash"]
    assert set(df["symdelay_version"]) == {symdelay.__version__}
    assert (df["seconds"] > 0).all() and not Store(out).parts.exists()


def test_replication_example_reduced_seeds_and_summary(tmp_path):
    spec = reduced("replications", {"eta": [100], "theta": [2, 5]}, replications=2)
    spec["parameters"]["T"] = 4
    df = sweep.run(spec, out=tmp_path / "r.parquet", serial=True)
    s = Spec.from_dict(spec)
    assert df["seed"].tolist() == [s.seed_of(k) for k in range(4)]
    assert df["replication"].tolist() == [0, 1, 0, 1]
    # each row is the summary of the founding model's simulation with that row's seed
    from symdelay.models.erlang.stochastic import simulate

    for row in df.itertuples():
        res = simulate(
            L=2, eta=100, mu=1, lam=1, theta=row.theta, D=1, T=4, seed=int(row.seed), threads=1
        )
        x = res["q1"] - res["q2"]
        assert row.x_final == float(x[-1]) and row.events == int(res.events.sum())
        tail = x[res.t >= 2.0]
        assert row.x_abs_max_tail == float(np.max(np.abs(tail)))
    assert df["seed"].nunique() == 4


def test_failing_task_is_recorded_and_the_sweep_goes_on(tmp_path):
    spec = {
        "analysis": "roots",
        "parameters": {"L": 2, "mu": 1, "lam": 1, "D": 1, "dps": 15},
        "grid": {"theta": [-1, 0, 2]},
    }
    df = sweep.run(spec, out=tmp_path / "f.parquet", serial=True)
    assert df["status"].tolist() == ["ok", "failed", "ok"]
    err = df["error"].iloc[1]
    assert err.startswith("SymdelayInputError: theta = 0 decouples routing") and "\n" not in err
    assert pd.isna(df["spectral_abscissa"].iloc[1]) and df["error"].isna().tolist() == [
        True,
        False,
        True,
    ]
    st = sweep.status(tmp_path / "f.parquet")
    assert st == {"total": 3, "done": 3, "failed": 1, "spec_hash": Spec.from_dict(spec).hash}
    # a Python exception of another kind, from a user's analysis
    df = sweep.run(
        {"analysis": "_sweep_tasks:fails_on_three", "grid": {"x": [1, 3, 5]}},
        serial=True,
        allow_python="_sweep_tasks:fails_on_three",
    )
    assert df["status"].tolist() == ["ok", "failed", "ok"]
    assert df["error"].iloc[1] == "ArithmeticError: three is not allowed here"
    assert df["y"].iloc[[0, 2]].tolist() == [2.0, 10.0]


def test_status_plot_and_xarray(tmp_path, run_cli):
    spec = {
        "analysis": "stability",
        "parameters": {"mu": 1, "lam": 1},
        "replications": 1,
        "grid": [{"L": [2, 3]}, {"theta": [4, 8, 12]}, {"D": [0.5, 1, 2, 4]}],
    }
    out = tmp_path / "s.parquet"
    df = sweep.run(spec, out=out, serial=True)
    status, stdout, _ = run_cli("sweep", "status", str(out), "--json")
    assert status == 0 and json.loads(stdout) == {
        "total": 24,
        "done": 24,
        "failed": 0,
        "spec_hash": df["spec_hash"].iloc[0],
    }
    ds = sweep.to_xarray(out)
    assert dict(ds.sizes) == {"L": 2, "theta": 3, "D": 4}
    assert ds["theta"].values.tolist() == [4.0, 8.0, 12.0]
    row = df[(df.L == 3) & (df.theta == 8) & (df.D == 2)].iloc[0]
    assert ds["margin"].sel(L=3, theta=8.0, D=2.0).item() == row.margin
    assert ds["stable"].sel(L=2, theta=12.0, D=1.0).item() == float(row.stable) * 0 + float(
        df[(df.L == 2) & (df.theta == 12) & (df.D == 1)].iloc[0].stable
    )
    png = tmp_path / "map.png"
    status, stdout, stderr = run_cli(
        "sweep",
        "plot",
        str(out),
        "--x",
        "theta",
        "--y",
        "D",
        "--z",
        "margin",
        "--where",
        "L=3",
        "--out",
        str(png),
    )
    assert status == 0, stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    status, _, stderr = run_cli(
        "sweep", "plot", str(out), "--x", "theta", "--y", "D", "--z", "margin"
    )
    assert status == 2 and "L also vary" in stderr
    status, _, stderr = run_cli("sweep", "plot", str(out), "--x", "theta", "--z", "nope")
    assert status == 2 and "not an output" in stderr and stderr.count("\n") == 1
    ax = sweep.plot(df, x="D", z="margin", where={"L": 2})
    assert len(ax.get_lines()) == 3 and ax.get_xlabel() == "D"


def test_out_exists_without_resume_and_resume_of_another_spec_exit_2(tmp_path, run_cli):
    a = tmp_path / "a.toml"
    a.write_text(
        'analysis = "stability"\n[parameters]\nL = 2\nmu = 1\nlam = 1\nD = 1\n'
        "[grid]\ntheta = [1, 2]\n"
    )
    b = tmp_path / "b.toml"
    b.write_text(a.read_text().replace("[1, 2]", "[1, 3]"))
    out = tmp_path / "a.parquet"
    assert run_cli("sweep", "run", str(a), "--out", str(out), "--serial")[0] == 0
    status, _, stderr = run_cli("sweep", "run", str(a), "--out", str(out), "--serial")
    assert status == 2 and "exists: add --resume" in stderr and stderr.count("\n") == 1
    status, _, stderr = run_cli("sweep", "run", str(b), "--out", str(out), "--serial", "--resume")
    assert status == 2 and "another spec" in stderr and stderr.count("\n") == 1
    # resuming a finished sweep computes nothing and changes nothing
    before = sweep.read_results(out)
    status, stdout, stderr = run_cli(
        "sweep", "run", str(a), "--out", str(out), "--serial", "--resume", "--json"
    )
    assert status == 0 and "0 computed" in stderr and json.loads(stdout)["done"] == 2
    pd.testing.assert_frame_equal(sweep.read_results(out), before)
    status, _, stderr = run_cli("sweep", "status", str(a))
    assert status == 2 and "not a sweep results file" in stderr


def _start(spec_file: Path, out: Path, *extra):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(TESTS), str(ROOT)]))
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "symdelay",
            "sweep",
            "run",
            str(spec_file),
            "--out",
            str(out),
            "--serial",
            "--allow-python",
            "_sweep_tasks:slow_square",
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )


def _wait_for_parts(store: Store, proc, deadline: float = 60.0):
    t0 = time.monotonic()
    while not store.part_files():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() - t0 < deadline, "no rows were flushed"
        time.sleep(0.05)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
def test_interrupted_run_resumes_computing_only_what_is_missing(tmp_path, run_cli, sig):
    n = 40
    spec_file = tmp_path / "slow.toml"
    spec_file.write_text(
        'analysis = "_sweep_tasks:slow_square"\n[parameters]\npause = 0.05\n'
        f"[grid]\nx = {{ start = 0, stop = {n - 1}, num = {n} }}\n"
    )
    out = tmp_path / "slow.parquet"
    store = Store(out)
    proc = _start(spec_file, out)
    _wait_for_parts(store, proc)
    proc.send_signal(sig)
    proc.communicate(timeout=60)
    if sig == signal.SIGINT:
        assert proc.returncode == 130
        assert out.exists() and not store.parts.exists()  # merged on the way out
    else:
        assert proc.returncode == -signal.SIGKILL
        assert store.part_files()  # a killed client leaves whole part files
    first = sweep.read_results(out)
    k = len(first)
    assert 0 < k < n, k
    assert first["task"].is_unique and (first["run"] == 1).all()
    status, stdout, _ = run_cli("sweep", "status", str(out), "--json")
    assert json.loads(stdout)["done"] == k and json.loads(stdout)["total"] == n
    status, _, stderr = run_cli(
        "sweep",
        "run",
        str(spec_file),
        "--out",
        str(out),
        "--serial",
        "--resume",
        "--allow-python",
        "_sweep_tasks:slow_square",
    )
    assert status == 0 and f"{n - k} computed" in stderr
    final = sweep.read_results(out)
    assert final["task"].tolist() == list(range(n))
    assert (final["run"] == 2).sum() == n - k
    assert final["y"].tolist() == [float(x) ** 2 for x in range(n)]
    keep = [c for c in first.columns]
    old = final[final["run"] == 1][keep].reset_index(drop=True)
    pd.testing.assert_frame_equal(old, first.reset_index(drop=True))
    assert not store.parts.exists()


def test_in_memory_run_and_bookkeeping_columns():
    df = sweep.run(slow_spec(3, 0), serial=True, allow_python="_sweep_tasks:slow_square")
    assert df["y"].tolist() == [0.0, 1.0, 4.0]
    assert set(BOOKKEEPING) <= set(df.columns)
    assert df.attrs["sweep"]["total"] == 3
    assert math.isclose(sweep.to_xarray(df)["y"].sel(x=2.0).item(), 4.0)


def test_limit_cycle_and_sqd_fixed_point_analyses_match_their_modules():
    from symdelay.models.erlang.nonlinear.cycles import limit_cycle
    from symdelay.models.sqd import fixed_point, service_from_options

    df = sweep.run(
        {
            "analysis": "sqd-fixed-point",
            "grid": [
                {"d": [1, 2]},
                {"lam": ["1/2", "9/10"]},
                {"service": ["exp", "erlang"], "k": [1, 3]},
            ],
        },
        serial=True,
    )
    assert (df["status"] == "ok").all() and len(df) == 8
    for row in df.itertuples():
        lam = {0.5: "1/2", 0.9: "9/10"}[row.lam]  # the grid's exact values
        fp = fixed_point(d=row.d, lam=lam, service=service_from_options(row.service, k=row.k))
        assert row.mean_sojourn == float(fp.mean_sojourn) and row.s2 == float(fp.tail[1])
    cyc = sweep.run(
        {"analysis": "limit-cycle", "parameters": {"L": 2}, "grid": {"theta": [10]}}, serial=True
    ).iloc[0]
    ref = limit_cycle(L=2, theta=10)
    assert cyc.period == float(ref.period) and cyc.amplitude_x == float(ref.amplitude_x)
    assert cyc.stable == bool(ref.stable)
