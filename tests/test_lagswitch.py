"""Stability switches over a constant lag (symdelay.analysis.lagswitch), each against an
independent computation: Pender, Rand & Wesson's closed-form critical delay, the closed-form
crossing frequencies and phases of Cooke & Grossman's second-order equation, direct root
finding (mpmath.findroot) at the computed lags, and the argument principle
(symdelay.analysis.certify.count_zeros) on a box proved to hold every unstable root."""

import itertools

import flint
import mpmath
import pytest
import sympy as sp

from symdelay.analysis.certify import count_zeros
from symdelay.analysis.lagswitch import lag_parts, lag_switches
from symdelay.analysis.window import lag_window
from symdelay.core.errors import SymdelayInputError

r, tau = sp.symbols("r tau")
Z = sp.exp(-r * tau)


def _close(a, b, digits):
    return abs(mpmath.mpf(a) - mpmath.mpf(b)) <= mpmath.mpf(10) ** (-digits) * (1 + abs(b))


# ------------------------------------------------------- the independent second paths
def _box_radius(F):
    """R with |P_0(r)| > sum_j |P_j(r)| >= |sum_j P_j(r) z^j| for |r| >= R, Re r >= 0
    (|z| <= 1 there): every root with Re r > 0 lies in [0, R] x [-R, R]."""
    Zs = sp.Symbol("Zs")
    P = sp.Poly(sp.expand(F.subs(Z, Zs).subs(sp.exp(-2 * r * tau), Zs**2)), r, Zs)
    d = P.degree(r)
    lead = abs(P.coeff_monomial(r**d))
    rest = sum(abs(c) for m, c in P.terms() if m != (d, 0))
    return 1 + rest / lead


def _count(F, tau_value):
    """Roots with Re r > 0 at the lag tau_value, by the argument principle (Arb)."""
    t = sp.Rational(tau_value)
    G = sp.expand(F.subs(tau, t))
    R = float(_box_radius(F))
    f = sp.lambdify(r, G, modules=[{"exp": lambda x: x.exp()}])

    def Fa(x):
        return f(x)

    return count_zeros(Fa, 0, R, -R, R, prec=96, pieces_per_unit=4 * max(float(t), 1))


def _root_on_axis(F, tau_value, w):
    """mpmath.findroot from near i w at the computed lag converges to i w."""
    with mpmath.workdps(30):
        f = sp.lambdify(r, F.subs(tau, tau_value), "mpmath")
        z = mpmath.findroot(f, mpmath.mpc(0.01, float(w) * 1.001))
        return abs(z - mpmath.mpc(0, w)) < mpmath.mpf(10) ** -20


# ------------------------------------------------------- Pender, Rand & Wesson
@pytest.mark.parametrize("mu, a", [(1, 2), (sp.Rational(3, 4), sp.Rational(5, 2)), (2, 3)])
def test_pender_rand_wesson_critical_delay(mu, a):
    F = r + mu + a * Z
    s = lag_switches(F, tau, hi=40, dps=25)
    with mpmath.workdps(80):
        m, A = (
            mpmath.mpf(sp.Rational(mu).p) / sp.Rational(mu).q,
            mpmath.mpf(sp.Rational(a).p) / sp.Rational(a).q,
        )
        w = mpmath.sqrt(A**2 - m**2)
        tc = mpmath.acos(-m / A) / w
        assert _close(s.critical, tc, 22)
        assert len(s.crossings) == 1 and _close(s.crossings[0].omega, w, 22)
        # every switch tau_c + 2 pi k / w, all destabilising: counts 0, 2, 4, ...
        want = [tc + 2 * mpmath.pi * k / w for k in range(100) if tc + 2 * mpmath.pi * k / w <= 40]
        assert [sw.k for sw in s.switches] == list(range(len(want)))
        for sw, t in zip(s.switches, want):
            assert _close(sw.tau, t, 22)
            assert sw.lower < sp.Rational(mpmath.nstr(t, 75)) < sw.upper
    assert s.counts() == tuple(2 * k for k in range(len(want) + 1))
    assert s.count_zero == 0 and not s.stability_switches
    # the argument principle agrees on both sides of the first two switches
    t0, t1 = (sp.Rational(mpmath.nstr(x.tau, 20)) for x in s.switches[:2])
    assert [_count(F, t0 / 2), _count(F, (t0 + t1) / 2)] == [0, 2]
    assert _root_on_axis(F, sp.Rational(mpmath.nstr(s.switches[0].tau, 28)), w)


@pytest.mark.parametrize("mu, a", [(1, sp.Rational(1, 2)), (1, 1), (3, 3)])
def test_delay_independent_exactly_when_a_at_most_mu(mu, a):
    """a <= mu: no crossing w > 0 (a = mu: the only root of |i w + mu|^2 = a^2 is w = 0,
    and r = 0 is not a root since F(0, 1) = mu + a != 0)."""
    F = r + mu + a * Z
    s = lag_switches(F, tau, dps=15)
    assert s.delay_independent and s.crossings == () and s.switches == ()
    assert s.critical == mpmath.inf and s.count_lo == 0
    assert any("delay-independent" in n for n in s.notes)
    assert _count(F, 7) == 0
    assert lag_window(F, tau, hi=50).intervals == ()


def test_just_above_mu_is_not_delay_independent():
    F = r + 1 + sp.Rational(1001, 1000) * Z
    s = lag_switches(F, tau, hi=100)
    assert not s.delay_independent and s.critical < 100


# ------------------------------------------------------- Cooke & Grossman
def test_cooke_grossman_stability_switches():
    """x'' + a x' + b x = -c x(t - tau): F = r^2 + a r + b + c z. With a^2 < 2b,
    b^2 > c^2 and (2b - a^2)^2 > 4(b^2 - c^2) there are two frequencies: w+ destabilising,
    w- stabilising (Cooke & Grossman 1982), and a finite number of switches. Closed forms:
    w+-^2 = (2b - a^2 +- sqrt((2b - a^2)^2 - 4(b^2 - c^2)))/2, z = -(b - w^2 + i a w)/c."""
    a, b, c = sp.Rational(1, 10), 1, sp.Rational(1, 2)
    F = r**2 + a * r + b + c * Z
    s = lag_switches(F, tau, dps=20)
    with mpmath.workdps(40):
        A, B, C = (mpmath.mpf(sp.Rational(x).p) / sp.Rational(x).q for x in (a, b, c))
        disc = mpmath.sqrt((2 * B - A**2) ** 2 - 4 * (B**2 - C**2))
        events = []
        for sign, direction in ((1, 1), (-1, -1)):
            w = mpmath.sqrt((2 * B - A**2 + sign * disc) / 2)
            z = -(B - w**2 + 1j * A * w) / C
            theta = mpmath.mpf(-mpmath.arg(z)) % (2 * mpmath.pi)
            ws = [x.omega for x in s.crossings if x.direction == direction]
            assert len(ws) == 1 and _close(ws[0], w, 18)
            events += [((theta + 2 * mpmath.pi * k) / w, 2 * direction) for k in range(40)]
        events.sort()
        counts, n = [0], 0
        for _t, ch in events[: len(s.switches)]:
            n += ch
            counts.append(n)
        for sw, (t, _ch) in zip(s.switches, events):
            assert _close(sw.tau, t, 18)
    assert list(s.counts()) == counts
    assert s.stability_switches  # stable -> unstable -> stable
    assert s.counts()[:3] == (0, 2, 0)
    w = lag_window(F, tau, dps=20)
    assert len(w.intervals) == 2 and w.intervals[-1].hi.value == mpmath.inf
    # the count is positive for every lag beyond the bound stated
    assert s.unstable_beyond is not None and _count(F, sp.Rational(int(s.unstable_beyond) + 1)) > 0
    # the argument principle in every gap
    ends = [sp.Rational(mpmath.nstr(x.tau, 20)) for x in s.switches]
    mids = [ends[0] / 2, *[(x + y) / 2 for x, y in itertools.pairwise(ends)]]
    assert [_count(F, t) for t in mids] == list(s.counts()[: len(mids)])


# ------------------------------------------------------- 2 x 2 with exp(-2 r tau)
SYSTEMS = [
    # two crossings at one frequency w = 1 (a double root of the resultant: gcd path)
    sp.Matrix([[r + 1, 2 * Z**2], [-1, r + 1 + Z]]),
    sp.Matrix([[r + sp.Rational(1, 2), Z**2], [-2, r + 1 + Z]]),
]


@pytest.mark.parametrize("M", SYSTEMS)
def test_two_by_two_with_a_doubled_lag(M):
    F = sp.expand(M.det())
    assert lag_parts(F, tau).n == 2
    s = lag_switches(F, tau, hi=12, dps=25)
    assert len(s.switches) >= 3
    for sw in s.switches[:4]:  # the root is at i w at the computed lag
        assert _root_on_axis(F, sp.Rational(mpmath.nstr(sw.tau, 30)), sw.omega)
    ends = [sp.Rational(mpmath.nstr(x.tau, 20)) for x in s.switches]
    mids = [ends[0] / 2, *[(x + y) / 2 for x, y in itertools.pairwise(ends)]][:4]
    assert [_count(F, t) for t in mids] == list(s.counts()[: len(mids)])


def test_multiplicity_and_scale():
    """A squared factor doubles every change; exp(-2 r tau) halves every lag."""
    one = lag_switches(r + 1 + 2 * Z, tau, hi=10)
    two = lag_switches((r + 1 + 2 * Z) ** 2 * (r + 3), tau, hi=10)
    assert two.counts() == tuple(2 * c for c in one.counts())
    half = lag_switches(r + 1 + 2 * sp.exp(-2 * r * tau), tau, hi=5)
    assert len(half.switches) == len(one.switches[:3])
    for x, y in zip(half.switches, one.switches):
        assert mpmath.almosteq(2 * x.tau, y.tau, 1e-13)
        assert x.lower <= y.upper / 2 and y.lower / 2 <= x.upper  # the brackets overlap


def test_unstable_at_zero_and_axis_root_at_zero():
    # unstable for small lags: F(r, 1) = r - 1/2
    s = lag_switches(r - 1 + Z / 2, tau, hi=5)
    assert s.count_zero == 1 and s.count_lo == 1 and s.critical == 0
    # F(r, 1) = r^2 + 1: the pair +-i is on the axis at tau = 0 and moves left (a crossing
    # at w = 1 with z = 1 exactly, stabilising), so the count just above 0 is 0
    F = r**2 + r + 2 - (r + 1) * Z
    s = lag_switches(F, tau, hi=10)
    assert s.count_zero == 0 and s.count_lo == 0 and _count(F, sp.Rational(1, 100)) == 0
    (at_one,) = [c for c in s.crossings if mpmath.almosteq(c.omega, 1)]
    assert at_one.phase == 0 and at_one.direction == -1
    ends = [sp.Rational(mpmath.nstr(x.tau, 20)) for x in s.switches]
    mids = [ends[0] / 2, *[(x + y) / 2 for x, y in itertools.pairwise(ends)]][:4]
    assert [_count(F, t) for t in mids] == list(s.counts()[: len(mids)])


def test_a_tangency_is_reported_not_guessed():
    """r^2 + r + 1 - r z: |P_0(i w)|^2 - |P_1(i w)|^2 = (1 - w^2)^2, a double root at w = 1
    where Re dr/dtau = 0 exactly."""
    from symdelay.core.errors import CertificationError

    with pytest.raises(CertificationError, match="tangency"):
        lag_switches(r**2 + r * (1 - Z) + 1, tau, hi=10)


def test_window_record_has_the_table_keys():
    from symdelay.analysis.window import window
    from symdelay.models import build_model

    table = window(build_model("erlang", L=2, mu=1, lam=1, D=1), "theta", lo=0).to_json()
    lag = lag_window(r + 1 + 2 * Z, tau, hi=10).to_json()
    assert set(lag) == set(table) - set(table["parameters"]) and lag["certified"] is True
    assert lag["intervals"][0][1] == "10.0000000000000"
    ends = lag["ends"][0]["lo"]
    assert ends["kind"] == "r = i omega" and ends["omega"] == ["1.73205080756888"]


# ------------------------------------------------------- refusals, one line each
@pytest.mark.parametrize(
    "F, words",
    [
        (r + 1 + Z + sp.exp(-r), "second lag"),
        (r + 1 + (1 - Z) / (r * tau), "outside exp"),
        (r + 1 + r * Z / 2, "neutral"),
        (r + 1 + r**2 * Z, "advanced"),
        (r + 1 - Z, "r = 0 is a root for every lag"),
        (r + sp.Symbol("mu") + Z, "substitute numbers"),
        (r + 1 + Z * sp.exp(-r * tau**2), "not a delay factor"),
        (r + 1 + Z / (r - 1), "Re r >= 0"),
        (r + 2, "does not depend on the lag"),
        ((r**2 + 1) * (r + 1 + 2 * Z), "imaginary axis for every lag"),
    ],
)
def test_refusals(F, words):
    with pytest.raises(SymdelayInputError, match=words) as e:
        lag_switches(F, tau, hi=5)
    assert "\n" not in str(e.value)


def test_a_kernel_denominator_in_the_left_half_plane_is_cleared():
    F = r + 1 + 3 * Z / (r + 2)  # (r + 1)(r + 2) + 3 z
    a = lag_switches(F, tau, hi=10)
    b = lag_switches(sp.expand((r + 1) * (r + 2) + 3 * Z), tau, hi=10)
    assert a.counts() == b.counts() and [x.tau for x in a.switches] == [x.tau for x in b.switches]


def test_bad_range():
    with pytest.raises(SymdelayInputError, match="empty"):
        lag_switches(r + 1 + 2 * Z, tau, lo=3, hi=2)
    with pytest.raises(SymdelayInputError, match="switches"):
        lag_switches(r + 1 + 2 * Z, tau, hi=10**6)


def test_lo_inside_the_range():
    s = lag_switches(r + 1 + 2 * Z, tau, lo=2, hi=10)
    assert s.count_lo == 2 and s.critical == 2 and [x.k for x in s.switches] == [1, 2]


def test_flint_precision_is_left_alone():
    before = flint.ctx.prec
    lag_switches(r + 1 + 2 * Z, tau, hi=3, dps=50)
    assert flint.ctx.prec == before


def test_critical_lag_curve_against_the_closed_form_and_lag_switches():
    from symdelay.analysis.lagswitch import critical_lag_curve

    th = sp.Symbol("theta")
    vals = [sp.Rational(k, 7) for k in range(3, 30, 4)]  # below and above theta = 1
    got = critical_lag_curve(r + 1 + th * Z, tau, th, vals, dps=20)
    with mpmath.workdps(40):
        for v, (t, w) in zip(vals, got):
            x = mpmath.mpf(v.p) / v.q
            if x <= 1:
                assert t == mpmath.inf and w is None
            else:
                assert _close(t, mpmath.acos(-1 / x) / mpmath.sqrt(x**2 - 1), 18)
    F2 = sp.expand(sp.Matrix([[r + sp.Rational(1, 2), th * Z**2], [-2, r + 1 + Z]]).det())
    for v, (t, _w) in zip([sp.Rational(3, 4), 1], critical_lag_curve(F2, tau, th, ["0.75", 1])):
        assert _close(t, lag_switches(F2.subs(th, v), tau, hi=20).critical, 14)


def test_critical_lag_curve_unstable_at_zero_and_exact_inputs():
    """r - a + exp(-r tau)/2: at tau = 0 the root is a - 1/2, so the curve is 0 for a > 1/2
    (unstable from the start: no crossing is needed to say so) and, for 0 < a < 1/2, the
    first crossing of lag_switches; SymPy rationals and decimal text give the same points."""
    from symdelay.analysis.lagswitch import critical_lag_curve

    a = sp.Symbol("a")
    F = r - a + Z / 2
    vals = [2, sp.Rational(3, 4), sp.Rational(1, 4), "0.1"]
    got = critical_lag_curve(F, tau, a, vals)
    assert got[0] == (0, None) and got[1] == (0, None)
    for v, (t, w) in zip(vals[2:], got[2:]):
        s = lag_switches(F.subs(a, sp.Rational(v)), tau, hi=40)
        assert s.count_lo == 0 and _close(t, s.critical, 14) and w > 0
    assert critical_lag_curve(F, tau, a, ["0.25", sp.Rational(1, 10)]) == got[2:]
