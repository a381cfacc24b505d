"""Sweeps over any model's parameters (the ``model-stability`` analysis): a built-in family
or a TOML model file, its factors derived once per process, each task's numbers
substituted exactly. Checked against the generic roots of the model built at the same
numbers (an independent path) and against the founding model's closed-form critical
theta."""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy as sp

from symdelay.analysis.roots import roots
from symdelay.core.errors import SymdelayInputError
from symdelay.models import build_model
from symdelay.sweep.analyses import analysis_info, model_stability

ROOT = Path(__file__).resolve().parents[1]
ERLANG2 = str(ROOT / "examples" / "models" / "erlang2.toml")


@pytest.mark.parametrize(
    ("options", "values"),
    [
        ({"delay": "hypoexp", "rates": "1,2"}, {"mu": 1, "lam": 1, "theta": 3}),
        ({"delay": "hypoexp", "rates": "1,2"}, {"mu": 1, "lam": 1, "theta": 30.5}),
        ({"delay": "hypoexp", "rates": "1,2,5"}, {"mu": "1/2", "lam": 2, "theta": 4.25}),
        (
            {"delay": "hyperexp", "rates": "1,3", "probs": "1/2,1/2"},
            {"mu": 1, "lam": 1, "theta": 7},
        ),
    ],
)
def test_family_point_agrees_with_the_model_built_there(options, values):
    rec = model_stability(model="phase_type", **options, **values)
    ref = roots(build_model("phase_type", **options, **values), dps=15)
    assert rec["unstable_count"] == ref.unstable_count
    assert rec["stable"] is (ref.unstable_count == 0 and ref.axis_count == 0)
    assert abs(rec["spectral_abscissa"] - float(ref.spectral_abscissa)) < 1e-12


@pytest.mark.parametrize(("theta", "D"), [(2, 1), (3.9, 2), (4.1, 2), (8, 0.5), (20, 10), (9.5, 1)])
def test_model_file_with_D_against_the_closed_form(theta, D):
    """The Erlang(2) file with D = 2/gamma: unstable exactly above the founding model's
    critical theta at that delay (closed form, critical_theta)."""
    from symdelay.models.erlang.hopf import critical_theta

    rec = model_stability(model_file=ERLANG2, mu=1, lam=1, theta=theta, D=D)
    tc = critical_theta(2, 1, 1, [sp.Rational(str(D))], dps=30).points[0].theta_c
    assert rec["stable"] is (theta < float(tc))
    assert rec["unstable_count"] == (0 if theta < float(tc) else 2)


def test_the_founding_family_by_name():
    rec = model_stability(model="erlang", L=3, mu=1, lam=1, theta=5.5, D=3)
    # D* = L/mu = 3, theta* = sec^4(pi/4) = 4 < 5.5: unstable; (r+1)^4 = -5.5 exactly
    z = -1 + sp.Rational(11, 2) ** sp.Rational(1, 4) * sp.exp(sp.I * sp.pi / 4)
    assert rec["unstable_count"] == 2
    assert abs(rec["spectral_abscissa"] - float(sp.re(z))) < 1e-12
    assert abs(rec["frequency"] - float(sp.im(z))) < 1e-12


def test_registered_and_takes_any_keyword():
    info = analysis_info("model-stability")
    assert info.any_keyword and not info.required


def test_bad_input_one_line():
    with pytest.raises(SymdelayInputError, match=r"give model .* or model_file"):
        model_stability(mu=1)
    with pytest.raises(SymdelayInputError, match="one of them"):
        model_stability(model="erlang", model_file=ERLANG2)
    with pytest.raises(SymdelayInputError, match="nu is not a free parameter"):
        model_stability(model_file=ERLANG2, mu=1, lam=1, theta=1, gamma=1, nu=2)
    with pytest.raises(SymdelayInputError, match="give a value for theta"):
        model_stability(model_file=ERLANG2, mu=1, lam=1, gamma=1)


def test_the_example_sweep_runs(tmp_path):
    """examples/sweeps/any_model.toml, serially, on a smaller grid: every task ok, the
    counts equal the founding model's exact verdicts at the same points."""
    import tomllib

    from symdelay.analysis.routh import routh_hurwitz
    from symdelay.core.symbols import gamma, lam, mu, r, theta
    from symdelay.models.erlang.charpoly import characteristic_polynomial
    from symdelay.sweep import run

    spec = tomllib.loads((ROOT / "examples" / "sweeps" / "any_model.toml").read_text())
    spec["parameters"]["model_file"] = ERLANG2
    spec["grid"] = {"theta": {"start": 1, "stop": 12, "num": 4}, "D": [0.5, 2, 8]}
    out = tmp_path / "any.parquet"
    table = run(spec, out=out, serial=True)
    rows = table.to_dict("records")
    assert len(rows) == 12 and all(row["status"] == "ok" for row in rows)
    for row in rows:
        th, D = sp.Rational(str(row["theta"])), sp.Rational(str(row["D"]))
        # the test's own oracle: Routh on the explicit polynomial, nothing on the axis
        poly = characteristic_polynomial(2).subs({mu: 1, gamma: 2 / D, lam: th, theta: 1})
        res = routh_hurwitz(sp.expand(poly), r)
        assert row["stable"] is (res.rhp_count == 0 and res.imaginary_axis_count == 0)


@pytest.mark.parametrize("theta", ["3", "61/4"])
def test_model_at_values_is_the_model_built_with_them(theta):
    """The sweep's point model (the symbolic factors with the numbers substituted) has the
    characteristic polynomial, equilibrium, verdict and roots of the model derived again
    at those numbers (an independent derivation)."""
    from symdelay.analysis.stability import stability

    built = build_model("phase_type", delay="hypoexp", rates="1,2")
    values = {sp.Symbol("mu"): 1, sp.Symbol("lam"): 2, sp.Symbol("theta"): sp.Rational(theta)}
    fast = built.at_values(values)
    slow = built.with_values(**{str(k): v for k, v in values.items()})
    assert sp.expand(fast.charpoly - slow.charpoly) == 0
    assert all(sp.simplify(fast.equilibrium.point[s] - slow.equilibrium.point[s]) == 0
               for s in slow.states)  # fmt: skip
    assert stability(fast).stable == stability(slow).stable
    a, b = roots(fast, dps=20), roots(slow, dps=20)
    assert a.unstable_count == b.unstable_count and a.axis_count == b.axis_count
    assert abs(a.spectral_abscissa - b.spectral_abscissa) < 1e-18
