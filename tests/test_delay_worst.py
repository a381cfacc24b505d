"""The worst delay of delay models (extremum kind="min" over a constant lag): the infimum
statement against closed forms. For r + mu + lam theta e^{-r D} theta_c(D) decreases to
mu/lam as D -> oo (no interior minimum: approached, not attained); for
r^2 + a r + b + theta e^{-r D} with b > a^2/2 the crossing curve folds at
omega*^2 = b - a^2/2, theta*^2 = a^2 b - a^4/4 (attained, at a finite D*)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import mpmath
import pytest
import sympy as sp

from symdelay.analysis.lagextremum import lag_extremum
from symdelay.analysis.lagswitch import critical_lag_curve
from symdelay.analysis.window import extremum, worst_delay
from symdelay.core.errors import SymdelayInputError
from symdelay.model import load_toml

ROOT = Path(__file__).resolve().parents[1]
INFO = ROOT / "examples" / "models" / "information_delay.toml"
r, D, th = sp.symbols("r D theta")


@pytest.mark.parametrize(("mu", "lam"), [(1, 1), (1, 2), ("3/2", "1/3")])
def test_information_lag_infimum_is_mu_over_lam_approached_as_D_grows(mu, lam):
    m = load_toml(INFO).with_values(mu=mu, lam=lam)
    e = worst_delay(m, dps=20)
    rec = e.to_json()
    assert e.x_star == mpmath.inf and not e.attained and rec["D_star"] == "inf"
    assert e.critical == pytest.approx(float(sp.Rational(mu) / sp.Rational(lam)), rel=1e-18)
    assert any("approached as D -> oo" in n for n in rec["method"]["notes"])
    # theta_c(D) > theta* at every D, and decreases towards it: the critical lag of a theta
    # just above theta* is large, of a larger theta smaller (the independent first crossing)
    star = sp.Rational(mu) / sp.Rational(lam)
    (t1, _), (t2, _), (t0, _) = critical_lag_curve(
        r + sp.Rational(mu) + sp.Rational(lam) * th * sp.exp(-r * D),
        D, th, [star * sp.Rational(1001, 1000), star * 2, star * sp.Rational(999, 1000)],
    )  # fmt: skip
    assert t0 == mpmath.inf and mpmath.inf > t1 > t2 > 0


@pytest.mark.parametrize(("a", "b"), [(1, 1), ("1/2", 2), (2, 3)])
def test_fold_is_attained_at_the_closed_form(a, b):
    a, b = sp.Rational(a), sp.Rational(b)
    F = r**2 + a * r + b + th * sp.exp(-r * D)
    e = lag_extremum(F, D, th, dps=25)
    with mpmath.workdps(40):
        star = mpmath.sqrt(mpmath.mpf(sp.N(a**2 * b - a**4 / 4, 50)))
        om = mpmath.sqrt(mpmath.mpf(sp.N(b - a**2 / 2, 50)))
        assert e.attained and abs(e.critical - star) < mpmath.mpf(10) ** -22
        assert abs(e.omega[0] - om) < mpmath.mpf(10) ** -20
        # direct root check: r = i omega* is a root at (theta*, D*)
        z = 1j * e.omega[0]
        val = z**2 + mpmath.mpf(sp.N(a, 50)) * z + mpmath.mpf(sp.N(b, 50))
        val += e.critical * mpmath.exp(-z * e.x_star)
        assert abs(val) < mpmath.mpf(10) ** -18
    # the first critical lag of theta just above theta* tends to D*
    ((tc, _),) = critical_lag_curve(F, D, th, [sp.Rational(mpmath.nstr(star * (1 + 1e-9), 20))])
    assert abs(tc - e.x_star) < 1e-2


def test_no_fold_infimum_at_zero_frequency():
    F = r**2 + 2 * r + 1 + th * sp.exp(-r * D)  # b = 1 < a^2/2 = 2: theta* = b, not attained
    e = lag_extremum(F, D, th, dps=15)
    assert e.x_star == mpmath.inf and not e.attained and e.critical == 1


def test_refusals_one_line():
    m = load_toml(INFO).with_values(mu=1, lam=1)
    with pytest.raises(SymdelayInputError, match="kind='min'"):
        extremum(m, "D", kind="max")
    with pytest.raises(SymdelayInputError, match="whole domain"):
        worst_delay(m, lo=1, hi=3)
    with pytest.raises(SymdelayInputError, match="neutral"):
        lag_extremum(r + 1 + th * r * sp.exp(-r * D), D, th)


def test_cli_worst_delay_of_a_model_file():
    cmd = [sys.executable, "-m", "symdelay", "worst-delay", "--model-file", str(INFO)]
    out = subprocess.run([*cmd, "--set", "mu=1", "--set", "lam=4", "--json"],
                         capture_output=True, text=True)  # fmt: skip
    assert out.returncode == 0, out.stderr
    rec = json.loads(out.stdout)
    assert rec["D_star"] == "inf" and rec["attained"] is False
    assert mpmath.mpf(rec["theta_star"]) == mpmath.mpf("0.25")
