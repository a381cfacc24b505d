"""Symmetric Hopf points: where the model's symmetry makes the imaginary pair multiple
(three symmetric servers, S_3), no scalar first Lyapunov coefficient is given, by the
normal form or by the map.

Independent values: the multiplicity counted from the eigenvalues of the Jacobian at the
Hopf point (numpy), and the crossing speed r' of the founding model (two queues: the
same difference factor r^3 + 5 r^2 + 8 r + 4 theta + 4, computed there by projection).
"""

from __future__ import annotations

import json

import mpmath
import numpy as np
import pytest

from symdelay.analysis.normal_form import normal_form
from symdelay.cli import main as cli_main
from symdelay.models import build_model

NSERVER = ["--model", "nserver", "--mu", "1", "--lam", "1", "--D", "1", "--L", "2"]


@pytest.fixture(scope="module")
def three():
    return build_model("nserver", N=3, L=2, mu=1, lam=1, D=1)


def _eigen_multiplicity(model, theta, omega) -> int:
    """How many eigenvalues of the Jacobian at the equilibrium are i*omega (numpy)."""
    from symdelay.core.lazy import sympy as sp
    from symdelay.core.symbols import theta as TH

    eq = {s: model.equilibrium.point[s] for s in model.states}
    J = model.drift_jacobian.xreplace(model.values).xreplace(eq).subs(TH, sp.Float(theta, 30))
    ev = np.linalg.eigvals(np.array(J.evalf(20).tolist(), dtype=float))
    return int(np.sum(np.abs(ev - 1j * omega) < 1e-6))


def test_three_servers_double_pair_has_no_scalar_l1(three):
    nf = normal_form(three)
    rec = nf.record()
    th_c, w = float(nf.theta_c), float(nf.omega)
    assert _eigen_multiplicity(three, th_c, w) == 2 == rec["multiplicity"]
    assert rec["l1"] is None and rec["l1_unit_norm"] is None and rec["c1"] is None
    assert rec["amplitude_coefficient"] is None and rec["omega_slope"] is None
    # the equivariant answer instead (tests/test_equivariant_hopf.py checks it)
    assert len(rec["patterns"]) == 3 and rec["patterns_reason"] is None
    assert "multiple" in rec["criticality"]
    # r' of the double pair: the crossing speed of its factor, the founding model's
    found = normal_form(build_model("erlang", L=2, mu=1, lam=1, D=1))
    assert abs(nf.r_prime - found.r_prime) < mpmath.mpf(10) ** -12
    assert abs(nf.theta_c - found.theta_c) < mpmath.mpf(10) ** -12


def test_two_servers_simple_pair_keeps_l1():
    two = build_model("nserver", N=2, L=2, mu=1, lam=1, D=1)
    nf = normal_form(two)
    rec = nf.record()
    assert _eigen_multiplicity(two, float(nf.theta_c), float(nf.omega)) == 1
    assert rec["multiplicity"] == 1 and rec["l1"] is not None
    assert rec["criticality"] == "supercritical"
    assert rec["patterns"] is None and rec["cubic_coefficients"] is None
    assert rec["patterns_reason"] is None
    # the projection's r' against the factor's by the implicit function theorem
    assert float(rec["checks"]["r_prime_projection_minus_factor"]) < 1e-12


def test_cli_says_so_in_one_line(capsys):
    assert cli_main(["normal-form", *NSERVER, "--N", "3"]) == 0
    out = capsys.readouterr().out
    assert "l1 not defined" in out and "multiplicity 2" in out
    # no scalar sign: criticality only per branch of the equivariant answer
    assert "l1 = " not in out and "subcritical" not in out
    assert all("critical" not in line for line in out.splitlines() if line.startswith("  l1"))
    assert cli_main(["normal-form", *NSERVER, "--N", "3", "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["multiplicity"] == 2 and rec["l1"] is None
    # the patterns, in the text and the record
    assert "rotating wave" in out and out.count("standing wave") == 2
    assert "supercritical, stable" in out and "unstable" in out
    assert len(rec["patterns"]) == 3 and set(rec["cubic_coefficients"]) >= {"A", "B"}
    for p in rec["patterns"]:
        assert set(p) >= {
            "pattern", "isotropy", "criticality", "stable",
            "amplitude_coefficient", "side", "phase_lags",
        }  # fmt: skip


def test_map_attaches_no_l1_sign_to_a_multiple_hopf_curve(three):
    from symdelay.analysis.stability_map import stability_map

    model = build_model("nserver", N=3, L=2, mu=1, D=1)
    m = stability_map(model, x=("lam", "1/2", 2), y=("theta", 0, 16), cells=8, bautin=True)
    hopf = [c for c in m.curves if c.kind == "hopf"]
    assert hopf and all(c.multiplicity == 2 for c in hopf)
    # the multiplicity against the Jacobian's eigenvalues at a point of the curve
    lam, th, w = (float(v) for v in hopf[0].points[len(hopf[0].points) // 2])
    at = build_model("nserver", N=3, L=2, mu=1, lam=lam, D=1)
    assert _eigen_multiplicity(at, th, w) == 2
    rec = m.record()
    for c in rec["curves"]:
        if c["kind"] == "hopf":
            assert c["multiplicity"] == 2 and c["l1"] is None
    assert not [s for s in m.special_points if s["type"] == "bautin"]
    assert not [n for n in m.notes if "negative (supercritical)" in n]
    assert [n for n in m.notes if "multiplicity >= 2" in n]
    assert all(v is None for v in m._private["l1"].values())


def test_limit_cycle_of_three_servers_is_the_stable_rotating_wave(three):
    """``limit-cycle`` at the double pair starts on the branch the D_3 normal form calls
    stable (the rotating wave) and names the pattern measured on the computed orbit. Checked
    here on the orbit's samples by linear interpolation (not the record's Fourier shift):
    server k + 1 repeats server k a third of the period later; the amplitudes against the
    branch's law c sqrt(theta - theta_c), the ratio -> 1 linearly."""
    from symdelay.analysis.cycles import limit_cycle, pattern_text

    nf = normal_form(three)
    rot = nf.patterns[0]
    assert rot["pattern"] == "rotating wave" and rot["stable"] is True
    assert all(p["stable"] is False for p in nf.patterns[1:])
    fam = limit_cycle(three, "9.01,9.04")
    names = [s.name for s in three.states]
    q = [names.index(k) for k in ("q1", "q2", "q3")]
    dev = []
    for c in fam.points:
        assert c.stable is True and np.max(np.abs(c.nontrivial)) < 1
        pat = c.pattern
        assert pat["pattern"] == "rotating wave" and pat["isotropy"] == rot["isotropy"]
        assert "rotating wave" in pattern_text(pat) and c.to_json()["pattern"] == pat
        T, t, y = c.period, c.t, c.y
        scale = np.max(np.abs(y[q[0]] - y[q[0]].mean()))
        for a, b in ((0, 1), (1, 2), (2, 0)):
            later = np.interp((t - T / 3) % T, t, y[q[a]])  # y_a(t - T/3)
            assert np.max(np.abs(y[q[b]] - later)) < 1e-4 * scale
        # the reflection does not hold (neither standing wave)
        assert np.max(np.abs(y[q[1]] - y[q[2]])) > 0.5 * scale
        lags = [float(pat["phase_lags"][k]) for k in ("q1", "q2", "q3")]
        assert lags == pytest.approx([0, 1 / 3, 2 / 3], abs=1e-8)
        pred = [float(rot["phase_lags"][k]) for k in ("q1", "q2", "q3")]
        assert lags == pytest.approx(pred, abs=1e-8)
        amp = np.ptp(y[q], axis=1) / 2
        law = float(rot["amplitude_coefficient"]) * np.sqrt(c.theta - float(nf.theta_c))
        assert np.ptp(amp) < 1e-4 * amp.max()
        dev.append(abs(amp.mean() / law - 1))
    # 0.0025 and 0.0096 measured: linear in theta - theta_c (0.01, 0.04)
    assert dev[0] < 5e-3 and 3.5 < dev[1] / dev[0] < 4.5


def test_branch_of_the_rotating_wave_from_a_given_cycle():
    """No branch starts at a multiple Hopf point (refused, naming --start); from the limit
    cycle at theta = 10 (the stable rotating wave) the branch continues down to the Hopf
    point theta_c = 9, every orbit stable, the amplitude -> 0 like the wave's law."""
    from symdelay.analysis.continuation import cycles
    from symdelay.analysis.cycles import limit_cycle
    from symdelay.core.errors import SymdelayInputError

    model = build_model("nserver", N=3, L=2, mu=1, lam=1, D=1)
    with pytest.raises(SymdelayInputError, match="--start VALUE"):
        cycles(model, "theta", 8, 14)
    start = limit_cycle(model, 10, method="generic")
    b = cycles(model, "theta", 8, 14, start=start, direction=-1)
    p, a, _, stable = b.arrays()
    assert b.stop.startswith("ended at a Hopf point") and abs(p[-1] - 9) < 1e-2
    assert np.all(stable == 1) and np.all(np.diff(a) < 0)
