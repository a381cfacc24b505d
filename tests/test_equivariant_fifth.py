"""The standing waves of three symmetric servers where the cubic order does not decide.

Compared against: the truncated D_3 normal form itself integrated by SciPy (the standing wave
that ``relative_phase_eigenvalue`` calls stable attracts, the other is left; one case where
``Re C`` alone would pick the wrong one); the cubic coefficients of the projection formula
(the fifth-order series must repeat them) and the forbidden resonant terms of degree 5 (they
vanish); and the fluid ODE of a D_3 table with ``Re(A + B) < 0`` and ``Re(A - B) < 0``
(examples/models/three_servers_standing.toml) integrated near its Hopf point from near each
standing wave: both starts end on the one the fifth order calls stable (relative phase
``cos 3 psi -> +-1``, equal moduli, the amplitudes and phase lags of that pattern).
"""

from __future__ import annotations

import json
from pathlib import Path

import flint
import mpmath
import numpy as np
import pytest
from scipy.integrate import solve_ivp

from symdelay.analysis.equivariant import relative_phase_eigenvalue
from symdelay.core.lazy import sympy as sp

DATA = Path(__file__).resolve().parents[1] / "examples" / "models" / "three_servers_standing.toml"


def _normal_form_ode(A, B, C, mu, eps, t_end):
    """The truncated normal form from near the standing wave ``z2 = eps z1``: ``cos 3 psi``
    and ``|z1| / |z2|`` at the end (in the frame rotating at ``omega``: every term is
    S^1-equivariant, so ``lambda = mu + i omega`` loses its ``i omega``)."""

    def f(t, y):
        z1, z2 = y[0] + 1j * y[1], y[2] + 1j * y[3]
        d1 = z1 * (mu + A * abs(z1) ** 2 + B * abs(z2) ** 2) + C * np.conj(z1) ** 2 * z2**3
        d2 = z2 * (mu + A * abs(z2) ** 2 + B * abs(z1) ** 2) + C * np.conj(z2) ** 2 * z1**3
        return [d1.real, d1.imag, d2.real, d2.imag]

    r = np.sqrt(-mu / (A + B).real)
    z2 = eps * r * 1.05 * np.exp(0.2j)
    sol = solve_ivp(
        f, (0, t_end), [r, 0, z2.real, z2.imag], method="DOP853", rtol=1e-10, atol=1e-13
    )
    z1, z2 = sol.y[0, -1] + 1j * sol.y[1, -1], sol.y[2, -1] + 1j * sol.y[3, -1]
    return np.cos(3 * np.angle(z1 * np.conj(z2))), abs(z1) / abs(z2)


@pytest.mark.parametrize(
    "A, B, C",
    [
        (-1 + 1j, -0.5 + 2j, 1 - 3j),  # Re C > 0 would favour (z, z): (z, -z) is stable
        (-1 + 1j, -0.5 + 2j, 1 + 3j),
        (-2 - 1j, -1 + 2.5j, -2 + 1j),
    ],
)
def test_the_truncated_normal_form_goes_to_the_predicted_standing_wave(A, B, C):
    assert (A + B).real < 0 and (A - B).real < 0  # the cubic order does not decide
    lam_zz = relative_phase_eigenvalue(A, B, C, 1)
    lam_zmz = relative_phase_eigenvalue(A, B, C, -1)
    assert lam_zz == -lam_zmz != 0
    target = 1 if lam_zz < 0 else -1  # cos 3 psi on the predicted attractor
    for eps in (1, -1):  # from near each: both end on the predicted one
        c3, ratio = _normal_form_ode(A, B, C, 0.1, eps, 1500)
        assert c3 == pytest.approx(target, abs=1e-6)
        assert ratio == pytest.approx(1, abs=1e-6)


# ------------------------------------------------------------------ a D_3 table
@pytest.fixture(scope="module")
def standing():
    from symdelay.analysis.normal_form import normal_form
    from symdelay.model import load_toml

    model = load_toml(DATA, mu=1, lam=1, gamma=2, nu=10)
    return model, normal_form(model)


def test_fifth_order_repeats_the_cubic_terms_and_is_d3_equivariant(standing):
    _, nf = standing
    rec = nf.record()
    checks = {k: float(v) for k, v in rec["checks"].items() if not isinstance(v, bool)}
    assert checks["fifth_order_cubic_A_difference"] < 1e-25
    assert checks["fifth_order_cubic_B_difference"] < 1e-25
    assert checks["fifth_order_d3_residual"] < 1e-25
    # C in Arb balls: the criterion's radius is far below its value (relative 1e-10)
    crit = rec["patterns"][1]["fifth_order"]
    assert float(crit["criterion_error"]) < 1e-10 * abs(float(crit["criterion_value"]))
    eq = nf.equivariant
    assert (eq.A + eq.B).real < 0 and (eq.A - eq.B).real < 0
    rw, zz, zmz = rec["patterns"]
    assert rw["stable"] is False  # Re(B - A) > 0
    assert zz["isotropy"].startswith("Z2(kappa)") and zmz["isotropy"].startswith("Z2~")
    # the record's criterion is the derivation's, from the record's own numbers
    five = zz["fifth_order"]
    C = complex(float(five["C"]["re"]), float(five["C"]["im"]))
    A, B = complex(eq.A), complex(eq.B)
    assert float(five["criterion_value"]) == pytest.approx(((A - B).conjugate() * C).real)
    for pat, eps in ((zz, 1), (zmz, -1)):
        value = relative_phase_eigenvalue(A, B, C, eps)
        assert float(pat["relative_phase_eigenvalue_over_rho4"]) == pytest.approx(value)
        assert pat["stable"] is (value < 0)
        assert pat["stable"] is True or "relative phase" in pat["stability_reason"]
    assert [zz["stable"], zmz["stable"]] in ([True, False], [False, True])


def test_fluid_ode_ends_on_the_standing_wave_the_fifth_order_picks(standing):
    """Independent of the normal form's nonlinear terms: the fluid ODE (SciPy LSODA on the
    model's drift) past the Hopf point, from near each standing wave (built from the centre
    eigenvectors only); the relative phase of the projections on ``q1``, ``q2`` settles
    where the fifth order says, and the queues oscillate as that pattern."""
    from symdelay.analysis.cycles import model_field

    model, nf = standing
    eq = nf.equivariant
    pats = nf.record()["patterns"]
    stable = next(p for p in pats[1:] if p["stable"])
    target = 1 if stable is pats[1] else -1
    q1 = np.array([complex(v) for v in eq.q1])
    q2 = np.array([complex(v) for v in eq.q2])
    proj = np.linalg.pinv(np.column_stack([q1, q2, q1.conj(), q2.conj()]))
    d = 2.0  # theta_c = 12
    fld = model_field(model, float(nf.theta_c) + d)
    rho = np.sqrt(float(nf.r_prime.real) * d / -float((eq.A + eq.B).real))
    w = float(nf.omega)
    period = 2 * np.pi / w
    for eps in (1, -1):
        x0 = fld.equilibrium + 2 * np.real(rho * q1 + eps * rho * 1.05 * np.exp(0.15j) * q2)
        t_end = 300.0
        sol = solve_ivp(
            lambda t, y: fld.f(y), (0, t_end), x0, method="LSODA",
            jac=lambda t, y: fld.jac(y), rtol=1e-8, atol=1e-11, dense_output=True,
        )  # fmt: skip
        assert sol.success
        tt = np.linspace(t_end - 2 * period, t_end, 801)
        X = sol.sol(tt)
        z = proj @ (X - fld.equilibrium[:, None])
        c3 = np.cos(3 * np.angle(z[0] * np.conj(z[1])))
        assert np.all(np.abs(c3 - target) < 1e-3), (eps, c3.min(), c3.max())
        # the pattern, up to its images under the 3-cycle (psi = 0, +-2 pi / 3 are one
        # standing wave): half peak-to-peak of the queues and phase lags behind the largest
        Y = X[:3]
        amp = (Y.max(axis=1) - Y.min(axis=1)) / 2
        names = ("q1", "q2", "q3")
        law = np.array([float(stable["amplitudes"][k]) for k in names])
        assert sorted(amp / amp.max()) == pytest.approx(sorted(law / law.max()), abs=0.02)
        # its size: the first-order law, off by O(theta - theta_c) at 17 % past theta_c
        assert amp.max() / (law.max() * np.sqrt(d)) == pytest.approx(1, abs=0.2)
        ph = [np.angle(np.sum((y - y.mean()) * np.exp(-1j * w * tt))) for y in Y]
        big, big_law = int(np.argmax(amp)), int(np.argmax(law))
        lags = sorted(((ph[big] - ph[k]) / (2 * np.pi)) % 1 for k in range(3) if k != big)
        lag0 = float(stable["phase_lags"][names[big_law]] or 0)
        want = sorted(
            (float(stable["phase_lags"][names[k]]) - lag0) % 1 for k in range(3) if k != big_law
        )
        assert lags == pytest.approx(want, abs=0.02)


def test_cli_prints_the_decided_standing_wave(capsys):
    from symdelay.cli import main as cli_main

    args = ["normal-form", "--model-file", str(DATA)]
    args += [f"--set={k}" for k in ("mu=1", "lam=1", "gamma=2", "nu=10")]
    assert cli_main([*args, "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    zz, zmz = rec["patterns"][1:]
    assert zz["stable"] is True and zmz["stable"] is False
    assert zz["fifth_order"] == zmz["fifth_order"] and zz["fifth_order"]["C"]["re"]
    assert cli_main(args) == 0
    out = capsys.readouterr().out
    assert f"C = {zz['fifth_order']['C']['re']}" in out
    assert "(the reflection): supercritical, stable" in out
    assert "(the reflection with half the period): supercritical, unstable (positive: " in out


def test_the_decision_follows_the_sign_and_its_bound(standing):
    """The standing waves' verdicts from a given fifth-order result: the sign of
    ``Re(conj(A - B) C)`` when it exceeds its bound, null with the value inside it, null with
    the reason when ``C`` was not computed."""
    from symdelay.analysis.equivariant import _patterns

    model, nf = standing
    eq = nf.equivariant
    names = [s.name for s in model.states]
    orbit = tuple(names.index(k) for k in eq.orbit)
    A, B = eq.balls["A"], eq.balls["B"]  # Re(A + B) < 0, Re(A - B) < 0

    def verdicts(five):
        pats = _patterns(A, B, eq.balls["r_prime"], [eq.q1, eq.q2], orbit, model, -1.0, 15, five)
        return [(p["stable"], p["stability_reason"]) for p in pats[1:]]

    C = flint.acb(3, 4)
    S = ((A - B).conjugate() * C).real
    assert S < 0 or S > 0  # its sign proved: the verdicts follow it
    both = verdicts({"C": C, "criterion": S, "scale": 1})
    assert [v for v, _ in both] == ([True, False] if S < 0 else [False, True])
    # a ball of C holding a C with the other sign: undecided, the ball in the reason
    wide = C + flint.acb(flint.arb(0, 10), flint.arb(0, 10))
    Sw = ((A - B).conjugate() * wide).real
    assert Sw.contains(0)
    inside = verdicts({"C": wide, "criterion": Sw, "scale": 1})
    assert [v for v, _ in inside] == [None, None]
    assert all("is not proved nonzero (its ball" in why for _, why in inside)
    for five, word in ((None, "not computed)"), ({"C": None, "reason": "no exp"}, "no exp")):
        out = verdicts(five)
        assert [v for v, _ in out] == [None, None] and all(word in why for _, why in out)
    # at cubic order: a ball of Re(A + B) holding 0 leaves the criticality and every
    # standing wave's verdict undecided, with the ball in the reason
    fuzz = flint.acb(flint.arb(0, 2 * abs(float((A + B).real.mid()))))
    pats = _patterns(A + fuzz, B, eq.balls["r_prime"], [eq.q1, eq.q2], orbit, model, -1, 15)
    for p in pats[1:]:
        assert p["criticality"] == "degenerate" and p["stable"] is None
        assert "holds 0 (" in p["stability_reason"] and p["side"] is None


def test_the_balls_hold_the_floating_values(standing):
    """The Arb balls of A, B and C hold the values of an independent floating computation:
    the cubic coefficients by Kuznetsov's projection in mpmath at 50 digits (the tensors at
    the midpoint of the Hopf point), C's criterion by the series at 50 digits; and their radii
    at the default precision are below 1e-10 relative."""
    from symdelay.analysis.equivariant import _centre_vectors, _cycles, find_reflection
    from symdelay.analysis.nfseries import centre_normal_form
    from symdelay.analysis.normal_form import first_lyapunov

    model, nf = standing
    eq = nf.equivariant
    balls = eq.balls
    for key in ("A", "B", "C"):
        b = balls[key]
        rad = max(float(b.real.rad()), float(b.imag.rad()))
        assert rad < 1e-10 * abs(complex(eq.A if key != "C" else eq.C)), key
    # the same computation in mpmath floating point (the series' mpmath path)
    lyap = first_lyapunov(model, ("theta",), derivative=True)
    kappa = find_reflection(model)
    n = lyap.n
    with mpmath.workdps(50), flint.ctx.workprec(170):
        th, w = mpmath.mpf(nf.theta_c), mpmath.mpf(nf.omega)
        Jd = lyap.tensors((th,))[0]
        Ja = [[flint.acb(0)] * n for _ in range(n)]
        for (i, j), v in Jd.items():
            Ja[i][j] = flint.acb(flint.arb(mpmath.nstr(v, 55)))
        vecs = _centre_vectors(Ja, flint.arb(mpmath.nstr(w, 55)), _cycles(model.permutation),
                               kappa, n)  # fmt: skip
        q1, q2, p1, p2 = ([_mid(x) for x in v] for v in vecs)
        J = mpmath.matrix(n, n)
        for (i, j), v in Jd.items():
            J[i, j] = v
        drift = [sp.sympify(F).xreplace(model.values) for F in model.drift]
        sym = lyap._syms[0]
        point = [sp.sympify(model.equilibrium.point[s]).xreplace({sym: th}) for s in model.states]
        point = [mpmath.mpf(sp.Float(x, 55)) for x in point]
        out = centre_normal_form(drift, list(model.states), point, {sym: th}, J, w,
                                 [q1, q2], [p1, p2], order=5)  # fmt: skip
        G, mono = out["G"], out["mono"]
        A, B = G[0][mono.index[(2, 0, 1, 0)]], G[0][mono.index[(1, 1, 0, 1)]]
        C = G[0][mono.index[(0, 3, 2, 0)]]
        for key, val in (("A", A), ("B", B), ("C", C)):
            b = balls[key]
            # the floating value at the midpoint sits within the ball (to its own rounding)
            rad = mpmath.mpf(float(b.real.rad())) + mpmath.mpf(float(b.imag.rad()))
            assert abs(val - _mid(b)) <= rad + mpmath.mpf(10) ** -40 * abs(val), key


def _mid(b):
    from symdelay.analysis.dnormal import _mp

    return _mp(b)


@pytest.mark.parametrize(("extra", "expected"), [((-1, -3), -1), ((-1, 2), 1), ((-1, 0), 0)])
def test_the_rest_of_the_spectrum_is_placed_by_a_proof(extra, expected):
    """The eigenvalues beside the double pair +- i w, by the Routh array in Arb: all in
    Re < 0 (-1), one in Re > 0 (1), one on the axis (0: not proved either way)."""
    from symdelay.analysis.equivariant import _other_spectrum_sign

    w = flint.arb(2).sqrt()  # irrational: the pair's balls are not exact
    Jd = {}
    for b in (0, 2):  # two rotation blocks: the double pair +- i w
        Jd[b, b + 1], Jd[b + 1, b] = -w, w
    for k, lam in enumerate(extra):
        Jd[4 + k, 4 + k] = flint.arb(lam)
    Jd[4, 5] = flint.arb(1)  # not normal
    assert _other_spectrum_sign(Jd, 6, w) == expected
