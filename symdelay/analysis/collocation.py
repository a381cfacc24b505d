"""Rightmost roots of a delay model by spectral collocation of its infinitesimal generator.

An independent, uncertified check of the certified counts (:mod:`symdelay.analysis.lagroots`),
as DDE-BIFTOOL computes roots (Breda, Maset & Vermiglio, SIAM J. Sci. Comput. 27, 2005;
*Stability of Linear Delay Differential Equations*, Springer 2015). The linear equation
whose characteristic matrix is ``Delta(r) = r I - A0 - sum_k (r if derivative else 1) M_k K_k(r)``
is ``x'(t) = A0 x(t) + sum_k M_k (K_k * x^{(d_k)})(t)``; its solution operator's generator
acts on functions on ``[-tau, 0]``. Discretised on the ``N + 1`` Chebyshev points
``theta_j = tau (cos(j pi / N) - 1)/2`` (``theta_0 = 0``): the rows ``j >= 1`` are the
derivative of the interpolant (Chebyshev differentiation matrix), the row ``j = 0`` is the
equation itself, each lag functional applied to the interpolant. A neutral term (``r M K``)
puts its functional on the left: the generalised eigenproblem ``A u = r B u``.

Kernels:

* on a bounded support (``constant``: the point ``tau``; ``uniform``: Gauss–Legendre
  quadrature on ``[a, b]`` with enough points to integrate the interpolant exactly, and a
  product of such lags: the tensor rule of their sum) — functionals of the interpolant;
* rational (``exponential``, ``gamma`` of integer shape: the Erlang chain; ``phase_type``:
  ``(S, s0, alpha)`` and its atom at 0) — realised exactly as extra linear ODE states,
  ``K(r) = c (rI - F)^{-1} g + d``, in cascade with the bounded part; a derivative term
  ``r K(r) = d r + c g + c F (rI - F)^{-1} g`` keeps only ``d`` neutral;
* ``mixture``: split into its components' terms (linear in the kernel).

A gamma lag of non-integer shape is neither: refused. The extra states realise ``K`` for
each of the ``n`` components; where ``M`` does not observe one, the kernel's poles (in
``Re r < 0`` for every probability law) appear as eigenvalues too: they change no count in
``Re r >= 0``.

>>> from types import SimpleNamespace as NS
>>> import sympy as sp
>>> tau = NS(name="tau", kind="constant", args={"value": 1})
>>> t = NS(matrix=sp.Matrix([[-2]]), kernel=None, lags=("tau",), derivative=False)
>>> spec = collocation_eigenvalues(NS(A0=sp.Matrix([[-1]]), terms=(t,)), {"tau": tau})
>>> round(float(spec.eigenvalues[0].real), 6)   # r + 1 + 2 e^{-r}: W_0(-2e) - 1
-0.092484
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import module as _lazy_module
from symdelay.core.lazy import sympy as sp

np = _lazy_module("numpy")

__all__ = ["CollocationSpectrum", "collocation_eigenvalues", "chebyshev_differentiation"]

#: the largest number of Chebyshev intervals chosen without being asked
MAX_DEGREE = 400


@dataclass(frozen=True)
class CollocationSpectrum:
    """Eigenvalues of the discretised generator (finite ones, rightmost first; numpy
    complex), the number ``degree`` of Chebyshev intervals and the matrix ``size``."""

    eigenvalues: object
    degree: int
    size: int

    def count_right(self, radius=None, tol: float = 1e-9) -> int:
        """Eigenvalues with ``Re > tol`` (and ``|r| <= radius`` when given: the proven box
        of every root in ``Re r >= 0``; beyond it they are spurious)."""
        ev = self.eigenvalues
        keep = ev.real > tol
        if radius is not None:
            keep &= np.abs(ev) <= radius
        return int(np.count_nonzero(keep))


def chebyshev_differentiation(N: int):
    """``(x, D)``: the Chebyshev points ``cos(j pi / N)`` and their differentiation matrix
    (Trefethen, *Spectral Methods in MATLAB*, ``cheb``)."""
    if N == 0:
        return np.array([1.0]), np.zeros((1, 1))
    x = np.cos(np.pi * np.arange(N + 1) / N)
    c = np.hstack([2.0, np.ones(N - 1), 2.0]) * (-1.0) ** np.arange(N + 1)
    X = np.tile(x, (N + 1, 1)).T
    dX = X - X.T
    D = np.outer(c, 1 / c) / (dX + np.eye(N + 1))
    D -= np.diag(D.sum(axis=1))
    return x, D


def _num(e) -> float:
    e = sp.sympify(e) if isinstance(e, int | str) else e
    if isinstance(e, float | int):
        return float(e)
    if not getattr(e, "is_number", False):
        raise SymdelayInputError(f"{e} is not a number: collocation is at numbers only")
    return float(e)


def _cnum(e) -> complex:
    e = sp.sympify(e)
    if not e.is_number:
        raise SymdelayInputError(f"{e} is not a number: collocation is at numbers only")
    return complex(e)


def _atoms(objs):
    """A product of lags as a list of ``(weight, [atomic lags])`` (mixtures expanded)."""
    out = [(1.0, [])]
    for lag in objs:
        if lag.kind == "mixture":
            parts = []
            for sub, w in zip(lag.args["lags"], lag.args["weights"]):
                parts += [(_num(w) * ww, a) for ww, a in _atoms((sub,))]
        else:
            parts = [(1.0, [lag])]
        out = [(w1 * w2, a1 + a2) for w1, a1 in out for w2, a2 in parts]
    return out


def _realisation(lag):
    """``(F, g, c, d)`` of a rational kernel (numpy), ``K(r) = c (rI - F)^{-1} g + d``."""
    if lag.kind == "exponential":
        m = _num(lag.args["mean"])
        return np.array([[-1 / m]]), np.array([[1 / m]]), np.array([[1.0]]), 0.0
    if lag.kind == "gamma":
        k = sp.sympify(lag.args["shape"])
        if not (k.is_Integer and k > 0):
            raise SymdelayInputError(
                f"lag {getattr(lag, 'name', 'gamma')}: collocation realises a gamma lag of "
                f"integer shape only (shape {k}); use the certified count"
            )
        k = int(k)
        q = k / _num(lag.args["mean"])
        F = -q * np.eye(k) + q * np.eye(k, k=-1)
        g = np.zeros((k, 1))
        g[0, 0] = q
        c = np.zeros((1, k))
        c[0, -1] = 1.0
        return F, g, c, 0.0
    if lag.kind == "phase_type":
        S = np.array([[_num(x) for x in row] for row in sp.Matrix(lag.args["S"]).tolist()])
        alpha = np.array([[_num(a) for a in lag.args["alpha"]]])
        s0 = -S.sum(axis=1, keepdims=True)
        return S, s0, alpha, 1.0 - float(alpha.sum())
    raise SymdelayInputError(f"lag kind {lag.kind!r} is not rational")  # pragma: no cover


def _cascade(first, second):
    """The realisation of ``K2 K1`` (``first`` then ``second``)."""
    F1, g1, c1, d1 = first
    F2, g2, c2, d2 = second
    m1, m2 = F1.shape[0], F2.shape[0]
    F = np.block([[F1, np.zeros((m1, m2))], [g2 @ c1, F2]])
    g = np.vstack([g1, g2 * d1])
    c = np.hstack([d2 * c1, c2])
    return F, g, c, d1 * d2


def _measure(atoms, quad: int):
    """The bounded part of a product of lags: ``[(s, weight)]`` (the law of the sum of the
    constant and uniform lags), and the rational lags left."""
    nodes = [(0.0, 1.0)]
    rational = []
    for lag in atoms:
        if lag.kind == "constant":
            tau = _num(lag.args["value"])
            nodes = [(s + tau, w) for s, w in nodes]
        elif lag.kind == "uniform":
            a, b = _num(lag.args["low"]), _num(lag.args["high"])
            xi, wi = np.polynomial.legendre.leggauss(quad)
            pts = [(a + (b - a) * (x + 1) / 2, w / 2) for x, w in zip(xi, wi)]
            nodes = [(s + p, w * v) for s, w in nodes for p, v in pts]
        elif lag.kind in ("exponential", "gamma", "phase_type"):
            rational.append(lag)
        else:
            raise SymdelayInputError(
                f"lag kind {lag.kind!r} has no collocation (kinds: constant, uniform, "
                "exponential, gamma of integer shape, phase_type, mixture)"
            )
    return nodes, rational


def _interp_row(theta_nodes, bary, theta):
    """Barycentric interpolation weights at ``theta`` on the given nodes."""
    diff = theta - theta_nodes
    hit = np.flatnonzero(np.abs(diff) <= 1e-14 * (1 + np.abs(theta_nodes).max()))
    row = np.zeros(len(theta_nodes))
    if hit.size:
        row[hit[0]] = 1.0
        return row
    t = bary / diff
    return t / t.sum()


def _float_bound(A0, terms) -> float:
    """A floating estimate of the box holding every root with ``Re r >= 0`` (the bound of
    :mod:`symdelay.analysis.lagroots` in doubles): for choosing the degree only."""
    n = A0.shape[0]
    P0 = np.abs(A0).astype(float)
    Pd = np.zeros((n, n))
    for M, _objs, deriv in terms:
        if deriv:
            Pd += np.abs(M)
        else:
            P0 += np.abs(M)
    try:
        Q = np.linalg.solve(np.eye(n) - Pd, P0)
        return float(max(abs(np.linalg.eigvals(np.abs(Q))).max(), 1.0))
    except np.linalg.LinAlgError:  # pragma: no cover - singular difference operator
        return float(np.abs(P0).sum() + 1.0)


def collocation_eigenvalues(linearisation, lags, degree: int | None = None) -> CollocationSpectrum:
    """The eigenvalues of the generator discretised on Chebyshev points (module docstring).

    Parameters
    ----------
    linearisation : Linearisation
        ``A0`` and ``terms`` (``matrix``, ``lags`` names, ``derivative``) at numbers.
    lags : dict
        ``{name: Lag}`` (``kind`` and numeric ``args``) for every lag the terms name.
    degree : int or None, default None
        Chebyshev intervals ``N`` on ``[-tau_max, 0]``; None: enough to resolve the roots in
        the box of the certified count (``N ~ 2 R tau_max + 24``, at most 400).

    Returns
    -------
    CollocationSpectrum
        Finite eigenvalues, rightmost first.
    """
    A0 = np.array([[_cnum(e) for e in row] for row in sp.Matrix(linearisation.A0).tolist()])
    n = A0.shape[0]
    terms = []
    for t in linearisation.terms:
        names = tuple(getattr(t, "lags", ()) or ())
        missing = [nm for nm in names if nm not in lags]
        if missing or not names:
            raise SymdelayInputError(
                f"collocation needs the lags of every term (missing: {', '.join(missing) or 'names'})"
            )
        M = np.array([[_cnum(e) for e in row] for row in sp.Matrix(t.matrix).tolist()])
        terms.append((M, tuple(lags[nm] for nm in names), bool(t.derivative)))
    real = not np.iscomplex(A0).any() and all(not np.iscomplex(M).any() for M, _o, _d in terms)
    dtype = float if real else complex
    if real:
        A0 = A0.real
        terms = [(M.real, o, d) for M, o, d in terms]
    # the longest bounded support decides the mesh
    expanded = []
    tau_max = 0.0
    for M, objs, deriv in terms:
        for w, atoms in _atoms(objs):
            expanded.append((w * M, atoms, deriv))
            ext = 0.0
            for lag in atoms:
                if lag.kind == "constant":
                    ext += _num(lag.args["value"])
                elif lag.kind == "uniform":
                    ext += _num(lag.args["high"])
            tau_max = max(tau_max, ext)
    if degree is None:
        R = _float_bound(A0, terms)
        degree = 0 if tau_max == 0 else int(min(MAX_DEGREE, math.ceil(2 * R * tau_max) + 24))
    N = int(degree) if tau_max > 0 else 0
    x, D = chebyshev_differentiation(N)
    theta = tau_max * (x - 1) / 2 if N else np.array([0.0])
    D = D * (2 / tau_max) if N else D
    bary = (-1.0) ** np.arange(N + 1)  # Chebyshev-Lobatto: (-1)^j, halved at both ends
    if N:
        bary[0] *= 0.5
        bary[-1] *= 0.5
    quad = max(N // 2 + 2, 8)
    blocks = []  # (M, phi, rational realisation or None, kind) per expanded term
    for M, atoms, deriv in expanded:
        nodes, rational = _measure(atoms, quad)
        phi = np.zeros(N + 1)
        for s, w in nodes:
            phi += w * _interp_row(theta, bary, -s)
        real_part = None
        for lag in rational:
            r_ = _realisation(lag)
            real_part = r_ if real_part is None else _cascade(real_part, r_)
        blocks.append((M, phi, real_part, deriv))
    extra = [b[2][0].shape[0] * n for b in blocks if b[2] is not None]
    size = n * (N + 1) + sum(extra)
    A = np.zeros((size, size), dtype=dtype)
    B = np.eye(size, dtype=dtype)
    In = np.eye(n)
    A[:n, :n] += A0
    for i in range(1, N + 1):
        A[i * n : (i + 1) * n, : n * (N + 1)] = np.kron(D[i], In)
    pos = n * (N + 1)
    neutral = False
    for M, phi, rat, deriv in blocks:
        Phi = np.kron(phi, M)  # n x n(N+1): M applied to the functional of the interpolant
        if rat is None:
            if deriv:
                B[:n, : n * (N + 1)] -= Phi
                neutral = True
            else:
                A[:n, : n * (N + 1)] += Phi
            continue
        F, g, c, d = rat
        if deriv:  # r K = d r + c g + c F (rI - F)^{-1} g
            if d:
                B[:n, : n * (N + 1)] -= d * Phi
                neutral = True
            A[:n, : n * (N + 1)] += float((c @ g)[0, 0]) * Phi
            c = c @ F
        elif d:
            A[:n, : n * (N + 1)] += d * Phi
        m = F.shape[0]
        sl = slice(pos, pos + m * n)
        A[sl, sl] = np.kron(F, In)
        A[sl, : n * (N + 1)] = np.kron(g, np.kron(phi, In))
        A[:n, sl] += M @ np.kron(c, In)
        pos += m * n
    from symdelay.core.precision import one_blas_thread

    with one_blas_thread():
        if neutral:  # the generalised problem: LAPACK ggev, which only SciPy wraps
            import scipy.linalg

            ev = scipy.linalg.eig(A, B, right=False)
            ev = ev[np.isfinite(ev)]
        else:  # LAPACK geev as scipy.linalg.eigvals, without SciPy's import (0.25 s)
            ev = np.linalg.eigvals(A)
    ev = ev[np.argsort(-ev.real, kind="stable")]
    return CollocationSpectrum(ev, N, size)
