"""Nothing slower than before: the same analyses timed in this tree and in an earlier
commit (``--ref``, default the one named in the results file), side by side in one run.

Each case runs in a fresh process per tree (interleaved rounds): one warm-up call (imports,
cached derivations), then the median of 15 calls, in-process seconds; plus the whole process
of the same command line (CPU seconds, start-up included). Results:
``benchmarks/results/before_after.txt``.

    python benchmarks/bench_before_after.py --ref ed2f9b4
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "results" / "before_after.txt"
ROUNDS = 3

#: name -> (Python statement timed in-process, command line of the same analysis)
CASES = {
    "critical, founding L=3 (closed form)": (
        "critical(build_model('erlang', L=3, mu=1, lam=1), at=[1, 2, 4])",
        "critical --L 3 --mu 1 --lam 1 --D 1,2,4",
    ),
    "critical, nserver N=3 L=2 (generic)": (
        "critical(build_model('nserver', N=3, L=2, mu=1, lam=1, D=1))",
        "critical --model nserver --N 3 --L 2 --mu 1 --lam 1 --D 1",
    ),
    "roots, founding L=3": (
        "roots(build_model('erlang', L=3, mu=1, lam=1, theta=2, D=1))",
        "roots --L 3 --mu 1 --lam 1 --theta 2 --D 1",
    ),
    "roots, founding L=inf": (
        "roots(build_model('erlang', L='inf', mu=1, lam=2, theta=1, D=1))",
        "roots --L inf --mu 1 --lam 2 --theta 1 --D 1",
    ),
    "stability, founding L=3": (
        "stability(build_model('erlang', L=3))",
        "stability --L 3",
    ),
    "window in D, founding L=3": (
        "window(build_model('erlang', L=3, mu=1, lam=1, theta=6), 'D')",
        "window --L 3 --mu 1 --lam 1 --theta 6",
    ),
    "worst delay, founding L=3": (
        "worst_delay(build_model('erlang', L=3, mu=1, lam=1), 'D')",
        "worst-delay --L 3 --mu 1 --lam 1",
    ),
    "fluid, founding L=2": (
        "fluid(build_model('erlang', L=2, mu=1, lam=1, theta=2, D=1), T=20, dt=0.5)",
        "fluid --L 2 --mu 1 --lam 1 --theta 2 --D 1 --T 20 --dt 0.5",
    ),
    "simulate, founding L=2": (
        "simulate(build_model('erlang', L=2, mu=1, lam=1, theta=2, D=1), eta=200, T=50)",
        "simulate --L 2 --mu 1 --lam 1 --theta 2 --D 1 --eta 200 --T 50",
    ),
    "variance, nserver N=3 L=1 (generic)": (
        "variance(build_model('nserver', N=3, L=1, mu=1, lam=1, theta=1, D=1))",
        "variance --model nserver --N 3 --L 1 --mu 1 --lam 1 --theta 1 --D 1",
    ),
    "variance, founding L=2": (
        "variance(build_model('erlang', L=2, mu=1, lam=1, theta=2, D=1))",
        "variance --L 2 --mu 1 --lam 1 --theta 2 --D 1",
    ),
    "roots, nserver N=3 L=2 (generic)": (
        "roots(build_model('nserver', N=3, L=2, mu=1, lam=1, theta=1, D=1))",
        "roots --model nserver --N 3 --L 2 --mu 1 --lam 1 --theta 1 --D 1",
    ),
    "kappa-star, in-flight L=10": (
        "kappa_star(10, 1, 1)",
        "kappa-star --L 10 --mu 1 --D 1",
    ),
}

TIMER = """
import statistics, sys, time
import symdelay
assert symdelay.__file__.startswith(sys.argv[2]), (symdelay.__file__, sys.argv[2])
from symdelay.models import build_model
from symdelay.analysis.critical import critical
from symdelay.analysis.roots import roots
from symdelay.analysis.stability import stability
from symdelay.analysis.window import window, worst_delay
from symdelay.analysis.fluid import fluid
from symdelay.analysis.stochastic import simulate, variance
from symdelay.models.inflight.curve import kappa_star
stmt = sys.argv[1]
eval(stmt)
ts = []
for _ in range(15):
    t = time.perf_counter(); eval(stmt); ts.append(time.perf_counter() - t)
print(statistics.median(ts))
"""


def _in_process(tree: Path, stmt: str) -> float:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run(
        [sys.executable, "-c", TIMER, stmt, str(tree)],
        env=env,
        cwd=tree,
        capture_output=True,
        text=True,
        check=True,
    )  # fmt: skip (cwd: sys.path[0] is the working directory, ahead of PYTHONPATH)
    return float(out.stdout.strip().splitlines()[-1])


def _process(tree: Path, argv: str) -> float:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        [sys.executable, "-m", "symdelay", *argv.split()],
        env=env, cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
    )  # fmt: skip
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ref", default="ed2f9b4", help="the earlier commit (default ed2f9b4)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "before"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(old), args.ref],
            check=True, capture_output=True,
        )  # fmt: skip
        try:
            rows = []
            for name, (stmt, cli) in CASES.items():
                t = {"new": [], "old": [], "new_p": [], "old_p": []}
                for _ in range(ROUNDS):  # interleaved
                    t["old"].append(_in_process(old, stmt))
                    t["new"].append(_in_process(ROOT, stmt))
                    t["old_p"].append(_process(old, cli))
                    t["new_p"].append(_process(ROOT, cli))
                m = {k: statistics.median(v) for k, v in t.items()}
                rows.append((name, m))
                print(name, {k: round(v, 4) for k, v in m.items()}, flush=True)
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)],
                check=False, capture_output=True,
            )  # fmt: skip
    lines = [
        f"before/after: this tree against {args.ref}, medians of {ROUNDS} interleaved rounds",
        f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
        f"python {sys.version.split()[0]}",
        "in-process: median of 15 calls after a warm-up (s); process: the command line, CPU s",
        "",
        f"{'analysis':<40} {'before':>8} {'after':>8} {'ratio':>6}   "
        f"{'proc before':>11} {'proc after':>10} {'ratio':>6}",
    ]
    worst = 0.0
    for name, m in rows:
        r, rp = m["new"] / m["old"], m["new_p"] / m["old_p"]
        worst = max(worst, r)
        lines.append(
            f"{name:<40} {m['old']:8.4f} {m['new']:8.4f} {r:6.2f}   "
            f"{m['old_p']:11.3f} {m['new_p']:10.3f} {rp:6.2f}"
        )
    lines += ["", f"largest in-process ratio after/before: {worst:.2f} (goal <= 1.10)"]
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
