"""``worst-delay`` answers for other models (nserver, in-flight, a model file, a phase-type
shape whose mean is left free): the delay minimising theta_c, checked by eigenvalues of the
full Jacobian (no root in the right half-plane just below theta* at D*, a pair just above)
and by the critical curve beside D* (theta_c is larger on both sides)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import symdelay
from symdelay.analysis.critical import critical
from symdelay.analysis.window import worst_delay
from symdelay.models import build_model

TOML = """
name = "two queues, Erlang(2) delay written by hand"
[parameters]
mu = "positive"
lam = "positive"
theta = "real"
gamma = "positive"
[state]
names = ["q1", "q2", "a1", "b1", "a2", "b2"]
[[transitions]]
change = { a1 = 1 }
rate = "2*lam*exp(-theta*q1)/(exp(-theta*q1) + exp(-theta*q2))"
[[transitions]]
change = { a2 = 1 }
rate = "2*lam*exp(-theta*q2)/(exp(-theta*q1) + exp(-theta*q2))"
[[transitions]]
change = { a1 = -1, b1 = 1 }
rate = "gamma*a1"
[[transitions]]
change = { a2 = -1, b2 = 1 }
rate = "gamma*a2"
[[transitions]]
change = { b1 = -1, q1 = 1 }
rate = "gamma*b1"
[[transitions]]
change = { b2 = -1, q2 = 1 }
rate = "gamma*b2"
[[transitions]]
change = { q1 = -1 }
rate = "mu*q1"
[[transitions]]
change = { q2 = -1 }
rate = "mu*q2"
[symmetry]
swap = [["q1", "q2"], ["a1", "a2"], ["b1", "b2"]]
"""


def _erlang2(x):  # the mean delay D of an Erlang(2) chain: its phase rate gamma = 2/D
    return {"gamma": 2 / x}


CASES = [
    ("nserver N=3 L=2", lambda p: build_model("nserver", N=3, L=2, mu=1, lam=1), "D", _erlang2),
    (
        "inflight L=2 kappa=1/20",
        lambda p: build_model("inflight", L=2, kappa=sp.Rational(1, 20), mu=1, lam=1),
        "D",
        _erlang2,
    ),
    (
        "hypoexp 1,2,3 mean D",
        lambda p: build_model("phase_type", delay="hypoexp", rates="1,2,3", D="D", mu=1, lam=1),
        "D",
        lambda x: {"D": x},
    ),
    (
        "model file, over gamma",
        lambda p: symdelay.load_toml(p, mu=1, lam=1),
        "gamma",
        lambda x: {"gamma": x},
    ),
]


def _unstable(model, **values) -> int:
    J = model.with_values(**values).jacobian
    ev = np.linalg.eigvals(np.array(J.evalf(30).tolist(), dtype=float))
    return int(np.sum(ev.real > 1e-10))


@pytest.mark.parametrize("name, make, over, at", CASES, ids=[c[0] for c in CASES])
def test_worst_delay_confirmed_by_eigenvalues(tmp_path, name, make, over, at):
    path = tmp_path / "erlang2.toml"
    path.write_text(TOML)
    m = make(str(path))
    e = worst_delay(m, over, dps=15)
    x, th = sp.Rational(repr(float(e.x_star))), float(e.critical)
    assert e.attained and np.isfinite(th)
    below, above = (sp.Rational(repr(th * f)) for f in (1 - 1e-6, 1 + 1e-6))
    assert _unstable(m, **at(x), theta=below) == 0
    assert _unstable(m, **at(x), theta=above) >= 2
    # theta_c beside x* is larger (x* is a minimum, not just a crossing)
    side = critical(m, at=[x * sp.Rational(9, 10), x * sp.Rational(11, 10)], over=over)
    assert all(float(p.critical) > th for p in side.points)
