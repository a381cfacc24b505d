"""Phase-type fits: moments reproduced, convergence with the order, unsupported orders."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp

from symdelay.core.errors import SymdelayInputError
from symdelay.models.sqd import fit, fixed_point, parse_service_dist
from symdelay.models.sqd.service import mp_moment


@pytest.mark.parametrize("text", ["weibull:shape=0.5", "lognormal:scv=4", "gamma:scv=3"])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_hyperexp_fit_matches_2k_minus_1_moments(text, k):
    dist = parse_service_dist(text)
    f = fit(dist, k)
    assert f.phases == k and f.mean == 1
    for j in range(1, 2 * k):
        a, b = mp_moment(f, j), mp_moment(dist, j)
        assert abs(a - b) < mpmath.mpf(10) ** -8 * b, (j, a, b)


def test_tijms_two_moment_fit():
    dist = parse_service_dist("gamma:scv=0.3")
    f = fit(dist, 4, method="moments")
    assert f.phases == 4 and f.mean == 1
    assert abs(float(f.scv) - 0.3) < 1e-12
    with pytest.raises(SymdelayInputError, match="at least 4 phases"):
        fit(dist, 3, method="moments")


def test_discretised_erlang_mixture_converges():
    for text in ("deterministic", "weibull:shape=2", "lognormal:scv=0.5"):
        dist = parse_service_dist(text)
        errs = [abs(float(fit(dist, n).scv) - float(dist.scv)) for n in (4, 16, 64)]
        assert errs[0] > errs[1] > errs[2], (text, errs)
    det = fit(parse_service_dist("deterministic"), 8)
    assert det.scv == sp.Rational(1, 8)  # Erlang(8): the exact SCV


def test_fixed_point_sojourn_converges_with_fit_order():
    dist = parse_service_dist("weibull:shape=0.5")
    t = [float(fixed_point(2, "0.8", fit(dist, k)).mean_sojourn) for k in (1, 2, 3)]
    assert abs(t[2] - t[1]) < abs(t[1] - t[0])


@pytest.mark.parametrize(
    "text,order,method,words",
    [
        ("pareto:alpha=1.5", 2, "auto", "infinite"),
        ("deterministic", 3, "moments", "SCV 0"),
        ("weibull:shape=0.5", 0, "auto", "order must be"),
        ("lognormal:scv=4", 2, "bogus", "unknown fit method"),
    ],
)
def test_unsupported_orders_are_refused(text, order, method, words):
    with pytest.raises(SymdelayInputError, match=words):
        fit(parse_service_dist(text), order, method=method)


def test_bad_distributions():
    with pytest.raises(SymdelayInputError, match="finite mean"):
        parse_service_dist("pareto:alpha=1")
    with pytest.raises(SymdelayInputError, match="unknown service"):
        parse_service_dist("cauchy")
    with pytest.raises(SymdelayInputError, match="needs scv"):
        parse_service_dist("lognormal")
