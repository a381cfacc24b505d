"""Sweep specs: grids (lists, ranges, log-ranges, zips, products), SeedSequence task seeds,
the spec hash, and bad specs refused in one line (exit 2)."""

from __future__ import annotations

import itertools
import math
import tomllib
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from symdelay.core.errors import SymdelayInputError
from symdelay.sweep import Spec, load_spec, task_seed
from symdelay.sweep.grid import axis_values, value_as_float

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "sweeps"


def spec(**over):
    base = {
        "analysis": "stability",
        "parameters": {"L": 2, "mu": 1, "lam": 1},
        "grid": {"theta": [1, 2], "D": [1, 2, 4]},
    }
    base.update(over)
    return Spec.from_dict(base)


def test_linear_range_is_exact_and_ends_at_stop():
    v = axis_values("theta", {"start": "1/3", "stop": 2, "num": 6})
    fr = [Fraction(x) for x in v]
    assert fr[0] == Fraction(1, 3) and fr[-1] == 2
    steps = {b - a for a, b in itertools.pairwise(fr)}
    assert steps == {Fraction(1, 3)}


def test_step_range_includes_stop_when_hit_and_not_past_it():
    assert axis_values("L", {"start": 1, "stop": 7, "step": 2}) == (1, 3, 5, 7)
    assert axis_values("L", {"start": 1, "stop": 8, "step": 2}) == (1, 3, 5, 7)
    assert axis_values("x", {"start": 1, "stop": 0, "step": "-1/2"}) == (1, "1/2", 0)


def test_log_range_is_geometric_with_exact_ends():
    v = axis_values("D", {"start": 0.1, "stop": 1000, "num": 5, "log": True})
    assert v[0] == 0.1 and v[-1] == 1000.0
    ratios = [b / a for a, b in itertools.pairwise(v)]
    assert all(math.isclose(r, 10.0, rel_tol=1e-12) for r in ratios)


def test_product_order_last_axis_fastest_and_zip_advances_together():
    s = Spec.from_dict(
        {
            "analysis": "stability",
            "parameters": {"L": 2},
            "grid": [{"theta": [1, 2]}, {"mu": [1, 2, 3], "lam": ["1/2", 1, 2]}, {"D": [1, 5]}],
        }
    )
    assert s.shape == (2, 3, 2) and len(s) == 12
    got = [s.task(k) for k in range(len(s))]
    want = [
        {"L": 2, "theta": th, "mu": m, "lam": lm, "D": d}
        for th in (1, 2)
        for m, lm in zip((1, 2, 3), ("1/2", 1, 2))
        for d in (1, 5)
    ]
    assert got == want


def test_replications_and_seeds_come_from_seedsequence_spawning():
    s = Spec.from_dict(
        {
            "analysis": "simulate",
            "seed": 99,
            "replications": 3,
            "parameters": {"L": 1, "eta": 50, "T": 1},
            "grid": {"theta": [1, 2]},
        }
    )
    assert len(s) == 6
    assert [s.replication(k) for k in range(6)] == [0, 1, 2, 0, 1, 2]
    children = np.random.SeedSequence(99).spawn(6)
    want = [int(c.generate_state(1, np.uint64)[0] >> np.uint64(1)) for c in children]
    assert [s.seed_of(k) for k in range(6)] == want
    assert len(set(want)) == 6 and all(0 <= w < 2**63 for w in want)
    assert task_seed(99, 4) == want[4]
    # an unseeded analysis gets no seed
    assert spec().seed_of(0) is None


def test_hash_covers_what_determines_results_only():
    h = spec().hash
    assert spec(name="renamed", description="x").hash == h
    assert spec(grid={"theta": [1, 2], "D": [1, 2, 5]}).hash != h
    assert spec(seed=1).hash != h
    assert spec(replications=2).hash != h
    assert spec(parameters={"L": 2, "mu": 1, "lam": 2}).hash != h
    # the same values written as a range or a list are the same tasks, the same hash
    assert spec(grid={"theta": {"start": 1, "stop": 2, "num": 2}, "D": [1, 2, 4]}).hash == h


def test_spec_round_trips_through_to_json():
    s = Spec.from_dict(
        {
            "analysis": "stability",
            "parameters": {"L": 2, "D": 1},
            "grid": [{"theta": {"start": 1, "stop": 3, "num": 5}}, {"mu": [1, 2], "lam": [3, 4]}],
        }
    )
    back = Spec.from_dict(s.to_json())
    assert back.hash == s.hash and [back.task(k) for k in range(len(back))] == [
        s.task(k) for k in range(len(s))
    ]


def test_example_specs_parse():
    for path in sorted(EXAMPLES.glob("*.toml")):
        s = load_spec(path, allow_paths=[EXAMPLES.parent / "models"])
        assert len(s) > 1, path
        tomllib.loads(path.read_text())  # plain TOML
    assert {p.stem for p in EXAMPLES.glob("*.toml")} >= {"stability_map", "replications"}


def test_value_as_float():
    assert value_as_float("1/4") == 0.25 and value_as_float("inf") == math.inf
    assert value_as_float("hetero") is None and value_as_float(3) == 3.0


@pytest.mark.parametrize(
    ("over", "words"),
    [
        ({"analysis": "rootz"}, "unknown analysis 'rootz'"),
        ({"analysis": "nomodule_xyz:f"}, "'nomodule_xyz:f' is not a registered analysis"),
        ({"grid": {"thetaa": [1]}}, "unknown parameter(s) ['thetaa']"),
        ({"grid": {"theta": []}}, "grid 'theta' is empty"),
        ({"grid": {}}, "the grid is empty"),
        ({"grid": None}, "no [grid]"),
        ({"grid": {"theta": {"start": 1, "stop": 2}}}, "exactly one of num or step"),
        ({"grid": {"theta": {"start": 1, "stop": 2, "step": -1}}}, "does not lead"),
        ({"grid": {"theta": {"start": 0, "stop": 2, "num": 3, "log": True}}}, "start, stop > 0"),
        ({"grid": [{"theta": [1, 2], "D": [1]}]}, "as many values each"),
        ({"grid": {"theta": [1, True]}}, "values must be numbers or text"),
        (
            {"grid": {"theta": [1]}, "parameters": {"L": 2, "mu": 1, "lam": 1, "theta": 2}},
            "both fixed and on the grid",
        ),
        ({"grid": {"theta": [1]}, "parameters": {"L": 2}}, "needs parameter(s)"),
        ({"replications": 0}, "replications must be an integer >= 1"),
        ({"seed": -1}, "seed must be an integer >= 0"),
        ({"seeds": 1}, "unknown key(s) ['seeds']"),
    ],
)
def test_bad_specs_say_what_is_wrong(over, words):
    with pytest.raises(SymdelayInputError) as err:
        spec(**over)
    msg = str(err.value)
    assert words in msg and "\n" not in msg


def test_bad_spec_files_exit_2_in_one_line(tmp_path, run_cli):
    cases = {
        "unknown_analysis.toml": 'analysis = "nope"\n[grid]\nx = [1]\n',
        "unknown_param.toml": 'analysis = "roots"\n[parameters]\nL = 2\nmu = 1\nlam = 1\n'
        "D = 1\n[grid]\ntheta = [1]\nthetta = [2]\n",
        "empty_grid.toml": 'analysis = "roots"\n[parameters]\nL = 2\nmu = 1\nlam = 1\n'
        "D = 1\n[grid]\ntheta = []\n",
        "not_toml.toml": "analysis = \n",
    }
    for name, text in cases.items():
        f = tmp_path / name
        f.write_text(text)
        out = tmp_path / (name + ".parquet")
        status, _stdout, stderr = run_cli("sweep", "run", str(f), "--out", str(out), "--serial")
        assert status == 2, name
        assert stderr.count("\n") == 1 and stderr.startswith("symdelay: error: "), stderr
        assert "Traceback" not in stderr and not out.exists()
    status, _, stderr = run_cli("sweep", "run", str(tmp_path / "missing.toml"), "--out", "o")
    assert status == 2 and "no such sweep spec" in stderr
