"""``derivations/decisions.tex``: stability conditions made minimal, and claims decided exactly.

For the founding model (L = 1..6), a hypoexponential phase-type delay and an in-flight model:
the Liénard–Chipart conditions with every condition implied by the others dropped
(:func:`symdelay.analysis.decide.minimal_conditions`, each drop proven by z3's nlsat), and
three claims each decided by :func:`symdelay.analysis.claims.verify` (the founding model's
exact class first, the decision procedure for what it leaves open). Every verdict printed
here is read from the results; nothing is timed.
"""

from __future__ import annotations

from symdelay.core.latex import document, escape
from symdelay.outputs.model_tex import long_lines

__all__ = ["FILENAME", "build", "CASES", "FOUNDING_L"]

FILENAME = "decisions.tex"
#: the founding model's L covered (each minimal list and claim decides in a few seconds here)
FOUNDING_L = (1, 2, 3, 4, 5, 6)
#: the budget per check: generous, so that the document does not depend on the machine
TIMEOUT_MS = 60_000


def CASES() -> list:
    """``(title, model, claims)``: the models of the document and three claims each (the
    founding model's third claim is its own minimal conditions, filled in by :func:`build`)."""
    from symdelay.models import build_model

    out = []
    for L in FOUNDING_L:
        out.append(
            (
                f"The founding model, L = {L}",
                build_model("erlang", L=L),
                ["lam*theta < mu", "lam*theta < 2*mu and lam < 1", None],
            )
        )
    out.append(
        (
            "Phase-type delay: hypoexponential, rates 1 and 2",
            build_model("phase_type", delay="hypoexp", rates=[1, 2]),
            ["lam*theta < (3*mu**2+9*mu+6)/2", "lam*theta < 3", "lam*theta < 4"],
        )
    )
    out.append(
        (
            "Routing on jobs in flight: Erlang(2) delay, weight 1/10",
            build_model("inflight", L=2, kappa="1/10"),
            ["lam*theta < 8*mu", "lam*theta < 2*(mu+gamma)**2/gamma", "lam*theta < 30*gamma"],
        )
    )
    return out


def _direction_line(res, d) -> str:
    status = res.directions["stability"][d]
    how = res.methods["stability"][d]
    arrow = (
        "claim $\\Rightarrow$ stable"
        if d == "claim_implies_target"
        else ("stable $\\Rightarrow$ claim")
    )
    line = f"{arrow}: {escape(status)} ({escape(how)})"
    pt = res.counterexamples["stability"][d]
    if pt:
        line += ", counterexample " + ", ".join(f"${_name(k)} = {_num(v)}$" for k, v in pt.items())
    return line


def _name(k: str) -> str:
    return {"mu": "\\mu", "lam": "\\lambda", "theta": "\\theta", "gamma": "\\gamma"}.get(k, k)


def _num(v: str) -> str:
    from symdelay.core.latex import tex
    from symdelay.core.parsing import parse_expression

    return tex(parse_expression(v, variables=()))


def _claim_tex(res) -> str:
    from symdelay.core.latex import tex

    return tex(res.condition)


def build() -> str:
    from symdelay.analysis.claims import theta_assumption, verify
    from symdelay.analysis.decide import minimal_conditions

    out = [
        "Each model's equilibrium is asymptotically stable iff every factor of its "
        "characteristic polynomial satisfies the Li\\'enard--Chipart conditions (a conjunction "
        "of polynomial inequalities in the parameters). A condition implied by the others, "
        "over the parameter domains and $\\theta \\ge 0$, is dropped when z3's nlsat procedure "
        "(complete for real polynomial arithmetic) finds the others together with its "
        "negation unsatisfiable; the conditions left are minimal. A claim is then compared "
        "with the stability set in both directions: each direction is proven (the founding "
        "model's exact homogeneous class, or the decision procedure: unsat), or refuted by an "
        "exact counterexample re-checked by an exact root count (found by the founding "
        "model's search or by the decision procedure). The relation (equivalent, necessary, "
        "sufficient, neither) is stated only when both directions are decided. All verdicts "
        "below are printed from the results of \\texttt{symdelay verify}; the founding "
        f"model is covered for $L = {FOUNDING_L[0]}, \\dots, {FOUNDING_L[-1]}$ (each list "
        "and claim decides within a few seconds; $L > 6$ is not covered here).\n\n"
    ]
    for title, model, claims in CASES():
        assume = theta_assumption(model, False)
        mc = minimal_conditions(model, assume=assume, timeout_ms=TIMEOUT_MS)
        out.append(f"\\section{{{escape(title)}}}\n")
        names = dict(getattr(model, "latex_names", {}) or {})
        if not mc.conditions:
            out.append(
                f"Stable for every parameter value with $\\theta \\ge 0$: all "
                f"{len(mc.all_conditions)} conditions are implied by the domains.\n"
            )
        else:
            out.append(
                f"Stable (for $\\theta \\ge 0$) exactly when, minimal "
                f"({len(mc.dropped)} of {len(mc.all_conditions)} conditions dropped as implied"
                + (", some kept undecided" if mc.kept_undecided else "")
                + "):\n\\begin{align*}\n"
                + " \\\\\n".join(f"& {long_lines(c, names)}" for c in mc.conditions)
                + "\n\\end{align*}\n"
            )
        out.append("\\begin{enumerate}\n")
        for claim in claims:
            if claim is None:
                claim = " and ".join(f"({c})" for c in mc.conditions) or "mu > 0"
            res = verify(model, claim, timeout_ms=TIMEOUT_MS)
            verdict = res.relation_to_stability
            out.append(
                "\\item \\begin{minipage}[t]{\\linewidth}\\raggedright\n"
                + (
                    "the minimal conditions themselves"
                    if claim.startswith("(")
                    else f"${_claim_tex(res)}$"
                )
                + f": \\textbf{{{escape(verdict)}}}"
                + ("" if res.proven["stability"] else " (not decided)")
                + ".\\\\\n"
                + "\\\\\n".join(_direction_line(res, d) for d in res.directions["stability"])
                + "\n\\end{minipage}\n"
            )
        out.append("\\end{enumerate}\n")
    return document("Stability conditions made minimal, claims decided exactly", "".join(out))
