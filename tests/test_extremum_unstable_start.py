"""An extremum of the first unstable value of a parameter that stabilises (mu: unstable for
mu below its crossing) is refused instead of naming an arbitrary point of a flat minimum;
a destabilising parameter (lam) keeps its answer, checked against the Hurwitz closed form."""

import subprocess
import sys

import mpmath
import pytest

from symdelay import critical, worst_delay
from symdelay.core.errors import SymdelayInputError
from symdelay.models import build_model


def test_stabilising_parameter_refused():
    m = build_model("erlang", L=2, lam=1, theta=4)
    with pytest.raises(SymdelayInputError, match="unstable just above mu = 0"):
        worst_delay(m, param="mu")
    # the crossing critical gives at D = 4 is not 0: (r+mu)(r+1/2)^2 + 1 has its Hopf
    # crossing at mu = 1/2 (unstable below it)
    pt = critical(m, param="mu", over="D", at=["4"]).point_records()[0]
    assert mpmath.almosteq(mpmath.mpf(pt["mu_c"]), 0.5, 1e-14)
    out = subprocess.run(
        [sys.executable, "-m", "symdelay", "worst-delay", "--param", "mu", "--theta", "4",
         "--lam", "1", "--L", "2"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1
    assert "Traceback" not in out.stderr


def test_destabilising_parameter_answers():
    # L = 2, mu = 1: lam theta < 4/D + 4 + D (Hurwitz), smallest at D = 2: lam* = 8/theta
    w = worst_delay(build_model("erlang", L=2, mu=1, theta=4), param="lam").to_json()
    assert mpmath.almosteq(mpmath.mpf(w["D_star"]), 2, 1e-13)
    assert mpmath.almosteq(mpmath.mpf(w["lam_star"]), 2, 1e-13)
