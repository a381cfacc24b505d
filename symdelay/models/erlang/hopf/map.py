"""The founding model's stability map in (D, theta): every Hopf branch explicit.

The difference mode's characteristic equation is ``G(r) + K = 0`` with
``G(r) = (r + mu)(r + gamma)^L``, ``K = lam theta gamma^L``, ``gamma = L/D`` (L = inf:
``G(r) = (r + mu) e^{rD}``, ``K = lam theta``). A root ``r = i omega`` (``omega > 0``) needs
``arg G(i omega) = arg(-K)`` mod ``2 pi``; the argument ``atan(omega/mu) + L atan(omega/gamma)``
(``atan(omega/mu) + omega D`` for L = inf) increases strictly in ``omega`` from 0 (to
``(L+1) pi/2``), so for each ``n = 1, 2, ...`` (finite L: while ``n < (L+1)/2``) and each
``D`` there is exactly one ``omega_n(D)`` with argument ``n pi``: branch ``n`` of the Hopf
set, at ``lam theta_n = (-1)^(n+1) |i omega + mu| |i omega + gamma|^L / gamma^L``
(``(-1)^(n+1) |i omega + mu|`` for L = inf): odd ``n`` at ``theta > 0``, even ``n`` at
``theta < 0``; the k-th positive branch (``k = 0, 1, ...``) is ``n = 2k + 1``. A root at
0 needs ``lam theta = -mu`` (the fold line). Nothing else puts a root on the axis, and the
moduli increase with ``n`` at fixed D, so the curves are ordered and never meet.

Direction of crossing (why the counts are ``0, 2, 4, ...``): ``dr/dK = -1/G'(r)`` and
``G(r) = -K`` give ``dr/dK = 1 / (K S(r))`` with ``S = G'/G = 1/(r + mu) + L/(r + gamma)``
(``1/(r + mu) + D`` for L = inf), and ``Re S(i omega) > 0``; so ``sign Re dr/dK = sign K``:
as ``|theta|`` grows (either sign) every crossing pair moves into ``Re r > 0``. At
``theta = 0`` the roots are ``-mu``, ``-gamma`` (stable; the DDE's other roots enter from
``Re r = -inf`` and a retarded equation has no roots coming in from infinity on the right).
Hence the unstable count at ``(D, theta)`` is ``2 #{odd n : theta_n(D) < theta}`` for
``theta > 0`` and ``2 #{even n : theta_n(D) > theta} + [lam theta < -mu]`` for
``theta < 0``. Each region's count is also checked against the certified root count
(:func:`symdelay.analysis.roots.roots`) at its representative point.

Turning points. With ``omega = gamma tan(alpha)`` the stationarity of ``theta`` along a branch
is ``sin((L+1) alpha) = 0`` (:func:`~.derivation.hopf_parametrisation`); on branch ``n``,
``alpha`` lies in ``((n - 1/2) pi/L, n pi/L)``, which holds exactly one such zero,
``alpha* = n pi/(L+1)``, where ``L alpha* = n pi - alpha*`` forces ``gamma = mu``: so
``D* = L/mu`` on every branch, ``omega* = mu tan(n pi/(L+1))``,
``lam theta*_n = (-1)^(n+1) mu sec^(L+1)(n pi/(L+1))`` (n = 1: the worst delay,
:mod:`.worst`). For L = inf ``omega_n(D)`` decreases strictly in D (the argument increases
in both) and so does ``|theta_n(D)|``: no turning point; branch 1 tends to ``mu/lam`` as
``D -> inf``, never attained.

Certification. Each curve point has ``D`` an exact rational; ``omega`` is found by Newton
(bisection-safeguarded) in mpmath at ``dps + 10`` digits and proved by Arb: the argument
minus ``n pi`` changes sign between ``omega (1 -+ 10^-(dps+4+digits of L))`` (a strictly
increasing function: one root between), and ``theta`` evaluated on that ball is printed with
its error below ``10^-(dps+2)`` relative.

>>> from symdelay.models import build_model
>>> from symdelay.analysis.stability_map import stability_map
>>> m = stability_map(build_model("erlang", L="inf", mu=1, lam=1), x=("D", 1, 4),
...                   y=("theta", 0, 3), cells=4)
>>> [g["unstable_roots"] for g in m.record()["regions"]], m.method.split(":")[0]
([0, 2, 4], 'closed form')
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import flint
import mpmath
import numpy as np

from symdelay.core.errors import SymdelayInputError, VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.precision import GUARD, work_bits
from symdelay.models.erlang.hopf.curve import _Float, _Mp, _mpf, _solve

__all__ = ["specialised_stability_map", "branch_point", "GRID"]

#: log-spaced D values per branch (the box edges and D* = L/mu added)
GRID = 200
#: the index of the difference factor in the founding model's factors ((r + mu), (r + gamma)^L,
#: the difference mode), the same index the generic map reports
FACTOR = 2
#: seconds (one core) per branch point solved and certified, per cell, per root count
_T_POINT, _T_CELL, _T_ROOTS = 1e-3, 3e-5, 0.05


# ============================================================================ one branch
class _Branch:
    """Branch ``n`` of the Hopf set at fixed ``L`` (int or inf), ``mu``, ``lam`` (Fractions):
    its frequency by the critical curve's solver (:func:`.curve._solve` on the phase
    ``n pi``), each point proved in Arb (:meth:`certify`)."""

    def __init__(self, L, mu, lam, n):
        self.L, self.mu, self.lam, self.n = L, mu, lam, n
        self.sign = 1 if n % 2 else -1
        self.inf = math.inf == L

    def solve(self, D, w0=None):
        """``(omega_n(D), theta_n(D))`` in mpmath at the working precision (``D`` an mpf)."""
        g = None if self.inf else self.L / D
        w, k = _solve(self.L, _mpf(self.mu), g, D, _Mp(), w0, self.n)
        return w, self.sign * k / _mpf(self.lam)

    def omegas(self, Dqs):
        """``(omega_n, theta_n)`` at the exact delays ``Dqs`` in doubles, all at once (None
        where the doubles fail)."""
        D = np.array([float(d) for d in Dqs])
        with np.errstate(all="ignore"):
            try:
                g = D if self.inf else self.L / D
                w, k = _solve(self.L, float(self.mu), g, D, _Float, n=self.n)
            except (VerificationError, OverflowError):
                return [None] * len(D)
            th = self.sign * k / float(self.lam)
        return [
            (float(a), float(t)) if np.isfinite(a * t) and a > 0 else None for a, t in zip(w, th)
        ]

    # ---- Arb: the proof of one point
    def certify(self, Dq: Fraction, w, dps, *, refine=False):
        """``theta`` (mpf) proved at the exact ``Dq`` and the ``omega`` found, or None.
        ``refine``: ``w`` (a float) is first carried to the working precision by Newton steps
        in Arb's midpoints (returns ``(omega, theta)`` then, or None)."""
        bits = work_bits(dps, guard=2 * GUARD)
        with flint.ctx.workprec(bits):
            D = flint.arb(flint.fmpq(Dq.numerator, Dq.denominator))
            m = flint.arb(flint.fmpq(self.mu.numerator, self.mu.denominator))
            lm = flint.arb(flint.fmpq(self.lam.numerator, self.lam.denominator))
            # theta moves about (L + 1) times as fast as omega (relative): room for that
            eps = flint.arb(10) ** (-(dps + 4 + (0 if self.inf else len(str(self.L)))))

            def phase(x):
                p = (x / m).atan() - self.n * flint.arb.pi()
                return p + (x * D if self.inf else self.L * (x * D / self.L).atan())

            if refine:
                wm = flint.arb(w)
                g = None if self.inf else flint.arb(self.L) / D
                step_tol = eps * flint.arb(10) ** -3
                for _ in range(2 * bits.bit_length()):
                    d = m / (m * m + wm * wm) + (D if self.inf else self.L * g / (g * g + wm * wm))
                    step = (phase(wm) / d).mid()
                    wm = (wm - step).mid()
                    if abs(step) < step_tol * wm:
                        break
                else:
                    return None
            else:
                wm = flint.arb(mpmath.nstr(w, dps + GUARD + 5))

            lo, hi = phase(wm * (1 - eps)), phase(wm * (1 + eps))
            if not (lo < 0 and hi > 0):
                return None
            ball = wm * (1 + flint.arb(0, 1) * eps)
            k = (ball * ball + m * m).sqrt()
            if not self.inf:
                k *= ((1 + (ball * D / self.L) ** 2).sqrt()) ** self.L
            th = self.sign * k / lm
            if not th.rad() <= abs(th.mid()) * flint.arb(10) ** (-(dps + 2)):
                return None
            tv = mpmath.mpf(th.mid().str(dps + GUARD + 5, radius=False))
            if refine:
                return mpmath.mpf(wm.mid().str(dps + GUARD + 5, radius=False)), tv
            return tv

    def points(self, Dqs, dps):
        """``[(D, theta, omega, certified)]`` at the exact delays ``Dqs`` (mpf values): omega
        in doubles, carried to the working precision and proved by Arb; where that falls
        short, the mpmath solve and the proof again."""
        out = []
        for Dq, wf in zip(Dqs, self.omegas(Dqs)):
            wf = None if wf is None else wf[0]
            D = _mpf(Dq)
            got = None if wf is None else self.certify(Dq, wf, dps, refine=True)
            if got is not None:
                out.append((D, got[1], got[0], True))
                continue
            w, th = self.solve(D, None if wf is None else mpmath.mpf(wf))
            proved = self.certify(Dq, w, dps)
            out.append((D, th if proved is None else proved, w, proved is not None))
        return out

    def turning(self):
        """``(D*, theta*, omega*)`` in closed form (finite L), None for L = inf."""
        if self.inf:
            return None
        a = self.n * mpmath.pi / (self.L + 1)
        m = _mpf(self.mu)
        return (
            _mpf(Fraction(self.L) / self.mu),
            self.sign * m * mpmath.sec(a) ** (self.L + 1) / _mpf(self.lam),
            m * mpmath.tan(a),
        )

    def least_modulus(self, D_hi):
        """The least ``|theta_n|`` over ``D <= D_hi`` (a bound for skipping the branch)."""
        t = self.turning()
        if t is not None:
            return abs(t[1])
        return abs(self.solve(D_hi)[1])


def branch_point(L, mu, lam, n, D, dps=15):
    """``(theta_n(D), omega_n(D), certified)`` of Hopf branch ``n`` (1: the critical curve)
    at the exact delay ``D`` (the founding model, L an int >= 2 or ``math.inf``)."""
    from symdelay.core.exact import exact_fraction

    with mpmath.workdps(dps + GUARD):
        b = _Branch(L, Fraction(mu), Fraction(lam), n)
        ((_, th, w, ok),) = b.points([exact_fraction("D", D)], dps)
        return th, w, ok


def _short_fraction(v: mpmath.mpf, digits: int) -> Fraction:
    """The exact rational of ``v`` printed to ``digits`` significant digits."""
    return Fraction(mpmath.nstr(v, digits, min_fixed=-math.inf, max_fixed=math.inf))


# ============================================================================ the entry
def specialised_stability_map(
    model, x=("D", None, None), y=("theta", None, None), fixed=None, dps=15, *,
    cells=32, seeds=None, force=False, bautin=None,
):  # fmt: skip
    """The founding model's stability map over a (D, theta) box (either order): every Hopf
    branch explicit, the fold line ``lam theta = -mu``, turning points in closed form,
    regions counted by the branch order and checked by the certified roots (see the module
    docstring). Declines (None) another pair of axes, ``seeds`` (the continuation's grid),
    or input the generic path words the error for (L finite); L = inf refuses those itself.
    ``dps`` and ``cells`` come checked by the entry."""
    from symdelay.analysis.stability_map import _axis, _box_range
    from symdelay.core.budget import check_budget
    from symdelay.core.params import as_parameter

    inf = bool(model.infinite)
    if model.symbolic:
        return None

    def refuse(text):
        if not inf:
            return None
        raise SymdelayInputError(text)

    xname, xlo, xhi = _axis(x, "x")
    yname, ylo, yhi = _axis(y, "y")
    if {xname, yname} != {"D", "theta"}:
        return refuse(
            "L = inf (the delay-differential limit, no transition table) has its map in "
            f"(D, theta) only: give x and y as D and theta, got {xname} and {yname}"
        )
    if seeds is not None:
        return refuse(
            "seeds: the grid lines of the continuation (a transition table); L = inf's "
            "branches are explicit: leave seeds out"
        )
    o = model.numbers
    for name in ("D", "theta"):
        if o[name] is not None:
            return refuse(f"map varies {name}: leave --{name} out (it has {o[name]})")
    rates = {"mu": o["mu"], "lam": o["lam"]}
    fixed_json = {}
    for name, v in dict(fixed or {}).items():
        if name not in rates:
            return refuse(
                f"--fixed {name}: not a free parameter of {model.name}: use one of "
                + ", ".join(n for n, val in rates.items() if val is None)
                if name not in ("D", "theta")
                else f"--fixed {name}: {name} is an axis of the map; leave it out"
            )
        if rates[name] is not None:
            return refuse(
                f"--fixed {name}: {name} already has a value ({rates[name]}) in the model"
            )
        value = as_parameter(name, v, positive=True)
        if not value.is_Rational:
            return refuse(f"--fixed {name}: give a number, got {v!r}")
        rates[name] = Fraction(int(value.p), int(value.q))
        fixed_json[name] = str(value)
    missing = [n for n, v in rates.items() if v is None]
    if missing:
        return refuse(f"give numbers for {', '.join(missing)} (every other parameter)")
    if any(not isinstance(v, Fraction) for v in rates.values()):
        return None
    mu, lam = rates["mu"], rates["lam"]
    bx = _box_range(xname, xlo, xhi, "x")
    by = _box_range(yname, ylo, yhi, "y")
    (Dlo, Dhi), (tlo, thi) = (bx, by) if xname == "D" else (by, bx)
    if not Dlo > 0:
        return refuse(
            "the characteristic function is undefined at D = 0 (a rate divides by it): give a "
            "box with D > 0"
            if Dhi > 0
            else f"the range of D: {Dlo}:{Dhi} is below the domain (D > 0): give D > 0"
        )
    L = math.inf if inf else int(model.phases)
    Dlo_q, Dhi_q = (Fraction(int(v.p), int(v.q)) for v in (Dlo, Dhi))
    tlo_q, thi_q = (Fraction(int(v.p), int(v.q)) for v in (tlo, thi))
    notes = []
    with mpmath.workdps(dps + GUARD):
        branches = _branches(L, mu, lam, Dhi_q, tlo_q, thi_q)
        check_budget(
            f"a stability map of {model.name} ({len(branches)} Hopf branches in the box, "
            f"{cells}x{cells} cells)",
            len(branches) * (GRID + cells + 2) * _T_POINT * (1 + dps / 50)
            + cells * cells * _T_CELL * (1 + len(branches))
            + min(cells * cells, 4 * (len(branches) + 2))
            * _T_ROOTS
            * (1 + (0 if inf else L / 100)),
            force=force,
            shrink="fewer --cells, a smaller theta range or fewer digits",
        )
        result = _build(model, L, mu, lam, branches, (xname, yname), (Dlo_q, Dhi_q),
                        (tlo_q, thi_q), dps, cells, notes)  # fmt: skip
        return _assemble(model, L, mu, lam, result, (xname, bx), (yname, by), fixed_json, dps,
                         cells, notes, bautin)  # fmt: skip


def _branches(L, mu, lam, Dhi, tlo, thi):
    """The branches that can enter the theta range (their least ``|theta|`` below it)."""
    out = []
    top = {1: _mpf(thi) if thi > 0 else None, -1: -_mpf(tlo) if tlo < 0 else None}
    Dm = _mpf(Dhi)
    n = 1
    while math.inf == L or n < (L + 1) / 2:
        b = _Branch(L, mu, lam, n)
        bound = top[b.sign]
        if bound is not None:
            if b.least_modulus(Dm) > bound:
                # moduli grow with n at fixed sign: no later branch of this sign enters
                top[b.sign] = None
            else:
                out.append(b)
        if top[1] is None and top[-1] is None:
            break
        n += 1
        if n > 10**5:  # pragma: no cover - the moduli grow like n pi / D
            raise VerificationError("too many Hopf branches in the box")
    return out


def _grid(Dlo: Fraction, Dhi: Fraction, extra, count=GRID):
    """``count`` log-spaced exact delays from Dlo to Dhi (short decimals: the float grid
    printed to 12 digits, read back exactly), plus ``extra``."""
    a, b = math.log(Dlo), math.log(Dhi)
    out = {Dlo, Dhi}
    for k in range(1, count - 1):
        out.add(Fraction(f"{math.exp(a + (b - a) * k / (count - 1)):.12g}"))
    for e in extra:
        if Dlo < e < Dhi:
            out.add(e)
    return sorted(v for v in out if Dlo <= v <= Dhi)


def _build(model, L, mu, lam, branches, names, Dbox, tbox, dps, cells, notes):
    Dlo, Dhi = Dbox
    tlo, thi = tbox
    tl, th = _mpf(tlo), _mpf(thi)
    curves = []  # (kind, [(D, theta, omega)], ends), in (D, theta) order
    failed = 0
    specials = []
    for b in branches:
        t = b.turning()
        Dstar = Fraction(L) / mu if t is not None else None
        grid = _grid(Dlo, Dhi, [Dstar] if Dstar is not None else [])
        pts = [(Dq, *p) for Dq, p in zip(grid, b.points(grid, dps))]
        if t is not None and Dlo <= Dstar <= Dhi and tl <= t[1] <= th:
            specials.append(
                {"type": "turning_y", "x": t[0], "y": t[1], "omega": t[2], "factor": FACTOR,
                 "kind": "hopf", "certified": True, "branch": b.n}
            )  # fmt: skip
        for piece in _clip(b, pts, tl, th, dps):
            if len(piece) < GRID // 4:  # a short arc of the box: its own grid
                a, z = piece[0][0], piece[-1][0]
                more = [d for d in _grid(a, z, [], GRID // 4) if a < d < z]
                piece += [(d, *p) for d, p in zip(more, b.points(more, dps)) if tl <= p[1] <= th]
                piece.sort(key=lambda p: p[0])
            good = [p for p in piece if p[4]]
            failed += len(piece) - len(good)
            if len(good) >= 2:
                curves.append(("hopf", [p[1:4] for p in good], ("box edge", "box edge"), b))
    if failed:
        notes.append(f"{failed} branch points could not be certified and were left out")
    fold = -_mpf(mu) / _mpf(lam)
    if tl <= fold <= th:
        grid = _grid(Dlo, Dhi, [])
        curves.append(
            ("fold", [(_mpf(d), fold, mpmath.mpf(0)) for d in grid], ("box edge", "box edge"), None)
        )
    if math.inf == L and branches:
        notes.append(
            "L = inf: theta_n(D) is strictly monotone in D on every branch (no turning point); "
            "branch 1 decreases to mu/lam as D -> inf, never attained"
        )
    return curves, specials, branches


def _clip(b, pts, tl, th, dps):
    """The pieces of a branch's polyline inside ``tl <= theta <= th``, each ended on the edge
    it leaves by (the crossing solved in D, to ``dps + 5`` digits, then certified)."""
    pieces, cur = [], []
    for i, p in enumerate(pts):
        inside = tl <= p[2] <= th
        if i and (tl <= pts[i - 1][2] <= th) != inside:
            prev = pts[i - 1]
            edge = th if (p[2] > th or prev[2] > th) else tl
            e = _edge_point(b, prev, p, edge, dps)
            if e is not None:
                cur.append(e)
            if not inside:
                pieces.append(cur)
                cur = []
        if inside:
            cur.append(p)
    if cur:
        pieces.append(cur)
    return [c for c in pieces if c]


def _edge_point(b, pa, pb, edge, dps):
    """The branch point with ``theta = edge`` between the grid points ``pa``, ``pb``."""
    lo, hi = pa[1], pb[1]
    flo = pa[2] - edge
    w = pa[3]
    for _ in range(4 * mpmath.mp.prec):
        mid = (lo + hi) / 2 if (hi / lo) < 2 else mpmath.sqrt(lo * hi)
        w, f = b.solve(mid, w)
        f -= edge
        if (f < 0) == (flo < 0):
            lo, flo = mid, f
        else:
            hi = mid
        if hi - lo <= mpmath.mpf(10) ** (-(dps + 6)) * hi:
            break
    Dq = _short_fraction((lo + hi) / 2, dps + 5)
    return (Dq, *b.points([Dq], dps)[0])


def _assemble(model, L, mu, lam, built, X, Y, fixed_json, dps, cells, notes, bautin):
    """The :class:`StabilityMap` record: curves and special points in the axes' order, the
    cell counts by the branch order, regions, each region's count checked by the roots."""
    from symdelay.analysis.map_core import MapCurve, _regions, cell_centres, map_record

    curves, specials, branches = built
    (xname, (xlo, xhi)), (yname, (ylo, yhi)) = X, Y
    swap = xname != "D"

    def order(p):
        return (p[1], p[0], *p[2:]) if swap else tuple(p)

    out_curves = [MapCurve(c[0], FACTOR, tuple(order(p) for p in c[1]), c[2]) for c in curves]
    out_specials = []
    for s in specials:
        s = dict(s)
        if swap:  # an extremum in theta is a turning point in x when theta is the x axis
            s["x"], s["y"] = s["y"], s["x"]
            s["type"] = {"turning_y": "turning_x"}.get(s["type"], s["type"])
        s.pop("branch", None)
        out_specials.append(s)
    out_specials.sort(key=lambda s: (s["type"], float(s["x"]), float(s["y"])))

    cx, cy = cell_centres(xlo, xhi, cells), cell_centres(ylo, yhi, cells)
    fx, fy = [_frac(a) for a in cx], [_frac(b) for b in cy]
    counter = _Counter(mu, lam, branches, fy if swap else fx, dps)
    if swap:
        counts = [[counter(b, a) for a in fx] for b in fy]
    else:
        counts = [[counter(a, b) for a in fx] for b in fy]
    regions, labels = _regions(counts, cx, cy)
    for g in regions:
        a, b = g["point"]
        Dq, tq = (b, a) if swap else (a, b)
        got = _root_count(L, mu, lam, Dq, tq)
        if got != g["unstable_roots"]:
            raise VerificationError(
                f"the founding map counts {g['unstable_roots']} unstable roots at D = {Dq}, "
                f"theta = {tq} and the certified roots {got}"
            )
    if counter.ties:
        notes.append(
            f"{counter.ties} cell centres lie on a Hopf branch (to {dps} digits): counted with "
            "the pair on the axis (not unstable)"
        )
    if bautin:
        notes.append(
            "no Bautin point: l1 < 0 on every Hopf branch of the founding model "
            "(c1 = -(theta^3/4) r'(theta) |q_x|^2 and sign Re r'(theta) = sign theta at every "
            "crossing)"
        )
    nb = len(branches)
    inf = math.isinf(L)
    arg = "(i omega + mu) e^(i omega D)" if inf else "(i omega + mu)(i omega + gamma)^L"
    searched = (
        f"closed form: the {nb} Hopf branch{'es' if nb != 1 else ''} arg({arg}) = n pi that enter the theta range (every other branch has "
        f"|theta| above it), each solved at {GRID} log-spaced exact delays (plus D* = L/mu and "
        "the box edges), and the fold line lam theta = -mu; regions from the branch order at "
        f"the centres of {cells}x{cells} cells, each region's count checked by the certified "
        "roots at its point"
    )
    on = [c[3] for c in curves]  # the branch of each curve (None: the fold line)
    return map_record(
        model,
        (xname, xlo, xhi),
        (yname, ylo, yhi),
        fixed_json,
        dps,
        out_curves,
        out_specials,
        (counts, regions, labels),
        searched,
        notes,
        "closed form: the founding model's explicit Hopf branches (Newton in mpmath, proved "
        "by Arb), turning points D* = L/mu in closed form, counts by the branch order checked "
        "by the certified roots",
        lambda result, x, y: _crossings(result, mu, lam, branches, on, dps, x, y),
    )


def _frac(v) -> Fraction:
    v = sp.Rational(v)
    return Fraction(int(v.p), int(v.q))


class _Counter:
    """The unstable count at an exact ``(D, theta)`` by the branch order (module docstring)."""

    def __init__(self, mu, lam, branches, columns, dps):
        self.mu, self.lam, self.branches, self.dps = mu, lam, branches, dps
        self.ties = 0
        # (omega_n(D), theta_n(D)) at every column's D in doubles, all at once; theta_n at
        # the working precision (cached) only beside a branch
        self.floats = {(b.n, Dq): f for b in branches for Dq, f in zip(columns, b.omegas(columns))}
        self.exact = {}

    def __call__(self, Dq, tq):
        if tq == 0:
            return 0
        sign = 1 if tq > 0 else -1
        tf = float(tq)
        n = 1 if sign < 0 and self.lam * tq < -self.mu else 0
        for b in self.branches:
            if b.sign != sign:
                continue
            f = self.floats[b.n, Dq]
            d = None if f is None else (tf - f[1]) * sign
            if d is not None and abs(d) > 1e-9 * abs(tf):  # far from the branch: doubles decide
                n += 2 if d > 0 else 0
                continue
            if (b.n, Dq) not in self.exact:
                w0 = None if f is None else mpmath.mpf(f[0])
                self.exact[b.n, Dq] = b.solve(_mpf(Dq), w0)[1]
            v = self.exact[b.n, Dq]
            t = _mpf(tq)
            d = (t - v) * sign
            if abs(d) <= mpmath.mpf(10) ** (-self.dps) * abs(t):
                self.ties += 1
            elif d > 0:
                n += 2
        return n


def _root_count(L, mu, lam, Dq, tq) -> int:
    """The unstable count of the founding model at ``(D, theta)``, independent of the branch
    order: finite L, the exact Routh count of ``(r + mu)(r + gamma)^L + lam theta gamma^L``
    (the other factors, ``r + mu`` and ``(r + gamma)^L``, have no root in ``Re r > 0``);
    L = inf (or a zero in the Routh array's first column), the certified roots."""
    from symdelay.analysis.roots import roots
    from symdelay.analysis.stability_map import _routh_rhp
    from symdelay.models.erlang.founding import FoundingModel

    if math.inf != L:
        g = flint.fmpq(L) / flint.fmpq(Dq.numerator, Dq.denominator)
        m = flint.fmpq(mu.numerator, mu.denominator)
        k = flint.fmpq(lam.numerator, lam.denominator) * flint.fmpq(tq.numerator, tq.denominator)
        p = flint.fmpq_poly([m, 1]) * flint.fmpq_poly([g, 1]) ** L + k * g**L
        got = _routh_rhp(list(reversed(p.coeffs())))
        if got is not None:
            return got

    m = FoundingModel(
        L="inf" if math.inf == L else L, mu=mu, lam=lam, theta=sp.Rational(tq), D=sp.Rational(Dq)
    )
    return roots(m, dps=15).unstable_count


def _crossings(result, mu, lam, branches, on, dps, x=None, y=None):
    """:meth:`StabilityMap.crossings` of the founding map: on ``D = value`` each branch's
    theta (inside the theta range); on ``theta = value`` every D where a branch (``on``: the
    branch of each curve) has it."""
    from symdelay.core.params import as_parameter

    swap = result.x[0] != "D"
    on_D = (x is not None) != swap
    value = as_parameter("value", x if x is not None else y, positive=False)
    q = _frac(value)
    out = []
    with mpmath.workdps(dps + GUARD):
        tl, th = (_mpf(_frac(v)) for v in (result.y[1:] if not swap else result.x[1:]))
        fold = -_mpf(mu) / _mpf(lam)
        if on_D:
            if not q > 0:
                return []
            for b in branches:
                ((_, thv, w, ok),) = b.points([q], dps)
                if tl <= thv <= th:
                    out.append((thv, w, "hopf", FACTOR, ok))
            if tl <= fold <= th:
                out.append((fold, mpmath.mpf(0), "fold", FACTOR, True))
        else:
            tv = _mpf(q)
            for c, b in zip(result.curves, on):
                if b is None:
                    continue
                P = [(p[1], p[0], p[2]) if swap else p for p in c.points]
                for pa, pb in itertools.pairwise(P):
                    if (pa[1] - tv) * (pb[1] - tv) > 0 or pa[1] == pb[1]:
                        continue
                    e = _edge_point(b, (None, pa[0], pa[1], pa[2]), (None, pb[0], pb[1], pb[2]),
                                    tv, dps)  # fmt: skip
                    if all(abs(e[1] - o[0]) > mpmath.mpf(10) ** (-dps) * e[1] for o in out):
                        out.append((e[1], e[3], "hopf", FACTOR, e[4]))
    out.sort(key=lambda t: t[0])
    return out
