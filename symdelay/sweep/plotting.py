"""Drawing a sweep: a heatmap of an output over two grid parameters, or lines over one.

Replications are averaged. Other grid parameters that vary must be fixed with ``where``
(``{"L": 2}``) for a heatmap; for lines each of their combinations is one line.
"""

from __future__ import annotations

from symdelay.core.errors import SymdelayInputError
from symdelay.sweep.xview import as_frame, to_xarray

__all__ = ["plot_results"]


def _scale(meta, name) -> str:
    for a in meta["axes"]:
        if name in a["names"]:
            return a.get("scale", "linear")
    return "linear"


def _axes_text(meta) -> str:
    """The sweep's axes for a message: ``theta (3 values), mu+lam (2 values, zipped)``."""
    spec_grid = meta["spec"]["grid"]
    parts = []
    for a, table in zip(meta["axes"], spec_grid):
        n = len(next(iter(table.values())))
        zipped = ", zipped" if len(a["names"]) > 1 else ""
        parts.append(f"{'+'.join(a['names'])} ({n} value{'s' if n != 1 else ''}{zipped})")
    return ", ".join(parts)


def _select(ds, where: dict, drawn: dict, meta=None):
    """Fix the grid parameters of ``where`` (``{name: value}``). ``drawn`` maps the
    dimensions on the plot's axes to their option (``{"D": "--x D"}``): those cannot be
    fixed."""
    axes = _axes_text(meta) if meta is not None else ", ".join(str(c) for c in ds.coords)
    fixed: dict = {}
    for k, v in (where or {}).items():
        if k not in ds.coords or k == "replication":
            raise SymdelayInputError(f"--where {k}: not a grid parameter; the sweep's axes: {axes}")
        dim = ds[k].dims[0]
        if dim in drawn:
            raise SymdelayInputError(
                f"--where {k}: {k} is on the plot's axis ({drawn[dim]}), it cannot also be "
                f"fixed; the sweep's axes: {axes}"
            )
        values = ds[k].values.tolist()
        if dim in fixed:  # zipped with a parameter fixed already: it must agree
            i = fixed[dim][1]
            if not _same(values[i], v):
                raise SymdelayInputError(
                    f"--where {k}={v}: {k} is zipped with {fixed[dim][0]}, which fixes "
                    f"{k} = {values[i]}; give one of them"
                )
            continue
        hits = [i for i, x in enumerate(values) if _same(x, v)]
        if not hits:
            raise SymdelayInputError(
                f"--where {k}={v}: no such value; {k} takes {[str(x) for x in values]}"
            )
        fixed[dim] = (k, hits[0])
    return ds.isel({dim: i for dim, (_k, i) in fixed.items()})


def _same(a, b) -> bool:
    from symdelay.sweep.grid import value_as_float

    fa, fb = value_as_float(a), value_as_float(b)
    if fa is not None and fb is not None:
        return abs(fa - fb) <= 1e-12 * max(1.0, abs(fa))
    return str(a) == str(b)


def plot_results(
    results,
    x: str,
    z: str,
    y: str | None = None,
    *,
    where: dict | None = None,
    ax=None,
    cmap: str | None = None,
):
    """Draw ``z`` over ``(x, y)`` as a heatmap, or against ``x`` as lines when ``y`` is None.

    ``results`` is a results DataFrame or file. A heatmap whose values change sign is
    drawn in a diverging map centred at 0, with the zero contour (the stability boundary
    for a spectral abscissa). Returns the matplotlib Axes.
    """
    import matplotlib.pyplot as plt
    import numpy as np

    df = as_frame(results)
    meta = df.attrs["sweep"]
    ds = to_xarray(df)
    grid_names = [n for a in meta["axes"] for n in a["names"]]
    if z not in ds.data_vars or z in ("status", "error"):
        outs = [v for v in ds.data_vars if v not in ("status", "error")]
        raise SymdelayInputError(
            f"--z {z}: not an output of this sweep; outputs: {', '.join(outs)}"
        )
    for name, flag in ((x, "--x"), (y, "--y")):
        if name is not None and name not in ds.coords:
            raise SymdelayInputError(
                f"{flag} {name}: not a grid parameter; grid parameters: {', '.join(grid_names)}"
            )
    drawn = {ds[x].dims[0]: f"--x {x}"}
    if y is not None:
        drawn.setdefault(ds[y].dims[0], f"--y {y}")
    ds = _select(ds, where, drawn, meta)
    da = ds[z]
    if da.dtype == object:
        raise SymdelayInputError(f"--z {z} is text, not a number: choose a numeric output")
    if "replication" in da.dims:
        da = da.mean("replication")
    xdim = ds[x].dims[0]
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4.5))
    if y is not None:
        ydim = ds[y].dims[0]
        if xdim == ydim:
            raise SymdelayInputError(f"--x {x} and --y {y} are zipped together: plot them as lines")
        rest = [d for d in da.dims if d not in (xdim, ydim)]
        if rest:
            raise SymdelayInputError(
                f"{', '.join(rest)} also vary: fix them with --where NAME=VALUE"
            )
        grid = da.transpose(ydim, xdim).values.astype(float)
        xs, ys = np.asarray(ds[x].values, float), np.asarray(ds[y].values, float)
        lo, hi = np.nanmin(grid, initial=np.inf), np.nanmax(grid, initial=-np.inf)
        norm = None
        if lo < 0 < hi:
            from matplotlib.colors import TwoSlopeNorm

            norm = TwoSlopeNorm(0.0, lo, hi)
        mesh = ax.pcolormesh(
            xs,
            ys,
            grid,
            shading="nearest",
            norm=norm,
            cmap=cmap or ("RdBu_r" if norm is not None else "viridis"),
        )
        if norm is not None and min(grid.shape) > 1:
            ax.contour(xs, ys, grid, levels=[0.0], colors="k", linewidths=1.0)
        ax.figure.colorbar(mesh, ax=ax, label=z)
        ax.set_ylabel(y)
        if _scale(meta, y) == "log":
            ax.set_yscale("log")
    else:
        rest = [d for d in da.dims if d != xdim]
        stacked = da.transpose(xdim, *rest).values.reshape(da.sizes[xdim], -1).astype(float)
        labels = _labels(ds, rest)
        xs = np.asarray(ds[x].values, float)
        for j in range(stacked.shape[1]):
            ax.plot(xs, stacked[:, j], marker=".", label=labels[j] if labels else None)
        if labels and len(labels) <= 12:
            ax.legend(fontsize="small")
        ax.set_ylabel(z)
    ax.set_xlabel(x)
    if _scale(meta, x) == "log":
        ax.set_xscale("log")
    ax.set_title(f"{meta['spec']['analysis']}: {z}")
    return ax


def _labels(ds, dims) -> list[str]:
    import itertools

    if not dims:
        return []
    values = [[f"{d}={v}" for v in ds[d].values.tolist()] for d in dims]
    return [", ".join(c) for c in itertools.product(*values)]
