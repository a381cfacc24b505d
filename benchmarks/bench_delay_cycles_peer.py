"""Periodic orbits of a delay model against DDE-BIFTOOL, end to end, one run.

The model: examples/models/information_delay.toml (two queues, logit routing on the queue
lengths seen ``D`` ago; Pender, Rand & Wesson 2017) at ``mu = lam = D = 1``. Both tools
compute the branch of cycles born at its Hopf point ``theta_c = 2.2618...`` and continue it
in ``theta`` up to 6, with the same discretisation (orthogonal collocation, degree 4, 20
mesh intervals), and the Floquet multipliers of every cycle:

* symdelay: ``python -m symdelay cycles --model-file ... --theta 2:6 --intervals 20 --json``
  (a whole process: import, model, Hopf point certified by the window scan, collocation,
  continuation, multipliers of the discretised monodromy operator);
* DDE-BIFTOOL (the peer, optional): ``octave --no-gui --quiet --norc`` running the same
  equations through ``SetupStst``, ``br_contn``, ``GetStability`` (Hopf located on the
  branch of equilibria), ``SetupPsol`` (the first orbit from the Hopf point, as
  ``p_topsol``), ``br_contn`` of the periodic orbits and ``GetStability`` with the
  multipliers (``mult_app``).

Times are whole processes (wall and CPU of the child), one run each (the peer's takes a
minute on the shared machine). Then each of DDE-BIFTOOL's cycles at 5 of its theta values is
computed by symdelay at the same theta (:func:`symdelay.analysis.cycles.limit_cycle`, 40
intervals, in-process) and the period, the amplitude of ``x = q1 - q2`` (DDE-BIFTOOL's
profile evaluated at 4001 points) and the largest non-trivial multiplier are compared. The
peer needs ``octave`` on PATH and DDEBIFTOOL_PATH pointing at a checkout of
https://github.com/DDE-BifTool/DDE-Biftool; without them one line says which is missing and
only symdelay is measured. Writes benchmarks/results/delay_cycles_peer.txt and, for the
test that keeps symdelay on the peer's branch (tests/test_delay_cycles.py),
benchmarks/results/delay_cycles_peer.json (the peer's cycles).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _peers

ROOT = Path(__file__).resolve().parents[1]
OUT = Path(__file__).parent / "results" / "delay_cycles_peer.txt"
OUT_JSON = Path(__file__).parent / "results" / "delay_cycles_peer.json"
MODEL = ROOT / "examples" / "models" / "information_delay.toml"
THETA_MAX = 6
INTERVALS = 20

OCTAVE_DRIVER = r"""
root = getenv('DDEBIFTOOL_ROOT');
addpath([root '/ddebiftool'], [root '/ddebiftool_extra_psol'], [root '/ddebiftool_utilities']);
mu = 1; lam = 1; D = 1; thmax = {thmax}; N = {intervals};
e1 = @(xx,p) exp(-p(3)*xx(1,2,:)); e2 = @(xx,p) exp(-p(3)*xx(2,2,:));
rhs = @(xx,p) cat(1, 2*p(2)*e1(xx,p)./(e1(xx,p)+e2(xx,p)) - p(1)*xx(1,1,:), ...
                     2*p(2)*e2(xx,p)./(e1(xx,p)+e2(xx,p)) - p(1)*xx(2,1,:));
funcs = set_funcs('sys_rhs', rhs, 'sys_tau', @() 4, 'x_vectorized', true);
stst = SetupStst(funcs, 'x', [lam/mu; lam/mu], 'parameter', [mu lam 2 D], 'contpar', 3, ...
  'step', 0.05, 'max_step', [3 0.05], 'max_bound', [3 2.6]);
stst.method.continuation.plot = 0;
stst = br_contn(funcs, stst, 20);
nunst = GetStability(stst, 'funcs', funcs);
ind = find(nunst > 0, 1, 'first') - 1;
[per, suc] = SetupPsol(funcs, stst, ind, 'intervals', N, 'degree', 4, ...
  'max_bound', [3 thmax], 'max_step', [3 0.1], 'print_residual_info', 0);
per.method.continuation.plot = 0;
per = br_contn(funcs, per, 300);
[nunst_per, dom, triv, per.point] = GetStability(per, 'exclude_trivial', true, 'funcs', funcs);
tt = linspace(0, 1, 4001);
for i = 1:numel(per.point)
  pt = per.point(i);
  y = dde_coll_eva(pt.profile, pt.mesh, tt, pt.degree);
  x = y(1,:) - y(2,:);
  printf('%.17g %.17g %.17g %.17g %.17g\n', pt.parameter(3), pt.period, (max(x)-min(x))/2, ...
         abs(dom(i)), triv(i));
end
"""


def main() -> None:
    import compileall

    import numpy as np

    from symdelay.analysis.cycles import limit_cycle
    from symdelay.model.core import load_toml

    t_start = time.perf_counter()
    root, why = _peers.ddebiftool("ddebiftool_utilities/SetupPsol.m")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    compileall.compile_dir(ROOT / "symdelay", quiet=1)
    lines = [
        "periodic orbits of information_delay (mu = lam = D = 1), theta from the Hopf point to "
        f"{THETA_MAX}: symdelay vs DDE-BIFTOOL, end to end",
        f"(whole processes, one run each; both: collocation of degree 4 on {INTERVALS} "
        "intervals, Floquet multipliers of every cycle)",
    ]
    argv = [
        sys.executable, "-m", "symdelay", "cycles", "--model-file", str(MODEL),
        "--set", "mu=1", "--set", "lam=1", "--set", "D=1", "--theta", f"2:{THETA_MAX}",
        "--intervals", str(INTERVALS), "--json",
    ]  # fmt: skip
    sd_wall, sd_cpu, out = _peers.run_timed(argv, env=env)
    rec = json.loads(out)
    ours = rec["branch"]
    lines += [
        "",
        f"symdelay cycles: {sd_wall:.2f} s wall, {sd_cpu:.2f} s CPU, {len(ours)} cycles, "
        f"Hopf point theta_c = {float(rec['start']['value']):.12g}, stopped: {rec['stop']}",
    ]
    if root is None:
        lines.append(f"DDE-BIFTOOL peer skipped: {why}")
    else:
        version = subprocess.run(["octave", "--version"], capture_output=True, text=True).stdout
        commit = subprocess.run(
            ["git", "-C", str(root), "log", "-1", "--format=%h"], capture_output=True, text=True
        ).stdout.strip()
        script = OCTAVE_DRIVER.format(thmax=THETA_MAX, intervals=INTERVALS)
        with tempfile.NamedTemporaryFile("w", suffix=".m", delete=False) as fh:
            fh.write(script)
        penv = dict(os.environ, DDEBIFTOOL_ROOT=str(root))
        b_wall, b_cpu, bout = _peers.run_timed(
            ["octave", "--no-gui", "--quiet", "--norc", fh.name], env=penv
        )
        os.unlink(fh.name)
        theirs = [
            [float(v) for v in ln.split()] for ln in bout.splitlines() if len(ln.split()) == 5
        ]
        lines += [
            f"DDE-BIFTOOL: {b_wall:.2f} s wall, {b_cpu:.2f} s CPU, {len(theirs)} cycles "
            f"(peer: {version.splitlines()[0]}, DDE-BIFTOOL {commit or '(no git)'})",
            f"ratio symdelay / DDE-BIFTOOL: wall {sd_wall / b_wall:.3f}, CPU {sd_cpu / b_cpu:.3f}",
            "",
            "the same cycles (symdelay at DDE-BIFTOOL's theta, 40 intervals):",
            f"{'theta':>12} {'period bif':>12} {'period sd':>12} {'rel':>8} {'amp bif':>12} "
            f"{'amp sd':>12} {'rel':>8} {'rho bif':>9} {'rho sd':>9}",
        ]
        picks = [theirs[i] for i in np.linspace(1, len(theirs) - 1, 5).astype(int)]
        model = load_toml(MODEL, mu=1, lam=1, D=1)
        fam = limit_cycle(model, [repr(p[0]) for p in picks])
        for p, c in zip(picks, fam.points):
            rho = float(np.max(np.abs(c.nontrivial)))
            lines.append(
                f"{p[0]:>12.8f} {p[1]:>12.9f} {c.period:>12.9f} "
                f"{abs(c.period / p[1] - 1):>8.1e} {p[2]:>12.9f} {c.amplitude_x:>12.9f} "
                f"{abs(c.amplitude_x / p[2] - 1):>8.1e} {p[3]:>9.6f} {rho:>9.6f}"
            )
        OUT_JSON.write_text(
            json.dumps(
                {
                    "model": "examples/models/information_delay.toml",
                    "values": {"mu": 1, "lam": 1, "D": 1},
                    "peer": f"DDE-BIFTOOL {commit or '(no git)'}, {version.splitlines()[0]}",
                    "discretisation": f"degree 4, {INTERVALS} intervals",
                    "columns": ["theta", "period", "amplitude_x", "max_multiplier", "trivial"],
                    "cycles": theirs,
                },
                indent=1,
            )
            + "\n"
        )
    lines += [
        "",
        "rel: relative difference; amp: half the peak-to-peak of x = q1 - q2; rho: the largest",
        "non-trivial Floquet multiplier (modulus).",
    ]
    _peers.write_summary(lines, OUT, t_start)


if __name__ == "__main__":
    main()
