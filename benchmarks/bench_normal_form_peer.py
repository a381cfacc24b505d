"""The Hopf normal form of a delay model against DDE-BIFTOOL's ``nmfm_hopf``, end to end.

Two models with a constant information lag ``D = 1`` (``mu = lam = 1``): the logit routing of
``examples/models/information_delay.toml``, and the same with quadratic service
``mu q_i^2`` (quadratic terms: ``h11``, ``h20`` count). For each, as a user runs it:

* symdelay: a Python process that loads the model file and calls ``symdelay.normal_form``
  (the Hopf point in theta, certified crossing, the centre-manifold formula in Arb balls);
* DDE-BIFTOOL (the peer, optional): ``octave --no-gui --quiet --norc`` with the same right-hand
  side written as ``x' = f(x(t), x(t - D))`` (the logit as ``1 -+ tanh(theta (y1 - y2)/2)``,
  its first three directional derivatives by hand), the steady state at symdelay's
  ``theta_c`` corrected to the Hopf point (``p_tohopf``, ``p_correc``) and ``nmfm_hopf``; its
  ``L1`` rescaled to the imbalance ``q_x = 1`` (``L1 / |q_1 - q_2|^2``), symdelay's
  normalisation.

Times are whole processes, best of 3; digits are the agreement of ``l1``. The peer needs
``octave`` on PATH and DDEBIFTOOL_PATH pointing at a DDE-BIFTOOL checkout (with
``ddebiftool_extra_nmfm``); without them one line says which is missing and only symdelay is
measured. Writes benchmarks/results/normal_form_peer.txt.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _peers

OUT = Path(__file__).parent / "results" / "normal_form_peer.txt"
ROOT = Path(__file__).resolve().parents[1]

SYMDELAY_DRIVER = """
import sys
from pathlib import Path
import mpmath
import symdelay
path = Path(sys.argv[1])
text = path.read_text()
if sys.argv[2] == "quadratic":
    text = text.replace('"mu*q1"', '"mu*q1**2"').replace('"mu*q2"', '"mu*q2**2"')
    path = Path(sys.argv[3]) / "quadratic.toml"
    path.write_text(text)
nf = symdelay.normal_form(symdelay.load_toml(path, mu=1, lam=1, D=1))
print(mpmath.nstr(nf.theta_c, 17), mpmath.nstr(nf.omega, 17), mpmath.nstr(nf.l1, 17))
"""

OCTAVE_DRIVER = """
root = getenv('DDEBIFTOOL_ROOT');
addpath([root '/ddebiftool'], [root '/ddebiftool_extra_nmfm'], [root '/ddebiftool_utilities']);
warning('off', 'all');
k = {power};
t = @(xx,p) tanh(p(3)*(xx(1,2,:)-xx(2,2,:))/2);
ds = @(xx,dx,p) p(3)*(dx(1,2,:)-dx(2,2,:))/2;
rhs = @(xx,p) [p(2)*(1 - t(xx,p)) - p(1)*xx(1,1,:).^k; p(2)*(1 + t(xx,p)) - p(1)*xx(2,1,:).^k];
s1 = @(xx,dx,p,i) k*p(1)*xx(i,1,:).^(k-1).*dx(i,1,:);
s2 = @(xx,dx,p,i) k*(k-1)*p(1)*xx(i,1,:).^max(k-2,0).*dx(i,1,:).^2;
g1 = @(xx,p) (1-t(xx,p).^2);
g2 = @(xx,p) -2*t(xx,p).*(1-t(xx,p).^2);
g3 = @(xx,p) (-2+6*t(xx,p).^2).*(1-t(xx,p).^2);
d1 = @(xx,p,dx,dp) [-p(2)*g1(xx,p).*ds(xx,dx,p) - s1(xx,dx,p,1); p(2)*g1(xx,p).*ds(xx,dx,p) - s1(xx,dx,p,2)];
d2 = @(xx,p,dx,dp) [-p(2)*g2(xx,p).*ds(xx,dx,p).^2 - s2(xx,dx,p,1); p(2)*g2(xx,p).*ds(xx,dx,p).^2 - s2(xx,dx,p,2)];
d3 = @(xx,p,dx,dp) [-p(2)*g3(xx,p).*ds(xx,dx,p).^3; p(2)*g3(xx,p).*ds(xx,dx,p).^3];
funcs = set_funcs('sys_rhs', rhs, 'sys_tau', @() 4, 'sys_dirderi', {{d1, d2, d3}}, 'x_vectorized', true);
stst.kind = 'stst';
stst.parameter = [1, 1, {theta}, 1];
stst.x = [1; 1];
method = df_mthod(funcs, 'stst');
stst.stability = p_stabil(funcs, stst, method.stability);
hopf = p_tohopf(funcs, stst);
mh = df_mthod(funcs, 'hopf');
hopf = p_correc(funcs, hopf, 3, [], mh.point);
hopf = nmfm_hopf(funcs, hopf);
q = hopf.nvec.q;
printf('%.17g %.17g %.17g\\n', hopf.parameter(3), hopf.omega, hopf.nmfm.L1/abs(q(1)-q(2))^2);
"""


def main() -> None:
    import compileall

    t_start = time.perf_counter()
    root, why = _peers.ddebiftool("ddebiftool_extra_nmfm/nmfm_hopf.m")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    compileall.compile_dir(ROOT / "symdelay", quiet=1)
    model = ROOT / "examples" / "models" / "information_delay.toml"
    lines = [
        "Hopf normal form of a delay model: symdelay vs DDE-BIFTOOL nmfm_hopf, end to end",
        "(whole processes, best of 3; l1 normalised by the imbalance q_x = 1)",
    ]
    if root is None:
        lines.append(f"DDE-BIFTOOL peer skipped: {why}")
    else:
        version = subprocess.run(["octave", "--version"], capture_output=True, text=True).stdout
        lines.append(f"peer: {version.splitlines()[0]}")
    lines += [
        "",
        f"{'model':<10} {'theta_c':>18} {'l1 symdelay':>20} {'l1 DDE-BIFTOOL':>20} "
        f"{'digits':>6} {'sd wall':>8} {'bif wall':>8}",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for name, power in (("logit", 1), ("quadratic", 2)):
            argv = [sys.executable, "-c", SYMDELAY_DRIVER, str(model), name, tmp]
            sd_wall, _, out = _peers.run_timed(argv, env, repeat=3)
            theta, _omega, l1 = out.split()
            row = f"{name:<10} {theta:>18} {l1:>20} "
            if root is not None:
                script = Path(tmp) / f"peer_{name}.m"
                script.write_text(OCTAVE_DRIVER.format(power=power, theta=theta))
                penv = dict(os.environ, DDEBIFTOOL_ROOT=str(root))
                b_wall, _, bout = _peers.run_timed(
                    ["octave", "--no-gui", "--quiet", "--norc", str(script)], penv, repeat=3
                )
                _bt, _bw, bl1 = bout.split()[-3:]
                rel = abs(float(l1) - float(bl1)) / abs(float(l1))
                digits = -math.log10(max(rel, 1e-17))
                row += f"{float(bl1):>20.15g} {digits:>6.1f} {sd_wall:>8.2f} {b_wall:>8.2f}"
            else:
                row += f"{'-':>20} {'-':>6} {sd_wall:>8.2f} {'-':>8}"
            lines.append(row)
    lines += [
        "",
        "symdelay: the Hopf point certified (Krawczyk), l1 in Arb balls (its sign proved);",
        "DDE-BIFTOOL: the same formula in doubles at the Hopf point it corrects itself.",
    ]
    _peers.write_summary(lines, OUT, t_start)


if __name__ == "__main__":
    main()
