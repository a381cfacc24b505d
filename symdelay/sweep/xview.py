"""A finished sweep as an ``xarray.Dataset``: one dimension per grid axis (plus
``replication`` when there are several), one data variable per output.

Zipped parameters share a dimension (named after the first of them); the others are
coordinates along it. Failed tasks are NaN in numeric outputs.
"""

from __future__ import annotations

from symdelay.core.errors import SymdelayInputError
from symdelay.sweep.grid import value_as_float

__all__ = ["to_xarray", "as_frame", "output_columns"]

_NOT_OUTPUTS = {
    "task",
    "replication",
    "seed",
    "status",
    "error",
    "seconds",
    "worker",
    "run",
    "symdelay_version",
    "spec_hash",
}


def as_frame(results):
    """A results DataFrame from a DataFrame (as :func:`symdelay.sweep.run` returns) or the
    path of a results file."""
    import pandas as pd

    if isinstance(results, pd.DataFrame):
        if "sweep" not in results.attrs:
            raise SymdelayInputError(
                "this DataFrame has no sweep metadata (df.attrs['sweep']): pass the one "
                "symdelay.sweep.run or read_results returned, or the results file"
            )
        return results
    from symdelay.sweep.store import read_results

    return read_results(results)


def output_columns(df) -> list[str]:
    """The analysis' output columns of a results table."""
    meta = df.attrs["sweep"]
    params = set(meta["spec"]["parameters"]) | {n for a in meta["axes"] for n in a["names"]}
    return [c for c in df.columns if c not in _NOT_OUTPUTS and c not in params]


def _coord(values):
    """Grid values as floats where every one is a number (``"1/2"`` -> 0.5)."""
    floats = [value_as_float(v) for v in values]
    return floats if all(f is not None for f in floats) else [str(v) for v in values]


def to_xarray(results, *, include_failed: bool = True):
    """The sweep as an ``xarray.Dataset`` (``results``: a results DataFrame or file).

    ``include_failed=False`` drops the ``status``/``error`` variables; by default they are
    kept so that a map can show where tasks failed.
    """
    import numpy as np
    import pandas as pd
    import xarray as xr

    df = as_frame(results)
    meta = df.attrs["sweep"]
    spec = meta["spec"]
    axes = meta["axes"]
    reps = int(spec.get("replications", 1))
    grid = spec["grid"]  # one table per axis, zipped values
    shape = [len(next(iter(t.values()))) for t in grid] + ([reps] if reps > 1 else [])
    dims = [a["names"][0] for a in axes] + (["replication"] if reps > 1 else [])
    total = int(np.prod(shape))
    idx = df["task"].to_numpy()
    outputs = output_columns(df)
    extra = ["status", "error"] if include_failed else []
    data = {}
    for col in [*outputs, *extra]:
        series = df[col]
        if pd.api.types.is_bool_dtype(series.dtype):
            values = np.full(total, np.nan)
            values[idx] = series.astype(float).to_numpy()
        elif pd.api.types.is_numeric_dtype(series.dtype):
            values = np.full(total, np.nan)
            values[idx] = series.to_numpy(dtype=float, na_value=np.nan)
        else:
            values = np.full(total, None, dtype=object)
            values[idx] = [None if pd.isna(v) else v for v in series.to_numpy(dtype=object)]
        data[col] = (dims, values.reshape(shape))
    coords = {}
    for a, table in zip(axes, grid):
        for name in a["names"]:
            coords[name] = (a["names"][0], _coord(table[name]))
    if reps > 1:
        coords["replication"] = ("replication", list(range(reps)))
    ds = xr.Dataset(data, coords=coords)
    ds.attrs.update(
        spec_hash=meta["spec_hash"],
        analysis=spec["analysis"],
        total=int(meta["total"]),
        done=len(df),
        **{f"param_{k}": str(v) for k, v in spec["parameters"].items()},
    )
    return ds
