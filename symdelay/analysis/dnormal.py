"""The Hopf normal form of a model with lags: the centre-manifold reduction through the
characteristic matrix, in Arb balls.

For a delay equation ``x' = F(x_t)`` whose linearisation is ``Delta(r) x = 0``
(:attr:`Model.characteristic_matrix`,
``Delta(r) = r I - A_0 - sum_k (r if derivative else 1) M_k K_k(r)``) with a simple pair
``+-i omega`` on the axis and no other root there, the first Lyapunov coefficient is
(Faria & Magalhaes 1995; Janssens 2010, the formula of DDE-BIFTOOL's ``nmfm_hopf``)

    c1 = 1/2 p [ C(q, q, conj q) + 2 B(q, h11) + B(conj q, h20) ],
    h20 = Delta(2 i omega)^-1 B(q, q),     h11 = Delta(0)^-1 B(q, conj q),

``Delta(i omega) q = 0``, ``p Delta(i omega) = 0``, ``p Delta'(i omega) q = 1``; ``B``,
``C`` are the second and third derivatives of ``F`` applied to *modes*: a vector ``v``
with the exponent ``lambda`` stands for the history ``v exp(lambda t)``. Without lags
``Delta(r) = r I - A`` and this is Kuznetsov's formula
(:func:`symdelay.analysis.projection.c1_coefficient`; a test proves the two equal).

The forms are computed from the transition table, never from a re-typed equation
(:class:`DelayLyapunov`): each rate is a function of the present state and of its lagged
occurrences ``u_j = delayed(E_j, k_j)``, and a transition with ``lag = NAME`` delivers its
rate through that kernel. On a product of modes with exponents ``lambda_1, ..., lambda_m``
(each term of the expansion is square-free in the modes, :func:`_partitions`), an occurrence
``u_j`` receives ``K_j(lambda_S) E_j^{(S)}`` for every subset ``S`` of the modes
(``lambda_S`` the sum of their exponents, ``E_j^{(S)}`` the Faa di Bruno term of ``E_j`` in
the states and their derivatives, ``dot(x)`` of a mode being ``lambda x``), and an action
delay multiplies the rate's term by its own kernel at ``lambda_S``. Every exponent is an
integer multiple of ``i omega`` (``q``: 1, ``conj q``: -1, ``h20``: 2, ``h11``: 0), so each
kernel is evaluated at ``k i omega``, ``K(0) = 1`` exactly.

The crossing speed in any parameter ``p`` of the model is
``r'(p) = -(p dDelta/dp q) / (p Delta' q)`` at ``i omega`` (the derivatives of the
linearisation in SymPy, evaluated in balls). Everything is evaluated in python-flint balls
around the Hopf point that :func:`symdelay.analysis.critical.critical` returns (widened by
its stated accuracy), so the sign of ``l1`` is proved where the ball excludes 0, and said
undecided with the bound otherwise.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import mpmath
import numpy as np

from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.core.precision import GUARD

__all__ = [
    "DelayLyapunov",
    "DelayHopf",
    "DelayBautin",
    "delay_lyapunov",
    "delay_normal_form_fields",
    "delay_hopf_fields",
    "bautin_l2",
    "bautin_point_l2",
]


# ------------------------------------------------------------------ set partitions
def _partitions(items: tuple) -> list:
    """Every partition of ``items`` into non-empty blocks (tuples of frozensets)."""
    if not items:
        return [()]
    first, rest = items[0], items[1:]
    out = []
    for part in _partitions(rest):
        out.append((frozenset([first]), *part))
        for i, block in enumerate(part):
            out.append((*part[:i], block | {first}, *part[i + 1 :]))
    return out


_PARTS = {}


def _parts(S: frozenset) -> list:
    key = tuple(sorted(S))
    if key not in _PARTS:
        _PARTS[key] = _partitions(key)
    return _PARTS[key]


def _subsets(S: frozenset):
    items = sorted(S)
    for k in range(1, len(items) + 1):
        for c in itertools.combinations(items, k):
            yield frozenset(c)


# ------------------------------------------------------------------ the record of one point
@dataclass(frozen=True)
class DelayBautin:
    """At one Hopf point, in ``acb`` balls, the coefficients of the Bautin normal form
    ``z' = i omega z + c1 z |z|^2 + c2 z |z|^4`` for ``q`` scaled by ``q[pin] = 1`` and
    ``p Delta'(i omega) q = 1`` (DDE-BIFTOOL's ``nmfm_genh``); ``q``, ``p`` and the residual
    of the dropped row of ``Delta(i omega) q = 0``."""

    c1: object
    c2: object
    q: list
    p: list
    residual: object


@dataclass(frozen=True)
class DelayHopf:
    """At one Hopf point, in ``acb`` balls: ``c1`` for ``q`` scaled by ``q[pin] = 1``,
    ``p Delta'(i omega) q = 1``; ``r_prime`` (``dr/dp``), the eigenvectors ``q``, ``p``; the
    residual of the dropped row of ``Delta(i omega) q = 0``; ``delta_mismatch``: the largest
    distance between ``Delta(i omega)`` built from the lifted forms and the model's
    characteristic matrix (the two constructions agree: a ball holding 0)."""

    c1: object
    r_prime: object
    q: list
    p: list
    residual: object
    delta_mismatch: object


def delay_lyapunov(model, name: str, others: tuple = (), order: int = 3) -> DelayLyapunov:
    """The model's :class:`DelayLyapunov` in the parameter ``name`` (and ``others``, the
    further free parameters of a map), cached on the model; ``order``: the highest
    derivative of the right-hand side kept (3 for ``c1``, 5 for ``c2``)."""
    key = " ".join((name, *others))
    if order != 3:
        key += f" order {order}"
    return model.cached(
        f"delay lyapunov {key}", lambda: DelayLyapunov(model, name, others, order=order)
    )


class DelayLyapunov:
    """The multilinear forms of a model's right-hand side (with or without lags) at its
    equilibrium, as functions of one free parameter ``name``, and the normal-form
    coefficients at a Hopf point (:meth:`hopf`), in Arb balls.

    The derivatives (up to the third) of every rate in the present state and in its lagged
    occurrences, and of every occurrence's expression in the states and their derivatives,
    are SymPy expressions in ``name`` at the equilibrium, evaluated once per point by one
    Arb evaluator; the kernels are :func:`symdelay.analysis.lagkernels.kernel_at`.
    ``others``: further free parameters (the second axis of a stability map); the methods
    then take ``value`` as the tuple of balls ``(name, *others)``, and ``r'`` is the
    derivative in ``name``."""

    def __init__(self, model, name: str, others: tuple = (), order: int = 3):
        from symdelay.analysis.window import _resolve

        eq = model.equilibrium
        if not eq.exact:
            raise SymdelayInputError(
                f"the normal form of {model.name} needs the equilibrium in closed form in "
                f"{name} (it is only certified numerically)"
            )
        sym, rp = _resolve(model, name)
        subs = {} if rp is None else {rp.base: rp.L / sym}
        syms = [sym]
        for other in others:
            osym, orp = _resolve(model, other)
            syms.append(osym)
            if orp is not None:
                subs[orp.base] = orp.L / osym
        self.model, self.name, self.sym, self.subs = model, name, sym, subs
        self.order = order
        self.syms = syms
        self.n = len(model.states)
        self.transitions = None  # the derivative tables, built on first use (_prepare)
        self._exprs = None
        self._f = None
        values = dict(model.values)
        self._lags = {k: lag.xreplace(values) for k, lag in model.lags.items()}
        lin = model.linearisation
        R = sp.Symbol("r")
        D = lin.matrix(R)
        if subs:
            D = D.xreplace(subs)
        self._delta = D
        self._dDelta = (D.diff(R), D.diff(sym))
        self._r = R
        self.neutral = lin.neutral
        self.linearisation = lin

    def _prepare(self) -> None:
        """The derivatives of every rate and every lagged expression at the equilibrium
        (SymPy, in the parameter), each stored once in the list the evaluator reads."""
        from symdelay.model.lags import delayed_function, occurrences, steady

        model, subs = self.model, self.subs
        eq = model.equilibrium
        values = dict(model.values)
        point = dict(eq.point)
        _, dot = delayed_function()
        states = list(model.states)
        dots = [sp.Dummy(f"d{s.name}") for s in states]
        exprs: list = []

        def at(e):
            e = e.xreplace(point)
            return e.xreplace(subs) if subs else e

        sides = dict(getattr(eq, "sides", ()))

        def smooth(f, label):
            """The smooth branch of a piecewise rate on the equilibrium's side of each switch
            (refused where the switch is not decided there: a lagged value on a kink)."""
            from symdelay.model.pieces import is_nonsmooth, select

            if not is_nonsmooth(f):
                return f
            try:
                g = select(f, sides)
            except (KeyError, TypeError, ValueError):
                g = None
            if g is None or is_nonsmooth(g):
                raise SymdelayInputError(
                    f"the normal form of {model.name}: {label} is not smooth at the equilibrium "
                    "(a switch of Min/Max/Abs/Piecewise undecided there): no Taylor expansion"
                )
            return g

        def derivatives(f, variables, base, label):
            """``{order: [(index tuple, slot)]}`` of the non-zero derivatives at ``base``."""
            f = smooth(f, label)
            used = [k for k, v in enumerate(variables) if f.has(v)]
            if self.order > 3:  # the fifth order: truncated Taylor arithmetic, exactly
                found = taylor_rows(f, used, variables, base)
                if found is not None:
                    return found
            out = {}
            known = {(): f}  # each derivative from the one of an order below
            for order in range(1, self.order + 1):
                rows = []
                for idx in itertools.combinations_with_replacement(used, order):
                    lower = known.get(idx[:-1])
                    d = 0 if lower is None else sp.diff(lower, variables[idx[-1]])
                    if d == 0:
                        continue
                    known[idx] = d
                    e = at(d.xreplace(base))
                    if e != 0:
                        rows.append((idx, len(exprs)))
                        exprs.append(e)
                out[order] = rows
            return out

        def taylor_rows(f, used, variables, base):
            """The rows of :func:`derivatives` from :func:`taylor_derivatives` (None where
            it does not expand a node)."""
            from symdelay.analysis.taylor import taylor_derivatives

            names = [variables[k] for k in used]
            bvals = {v: at(base.get(v, v)) for v in names}
            try:
                ders = taylor_derivatives(f.xreplace(subs) if subs else f, names, bvals,
                                          self.order)  # fmt: skip
            except NotImplementedError:
                return None
            out = {order: [] for order in range(1, self.order + 1)}
            for local in sorted(ders, key=lambda k: (len(k), k)):
                if not local:
                    continue
                e = at(ders[local])
                if e != 0:
                    out[len(local)].append((tuple(used[i] for i in local), len(exprs)))
                    exprs.append(e)
            return out

        zero_dots = dict.fromkeys(dots, sp.Integer(0))
        transitions = []
        for t in model.transitions:
            rate = t.rate.xreplace(values)
            occ = occurrences(rate)
            us = [sp.Dummy(f"u{j}") for j in range(len(occ))]
            plain = rate.xreplace(dict(zip(occ, us)))
            steady_u = {u: steady(o) for u, o in zip(us, occ)}
            label = f"the rate of '{t.name}'"
            rate_d = derivatives(plain, states + us, steady_u, label)
            occs = []
            for o in occ:
                expr, lag = o.args
                E = expr.xreplace({dot(s): d for s, d in zip(states, dots)})
                occs.append((str(lag), derivatives(E, states + dots, zero_dots, label)))
            change = [int(c) if sp.Integer(c) == c else c for c in t.change]
            transitions.append((change, t.lag or None, rate_d, occs))
        free = set().union(set(), *(e.free_symbols for e in exprs)) - set(self.syms)
        if free:
            raise SymdelayInputError(
                "the normal form needs numbers for " + ", ".join(sorted(map(str, free)))
            )
        self.transitions, self._exprs = transitions, exprs

    # -------------------------------------------------------------- evaluation
    def _values(self, value):
        """The derivative slots at the parameter ball ``value``."""
        from symdelay.model.arb_eval import arb_evaluator

        if self.transitions is None:
            self._prepare()
        if self._f is None:
            self._f = arb_evaluator(self._exprs, self.syms, cse=True)
        return self._f(self._point(value)) if self._exprs else []

    def _point(self, value) -> list:
        """The balls of ``(name, *others)`` from ``value`` (one ball, or a tuple of them)."""
        return list(value) if isinstance(value, (tuple, list)) else [value]

    def _env(self, value) -> dict:
        return dict(zip(self.syms, self._point(value)))

    def _kernels(self, value, omega):
        """``(lag name, k) -> K(k i omega)`` at the parameter ball ``value`` (``K(0) = 1``)."""
        import flint

        from symdelay.analysis.lagkernels import kernel_at

        env = self._env(value)
        fs = {}
        cache = {}

        def K(name, k):
            if k == 0:
                return flint.acb(1)
            if (name, k) not in cache:
                if name not in fs:
                    lag = self._lags[name]
                    fs[name] = kernel_at(lag.xreplace(self.subs) if self.subs else lag, env)
                cache[(name, k)] = fs[name](flint.acb(0, k * omega))
            return cache[(name, k)]

        return K

    def _kernel_derivatives(self, value, omega):
        """``(lag name, k) -> K'(k i omega)`` at the parameter ball ``value``: the derivative
        of the lag's Laplace transform (SymPy, once per lag), in Arb; ``K'(0) = -E[X]``, the
        mean (the transform of a uniform law has a removable singularity there)."""
        import flint

        from symdelay.model.arb_eval import to_arb

        env = self._env(value)
        s = sp.Dummy("s")
        exprs, cache = {}, {}

        def dK(name, k):
            if (name, k) not in cache:
                lag = self._lags[name]
                if self.subs:
                    lag = lag.xreplace(self.subs)
                if k == 0:
                    cache[(name, k)] = -flint.acb(to_arb(sp.sympify(lag.mean()), env))
                else:
                    if name not in exprs:
                        exprs[name] = sp.diff(lag.laplace(s), s)
                    z = flint.acb(0, k * omega)
                    cache[(name, k)] = flint.acb(to_arb(exprs[name], {s: z, **env}))
            return cache[(name, k)]

        return dK

    def _matrix_at(self, M, value, z):
        """A SymPy matrix in ``r`` and the parameter as an ``acb_mat`` at ``r = z``."""
        import flint

        from symdelay.model.arb_eval import to_arb

        env = {self._r: z, **self._env(value)}
        n = M.rows
        return flint.acb_mat(n, M.cols, [flint.acb(to_arb(e, env)) for e in M])

    def lifted(self, vals, K, omega, modes, dK=None) -> list:
        """The multilinear form of the right-hand side on ``modes`` (``[(vector, k)]``, the
        exponent ``k i omega``): the coefficient of the product of all the modes (the first
        derivative on one mode, ``B`` on two, ``C`` on three, up to the fifth).

        A mode ``(vector, k, 1)`` is the history ``vector theta exp(k i omega theta)`` (the
        secular terms of ``h21`` and ``h31``): the derivative of the form in that mode's
        exponent, as the form is linear in the mode and analytic in its exponent. It is zero
        in the present state, has ``dot`` equal to ``vector``, and enters a kernel through
        ``K'`` (``dK(name, k)``, required then) instead of ``K``: the product rule over
        the one place each term of the expansion holds that mode. At most one such mode."""
        import flint

        n = self.n
        m = len(modes)
        full = frozenset(range(m))
        kS = {S: sum(modes[a][1] for a in S) for S in _subsets(full)}
        zero = flint.acb(0)
        secular = [a for a in range(m) if len(modes[a]) > 2 and modes[a][2]]
        if len(secular) > 1:  # pragma: no cover - no term of c2 has two
            raise NotImplementedError("a form on two secular modes")
        t = secular[0] if secular else None
        # the states and their derivatives: one term per mode
        x = [{frozenset([a]): modes[a][0][i] for a in range(m)} for i in range(n)]
        xd = [
            {frozenset([a]): flint.acb(0, modes[a][1] * omega) * modes[a][0][i] for a in range(m)}
            for i in range(n)
        ]
        if t is not None:  # theta e^{lambda theta}: 0 at theta = 0, derivative 1 there
            ta = frozenset([t])
            x_t = [{k: v for k, v in d.items() if k != ta} for d in x]
            xd_t = [{**d, ta: modes[t][0][i]} for i, d in enumerate(xd)]

        def compose(derivs, deltas, S):
            total = zero
            for part in _parts(S):
                rows = derivs.get(len(part), ())
                for idx, slot in rows:
                    h = vals[slot]
                    for perm in set(itertools.permutations(idx)):
                        term = h
                        for var, block in zip(perm, part):
                            d = deltas[var].get(block)
                            if d is None:
                                term = None
                                break
                            term = term * d
                        if term is not None:
                            total += term
            return total

        def value(occs, rate_d, xs, xds, kernel):
            deltas = list(xs)
            for lag, E_d in occs:
                deltas.append(
                    {S: kernel(lag, S) * compose(E_d, xs + xds, S) for S in _subsets(full)}
                )
            return compose(rate_d, deltas, full)

        def plain(lag, S):
            return K(lag, kS[S])

        def through(lag, S):  # the kernel of the block holding the secular mode: K'
            return dK(lag, kS[S]) if t in S else K(lag, kS[S])

        out = [zero] * n
        for change, own, rate_d, occs in self.transitions:
            val = value(occs, rate_d, x, xd, plain)
            if t is not None:
                base = val
                val = value(occs, rate_d, x_t, xd_t, plain)
                if occs:
                    val += value(occs, rate_d, x, xd, through)
                if own is not None:
                    val = val * K(own, kS[full]) + base * dK(own, kS[full])
            elif own is not None:
                val = val * K(own, kS[full])
            for i, c in enumerate(change):
                if c != 0:
                    out[i] = out[i] + c * val
        return out

    def delta(self, vals, K, omega, k):
        """``Delta(k i omega)`` from the lifted first derivative (an ``acb_mat``)."""
        import flint

        n = self.n
        cols = []
        for j in range(n):
            e = [flint.acb(1) if i == j else flint.acb(0) for i in range(n)]
            cols.append(self.lifted(vals, K, omega, [(e, k)]))
        lam = flint.acb(0, k * omega)
        return flint.acb_mat(
            n, n, [(lam if i == j else 0) - cols[j][i] for i in range(n) for j in range(n)]
        )

    def hopf(self, value, omega, *, c1_only: bool = False) -> DelayHopf:
        """The normal-form coefficients at the Hopf point ``(value, omega)`` (``arb`` balls;
        call inside the Arb precision wanted). ``c1_only``: ``c1``, ``q`` and ``p`` alone
        (``r_prime``, ``residual`` and ``delta_mismatch`` None: the scan along a map's
        curves). Raises ZeroDivisionError where a linear solve is not certified over the
        balls."""
        import flint

        n = self.n
        vals = self._values(value)
        K = self._kernels(value, omega)
        D1 = self.delta(vals, K, omega, 1)
        iw = flint.acb(0, omega)
        mismatch = None
        if not c1_only:
            sym_D1 = self._matrix_at(self._delta, value, iw)
            mismatch = max(
                (abs(D1[i, j] - sym_D1[i, j]) for i in range(n) for j in range(n)),
                key=lambda b: b.mid(),
            )
        q, p, residual = _null_vectors(D1, n)
        dR = self._matrix_at(self._dDelta[0], value, iw)

        def form(P, M, Q):
            return sum((P[i] * M[i, j] * Q[j] for i in range(n) for j in range(n)), flint.acb(0))

        scale = form(p, dR, q)
        p = [v / scale for v in p]
        r_prime = None if c1_only else -form(p, self._matrix_at(self._dDelta[1], value, iw), q)
        qb = [v.conjugate() for v in q]

        def solve(k, b):
            x = self.delta(vals, K, omega, k).solve(flint.acb_mat(n, 1, b))
            return [x[i, 0] for i in range(n)]

        h20 = solve(2, self.lifted(vals, K, omega, [(q, 1), (q, 1)]))
        h11 = solve(0, self.lifted(vals, K, omega, [(q, 1), (qb, -1)]))
        C = self.lifted(vals, K, omega, [(q, 1), (q, 1), (qb, -1)])
        B1 = self.lifted(vals, K, omega, [(q, 1), (h11, 0)])
        B2 = self.lifted(vals, K, omega, [(qb, -1), (h20, 2)])
        total = sum((p[i] * (C[i] + 2 * B1[i] + B2[i]) for i in range(n)), flint.acb(0))
        return DelayHopf(total / 2, r_prime, q, p, residual, mismatch)

    def bautin(self, value, omega) -> DelayBautin:
        """``c1`` and ``c2`` of the Bautin normal form at the Hopf point ``(value, omega)``
        (``arb`` balls; call inside the Arb precision wanted): the centre-manifold
        coefficients of DDE-BIFTOOL's ``nmfm_genh`` (Janssens 2010), every form lifted
        through the kernels as in :meth:`lifted`::

            h20 = Delta(2iw)^-1 B(q, q),  h11 = Delta(0)^-1 B(q, qb),
            h30 = Delta(3iw)^-1 [3 B(q, h20) + C(q, q, q)],
            h21 = (xi + g q) e^{iw t} + 2 c1 q t e^{iw t}:  [Delta(iw) q; p 0] [xi; .] =
                  [B(qb, h20) + 2 B(q, h11) + C(q, q, qb) - 2 c1 Delta'(iw) q; 0],
                  g = -p Delta'(iw) xi - c1 p Delta''(iw) q,
            h31 = Delta(2iw)^-1 [B(qb, h30) + 3 B(q, h21) + 3 B(h20, h11) + 3 C(q, qb, h20)
                  + 3 C(q, q, h11) + D(q, q, q, qb) - 6 c1 Delta'(2iw) h20] e^{2iw t}
                  + 6 c1 h20 t e^{2iw t},
            h22 = Delta(0)^-1 [2 B(qb, h21) + 2 B(h11, h11) + 2 B(q, h21b) + B(h20, h20b)
                  + C(qb, qb, h20) + C(q, q, h20b) + 4 C(q, qb, h11) + D(q, q, qb, qb)],
            c2  = 1/12 p [6 B(h11, h21) + 3 B(h21b, h20) + B(h20b, h30) + 3 B(q, h22)
                  + 2 B(qb, h31) + 6 C(qb, h20, h11) + 6 C(q, h11, h11) + 3 C(q, h20, h20b)
                  + 6 C(q, qb, h21) + 3 C(q, q, h21b) + C(qb, qb, h30) + 6 D(q, q, qb, h11)
                  + 3 D(q, qb, qb, h20) + D(q, q, q, h20b) + E(q, q, q, qb, qb)],

        the secular terms ``t e^{k iw t}`` (``Delta(iw)`` singular) entering the forms through
        the kernels' derivatives. Without lags ``Delta(r) = r I - A`` and these are
        Kuznetsov's formulas. Needs the forms to the fifth order (``order=5``). Raises
        ZeroDivisionError where a linear solve is not certified over the balls."""
        import flint

        if self.order < 5:
            raise ValueError("c2 needs the forms to the fifth order (order=5)")
        n = self.n
        vals = self._values(value)
        K = self._kernels(value, omega)
        dK = self._kernel_derivatives(value, omega)
        D1 = self.delta(vals, K, omega, 1)
        q, p, residual = _null_vectors(D1, n)
        iw = flint.acb(0, omega)
        d1 = self._matrix_at(self._dDelta[0], value, iw)
        d1x2 = self._matrix_at(self._dDelta[0], value, 2 * iw)
        d2 = self._matrix_at(self._dDelta[0].diff(self._r), value, iw)
        zero = flint.acb(0)

        def apply(M, v):
            return [sum((M[i, j] * v[j] for j in range(n)), zero) for i in range(n)]

        def dot(P, v):
            return sum((P[i] * v[i] for i in range(n)), zero)

        scale = dot(p, apply(d1, q))
        p = [v / scale for v in p]
        deltas = {k: self.delta(vals, K, omega, k) for k in (0, 2, 3)}

        def solve(k, b):
            x = deltas[k].solve(flint.acb_mat(n, 1, b))
            return [x[i, 0] for i in range(n)]

        def F(*funcs):  # a form on functions: lists of pieces (vector, k, t)
            out = [zero] * n
            for pieces in itertools.product(*funcs):
                if sum(len(pc) > 2 and pc[2] for pc in pieces) > 1:  # pragma: no cover
                    raise NotImplementedError("a form on two secular pieces")
                y = self.lifted(vals, K, omega, list(pieces), dK)
                out = [a + b for a, b in zip(out, y)]
            return out

        def lin(*terms):  # sum of c * vector
            return [sum((c * v[i] for c, v in terms), zero) for i in range(n)]

        def conj(f):
            return [(tuple(a.conjugate() for a in pc[0]), -pc[1], *pc[2:]) for pc in f]

        qf = [(q, 1)]
        qb = conj(qf)
        h20v = solve(2, F(qf, qf))
        h20, h11 = [(h20v, 2)], [(solve(0, F(qf, qb)), 0)]
        r21 = lin((1, F(qb, h20)), (2, F(qf, h11)), (1, F(qf, qf, qb)))
        c1 = dot(p, r21) / 2
        h30 = [(solve(3, lin((3, F(qf, h20)), (1, F(qf, qf, qf)))), 3)]
        # h21: the bordered system (DDE-BIFTOOL's nmfm_binv with kappa = -2 c1)
        kappa = -2 * c1
        Mb = flint.acb_mat(
            n + 1,
            n + 1,
            [
                (D1[i, j] if j < n else q[i]) if i < n else (p[j] if j < n else zero)
                for i in range(n + 1)
                for j in range(n + 1)
            ],
        )
        rhs = lin((1, r21), (kappa, apply(d1, q)))
        xs = Mb.solve(flint.acb_mat(n + 1, 1, [*rhs, zero]))
        xi = [xs[i, 0] for i in range(n)]
        g = -dot(p, apply(d1, xi)) + kappa / 2 * dot(p, apply(d2, q))
        h21 = [(lin((1, xi), (g, q)), 1), ([-kappa * v for v in q], 1, 1)]
        h20b, h21b = conj(h20), conj(h21)
        w31 = lin(
            (1, F(qb, h30)), (3, F(qf, h21)), (3, F(h20, h11)), (3, F(qf, qb, h20)),
            (3, F(qf, qf, h11)), (1, F(qf, qf, qf, qb)), (-6 * c1, apply(d1x2, h20v)),
        )  # fmt: skip
        h31 = [(solve(2, w31), 2), ([6 * c1 * v for v in h20v], 2, 1)]
        w22 = lin(
            (2, F(qb, h21)), (2, F(h11, h11)), (2, F(qf, h21b)), (1, F(h20, h20b)),
            (1, F(qb, qb, h20)), (1, F(qf, qf, h20b)), (4, F(qf, qb, h11)),
            (1, F(qf, qf, qb, qb)),
        )  # fmt: skip
        h22 = [(solve(0, w22), 0)]
        w2 = lin(
            (6, F(h11, h21)), (3, F(h21b, h20)), (1, F(h20b, h30)), (3, F(qf, h22)),
            (2, F(qb, h31)), (6, F(qb, h20, h11)), (6, F(qf, h11, h11)),
            (3, F(qf, h20, h20b)), (6, F(qf, qb, h21)), (3, F(qf, qf, h21b)),
            (1, F(qb, qb, h30)), (6, F(qf, qf, qb, h11)), (3, F(qf, qb, qb, h20)),
            (1, F(qf, qf, qf, h20b)), (1, F(qf, qf, qf, qb, qb)),
        )  # fmt: skip
        return DelayBautin(c1, dot(p, w2) / 12, q, p, residual)


def _null_vectors(D1, n):
    """``(q, p, residual)``: the right and left null vectors of the ``acb_mat`` ``D1``
    (``Delta(i omega)``), ``q[piv] = 1`` and ``p[drop] = 1`` at the largest components of the
    midpoint's singular vectors, and the ball of the dropped row of ``D1 q``."""
    import flint

    mid = np.array([[complex(D1[i, j].mid()) for j in range(n)] for i in range(n)])
    U, _, Vh = np.linalg.svd(mid)
    piv = int(np.argmax(np.abs(Vh[-1])))  # largest component of the right null vector
    drop = int(np.argmax(np.abs(U[:, -1])))  # of the left one: the row to leave out
    rows = [i for i in range(n) if i != drop]
    cols = [j for j in range(n) if j != piv]
    q = [flint.acb(1)] * n
    p = [flint.acb(1)] * n
    if n > 1:
        M = flint.acb_mat(n - 1, n - 1, [D1[i, j] for i in rows for j in cols])
        sol = M.solve(flint.acb_mat(n - 1, 1, [-D1[i, piv] for i in rows]))
        for t, j in enumerate(cols):
            q[j] = sol[t, 0]
        # p Delta = 0 with p[drop] = 1: the columns other than piv
        Mt = flint.acb_mat(n - 1, n - 1, [D1[i, j] for j in cols for i in rows])
        solt = Mt.solve(flint.acb_mat(n - 1, 1, [-D1[drop, j] for j in cols]))
        for t, i in enumerate(rows):
            p[i] = solt[t, 0]
    residual = abs(sum((D1[drop, j] * q[j] for j in range(n)), flint.acb(0)))
    return q, p, residual


# ------------------------------------------------------------------ the entry's generic path
def _ball(x, rel):
    """An ``arb`` ball around the mpmath number ``x`` of relative radius ``rel``."""
    import flint

    return flint.arb(mpmath.nstr(x, mpmath.mp.dps)) + flint.arb(0, rel * (1 + abs(float(x))))


def _mpf(x) -> mpmath.mpf:
    """An exact ``arb`` midpoint (or radius) as mpmath."""
    man, exp = x.man_exp()
    return mpmath.ldexp(mpmath.mpf(int(man)), int(exp))


def _mp(b) -> mpmath.mpc:
    """The midpoint of an ``acb``/``arb`` ball as mpmath."""
    import flint

    b = flint.acb(b)
    return mpmath.mpc(_mpf(b.real.mid()), _mpf(b.imag.mid()))


def _rad(b) -> mpmath.mpf:
    """An upper bound of the radius of a real ball, as mpmath."""
    return _mpf(b.rad())


def _multiplicity(model, lyap, value, omega, dps):
    """``(multiplicity, r', the factor)`` of ``+-i omega``: the factors of
    :attr:`Model.characteristic_factors` vanishing there (to ``dps // 2`` digits, relative
    to the size of their terms), ``r' = -(df/dp)/(df/dr)`` of the first one."""
    import flint

    from symdelay.model.arb_eval import to_arb

    R = lyap._r
    iw = flint.acb(0, omega)
    env = {R: iw, lyap.sym: value}
    tol = 10.0 ** (-(dps // 2))
    mult, speed, first = 0, None, None
    for fac in model.characteristic_factors:
        e = sp.sympify(fac.factor).xreplace({sp.Symbol("r"): R})
        if lyap.subs:
            e = e.xreplace(lyap.subs)
        val = flint.acb(to_arb(e, env))
        size = sum(abs(flint.acb(to_arb(a, env)).mid()) for a in sp.Add.make_args(e))
        if abs(val.mid()) > tol * (1 + size):
            continue
        mult += int(fac.multiplicity)
        if speed is None:
            fr = flint.acb(to_arb(sp.diff(e, R), env))
            fp = flint.acb(to_arb(sp.diff(e, lyap.sym), env))
            speed, first = -fp / fr, e
    return mult, speed, first


def _certify(factor, R, sym, value, omega, rel, env=None, derivs=None):
    """Balls ``(p, omega)`` proved to hold the one zero ``f(i omega, p) = 0`` of the mode
    function ``factor`` near ``(value, omega)`` (mpmath numbers), by the Krawczyk test on
    the two real equations ``Re f = Im f = 0`` in the box of relative radius ``rel`` (and
    100 and 10^4 times wider); None when no box passes. ``env``: balls of further symbols
    of ``factor`` (a parametric test: one zero in the box for every value in them);
    ``derivs``: ``(df/dr, df/dp)`` when already differentiated."""
    import flint

    from symdelay.model.arb_eval import to_arb

    fr, fp = derivs if derivs is not None else (sp.diff(factor, R), sp.diff(factor, sym))
    extra = dict(env or {})

    def at(e, pb, wb):
        return flint.acb(to_arb(e, {R: flint.acb(0, wb), sym: pb, **extra}))

    x0 = [_ball(value, 0), _ball(omega, 0)]
    x0 = [flint.arb(b.mid()) for b in x0]
    f0 = at(factor, x0[0], x0[1])
    for widen in (1, 100, 10**4):
        rad = [flint.arb(rel * widen * (1 + abs(float(v)))) for v in (value, omega)]
        X = [x0[k] + flint.arb(0, rad[k]) for k in range(2)]
        dr, dp = at(fr, X[0], X[1]), at(fp, X[0], X[1])
        # the Jacobian of (Re f, Im f) in (p, omega): d/d omega f(i omega) = i f_r
        diw = flint.acb(0, 1) * dr
        J = [[dp.real, diw.real], [dp.imag, diw.imag]]
        m = [[float(J[i][j].mid()) for j in range(2)] for i in range(2)]
        det = m[0][0] * m[1][1] - m[0][1] * m[1][0]
        if det == 0:
            return None
        Y = [[m[1][1] / det, -m[0][1] / det], [-m[1][0] / det, m[0][0] / det]]
        F = [f0.real, f0.imag]
        Kx = []
        for i in range(2):
            v = x0[i] - (Y[i][0] * F[0] + Y[i][1] * F[1])
            for j in range(2):
                c = (1 if i == j else 0) - (Y[i][0] * J[0][j] + Y[i][1] * J[1][j])
                v += c * (X[j] - x0[j])
            Kx.append(v)
        if all(X[k].lower() < Kx[k].lower() and Kx[k].upper() < X[k].upper() for k in range(2)):
            return Kx[0], Kx[1]
    return None


def bautin_l2(model, param, value, omega, weights, others: tuple = ()):
    """The second Lyapunov coefficient at the Hopf point ``(value, omega)`` (``arb`` balls;
    ``value`` a tuple of balls when ``others`` names the further free parameters of a map),
    as an ``arb`` ball: ``Re c2 / omega`` of the Bautin normal form
    ``z' = i omega z + c1 z |z|^2 + c2 z |z|^4`` (:meth:`DelayLyapunov.bautin`) for the
    critical eigenvector scaled to ``|sum_j weights_j q_j| = 1`` (the imbalance ``x``, the
    normalisation of ``l1``), with ``p Delta'(i omega) q = 1``. Call inside the Arb
    precision wanted; the one production path of ``l2`` for tables and delay models.

    Parameters
    ----------
    model : Model
        The model (with or without lags), the free parameters ``param`` and ``others``.
    param : str
        The parameter the Hopf point is given in.
    value : flint.arb or tuple of flint.arb
        Its value (with ``others``: the tuple of values of ``(param, *others)``).
    omega : flint.arb
        The frequency.
    weights : sequence of int
        The imbalance ``x = sum_j weights_j q_j`` (:func:`difference_weights`).
    others : tuple of str, default ()
        Further free parameters.

    Returns
    -------
    flint.arb
        ``l2``; its radius bounds the error over the balls given.
    """
    import flint

    lyap = delay_lyapunov(model, param, tuple(others), order=5)
    bt = lyap.bautin(value, omega)
    if weights is None:  # no imbalance: Kuznetsov's <q, q> = 1
        nq2 = sum((abs(v) ** 2 for v in bt.q), flint.arb(0))
        return (bt.c2 / nq2**2).real / omega
    cq = sum((weights[j] * bt.q[j] for j in range(len(weights))), flint.acb(0))
    return (bt.c2 / abs(cq) ** 4).real / omega


def bautin_point_l2(model, names, x, y, omega, dps: int) -> dict:
    """``{"l2", "l2_radius", "fold_side"}`` at a Bautin point ``(x, y)`` of a stability map
    in the parameters ``names`` (tables and delay models alike, the one record shape):
    :func:`bautin_l2` in Arb balls of relative width ``10^-dps`` around the located point
    (mpmath numbers or ``arb`` balls), ``l2`` in the map's normalisation of ``l1`` (the
    imbalance, else ``|q| = 1``). ``fold_side``: ``"l1 > 0"`` where ``l2 < 0`` (the folds of
    cycles, and the curve of them, lie along the part of the Hopf curve where ``l1 > 0``),
    ``"l1 < 0"`` where ``l2 > 0``, None when the sign of ``l2`` is not decided. Where ``l2``
    cannot be computed the values are None and ``l2_note`` says why in one line."""
    import flint

    from symdelay.analysis.stochastic import difference_weights
    from symdelay.core.precision import work_bits

    rel = 10.0 ** (-dps)

    def ball(v):
        if isinstance(v, flint.arb):
            v = _mpf(v.mid())
        return _ball(mpmath.mpf(v), rel)

    with mpmath.workdps(dps + 2 * GUARD), flint.ctx.workprec(work_bits(dps, 2 * GUARD)):
        try:
            b = bautin_l2(
                model, names[0], (ball(x), ball(y)), ball(omega), difference_weights(model),
                others=(names[1],),
            )  # fmt: skip
        except (SymdelayInputError, ZeroDivisionError, NotImplementedError) as exc:
            why = str(exc) if not isinstance(exc, ZeroDivisionError) else "a solve not certified"
            return {"l2": None, "l2_radius": None, "fold_side": None, "l2_note": why}
        l2, rad = mpmath.re(_mp(b)), _rad(b)
    side = None if abs(l2) <= rad else ("l1 > 0" if l2 < 0 else "l1 < 0")
    return {"l2": l2, "l2_radius": rad, "fold_side": side}


def _neutral_refusal(lyap, value) -> str | None:
    """Why the centre-manifold formula is not applied to a neutral equation (one line), or
    None when its difference operator ``x(t) - sum_k M_k x(t - tau_k)`` is proved stable
    (every derivative term has constant lags and ``sum_k ||M_k||_inf < 1``)."""
    import flint

    from symdelay.model.arb_eval import to_arb

    terms = [t for t in lyap.linearisation.terms if t.derivative]
    if not terms:
        return None
    if any(lyap._lags[name].kind != "constant" for t in terms for name in t.lags):
        return (
            "a delayed derivative through a distributed lag: the stability of its difference "
            "operator, which the centre-manifold reduction of a neutral equation needs, is "
            "not decided here"
        )
    env = lyap._env(value)
    total = flint.arb(0)
    for t in terms:
        M = t.matrix.xreplace(lyap.subs) if lyap.subs else t.matrix
        rows = [
            sum((abs(flint.acb(to_arb(M[i, j], env))) for j in range(M.cols)), flint.arb(0))
            for i in range(M.rows)
        ]
        total += max(rows, key=lambda b: float(b.upper()))
    if total < 1:
        return None
    return (
        "the difference operator of the neutral equation is not proved stable (sum of "
        f"||M_k|| = {total.mid().str(6, radius=False)} is not < 1): the centre "
        "manifold of the Hopf point is not established"
    )


def delay_normal_form_fields(model, dps: int = 15, param: str = "theta") -> dict:
    """The fields of the :class:`~symdelay.analysis.normal_form.NormalForm` of a model with
    lags at its Hopf point in ``param`` (every other parameter a number): the generic path
    of :func:`symdelay.analysis.normal_form.normal_form` for delay models, which builds the
    record from them.

    Parameters
    ----------
    model : Model
        A model with lags, ``param`` free and a number for every other parameter.
    dps : int, default 15
        Significant digits (5..10000) of the Hopf point, ``c1`` and ``l1``.
    param : str, default "theta"
        The bifurcation parameter (any parameter of the model, a lag's included).

    Returns
    -------
    dict
        Keyword arguments of ``NormalForm``: the Hopf point, ``c1``, ``l1`` (normalised by
        the imbalance ``x``, with ``l1_radius`` the radius of its ball: its sign is proved
        when ``|l1| > l1_radius``, around a Hopf point proved by a Krawczyk box; infinite
        where the box is not found), the amplitude and frequency laws in ``param``.
    """

    from symdelay.analysis.critical import critical
    from symdelay.analysis.stochastic import difference_weights
    from symdelay.core.params import as_dps

    dps = as_dps(dps)
    weights = difference_weights(model)
    if weights is None:
        raise SymdelayInputError(f"{model.name} declares no symmetry: no imbalance to follow")
    crit = critical(model, param, dps=dps + GUARD, method="generic")
    if crit.omega is None or not mpmath.isfinite(crit.critical) or crit.critical == 0:
        note = getattr(crit._only(), "note", "") or ""
        where = (
            "stable over its whole range"
            if not mpmath.isfinite(crit.critical)
            else f"unstable already as {param} -> 0+, and only a crossing from a stable "
            "equilibrium is looked for"
            if crit.critical == 0
            else f"the first loss of stability, at {param} = {mpmath.nstr(crit.critical, 10)}, "
            "is not a crossing of an imaginary pair"
        )
        raise SymdelayInputError(
            f"{model.name} has no Hopf point in {param} ({where}"
            + (f": {note}" if note else "")
            + "): no cycle to describe"
        )
    if crit.omega == 0:
        raise SymdelayInputError(
            f"{model.name} loses stability through a real root at {param} = "
            f"{mpmath.nstr(crit.critical, 10)}: not a Hopf point"
        )
    return delay_hopf_fields(
        model, param, crit.critical, crit.omega, dps, rel=10.0 ** (-(dps + GUARD - 2))
    )


def delay_hopf_fields(model, param, crit_value, crit_omega, dps, *, rel) -> dict:
    """The :class:`~symdelay.analysis.normal_form.NormalForm` fields of a model with lags at
    a given Hopf point ``param = crit_value``, frequency ``crit_omega`` (mpmath numbers
    known to the relative accuracy ``rel``): the Hopf point proved by a Krawczyk box around
    them, ``c1``, ``l1`` with its bound, ``r'`` and the amplitude law there. The one path of
    :func:`delay_normal_form_fields` (the first Hopf point) and of the branch of cycles of
    :func:`symdelay.analysis.continuation.cycles` (the lowest Hopf point of its range).

    Parameters
    ----------
    model : Model
        A model with lags, ``param`` free and a number for every other parameter, with a
        symmetry (the imbalance ``x`` normalises ``l1``).
    param : str
        The bifurcation parameter.
    crit_value, crit_omega : mpmath.mpf
        The Hopf point and its frequency.
    dps : int
        Significant digits (5..10000) of the fields.
    rel : float
        The relative accuracy of ``crit_value`` and ``crit_omega``.

    Returns
    -------
    dict
        Keyword arguments of ``NormalForm`` (see :func:`delay_normal_form_fields`).
    """
    import flint

    from symdelay.analysis.stochastic import difference_weights
    from symdelay.core.precision import work_bits

    weights = difference_weights(model)
    if weights is None:
        raise SymdelayInputError(f"{model.name} declares no symmetry: no imbalance to follow")
    lyap = delay_lyapunov(model, param)
    wp = dps + 2 * GUARD
    with mpmath.workdps(wp), flint.ctx.workprec(work_bits(dps, 2 * GUARD)):
        value, omega = _ball(crit_value, rel), _ball(crit_omega, rel)
        why = _neutral_refusal(lyap, value)
        if why is not None:
            raise SymdelayInputError(f"normal form of {model.name}: {why}")
        mult, rp_factor, factor = _multiplicity(model, lyap, value, omega, dps)
        if mult == 0:  # pragma: no cover - critical() found this crossing
            raise SymdelayInputError(f"no factor of {model.name} vanishes at the Hopf point")
        th_c, w = +mpmath.mpf(crit_value), +mpmath.mpf(crit_omega)
        checks: dict = {}
        if mult >= 2:
            rp = _mp(rp_factor)
            nan = mpmath.nan
            return dict(
                L=None, mu=None, lam=None, D=None, dps=dps, theta_c=th_c, omega=w,
                c1=mpmath.mpc(nan), r_prime=rp, l1=nan, l1_unit=None,
                amplitude_coefficient=nan, omega_slope=nan,
                method=_METHOD, model_name=model.name, checks=checks, multiplicity=mult,
                param=param, patterns=None, patterns_reason=(
                    f"the imaginary pair has multiplicity {mult} under the model's symmetry: "
                    "the equivariant normal form is built for transition tables without "
                    "lags only"
                ),
            )  # fmt: skip
        proved = _certify(factor, lyap._r, lyap.sym, crit_value, crit_omega, rel)
        if proved is not None:
            value, omega = proved
        try:
            hopf = lyap.hopf(value, omega)
        except NotImplementedError as exc:
            raise SymdelayInputError(f"the normal form of {model.name}: {exc}") from None
        cq = sum((weights[j] * hopf.q[j] for j in range(len(weights))), flint.acb(0))
        if 0 in abs(cq):
            raise SymdelayInputError(
                f"the critical eigenvector of {model.name} does not move the imbalance "
                "x = q1 - q2: no amplitude of x to give"
            )
        c1x_b = hopf.c1 / abs(cq) ** 2
        l1_b = c1x_b.real / omega
        c1x, rp = _mp(c1x_b), _mp(hopf.r_prime)
        c1 = _mp(hopf.c1)
        l1 = mpmath.re(_mp(l1_b))
        # the sign of l1 is proved only around a proved Hopf point
        l1_rad = _rad(l1_b) if proved is not None else mpmath.inf
        acq = mpmath.re(_mp(abs(cq)))
        amp = (
            2 * acq * mpmath.sqrt(abs(mpmath.re(rp) / mpmath.re(c1)))
            if mpmath.re(c1) != 0
            else mpmath.nan
        )
        slope = (  # the frequency along the cycles: undefined where Re c1 = 0 (Bautin)
            mpmath.im(rp) - mpmath.im(c1) * mpmath.re(rp) / mpmath.re(c1)
            if mpmath.re(c1) != 0
            else mpmath.nan
        )
        l2 = l2_rad = None
        if proved is not None and abs(l1) <= l1_rad:  # l1's ball holds 0: l2 decides
            try:
                l2_b = bautin_l2(model, param, value, omega, weights)
            except ZeroDivisionError:  # pragma: no cover - a solve not certified
                l2_b = None
            if l2_b is not None:
                l2, l2_rad = mpmath.re(_mp(l2_b)), _rad(l2_b)
        checks = {
            "eigenvector_residual": _rad(hopf.residual) + abs(_mp(hopf.residual)),
            "characteristic_matrix_mismatch": _rad(hopf.delta_mismatch)
            + abs(_mp(hopf.delta_mismatch)),
            "r_prime_projection_minus_factor": abs(rp - _mp(rp_factor)),
            "l1_radius": l1_rad,
            "hopf_point_proved": proved is not None,
        }
    return dict(
        L=None, mu=None, lam=None, D=None, dps=dps, theta_c=th_c, omega=w, c1=c1x,
        r_prime=rp, l1=l1, l1_unit=None, amplitude_coefficient=amp, omega_slope=slope,
        method=_METHOD, model_name=model.name, checks=checks, multiplicity=1, param=param,
        l1_radius=l1_rad, l2=l2, l2_radius=l2_rad,
    )  # fmt: skip


_METHOD = (
    "centre-manifold reduction of the delay equation through its characteristic matrix "
    "(Faria & Magalhaes; Janssens), multilinear forms lifted through the lags' kernels, "
    "in Arb balls"
)
