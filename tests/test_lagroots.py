"""Certified unstable counts of delay characteristic matrices (analysis/lagroots.py) against
closed forms (Hayes, Pender-Rand-Wesson's critical delay, Lambert W, Routh on the rational
kernels' polynomials, the founding polynomial), against the spectral collocation of the
generator, and their refusals."""

from __future__ import annotations

from fractions import Fraction

import flint
import mpmath
import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symdelay.analysis.certify import ContourError, count_zeros
from symdelay.analysis.collocation import collocation_eigenvalues
from symdelay.analysis.delayroots import mode_roots
from symdelay.analysis.lagkernels import kernel, kernel_derivative, moments
from symdelay.analysis.lagroots import unstable_count
from symdelay.analysis.polyroots import exact_counts
from symdelay.analysis.stability import delay_stability
from symdelay.core.errors import SymdelayInputError
from symdelay.core.symbols import r
from symdelay.models.erlang.stability import infinite_L_verdict
from tests._lag_helpers import lag, linearisation, scalar, term

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
rationals = st.fractions(min_value=Fraction(-4), max_value=Fraction(4), max_denominator=20)
positive = st.fractions(min_value=Fraction(1, 10), max_value=Fraction(3), max_denominator=20)


def R(x, d=1) -> sp.Rational:
    x = Fraction(x) / d
    return sp.Rational(x.numerator, x.denominator)


def hayes_count(mu, a, tau):
    """Roots of r + mu + a e^{-r tau} in Re r > 0 (Hayes 1950, Pender-Rand-Wesson 2017):
    a < -mu gives one real root r > 0; |a| <= mu none ever crosses; |a| > mu: a pair crosses
    to the right at each tau_n = (phi + 2 pi n)/sqrt(a^2 - mu^2), phi = acos(-mu/a) for
    a > 0 (2 pi - acos(-mu/a) for a < 0). None when tau is within 1e-12 of a tau_n."""
    mu, a, tau = (mpmath.mpf(Fraction(x).numerator) / Fraction(x).denominator for x in (mu, a, tau))
    base = 1 if a < -mu else 0
    if abs(a) <= mu:
        return base
    w = mpmath.sqrt(a * a - mu * mu)
    phi = mpmath.acos(-mu / a) if a > 0 else 2 * mpmath.pi - mpmath.acos(-mu / a)
    x = (tau * w - phi) / (2 * mpmath.pi)
    if abs(x - mpmath.nint(x)) < 1e-12:
        return None
    return base + (0 if x < 0 else 2 * (int(mpmath.floor(x)) + 1))


# ---------------------------------------------------------------- kernels in acb balls
KERNELS = [
    lag("constant", value=R("1.5")),
    lag("uniform", low=R("0.5"), high=R(2)),
    lag("uniform", low=0, high=R(3)),
    lag("gamma", shape=R(3), mean=R(2)),
    lag("gamma", shape=R("2.5"), mean=R("0.7")),
    lag("exponential", mean=R(2)),
    lag("phase_type", alpha=(R("0.6"), R("0.3")), S=((-2, 2), (0, -3))),
    lag(
        "mixture",
        lags=(lag("constant", value=R(1)), lag("exponential", mean=R(3))),
        weights=(R(1, 3), R(2, 3)),
    ),
]


@pytest.mark.parametrize("lg", KERNELS, ids=lambda lg: lg.kind)
@pytest.mark.parametrize("z", [0j, 1e-9 + 2e-9j, 0.3 + 1.7j, 2 - 5j, 1e-3j])
def test_kernel_balls_hold_the_laplace_transform(lg, z):
    """The acb kernel (and derivative) hold SymPy's Laplace transform evaluated by mpmath
    at 40 digits (its limit at 0 is 1, the law's mass), and the moments are the Taylor
    coefficients."""
    expr = lg.laplace()
    with mpmath.workdps(40):
        if z == 0:
            exact, dexact = 1, -moments(lg, 2)[1]
        else:
            exact = complex(
                expr.subs(r, sp.Float(z.real, 40) + sp.I * sp.Float(z.imag, 40)).evalf(30)
            )
            dexact = complex(
                sp.diff(expr, r)
                .subs(r, sp.Float(z.real, 40) + sp.I * sp.Float(z.imag, 40))
                .evalf(30)
            )
    with flint.ctx.workprec(128):
        zb = flint.acb(z.real, z.imag)
        k, dk = kernel(lg)(zb), kernel_derivative(lg)(zb)
        for ball, val in ((k, exact), (dk, complex(dexact))):
            err = abs(complex(ball.real.mid(), ball.imag.mid()) - val)
            assert err < 1e-12 * (1 + abs(val))
            assert float(ball.rad()) < 1e-20


@pytest.mark.parametrize("lg", KERNELS, ids=lambda lg: lg.kind)
def test_moments_are_the_taylor_coefficients(lg):
    series = sp.series(lg.laplace(), r, 0, 4).removeO()
    mu = moments(lg, 4)
    for j in range(4):
        assert sp.simplify(series.coeff(r, j) - (-1) ** j * mu[j] / sp.factorial(j)) == 0


def test_uniform_kernel_on_a_ball_through_zero():
    """The contour passes through 0: the uniform kernel's enclosure on a ball holding 0 is
    finite and thin (Arb's sinc), and holds the series value."""
    lg = lag("uniform", low=0, high=R(2))
    with flint.ctx.workprec(64):
        ball = flint.acb(flint.arb(0, 1e-6), flint.arb(0, 1e-6))
        v = kernel(lg)(ball)
        assert v.is_finite() and float(v.rad()) < 1e-5 and v.contains(1)


# ---------------------------------------------------------------- closed forms
@SETTINGS
@given(mu=positive, a=rationals, tau=positive)
def test_hayes_scalar_counts(mu, a, tau):
    """r + mu + a e^{-r tau}: the certified count equals Hayes' count, and the founding
    model's L = inf verdict (an independent implementation) agrees."""
    expected = hayes_count(mu, a, tau)
    lin, lags = scalar(R(mu), R(a), lag("constant", value=R(tau)))
    res = unstable_count(lin, lags)
    if a == -mu:
        assert (res.verdict, res.unstable, res.axis) == ("marginal", 0, 1)
        return
    if expected is None:
        return
    assert res.unstable == expected, res.decided_by
    found = infinite_L_verdict({"mu": R(mu), "lam": R(a), "theta": 1, "D": R(tau)})
    assert found.unstable == res.unstable


@pytest.mark.parametrize("mu,a", [(1, 2), (R("0.5"), 3), (2, R("2.5"))])
def test_pender_rand_wesson_critical_delay(mu, a):
    """tau_c = acos(-mu/a)/sqrt(a^2 - mu^2) for a > mu: just below stable, just above two
    roots in Re r > 0."""
    mu, a = R(mu), R(a)
    tc = sp.acos(-mu / a) / sp.sqrt(a**2 - mu**2)
    for factor, want in ((R("0.999"), 0), (R("1.001"), 2)):
        t = sp.Rational(str(sp.N(tc * factor, 30)))
        lin, lags = scalar(mu, a, lag("constant", value=t))
        res = unstable_count(lin, lags)
        assert res.unstable == want
        assert res.verdict == ("stable" if want == 0 else "unstable")


def test_lambert_w_rightmost_roots_are_certified():
    """r + 1 + 2 e^{-r}: the roots are W_k(-2e) - 1; the certified rightmost roots hold
    them, and no other root is right of the listed ones."""
    lin, lags = scalar(1, 2, lag("constant", value=1))
    res = mode_roots(lin, lags, rightmost=4, dps=20)
    assert res.complete[0] == "right_of"
    with mpmath.workdps(50):
        exact = [mpmath.lambertw(-2 * mpmath.e, k) - 1 for k in (0, -1, 1, -2)]
        assert len(res.roots) == 4
        for v, rad in res.roots:
            assert min(abs(v - e) for e in exact) <= rad + mpmath.mpf(10) ** -45


@SETTINGS
@given(mu=positive, a=rationals, m=positive, kind=st.sampled_from(["exponential", "gamma", "ph"]))
def test_rational_kernels_against_routh(mu, a, m, kind):
    """r + mu + a K(r) with K rational = N/Q: its roots in Re r >= 0 are those of the
    polynomial (r + mu) Q + a N (Q has its roots in Re r < 0), counted exactly (Routh)."""
    if kind == "exponential":
        lg = lag("exponential", mean=R(m))
    elif kind == "gamma":
        lg = lag("gamma", shape=sp.Integer(3), mean=R(m))
    else:
        lg = lag("phase_type", alpha=(R(1, 2), R(1, 2)), S=((-R(m) - 1, R(m)), (0, -2)))
    num, den = sp.fraction(sp.together(lg.laplace()))
    poly = sp.Poly(sp.expand((r + R(mu)) * den + R(a) * num), r)
    counts = exact_counts(poly.all_coeffs())
    lin, lags = scalar(R(mu), R(a), lg)
    res = unstable_count(lin, lags)
    if counts.axis:
        assert res.verdict in ("marginal", "undecided")
        return
    assert res.unstable == counts.rhp


@SETTINGS
@given(
    L=st.integers(1, 6),
    mu=positive,
    lt=st.fractions(Fraction(1, 10), Fraction(12), max_denominator=10),
    D=positive,
)
def test_founding_polynomial_equals_erlang_kernel(L, mu, lt, D):
    """(r + mu)(r + gamma)^L + lam theta gamma^L (the founding difference mode, gamma =
    L/D) and r + mu + lam theta (1 + r D/L)^(-L) (the gamma kernel of shape L): the same
    roots, the same count."""
    g = sp.Integer(L) / R(D)
    poly = sp.Poly(sp.expand((r + R(mu)) * (r + g) ** L + R(lt) * g**L), r)
    counts = exact_counts(poly.all_coeffs())
    lin, lags = scalar(R(mu), R(lt), lag("gamma", shape=sp.Integer(L), mean=R(D)))
    res = unstable_count(lin, lags)
    if counts.axis:
        assert res.verdict in ("marginal", "undecided")
    else:
        assert res.unstable == counts.rhp


@pytest.mark.parametrize("a,width", [(3, 1), (3, 4), (6, 2), (10, 3), (-R("1.5"), 2)])
def test_moving_average_against_collocation_and_point_lags(a, width):
    """r + 1 + a (1 - e^{-r W})/(r W): the certified count equals the collocation's and the
    certified count of the midpoint rule (a mixture of 48 constant lags), which converges
    to it."""
    mu = sp.Integer(1)
    lg = lag("uniform", low=0, high=R(width))
    lin, lags = scalar(mu, R(a), lg)
    res = unstable_count(lin, lags)
    spec = collocation_eigenvalues(lin, lags)
    assert res.unstable == spec.count_right(float(res.bound))
    J = 48
    pts = [lag("constant", name=f"c{j}", value=R(width) * (2 * j + 1) / (2 * J)) for j in range(J)]
    mix = lag("mixture", lags=tuple(pts), weights=(sp.Rational(1, J),) * J)
    lin2, lags2 = scalar(mu, R(a), mix)
    assert unstable_count(lin2, lags2).unstable == res.unstable


def test_two_lags_two_by_two():
    """A 2 x 2 system with lags 1 and 2.5 (and a moving average): certified counts and
    collocation agree over a range of gains, and a stable and an unstable case occur."""
    t1, t2 = lag("constant", name="t1", value=1), lag("constant", name="t2", value=R("2.5"))
    seen = set()
    for k in (R("0.2"), R("0.6"), R(1), R("1.6"), R(3)):
        A0 = [[-1, R("0.5")], [R("0.3"), -2]]
        lin = linearisation(
            A0,
            term([[0, -k], [0, 0]], [t1]),
            term([[0, 0], [-k, R("0.5")]], [t2]),
        )
        lags = {"t1": t1, "t2": t2}
        res = unstable_count(lin, lags)
        spec = collocation_eigenvalues(lin, lags)
        assert res.unstable == spec.count_right(float(res.bound))
        seen.add(res.verdict)
    assert {"stable", "unstable"} <= seen


_kinds = st.sampled_from(["constant", "uniform", "exponential", "gamma", "mixture"])


def _random_lag(kind, x, y, name):
    if kind == "constant":
        return lag("constant", name=name, value=R(x))
    if kind == "uniform":
        return lag("uniform", name=name, low=R(x) / 2, high=R(x) / 2 + R(y))
    if kind == "exponential":
        return lag("exponential", name=name, mean=R(x))
    if kind == "gamma":
        return lag("gamma", name=name, shape=sp.Integer(2), mean=R(x))
    return lag(
        "mixture",
        name=name,
        lags=(lag("constant", value=R(x)), lag("exponential", mean=R(y))),
        weights=(R(1, 4), R(3, 4)),
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(1, 2),
    entries=st.lists(st.fractions(-2, 2, max_denominator=4), min_size=12, max_size=12),
    kinds=st.tuples(_kinds, _kinds),
    xs=st.lists(
        st.fractions(Fraction(1, 4), Fraction(3), max_denominator=4), min_size=4, max_size=4
    ),
)
def test_random_counts_agree_with_collocation(n, entries, kinds, xs):
    """Random 1 x 1 and 2 x 2 systems with two lags of any kind: the certified count equals
    the collocation count (cases with a collocation eigenvalue within 1e-6 of the axis, or
    undecided counts, compare nothing)."""
    it = iter(entries)
    A0 = [[R(next(it)) - (2 if i == j else 0) for j in range(n)] for i in range(n)]
    M1 = [[R(next(it)) for _ in range(n)] for _ in range(n)]
    M2 = [[R(next(it)) for _ in range(n)] for _ in range(n)]
    l1 = _random_lag(kinds[0], xs[0], xs[1], "l1")
    l2 = _random_lag(kinds[1], xs[2], xs[3], "l2")
    lin = linearisation(A0, term(M1, [l1]), term(M2, [l2]))
    lags = {"l1": l1, "l2": l2}
    res = unstable_count(lin, lags)
    spec = collocation_eigenvalues(lin, lags)
    if res.unstable is None or (abs(spec.eigenvalues.real) < 1e-6).any():
        return
    assert res.unstable == spec.count_right(float(res.bound), tol=1e-9)


# ---------------------------------------------------------------- neutral equations
@pytest.mark.parametrize("m", [R("0.5"), -R("0.8"), R("0.3")])
def test_neutral_counts_against_collocation(m):
    """r + 1 + 3 e^{-r} - m r e^{-r}: |m| < 1 (the difference operator stable), certified
    count equal to the collocation's (a generalised eigenproblem)."""
    lin, lags = scalar(1, 3, lag("constant", value=R(2)), derivative=m)
    res = unstable_count(lin, lags)
    spec = collocation_eigenvalues(lin, lags)
    assert res.unstable == spec.count_right(float(res.bound))
    assert "difference operator" in res.decided_by


@pytest.mark.parametrize(
    "m,word", [(R(2), "infinitely many"), (R(1), "imaginary axis"), (-R(1), "imaginary axis")]
)
def test_neutral_unstable_difference_operator_is_refused(m, word):
    lin, lags = scalar(1, 3, lag("constant", value=R(2)), derivative=m)
    with pytest.raises(
        SymdelayInputError, match="difference operator of the neutral equation is not proven stable"
    ) as e:
        unstable_count(lin, lags)
    assert word in str(e.value) and "\n" not in str(e.value)


# ---------------------------------------------------------------- the imaginary axis
def test_exact_double_root_at_zero_is_marginal():
    """r - 1 + e^{-r}: r = 0 is a double root (W_0(-1/e) = W_{-1}(-1/e) = -1), every other
    root in Re r < 0: marginal with axis count 2, decided exactly."""
    lin, lags = scalar(-1, 1, lag("constant", value=1))
    res = unstable_count(lin, lags)
    assert (res.verdict, res.unstable, res.axis) == ("marginal", 0, 2)
    assert "exactly" in res.decided_by


def test_root_at_zero_with_roots_to_the_right():
    """r - a + a e^{-r tau}: r = 0 is a simple root when a tau != 1, and for a tau > 1
    (F'(0) < 0, F(+oo) = +oo) a real root r > 0 as well: the detour around 0 counts it (and
    any pair); the collocation agrees."""
    for a, tau in ((R(2), R(1)), (R(3), R(2)), (R("0.5"), R(1))):
        lg = lag("constant", value=tau)
        lin, lags = scalar(-a, a, lg)
        res = unstable_count(lin, lags)
        spec = collocation_eigenvalues(lin, lags)
        assert res.axis == 1
        assert res.unstable == spec.count_right(float(res.bound), tol=1e-8)
        assert (res.unstable >= 1) == (a * tau > 1)


def test_axis_roots_away_from_zero_are_undecided_with_where():
    """r^2 + 1 (A0 a rotation) with a lag term of zero effect at the roots' modulus: the
    roots +-i sit on the contour; the count says undecided and where (omega = 1)."""
    lin = linearisation([[0, 1], [-1, 0]])
    res = unstable_count(lin, {})
    assert res.verdict == "undecided" and res.unstable is None
    assert abs(abs(res.where.imag) - 1) < 1e-6
    assert "imaginary axis" in res.decided_by and "1.0" in res.decided_by


def test_count_zeros_says_where_it_failed():
    with pytest.raises(ContourError) as e:
        count_zeros(lambda z: z - flint.acb(0, flint.arb(1) / 2), 0, 1, -1, 1, min_width=1e-12)
    assert abs(e.value.where - 0.5j) < 1e-9


def test_free_parameter_is_refused():
    mu = sp.Symbol("mu")
    lin, lags = scalar(mu, 2, lag("constant", value=1))
    with pytest.raises(SymdelayInputError, match=r"at numbers only.*mu"):
        unstable_count(lin, lags)


def test_expression_kernels_without_lags():
    """Without the lags, the kernels are evaluated from their expressions (the uniform
    kernel's removable singularity by Cauchy's estimate): the same counts."""
    for lg in (
        lag("uniform", low=0, high=R(2)),
        lag("constant", value=R("1.5")),
        lag("gamma", shape=R(2), mean=R(1)),
    ):
        lin, lags = scalar(1, 4, lg)
        assert unstable_count(lin).unstable == unstable_count(lin, lags).unstable


def test_complex_mode_is_counted_without_symmetry():
    """A complex block (a Fourier mode): r + 1 + (2 + i) e^{-r}: the count equals the
    collocation's on the complex matrix."""
    lg = lag("constant", value=R(2))
    lin, lags = scalar(1, 2 + sp.I, lg)
    res = unstable_count(lin, lags)
    spec = collocation_eigenvalues(lin, lags)
    assert "conjugate" not in res.decided_by
    assert res.unstable == spec.count_right(float(res.bound))


# ---------------------------------------------------------------- the record
class _FakeModel:
    """The parts of a delay model ``delay_stability`` reads (the lead's interface)."""

    name = "fake"
    free_parameters = ()

    def __init__(self, lin, lags):
        from types import SimpleNamespace as NS

        self.lags = lags
        fn = sp.Matrix(lin.matrix()).det()
        self.delay_modes = (
            NS(name="difference", index=1, basis=None, linearisation=lin, function=fn),
        )
        self.characteristic_factors = (NS(factor=fn, multiplicity=1, mode="difference"),)
        self.values = {}
        self.parameters = ()

    def record_options(self):
        return {"mu": "1"}


def test_delay_stability_record_has_the_table_keys():
    from symdelay.analysis.stability import stability
    from symdelay.models import build_model

    lin, lags = scalar(1, 2, lag("constant", value=R(2)))
    res = delay_stability(_FakeModel(lin, lags))
    assert res.verdict == "unstable" and res.unstable_count == 2 and res.stable is False
    table = stability(build_model("nserver", N=3, L=1, mu=1, lam=1, theta=3, D=1)).record()
    assert set(res.record()) == set(table) - {"L"}  # L: that family's own option
    assert res.record()["factors"][0]["unstable_count"] == 2
    lin, lags = scalar(1, -1, lag("constant", value=R(2)))
    res = delay_stability(_FakeModel(lin, lags))
    assert res.verdict == "marginal" and res.axis_count == 1 and "marginal" in res.text()
