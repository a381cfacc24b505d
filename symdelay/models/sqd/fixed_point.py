"""The SQ(d) fixed point with phase-type service: Newton on the truncated system.

Variables: the phase-wise tails ``u_{k,j} = sum_{n >= k} x_{n,j}`` (so ``s_k = sum_j u_{k,j}``),
in which the mean-field drift of :mod:`symdelay.models.sqd.meanfield` is block tridiagonal:

    du_1/dt = lam alpha (1 - s_1^d) + u_1 S + (u_2 . e) alpha
    du_k/dt = lam (u_{k-1} - u_k) P_d(s_{k-1}, s_k) + u_k S + (u_{k+1} . e) alpha,  k >= 2

(``u_{K+1} = 0``). Newton's method with the block-tridiagonal Jacobian solves it: a damped
start in floating point, then full steps at ``dps`` plus guard digits (one code path; the
scalars are Python floats or mpmath numbers).

Truncation (proved tail bound). At the fixed point of the untruncated system the tagged
queue is a stationary Markov chain; every job that enters position k + 1 of a queue stays
there for one residual service (a fresh arrival: mean at most ``r_max = max_j
((-S)^{-1} 1)_j``) or one full service (moved down: mean ``mbar``), and jobs enter position
k + 1 at rate ``lam s_k^d`` (all d samples hold >= k jobs). Little's law gives

    s_{k+1} <= lam r_max s_k^d,         and, summing over positions,
    E[Q] <= (rho + lam (r_max - mbar) rho^d) / (1 - rho^d),   s_k <= E[Q]/k,

with ``s_1 = rho = lam mbar``. For exponential service ``r_max = mbar`` and the first bound is
the exact recursion. K is the first level with the bound on ``s_{K+1}`` below
``10^-(dps+3)``; the solve is repeated at K + 2 and the change is reported.

d = 1 (where the first bound does not decay if ``lam r_max >= 1``): the fixed point is the
stationary law of an M/PH/1 queue, matrix-geometric: ``x_k = (1 - rho) alpha R^k`` with
``R = lam (lam I - lam 1 alpha - S)^{-1}`` (Neuts). :func:`geometric_certificate` checks in
exact rational arithmetic that this R is nonnegative and solves
``lam I + R (S - lam I) + R^2 e alpha = 0`` and that the law sums to 1 (so it is the
stationary law), then certifies its decay: for a rational ``c < 1`` just above the
spectral radius of R it solves ``w = (I - R/c)^{-1} 1`` exactly and checks ``w > 0``; then
``R w = c (w - 1) <= c w`` and ``w >= 1`` give ``R^n 1 <= c^n w``, hence the proved bound

    s_k = (1 - rho) sum_{n >= k} alpha R^n 1 <= (1 - rho) (alpha w) c^k / (1 - c).

Cost. Exponential service evaluates the closed form at each level (``N`` of the
unexpanded power: near saturation ``rho^(2^k - 1)`` has an exponent of millions, its exact
rational a number of millions of digits). Newton costs about ``(2K + 2) m^3`` operations
per step in pure Python (``m`` phases), estimated by :func:`estimate_seconds` and refused
over the budget of :mod:`symdelay.models.sqd._budget` unless ``force``.

>>> from symdelay.models.sqd.service import service_from_options
>>> fp = fixed_point(2, "0.9", service_from_options("erlang", k=2), dps=20)
>>> fp.truncation, str(fp.tail[0])
(8, '0.9')
>>> fp.mean_sojourn > 0
True
"""

from __future__ import annotations

from dataclasses import dataclass, field

import mpmath

from symdelay.core.errors import SymdelayInputError, VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.params import as_dps
from symdelay.core.precision import workdps
from symdelay.core.result import Result
from symdelay.models.phase_type import PhaseType
from symdelay.models.sqd._budget import check_budget
from symdelay.models.sqd.closed_form import as_d, exponential_fixed_point
from symdelay.models.sqd.service import exponential, residual_means

__all__ = [
    "FixedPoint",
    "fixed_point",
    "truncated_fixed_point",
    "truncation_level",
    "tail_bound",
    "geometric_certificate",
    "GeometricCertificate",
    "as_lam",
    "drift_u",
    "jacobian_u",
    "estimate_seconds",
]

#: Largest truncation level (the bound is doubly exponential where it applies).
K_MAX = 2000


def estimate_seconds(K: int, m: int, dps: int = 15, d: int = 2) -> float:
    """Rough single-core time of :func:`fixed_point` at level ``K`` with ``m`` phases.

    Newton (two truncations, K and K + 2): block solves of ``m^3`` per level and step, in
    floats then at ``dps`` + guard digits; d = 1 (exact matrix-geometric law): rational
    ``m x m`` algebra. Measured on one core: Erlang(40), K = 8 takes about 20 s."""
    prec = 1 + dps / 50
    if m == 1:
        return 0.05 + 1e-4 * K * prec
    if d == 1:
        return 0.1 + 1e-3 * m**3 * prec + 1e-4 * 400 * m**2
    return 0.05 + (2 * K + 2) * (1.9e-5 * m**3 + 2e-4 * m**2) * prec


def as_lam(lam, mean=1) -> sp.Rational:
    """lam as an exact number with 0 < lam * mean < 1 (refused otherwise, one line)."""
    from symdelay.core.params import as_parameter

    v = as_parameter("lam", lam, positive=False)
    if not v.is_number or not v.is_real:
        raise SymdelayInputError(f"lam must be a number, got {lam}")
    if not v > 0:
        raise SymdelayInputError(f"lam must be > 0, got {lam}")
    if not v * mean < 1:
        raise SymdelayInputError(
            f"lam * mean service = {v * mean} >= 1: the system is unstable (queues grow without "
            "bound); give lam below 1/mean"
        )
    return v


def exact_text(v) -> str:
    """A rational as a terminating decimal where it is one (``9/10`` -> ``0.9``), else p/q."""
    v = sp.Rational(v)
    q = v.q
    for f in (2, 5):
        while q % f == 0:
            q //= f
    if q != 1:
        return str(v)
    digits = len(str(v.q))
    text = mpmath.nstr(mpmath.mpf(v.p) / v.q, digits + len(str(abs(v.p))) + 2)
    return text[:-2] if text.endswith(".0") else text


# ------------------------------------------------------------------ the truncated system
@dataclass
class _System:
    alpha: list
    S: list
    e: list
    lam: object
    d: int
    K: int

    @property
    def m(self) -> int:
        return len(self.alpha)


def _system(service: PhaseType, d: int, lam, K: int, conv) -> _System:
    m = service.phases
    return _System(
        [conv(x) for x in service.alpha],
        [[conv(service.S[i, j]) for j in range(m)] for i in range(m)],
        [conv(x) for x in service.exit_rates],
        conv(lam),
        d,
        K,
    )


def _P(x, y, d):
    return sum(x**i * y ** (d - 1 - i) for i in range(d))


def _Px(x, y, d):
    return sum(i * x ** (i - 1) * y ** (d - 1 - i) for i in range(1, d))


def _Py(x, y, d):
    return sum((d - 1 - i) * x**i * y ** (d - 2 - i) for i in range(d - 1))


def drift_u(sys: _System, u: list) -> list:
    """The drift in the tail variables (list of K lists of m)."""
    m, K, d, lam = sys.m, sys.K, sys.d, sys.lam
    s = [1] + [sum(row) for row in u] + [0]
    out = []
    for k in range(1, K + 1):
        uk = u[k - 1]
        up = (sum(u[k][i] * sys.e[i] for i in range(m))) if k < K else 0
        row = []
        if k == 1:
            arr = lam * (1 - s[1] ** d)
            for j in range(m):
                row.append(
                    arr * sys.alpha[j]
                    + sum(uk[i] * sys.S[i][j] for i in range(m))
                    + up * sys.alpha[j]
                )
        else:
            P = _P(s[k - 1], s[k], d)
            for j in range(m):
                x = u[k - 2][j] - uk[j]
                row.append(
                    lam * x * P + sum(uk[i] * sys.S[i][j] for i in range(m)) + up * sys.alpha[j]
                )
        out.append(row)
    return out


def jacobian_u(sys: _System, u: list) -> tuple[list, list, list]:
    """Blocks (L_k, D_k, U_k) of the block-tridiagonal Jacobian: row j of F_k, column i."""
    m, K, d, lam = sys.m, sys.K, sys.d, sys.lam
    s = [1] + [sum(row) for row in u] + [0]
    Ls, Ds, Us = [], [], []
    for k in range(1, K + 1):
        U = [[sys.e[i] * sys.alpha[j] for i in range(m)] for j in range(m)] if k < K else None
        if k == 1:
            g = lam * d * s[1] ** (d - 1)
            D = [[-g * sys.alpha[j] + sys.S[i][j] for i in range(m)] for j in range(m)]
            L = None
        else:
            P, Px, Py = _P(s[k - 1], s[k], d), _Px(s[k - 1], s[k], d), _Py(s[k - 1], s[k], d)
            x = [u[k - 2][j] - u[k - 1][j] for j in range(m)]
            L = [[lam * ((P if i == j else 0) + x[j] * Px) for i in range(m)] for j in range(m)]
            D = [
                [lam * ((-P if i == j else 0) + x[j] * Py) + sys.S[i][j] for i in range(m)]
                for j in range(m)
            ]
        Ls.append(L)
        Ds.append(D)
        Us.append(U)
    return Ls, Ds, Us


# ------------------------------------------------------------------ small dense algebra
def _solve(A: list, B: list) -> list:
    """Solve ``A X = B`` (A m x m, B m x p), Gaussian elimination with partial pivoting."""
    n = len(A)
    M = [list(A[i]) + list(B[i]) for i in range(n)]
    w = len(M[0])
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(M[r][c]))
        if M[p][c] == 0:
            raise ZeroDivisionError("singular block")
        M[c], M[p] = M[p], M[c]
        piv = M[c][c]
        for r in range(c + 1, n):
            f = M[r][c] / piv
            if f:
                Mr, Mc = M[r], M[c]
                for q in range(c, w):
                    Mr[q] -= f * Mc[q]
    X = [[0] * (w - n) for _ in range(n)]
    for r in range(n - 1, -1, -1):
        for q in range(w - n):
            acc = M[r][n + q] - sum(M[r][c] * X[c][q] for c in range(r + 1, n))
            X[r][q] = acc / M[r][r]
    return X


def _matmul(A, B):
    return [[sum(a * b for a, b in zip(row, col)) for col in zip(*B)] for row in A]


def _block_solve(Ls, Ds, Us, rhs) -> list:
    """Block Thomas algorithm: solve J delta = rhs (rhs: K lists of m)."""
    K = len(Ds)
    Dp, rp = [None] * K, [None] * K
    Dp[0], rp[0] = Ds[0], [[v] for v in rhs[0]]
    for k in range(1, K):
        G = _solve(Dp[k - 1], _cols(Us[k - 1], rp[k - 1]))
        m = len(Ds[k])
        W, y = [row[:m] for row in G], [[row[m]] for row in G]
        LW = _matmul(Ls[k], W)
        Dp[k] = [[Ds[k][i][j] - LW[i][j] for j in range(m)] for i in range(m)]
        Ly = _matmul(Ls[k], y)
        rp[k] = [[rhs[k][i] - Ly[i][0]] for i in range(m)]
    out = [None] * K
    out[K - 1] = [r[0] for r in _solve(Dp[K - 1], rp[K - 1])]
    for k in range(K - 2, -1, -1):
        m = len(Ds[k])
        Ux = [sum(Us[k][i][j] * out[k + 1][j] for j in range(m)) for i in range(m)]
        out[k] = [r[0] for r in _solve(Dp[k], [[rp[k][i][0] - Ux[i]] for i in range(m)])]
    return out


def _cols(U, r):
    """[U | r] as an augmented right-hand side."""
    return [[*U[i], r[i][0]] for i in range(len(U))]


def _norm(F) -> object:
    return max(abs(v) for row in F for v in row)


# ------------------------------------------------------------------ truncation bound
@dataclass(frozen=True)
class GeometricCertificate:
    """d = 1: the exact rate matrix ``R`` of the M/PH/1 queue and a proved geometric tail
    bound ``s_k <= const * c^k`` (module text); ``eta`` is the spectral radius of R (the
    decay rate of the tail, floating point, for information)."""

    R: sp.Matrix
    c: sp.Rational
    w: sp.Matrix
    const: sp.Rational
    eta: float
    levels: int  # smallest k with const c^k < 10^-(dps+3)

    def bound(self, k: int) -> float:
        return float(self.const * self.c**k)

    def exact_tail(self, levels: int, service: PhaseType, lam, dps: int = 30) -> list:
        """``s_1..s_levels`` of the matrix-geometric law, ``(1 - rho) alpha R^k (I - R)^{-1} 1``
        (exact rationals, returned as mpmath numbers at ``dps``)."""
        m = self.R.shape[0]
        lamr = _rational(lam)
        rho = lamr * _rational(service.mean)
        alpha = sp.Matrix([[_rational(v) for v in service.alpha]])
        tailvec = (sp.eye(m) - self.R).LUsolve(sp.ones(m, 1))
        out, row = [], alpha
        with mpmath.workdps(dps):
            for _ in range(levels):
                row = row * self.R
                v = (1 - rho) * (row * tailvec)[0]
                out.append(mpmath.mpf(v.p) / v.q)
        return out


def _rational(v) -> sp.Rational:
    """An exact rational: decimal text exactly (``"0.85"`` -> 17/20); a Float exactly as the
    binary number it is (as the Newton solver converts it)."""
    if isinstance(v, str):
        try:
            return sp.Rational(v.strip())
        except (TypeError, ValueError):
            raise SymdelayInputError(f"not a number: '{v}'") from None
    v = sp.sympify(v)
    if v.is_Rational:
        return v
    if v.is_Float:
        return sp.Rational(v)
    raise SymdelayInputError(f"the service must have rational entries for the bound, got {v}")


def geometric_certificate(service: PhaseType, lam, dps: int = 15) -> GeometricCertificate:
    """The proved d = 1 tail bound (module text), all checks in exact rational arithmetic.

    Among a few rational ``c`` between the spectral radius of R and 1 it keeps the one that
    needs the fewest levels for ``10^-(dps+3)``."""
    import numpy as np

    m = service.phases
    lamr = _rational(lam)
    S = sp.Matrix(m, m, lambda i, j: _rational(service.S[i, j]))
    alpha = sp.Matrix([[_rational(v) for v in service.alpha]])
    one, eye = sp.ones(m, 1), sp.eye(m)
    e = -S * one
    rho = lamr * (alpha * (-S).inv() * one)[0]
    R = lamr * (lamr * eye - lamr * one * alpha - S).inv()
    if any(v < 0 for v in R):
        raise VerificationError("the M/PH/1 rate matrix has a negative entry")
    if any(v != 0 for v in lamr * eye + R * (S - lamr * eye) + R * R * e * alpha):
        raise VerificationError("R does not solve the M/PH/1 matrix-quadratic equation")
    total = (1 - rho) * (1 + (alpha * R * (eye - R).LUsolve(one))[0])
    if total != 1 or (alpha * R * e)[0] != lamr:
        raise VerificationError("the matrix-geometric law does not balance at level 0")
    Rf = np.array(R.evalf(30).tolist(), dtype=float)
    eta = float(max(abs(np.linalg.eigvals(Rf))))
    tol = sp.Rational(1, 10 ** (dps + 3))
    best = None
    for f in (0.3, 0.1, 0.03, 0.01, 1e-3, 1e-4):
        x = eta + (1 - eta) * f
        c = sp.Rational(int(np.ceil(x * 10**12)), 10**12)
        if not c < 1:
            continue
        w = (eye - R / c).LUsolve(one)
        if any(v <= 0 for v in w):
            continue  # c is not above the spectral radius after all: not a certificate
        const = (1 - rho) * (alpha * w)[0] / (1 - c)
        with mpmath.workdps(30):
            k = int(mpmath.ceil(mpmath.log(mpmath.mpf(tol.p) / tol.q / (const.p / mpmath.mpf(const.q))) / mpmath.log(mpmath.mpf(c.p) / c.q)))  # fmt: skip
        k = max(k, 1)
        while const * c**k >= tol:  # exact check of the level (floating log above)
            k += 1
        while k > 1 and const * c ** (k - 1) < tol:
            k -= 1
        if best is None or k < best[0]:
            best = (k, GeometricCertificate(R, c, w, const, eta, k))
    if best is None:
        raise VerificationError("no rational c < 1 certifies the decay of R")
    return best[1]


def tail_bound(service: PhaseType, d: int, lam, levels: int) -> list:
    """Proved upper bounds ``b_1..b_levels`` on the fixed point's ``s_k`` (module text)."""
    mbar = float(service.mean)
    rmax = max(float(v) for v in residual_means(service))
    lamf = float(lam)
    rho = lamf * mbar
    EQ = (rho + lamf * max(rmax - mbar, 0) * rho**d) / (1 - rho**d) if d > 0 else float("inf")
    b = [rho]
    for k in range(2, levels + 1):
        prev = b[-1]
        b.append(min(prev, EQ / k, lamf * rmax * prev**d))
    if d == 1:
        cert = geometric_certificate(service, lam)
        b = [min(v, cert.bound(k)) for k, v in enumerate(b, start=1)]
    return b


def truncation_level(service: PhaseType, d: int, lam, dps: int) -> int:
    """Smallest K with the proved bound on ``s_{K+1}`` below ``10^-(dps+3)``."""
    tol = 10.0 ** -(dps + 3)
    lamf, rmax = float(lam), max(float(v) for v in residual_means(service))
    mbar = float(service.mean)
    rho = lamf * mbar
    EQ = (rho + lamf * max(rmax - mbar, 0) * rho**d) / (1 - rho**d)
    geo = None
    if d == 1:  # the matrix-geometric certificate: s_{K+1} <= const c^(K+1) < tol
        geo = max(geometric_certificate(service, lam, dps).levels - 1, 1)
        if geo > K_MAX:
            raise SymdelayInputError(
                f"the proved tail bound needs more than {K_MAX} levels at lam = {lam}: "
                "lower lam or the precision"
            )
    b, k = rho, 1
    while True:
        if geo is not None and k >= geo:
            return k
        nxt = min(b, EQ / (k + 1), lamf * rmax * b**d)
        if nxt < tol or (nxt == 0):
            return k
        if k >= K_MAX:
            raise SymdelayInputError(
                f"the proved tail bound needs more than {K_MAX} levels at lam = {lam}: "
                "lower lam or the precision"
            )
        b, k = nxt, k + 1


# ------------------------------------------------------------------ Newton
@dataclass
class _Solved:
    x: list  # levels x phases, mpmath
    u: list
    residual: object
    steps: int


def stationary_phases(service: PhaseType) -> list:
    """The phase mix of a busy server in the stationary regime, ``alpha (-S)^{-1}``
    normalised (floats): where a start puts the servers it fills."""
    pi = list(service.alpha * (-service.S).inv())
    tot = float(sum(pi))
    return [float(v) / tot for v in pi]


def _start(service: PhaseType, d, lam, K) -> list:
    rho = float(lam) * float(service.mean)
    m = service.phases
    pi = stationary_phases(service)
    out = []
    for k in range(1, K + 1):
        e = k if d == 1 else (d**k - 1) / (d - 1)
        s = rho ** min(e, 1e300)  # the exact start for exponential service (0 past 1e300)
        out.append([s * pi[j] for j in range(m)])
    return out


def truncated_fixed_point(service: PhaseType, d: int, lam, K: int, dps: int = 15) -> _Solved:
    """Newton's method on the truncated system at level K (floats, then ``dps`` + guard)."""
    sysf = _system(service, d, lam, K, lambda v: float(v))
    u = _start(service, d, lam, K)
    F = drift_u(sysf, u)
    nF, steps = _norm(F), 0
    for _ in range(200):
        if nF < 1e-13:
            break
        delta = _block_solve(*jacobian_u(sysf, u), [[-v for v in row] for row in F])
        t = 1.0
        while True:
            cand = [[u[k][j] + t * delta[k][j] for j in range(sysf.m)] for k in range(K)]
            Fc = drift_u(sysf, cand)
            nc = _norm(Fc)
            if nc < (1 - t / 4) * nF or t < 1e-6:
                break
            t /= 2
        u, F, nF, steps = cand, Fc, nc, steps + 1
    else:  # pragma: no cover - the damped iteration converges on every case tested
        raise VerificationError(f"Newton did not converge for SQ({d}) at lam = {lam}")
    with workdps(dps):
        conv = lambda v: mpmath.mpf(sp.Rational(v).p) / sp.Rational(v).q  # noqa: E731
        sysm = _system(service, d, lam, K, conv)
        u = [[mpmath.mpf(v) for v in row] for row in u]
        tol = mpmath.mpf(10) ** (-(dps + 5))
        for _ in range(30):
            F = drift_u(sysm, u)
            delta = _block_solve(*jacobian_u(sysm, u), [[-v for v in row] for row in F])
            u = [[u[k][j] + delta[k][j] for j in range(sysm.m)] for k in range(K)]
            steps += 1
            if _norm(delta) < tol:
                break
        else:  # pragma: no cover
            raise VerificationError("Newton at working precision did not converge")
        res = _norm(drift_u(sysm, u))
        x = [[u[k][j] - (u[k + 1][j] if k + 1 < K else 0) for j in range(sysm.m)] for k in range(K)]
    if any(v < -tol for row in x for v in row):
        raise VerificationError(f"Newton found a negative fraction for SQ({d}) at lam = {lam}")
    return _Solved(x, u, res, steps)


# ------------------------------------------------------------------ result object
@dataclass
class FixedPoint(Result):
    """The SQ(d) fixed point: tails ``s_k`` (k = 1..K), mean queue, mean sojourn time."""

    d: int
    lam: sp.Expr
    service: PhaseType
    tail: list
    mean_queue: object
    mean_sojourn: object
    closed_form: sp.Expr | None
    truncation: int
    dps: int
    method: str
    error: object = None  # estimate: Newton residual + change from K to K + 2
    x: list = field(default_factory=list, repr=False)
    u: list = field(default_factory=list, repr=False)

    def record(self) -> dict:
        n = self.dps
        return {
            "d": self.d,
            "lam": exact_text(self.lam),
            "service": self.service.to_json(),
            "tail": [mpmath.nstr(v, n) for v in self.tail],
            "mean_queue": mpmath.nstr(self.mean_queue, n),
            "mean_sojourn": mpmath.nstr(self.mean_sojourn, n),
            "closed_form": None if self.closed_form is None else str(self.closed_form),
            "truncation": self.truncation,
            "method": self.method,
            "error_estimate": mpmath.nstr(self.error, 3) if self.error is not None else None,
            "dps": n,
        }

    def jacobian(self):
        """The truncated system's Jacobian at the fixed point (tail variables, mpmath)."""
        return jacobian_matrix(self)


def _closed_form(d: int, rho):
    k = sp.Symbol("k", integer=True, positive=True)
    if d == 1:
        return rho**k
    general = exponential_fixed_point().result
    return general.subs({sp.Symbol("d", integer=True, positive=True): d, sp.Symbol("lam"): rho})


def fixed_point(
    d=2, lam="0.9", service: PhaseType | None = None, *, dps=15, method="auto", force=False
):
    """The SQ(d) mean-field fixed point to ``dps`` digits.

    ``service``: a :class:`PhaseType` (default Exp(1)); ``method``: ``auto`` (closed form
    for exponential service, the exact matrix-geometric law for d = 1, Newton otherwise),
    ``newton`` or ``closed``. A solve estimated over the budget is refused unless ``force``.
    """
    d = as_d(d)
    dps = as_dps(dps)
    service = service if service is not None else exponential()
    if not isinstance(service, PhaseType):
        raise SymdelayInputError("service must be a PhaseType (fit a general one first)")
    if service.S.free_symbols or service.alpha.free_symbols:
        raise SymdelayInputError("the service must be numeric for the fixed point")
    lamv = as_lam(lam, service.mean)
    rho = lamv * service.mean
    is_exp = service.phases == 1
    if method not in ("auto", "newton", "closed"):
        raise SymdelayInputError(f"method must be auto, newton or closed, got '{method}'")
    if method == "closed" and not is_exp:
        raise SymdelayInputError("the closed form holds for exponential service only")
    m = service.phases
    what = f"the SQ({d}) fixed point with {m} service phases at lam = {exact_text(lamv)}"
    if d == 1 and not is_exp and method != "newton":
        check_budget(what, estimate_seconds(0, m, dps, 1), force=force, shrink="the phases")
        return _matrix_geometric(service, lamv, dps)
    K = truncation_level(service, d, lamv, dps)  # proved for every d (module text)
    newton = not (is_exp and method != "newton")
    cost = estimate_seconds(K, m, dps, d) if newton else estimate_seconds(K, 1, dps)
    check_budget(
        what + f" (K = {K} levels)", cost, force=force, shrink="the phases (--k), lam or --dps"
    )
    closed = _closed_form(d, sp.Symbol("lam")) if is_exp else None
    with workdps(dps):
        if is_exp and method != "newton":
            kk = sp.Symbol("k", integer=True, positive=True)
            expr = _closed_form(d, rho)
            # evaluated unexpanded: the exact rational rho^(d^k ...) can have millions of digits
            tail = [mpmath.mpf(sp.N(expr, dps + 10, subs={kk: k})) for k in range(1, K + 1)]
            err, x, u = mpmath.mpf(0), [], []
            used = "closed form"
        else:
            a = truncated_fixed_point(service, d, lamv, K, dps)
            b = truncated_fixed_point(service, d, lamv, K + 2, dps)
            tail = [sum(row) for row in a.u]
            err = a.residual + max(abs(sum(b.u[k]) - tail[k]) for k in range(K))
            x, u = a.x, a.u
            used = "newton"
        EQ = mpmath.fsum(tail)
        ET = EQ / mpmath.mpf(sp.N(lamv, dps + 10))
        with mpmath.workdps(dps):
            tail = [+v for v in tail]
            EQ, ET = +EQ, +ET
    return FixedPoint(d, lamv, service, tail, EQ, ET, closed, K, dps, used, err, x, u)


#: Levels of the tail listed by the exact d = 1 path (the mean needs no truncation).
GEOMETRIC_LEVELS = 400


def _matrix_geometric(service: PhaseType, lamv, dps: int) -> FixedPoint:
    """d = 1 with phase-type service: each queue is M/PH/1, whose law is matrix-geometric.
    ``s_k = (1 - rho) alpha R^k (I - R)^{-1} 1`` and the mean queue
    ``(1 - rho) alpha R (I - R)^{-2} 1`` are exact rationals (no truncation); the tail is
    listed up to the level where the proved bound falls below ``10^-(dps+3)`` (at most
    :data:`GEOMETRIC_LEVELS`)."""
    cert = geometric_certificate(service, lamv, dps)
    m = cert.R.shape[0]
    rho = lamv * _rational(service.mean)
    alpha = sp.Matrix([[_rational(v) for v in service.alpha]])
    inv = (sp.eye(m) - cert.R).inv()
    eq = (1 - rho) * (alpha * cert.R * inv * inv * sp.ones(m, 1))[0]
    levels = min(cert.levels, GEOMETRIC_LEVELS)
    with workdps(dps):
        tail = cert.exact_tail(levels, service, lamv, dps + 10)
        EQ = mpmath.mpf(eq.p) / eq.q
        ET = EQ / (mpmath.mpf(lamv.p) / lamv.q)
        with mpmath.workdps(dps):
            tail = [+v for v in tail]
            EQ, ET = +EQ, +ET
    return FixedPoint(
        1, lamv, service, tail, EQ, ET, None, levels, dps,
        "matrix-geometric (exact, d = 1)", mpmath.mpf(0), [], [],
    )  # fmt: skip


def jacobian_matrix(fp, dps: int | None = None, u=None) -> mpmath.matrix:
    """Dense Jacobian (K m x K m, mpmath) of the truncated drift in the tail variables at
    the fixed point (or at the tails ``u``, K lists of m)."""
    dps = dps or fp.dps
    if u is None:
        u = fp.u or truncated_fixed_point(fp.service, fp.d, fp.lam, fp.truncation, dps).u
    with workdps(dps):
        conv = lambda v: mpmath.mpf(sp.Rational(v).p) / sp.Rational(v).q  # noqa: E731
        sys = _system(fp.service, fp.d, fp.lam, fp.truncation, conv)
        Ls, Ds, Us = jacobian_u(sys, [[mpmath.mpf(v) for v in row] for row in u])
        m, K = sys.m, sys.K
        J = mpmath.matrix(K * m, K * m)
        for k in range(K):
            for j in range(m):
                for i in range(m):
                    J[k * m + j, k * m + i] = Ds[k][j][i]
                    if k > 0:
                        J[k * m + j, (k - 1) * m + i] = Ls[k][j][i]
                    if k < K - 1:
                        J[k * m + j, (k + 1) * m + i] = Us[k][j][i]
    return J
