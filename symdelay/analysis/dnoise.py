r"""Linear noise of a delay model: its power spectrum and its certified stationary variance.

**The linear-noise approximation with lags.** Near a stable equilibrium ``s*`` the scaled
fluctuation ``xi = sqrt(eta) (s - s*)`` of a model with lags obeys, to leading order, the
linear stochastic delay equation

    d xi = f dt + dZ,    f = A0 xi + sum_k M_k (K_k * xi) + sum_d M_d (K_d * f),

``A0``, ``M_k``, ``K_k`` the model's linearisation (:attr:`Model.linearisation`: the same
data as its characteristic matrix ``Delta(r) = r I - A0 - sum_k (r if derivative else 1)
M_k K_k(r)``), ``dZ`` the noise of the jumps and the last sum over the *derivative* terms
(``dot(x)`` read through a lag: a neutral model). **How ``dot`` is read in the stochastic
system:** ``dot(x)`` at time ``s`` is the *drift* of ``x`` at ``s`` — the conditional
expected rate of change given everything the rates read at ``s``, ``sum_nu (change of x
under nu) beta_nu(s) / eta`` — not the derivative of the jump path (which has none). Its
law-of-large-numbers limit is the fluid derivative, so the fluid model is unchanged;
linearised, the drift is ``f = xi' - Z'``, the velocity *without* the noise. In the
frequency domain ``r xi = f + Z`` and ``N(r) f = E(r) xi``, with ``E = A0 + sum_k M_k K_k``
over the retarded terms and

    N(r) = I - sum_d M_d K_d(r)            (I for a retarded model),

so ``(r N - E) xi = N Z``, that is ``Delta(r) xi = N(r) Z``, and the power spectrum of ``x = c . xi`` (two-sided, angular
frequency) is

    S(w) = c^T G(i w) Sigma(w) G(i w)^* c,    G(r) = Delta(r)^-1 N(r).

(Reading ``dot`` as the derivative of the noisy path, ``xi'``, would be another model, the
neutral stochastic equation ``Delta xi = Z`` with ``G = Delta^-1``: the noise fed back
through the derivative term too. It is not what the exact simulation simulates, and its
spectrum differs at every frequency, tending to ``c^T N^-1 B N^-* c / w^2`` instead of
``c^T B c / w^2``. tests/test_announcement_noise.py checks ``G = Delta^-1 N`` against a
simulation of the linear equation with the drift reading and against the closed form of a
one-sided announced input, and shows that ``G = Delta^-1`` fails both.)

**The noise, and how an action delay passes it on.** A transition ``nu`` without a lag adds
white noise of intensity ``beta_nu(s*) nu nu^T`` (Kurtz), as for a table. A transition with
``lag = k`` is *decided* at rate ``beta_nu(s(t))`` and its jump lands after an independent
delay ``X ~ k``: its arrivals are the decisions displaced by i.i.d. delays. Their
fluctuation has two independent parts. The decision noise ``sqrt(beta*) dW`` passes through
the kernel like the decided rate does, ``K(i w) sqrt(beta*) W(w)``, with spectral density
``|K(i w)|^2 beta*``; and the displacement itself adds noise: the landing times of decisions
made at known times are random, with density ``(1 - |K(i w)|^2) beta*`` and uncorrelated
with the decision noise (the cross-spectrum of landings and decisions is ``K(i w) beta*``,
which the first part already carries). The two add to ``beta*`` at every frequency: a
Poisson stream displaced by i.i.d. delays is again Poisson (the displacement theorem; the
output of an M/G/oo station). So the jump's noise enters *unfiltered*, ``Sigma(w) = B`` for
every model,

    B = sum_nu nu nu^T beta_nu(s*)          (every lag collapsed: the steady rates),

the table's diffusion matrix (:func:`delay_diffusion`); the kernel acts on the *decided rate*
only (it is in ``Delta``). For a constant lag the two readings agree (``|K(i w)| = 1``:
the decision noise itself is just shifted); for a distributed lag filtering the noise by
``|K|^2`` alone would understate the variance. The check: an Erlang(L) action delay written
as a lag gives the variance of the founding table, whose phases are states and whose every
phase step carries its own noise (tests/test_delay_noise.py).

**The stationary variance as a certified integral.** ``Var(x)/eta = (1/2 pi) int S dw``
over the real line. Write ``F(z) = c^T G(i z) B G(-i z)^T c``: holomorphic where ``Delta``
is invertible, equal to ``S`` on the real line and even (``F(-z) = F(z)``, ``B``
symmetric), so ``Var = (1/pi) int_0^oo F``. Arb integrates ``F`` on ``[0, W]`` with a
rigorous error (``acb.integral``, kernels in balls: :mod:`symdelay.analysis.lagkernels`).
The tail beyond ``W``: write ``Delta(i w) = i w N(i w) - E(i w)``, ``E = A0 + sum_k M_k K_k``
over the retarded terms, so that ``G = (N^-1 Delta)^-1 = (i w I - N^-1 E)^-1``. Suppose
``||N(i w)^-1 E(i w)||_2 <= a`` on the whole axis. Then for ``w > a``

    G(i w) = (i w)^-1 (I + R),  ||R|| <= rho = a/(w - a),
    |S(w) - c^T B c / w^2| <= ||c||^2 ||B||_F (2 rho + rho^2) / w^2,

and the tail is ``c^T B c/(pi W)`` (exact) within

    ||c||^2 ||B||_F (a/(W - a)^2 + a^2/(3 (W - a)^3)) / pi.

The constant ``a``: every lag is a probability law, so ``|K_k(i w)| <= 1``. A retarded
model has ``N = I`` and ``a = ||A0||_F + sum_k ||M_k||_F``. A neutral model: let ``P_d =
sum_d |M_d|`` and ``P_0 = |A0| + sum_k |M_k|`` (entrywise moduli, retarded terms in
``P_0``). The door proves ``rho(P_d) < 1`` (:func:`symdelay.analysis.lagroots.root_bound`:
the difference operator is strongly stable, which is what bounds ``|det N(i w)|`` away
from 0 on the axis). Then ``|(sum_d M_d K_d)^j| <= P_d^j`` entrywise, the Neumann series of
``N^-1`` converges and ``|N(i w)^-1| <= (I - P_d)^-1`` entrywise for every ``w``; hence
``|N^-1 E| <= Q = (I - P_d)^-1 P_0`` and ``a = ||Q||_F`` (``||X||_2 <= || |X| ||_2 <=
||Q||_F``; both matrices bounded above in Arb). The factor ``N`` in ``G = Delta^-1 N``
cancels the one in ``Delta``: the tail is an ODE's, ``c^T B c / w^2`` (without it,
``Delta^-1`` alone tends to ``(i w N)^-1`` and the tail to ``c^T N^-1 B N^-* c / w^2``).

``W`` is chosen so that this bound and the quadrature's are below ``10^-dps`` of the value;
the cost is estimated first (an oscillating kernel needs work in proportion to ``W`` times
the longest lag, a rational one about ``log W``) and refused over the budget.

>>> from symdelay.model.core import Model
>>> ou = Model("delayed OU", ["x"], {"b": "positive", "D": "positive"},
...            [("up", {"x": 1}, "exp(b*(1 - delayed(x, tau)))"), ("down", {"x": -1}, "1")],
...            lags={"tau": {"kind": "constant", "value": "D"}}, values={"b": 1, "D": 1})
>>> v = delay_variance(ou, [1], dps=8)
>>> v.text(8), float(v.error_bound) < 1e-8    # Kuechler-Mensch: 2 (1 + sin 1)/(2 cos 1)
('3.4082234', True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp

__all__ = [
    "delay_diffusion",
    "DelayNoise",
    "DelayVariance",
    "delay_noise",
    "delay_variance",
    "tail_bound",
]

#: Calibrated on this 2-core machine (scalar delayed OU, W tau = 10^4: 0.26 s): seconds per
#: unit of ``W x (longest lag)`` per ``n^2`` of an oscillating integrand, and per bisection
#: level of a rational one.
SECONDS_PER_OSCILLATION = 3e-5
SECONDS_PER_LEVEL = 2e-3
#: A neutral model's integrand keeps a chain of poles at a fixed distance
#: ``delta = log(1/rho(P_d)) / tau`` from the axis (the roots of ``det N``), where a retarded
#: one's recede like ``log w``: measured on the announcement (n = 2, tau = 1; 2.0e-4 s per
#: unit of ``W`` per ``n^2`` at ``rho = 0.2``, 5e-4 at 0.5, 1.5e-3 at 0.9), the work per
#: unit of ``W tau`` per ``n^2`` is below this times ``1 + 1/log(1/rho)`` (2x margin).
SECONDS_PER_NEUTRAL_OSCILLATION = 2.5e-4


def delay_diffusion(model) -> sp.ImmutableMatrix:
    """``B = sum_nu nu nu^T beta_nu(s*)`` of a model with or without lags: every rate at the
    equilibrium with every lag collapsed (its steady value, as :attr:`Model.steady_drift`).
    Action-delayed transitions included: their noise enters unfiltered (module docstring)."""
    from symdelay.model.equilibrium import at_point
    from symdelay.model.lags import steady

    n = len(model.states)
    B = sp.zeros(n, n)
    for t in model.transitions:
        v = sp.Matrix(t.change)
        B += v * v.T * steady(t.rate.xreplace(dict(model.values)))
    return sp.ImmutableMatrix(at_point(B, model.equilibrium))


def _gamma_branches(objs) -> list:
    """``m/k`` of every gamma lag of non-integer shape among ``objs`` (a mixture's members
    included): ``(1 + r m/k)^-k`` has its branch cut where ``1 + r m/k <= 0``."""
    from symdelay.analysis.lagkernels import lag_number

    out = []
    for lag in objs or ():
        if lag.kind == "mixture":
            out += _gamma_branches(lag.args["lags"])
        elif lag.kind == "gamma":
            k = lag_number(lag, "shape")
            if not k.is_Integer:
                out.append(lag_number(lag, "mean") / k)
    return out


class DelayNoise:
    """The linear-noise data of a model with lags at numbers: the characteristic matrix in Arb
    balls (:class:`symdelay.analysis.lagroots.CharacteristicMatrix`) and the diffusion
    matrix ``B`` (:func:`delay_diffusion`). :meth:`spectral_density` is ``F(z)`` of the
    module docstring."""

    def __init__(self, model):
        from symdelay.analysis.lagroots import CharacteristicMatrix

        values = dict(model.values)
        lags = {k: lag.xreplace(values) for k, lag in model.lags.items()}
        self.model = model
        self.lags = lags
        self.cm = CharacteristicMatrix(model.linearisation, lags)
        self.n = self.cm.n
        self.B = sp.Matrix(delay_diffusion(model))
        if self.B.free_symbols:
            raise SymdelayInputError(
                "the diffusion matrix needs a number for every parameter: give "
                + ", ".join(sorted(map(str, self.B.free_symbols)))
            )
        self.neutral = self.cm.neutral
        self.branches = [b for _M, _K, objs, _d in self.cm.terms for b in _gamma_branches(objs)]
        #: the longest period of oscillation the kernels add along the axis (constant and
        #: uniform lags; 0 when every kernel is smooth at infinity): the quadrature's work
        #: grows like W times it
        self.longest = max(
            (sum(_extent(g) for g in objs) for _M, _K, objs, _d in self.cm.terms if objs),
            default=0.0,
        )
        self.oscillating = self.longest > 0
        #: the kernel each term reads (terms with the same lags share one evaluation)
        self._keys = [
            tuple(g.name for g in objs) if objs else (i,)
            for i, (_M, _K, objs, _d) in enumerate(self.cm.terms)
        ]
        self._cache: dict = {}

    # ------------------------------------------------------------ in Arb balls
    def _balls(self, prec: int):
        if prec in self._cache:
            return self._cache[prec]
        import flint

        from symdelay.analysis.lagroots import _entry_ball, _term_kernel

        n = self.n
        with flint.ctx.workprec(prec):
            A0 = flint.acb_mat(n, n, [_entry_ball(e) for e in self.cm.A0])
            terms = []
            for M, K, objs, deriv in self.cm.terms:
                Mb = flint.acb_mat(n, n, [_entry_ball(e) for e in M])
                k, _dk = _term_kernel(K, objs, self.cm._r, prec)
                terms.append((Mb, k, deriv))
            B = flint.acb_mat(n, n, [_entry_ball(e) for e in self.B])
            branches = [_entry_ball(b) for b in self.branches]
        self._cache[prec] = (A0, terms, B, branches)
        return self._cache[prec]

    def delta(self, r, prec: int):
        """``Delta(r)`` as an ``acb_mat`` (``r`` an ``acb``; call inside ``workprec(prec)``)."""
        import flint

        A0, terms, _B, _br = self._balls(prec)
        n = self.n
        D = flint.acb_mat(n, n, [r if i == j else 0 for i in range(n) for j in range(n)]) - A0
        for Mb, k, deriv in terms:
            c = k(r)
            D -= Mb * (c * r if deriv else c)
        return D

    def noise_input(self, r, prec: int):
        """``N(r) = I - sum_d M_d K_d(r)`` over the derivative terms as an ``acb_mat`` (call
        inside ``workprec(prec)``): the noise's way into a neutral model (module
        docstring); the identity for a retarded one."""
        import flint

        _A0, terms, _B, _br = self._balls(prec)
        n = self.n
        N = flint.acb_mat(n, n, [int(i == j) for i in range(n) for j in range(n)])
        for Mb, k, deriv in terms:
            if deriv:
                N -= Mb * k(r)
        return N

    def _delta_and_n(self, r, prec: int):
        """``(Delta(r), N(r))`` at once for a neutral model, each term's kernel evaluated
        once (terms reading the same lags share it): ``Delta = r N - A0 - sum_k M_k K_k``
        over the retarded terms."""
        A0, terms, _B, _br = self._balls(prec)
        N = self._eye(prec)
        E = A0
        values: dict = {}
        for (Mb, k, deriv), key in zip(terms, self._keys):
            if key not in values:
                values[key] = k(r)
            if deriv:
                N = N - Mb * values[key]
            else:
                E = E + Mb * values[key]
        return N * r - E, N

    def _eye(self, prec: int):
        import flint

        n = self.n
        return flint.acb_mat(n, n, [int(i == j) for i in range(n) for j in range(n)])

    def spectral_density(self, c, prec: int):
        """``z -> F(z) = c^T G(i z) B G(-i z)^T c`` (``G = Delta^-1 N``) on ``acb`` balls,
        holomorphic off the roots (a ball on which a kernel's branch cut may lie gives a
        non-finite value when ``analytic`` is asked, as ``acb.integral`` needs)."""
        import flint

        from symdelay.core.exact import exact_number

        _A0, _terms, B, branches = self._balls(prec)
        n = self.n
        with flint.ctx.workprec(prec):
            cv = flint.acb_mat(n, 1, [_entry_ball(exact_number("weights", x)) for x in c])
        i = flint.acb(0, 1)
        nan = flint.acb("nan")

        def F(z, analytic=False):
            r = i * z
            if analytic:
                for m in branches:
                    if not (1 + r * m).real > 0 or not (1 - r * m).real > 0:
                        return nan
            try:
                if self.neutral:  # c^T Delta^-1 N = (N^T u)^T
                    (Dp, Np), (Dm, Nm) = self._delta_and_n(r, prec), self._delta_and_n(-r, prec)
                    u = Np.transpose() * Dp.transpose().solve(cv)
                    v = Nm.transpose() * Dm.transpose().solve(cv)
                else:
                    u = self.delta(r, prec).transpose().solve(cv)
                    v = self.delta(-r, prec).transpose().solve(cv)
            except ZeroDivisionError:
                return nan
            return (u.transpose() * B * v)[0, 0]

        return F

    def spectrum_values(self, c, omegas) -> list:
        """``S(w)`` at each float ``w`` (53-bit balls, midpoints)."""
        import flint

        prec = 80
        F = self.spectral_density(c, prec)
        out = []
        with flint.ctx.workprec(prec):
            for w in omegas:
                v = F(flint.acb(float(w)))
                out.append(float(v.real.mid()) if v.is_finite() else math.inf)
        return out

    # ------------------------------------------------------------ the tail
    def tail_constants(self):
        """``(a, ||B||_F)`` as upper bounds (floats rounded up from Arb balls): ``a`` bounds
        ``||N(i w)^-1 E(i w)||_2`` on the whole axis (module docstring), hence the modulus
        of every root in the closed right half-plane."""
        import flint

        with flint.ctx.workprec(64):

            def frob(M):
                total = flint.arb(0)
                for e in M:
                    total += abs(_entry_ball(e)) ** 2
                return total.sqrt()

            b = frob(self.B)
            if self.neutral:
                return _up(self._neutral_constant()), _up(b)
            a = frob(self.cm.A0)
            for M, _K, _objs, _d in self.cm.terms:
                a += frob(M)
            return _up(a), _up(b)

    def _neutral_constant(self):
        """``||(I - P_d)^-1 P_0||_F`` as an upper bound (an ``arb``; module docstring),
        after :func:`symdelay.analysis.lagroots.root_bound` has proved ``rho(P_d) < 1`` (or
        refused the difference operator in its one line)."""
        import flint

        from symdelay.analysis.lagroots import root_bound

        _R, rho_d = root_bound(self.cm)  # refuses a difference operator not proved stable
        #: the proved bound of rho(P_d) (< 1), as a float rounded up
        self.rho_d = _up(rho_d)
        n = self.n
        P0 = [[_entry_ball(self.cm.A0[i, j]).abs_upper() for j in range(n)] for i in range(n)]
        Pd = [[flint.arb(0)] * n for _ in range(n)]
        for M, _K, _objs, deriv in self.cm.terms:  # |K_k(i w)| <= 1: probability laws
            target = Pd if deriv else P0
            for i in range(n):
                for j in range(n):
                    if M[i, j] != 0:
                        target[i][j] = target[i][j] + _entry_ball(M[i, j]).abs_upper()
        eye = [int(i == j) for i in range(n) for j in range(n)]
        # (I - P)^-1 = sum P^j grows with P: the inverse at the upper ends bounds it above
        inv = (
            flint.arb_mat(n, n, eye) - flint.arb_mat([[x.upper() for x in row] for row in Pd])
        ).inv()
        total = flint.arb(0)
        for i in range(n):
            for j in range(n):
                q = sum((inv[i, k].upper() * P0[k][j].upper() for k in range(n)), flint.arb(0))
                total += flint.arb(q.upper()) ** 2
        if not total.is_finite():  # pragma: no cover - root_bound proved rho(P_d) < 1
            raise SymdelayInputError("the difference operator's inverse is not bounded")
        return total.sqrt()


def _up(x) -> float:
    """A float >= every point of the arb ball ``x`` (its upper end, rounded up)."""
    return float(x.upper()) * (1 + 2**-50) + 1e-300


def _extent(lag) -> float:
    """The longest delay an oscillating kernel ``exp(-r tau)`` of ``lag`` holds (constant:
    its value; uniform: its upper end; a mixture: its longest member), 0 for the kernels
    without (exponential, gamma, phase-type)."""
    from symdelay.analysis.lagkernels import lag_number

    if lag.kind == "constant":
        return float(lag_number(lag, "value"))
    if lag.kind == "uniform":
        return float(lag_number(lag, "high"))
    if lag.kind == "mixture":
        return max(_extent(m) for m in lag.args["lags"])
    return 0.0


def tail_bound(a: float, c2: float, bnorm: float, W: float) -> float:
    """``||c||^2 ||B||_F (a/(W - a)^2 + a^2/(3 (W - a)^3)) / pi``: the bound on what the
    variance's integral beyond ``W`` differs from ``c^T B c / (pi W)`` (``W > a``)."""
    x = W - a
    if not x > 0:
        return math.inf
    return c2 * bnorm * (a / x**2 + a * a / (3 * x**3)) / math.pi * (1 + 1e-12)


def delay_noise(model) -> DelayNoise:
    """:class:`DelayNoise` of ``model``, built once and cached on it."""
    return model.cached("delay linear noise", lambda: DelayNoise(model))


@dataclass(frozen=True)
class DelayVariance:
    """``Var(c . xi)`` (``= lim Var(c . X)/eta``) as a certified value: ``value`` the
    midpoint (an mpmath number at ``dps`` digits), ``error_bound`` a rigorous bound on its
    distance to the true value (quadrature plus tail), ``W`` the cut-off."""

    value: object
    error_bound: object
    W: float
    dps: int

    def text(self, digits: int | None = None) -> str:
        import mpmath

        return mpmath.nstr(self.value, digits or self.dps, strip_zeros=False)


def delay_variance(
    model, c, *, dps: int = 10, force: bool = False, shrink: str = "fewer digits (--dps)"
) -> DelayVariance:
    """The certified ``(1/pi) int_0^oo F`` of the module docstring for weights ``c``: to
    ``dps`` significant digits (the error bound below ``10^-dps`` of the value), the cost
    estimated first (``shrink``: what the refusal over budget suggests). The caller decides
    stability (:func:`require_stable`)."""
    import flint
    import mpmath

    from symdelay.core.budget import check_budget, duration
    from symdelay.core.exact import exact_number

    noise = delay_noise(model)
    c = [exact_number(f"weights[{i}]", x) for i, x in enumerate(c)]
    if len(c) != noise.n:
        raise SymdelayInputError(f"weights must have {noise.n} entries, got {len(c)}")
    a, bnorm = noise.tail_constants()
    c2 = float(sum(x**2 for x in c)) * (1 + 1e-15)
    cBc = (sp.Matrix([c]) * noise.B * sp.Matrix(c))[0, 0]
    # a first look at the value's size (a few multiples of a, low precision)
    W0 = 8 * (a + 1)
    with flint.ctx.workprec(64):
        F = noise.spectral_density(c, 64)
        first = flint.acb.integral(F, 0, W0, rel_tol=1e-6, eval_limit=10**6)
        rough = abs(float(first.real.mid()) + float(cBc) / W0) / math.pi
    if not rough > 0:
        rough = c2 * bnorm / max(a, 1)
    tol = rough * 10.0 ** (-dps) / 4
    t = math.pi * tol / max(c2 * bnorm, 1e-300)
    x = max(math.sqrt(2 * a / t), (2 * a * a / (3 * t)) ** (1 / 3), 1.0)
    W = a + x
    per_unit = SECONDS_PER_OSCILLATION
    if noise.neutral:  # its chain of poles stays near the axis (tail_constants set rho_d)
        per_unit = SECONDS_PER_NEUTRAL_OSCILLATION * (
            1 - 1 / math.log(min(max(noise.rho_d, 1e-300), 0.999))
        )
    seconds = noise.n**2 * (per_unit * W * noise.longest + SECONDS_PER_LEVEL * (math.log2(W) + dps))
    check_budget(
        f"the certified variance integral to {dps} digits (frequencies up to {W:.3g})",
        seconds,
        force=force,
        shrink=shrink,
    )
    # Arb's tolerance is met on each subinterval: share it among about this many
    pieces = 4 * W * noise.longest + 64 * (math.log2(W) + 2)
    prec = int(dps * 3.33) + 40 + int(math.log2(max(W, 2)))
    with flint.ctx.workprec(prec):
        F = noise.spectral_density(c, prec)
        integral = flint.acb.integral(
            F,
            0,
            flint.arb(mpmath.mpf(W)),
            abs_tol=flint.arb(tol) * math.pi / pieces,  # a goal per subinterval
            eval_limit=10**9,
            depth_limit=10**7,
        )
        if not integral.is_finite():
            raise SymdelayInputError(
                "the variance integral did not converge in Arb (a root too near the axis?): "
                "choose parameters further inside the stability region"
            )
        head = integral.real
        cb = _entry_ball(cBc)
        total = (head + cb.real / flint.arb(mpmath.mpf(W))) / flint.arb.pi()
        tail = tail_bound(a, c2, bnorm, W)
        err = float(total.rad()) + tail + abs(float(integral.imag.mid())) / math.pi
        err *= 1 + 1e-9
        with mpmath.workdps(dps + 10):
            value = mpmath.mpf(total.mid().str(dps + 5, radius=False))
    if not err <= 10.0 ** (-dps) * abs(float(value)):  # within a unit of the last digit
        raise SymdelayInputError(
            f"the certified variance integral reached only an error bound {err:.3g} "
            f"(for {dps} digits of {float(value):.6g}): ask fewer digits (--dps), or "
            "--force a longer run (about " + duration(seconds) + ")"
        )
    return DelayVariance(value, err, float(W), dps)


def _entry_ball(e):
    from symdelay.analysis.lagroots import _entry_ball as ball

    return ball(e)
