"""The hyperexponential-delay model written by hand from its definition (not through the model
layer): an independent table for the tests of the generated simulator and the generic LNA."""

from __future__ import annotations

import numpy as np
import sympy as sp

q1, q2, z1a, z1b, z2a, z2b = HX_STATES = sp.symbols("q1 q2 z1a z1b z2a z2b")
lam, mu, theta, pa, pb, ga, gb = sp.symbols("lam mu theta p_a p_b g_a g_b")
HX_PARAMS = {
    lam: 1,
    mu: 1,
    theta: 2,
    pa: sp.Rational(3, 10),
    pb: sp.Rational(7, 10),
    ga: sp.Rational(1, 2),
    gb: 5,
}


def hyperexp_table():
    """Arrival routed to i by logit, then with prob p_a a phase of rate g_a, else g_b."""
    p1 = sp.exp(-theta * q1) / (sp.exp(-theta * q1) + sp.exp(-theta * q2))
    p2 = sp.exp(-theta * q2) / (sp.exp(-theta * q1) + sp.exp(-theta * q2))
    e = np.eye(6, dtype=int)
    return [
        ("arrive_1a", e[2], 2 * lam * p1 * pa),
        ("arrive_1b", e[3], 2 * lam * p1 * pb),
        ("arrive_2a", e[4], 2 * lam * p2 * pa),
        ("arrive_2b", e[5], 2 * lam * p2 * pb),
        ("enter_1a", e[0] - e[2], ga * z1a),
        ("enter_1b", e[0] - e[3], gb * z1b),
        ("enter_2a", e[1] - e[4], ga * z2a),
        ("enter_2b", e[1] - e[5], gb * z2b),
        ("service_1", -e[0], mu * q1),
        ("service_2", -e[1], mu * q2),
    ]
