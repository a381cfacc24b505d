"""What SQ(d) has in closed form: the number of choices ``d`` checked, and the exponential
fixed point ``s_k = lam^((d^k - 1)/(d - 1))`` derived by ``rsolve`` (used by the fixed-point
solver and the mean field alike)."""

from __future__ import annotations

from functools import cache

from symdelay.core.derivation import Derivation, require_equal
from symdelay.core.errors import SymdelayInputError
from symdelay.core.latex import Equation
from symdelay.core.lazy import sympy as sp
from symdelay.core.symbols import lam

__all__ = ["as_d", "exponential_fixed_point", "k_sym", "d_sym"]

k_sym = sp.Symbol("k", integer=True, positive=True)
d_sym = sp.Symbol("d", integer=True, positive=True)


def as_d(d) -> int:
    """The number of choices: an integer >= 1 (refused otherwise, NaN-safe)."""
    try:
        v = sp.Rational(str(d).strip())
    except (TypeError, ValueError):
        raise SymdelayInputError(f"d must be an integer >= 1, got '{d}'") from None
    if not v.is_integer or not v >= 1:
        raise SymdelayInputError(f"d must be an integer >= 1 (number of queues sampled), got {d}")
    if v > MAX_D:
        raise SymdelayInputError(
            f"d = {d} queues sampled per arrival is beyond {MAX_D} (the mean field sums d terms "
            "per level, the simulation samples d queues per arrival): give a smaller d"
        )
    return int(v)


#: the most queues sampled per arrival symdelay computes with
MAX_D = 100_000


@cache
def exponential_fixed_point() -> Derivation:
    """The fixed point of the tail ODE, derived: s_k = lam^((d^k - 1)/(d - 1)).

    At a fixed point the sum of the equations over levels >= k telescopes (s_n -> 0) to
    ``lam s_{k-1}^d = s_k``; with ``a_k = log s_k`` this is the linear recurrence
    ``a_k = d a_{k-1} + log lam``, ``a_0 = 0``, which SymPy's ``rsolve`` solves. The result is
    substituted back into the ODE, and the mean sojourn time follows by Little's law.
    """
    D = Derivation("SQ(d) with exponential service: the fixed point")
    a = sp.Function("a")
    L = sp.Symbol("ell", positive=True)  # log lam stand-in: positive parameter, sign-free algebra
    dd = sp.Symbol("d", positive=True)
    sol = sp.rsolve(a(k_sym) - dd * a(k_sym - 1) - L, a(k_sym), {a(0): 0})
    if sol is None:  # pragma: no cover - SymPy always solves this first-order recurrence
        raise SymdelayInputError("SymPy could not solve the fixed-point recurrence")
    exponent = sp.factor(sp.simplify(sol / L))
    sk = lam ** exponent.subs(dd, d_sym)
    D.add(
        "recurrence",
        "Telescoping the fixed-point equations from level k upwards, and taking logarithms "
        "(a_k = log s_k), SymPy's rsolve gives",
        Equation(sp.Symbol("a_k"), (exponent * sp.log(lam)).subs(dd, d_sym)),
        "rsolve(a_k - d a_{k-1} - log lam, a_0 = 0)",
    )

    # check: lam s_{k-1}^d = s_k for symbolic d and k (exponents of lam compared), so both
    # differences of the ODE's right-hand side vanish
    def e(j):
        return exponent.subs({dd: d_sym, k_sym: j})

    require_equal(1 + d_sym * e(k_sym - 1), e(k_sym), "lam s_{k-1}^d = s_k (exponents)")
    require_equal(e(0), 0, "s_0 = 1")
    D.add(
        "tail",
        "The fixed point (lam s_{k-1}^d = s_k checked for symbolic d and k, so the ODE's "
        "right-hand side vanishes):",
        Equation(sp.Symbol("s_k"), sk),
        "simplify of the exponents of lam",
    )
    sojourn_term = sp.powsimp(sk / lam, force=True)
    expo = sp.simplify(sp.log(sojourn_term).expand(force=True) / sp.log(lam))
    expo = sp.factor(expo)
    require_equal(expo, (d_sym**k_sym - d_sym) / (d_sym - 1), "exponent of the sojourn term")
    D.add(
        "sojourn",
        "By Little's law the mean sojourn time is E[Q]/lam = sum_k s_k / lam:",
        Equation(sp.Symbol("E[T]"), sp.Sum(lam**expo, (k_sym, 1, sp.oo))),
        "simplify of the exponent",
    )
    D.result = sk
    return D.freeze()
