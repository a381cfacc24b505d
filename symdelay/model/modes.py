"""Modes of a model with a permutation symmetry, and the factored characteristic polynomial.

Let ``P`` permute the states with cycles of one length ``k`` (fixed states allowed). If the
jump process is invariant under ``P`` (checked when the model is built) and the equilibrium
is ``P``-invariant, the Jacobian commutes with ``P`` and maps each eigenspace of ``P`` into
itself. For the character ``omega^j`` (``omega = exp(2 pi i / k)``) the eigenspace is spanned
by ``v_o = sum_m omega^(-j m) e_(P^m o)``, one vector per orbit ``o``; the Jacobian restricted
to it is the block ``B_j = V^H J V / k``. For ``k = 2`` these are the sum and difference
modes. SymPy checks ``J V = V B_j`` for every block; ``det(rI - J)`` is the product of the
blocks' characteristic polynomials.
"""

from __future__ import annotations

from dataclasses import dataclass

from symdelay.core.errors import CertificationError, VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.symbols import r
from symdelay.model.records import Factor, _cycles, _is_zero

__all__ = [
    "Mode",
    "DelayMode",
    "decompose",
    "factor_modes",
    "decompose_linearisation",
    "delay_factors",
]


@dataclass(frozen=True)
class Mode:
    """One invariant subspace: its basis (columns), the Jacobian block and its polynomial."""

    name: str
    index: int
    basis: sp.Matrix
    jacobian: sp.Matrix
    charpoly: sp.Expr

    def __post_init__(self):
        # a model caches its modes: what they hand out cannot be changed in place
        object.__setattr__(self, "basis", sp.ImmutableMatrix(self.basis))
        object.__setattr__(self, "jacobian", sp.ImmutableMatrix(self.jacobian))

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "index": self.index,
            "dimension": self.jacobian.rows,
            "charpoly": str(self.charpoly),
        }


def _name(model, j: int, k: int) -> str:
    if str(j) in model.mode_names:
        return model.mode_names[str(j)]
    if k == 2:
        return "sum" if j == 0 else "difference"
    return "symmetric" if j == 0 else f"fourier {j}"


def _root_of_unity(j: int, k: int):
    w = sp.exp(2 * sp.pi * sp.I * j / k)
    return sp.expand_complex(w)  # exact (SymPy evaluates cos, sin of pi/k where it can)


def _clean(e, exact: bool):
    if not exact:
        return sp.expand(e)
    e = sp.expand(e)
    return sp.simplify(e) if e.has(sp.exp, sp.I) else e


def _charpoly(B: sp.Matrix, exact: bool) -> sp.Expr:
    """``det(rI - B)``; numeric blocks go through their exact (rational) midpoint, then back
    to floats at the equilibrium's working precision."""
    if exact:
        return _clean(B.charpoly(r).as_expr(), exact)
    from symdelay.model.equilibrium import EQUILIBRIUM_DPS

    # the exact binary values of the Floats (nsimplify would guess a "simple" nearby number)
    Bq = B.applyfunc(
        lambda e: (
            sp.Rational(e) if e.is_real else sp.Rational(sp.re(e)) + sp.I * sp.Rational(sp.im(e))
        )
    )
    coeffs = sp.Poly(Bq.charpoly(r).as_expr(), r).all_coeffs()
    n = len(coeffs) - 1
    return sp.Add(*[sp.Float(c, EQUILIBRIUM_DPS) * r ** (n - k) for k, c in enumerate(coeffs)])


def _bases(model, n: int):
    """``(j, k, V, W)`` per character ``j`` of the symmetry: the basis ``V`` of its
    eigenspace and ``W = diag(|v|^2)^-1 V^H``, so a block is ``W M V``."""
    cycles = _cycles(model.permutation)
    k = max(len(c) for c in cycles)
    for j in range(k):
        w = _root_of_unity(j, k)
        cols = []
        for cyc in cycles:
            if len(cyc) == 1:
                if j == 0:
                    v = sp.zeros(n, 1)
                    v[cyc[0]] = 1
                    cols.append(v)
                continue
            v = sp.zeros(n, 1)
            for m, idx in enumerate(cyc):
                v[idx] = sp.expand_complex(w ** (-m))
            cols.append(v)
        V = sp.Matrix.hstack(*cols)
        weights = sp.diag(*[sum(abs(x) ** 2 for x in V.col(c)) for c in range(V.cols)])
        yield j, k, V, weights.inv() * V.H


def decompose(model) -> tuple:
    """The modes of ``model`` (one ``full`` mode without a symmetry)."""
    J = model.jacobian
    exact = model.equilibrium.exact
    n = J.rows
    if model.permutation is None:
        return (Mode("full", 0, sp.eye(n), J, _charpoly(J, exact)),)
    modes = []
    for j, k, V, W in _bases(model, n):
        B = (W * J * V).applyfunc(lambda e: _clean(e, exact))
        residual = (J * V - V * B).applyfunc(lambda e: _clean(e, exact))
        if exact:
            zero = [_is_zero(e, None, model.variable_domains) for e in residual]
            if False in zero:
                raise VerificationError(f"mode {j} is not invariant under the Jacobian")
            if None in zero:
                raise CertificationError(
                    f"cannot decide that mode {j} is invariant under the Jacobian (an "
                    "identity neither the decision procedure nor simplify settles)"
                )
        if not exact and any(abs(complex(e)) > 1e-20 for e in residual):
            raise VerificationError(f"mode {j} is not invariant under the Jacobian (numeric)")
        modes.append(Mode(_name(model, j, k), j, V, B, _charpoly(B, exact)))
    return tuple(modes)


def _real_pairs(modes) -> list[tuple[str, sp.Expr, int]]:
    """``(name, real polynomial, copies)``: complex-conjugate Fourier pairs multiplied."""
    out: list = []
    done = set()
    k = len(modes)
    for m in modes:
        if m.index in done:
            continue
        if not m.charpoly.has(sp.I):
            out.append((m.name, m.charpoly, 1))
            done.add(m.index)
            continue
        partner = modes[(k - m.index) % k]
        out.append((f"{m.name} and {partner.name}", sp.expand(m.charpoly * partner.charpoly), 1))
        done |= {m.index, partner.index}
    # identical polynomials of different modes are one factor with a multiplicity
    merged: list = []
    for name, poly, c in out:
        for i, (n2, p2, c2) in enumerate(merged):
            if sp.expand(poly - p2) == 0:
                merged[i] = (n2, p2, c2 + c)
                break
        else:
            merged.append((name, poly, c))
    return merged


def factor_modes(modes) -> tuple:
    """Factor each mode's polynomial in ``r``; equal polynomials of several modes merge."""
    factors: list[Factor] = []
    for name, poly, copies in _real_pairs(modes):
        if any(isinstance(a, sp.Float) for a in poly.atoms(sp.Number)):
            parts = [(poly, 1)]
        else:
            try:
                _, parts = sp.factor_list(sp.expand(poly))
            except sp.PolynomialError:
                # coefficients rational in the parameters (a phase rate 1/D): the numerator
                # has the same roots in r
                num, den = sp.fraction(sp.together(sp.expand(poly)))
                if den.has(r):  # pragma: no cover - det(rI - J) is a polynomial in r
                    raise VerificationError(f"r in a denominator of {poly}") from None
                _, parts = sp.factor_list(sp.expand(num))
        for f, mult in parts:
            if not f.has(r):
                continue
            f = _monic(f)
            label = name if copies == 1 else f"{name} ({copies} copies)"
            factors.append(Factor(f, mult * copies, label))
    return tuple(factors)


def _monic(f):
    p = sp.Poly(f, r)
    lc = p.LC()
    if lc != 1:
        f = sp.expand(f / lc)
    return f


@dataclass(frozen=True)
class DelayMode:
    """One invariant subspace of a delay model: its basis, the blocks of ``A0`` and of every
    kernel's matrix (a :class:`~symdelay.model.lags.Linearisation`) and ``det`` of the block
    of ``Delta(r)``."""

    name: str
    index: int
    basis: sp.Matrix
    linearisation: object
    function: sp.Expr

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "index": self.index,
            "dimension": self.linearisation.A0.rows,
            "function": str(self.function),
        }


def _mode_function(lin, exact: bool) -> sp.Expr:
    """``det Delta(r)`` of a block, expanded with each kernel held as a symbol and then
    substituted: ``r + mu + lam theta K(r)`` keeps ``K(r)`` whole (a moving average's
    ``(1 - exp(-r Delta)) / (r Delta)`` is not spread over three terms)."""
    kernels = {}
    for t in lin.terms:
        kernels.setdefault(t.kernel, sp.Dummy("K"))
    held = type(lin)(
        lin.A0,
        tuple(type(t)(t.matrix, kernels[t.kernel], t.lags, t.derivative) for t in lin.terms),
    )
    d = held.matrix().det(method="berkowitz")
    if exact:
        d = sp.collect(sp.expand(d), list(kernels.values()))
    return d.xreplace({k: e for e, k in kernels.items()})


def decompose_linearisation(model) -> tuple:
    """The modes of a delay model's characteristic matrix: every matrix of the
    linearisation commutes with the permutation, so one basis splits them all."""
    lin = model.linearisation
    exact = model.equilibrium.exact
    n = lin.A0.rows
    if model.permutation is None:
        return (DelayMode("full", 0, sp.eye(n), lin, _mode_function(lin, exact)),)
    modes = []
    for j, k, V, W in _bases(model, n):
        block = lin.block(W, V).applyfunc(lambda e: _clean(e, exact))
        for M, B in [(lin.A0, block.A0)] + [
            (t.matrix, b.matrix) for t, b in zip(lin.terms, block.terms)
        ]:
            residual = (M * V - V * B).applyfunc(lambda e: _clean(e, exact))
            bad = (
                any(_is_zero(e, None, model.variable_domains) is False for e in residual)
                if exact
                else any(abs(complex(e)) > 1e-20 for e in residual)
            )
            if bad:
                raise VerificationError(f"mode {j} is not invariant under the linearisation")
        modes.append(DelayMode(_name(model, j, k), j, V, block, _mode_function(block, exact)))
    return tuple(modes)


def delay_factors(modes) -> tuple:
    """One :class:`Factor` per distinct mode function (conjugate Fourier pairs multiplied,
    equal functions merged with a multiplicity); each is ``det`` of a block of
    ``Delta(r)``, made monic in its highest power of ``r`` where that is a number."""
    as_modes = [Mode(m.name, m.index, m.basis, sp.zeros(1, 1), m.function) for m in modes]
    out = []
    for name, f, copies in _real_pairs(as_modes):
        label = name if copies == 1 else f"{name} ({copies} copies)"
        num = rational_numerator(f)
        if num is None:
            out.append(Factor(f, copies, label))
            continue
        for g, mult in sp.factor_list(num)[1]:
            if g.has(r):
                out.append(Factor(_monic(g), mult * copies, label))
    return tuple(out)


def rational_numerator(f):
    """The numerator of ``f`` as a polynomial in ``r`` when ``f`` is rational in ``r`` (every
    kernel a rational transform: exponential, integer-shape gamma, phase-type), else None.
    Its zeros are those of ``f`` (the denominator's zeros, the kernels' poles, lie in
    ``Re r < 0`` and are cancelled where shared)."""
    if f.has(sp.exp):
        return None
    num, _ = sp.fraction(sp.cancel(sp.together(f)))
    try:
        p = sp.Poly(num, r)
    except sp.PolynomialError:
        return None
    if any(c.has(r) for c in p.coeffs()):
        return None
    return sp.expand(num)
