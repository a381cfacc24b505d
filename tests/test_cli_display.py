"""One display of numbers on the command line: complex numbers with their sign, a root printed
real exactly when its certificate proves it real, a printed radius that bounds the error of
the digits printed, aligned tables with grid points as their exact digits, one rule for an
option's text in every record, list-valued options read by one parser (``lo:hi:n`` and
``geom:lo:hi:n`` give the points of the comma list of the same values), and ``--help`` listing
only what a command takes."""

from __future__ import annotations

import json
import re
from fractions import Fraction

import mpmath
import pytest
import sympy as sp

from symdelay.analysis.roots import roots
from symdelay.cli import main as cli_main
from symdelay.core.numbers import certified_text
from symdelay.models import build_model

FOUND = ["--L", "2", "--mu", "1", "--lam", "1"]


def _run(capsys, argv):
    try:
        status = cli_main(argv)
    except SystemExit as exc:
        status = exc.code
    out = capsys.readouterr()
    return status, out.out, out.err


def _json(capsys, argv):
    status, out, err = _run(capsys, [*argv, "--json"])
    assert status == 0, err
    rec = json.loads(out)
    rec.pop("symdelay_version")
    return rec


# ----------------------------------------------------------------------- roots
#: (family, options) whose factors are polynomials: every root is listed
POLYNOMIAL_CASES = [
    ("erlang", {"L": 2, "mu": 1, "lam": 1, "theta": 2, "D": 1}),  # the example
    ("erlang", {"L": 3, "mu": 1, "lam": 1, "theta": "0.01", "D": 5}),  # three real roots
    ("erlang", {"L": 1, "mu": 1, "lam": 1, "theta": "0.01", "D": 1}),
    ("nserver", {"N": 3, "L": 2, "mu": 1, "lam": 1, "theta": "0.1", "D": 1}),  # generic path
    ("phase_type", {"delay": "hypoexp", "rates": "1,2", "mu": 1, "lam": 1, "theta": "0.01"}),
]

#: a root's line: "a", "a + bi" or "a - bi", then "+- radius"
LINE = re.compile(
    r"^(?P<re>-?[0-9.e+-]+?)(?: (?P<sign>[+-]) (?P<im>[0-9.e+-]+)i)?  \+- (?P<rad>\S+)$"
)


def _true_roots(factor, dps=80):
    """The factor's distinct roots by mpmath's polyroots at ``dps`` digits (an independent
    path), from its square-free part (a multiple root is then simple and found to ``dps``)."""
    r = sp.Symbol("r")
    coeffs = [sp.Rational(c) for c in sp.Poly(sp.expand(factor), r).sqf_part().all_coeffs()]
    with mpmath.workdps(dps):
        return mpmath.polyroots(
            [mpmath.mpf(int(c.p)) / int(c.q) for c in coeffs], maxsteps=400, extraprec=4 * dps
        )


@pytest.mark.parametrize(("family", "options"), POLYNOMIAL_CASES)
def test_roots_print_signed_and_real_only_when_certified(family, options):
    res = roots(build_model(family, **options), dps=25)
    r = sp.Symbol("r")
    for f in res.factors:
        listed = [z for z in res if z.mode == f.mode]
        true = _true_roots(f.factor)
        # the roots printed real are exactly the real roots of the factor (Sturm count)
        distinct_real = sp.Poly(sp.expand(f.factor), r).sqf_part().count_roots()
        printed_real = [z for z in listed if "i" not in z.text(25).split("+-")[0]]
        assert len(printed_real) == distinct_real, (f.factor, [z.text(25) for z in listed])
        assert all(z.is_real for z in printed_real)  # printed real: certified real
        for z in listed:
            m = LINE.match(z.text(25))
            assert m, z.text(25)
            with mpmath.workdps(80):
                shown = mpmath.mpc(
                    mpmath.mpf(m["re"]),
                    0 if m["im"] is None else mpmath.mpf(m["sign"] + m["im"]),
                )
                nearest = min(true, key=lambda t, s=shown: abs(t - s))
                # the radius bounds the distance from the printed digits to the root
                # (plus the reference's own error, 80 digits: a radius 0 is an exact root)
                slack = mpmath.mpf(10) ** -70
                assert abs(shown - nearest) <= mpmath.mpf(m["rad"]) + slack, z.text(25)
                if m["im"] is not None:  # the sign printed is the sign of Im r
                    assert (m["sign"] == "-") == (nearest.imag < 0)
                    assert abs(nearest.imag) > 0


def test_roots_text_has_a_sign_between_the_parts(capsys):
    """The issue's command: every complex root reads 'a + bi' or 'a - bi'."""
    status, out, err = _run(capsys, ["roots", *FOUND, "--theta", "2", "--D", "1", "--dps", "30"])
    assert status == 0, err
    lines = [s.split("   [")[0].strip() for s in out.splitlines() if "+-" in s]
    assert len(lines) == 5
    pair = [s for s in lines if "i  +-" in s]
    assert len(pair) == 2 and " + " in pair[0] and " - " in pair[1]
    assert not any(re.search(r"\d {2,}-?\d[^ ]*i", s) for s in lines)  # no unsigned part


def test_a_tiny_imaginary_part_prints_unless_proved_zero():
    z = mpmath.mpc(-5, "-1.18e-330")
    loose = certified_text(z, mpmath.mpf("1e-300"), 10)
    assert re.fullmatch(r"-5\.000000000 - 1\.18\d*e-330i  \+- \S+", loose), loose
    assert certified_text(z, mpmath.mpf("1e-300"), 10, real=True).startswith("-5.000000000  +-")


def test_roots_at_L_inf_are_signed(capsys):
    argv = ["roots", "--L", "inf", "--mu", "1", "--lam", "1", "--theta", "2", "--D", "1"]
    rec = _json(capsys, [*argv, "--dps", "20"])
    status, out, err = _run(capsys, [*argv, "--dps", "20"])
    assert status == 0, err
    lines = [s.split("   [")[0].strip() for s in out.splitlines() if "+-" in s]
    assert len(lines) == len(rec["roots"])
    for line, z in zip(lines, rec["roots"]):
        m = LINE.match(line)
        assert m and m["re"] == z["re"] and m["rad"] == z["radius"]
        if z["im"] == "0":
            assert m["im"] is None
        else:
            assert m["sign"] + m["im"] == (z["im"] if z["im"].startswith("-") else "+" + z["im"])


# ----------------------------------------------------------------------- tables
def _point_columns(line: str) -> list[int]:
    """For each number in ``line``: the position of its decimal point (or of its end)."""
    out = []
    for m in re.finditer(r"-?\d+(\.\d+)?(e[+-]?\d+)?", line):
        text = m.group(0)
        dot = text.find(".")
        out.append(m.start() + (dot if dot >= 0 else len(text.split("e")[0])))
    return out


def _aligned(rows: list[str]) -> bool:
    cols = [_point_columns(r) for r in rows]
    return all(c == cols[0] for c in cols)


def test_limit_cycle_range_table_is_aligned_with_exact_digits(capsys):
    status, out, err = _run(capsys, ["limit-cycle", *FOUND, "--D", "1", "--theta", "9.5:12:4"])
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["theta", "amplitude_x", "period", "max|rho|", "stable"]
    rows = lines[1:5]
    thetas = [Fraction(19, 2) + Fraction(5, 2) * k / 3 for k in range(4)]  # exact points
    shown = [r.split()[0] for r in rows]
    assert shown == [f"{float(q):.6g}" for q in thetas]  # 9.5, 10.1667, 10.8333, 12
    assert _aligned(rows)
    assert "4.444444444444445" not in out and not re.search(r"\d{12,}", out)


def test_critical_table_is_aligned(capsys):
    status, out, err = _run(capsys, ["critical", *FOUND, "--D", "geom:0.1:100:4", "--dps", "20"])
    assert status == 0, err
    lines = out.splitlines()
    assert lines[1].split() == ["D", "theta_c", "omega"]
    rows = lines[2:6]
    assert _aligned(rows)
    assert [r.split()[0] for r in rows] == ["0.1", "1", "10", "100"]


def test_text_table_aligns_on_the_point():
    from symdelay.core.numbers import text_table

    t = text_table(["a", "b"], [["1.5", "-0.25"], ["120", "3e-7"], ["-7.125", "inf"]])
    rows = t.splitlines()[1:]
    dots = {r.index(".") for r in rows if "." in r.split()[0]}
    assert len(dots) == 1
    assert len({len(r.rstrip()) for r in t.splitlines()}) <= 3


# -------------------------------------------------------------- lo:hi:n ranges
@pytest.mark.parametrize(
    ("grid", "listed"),
    [
        ("0.5:2:4", "0.5,1,1.5,2"),
        ("1:2:4", "1,4/3,5/3,2"),
        ("geom:1:100:3", "1,10,100"),
        ("3:3:1", "3"),
    ],
)
def test_critical_range_gives_the_points_of_the_list(capsys, grid, listed):
    a = _json(capsys, ["critical", *FOUND, "--D", grid])
    b = _json(capsys, ["critical", *FOUND, "--D", listed])
    assert a == b
    assert len(a["points"]) == len(listed.split(","))


def test_critical_range_on_a_generic_model(capsys):
    base = ["critical", "--model", "nserver", "--N", "3", *FOUND]
    assert _json(capsys, [*base, "--D", "1:2:3"]) == _json(capsys, [*base, "--D", "1,1.5,2"])


def test_limit_cycle_range_gives_the_points_of_the_list(capsys):
    base = ["limit-cycle", *FOUND, "--D", "1", "--theta"]
    a = _json(capsys, [*base, "9.5:10.5:4"])
    b = _json(capsys, [*base, "9.5,59/6,61/6,10.5"])
    assert a == b
    assert [p["theta"] for p in a["points"]] == ["9.5", "59/6", "61/6", "10.5"]


@pytest.mark.parametrize(
    "bad", ["1:2", "1:2:0", "1:2:x", "geom:0:1:3", "geom:-1:2:3", "1:2:1", "1:2:1000001"]
)
def test_a_bad_range_is_refused_naming_the_flag(capsys, bad):
    status, out, err = _run(capsys, ["critical", *FOUND, "--D", bad])
    assert status == 2 and not out and err.count("\n") == 1 and "--D" in err


# ---------------------------------------------------- one rule for option text
@pytest.mark.parametrize(("lam", "shown"), [("0.5", "0.5"), ("1/2", "0.5"), ("1/3", "1/3")])
def test_every_record_prints_an_option_alike(capsys, lam, shown):
    base = ["--L", "2", "--mu", "1", "--lam", lam]
    records = [
        _json(capsys, ["stability", *base, "--theta", "2", "--D", "1"]),
        _json(capsys, ["roots", *base, "--theta", "2", "--D", "1", "--dps", "15"]),
        _json(capsys, ["critical", *base, "--D", "1"]),
        _json(capsys, ["window", *base, "--theta", "30"]),
    ]
    assert [r["parameters"]["lam"] for r in records] == [shown] * 4


# ---------------------------------------------------------------- --help
@pytest.mark.parametrize(
    ("command", "flags"),
    # (worst-delay takes --theta with --param NAME: tests/test_cli_parity_flags.py)
    [("critical", ["--theta"]), ("verify", ["--mu", "--theta"])],
)
def test_help_lists_only_what_the_command_takes(capsys, command, flags):
    status, out, _ = _run(capsys, [command, "--help"])
    assert status == 0
    for flag in flags:
        assert not re.search(rf"^\s*{flag}[ ,]", out, re.M), flag
        argv = [command, "--L", "2", flag, "1"]
        if command == "verify":
            argv += ["--claim", "lam*theta < mu"]
        status, out2, err = _run(capsys, argv)
        assert status == 2 and not out2 and err.count("\n") == 1
        assert f"takes no {flag}" in err
