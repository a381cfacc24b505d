"""SQ(d) and LB(xi, c, d) under hostile input: every case answers right or refuses in one line.

Each refusal is checked through the CLI (exit 2, one line on stderr naming the option to
change, no traceback); each answer against an independent path (closed forms computed here
with mpmath, the list-based drift of the fixed-point solver, brute-force enumeration,
SymPy's solver).
"""

from __future__ import annotations

import itertools
import json

import mpmath
import numpy as np
import pytest
import sympy as sp

from symdelay.cli import main


def _refused(capsys, argv, *words):
    """Run the CLI; assert exit 2 and one line on stderr containing every word."""
    rc = main(argv)
    out, err = capsys.readouterr()
    assert rc == 2, (rc, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("symdelay: error: "), err
    assert "Traceback" not in err
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


# ------------------------------------------------------------------ SQ(d): refusals
def test_sqd_simulate_negative_seed_is_one_line(capsys):
    _refused(capsys, ["sqd", "simulate", "--N", "50", "--T", "10", "--seed", "-1"], "--seed")


def test_sqd_simulate_huge_T_is_refused_naming_T_and_force(capsys):
    _refused(capsys, ["sqd", "simulate", "--T", "1e308"], "--T", "--force")


def test_sqd_simulate_long_T_is_refused_with_an_estimate(capsys):
    # 2 lam N T = 1.8e11 events at 1e7/s: hours, over the 60 s budget
    line = _refused(capsys, ["sqd", "simulate", "--T", "1e8"], "--T", "--force")
    assert "hours" in line or "days" in line


def test_sqd_simulate_billion_servers_refused_before_allocating(capsys):
    line = _refused(capsys, ["sqd", "simulate", "--N", "1000000000"], "--N", "GiB")
    assert "memory" in line


def test_sqd_simulate_more_batches_than_events_is_refused(capsys):
    # default N = 1000, T = 2000, lam = 0.9: about 1.6 arrivals per batch with 10^6 batches
    line = _refused(capsys, ["sqd", "simulate", "--batches", "1000000"], "--batches")
    assert "at most 162000 batches" in line  # 0.9 * 1000 * 1800 / 10 arrivals per batch


@pytest.mark.parametrize("argv", [["--K", "0"], ["--K", "x"], ["--points", "0"], ["--points", "1"]])
def test_sqd_fluid_bad_sizes_are_one_line(capsys, argv):
    _refused(capsys, ["sqd", "fluid", *argv], argv[0])


def test_sqd_fluid_hundred_million_levels_is_refused(capsys):
    _refused(capsys, ["sqd", "fluid", "--K", "100000000"], "--K", "--force")


def test_sqd_erlang_thousand_phases_is_refused(capsys):
    _refused(capsys, ["sqd", "fixed-point", "--service", "erlang", "--k", "1000"], "--k", "--force")


def test_sqd_newton_with_many_phases_is_refused(capsys):
    # Erlang(60): the service builds quickly, Newton (K = 8, 60 x 60 blocks) would not
    _refused(capsys, ["sqd", "fixed-point", "--service", "erlang", "--k", "60"], "--k", "--force")


# ------------------------------------------------------------------ SQ(d): right answers
def test_sqd_fixed_point_near_saturation_is_the_closed_form(capsys):
    """lam = 0.999999: s_k = lam^(2^k - 1) (d = 2, Exp(1)), computed here with mpmath."""
    assert main(["sqd", "fixed-point", "--lam", "0.999999", "--json", "--dps", "20"]) == 0
    rec = json.loads(capsys.readouterr().out)
    with mpmath.workdps(60):
        lam = mpmath.mpf(999999) / 10**6
        want = [lam ** (2**k - 1) for k in range(1, len(rec["tail"]) + 1)]
        for got, w in zip(rec["tail"], want):
            assert abs(mpmath.mpf(got) - w) <= mpmath.mpf(10) ** -19 * max(w, 1e-300) + 1e-40
    assert rec["truncation"] >= 25  # lam^(2^25) is still 2.7e-15: the tail is long


def test_sqd_newton_near_saturation_matches_the_closed_form():
    """The Newton path (its start was capped at rho^1e6 and diverged) against the closed form."""
    from symdelay.models.sqd import fixed_point

    fp = fixed_point(2, "0.999999", method="newton", dps=15)
    with mpmath.workdps(40):
        lam = mpmath.mpf(999999) / 10**6
        for k, v in enumerate(fp.tail[:20], start=1):
            w = lam ** (2**k - 1)
            assert abs(v - w) < 1e-12 * w + 1e-25


def test_sqd_fluid_one_level_header_and_value(capsys):
    """K = 1: one column under a one-column header, at the truncated equilibrium
    lam (1 - s^2) = s, s = (sqrt(1 + 4 lam^2) - 1) / (2 lam)."""
    assert main(["sqd", "fluid", "--K", "1", "--T", "200", "--points", "3"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    header, rows = lines[1], [ln for ln in lines[2:] if not ln.startswith("note:")]
    assert header.split() == ["t", "s_1"]
    assert all(len(r.split()) == 2 for r in rows)
    s = (np.sqrt(1 + 4 * 0.81) - 1) / 1.8
    assert abs(float(rows[-1].split()[1]) - s) < 2e-6
    assert any(ln.startswith("note: K = 1 is below") for ln in lines)


@pytest.mark.parametrize(
    "kind,opts,d",
    [("erlang", {"k": 3}, 2), ("hyperexp", {"probs": "0.3,0.7", "rates": "0.5,2"}, 3)],
)
def test_fluid_array_drift_and_jacobian_match_the_list_solver(kind, opts, d):
    """The numpy drift / sparse Jacobian of the fluid path against drift_u / jacobian_u."""
    from symdelay.models.sqd.fixed_point import _system, drift_u, jacobian_u
    from symdelay.models.sqd.fluid import _Arrays, drift_array, jacobian_sparse
    from symdelay.models.sqd.service import service_from_options

    svc = service_from_options(kind, **opts)
    K, m, lam = 6, svc.phases, sp.Rational(4, 5)
    rng = np.random.default_rng(3)
    u = np.sort(rng.random((K, m)), axis=0)[::-1] / m
    sysf = _system(svc, d, lam, K, float)
    ref = np.array(drift_u(sysf, u.tolist()))
    arr = _Arrays(svc, d, lam, K)
    assert np.allclose(drift_array(arr, u), ref, rtol=1e-13, atol=1e-15)
    Ls, Ds, Us = jacobian_u(sysf, u.tolist())
    J = jacobian_sparse(arr, u).toarray()
    for k in range(K):
        blk = slice(k * m, (k + 1) * m)
        assert np.allclose(J[blk, blk], Ds[k], rtol=1e-13, atol=1e-15)
        if k > 0:
            assert np.allclose(J[blk, (k - 1) * m : k * m], Ls[k], rtol=1e-13, atol=1e-15)
        if k < K - 1:
            assert np.allclose(J[blk, (k + 1) * m : (k + 2) * m], Us[k], rtol=1e-13, atol=1e-15)
    # and a finite-difference check of the Jacobian itself
    h = 1e-7
    for col in (0, m, K * m - 1):
        e = np.zeros(K * m)
        e[col] = h
        fd = (drift_array(arr, (u.ravel() + e).reshape(K, m)) - drift_array(arr, u)).ravel() / h
        assert np.allclose(J[:, col], fd, atol=1e-5)


def test_sqd_fraction_intervals_stay_in_the_unit_interval():
    """A short run near saturation: the t-intervals of s_k would pass 1; they are cut."""
    from symdelay.models.sqd.simulate import simulate

    r = simulate(20, 2, "0.95", None, T=100, seed=1, batches=3).info
    for v, (lo, hi) in zip(r["tail"], r["tail_ci95"]):
        assert 0 <= lo <= v <= hi <= 1
    lo, hi = r["tail_ci95"][0]
    assert hi == 1.0 and hi - r["tail"][0] < r["tail"][0] - lo  # cut at 1, not symmetric


# ------------------------------------------------------------------ LB(xi, c, d)
def test_lb_simulate_huge_T_is_refused(capsys):
    argv = ["lb", "simulate", "--stations", "N=50,mu=1;N=50,mu=1", "--beta", "0.5"]
    _refused(capsys, [*argv, "--T", "1e308"], "--T", "--force")
    _refused(capsys, [*argv, "--T", "1e9"], "--T", "--force")


def test_lb_diffusion_two_thousand_identical_stations_is_halfin_whitt(capsys):
    """2000 identical stations (a = 1): P(wait) = [1 + beta Phi(beta) / phi(beta)]^-1."""
    stations = ";".join(["N=3,mu=1"] * 2000)
    assert main(["lb", "diffusion", "--stations", stations, "--beta", "0.5", "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    with mpmath.workdps(40):
        b = mpmath.mpf(1) / 2
        want = 1 / (1 + b * mpmath.ncdf(b) / mpmath.npdf(b))
        assert abs(mpmath.mpf(rec["p_wait"]) - want) < mpmath.mpf(10) ** -28
    assert rec["a"] == "1" and len(rec["stations"]) == 2000


def test_lb_diffusion_too_many_stations_is_refused(capsys):
    stations = ";".join(["N=1,mu=1"] * 100_000)
    _refused(capsys, ["lb", "diffusion", "--stations", stations, "--beta", "0.5"], "--force")


def test_lb_fluid_many_stations_is_refused(capsys):
    stations = ";".join(["N=1,mu=1"] * 12)
    _refused(capsys, ["lb", "fluid", "--stations", stations, "--lam", "0.5"], "--force")


def test_balance_margin_matches_enumeration_of_subsets():
    """The O(J) margin (k largest shares) against every proper subset, exactly."""
    from symdelay.models.lb.policy import LBPolicy

    p = LBPolicy.from_text(
        "N=3,mu=1;N=5,mu=2;N=2,mu=1/3;N=7,mu=1;N=4,mu=3/2;N=1,mu=5", xi_dist="2:1/3,3:2/3"
    )
    nu = p.capacity_shares
    J = p.J
    brute = min(
        1
        - sum(pr * sp.binomial(J - len(S), x) / sp.binomial(J, x) for x, pr in p.xi.items())
        - sum(nu[j] for j in S)
        for k in range(1, J)
        for S in itertools.combinations(range(J), k)
    )
    assert p.balance_margin() == brute


def test_design_ratio_closed_form_matches_sympy_solve():
    from symdelay.models.lb.design import design
    from symdelay.models.lb.policy import LBPolicy

    p = LBPolicy.from_text("N=10,mu=1;N=20,mu=1/2;N=30,mu=2", xi="3")
    r = design(p, "0.5", "delay-ratio", ratio="1,2,5", dps=15)
    w, mus = p.shares, [s.mu for s in p.stations]
    c2, c3 = sp.symbols("c2 c3", positive=True)
    cc = (1, c2, c3)
    tot = sum(wj * mj / cj for wj, mj, cj in zip(w, mus, cc))
    q = [1 / (cj * tot) for cj in cc]
    sol = sp.solve([sp.Eq(q[1] * 1, q[0] * 2), sp.Eq(q[2] * 1, q[0] * 5)], [c2, c3], dict=True)
    assert len(sol) == 1 and tuple(r.c) == (1, sol[0][c2], sol[0][c3])


def test_lb_intervals_of_probabilities_stay_in_the_unit_interval():
    """Three short batches near capacity: the t-interval of P(wait) would pass 1."""
    from symdelay.models.lb.policy import LBPolicy
    from symdelay.models.lb.simulate import simulate

    p = LBPolicy.from_text("N=5,mu=1;N=5,mu=1", xi="2")
    r = simulate(p, "9.9", 60, seed=2, batches=3).info
    pw = r["p_wait"]
    assert 0 <= pw.lo <= pw.value <= pw.hi == 1.0 and pw.value - pw.lo > 1 - pw.value
    for s in r["stations"]:
        for key in ("utilisation", "idle_ratio", "p_wait", "arrival_share"):
            e = s[key]
            assert 0 <= e.lo <= e.value <= e.hi <= 1, (key, e)


def test_simulation_rate_is_exact_or_the_30_digit_decimal():
    from symdelay.core.errors import SymdelayInputError
    from symdelay.models.lb.diffusion import arrival_rate, simulation_rate
    from symdelay.models.lb.policy import LBPolicy, as_rational

    square = LBPolicy.from_text("N=50,mu=1;N=50,mu=1", xi="2")  # n = 100
    assert simulation_rate(square, "0.5") == 95
    other = LBPolicy.from_text("N=50,mu=1;N=51,mu=1", xi="2")  # n = 101
    lam = simulation_rate(other, "0.5")
    assert lam.is_Rational and 10**27 <= lam.q <= 10**29
    assert abs(sp.N(lam - arrival_rate(other, "0.5"), 50)) < sp.Rational(1, 10**27)
    with pytest.raises(SymdelayInputError):
        as_rational("lam", sp.sqrt(2))


def test_sqd_fluid_astronomic_horizon_is_one_line(capsys):
    _refused(capsys, ["sqd", "fluid", "--T", "1e308", "--points", "3"], "--T")


def test_convergence_notes_are_escaped_for_latex():
    """The note of an unresolved bias has a '%': unescaped, LaTeX drops the rest of the line."""
    from symdelay.outputs.sections.sqd import notes_text

    text = notes_text(["bias of E[T] not resolved (95% CI contains 0) at N = 100, 300"])
    assert "95\\% CI" in text and "$E[T]$" in text
    assert "%" not in text.replace("\\%", "")
    assert notes_text([]) == ""


def test_routing_labels_are_maths():
    from symdelay.models.lb.compare import ROUTINGS
    from symdelay.outputs.plots_lb import routing_label

    labels = [routing_label(n) for n in ROUTINGS]
    assert labels[:2] == [r"LB, $\xi = 2$", r"LB, $\xi = J$"]
    assert not any("xi=" in lab for lab in labels)


def test_lb_simulate_more_batches_than_arrivals_is_refused(capsys):
    argv = ["lb", "simulate", "--stations", "N=5,mu=1;N=5,mu=1", "--lam", "9", "--T", "100"]
    line = _refused(capsys, [*argv, "--batches", "1000000"], "--batches")
    assert "at most 81 batches" in line  # 9 * 90 arrivals after the warm-up, 10 per batch
