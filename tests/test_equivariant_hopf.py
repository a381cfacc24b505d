"""Hopf bifurcation of three symmetric servers: the D_3 x S^1-equivariant normal form.

Compared against: the D_3 equivariance of the computed cubic terms (the forbidden resonant
coefficients vanish, and stop vanishing when the cubic tensor is made asymmetric); the
scalar projection formula on the invariant lines of the standing waves (``c1`` there is
``A + B``); and the fluid ODE integrated by SciPy near the Hopf point (an independent path:
no normal form in it), which converges to the branch the normal form calls stable with its
phase lags and amplitudes, the amplitude ratio tending to 1 linearly in ``theta - theta_c``;
the unstable standing wave found from a start in its invariant subspace (queues 2 and 3
equal), against its amplitude law.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from symdelay.analysis.normal_form import first_lyapunov, normal_form
from symdelay.models import build_model


@pytest.fixture(scope="module")
def three():
    return build_model("nserver", N=3, L=2, mu=1, lam=1, D=1)


@pytest.fixture(scope="module")
def nf3(three):
    return normal_form(three)


def test_cubic_terms_are_d3_equivariant(three, nf3):
    from symdelay.analysis.equivariant import d3_hopf, find_reflection

    rec = nf3.record()
    assert rec["multiplicity"] == 2 and rec["l1"] is None
    checks = {k: float(v) for k, v in rec["checks"].items() if not isinstance(v, bool)}
    for key in (
        "d3_equivariance_residual",
        "crossing_matrix_residual",
        "r_prime_projection_minus_factor",
        "centre_eigenvector_residual",
    ):
        assert checks[key] < 1e-25, key
    assert checks["other_spectrum_max_real"] < 0
    # the reflection found fixes server 1 and swaps 2 and 3, with their delay stages
    kappa = find_reflection(three)
    names = [s.name for s in three.states]
    assert {names[i]: names[j] for i, j in enumerate(kappa) if i != j} == rec["reflection"]
    assert rec["reflection"]["q2"] == "q3" and "q1" not in rec["reflection"]
    # the check can fail: an asymmetric cubic term (on server 1's queue only)
    lyap = first_lyapunov(three, ("theta",), derivative=True)
    with mpmath.workdps(40):
        J, H, T3, dJ = lyap.tensors((nf3.theta_c,))
        T3 = dict(T3)
        T3[(0, 0, 0, 0)] = T3.get((0, 0, 0, 0), 0) + 1
        bad = d3_hopf((J, H, T3, dJ), lyap.n, nf3.omega, three, kappa, nf3.r_prime, 15)
    assert "rotating wave (supercritical, stable)" in nf3.latex()
    assert bad.checks["d3_equivariance_residual"] > 1e-6  # against 1e-25 when symmetric


def test_standing_wave_coefficient_by_the_scalar_formula(three, nf3):
    """On the lines z1 = +-z2 the pair is simple in the invariant subspace: Kuznetsov's
    scalar ``c1`` with ``q = q1 +- q2`` (and its left vector, solved afresh) is ``A + B``;
    with ``q = q1`` it is ``A``."""
    from symdelay.analysis.projection import c1_coefficient

    eq = nf3.equivariant
    lyap = first_lyapunov(three, ("theta",), derivative=True)
    n = lyap.n
    with mpmath.workdps(40):
        Jd, H, T3, _ = lyap.tensors((nf3.theta_c,))
        J = mpmath.matrix(n, n)
        for (i, j), v in Jd.items():
            J[i, j] = v
        iw = mpmath.mpc(0, nf3.omega)

        def solve(k, b):
            x = mpmath.lu_solve(J - k * iw * mpmath.eye(n), mpmath.matrix(b))
            return [x[i] for i in range(n)]

        for sign in (1, -1):
            q = [eq.q1[i] + sign * eq.q2[i] for i in range(n)]
            other = [eq.q1[i] - sign * eq.q2[i] for i in range(n)]
            pc = _left_vector(J, iw, q, other)
            c1 = c1_coefficient(q, pc, H, T3, solve)
            assert abs(c1 - (eq.A + eq.B)) < mpmath.mpf(10) ** -25 * abs(eq.A + eq.B)
        # and the rotating wave's: q = q1 alone gives A
        pc = _left_vector(J, iw, eq.q1, eq.q2)
        assert abs(c1_coefficient(eq.q1, pc, H, T3, solve) - eq.A) < 1e-25 * abs(eq.A)


def _left_vector(J, iw, q, other):
    """``conj(p)`` (a list) with ``conj(p)^T (J - i w) = 0``, ``conj(p)^T q = 1`` and
    ``conj(p)^T other = 0``, solved afresh (least squares of the consistent system)."""
    n = J.rows
    M = mpmath.matrix(n + 2, n)
    rhs = mpmath.matrix(n + 2, 1)
    for i in range(n):
        for j in range(n):
            M[j, i] = J[i, j] - (iw if i == j else 0)
        M[n, i], M[n + 1, i] = q[i], other[i]
    rhs[n] = 1
    x, res = mpmath.qr_solve(M, rhs)
    assert res < mpmath.mpf(10) ** -30
    return [x[i] for i in range(n)]


# ------------------------------------------------------------------ the fluid ODE
def _integrate(model, theta, offset, t_end, period):
    """The fluid ODE (SciPy LSODA on the model's drift) from ``equilibrium + offset``; the
    first orbit's states over the last three periods and 20 periods earlier, the vector
    field and the final state."""
    from scipy.integrate import solve_ivp

    from symdelay.analysis.cycles import model_field

    fld = model_field(model, theta)
    sol = solve_ivp(
        lambda t, y: fld.f(y),
        (0, t_end),
        fld.equilibrium + offset,
        method="LSODA",
        jac=lambda t, y: fld.jac(y),
        rtol=1e-7,
        atol=1e-11,
        dense_output=True,
    )
    assert sol.success
    tt = np.linspace(t_end - 3 * period, t_end, 3001)
    return tt, sol.sol(tt)[:3], sol.sol(tt - 20 * period)[:3], fld, sol.y[:, -1]


def _amplitudes_and_lags(tt, Y, omega):
    """Half peak-to-peak of each row, and its phase lag behind row 0 in periods."""
    amp = (Y.max(axis=1) - Y.min(axis=1)) / 2
    ph = [np.angle(np.sum((y - y.mean()) * np.exp(-1j * omega * tt))) for y in Y]
    return amp, [((ph[0] - p) / (2 * np.pi)) % 1 for p in ph]


def test_fluid_ode_converges_to_the_stable_rotating_wave(three, nf3):
    pats = nf3.record()["patterns"]
    rw = pats[0]
    assert rw["pattern"] == "rotating wave" and rw["stable"] is True
    assert rw["criticality"] == "supercritical" and rw["side"] == "above"
    assert [p["stable"] for p in pats[1:]] == [False, False]  # Re(A - B) > 0
    w, th_c = float(nf3.omega), float(nf3.theta_c)
    period = 2 * np.pi / w
    offset = 1e-3 * np.random.default_rng(1).standard_normal(len(three.states))
    errors = []
    for d in (0.4, 0.2):
        tt, Y, Y_before, _, _ = _integrate(three, th_c + d, offset, 200 / d, period)
        amp, lags = _amplitudes_and_lags(tt, Y, w)
        before, _ = _amplitudes_and_lags(tt, Y_before, w)
        assert np.max(np.abs(before / amp - 1)) < 1e-3  # settled on the cycle
        # three equal amplitudes, lags of a third of the period (either direction of travel)
        assert np.ptp(amp) < 1e-5 * amp.max()
        assert sorted(lags[1:]) == pytest.approx([1 / 3, 2 / 3], abs=2e-3)
        law = float(rw["amplitude_coefficient"]) * np.sqrt(d)
        errors.append(abs(amp.mean() / law - 1))
    # the amplitude ratio tends to 1, linearly in theta - theta_c (the next order)
    assert errors[1] < 0.06 and 0.35 < errors[1] / errors[0] < 0.65


def test_unstable_standing_wave_from_a_symmetric_start(three, nf3):
    """In the invariant subspace of the reflection (queues 2 and 3 equal) the standing wave
    z1 = z2 is the attractor: its amplitudes and phases against the normal form's; out of
    it, the growth rate of the perturbation against the normal form's eigenvalue."""
    from symdelay.analysis.equivariant import find_reflection

    sw = nf3.record()["patterns"][1]
    assert sw["isotropy"].startswith("Z2(kappa)")
    kappa = find_reflection(three)
    w, th_c = float(nf3.omega), float(nf3.theta_c)
    offset = 1e-3 * np.random.default_rng(2).standard_normal(len(three.states))
    moved = np.empty_like(offset)
    moved[list(kappa)] = offset
    offset = (offset + moved) / 2  # fixed by the reflection
    d = 0.2
    tt, Y, Y_before, fld, y = _integrate(three, th_c + d, offset, 200 / d, 2 * np.pi / w)
    amp, lags = _amplitudes_and_lags(tt, Y, w)
    before, _ = _amplitudes_and_lags(tt, Y_before, w)
    assert np.max(np.abs(before / amp - 1)) < 1e-3  # settled on the cycle
    law = np.array([float(sw["amplitudes"][k]) for k in ("q1", "q2", "q3")]) * np.sqrt(d)
    assert amp / law == pytest.approx([1, 1, 1], abs=0.03)
    assert lags[1:] == pytest.approx([float(sw["phase_lags"][k]) for k in ("q2", "q3")], abs=2e-3)
    assert sorted(lags[1:]) == pytest.approx([0.5, 0.5], abs=2e-3)
    # unstable in the whole space: a perturbation that breaks the reflection grows at the
    # transverse eigenvalue 2 Re(A - B) rho^2 (the relative phase is neutral at this order)
    from scipy.integrate import solve_ivp

    kick = 1e-7 * np.random.default_rng(3).standard_normal(len(y))
    moved[list(kappa)] = kick
    kick = (kick - moved) / 2  # odd under the reflection
    t_end, period = 60 / d, 2 * np.pi / w
    sol = solve_ivp(
        lambda t, x: fld.f(x), (0, t_end), y + kick, method="LSODA",
        jac=lambda t, x: fld.jac(x), rtol=1e-9, atol=1e-14, dense_output=True,
    )  # fmt: skip
    tt = np.linspace(0, t_end, 6000)
    X = sol.sol(tt)
    Xk = np.empty_like(X)
    Xk[list(kappa)] = X
    odd = np.linalg.norm(X - Xk, axis=0)
    n = int(t_end / period)
    envelope = [odd[(tt >= k * period) & (tt < (k + 1) * period)].max() for k in range(n)]
    rate = np.polyfit((np.arange(n // 3, n) + 0.5) * period, np.log(envelope[n // 3 :]), 1)[0]
    eq = nf3.equivariant
    rho2 = float(nf3.r_prime.real) * d / abs(float((eq.A + eq.B).real))
    assert rate == pytest.approx(2 * float((eq.A - eq.B).real) * rho2, rel=0.05)


# ------------------------------------------------------------------ N >= 4
def test_four_servers_refused_in_one_line():
    """S_4 on a three-dimensional eigenspace: no patterns, one line saying why (N = 2 and
    the command line: tests/test_bifurcation_symmetric.py)."""
    four = normal_form(build_model("nserver", N=4, L=2, mu=1, lam=1, D=1)).record()
    assert four["multiplicity"] == 3 and four["l1"] is None and four["patterns"] is None
    reason = four["patterns_reason"]
    assert "\n" not in reason and "multiplicity 3" in reason and "S_4" in reason
    assert four["cubic_coefficients"] is None


# ------------------------------------------------------------------ a model file
def three_server_text() -> str:
    """Three queues as a model file, the states listed so that the reflection fixes the
    second state of one orbit (the search must find the base of each orbit)."""
    den = "exp(-theta*q1) + exp(-theta*q2) + exp(-theta*q3)"
    lines = [
        'name = "three queues from a file"',
        "[parameters]",
        'mu = "positive"\nlam = "positive"\ntheta = "real"\ngamma = "positive"',
        "[state]",
        'names = ["q1", "q2", "q3", "z21", "z22", "z31", "z32", "z11", "z12"]',
    ]
    for k in (1, 2, 3):
        for name, change, rate in (
            (f"arrival {k}", f"{{ z{k}1 = 1 }}", f"3*lam*exp(-theta*q{k})/({den})"),
            (f"phase {k}", f"{{ z{k}1 = -1, z{k}2 = 1 }}", f"gamma*z{k}1"),
            (f"enter {k}", f"{{ z{k}2 = -1, q{k} = 1 }}", f"gamma*z{k}2"),
            (f"service {k}", f"{{ q{k} = -1 }}", f"mu*q{k}"),
        ):
            lines += [
                "[[transitions]]",
                f'name = "{name}"',
                f"change = {change}",
                f'rate = "{rate}"',
            ]
    lines += [
        "[symmetry]",
        'swap = [["q1", "q2", "q3"], ["z11", "z21", "z31"], ["z12", "z22", "z32"]]',
    ]
    return "\n".join(lines) + "\n"


def test_a_model_file_with_a_three_cycle(tmp_path, nf3):
    from symdelay.model import load_toml

    path = tmp_path / "three.toml"
    path.write_text(three_server_text())
    model = load_toml(path, mu=1, lam=1, gamma=2)
    nf = normal_form(model)
    rec = nf.record()
    assert rec["multiplicity"] == 2 and len(rec["patterns"]) == 3
    assert rec["reflection"]["q2"] == "q3" and rec["reflection"]["z21"] == "z31"
    assert "z11" not in rec["reflection"]
    # the same drift under other names: the same normal form as the family's
    assert abs(nf.equivariant.A - nf3.equivariant.A) < 1e-25 * abs(nf3.equivariant.A)
    assert abs(nf.equivariant.B - nf3.equivariant.B) < 1e-25 * abs(nf3.equivariant.B)
    assert [p["stable"] for p in rec["patterns"]] == [True, False, False]
