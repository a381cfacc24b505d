"""The exact decision procedure (``symdelay.analysis.decide``) against L, and against
today's homogeneous-class engine (``symdelay.models.erlang.claims.verify``) on the claims
that engine proves.

Founding model, ``theta >= 0`` assumed (today's engine's domain), L = 1..12, then 14, 16, 20, 24, 30, 40 one run each (until a claim
takes more than 60 s). Per L: ``setup`` is building the transition table, its factors and
the Liénard–Chipart conditions once (cached on the model); ``decide`` the median of 3 runs
of both directions for each claim afterwards. Claims:

* ``lam*theta < mu``: homogeneous, so one rate is fixed (scaling used);
* ``lam*theta < 1``: not scale invariant (no variable removed);
* the Hopf bound ``lam*theta < k_c(mu, gamma)`` where it is rational (L = 2..5).

The growth exponent is the least-squares slope of log(time) against log(L) over L >= 3.

Second table, other models: the variables left after scaling and the ``lam*theta`` product
(``vars``), the largest factor's degree, and the time per claim (both directions, one run,
budget ``MODEL_LIMIT_S`` per check); the issue's goal is 10 s per claim for at most 4
variables and degree at most 7, and the table marks each row against it.
Results: ``benchmarks/results/decide.txt``.
"""

from __future__ import annotations

import math
import os
import statistics
import sys
import time
from pathlib import Path

OUT = Path(__file__).parent / "results" / "decide.txt"
LIMIT_S = 60.0
L_MAX = 12
#: beyond L_MAX, one run each, until the cost guard of the Routh array refuses
L_BEYOND = (14, 16, 20, 24, 30, 40)
TODAY_L_MAX = 8  # today's exact route stops at L = 8 (claims._EXACT_MAX_L)
MODEL_LIMIT_S = 30.0
GOAL_S, GOAL_VARS, GOAL_DEGREE = 10.0, 4, 7


def model_cases():
    """(label, builder, assume, claims) of the second table."""
    from symdelay.models import build_model

    t0 = ("theta >= 0",)
    out = []
    for n in range(2, 8):
        rates = list(range(1, n + 1))
        out.append(
            (
                f"hypoexp rates 1..{n}",
                lambda rates=rates: build_model("phase_type", delay="hypoexp", rates=rates),
                t0,
                ["lam*theta < 1", "lam*theta < 1/10", "lam*theta*(mu + 1) < 1"],
            )
        )
    for N in (3, 4, 6):
        out.append(
            (
                f"nserver N = {N}, L = 2",
                lambda N=N: build_model("nserver", N=N),
                t0,
                ["lam*theta < 8*mu", "lam*theta < 1", "lam*theta < 2*(mu+gamma)**2/gamma"],
            )
        )
    for L in range(1, 7):
        out.append(
            (
                f"inflight L = {L}, kappa free",
                lambda L=L: build_model("inflight", L=L, kappa="kappa"),
                () if L == 1 else t0,
                ["kappa > 1/10", "kappa >= 1", "lam*theta < mu"],
            )
        )
    # where it stops: bounds tangent to the boundary at the domain's edge (kappa = 0)
    out.append(
        (
            "inflight L = 3 (edge)",
            lambda: build_model("inflight", L=3, kappa="kappa"),
            t0,
            [
                "lam*theta < 8*(gamma + mu)**3/(3*gamma + mu)**2",
                "lam*theta*(3*gamma+mu)**2 < 4*(gamma+mu)**3",
            ],
        )
    )
    out.append(
        (
            "hyperexp rates 1, 3",
            lambda: build_model("phase_type", delay="hyperexp", rates=[1, 3], probs="1/2,1/2"),
            (),
            ["lam*theta > -mu", "theta > -1/2", "lam*theta > -2*mu"],
        )
    )
    return out


def model_table() -> list:
    import sympy as sp

    from symdelay.analysis.decide import decide, stability_formula
    from symdelay.core.symbols import r

    lines = [
        "",
        f"other models: one run per claim (both directions), budget {MODEL_LIMIT_S:.0f} s per "
        f"check; goal {GOAL_S:.0f} s per claim at <= {GOAL_VARS} variables and degree <= "
        f"{GOAL_DEGREE}",
        f"{'model':<28} {'vars':>4} {'deg':>4} {'setup s':>8}  {'claim':<36} "
        f"{'relation':<14} {'s':>7}  goal",
    ]
    print("\n".join(lines), flush=True)
    for label, build, assume, claims in model_cases():
        t0 = time.process_time()
        m = build()
        sf = stability_formula(m)
        setup = time.process_time() - t0
        degree = int(max(sp.degree(f.factor, r) for f, _ in sf.per_factor))
        for claim in claims:
            t = time.process_time()
            d = decide(m, claim, assume=assume, timeout_ms=int(MODEL_LIMIT_S * 1000))
            t = time.process_time() - t
            n_vars = (
                len(sf.parameters) - ("fixed to 1" in d.scaling) - d.scaling.count("one variable")
            )
            rel = d.relation_to_stability if d.proven["stability"] else "undecided"
            inside = n_vars <= GOAL_VARS and degree <= GOAL_DEGREE
            mark = ("met" if t <= GOAL_S and d.proven["stability"] else "MISSED") if inside else "-"
            lines.append(
                f"{label:<28} {n_vars:>4} {degree:>4} {setup:>8.2f}  {claim:<36} "
                f"{rel[:14]:<14} {t:>7.2f}  {mark}"
            )
            print(lines[-1], flush=True)
    return lines


def median_time(f, repeat=3):
    times, out = [], None
    for _ in range(repeat):
        t0 = time.process_time()
        out = f()
        times.append(time.process_time() - t0)
    return statistics.median(times), out


def slope(points):
    pts = [(math.log(L), math.log(t)) for L, t in points if L >= 3 and t > 0]
    if len(pts) < 2:
        return float("nan")
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    num = sum((x - mx) * (y - my) for x, y in pts)
    den = sum((x - mx) ** 2 for x, _ in pts)
    return num / den


def main() -> None:
    from symdelay.analysis.decide import decide, stability_formula
    from symdelay.models import build_model
    from symdelay.models.erlang.claims import verify
    from symdelay.models.erlang.stability import stability_conditions

    load = os.getloadavg()
    lines = [
        "decision procedure (z3 nlsat, exact) vs today's homogeneous-class engine",
        "times are CPU seconds of this process (time.process_time; z3 and SymPy run in it, one "
        "thread): wall-clock time here jumps when the shared machine is paused",
        f"python {sys.version.split()[0]}; machine load average at start "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1, 5, 15 min; 2 cores shared)",
        f"founding model, theta >= 0 assumed; decide: median of 3 (both directions; one run "
        f"beyond L = {L_MAX}), setup: model table + factors + Lienard-Chipart conditions, once",
        "",
        f"{'L':>3} {'deg':>4} {'setup s':>8}  {'claim':<40} {'relation':<12} "
        f"{'decide s':>9} {'today s':>9} {'agree':>6}",
    ]
    series: dict = {}
    stopped: dict = {}
    from symdelay.core.errors import SymdelayInputError

    for L in (*range(1, L_MAX + 1), *L_BEYOND):
        t0 = time.process_time()
        m = build_model("erlang", L=L)
        try:
            stability_formula(m)
        except SymdelayInputError as e:  # the cost guard: estimated over its budget
            lines.append(f"{L:>3} {L + 1:>4}  refused: {e}")
            stopped.setdefault("every claim", L)
            break
        setup = time.process_time() - t0
        claims = [("lam*theta < mu", "lam*theta < mu"), ("lam*theta < 1", "lam*theta < 1")]
        kc = stability_conditions(L).closed_forms["critical_lam_theta"] if 2 <= L <= 5 else None
        if kc is not None:
            claims.append(("hopf bound lam*theta < k_c", f"lam*theta < {kc}"))
        for label, claim in claims:
            if label in stopped:
                continue
            first = time.process_time()
            d = decide(m, claim, assume=["theta >= 0"], timeout_ms=int(LIMIT_S * 1000))
            first = time.process_time() - first
            if first > LIMIT_S or not d.proven["stability"]:
                stopped[label] = L
                lines.append(
                    f"{L:>3} {L + 1:>4} {setup:>8.2f}  {label:<40} {'(stopped)':<12} {first:>9.2f}"
                )
                continue
            t, d = median_time(
                lambda claim=claim, m=m: decide(
                    m, claim, assume=["theta >= 0"], timeout_ms=int(LIMIT_S * 1000)
                ),
                repeat=3 if L <= L_MAX else 1,
            )
            series.setdefault(label, []).append((L, t))
            today = agree = ""
            if label != "lam*theta < 1" and L <= TODAY_L_MAX:
                tt, v = median_time(lambda claim=claim, L=L: verify(L, claim))
                today = f"{tt:.2f}"
                agree = "yes" if v.relation_to_stability == d.relation_to_stability else "NO"
                series.setdefault(f"today: {label}", []).append((L, tt))
            lines.append(
                f"{L:>3} {L + 1:>4} {setup:>8.2f}  {label:<40} "
                f"{d.relation_to_stability:<12} {t:>9.3f} {today:>9} {agree:>6}"
            )
            print(lines[-1], flush=True)
        series.setdefault("setup", []).append((L, setup))
    lines += ["", "growth exponent in L (slope of log time vs log L, L >= 3):"]
    for label, pts in series.items():
        lines.append(f"  {label:<48} {slope(pts):6.2f}   (L = {pts[0][0]}..{pts[-1][0]})")
    if stopped:
        lines.append("")
        for label, L in stopped.items():
            lines.append(
                f"  {label}: stopped at L = {L} (over {LIMIT_S:.0f} s, undecided or refused)"
            )
    else:
        lines.append(f"  every claim decided within {LIMIT_S:.0f} s up to L = {L_BEYOND[-1]}")
    lines += model_table()
    load = os.getloadavg()
    lines.append(f"load average at end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
