"""Certified rightmost roots of quasi-polynomials against DDE-BIFTOOL, end to end, one run.

The systems: ``p(r) + sum_k q_k(r) e^{-r tau_k}`` of degree 2..10 with one and two lags
(``p`` with roots -j/n, small ``q_k``, tau = 1, 5/2), written as linear DDEs
``x' = A0 x + sum_k A_k x(t - tau_k)`` (companion form). For each, as a user runs it:

* symdelay, certified: a Python process that imports symdelay, builds the linearisation
  (``symdelay.model.lags``) and asks for the 6 rightmost roots, each proved in a disc, with
  the proof that none is missing right of them, and the certified count in ``Re r > 0``
  (``symdelay.analysis.delayroots.mode_roots``, the path of ``symdelay.roots``);
* symdelay, collocation: the uncertified spectral collocation of the generator, in-process
  (``symdelay.analysis.collocation``), the cost of the numbers without their proof;
* DDE-BIFTOOL (the peer, optional): ``octave --no-gui --quiet --norc`` running
  ``dde_stst_eig_cheb(A, tau)`` (Breda et al.'s Chebyshev discretisation of the generator,
  DDE-BIFTOOL's default stability method) on the same matrices, 6 eigenvalues, printed.

Times are whole processes (wall and CPU of the child) for the first and the third, best of 3,
symdelay's byte-code written first (as an installed package has it: ``compileall``; a
session with ``PYTHONDONTWRITEBYTECODE`` would otherwise compile every module on every run);
the rightmost roots of the peer and ours are compared (digits of agreement). The peer needs
``octave`` on PATH (Debian: ``apt-get install octave``) and DDEBIFTOOL_PATH pointing at a
checkout of https://github.com/DDE-BifTool/DDE-Biftool; without them one line says which is
missing and only symdelay is measured. Writes benchmarks/results/lag_peer.txt.
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

OUT = Path(__file__).parent / "results" / "lag_peer.txt"
TAUS = ("1", "5/2")


def system(degree: int, lags: int) -> dict:
    """``A0`` (companion of p) and the lag matrices, as exact text."""
    from fractions import Fraction

    import sympy as sp

    r = sp.Symbol("r")
    p = sp.Poly(sp.prod([r + sp.Rational(j, degree) for j in range(1, degree + 1)]), r)
    c = p.all_coeffs()[1:]
    n = degree
    A0 = [[Fraction(0)] * n for _ in range(n)]
    for i in range(n - 1):
        A0[i][i + 1] = Fraction(1)
    for j in range(n):
        A0[n - 1][j] = -Fraction(str(c[n - 1 - j]))
    terms = []
    for k in range(lags):
        M = [[Fraction(0)] * n for _ in range(n)]
        for j in range(min(n, 2)):
            M[n - 1][j] = -Fraction((-1) ** (j + k) * (3 + j), 10 * (k + 1))
        terms.append(M)
    text = [[str(x) for x in row] for row in A0]
    return {
        "A0": text,
        "terms": [[[str(x) for x in row] for row in M] for M in terms],
        "taus": list(TAUS[:lags]),
    }


SYMDELAY_DRIVER = r"""
import json, sys
import sympy as sp
from symdelay.model.lags import Lag, LinearTerm, Linearisation
from symdelay.analysis.delayroots import mode_roots
sysd = json.loads(sys.argv[1])
Q = lambda t: sp.Rational(t)
lags, terms = {}, []
for k, (M, tau) in enumerate(zip(sysd["terms"], sysd["taus"])):
    lag = Lag(f"tau{k + 1}", "constant", {"value": Q(tau)})
    lags[lag.name] = lag
    terms.append(LinearTerm(sp.ImmutableMatrix([[Q(x) for x in row] for row in M]),
                            lag.laplace(), (lag.name,), False))
lin = Linearisation(sp.ImmutableMatrix([[Q(x) for x in row] for row in sysd["A0"]]), tuple(terms))
res = mode_roots(lin, lags, rightmost=6, dps=15)
out = [[float(v.real), float(v.imag), float(rad)] for v, rad in res.roots]
print(json.dumps({"roots": out, "count": res.count.unstable,
                  "complete": res.complete[0] == "right_of"}))
"""

OCTAVE_DRIVER = """\
addpath([getenv('DDEBIFTOOL_ROOT') '/ddebiftool']);
A = zeros({n}, {n}, {d});
A(:,:,1) = {A0};
{lagmats}
st = dde_stst_eig_cheb(A, [{taus}], 'minimal_real_part', -2);
l = st.l1(:);
for i = 1:numel(l)
  printf('%.17g %.17g\\n', real(l(i)), imag(l(i)));
end
"""


def _matrix(rows) -> str:
    from fractions import Fraction

    return "[" + ";".join(" ".join(repr(float(Fraction(x))) for x in row) for row in rows) + "]"


def agreement(ours, theirs) -> float:
    """Digits to which the rightmost root agrees (the rightmost of each list)."""
    import math

    a = max(ours, key=lambda z: (z.real, z.imag))
    b = min(theirs, key=lambda z: abs(z - a))
    return -math.log10(max(abs(a - b) / max(abs(a), 1e-300), 1e-17))


def main() -> None:
    from symdelay.analysis.collocation import collocation_eigenvalues

    t_start = time.perf_counter()
    root, why = _peers.ddebiftool("ddebiftool/dde_stst_eig_cheb.m")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    import compileall

    compileall.compile_dir(Path(__file__).resolve().parents[1] / "symdelay", quiet=1)
    lines = [
        "certified rightmost roots of quasi-polynomials: symdelay vs DDE-BIFTOOL, end to end",
        "(whole processes, best of 3, byte-code compiled; colloc: symdelay's uncertified "
        "collocation in-process)",
    ]
    if root is None:
        lines.append(f"DDE-BIFTOOL peer skipped: {why}")
    else:
        version = subprocess.run(["octave", "--version"], capture_output=True, text=True).stdout
        commit = subprocess.run(
            ["git", "-C", str(root), "log", "-1", "--format=%h"], capture_output=True, text=True
        ).stdout.strip()
        lines.append(f"peer: {version.splitlines()[0]}, DDE-BIFTOOL {commit or '(no git)'}")
    lines += [
        "",
        f"{'deg':>3} {'lags':>4} {'sd wall':>8} {'sd cpu':>7} {'bif wall':>8} {'bif cpu':>7} "
        f"{'ratio':>6} {'colloc':>7} {'digits':>6} {'count':>5} {'complete':>8}",
    ]
    import sympy as sp

    from symdelay.model.lags import Lag, Linearisation, LinearTerm

    for lags in (1, 2):
        for degree in (2, 4, 6, 10):
            sysd = system(degree, lags)
            sd_wall, sd_cpu, out = _peers.run_timed(
                [sys.executable, "-c", SYMDELAY_DRIVER, json.dumps(sysd)], env=env, repeat=3
            )
            res = json.loads(out)
            ours = [complex(a, b) for a, b, _ in res["roots"]]
            # collocation in-process
            lagmap, terms = {}, []
            for k, (M, tau) in enumerate(zip(sysd["terms"], sysd["taus"])):
                lag = Lag(f"tau{k + 1}", "constant", {"value": sp.Rational(tau)})
                lagmap[lag.name] = lag
                terms.append(
                    LinearTerm(
                        sp.ImmutableMatrix([[sp.Rational(x) for x in row] for row in M]),
                        lag.laplace(),
                        (lag.name,),
                    )
                )
            lin = Linearisation(
                sp.ImmutableMatrix([[sp.Rational(x) for x in row] for row in sysd["A0"]]),
                tuple(terms),
            )
            t0 = time.perf_counter()
            collocation_eigenvalues(lin, lagmap)
            t_coll = time.perf_counter() - t0
            bif = "-"
            row = f"{degree:>3} {lags:>4} {sd_wall:>8.3f} {sd_cpu:>7.3f} "
            if root is not None:
                n = degree
                lagmats = "\n".join(
                    f"A(:,:,{k + 2}) = {_matrix(M)};" for k, M in enumerate(sysd["terms"])
                )
                taus = ", ".join(str(float(sp.Rational(t))) for t in sysd["taus"])
                script = OCTAVE_DRIVER.format(
                    n=n, d=lags + 1, A0=_matrix(sysd["A0"]), lagmats=lagmats, taus=taus
                )
                with tempfile.NamedTemporaryFile("w", suffix=".m", delete=False) as fh:
                    fh.write(script)
                penv = dict(os.environ, DDEBIFTOOL_ROOT=str(root))
                b_wall, b_cpu, bout = _peers.run_timed(
                    ["octave", "--no-gui", "--quiet", "--norc", fh.name], env=penv, repeat=3
                )
                os.unlink(fh.name)
                theirs = [complex(*map(float, ln.split())) for ln in bout.split("\n") if ln.strip()]
                digits = agreement(ours, theirs)
                row += f"{b_wall:>8.3f} {b_cpu:>7.3f} {sd_wall / b_wall:>6.2f} "
                bif = f"{digits:>6.1f}"
            else:
                row += f"{'-':>8} {'-':>7} {'-':>6} "
            row += f"{t_coll:>7.3f} {bif:>6} {res['count']!s:>5} {res['complete']!s:>8}"
            lines.append(row)
    lines += [
        "",
        "sd: symdelay (certified: each root proved in a disc, none missing right of them when",
        "complete = True, the count in Re r > 0 proved by the argument principle); bif: DDE-",
        "BIFTOOL's dde_stst_eig_cheb (uncertified); ratio = sd wall / bif wall (goal < 1);",
        "digits: agreement of the rightmost roots.",
    ]
    _peers.write_summary(lines, OUT, t_start)


if __name__ == "__main__":
    main()
