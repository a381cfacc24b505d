"""A printed bound bounds the printed digits (issue 36 item 2): one renderer of certified
numbers (:func:`symdelay.core.numbers.format_certified`) for every record and command,
checked against mpmath at a higher precision and against roots found independently (Arb's
isolation of the exact integer polynomial, Lambert W), at several precisions, for real,
imaginary, huge and tiny roots."""

from __future__ import annotations

import json
import random
import re

import flint
import mpmath
import pytest
import sympy as sp

from symdelay.core.numbers import certified_text, format_ball, format_certified, upper_text


@pytest.mark.parametrize("dps", [5, 15, 50])
def test_the_printed_radius_covers_the_printed_digits(dps):
    rng = random.Random(dps)
    with mpmath.workprec(400):
        for _ in range(300):
            scale = mpmath.mpf(10) ** rng.randint(-320, 320)
            re_, im_ = (mpmath.mpf(rng.uniform(-1, 1)) * scale * (1 + mpmath.mpf(2) ** -300)
                        for _ in range(2))  # fmt: skip
            value = mpmath.mpc(re_, im_ if rng.random() < 0.7 else 0)
            radius = abs(value) * mpmath.mpf(10) ** -rng.randint(dps + 1, dps + 40)
            out = format_certified(value, radius, dps)
            shown = mpmath.mpc(mpmath.mpf(out["re"]), mpmath.mpf(out["im"]))
            bound = mpmath.mpf(out["radius"])
            # the true number is anywhere in the certified disc: the printed radius covers it
            assert abs(shown - value) + radius <= bound
            assert bound <= (abs(shown - value) + radius) * (1 + mpmath.mpf("0.011"))
            digits = out["re"].lstrip("-").split("e")[0].replace(".", "").lstrip("0")
            assert out["re"] == "0" or len(digits) == dps


def test_upper_text_rounds_up_exactly():
    with mpmath.workprec(200):
        for s in ("4.761e-5", "1e-330", "9.995e7", "1", "0.1", "123456789"):
            x = mpmath.mpf(s)
            up = upper_text(x)
            assert mpmath.mpf(up) >= x and mpmath.mpf(up) <= x * (1 + mpmath.mpf("0.01"))
    assert upper_text(0) == "0" and upper_text(mpmath.mpf(2)) == "2.00"


def test_real_and_imaginary_numbers_print_without_their_zero_part():
    assert certified_text(mpmath.mpc("-1.5", "1e-330"), mpmath.mpf("1e-300"), 5, real=True) == (
        "-1.5000  +- 1.01e-300"
    )
    assert certified_text(mpmath.mpc(0, "2.5"), 0, 5, imaginary=True) == "2.5000i  +- 0"
    # mpc("-0.0139") is the double nearest -0.0139: the radius covers that last bit too
    assert certified_text(mpmath.mpc("-0.0139", "-2.3"), 0, 3) == "-0.0139 - 2.30i  +- 1.78e-16"
    assert certified_text(mpmath.mpc("-0.0139", "2.3"), 0, 3).startswith("-0.0139 + 2.30i  +- ")
    assert format_ball(mpmath.mpf(3), 0, 5) == {"value": "3.0000", "radius": "0"}


def _reference_roots(L, mu, lam, theta, D, bits):
    """Each mode's roots found independently: the sum mode's exactly (-mu, and -gamma
    L-fold), the difference mode's by Arb's isolation of its exact integer polynomial."""
    r = sp.Symbol("r")
    mu, lam, theta, D = (sp.Rational(v) for v in (mu, lam, theta, D))
    g = sp.Integer(L) / D
    P = sp.Poly((r + mu) * (r + g) ** L + lam * theta * g**L, r)
    _, P = P.clear_denoms()
    coeffs = [int(c) for c in reversed(P.all_coeffs())]
    with flint.ctx.workprec(bits):
        diff = list(flint.acb_poly(coeffs).roots(tol=flint.arb(2) ** -bits, maxprec=16 * bits))

        def exact(q):
            return flint.acb(flint.arb(flint.fmpq(int(q.p), int(q.q))))

        total = {}
        for v, m in ((-mu, 1), (-g, L)):
            total[v] = total.get(v, 0) + m
        sums = [(exact(v), m) for v, m in total.items()]
    return {"sum": sums, "difference": [(z, 1) for z in diff]}


CASES = [
    # L, mu, lam, theta, D, dps: the example, an axis pair, real roots, huge, tiny
    (2, 1, 1, 5, 1, 5),
    (2, 1, 1, 5, 1, 15),
    (2, 1, 1, 5, 1, 50),
    (2, 1, 1, 9, 1, 5),  # +-i 2 sqrt 2 on the axis, -5 real
    (3, 1, 1, "1/100", 1, 15),  # real roots
    (3, 1, 1, "0.5", "1e-40", 15),  # gamma = 3e40: huge roots
    (2, 1, 1, 3, "1e40", 15),  # gamma = 2e-40: tiny roots
    (4, "1e-300", 1, 2, 1, 15),  # mu = 1e-300: a tiny real root
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: ",".join(map(str, c)))
def test_printed_roots_contain_the_roots_found_independently(run_cli, case):
    L, mu, lam, theta, D, dps = case
    argv = ["roots", "--L", str(L), "--mu", str(mu), "--lam", str(lam), "--theta", str(theta),
            "--D", str(D), "--dps", str(dps)]  # fmt: skip
    status, out, err = run_cli(*argv, "--json")
    assert status == 0 and err == ""
    rec = json.loads(out)
    bits = 4 * dps + 300
    ref = _reference_roots(L, mu, lam, theta, D, bits)
    listed = 0
    for item in rec["roots"]:
        with flint.ctx.workprec(bits):
            z = flint.acb(flint.arb(item["re"]), flint.arb(item["im"]))
            rad = flint.arb(item["radius"])
            near = [(w, m) for w, m in ref[item["mode"]] if (w - z).abs_upper() <= rad]
        # exactly one root of its mode lies within the printed radius of the printed digits
        assert len(near) == 1, (item, [str(w) for w, _ in ref[item["mode"]]])
        w, m = near[0]
        assert m == item.get("multiplicity", 1)
        listed += m
        if item["im"] == "0":  # printed real (proved by symdelay): consistent with Arb's ball
            assert w.imag.contains(0)
        if item["re"] == "0":  # printed on the axis
            assert w.real.contains(0)
    assert listed == 2 * (L + 1)
    # the text: real roots without an imaginary part, a sign between the parts
    status, text, _ = run_cli(*argv)
    lines = [ln for ln in text.splitlines() if ln.startswith("  ") and "+- " in ln]
    assert len(lines) == len(rec["roots"])
    for line, item in zip(lines, rec["roots"]):
        number = line.split("+- ")[0].strip()
        if item["im"] == "0":
            assert "i" not in number
        elif item["re"] == "0":
            assert re.fullmatch(r"-?[0-9.e+-]+i", number)
        else:
            assert re.fullmatch(r"-?[0-9.e+-]+ [+-] [0-9.e+-]+i", number), number
        assert line.split("+- ")[1].split()[0] == item["radius"]


@pytest.mark.parametrize("dps", [5, 30])
def test_lambert_roots_against_mpmath(run_cli, dps):
    status, out, _ = run_cli("roots", "--L", "inf", "--mu", "1", "--lam", "2", "--theta", "1",
                             "--D", "1", "--dps", str(dps), "--branches", "-2..2", "--json")  # fmt: skip
    assert status == 0
    rec = json.loads(out)
    with mpmath.workdps(dps + 40):
        ref = [-1 + mpmath.lambertw(-2 * mpmath.e, k) for k in range(-2, 3)] + [mpmath.mpf(-1)]
        for item in rec["roots"]:
            z = mpmath.mpc(mpmath.mpf(item["re"]), mpmath.mpf(item["im"]))
            assert min(abs(z - w) for w in ref) <= mpmath.mpf(item["radius"])
