"""The explorer's normal-form readout and the criticality marks on its map, against the one
normal-form path (:func:`symdelay.analysis.normal_form.normal_form`) and closed forms: the
founding model's Hopf point theta_c = 9, omega = sqrt 8 at L = 2, mu = lam = D = 1 with its
amplitude coefficient 4 theta_c^(-3/2) = 4/27; an in-flight point whose Hopf point in mu is
subcritical; the constant information lag's l1 from the scalar equation
``x' = -mu x - 2 lam tanh(theta x(t - D)/2)`` (as tests/test_delay_normal_form.py); a
refusal in one line; the D_3 patterns of three symmetric servers.
"""

from __future__ import annotations

import math

import mpmath
import pytest

from symdelay.analysis.normal_form import normal_form
from symdelay.models import build_model
from symdelay.outputs.explorer import Explorer, _map_l1_note

FOUNDING = {"L": "2", "mu": "1", "lam": "1", "theta": "2", "D": "1"}
#: the in-flight point of tests/test_cycles_continuation.py: subcritical in mu
INFLIGHT = {
    "L": "3",
    "mu": "1",
    "lam": "1",
    "D": "1",
    "theta": "90",
    "kappa": "0.31",
    "pattern": "first",
}
INFO = "examples/models/information_delay.toml"


def test_founding_point_reads_the_normal_form_and_the_closed_forms():
    ex = Explorer("erlang", FOUNDING)
    d = ex.normal_form_data(ex.initial_state)
    nf = normal_form(build_model("erlang", L=2, mu=1, lam=1, D=1))
    assert d["param"] == "theta" and d["refused"] is None
    assert d["l1"] == float(nf.l1) < 0
    assert d["criticality"] == "supercritical" and d["side"] == "above"
    # the closed forms: theta_c = 9, omega = sqrt 8, c = 4 theta_c^(-3/2) = 4/27
    assert d["critical_value"] == pytest.approx(9, rel=1e-13)
    assert d["omega"] == pytest.approx(math.sqrt(8), rel=1e-13)
    assert d["amplitude_coefficient"] == pytest.approx(4 / 27, rel=1e-12)
    closed = nf.closed_l1.subs({v: 1 for v in nf.closed_l1.free_symbols})  # mu = lam = D = 1
    assert d["l1"] == pytest.approx(float(closed), rel=1e-10)
    assert d["structural"] is True
    assert "supercritical" in d["lines"][1] and "no cycle" in d["lines"][-1]
    # cached per point: another theta reads the same Hopf point, the law at the new theta
    here = ex.normal_form_data({**FOUNDING, "theta": "9.5"})
    assert here["seconds"] == d["seconds"]
    assert here["amplitude_here"] == pytest.approx(4 / 27 * math.sqrt(0.5), rel=1e-12)
    assert ex.normal_form_cached({**FOUNDING, "theta": "30"}) is not None
    assert ex.normal_form_cached({**FOUNDING, "D": "2"}) is None
    # the page's update never computes it
    assert "normal_form" not in ex.update({**FOUNDING, "D": "3"})
    assert ex.normal_form_cached({**FOUNDING, "D": "3"}) is None


def test_an_inflight_point_is_subcritical_in_mu():
    ex = Explorer("inflight", INFLIGHT, y="mu")
    d = ex.normal_form_data(ex.initial_state)
    opts = {k: v for k, v in INFLIGHT.items() if k != "mu"}
    nf = normal_form(build_model("inflight", **opts), param="mu")
    assert d["param"] == "mu" and d["l1"] == float(nf.l1) > 0
    assert d["criticality"] == "subcritical"
    assert d["critical_value"] == float(nf.theta_c)
    # the unstable cycles live where the equilibrium is stable (mu above mu_c here)
    assert d["side"] == "above" and "unstable cycles for mu > mu_c" in " ".join(d["lines"])


def test_a_delay_model_reads_the_scalar_closed_form():
    ex = Explorer(file=INFO, settings={"mu": "1", "lam": "1", "D": "1"})
    d = ex.normal_form_data(ex.initial_state)
    # r + mu + lam theta exp(-r D) at r = i w: w = pi - atan(w / mu), (lam theta)^2 = mu^2 + w^2
    with mpmath.workdps(30):
        w = mpmath.findroot(lambda w: w - mpmath.pi + mpmath.atan(w), 2)
        theta = mpmath.sqrt(1 + w**2)
        b, c3 = theta, theta**3 / 12
        z = 1 + 1j * w
        c1 = -3 * c3 * z / (b * (1 + z))  # the cubic term's c1, q_x = 1
        l1 = mpmath.re(c1) / w
    assert d["critical_value"] == pytest.approx(float(theta), rel=1e-13)
    assert d["omega"] == pytest.approx(float(w), rel=1e-13)
    assert d["l1"] == pytest.approx(float(l1), rel=1e-12)
    assert d["l1_radius"] is not None and d["l1_radius"] < 1e-10 * abs(d["l1"])
    assert d["criticality"] == "supercritical"
    assert d["amplitude_coefficient"] == pytest.approx(float(4 * theta**-1.5), rel=1e-12)
    # the coarse map's point at this D takes its colour from the same normal form
    assert ex.map_point_criticality(ex.initial_state, d["critical_value"]) == "supercritical"
    assert ex.map_point_criticality(ex.initial_state, d["critical_value"] + 0.1) == "none"


def test_a_refusal_is_one_line():
    ex = Explorer("erlang", {**FOUNDING, "L": "1"})
    d = ex.normal_form_data(ex.initial_state)
    assert d["l1"] is None and d["criticality"] is None
    assert len(d["lines"]) == 1 and "\n" not in d["lines"][0]
    assert d["lines"][0].startswith("no Hopf point in theta: L = 1 has no Hopf point")
    assert ex.map_point_criticality(ex.initial_state, 1.0) == "none"


def test_three_symmetric_servers_give_patterns_not_l1():
    ex = Explorer("nserver", {"N": "3", "L": "2", "mu": "1", "lam": "1", "theta": "2", "D": "1"})
    d = ex.normal_form_data(ex.initial_state)
    assert d["multiplicity"] == 2 and d["l1"] is None and d["side"] is None
    names = [p["pattern"] for p in d["patterns"]]
    assert names.count("rotating wave") == 1 and names.count("standing wave") == 2
    assert "no scalar l1" in d["lines"][1]
    assert ex.map_point_criticality(ex.initial_state, d["critical_value"]) == "multiple"


def test_the_maps_note_names_a_sign_change():
    kinds = ["supercritical", "supercritical", "subcritical", "undecided"]
    note = _map_l1_note("theta", "D", ["1", "2", "3", "4"], kinds)
    assert "2 supercritical, 1 subcritical, 1 undecided" in note
    assert "l1 changes sign between D = 2 and 3" in note
    assert "changes sign" not in _map_l1_note("theta", "D", ["1", "2"], kinds[1::2])


def test_the_maps_bautin_bracket_holds_the_sharpened_routings_one_24th(tmp_path):
    """Routing on a sharpened imbalance (tests/test_delay_l1.py): l1 = l1(0) (1 - 24 c) on
    the Hopf line, so l1 changes sign at c = 1/24; the map's bisection keeps it bracketed."""
    from test_delay_l1 import SHARPENED

    path = tmp_path / "sharpened.toml"
    path.write_text(SHARPENED)
    settings = {"mu": "1", "lam": "1", "D": "1", "c": "0.05", "theta": "3"}
    ex = Explorer(file=str(path), settings=settings, x="c=0.01:0.1", y="theta")
    sub = ex.normal_form_data(ex.initial_state)
    info = Explorer(file=INFO, settings={"mu": "1", "lam": "1", "D": "1"})
    l1_0 = info.normal_form_data(info.initial_state)["l1"]
    assert sub["criticality"] == "subcritical"
    assert sub["l1"] == pytest.approx(l1_0 * (1 - 24 * 0.05), rel=1e-12)
    lo, hi, kind, mid, pc = ex.bautin_step(ex.initial_state, "c", ("0.03", "0.05", "supercritical"))
    assert (lo, hi, kind, mid) == ("1/25", "0.05", "supercritical", "1/25")  # 1/25 < 1/24
    assert pc == pytest.approx(sub["critical_value"], rel=1e-12)  # theta_c(D) for every c


def test_the_law_is_read_near_the_hopf_point_only():
    ex = Explorer("erlang", FOUNDING)
    ex.normal_form_data(ex.initial_state)
    near = ex.normal_form_cached({**FOUNDING, "theta": "10.7"})  # reach: 20 % of theta_c = 9
    assert near["amplitude_here"] == pytest.approx(4 / 27 * math.sqrt(1.7), rel=1e-12)
    far = ex.normal_form_cached({**FOUNDING, "theta": "10.9"})
    assert far["amplitude_here"] is None and "predicts no amplitude" in far["lines"][-1]
