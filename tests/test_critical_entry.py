"""The one entry of the critical parameter, ``critical(model, ...)``: the founding model's
fast path (Hopf phase, Newton in mpmath) against the generic path (exact resultants of each
factor of the transition table's characteristic polynomial), one record for both."""

import mpmath
import pytest
import sympy as sp

from symdelay.analysis.critical import CriticalCurve, critical
from symdelay.core.errors import SymdelayInputError
from symdelay.core.parsing import parse_output
from symdelay.models import build_model
from symdelay.models.erlang.hopf import critical_theta
from symdelay.models.erlang.hopf.curve import _crosses, _phase_structure, _phase_terms
from symdelay.models.erlang.hopf.derivation import hopf_conditions

DS = ["1/4", "1", "2.5", "7"]


def _close(a, b, digits):
    if a == mpmath.inf or b == mpmath.inf:
        return a == b
    return abs(a - b) <= mpmath.mpf(10) ** -digits * abs(b)


@pytest.mark.parametrize("L", [1, 2, 3, 5])
def test_specialised_equals_generic_on_the_founding_model(L):
    m = build_model("erlang", L=L, mu="1.3", lam="0.7")
    fast = critical(m, at=DS, method="specialised")
    slow = critical(m, at=DS, method="generic")
    assert type(fast) is CriticalCurve and type(slow) is CriticalCurve
    assert (fast.method, slow.method) == ("specialised", "generic")
    assert len(fast.points) == len(slow.points) == len(DS)
    for p, q in zip(fast.points, slow.points):
        assert p.at == q.at == sp.Rational(p.label)  # the same delay, exactly
        assert _close(p.critical, q.critical, 12), (L, p.label, p.critical, q.critical)
        assert (p.omega is None) == (q.omega is None)
        if p.omega is not None:
            assert _close(p.omega, q.omega, 12)
        assert p.mode == q.mode == "difference"
    # auto takes the fast path; the printed points agree digit for digit at 12 digits
    assert critical(m, at=DS).method == "specialised"
    a = [pt["theta_c"][:13] for pt in fast.to_json()["points"]]
    b = [pt["theta_c"][:13] for pt in slow.to_json()["points"]]
    assert a == b


def test_one_point_at_the_models_own_delay_and_the_convenience():
    m = build_model("erlang", L=2, mu=1, lam=1, D=1)
    for method in ("auto", "generic"):
        c = critical(m, method=method)
        assert len(c.points) == 1 and _close(c.critical, mpmath.mpf(9), 13)
    conv = critical_theta(2, 1, 1, [1, 2])
    assert type(conv) is CriticalCurve and conv.method == "specialised"
    assert [float(p.theta_c) for p in conv.points] == [9.0, 8.0]
    with pytest.raises(SymdelayInputError, match="2 points"):
        conv.critical  # noqa: B018


def test_one_record_for_every_model_and_path():
    """The contract keys (``L``, ``points`` with ``D``, ``theta_c``, ``omega``) for every
    model; the family's closed forms under ``closed_forms`` (null where it knows none), the
    factors carrying theta printed once, the model's options under ``parameters``."""
    founding = critical_theta(3, 1, 1, [1, 2]).to_json()
    assert founding["L"] == 3 and founding["parameters"] == {"L": 3, "mu": "1", "lam": "1"}
    forms = founding["closed_forms"]
    assert forms["theta_c_of_D"] == "8*(D + 3)**3/(D*(D + 9)**2)"
    assert set(forms) == {
        "critical_lam_theta",
        "critical_lam_theta_latex",
        "theta_c_of_D",
        "theta_c_of_D_latex",
    }
    assert {"D", "theta_c", "omega"} <= set(founding["points"][0])
    assert critical_theta("inf", 1, 1, [1]).to_json()["L"] == "inf"
    generic = critical(build_model("nserver", N=3, L=3, mu=1, lam=1), at=["1", "2"]).to_json()
    assert set(generic) == set(founding)
    assert generic["L"] == 3 and generic["closed_forms"] is None
    assert [p["D"] for p in generic["points"]] == ["1", "2"]
    assert set(generic["points"][0]) == set(founding["points"][0])
    assert [p["theta_c"] for p in generic["points"]] == [p["theta_c"] for p in founding["points"]]
    # the difference factor, printed once: the founding model's closed form and the
    # nserver model's factor (gamma free) are one polynomial
    (f,) = founding["factors"]
    assert f["mode"] == "difference" and f["multiplicity"] == 1
    g = [x for x in generic["factors"] if x["mode"].startswith("difference")]
    one = parse_output(f["factor"])
    assert g and all(sp.expand(parse_output(x["factor"]) - one) == 0 for x in g)


def test_the_generic_path_varies_D_as_the_family_allows():
    # a family option (the mean of a hypoexponential delay, rates rescaled), the Erlang chain
    # of a free phase rate gamma (gamma = L/D), and a founding option
    pt = build_model("phase_type", delay="hypoexp", rates="1,2,3", mu=1, lam=1)
    swept = critical(pt, at=["2"])
    built = critical(build_model("phase_type", delay="hypoexp", rates="1,2,3", mu=1, lam=1, D=2))
    assert swept.points[0].critical == built.critical
    own = critical(pt)
    assert own.points[0].at is None and own.to_json()["points"][0]["D"] is None
    chain = critical(build_model("nserver", N=3, L=3, mu=1, lam=1).with_values(), at=[1])
    assert _close(chain.critical, mpmath.mpf("5.12"), 13)
    # another swept option: the founding fast path declines, the generic path answers
    m = build_model("erlang", L=2, lam=1, D=1)
    assert critical(m, over="mu", at=[1]).method == "generic"
    assert _close(critical(m, over="mu", at=[1]).critical, mpmath.mpf(9), 13)
    with pytest.raises(SymdelayInputError, match="does not apply"):
        critical(m, over="mu", at=[1], method="specialised")


def test_L_inf_has_only_the_fast_path():
    m = build_model("erlang", L="inf", mu=1, lam=2)
    c = critical(m, at=["1.5"], dps=30)
    with mpmath.workdps(40):
        w = c.points[0].omega
        assert abs(mpmath.sqrt(1 + w**2) / 2 - c.points[0].critical) < 1e-28
    with pytest.raises(SymdelayInputError, match="transition table"):
        critical(m, at=["1.5"], method="generic")


@pytest.mark.parametrize("L", [1, 2, 3, 4, 6, 9, sp.oo])
def test_phase_structure_is_the_derived_phase(L):
    # the numeric path writes the Hopf phase down; the derivation must give the same terms
    assert _phase_structure(L) == _phase_terms(L)
    assert _crosses(L) == hopf_conditions(L).crosses


def test_bad_input_is_one_line():
    m = build_model("erlang", L=2, mu=1, lam=1)
    with pytest.raises(SymdelayInputError, match="at least one"):
        critical(m, at=[])
    with pytest.raises(SymdelayInputError, match="needs numbers for D"):
        critical(m)
    with pytest.raises(SymdelayInputError, match="leave it free"):
        critical(build_model("erlang", L=2, mu=1, lam=1, theta=1), at=[1])
    with pytest.raises(SymdelayInputError, match="dps"):
        critical(m, at=[1], dps=4)


# ------------------------------------------------- the swept generic path (issue 22)
@pytest.mark.parametrize("L", [10, 30])
@pytest.mark.parametrize("dps", [15, 30])
def test_swept_generic_path_agrees_with_the_founding_path_at_larger_L(L, dps):
    """The generic path with the factors computed once (symbolic in gamma) and one
    polynomial in w^2 per point, on the founding model and on phase_type --delay erlang."""
    fast = critical(build_model("erlang", L=L, mu="1.3", lam="0.7"), at=DS, dps=dps,
                    method="specialised")  # fmt: skip
    for m in (
        build_model("erlang", L=L, mu="1.3", lam="0.7"),
        build_model("phase_type", delay="erlang", L=L, mu="1.3", lam="0.7"),
    ):
        slow = critical(m, at=DS, dps=dps, method="generic")
        assert slow.method == "generic"
        for p, q in zip(fast.points, slow.points):
            assert _close(p.critical, q.critical, dps - 3), (L, p.label)
            assert _close(p.omega, q.omega, dps - 3)
            assert q.per_factor[0][1].method.startswith("linear in the parameter")
            assert (q.per_factor[0][1].rhp_below, q.per_factor[0][1].rhp_above) == (0, 2)


def test_linear_counts_by_transversality_equal_the_counted_roots(monkeypatch):
    import symdelay.analysis.crossing as crossing
    from symdelay.analysis.crossing import critical_linear, critical_parameter

    r, p = sp.symbols("r p")
    for A, B in (
        (sp.expand((r + 1) ** 3), sp.Integer(1)),
        (sp.expand((r + 2) * (r + 1) ** 4), sp.expand(r + 3)),
        (sp.expand((r + sp.Rational(13, 10)) * (r + 4) ** 6), sp.Integer(7) * 4**6 / 10),
    ):
        a = sp.Poly(A, r).all_coeffs()[::-1]
        b = sp.Poly(B, r).all_coeffs()[::-1] + [0] * (len(a) - 1)
        b = b[: len(a)]
        proved = critical_linear(a, b, r, p, dps=20, baseline=0)
        counted = critical_linear(a, b, r, p, dps=20)
        with monkeypatch.context() as mp:  # today's path: resultant and subresultant
            mp.setattr(crossing, "critical_linear", lambda *a, **k: None)
            resultant = critical_parameter(sp.expand(A + p * B), r, p, dps=20)
        assert resultant.method == "resultant (exact)"
        assert proved.p_c == counted.p_c and proved.omega == counted.omega
        assert (proved.rhp_below, proved.rhp_above) == (counted.rhp_below, counted.rhp_above)
        assert (proved.rhp_below, proved.rhp_above) == (resultant.rhp_below, resultant.rhp_above)
        assert _close(proved.p_c, resultant.p_c, 18) and _close(proved.omega, resultant.omega, 18)
        assert "transversal" in proved.checks[0]


@pytest.mark.parametrize("L", [3, 30])
def test_swept_points_from_factors_equal_the_expanded_path(L, monkeypatch):
    """Each D point of the swept generic path is solved from the factors of A and B; with
    that path switched off the expanded coefficients (critical_linear) give the same digits,
    frequencies and counts."""
    import symdelay.analysis.crossing_factored as cf

    def curve():
        m = build_model("phase_type", delay="erlang", L=L, mu="1.3", lam="0.7")
        return critical(m, at=DS, dps=20, method="generic").points

    factored = curve()
    assert {q.per_factor[0][1].method for q in factored} == {cf.METHOD}
    monkeypatch.setattr(cf, "critical_factored", lambda *a, **k: None)
    expanded = curve()
    assert all("Im(A conj B)" in q.per_factor[0][1].method for q in expanded)
    for a, b in zip(factored, expanded, strict=True):
        ja, jb = a.per_factor[0][1].to_json(), b.per_factor[0][1].to_json()
        assert (ja["p_c"], ja["omega"]) == (jb["p_c"], jb["omega"])
        assert (ja["rhp_below"], ja["rhp_above"]) == (jb["rhp_below"], jb["rhp_above"])


def test_the_cli_sweeps_a_phase_type_erlang_delay_by_its_family_statement(capsys):
    """`critical --model phase_type --delay erlang --D ...` starts from the model without D
    (the family states D is gamma = L/D), so a large L is prepared once instead of refused by
    the estimate of a dense analysis at each D; its digits are the founding path's."""
    import json

    from symdelay.cli import main

    common = ["--L", "120", "--mu", "1", "--lam", "1", "--D", "0.5,1,3", "--json"]
    assert main(["critical", "--model", "phase_type", "--delay", "erlang", *common]) == 0
    generic = json.loads(capsys.readouterr().out)
    assert main(["critical", *common]) == 0
    founding = json.loads(capsys.readouterr().out)
    assert generic["method"] == "generic" and founding["method"] != "generic"
    for g, f in zip(generic["points"], founding["points"], strict=True):
        assert (g["D"], g["theta_c"], g["omega"]) == (f["D"], f["theta_c"], f["omega"])
