"""The periodic boundary value problem of an ODE by orthogonal collocation: the orbit as a
piecewise polynomial, Newton's method on the sparse collocation system with an integral phase
condition and a pseudo-arclength (or fixed-parameter) border, tangents, mesh adaptation and
the Floquet multipliers from the collocation's monodromy. The continuation of branches
(:mod:`symdelay.analysis.continuation`) is built on it.

The orbit ``u(t)``, ``t`` in ``[0, 1]`` (time scaled by the period ``T``), solves
``u' = T f(u, p)``, ``u(0) = u(1)``: a continuous piecewise polynomial of degree ``m`` on
``N`` mesh intervals, each given by its values at ``m + 1`` equispaced nodes (the last node of
an interval is the first of the next, the last of the mesh the first: periodicity is built
in), collocated at the ``m`` Gauss--Legendre points of each interval (de Boor & Swartz; AUTO
and MatCont do the same). The phase condition is ``int <u, u_ref'> dt = 0``. The mesh is
adapted by equidistributing ``|u^(m+1)|^(1/(m+1))``, estimated from the jumps of the
piecewise constant ``u^(m)`` (de Boor; AUTO's adaptation).

The monodromy: the collocation of the variational equation ``v' = T J(u(t)) v`` on one
interval maps the value at its left node to the value at its right node (the interior nodes
eliminated); the product over the mesh is the monodromy matrix (AUTO's condensation),
formed on the mesh and on the mesh of every other point for the multipliers' error bounds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp

__all__ = [
    "Collocation",
    "NewtonFailed",
    "Orbit",
    "OrbitField",
    "PeriodicBVP",
    "amplitude",
    "MAX_NEWTON",
    "NEWTON_TOL",
]

#: Newton's iterations per correction, and its tolerance (relative to the size of each part).
MAX_NEWTON = 12
NEWTON_TOL = 1e-10


# -------------------------------------------------------------------------- the field


def jacobian_entries(drift, states):
    """The drift's Jacobian as sparse entries: ``(rows, cols, expressions)`` of its nonzero
    partial derivatives, row-major."""
    entries = {}
    for i, e in enumerate(drift):
        for j, s in enumerate(states):
            if e.has(s):
                d = sp.diff(e, s)
                if d != 0:
                    entries[(i, j)] = d
    keys = sorted(entries)
    rows = np.array([k[0] for k in keys], dtype=int)
    cols = np.array([k[1] for k in keys], dtype=int)
    return rows, cols, [entries[k] for k in keys]


class OrbitField:
    """The drift ``f(u, p)``, its sparse Jacobian in ``u`` and ``df/dp``, vectorised over
    rows of states (NumPy code generated from the model's table), with the equilibrium
    ``eq(p)`` and the observed weights: the imbalance ``e_a - e_P(a)`` of a model with a
    symmetry (``q1 - q2``), the first state of one without (``observed`` says which)."""

    def __init__(self, model, name):
        from symdelay.analysis.stochastic import difference_weights
        from symdelay.analysis.window import _resolve

        sym, rp = _resolve(model, name)
        subs = {} if rp is None else {rp.base: rp.L / sym}
        states = list(model.states)
        values = dict(model.values)
        drift = [sp.sympify(e).xreplace(values).xreplace(subs) for e in model.drift]
        free = set().union(*(e.free_symbols for e in drift)) - set(states) - {sym}
        if free:
            raise SymdelayInputError(
                "the cycles need numbers for every parameter but the one continued: give "
                + ", ".join(sorted(map(str, free)))
            )
        w = difference_weights(model)
        n = len(states)
        if w is None:  # no symmetry: the first state is observed
            w = [1] + [0] * (n - 1)
        self.observed = _observed_text(states, w)
        self._model, self._values, self._subs = model, values, subs
        self.n, self.name, self.symbol = n, name, sym
        self.weights = np.array(w, dtype=float)
        self.names = tuple(s.name for s in states)
        args = (sym, *states)
        self.rows, self.cols, entries = jacobian_entries(drift, states)
        self._f = sp.lambdify(args, drift, "numpy", cse=True)
        self._j = sp.lambdify(args, entries, "numpy", cse=True)
        self._fp = sp.lambdify(args, [sp.diff(e, sym) for e in drift], "numpy", cse=True)
        self._eq = None

    def _equilibrium_function(self):
        """``eq(p)`` from the model's closed-form equilibrium (solved at first use: a branch
        started from a given cycle does not need it)."""
        model, name, sym = self._model, self.name, self.symbol
        eq = model.equilibrium
        if not eq.exact:
            raise SymdelayInputError(
                f"the equilibrium of {model.name} has no closed form in {name}: the "
                "continuation starts from it"
            )
        point = [
            sp.sympify(eq.point[s]).xreplace(self._values).xreplace(self._subs)
            for s in model.states
        ]
        if set().union(*(e.free_symbols for e in point)) - {sym}:
            raise SymdelayInputError(f"the equilibrium of {model.name} needs numbers")
        return sp.lambdify((sym,), point, "numpy")

    @staticmethod
    def _stack(vals, M):
        out = np.empty((len(vals), M))
        for k, v in enumerate(vals):
            out[k] = v
        return out

    def f(self, Y, p):
        """``f`` at the rows of ``Y`` (shape ``(M, n)``): shape ``(M, n)``."""
        with np.errstate(over="ignore", invalid="ignore"):
            return self._stack(self._f(float(p), *Y.T), Y.shape[0]).T

    def fp(self, Y, p):
        with np.errstate(over="ignore", invalid="ignore"):
            return self._stack(self._fp(float(p), *Y.T), Y.shape[0]).T

    def jac_values(self, Y, p):
        """The non-zero entries of ``df/du`` (at ``rows``, ``cols``): shape ``(M, nnz)``."""
        with np.errstate(over="ignore", invalid="ignore"):
            return self._stack(self._j(float(p), *Y.T), Y.shape[0]).T

    def jac_dense(self, Y, p):
        """``df/du`` at the rows of ``Y``: shape ``(M, n, n)``."""
        v = self.jac_values(Y, p)
        J = np.zeros((Y.shape[0], self.n, self.n))
        J[:, self.rows, self.cols] = v
        return J

    def set_equilibrium(self, follow) -> None:
        """Use ``follow(p)`` (an array of the states) as the equilibrium: the one followed
        numerically where the closed form does not single it out."""
        self._eq = follow

    def equilibrium(self, p):
        if self._eq is None:
            self._eq = self._equilibrium_function()
        return np.array([float(v) for v in self._eq(float(p))])


def _observed_text(states, w) -> str:
    """The observed combination of the states, as text (``q1 - q2``, ``x``)."""
    parts = [(c, s.name) for c, s in zip(w, states) if c]
    text = " ".join(("- " if c < 0 else "+ ") + n for c, n in parts)
    return text[2:] if text.startswith("+ ") else "-" + text[2:]


# ------------------------------------------------------------------------- collocation
class Collocation:
    """The collocation scheme of degree ``m`` on a mesh of ``N`` intervals of ``[0, 1]``:
    Lagrange basis on equispaced nodes, its values and derivatives at the Gauss points,
    evaluation of a piecewise polynomial anywhere, and mesh adaptation.

    >>> c = Collocation(4, np.linspace(0, 1, 5))
    >>> U = np.sin(2 * np.pi * c.node_times())[:, None]
    >>> float(abs(c.evaluate(U, np.array([0.3]))[0, 0] - np.sin(0.6 * np.pi))) < 1e-4
    True
    """

    def __init__(self, m: int, mesh):
        self.m = int(m)
        self.mesh = np.asarray(mesh, dtype=float)
        self.N = self.mesh.size - 1
        self.h = np.diff(self.mesh)
        x, w = np.polynomial.legendre.leggauss(self.m)
        self.z = (x + 1) / 2
        self.w = w / 2
        self.s = np.linspace(0.0, 1.0, self.m + 1)
        V = np.vander(self.s, self.m + 1, increasing=True)  # V[k, q] = s_k^q
        self.C = np.linalg.inv(V)  # l_k(z) = sum_q C[q, k] z^q
        self.Lg = self._basis(self.z)
        self.Dg = self._basis(self.z, derivative=True)
        N, m = self.N, self.m
        self.idx = (np.arange(N)[:, None] * m + np.arange(m + 1)[None, :]) % (N * m)

    def _basis(self, z, derivative=False):
        z = np.asarray(z, dtype=float)
        if derivative:
            P = np.stack([q * z ** (q - 1) if q else 0 * z for q in range(self.m + 1)], axis=-1)
        else:
            P = np.stack([z**q for q in range(self.m + 1)], axis=-1)
        return P @ self.C  # [..., k]

    def node_times(self):
        """The times of the ``N m`` distinct nodes (the last node, ``t = 1``, is ``t = 0``)."""
        t = self.mesh[:-1, None] + self.h[:, None] * self.s[None, :-1]
        return t.ravel()

    def extended(self, U):
        """``U`` (``(N m, n)``) as the nodes of each interval: ``(N, m + 1, n)``."""
        return U[self.idx]

    def at_gauss(self, U):
        Ue = self.extended(U)
        return np.einsum("ik,jkn->jin", self.Lg, Ue), np.einsum("ik,jkn->jin", self.Dg, Ue)

    def evaluate(self, U, t):
        """The piecewise polynomial with nodal values ``U`` at the times ``t`` in ``[0, 1]``."""
        t = np.mod(np.asarray(t, dtype=float), 1.0)
        j = np.clip(np.searchsorted(self.mesh, t, side="right") - 1, 0, self.N - 1)
        z = (t - self.mesh[j]) / self.h[j]
        B = self._basis(z)  # (len(t), m+1)
        return np.einsum("tk,tkn->tn", B, self.extended(U)[j])

    def ip_weights(self, V):
        """``g`` with ``int <u(t), v(t)> dt = g . U`` (Gauss quadrature, ``u`` with nodal
        values ``U``; ``V`` the nodal values of ``v``)."""
        Vg = np.einsum("ik,jkn->jin", self.Lg, self.extended(V))  # (N, m, n)
        coef = np.einsum("j,i,ik,jin->jkn", self.h, self.w, self.Lg, Vg)
        g = np.zeros((self.N * self.m, V.shape[1]))
        np.add.at(g, self.idx, coef)
        return g

    def phase_weights(self, Uref):
        """``g`` with ``int <u(t), u_ref'(t)> dt = g . U``."""
        Ud = np.einsum("ik,jkn->jin", self.Dg, self.extended(Uref))  # h_j u_ref'
        coef = np.einsum("i,ik,jin->jkn", self.w, self.Lg, Ud)
        g = np.zeros((self.N * self.m, Uref.shape[1]))
        np.add.at(g, self.idx, coef)
        return g

    def _density(self, U):
        """``|u^(m+1)|`` on each interval (max over components), from the jumps of the
        piecewise constant ``u^(m)`` between neighbouring intervals (de Boor)."""
        m = self.m
        lead = np.einsum("k,jkn->jn", self.C[m], self.extended(U)) * math.factorial(m)
        dm = lead / self.h[:, None] ** m  # u^(m) on each interval (in t)
        hn, hp = np.roll(self.h, -1), np.roll(self.h, 1)
        d1 = np.abs(np.roll(dm, -1, axis=0) - dm) / ((hn + self.h) / 2)[:, None]
        d0 = np.abs(dm - np.roll(dm, 1, axis=0)) / ((hp + self.h) / 2)[:, None]
        return np.max((d0 + d1) / 2, axis=1)

    def error_estimate(self, U) -> float:
        """An estimate of the largest error of the piecewise polynomial between the nodes:
        ``max_j w h_j^(m+1) |u^(m+1)| / (m+1)!``, ``w = max |prod_k (z - s_k)|`` on
        ``[0, 1]`` (the interpolation error's leading term)."""
        z = np.linspace(0.0, 1.0, 1001)
        w = float(np.max(np.abs(np.prod(z[:, None] - self.s[None, :], axis=1))))
        d = self._density(U)
        return float(w * np.max(self.h ** (self.m + 1) * d) / math.factorial(self.m + 1))

    def adapted_mesh(self, U):
        """A mesh of ``N`` intervals equidistributing ``|u^(m+1)|^(1/(m+1))``, or the
        current one when the estimate vanishes."""
        dens = self._density(U) ** (1.0 / (self.m + 1))
        if not np.all(np.isfinite(dens)) or dens.max() <= 0:
            return self.mesh
        dens = np.maximum(dens, 1e-3 * float(dens.max()))
        cum = np.concatenate([[0.0], np.cumsum(dens * self.h)])
        targets = np.linspace(0.0, cum[-1], self.N + 1)
        new = np.interp(targets, cum, self.mesh)
        new[0], new[-1] = 0.0, 1.0
        return new


# ----------------------------------------------------------------------- the solver
@dataclass
class Orbit:
    """One orbit while a branch is computed: nodal values on ``coll``'s mesh, period,
    parameter, the unit tangent, and (once analysed) its record (``point``)."""

    coll: Collocation
    U: np.ndarray
    T: float
    p: float
    tangent: tuple = None
    point: object = None
    iterations: int = 0


class NewtonFailed(Exception):
    """Newton's method did not converge (the message says why): the caller shortens its
    step or stops, saying so."""


class PeriodicBVP:
    """Residual, sparse Jacobian, Newton corrections, tangents, multipliers of the periodic
    BVP of one field."""

    def __init__(self, field: OrbitField, model_name):
        self.F = field
        self.model_name = model_name
        self._pattern = {}
        self.factors = None

    # -------------------------------------------------------------- the system
    def _indices(self, coll):
        key = (coll.N, coll.m)
        if key not in self._pattern:
            N, m, n = coll.N, coll.m, self.F.n
            r, c = self.F.rows, self.F.cols
            j, i, k = np.meshgrid(np.arange(N), np.arange(m), np.arange(m + 1), indexing="ij")
            row0 = ((j * m + i) * n)[..., None]  # (N, m, m+1, 1)
            col0 = (coll.idx[j, k] * n)[..., None]
            jac_rows = (row0 + r).ravel()
            jac_cols = (col0 + c).ravel()
            d = np.arange(n)
            diag_rows = (row0 + d).ravel()
            diag_cols = (col0 + d).ravel()
            self._pattern[key] = (jac_rows, jac_cols, diag_rows, diag_cols)
        return self._pattern[key]

    def colloc(self, coll, U, T, p):
        """``(R, Ug, F)``: the collocation residual (flat), the orbit and ``f`` at the Gauss
        points."""
        N, m, n = coll.N, coll.m, self.F.n
        Ug, Ud = coll.at_gauss(U)
        F = self.F.f(Ug.reshape(-1, n), p).reshape(N, m, n)
        R = Ud - (coll.h * T)[:, None, None] * F
        return R.ravel(), Ug, F

    def matrix(self, coll, U, T, p, Ug, F, borders, with_p=True):
        """The sparse Jacobian of the collocation equations in ``(U, T[, p])`` with the rows
        ``borders`` (each ``(gU, gT, gp)``) appended."""
        from scipy.sparse import csc_matrix

        N, m, n = coll.N, coll.m, self.F.n
        NU = N * m * n
        jr, jc, dr, dc = self._indices(coll)
        Jv = self.F.jac_values(Ug.reshape(-1, n), p).reshape(N, m, -1)  # (N, m, nnz)
        vals = -(coll.h * T)[:, None, None, None] * coll.Lg[None, :, :, None] * Jv[:, :, None, :]
        dvals = np.broadcast_to(coll.Dg[None, :, :, None], (N, m, m + 1, n))
        rows = [jr, dr, np.arange(NU)]
        cols = [jc, dc, np.full(NU, NU)]
        data = [vals.ravel(), dvals.ravel(), (-coll.h[:, None, None] * F).ravel()]
        ncol = NU + 1
        if with_p:
            Fp = self.F.fp(Ug.reshape(-1, n), p).reshape(N, m, n)
            rows.append(np.arange(NU))
            cols.append(np.full(NU, NU + 1))
            data.append((-(coll.h * T)[:, None, None] * Fp).ravel())
            ncol += 1
        for b, (gU, gT, gp) in enumerate(borders):
            rows += [np.full(NU, NU + b), np.array([NU + b])]
            cols += [np.arange(NU), np.array([NU])]
            data += [gU.ravel(), np.array([gT])]
            if with_p:
                rows.append(np.array([NU + b]))
                cols.append(np.array([NU + 1]))
                data.append(np.array([gp]))
        A = csc_matrix(
            (np.concatenate(data), (np.concatenate(rows), np.concatenate(cols))),
            shape=(NU + len(borders), ncol),
        )
        return A

    def correct(self, coll, U, T, p, Uref, *, step=None, fixed_p=False):
        """Newton's method from ``(U, T, p)``: the collocation equations, the phase condition
        against ``Uref`` and either ``p`` fixed or the pseudo-arclength ``step``
        ``(base_state, tangent, ds)``. Returns ``(U, T, p, iterations)``."""
        from scipy.sparse.linalg import splu

        n = self.F.n
        NU = coll.N * coll.m * n
        gph = coll.phase_weights(Uref)
        if step is not None:
            base, (tU, tT, tp), ds = step
            gt = coll.ip_weights(tU)
        scale = 1.0 + float(np.max(np.abs(U)))
        lu, last = None, math.inf
        for it in range(1, MAX_NEWTON + 1):
            R, Ug, F = self.colloc(coll, U, T, p)
            if not np.all(np.isfinite(R)):
                raise NewtonFailed("the drift overflowed on the orbit")
            rhs = [R, [np.sum(gph * U)]]
            borders = [(gph, 0.0, 0.0)]
            if not fixed_p:
                arc = np.sum(gt * (U - base.U)) + tT * (T - base.T) + tp * (p - base.p) - ds
                rhs.append([arc])
                borders.append((gt, tT, tp))
            rhs = -np.concatenate(rhs)
            if lu is not None:  # the chord step: the factors kept while they contract fast
                d = lu.solve(rhs)
                size = float(np.max(np.abs(d)))
                if not size <= 0.2 * last:
                    lu = None
            if lu is None:
                A = self.matrix(coll, U, T, p, Ug, F, borders, with_p=not fixed_p)
                try:
                    lu = splu(A, permc_spec="MMD_AT_PLUS_A")
                except RuntimeError:
                    raise NewtonFailed("singular Jacobian") from None
                d = lu.solve(rhs)
            if not np.all(np.isfinite(d)):
                raise NewtonFailed("singular Jacobian")
            last = float(np.max(np.abs(d)))
            U = U + d[:NU].reshape(U.shape)
            T = T + d[NU]
            if not fixed_p:
                p = p + d[NU + 1]
            if not T > 0:
                raise NewtonFailed("the period became negative")
            small = np.max(np.abs(d[:NU])) <= NEWTON_TOL * scale and abs(d[NU]) <= NEWTON_TOL * T
            if not fixed_p:
                small = small and abs(d[NU + 1]) <= NEWTON_TOL * (1 + abs(p))
            if small:
                R, _, _ = self.colloc(coll, U, T, p)
                if np.max(np.abs(R)) <= 1e3 * NEWTON_TOL * scale:
                    # kept for the tangent (refined from them): a step's factors only
                    self.factors = None if fixed_p else (lu, gph)
                    return U, T, p, it
        raise NewtonFailed(f"Newton did not converge in {MAX_NEWTON} iterations")

    def tangent(self, coll, U, T, p, border, *, orient=None, reuse=False):
        """The unit tangent of the branch at ``(U, T, p)``: the solution of the bordered
        system with the row ``border`` (the previous tangent) and right-hand side ``e_last``,
        normalised in ``int |u|^2 dt + T^2 + p^2``; ``orient``: a direction ``(U, T, p)``
        the tangent is turned to (the secant of the step). ``reuse``: solve by iterative
        refinement with the factors of the last correction (whose border rows are the same),
        refactorised only when the refinement does not converge."""
        from scipy.sparse.linalg import splu

        n = self.F.n
        NU = coll.N * coll.m * n
        _, Ug, F = self.colloc(coll, U, T, p)
        bU, bT, bp = border
        lu = None
        if reuse and self.factors is not None:
            lu, gph = self.factors
        else:
            gph = coll.phase_weights(U)
        A = self.matrix(coll, U, T, p, Ug, F, [(gph, 0.0, 0.0), (coll.ip_weights(bU), bT, bp)])
        e = np.zeros(NU + 2)
        e[-1] = 1.0
        t = None
        if lu is not None:
            t = lu.solve(e)
            last = math.inf
            for _ in range(8):
                r = e - A @ t
                size = float(np.max(np.abs(r)))
                if size <= 1e-13 * (1 + float(np.max(np.abs(t)))):
                    break
                if not size < 0.5 * last:
                    t = None  # the old factors do not contract: factorise
                    break
                last = size
                t = t + lu.solve(r)
            else:
                t = None
        if t is None:
            t = splu(A, permc_spec="MMD_AT_PLUS_A").solve(e)
        tU, tT, tp = t[:NU].reshape(U.shape), t[NU], t[NU + 1]
        if orient is not None:
            oU, oT, op = orient
            if np.sum(coll.ip_weights(oU) * tU) + oT * tT + op * tp < 0:
                tU, tT, tp = -tU, -tT, -tp
        norm = math.sqrt(max(np.sum(coll.ip_weights(tU) * tU) + tT**2 + tp**2, 1e-300))
        return tU / norm, tT / norm, tp / norm

    # -------------------------------------------------------------- Floquet
    def interval_maps(self, coll, Ug, T, p):
        """``X[j]`` (``(m n, n)``): the collocation of ``v' = T J(u) v`` on interval ``j``
        maps ``v`` at its left node to ``v`` at its other ``m`` nodes (the last row block is
        the right node)."""
        N, m, n = coll.N, coll.m, self.F.n
        J = self.F.jac_dense(Ug.reshape(-1, n), p).reshape(N, m, n, n)
        eye = np.eye(n)
        B = np.einsum("ik,ab->ikab", coll.Dg, eye)[None] - (coll.h * T)[
            :, None, None, None, None
        ] * np.einsum("ik,jiab->jikab", coll.Lg, J)
        B = B.transpose(0, 1, 3, 2, 4).reshape(N, m * n, (m + 1) * n)
        return np.linalg.solve(B[:, :, n:], -B[:, :, :n])

    def _monodromy(self, coll, Ug, T, p):
        n = self.F.n
        eye = np.eye(n)
        P = self.interval_maps(coll, Ug, T, p)[:, -n:, :]
        M = eye.copy()
        for j in range(coll.N):
            M = P[j] @ M
        return M

    def floquet(self, coll, U, T, p):
        """``(multipliers sorted by modulus, trivial index, error bounds)`` from the
        monodromy on the mesh and on the mesh of every other point (the module
        docstring)."""
        from symdelay.analysis.floquet import multiplier_errors

        Ug, _ = coll.at_gauss(U)
        M = self._monodromy(coll, Ug, T, p)
        half = coll.mesh[::2] if coll.N % 2 == 0 else np.append(coll.mesh[:-1:2], 1.0)
        coarse = Collocation(coll.m, half)
        tg = (coarse.mesh[:-1, None] + coarse.h[:, None] * coarse.z[None, :]).ravel()
        Ugc = coll.evaluate(U, tg).reshape(coarse.N, coarse.m, -1)
        M0 = self._monodromy(coarse, Ugc, T, p)
        if not (np.all(np.isfinite(M)) and np.all(np.isfinite(M0))):
            raise NewtonFailed("the monodromy matrix overflowed")
        ev, V = np.linalg.eig(M)
        ev0 = np.linalg.eigvals(M0)
        order = np.argsort(-np.abs(ev))
        ev, V = ev[order], V[:, order]
        fl = self.F.f(U[:1], p)[0]
        fl = fl / max(np.linalg.norm(fl), 1e-300)
        cos = np.abs(fl @ V.conj()) / np.linalg.norm(V, axis=0)
        k = int(np.argmax(cos))
        return ev, k, multiplier_errors(ev, ev0, k, M)

    # -------------------------------------------------------------- the record


def amplitude(coll: Collocation, x_nodes) -> float:
    """Half the peak-to-peak of the piecewise polynomial with nodal values ``x_nodes``: the
    extremes refined by the roots of the derivative on the intervals around the sampled
    ones."""
    xe = x_nodes[coll.idx]  # (N, m+1)
    coef = xe @ coll.C.T  # coef[j, q]: z^q
    zz = np.linspace(0, 1, 9)
    vals = np.polynomial.polynomial.polyval(zz, coef.T)  # (N, 9)
    out = []
    for sign in (1, -1):
        j0 = int(np.argmax(np.max(sign * vals, axis=1)))
        best = float(np.max(sign * vals))
        for j in ((j0 - 1) % coll.N, j0, (j0 + 1) % coll.N):
            dc = np.polynomial.polynomial.polyder(coef[j])
            for z in np.roots(dc[::-1]) if np.any(dc) else []:
                if abs(z.imag) < 1e-12 and -1e-12 <= z.real <= 1 + 1e-12:
                    v = sign * float(np.polynomial.polynomial.polyval(z.real, coef[j]))
                    best = max(best, v)
        out.append(sign * best)
    return (out[0] - out[1]) / 2
