"""The periodic boundary value problem of a delay model's fluid equations by orthogonal
collocation, and the Floquet multipliers of its cycles from the discretised monodromy
operator.

**The flattened system.** The fluid equations of a model with lags
(:mod:`symdelay.analysis.dfluid` integrates the same equations) are written once as

    y'(t) = F(y(t), y(t - s_1), ..., y(t - s_K), W_1(t), ..., W_J(t); p)

over the *augmented* state ``y``: the model's states followed by the phases of every chain
lag. Each lag is read exactly:

- a *constant* lag ``tau`` is the look-up ``E(y(t - tau))`` (composed look-backs add up:
  an action delay over a rate that reads information is ``y(t - u - tau)``);
- an *exponential*, *integer-shape gamma* (Erlang) or *phase-type* lag ``(alpha, S)`` is the
  output ``z (-S 1) + (1 - sum alpha) E`` of its chain ``z' = S^T z + alpha^T E`` (the linear
  chain trick; the phases are states of ``y``, periodic like the others);
- a *uniform* lag on ``[a, b]`` is the window mean ``W = int_0^1 E(y(t - a - (b - a) x)) dx``
  of the piecewise polynomial orbit: the window cut at the mesh points it contains, ``m + 1``
  Gauss--Legendre points on each piece (the exact integral of the piecewise polynomial when
  ``E`` is linear in the states, as a moving average of queue lengths is);
- a *mixture* is the weighted sum of its members, each read as above.

- ``dot(x)`` read through a constant lag (a *neutral* model, as the announcement with
  velocity) is the derivative of the periodic profile there: ``u'(t - s/T) / T``, the
  collocation polynomial's derivative at the look-back (its Jacobian columns the derivative
  basis; in ``T`` and the parameter it moves with ``u''``).

A gamma lag of non-integer shape, ``dot()`` read at the present or through a lag that is
not a constant delay, ``dot()`` at several look-backs, and a window over an expression that
itself reads a lag are refused in one line.

**Collocation.** The orbit ``u(t)``, ``t`` in ``[0, 1]`` (time scaled by the period ``T``),
is the continuous periodic piecewise polynomial of :class:`~symdelay.analysis.bvp.Collocation`
and solves ``u'(t) = T F(u(t), u(t - s_1/T), ...)`` at the Gauss points, every look-back
``t - s/T`` wrapped modulo 1 on the periodic profile (any ``s``, also ``s > T``). A look-up
touches the ``m + 1`` nodes of the mesh interval it falls in, so the Jacobian stays sparse;
its columns in ``T`` and in the parameter carry the motion of the look-back points
(``d/dT u(t - s/T) = u'(t - s/T) s / T^2``, and ``s`` may depend on the parameter: the lag
itself can be continued). Newton's method, the phase condition, pseudo-arclength and mesh
adaptation are :class:`~symdelay.analysis.bvp.PeriodicBVP`'s.

**Floquet multipliers** (the approach of DDE-BIFTOOL's ``mult_app``: the collocation system's
matrices give the map on the history segment). With ``K = ceil(max s / T)``, the linearised
equation ``v' = T (A_0 v + sum_k A_k v(t - s_k/T) + ...)`` is collocated on ``[0, 1]`` with
the history on ``[-K, 0]`` given at the nodes of the orbit's mesh repeated; solving for the
new nodes and shifting by one period is the monodromy matrix on the nodes of the history
segment ``[-max s / T, 0]`` (whole mesh intervals). Its eigenvalues approximate the Floquet
multipliers (the spurious ones of the discretisation cluster at 0; those above
:data:`MULT_FLOOR`, at most :data:`MULT_KEEP` of them, are kept). Each kept multiplier's
error bound is its change between the mesh and the mesh of every other point, plus the
trivial multiplier's distance from 1 (the trivial one is the multiplier whose eigenfunction is
the orbit's derivative), plus rounding -- the bound of the ODE cycles
(:meth:`~symdelay.analysis.bvp.PeriodicBVP.floquet`).

**Neutral models.** The monodromy operator of a neutral equation is not compact: besides
its eigenvalues (the multipliers) it has an essential spectrum, that of the difference
operator ``w(t) = A_d(t) w(t - s)`` over one period, a disc of radius ``rho_ess``
(:meth:`DelayBVP.essential_radius`). The discretised monodromy has finitely many
eigenvalues: the multipliers above ``rho_ess`` (the chain of roots of the neutral equation
accumulating at it from outside, as ``|exp(r T)|`` of the equilibrium's roots along
``Re r = log|theta p| / D`` near the Hopf point) and, near and below ``rho_ess``, the
discretisation's stand-ins for the essential spectrum -- they are reported with the rest
(their error bounds from the mesh comparison) and decide nothing the radius does not. A
cycle is stable only when every non-trivial multiplier and ``rho_ess`` are below 1 by
more than their errors; ``rho_ess > 1`` (the difference operator unstable along the orbit)
makes it unstable.
"""

from __future__ import annotations

import math

import numpy as np

from symdelay.analysis.bvp import Collocation, NewtonFailed, PeriodicBVP, _observed_text
from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp

__all__ = ["DelayOrbitField", "DelayBVP", "MULT_FLOOR", "MULT_KEEP", "MAX_HISTORY_NODES"]

#: Multipliers of the discretised monodromy operator below this modulus are the
#: discretisation's spurious cluster at 0 and are not reported.
MULT_FLOOR = 1e-3
#: At most this many multipliers (the largest in modulus) are reported.
MULT_KEEP = 16
#: Steps of the difference operator's products for a neutral model's essential radius.
ESSENTIAL_STEPS = 2000
#: The largest monodromy matrix (history nodes x augmented states) formed: its dense
#: eigenvalues take seconds at this size, twice per cycle.
MAX_HISTORY_NODES = 3000


class DelayOrbitField:
    """The flattened fluid equations of a delay model (module docstring) with ``p`` (the
    parameter continued) free: ``F`` and its derivatives, the look-backs ``s_k(p)``, the
    windows, the augmented equilibrium, and the observed weights: the imbalance of a model
    with a symmetry, its first state otherwise (``observed`` says which).

    ``hold``: a second parameter kept free, its value :attr:`q` (set before each
    evaluation; the curve of folds of cycles in two parameters moves it): every function
    of the field reads ``(p, q)``; the derivatives in ``p`` only."""

    def __init__(self, model, name, hold=None):
        from symdelay.analysis.stochastic import difference_weights
        from symdelay.model.lags import delayed_function

        byname = {s.name: s for s in model.parameters}
        if name not in byname:
            raise SymdelayInputError(
                f"{model.name} has no parameter {name!r} (it has {', '.join(sorted(byname))})"
            )
        sym = byname[name]
        if hold is not None and (hold not in byname or hold == name):
            raise SymdelayInputError(
                f"{model.name} has no second parameter {hold!r} to hold (give one of "
                f"{', '.join(sorted(set(byname) - {name}))})"
            )
        hsym = byname[hold] if hold is not None else None
        values = {k: v for k, v in dict(model.values).items() if k not in (sym, hsym)}
        self.model, self.name, self.symbol = model, name, sym
        self.hold, self.hold_symbol, self.q = hold, hsym, 0.0
        pre = (sym,) if hsym is None else (sym, hsym)
        self._pre_len = len(pre)
        self._delayed, self._dot = delayed_function()
        self.states = list(model.states)
        self.n_model = len(self.states)
        self.lags = {k: lag.xreplace(values) for k, lag in model.lags.items()}
        self._lagsym = {sp.Symbol(k): k for k in self.lags}
        self.base = [sp.Dummy(f"y{i}") for i in range(self.n_model)]  # augmented, grows
        self.aug_names = [s.name for s in self.states]
        self.chain_rhs = []  # derivatives of the chain phases (in base / shifted symbols)
        self.chains = {}  # (lag name, expression) -> first phase index
        self.shifts = {}  # shift expression -> index (0 is the present)
        self.shift_syms = {}  # (shift index, component) -> symbol
        self.windows = []  # [a, b, E flattened at the present, shift]
        self.window_syms = []
        self.window_keys = {}
        self.dot_syms = {}  # (shift index, component) -> symbol of dot(state) seen then
        rhs = [sp.Integer(0)] * self.n_model
        for t in model.transitions:
            rate = t.rate.xreplace(values)
            label = f"transition '{t.name}'"
            if t.lag:
                val = self._channel(rate, self.lags[t.lag], sp.Integer(0), label)
            else:
                val = self._flat(rate, sp.Integer(0), label)
            for i, c in enumerate(t.change):
                if c != 0:
                    rhs[i] += c * val
        drift = rhs + self.chain_rhs
        n = len(self.base)
        self.n = n
        free = set().union(*(e.free_symbols for e in drift)) - self._all_syms() - set(pre)
        for s in self.shifts:
            free |= s.free_symbols - set(pre)
        for a, b, _e, sh in self.windows:
            free |= (a.free_symbols | b.free_symbols | sh.free_symbols) - set(pre)
        if free:
            raise SymdelayInputError(
                "the cycles need numbers for every parameter but the one continued: give "
                + ", ".join(sorted(map(str, free)))
            )
        # ------------------------------------------------------------- compiled pieces
        shift_list = sorted(self.shifts, key=lambda e: self.shifts[e])
        self.shift_exprs = shift_list
        self.K = len(shift_list) + 1  # index 0 is the present
        groups = [self.base] + [
            [self.shift_syms.get((k, i)) or sp.Dummy("unused") for i in range(n)]
            for k in range(1, self.K)
        ]
        self._groups = groups
        #: neutral: dot(state) seen at each look-back (the profile's derivative there)
        self.neutral = bool(self.dot_syms)
        if len({k for k, _ in self.dot_syms}) > 1:
            raise SymdelayInputError(
                f"{model.name} reads dot() at several look-backs: the essential spectrum "
                "of its difference operator (the cycles' stability) is built for one neutral "
                "look-back"
            )
        dgroups = [
            [self.dot_syms.get((k, i)) or sp.Dummy("unused") for i in range(n)]
            for k in range(self.K)
        ]
        args = [*pre] + [s for g in groups for s in g] + list(self.window_syms)
        if self.neutral:
            args += [s for g in dgroups for s in g]
        self._args_len = len(args)
        self._f = sp.lambdify(args, drift, "numpy", cse=True)
        self._jac_groups = [
            sp.lambdify(args, [sp.diff(e, s) for e in drift for s in g], "numpy", cse=True)
            for g in groups
        ]
        self._jd = [
            sp.lambdify(args, [sp.diff(e, s) for e in drift for s in g], "numpy", cse=True)
            for g in (dgroups if self.neutral else ())
        ]
        self._jw = sp.lambdify(
            args, [sp.diff(e, w) for e in drift for w in self.window_syms], "numpy", cse=True
        )
        self._fp = sp.lambdify(args, [sp.diff(e, sym) for e in drift], "numpy", cse=True)
        self._shift = sp.lambdify(pre, shift_list, "numpy")
        self._dshift = sp.lambdify(pre, [sp.diff(e, sym) for e in shift_list], "numpy")
        wins = [(a, b, sh) for a, b, _e, sh in self.windows]
        self._wab = sp.lambdify(pre, [x for w in wins for x in w], "numpy")
        self._dwab = sp.lambdify(pre, [sp.diff(x, sym) for w in wins for x in w], "numpy")
        self._wE = [sp.lambdify([*pre, *self.base], e, "numpy") for _a, _b, e, _s in self.windows]
        self._wdE = [
            sp.lambdify([*pre, *self.base], [sp.diff(e, y) for y in self.base], "numpy")
            for _a, _b, e, _s in self.windows
        ]
        # the equilibrium of the model's states (closed form in p) and of the chains
        eq = model.equilibrium
        if not eq.exact:
            raise SymdelayInputError(
                f"the equilibrium of {model.name} has no closed form in {name}: the "
                "continuation starts from it"
            )
        point = [sp.sympify(eq.point[s]).xreplace(values) for s in self.states]
        if set().union(*(e.free_symbols for e in point)) - set(pre):
            raise SymdelayInputError(f"the equilibrium of {model.name} needs numbers")
        self._eq = sp.lambdify(pre, point, "numpy")
        w = difference_weights(model)
        if w is None:  # no symmetry: the first state is observed
            w = [1] + [0] * (self.n_model - 1)
        self.observed = _observed_text(self.states, w)
        self.weights = np.zeros(n)
        self.weights[: self.n_model] = np.array(w, dtype=float)
        self.names = tuple(self.aug_names)
        # the sparse pattern PeriodicBVP's budget reads: every entry (the blocks are small)
        self.rows = np.repeat(np.arange(n), n)
        self.cols = np.tile(np.arange(n), n)

    # ---------------------------------------------------------------- flattening
    def _all_syms(self) -> set:
        return (
            set(self.base)
            | set(self.shift_syms.values())
            | set(self.window_syms)
            | set(self.dot_syms.values())
        )

    def _at(self, shift):
        """The index of the look-back ``shift`` (0: the present)."""
        if shift == 0:
            return 0
        if shift not in self.shifts:
            self.shifts[shift] = len(self.shifts) + 1
        return self.shifts[shift]

    def _sym(self, k, i):
        if k == 0:
            return self.base[i]
        key = (k, i)
        if key not in self.shift_syms:
            self.shift_syms[key] = sp.Dummy(f"y{i}_{k}")
        return self.shift_syms[key]

    def _shifted(self, expr, shift):
        """``expr`` (in the present augmented symbols) seen ``shift`` ago."""
        k = self._at(shift)
        if k == 0:
            return expr
        return expr.xreplace({b: self._sym(k, i) for i, b in enumerate(self.base)})

    def _flat(self, expr, shift, label):
        """A model expression (states, ``delayed(...)``) at ``t - shift`` in the flattened
        symbols."""
        every = expr.atoms(self._delayed)
        # the outermost look-ups only (an inner one is read at its outer one's shift)
        occ = [o for o in every if not any(o2 != o and o2.args[0].has(o) for o2 in every)]
        rep = {}
        for o in occ:
            lag = self.lags[self._lagsym[o.args[1]]]
            rep[o] = self._channel(o.args[0], lag, shift, label)
        e = expr.xreplace(rep)
        k = self._at(shift)
        dots = e.atoms(self._dot)
        if dots:  # dot(x) seen ``shift`` ago: the profile's derivative there (neutral)
            if k == 0:
                raise SymdelayInputError(
                    f"{label}: dot() is read at the present or through a lag that is not a "
                    "constant delay: the periodic orbits read dot() through constant lags only"
                )
            drep = {}
            for d in dots:
                if d.args[0] not in self.states:
                    raise SymdelayInputError(
                        f"{label}: dot() of {d.args[0]}, not of a state: read dot(x) of a state x"
                    )
                i = self.states.index(d.args[0])
                if (k, i) not in self.dot_syms:
                    self.dot_syms[(k, i)] = sp.Dummy(f"dy{i}_{k}")
                drep[d] = self.dot_syms[(k, i)]
            e = e.xreplace(drep)
        return e.xreplace({s: self._sym(k, i) for i, s in enumerate(self.states)})

    def _channel(self, expr, lag, shift, label):
        a = lag.args
        if lag.kind == "constant":
            return self._flat(expr, shift + a["value"], label)
        if lag.kind == "mixture":
            return sp.Add(
                *[w * self._channel(expr, m, shift, label) for w, m in zip(a["weights"], a["lags"])]
            )
        if lag.kind == "uniform":
            present = self._flat(expr, sp.Integer(0), label)
            if any(v not in self.base for v in present.free_symbols if isinstance(v, sp.Dummy)):
                raise SymdelayInputError(
                    f"{label}: the uniform lag '{lag.name}' averages an expression that "
                    "itself reads a lag: not supported by the periodic orbits"
                )
            key = (lag.name, expr, shift)
            if key not in self.window_keys:
                self.window_keys[key] = len(self.windows)
                self.windows.append((a["low"], a["high"], present, shift))
                self.window_syms.append(sp.Dummy(f"W{len(self.windows)}"))
            return self.window_syms[self.window_keys[key]]
        if lag.kind == "gamma" and not a["shape"].is_Integer:
            raise SymdelayInputError(
                f"{label}: the lag '{lag.name}' is a gamma law of non-integer shape "
                f"{a['shape']}: it has no exact chain (give an integer shape, an Erlang law, "
                "or a phase-type law)"
            )
        if lag.kind == "exponential":
            alpha, S = [sp.Integer(1)], sp.Matrix([[-1 / a["mean"]]])
        elif lag.kind == "gamma":
            k = int(a["shape"])
            rate = k / a["mean"]
            alpha = [sp.Integer(1)] + [sp.Integer(0)] * (k - 1)
            S = sp.Matrix(k, k, lambda i, j: -rate if i == j else (rate if j == i + 1 else 0))
        else:
            alpha = list(a["alpha"])
            S = sp.Matrix(a["S"])
        key = (lag.name, expr)
        m = len(alpha)
        if key not in self.chains:
            first = len(self.base)
            self.chains[key] = first
            z = [sp.Dummy(f"z{first + j}") for j in range(m)]
            self.base.extend(z)
            for j in range(m):
                self.aug_names.append(f"{lag.name}[{j}]")
            inp = self._flat(expr, sp.Integer(0), label)
            zv = sp.Matrix(z)
            dz = S.T * zv + sp.Matrix(alpha) * inp
            self.chain_rhs.extend(list(dz))
        first = self.chains[key]
        z = sp.Matrix(self.base[first : first + m])
        exit_rates = -S * sp.ones(m, 1)
        out = self._shifted((z.T * exit_rates)[0, 0], shift)
        return out + (1 - sp.Add(*alpha)) * self._flat(expr, shift, label)

    # ------------------------------------------------------------------ numbers
    def _pv(self, p):
        """The lambdified functions' leading arguments: ``p`` (and the held ``q``)."""
        return (float(p),) if self._pre_len == 1 else (float(p), float(self.q))

    def shift_values(self, p):
        """The look-backs ``s_k(p)`` (index 0, the present, is 0) and their derivatives."""
        s = np.array([float(v) for v in self._shift(*self._pv(p))]) if self.K > 1 else np.zeros(0)
        ds = np.array([float(v) for v in self._dshift(*self._pv(p))]) if self.K > 1 else np.zeros(0)
        return np.concatenate([[0.0], s]), np.concatenate([[0.0], ds])

    def window_values(self, p):
        """``(a, b, shift)`` of each window and their derivatives in ``p``: shape
        ``(J, 3)``."""
        J = len(self.windows)
        if not J:
            return np.zeros((0, 3)), np.zeros((0, 3))
        v = np.array([float(x) for x in self._wab(*self._pv(p))]).reshape(J, 3)
        d = np.array([float(x) for x in self._dwab(*self._pv(p))]).reshape(J, 3)
        return v, d

    def max_lookback(self, p) -> float:
        s, _ = self.shift_values(p)
        w, _ = self.window_values(p)
        return float(max([0.0, *s, *(w[:, 1] + w[:, 2])]))

    def _args(self, p, Ys, Ws, Ds=None):
        """The lambdified functions' arguments: ``Ys`` (K, M, n), ``Ws`` (J, M) and, for a
        neutral model, ``Ds`` (K, M, n) the derivatives seen at each look-back (default 0:
        an equilibrium)."""
        M = Ys.shape[1]
        out = [np.full(M, v) for v in self._pv(p)]
        for k in range(self.K):
            out.extend(Ys[k].T)
        out.extend(Ws)
        if self.neutral:
            Ds = np.zeros_like(Ys) if Ds is None else Ds
            for k in range(self.K):
                out.extend(Ds[k].T)
        return out

    @staticmethod
    def _stack(vals, M):
        out = np.empty((len(vals), M))
        for k, v in enumerate(vals):
            out[k] = v
        return out

    def f(self, Ys, Ws, p, Ds=None):
        """``F`` at ``M`` points: shape ``(M, n)``."""
        M = Ys.shape[1]
        with np.errstate(over="ignore", invalid="ignore"):
            return self._stack(self._f(*self._args(p, Ys, Ws, Ds)), M).T

    def fp(self, Ys, Ws, p, Ds=None):
        M = Ys.shape[1]
        with np.errstate(over="ignore", invalid="ignore"):
            return self._stack(self._fp(*self._args(p, Ys, Ws, Ds)), M).T

    def djacobians(self, Ys, Ws, p, Ds=None):
        """A neutral model's ``dF/dy'(t - s_k)`` for each look-back: shape
        ``(K, M, n, n)`` (zeros at the present and wherever no ``dot()`` is read)."""
        M, n = Ys.shape[1], self.n
        args = self._args(p, Ys, Ws, Ds)
        with np.errstate(over="ignore", invalid="ignore"):
            return np.stack([self._stack(g(*args), M).T.reshape(M, n, n) for g in self._jd])

    def jacobians(self, Ys, Ws, p, Ds=None):
        """``dF/dy(t - s_k)`` for each look-back: shape ``(K, M, n, n)``; ``dF/dW_j``:
        shape ``(J, M, n)``."""
        M, n = Ys.shape[1], self.n
        args = self._args(p, Ys, Ws, Ds)
        with np.errstate(over="ignore", invalid="ignore"):
            A = np.stack([self._stack(g(*args), M).T.reshape(M, n, n) for g in self._jac_groups])
            J = len(self.windows)
            if J:
                B = self._stack(self._jw(*args), M).T.reshape(M, n, J).transpose(2, 0, 1)
            else:
                B = np.zeros((0, M, n))
        return A, B

    def window_source(self, j, Y, p):
        """``E_j`` at rows of ``Y`` and its gradient: shapes ``(M,)`` and ``(M, n)``."""
        M = Y.shape[0]
        with np.errstate(over="ignore", invalid="ignore"):
            e = np.broadcast_to(self._wE[j](*self._pv(p), *Y.T), (M,)).astype(float)
            g = self._stack(self._wdE[j](*self._pv(p), *Y.T), M).T
        return e, g

    def equilibrium(self, p):
        """The augmented equilibrium at ``p``: the model's closed form, the chains' phases
        from their linear steady equations."""
        x = np.array([float(v) for v in self._eq(*self._pv(p))])
        n, nm = self.n, self.n_model
        y = np.concatenate([x, np.zeros(n - nm)])
        if n == nm:
            return y
        # the chains are linear in their phases with the states held: Newton's one step
        for _ in range(3):
            Ys = np.repeat(y[None, None, :], self.K, axis=0)
            Ws = np.array([[self.window_source(j, y[None, :], p)[0][0]]
                           for j in range(len(self.windows))]).reshape(-1, 1)  # fmt: skip
            F = self.f(Ys, Ws, p)[0]
            A, _ = self.jacobians(Ys, Ws, p)
            Jz = A.sum(axis=0)[0][nm:, nm:]
            y[nm:] -= np.linalg.solve(Jz, F[nm:])
        return y

    def characteristic(self, p, lam):
        """The augmented characteristic matrix ``Delta(lam)`` at the equilibrium."""
        y = self.equilibrium(p)
        Ys = np.repeat(y[None, None, :], self.K, axis=0)
        J = len(self.windows)
        Ws = np.array([[self.window_source(j, y[None, :], p)[0][0]] for j in range(J)])
        Ws = Ws.reshape(J, 1)
        A, B = self.jacobians(Ys, Ws, p)
        s, _ = self.shift_values(p)
        D = lam * np.eye(self.n, dtype=complex)
        for k in range(self.K):
            D -= A[k, 0] * np.exp(-lam * s[k])
        if self.neutral:  # the derivative terms: lam M_k exp(-lam s_k)
            Ad = self.djacobians(Ys, Ws, p)
            for k in range(self.K):
                D -= lam * Ad[k, 0] * np.exp(-lam * s[k])
        wv, _ = self.window_values(p)
        for j in range(J):
            a, b, sh = wv[j]
            _, g = self.window_source(j, y[None, :], p)
            ker = np.exp(-lam * (sh + a)) * (
                (1 - np.exp(-lam * (b - a))) / (lam * (b - a)) if lam * (b - a) != 0 else 1.0
            )
            D -= np.outer(B[j, 0], g[0]) * ker
        return D


# ------------------------------------------------------------------------- geometry
def _locate(coll: Collocation, tau):
    """For times ``tau`` (any real, on the periodic profile): ``(period, interval, basis,
    derivative basis)``: ``floor(tau)``, the mesh interval of ``tau mod 1``, the Lagrange
    basis there (``(M, m+1)``) and its derivative in ``t``."""
    tau = np.asarray(tau, dtype=float)
    k = np.floor(tau)
    u = tau - k
    j = np.clip(np.searchsorted(coll.mesh, u, side="right") - 1, 0, coll.N - 1)
    z = (u - coll.mesh[j]) / coll.h[j]
    q = np.arange(coll.m + 1)
    P = z[:, None] ** q[None, :]  # the monomials at once (the basis is P @ C)
    dP = np.zeros_like(P)
    dP[:, 1:] = q[1:] * P[:, :-1]
    return k.astype(int), j, P @ coll.C, (dP @ coll.C) / coll.h[j][:, None]


def _second(coll: Collocation, tau):
    """The second derivative in ``t`` of the Lagrange basis at times ``tau`` (any real, on
    the periodic profile): ``(M, m + 1)``."""
    _, j, _, _ = _locate(coll, tau)
    u = np.asarray(tau, dtype=float) - np.floor(tau)
    z = (u - coll.mesh[j]) / coll.h[j]
    P = np.stack(
        [q * (q - 1) * z ** (q - 2) if q > 1 else 0 * z for q in range(coll.m + 1)], axis=-1
    )
    return (P @ coll.C) / (coll.h[j] ** 2)[:, None]


def _window_nodes(mesh, lo, hi, m: int):
    """Gauss--Legendre nodes and weights of the mean over ``[lo_i, hi_i]`` (scaled times,
    any reals) of a function that is a polynomial of degree ``m`` on every interval of the
    periodic ``mesh``: each window cut at the mesh points it contains (wrapped modulo 1),
    ``m + 1`` points on each piece (exact up to degree ``2 m + 1``). Returns ``(tau,
    weight)``, shape ``(M, Q)``, the weights of each row summing to 1 (padding pieces of
    length 0 carry weight 0)."""
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    k0, k1 = math.floor(float(lo.min())), math.ceil(float(hi.max()))
    breaks = (mesh[:-1][None, :] + np.arange(k0, k1 + 1)[:, None]).ravel()
    i0 = np.searchsorted(breaks, lo, side="right")
    i1 = np.searchsorted(breaks, hi, side="left")
    count = i1 - i0  # mesh points strictly inside each window
    S = int(count.max()) + 1
    j = np.arange(S - 1)[None, :]
    inner = breaks[np.minimum(i0[:, None] + j, breaks.size - 1)]
    inner = np.where(j < count[:, None], inner, hi[:, None])
    ends = np.concatenate([lo[:, None], inner, hi[:, None]], axis=1)  # (M, S + 1)
    length = np.diff(ends, axis=1)  # (M, S)
    x, w = np.polynomial.legendre.leggauss(m + 1)
    x, w = (x + 1) / 2, w / 2
    tau = ends[:, :-1, None] + length[:, :, None] * x[None, None, :]
    weight = length[:, :, None] * w[None, None, :] / (hi - lo)[:, None, None]
    M = lo.size
    return tau.reshape(M, -1), weight.reshape(M, -1)


def _entries(coll, terms, nodes_of):
    """The sparse entries of the look-up terms ``[(C (M, Q, n, n), tau (M, Q)[, True])]``
    of the linearised collocation equations (``True``: ``C`` multiplies the derivative
    ``v'(tau)``, a neutral term; row block ``g`` for the Gauss point ``g``):
    ``[(rows, cols, values)]``, the columns the nodes ``nodes_of(period, interval)`` (an
    ``(M Q, m + 1)`` array of node indices) times ``n`` plus the component.

    A window's quadrature points come in pieces of ``m + 1`` inside one mesh interval
    (:func:`_window_nodes`): their coefficients on that interval's ``m + 1`` nodes are
    summed per piece first (``m + 1`` times fewer entries for the sparse matrix to sort and
    add up), when every piece does lie in one interval of ``coll``."""
    out = []
    for C, tau, *deriv in terms:
        M, Q, n, _ = C.shape
        m1 = coll.m + 1
        kp, jj, B, dB = _locate(coll, tau.ravel())
        if deriv and deriv[0]:
            B = dB
        B = B.reshape(M, Q, m1)
        if Q > 1 and Q % m1 == 0:
            S = Q // m1
            kq, jq = kp.reshape(M, S, m1), jj.reshape(M, S, m1)
            if np.all(kq == kq[:, :, :1]) and np.all(jq == jq[:, :, :1]):
                v = np.einsum("msqk,msqab->mskab", B.reshape(M, S, m1, m1),
                              C.reshape(M, S, m1, n, n))  # fmt: skip
                nodes = nodes_of(kq[:, :, 0].ravel(), jq[:, :, 0].ravel()).reshape(M, S, m1)
                shape = (M, S, m1, n, n)
                r = (np.arange(M)[:, None, None, None, None] * n
                     + np.arange(n)[None, None, None, :, None])  # fmt: skip
                c = nodes[:, :, :, None, None] * n + np.arange(n)[None, None, None, None, :]
                rows = np.broadcast_to(r, shape).ravel()
                out.append((rows, np.broadcast_to(c, shape).ravel(), v.ravel()))
                continue
        nodes = nodes_of(kp, jj).reshape(M, Q, m1)
        shape = (M, Q, m1, n, n)
        r = np.arange(M)[:, None, None, None, None] * n + np.arange(n)[None, None, None, :, None]
        c = nodes[:, :, :, None, None] * n + np.arange(n)[None, None, None, None, :]
        v = B[:, :, :, None, None] * C[:, :, None, :, :]
        out.append(
            (np.broadcast_to(r, shape).ravel(), np.broadcast_to(c, shape).ravel(), v.ravel())
        )
    return out


class DelayBVP(PeriodicBVP):
    """:class:`~symdelay.analysis.bvp.PeriodicBVP` for a delay model: the residual and the
    sparse Jacobian with the look-ups on the periodic profile, and the Floquet multipliers
    of the discretised monodromy operator (module docstring)."""

    # ------------------------------------------------------------ look-ups
    def _lookups(self, coll, U, T, p, times, orbit=None):
        """Everything the equations read at ``times``: the look-up geometry of every
        look-back and window node, the values ``Ys`` (K, M, n), ``Ws`` (J, M) and what
        the derivatives need. ``orbit``: ``(coll, U)`` the values are read from (default
        ``(coll, U)``)."""
        oc, oU = (coll, U) if orbit is None else orbit
        fld = self.F
        s, ds = fld.shift_values(p)
        M = times.size
        looks = []  # (k index, tau array) for the look-backs
        Ys = np.empty((fld.K, M, fld.n))
        Yd = np.empty((fld.K, M, fld.n))
        Ydd = np.zeros((fld.K, M, fld.n)) if fld.neutral else None
        Ue = oc.extended(oU)
        for k in range(fld.K):
            tau = times - s[k] / T
            _, jj, B, dB = _locate(oc, tau)  # one location for the value and the slope
            Uj = Ue[jj]
            Ys[k] = np.einsum("tk,tkn->tn", B, Uj)
            Yd[k] = np.einsum("tk,tkn->tn", dB, Uj)
            if k and fld.neutral:
                Ydd[k] = np.einsum("tk,tkn->tn", _second(oc, tau), Uj)
            looks.append(tau)
        wv, wd = fld.window_values(p)
        wins = []
        Ws = np.empty((len(fld.windows), M))
        for j in range(len(fld.windows)):
            a, b, sh = wv[j]
            da, db, dsh = wd[j]
            # the window [t - (sh + b)/T, t - (sh + a)/T] cut at the orbit's mesh points
            tau, w = _window_nodes(oc.mesh, times - (sh + b) / T, times - (sh + a) / T, oc.m)
            sq = (times[:, None] - tau) * T  # look-backs of the nodes (M, Q)
            x = (sq - sh - a) / (b - a)  # their place in the window
            dsq = dsh + da + (db - da) * x  # d sq / dp at a fixed place
            _, jj, B, dB = _locate(oc, tau.ravel())
            Uj = Ue[jj]
            Y = np.einsum("tk,tkn->tn", B, Uj)
            e, g = fld.window_source(j, Y, p)
            Ws[j] = (e.reshape(M, -1) * w).sum(axis=1)
            yd = np.einsum("tk,tkn->tn", dB, Uj)
            wins.append((tau, sq, dsq, w, g.reshape(M, -1, fld.n), yd.reshape(M, -1, fld.n)))
        return s, ds, looks, Ys, (Yd, Ydd), Ws, wins

    def colloc(self, coll, U, T, p):
        N, m, n = coll.N, coll.m, self.F.n
        tg = (coll.mesh[:-1, None] + coll.h[:, None] * coll.z[None, :]).ravel()
        _, Ud = coll.at_gauss(U)
        s, ds, looks, Ys, Yd, Ws, wins = self._lookups(coll, U, T, p, tg)
        F = self.F.f(Ys, Ws, p, Yd[0] / T).reshape(N, m, n)
        R = Ud - (coll.h * T)[:, None, None] * F
        self._cache = (id(U), T, p, coll, s, ds, looks, Ys, Yd, Ws, wins, self.F.q)
        return R.ravel(), Ys[0].reshape(N, m, n), F

    def _gauss_rows(self, coll, T, p, Ys, Yd, Ws, wins, s, ds, looks, with_p):
        """The linearised collocation equations' pieces at the Gauss points:
        ``[(rows coefficient (M, n, n), tau (M,))...]`` for the look-ups, and the columns
        in ``T`` and ``p`` (``(M, n)``)."""
        fld = self.F
        m = coll.m
        hT = np.repeat(coll.h * T, m)  # (M,)
        Yd, Ydd = Yd
        Ds = Yd / T  # the derivatives in the model's time, read by a neutral model
        A, Bw = fld.jacobians(Ys, Ws, p, Ds)
        terms = []
        colT = -np.repeat(coll.h, m)[:, None] * fld.f(Ys, Ws, p, Ds)
        colp = None
        if with_p:
            colp = -hT[:, None] * fld.fp(Ys, Ws, p, Ds)
        if fld.neutral:
            # F reads u'(t - s_k/T) / T: its coefficient of v'(tau) is dF/dy' / T, and its
            # motion in T and p (u'' at the moving look-back, the 1/T)
            Ad = fld.djacobians(Ys, Ws, p, Ds)
            for k in range(1, fld.K):
                if not np.any(Ad[k]):
                    continue
                terms.append(((-np.repeat(coll.h, m)[:, None, None] * Ad[k])[:, None],
                              looks[k][:, None], True))  # fmt: skip
                dT = Ydd[k] * (s[k] / T**3) - Yd[k] / T**2
                colT += -hT[:, None] * np.einsum("mab,mb->ma", Ad[k], dT)
                if with_p:
                    dp = -Ydd[k] * (ds[k] / T**2)
                    colp += -hT[:, None] * np.einsum("mab,mb->ma", Ad[k], dp)
        for k in range(fld.K):
            terms.append(((-hT[:, None, None] * A[k])[:, None], looks[k][:, None]))
            if k:
                colT += -hT[:, None] * np.einsum("mab,mb->ma", A[k], Yd[k]) * (s[k] / T**2)
                if with_p:
                    colp += -hT[:, None] * np.einsum("mab,mb->ma", A[k], Yd[k]) * (-ds[k] / T)
        for j, (tau, sq, dsq, w, g, yd) in enumerate(wins):
            # dW = sum_q w_q g_q . v(tau_q): the coefficient of v(tau_q) is B_j (x) w_q g_q
            C = np.einsum("ma,mqb,mq->mqab", Bw[j], g, w)
            terms.append((-hT[:, None, None, None] * C, tau))
            gy = np.einsum("mqb,mqb,mq->mq", g, yd, w)  # (M, Q): g_q . u'(tau_q) w_q
            colT += -hT[:, None] * Bw[j] * (gy * (sq / T**2)).sum(axis=1)[:, None]
            if with_p:
                colp += -hT[:, None] * Bw[j] * (gy * (-dsq / T)).sum(axis=1)[:, None]
        return terms, colT, colp

    def matrix(self, coll, U, T, p, Ug, F, borders, with_p=True):
        from scipy.sparse import csc_matrix

        N, m, n = coll.N, coll.m, self.F.n
        NU = N * m * n
        c = getattr(self, "_cache", None)
        if (
            c is None
            or c[0] != id(U)
            or c[1] != T
            or c[2] != p
            or c[3] is not coll
            or c[11] != self.F.q
        ):
            self.colloc(coll, U, T, p)
            c = self._cache
        _, _, _, _, s, ds, looks, Ys, Yd, Ws, wins, _ = c
        terms, colT, colp = self._gauss_rows(coll, T, p, Ys, Yd, Ws, wins, s, ds, looks, with_p)
        M = N * m
        g = np.arange(M)
        rows, cols, data = [], [], []
        # u' at the Gauss points
        j = g // m
        i = g % m
        for kk in range(m + 1):
            node = coll.idx[j, kk]
            for a in range(n):
                rows.append(g * n + a)
                cols.append(node * n + a)
                data.append(coll.Dg[i, kk])
        for r, cc, v in _entries(coll, terms, lambda kp, jj: coll.idx[jj]):
            rows.append(r)
            cols.append(cc)
            data.append(v)
        rows.append(np.arange(NU))
        cols.append(np.full(NU, NU))
        data.append(colT.ravel())
        ncol = NU + 1
        if with_p:
            rows.append(np.arange(NU))
            cols.append(np.full(NU, NU + 1))
            data.append(colp.ravel())
            ncol += 1
        for b, (gU, gT, gp) in enumerate(borders):
            rows += [np.full(NU, NU + b), np.array([NU + b])]
            cols += [np.arange(NU), np.array([NU])]
            data += [gU.ravel(), np.array([gT])]
            if with_p:
                rows.append(np.array([NU + b]))
                cols.append(np.array([NU + 1]))
                data.append(np.array([gp]))
        return csc_matrix(
            (np.concatenate(data), (np.concatenate(rows), np.concatenate(cols))),
            shape=(NU + len(borders), ncol),
        )

    # ------------------------------------------------------------------ Floquet
    def _monodromy(self, cm, coll, U, T, p, with_map=False):
        """The monodromy matrix on the history nodes of the mesh ``cm`` (the orbit read
        from ``(coll, U)``), and the times of those nodes; ``with_map``: also the map ``X``
        from the history nodes to the new nodes (``t`` in ``(0, 1]``)."""
        from scipy.sparse import coo_matrix

        fld = self.F
        N, m, n = cm.N, cm.m, fld.n
        Nm = N * m
        tg = (cm.mesh[:-1, None] + cm.h[:, None] * cm.z[None, :]).ravel()
        s, ds, looks, Ys, Yd, Ws, wins = self._lookups(cm, U, T, p, tg, orbit=(coll, U))
        terms, _, _ = self._gauss_rows(cm, T, p, Ys, Yd, Ws, wins, s, ds, looks, False)
        back = fld.max_lookback(p) / T
        K = max(1, math.ceil(back - 1e-12))
        size = (K + 1) * Nm + 1  # nodes of [-K, 1]
        # the first history node needed: the start of the interval holding -back
        kb, jb, _, _ = _locate(cm, np.array([-back]))
        first = (int(kb[0]) + K) * Nm + int(jb[0]) * m
        first = min(first, K * Nm)
        hist = K * Nm + 1 - first
        if hist * n > MAX_HISTORY_NODES:
            raise SymdelayInputError(
                f"the monodromy matrix of the cycle at {self.F.name} = {p:.10g} would have "
                f"{hist * n} rows (over {MAX_HISTORY_NODES}: the longest look-back is "
                f"{back:.3g} periods): fewer intervals"
            )
        A = np.zeros((Nm * n, size * n))
        g = np.arange(Nm)
        jg, ig = g // m, g % m
        base0 = K * Nm
        for kk in range(m + 1):
            node = base0 + jg * m + kk
            for a in range(n):
                A[g * n + a, node * n + a] += cm.Dg[ig, kk]

        def nodes_of(kp, jj):
            return (kp[:, None] + K) * Nm + jj[:, None] * m + np.arange(m + 1)[None, :]

        parts = _entries(cm, terms, nodes_of)
        r = np.concatenate([x[0] for x in parts])
        c = np.concatenate([x[1] for x in parts])
        if np.any(c < first * n) or np.any(c >= size * n):
            raise NewtonFailed("a look-back fell outside the history segment")
        A += coo_matrix((np.concatenate([x[2] for x in parts]), (r, c)), shape=A.shape).toarray()
        H = A[:, first * n : (base0 + 1) * n]
        New = A[:, (base0 + 1) * n :]
        X = np.linalg.solve(New, -H)  # new nodes (t in (0, 1]) from the history
        Mx = np.zeros((hist * n, hist * n))
        for r in range(hist):
            src = first + r + Nm  # the node one period later
            if src <= base0:
                Mx[r * n : (r + 1) * n, (src - first) * n : (src - first + 1) * n] = np.eye(n)
            else:
                q = src - base0 - 1
                Mx[r * n : (r + 1) * n] = X[q * n : (q + 1) * n]
        # the node times: period, interval, node within it
        idx = np.arange(first, base0 + 1)
        per = idx // Nm - K
        loc = idx % Nm
        tn = per + cm.mesh[loc // m] + cm.h[np.minimum(loc // m, N - 1)] * cm.s[loc % m]
        if with_map:
            return Mx, tn, X
        return Mx, tn

    def pd_eigenfunction(self, orbit):
        """``(rho, V)``: the real multiplier of the discretised monodromy nearest -1 and its
        eigenfunction over one period at the orbit's mesh nodes (``V`` shaped like
        ``orbit.U``: the eigenvector's value at ``t = 0`` and the new nodes it maps to,
        so ``v(1) = rho v(0)``), normalised to ``int |v|^2 dt = 1`` -- what
        :func:`symdelay.analysis.doubling.first_doubled` needs of a delay model."""
        coll, n = orbit.coll, self.F.n
        Mx, _, X = self._monodromy(coll, coll, orbit.U, orbit.T, orbit.p, with_map=True)
        ev, W = np.linalg.eig(Mx)
        k = int(np.argmin(np.abs(ev + 1)))
        v = np.real(W[:, k])
        new = (X @ v).reshape(-1, n)  # the nodes at t in (0, 1]: the last is t = 1
        V = np.vstack([v.reshape(-1, n)[-1:], new[:-1]])
        norm = math.sqrt(float(np.sum(coll.ip_weights(V) * V)))
        return complex(ev[k]), V / norm

    def essential_radius(self, coll, U, T, p, steps: int = ESSENTIAL_STEPS):
        """A neutral model's essential spectral radius of the monodromy operator at the
        orbit ``(coll, U, T, p)``, with an error estimate: ``(radius, error)``, or None for a
        retarded model.

        The neutral part of the variational equation, ``v'(t) = A_d(t) v'(t - s) + ...``
        (``A_d`` the derivative of ``F`` in the ``dot()`` seen ``s`` ago, periodic along
        the orbit), leaves the difference operator ``w(t) = A_d(t) w(t - s)``, whose
        spectrum over one period is the monodromy's essential spectrum (Hale & Verduyn
        Lunel, ch. 9): its radius is ``exp(chi T)``, ``chi`` the exponent of the products
        ``A_d(t) A_d(t - s) ... A_d(t - (n-1) s)`` per unit time (their largest Lyapunov
        exponent; for a scalar ``A_d = c(t)`` with ``s / T`` irrational, the mean of
        ``log |c|`` over the orbit over ``s``). Computed from eight starting times over
        ``steps`` steps each (the largest), the error the change from ``steps / 2``
        steps."""
        fld = self.F
        if not fld.neutral:
            return None
        k = next(iter({k for k, _ in fld.dot_syms}))
        s, _ = fld.shift_values(p)
        starts = (np.arange(8) + 0.5) / 8
        times = (starts[:, None] - np.arange(steps)[None, :] * (s[k] / T)).ravel()
        _, _, _, Ys, (Yd, _), Ws, _ = self._lookups(coll, U, T, p, times)
        Ad = fld.djacobians(Ys, Ws, p, Yd / T)[k].reshape(8, steps, fld.n, fld.n)
        rng = np.random.default_rng(0)
        w = rng.standard_normal((8, fld.n))
        w /= np.linalg.norm(w, axis=1)[:, None]
        logs = np.zeros((8, steps))
        for j in range(steps - 1, -1, -1):  # the product applied to the oldest first
            w = np.einsum("iab,ib->ia", Ad[:, j], w)
            nw = np.linalg.norm(w, axis=1)
            if not np.all(nw > 0):  # a nilpotent difference operator: no essential part
                return 0.0, 0.0
            logs[:, steps - 1 - j] = np.log(nw)
            w /= nw[:, None]
        half = steps // 2
        # the exponent from the second half (the first lets the vector align)
        full = logs[:, half:].sum(axis=1) / ((steps - half) * s[k])
        part = logs[:, steps - half // 2 :].sum(axis=1) / ((half // 2) * s[k])
        r, r2 = math.exp(float(full.max()) * T), math.exp(float(part.max()) * T)
        return r, abs(r - r2) + 1e-12

    def floquet(self, coll, U, T, p):
        from symdelay.analysis.floquet import multiplier_errors

        M, tn = self._monodromy(coll, coll, U, T, p)
        half = coll.mesh[::2] if coll.N % 2 == 0 else np.append(coll.mesh[:-1:2], 1.0)
        coarse = Collocation(coll.m, half)
        M0, _ = self._monodromy(coarse, coll, U, T, p)
        if not (np.all(np.isfinite(M)) and np.all(np.isfinite(M0))):
            raise NewtonFailed("the monodromy matrix overflowed")
        ev, V = np.linalg.eig(M)
        ev0 = np.linalg.eigvals(M0)
        order = np.argsort(-np.abs(ev))
        ev, V = ev[order], V[:, order]
        keep = [i for i in range(min(ev.size, MULT_KEEP)) if abs(ev[i]) > MULT_FLOOR]
        ev, V = ev[keep], V[:, keep]
        # the trivial multiplier: its eigenfunction is the orbit's derivative
        _, jj, _, dB = _locate(coll, tn)
        ud = np.einsum("tk,tkn->tn", dB, coll.extended(U)[jj]).ravel()
        ud = ud / max(np.linalg.norm(ud), 1e-300)
        cos = np.abs(ud @ V.conj()) / np.linalg.norm(V, axis=0)
        k = int(np.argmax(cos))
        return ev, k, multiplier_errors(ev, ev0, k, M)
