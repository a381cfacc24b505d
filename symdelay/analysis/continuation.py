"""Branches of periodic orbits of a model's fluid equations: orthogonal collocation,
pseudo-arclength continuation in one parameter, Floquet multipliers and special points. A
transition table's fluid ODE is below; a delay model's equations are collocated on the
periodic profile by :mod:`symdelay.analysis.dbvp` (its first orbit from the critical
eigenvector of ``Delta(i omega)``, its multipliers from the discretised monodromy operator),
and continued by the same steps, tests and locators.

The orbit ``u(t)``, ``t`` in ``[0, 1]`` (time scaled by the period ``T``), solves the
periodic boundary value problem ``u' = T f(u, p)``, ``u(0) = u(1)``. It is a continuous
piecewise polynomial of degree ``m`` (``degree``, 4 by default) on ``N`` mesh intervals
(``intervals``), each given by its values at ``m + 1`` equispaced nodes (the last node of an
interval is the first of the next, the last of the mesh the first: periodicity is built in),
collocated at the ``m`` Gauss--Legendre points of each interval (de Boor & Swartz; AUTO and
MatCont do the same). The phase is fixed by the integral condition
``int <u, u_ref'> dt = 0`` against the previous orbit (AUTO, MatCont), and a step of
pseudo-arclength ``int <u - u_0, u_0'> + (T - T_0) T_0' + (p - p_0) p_0' = ds`` closes the
system, solved by Newton's method with the sparse Jacobian (SciPy ``splu``; its factors kept
while the chord iteration contracts fast); the tangent is the solution of the same bordered
system at the new orbit (Keller; refined from those factors), turned to the secant of the
step, and a step is halved where the tangent turns by more than 25 degrees. The first orbit
at a Hopf point is the normal form's: the critical eigenvector scaled to the amplitude
``c sqrt|p - p_c|`` on the side where the cycles live. Every three steps the mesh is adapted:
the intervals equidistribute ``|u^(m+1)|^(1/(m+1))``, estimated from the jumps of the
piecewise constant ``u^(m)`` (de Boor; AUTO's adaptation), and the orbit is interpolated onto
the new mesh.

Floquet multipliers. The collocation of the variational equation ``v' = T J(u(t)) v`` on one
interval maps the value at its left node to the value at its right node (the interior nodes
eliminated); the product over the mesh is the monodromy matrix (AUTO's condensation). It is
formed twice, on the mesh and on the mesh of every other point (the orbit's polynomials
evaluated at its Gauss points); the multipliers of the first are reported, each with the
error bound of :func:`symdelay.analysis.cycles.decide_stability`'s contract: its change
between the two meshes (the coarse mesh's error, about ``2^(2m)`` times the other's) plus the
trivial multiplier's distance from 1 plus the rounding of the eigenvalue solve. The trivial
multiplier is the one whose eigenvector is the flow direction.

Special points (test functions on consecutive orbits, then located by the Illinois variant of
regula falsi in the arclength from the last orbit before the change): LPC, the fold of
cycles, where the parameter component of the tangent changes sign; PD, a real multiplier
crossing -1 (``prod (1 + rho_i)`` over the non-trivial multipliers changes sign); NS, a
complex pair crossing the unit circle (``prod_{i<j} (rho_i rho_j - 1)`` changes sign, a
pair of complex multipliers on the circle at the located point; a real pair with product 1,
a neutral saddle, is not reported); and BPC, a real multiplier crossing +1 where the
parameter does not turn (a branch point of cycles: in a symmetric model, where the
symmetric cycle loses its symmetry), which the three kinds above would leave unexplained.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from symdelay.analysis.bvp import (
    Collocation,
    NewtonFailed,
    Orbit,
    OrbitField,
    PeriodicBVP,
    amplitude,
)
from symdelay.analysis.entry import entry_doc, specialised
from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.core.result import Result

__all__ = [
    "BranchPoint",
    "CycleBranch",
    "SpecialPoint",
    "cycles",
    "MAX_UNKNOWNS",
    "MAX_POINTS",
    "MAX_SWITCH_LEVELS",
    "MAX_SWITCHED",
]

#: The largest collocation system accepted (``intervals * degree * states``).
MAX_UNKNOWNS = 200_000
#: The largest number of orbits on one branch.
MAX_POINTS = 5_000
#: The most levels of period doubling followed (``switch``), and of doubled branches in all.
MAX_SWITCH_LEVELS = 4
MAX_SWITCHED = 16
#: A state below ``-DOMAIN_TOL * (1 + max |u|)`` (beyond the discretisation error) has left
#: the model's domain.
DOMAIN_TOL = 1e-6


# ------------------------------------------------------------------------------ records
@dataclass(frozen=True, eq=False)
class BranchPoint(Result):
    """One orbit of a branch: the parameter ``value``, the amplitude of the observed
    imbalance ``x`` (half its peak-to-peak), the period, the Floquet multipliers (sorted by
    modulus, the trivial one at ``trivial_index``) with their error bounds, the stability
    decision (``True``, ``False``, ``None`` undecided with ``stability_reason``) and the orbit
    (``t`` in units of time over one period, ``y`` rows = states); ``mesh_error``: the
    estimated largest error of the orbit's polynomials between the mesh nodes
    (:meth:`Collocation.error_estimate`); ``essential_radius``: for a neutral equation,
    the radius of the monodromy's essential spectrum (its difference operator's; None for a
    retarded one)."""

    value: float
    amplitude: float
    period: float
    multipliers: np.ndarray
    multiplier_errors: np.ndarray
    trivial_index: int
    stable: bool | None
    stability_reason: str
    t: np.ndarray = field(repr=False, default=None)
    y: np.ndarray = field(repr=False, default=None)
    mesh_error: float = math.nan
    model_name: str | None = None
    essential_radius: float | None = None

    @property
    def nontrivial(self) -> np.ndarray:
        return np.delete(self.multipliers, self.trivial_index)

    def record(self) -> dict:
        nt = self.nontrivial
        out = {
            "value": repr(float(self.value)),
            "amplitude": repr(float(self.amplitude)),
            "period": repr(float(self.period)),
            "stable": None if self.stable is None else bool(self.stable),
            "stability_reason": self.stability_reason,
            "max_multiplier": repr(float(np.max(np.abs(nt)))) if nt.size else None,
            "mesh_error": repr(float(self.mesh_error)),
            "floquet_multipliers": [
                {
                    "re": repr(float(m.real)),
                    "im": repr(float(m.imag)),
                    "abs": repr(float(abs(m))),
                    "error": repr(float(e)),
                    "trivial": i == self.trivial_index,
                }
                for i, (m, e) in enumerate(zip(self.multipliers, self.multiplier_errors))
            ],
        }
        if self.essential_radius is not None:  # a neutral equation's difference operator
            out["essential_radius"] = repr(float(self.essential_radius))
        return out


@dataclass(frozen=True, eq=False)
class SpecialPoint(Result):
    """A special point located on the branch: ``kind`` LPC (fold of cycles), PD (period
    doubling), NS (Neimark--Sacker) or BPC (a multiplier through +1 without a fold); ``value`` of the parameter, the orbit's amplitude and
    period, the critical multiplier(s), whether the location converged and the final
    test-function value; ``between``: the indices of the branch's orbits it lies between."""

    kind: str
    value: float
    amplitude: float
    period: float
    multipliers: tuple
    located: bool
    test_value: float
    between: tuple
    note: str = ""
    model_name: str | None = None
    #: the located orbit (a branch switch at a PD starts from it); not in the record
    orbit: object = field(default=None, repr=False, compare=False)

    def record(self) -> dict:
        return {
            "kind": self.kind,
            "value": repr(float(self.value)),
            "amplitude": repr(float(self.amplitude)),
            "period": repr(float(self.period)),
            "critical_multipliers": [
                {"re": repr(float(m.real)), "im": repr(float(m.imag)), "abs": repr(float(abs(m)))}
                for m in self.multipliers
            ],
            "located": bool(self.located),
            "test_value": repr(float(self.test_value)),
            "between_points": list(self.between),
            "note": self.note,
        }


@dataclass(frozen=True, eq=False)
class CycleBranch(Result):
    """A branch of periodic orbits continued in ``param`` over ``range``: its orbits
    (``points``, in the order of the continuation), its special points, where it started
    (``start``: the Hopf point or a given cycle), why it stopped (``stop``) and the
    discretisation (``intervals``, ``degree``, mesh adapted or not)."""

    param: str
    range: tuple
    points: list
    special_points: list
    start: dict
    stop: str
    stop_reason: str
    intervals: int
    degree: int
    adapt: bool
    seconds: float
    model_name: str | None = None
    #: what the amplitude is of (``q1 - q2``; the first state of a model without symmetry)
    observed: str = ""
    #: the branches of period-doubled cycles switched to at the located PDs (``switch``)
    doubled: tuple = ()
    #: the levels of period doubling asked for (``switch``)
    switch: int = 0
    #: the orbits landed at the values asked by :func:`symdelay.analysis.cycles.limit_cycle`
    landed: dict = field(default_factory=dict, repr=False)

    def arrays(self):
        """``(value, amplitude, period, stable)`` over the branch (``stable``: 1.0, 0.0 or
        NaN for undecided)."""
        p = np.array([c.value for c in self.points])
        a = np.array([c.amplitude for c in self.points])
        T = np.array([c.period for c in self.points])
        s = np.array([np.nan if c.stable is None else float(c.stable) for c in self.points])
        return p, a, T, s

    def record(self) -> dict:
        lo, hi = self.range
        return {
            "param": self.param,
            "range": [repr(float(lo)), repr(float(hi))],
            "start": self.start,
            "branch": [c.record() for c in self.points],
            "special_points": [s.record() for s in self.special_points],
            "stop": self.stop,
            "stop_reason": self.stop_reason,
            "kept": len(self.points),
            "observed": self.observed,
            "switch": self.switch,
            "doubled_branches": [b.record() for b in self.doubled],
            "method": (
                f"orthogonal collocation on Gauss-Legendre points (degree {self.degree}, "
                f"{self.intervals} mesh intervals"
                + (", adapted every 3 steps" if self.adapt else ", fixed uniform mesh")
                + "), pseudo-arclength continuation, Floquet multipliers from the "
                "collocation monodromy (error: the mesh against every other mesh point)"
            ),
        }

    def table(self):
        """``(header, rows, caption)``: one row per orbit (a notebook shows it)."""
        from symdelay.analysis.floquet import stability_word

        rows = [
            [
                f"{c.value:.10g}",
                f"{c.amplitude:.9g}",
                f"{c.period:.9g}",
                f"{float(np.max(np.abs(c.nontrivial))):.4g}" if c.nontrivial.size else "-",
                stability_word(c.stable),
            ]
            for c in self.points
        ]
        kinds = ", ".join(f"{s.kind} at {s.value:.10g}" for s in self.special_points)
        caption = f"{len(self.points)} cycles; special points: {kinds or 'none'}; {self.stop}"
        return [self.param, "amplitude_x", "period", "max|rho|", "stable"], rows, caption

    def text(self) -> str:
        """The branch as a table (every orbit), its special points and why it stopped."""
        from symdelay.analysis.floquet import stability_word
        from symdelay.core.numbers import format_number, text_table

        rows = [
            [
                format_number(c.value, 10),
                format_number(c.amplitude, 9),
                format_number(c.period, 9),
                format_number(float(np.max(np.abs(c.nontrivial))), 4) if c.nontrivial.size else "-",
                stability_word(c.stable),
            ]
            for c in self.points
        ]
        p = self.param
        lines = [text_table([p, "amplitude_x", "period", "max|rho|", "stable"], rows)]
        if self.special_points:
            lines.append("special points:")
            for s in self.special_points:
                m = ", ".join(
                    f"{z.real:.6g}{z.imag:+.6g}i" if abs(z.imag) > 0 else f"{z.real:.6g}"
                    for z in s.multipliers
                )
                lines.append(
                    f"  {s.kind} at {p} = {format_number(s.value, 10)}, amplitude "
                    f"{format_number(s.amplitude, 8)}, period {format_number(s.period, 8)}"
                    + (f", multiplier(s) {m}" if m else "")
                    + ("" if s.located else " (location not converged: " + s.note + ")")
                )
        else:
            lines.append("special points: none on the branch")
        err = max((c.mesh_error for c in self.points), default=math.nan)
        lines.append(
            f"(collocation of {self.intervals} intervals, degree {self.degree}: the orbits' "
            f"estimated largest error between the nodes is {err:.1g}, the amplitude's about "
            "that; more intervals for more digits)"
        )
        lines.append(f"stopped: {self.stop} ({self.stop_reason}); kept {len(self.points)} orbits")
        lines.append(f"start: {self.start['kind']} at {p} = {self.start['value']}")
        if self.switch and not self.doubled:
            lines.append("period doubling: no located PD on the branch to switch at")
        for b in self.doubled:
            s = b.start
            lines.append("")
            lines.append(
                f"period-doubled branch from the PD at {p} = {float(s['value']):.10g} (period "
                f"{float(s['period']):.8g} doubled):"
            )
            lines.append(b.text())
        return "\n".join(lines)

    def latex(self) -> str:
        sp_ = ", ".join(f"\\mathrm{{{s.kind}}}\\ {s.value:.8g}" for s in self.special_points)
        name = sp.latex(sp.Symbol(self.param))
        return (
            rf"\text{{{len(self.points)} cycles in }} {name} \in [{self.range[0]:g}, "
            rf"{self.range[1]:g}]" + (rf";\ {sp_}" if sp_ else "")
        )


def _analyse(solver: PeriodicBVP, st: Orbit) -> BranchPoint:
    """The record of the orbit ``st``: multipliers, stability, amplitude, the orbit."""
    from symdelay.analysis.floquet import decide_stability

    coll, U, T, p = st.coll, st.U, st.T, st.p
    mults, k, errs = solver.floquet(coll, U, T, p)
    stable, why = decide_stability(mults, errs, k)
    ess = solver.essential_radius(coll, U, T, p) if hasattr(solver, "essential_radius") else None
    if ess is not None:
        stable, why = _with_essential(stable, why, *ess)
    amp = amplitude(coll, U @ solver.F.weights)
    tt = np.linspace(0.0, 1.0, 401)
    return BranchPoint(
        float(p),
        amp,
        float(T),
        mults,
        errs,
        k,
        stable,
        why,
        tt * T,
        coll.evaluate(U, tt).T,
        coll.error_estimate(U),
        solver.model_name,
        None if ess is None else ess[0],
    )


def _with_essential(stable, why, radius, err):
    """The stability of a neutral equation's cycle: its multipliers' verdict and the
    essential spectrum of the difference operator (radius ``radius`` +- ``err``): stable
    only when that radius is below 1 too."""
    if radius > 1 + err:
        return False, (
            f"the essential spectrum of the neutral difference operator has radius "
            f"{radius:.6g} > 1 (the difference operator is unstable along the cycle)"
        )
    if not radius < 1 - err:
        return None, (
            f"undecided: the essential spectrum of the neutral difference operator has "
            f"radius {radius:.6g}, within its error {err:.2g} of 1"
        )
    return stable, (
        f"{why}; the essential spectrum of the neutral difference operator has radius "
        f"{radius:.6g} < 1"
    )


# --------------------------------------------------------------------- special points
def _sign_pd(mults) -> float:
    """The sign of ``prod (1 + rho)`` over the non-trivial multipliers (complex pairs give
    ``|1 + rho|^2 > 0``: only the real ones count)."""
    s = 1.0
    for z in mults:
        if z.imag == 0:
            s *= np.sign(1 + z.real) or 1.0
    return s


def _sign_ns(mults) -> float:
    """The sign of ``prod_{i<j} (rho_i rho_j - 1)`` (a real number: the factors come in
    conjugate pairs), times ``(-1)^(k(k-1)/2)`` for ``k`` multipliers: the same changes
    along a branch of an ODE (``k`` fixed), and for a delay equation, whose discretised
    monodromy reports a varying number of small multipliers, the sign the product would
    have with the ones left out counted as 0 (each of their pairs a factor -1)."""
    k = len(mults)
    ph = -1.0 + 0j if (k * (k - 1) // 2) % 2 else 1.0 + 0j
    for i in range(len(mults)):
        v = mults[i] * mults[i + 1 :] - 1
        v = v[np.abs(v) > 0]
        ph *= np.prod(v / np.abs(v))
    return float(np.sign(ph.real)) or 1.0


def _pd_value(mults) -> float:
    real = [z.real for z in mults if abs(z.imag) <= 1e-9 * max(1.0, abs(z))]
    if not real:
        return math.nan
    return 1 + min(real, key=lambda x: abs(x + 1))


def _ns_value(mults) -> float:
    cx = [z for z in mults if z.imag > 1e-9 * max(1.0, abs(z))]
    if not cx:
        return math.nan
    return abs(min(cx, key=lambda z: abs(abs(z) - 1))) - 1


def _sign_one(mults) -> float:
    """``(-1)^(number of real non-trivial multipliers above 1)``: it changes where one
    crosses +1, as the sign of ``prod (rho - 1)`` over the real ones does for a fixed
    number of multipliers (an ODE), and does not change when a small multiplier of a delay
    equation's discretised monodromy is left out."""
    s = 1.0
    for z in mults:
        if z.imag == 0 and z.real > 1:
            s = -s
    return s


def _one_value(mults) -> float:
    real = [z.real for z in mults if abs(z.imag) <= 1e-9 * max(1.0, abs(z))]
    if not real:
        return math.nan
    return min(real, key=lambda x: abs(x - 1)) - 1


def _tests(st: Orbit) -> dict:
    nt = st.point.nontrivial
    return {
        "LPC": float(np.sign(st.tangent[2])),
        "BPC": _sign_one(nt),
        "PD": _sign_pd(nt),
        "NS": _sign_ns(nt),
    }


# ---------------------------------------------------------------------- continuation
class _Stop(Exception):
    def __init__(self, kind, reason):
        super().__init__(reason)
        self.kind, self.reason = kind, reason


@dataclass
class _Settings:
    lo: float
    hi: float
    ds: float
    ds_min: float
    ds_max: float
    max_points: int
    adapt: bool
    targets: tuple = ()  # values of the parameter where an orbit is landed exactly
    landed: dict = field(default_factory=dict)


def _step(solver, a: Orbit, ds):
    """The orbit at arclength ``ds`` from ``a``, its tangent (the bordered system at the
    orbit, solved by refinement from the correction's factors, turned to the secant from
    ``a``: the direction the branch is followed) and its record."""
    tU, tT, tp = a.tangent
    U, T, p, it = solver.correct(
        a.coll, a.U + ds * tU, a.T + ds * tT, a.p + ds * tp, a.U, step=(a, a.tangent, ds)
    )
    st = Orbit(a.coll, U, T, p, iterations=it)
    st.tangent = solver.tangent(
        a.coll, U, T, p, a.tangent, orient=(U - a.U, T - a.T, p - a.p), reuse=True
    )
    st.point = _analyse(solver, st)
    return st


def _run_branch(solver: PeriodicBVP, first: Orbit, cfg: _Settings, param: str):
    pts = [first]
    specials = []
    ds = cfg.ds
    amp0 = amax = first.point.amplitude
    period0 = first.T
    stop = None
    while stop is None:
        if len(pts) >= cfg.max_points:
            stop = _Stop("budget", f"the branch reached max_points = {cfg.max_points} orbits")
            break
        a = pts[-1]
        if cfg.adapt and len(pts) % 3 == 0:
            a = _adapt(solver, a)
            pts[-1] = a
        why = ""
        while True:
            try:
                st = _step(solver, a, ds)
                break
            except (NewtonFailed, np.linalg.LinAlgError) as exc:
                why = str(exc)
                ds /= 2
                if ds < cfg.ds_min:
                    stop = _Stop(
                        "step too small",
                        f"Newton failed with steps down to {ds * 2:.3g} after {param} = "
                        f"{a.p:.10g} ({why})",
                    )
                    break
        if stop is not None:
            break
        if not cfg.lo <= st.p <= cfg.hi:
            bound = cfg.hi if st.p > cfg.hi else cfg.lo
            last = _land(solver, a, st, bound)
            if last is not None and _in_domain(last):
                _detect(solver, pts, last, specials)
                _land_targets(solver, a, last, cfg)
                pts.append(last)
            stop = _Stop("left the range", f"the branch reached {param} = {bound:.10g}")
            break
        if not _in_domain(st):
            k = int(np.argmin(np.min(st.U, axis=0)))
            stop = _Stop(
                "left the domain",
                f"state {solver.F.names[k]} would be negative on the orbit after {param} = "
                f"{a.p:.10g} (that orbit not kept)",
            )
            break
        if st.point.amplitude < 1e-6 * amax:
            stop = _Stop(
                "ended at a Hopf point",
                f"the step from {param} = {a.p:.10g} (amplitude {a.point.amplitude:.3g}) "
                "converged to the equilibrium (not kept): the branch returns to a Hopf point",
            )
            break
        _detect(solver, pts, st, specials)
        _land_targets(solver, a, st, cfg)
        pts.append(st)
        turn = _cosine(a.coll, a.tangent, st.tangent)
        if turn < 0.9 or st.iterations >= 8:  # a sharp turn (a fold) or a hard correction
            ds = max(ds / 2, cfg.ds_min)
        elif st.iterations <= 4 and turn > 0.99:
            ds = min(ds * 1.5, cfg.ds_max)
        amax = max(amax, st.point.amplitude)
        if len(pts) > 3 and st.point.amplitude < 0.5 * min(amp0, 0.1 * amax):
            stop = _Stop(
                "ended at a Hopf point",
                f"the amplitude fell to {st.point.amplitude:.3g} near {param} = {st.p:.10g}: "
                "the branch returns to an equilibrium (a Hopf point)",
            )
        elif 50 * period0 < st.T:
            stop = _Stop(
                "period unbounded",
                f"the period grew to {st.T:.4g} (50 times the first): a homoclinic orbit or "
                "a relay limit is approached",
            )
    return pts, specials, stop


def _land_targets(solver, a: Orbit, b: Orbit, cfg: _Settings) -> None:
    """The orbits at the targets between ``a`` and ``b`` (the first passage of each),
    into ``cfg.landed``."""
    lo, hi = sorted((a.p, b.p))
    for v in cfg.targets:
        if v in cfg.landed or not lo <= v <= hi:
            continue
        if v == b.p:
            cfg.landed[v] = b
            continue
        st = _land(solver, a, b, v)
        if st is not None:
            cfg.landed[v] = st


def _cosine(coll, t1, t2) -> float:
    """The cosine of the angle between two unit tangents (the arclength inner product)."""
    return float(np.sum(coll.ip_weights(t1[0]) * t2[0]) + t1[1] * t2[1] + t1[2] * t2[2])


def _in_domain(st: Orbit) -> bool:
    """No state below zero by more than the orbit's discretisation error (ten times its
    estimate) plus :data:`DOMAIN_TOL` of its size."""
    err = st.coll.error_estimate(st.U)
    return float(np.min(st.U)) >= -(DOMAIN_TOL * (1 + float(np.max(np.abs(st.U)))) + 10 * err)


def _adapt(solver, a: Orbit) -> Orbit:
    """``a`` on an adapted mesh: the orbit and the tangent interpolated (the next
    correction solves the collocation equations on the new mesh)."""
    coll = a.coll
    mesh = coll.adapted_mesh(a.U)
    if np.allclose(mesh, coll.mesh, atol=1e-3 / coll.N):
        return a
    new = Collocation(coll.m, mesh)
    tn = new.node_times()
    U = coll.evaluate(a.U, tn)
    tU = coll.evaluate(a.tangent[0], tn)
    tT, tp = a.tangent[1], a.tangent[2]
    norm = math.sqrt(max(np.sum(new.ip_weights(tU) * tU) + tT**2 + tp**2, 1e-300))
    st = Orbit(new, U, a.T, a.p, (tU / norm, tT / norm, tp / norm), a.point, a.iterations)
    return st


def _land(solver, a: Orbit, b: Orbit, bound: float):
    """The orbit at ``p = bound`` (between ``a`` and ``b``), or None."""
    s = (bound - a.p) / (b.p - a.p)
    U = a.U + s * (b.U - a.U)
    T = a.T + s * (b.T - a.T)
    try:
        U, T, _, it = solver.correct(a.coll, U, T, bound, a.U, fixed_p=True)
        st = Orbit(a.coll, U, T, bound, iterations=it)
        st.tangent = solver.tangent(a.coll, U, T, bound, a.tangent)
        st.point = _analyse(solver, st)
    except (NewtonFailed, np.linalg.LinAlgError):
        return None
    return st


def _detect(solver, pts, st, specials):
    a = pts[-1]
    ta, tb = _tests(a), _tests(st)
    for kind in ("LPC", "BPC", "PD", "NS"):
        if kind == "BPC" and ta["LPC"] != tb["LPC"]:
            continue  # at a fold a multiplier passes +1 too: the LPC is that point
        if ta[kind] != tb[kind]:
            sp_ = _locate(solver, kind, a, st, len(pts) - 1)
            if sp_ is not None:
                specials.append(sp_)


def _locate(solver, kind, a: Orbit, b: Orbit, index: int):
    """The special point ``kind`` between ``a`` and ``b`` (the Illinois variant of regula
    falsi in the arclength from ``a``), or None (a neutral saddle for NS)."""
    tU, tT, tp = a.tangent
    gt = a.coll.ip_weights(tU)
    s_b = float(np.sum(gt * (b.U - a.U)) + tT * (b.T - a.T) + tp * (b.p - a.p))

    def value(st):
        if kind == "LPC":
            return float(st.tangent[2])
        nt = st.point.nontrivial
        return {"PD": _pd_value, "NS": _ns_value, "BPC": _one_value}[kind](nt)

    fa, fb = value(a), value(b)
    best = b
    lo, hi = 0.0, s_b
    located, note = False, ""
    if not (np.isfinite(fa) and np.isfinite(fb)) or np.sign(fa) == np.sign(fb):
        note = "the test function's continuous form does not change sign: bracket only"
    else:
        side = 0
        for _ in range(40):
            s = (lo * fb - hi * fa) / (fb - fa)
            if not lo < s < hi:
                s = (lo + hi) / 2
            try:
                st = _step(solver, a, s)
            except (NewtonFailed, np.linalg.LinAlgError) as exc:
                note = f"Newton failed inside the bracket ({exc})"
                break
            f = value(st)
            if not np.isfinite(f):
                note = "the critical multiplier left the bracket"
                break
            best = st
            if abs(f) < 1e-9:
                located = True
                break
            if (hi - lo) < 1e-10 * max(abs(s_b), 1e-300):
                # the bracket closed on a jump of the test function, not on a zero
                located = abs(f) < 1e-6
                note = "" if located else f"the test function jumps there (to {f:.3g})"
                break
            if np.sign(f) == np.sign(fa):
                lo, fa = s, f
                if side == -1:
                    fb /= 2
                side = -1
            else:
                hi, fb = s, f
                if side == 1:
                    fa /= 2
                side = 1
        else:
            note = "not converged in 40 iterations"
    if kind == "BPC" and not located:
        return None  # a real multiplier near 1 turned complex (beside a fold): no branch point
    nt = best.point.nontrivial
    if kind in ("LPC", "BPC"):
        crit = tuple(nt[np.argsort(np.abs(nt - 1))[:1]]) if nt.size else ()
    elif kind == "PD":
        crit = tuple(nt[np.argsort(np.abs(nt + 1))[:1]]) if nt.size else ()
    else:
        cx = [z for z in nt if z.imag > 1e-9 * max(1.0, abs(z))]
        if located and not cx:
            return None  # a real pair with product 1: a neutral saddle
        z = min(cx, key=lambda z: abs(abs(z) - 1)) if cx else None
        crit = () if z is None else (z, np.conj(z))
    return SpecialPoint(
        kind,
        float(best.p),
        float(best.point.amplitude),
        float(best.T),
        crit,
        located,
        float(value(best)),
        (index, index + 1),
        note,
        solver.model_name,
        orbit=best,
    )


# ----------------------------------------------------------------------------- entry
@entry_doc
def cycles(
    model,
    param: str = "theta",
    lo=None,
    hi=None,
    *,
    start=None,
    direction: int = 1,
    intervals: int = 20,
    degree: int = 4,
    max_points: int = 200,
    adapt: bool = True,
    step=None,
    max_step=None,
    switch: int = 0,
    force: bool = False,
    method: str = "auto",
    _targets=(),  # limit_cycle's values of param: the first orbit met at each is landed
) -> CycleBranch:
    """The branch of periodic orbits of ``model``'s fluid ODE continued in ``param`` over
    ``[lo, hi]``, from the Hopf point in that range (or from a given cycle), with each
    orbit's Floquet multipliers and stability and the special points on the branch (LPC:
    fold of cycles, PD: period doubling, NS: Neimark--Sacker; BPC: a multiplier through +1
    without a fold, a branch point of cycles).

    Orthogonal collocation on Gauss--Legendre points with an integral phase condition,
    pseudo-arclength continuation with step control and mesh adaptation, multipliers from
    the collocation's monodromy with error bounds (see
    :mod:`symdelay.analysis.continuation`). The first orbit at a Hopf point is the normal
    form's: the critical eigenvector scaled to the amplitude ``c sqrt|p - p_c|`` of the
    first Lyapunov coefficient (:class:`symdelay.analysis.normal_form.FirstLyapunov`), on
    the side where the cycles live; the Hopf points in the range are the ends of the
    instability windows of :func:`symdelay.analysis.window.window` (the lowest one starts
    the branch).

    Parameters
    ----------
    model : Model
        A transition table or a model with lags (retarded, or neutral with ``dot()`` read
        through one constant lag; a gamma lag of non-integer shape is refused) with a
        symmetry (the imbalance ``x`` observed), ``param`` free and a number for every
        other parameter. A neutral model's orbits carry the radius of the essential
        spectrum of the monodromy (``essential_radius``), part of their stability. A delay
        model's branch starts from the critical eigenvector of ``Delta(i omega)`` at the
        amplitude of the delay normal form's law (its ``start`` record has ``l1``,
        ``l1_radius``, the criticality and ``amplitude_coefficient`` from
        :func:`symdelay.analysis.dnormal.delay_hopf_fields`, and ``side_check``: the side
        the first corrected cycle lies on against the law's) and its multipliers are those
        of the discretised monodromy operator (:mod:`symdelay.analysis.dbvp`).
    param : str, default "theta"
        The parameter continued (any parameter of the model; ``D`` of an Erlang chain
        written with its rate ``gamma = L/D``).
    lo, hi : number or str
        The range of ``param`` (decimal text is read exactly); the branch stops where it
        leaves it.
    start : LimitCycle, BranchPoint or number, optional
        Start from this cycle (its ``theta`` or ``value`` the parameter's value, its orbit
        ``t``, ``y`` and period) instead of the Hopf point; a
        :class:`~symdelay.analysis.cycles.LimitCycle` is a cycle in ``theta``. A number (or
        decimal text) is a value of ``param``: the cycle the fluid path from the model's
        default start settles on there (:func:`symdelay.analysis.doubling.settled_cycle`;
        for a delay model the delay fluid path of :mod:`symdelay.analysis.dfluid`,
        :func:`symdelay.analysis.doubling.settled_delay_cycle`); the record's ``start`` has
        its ``laps`` and the fluid path's own period ``fluid_period``.
    direction : {1, -1}, default 1
        With ``start``: continue towards increasing (1) or decreasing (-1) ``param``. From a
        Hopf point the branch leaves it with growing amplitude.
    intervals : int, default 20
        Mesh intervals ``N`` (4..2000).
    degree : int, default 4
        Degree ``m`` of the collocation polynomials (2..7; ``m`` Gauss points per interval).
    max_points : int, default 200
        The most orbits on the branch (2 to :data:`MAX_POINTS`): the continuation stops there
        and says so.
    adapt : bool, default True
        Adapt the mesh every three steps (equidistributed error estimate).
    step : float, optional
        The first arclength step (default: from the first orbit's size).
    max_step : float, optional
        The largest arclength step (default: 5% of the range's width plus the orbit's
        size); the arclength norm is ``sqrt(int |u|^2 dt + T^2 + p^2)``.
    switch : int, default 0
        Levels of period doubling to follow (0 to :data:`MAX_SWITCH_LEVELS`): at every
        located PD of the branch the branch of doubled cycles is continued over the same
        range (:mod:`symdelay.analysis.doubling`: the cycle traversed twice plus the
        eigenfunction of the multiplier -1, on twice the mesh intervals), and so on for
        ``switch`` levels (a cascade: ``doubled`` of each branch, ``"doubled_branches"``
        in the record), each with up to ``max_points`` orbits; at most
        :data:`MAX_SWITCHED` branches in all.
    force : bool, default False
        Run even when the estimated cost is over the budget.
    method : {"auto", "generic", "specialised"}, default "auto"
        %(method)s The founding model at ``L = inf`` (no table of phases) answers through
        its family: the branch of its constant-action-delay table.

    Returns
    -------
    CycleBranch
        The orbits (parameter, amplitude of ``x``, period, Floquet multipliers with error
        bounds, stable: True, False or None when a multiplier is within its error of the
        unit circle), the special points, the start and why the continuation stopped.
    """
    from symdelay.core.budget import check_budget
    from symdelay.core.precision import one_blas_thread

    own = dict(start=start, direction=direction, intervals=intervals, degree=degree)
    own.update(max_points=max_points, adapt=adapt, step=step, max_step=max_step)
    own.update(switch=switch, force=force, _targets=_targets)
    fast = specialised(model, "cycles", method, param, lo, hi, **own)
    if fast is not None:
        return fast
    delay = bool(getattr(model, "lags", None))
    lo_v, hi_v = _range(param, lo, hi)
    intervals = _integer("intervals", intervals, 4, 2000)
    degree = _integer("degree", degree, 2, 7)
    max_points = _integer("max_points", max_points, 2, MAX_POINTS)
    switch = _integer("switch", switch, 0, MAX_SWITCH_LEVELS)
    if direction not in (1, -1):
        raise SymdelayInputError(f"direction must be 1 or -1, got {direction!r}")
    if delay:
        from symdelay.analysis.dbvp import DelayOrbitField

        fld = DelayOrbitField(model, param)
    else:
        fld = OrbitField(model, param)
    sym = fld.symbol
    dom = model.domains.get(sym, "positive" if param == "D" else "real")
    if dom in ("positive", "nonnegative") and not lo_v >= (0 if dom == "nonnegative" else 1e-300):
        raise SymdelayInputError(f"{param} is {dom} in {model.name}: give a range above 0")
    size = intervals * degree * fld.n
    if size > MAX_UNKNOWNS:
        raise SymdelayInputError(
            f"the collocation system has {size} unknowns (intervals x degree x {fld.n} states), "
            f"over the limit {MAX_UNKNOWNS}: fewer intervals or a lower degree"
        )
    nnz = len(fld.rows) + fld.n
    if delay:  # every look-back (and a window's quadrature nodes) adds a block per row
        nnz *= getattr(fld, "K", 1) + 8 * len(getattr(fld, "windows", ()))
    # measured: about 2.5e-7 s per non-zero of the Jacobian per Newton step, ~5 per orbit
    cost = max_points * (0.01 + 5 * 2.5e-7 * intervals * degree * (degree + 1) * nnz)
    if switch and size * 2**switch > MAX_UNKNOWNS:
        raise SymdelayInputError(
            f"the period-doubled branch of level {switch} would have {size * 2**switch} "
            f"unknowns, over the limit {MAX_UNKNOWNS}: fewer switch levels or intervals"
        )
    check_budget(
        f"a branch of up to {max_points} cycles ({size} unknowns each)",
        cost,
        force=force,
        shrink="fewer points (max_points), fewer intervals or a lower degree",
    )
    t0 = time.perf_counter()
    if delay:
        from symdelay.analysis.dbvp import DelayBVP

        solver = DelayBVP(fld, model.name)
    else:
        solver = PeriodicBVP(fld, model.name)
    with one_blas_thread():
        if start is None:
            begin = _delay_hopf_start if delay else _hopf_start
            first, info, hopfs = begin(model, solver, param, lo_v, hi_v, lo, hi, intervals,
                                       degree)  # fmt: skip
        else:
            settled = None
            if isinstance(start, (str, int, float, np.floating)) and not isinstance(start, bool):
                settle = _delay_settled if delay else _settled
                settled = start = settle(model, solver, param, start, lo_v, hi_v, force)
            first, info = _cycle_start(solver, start, param, direction, lo_v, hi_v, intervals,
                                       degree)  # fmt: skip
            if settled is not None:
                info["kind"] = "settled cycle"
                info["laps"] = settled.laps
                info["fluid_period"] = repr(float(settled.period))
            hopfs = []
        info["hopf_points_in_range"] = hopfs
        scale = 1.0 + float(np.max(np.abs(first.U)))
        ds_max = 0.05 * ((hi_v - lo_v) + scale) if max_step is None else float(max_step)
        if not ds_max > 0:
            raise SymdelayInputError(f"max_step must be positive, got {max_step!r}")
        ds0 = float(step) if step is not None else min(info.pop("ds0"), ds_max)
        info.pop("ds0", None)
        if not ds0 > 0:
            raise SymdelayInputError(f"step must be positive, got {step!r}")
        cfg = _Settings(
            lo_v, hi_v, ds0, 1e-8 * ds_max, ds_max, max_points, bool(adapt), tuple(_targets)
        )
        _land_targets(solver, first, first, cfg)
        pts, specials, stop = _run_branch(solver, first, cfg, param)
        doubled = _switch_all(solver, specials, cfg, param, switch, degree, cost, force)
    return CycleBranch(
        param,
        (lo_v, hi_v),
        [s.point for s in pts],
        specials,
        info,
        stop.kind,
        stop.reason,
        intervals,
        degree,
        bool(adapt),
        time.perf_counter() - t0,
        model.name,
        fld.observed,
        doubled,
        switch,
        landed={v: st.point for v, st in cfg.landed.items()},
    )


def _switch_all(solver, specials, cfg, param, levels, degree, cost, force, level=1, count=None):
    """The doubled branches at the located PDs of ``specials``, each with its own doubled
    branches down to ``levels`` levels (depth first, at most :data:`MAX_SWITCHED` in all;
    each estimated against the budget before it runs: the first branch's cost times the
    growth of its mesh)."""
    from dataclasses import replace

    from symdelay.core.budget import check_budget

    count = [0] if count is None else count
    out = []
    if level > levels:
        return ()
    for sp_ in specials:
        if sp_.kind != "PD" or not sp_.located or count[0] >= MAX_SWITCHED:
            continue
        check_budget(
            f"the period-doubled branch of level {level} ({sp_.orbit.coll.N * 2} mesh intervals)",
            cost * 2**level,
            force=force,
            shrink="fewer switch levels, fewer points (max_points) or fewer intervals",
        )
        count[0] += 1
        b = _doubled_branch(solver, sp_, cfg, param, level, degree)
        kids = _switch_all(
            solver, b.special_points, cfg, param, levels, degree, cost, force, level + 1, count
        )
        out.append(replace(b, doubled=kids, switch=levels - level))
    return tuple(out)


def _doubled_branch(solver, pd: SpecialPoint, cfg, param, level, degree) -> CycleBranch:
    """The branch of doubled cycles from the located PD ``pd`` (first orbit by
    :func:`symdelay.analysis.doubling.first_doubled`), continued as any branch."""
    from symdelay.analysis.doubling import first_doubled

    t0 = time.perf_counter()
    orbit = pd.orbit
    scale = math.sqrt(float(np.sum(orbit.coll.ip_weights(orbit.U) * orbit.U)))
    start = {
        "kind": "period doubling",
        "value": repr(float(pd.value)),
        "period": repr(float(pd.period)),
        "level": level,
    }
    try:
        base, first, rho = first_doubled(solver, orbit, 1e-3 * scale, 1e-3 * (cfg.hi - cfg.lo))
        first.tangent = solver.tangent(
            first.coll,
            first.U,
            first.T,
            first.p,
            base.tangent,
            orient=(first.U - base.U, first.T - base.T, first.p - base.p),
        )
        first.point = _analyse(solver, first)
    except (NewtonFailed, np.linalg.LinAlgError) as exc:
        return CycleBranch(param, (cfg.lo, cfg.hi), [], [], start, "no switch", str(exc),
                           orbit.coll.N * 2, degree, cfg.adapt, time.perf_counter() - t0,
                           solver.model_name, solver.F.observed)  # fmt: skip
    start["critical_multiplier"] = {"re": repr(rho.real), "im": repr(rho.imag)}
    start["first_cycle_at"] = repr(float(first.p))
    pts, specials, stop = _run_branch(solver, first, cfg, param)
    return CycleBranch(
        param,
        (cfg.lo, cfg.hi),
        [s.point for s in pts],
        specials,
        start,
        stop.kind,
        stop.reason,
        first.coll.N,
        degree,
        cfg.adapt,
        time.perf_counter() - t0,
        solver.model_name,
        solver.F.observed,
    )


def _integer(name, v, lo, hi) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not lo <= v <= hi:
        raise SymdelayInputError(f"{name} must be an integer from {lo} to {hi}, got {v!r}")
    return int(v)


def _range(param, lo, hi):
    from symdelay.core.exact import exact_fraction

    if lo is None or hi is None:
        raise SymdelayInputError(f"give the range of {param} (lo and hi)")
    a, b = (float(exact_fraction(param, v)) for v in (lo, hi))
    if not (math.isfinite(a) and math.isfinite(b) and a < b):
        raise SymdelayInputError(f"the range of {param} must be finite with lo < hi, got {lo}:{hi}")
    return a, b


def _hopf_start(model, solver, param, lo_v, hi_v, lo, hi, intervals, degree):
    """The first orbit near the lowest Hopf point in ``(lo, hi)``: ``(state, start record,
    every Hopf point found)``."""
    import mpmath

    from symdelay.analysis.normal_form import first_lyapunov, hopf_multiplicity
    from symdelay.analysis.window import window

    followed = _followed_hopf(model, solver, param, lo, hi)
    if followed is not None:
        pc, w, h, hopfs = followed
        with mpmath.workdps(30):
            law = _amplitude_law(solver.F, h, w, pc, param)
        return _first_from_hopf(solver, param, lo_v, hi_v, intervals, degree, pc, w, *law, hopfs)
    try:
        win = window(model, param, lo=lo, hi=hi)
    except SymdelayInputError as exc:
        raise SymdelayInputError(
            f"{exc} (needed for the Hopf points in {param}; or start from the cycle the fluid "
            f"path settles on at {param} = VALUE: start=VALUE, --start VALUE)"
        ) from None
    found = {}
    for iv in win.intervals:
        for end in (iv.lo, iv.hi):
            v = end.value
            if end.kind == "r = i omega" and mpmath.isfinite(v) and lo_v < float(v) < hi_v:
                found[float(v)] = end
    if not found:
        raise SymdelayInputError(
            f"no Hopf point of {model.name} in {param} in ({lo}, {hi}) (the ends of its "
            f"instability windows there: {_ends_text(win)}): give a range that contains one, "
            "or start from a cycle (start=..., --start VALUE)"
        )
    hopfs = [
        {"value": repr(v), "omega": [repr(float(w)) for w in e.omega]}
        for v, e in sorted(found.items())
    ]
    pc = min(found)
    end = found[pc]
    if len(end.omega) != 1:
        raise SymdelayInputError(
            f"at {param} = {pc:.10g} two imaginary pairs cross at once (a double Hopf point): "
            "no single branch of cycles starts there"
        )
    fld = solver.F
    with mpmath.workdps(30):
        w = mpmath.mpf(end.omega[0])
        mult, _ = hopf_multiplicity(model, param, end.value, w, 15)
        if mult >= 2:
            raise SymdelayInputError(
                f"the imaginary pair at {param} = {pc:.10g} is multiple (multiplicity {mult}, "
                "the model's symmetry): several patterns of cycles bifurcate there (equivariant "
                "Hopf theorem) and no single branch is defined; start from a given cycle "
                "(--start VALUE; in the API start=limit_cycle(model, VALUE): for three "
                "servers the stable rotating wave)"
            )
        h = first_lyapunov(model, (param,), derivative=True).hopf((end.value,), w)
        law = _amplitude_law(fld, h, w, pc, param)
    return _first_from_hopf(solver, param, lo_v, hi_v, intervals, degree, pc, w, *law, hopfs)


def _amplitude_law(fld, h, w, pc, param):
    """``(coef, side, l1, q)`` of the normal form at a Hopf point from its coefficients
    ``h`` (``c1``, ``r'``, ``q``), normalised by the observed combination; refused where
    it is degenerate. In mpmath at the working precision in force."""
    import mpmath

    cq = mpmath.fsum(fld.weights[j] * h.q[j] for j in range(fld.n))
    c1x = h.c1 / abs(cq) ** 2
    rc, rr = mpmath.re(c1x), mpmath.re(h.r_prime)
    if abs(rc) <= mpmath.mpf(10) ** -10 * (1 + abs(c1x)) or rr == 0:
        raise SymdelayInputError(
            f"the Hopf point at {param} = {pc:.10g} is degenerate (l1 = 0 or a zero "
            "crossing speed): the normal form gives no first cycle"
        )
    coef = float(2 * mpmath.sqrt(abs(rr / rc)))
    side = 1 if -rr / rc > 0 else -1
    l1 = float(rc / w)
    q = np.array([complex(v) for v in h.q]) / complex(cq)
    return coef, side, l1, q


def _followed_hopf(model, solver, param, lo, hi):
    """Where the equilibrium has no closed form that singles it out with ``param`` free (the
    closed form refused), the lowest Hopf point of the equilibrium followed numerically
    (:func:`symdelay.analysis.hopf_numeric.moving_hopf_points`): ``(p_c, omega, Hopf
    coefficients, every Hopf point found)``, the field's equilibrium set to the followed
    one; None where the closed form stands (the window path then runs)."""
    import mpmath

    from symdelay.analysis.hopf_numeric import hopf_coefficients, moving_hopf_points
    from symdelay.model.core import Model, _symbol, has_lags

    if has_lags(model) or type(model) is not Model:
        return None
    try:
        model.equilibrium_is_closed_form_in(_symbol(param))
        return None
    except SymdelayInputError:
        pass  # no closed form singles it out with param free: followed numerically
    mh = moving_hopf_points(model, param, lo, hi)
    if not mh.points:
        stop = f"; {mh.stop}" if mh.stop else ""
        raise SymdelayInputError(
            f"no Hopf point of {model.name} in {param} in ({lo}, {hi}) on the equilibrium "
            f"followed numerically{stop}: give a range that contains one, or start from a "
            "cycle (start=..., --start VALUE)"
        )
    h0 = mh.points[0]
    with mpmath.workdps(30):
        ev = np.linalg.eigvals(solver.F.jac_dense(np.array([[float(v) for v in h0.state]]),
                                                  float(h0.value))[0])  # fmt: skip
        w = float(h0.omega)
        if int(np.sum(np.abs(ev - 1j * w) < 1e-6 * (1 + w))) >= 2:
            raise SymdelayInputError(
                f"the imaginary pair at {param} = {float(h0.value):.10g} is multiple: no single "
                "branch of cycles starts there; start from a given cycle (--start VALUE)"
            )
        h = hopf_coefficients(model, param, h0.value, h0.omega, h0.state)
    solver.F.set_equilibrium(mh.follow)
    hopfs = [
        {
            "value": repr(float(p.value)),
            "omega": [repr(float(p.omega))],
            "equilibrium": "followed numerically",
            "bracket": [str(p.bracket[0]), str(p.bracket[1])],
        }
        for p in mh.points
    ]
    return float(h0.value), h0.omega, h, hopfs


def _first_from_hopf(solver, param, lo_v, hi_v, intervals, degree, pc, w, coef, side, l1, q,
                     hopfs):  # fmt: skip
    """The first orbit near the Hopf point ``pc`` (frequency ``w``) from its normal form:
    ``(state, start record, hopfs)``."""
    fld = solver.F
    room = (hi_v - pc) if side > 0 else (pc - lo_v)
    eq_c = fld.equilibrium(pc)
    A1 = 1e-2 * max(1e-2, float(np.max(np.abs(eq_c))))
    A1 = min(A1, coef * math.sqrt(0.02 * room))
    coll = Collocation(degree, np.linspace(0.0, 1.0, intervals + 1))
    tn = coll.node_times()
    wave = np.real(q[None, :] * np.exp(2j * np.pi * tn)[:, None])
    T0 = 2 * math.pi / float(w)
    why = ""
    for _ in range(4):
        d = (A1 / coef) ** 2
        p1 = pc + side * d
        U = fld.equilibrium(p1)[None, :] + A1 * wave
        try:
            U1, T1, _, it = solver.correct(coll, U, T0, p1, U, fixed_p=True)
            amp = amplitude(coll, U1 @ fld.weights)
            if amp > 0.2 * A1:
                break
            why = "Newton converged to the equilibrium"
        except (NewtonFailed, np.linalg.LinAlgError) as exc:
            why = str(exc)
        A1 /= 4
    else:
        raise SymdelayInputError(
            f"no first cycle near the Hopf point {param} = {pc:.10g} ({why}): more intervals"
        )
    first = Orbit(coll, U1, T1, p1, iterations=it)
    dpdA = side * 2 * A1 / coef**2
    first.tangent = solver.tangent(coll, U1, T1, p1, (wave, 0.0, dpdA))
    first.point = _analyse(solver, first)
    ds0 = 2 * math.sqrt(float(np.sum(coll.ip_weights(U1 - eq_c) * (U1 - eq_c))))
    info = {
        "kind": "Hopf point",
        "value": repr(pc),
        "omega": repr(float(w)),
        "l1": repr(l1),
        "criticality": "supercritical" if l1 < 0 else "subcritical",
        "amplitude_coefficient": repr(coef),
        "side": "above" if side > 0 else "below",
        "first_cycle_at": repr(p1),
        "ds0": ds0,
    }
    return first, info, hopfs


def _hopf_points(model, param, lo_v, hi_v, lo, hi):
    """The Hopf points in ``(lo, hi)``: ``({value: window end}, the window, hopf list)``."""
    import mpmath

    from symdelay.analysis.window import window

    win = window(model, param, lo=lo, hi=hi)
    found, unstable_above = {}, {}
    for iv in win.intervals:
        for side, end in ((1, iv.lo), (-1, iv.hi)):
            v = end.value
            if end.kind == "r = i omega" and mpmath.isfinite(v) and lo_v < float(v) < hi_v:
                found[float(v)] = end
                unstable_above[float(v)] = side
    if not found:
        raise SymdelayInputError(
            f"no Hopf point of {model.name} in {param} in ({lo}, {hi}) (the ends of its "
            f"instability windows there: {_ends_text(win)}): give a range that contains one"
        )
    hopfs = [
        {"value": repr(v), "omega": [repr(float(w)) for w in e.omega]}
        for v, e in sorted(found.items())
    ]
    return found, unstable_above, hopfs


def _delay_hopf_start(model, solver, param, lo_v, hi_v, lo, hi, intervals, degree):
    """The first orbit of a delay model near the lowest Hopf point in ``(lo, hi)``, as
    DDE-BIFTOOL's ``p_topsol`` starts it: the equilibrium plus a small multiple of the
    critical eigenvector of ``Delta(i omega)``, corrected with the parameter free and the
    projection of the orbit on that eigenvector fixed (the step of a pseudo-arclength
    continuation along the eigenvector). ``l1`` (with its bound), the criticality and the
    amplitude law ``c sqrt|p - p_c|`` are the delay normal form's at that Hopf point
    (:func:`symdelay.analysis.dnormal.delay_hopf_fields`), which also sizes the first
    orbit; the side the corrected orbit takes is kept as a check against the law's side
    (their disagreement stated). Where the normal form does not answer (a neutral equation
    whose difference operator is not proved stable, ``l1`` undecided) the criticality is
    read from that side and the side where the equilibrium is unstable, as said in the
    record."""
    found, unstable_above, hopfs = _hopf_points(model, param, lo_v, hi_v, lo, hi)
    pc = min(found)
    end = found[pc]
    if len(end.omega) != 1:
        raise SymdelayInputError(
            f"at {param} = {pc:.10g} two imaginary pairs cross at once (a double Hopf point): "
            "no single branch of cycles starts there"
        )
    fld = solver.F
    w = float(end.omega[0])
    Dm = fld.characteristic(pc, 1j * w)
    _, sv, Vh = np.linalg.svd(Dm)
    # the scale of Delta's parts (i omega I and the rest): a one-state model's only
    # singular value is the smallest
    ref = max(float(sv[0]), w, float(np.linalg.norm(Dm - 1j * w * np.eye(len(Dm)), 2)))
    if sv.size > 1 and sv[-2] < 1e-8 * ref:
        raise SymdelayInputError(
            f"the imaginary pair at {param} = {pc:.10g} is multiple (the model's symmetry): "
            "several patterns of cycles bifurcate there and no single branch is defined"
        )
    if not sv[-1] < 1e-8 * ref:
        raise SymdelayInputError(
            f"Delta(i omega) at the Hopf point {param} = {pc:.10g} is not singular in the "
            f"flattened equations (smallest singular value {sv[-1]:.3g} of {sv[0]:.3g})"
        )
    q = Vh[-1].conj()
    cq = complex(fld.weights @ q)
    if abs(cq) < 1e-8 * float(np.max(np.abs(q))):
        raise SymdelayInputError(
            f"the critical eigenvector at {param} = {pc:.10g} does not move the imbalance x: "
            "the cycles born there are not followed by their amplitude of x"
        )
    q = q / cq
    coll = Collocation(degree, np.linspace(0.0, 1.0, intervals + 1))
    tn = coll.node_times()
    wave = np.real(q[None, :] * np.exp(2j * np.pi * tn)[:, None])
    T0 = 2 * math.pi / w
    eq_c = fld.equilibrium(pc)
    base = Orbit(coll, np.repeat(eq_c[None, :], tn.size, axis=0), T0, pc)
    norm2 = float(np.sum(coll.ip_weights(wave) * wave))
    A1 = 1e-2 * max(1e-1, float(np.max(np.abs(eq_c[: fld.n_model]))))
    law, nf_info = _delay_law(model, param, end, pc, w)
    if law is not None:  # the first amplitude within 2% of the room on the law's side
        coef, law_side = law
        room = (hi_v - pc) if law_side > 0 else (pc - lo_v)
        A1 = min(A1, coef * math.sqrt(0.02 * room))
    why = ""
    for _ in range(5):
        U = base.U + A1 * wave
        p_guess = pc if law is None else pc + law[1] * (A1 / law[0]) ** 2
        try:
            U1, T1, p1, it = solver.correct(
                coll, U, T0, p_guess, U, step=(base, (wave, 0.0, 0.0), A1 * norm2)
            )
            amp = amplitude(coll, U1 @ fld.weights)
            if amp > 0.2 * A1 and lo_v < p1 < hi_v:
                break
            why = (
                f"the corrected orbit left the range ({param} = {p1:.6g})"
                if amp > 0.2 * A1
                else "Newton converged to the equilibrium"
            )
        except (NewtonFailed, np.linalg.LinAlgError) as exc:
            why = str(exc)
        A1 /= 4
    else:
        raise SymdelayInputError(
            f"no first cycle near the Hopf point {param} = {pc:.10g} ({why}): more intervals"
        )
    first = Orbit(coll, U1, T1, p1, iterations=it)
    first.tangent = solver.tangent(coll, U1, T1, p1, (wave, 0.0, 0.0), orient=(wave, 0.0, 0.0))
    first.point = _analyse(solver, first)
    side = 1 if p1 > pc else -1
    unstable = unstable_above[pc]
    ds0 = 2 * math.sqrt(float(np.sum(coll.ip_weights(U1 - eq_c) * (U1 - eq_c))))
    by_side = "supercritical" if side == unstable else "subcritical"
    seen = (
        f"the side the first cycle lies on (amplitude {first.point.amplitude:.3g} at "
        f"{param} = {p1:.10g}) against the side where the equilibrium is unstable"
    )
    info = {
        "kind": "Hopf point",
        "value": repr(pc),
        "omega": repr(w),
        "l1": None,
        "criticality": by_side,
        "criticality_from": seen,
        "amplitude_coefficient": None,
        "side": "above" if side > 0 else "below",
        "first_cycle_at": repr(float(p1)),
        "ds0": ds0,
    }
    info.update(nf_info)
    if law is not None:
        law_word = "above" if law[1] > 0 else "below"
        info["criticality_from"] = "the delay normal form (l1, its sign proved)"
        info["side"] = law_word
        where = "above" if side > 0 else "below"
        info["side_check"] = (
            f"agrees: the first corrected cycle lies {where} {param}_c ({by_side} by {seen})"
            if law[1] == side
            else f"DISAGREES: the normal form puts the cycles {law_word} {param}_c "
            f"({info['criticality']}); the first corrected cycle lies {where} ({by_side} by "
            f"{seen})"
        )
    return first, info, hopfs


def _delay_law(model, param, end, pc, w):
    """``((c, side), fields)``: the delay normal form at the Hopf point ``end`` (a window
    end at ``pc``, frequency ``w``): the amplitude coefficient ``c`` and the side (+1
    above) of its law when the sign of ``l1`` is proved, else ``None``; ``fields``: the
    start record's ``l1``, ``l1_radius``, ``criticality``, ``amplitude_coefficient`` (or
    ``l1_reason``, one line, where the normal form does not answer)."""
    import mpmath

    from symdelay.analysis.dnormal import delay_hopf_fields
    from symdelay.analysis.normal_form import NormalForm

    try:
        with mpmath.workdps(30):
            nf = NormalForm(**delay_hopf_fields(model, param, end.value, end.omega[0], 15,
                                                rel=1e-12))  # fmt: skip
    except SymdelayInputError as exc:
        return None, {"l1_reason": str(exc)}
    if nf.multiple:  # pragma: no cover - the flattened Delta(i omega) refused it above
        return None, {"l1_reason": nf.patterns_reason}
    fields = {
        "l1": repr(float(nf.l1)),
        "l1_radius": repr(float(nf.l1_radius)),
        "l1_normalisation": "q_x = 1 (x the observed imbalance)",
    }
    if nf.side is None:  # undecided or degenerate: no law
        fields["l1_reason"] = (
            f"l1 = {float(nf.l1):.6g} +- {float(nf.l1_radius):.3g}: its sign is "
            f"{nf.criticality}, no amplitude law"
        )
        return None, fields
    fields["criticality"] = nf.criticality
    fields["amplitude_coefficient"] = repr(float(nf.amplitude_coefficient))
    return (float(nf.amplitude_coefficient), 1 if nf.side == "above" else -1), fields


def _ends_text(win) -> str:
    ends = [f"{float(e.value):.8g} ({e.kind})" for iv in win.intervals for e in (iv.lo, iv.hi)]
    return ", ".join(ends) or "none"


@dataclass(frozen=True)
class _Settled:
    value: float
    t: np.ndarray
    y: np.ndarray
    period: float
    laps: int


def _settled(model, solver, param, value, lo_v, hi_v, force=False) -> _Settled:
    """The cycle the fluid path from the model's default start settles on at ``param =
    value`` (:func:`symdelay.analysis.doubling.settled_cycle`; integrated in pieces of 20
    periods of the linearisation's fastest oscillation, or 20 of its slowest decay)."""
    from symdelay.analysis.doubling import settled_cycle
    from symdelay.core.exact import exact_fraction

    v = float(exact_fraction(param, value))
    if not lo_v <= v <= hi_v:
        raise SymdelayInputError(f"the start {param} = {value} is outside the range")
    y0 = np.array(model.with_values(**{param: str(value)}).default_start(), dtype=float)
    lam = np.linalg.eigvals(solver.F.jac_dense(y0[None, :], v)[0])
    lam = lam[np.abs(lam) > 1e-12]
    if not lam.size:
        raise SymdelayInputError(f"the drift at {param} = {value} is degenerate: no time scale")
    osc = np.abs(lam.imag)
    chunk = 20 * (2 * math.pi / osc.max() if osc.max() > 0 else 1 / np.abs(lam).min())
    t, y, T, laps = settled_cycle(solver.F, v, y0, chunk=chunk)
    return _Settled(v, t, y, T, laps)


def _delay_settled(model, solver, param, value, lo_v, hi_v, force=False) -> _Settled:
    """The cycle the delay fluid path from the model's default start (held before 0)
    settles on at ``param = value`` (:func:`symdelay.analysis.doubling
    .settled_delay_cycle`), first integrated over 40 times the model's time scale: the
    longest look-back, the slowest decay and the fastest oscillation of the drift with its
    lags collapsed, whichever is longest."""
    from symdelay.analysis.doubling import settled_delay_cycle
    from symdelay.core.exact import exact_fraction

    v = float(exact_fraction(param, value))
    if not lo_v <= v <= hi_v:
        raise SymdelayInputError(f"the start {param} = {value} is outside the range")
    fld = solver.F
    at = model.with_values(**{param: str(value)})
    # the drift's Jacobian with the lags collapsed: -Delta(0)
    lam = np.linalg.eigvals(-fld.characteristic(v, 0.0))
    lam = lam[np.abs(lam) > 1e-12]
    scales = [fld.max_lookback(v)]
    if lam.size:
        scales.append(1 / float(np.abs(lam).min()))
        osc = np.abs(lam.imag)
        if osc.max() > 0:
            scales.append(2 * math.pi / float(osc.max()))
    horizon = 40 * max(scales)
    t, y, T, laps = settled_delay_cycle(at, fld.weights[: fld.n_model], horizon=horizon,
                                        lookback=fld.max_lookback(v), force=force)  # fmt: skip
    return _Settled(v, t, y, T, laps)


def _cycle_start(solver, start, param, direction, lo_v, hi_v, intervals, degree):
    """The first orbit from a given cycle (corrected on the collocation mesh)."""
    value = getattr(start, "value", None)
    if value is None:
        value = getattr(start, "theta", None)
        if value is not None and param != "theta":
            raise SymdelayInputError(
                f"the cycle given is a cycle in theta (a LimitCycle): continue it in theta, "
                f"not {param}"
            )
    t, y, T = getattr(start, "t", None), getattr(start, "y", None), getattr(start, "period", None)
    if value is None or t is None or y is None or T is None:
        raise SymdelayInputError(
            "start must be a cycle (a LimitCycle or a BranchPoint: its parameter value, orbit "
            "t, y and period)"
        )
    p = float(value)
    if not lo_v <= p <= hi_v:
        raise SymdelayInputError(f"the cycle given is at {param} = {p:.10g}, outside the range")
    y = np.atleast_2d(np.asarray(y, dtype=float))
    n_model = getattr(solver.F, "n_model", solver.F.n)
    if y.shape[0] == n_model < solver.F.n:
        # a delay model's chain phases: from their equilibrium (Newton solves for them: the
        # chains are linear in their phases)
        extra = solver.F.equilibrium(float(value))[n_model:]
        y = np.vstack([y, np.repeat(extra[:, None], y.shape[1], axis=1)])
    if y.shape[0] != solver.F.n:
        raise SymdelayInputError(
            f"the cycle given has {y.shape[0]} states, the model {solver.F.n}: a cycle of "
            "this model's full drift"
        )
    coll = Collocation(degree, np.linspace(0.0, 1.0, intervals + 1))
    tn = coll.node_times() * float(T)
    tt = np.asarray(t, dtype=float)
    U = np.stack([np.interp(tn, tt, row, period=float(T)) for row in y], axis=1)
    try:
        U1, T1, _, it = solver.correct(coll, U, float(T), p, U, fixed_p=True)
    except (NewtonFailed, np.linalg.LinAlgError) as exc:
        raise SymdelayInputError(
            f"the cycle given is not a periodic orbit of the model at {param} = {p:.10g} "
            f"(Newton: {exc})"
        ) from None
    if amplitude(coll, U1 @ solver.F.weights) < 1e-8:
        raise SymdelayInputError("the cycle given is the equilibrium, not a periodic orbit")
    first = Orbit(coll, U1, T1, p, iterations=it)
    first.tangent = solver.tangent(coll, U1, T1, p, (np.zeros_like(U1), 0.0, float(direction)))
    first.point = _analyse(solver, first)
    info = {"kind": "given cycle", "value": repr(p), "direction": int(direction), "ds0": 0.02}
    return first, info
