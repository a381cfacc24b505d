"""The second Lyapunov coefficient of a delay model at its Bautin point against DDE-BIFTOOL's
``nmfm_genh``, end to end; records the peer's numbers for ``tests/test_bautin_l2.py``.

The model is the sharpened-routing delay model of ``tests/test_delay_cycles.py``
(``mu = lam = D = 1``): the arrival split ``1 / (1 + exp(+-h))``, ``h = z + 2 c z^3 / (1 + z^4)``
of ``z = theta (q1 - q2)`` seen ``D`` ago. Its linearisation is the logit's, ``l1`` vanishes
exactly at ``c = 1/24``: a Bautin point at the Hopf point ``theta_c`` of the constant lag.

* symdelay: a Python process that loads the model and calls ``symdelay.normal_form`` (the
  Hopf point certified, ``l1 = 0`` as an exact ball, ``l2`` in Arb balls);
* DDE-BIFTOOL (the peer, optional): ``octave --no-gui --quiet --norc`` with the same
  right-hand side ``x' = f(x(t), x(t - D))``; its directional derivatives up to the fifth
  (``sys_dirderi``, all five: ``nmfm_genh`` needs ``B`` to ``E``) by the Cauchy integral
  ``f^(k)(0) = k! / (N r^k) sum_j f(x + r e^{2 pi i j/N} dx) e^{-2 pi i j k/N}`` (N = 64,
  the radius half the distance to the nearest singularity of the rate, about 1e-14
  relative), the Hopf point corrected by ``p_correc``, ``p_togenh`` and ``nmfm_genh``; its
  ``L1`` and ``L2`` rescaled to the imbalance ``q_x = 1`` (``L1 / |q1 - q2|^2``,
  ``L2 / |q1 - q2|^4``), symdelay's normalisation.

Times are whole processes (best of 3 for symdelay, one run of the peer); digits are the
agreement of ``l2``. Writes benchmarks/results/bautin_peer.txt and, when the peer ran,
benchmarks/results/bautin_peer.json (the peer's numbers, read by the test). Needs ``octave``
on PATH and DDEBIFTOOL_PATH pointing at a DDE-BIFTOOL checkout with ``ddebiftool_extra_nmfm``;
without them one line says which is missing and only symdelay is measured.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _peers

OUT = Path(__file__).parent / "results" / "bautin_peer.txt"
OUT_JSON = Path(__file__).parent / "results" / "bautin_peer.json"
ROOT = Path(__file__).resolve().parents[1]

SYMDELAY_DRIVER = """
import sys
sys.path.insert(0, sys.argv[2])
from pathlib import Path
import mpmath
import symdelay
from test_delay_cycles import SHARPENED
path = Path(sys.argv[1]) / "sharpened.toml"
path.write_text(SHARPENED)
nf = symdelay.normal_form(symdelay.load_toml(path, mu=1, lam=1, D=1, c="1/24"))
print(mpmath.nstr(nf.theta_c, 17), mpmath.nstr(nf.omega, 17), mpmath.nstr(nf.l1, 17),
      mpmath.nstr(nf.l2, 17))
"""

OCTAVE_DRIVER = r"""
root = getenv('DDEBIFTOOL_ROOT');
addpath([root '/ddebiftool'], [root '/ddebiftool_extra_nmfm'], [root '/ddebiftool_utilities']);
warning('off', 'all');
h = @(s,p) s + 2*p(5)*s.^3./(1 + s.^4);
g = @(s,p) 2*p(2)./(1 + exp(h(s,p)));
rhs = @(xx,p) [g(p(3)*(xx(1,2)-xx(2,2)),p) - p(1)*xx(1,1); ...
               g(p(3)*(xx(2,2)-xx(1,2)),p) - p(1)*xx(2,1)];
function y = cauchy_d(rhs, k, N, xx, p, dx, dp)
  if isempty(dp)
    dp = zeros(size(p));
  end
  dp = reshape(dp, size(p));
  sc = max([abs(p(3)*(dx(1,2)-dx(2,2))) + abs(dp(3)) + abs(dp(5)) + abs(dp(2)), 1e-300]);
  r = 0.5/sc;
  y = zeros(size(xx,1),1);
  for j = 0:N-1
    z = r*exp(2i*pi*j/N);
    y = y + rhs(xx + z*dx, p + z*dp)*exp(-2i*pi*j*k/N);
  end
  y = factorial(k)*y/(N*r^k);
  if isreal(xx) && isreal(dx) && isreal(dp)
    y = real(y);
  end
end
d = cell(1,5);
for k = 1:5
  d{k} = @(xx,p,dx,dp) cauchy_d(rhs, k, 64, xx, p, dx, dp);
end
funcs = set_funcs('sys_rhs', rhs, 'sys_tau', @() 4, 'sys_dirderi', d, 'x_vectorized', false);
stst.kind = 'stst';
stst.parameter = [1, 1, 2.2618, 1, 1/24];
stst.x = [1; 1];
method = df_mthod(funcs, 'stst');
stst.stability = p_stabil(funcs, stst, method.stability);
hopf = p_tohopf(funcs, stst);
mh = df_mthod(funcs, 'hopf');
[hopf, ok] = p_correc(funcs, hopf, 3, [], mh.point);
hopf = nmfm_hopf(funcs, hopf);
genh = nmfm_genh(funcs, p_togenh(hopf));
q = genh.nvec.q;
qx = abs(q(1) - q(2));
printf('%d %.17g %.17g %.17g %.17g\n', ok, genh.parameter(3), genh.omega, ...
       genh.nmfm.L1/qx^2, genh.nmfm.L2/qx^4);
"""


def main() -> None:
    import compileall

    t_start = time.perf_counter()
    root, why = _peers.ddebiftool("ddebiftool_extra_nmfm/nmfm_genh.m")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    compileall.compile_dir(ROOT / "symdelay", quiet=1)
    lines = [
        "Second Lyapunov coefficient at a delay Bautin point: symdelay vs DDE-BIFTOOL "
        "nmfm_genh, end to end",
        "(the sharpened-routing delay model, mu = lam = D = 1, c = 1/24; l1, l2 normalised by "
        "the imbalance q_x = 1)",
    ]
    if root is None:
        lines.append(f"DDE-BIFTOOL peer skipped: {why}")
    else:
        version = subprocess.run(["octave", "--version"], capture_output=True, text=True).stdout
        lines.append(f"peer: {version.splitlines()[0]}")
    with tempfile.TemporaryDirectory() as tmp:
        argv = [sys.executable, "-c", SYMDELAY_DRIVER, tmp, str(ROOT / "tests")]
        sd_wall, _, out = _peers.run_timed(argv, env, repeat=3)
        theta, omega, l1, l2 = out.split()
        lines += ["", f"symdelay       theta_c {theta}  omega {omega}  l1 {l1}  l2 {l2}"]
        lines.append(f"               wall {sd_wall:.2f} s")
        if root is not None:
            script = Path(tmp) / "peer_genh.m"
            script.write_text(OCTAVE_DRIVER)
            penv = dict(os.environ, DDEBIFTOOL_ROOT=str(root))
            b_wall, _, bout = _peers.run_timed(
                ["octave", "--no-gui", "--quiet", "--norc", str(script)], penv, repeat=1
            )
            ok, bt, bw, bl1, bl2 = bout.split()[-5:]
            digits = -math.log10(max(abs(float(l2) - float(bl2)) / abs(float(l2)), 1e-17))
            lines += [
                f"DDE-BIFTOOL    theta_c {bt}  omega {bw}  L1 {bl1}  L2 {bl2}",
                f"               wall {b_wall:.2f} s; l2 agrees to {digits:.1f} digits",
            ]
            peer_version = subprocess.run(
                ["git", "-C", str(root), "log", "-1", "--format=%h"],
                capture_output=True,
                text=True,
            ).stdout.strip()
            OUT_JSON.write_text(
                json.dumps(
                    {
                        "model": "tests/test_delay_cycles.py SHARPENED",
                        "values": {"mu": 1, "lam": 1, "D": 1, "c": "1/24"},
                        "peer": f"DDE-BIFTOOL {peer_version or '(no git)'}, "
                        + version.splitlines()[0],
                        "produced_by": "benchmarks/bench_bautin_peer.py",
                        "derivatives": "sys_dirderi 1..5 by the Cauchy integral, N = 64",
                        "hopf_corrected": ok == "1",
                        "theta_c": float(bt),
                        "omega": float(bw),
                        "L1_qx": float(bl1),
                        "L2_qx": float(bl2),
                    },
                    indent=1,
                )
                + "\n"
            )
    lines += [
        "",
        "symdelay: the Hopf point certified (Krawczyk), l2 from exact derivatives in Arb balls;",
        "DDE-BIFTOOL: the same formulas (nmfm_genh) in doubles at the Hopf point it corrects.",
    ]
    _peers.write_summary(lines, OUT, t_start)


if __name__ == "__main__":
    main()
