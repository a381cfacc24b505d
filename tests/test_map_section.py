"""The stability-map report section: it builds in quick mode, prints its special points from
the maps' records, and those points are the closed forms (worst delay, kappa*) and lie on
the imaginary axis by an independent numpy root computation."""

from pathlib import Path

import mpmath
import numpy as np
import pytest

from symdelay.core.budget import forced
from symdelay.core.latex import escape
from symdelay.models.inflight import kappa_star
from symdelay.outputs.report import ReportContext, section_modules
from symdelay.outputs.sections import maps


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = Path(tmp_path_factory.mktemp("maps"))
    with forced():  # as write_report runs every section
        section = maps.build(ReportContext(out, quick=True))
    return out, section, maps.founding_maps(True), maps.inflight_maps(True)


def test_section_is_found_and_its_figures_are_written(built):
    out, section, _, _ = built
    assert maps in section_modules()
    for f in ("figures/maps_founding.pdf", "figures/maps_inflight.pdf"):
        assert section.body.count(f"{{{f}}}") == 1
        assert (out / f).stat().st_size > 0
    assert [p.name for p in section.figures] == ["maps_founding.pdf", "maps_inflight.pdf"]


def test_printed_special_points_are_the_records(built):
    _, section, founding, inflight = built
    body = section.body
    assert set(founding) == set(maps.FOUNDING_LS) and set(inflight) == set(maps.INFLIGHT_LS)
    for L, m in founding.items():
        pts = m.record()["special_points"]
        Lt = "\\infty" if L == "inf" else str(L)
        if not pts:
            assert f"${Lt}$ & \\multicolumn{{5}}{{l}}{{none in the box}}" in body
        for s in pts:
            row = f"${Lt}$ & {escape(s['type'])} & {s['x']} & {s['y']} & {s['omega']} & yes"
            assert row in body, row
            if s["type"] == "turning_y":
                assert f"$D^* = {s['x']}$, $\\theta^* = {s['y']}$" in body
    for m in inflight.values():
        (s,) = [p for p in m.record()["special_points"] if p["type"] == "turning_x"]
        assert f"$\\kappa = {s['x']}$ ($\\theta = {s['y']}$, $\\omega = {s['omega']}$)" in body
        assert m.latex() in body
    for m in (*founding.values(), *inflight.values()):
        assert escape(m.searched[0].upper() + m.searched[1:]) in body
    for m in founding.values():  # regions grouped by their count: cells summed, pieces counted
        regions = m.record()["regions"]
        for n in {g["unstable_roots"] for g in regions}:
            same = [g for g in regions if g["unstable_roots"] == n]
            cells = sum(g["cells"] for g in same)
            tail = f" in {len(same)} regions)" if len(same) > 1 else ")"
            assert f"{n} unstable roots ({cells} cells{tail}" in body


def _difference_roots(L, mu, lam, theta, D):
    """Roots of (r + mu)(r + gamma)^L + lam theta gamma^L (numpy, independent of the map)."""
    gamma = L / D
    p = np.poly1d([1.0, mu]) * np.poly1d([1.0, gamma]) ** L + lam * theta * gamma**L
    return np.roots(p.coeffs)


def test_turning_points_are_the_worst_delays_and_on_the_axis(built):
    _, _, founding, _ = built
    mu, lam = maps.PARAMETERS["mu"], maps.PARAMETERS["lam"]
    seen = 0
    for L, m in founding.items():
        turning = [s for s in m.special_points if s["type"] == "turning_y"]
        if L in (1, "inf"):
            assert turning == []  # theta* infinite at L = 1; D* infinite at L = inf
            continue
        D_star = L / mu
        theta_star = mu * mpmath.sec(mpmath.pi / (L + 1)) ** (L + 1) / lam
        if not float(m.x[1]) < D_star < float(m.x[2]):
            continue
        (s,) = turning
        assert abs(s["x"] - D_star) < 1e-12
        assert abs(s["y"] - theta_star) < 1e-12 * theta_star
        roots = _difference_roots(L, mu, lam, float(s["y"]), float(s["x"]))
        near = min(roots, key=lambda z: abs(z - 1j * float(s["omega"])))
        assert abs(near - 1j * float(s["omega"])) < 1e-6
        assert max(r.real for r in roots) < 1e-6  # the minimum: nothing crossed yet
        seen += 1
    assert seen >= 2


def test_inflight_turning_points_are_kappa_star(built):
    _, _, _, inflight = built
    for L, m in inflight.items():
        (s,) = [p for p in m.special_points if p["type"] == "turning_x"]
        ks = kappa_star(L, mu=maps.INFLIGHT["mu"], D=maps.INFLIGHT["D"], dps=15).kappa_star
        assert abs(s["x"] - ks) < 1e-13
        # just inside kappa* the window is open, just outside every theta is stable
        assert m.crossings(x=str(float(ks) - 1e-3))
        assert not m.crossings(x=str(float(ks) + 1e-3))
