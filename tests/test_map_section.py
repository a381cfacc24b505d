"""The stability-map report section: it builds in quick mode, prints its special points from
the maps' records, and those points are the closed forms (worst delay, kappa*) and lie on
the imaginary axis by an independent numpy root computation."""

from pathlib import Path

import mpmath
import numpy as np
import pytest

from symdelay.core.budget import forced
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
    """Every special point of every map is a table row printed from its record (at the
    digits shown, the point's name in words, never the record's identifier), and every
    region count of a map is in the regions table."""
    _, section, founding, inflight = built
    body = section.body
    assert set(founding) == set(maps.FOUNDING_LS) and set(inflight) == set(maps.INFLIGHT_LS)
    assert "turning_" not in body and "(s)" not in body
    for group in (founding, inflight):
        for L, m in group.items():
            Lt = "\\infty" if L == "inf" else str(L)
            if not m.special_points:
                assert f"${Lt}$ & none in the box" in body
            for s in m.special_points:
                w = s["omega"]
                w = ", ".join(maps.num(v) for v in w) if isinstance(w, tuple) else maps.num(w)
                row = (
                    f"${Lt}$ & {maps._point_name(s, m)} & ${maps.num(s['x'])}$ & "
                    f"${maps.num(s['y'])}$ & ${w}$ & yes"
                )
                assert row in body, row
    table = body.split("\\label{tab:map_regions}", 1)[1].split("\\end{tabular}", 1)[0]
    lines = {ln.split(" & ")[0]: ln for ln in table.splitlines() if " & " in ln}
    for L, m in founding.items():
        Lt = "\\infty" if L == "inf" else str(L)
        cells = lines[f"${Lt}$"].removesuffix(" \\\\").split(" & ")
        printed = [int(c.split()[0]) for c in cells[2].split(", ")]
        assert printed == sorted({g["unstable_roots"] for g in m.record()["regions"]})


def test_numbers_at_the_digits_shown():
    """An exact integer prints as one; others at SHOWN significant digits."""
    assert maps.num(mpmath.mpf(2)) == "2"
    assert maps.num(mpmath.mpf("1.7320508075688772")) == "1.7320508"


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
