"""Certified rightmost roots of a delay model (the ``roots`` entry's path for a model whose
mode functions are not polynomials: ``exp(-r tau)``, a non-integer power).

Per mode of the model's symmetry (:func:`symdelay.analysis.lagroots._mode_groups`):

1. **The count in Re r > 0** and the root ``r = 0``:
   :func:`symdelay.analysis.lagroots.unstable_count` (argument principle in Arb on a box proved
   to hold every root with ``Re r >= 0``; ``r = 0`` decided exactly). It gives the verdict.
2. **Candidates**: the rightmost eigenvalues of a small spectral collocation of the generator
   (:func:`symdelay.analysis.collocation.collocation_eigenvalues`, uncertified: only starting
   points), each polished by Newton's method in Arb at the digits asked and proved to be the
   only root in its disc (:func:`symdelay.analysis.certify.certify_root`).
3. **Completeness**: the argument principle on ``[d, R_d] x [-R_d, R_d]``, ``d`` left of the
   K-th root and ``R_d`` the bound of every root with ``Re r >= d``
   (:func:`symdelay.analysis.lagroots.root_bound` with the shift ``-d``): the count must equal
   the roots found there. It runs at 64 bits (a count is an integer: it needs no more unless
   a root sits near the contour); where it finds more roots than the candidates gave, the
   box is bisected by further counts until each missing root is alone in a box, found by
   Newton from that box and certified (so a poor collocation costs time, never a root).

Roots in a box ``[x0, x1] x [y0, y1]`` are found the same way (count, candidates, bisection).

**Speed.** The determinant of a mode's block is expanded once, exactly, into a
quasi-polynomial ``sum_b P_b(r) prod_k K_k(r)^(b_k)`` (one polynomial per product of
kernels), evaluated by Horner's rule in Arb: an ``n x n`` determinant of balls costs ``n^3``
operations and encloses a box far more loosely (many more bisections of the contour).
"""

from __future__ import annotations

from dataclasses import dataclass

import mpmath

from symdelay.analysis.lagroots import CharacteristicMatrix
from symdelay.core.errors import CertificationError, SymdelayInputError
from symdelay.core.lazy import sympy as sp

__all__ = ["QuasiMatrix", "ModeRoots", "mode_roots", "delay_roots", "DEFAULT_RIGHTMOST"]

#: the number of rightmost roots listed when neither ``rightmost`` nor ``box`` is given
DEFAULT_RIGHTMOST = 6

#: the expanded determinant is used up to this many monomials (beyond: the matrix form)
MAX_MONOMIALS = 4000

#: bisection depth of the search for roots the candidates missed
MAX_DEPTH = 40

#: how many times the proof reaches further left when fewer than K roots were found
MAX_EXTEND = 6


class QuasiMatrix(CharacteristicMatrix):
    """:class:`~symdelay.analysis.lagroots.CharacteristicMatrix` whose ``det Delta`` is the
    expanded quasi-polynomial ``sum_b P_b(r) prod_k K_k(r)^(b_k)`` (module docstring), for
    blocks larger than 1 x 1 (a scalar is already evaluated directly)."""

    def __init__(self, linearisation, lags=None):
        super().__init__(linearisation, lags)
        self._expanded = self._expand() if self.n > 1 else None

    def _expand(self):
        """``[(b, {power of r: coefficient})]``: the determinant grouped by the powers ``b``
        of the kernels (exact, over the entries' own domain); None when an entry is a Float
        (a numerically certified equilibrium: its products would be rounded) or the
        expansion is too large."""
        from sympy.polys.matrices import DomainMatrix

        r = self._r
        mats = [self.A0, *(M for M, _K, _o, _d in self.terms)]
        if any(e.has(sp.Float) for M in mats for e in M):
            return None
        ys = [sp.Symbol(f"_y{k}") for k in range(len(self.terms))]
        if all(e.is_Rational for M in mats for e in M):
            groups = self._expand_rational(r, ys)
            if groups is None:
                return None
            return [(b, groups[b]) for b in sorted(groups)]
        D = r * sp.eye(self.n) - sp.Matrix(self.A0)
        for (M, _K, _objs, deriv), y in zip(self.terms, ys):
            D -= sp.Matrix(M) * (r * y if deriv else y)
        dm = DomainMatrix.from_Matrix(D)
        det = dm.domain.to_sympy(dm.det())
        poly = sp.Poly(det, r, *ys)
        if len(poly.terms()) > MAX_MONOMIALS:
            return None
        groups: dict = {}
        for monom, c in poly.terms():
            groups.setdefault(monom[1:], {})[monom[0]] = c
        return [(b, groups[b]) for b in sorted(groups)]

    def _expand_rational(self, r, ys):
        """The groups of :meth:`_expand` for rational entries: the same exact determinant,
        built in the ring ``QQ[r, y_1, ...]`` directly (no symbolic matrix: the symbolic
        route spends ~0.1 s on its first call, more than the determinant of a 10 x 10)."""
        from sympy.polys.domains import QQ
        from sympy.polys.matrices import DomainMatrix

        dom = QQ.poly_ring(r, *ys)
        ring = dom.ring
        rv, yv = ring.gens[0], ring.gens[1:]

        def q(e):
            return ring(QQ(int(e.p), int(e.q)))

        rows = []
        for i in range(self.n):
            row = []
            for j in range(self.n):
                v = -q(self.A0[i, j]) + (rv if i == j else 0)
                for (M, _K, _objs, deriv), y in zip(self.terms, yv):
                    if M[i, j] != 0:
                        v -= q(M[i, j]) * (rv * y if deriv else y)
                row.append(v)
            rows.append(row)
        det = DomainMatrix(rows, (self.n, self.n), dom).det()
        if len(det.terms()) > MAX_MONOMIALS:
            return None
        groups: dict = {}
        for monom, c in det.terms() or [((0,) * (1 + len(ys)), QQ(0))]:
            groups.setdefault(monom[1:], {})[monom[0]] = sp.Rational(
                int(c.numerator), int(c.denominator)
            )
        return groups

    def evaluator(self, prec: int):
        if self._expanded is None:
            return super().evaluator(prec)
        if prec in self._cache:
            return self._cache[prec]
        import flint

        from symdelay.analysis.lagroots import _entry_ball, _term_kernel

        with flint.ctx.workprec(prec):
            kernels = [_term_kernel(K, objs, self._r, prec) for _M, K, objs, _d in self.terms]
            parts = []
            for b, coeffs in self._expanded:
                top = max(coeffs)
                cs = [_entry_ball(coeffs.get(j, 0)) for j in range(top + 1)]
                P = flint.acb_poly(cs)
                parts.append((b, P, P.derivative()))

        used = [any(b[i] for b, _P, _dP in parts) for i in range(len(kernels))]

        def powers(z):  # each kernel once per point (None: it does not occur)
            return [k(z) if u else None for (k, _dk), u in zip(kernels, used)]

        def F(z):
            vals = powers(z)
            total = flint.acb(0)
            for b, P, _dP in parts:
                v = P(z)
                for i, e in enumerate(b):
                    if e:
                        v *= vals[i] ** e
                total += v
            return total

        def dF(z):
            vals = powers(z)
            dvals = [dk(z) if vals[i] is not None else None for i, (_k, dk) in enumerate(kernels)]
            total = flint.acb(0)
            for b, P, dP in parts:
                prod = flint.acb(1)
                for i, e in enumerate(b):
                    if e:
                        prod *= vals[i] ** e
                v = dP(z) * prod
                for j, e in enumerate(b):
                    if not e:
                        continue
                    w = P(z) * e * dvals[j] * (vals[j] ** (e - 1) if e > 1 else 1)
                    for i, f in enumerate(b):
                        if f and i != j:
                            w *= vals[i] ** f
                    v += w
                total += v
            return total

        self._cache[prec] = (F, dF)
        return F, dF


@dataclass(frozen=True)
class ModeRoots:
    """The certified roots of one mode function: ``roots`` ``[(value, radius)]`` (mpmath;
    discs proved pairwise disjoint, each holding exactly one root), ``zero`` the exact
    multiplicity of ``r = 0``, ``count`` the :class:`~symdelay.analysis.lagroots.LagCount`
    of ``Re r > 0``, ``complete`` what the list is proved to hold (``("right_of", d)``: every
    root with ``Re r > d``; ``("box", (x0, x1, y0, y1))``: every root in the box), ``real``
    (the function is real on the real axis)."""

    roots: tuple
    zero: int
    count: object
    complete: tuple
    real: bool
    segments: int


def _laws(lags):
    """Every law among ``lags`` (a mixture's members too)."""
    for lag in (lags or {}).values():
        yield from _members(lag)


def _members(lag):
    if lag.kind == "mixture":
        for m in lag.args["lags"]:
            yield from _members(m)
    else:
        yield lag


def _pole_in_box(lags, box):
    """A pole (or branch cut) of a lag kernel's transform in or on the closed ``box``
    (``x0, x1, y0, y1``, mpf), described, or None: an exponential's pole ``-1/m``, a gamma
    law's ``-k/m`` (with its cut to the left for a non-integer shape), the Gershgorin discs
    of a phase-type sub-generator (which hold its eigenvalues, the transform's poles)."""
    x0, x1, y0, y1 = box
    on_axis = y0 <= 0 <= y1

    def q(e):
        e = sp.Rational(e)
        return mpmath.mpf(int(e.p)) / int(e.q)

    for lag in _laws(lags):
        a = lag.args
        if lag.kind == "exponential":
            pole = -1 / q(a["mean"])
            if on_axis and x0 <= pole <= x1:
                return f"the pole r = {mpmath.nstr(pole, 8)} of lag '{lag.name}'"
        elif lag.kind == "gamma":
            pole = -q(a["shape"]) / q(a["mean"])
            cut = not sp.Rational(a["shape"]).is_integer
            if on_axis and x0 <= pole and (cut or pole <= x1):
                what = "branch point" if cut else "pole"
                return f"the {what} r = {mpmath.nstr(pole, 8)} of lag '{lag.name}'"
        elif lag.kind == "phase_type":
            S = a["S"]
            for i in range(S.rows):
                c = q(S[i, i])
                rad = sum(abs(q(S[i, j])) for j in range(S.cols) if j != i)
                if c - rad <= x1 and c + rad >= x0 and -rad <= y1 and rad >= y0:
                    return f"a Gershgorin disc of the phases of lag '{lag.name}' (its poles)"
    return None


def _dyadic(x, up: bool):
    """A 30-bit dyadic number at or above (``up``) / below ``x`` (an mpf)."""
    if x == 0:
        return mpmath.mpf(0)
    m, e = mpmath.frexp(x)
    f = mpmath.ceil if up else mpmath.floor
    return mpmath.ldexp(f(m * 2**30) / 2**30, e)


def _count(F, x0, x1, y0, y1, *, prec, ppu, symmetric, stats, dps):
    """The number of roots in the box (argument principle), at 64 bits and then at the
    precision of the digits asked; None when a root lies on or very near its edge."""
    from symdelay.analysis.certify import count_zeros
    from symdelay.core.precision import work_bits

    last = None
    for bits, width in ((64, mpmath.mpf(2) ** -40), (max(prec, work_bits(dps)), None)):
        Fb = F(bits)[0]
        try:
            return count_zeros(
                Fb, x0, x1, y0, y1, prec=bits, pieces_per_unit=ppu, symmetric=symmetric,
                max_segments=400_000, min_width=width or mpmath.mpf(10) ** -dps, stats=stats,
            )  # fmt: skip
        except CertificationError as exc:
            last = exc
    del last
    return None


class _Finder:
    """Newton in Arb from a starting point, the root proved alone in its disc."""

    def __init__(self, cm, prec):
        self.cm, self.prec = cm, prec
        self.F, self.dF = cm.evaluator(prec)

    def polish(self, s):
        import flint

        from symdelay.analysis.certify import certify_root, mpc_from_acb_mid, to_acb

        prec = self.prec
        with mpmath.workprec(prec), flint.ctx.workprec(prec):
            z = to_acb(mpmath.mpc(s))
            for _ in range(200):
                fz, dfz = self.F(z), self.dF(z)
                if dfz.contains(0):
                    return None
                step = fz / dfz
                z = flint.acb(z.real.mid(), z.imag.mid()) - flint.acb(
                    step.real.mid(), step.imag.mid()
                )
                if not z.is_finite():
                    return None
                if step.abs_upper() < flint.arb(2) ** (-prec + 16) * (1 + z.abs_upper()):
                    break
            else:
                return None
            c = mpc_from_acb_mid(z)
            if self.cm.real and abs(c.imag) < mpmath.mpf(2) ** (-prec // 2):
                c = mpmath.mpc(c.real, 0)
            try:
                radius, _rho = certify_root(self.F, self.dF, c, prec)
            except CertificationError:
                return None
            return c, radius


def _conj(c):
    """The conjugate of an mpc, exactly (``mpmath.conj`` rounds to the working precision)."""
    return mpmath.mp.make_mpc((c.real._mpf_, mpmath.libmp.mpf_neg(c.imag._mpf_)))


def _add(found, root, real):
    """Add a certified root (and its conjugate for a real function) unless already there
    (discs that meet hold the same root: each is proved to hold exactly one)."""
    c, rad = root
    with mpmath.workprec(max(mpmath.mp.prec, 2 * c.real.context.prec, 256)):
        if any(abs(c - v) <= rad + rv for v, rv in found):
            return False
    found.append((c, rad))
    if real and c.imag != 0:
        found.append((_conj(c), rad))
    return True


def _inside(root, box) -> bool:
    c, rad = root
    x0, x1, y0, y1 = box
    return x0 < c.real - rad and c.real + rad < x1 and y0 < c.imag - rad and c.imag + rad < y1


def _touches(root, box) -> bool:
    c, rad = root
    x0, x1, y0, y1 = box
    return x0 <= c.real + rad and c.real - rad <= x1 and y0 <= c.imag + rad and c.imag - rad <= y1


def _search(finder, count, box, n, found, depth=0):
    """Make ``found`` hold the ``n`` roots of the box: bisect while the roots found do not
    account for the count, Newton from the centre of a box holding one missing root."""
    mine = [z for z in found if _inside(z, box)]
    if len(mine) >= n:
        if len(mine) > n:
            raise CertificationError(
                f"{len(mine)} certified roots in a box where the argument principle counts {n}"
            )
        return
    if any(_touches(z, box) and not _inside(z, box) for z in found) or depth > MAX_DEPTH:
        raise CertificationError(
            "a root could not be isolated near "
            f"{mpmath.nstr(mpmath.mpc((box[0] + box[1]) / 2, (box[2] + box[3]) / 2), 8)}"
        )
    x0, x1, y0, y1 = box
    if n - len(mine) == 1 and n == 1:
        got = finder.polish(mpmath.mpc((x0 + x1) / 2, (y0 + y1) / 2))
        if got is not None and _inside(got, box):
            _add(found, got, finder.cm.real)
            return
    if x1 - x0 >= y1 - y0:
        m = _dyadic((x0 + x1) / 2, False)
        halves = [(x0, m, y0, y1), (m, x1, y0, y1)]
    else:
        m = _dyadic((y0 + y1) / 2, False)
        halves = [(x0, x1, y0, m), (x0, x1, m, y1)]
    counts = []
    for h in halves:
        c = count(h)
        if c is None:  # a root on the cut: move the cut a little
            return _search_shifted(finder, count, box, n, found, depth)
        counts.append(c)
    if sum(counts) != n:
        raise CertificationError(f"the halves of a box count {sum(counts)} roots, the box {n}")
    for h, c in zip(halves, counts):
        if c:
            _search(finder, count, h, c, found, depth + 1)


def _search_shifted(finder, count, box, n, found, depth):
    x0, x1, y0, y1 = box
    for frac in (mpmath.mpf(3) / 8, mpmath.mpf(5) / 8, mpmath.mpf(7) / 16):
        if x1 - x0 >= y1 - y0:
            m = _dyadic(x0 + (x1 - x0) * frac, False)
            halves = [(x0, m, y0, y1), (m, x1, y0, y1)]
        else:
            m = _dyadic(y0 + (y1 - y0) * frac, False)
            halves = [(x0, x1, y0, m), (x0, x1, m, y1)]
        counts = [count(h) for h in halves]
        if None in counts:
            continue
        for h, c in zip(halves, counts):
            if c:
                _search(finder, count, h, c, found, depth + 1)
        return
    raise CertificationError(
        f"roots on every cut tried of the box {[mpmath.nstr(v, 6) for v in box]}"
    )


def mode_roots(
    linearisation, lags, *, rightmost=None, box=None, right_of=None, dps: int = 20, force=False
):
    """The certified roots of one mode's ``det Delta``: the ``rightmost`` of them (every
    root right of an abscissa, proved) or every root in ``box`` (module docstring).

    Parameters
    ----------
    linearisation : Linearisation
        The mode's ``A0`` and terms, at numbers.
    lags : dict
        ``{name: Lag}`` at numbers.
    rightmost : int or None
        How many roots (a conjugate pair kept whole); default :data:`DEFAULT_RIGHTMOST`
        when ``box`` is None.
    box : tuple of four numbers or None
        ``(x0, x1, y0, y1)``: every root with ``x0 < Re r < x1``, ``y0 < Im r < y1``.
    right_of : mpf or None
        With ``rightmost``: list at least every root with ``Re r > right_of`` (the proof
        reaches that far left).
    dps : int, default 20
        Digits of every root (its radius is below ``10^-dps`` relative).
    force : bool, default False
        Lift the cost guard of the count.

    Returns
    -------
    ModeRoots
    """
    from symdelay.analysis.lagroots import _dyadic_above, root_bound, unstable_count
    from symdelay.core.precision import work_bits

    cm = QuasiMatrix(linearisation, lags)
    count = unstable_count(cm, dps=dps, force=force)
    prec = work_bits(dps)
    finder = _Finder(cm, prec)
    ppu = 4 * cm.scale()
    stats: dict = {}

    def count_in(b, symmetric=False):
        return _count(
            cm.evaluator, *b, prec=prec, ppu=ppu, symmetric=symmetric, stats=stats, dps=dps
        )

    zero = count.axis
    found: list = []
    seeds = _seeds(linearisation, lags, rightmost, box, cm.scale())
    for s in seeds:
        got = finder.polish(s)
        if got is None:
            continue
        c, rad = got
        if zero and abs(c) <= rad:
            continue  # r = 0, known exactly
        _add(found, got, cm.real)
    if box is not None:
        x0, x1, y0, y1 = (
            _dyadic(mpmath.mpf(box[0]), False),
            _dyadic(mpmath.mpf(box[1]), True),
            _dyadic(mpmath.mpf(box[2]), False),
            _dyadic(mpmath.mpf(box[3]), True),
        )
        the_box = (x0, x1, y0, y1)
        if zero and x0 < 0 < x1 and y0 < 0 < y1:
            raise SymdelayInputError(
                "r = 0 is a root (exactly): give a box that does not hold it, or --rightmost"
            )
        hit = _pole_in_box(lags, the_box)
        if hit is not None:
            raise SymdelayInputError(
                f"the box meets {hit}: the argument principle would count poles with the "
                "roots; give a box to the right of it"
            )
        n = count_in(the_box)
        if n is None:
            raise CertificationError(
                "a root lies on or very near the edge of the box: move the box a little"
            )
        _search(finder, count_in, the_box, n, found)
        listed = [z for z in found if _inside(z, the_box)]
        return ModeRoots(tuple(_sorted(listed)), 0, count, ("box", the_box), cm.real,
                         stats.get("segments", 0))  # fmt: skip
    k = DEFAULT_RIGHTMOST if rightmost is None else rightmost
    found = _sorted(found)
    shift = extend = mpmath.mpf(0)
    extended = 0
    for _attempt in range(8 + MAX_EXTEND):
        chosen = _first_k(found, k, zero)
        if chosen:
            left = min(v.real - rv for v, rv in chosen)
            right = max(v.real + rv for v, rv in chosen)
        else:  # only r = 0 (or nothing found): look right of -1
            left, right = mpmath.mpf(0), mpmath.mpf(0)
        gap = max(right - left, mpmath.mpf(1) / 8)
        d = _dyadic(min(left - gap / 10, mpmath.mpf(-1) / 64), False)
        if right_of is not None:
            d = min(d, _dyadic(mpmath.mpf(right_of), False))
        d -= shift + extend
        # the next root to the left must not sit on the line Re r = d
        Rb, _ = root_bound(cm, shift=_fraction(-d))
        if Rb is None:
            raise CertificationError(
                "no bound of the roots left of the imaginary axis for these kernels "
                "(a kernel's transform is unbounded there): give a box instead"
            )
        R = _dyadic_above(Rb)
        region = (d, R, -R, R)
        n = count_in(region, symmetric=cm.real)
        if n is None:  # a root on the line Re r = d: move it left
            shift += _dyadic(gap / 7, False)
            continue
        n -= zero
        mine = [z for z in found if z[0].real - z[1] > d]
        if len(mine) == n:
            listed = _sorted([z for z in found if z[0].real > d])
            polynomial_done = not cm.terms and n + zero >= cm.n
            if (
                right_of is None
                and len(listed) + (1 if zero else 0) < k
                and extended < MAX_EXTEND
                and not polynomial_done
            ):
                # fewer than K roots right of d: prove further left (the missing ones are
                # found by the bisection of the count)
                extend = 2 * extend + max(gap, mpmath.mpf(1))
                extended += 1
                if extended == 1:  # finer seeds first: cheaper than bisecting a large box
                    for s_ in _seeds(linearisation, lags, 2 * k + 4, None, cm.scale(), fine=True):
                        got = finder.polish(s_)
                        if got is not None and not (zero and abs(got[0]) <= got[1]):
                            _add(found, got, cm.real)
                    found = _sorted(found)
                continue
            if right_of is None:
                listed = _first_k(listed, k, zero)
            return ModeRoots(tuple(listed), zero, count,
                             ("right_of", d), cm.real, stats.get("segments", 0))  # fmt: skip
        if len(mine) > n:
            raise CertificationError(f"{len(mine)} certified roots right of {d}, counted {n}")
        _search_region(finder, count_in, region, n + zero, found, zero)
        found = _sorted(found)
    raise CertificationError("the rightmost roots could not be proved complete")


def _search_region(finder, count_in, region, n, found, zero):
    """The missing roots of the region (``zero``: r = 0 is one of its ``n``)."""
    if zero:
        pseudo = (mpmath.mpc(0), mpmath.mpf(2) ** -60)
        found.append(pseudo)
        try:
            _search(finder, count_in, region, n, found)
        finally:
            found.remove(pseudo)
    else:
        _search(finder, count_in, region, n, found)


def _first_k(found, k, zero):
    """The first ``k`` roots (r = 0 counted when it is one), a conjugate pair kept whole."""
    k = max(k - (1 if zero else 0), 0)
    if len(found) <= k:
        return list(found)
    a, b = found[k - 1], found[k]
    if k and a[0].imag != 0 and abs(_conj(a[0]) - b[0]) <= a[1] + b[1]:
        return list(found[: k + 1])
    return list(found[:k])


def _sorted(found):
    return sorted(found, key=lambda t: (-float(t[0].real), -float(t[0].imag)))


def _fraction(x):
    from fractions import Fraction

    m, e = mpmath.mpf(x).man_exp
    return Fraction(int(m)) * Fraction(2) ** int(e)


def _seeds(linearisation, lags, rightmost, box, extent=1.0, *, fine=False):
    """Starting points: the rightmost eigenvalues of a small spectral collocation (few
    Chebyshev intervals: the rightmost eigenvalues converge first; a missed root is found
    by the bisection of the completeness proof, so a poor seed costs time only)."""
    import math

    from symdelay.analysis.collocation import collocation_eigenvalues

    k = DEFAULT_RIGHTMOST if rightmost is None else rightmost
    if fine:
        degree = None  # the collocation's own degree (every root of the count's box)
    elif box is None:
        degree = 12 + 2 * k
    else:
        reach = max(abs(float(v)) for v in box)
        degree = 16 + math.ceil(2 * reach * extent)
    try:
        spec = collocation_eigenvalues(
            linearisation, lags, degree=None if degree is None else min(degree, 200)
        )
    except (SymdelayInputError, ValueError, ArithmeticError):
        return []
    ev = [complex(z) for z in spec.eigenvalues]
    if box is not None:
        x0, x1, y0, y1 = (float(v) for v in box)
        pad = 0.1 * max(x1 - x0, y1 - y0)
        return [z for z in ev if x0 - pad <= z.real <= x1 + pad and y0 - pad <= z.imag <= y1 + pad]
    return ev[: 2 * k + 4]


def delay_roots(model, dps: int = 20, *, rightmost=None, box=None, force=False):
    """The :class:`~symdelay.analysis.rootset.RootSet` of a delay model at numbers: per mode
    :func:`mode_roots`, the counts of :func:`~symdelay.analysis.lagroots.unstable_count`.

    Parameters
    ----------
    model : Model
        A model with lags, every parameter a number.
    dps : int, default 20
        Digits of every root.
    rightmost : int or None
        The K rightmost roots of the whole spectrum (default :data:`DEFAULT_RIGHTMOST`).
    box : tuple of four numbers or None
        ``(x0, x1, y0, y1)``: every root in the box instead.
    force : bool, default False
        Lift the cost guard of the counts.

    Returns
    -------
    RootSet
        ``scope`` ``"rightmost"`` or ``"box"``; the counts and the verdict over the whole
        spectrum.
    """
    from symdelay.analysis.charpoly import ModeFactor, model_parameters
    from symdelay.analysis.lagroots import _mode_groups
    from symdelay.analysis.rootset import CertifiedRoot, RootSet, order_key
    from symdelay.core.params import as_dps

    dps = as_dps(dps)
    free = [str(p) for p in getattr(model, "free_parameters", ())]
    if free:
        raise SymdelayInputError(
            "roots of a delay model are certified at numbers only: give " + ", ".join(free)
        )
    if rightmost is not None and box is not None:
        raise SymdelayInputError("give rightmost= or box=, not both")
    if box is not None:
        box = _check_box(box)
    values = dict(getattr(model, "values", {}) or {})
    lags = {k: (lag.xreplace(values) if values else lag) for k, lag in model.lags.items()}
    factors, counts, roots, notes, cuts = [], [], [], [], []
    methods = {}
    groups = _mode_groups(model)
    kw = {"rightmost": rightmost, "box": box, "dps": dps, "force": force}
    results = [mode_roots(lin, lags, **kw) for _name, lin, _f, _c in groups]
    if box is None:
        # the K-th root of the merged lists: every mode must be proved complete beyond it
        k = DEFAULT_RIGHTMOST if rightmost is None else rightmost
        merged = sorted((float(c.real) for res in results for c, _r in res.roots), reverse=True) + [
            0.0
        ] * max(res.zero for res in results)
        merged.sort(reverse=True)
        if len(merged) >= k:
            target = mpmath.mpf(merged[k - 1]) - mpmath.mpf(1) / 64
            results = [
                res if res.complete[1] < target else mode_roots(lin, lags, right_of=target, **kw)
                for res, (_n, lin, _f, _c) in zip(results, groups)
            ]
    for (name, _lin, function, copies), res in zip(groups, results):
        if res.count.unstable is None:
            raise CertificationError(f"{name} mode: {res.count.decided_by}")
        factors.append(ModeFactor(function, name, copies))
        counts.append((res.count.unstable, res.count.axis))
        methods[f"{name} mode: {res.count.decided_by}"] = None
        if res.zero:
            roots.append(
                CertifiedRoot(
                    mpmath.mpc(0), mpmath.mpf(0), None, res.zero * copies, True, True, name
                )
            )
        for c, rad in res.roots:
            roots.append(CertifiedRoot(c, rad, None, copies, False, res.real and c.imag == 0, name))
        kind, where = res.complete
        if kind == "right_of":
            cuts.append(where)
        notes.append(
            f"{name} mode: every root with Re r > {mpmath.nstr(where, 6)} is listed (argument "
            f"principle in Arb, {res.segments} segments)"
            if kind == "right_of"
            else f"{name} mode: every root in the box (argument principle in Arb)"
        )
    roots.sort(key=order_key)
    if box is None:
        k = DEFAULT_RIGHTMOST if rightmost is None else rightmost
        cut = max(cuts)
        roots = [z for z in roots if z.value.real > cut or z.on_axis]
        roots = _first_roots(roots, k)
        scope = "rightmost"
    else:
        scope = "box"
    return RootSet(
        dps,
        roots,
        tuple(factors),
        tuple(counts),
        scope=scope,
        parameters=model_parameters(model),
        count_methods=tuple(methods),
        notes=tuple(notes),
        model_name=model.name,
    )


def _first_roots(roots, k):
    """The first ``k`` roots of the merged list, a conjugate pair of one mode kept whole."""
    if len(roots) <= k:
        return roots
    out = roots[:k]
    last, nxt = out[-1], roots[k]
    close = abs(_conj(last.value) - nxt.value) <= last.radius + nxt.radius
    if last.value.imag != 0 and nxt.mode == last.mode and close:
        out.append(nxt)
    return out


def _check_box(box):
    from symdelay.core.exact import exact_number

    try:
        vals = [exact_number("box", v) for v in box]
    except TypeError:
        vals = []
    if len(vals) != 4:
        raise SymdelayInputError("box takes four numbers x0, x1, y0, y1 (x0 < x1, y0 < y1)")
    x0, x1, y0, y1 = vals
    if not (x0 < x1 and y0 < y1):
        raise SymdelayInputError(f"box needs x0 < x1 and y0 < y1, got {', '.join(map(str, box))}")
    return tuple(mpmath.mpf(sp.Rational(v).p) / sp.Rational(v).q for v in vals)
