"""End to end against DDE-BIFTOOL under GNU Octave: the founding model's L -> inf limit.

The DDE x'(t) = -mu x(t) - lam theta x(t - D), characteristic function
r + mu + lam theta exp(-r D). For each parameter set, whole processes are timed:

* ``symdelay critical --L inf --mu .. --lam .. --D .. --json`` (the Hopf point theta_c),
* ``symdelay roots --L inf --mu .. --lam .. --theta .. --D .. --json`` (rightmost roots),
* DDE-BIFTOOL, "roots": ``octave --no-gui --quiet --norc roots.m`` -- ``set_funcs``
  (sys_rhs, sys_tau), the steady state x = 0 corrected by ``p_correc``, its rightmost
  characteristic roots by ``p_stabil`` (Newton-refined, field l1),
* DDE-BIFTOOL, "roots + Hopf": the same, then ``p_tohopf`` and ``p_correc`` with
  k = lam theta free (the Hopf point at the given D), as in DDE-BIFTOOL's demos/neuron,
* for scale: ``octave --eval '1;'`` (Octave's own start-up) and ``python -c "import sympy"``.

CPU = user + system seconds of the child process (os.wait4), wall = perf_counter; medians
of ROUNDS interleaved runs (every case once per round) after one untimed warm-up round.
Goals (issue): each symdelay command < 0.3 s of CPU, and symdelay / DDE-BIFTOOL < 1.0 (roots
against the roots script, critical against the roots + Hopf script -- DDE-BIFTOOL seeds its
Hopf point from the roots -- and both symdelay commands together against the one roots +
Hopf process).

Two settings of each side change the CPU figures and are measured side by side: Python
with its byte-code cached (a normal install; cached under a temporary PYTHONPYCACHEPREFIX,
so neither the tree nor the virtualenv is written) and with PYTHONDONTWRITEBYTECODE=1
(every module compiled on every run); Octave with its OpenBLAS as installed (a thread per
core, which costs system time at start-up) and with OPENBLAS_NUM_THREADS=1. The ratio goal
is reported for every combination.

Accuracy: every value against closed forms evaluated with mpmath at 50 digits --
roots r_j = W_j(-k D e^{mu D}) / D - mu, j = -3..3 (Lambert W; the branches symdelay
lists), and the Hopf point k_c = sqrt(mu^2 + omega^2), omega D in (pi/2, pi) solving
omega cos(omega D) + mu sin(omega D) = 0 (symdelay reports theta_c = k_c / lam).

The peer is optional and not part of symdelay: it needs ``octave`` on PATH (Debian:
``apt-get install octave``) and the environment variable DDEBIFTOOL_PATH set to a checkout
of DDE-BIFTOOL (https://github.com/DDE-BifTool/DDE-Biftool; the directory that holds
``ddebiftool/set_funcs.m``). Without either, one line says which is missing and how to get
it, the symdelay side is measured alone, and the benchmark exits 0.
Writes benchmarks/results/e2e.txt.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import mpmath

OUT = Path(__file__).parent / "results" / "e2e.txt"
ROUNDS = 7
# (mu, lam, theta, D): below the Hopf point, past it, and a short delay with mu != 1
PARAMS = [(1, 1, 1, 1), (1, 2, 1, 2), (2, 1.5, 2, 0.5)]
BRANCHES = range(-3, 4)  # symdelay roots --L inf lists Lambert-W branches -3..3 by default
CPU_GOAL = 0.3
# the peer as installed, and with its BLAS held to one thread (its lowest CPU)
PEER_ENVS = {"": {}, " (1 BLAS thread)": {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}}

# A DDE-BIFTOOL user's driver for x' = -mu x(t) - k x(t - tau): parameters p = [mu, k, tau].
OCTAVE_SCRIPT = """\
addpath('{path}');
ind_mu = 1; ind_k = 2; ind_tau = 3;
funcs = set_funcs('sys_rhs', @(xx, p) -p(ind_mu)*xx(1,1,:) - p(ind_k)*xx(1,2,:), ...
                  'sys_tau', @() ind_tau, 'x_vectorized', true);
stst.kind = 'stst';
stst.parameter = [{mu!r}, {k!r}, {D!r}];
stst.x = 0;
method = df_mthod(funcs, 'stst');
method.stability.minimal_real_part = {min_re!r};
[stst, success] = p_correc(funcs, stst, [], [], method.point);
stst.stability = p_stabil(funcs, stst, method.stability);
l1 = stst.stability.l1;
[~, order] = sort(real(l1), 'descend');
l1 = l1(order);
for i = 1:numel(l1)
  printf('ROOT %.17g %.17g\\n', real(l1(i)), imag(l1(i)));
end
{hopf}"""
OCTAVE_HOPF = """\
hopf = p_tohopf(funcs, stst);
mh = df_mthod(funcs, 'hopf');
[hopf, success] = p_correc(funcs, hopf, ind_k, [], mh.point);
printf('HOPF %d %.17g %.17g\\n', success, hopf.parameter(ind_k), hopf.omega);
"""


def run(argv, cwd=None, env=None) -> tuple[float, float, str]:
    """(CPU s of the child, user + system; wall s; its stdout) of one whole process."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        full_env = None
        if env:  # a value None removes the variable
            full_env = {k: v for k, v in {**os.environ, **env}.items() if v is not None}
        proc = subprocess.Popen(argv, stdout=out, stderr=err, cwd=cwd, env=full_env)
        _, status, ru = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode()
        if code:
            err.seek(0)
            raise RuntimeError(f"{argv[:4]} exited {code}: {err.read().decode()[-2000:]}")
    return ru.ru_utime + ru.ru_stime, wall, text


def closed_forms(mu, k, D, dps=50):
    """Exact roots on BRANCHES and the Hopf point (k_c, omega) of r + mu + k e^{-rD}."""
    with mpmath.workdps(dps):
        mu, k, D = mpmath.mpf(mu), mpmath.mpf(k), mpmath.mpf(D)
        z = -k * D * mpmath.exp(mu * D)
        roots = [mpmath.lambertw(z, j) / D - mu for j in BRANCHES]
        f = lambda w: w * mpmath.cos(w * D) + mu * mpmath.sin(w * D)  # noqa: E731
        omega = mpmath.findroot(f, (mpmath.pi / 2 / D, mpmath.pi / D), solver="anderson")
        kc = mpmath.sqrt(mu**2 + omega**2)
        # each value must satisfy the characteristic equation, omega D lie in (pi/2, pi)
        tol = mpmath.mpf(10) ** (10 - dps)
        chi = lambda r, kk: r + mu + kk * mpmath.exp(-r * D)  # noqa: E731
        if not (
            mpmath.pi / 2 < omega * D < mpmath.pi
            and abs(chi(1j * omega, kc)) < tol
            and all(abs(chi(r, k)) < tol * (1 + abs(r)) for r in roots)
        ):
            raise RuntimeError(f"closed forms fail their own check at mu={mu}, k={k}, D={D}")
        return roots, kc, omega


def digits(x, exact) -> float:
    """Correct significant digits of x against exact (capped at 50)."""
    err = abs(mpmath.mpmathify(x) - exact) / abs(exact)
    return 50.0 if err == 0 else min(50.0, float(-mpmath.log10(err)))


def root_digits(found, exact) -> float:
    """Fewest correct digits over the exact roots, each against its nearest listed root."""
    if not found:
        return float("nan")
    return min(digits(min(found, key=lambda r, e=e: abs(r - e)), e) for e in exact)


def parse_critical(text):
    """(theta_c, omega) from the last row of ``symdelay critical``'s table (D theta_c omega)."""
    _, theta_c, omega = text.strip().splitlines()[-1].split()
    return mpmath.mpf(theta_c), mpmath.mpf(omega)


def parse_roots(text, mode: str = "difference"):
    """The roots of ``mode`` listed by ``symdelay roots``: rows
    '  re + imi  +- radius   [mode]' (a real root: '  re  +- radius   [mode]')."""
    out = []
    for ln in text.splitlines():
        if not (ln.startswith("  ") and "+-" in ln and ln.rstrip().endswith(f"[{mode}]")):
            continue
        parts = ln.split("+-")[0].split()
        re_ = mpmath.mpf(parts[0])
        im_ = mpmath.mpf(0)
        if len(parts) == 3:  # re, sign, im i
            im_ = mpmath.mpf(parts[2].removesuffix("i")) * (-1 if parts[1] == "-" else 1)
        out.append(mpmath.mpc(re_, im_))
    return out


def peer_status() -> tuple[str | None, str | None]:
    """(path of DDE-BIFTOOL's ddebiftool/ folder or None, why the peer is missing or None)."""
    missing = []
    if shutil.which("octave") is None:
        missing.append("octave not found (Debian: apt-get install octave)")
    root = os.environ.get("DDEBIFTOOL_PATH")
    folder = None
    if not root:
        missing.append(
            "DDEBIFTOOL_PATH not set (a checkout of https://github.com/DDE-BifTool/DDE-Biftool)"
        )
    else:
        for cand in (Path(root) / "ddebiftool", Path(root)):
            if (cand / "set_funcs.m").is_file():
                folder = cand
                break
        if folder is None:
            missing.append(
                f"DDEBIFTOOL_PATH={root} holds no ddebiftool/set_funcs.m (it must point at a "
                "checkout of https://github.com/DDE-BifTool/DDE-Biftool)"
            )
    if missing:
        return None, "DDE-BIFTOOL peer skipped: " + "; ".join(missing)
    return folder, None


def peer_versions(folder: Path) -> list[str]:
    first = subprocess.run(["octave", "--version"], capture_output=True, text=True).stdout
    lines = [f"peer: {first.splitlines()[0] if first else 'octave (version unknown)'}"]
    root = folder.parent if folder.name == "ddebiftool" else folder
    git = subprocess.run(
        ["git", "-C", str(root), "log", "-1", "--format=%H (%cs)"], capture_output=True, text=True
    )
    commit = git.stdout.strip() if git.returncode == 0 else "commit unknown (no git metadata)"
    lines.append(f"peer: DDE-BIFTOOL {commit}, DDEBIFTOOL_PATH={os.environ['DDEBIFTOOL_PATH']}")
    return lines


def fmt(x, w=9):
    return f"{x:{w}.3f}"


def accuracy(exact, outs, have_peer: bool) -> list[str]:
    """Digits of symdelay's and DDE-BIFTOOL's values against the closed forms."""
    lines = ["", "accuracy (correct significant digits against the closed forms at 50 digits)"]
    for i, (_mu, lam, _theta, _D) in enumerate(PARAMS):
        roots_x, kc, omega = exact[i]
        th_c, sd_om = parse_critical(outs[f"[{i}] symdelay critical"])
        sd_kc = th_c * mpmath.mpmathify(lam)
        sd_roots = parse_roots(outs[f"[{i}] symdelay roots"])
        lines.append(
            f"[{i}] closed form: k_c = {mpmath.nstr(kc, 20)}, omega = {mpmath.nstr(omega, 20)}"
        )
        lines.append(
            f"[{i}] symdelay critical: lam theta_c = {mpmath.nstr(sd_kc, 17)} "
            f"({digits(sd_kc, kc):.1f} digits), omega {digits(sd_om, omega):.1f} digits"
        )
        lines.append(
            f"[{i}] symdelay roots: {len(sd_roots)} roots, fewest correct digits "
            f"{root_digits(sd_roots, roots_x):.1f}"
        )
        if not have_peer:
            continue
        ptxt = outs[f"[{i}] DDE-BIFTOOL roots+hopf"]
        p_roots = [
            mpmath.mpc(float(a), float(b))
            for _, a, b in (ln.split() for ln in ptxt.splitlines() if ln.startswith("ROOT "))
        ]
        hopf = next(ln.split() for ln in ptxt.splitlines() if ln.startswith("HOPF "))
        p_kc, p_om = mpmath.mpf(hopf[2]), mpmath.mpf(hopf[3])
        lines.append(
            f"[{i}] DDE-BIFTOOL Hopf: k = {float(p_kc)!r} (success={hopf[1]}, "
            f"{digits(p_kc, kc):.1f} digits), omega {digits(p_om, omega):.1f} digits; "
            f"|symdelay - DDE-BIFTOOL| = {mpmath.nstr(abs(sd_kc - p_kc), 3)}"
        )
        lines.append(
            f"[{i}] DDE-BIFTOOL roots: {len(p_roots)} roots, fewest correct digits over the "
            f"same {len(roots_x)} roots {root_digits(p_roots, roots_x):.1f}"
        )
    return lines


def main() -> int:
    py = sys.executable
    folder, missing = peer_status()
    if missing:
        print(missing, flush=True)
    tmp = Path(tempfile.mkdtemp(prefix="symdelay_e2e_"))
    # Python: byte-code cached (a normal install; cached under tmp so neither the tree nor
    # the virtualenv is written, warmed by an untimed round) and every source compiled on
    # every run (PYTHONDONTWRITEBYTECODE=1, as some environments set it)
    py_envs = {
        "": {"PYTHONDONTWRITEBYTECODE": None, "PYTHONPYCACHEPREFIX": str(tmp / "pycache")},
        " (no .pyc)": {"PYTHONDONTWRITEBYTECODE": "1"},
    }
    octave = ["octave", "--no-gui", "--quiet", "--norc"]
    # name -> (argv, cwd, environment changes)
    cases: dict[str, tuple[list[str], Path | None, dict]] = {}
    for pv, env in py_envs.items():
        cases[f"python -c 'import sympy'{pv}"] = ([py, "-c", "import sympy"], None, env)
    # where a symdelay command's CPU goes: the interpreter, the libraries its roots load
    cases["python -c pass"] = ([py, "-c", "pass"], None, py_envs[""])
    cases["python -c 'import mpmath, flint'"] = (
        [py, "-c", "import mpmath, flint"],
        None,
        py_envs[""],
    )
    if folder is not None:
        for variant, env in PEER_ENVS.items():
            cases[f"octave --eval '1;'{variant}"] = ([*octave, "--eval", "1;"], tmp, env)
    exact = {}
    for i, (mu, lam, theta, D) in enumerate(PARAMS):
        k = lam * theta
        exact[i] = closed_forms(mu, k, D)
        base = ["--L", "inf", "--mu", str(mu), "--lam", str(lam)]
        crit = [py, "-m", "symdelay", "critical", *base, "--D", str(D)]
        roots = [py, "-m", "symdelay", "roots", *base, "--theta", str(theta), "--D", str(D)]
        for pv, env in py_envs.items():
            cases[f"[{i}] symdelay critical{pv}"] = (crit, None, env)
            if i == 0:  # the same command with --json, for scale (its record adds LaTeX)
                cases[f"[{i}] symdelay critical --json{pv}"] = ([*crit, "--json"], None, env)
            cases[f"[{i}] symdelay roots{pv}"] = (roots, None, env)
        if folder is None:
            continue
        # DDE-BIFTOOL is asked for the roots right of a bound just left of the listed ones
        min_re = float(min(mpmath.re(r) for r in exact[i][0])) - 0.25
        for name, hopf in (("roots", ""), ("roots+hopf", OCTAVE_HOPF)):
            script = tmp / f"e2e_{name.replace('+', '_')}_{i}.m"
            script.write_text(
                OCTAVE_SCRIPT.format(
                    path=folder, mu=float(mu), k=float(k), D=float(D), min_re=min_re, hopf=hopf
                )
            )
            for variant, env in PEER_ENVS.items():
                cases[f"[{i}] DDE-BIFTOOL {name}{variant}"] = ([*octave, script.name], tmp, env)
    for argv, cwd, env in cases.values():  # warm-up, untimed: byte-code, disk caches
        run(argv, cwd, env)
    cpu = {c: [] for c in cases}
    wall = {c: [] for c in cases}
    outs = {}
    for _ in range(ROUNDS):  # interleaved: every case once per round
        for c, (argv, cwd, env) in cases.items():
            t_cpu, t_wall, text = run(argv, cwd, env)
            cpu[c].append(t_cpu)
            wall[c].append(t_wall)
            outs[c] = text
    shutil.rmtree(tmp, ignore_errors=True)
    med = {c: statistics.median(v) for c, v in cpu.items()}
    medw = {c: statistics.median(v) for c, v in wall.items()}

    lines = [
        "end to end: symdelay CLI vs DDE-BIFTOOL (GNU Octave) on x' = -mu x(t) - lam theta x(t-D)",
        f"CPU = user + system seconds of each whole child process (os.wait4), wall = elapsed; "
        f"medians of {ROUNDS} interleaved runs after one untimed round",
        f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}",
        f"python {sys.version.split()[0]}, {os.cpu_count()} cores",
    ]
    if folder is not None:
        lines += peer_versions(folder)
    else:
        lines.append(missing)
    lines += [
        "DDE-BIFTOOL is found through the environment variable DDEBIFTOOL_PATH (a checkout of",
        "https://github.com/DDE-BifTool/DDE-Biftool); octave must be on PATH.",
        "Python rows: byte-code cached (a normal install); '(no .pyc)': PYTHONDONTWRITEBYTECODE=1,",
        "every module compiled from source on every run. Octave rows: its OpenBLAS as installed",
        "(a thread per core); '(1 BLAS thread)': OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1.",
        "symdelay's commands here load no BLAS (no numpy).",
        "symdelay roots prints 50 digits (its default --dps) with a proved error radius per",
        "root and a certified count of unstable roots; DDE-BIFTOOL prints Newton-refined doubles.",
        "",
        "parameter sets (k = lam theta):",
        *(
            f"  [{i}] mu={mu}, lam={lam}, theta={theta}, D={D}  (k={lam * theta:g}, "
            f"{'stable' if lam * theta < exact[i][1] else 'unstable'}: "
            f"k_c={mpmath.nstr(exact[i][1], 8)})"
            for i, (mu, lam, theta, D) in enumerate(PARAMS)
        ),
        "",
        f"{'process':<48} {'CPU s':>7} {'wall s':>7} {'/ import sympy':>15}",
    ]
    peer0 = med["python -c 'import sympy'"]
    for c in cases:
        lines.append(f"{c:<48} {med[c]:7.3f} {medw[c]:7.3f} {med[c] / peer0:15.2f}")

    lines += ["", "goal: each symdelay command < 0.3 s CPU"]
    cpu_miss = [c for c in cases if " symdelay " in c and "--json" not in c and med[c] >= CPU_GOAL]
    lines.append(
        f"slowest: {max(med[c] for c in cases if ' symdelay ' in c and '--json' not in c):.3f} s"
        f" -> {'met' if not cpu_miss else 'NOT met: ' + ', '.join(cpu_miss)}"
    )
    ratio_miss = []
    if folder is not None:
        combos = [(pv, bv) for pv in py_envs for bv in PEER_ENVS]
        heads = [
            f"{'.pyc' if not pv else 'no .pyc'}/{'BLAS' if not bv else '1 thr'}"
            for pv, bv in combos
        ]
        for kind, m in (("CPU", med), ("wall", medw)):
            lines += [
                "",
                f"{kind} ratio symdelay / DDE-BIFTOOL"
                + (" (goal < 1.0)" if kind == "CPU" else " (for scale)")
                + "; columns: symdelay byte-code / peer BLAS threads",
                f"{'':<36}" + "".join(f"{h:>15}" for h in heads),
            ]
            for i in range(len(PARAMS)):
                for what, num, den in (
                    ("roots / roots", ["roots"], "roots"),
                    ("critical / roots+hopf", ["critical"], "roots+hopf"),
                    ("critical + roots / roots+hopf", ["critical", "roots"], "roots+hopf"),
                ):
                    row = f"[{i}] {what:<32}"
                    for pv, bv in combos:
                        r = (
                            sum(m[f"[{i}] symdelay {n}{pv}"] for n in num)
                            / m[f"[{i}] DDE-BIFTOOL {den}{bv}"]
                        )
                        row += f"{r:15.2f}"
                        if kind == "CPU" and r >= 1.0:
                            ratio_miss.append(f"[{i}] {what} {heads[combos.index((pv, bv))]}")
                    lines.append(row)
        lines += ["", "ratio goal (CPU < 1.0) not met for:" if ratio_miss else "ratio goal: met"]
        lines += [f"  {x}" for x in ratio_miss]
    lines.append(
        f"overall: CPU goal {'met' if not cpu_miss else 'NOT met'}; ratio goal "
        + (
            "not measured (no peer)"
            if folder is None
            else "met in every column"
            if not ratio_miss
            else "NOT met in every column"
        )
    )

    with mpmath.workdps(60):  # parsing and comparing at more digits than any value
        lines += accuracy(exact, outs, folder is not None)
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
