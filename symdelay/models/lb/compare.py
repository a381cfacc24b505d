"""Comparisons and convergence: LB against other routings, simulation against the diffusion.

* :func:`erlang_c_random` — random routing in proportion to capacity makes every station an
  M/M/N_j queue at the common load: P(wait) and mean wait exactly (Erlang C).
* :func:`comparison` — P(wait) and mean delay against beta for LB(2), LB(J), random, JSQ
  (shortest of all stations by number present) and power-of-2 (shortest of two), simulated,
  beside the LB diffusion's prediction.
* :func:`convergence` — simulated sqrt(n)-scaled values against the diffusion as n grows.
"""

from __future__ import annotations

from dataclasses import dataclass

import mpmath

from symdelay.core.lazy import sympy as sp
from symdelay.core.precision import workdps
from symdelay.core.result import Result
from symdelay.models.lb.diffusion import diffusion, simulation_rate
from symdelay.models.lb.policy import LBPolicy, Station, as_rational
from symdelay.models.lb.simulate import scaled, simulate

__all__ = ["erlang_c_random", "comparison", "convergence", "ROUTINGS", "scaled_policy"]

#: name -> (routing code for simulate, xi law or None for the policy's own)
ROUTINGS = ("LB xi=2", "LB xi=J", "random", "JSQ", "power-of-2")


def erlang_c_random(policy: LBPolicy, lam, dps: int = 30) -> tuple:
    """``(P(wait), mean wait)`` of random routing in proportion to capacity (exact formulas)."""
    with workdps(dps):
        lr = as_rational("lam", lam)
        lamf = mpmath.mpf(lr.p) / lr.q
        cap = mpmath.mpf(policy.capacity.p) / policy.capacity.q
        pw = mw = mpmath.mpf(0)
        for s in policy.stations:
            mu = mpmath.mpf(s.mu.p) / s.mu.q
            share = s.N * mu / cap
            a = lamf * share / mu  # offered load in servers
            rho = a / s.N
            term, tot = mpmath.mpf(1), mpmath.mpf(1)
            for k in range(1, s.N):
                term = term * a / k
                tot += term
            last = term * a / s.N / (1 - rho)
            C = last / (tot + last)
            pw += share * C
            mw += share * C / (s.N * mu - lamf * share)
        return +pw, +mw


def _variant(policy: LBPolicy, name: str):
    J = policy.J
    if name == "LB xi=2":
        return policy.replace(xi={2: sp.Integer(1)}), "lb"
    if name == "LB xi=J":
        return policy.replace(xi={J: sp.Integer(1)}), "lb"
    if name == "JSQ":
        return policy.replace(xi={J: sp.Integer(1)}), "shortest"
    if name == "power-of-2":
        return policy.replace(xi={2: sp.Integer(1)}), "shortest"
    return policy, "random"


@dataclass
class ComparisonRow(Result):
    routing: str
    beta: sp.Rational
    p_wait: object  # BatchEstimate
    mean_wait_scaled: object  # BatchEstimate (sqrt(n) E[W])
    p_wait_theory: object  # diffusion (LB) or Erlang C (random) or None
    mean_wait_scaled_theory: object


def comparison(policy: LBPolicy, betas, T=2000.0, seed=1, routings=ROUTINGS) -> list:
    """Rows of P(wait) and sqrt(n) E[W] for each routing and beta (simulated; theory beside)."""
    rows = []
    rn = mpmath.sqrt(policy.n)
    for b in betas:
        lam = simulation_rate(policy, b)
        for k, name in enumerate(routings):
            pol, routing = _variant(policy, name)
            sim = simulate(pol, lam, T, seed=seed + 7919 * k, routing=routing)
            sc = scaled(sim)
            th_p = th_w = None
            if routing == "lb":
                dif = diffusion(pol, b, dps=15)
                th_p, th_w = float(dif.p_wait), float(dif.mean_delay_scaled)
            elif routing == "random":
                pw, mw = erlang_c_random(pol, lam, dps=15)
                th_p, th_w = float(pw), float(mw * rn)
            rows.append(
                ComparisonRow(
                    name,
                    sp.Rational(b),
                    sim.info["p_wait"],
                    sc["mean_delay_scaled"],
                    th_p,
                    th_w,
                )
            )
    return rows


def scaled_policy(shape: LBPolicy, n: int) -> LBPolicy:
    """``shape``'s stations resized to ``n`` servers in total (same shares; same xi, c, d)."""
    st = tuple(Station(max(1, round(s.N * n / shape.n)), s.mu) for s in shape.stations)
    return LBPolicy(st, shape.xi, shape.c, shape.d)


@dataclass
class ConvergencePoint(Result):
    n: int
    events: int
    p_wait: object
    mean_delay_scaled: object
    idle_ratio_scaled: list
    theory: dict


def convergence(shape: LBPolicy, beta, ns, T=2000.0, seed=1) -> list:
    """Simulated scaled values at each total ``n`` of ``ns`` beside the diffusion's."""
    out = []
    for i, n in enumerate(ns):
        pol = scaled_policy(shape, n)
        lam = simulation_rate(pol, beta)
        sim = simulate(pol, lam, T, seed=seed + 104729 * i)
        sc = scaled(sim)
        dif = diffusion(pol, beta, dps=15)
        out.append(
            ConvergencePoint(
                pol.n,
                int(sim.events.sum()),
                sc["p_wait"],
                sc["mean_delay_scaled"],
                [s["idle_ratio_scaled"] for s in sc["stations"]],
                {
                    "p_wait": float(dif.p_wait),
                    "mean_delay_scaled": float(dif.mean_delay_scaled),
                    "idle_ratio_scaled": [float(s["idle_ratio_scaled"]) for s in dif.stations],
                },
            )
        )
    return out
