"""GillesPy2 (compiled C++ SSA) as a peer for the founding model: two queues, logit routing,
Erlang(L, mean D) delay, the unscaled jump process with eta = the number of jobs scale.

Species Q1, Q2, Z1_1..Z1_L, Z2_1..Z2_L (counts); the arrivals have a custom propensity (the
logit split of the total arrival rate 2 eta lam), the phase and service steps are mass
action. ``build_solver`` compiles once (GillesPy2 builds a C++ program per model); the
benchmark times ``solver.run`` only ("solve only").
"""

from __future__ import annotations

import numpy as np


def build_model(L, eta, mu, lam, theta, D, T, points=51):
    import gillespy2

    g = gillespy2.Model(name=f"founding_L{L}")
    gamma = L / D
    g.add_parameter(gillespy2.Parameter(name="gamma", expression=str(float(gamma))))
    g.add_parameter(gillespy2.Parameter(name="mu", expression=str(float(mu))))
    q = [gillespy2.Species(name=f"Q{i + 1}", initial_value=0 if i == 0 else eta) for i in (0, 1)]
    z = [
        [gillespy2.Species(name=f"Z{i + 1}_{ell + 1}", initial_value=0) for ell in range(L)]
        for i in (0, 1)
    ]
    g.add_species(q + z[0] + z[1])
    a = 2.0 * eta * lam
    for i in (0, 1):
        other = 1 - i
        # each count times a double first: the C++ solver holds counts as unsigned integers,
        # so Q1 - Q2 would wrap around below 0
        c = float(theta) / eta
        prop = f"{a!r} / (1.0 + exp({c!r} * Q{i + 1} - {c!r} * Q{other + 1}))"
        g.add_reaction(
            gillespy2.Reaction(
                name=f"arrival_{i + 1}", reactants={}, products={z[i][0]: 1},
                propensity_function=prop,
            )
        )  # fmt: skip
        for ell in range(L):
            dest = {z[i][ell + 1]: 1} if ell < L - 1 else {q[i]: 1}
            g.add_reaction(
                gillespy2.Reaction(
                    name=f"phase_{i + 1}_{ell + 1}", reactants={z[i][ell]: 1}, products=dest,
                    rate="gamma",
                )
            )  # fmt: skip
        g.add_reaction(
            gillespy2.Reaction(name=f"service_{i + 1}", reactants={q[i]: 1}, products={}, rate="mu")
        )
    g.timespan(np.linspace(0.0, T, points))
    return g


def build_solver(model):
    from gillespy2 import SSACSolver

    return SSACSolver(model=model)


def run(solver, seed):
    result = solver.run(number_of_trajectories=1, seed=int(seed))
    return result[0]
