"""A phase-type shape whose mean the command line leaves free: ``worst-delay`` and
``window`` over D rescale the shape's rates to mean D (the ``--D`` convention of the
phase-type options), so the worst mean delay and the unstable means of a hypoexponential
delay exist like the Erlang ones. Checked against the Erlang closed form, the critical
curve of the fixed-mean models and eigenvalues of the full Jacobian."""

from __future__ import annotations

import json

import mpmath
import numpy as np
import pytest
import sympy as sp

from symdelay.analysis.critical import critical
from symdelay.models import build_model

HYPO = ["--model", "phase_type", "--delay", "hypoexp", "--rates", "1,2,3", "--mu", "1", "--lam", "1"]  # fmt: skip


def _json(run_cli, *argv):
    status, out, err = run_cli(*argv, "--json")
    assert status == 0, err
    return json.loads(out)


def _unstable(D, theta):
    m = build_model("phase_type", delay="hypoexp", rates="1,2,3", D=D, mu=1, lam=1, theta=theta)
    ev = np.linalg.eigvals(np.array(m.jacobian.evalf(30).tolist(), dtype=float))
    return int(np.sum(ev.real > 1e-10))


def test_worst_mean_of_an_erlang_shape_is_the_closed_form(run_cli):
    rec = _json(run_cli, "worst-delay", "--model", "phase_type", "--delay", "erlang", "--L", "3",
                "--mu", "1", "--lam", "1")  # fmt: skip
    # D* = L/mu, theta* = mu sec^(L+1)(pi/(L+1)) / lam = sec^4(pi/4) = 4
    assert mpmath.mpf(rec["x_star"]) == 3 and mpmath.mpf(rec["critical"]) == 4


def test_worst_mean_of_a_hypoexponential_shape(run_cli):
    rec = _json(run_cli, "worst-delay", *HYPO)
    d_star, th_star = sp.Rational(rec["x_star"]), float(rec["critical"])
    around = [d_star * sp.Rational(k, 1000) for k in (990, 999, 1000, 1001, 1010)]
    curve = critical(
        build_model("phase_type", delay="hypoexp", rates="1,2,3", D=around[0], mu=1, lam=1),
        at=around,
    )
    th = [float(p.critical) for p in curve.points]
    assert abs(th[2] - th_star) < 1e-12 * th_star  # the curve passes through (D*, theta*)
    assert min(th) == th[2] and th[1] > th[2] < th[3]  # and is smallest there
    assert _unstable(d_star, sp.Rational(repr(th_star * (1 - 1e-6)))) == 0
    assert _unstable(d_star, sp.Rational(repr(th_star * (1 + 1e-6)))) == 2


def test_window_in_the_mean_of_a_hypoexponential_shape(run_cli):
    rec = _json(run_cli, "window", *HYPO, "--theta", "5")
    ((a, b),) = rec["intervals"]
    a, b = sp.Rational(a), sp.Rational(b)
    for end in (a, b):  # theta_c(end) = 5
        m = build_model("phase_type", delay="hypoexp", rates="1,2,3", D=end, mu=1, lam=1)
        assert abs(float(critical(m).critical) - 5) < 1e-12
    for D, n in ((a * sp.Rational(99, 100), 0), ((a + b) / 2, 2), (b * sp.Rational(101, 100), 0)):
        assert _unstable(D, 5) == n


@pytest.mark.parametrize("command", ["worst-delay", "window --theta 5"])
def test_a_given_mean_is_refused_where_it_is_varied(run_cli, command):
    status, _, err = run_cli(*command.split(), *HYPO, "--D", "2")
    assert status == 2 and err.count("\n") == 1 and "leave --D out" in err
