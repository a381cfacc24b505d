"""The characteristic equation of the difference mode, derived and machine-checked.

For symbolic L, SymPy derives ``det(r I - J)`` by a Schur complement of the structured
difference Jacobian (:mod:`.linearize`, whose entries it reads): the delay block of
``r I - J`` is lower bidiagonal, its determinant is a ``Product`` that SymPy evaluates, and
its inverse applied to the first column is the solution of a first-order recurrence that
``rsolve`` finds. Nothing in the result is typed in:

>>> characteristic_polynomial(L)
gamma**L*lam*theta + (gamma + r)**L*(mu + r)
>>> sp.expand(characteristic_polynomial(1))
gamma*lam*theta + gamma*mu + gamma*r + mu*r + r**2

The explicit determinants for concrete L and the full 2(L+1) system check the general
result from an independent path (:func:`verify_difference_determinant`,
:func:`verify_full_factorisation`).
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from functools import cache

from symdelay.analysis.charpoly import ModeFactor
from symdelay.core.derivation import Derivation, require_equal, require_zero
from symdelay.core.errors import SymdelayInputError, VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.params import as_L, as_parameter
from symdelay.core.result import Result
from symdelay.core.symbols import D, L, gamma, lam, mu, positive_versions, r, theta
from symdelay.models.erlang.linearize import (
    difference_jacobian_entry,
    structured_difference_jacobian,
)

__all__ = [
    "characteristic_polynomial",
    "specialised_charpoly",
    "founding_factors",
    "difference_coefficients",
    "derive_characteristic_equation",
    "eigenvector",
    "explicit_characteristic_polynomial",
    "verify_difference_determinant",
    "verify_full_factorisation",
    "DeterminantCheck",
    "FullCheck",
    "SpecialCase",
    "special_case",
    "infinite_L_limit",
    "delayed_information_equation",
    "erlang_information_equation",
    "DETERMINANT_METHODS",
]

_k = sp.Symbol("k", integer=True, positive=True)

#: Ways to compute an explicit characteristic polynomial (see the benchmark).
DETERMINANT_METHODS = ("berkowitz", "bareiss", "block")


# ---------------------------------------------------------------- general L
@cache
def derive_characteristic_equation() -> Derivation:
    """Derive ``det(r I - J)`` of the difference mode for symbolic L, step by step.

    Steps: the structured Jacobian; the Schur complement of the delay block ``M`` (lower
    bidiagonal); ``det M`` as a ``Product``; ``y = M^{-1} c`` from the recurrence
    ``(r+gamma) y_k = gamma y_{k-1}``, ``y_1 = lam theta/(r+gamma)``, solved by ``rsolve``;
    the eigenvector ``v = (1, -y_1, ..., -y_L)``; the determinant. Computed once (cached).

    Returns
    -------
    Derivation
        The steps (``d["jacobian"]``, ``d["recurrence"]``, ...; each a SymPy object with how
        it was obtained) and ``d.result``, ``(r + mu)(r + gamma)^L + lam theta gamma^L``.

    Examples
    --------
    >>> d = derive_characteristic_equation()
    >>> d.result
    gamma**L*lam*theta + (gamma + r)**L*(mu + r)
    """
    d = Derivation("Characteristic equation of the difference mode, general L")
    Lp = positive_versions(L)[L]
    J = structured_difference_jacobian(L)
    d.add("jacobian", "Difference Jacobian (rows x, w_1, ..., w_L)", J)

    def A(i, j):  # an entry of rI - J, read off the structured Jacobian (i, j >= 0)
        return (r if i == j else 0) - difference_jacobian_entry(i, j, Lp)

    # blocks of A = rI - J: [[a, b^T], [c, M]]; M is lower bidiagonal, b = b_L e_L, c = c_1 e_1
    a = A(0, 0)
    d.add("a", "Top-left entry of rI - J", sp.Eq(sp.Symbol("a"), a))
    diagonal, below, b_L, c_1 = A(_k, _k), A(_k + 1, _k), A(0, Lp), A(1, 0)
    detM = sp.Product(diagonal, (_k, 1, Lp))
    detM_value = detM.doit()
    d.add(
        "detM",
        "The delay block M of rI - J is lower bidiagonal (r+gamma on the diagonal, "
        "-gamma below it), so its determinant is the product of the diagonal",
        sp.Eq(detM, detM_value),
        "Product(...).doit()",
    )
    y = sp.Function("y")
    recurrence = diagonal * y(_k) + below * y(_k - 1)
    initial = c_1 / A(1, 1)
    d.add(
        "recurrence",
        "M y = c with c = (lam theta, 0, ..., 0) is the first-order recurrence",
        sp.Eq(recurrence, 0),
    )
    d.add("initial", "with", sp.Eq(y(1), initial))
    sol = sp.rsolve(recurrence, y(_k), {y(1): initial})
    if sol is None:
        raise VerificationError("rsolve found no solution of the delay recurrence")
    sol = sp.powsimp(sp.simplify(sol))
    require_zero(
        recurrence.subs(y(_k), sol).subs(y(_k - 1), sol.subs(_k, _k - 1)),
        "rsolve solution satisfies the recurrence",
    )
    require_equal(sol.subs(_k, 1), initial, "rsolve solution meets y_1")
    d.add("y", "rsolve gives", sp.Eq(y(_k), sol), "substituted back into the recurrence")
    v = -sol
    d.add(
        "eigenvector",
        "Hence the eigenvector with first component 1 has w-components v_k = -y_k",
        sp.Eq(sp.Function("v")(_k), v),
    )
    yL = sol.subs(_k, Lp)
    schur = a - b_L * yL  # b^T M^{-1} c = b_L y_L
    det_expr = detM_value * schur
    d.add(
        "schur",
        "Schur complement: det(rI - J) = det(M) (a - b^T M^{-1} c), b = (0,...,0,-gamma)",
        sp.Eq(sp.Symbol("P"), det_expr),
    )
    result = sp.collect(sp.powsimp(sp.expand(det_expr)), (r + gamma) ** Lp)
    require_equal(result, det_expr, "expanded determinant equals the Schur form")
    result = result.subs(Lp, L)
    d.add("result", "Expanding,", sp.Eq(sp.Symbol("P"), result), "expand(...) == Schur form")
    d.result = result
    return d.freeze()


def characteristic_polynomial(
    L_value=L, *, full: bool = False, mu=None, lam=None, theta=None, D=None, kappa=None
) -> sp.Expr:
    """The characteristic polynomial in ``r`` of the founding model's difference mode (or, with
    ``full``, of the whole system): the convenience of :func:`symdelay.charpoly`, which gives
    the record with its factors.

    Parameters left out stay symbols; given ones are made exact and substituted. The full
    ``2(L+1)`` polynomial is returned factored as the sum-mode factor times the
    difference-mode factor, after :func:`verify_full_factorisation` has checked it against the
    explicit determinant.

    Parameters
    ----------
    L_value : int or Symbol, default L
        The number of Erlang phases, an integer ``>= 1``, or the symbol ``L`` for the general
        form ``(r + mu)(r + gamma)^L + lam theta gamma^L``.
    full : bool, default False
        The whole system's polynomial (concrete L only) rather than the difference mode's.
    mu, lam, theta : number or str, optional
        The service rate, the arrival rate per queue and the routing sensitivity, made exact;
        default: the symbols.
    D : number or str, optional
        The mean delay (``> 0``), substituted as ``gamma = L/D``; default: ``gamma`` stays.
    kappa : number, str or sequence, optional
        Weights of the jobs in flight (one number for every phase, or one per phase): the
        ``inflight`` model's polynomial instead (routing on ``q_i + sum_l kappa_l z_{i,l}``).

    Returns
    -------
    sympy.Expr
        The polynomial in ``r``.

    Examples
    --------
    >>> characteristic_polynomial(2, mu=1, lam=1, theta=2, D="1/2")
    (r + 1)*(r + 4)**2 + 32
    """
    if kappa is not None:
        from symdelay.models.erlang.kappa import inflight_model

        return inflight_model(L_value, kappa, mu=mu, lam=lam, theta=theta, D=D).charpoly
    n = as_L(L_value)
    if full:
        if not isinstance(n, int):
            raise SymdelayInputError(
                "the full polynomial needs a concrete L: give L as an integer >= 1"
            )
        poly = verify_full_factorisation(n).factored
    else:
        general = derive_characteristic_equation().result
        poly = general if n == L else general.subs(L, n)
    values = _parameter_values(n, mu=mu, lam=lam, theta=theta, D=D)
    return poly.subs(values) if values else poly


#: The most decimal digits of one exact number printed (Python refuses to print an int of
#: more than 4300 digits; such a polynomial is unreadable anyway).
MAX_PRINTED_DIGITS = 4000


def _refuse_huge_numbers(poly, L_value) -> None:
    """Refuse, in one line, a polynomial whose exact coefficients cannot be printed."""
    bits = max(
        (max(int(q.p).bit_length(), int(q.q).bit_length()) for q in poly.atoms(sp.Rational)),
        default=0,
    )
    digits = int(bits * 0.30103) + 1
    if digits > MAX_PRINTED_DIGITS:
        raise SymdelayInputError(
            f"the exact polynomial at L = {L_value} and these values has a coefficient of "
            f"about {digits} digits (more than {MAX_PRINTED_DIGITS}): use values nearer 1, "
            "fewer phases, or leave a parameter symbolic (e.g. omit --D)"
        )


def specialised_charpoly(model, full: bool = False):
    """The founding model's characteristic polynomial
    (:func:`~symdelay.analysis.charpoly.charpoly`): the derived difference-mode polynomial at
    its L (an integer or the symbol L) with its numbers substituted, ``full``: the whole
    polynomial (the sum mode times the difference mode, checked against the explicit
    determinant once per L); L = inf: the delay equation. Its factors are the two modes'
    closed forms (:func:`founding_factors`). It never declines."""
    from symdelay.analysis.charpoly import CharPoly, model_parameters, select
    from symdelay.core.latex import tex

    factors = founding_factors(model.L if not model.infinite else sp.oo, model_values(model))
    common = {
        "model_name": model.name,
        "full": full,
        "parameters": model_parameters(model),
        "closed_forms": closed_forms(model),
    }
    if model.infinite:
        if full:
            raise SymdelayInputError(
                "--full needs a finite L: the limit L -> inf has no full polynomial"
            )
        eq = factors[-1].factor  # theta = 0: one factor, the two modes alike
        return CharPoly(None, tex(eq) + " = 0", factors, equation=eq, **common)
    if full:
        if not isinstance(model.L, int):
            raise SymdelayInputError(
                "the full polynomial needs a concrete L: give L as an integer >= 1"
            )
        verify_full_factorisation(model.L)  # the modes' product is det(rI - J): checked
    poly = select(factors, full)
    _refuse_huge_numbers(poly, model.L)
    return CharPoly(poly, tex(poly), factors, **common)


def model_values(model) -> dict:
    """The founding (or in-flight) model's numbers: ``mu, lam, theta, D`` -> exact value or
    None (symbolic)."""
    o = model.options
    return {k: o[k] for k in ("mu", "lam", "theta", "D")}


def founding_factors(L, values: dict) -> tuple:
    """The founding model's characteristic function by mode, as its transition table gives
    it (:class:`~symdelay.analysis.charpoly.ModeFactor`, built when first read): the sum mode
    ``(r + mu)(r + gamma)^L`` (``(r + mu)^(L+1)`` when ``mu = gamma``) and the difference
    mode ``(r + mu)(r + gamma)^L + lam theta gamma^L``, with ``gamma = L/D``; ``L = oo``:
    ``r + mu`` and ``r + mu + lam theta e^{-D r}``; for ``theta = 0`` the two are one
    factor twice. ``values``: ``mu, lam, theta, D`` -> exact number or None (the symbol).

    The difference mode's form is the derived one (:func:`derive_characteristic_equation`,
    and its limit); the sum mode's block is triangular (the routing probabilities add up to
    one), so its polynomial is the product of its diagonal. Both are compared with the
    transition table's factors in the tests (``tests/test_one_record.py``)."""
    items = tuple(values.items())
    if any(_zero(values[k]) for k in ("lam", "theta")):
        # lam theta = 0: the difference mode's polynomial is the sum mode's, one factor
        # twice (as the table merges equal modes)
        text = _founding_text(L, values, False)
        return (ModeFactor(functools.partial(_founding_factor, L, items, False), "sum", 2, text),)
    return (
        ModeFactor(
            functools.partial(_founding_factor, L, items, False), "sum", 1,
            _founding_text(L, values, False),
        ),
        ModeFactor(
            functools.partial(_founding_factor, L, items, True), "difference", 1,
            _founding_text(L, values, True),
        ),
    )  # fmt: skip


def _founding_text(L, values: dict, difference: bool) -> str | None:
    """The factor as SymPy prints it, written without SymPy where every number is given
    (a command that only prints the factor then does no SymPy arithmetic, whose first sum
    imports half of SymPy); None otherwise (the factor's SymPy expression is printed).
    ``tests/test_charpoly.py`` compares the two over a grid of values."""
    from fractions import Fraction

    if not isinstance(L, int) or any(values.get(k) is None for k in ("mu", "lam", "theta", "D")):
        return None
    m = Fraction(values["mu"])
    g = Fraction(L) / Fraction(values["D"])
    k = Fraction(values["lam"]) * Fraction(values["theta"]) * g**L
    if L * len(str(max(g.numerator, g.denominator))) > _POWER_DIGITS or m <= 0 or g <= 0:
        return None  # gamma^L left unevaluated, or an order SymPy might print otherwise

    def power(c, n):
        return f"(r + {c})" if n == 1 else f"(r + {c})**{n}"

    if m == g:
        head = power(m, L + 1)
    else:
        head = "*".join(power(c, n) for c, n in sorted(((m, 1), (g, L)), key=lambda t: t[0]))
    if not difference or k == 0:
        return head
    return f"{head} + {k}" if k > 0 else f"{head} - {-k}"


def difference_coefficients(L: int, m, g, k) -> list:
    """The coefficients of ``(r + m)(r + g)^L + k g^L``, highest power first, by the
    binomial theorem (exact for rational ``m, g, k``: ``Fraction`` or SymPy), without
    building the polynomial."""
    from math import comb

    out = [0] * (L + 2)
    for j in range(L + 1):  # (r + g)^L = sum C(L, j) g^j r^(L - j)
        c = comb(L, j) * g**j
        out[j] += c
        out[j + 1] += c * m
    out[-1] += k * g**L
    return out


def _zero(v) -> bool:
    """``v == 0`` for None (False), a Fraction or a SymPy number, without SymPy's ``==``."""
    if v is None:
        return False
    p = getattr(v, "p", None)
    return p == 0 if p is not None else v == 0


#: Above this many digits gamma^L stays a power in a printed factor (Python prints no
#: integer of more than 4300 digits).
_POWER_DIGITS = 300


def _founding_factor(L, items, difference: bool):
    from fractions import Fraction

    from symdelay.core.params import is_infinite_L

    def exact(v):
        return sp.Rational(v.numerator, v.denominator) if isinstance(v, Fraction) else v

    v = {k: exact(x) for k, x in items}
    m = mu if v["mu"] is None else v["mu"]
    lt = (lam if v["lam"] is None else v["lam"]) * (theta if v["theta"] is None else v["theta"])
    if is_infinite_L(L):
        d = D if v["D"] is None else v["D"]
        return r + m + lt * sp.exp(-d * r) if difference else r + m
    g = gamma if v["D"] is None else sp.Integer(L) / v["D"] if isinstance(L, int) else L / v["D"]
    if not difference:
        same = g.is_number and m.is_number and g == m
        return (r + m) ** (L + 1) if same else (r + m) * (r + g) ** L
    if isinstance(L, int) and g.is_Rational and L * len(str(max(abs(g.p), g.q))) > _POWER_DIGITS:
        # lam theta gamma^L left unevaluated: its digits would not print
        tail = sp.Mul(lt, sp.Pow(g, L, evaluate=False), evaluate=False)
        return sp.Add((r + m) * (r + g) ** L, tail, evaluate=False)
    return (r + m) * (r + g) ** L + lt * g**L


def closed_forms(model) -> dict:
    """What the founding family knows in closed form about the characteristic polynomial:
    the difference mode's for every L (derived, :func:`derive_characteristic_equation`) and
    its limit L -> oo at fixed mean delay (the delay equation)."""
    from symdelay.core.symbols import L as L_symbol

    out = {"difference_every_L": derive_characteristic_equation().result}
    if model.infinite:
        out["limit_L_inf"] = infinite_L_limit().result
    out["sum_every_L"] = (r + mu) * (r + gamma) ** L_symbol
    return out


def _parameter_values(n, **given) -> dict:
    """Validated exact substitutions for the given parameters (``D`` -> ``gamma``)."""
    values = {}
    for name, sym in (("mu", mu), ("lam", lam), ("theta", theta)):
        if given.get(name) is not None:
            values[sym] = as_parameter(name, given[name], positive=(name != "theta"))
    if given.get("D") is not None:
        L_exact = sp.Integer(n) if isinstance(n, int) else n  # exact: no nsimplify of L/D
        values[gamma] = L_exact / as_parameter("D", given["D"])
    return values


def eigenvector(L_value=L) -> list | sp.Expr:
    """The eigenvector ``v(r)`` of the difference Jacobian (first component 1) at a root ``r``
    of the characteristic polynomial.

    Parameters
    ----------
    L_value : int or Symbol, default L
        The number of phases: an integer ``>= 1`` gives the ``L + 1`` components, the symbol
        ``L`` the general term ``v_k``.

    Returns
    -------
    list of sympy.Expr or sympy.Expr
        ``[1, v_1, ..., v_L]`` in ``r`` and the parameters (concrete L), or the general term
        in ``k``.

    Examples
    --------
    >>> eigenvector(1)
    [1, -lam*theta/(gamma + r)]
    """
    d = derive_characteristic_equation()
    term = d["eigenvector"].expr.rhs
    n = as_L(L_value)
    if not isinstance(n, int):
        return term
    return [sp.Integer(1)] + [term.subs(_k, k) for k in range(1, n + 1)]


# ------------------------------------------------------ explicit determinants
def explicit_characteristic_polynomial(J: sp.Matrix, method: str = "berkowitz") -> sp.Expr:
    """``det(r I - J)`` expanded, by ``method`` in :data:`DETERMINANT_METHODS`.

    ``block`` uses the structure of the difference Jacobian: a Laplace expansion along the
    first row (two non-zero entries), each minor triangular.
    """
    n = J.shape[0]
    A = r * sp.eye(n) - J
    if method == "berkowitz":
        return sp.expand(J.charpoly(r).as_expr())
    if method == "bareiss":
        return sp.expand(A.det(method="bareiss"))
    if method == "block":
        total = 0
        for j in range(n):
            if A[0, j] != 0:
                minor = A.minor_submatrix(0, j)
                total += (-1) ** j * A[0, j] * minor.det(method="bareiss")
        return sp.expand(total)
    raise SymdelayInputError(
        f"unknown determinant method '{method}': use one of {', '.join(DETERMINANT_METHODS)}"
    )


@dataclass(frozen=True)
class DeterminantCheck(Result):
    """Explicit determinant of the difference Jacobian vs the general-L formula."""

    L: int
    method: str
    explicit: sp.Expr
    general: sp.Expr
    agrees: bool
    structured_agrees: bool
    seconds: float


def verify_difference_determinant(n: int, method: str = "berkowitz") -> DeterminantCheck:
    """Check the general-L characteristic polynomial at ``L = n`` against an explicit
    determinant.

    The explicit matrix is the difference block of the founding model's transition table
    (the Jacobian of its drift at the equilibrium, restricted to the antisymmetric mode),
    independent of the structured matrix used in the general derivation; the two matrices
    are compared too.

    Parameters
    ----------
    n : int
        The number of phases, an integer ``>= 1``.
    method : {"berkowitz", "bareiss", "block"}, default "berkowitz"
        How the explicit determinant is computed (:data:`DETERMINANT_METHODS`; see
        ``benchmarks/bench_charpoly.py``).

    Returns
    -------
    DeterminantCheck
        The explicit and the general polynomial, ``agrees`` (their difference expands to 0),
        ``structured_agrees`` (the structured matrix equals the table's) and the time taken.

    Examples
    --------
    >>> verify_difference_determinant(3).agrees
    True
    """
    from symdelay.models import ActionDelayModel

    n = as_L(n, allow_symbol=False)
    t0 = time.perf_counter()
    model = ActionDelayModel(L=n)
    J = model.difference_jacobian()
    explicit = explicit_characteristic_polynomial(J, method)
    general = characteristic_polynomial(n)
    agrees = sp.expand(explicit - general) == 0
    structured = structured_difference_jacobian(L).subs(L, n).as_explicit()
    seconds = time.perf_counter() - t0
    return DeterminantCheck(n, method, explicit, general, agrees, structured == J, seconds)


@dataclass(frozen=True)
class FullCheck(Result):
    """The full 2(L+1) characteristic polynomial and its factorisation into the modes."""

    L: int
    explicit: sp.Expr
    sum_factor: sp.Expr
    difference_factor: sp.Expr
    factored: sp.Expr
    agrees: bool
    seconds: float


@cache
def verify_full_factorisation(n: int) -> FullCheck:
    """Check that the explicit ``det(r I - J_full)`` of the whole ``2(L+1)`` system equals the
    sum-mode factor times the difference-mode factor.

    Both Jacobians are the transition table's (the full one and its sum block); the sum-mode
    factor is computed from the sum block and factored by SymPy. Computed once per ``n``.

    Parameters
    ----------
    n : int
        The number of phases, an integer ``>= 1``.

    Returns
    -------
    FullCheck
        The explicit polynomial, the two factors, their product unevaluated (``factored``)
        and ``agrees``.

    Raises
    ------
    VerificationError
        When the product is not the explicit polynomial (a bug).
    """
    from symdelay.models import ActionDelayModel

    n = as_L(n, allow_symbol=False)
    t0 = time.perf_counter()
    model = ActionDelayModel(L=n)
    explicit = sp.expand(model.jacobian().charpoly(r).as_expr())
    sum_factor = sp.factor(model.sum_jacobian().charpoly(r).as_expr())
    diff_factor = characteristic_polynomial(n)
    product = sp.Mul(sum_factor, diff_factor, evaluate=False)
    agrees = sp.expand(explicit - sum_factor * diff_factor) == 0
    if not agrees:
        raise VerificationError(f"full characteristic polynomial does not factor at L={n}")
    return FullCheck(
        n, explicit, sum_factor, diff_factor, product, agrees, time.perf_counter() - t0
    )


def _positive_simplify(expr):
    """Simplify with every symbol positive (L a positive integer).

    Used for identities between analytic functions of r: holding for all r > 0 they hold
    identically, and positivity lets SymPy split powers of products.
    """
    pos = positive_versions(
        *(
            s
            for s in expr.free_symbols
            if s.name in {x.name for x in (r, mu, lam, theta, gamma, D, L)}
        )
    )
    return sp.simplify(sp.expand(sp.expand_power_base(expr.subs(pos))))


# ---------------------------------------------------------------- special cases
@dataclass(frozen=True)
class SpecialCase(Result):
    """The characteristic polynomial for one small L, expanded in powers of r.

    ``coefficients`` runs from the leading power down. For L = 1, ``discriminant``
    and ``oscillation_condition`` (complex roots) are filled in; that condition is an
    oscillation boundary, not a stability boundary.
    """

    L: int
    polynomial: sp.Expr
    coefficients: tuple
    discriminant: sp.Expr | None = None
    oscillation_condition: sp.Basic | None = None
    stable_for_all_nonnegative_theta: bool | None = None


def _coefficients(poly_expr) -> tuple:
    P = sp.Poly(poly_expr, r)
    return tuple(sp.factor(c) for c in P.all_coeffs())


def special_case(n: int) -> SpecialCase:
    """The characteristic polynomial at ``L = n`` with its coefficients factored.

    For ``n == 1`` the discriminant is split by SymPy into the theta-free part (factored, a
    square) and the rest, which yields the oscillation condition
    ``4 gamma lam theta > (gamma - mu)**2``; positivity of the two coefficients (Hurwitz for
    a quadratic) shows it is stable for every ``theta >= 0`` all the same.

    Parameters
    ----------
    n : int
        The number of phases, an integer ``>= 1``.

    Returns
    -------
    SpecialCase
        ``polynomial``, ``coefficients`` (leading power first); for ``n == 1`` also
        ``discriminant``, ``oscillation_condition`` and ``stable_for_all_nonnegative_theta``.

    Examples
    --------
    >>> special_case(1).oscillation_condition
    4*gamma*lam*theta > (gamma - mu)**2
    """
    n = as_L(n, allow_symbol=False)
    coeffs = _coefficients(characteristic_polynomial(n))
    poly = sum(c * r**p for p, c in zip(range(n + 1, -1, -1), coeffs))
    if n != 1:
        return SpecialCase(n, poly, coeffs)
    disc = sp.discriminant(sp.Poly(poly, r))
    base = sp.factor(disc.subs(theta, 0))
    rest = sp.expand(disc - disc.subs(theta, 0))
    require_equal(disc, base + rest, "discriminant split")
    disc_display = sp.Add(base, rest, evaluate=False)
    oscillation = sp.StrictGreaterThan(-rest, base, evaluate=False)
    pos = positive_versions(mu, gamma, lam)
    theta_nn = sp.Symbol("theta", nonnegative=True)
    stable = all(c.subs(pos).subs(theta, theta_nn).is_positive for c in coeffs)
    return SpecialCase(n, poly, coeffs, disc_display, oscillation, stable)


# ------------------------------------------------------------------ L -> infinity
@cache
def infinite_L_limit() -> Derivation:
    """The limit ``L -> oo`` of the characteristic equation at fixed mean delay D
    (``gamma = L/D``), computed by SymPy.

    Divide the characteristic polynomial by ``(r+gamma)^L``, substitute ``gamma = L/D``, and
    take ``limit(..., L, oo)``. Computed once (cached).

    Returns
    -------
    Derivation
        The steps and ``result``, ``r + mu + lam theta exp(-r D)``.

    Examples
    --------
    >>> infinite_L_limit().result
    lam*theta*exp(-D*r) + mu + r
    """
    d = Derivation("The limit L -> infinity at fixed mean delay D")
    P = characteristic_polynomial(L)
    Lp, Dp = positive_versions(L, D)[L], positive_versions(D)[D]
    divided = sp.powsimp(sp.expand(P / (r + gamma) ** L), force=True)
    require_equal(
        divided * (r + gamma) ** L,
        P,
        "divided form times (r+gamma)^L",
        simplifier=_positive_simplify,
    )
    d.add(
        "divided",
        "For r != -gamma the equation P = 0 is equivalent to",
        sp.Eq(divided, 0),
        "multiplied back by (r+gamma)^L",
    )
    with_D = divided.subs(gamma, L / D).replace(
        lambda e: e.is_Pow and e.exp == L, lambda e: sp.Pow(sp.cancel(e.base), e.exp)
    )
    d.add("gamma", "With gamma = L/D (mean delay D fixed)", sp.Eq(with_D, 0))
    term = with_D - (r + mu)
    limit_term = sp.limit(term.subs({L: Lp, D: Dp}), Lp, sp.oo)
    limit_term = limit_term.subs({Lp: L, Dp: D})
    d.add(
        "limit",
        "and SymPy's limit as L -> oo",
        sp.Eq(sp.Limit(term, L, sp.oo), limit_term),
        "sympy.limit",
    )
    result = r + mu + limit_term
    d.add("result", "gives the delayed-information characteristic equation", sp.Eq(result, 0))
    d.result = result
    return d.freeze()


def delayed_information_equation() -> Derivation:
    """The characteristic equation of the delayed-information model
    ``x'(t) = -mu x(t) - lam theta x(t - D)``, by the ansatz ``e^{rt}``.

    The delay equation is the difference mode, linearised, of the founding model's
    constant-lag limit (:meth:`symdelay.models.delayed_routing.LagLimit.linear_difference`:
    the transition table with the Erlang delay replaced by its mean D); the result is checked
    equal to :func:`infinite_L_limit`.

    Returns
    -------
    Derivation
        The delay equation, the ansatz and ``result``, ``r + mu + lam theta exp(-r D)``.
    """
    from symdelay.models.delayed_routing import lag_limit
    from symdelay.models.erlang.founding import symbolic_founding

    d = Derivation("Delayed-information model")
    t = sp.Symbol("t")
    x = sp.Function("x")
    slope_now, slope_lag = lag_limit(symbolic_founding(1)).linear_difference()
    dde = sp.Eq(sp.Derivative(x(t), t), slope_now * x(t) + slope_lag * x(t - D))
    d.add("dde", "The delayed-information model", dde)
    ansatz = sp.Lambda(t, sp.exp(r * t))
    residual = (dde.lhs - dde.rhs).subs(x, ansatz).doit()
    d.add("ansatz", "Substituting x(t) = exp(r t)", sp.Eq(residual, 0))
    result = sp.expand(sp.simplify(residual / sp.exp(r * t)))
    d.add("result", "and dividing by exp(r t)", sp.Eq(result, 0), "simplify")
    require_equal(result, infinite_L_limit().result, "ansatz equation equals the L -> oo limit")
    d.result = result
    return d.freeze()


def erlang_information_equation() -> Derivation:
    """The characteristic equation of the same model with an Erlang(L, mean D)-distributed
    information delay.

    ``x'(t) = -mu x(t) - lam theta Int_0^oo f_L(s) x(t - s) ds``, ``f_L`` the Erlang density
    of rate ``gamma``; the ansatz gives the Laplace transform of ``f_L``, computed by SymPy,
    and the result times ``(r + gamma)^L`` is checked equal to the action-delay polynomial.

    Returns
    -------
    Derivation
        The density, its Laplace transform, ``result`` and the equivalence with
        :func:`characteristic_polynomial`.
    """
    d = Derivation("Erlang-distributed information delay")
    s = sp.Symbol("s", positive=True)
    Lp = positive_versions(L)[L]
    gp = positive_versions(gamma)[gamma]
    f = gp**Lp * s ** (Lp - 1) * sp.exp(-gp * s) / sp.factorial(Lp - 1)
    d.add(
        "density",
        "Erlang density of the information delay",
        sp.Eq(sp.Function("f")(s), f.subs({Lp: L, gp: gamma})),
    )
    F = sp.laplace_transform(f, s, r, noconds=True)
    F = sp.powsimp(sp.gammasimp(F), combine="all")
    F = F.subs({Lp: L, gp: gamma})
    d.add(
        "laplace",
        "Its Laplace transform (sympy.laplace_transform)",
        sp.Eq(sp.LaplaceTransform(sp.Function("f")(s), s, r), F),
        "laplace_transform",
    )
    result = r + mu + lam * theta * F
    d.add("result", "The ansatz x = exp(r t) gives", sp.Eq(result, 0))
    ours = characteristic_polynomial(L)
    require_equal(
        result * (r + gamma) ** L,
        ours,
        "times (r+gamma)^L equals the action-delay polynomial",
        simplifier=_positive_simplify,
    )
    d.add(
        "equivalence",
        "Multiplied by (r+gamma)^L it is the action-delay polynomial",
        sp.Eq(sp.Mul(result, (r + gamma) ** L, evaluate=False), ours),
        "expand(...) == 0 for positive symbols, hence as polynomials in r",
    )
    d.result = result
    return d.freeze()
