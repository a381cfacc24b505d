"""One exact-conversion rule for every number that enters (property tests).

Decimal strings are drawn over 1e-300..1e300 (up to 25 significant digits, in plain,
point and exponent notation) and as 1 +- 1 ulp at 25 digits. The value each string
denotes is built here independently of any parser, as ``m * 10**e`` from the drawn digits,
and every command must report a result consistent with that exact value: the charpoly's
coefficients equal an independent SymPy expression, D* = L/mu, theta_c agrees with a
Routh-Hurwitz boundary derived here, kappa* agrees with unstable-theta on both sides.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
from pathlib import Path

import mpmath
import pytest
import sympy as sp
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from symdelay.cli import main as cli_main
from symdelay.core.errors import SymdelayInputError
from symdelay.core.params import as_parameter, exact_decimal, exact_number
from symdelay.core.parsing import parse_expression, parse_output
from symdelay.core.symbols import gamma, lam, mu, r

ERLANG2 = Path(__file__).resolve().parents[1] / "examples" / "models" / "erlang2.toml"

SETTINGS = settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


# ----------------------------------------------------------------------------- inputs
def _texts(m: int, e: int, style: str) -> str:
    """A decimal string for ``m * 10**e`` written in ``style``."""
    s = str(m)
    if style == "point":  # d.ddd e k
        return f"{s[0]}.{s[1:] or '0'}e{e + len(s) - 1}"
    if style == "plain" and -40 <= e <= 40:
        if e >= 0:
            return s + "0" * e
        s = s.rjust(-e + 1, "0")
        return f"{s[:e]}.{s[e:]}"
    return f"{m}e{e}"


@st.composite
def wide_decimals(draw):
    """(text, exact value) with value in [1e-300, 1e300)."""
    digits = draw(st.integers(1, 25))
    m = draw(st.integers(10 ** (digits - 1), 10**digits - 1))
    e = draw(st.integers(-300 - (digits - 1), 300 - digits))
    style = draw(st.sampled_from(["exp", "point", "plain"]))
    return _texts(m, e, style), sp.Integer(m) * sp.Rational(10) ** e


@st.composite
def ulp_decimals(draw):
    """(text, exact value): a 25-digit number (often 1) moved by +-1 unit in the last place."""
    base = draw(st.sampled_from([10**24]) | st.integers(10**24, 10**25 - 2))
    m = base + draw(st.sampled_from([-1, 1]))
    e = -24 + draw(st.sampled_from([0, 0, 0, -3, 5]))
    style = draw(st.sampled_from(["point", "plain", "exp"]))
    return _texts(m, e, style), sp.Integer(m) * sp.Rational(10) ** e


NUMBERS = wide_decimals() | ulp_decimals()


def _run(*argv):
    """The CLI in-process: (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli_main([str(a) for a in argv])
    return status, out.getvalue(), err.getvalue()


def _json(*argv) -> dict:
    status, out, err = _run(*argv, "--json")
    assert status == 0 and err == "", err
    return json.loads(out)


def _mp(x) -> mpmath.mpf:
    x = sp.Rational(x)
    return mpmath.mpf(int(x.p)) / int(x.q)


def _close(text: str, exact, dps: int) -> bool:
    """A printed dps-digit number agrees with the exact value to its digits."""
    with mpmath.workdps(dps + 30):
        got, want = mpmath.mpf(text), _mp(exact) if not isinstance(exact, mpmath.mpf) else exact
        return abs(got - want) <= abs(want) * mpmath.mpf(10) ** (1 - dps)


def _significant(text: str) -> int:
    mant = text.lower().split("e")[0].lstrip("+-").replace(".", "").lstrip("0")
    return len(mant)


# --------------------------------------------------------------------------- the rule
@SETTINGS
@given(NUMBERS)
@example(("1e33", sp.Integer(10) ** 33))
@example(("1.0000000000000000000001", 1 + sp.Rational(1, 10**22)))
@example(("1e-400", sp.Rational(1, 10**400)))
def test_decimal_text_is_the_rational_it_denotes(item):
    text, value = item
    assert exact_number("x", text) == value
    assert as_parameter("x", text) == value
    assert parse_expression(text) == value  # a literal inside an expression, from its text
    assert parse_expression(f"2*({text})") == 2 * value
    assert exact_number("x", exact_decimal(value)) == value  # printing back is exact


@SETTINGS
@given(st.floats(min_value=1e-300, max_value=1e300, allow_nan=False))
def test_a_float_is_the_rational_of_its_shortest_repr(x):
    q = exact_number("x", x)
    assert float(q) == x  # the nearest double is x itself
    text = exact_decimal(q)  # a terminating decimal ...
    assert text is not None
    assert len(text.split("e")[0].replace(".", "").strip("0")) <= 17  # ... of <= 17 digits
    assert q == sp.Rational(repr(x))


@pytest.mark.parametrize("bad", ["nan", "inf", "-inf", "NaN", float("nan"), float("inf"), sp.oo])
def test_nan_and_inf_are_refused_naming_the_parameter(bad):
    with pytest.raises(SymdelayInputError, match="mu must be a finite number: nan and inf"):
        as_parameter("mu", bad)


def test_set_nan_says_it_is_not_a_number(tmp_path):
    status, out, err = _run("analyze", "--model-file", str(ERLANG2), "--set", "mu=nan")
    assert status == 2 and out == "" and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert "mu must be a finite number: nan and inf are not numbers" in err


# ------------------------------------------------------------------------- charpoly
@SETTINGS
@given(st.integers(1, 3), NUMBERS, NUMBERS, NUMBERS, NUMBERS)
@example(
    2,
    ("1", sp.Integer(1)),
    ("1", sp.Integer(1)),
    ("1", sp.Integer(1)),
    ("1e33", sp.Integer(10) ** 33),
)
@example(
    2,
    ("1", sp.Integer(1)),
    ("1", sp.Integer(1)),
    ("1", sp.Integer(1)),
    ("1e40", sp.Integer(10) ** 40),
)
@example(
    2,
    ("1", sp.Integer(1)),
    ("1", sp.Integer(1)),
    ("1", sp.Integer(1)),
    ("1.0000000000000000000001", 1 + sp.Rational(1, 10**22)),
)
def test_charpoly_coefficients_are_those_of_the_exact_input(n, m, lm, th, d):
    rec = _json("charpoly", "--L", n, "--mu", m[0], "--lam", lm[0], "--theta", th[0], "--D", d[0])
    got = parse_output(rec["polynomial"])
    g = sp.Integer(n) / d[1]
    want = (r + m[1]) * (r + g) ** n + lm[1] * th[1] * g**n
    assert sp.Poly(got, r).all_coeffs() == sp.Poly(sp.expand(want), r).all_coeffs()


def test_charpoly_with_huge_coefficients_prints_the_closed_form():
    """gamma^L with 90000 digits: the founding factors keep it a power, printed exactly
    and briefly (the expanded coefficients would not print)."""
    status, out, err = _run(
        "charpoly", "--L", "300", "--D", "1e-300", "--lam", "3", "--theta", "1", "--json"
    )
    assert status == 0 and err == "" and len(out) < 5000
    rec = json.loads(out)
    g = sp.Integer(3) * sp.Integer(10) ** 302
    poly = parse_output(rec["polynomial"])
    assert poly.has(sp.Pow(r + g, 300)) and "**300" in rec["polynomial"]
    assert sp.simplify(poly - (r + sp.Symbol("mu")) * (r + g) ** 300 - 3 * g**300) == 0


# --------------------------------------------------------------------- worst delay
def _exact_or_rounded(text: str, exact, dps: int) -> bool:
    """Either the exact value, or a rounded number showing dps digits that agrees."""
    try:
        if exact_number("x", text) == exact:
            return True
    except SymdelayInputError:
        pass
    return _significant(text) == dps and _close(text, exact, dps)


@SETTINGS
@given(st.sampled_from([2, 3, 4]), NUMBERS, NUMBERS, st.sampled_from([15, 30]))
@example(3, ("1e40", sp.Integer(10) ** 40), ("1", sp.Integer(1)), 15)
@example(3, ("1.000000000000000000001", 1 + sp.Rational(1, 10**21)), ("3", sp.Integer(3)), 15)
def test_worst_delay_is_L_over_mu_exactly(n, m, lm, dps):
    rec = _json("worst-delay", "--L", n, "--mu", m[0], "--lam", lm[0], "--dps", dps)
    D_star = sp.Integer(n) / m[1]
    # the family's closed form D* = L/mu, read back and evaluated at the exact input
    closed = sp.sympify(rec["closed_form"]["D_star"]).subs(sp.Symbol("mu"), m[1])
    assert closed == D_star
    assert _close(rec["D_star"], D_star, dps)
    with mpmath.workdps(dps + 30):
        # theta* = (mu/lam) / cos(pi/(L+1))**(L+1), at the Hopf point gamma = mu
        th = _mp(m[1] / lm[1]) / mpmath.cos(mpmath.pi / (n + 1)) ** (n + 1)
        assert _close(rec["theta_star"], th, dps)
        assert _close(rec["omega"][0], _mp(m[1]) * mpmath.tan(mpmath.pi / (n + 1)), dps)
    th_exact = sp.sympify(rec["closed_form"]["theta_star"]).subs(
        {sp.Symbol("mu"): m[1], sp.Symbol("lam"): lm[1]})  # fmt: skip
    if n in (2, 3):  # cos(pi/3)**-3 = 8, cos(pi/4)**-4 = 4: rational
        assert th_exact == {2: 8, 3: 4}[n] * m[1] / lm[1]


# ------------------------------------------------------------------------ critical
def _hurwitz_boundary(n: int, m, g):
    """lam*theta and omega**2 where (r+mu)(r+g)^n + k g^n has roots +-i omega (n = 2, 3),
    from the Hurwitz determinants of the exact polynomial."""
    k = sp.Symbol("k")
    a = sp.Poly(sp.expand((r + m) * (r + g) ** n + k * g**n), r).all_coeffs()
    if n == 2:
        _, a2, a1, a0 = a
        kc = sp.solve(sp.Eq(a2 * a1, a0), k)[0]
        return kc, a1
    _, a3, a2, a1, a0 = a
    kc = sp.solve(sp.Eq(a3 * a2 * a1 - a1**2 - a3**2 * a0, 0), k)[0]
    return kc, a1 / a3


@SETTINGS
@given(st.sampled_from([2, 3]), NUMBERS, NUMBERS, NUMBERS, st.sampled_from([15, 25]))
@example(2, ("1", sp.Integer(1)), ("1", sp.Integer(1)), ("1e300", sp.Integer(10) ** 300), 15)
def test_critical_theta_is_the_hurwitz_boundary_of_the_exact_input(n, m, lm, d, dps):
    rec = _json("critical", "--L", n, "--mu", m[0], "--lam", lm[0], "--D", d[0], "--dps", dps)
    (pt,) = rec["points"]
    kc, w2 = _hurwitz_boundary(n, m[1], sp.Integer(n) / d[1])
    assert _close(pt["theta_c"], kc / lm[1], dps)
    with mpmath.workdps(dps + 30):
        assert _close(pt["omega"], mpmath.sqrt(_mp(w2)), dps)


# ------------------------------------------------------- kappa-star vs unstable-theta
def _intervals(L, kappa: str, m: str, d: str):
    return _json("unstable-theta", "--L", L, "--kappa", kappa, "--mu", m, "--D", d, "--dps", 20)[
        "intervals"
    ]


@settings(SETTINGS, max_examples=6)
@given(st.sampled_from([2, 3]), NUMBERS, NUMBERS)
@example(2, ("1", sp.Integer(1)), ("1e200", sp.Integer(10) ** 200))
@example(2, ("1", sp.Integer(1)), ("1e100", sp.Integer(10) ** 100))
@example(2, ("1", sp.Integer(1)), ("1e300", sp.Integer(10) ** 300))
def test_kappa_star_agrees_with_unstable_theta(n, m, d):
    dps = 20
    rec = _json("kappa-star", "--L", n, "--mu", m[0], "--D", d[0], "--dps", dps)
    ks = rec["kappa_star"]
    with mpmath.workdps(dps + 30):
        k = mpmath.mpf(ks)
        assert k > 0  # counting no job in flight is unstable for some theta (L >= 2) ...
        below, above = (mpmath.nstr(k * (1 + s * mpmath.mpf(10) ** -6), 25) for s in (-1, 1))
        if n == 2:  # the closed form evaluated here from the exact gamma = 2/D and mu
            g, mm = _mp(2 / d[1]), _mp(m[1])
            cf = (g / (g + mm + mpmath.sqrt(2 * g * (2 * g + mm)))) ** 2
            assert abs(k - cf) <= cf * mpmath.mpf(10) ** (1 - dps)
    assert _intervals(n, "0", m[0], d[0])  # ... which unstable-theta confirms
    assert _intervals(n, below, m[0], d[0])  # just below kappa*: still unstable somewhere
    assert _intervals(n, above, m[0], d[0]) == []  # just above: stable for every theta
    # kappa* depends on mu*D only: the exact product gives the same number
    prod = exact_decimal(m[1] * d[1]) or str(m[1] * d[1])
    assert _close(_json("kappa-star", "--L", n, "--D", prod, "--dps", dps)["kappa_star"], k, dps)


# ----------------------------------------------------------------- printed outputs
def test_simulate_huge_rate_is_refused_as_written():
    status, out, err = _run("simulate", "--L", "1", "--lam", "1e308", "--eta", "10")
    assert status == 2 and out == ""
    assert "lam" in err and err.count("\n") == 1 and "0" * 30 not in err


def test_csv_and_json_grids_are_shortest_reprs():
    model = ("--model-file", str(ERLANG2))
    sets = ("--set", "mu=1", "--set", "lam=1", "--set", "theta=2", "--set", "gamma=2")
    rec = _json("fluid", *model, *sets, "--T", "2", "--dt", "0.1")
    assert rec["t"] == [k / 10 for k in range(21)]  # k/10: the double nearest k * 0.1
    status, out, _ = _run("fluid", *model, *sets, "--T", "2", "--dt", "0.1", "--csv", "-")
    assert status == 0
    rows = [line.split(",") for line in out.splitlines() if line and line[0].isdigit()]
    assert [row[0] for row in rows] == [repr(k / 10).removesuffix(".0") for k in range(21)]
    for row in rows:
        for cell in row:
            assert cell in (repr(float(cell)), repr(float(cell)).removesuffix(".0"))
            assert math.isfinite(float(cell))


def test_kappa_star_prints_the_inputs_as_written():
    rec = _json("kappa-star", "--L", "2", "--D", "1e200")
    D = rec["parameters"]["D"]
    assert D == "1e+200" and exact_number("D", D) == sp.Integer(10) ** 200


def test_symbols_stay_symbols_and_floats_inside_become_exact():
    assert as_parameter("D", "2*mu") == 2 * mu
    assert as_parameter("theta", sp.Float("1e-40") * lam, positive=False) == lam / 10**40
    assert as_parameter("theta", "1e-40*gamma", positive=False) == gamma / 10**40


@pytest.mark.parametrize(
    ("argv", "check"),
    [
        (
            ("kappa-star", "--L", "2", "--D", "1e20000"),
            ("kappa_star", 4 * sp.Rational(1, 10**40000)),
        ),
        (
            ("worst-delay", "--L", "3", "--mu", "1e20000", "--lam", "1"),
            ("D_star", sp.Rational(3, 10**20000)),
        ),
        (("critical", "--L", "2", "--mu", "1e20000", "--lam", "1", "--D", "1e-20000"), None),
    ],
)
def test_numbers_beyond_python_int_printing_give_a_value_not_a_traceback(argv, check):
    # 1e20000 has more digits than Python prints as an int: results come from mpmath
    status, out, err = _run(*argv, "--json")
    assert status == 0 and err == ""
    rec = json.loads(out)
    if check is None:  # L = 2: lam*theta_c = 2 (gamma + mu)**2 / gamma with gamma = 2e20000
        g, m = 2 * sp.Integer(10) ** 20000, sp.Integer(10) ** 20000
        assert _close(rec["points"][0]["theta_c"], 2 * (g + m) ** 2 / g, 15)
        assert rec["closed_forms"]["theta_c_of_D"] is None  # its digits cannot be printed
    else:
        key, value = check
        assert _close(rec[key], value, 15 if key == "D_star" else 30)


@pytest.mark.parametrize("D", ["1e40", "1e-20", "1"])
def test_spectrum_variance_is_the_exact_lyapunov_solution(D):
    # the float Lyapunov solve printed Var = -6e23 at D = 1e40 (eigenvalues over 40 decades)
    from symdelay.core.symbols import theta
    from symdelay.models.erlang.nonlinear.spectrum import spectrum
    from symdelay.models.erlang.stochastic.variance import lna_matrices

    As, Bs = lna_matrices(2)
    vals = {mu: 1, lam: 1, theta: 1, gamma: 2 / exact_number("D", D)}
    A, B = As.subs(vals), Bs.subs(vals)
    xs = sp.symbols("x0:9")
    X = sp.Matrix(3, 3, lambda i, j: xs[3 * min(i, j) + max(i, j)])
    eqs = list(A * X + X * A.T + B)
    sol = sp.solve(eqs, [s for s in xs if s in X.free_symbols], dict=True)[0]
    want = X[0, 0].subs(sol)
    got = spectrum(2, mu=1, lam=1, theta=1, D=D, points=101).variance
    assert want > 0 and abs(got - float(want)) <= 1e-12 * float(want)


def test_toml_values_are_the_decimals_written_in_the_file(tmp_path):
    # tomllib reads 1.0000000000000000000001 as the float 1.0: symdelay reads the text
    base = ERLANG2.read_text()
    path = tmp_path / "m.toml"
    path.write_text(
        base + "\n[values]\nmu = 1.0000000000000000000001\nlam = 1\ntheta = 2\ngamma = 1e-40\n"
    )
    rec = _json("charpoly", "--model-file", str(path))
    (summ,) = [parse_output(f["factor"]) for f in rec["factors"] if f["mode"] == "sum"]
    m, g = 1 + sp.Rational(1, 10**22), sp.Rational(1, 10**40)
    want = {sp.expand(r + m), sp.expand(r + g)}  # service and delay-phase rates of the sum
    assert {sp.expand(sp.Poly(f, r).monic().as_expr()) for f, _ in sp.factor_list(summ)[1]} == want
    path.write_text(base + "\n[values]\nmu = nan\n")
    status, out, err = _run("charpoly", "--model-file", str(path))
    assert status == 2 and out == "" and "mu must be a finite number: nan and inf" in err


# ------------------------------------------------------- roots: clusters, theta = 0 (#36)
def _roots_json(*argv, mode=None):
    """The record and its roots with multiplicity (only those of ``mode``, if given)."""
    rec = _json("roots", *argv)
    with mpmath.workdps(rec["dps"] + 40):
        vals = []
        for z in rec["roots"]:
            if mode is not None and z["mode"] != mode:
                continue
            v = mpmath.mpc(mpmath.mpf(z["re"]), mpmath.mpf(z["im"]))
            vals += [v] * z.get("multiplicity", 1)
    return rec, vals


@pytest.mark.parametrize(
    ("L", "mu", "theta", "D", "dps"),
    [
        (3, "1", "1e-300", "1", 400),  # the cluster: 3 roots within 2.4e-100 of -3
        (3, "1", "1e-300", "1", 20),
        (4, "3", "-1e-200", "2", 30),  # theta < 0, gamma = 2 != mu
        (3, "3", "1e-300", "1", 30),  # mu = gamma: all 4 roots in one cluster at -3
        (2, "1e400", "1", "1", 30),  # mu and gamma 1e400 apart
        (2, "1", "1", "1e-400", 30),  # gamma = 2e400
    ],
)
def test_clustered_and_far_apart_roots_are_certified(L, mu, theta, D, dps):
    """Item 7: every root of (r + mu)(r + gamma)^L + lam theta gamma^L, L + 1 of them (with
    multiplicity), checked against Vieta's sum and product (exact) and, for a cluster, the
    first-order offsets (r + gamma)^L = lam theta gamma^L / (gamma - mu) (independent)."""
    rec, roots = _roots_json("--L", L, "--mu", mu, "--lam", "1", "--theta", theta, "--D", D,
                             "--dps", dps, mode="difference")  # fmt: skip
    assert len(roots) == L + 1
    # the sum mode (r + mu)(r + gamma)^L beside it, exact
    with mpmath.workdps(dps + 40):
        sums = sorted((mpmath.mpf(z["re"]), z.get("multiplicity", 1)) for z in rec["roots"]
                      if z["mode"] == "sum")  # fmt: skip
    g_ = L / sp.Rational(D)
    want = {-sp.Rational(mu): 1}
    want[-g_] = want.get(-g_, 0) + L
    assert [m for _, m in sums] == [want[k] for k in sorted(want)]
    with mpmath.workdps(dps + 40):
        for (v, _), k in zip(sums, sorted(want)):
            assert abs(v - _mp(k)) <= abs(_mp(k)) * mpmath.mpf(10) ** (1 - dps)
    m, th, g = sp.Rational(mu), sp.Rational(theta), L / sp.Rational(D)
    with mpmath.workdps(dps + 40):
        total = mpmath.fsum(roots)
        prod = mpmath.fprod(roots)
        want_sum, want_prod = _mp(-(m + L * g)), _mp((-1) ** (L + 1) * (m + th) * g**L)
        assert abs(total - want_sum) <= abs(want_sum) * mpmath.mpf(10) ** (2 - dps)
        assert abs(prod - want_prod) <= abs(want_prod) * mpmath.mpf(10) ** (2 - dps)
        rho_L = _mp(th * g**L / (g - m)) if m != g else None
        # the offsets are in the printed digits when dps reaches below the cluster's radius
        if rho_L is not None and abs(th) < 1e-100 and -mpmath.log10(abs(rho_L)) / L < dps - 30:
            offsets = sorted((r + _mp(g) for r in roots if abs(r + _mp(g)) < 1),
                             key=lambda z: (float(mpmath.arg(z)),))  # fmt: skip
            assert len(offsets) == L
            for z in offsets:  # each offset an L-th root of rho_L, to first order
                assert abs(z**L / rho_L - 1) < mpmath.mpf(10) ** -20
    assert rec["unstable_count"] == 0 or th < 0 or m > 10**300  # stable or as counted


def test_theta_zero_is_answered_exactly():
    """``--help`` allows theta >= 0: at theta = 0 both modes are (r + mu)(r + gamma)^L, so
    the spectrum is -mu twice and -gamma 2L times, exactly."""
    rec, _ = _roots_json("--L", 3, "--mu", 1, "--lam", 1, "--theta", 0, "--D", 1)
    assert [(z["re"].startswith("-1."), z.get("multiplicity", 1)) for z in rec["roots"]] == [
        (True, 2),
        (False, 6),
    ]
    assert rec["unstable_count"] == 0 and rec["axis_count"] == 0
    rec, _ = _roots_json("--L", 3, "--mu", 3, "--lam", 1, "--theta", 0, "--D", 1)
    assert [z.get("multiplicity", 1) for z in rec["roots"]] == [8]  # mu = gamma = 3
    rec, _ = _roots_json("--L", "inf", "--mu", 2, "--lam", 1, "--theta", 0, "--D", 1)
    assert [z["re"][:4] for z in rec["roots"]] == ["-2.0"]


@pytest.mark.parametrize(
    "argv",
    [
        ["roots", "--L", "2", "--mu", "1e400", "--lam", "1", "--theta", "1", "--D", "1"],
        ["roots", "--L", "2", "--mu", "1", "--lam", "1", "--D", "1", "--theta", "1e99999"],
        ["map", "--L", "2", "--mu", "1", "--lam", "1", "--x", "D=0.1:1e400", "--y",
         "theta=0:1e400", "--cells", "4", "--seeds", "3"],
        ["stability", "--L", "2", "--mu", "1", "--lam", "1", "--D", "1", "--theta", "7e4999"],
        ["verify", "--L", "2", "--claim", "lam*theta < 10**20*mu"],
        ["sqd", "fixed-point", "--service", "hyperexp", "--probs", "0.5,0.5", "--rates", "1,3",
         "--mean", "1e-400"],
        ["sqd", "fluid", "--lam", "0.5", "--T", "2", "--points", "3", "--mean", "1e-300"],
        ["fluid", "--model", "nserver", "--N", "3", "--L", "2", "--lam", "1", "--T", "2",
         "--dt", "0.5", "--mu", "99999999999999999999"],
        ["optimize-weights", "--L", "2", "--theta", "5", "--criterion", "variance",
         "--kappa-max", "1e300"],
    ],
)  # fmt: skip
def test_values_beyond_double_range_get_an_answer_or_one_line(argv):
    """Item 6: an answer (exit 0), or one line naming the cause (exit 2); never exit 70, 1,
    a traceback or a warning on stderr."""
    import warnings

    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        status, out, err = _run(*argv)
    shown = [w for w in said if not issubclass(w.category, DeprecationWarning)]
    assert status in (0, 2), (argv, status, err)
    assert "Traceback" not in err and "internal error" not in err and not shown, (err, shown)
    if status:
        assert err.count("\n") == 1 and err.startswith("symdelay: error:")
    else:  # an answer, not a number made of rounding noise
        assert " nan" not in out.lower() and '"nan"' not in out.lower(), out[:300]
