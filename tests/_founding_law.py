"""Shared by the simulation tests: the founding model's transition table, the kind of each of
its transitions, and the exact expected number of events of each kind.

The totals over the two servers (jobs in service, jobs in each delay phase) have linear
rates, so their means solve a linear ODE exactly (the routing only splits the arrivals):
with ``Q = Q1 + Q2`` and ``Z_l = Z_{1,l} + Z_{2,l}``,

    dE[Z_1]/dt = 2 eta lam - gamma E[Z_1],   dE[Z_l]/dt = gamma (E[Z_{l-1}] - E[Z_l]),
    dE[Q]/dt = gamma E[Z_L] - mu E[Q],

and the expected number of events of a kind on [0, T] is the time integral of its total
rate: arrivals ``2 eta lam T``, phase steps out of phase l ``gamma int E[Z_l]``, entries
into service ``gamma int E[Z_L]``, services ``mu int E[Q]``. :func:`expected_counts` solves
this system with the integrals appended, by one matrix exponential: an independent second
path to the law of any simulator of the model.
"""

from __future__ import annotations

import numpy as np

KINDS = ("arrival", "phase", "enter_service", "service")


def founding(L, **params):
    from symdelay.models import build_model

    return build_model("erlang", L=L, **params)


def table(model):
    """``(states, [(name, change, rate)], values)`` for a GeneratedKernel."""
    return model.states, [(t.name, t.change, t.rate) for t in model.transitions], model.values


def numeric_table(model) -> list:
    """``[(name, change, rate)]`` with the model's parameter values in the rates."""
    return [(t.name, t.change, t.rate.xreplace(model.values)) for t in model.transitions]


def kind(name: str) -> str:
    """The kind of a founding-table transition from its name."""
    if name.startswith("arrival"):
        return "arrival"
    if name.startswith("service"):
        return "service"
    if "-> service" in name:
        return "enter_service"
    return "phase"


def counts_by_kind(names, transition_counts) -> dict:
    """``{kind: per-replication counts}``."""
    tc = np.asarray(transition_counts)
    return {k: tc[:, [j for j, n in enumerate(names) if kind(n) == k]].sum(axis=1) for k in KINDS}


def expected_counts(L, eta, mu, lam, D, T, initial) -> dict:
    """The exact expected number of events of each kind on ``[0, T]`` from the counts
    ``initial`` (``Q1, Q2, Z1_1..Z1_L, Z2_1..Z2_L``), see the module docstring."""
    from scipy.linalg import expm

    g = L / D
    n = L + 1  # Q, Z_1..Z_L, then 4 integrals, then the constant 1
    A = np.zeros((n + 5, n + 5))
    one = n + 4
    A[1, one] = 2 * eta * lam
    for ell in range(1, L + 1):
        A[ell, ell] -= g
        if ell > 1:
            A[ell, ell - 1] += g
    A[0, L] += g
    A[0, 0] -= mu
    A[n + 0, one] = 2 * eta * lam  # arrivals
    for ell in range(1, L):
        A[n + 1, ell] = g  # phase steps out of 1..L-1
    A[n + 2, L] = g  # entries into service
    A[n + 3, 0] = mu  # services
    x0 = np.zeros(n + 5)
    init = np.asarray(initial, dtype=float)
    x0[0] = init[0] + init[1]
    x0[1 : L + 1] = init[2 : 2 + L] + init[2 + L :]
    x0[one] = 1.0
    xT = expm(A * T) @ x0
    return dict(zip(KINDS, xT[n : n + 4]))
