"""``symdelay roots``: JSON contract, rightmost and L = inf modes, bad input (exit 2, one line)."""

from __future__ import annotations

import json
import math

import mpmath
import numpy as np
import pytest

from symdelay import SymdelayInputError
from symdelay.founding import characteristic_roots
from symdelay.models.erlang.roots.crosscheck import difference_jacobian_numeric

BASE = ["roots", "--mu", "1", "--lam", "1", "--theta", "5", "--D", "1"]


def _digits(text: str) -> int:
    mant = text.lstrip("-").split("e")[0].replace(".", "").lstrip("0")
    return len(mant)


def test_json_contract_L200(run_cli):
    status, out, err = run_cli(*BASE, "--L", "200", "--dps", "50", "--json")
    assert status == 0 and err == ""
    rec = json.loads(out)
    # the contract's keys (issue 4), and the one record's (issue 31)
    assert {"L", "dps", "roots", "spectral_abscissa", "unstable_count"} <= set(rec)
    assert set(rec) == {
        "L",
        "parameters",
        "dps",
        "roots",
        "factors",
        "spectral_abscissa",
        "unstable_count",
        "axis_count",
        "listed_unstable",
        "count_scope",
        "stable",
        "verdict",
        "axis_roots",
        "method",
        "model",
        "symdelay_version",
    }
    assert rec["axis_count"] == 0 and rec["count_scope"] == "all roots"
    assert rec["verdict"] == "unstable" and rec["stable"] is False
    assert [f["mode"] for f in rec["factors"]] == ["sum", "difference"]
    # every root once: the sum mode's -1 and -200 (200-fold), the difference mode's 201
    assert rec["L"] == 200 and rec["dps"] == 50 and len(rec["roots"]) == 203
    assert sum(t.get("multiplicity", 1) for t in rec["roots"]) == 2 * 201
    for item in rec["roots"]:
        assert {"re", "im", "radius", "mode"} <= set(item) <= {"re", "im", "radius", "mode",
                                                             "multiplicity"}  # fmt: skip
        assert _digits(item["re"]) == 50 or float(item["re"]) == 0
        assert float(item["radius"]) < 1e-45
    sums = [t for t in rec["roots"] if t["mode"] == "sum"]
    assert [(t["re"], t["im"], t["radius"], t.get("multiplicity", 1)) for t in sums] == [
        ("-1." + "0" * 49, "0", "0", 1),
        ("-200." + "0" * 47, "0", "0", 200),
    ]
    diff = [t for t in rec["roots"] if t["mode"] == "difference"]
    # against double-precision eigenvalues of the Jacobian (independent path)
    vals = np.array([complex(float(t["re"]), float(t["im"])) for t in diff])
    eig = np.linalg.eigvals(difference_jacobian_numeric(200, 1, 1, 5, 1))
    assert np.max(np.min(np.abs(vals[:, None] - eig[None, :]), axis=1)) < 1e-9
    assert rec["unstable_count"] == int(np.sum(eig.real > 0)) == 2
    with mpmath.workdps(100):  # enough digits for the differences of ~1e-50 below
        sa = mpmath.mpf(rec["spectral_abscissa"])
        assert sa == max(mpmath.mpf(t["re"]) for t in rec["roots"])
        # the string value plus its radius still contains the certified root
        ref = characteristic_roots(200, 1, 1, 5, 1, dps=60)[0].value
        first = rec["roots"][0]
        z = mpmath.mpc(mpmath.mpf(first["re"]), mpmath.mpf(first["im"]))
        assert abs(z - ref) <= mpmath.mpf(first["radius"])
        assert mpmath.mpf(first["radius"]) < abs(z - ref) * 1.01 + mpmath.mpf(10) ** -60


def test_rightmost_json(run_cli):
    status, out, _ = run_cli(*BASE, "--L", "1000000", "--dps", "20", "--rightmost", "2", "--json")
    rec = json.loads(out)
    assert status == 0 and len(rec["roots"]) == 2 and rec["unstable_count"] == 2
    assert float(rec["roots"][0]["im"]) == -float(rec["roots"][1]["im"]) > 0


def test_inf_branches(run_cli):
    status, out, _ = run_cli(*BASE, "--L", "inf", "--dps", "30", "--branches", "-3..3", "--json")
    rec = json.loads(out)
    assert status == 0 and rec["L"] == "inf" and len(rec["roots"]) == 8
    assert [t for t in rec["roots"] if t["mode"] == "sum"] == [
        {"re": "-1." + "0" * 29, "im": "0", "radius": "0", "mode": "sum"}
    ]
    with mpmath.workdps(40):
        for t in [t for t in rec["roots"] if t["mode"] == "difference"]:
            z = mpmath.mpc(mpmath.mpf(t["re"]), mpmath.mpf(t["im"]))
            assert abs(z + 1 + 5 * mpmath.exp(-z)) < 1e-25


def test_text_output(run_cli):
    status, out, _ = run_cli(*BASE, "--L", "3", "--dps", "10")
    assert status == 0 and out.startswith("L = 3: 8 roots (all), 0 with Re r > 0")
    assert ": stable" in out.splitlines()[0]
    assert "-3.000000000  +- 0   [sum, x3]" in out  # gamma = 3, three-fold, exact


BAD = [
    (["--L", "10", "--dps", "4"], "dps must be an integer between 5 and 10000"),
    (["--L", "10", "--dps", "10001"], "dps must be an integer between 5 and 10000"),
    (["--L", "10001"], "--rightmost"),
    (["--L", "0"], "L must be an integer >= 1"),
    (["--L", "10", "--rightmost", "0"], "--rightmost must be an integer >= 1"),
    (["--L", "inf", "--branches", "3..1"], "branches must be 'K1..K2'"),
    (["--L", "inf", "--branches", "a..b"], "branches must be 'K1..K2'"),
    (["--L", "inf", "--branches", "-3"], "branches must be 'K1..K2'"),
]


@pytest.mark.parametrize(("extra", "words"), BAD)
def test_bad_input_cli(run_cli, extra, words):
    status, out, err = run_cli(*BASE, *extra)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("symdelay: error:") and words in err


@pytest.mark.parametrize(
    ("name", "value", "words"),
    [
        ("mu", "nan", "mu must be a finite number"),
        ("mu", "-1", "mu must be positive"),
        ("D", "0", "D must be positive"),
        ("lam", "inf", "lam must be a finite number"),
        ("theta", "nan", "theta must be a finite number"),
    ],
)
def test_bad_parameters_cli(run_cli, name, value, words):
    args = {"mu": "1", "lam": "1", "theta": "5", "D": "1"}
    args[name] = value
    argv = ["roots", "--L", "5"] + [x for k, v in args.items() for x in (f"--{k}", v)]
    status, _, err = run_cli(*argv)
    assert status == 2 and err.count("\n") == 1 and words in err


def test_bad_input_api():
    with pytest.raises(SymdelayInputError, match="rightmost"):
        characteristic_roots(20_000, 1, 1, 5, 1)
    with pytest.raises(SymdelayInputError, match="finite"):
        characteristic_roots(5, math.inf, 1, 5, 1)
    with pytest.raises(SymdelayInputError, match="dps"):
        characteristic_roots(5, 1, 1, 5, 1, dps=3)
    with pytest.raises(SymdelayInputError, match="branches"):
        characteristic_roots(math.inf, 1, 1, 5, 1, branches="x")
    with pytest.raises(SymdelayInputError, match="rightmost"):
        characteristic_roots(5, 1, 1, 5, 1, rightmost=0)


# --------------------------------------------------------- roots exactly on the imaginary axis
@pytest.mark.parametrize(
    "args,axis,expected",
    [
        # (r+1)(r+1)^3 + 4 at gamma = 1: (r^2 + 1)(r^2 + 4r + 5), roots +-i and -2 +- i
        (("--L", "3", "--theta", "4", "--D", "3"), 2, ["0+1j", "0-1j", "-2+1j", "-2-1j"]),
        # (r+1)(r+1)^2 + 8 = (r + 3)(r^2 + 3): roots +-i sqrt 3, -3
        (
            ("--L", "2", "--theta", "8", "--D", "2"),
            2,
            ["0+1.7320508075688772j", "0-1.7320508075688772j", "-3+0j"],
        ),
        # (r+1)(r+2)^2 - 4 = r (r^2 + 5r + 8): root 0
        (
            ("--L", "2", "--theta", "-1", "--D", "1"),
            1,
            ["0+0j", "-2.5+1.3228756555322954j", "-2.5-1.3228756555322954j"],
        ),
    ],
)
def test_roots_on_the_imaginary_axis(run_cli, args, axis, expected):
    status, out, err = run_cli("roots", "--mu", "1", "--lam", "1", *args, "--dps", "30", "--json")
    assert status == 0 and err == ""
    rec = json.loads(out)
    assert rec["axis_count"] == axis and rec["unstable_count"] == 0
    assert rec["verdict"] == "marginal" and rec["stable"] is False
    assert len(rec["axis_roots"]) == axis
    diff = [t for t in rec["roots"] if t["mode"] == "difference"]
    got = [complex(float(t["re"]), float(t["im"])) for t in diff]
    assert np.allclose(got, [complex(e) for e in expected], atol=1e-14)
    on = [t for t in rec["roots"] if t["re"] == "0"]
    assert len(on) == axis  # real part proved to be exactly zero
    for t, a in zip(on, rec["axis_roots"]):
        assert a["omega"]["value"] == t["im"] and a["mode"] == "difference"


def test_dde_root_at_zero(run_cli):
    """mu + lam theta = 0: r = 0 solves r + mu + lam theta e^{-rD} (the only axis root)."""
    status, out, _ = run_cli(
        "roots",
        "--L",
        "inf",
        "--mu",
        "1",
        "--lam",
        "1",
        "--theta",
        "-1",
        "--D",
        "1",
        "--branches",
        "-2..2",
        "--json",
    )
    rec = json.loads(out)
    assert status == 0 and rec["axis_count"] == 1 and rec["unstable_count"] == 0
    assert rec["roots"][0]["re"] == "0" and float(rec["roots"][0]["im"]) == 0
    # lam theta slightly below -mu: one real root crosses into the right half-plane
    rec = json.loads(
        run_cli(
            "roots",
            "--L",
            "inf",
            "--mu",
            "1",
            "--lam",
            "1",
            "--theta",
            "-1.001",
            "--D",
            "1",
            "--json",
        )[1]
    )
    assert rec["axis_count"] == 0 and rec["unstable_count"] == 1


def test_listed_roots_vs_whole_spectrum_count(run_cli):
    status, out, _ = run_cli(*BASE, "--L", "inf", "--branches", "0..0")
    assert status == 0
    head = out.splitlines()[0]
    assert "2 roots (branches; counts over the whole spectrum), 2 with Re r > 0" in head
    rec = json.loads(run_cli(*BASE, "--L", "inf", "--branches", "0..0", "--json")[1])
    assert rec["listed_unstable"] == 1 and rec["unstable_count"] == 2
    assert rec["count_scope"] == "whole spectrum"


@pytest.mark.parametrize("L", ["300", "1000", "100000"])
def test_root_at_zero_for_large_L(run_cli, L):
    """lam theta = -mu: P(0) = (mu + lam theta) gamma^L = 0 for every L and D (exact)."""
    extra = [] if L == "300" else ["--rightmost", "2"]
    status, out, err = run_cli(
        "roots",
        "--L",
        L,
        "--mu",
        "1",
        "--lam",
        "1",
        "--theta",
        "-1",
        "--D",
        "1",
        "--dps",
        "20",
        "--json",
        *extra,
    )
    assert status == 0 and err == ""
    rec = json.loads(out)
    assert rec["axis_count"] == 1 and rec["unstable_count"] == 0
    assert rec["roots"][0]["re"] == "0" and float(rec["roots"][0]["im"]) == 0


def test_theta_zero_gives_the_exact_roots(run_cli):
    """theta = 0 (allowed by --help): the difference mode is the sum mode, the roots are
    exactly -mu and -L/D (L-fold), each twice; the verdict is stable."""
    status, out, err = run_cli(
        "roots", "--L", "3", "--mu", "2", "--lam", "1", "--theta", "0", "--D", "1", "--json"
    )
    assert status == 0 and err == ""
    rec = json.loads(out)
    assert [(f["factor"], f["mode"], f["multiplicity"]) for f in rec["factors"]] == [
        ("(r + 2)*(r + 3)**3", "sum", 2)
    ]
    assert [
        (t["re"][:6], t["im"], t["radius"], t.get("multiplicity", 1)) for t in rec["roots"]
    ] == [
        ("-2.000", "0", "0", 2),
        ("-3.000", "0", "0", 6),
    ]
    assert rec["verdict"] == "stable" and rec["unstable_count"] == rec["axis_count"] == 0
