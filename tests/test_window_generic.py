"""Generic instability windows and extrema (symdelay.analysis.window) against the founding
closed forms, the in-flight curve's exact answers, and an independent path: the eigenvalues
of the full numeric Jacobian (numpy) of the model with every parameter given a number."""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
import sympy as sp

import symdelay
from symdelay.analysis import window as win
from symdelay.analysis.window import extremum, window
from symdelay.core.errors import SymdelayInputError
from symdelay.model import Model
from symdelay.models import build_model
from symdelay.models.erlang.hopf.window import instability_window
from symdelay.models.erlang.hopf.worst import worst_delay
from symdelay.models.inflight.curve import _closed_form_L2, kappa_star, unstable_theta
from symdelay.models.phase_type import PhaseType

R = sp.Rational
TOML = "examples/models/erlang2.toml"


def _close(a, b, digits=12):
    a, b = mpmath.mpf(a), mpmath.mpf(b)
    if mpmath.isinf(a) or mpmath.isinf(b):
        return a == b
    return abs(a - b) <= mpmath.mpf(10) ** (-digits) * max(1, abs(b))


# ------------------------------------------------------------------ founding closed forms
@pytest.mark.parametrize("L, theta", [(2, 12), (3, 5), (5, 3)])
def test_founding_D_window_equals_closed_form_window(L, theta):
    mu, lam = 1, 1
    w = window(build_model("erlang", L=L, mu=mu, lam=lam, theta=theta), "D", method="generic")
    ref = instability_window(L, theta, mu, lam, dps=20).intervals
    assert len(ref) >= 1 and len(w.intervals) == len(ref)
    for iv, (a, b) in zip(w.intervals, ref):
        assert _close(iv.lo.value, a) and _close(iv.hi.value, b)
        for end in (iv.lo, iv.hi):
            if end.lower is not None:  # exact bracket around the closed-form end
                assert end.lower <= sp.Rational(mpmath.nstr(end.value, 30)) <= end.upper
                ref_end = a if end is iv.lo else b
                with mpmath.workdps(30):
                    q = sp.Rational(mpmath.nstr(ref_end, 25))
                assert abs(float(end.upper - end.lower)) <= 1e-15 * float(q)
                assert abs(end.lower - q) <= 1e-13 * q


def test_founding_negative_theta_all_delays_unstable():
    # lam theta < -mu: a real root is positive for every D (closed form)
    w = window(build_model("erlang", L=2, mu=1, lam=1, theta=-2), "D", method="generic")
    assert [(iv.lo.value, iv.hi.value) for iv in w.intervals] == [(0, mpmath.inf)]
    assert [tuple(iv) for iv in instability_window(2, -2, 1, 1).intervals] == [(0, mpmath.inf)]
    assert (
        window(
            build_model("erlang", L=2, mu=1, lam=1, theta=R(-1, 2)), "D", method="generic"
        ).intervals
        == ()
    )


# --------------------------------------------------------------------- in-flight, exact
def test_inflight_theta_window_equals_unstable_theta():
    m = build_model("inflight", L=2, kappa=0.05, mu=1, lam=1, D=1)
    w = win.unstable_theta(m, dps=25, method="generic")  # (auto: the in-flight crossing curve)
    ref = unstable_theta(2, 0.05, dps=30)
    assert len(w.intervals) == len(ref.intervals) == 1
    for iv, (a, b) in zip(w.intervals, ref.intervals):
        for end, x in ((iv.lo, a), (iv.hi, b)):
            assert _close(end.value, x, 22)
            q = sp.Rational(mpmath.nstr(x, 30))
            assert end.lower - R(1, 10**27) <= q <= end.upper + R(1, 10**27)
            assert end.kind == "r = i omega" and len(end.omega) == 1 and end.omega[0] > 0
    # theta < 0: a real root through r = 0 at theta0 = -mu g / (lam (g + kappa mu L)), g = L/D
    full = window(m, "theta")
    g, kap = R(2), R(1, 20)
    theta0 = -g / (g + kap * 2)
    assert full.intervals[0].lo.value == -mpmath.inf
    assert full.intervals[0].hi.kind == "r = 0"
    assert _close(full.intervals[0].hi.value, theta0, 14)


# ------------------------------------------------- independent path: full Jacobian scan
def _max_re_and_count(model, **values):
    J = model.with_values(**values).jacobian
    A = np.array(J.evalf(30).tolist(), dtype=float)
    ev = np.linalg.eigvals(A)
    return float(ev.real.max()), int(np.sum(ev.real > 1e-9))


def _samples(w, lo, hi):
    """Points strictly inside every interval and every gap of the window (not at ends)."""
    ends = [lo]
    for iv in w.intervals:
        ends += [iv.lo.value, iv.hi.value]
    ends.append(hi)
    ends = [float(e) for e in ends]
    out = []
    for i, (a, b) in enumerate(itertools.pairwise(ends)):
        inside = i % 2 == 1
        if a == b:
            continue
        if math.isinf(a) and math.isinf(b):
            pts = [0.0]
        elif math.isinf(b):
            pts = [a + 0.5 + 0.5 * abs(a), a + 3 + 4 * abs(a)]
        elif math.isinf(a):
            pts = [b - 0.5 - 0.5 * abs(b), b - 3 - 4 * abs(b)]
        else:
            pts = [a + (b - a) * t for t in (0.1, 0.5, 0.9)]
        out += [(x, inside) for x in pts]
    return out


def _check_by_eigenvalues(model, param, w, lo, hi, to_values=lambda x: x):
    seen = {True: 0, False: 0}
    for x, inside in _samples(w, lo, hi):
        xq = sp.Rational(repr(x))
        vmax, n = _max_re_and_count(model, **{param: to_values(xq)})
        if inside:
            assert vmax > 1e-9, (param, x, vmax)
            iv = next(iv for iv in w.intervals if iv.lo.value < x < iv.hi.value)
            assert n in iv.unstable_roots
        else:
            assert vmax < -1e-9, (param, x, vmax)
        seen[inside] += 1
    return seen


CASES = [
    (
        "hypoexp 1,2,3",
        lambda: build_model("phase_type", delay=PhaseType.hypoexp([1, 2, 3]), mu=1, lam=1),
    ),
    (
        "hyperexp",
        lambda: build_model(
            "phase_type", delay=PhaseType.hyperexp([R(1, 2), R(1, 2)], [1, 3]), mu=1, lam=1
        ),
    ),
    ("nserver N=3 L=2", lambda: build_model("nserver", N=3, L=2, mu=1, lam=1, D=1)),
    ("inflight L=2", lambda: build_model("inflight", L=2, kappa=R(1, 20), mu=1, lam=1, D=1)),
    ("inflight L=3", lambda: build_model("inflight", L=3, kappa=R(1, 20), mu=1, lam=2, D=1)),
    ("toml erlang2", lambda: symdelay.load_toml(TOML, mu=1, lam=1, gamma=2)),
]


@pytest.mark.parametrize("name, make", CASES, ids=[c[0] for c in CASES])
def test_theta_window_confirmed_by_jacobian_eigenvalues(name, make):
    m = make()
    w = window(m, "theta", lo=-20, hi=400)
    seen = _check_by_eigenvalues(m, "theta", w, -20, 400)
    assert seen[True] >= 1 and seen[False] >= 1
    if name.startswith("hyperexp"):
        # mixtures of exponentials: only the real root through 0 at lam theta = -mu
        assert [(iv.lo.value, iv.hi.value) for iv in w.intervals] == [(-20, -1)]


D_CASES = [
    # (name, model with theta fixed and the delay rate free, phases L)
    ("nserver N=3 L=2", lambda: build_model("nserver", N=3, L=2, mu=1, lam=1, theta=12), 2),
    (
        "inflight L=2",
        lambda: build_model("inflight", L=2, kappa=R(1, 50), mu=1, lam=1, theta=30),
        2,
    ),
    ("inflight L=3", lambda: build_model("inflight", L=3, kappa=R(1, 50), mu=1, lam=1, theta=8), 3),
    ("toml erlang2", lambda: symdelay.load_toml(TOML, mu=1, lam=1, theta=12), 2),
]


@pytest.mark.parametrize("name, make, L", D_CASES, ids=[c[0] for c in D_CASES])
def test_D_window_confirmed_by_jacobian_eigenvalues(name, make, L):
    m = make()
    w = window(m, "D")
    assert w.intervals, "these parameters have a bounded delay window"
    assert any(f"{L} phases" in n for n in w.notes)
    # the test's own conversion: Erlang(L) with mean D has phase rate L/D
    seen = _check_by_eigenvalues(m, "gamma", w, 0, 60, to_values=lambda D: sp.Integer(L) / D)
    assert seen[True] >= 3 and seen[False] >= 3


def test_window_in_another_parameter_mu():
    # founding L = 2, D = 1 (g = gamma = 2), k = lam theta = 12: (r + mu)(r + g)^2 + k g^2
    m = build_model("erlang", L=2, lam=1, theta=12, D=1)
    w = window(m, "mu")
    # check against the eigenvalues, and each end against the Routh condition of the cubic
    seen = _check_by_eigenvalues(m, "mu", w, 0, 30)
    assert seen[True] >= 1 and seen[False] >= 1
    g, k = 2, 12
    for iv in w.intervals:
        for end in (iv.lo, iv.hi):
            if end.kind == "r = i omega":
                mu = end.value
                # Routh for r^3 + a2 r^2 + a1 r + a0: a2 a1 = a0 at the crossing
                a2, a1, a0 = mu + 2 * g, g * g + 2 * g * mu, mu * g * g + k * g * g
                assert abs(a2 * a1 - a0) < 1e-10 * a0
                assert _close(end.omega[0] ** 2, a1, 12)


def test_dde_theta_window_certified_numerics_against_closed_form():
    # r + mu + k exp(-r D) = 0 at r = i w: k cos(wD) = -mu, k sin(wD) = w, so the crossings
    # are k_n = sqrt(mu^2 + w_n^2), w_n D in (2 pi n + pi/2, 2 pi n + pi), tan(w D) = -w/mu
    mu, D = 1, 1
    w = window(build_model("dde", mu=mu, lam=1, D=D), "theta", lo=0, hi=30)
    # crossings isolated in Arb with proved directions, counts certified: a certified window
    assert w.certified and "isolated in Arb" in w.algorithm and w.method == "generic"
    ks = []
    for n in range(5):
        a, b = 2 * math.pi * n + math.pi / 2, 2 * math.pi * n + math.pi
        wn = mpmath.findroot(
            lambda x: mpmath.sin(x * D) * mu + x * mpmath.cos(x * D), (a + 1e-9, b)
        )
        k = mpmath.sqrt(mu**2 + wn**2)
        if k < 30:
            ks.append((k, wn))
    assert len(w.breakpoints) == len(ks) == 5
    for e, (k, wn) in zip(w.breakpoints, ks):
        assert _close(e.value, k, 12) and _close(e.omega[0], wn, 12)
    assert list(w.counts) == [2 * i for i in range(6)]  # each crossing adds a pair
    assert len(w.intervals) == 1 and _close(w.intervals[0].lo.value, ks[0][0], 12)
    with pytest.raises(SymdelayInputError, match="finite hi"):
        window(build_model("dde", mu=mu, lam=1, D=D), "theta")


# ----------------------------------------------------------------------------- extrema
@pytest.mark.parametrize("L", [1, 2, 3, 4])
def test_worst_delay_is_L_over_mu(L):
    mu, lam = 2, 3
    e = win.worst_delay(build_model("erlang", L=L, mu=mu, lam=lam), dps=15, method="generic")
    if L == 1:
        assert e.x_star is None and e.critical == mpmath.inf  # stable for every theta
        assert worst_delay(1, mu, lam).theta_star == mpmath.inf
        return
    with mpmath.workdps(30):
        theta_star = mu / lam / mpmath.cos(mpmath.pi / (L + 1)) ** (L + 1)
    assert _close(e.x_star, R(L, mu), 13)
    assert e.lower <= R(L, mu) <= e.upper
    assert _close(e.critical, theta_star, 12)
    assert e.attained
    ref = worst_delay(L, mu, lam)
    assert _close(e.x_star, ref.D_star, 12) and _close(e.critical, ref.theta_star, 12)
    # p_c at every examined point is at least the minimum
    assert all(v >= e.critical * (1 - 1e-12) for _, v in e.candidates)


def test_extremum_at_range_ends_and_max_closed_form():
    # L = 2: Routh on (r + mu)(r + g)^2 + k g^2, g = 2/D, gives lam theta_c = 4/D + 4 mu + mu^2 D
    def theta_c(D, mu=1, lam=1):
        return (R(4) / D + 4 * mu + mu**2 * D) / lam

    m = build_model("erlang", L=2, mu=1, lam=1)
    e = extremum(m, "D", kind="max", lo=R(1, 2), hi=4)
    assert e.x_star == R(1, 2) and e.critical == theta_c(R(1, 2)) and e.attained
    e = extremum(m, "D", kind="min", lo=3, hi=4)
    assert e.x_star == 3 and _close(e.critical, theta_c(3), 13)
    e = extremum(m, "D", kind="min", lo=R(1, 10), hi=10)
    assert _close(e.x_star, 2, 13) and _close(e.critical, theta_c(2), 13)
    # the worst delay is never beaten at the examined points
    assert all(v >= e.critical - 1e-12 for _, v in e.candidates)


def test_cost_estimate_bounds_the_elimination_degree():
    m = build_model("inflight", L=3, kappa=R(1, 50), mu=1, lam=1, theta=8)
    est = win.estimate_cost(m, "D")
    p, rp = win._resolve(m, "D")
    polys, _, _ = win._prepared(win._factors(m, (p,), (rp,)), p)
    actual = sum(c.degree() for c, _, _ in win._components(polys))
    assert est["degree"] >= actual > 0


def _kappa_model(L, mu=1, lam=1, D=1):
    """In-flight routing with kappa a declared parameter (the built-in fixes it)."""
    g = R(L) / R(D)
    q = ["q1", "q2"]
    z = [[f"z{i}_{ell}" for ell in range(1, L + 1)] for i in (1, 2)]
    obs = [f"({q[i]} + kappa*({' + '.join(z[i])}))" for i in range(2)]
    tr = []
    for i in range(2):
        rate = f"2*lam*exp(-theta*{obs[i]})/(exp(-theta*{obs[0]}) + exp(-theta*{obs[1]}))"
        tr.append((f"arrival {i}", {z[i][0]: 1}, rate))
        for ell in range(L):
            nxt = z[i][ell + 1] if ell + 1 < L else q[i]
            tr.append((f"phase {i} {ell}", {z[i][ell]: -1, nxt: 1}, f"{g}*{z[i][ell]}"))
        tr.append((f"service {i}", {q[i]: -1}, f"mu*{q[i]}"))
    params = {"mu": "positive", "lam": "positive", "theta": "real", "kappa": "nonnegative"}
    sym = [q, *[[z[0][ell], z[1][ell]] for ell in range(L)]]
    return Model(
        "kappa", [*q, *z[0], *z[1]], params, tr, symmetry=sym, values={"mu": mu, "lam": lam}
    )


def test_kappa_star_L2_closed_form_and_L3_certified():
    e2 = win.kappa_star(_kappa_model(2), dps=20)
    cf = _closed_form_L2().subs({sp.Symbol("gamma"): 2, sp.Symbol("mu"): 1})
    assert _close(e2.x_star, sp.N(cf, 30), 12)
    assert e2.lower <= sp.Rational(str(sp.N(cf, 30))) <= e2.upper
    assert e2.stable_set[0][0] == e2.x_star and e2.stable_set[0][1] == mpmath.inf
    e3 = extremum(_kappa_model(3), "kappa", param="theta", kind="stable", dps=20)
    assert _close(e3.x_star, kappa_star(3, mu=1, D=1, dps=25).kappa_star, 12)
    # the independent path: just below kappa* some theta destabilises, just above none does
    m = _kappa_model(3)
    below = window(m.with_values(kappa=R(14, 100)), "theta", lo=0)
    above = window(m.with_values(kappa=R(15, 100)), "theta", lo=0)
    assert below.intervals and not above.intervals
    th = float(below.intervals[0].lo.value + below.intervals[0].hi.value) / 2
    assert _max_re_and_count(m, kappa=R(14, 100), theta=sp.Rational(repr(th)))[0] > 0


def test_a_maximum_never_reports_a_sample_as_its_value():
    """L = 2: lam theta_c(D) = 4/D + 4 mu + mu^2 D (Routh) grows without bound as D -> 0, so
    over (0, 4] the maximum is not a number: the record says it is approached at the end
    and gives no value, only the bound its note states (below the true theta_c there)."""
    m = build_model("erlang", L=2, mu=1, lam=1)
    e = extremum(m, "D", kind="max", hi=4)
    assert not e.attained and e.critical is None and e.x_star == 0
    assert e.to_json()["theta_star"] is None and any("not computed" in n for n in e.notes)
    # where the weight of the jobs in flight makes every theta stable, theta_c is inf: a
    # maximum over kappa is inf (stable for every theta), never a finite crossing value
    k = _kappa_model(2)
    top = extremum(k, "kappa", param="theta", kind="max", lo=0, hi=1)
    assert top.critical == mpmath.inf and top.attained
    assert not window(k.with_values(kappa=sp.Rational(str(top.x_star))), "theta", lo=0).intervals


# ------------------------------------------------------------------ records, bad input
def test_records_json_and_latex():
    w = window(build_model("erlang", L=3, mu=1, lam=1, theta=5), "D", method="generic")
    j = w.to_json()
    assert j["model"] and j["param"] == "D"
    assert j["parameters"] == {"L": 3, "mu": "1", "lam": "1", "theta": "5"}
    assert j["dps"] == 15 and "exact" in j["method"]["algorithm"]
    assert j["method"]["path"] == "generic"
    lo = j["ends"][0]["lo"]
    assert isinstance(lo["value"], str) and float(lo["value"]) == pytest.approx(1.0554299011818343)
    assert w._repr_latex_().startswith("$") and r"\cup" not in w._repr_latex_()
    e = extremum(build_model("erlang", L=2, mu=1, lam=1), "D")
    je = e.to_json()
    assert je["x_star"] == "2.00000000000000" and je["critical"] == "8.00000000000000"
    assert e._repr_latex_().startswith("$")


def test_bad_input_is_one_clear_error(monkeypatch):
    m = build_model("erlang", L=2, mu=1, lam=1, D=1)
    with pytest.raises(SymdelayInputError, match="not a parameter"):
        window(m, "kappa")
    with pytest.raises(SymdelayInputError, match="has a value"):
        window(m, "mu")
    with pytest.raises(SymdelayInputError, match="give numbers for"):
        window(build_model("erlang", L=2, lam=1, D=1), "theta")
    with pytest.raises(SymdelayInputError, match="lo < hi"):
        window(m, "theta", lo=5, hi=1)
    with pytest.raises(SymdelayInputError, match="kind"):
        extremum(build_model("erlang", L=2, mu=1, lam=1), "D", kind="median")
    monkeypatch.setattr(win, "MAX_ELIMINATION_DEGREE", 2)
    with pytest.raises(SymdelayInputError, match="force=True"):
        window(m, "theta")
    assert window(m, "theta", lo=0, force=True).intervals[0].lo.value == 9
