"""Crossings in a coefficient of a delay model at fixed lags: ``F(r; p) = A(r) + p B(r)``
with ``A``, ``B`` polynomials in ``r`` and in the kernels of any lags (constant, uniform,
gamma of any shape, exponential, mixtures, phase type), retarded or neutral.

**The mode function as a polynomial in the kernels.** A mode's characteristic matrix is
``Delta(r) = r I - A0 - sum_k (r if derivative else 1) M_k K_k(r)``. With one symbol
``kappa_j`` per distinct kernel, ``G(r, kappa; p) = det Delta`` is an exact polynomial;
``G`` must be affine in ``p`` (else refused in one line): ``G = A + p B``. The kernels are
evaluated in Arb balls from the lags' kinds (:mod:`symdelay.analysis.lagkernels`), their
derivatives too, so ``F``, ``F_r`` and ``Im(A conj B)`` and its derivative are enclosed on
any ball of the imaginary axis.

**The frequency bound.** Every kernel is the Laplace transform of a probability law, so
``|kappa_j(i w)| <= 1``. With ``c_k(X) = sum_alpha |coefficient of r^k kappa^alpha in X|``,
for ``0 <= p <= P``: ``|A(i w)| - P |B(i w)| >= lead w^n - sum_{k<n} (c_k(A) + P c_k(B))
w^k`` where ``lead = |a_n0| - sum_{alpha != 0} |a_n alpha| - P c_n(B)`` (``a_n0`` the
kernel-free coefficient of ``r^n``). When ``lead > 0`` (always for a retarded equation, whose
``r^n`` carries no kernel and no ``p``) no crossing with ``p <= P`` has ``w`` above the Cauchy
bound ``R = 1 + max_k (c_k(A) + P c_k(B)) / lead`` (exact rationals).

**Neutral equations.** ``lead > 0`` is the strong stability of the difference operator
``a_n0 + sum_alpha (a_n alpha + p b_n alpha) kappa^alpha`` proved by ``|kappa| <= 1``; it
holds for ``p`` below ``p_N`` (exact). When the difference operator is one constant lag,
``a_n0 + c(p) e^{-r tau}`` (the announcement with velocity: ``1 + lam theta p e^{-r D}``),
``p_N`` is sharp: for ``|c(p)| > |a_n0|`` it has the roots ``Re r = ln|c/a_n0| / tau > 0``,
infinitely many, and the equation with them (Hale & Verduyn Lunel, strong stability); at
``|c| = |a_n0|`` they approach the axis (not asymptotically stable). Otherwise ``p_N`` is
where the proof stops, labelled so. Crossings accumulate towards a sharp ``p_N`` (the
frequency bound grows like ``1/(p_N - P)``): the scan goes up to the ``P`` whose bound is
within :data:`MAX_FREQUENCY_PIECES`, and says so.

**Isolation.** ``r = i w`` is a root for ``p`` exactly when ``h(w) = Im(A conj B) = 0`` and
``p = -Re(A conj B) / |B|^2``. ``(0, R]`` is cut into pieces and each is decided in Arb on
its ball: dropped when ``|A| > P |B|`` (no crossing with ``p <= P``), ``|A| < lo |B|``,
``Re(A conj B) > 0`` (``p < 0``) or ``0`` not in ``h``; when ``h'`` keeps its sign the
piece holds at most one zero, proved by the signs at its ends and bisected in Arb until
``p`` is enclosed to ``dps`` digits; otherwise it is halved (down to a width of
``10^-(dps+5)``, where it is kept as an unresolved candidate with its enclosure). ``r = 0``
is a root for ``p = -A(0)/B(0)`` exactly (every kernel is 1 at 0). The direction of each
crossing is the sign of ``Re dr/dp = Re(-B / F_r)``, proved in Arb (0 when not resolved).

The counts between crossings come from :func:`symdelay.analysis.lagroots.unstable_count`
(the argument principle on a box proved to hold every unstable root): an independent check
of the crossings and their directions.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from types import SimpleNamespace

import mpmath

from symdelay.core.errors import CertificationError, SymdelayInputError
from symdelay.core.lazy import sympy as sp

__all__ = ["ModeCrossings", "Crossing", "mode_crossings", "model_modes", "count_at"]

#: the most pieces the frequency axis is cut into before a scan is refused (or, for a
#: neutral equation, before the range is cut short of the neutral boundary)
MAX_FREQUENCY_PIECES = 6_000
#: bisections of one piece before it is kept as an unresolved candidate
MAX_DEPTH = 60


@dataclass(frozen=True)
class Crossing:
    """A root on the imaginary axis: at ``p`` (an mpf, the ball's midpoint, with its
    ``radius``), frequency ``omega`` (0: a real root); ``direction`` +1 (roots move right as
    ``p`` grows), -1 (left), 0 (not proved); ``mode``: the mode's name; ``copies``: its
    multiplicity; ``resolved``: False for a piece kept unresolved (a tangency or a double
    crossing: its enclosure is ``[p - radius, p + radius]``)."""

    p: mpmath.mpf
    radius: mpmath.mpf
    omega: mpmath.mpf
    direction: int
    mode: str
    copies: int = 1
    resolved: bool = True


@dataclass(frozen=True)
class ModeCrossings:
    """The crossings of one mode for ``p`` in ``(lo, searched)``: ``neutral`` (the
    difference operator's stability interval of ``p``: ``(lo_N, hi_N)`` exact, None for a
    retarded mode), ``sharp`` (its ends are proved to be where the difference operator
    loses stability), ``searched`` (the crossings are complete up to this ``p``) and
    ``bound`` (the frequency bound used)."""

    mode: str
    crossings: tuple
    searched: object
    bound: object
    neutral: tuple | None = None
    sharp: bool = False
    notes: tuple = field(default=())


# ------------------------------------------------------------------ the modes
def model_modes(model, param):
    """The modes of a delay model with ``param`` left free.

    Parameters
    ----------
    model : Model
        A delay model, every parameter but ``param`` a number.
    param : str
        The coefficient varied (it must not be an argument of a lag).

    Returns
    -------
    list
        ``[(name, linearisation, copies, lags)]``, the lags at the model's values.
    """
    from symdelay.analysis.lagroots import _mode_groups

    values = dict(model.values)
    lags = {k: (lag.xreplace(values) if values else lag) for k, lag in model.lags.items()}
    p = sp.Symbol(param)
    for lag in lags.values():
        if p in lag.parameters():
            raise SymdelayInputError(
                f"{param} is an argument of the lag {lag.name}: vary it with window --in "
                f"{param} over the lag (not the coefficient scan)"
            )
    return [(name, lin, copies, lags) for name, lin, _f, copies in _mode_groups(model)]


def _subs_lin(lin, p, v):
    """The linearisation at ``p = v`` (a light copy the certified count reads)."""
    return SimpleNamespace(
        A0=sp.Matrix(lin.A0).xreplace({p: v}),
        terms=tuple(
            SimpleNamespace(
                matrix=sp.Matrix(t.matrix).xreplace({p: v}),
                kernel=t.kernel,
                lags=t.lags,
                derivative=t.derivative,
            )
            for t in lin.terms
        ),
    )


def count_at(modes, p, v, dps=20, cache=None):
    """The certified number of roots with ``Re r > 0`` of every mode at ``p = v``.

    Parameters
    ----------
    modes : list
        As :func:`model_modes` returns.
    p : sympy.Symbol
        The coefficient.
    v : sympy.Rational
        Its value (exact).
    dps : int, default 20
        Digits of the contour's finest segments.
    cache : dict, optional
        Counts of the modes free of ``p``, kept between calls.

    Returns
    -------
    int or None
        The count, copies included; None when a mode's count is undecided.
    """
    from symdelay.analysis.lagroots import unstable_count

    total = 0
    for name, lin, copies, lags in modes:
        free = _depends(lin, p)
        key = (name, None if not free else v)
        if cache is not None and key in cache:
            n = cache[key]
        else:
            n = unstable_count(_subs_lin(lin, p, v), lags, dps=dps).unstable
            if cache is not None:
                cache[key] = n
        if n is None:
            return None
        total += copies * n
    return total


def _depends(lin, p) -> bool:
    return p in sp.Matrix(lin.A0).free_symbols or any(
        p in sp.Matrix(t.matrix).free_symbols for t in lin.terms
    )


# ------------------------------------------------------------------ G(r, kappa; p)
class _Affine:
    """``G(r, kappa; p) = A + p B`` of one mode, exact, with Arb evaluators."""

    def __init__(self, lin, lags, p, r):
        import flint  # noqa: F401 (the evaluators below)

        A0 = sp.Matrix(lin.A0)
        n = A0.rows
        keys, syms, self.kernels = {}, [], []
        M = r * sp.eye(n) - A0
        for t in lin.terms:
            Mk = sp.Matrix(t.matrix)
            if Mk.is_zero_matrix:
                continue
            names = tuple(t.lags or ())
            if not names or not all(nm in lags for nm in names):
                raise SymdelayInputError(
                    f"a term's kernel {t.kernel} names no declared lag: the coefficient scan "
                    "reads kernels from the model's lags"
                )
            if names not in keys:
                keys[names] = sp.Symbol(f"_kappa{len(syms)}")
                syms.append(keys[names])
                self.kernels.append(tuple(lags[nm] for nm in names))
            M = M - (r if t.derivative else 1) * Mk * keys[names]
        G = sp.expand(M.det(method="berkowitz") if n > 1 else M[0, 0])
        extra = sorted(str(s) for s in G.free_symbols - {r, p, *syms})
        if extra:
            raise SymdelayInputError(
                f"give numbers for {', '.join(extra)} (every parameter but {p})"
            )
        if sp.diff(G, p, 2) != 0:
            raise SymdelayInputError(
                f"the mode function is not affine in {p} (F = A(r) + {p}*B(r)): the "
                f"coefficient scan needs it; decide points with stability"
            )
        self.n, self.p, self.r, self.syms = n, p, r, syms
        gens = (r, *syms)
        self.A = sp.Poly(sp.expand(G.subs(p, 0)), *gens)
        self.B = sp.Poly(sp.expand(sp.diff(G, p)), *gens)
        for part in (self.A, self.B):
            for c in part.coeffs():
                if not c.is_number or (c.is_real is False):
                    raise SymdelayInputError(
                        f"the mode function has a coefficient {c} that is not a real number"
                    )
        self.depends = not self.B.is_zero
        self._cache: dict = {}

    # the r^n coefficients: the difference operator
    def leading(self):
        """``(a0, a_rest, b_rest)``: the kernel-free ``r^n`` coefficient of ``A``, the
        others of ``A`` and of ``B`` (``{alpha: c}``)."""
        n = self.n
        a0, arest, brest = sp.Integer(0), {}, {}
        for mon, c in self.A.terms():
            if mon[0] == n:
                if any(mon[1:]):
                    arest[mon[1:]] = c
                else:
                    a0 = c
        for mon, c in self.B.terms():
            if mon[0] == n:
                brest[mon[1:]] = c
        return a0, arest, brest

    def degree_sums(self, part):
        """``{k: sum |coefficients of r^k|}`` (exact) of ``A`` or ``B``."""
        out: dict = {}
        for mon, c in part.terms():
            out[mon[0]] = out.get(mon[0], 0) + abs(c)
        return out

    # ---------------------------------------------------------- Arb evaluation
    def evaluator(self, prec):
        """``z -> (A, B, A', B')`` on ``acb`` balls (inside ``flint.ctx.workprec(prec)``)."""
        if prec in self._cache:
            return self._cache[prec]
        import flint

        from symdelay.analysis.lagkernels import kernel, kernel_derivative
        from symdelay.analysis.lagroots import _entry_ball

        with flint.ctx.workprec(prec):
            ks = [[(kernel(lg), kernel_derivative(lg)) for lg in objs] for objs in self.kernels]
            terms = {
                "A": [(m, _entry_ball(c)) for m, c in self.A.terms()],
                "B": [(m, _entry_ball(c)) for m, c in self.B.terms()],
            }

        def kap(z):
            vals, ders = [], []
            for group in ks:
                v, d = flint.acb(1), flint.acb(0)
                for k, dk in group:
                    kv, kd = k(z), dk(z)
                    v, d = v * kv, d * kv + v * kd
                vals.append(v)
                ders.append(d)
            return vals, ders

        def poly(ts, z, vals, ders):
            f, df = flint.acb(0), flint.acb(0)
            for mon, c in ts:
                e0, es = mon[0], mon[1:]
                prod = flint.acb(1)
                for v, e in zip(vals, es):
                    if e:
                        prod *= v**e
                zp = z**e0 if e0 else flint.acb(1)
                f += c * zp * prod
                d = (e0 * z ** (e0 - 1) * prod) if e0 else flint.acb(0)
                for j, e in enumerate(es):
                    if e:
                        rest = flint.acb(1)
                        for i2, (v, e2) in enumerate(zip(vals, es)):
                            if e2:
                                rest *= v ** (e2 - 1 if i2 == j else e2)
                        d += zp * e * rest * ders[j]
                df += c * d
            return f, df

        def ev(z):
            vals, ders = kap(z)
            a, da = poly(terms["A"], z, vals, ders)
            b, db = poly(terms["B"], z, vals, ders)
            return a, b, da, db

        self._cache[prec] = ev
        return ev

    def scale(self, lags_extent) -> float:
        return max([1.0, *lags_extent])


def _extent(objs) -> float:
    from symdelay.analysis.lagkernels import lag_number
    from symdelay.analysis.lagroots import _lag_extent

    total = 0.0
    for lag in objs:
        try:
            total += _lag_extent(lag, lag_number)
        except (TypeError, ValueError, KeyError):  # pragma: no cover - an unusual kind
            total += 1.0
    return total


# ------------------------------------------------------------------ the neutral interval
def _neutral(g: _Affine, lo):
    """``(interval, sharp, note)``: the exact ``p``-interval ``{p >= lo : lead > 0}`` on which
    the difference operator is proved strongly stable (None for a retarded mode), and whether
    its ends are proved to be where it loses stability."""
    a0, arest, brest = g.leading()
    if not arest and not brest:
        return None, False, None
    # lead(p) = |a0| - sum_alpha |a_alpha + p b_alpha| > 0: concave and piecewise linear
    # in p, so its positive set is an interval; its ends are found exactly, piece by piece
    alphas = sorted(set(arest) | set(brest))
    pairs = [(arest.get(al, 0), brest.get(al, 0)) for al in alphas]

    def lead(x):
        return abs(a0) - sum(abs(a + x * b) for a, b in pairs)

    lo = sp.Integer(lo) if not isinstance(lo, sp.Basic) else lo
    knots = [lo, *sorted({-a / b for a, b in pairs if b != 0 and -a / b > lo})]
    ups, downs = [], []
    for x, y in zip(knots, [*knots[1:], None]):
        fx = lead(x)
        if y is None:
            s = lead(x + 1) - fx
            if fx > 0 and s < 0:
                downs.append(x + fx / -s)
            elif fx <= 0 < s:
                ups.append(x - fx / s)
            continue
        fy = lead(y)
        if fx > 0 >= fy:
            downs.append(x + fx * (y - x) / (fx - fy))
        elif fx <= 0 < fy:
            ups.append(x + -fx * (y - x) / (fy - fx))
    if lead(lo) > 0:
        left = lo
    elif ups:
        left = min(ups)
    else:
        left = None
    right = sp.oo if left is None else min((q for q in downs if q > left), default=sp.oo)
    # sharp: the r^n part is a0 + c(p) kappa^alpha with one kappa a product of constant lags
    sharp = False
    if len(pairs) == 1:
        (alpha,) = alphas
        lagged = [objs for objs, e in zip(g.kernels, alpha) if e]
        sharp = all(lag.kind == "constant" for objs in lagged for lag in objs)
    if left is None:
        return (lo, lo), sharp, None
    note = (
        "the difference operator a_n + c(p) exp(-r tau) is strongly stable exactly while "
        "|c(p)| < |a_n| (Hale & Verduyn Lunel); beyond, infinitely many roots lie in Re r > 0"
        if sharp
        else "the difference operator is proved strongly stable (|kernel| <= 1) only inside "
        "this interval; outside it the analysis is not decided"
    )
    return (left, right), sharp, note


# ------------------------------------------------------------------ the scan of one mode
def _cauchy(g: _Affine, P):
    """The exact frequency bound for crossings with ``0 <= p <= P`` (None: lead <= 0)."""
    a0, arest, brest = g.leading()
    n = g.n
    lead = abs(a0) - sum(abs(c) for c in arest.values()) - P * sum(abs(c) for c in brest.values())
    if not lead > 0:
        return None
    ca, cb = g.degree_sums(g.A), g.degree_sums(g.B)
    worst = 0
    for k in range(n):
        worst = max(worst, (ca.get(k, 0) + P * cb.get(k, 0)) / lead)
    return 1 + worst


def mode_crossings(lin, lags, param, lo, hi, dps=15, *, name="mode", copies=1):
    """The crossings of one mode for ``param`` in ``(lo, hi)`` (module docstring).

    Parameters
    ----------
    lin : Linearisation
        The mode's blocks (``A0``, ``terms``), numbers except ``param``.
    lags : dict
        ``{name: Lag}`` at numbers.
    param : str
        The coefficient varied (``theta``).
    lo, hi : SymPy rationals
        The range (``hi`` may be ``sympy.oo``: then the scan goes as far as the frequency
        budget allows and ``searched`` says how far).
    dps : int
        Digits of each crossing.
    name : str
        The mode's name (carried by each crossing).
    copies : int
        The mode's multiplicity.

    Returns
    -------
    ModeCrossings
    """
    from symdelay.core.precision import work_bits
    from symdelay.core.symbols import r

    p = sp.Symbol(param)
    g = _Affine(lin, lags, p, r)
    notes = []
    if not g.depends:
        return ModeCrossings(name, (), hi, None)
    neutral, sharp, nnote = _neutral(g, lo)
    top = hi
    if neutral is not None:
        if nnote:
            notes.append(nnote)
        if neutral[1] <= lo and sharp:
            notes.append(
                f"the difference operator of mode {name} has infinitely many roots in "
                f"Re r > 0 for every {param} > {lo} (Hale & Verduyn Lunel): unstable"
            )
            return ModeCrossings(name, (), sp.Integer(lo), None, neutral, True, tuple(notes))
        if neutral[0] > lo or neutral[1] <= lo:
            raise SymdelayInputError(
                f"the difference operator of mode {name} is not proved stable at {param} = "
                f"{lo}: give lo >= {neutral[0]} (it is from there)"
            )
        top = min(hi, neutral[1])
    scale = max([1.0, *(_extent(objs) for objs in g.kernels)])
    width0 = float(mpmath.pi) / (8 * scale)
    # the largest P within the frequency budget (a neutral boundary is approached, never
    # reached: the bound grows like 1/(p_N - P))
    P = top
    R = None if P is sp.oo else _cauchy(g, P)
    if P is sp.oo or R is None or float(R) / width0 > MAX_FREQUENCY_PIECES:
        budget_R = MAX_FREQUENCY_PIECES * width0
        # bisect for the largest dyadic P in (lo, top) with R(P) <= budget
        lo_P = sp.Integer(lo)
        hi_P = top if top != sp.oo else None
        cand = max(sp.Integer(1), lo_P * 2)
        if hi_P is None:
            while _cauchy(g, cand) is not None and float(_cauchy(g, cand)) <= budget_R:
                lo_P, cand = cand, cand * 2
                if cand > 10**12:
                    break
            hi_P = cand
        for _ in range(60):
            mid = (lo_P + hi_P) / 2
            Rm = _cauchy(g, mid)
            if Rm is not None and float(Rm) <= budget_R:
                lo_P = mid
            else:
                hi_P = mid
        if not lo_P > lo:
            raise SymdelayInputError(
                f"the frequency bound of mode {name} is beyond the scan's budget already at "
                f"{param} = {lo}: give a smaller range"
            )
        P = sp.Rational(mpmath.nstr(mpmath.mpf(lo_P.p) / lo_P.q, 6)) if lo_P.q > 1 else lo_P
        if not lo < P or _cauchy(g, P) is None or float(_cauchy(g, P)) > budget_R:
            P = lo_P
        R = _cauchy(g, P)
        notes.append(
            f"crossings searched for {param} <= {mpmath.nstr(mpmath.mpf(P.p) / P.q, 8)} "
            f"(the frequency bound {mpmath.nstr(mpmath.mpf(R.p) / R.q, 6)} there is the "
            "scan's budget)"
        )
    prec = work_bits(dps)
    if neutral is not None and sharp and top == neutral[1] and not top <= P:
        # one constant lag: |B(i w)| = |Q(i w)| exactly, so where |P(i w)| > p_N |Q(i w)|
        # for every large w (an exact polynomial) no crossing below p_N is beyond its bound
        Rn = _neutral_tail(g, top)
        if Rn is not None and float(Rn) / width0 <= MAX_FREQUENCY_PIECES:
            notes = [n for n in notes if not n.startswith("crossings searched")]
            notes.append(
                f"|P(i w)| > {top} |Q(i w)| for w >= {mpmath.nstr(mpmath.mpf(Rn.p) / Rn.q, 6)} "
                f"(exact): no crossing below the neutral boundary beyond that frequency"
            )
            found = _isolate(g, sp.Integer(lo), top, Rn, width0, prec, dps, name, copies)
            return ModeCrossings(name, tuple(found), top, Rn, neutral, sharp, tuple(notes))
    found = _isolate(g, sp.Integer(lo), P, R, width0, prec, dps, name, copies)
    return ModeCrossings(name, tuple(found), P, R, neutral, sharp, tuple(notes))


def _neutral_tail(g: _Affine, pN):
    """For ``F = P(r) + p Q(r) kappa(r)`` with ``kappa`` one constant lag (``|kappa(i w)| =
    1``): an exact ``W`` with ``|P(i w)|^2 - pN^2 |Q(i w)|^2 > 0`` for every ``w >= W``
    (the Cauchy bound of that polynomial, when its leading coefficient is positive), else
    None."""
    if len(g.syms) != 1 or any(m[1] for m, _c in g.A.terms()):
        return None
    if any(m[1] != 1 for m, _c in g.B.terms()):
        return None
    w = sp.Symbol("w", real=True)
    r = g.r
    Pw = sp.expand(g.A.as_expr().subs(r, sp.I * w))
    Qw = sp.expand((g.B.as_expr() / g.syms[0]).subs(r, sp.I * w))
    G = sp.Poly(sp.expand(Pw * sp.conjugate(Pw) - pN**2 * Qw * sp.conjugate(Qw)), w)
    if G.is_zero:
        return None
    cs = G.all_coeffs()
    if not cs[0] > 0:
        return None
    return 1 + max((abs(c) / cs[0] for c in cs[1:]), default=sp.Integer(0))


def _fball(x):
    import flint

    x = sp.Rational(x)
    return flint.arb(flint.fmpq(int(x.p), int(x.q)))


def _isolate(g, lo, P, R, width0, prec, dps, name, copies):
    """Every crossing with ``lo < p < P`` and ``0 <= w <= R`` (module docstring)."""
    import flint

    out = []
    # r = 0: p = -A(0) / B(0), the kernels all 1
    a0 = sum(c for m, c in g.A.terms() if m[0] == 0)
    b0 = sum(c for m, c in g.B.terms() if m[0] == 0)
    if b0 != 0:
        p0 = -a0 / b0
        if lo < p0 < P:
            with flint.ctx.workprec(prec):
                ev = g.evaluator(prec)
                _a, b, da, db = ev(flint.acb(0))
                fr = da + _ball_of(p0) * db
                d = (-b / fr).real
                direction = 1 if d > 0 else (-1 if d < 0 else 0)
            out.append(Crossing(_mp(p0), mpmath.mpf(0), mpmath.mpf(0), direction, name, copies))
    ev = g.evaluator(prec)
    Pb, lob = _fball(P), _fball(lo)
    Rf = mpmath.mpf(R.p) / R.q
    npieces = max(1, int(mpmath.ceil(Rf / width0)))
    step = Rf / npieces
    min_w = mpmath.mpf(10) ** (-(dps + 5))
    with flint.ctx.workprec(prec):
        stack = [(step * (i + 1), step * i) for i in range(npieces)]  # (right, left): pop order
        stack.reverse()
        while stack:
            w2, w1 = stack.pop()
            verdict = _piece(ev, w1, w2, Pb, lob)
            if verdict == "none":
                continue
            if verdict == "one":
                c = _refine(ev, w1, w2, lob, Pb, dps, name, copies)
                if c is not None:
                    out.append(c)
                continue
            if w2 - w1 < min_w * (1 + w2):
                out.append(_unresolved(ev, w1, w2, name, copies))
                continue
            mid = (w1 + w2) / 2
            stack.append((w2, mid))
            stack.append((mid, w1))
    out.sort(key=lambda c: c.p)
    return out


def _ball_of(x):
    import flint

    from symdelay.analysis.lagroots import _entry_ball

    v = _entry_ball(x)
    return v.real if isinstance(v, flint.acb) else v


def _mp(x):
    with mpmath.workdps(40):
        return mpmath.mpf(sp.N(x, 40))


def _arb_w(w1, w2):
    """The real ball holding ``[w1, w2]`` (mpf ends)."""
    return _exact_arb(w1).union(_exact_arb(w2))


def _at(ev, w):
    import flint

    return ev(flint.acb(0, w))


def _piece(ev, w1, w2, Pb, lob):
    """``"none"`` (no crossing with ``lo < p < P`` in ``[w1, w2]``), ``"one"`` (at most one
    zero of ``h`` there, ends of opposite sign) or ``"split"``."""
    wb = _arb_w(w1, w2)
    a, b, da, db = _at(ev, wb)
    absA, absB = abs(a), abs(b)
    if absA > Pb * absB:
        return "none"
    if lob > 0 and absA < lob * absB:
        return "none"
    acb_ = a * b.conjugate()
    if acb_.real > 0:
        return "none"  # p = -Re(A conj B)/|B|^2 < 0
    h = acb_.imag
    if not h.contains(0):
        return "none"
    dh = (da * b.conjugate() - a * db.conjugate()).real
    if dh.contains(0):
        return "split"
    # monotone: a zero iff the ends differ in sign (w1 = 0: h(0) = 0 itself, none beyond)
    if w1 == 0:
        return "none"
    h1 = _h(ev, w1)
    h2 = _h(ev, w2)
    if h1.contains(0) or h2.contains(0):
        return "split"
    return "one" if (h1 > 0) != (h2 > 0) else "none"


def _h(ev, w):
    a, b, _da, _db = _at(ev, _exact_arb(w))
    return (a * b.conjugate()).imag


def _exact_arb(w):
    import flint

    m, e = mpmath.mpf(w).man_exp
    return flint.arb(int(m)) * flint.arb(2) ** int(e)


def _refine(ev, w1, w2, lob, Pb, dps, name, copies):
    """Bisect the one zero of ``h`` in ``[w1, w2]`` (signs at exact dyadic points) until
    ``p`` is enclosed to ``dps`` digits; None when its ``p`` is outside ``(lo, P)``."""
    import flint

    with mpmath.workdps(int(flint.ctx.prec / 3.3) + 10):
        w1, w2 = mpmath.mpf(w1), mpmath.mpf(w2)
        s1 = _h(ev, w1) > 0
        for _ in range(int(flint.ctx.prec) + 20):
            wb = _arb_w(w1, w2)
            a, b, da, db = _at(ev, wb)
            if abs(a) > Pb * abs(b) or (a * b.conjugate()).real > 0:
                return None  # the zero of h is where B = 0 or p < 0: no crossing in range
            pb = -(a * b.conjugate()).real / (abs(b) ** 2)
            if pb.rad() < abs(pb.mid()) * flint.arb(10) ** (-(dps + 3)) or (pb < lob or pb > Pb):
                break
            mid = (w1 + w2) / 2
            hm = _h(ev, mid)
            if hm.contains(0):
                if hm.rad() == 0 and hm.mid() == 0:
                    w1 = w2 = mid
                    break
                mid = w1 + (w2 - w1) * mpmath.mpf(0.4375)
                hm = _h(ev, mid)
                if hm.contains(0):
                    break
            if (hm > 0) == s1:
                w1 = mid
            else:
                w2 = mid
        wb = _arb_w(w1, w2) if w2 > w1 else _exact_arb(w1)
        a, b, da, db = _at(ev, wb)
        if abs(a) > Pb * abs(b) or (a * b.conjugate()).real > 0:
            return None
        pb = -(a * b.conjugate()).real / (abs(b) ** 2)
        if pb < lob or pb > Pb:
            return None
        if not pb.is_finite() or pb.rad() > abs(pb.mid()) * flint.arb(10) ** (-(dps + 1)):
            return _unresolved(ev, w1, w2, name, copies)
        if not (pb > lob and pb < Pb):
            raise CertificationError(
                f"a crossing at w = {mpmath.nstr(w1, 12)} has p within its enclosure of an "
                "end of the range: move the end"
            )
        fr = da + pb * db
        d = (-b / fr).real if not fr.contains(0) else flint.arb(0, 1)
        direction = 1 if d > 0 else (-1 if d < 0 else 0)
        pm = mpmath.mpf(pb.mid().str(dps + 10, radius=False))
        rad = mpmath.mpf(pb.rad().str(5, radius=False)) if pb.rad() != 0 else mpmath.mpf(0)
        wm = (w1 + w2) / 2
    return Crossing(pm, rad, wm, direction, name, copies)


def _unresolved(ev, w1, w2, name, copies):
    wb = _arb_w(w1, w2)
    a, b, _da, _db = _at(ev, wb)
    pb = -(a * b.conjugate()).real / (abs(b) ** 2)
    pm = mpmath.mpf(pb.mid().str(30, radius=False))
    rad = mpmath.mpf(pb.rad().str(5, radius=False))
    return Crossing(pm, rad, (w1 + w2) / 2, 0, name, copies, resolved=False)


# ------------------------------------------------------------------ every mode together
#: the largest root bound at which a gap's count is certified by the argument principle
#: (beyond it, near a neutral boundary, the count follows from the proved directions)
COUNT_BOUND_MAX = 300


@dataclass(frozen=True)
class Switches:
    """The crossings of a model in a coefficient ``p`` over ``(lo, hi)``.

    ``edges``: ``lo``, one exact rational inside each breakpoint's gap... (see fields):
    ``breakpoints`` (tuples of :class:`Crossing` at one ``p``, increasing), ``counts``
    (one per gap between ``lo``, the breakpoints and ``searched``; None when undecided),
    ``how`` (per count: ``"argument principle"`` or ``"directions"``), ``searched`` (the
    crossings are complete below it), ``neutral`` (the exact ``p`` where a difference
    operator loses stability, None if none below ``hi``), ``sharp`` (proved there),
    ``notes``."""

    lo: object
    hi: object
    breakpoints: tuple
    counts: tuple
    how: tuple
    searched: object
    neutral: object
    sharp: bool
    notes: tuple


def _cheap_count(modes, p, v, dps, cache):
    """The certified count at ``p = v`` when every mode's root bound is small, else None."""
    from symdelay.analysis.lagroots import CharacteristicMatrix, root_bound

    for name, lin, _copies, lags in modes:
        key = ("bound", name, v if _depends(lin, p) else None)
        if key not in cache:
            try:
                R, _rho = root_bound(CharacteristicMatrix(_subs_lin(lin, p, v), lags))
            except SymdelayInputError:
                R = None
            cache[key] = R
        R = cache[key]
        if R is None or not R < COUNT_BOUND_MAX:
            return None
    return count_at(modes, p, v, dps=min(dps + 5, 30), cache=cache)


def _between(a, b, dps):
    """An exact rational strictly between the mpf ``a < b`` (short decimal when possible)."""
    with mpmath.workdps(max(dps, 15) + 20):
        for digits in range(3, max(dps, 15) + 20):
            q = sp.Rational(mpmath.nstr((a + b) / 2, digits))
            if a < mpmath.mpf(q.p) / q.q < b:
                return q
    raise CertificationError("two crossings could not be separated by a rational")


def switches(model, param, lo, hi, dps=15, *, count="all") -> Switches:
    """Every crossing of ``model`` in ``param`` over ``(lo, hi)`` and the unstable counts
    between them (the module docstring): ``lo`` a rational >= 0, ``hi`` a rational or
    ``sympy.oo`` (then as far as the frequency budget allows, said in the notes).

    Parameters
    ----------
    model : Model
        A delay model, every parameter but ``param`` a number.
    param : str
        The coefficient (``theta``).
    lo, hi : sympy.Rational
        The range; ``hi`` may be ``sympy.oo``.
    dps : int, default 15
        Digits of each crossing.
    count : {"all", "first"}, default "all"
        ``"all"`` certifies every gap's count by the argument principle (and checks the
        proved directions against them); ``"first"`` only the first gap and those after a
        crossing whose direction is not proved, the others following from the directions.

    Returns
    -------
    Switches
    """
    p = sp.Symbol(param)
    modes = model_modes(model, param)
    per, notes = [], []
    for name, lin, copies, lags in modes:
        mc = mode_crossings(lin, lags, param, lo, hi, dps, name=name, copies=copies)
        per.append(mc)
        notes.extend(n for n in mc.notes if n not in notes)
    searched = min([mc.searched for mc in per], default=hi)
    neutral_at, sharp = None, False
    for mc in per:
        if (
            mc.neutral is not None
            and mc.neutral[1] < hi
            and (neutral_at is None or mc.neutral[1] < neutral_at)
        ):
            neutral_at, sharp = mc.neutral[1], mc.sharp
    found = sorted(
        (c for mc in per for c in mc.crossings if c.p < _mpq(searched)), key=lambda c: c.p
    )
    groups: list = []
    for c in found:
        if groups and c.p - c.radius <= groups[-1][-1].p + groups[-1][-1].radius:
            groups[-1].append(c)
        else:
            groups.append([c])
    groups = [tuple(g) for g in groups]
    if not searched > lo:  # a difference operator unstable from lo on: nothing to scan
        return Switches(lo, hi, (), (), (), searched, neutral_at, sharp, tuple(notes))
    edges_mp = [_mpq(lo), *[g[0].p for g in groups], _mpq(searched)]
    cache: dict = {}
    counts, how = [], []
    for i, (a, b) in enumerate(itertools.pairwise(edges_mp)):
        if count == "first" and i > 0 and all(c.direction for c in groups[i - 1]):
            counts.append(None)
            how.append(None)
            continue
        v = _between(a, b, dps)
        n = _cheap_count(modes, p, v, dps, cache)
        counts.append(n)
        how.append("argument principle" if n is not None else None)
    if counts and all(n is None for n in counts):
        # no gap is cheap: count the first anyway (a larger box), the rest follow below
        counts[0] = count_at(modes, p, _between(edges_mp[0], edges_mp[1], dps), dps, cache)
        how[0] = "argument principle" if counts[0] is not None else None
    # the gaps too costly to count follow from a counted one and the proved directions
    for direction in (1, -1):
        idx = range(1, len(counts)) if direction == 1 else range(len(counts) - 2, -1, -1)
        for i in idx:
            j = i - direction
            if counts[i] is not None or counts[j] is None:
                continue
            g = groups[i - 1] if direction == 1 else groups[i]
            if any(c.direction == 0 for c in g):
                continue
            step = sum((2 if c.omega > 0 else 1) * c.direction * c.copies for c in g)
            counts[i] = counts[j] + direction * step
            how[i] = "directions"
    # machine check: proved directions agree with neighbouring certified counts
    for i, g in enumerate(groups):
        if how[i] == how[i + 1] == "argument principle" and all(c.direction for c in g):
            step = sum((2 if c.omega > 0 else 1) * c.direction * c.copies for c in g)
            if counts[i] + step != counts[i + 1]:
                from symdelay.core.errors import VerificationError

                raise VerificationError(
                    f"the counts {counts[i]} -> {counts[i + 1]} across {param} = "
                    f"{mpmath.nstr(g[0].p, 12)} disagree with the proved crossing directions"
                )
    return Switches(
        lo, hi, tuple(groups), tuple(counts), tuple(how), searched, neutral_at, sharp, tuple(notes)
    )


def _mpq(x):
    if x == sp.oo:
        return mpmath.inf
    x = sp.Rational(x)
    with mpmath.workdps(40):
        return mpmath.mpf(int(x.p)) / int(x.q)
