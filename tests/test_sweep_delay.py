"""A sweep over a lag and theta of a delay model (``model-stability`` on the constant
information lag): serial and on a Dask LocalCluster give the same table bit for bit, and
every row agrees with Lambert W (the difference mode r + mu + lam theta e^{-r D}: its
rightmost root is -mu + W_0(-lam theta D e^{mu D}) / D; the sum mode's root is -mu)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import mpmath
import pandas as pd
import pytest
from distributed import Client, LocalCluster

from symdelay import sweep
from symdelay.sweep.store import BOOKKEEPING

ROOT = Path(__file__).resolve().parents[1]
INFO = str(ROOT / "examples" / "models" / "information_delay.toml")


def _spec():
    spec = tomllib.loads((ROOT / "examples" / "sweeps" / "information_delay.toml").read_text())
    spec["parameters"]["model_file"] = INFO
    spec["grid"] = {"theta": [0.5, 1, 2, 3.5], "D": [0.25, 1, 2.5]}
    return spec


def _lambert(mu, a, D):
    """(spectral abscissa, roots in Re r > 0) of (r + mu)(r + mu + a e^{-rD}) by Lambert W:
    the principal branch is the rightmost root of the difference mode (a > 0)."""
    with mpmath.workdps(30):
        z = -a * D * mpmath.exp(mu * D)
        ws = [-mu + mpmath.lambertw(z, k) / D for k in range(-30, 31)]
        return max(ws[30].real, -mu), sum(1 for w in ws if w.real > 0)


def test_serial_and_dask_agree_and_match_lambert(tmp_path):
    spec = _spec()
    serial = sweep.run(spec, out=tmp_path / "serial.parquet", serial=True)
    assert (serial["status"] == "ok").all() and len(serial) == 12
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster, set_as_default=False) as client,
    ):
        on_dask = sweep.run(spec, out=tmp_path / "dask.parquet", client=client)
    a = serial.drop(columns=list(BOOKKEEPING)).sort_values(["theta", "D"]).reset_index(drop=True)
    b = on_dask.drop(columns=list(BOOKKEEPING)).sort_values(["theta", "D"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    for row in a.to_dict("records"):
        theta, D = mpmath.mpf(str(row["theta"])), mpmath.mpf(str(row["D"]))
        sa, unstable = _lambert(mpmath.mpf(1), theta, D)
        assert row["spectral_abscissa"] == pytest.approx(float(sa), abs=1e-12)
        assert row["unstable_count"] == unstable
        assert row["stable"] is (unstable == 0)
        assert row["verdict"] == ("unstable" if unstable else "stable")
