"""Sweeps: a grid of one analysis, run serially or on Dask, results in Parquet.

>>> from symdelay import sweep
>>> spec = {"analysis": "stability", "parameters": {"L": 2, "mu": 1, "lam": 1, "D": 1},
...         "grid": {"theta": [4, 8, 10]}}
>>> sweep.run(spec, serial=True)["stable"].tolist()
[True, True, False]

Dask, pyarrow and pandas are imported only when a sweep runs or is read.
"""

from __future__ import annotations

from symdelay.sweep.analyses import ANALYSES, analysis_info, register_analysis
from symdelay.sweep.spec import Spec, as_spec, load_spec, task_seed

__all__ = [
    "ANALYSES",
    "Spec",
    "analysis_info",
    "as_spec",
    "load_spec",
    "plot",
    "read_results",
    "register_analysis",
    "run",
    "status",
    "task_seed",
    "to_xarray",
]


def run(spec, out=None, client=None, **kwargs):
    """Run a sweep (see :func:`symdelay.sweep.runner.run`); returns a pandas DataFrame."""
    from symdelay.sweep.runner import run as _run

    return _run(spec, out=out, client=client, **kwargs)


def read_results(path):
    """A results file as a pandas DataFrame (see :func:`symdelay.sweep.store.read_results`)."""
    from symdelay.sweep.store import read_results as _read

    return _read(path)


def status(path) -> dict:
    """``{"total", "done", "failed", "spec_hash"}`` of a results file."""
    from symdelay.sweep.store import status as _status

    return _status(path)


def to_xarray(results, **kwargs):
    """A finished sweep as an ``xarray.Dataset`` (see :func:`symdelay.sweep.xview.to_xarray`)."""
    from symdelay.sweep.xview import to_xarray as _to_xarray

    return _to_xarray(results, **kwargs)


def plot(results, x, z, y=None, **kwargs):
    """Draw a sweep: a heatmap of ``z`` over ``(x, y)``, or lines of ``z`` against ``x``
    (see :func:`symdelay.sweep.plotting.plot_results`); returns the matplotlib Axes."""
    from symdelay.sweep.plotting import plot_results

    return plot_results(results, x=x, y=y, z=z, **kwargs)
