"""``symdelay verify`` against QEPCAD B on the same claims, whole processes side by side.

Claims: the founding model at L = 1..4 and four other models (N servers, a hypoexponential
and a hyperexponential delay, jobs in flight). For each claim and each target ``verify``
decides (stability; for the founding model also oscillation), QEPCAD B is given the same
two sentences ``verify`` decides, one process each: *claim and not target* and *target and
not claim*, existentially closed over the parameters (``TRUE``: the direction is refuted,
``FALSE``: proven). The sentences are built from symdelay's own exact Liénard–Chipart
conditions (:func:`symdelay.analysis.decide.stability_formula`) and claim translation, with
the same two exact reductions the decision procedure applies (one rate fixed to 1 when
everything is invariant under scaling the rates; ``lam*theta`` one variable), written with
integer coefficients. QEPCAD answers yes or no; ``verify`` also gives an exact, re-checked
counterexample for every refuted direction.

Times are wall-clock seconds of whole processes (``python -m symdelay verify ... --json``,
start-up and imports included, bytecode cached as in an installed package; ``qepcad
+N...`` reading the sentence on stdin), the median of ``REPEAT`` runs per claim; the
summary is the median over claims. The two answers are compared direction by direction
(``agree``): QEPCAD is an independent decision procedure (cylindrical algebraic
decomposition), so this is also a cross-check of every proven direction.

If ``qepcad`` is not installed the peer's columns say so and only symdelay is measured
(Debian/Ubuntu: ``apt-get install qepcad``). Results: ``benchmarks/results/verify_vs_qepcad.txt``.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = Path(__file__).parent / "results" / "verify_vs_qepcad.txt"
REPEAT = 3
QEPCAD_LIMIT_S = 120
QEPCAD_CELLS = (2_000_000, 50_000_000)  # +N: tried in turn when QEPCAD runs out of cells

FOUNDING = [
    "lam*theta < mu",
    "lam*theta < 1",
    "lam*theta > mu",
    "theta < 1",
    "lam*theta < 2*mu",
    "lam*theta < 8*mu",
    "lam*theta*D < 2",
    "lam*theta*D > 1",
    "lam*theta < mu + gamma",
    "lam*theta < (mu + gamma)**2/gamma",
    "sqrt(mu*gamma) > lam*theta",
    "4*gamma*lam*theta > (mu - gamma)**2",
    "mu < gamma",
    "lam*theta < 4*mu and gamma < 10*mu",
    "lam*theta < mu or gamma > mu",
]


def cases() -> list:
    """(label, model arguments of the command line, build_model arguments, claims)."""
    from symdelay.models.erlang.stability import stability_conditions

    out = []
    for L in (1, 2, 3, 4):
        claims = list(FOUNDING)
        if L >= 2:
            kc = stability_conditions(L).closed_forms["critical_lam_theta"]
            claims += [f"lam*theta < {kc}", f"lam*theta <= {kc}"]
        out.append((f"founding L = {L}", ["--L", str(L)], ("erlang", {"L": L}), claims))
    out.append(
        (
            "nserver N = 3, L = 2",
            ["--model", "nserver", "--N", "3", "--L", "2"],
            ("nserver", {"N": 3, "L": 2}),
            ["lam*theta < 8*mu", "lam*theta < 1", "lam*theta < 2*(mu+gamma)**2/gamma"],
        )
    )
    for rates in ("1,2", "1,2,3"):
        out.append(
            (
                f"hypoexp rates {rates}",
                ["--model", "phase_type", "--delay", "hypoexp", "--rates", rates],
                ("phase_type", {"delay": "hypoexp", "rates": [int(x) for x in rates.split(",")]}),
                ["lam*theta < 1", "lam*theta < 1/10", "lam*theta*(mu + 1) < 1"],
            )
        )
    out.append(
        (
            "inflight L = 2, kappa free",
            ["--model", "inflight", "--L", "2", "--kappa", "kappa"],
            ("inflight", {"L": 2, "kappa": "kappa"}),
            ["kappa >= 1", "lam*theta < mu", "kappa > 1/10"],
        )
    )
    out.append(
        (
            "hyperexp rates 1, 3",
            [
                *("--model", "phase_type", "--delay", "hyperexp"),
                *("--rates", "1,3", "--probs", "1/2,1/2", "--theta-real"),
            ],
            ("phase_type", {"delay": "hyperexp", "rates": [1, 3], "probs": "1/2,1/2"}),
            ["lam*theta > -mu", "lam*theta > -2*mu"],
        )
    )
    return out


# ------------------------------------------------------------------ QEPCAD input
def _qepcad_poly(P, names: dict) -> str:
    """``P`` (a SymPy polynomial expression) with integer coefficients, in QEPCAD's syntax
    (juxtaposition for products, ``^`` for powers); ``P`` is scaled by a positive integer."""
    import sympy as sp

    gens = sorted(P.free_symbols, key=str)
    if not gens:
        return str(sp.Rational(P))
    poly = sp.Poly(P, *gens)
    den = sp.ilcm(1, 1, *[sp.Rational(c).q for c in poly.coeffs()])
    terms = []
    for monom, c in poly.terms():
        c = sp.Integer(c * den)
        factors = [names[g] + (f"^{e}" if e > 1 else "") for g, e in zip(gens, monom) if e]
        body = " ".join(factors)
        mag = abs(c)
        text = body if (mag == 1 and body) else (f"{mag} {body}".strip())
        terms.append(("- " if c < 0 else "+ ") + text)
    first = terms[0]
    return (first[2:] if first.startswith("+ ") else "-" + first[2:]) + (
        " " + " ".join(terms[1:]) if len(terms) > 1 else ""
    )


def _qepcad_formula(node, names: dict) -> str:
    op = {">": ">", ">=": ">=", "==": "=", "!=": "/="}
    kind = node[0]
    if kind == "true":
        return "0 = 0"
    if kind == "false":
        return "1 = 0"
    if kind == "rel":
        return f"{_qepcad_poly(node[1], names)} {op[node[2]]} 0"
    if kind == "not":
        return f"~[{_qepcad_formula(node[1], names)}]"
    joint = " /\\ " if kind == "and" else " \\/ "
    return "[" + joint.join(f"[{_qepcad_formula(c, names)}]" for c in node[1]) + "]"


def qepcad_sentences(model, claim: str, assume: tuple) -> dict:
    """``{target: {direction: QEPCAD input}}`` for the targets verify decides."""
    import sympy as sp

    from symdelay.analysis.claim_formula import conj, neg
    from symdelay.analysis.claim_result import DIRECTIONS
    from symdelay.analysis.decide import (
        _context,
        _factor_node,
        _frame_symbols,
        _reduce,
        targets_of,
    )

    out = {}
    for tname, target in targets_of(model).items():
        ctx = _context(model, claim, assume, None, 10_000, target, check=False)
        whole = [_factor_node(c) for _, c in ctx.sf.per_factor] if target is None else [target.node]
        tnode = conj(*whole)
        forms = {
            DIRECTIONS[0]: conj(*ctx.hyps, ctx.cf.node, neg(tnode)),
            DIRECTIONS[1]: conj(*ctx.hyps, tnode, neg(ctx.cf.node)),
        }
        symbols = _frame_symbols(ctx.symbols, ctx.products)
        symbols = [s for s in symbols if s != ctx.fixed]
        names = {s: f"x{i}" for i, s in enumerate(symbols)}
        one = {ctx.fixed: sp.Integer(1)} if ctx.fixed is not None else {}

        def fix(node, one=one):
            from symdelay.analysis.claim_formula import fold, rel

            def leaf(n):
                return rel(n[1].xreplace(one), n[2]) if n[0] == "rel" else n

            return fold(node, leaf, lambda xs: conj(*xs), lambda xs: _disj(xs), neg)

        out[tname] = {}
        for d, node in forms.items():
            node = fix(_reduce(node, ctx.products))
            used = [s for s in symbols if any(s in P.free_symbols for P in _polys(node))]
            used = used or symbols[:1]
            quant = "".join(f"(E {names[s]})" for s in used)
            out[tname][d] = (
                f"[ {claim} : {tname}, {d} ]\n({','.join(names[s] for s in used)})\n0\n"
                f"{quant}[{_qepcad_formula(node, names)}].\nfinish\n"
            )
    return out


def _disj(xs):
    from symdelay.analysis.claim_formula import disj

    return disj(*xs)


def _polys(node):
    from symdelay.analysis.claim_formula import walk_rels

    return [P for _, P, _op in walk_rels(node)]


def run_qepcad(text: str) -> tuple:
    """``(answer, seconds)``: ``True`` (sentence true), ``False``, or an error string."""
    for cells in QEPCAD_CELLS:
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(
                ["qepcad", f"+N{cells}"],
                input=text,
                capture_output=True,
                text=True,
                timeout=QEPCAD_LIMIT_S,
            )
        except subprocess.TimeoutExpired:
            return f"over {QEPCAD_LIMIT_S} s", QEPCAD_LIMIT_S
        sec = time.perf_counter() - t0
        out = proc.stdout
        tail = out.split("An equivalent quantifier-free formula:")[-1]
        if "An equivalent quantifier-free formula:" in out:
            words = tail.split()
            if words and words[0] in ("TRUE", "FALSE"):
                return words[0] == "TRUE", sec
        if "too few cells" not in out.lower() and "space" not in out.lower():
            return "no answer: " + " ".join(out.split()[-12:]), sec
    return "out of cells", sec


# ------------------------------------------------------------------ symdelay verify
def _env() -> dict:
    """The environment of the timed processes: bytecode cached (in a private prefix), as
    an installed package has it, so that compiling the sources is not timed."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "symdelay-bench-pycache")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def run_verify(args: list, claim: str, env: dict) -> tuple:
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "symdelay", "verify", *args, "--claim", claim, "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    sec = time.perf_counter() - t0
    rec = json.loads(proc.stdout) if proc.stdout.strip().startswith("{") else None
    return rec, proc.returncode, sec


def main() -> None:
    from symdelay.analysis.claims import theta_assumption
    from symdelay.models import build_model

    peer = shutil.which("qepcad")
    env = _env()
    load = os.getloadavg()
    lines = [
        "symdelay verify vs QEPCAD B: the same claims, whole processes, median of "
        f"{REPEAT} runs per claim (wall seconds)",
        f"python {sys.version.split()[0]}; load average at start {load[0]:.2f} {load[1]:.2f} "
        f"{load[2]:.2f} (1, 5, 15 min; 2 cores shared)",
        "verify: one process per claim, every target it decides (stability; founding model: "
        "and oscillation), both directions, counterexamples included",
        "qepcad: one process per direction and target (2 per target), the sentences verify "
        "decides; 'stab' = stability only, 'all' = every target verify decides",
        f"peer: {peer or 'qepcad NOT INSTALLED (apt-get install qepcad): peer not measured'}",
        "",
        f"{'model':<26} {'claim':<44} {'verify s':>8} {'rc':>3} {'qe stab':>8} "
        f"{'qe all':>8} {'agree':>6}",
    ]
    print("\n".join(lines), flush=True)
    ours, theirs_stab, theirs_all, disagree, missing = [], [], [], [], []
    verify(env)  # one untimed run: bytecode written
    for label, args, (family, opts), claims in cases():
        model = build_model(family, **opts)
        theta_real = "--theta-real" in args
        assume = theta_assumption(model, theta_real)
        for claim in claims:
            runs = [run_verify(args, claim, env) for _ in range(REPEAT)]
            rec, rc, _ = runs[-1]
            t_ours = statistics.median(s for _, _, s in runs)
            ours.append(t_ours)
            q_stab = q_all = agree = "-"
            if peer:
                sentences = qepcad_sentences(model, claim, assume)
                per_target, ok = {}, True
                for tname, per in sentences.items():
                    tot = 0.0
                    for d, text in per.items():
                        answers = [run_qepcad(text) for _ in range(REPEAT)]
                        answer = answers[-1][0]
                        tot += statistics.median(s for _, s in answers)
                        if not isinstance(answer, bool):
                            ok = False
                            missing.append(f"{label}: {claim}: {tname} {d}: {answer}")
                            continue
                        status = rec and rec["directions"].get(tname, {}).get(d)
                        want = "refuted" if answer else "proven"
                        if status in ("proven", "refuted") and status != want:
                            ok = False
                            disagree.append(
                                f"{label}: {claim}: {tname} {d}: verify {status}, qepcad {want}"
                            )
                    per_target[tname] = tot
                q_stab = per_target.get("stability", float("nan"))
                q_all = sum(per_target.values())
                theirs_stab.append(q_stab)
                theirs_all.append(q_all)
                agree = "yes" if ok else "NO"
                q_stab, q_all = f"{q_stab:.3f}", f"{q_all:.3f}"
            lines.append(
                f"{label:<26} {claim[:44]:<44} {t_ours:>8.3f} {rc:>3} {q_stab:>8} {q_all:>8} "
                f"{agree:>6}"
            )
            print(lines[-1], flush=True)
    med = statistics.median(ours)
    lines += ["", f"claims: {len(ours)}", f"verify: median {med:.3f} s per claim (whole process)"]
    if peer and theirs_all:
        ms, ma = statistics.median(theirs_stab), statistics.median(theirs_all)
        lines += [
            f"qepcad, stability only: median {ms:.3f} s per claim (2 processes)",
            f"qepcad, every target verify decides: median {ma:.3f} s per claim",
            f"ratio verify / qepcad: {med / ms:.2f}x (stability only), {med / ma:.2f}x "
            f"(same targets); goal <= 1x: {'met' if med <= ma else 'MISSED'}",
        ]
        lines.append(
            f"answers compared direction by direction: {len(disagree)} disagreement(s), "
            f"{len(missing)} QEPCAD non-answer(s)"
        )
        lines += [f"  DISAGREE {x}" for x in disagree] + [f"  no answer {x}" for x in missing]
    else:
        lines.append("qepcad: not installed, no peer figure (never a guessed one)")
    load = os.getloadavg()
    lines.append(f"load average at end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines[-8:]))
    if disagree:
        sys.exit(1)


def verify(env) -> None:
    run_verify(["--L", "2"], "lam*theta < mu", env)


if __name__ == "__main__":
    main()
