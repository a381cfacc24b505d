"""Every ``--json`` result that holds a formula carries its LaTeX, printed with symdelay's names.

Independent check: the LaTeX of each formula equals ``tex()`` of the SymPy object parsed back
(with :func:`symdelay.parse_output`) from the plain-text formula next to it, so text and
LaTeX describe the same formula. The critical curve's closed form is also checked against
the numeric solver at every delay.
"""

from __future__ import annotations

import json
import re

import mpmath
import pytest
import sympy as sp

import symdelay
from symdelay import parse_output, routh_hurwitz
from symdelay.core.latex import tex
from symdelay.core.parsing import parse_relational
from symdelay.core.symbols import D
from symdelay.founding import critical_theta, stability_conditions
from symdelay.models.erlang.hopf import critical_closed_form
from symdelay.models.erlang.stability import oscillation_threshold

_BARE_LAM = re.compile(r"(?<![\\A-Za-z])lam(?![A-Za-z])")


def _json(run_cli, *argv) -> dict:
    status, out, err = run_cli(*argv, "--json")
    assert status == 0 and err == ""
    return json.loads(out)


def _check_pair(text, latex, obj, printed: bool = True):
    """One formula: present together, same formula, lambda printed as ``\\lambda``.

    ``obj``: the API's SymPy object (None where the JSON says null); ``printed``: the text is
    ``str(obj)`` (False for a claim, which the JSON repeats as the user wrote it).
    """
    if text is None:
        assert latex is None and obj is None
        return
    assert isinstance(latex, str) and latex
    assert r"\text{True}" not in latex and r"\text{False}" not in latex
    assert _BARE_LAM.search(latex) is None, latex
    if _BARE_LAM.search(text):
        assert r"\lambda" in latex
    assert latex == tex(obj)
    if printed:
        assert text == str(obj)
    parsed = parse_output(text)
    if latex != tex(parsed):
        # allowed only where SymPy builds a different tree from the text than the one that
        # was printed (a number times a sum is distributed: -8*(a + b)/c -> (-8*a - 8*b)/c);
        # the parsed text must then be the same formula
        assert printed and str(parsed) != text, (text, latex)
        assert sp.expand(parsed - obj) == 0


def _check(record: dict, pairs: dict) -> int:
    """``pairs``: LaTeX key -> (text key, API object or list of them). Returns the count."""
    n = 0
    for latex_key, (text_key, obj, *printed) in pairs.items():
        assert latex_key in record and text_key in record, latex_key
        text, latex = record[text_key], record[latex_key]
        if isinstance(text, list):
            assert isinstance(latex, list) and len(latex) == len(text) == len(obj)
            for t, x, o in zip(text, latex, obj, strict=True):
                _check_pair(t, x, o, *printed)
            n += len(text)
        else:
            _check_pair(text, latex, obj, *printed)
            n += text is not None
    return n


def test_tex_is_public():
    assert symdelay.tex is tex and "tex" in symdelay.__all__
    assert symdelay.tex(parse_output("lam*theta")) == r"\lambda \theta"


# ------------------------------------------------------------------ stability
@pytest.mark.parametrize("L", ["1", "2", "4"])
def test_stability_latex(run_cli, L):
    rec = _json(run_cli, "stability", "--L", L)
    res = stability_conditions(int(L))
    cf = res.closed_forms
    assert _check(rec, {"conditions_latex": ("conditions", res.conditions)}) >= 1
    assert _check(
        rec, {"critical_lam_theta_latex": ("critical_lam_theta", cf["critical_lam_theta"])}
    ) == (L != "1")
    pairs = {
        "critical_lam_theta_latex": ("critical_lam_theta", cf["critical_lam_theta"]),
        "critical_lam_theta_in_D_latex": ("critical_lam_theta_in_D", cf["critical_lam_theta_in_D"]),
        "hopf_polynomial_latex": ("hopf_polynomial", cf["hopf_polynomial"]),
        "oscillation_condition_latex": ("oscillation_condition", cf["oscillation_condition"]),
        "oscillation_lam_theta_latex": ("oscillation_lam_theta", oscillation_threshold(int(L))),
        "routh_conditions_latex": ("routh_conditions", cf["routh_conditions"]),
    }
    assert _check(rec["closed_forms"], pairs) >= 4
    if L == "1":  # no theta >= 0 destabilises: no critical formula, null LaTeX
        assert rec["critical_lam_theta_latex"] is None
        assert rec["conditions_latex"] == [r"\lambda \theta > - \mu"]  # theta of either sign
    else:
        assert all(r"\lambda" in c for c in rec["conditions_latex"])
    assert r"\lambda \theta" in rec["closed_forms"]["oscillation_condition_latex"]


def test_stability_latex_L2_exact(run_cli):
    rec = _json(run_cli, "stability", "--L", "2")
    assert rec["critical_lam_theta_latex"] == r"\frac{2 \left(\gamma + \mu\right)^{2}}{\gamma}"
    assert rec["conditions_latex"] == [
        r"\lambda \theta < \frac{2 \left(\gamma + \mu\right)^{2}}{\gamma}",
        r"\lambda \theta > - \mu",
    ]


# ------------------------------------------------------------------ routh
@pytest.mark.parametrize(
    "poly",
    [
        "s**2+K*s+1",
        "s**3 + 2*s**2 + lam*theta*s + mu",
        "s**2 + s/a + 1",  # multiplier a
        "s**3 + s**2 + 4*s + 4",  # (s**2 + 4)(s + 1): an auxiliary polynomial
        "s**4 + s**3 + 3*s**2 + 3*s + 3",  # epsilon row
    ],
)
def test_routh_latex(run_cli, poly):
    rec = _json(run_cli, "routh", poly, "--var", "s")
    res = routh_hurwitz(poly, "s")
    pairs = {
        "polynomial_latex": ("polynomial", res.polynomial),
        "multiplier_latex": ("multiplier", res.multiplier),
        "conditions_latex": ("conditions", res.conditions),
        "lienard_chipart_latex": ("lienard_chipart", res.lienard_chipart),
    }
    assert _check(rec, pairs) >= 4
    assert len(rec["auxiliary_polynomials"]) == len(res.auxiliary_polynomials)
    for aux, (_, A) in zip(rec["auxiliary_polynomials"], res.auxiliary_polynomials, strict=True):
        _check_pair(aux["polynomial"], aux["latex"], A)
    if "lam" in poly:
        assert r"\lambda" in rec["polynomial_latex"]
        assert any(r"\lambda \theta" in c for c in rec["conditions_latex"])


def test_routh_latex_values(run_cli):
    rec = _json(run_cli, "routh", "s**2+K*s+1", "--var", "s")
    assert rec["polynomial_latex"] == "K s + s^{2} + 1"
    assert rec["conditions_latex"] == ["K > 0", "1 > 0"]
    assert rec["lienard_chipart_latex"] == ["1 > 0", "K > 0"]
    aux = _json(run_cli, "routh", "s**3 + s**2 + 4*s + 4", "--var", "s")
    assert [a["latex"] for a in aux["auxiliary_polynomials"]] == ["s^{2} + 4"]


# ------------------------------------------------------------------ verify
@pytest.mark.parametrize(
    ("L", "claim"),
    [("2", "lam*theta < mu"), ("1", "4*gamma*lam*theta > (mu-gamma)**2")],
)
def test_verify_latex(run_cli, L, claim):
    rec = _json(run_cli, "verify", "--L", L, "--claim", claim)
    condition = parse_relational(claim, variables=())  # what verify parses the claim into
    assert _check(rec, {"latex": ("claim", condition, False)}) == 1
    assert r"\lambda \theta" in rec["latex"]


def test_verify_latex_value(run_cli):
    rec = _json(run_cli, "verify", "--L", "2", "--claim", "lam*theta < mu")
    assert rec["latex"] == r"\lambda \theta < \mu"


# ------------------------------------------------------------------ critical
_CRITICAL = ("critical_lam_theta_latex", "theta_c_of_D_latex")


def _critical_pairs(curve):
    k_c, th_c = curve.closed_forms["critical_lam_theta"], curve.closed_forms["theta_c_of_D"]
    return {
        "critical_lam_theta_latex": ("critical_lam_theta", k_c),
        "theta_c_of_D_latex": ("theta_c_of_D", th_c),
    }


@pytest.mark.parametrize("L", ["2", "3", "4", "5"])
def test_critical_closed_form(run_cli, L):
    rec = _json(
        run_cli, "critical", "--L", L, "--mu", "3/2", "--lam", "2", "--D", "0.1,1,7", "--dps", "30"
    )
    curve = critical_theta(int(L), "3/2", 2, ["0.1", "1", "7"], dps=30)
    assert _check(rec["closed_forms"], _critical_pairs(curve)) == 2
    # lam*theta_c (from the Routh side) is the one found by eliminating omega from
    # P(i omega) = 0 where that elimination gives a closed form (L = 2, 3)
    hopf = critical_closed_form(int(L))
    if hopf is not None:
        assert sp.simplify(parse_output(rec["closed_forms"]["critical_lam_theta"]) - hopf[0]) == 0
    # the closed form theta_c(D) agrees with the numeric Hopf solver at every delay
    th = parse_output(rec["closed_forms"]["theta_c_of_D"])
    assert th.free_symbols == {D}
    with mpmath.workdps(40):
        for p in rec["points"]:
            exact = mpmath.mpf(str(th.subs(D, sp.Rational(p["D"])).evalf(40)))
            assert mpmath.almosteq(exact, mpmath.mpf(p["theta_c"]), rel_eps=mpmath.mpf(10) ** -28)


def test_critical_closed_form_L2(run_cli):
    rec = _json(run_cli, "critical", "--L", "2", "--mu", "1", "--lam", "1", "--D", "1")
    forms = rec["closed_forms"]
    assert forms["critical_lam_theta"] == "2*(gamma + mu)**2/gamma"
    assert forms["theta_c_of_D"] == "(D + 2)**2/D"
    assert forms["theta_c_of_D_latex"] == r"\frac{\left(D + 2\right)^{2}}{D}"
    assert rec["points"][0]["theta_c"] == "9.00000000000000"  # (1 + 2)**2 / 1


@pytest.mark.parametrize("L", ["1", "6", "inf"])
def test_critical_no_closed_form(run_cli, L):
    rec = _json(run_cli, "critical", "--L", L, "--mu", "1", "--lam", "1", "--D", "1")
    assert _check(rec["closed_forms"], _critical_pairs(critical_theta(L, 1, 1, [1]))) == 0
    for key in ("critical_lam_theta", "theta_c_of_D", *_CRITICAL):
        assert key in rec["closed_forms"] and rec["closed_forms"][key] is None
    assert rec["points"]  # the numeric curve is still there
