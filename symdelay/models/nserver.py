"""N >= 2 symmetric servers with logit routing and a phase-type (default Erlang) delay.

The cyclic shift of the servers is a symmetry; its N Fourier modes split the Jacobian. The
symmetric (sum) mode is free of theta; the N - 1 others share one characteristic
polynomial, the two-server difference equation with the per-server arrival rate lam:
``r + mu + lam theta alpha (rI - S)^{-1} s = 0``.

>>> m = model(N=3, L=1)
>>> [(f.mode, f.multiplicity) for f in m.factors]
[('sum', 1), ('sum', 1), ('difference (2 copies)', 2)]
"""

from __future__ import annotations

from symdelay.core.options import RATES, Option
from symdelay.models.delayed_routing import delayed_routing_model
from symdelay.models.phase import DELAY_OPTIONS

__all__ = ["model", "INFO", "general_N_derivation"]

INFO = {
    "name": "nserver",
    "parameters": ["N", "L", "mu", "lam", "theta", "D"],
    "description": "N symmetric queues, logit routing, Erlang(L, mean D) or phase-type delay",
}


OPTIONS = (
    Option("N", "number of servers (integer >= 2)", "integer", "3"),
    *RATES,
    *DELAY_OPTIONS,
)


def model(N=3, mu=None, lam=None, theta=None, delay="erlang", **shape):
    """N queues with a phase-type delay (:func:`~symdelay.models.phase.delay_from_options`:
    Erlang(L, mean D) by default)."""
    from symdelay.core.params import as_L
    from symdelay.models.phase import delay_from_options

    if isinstance(N, str):
        N = as_L(N, allow_symbol=False)
    if isinstance(N, int) and N > 2:
        from symdelay.core.budget import check_budget, power_cost

        # each logit rate sums N exponentials: about N^2 (measured: N = 160 in about 15 s)
        check_budget(
            f"building the model of {N} servers",
            power_cost(N, 6e-4, 2),
            shrink="a smaller --N",
        )
    d = delay_from_options(delay, **shape)
    return delayed_routing_model(
        N=N, delay=d, mu=mu, lam=lam, theta=theta, name=f"{N} queues, logit routing, {d.kind} delay"
    )


def general_N_derivation():
    """Symbolic ``N``: the linearised routing and why every non-sum mode is the same.

    SymPy differentiates the logit rate ``N lam p_i`` of ``N`` queues (a ``Sum`` over an
    indexed state) at the symmetric point: ``d(N lam p_i)/dq_j = -lam theta (delta_ij - 1/N)``.
    Applied to a Fourier vector ``(omega^(m j))_j`` the ``1/N`` part is ``lam theta/N`` times
    ``sum_j omega^(m j)``, which SymPy sums to ``N`` when ``omega^m = 1`` (the sum mode) and
    ``0`` otherwise: on every other mode the routing acts as ``-lam theta``, exactly the
    two-server difference mode's coupling. Returns a frozen
    :class:`~symdelay.core.derivation.Derivation`.

    >>> d = general_N_derivation()
    >>> d["routing"].expr.rhs
    -lam*theta*(KroneckerDelta(i, j) - 1/N)
    """
    import sympy as sp

    from symdelay.core.derivation import Derivation, require_equal
    from symdelay.core.latex import Equation
    from symdelay.core.symbols import lam, theta

    N = sp.Symbol("N", integer=True, positive=True)
    i, j, k = sp.symbols("i j k", integer=True, nonnegative=True)
    m = sp.Symbol("m", integer=True, positive=True)
    q = sp.IndexedBase("q")
    qs = sp.Symbol("q^*")
    d = Derivation("N symmetric servers, symbolic N")
    rate = N * lam * sp.exp(-theta * q[i]) / sp.Sum(sp.exp(-theta * q[k]), (k, 0, N - 1))
    d.add(
        "rate", "Arrivals routed to queue i (logit over N queues)", Equation(sp.Symbol("a_i"), rate)
    )
    deriv = sp.diff(rate, q[j])
    at = deriv.replace(lambda e: isinstance(e, sp.Indexed), lambda e: qs).doit()
    # j runs over 0..N-1: keep the branch of each Piecewise that holds there
    inside = at.replace(lambda e: isinstance(e, sp.Piecewise), lambda e: e.args[0][0])
    claimed = -lam * theta * (sp.KroneckerDelta(i, j) - 1 / N)
    require_equal(inside, claimed, "d a_i / d q_j at the symmetric point")
    d.add(
        "routing",
        "SymPy differentiates the Sum and evaluates at q_k = q^* (every k)",
        Equation(sp.Symbol("da_i/dq_j"), claimed),
        "diff of the indexed Sum, doit, simplify",
    )
    omega_sum = sp.summation(sp.exp(2 * sp.pi * sp.I * m * j / N), (j, 0, N - 1))
    d.add(
        "fourier",
        "On the Fourier vector (omega^(m j)), omega = exp(2 pi i/N), the 1/N part sums to",
        Equation(sp.Symbol("Sigma_m"), omega_sum),
        "summation (geometric series)",
    )
    d.result = claimed
    return d.freeze()
