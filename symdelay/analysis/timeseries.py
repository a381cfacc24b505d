"""One record for every path in time: :class:`TimeSeries`, in the manner of python-control's
``TimeResponseData``. Simulations (the generated kernel, the SQ(d) and LB kernels), fluid
paths (any model's drift, the SQ(d) mean field, the LB sliding fluid), the founding model's
difference dynamics and the DDE's solution: the states by name, the times ``t``, the values
``values[k, j, i]`` (replication ``k``, time ``t[j]``, state ``i``) in the scaled units the
record prints (counts / eta for a simulation); what only one kind of run knows goes in
``events`` (per replication) and ``info`` (solver, backend, transition counts, estimates).

JSON (:meth:`TimeSeries.record`): ``{"model", "parameters", "kind", "states", "t", "info",
...}`` and one key per state path, the states ``base_1 .. base_n`` given together as
``base`` (the founding model's contract keys ``q1, q2, z1, z2``); a simulation adds
``"events"``, and with several replications the paths are under ``"replications"`` (one
``{"events", "t", <state keys>}`` each; ``"events"`` their total). A state whose key would
be one of the record's own is written ``"state:<name>"``. Tables: :meth:`~TimeSeries.to_pandas`
(columns ``t``, ``replication`` for a simulation, one per state), ``to_xarray``, ``to_csv``.

>>> import numpy as np
>>> ts = TimeSeries(("q1", "q2", "z1_1", "z2_1"), np.array([0.0, 1.0]),
...                 np.arange(8.0).reshape(1, 2, 4), {"eta": 10}, kind="simulation",
...                 events=np.array([3]))
>>> ts.record()["z1"], ts["q2"].tolist()
([[2.0, 6.0]], [1.0, 5.0])
>>> ts.csv_table()[0]
['t', 'replication', 'q1', 'q2', 'z1_1', 'z2_1']
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from symdelay.core.errors import SymdelayInputError
from symdelay.core.result import Result, jsonable

__all__ = ["TimeSeries", "state_keys", "KINDS"]

#: What produced a record: ``"simulation"`` (replications, events), ``"fluid"`` (a fluid
#: limit), ``"dde"`` (a delay-differential equation) or ``"ode"`` (another ODE system).
KINDS = ("simulation", "fluid", "dde", "ode")

#: The record's own keys: a state key equal to one of them is written ``"state:<name>"``.
RECORD_KEYS = frozenset(
    {"model", "symdelay_version", "parameters", "kind", "states", "t", "info", "events"}
    | {"replications"}
)

#: States shown by the one-line summary (the rest are counted).
_SHOWN = 6


def _indexed(name: str):
    """``("z1", 2)`` for ``"z1_2"``; ``None`` when the name has no index ``_<k>``, k >= 1."""
    base, sep, k = name.rpartition("_")
    if not sep or not base or not k.isdigit() or k != str(int(k)) or int(k) < 1:
        return None
    return base, int(k)


def state_keys(states) -> list:
    """The JSON keys of the state paths: ``[(key, index)]`` for a state on its own and
    ``[(base, [indices])]`` for the states ``base_1 .. base_n`` given together (all of
    ``1..n`` present, ``base`` itself not a state name nor a record key).

    >>> state_keys(["q1", "q2", "z1_1", "z1_2", "z2_1", "z2_2"])
    [('q1', 0), ('q2', 1), ('z1', [2, 3]), ('z2', [4, 5])]
    >>> state_keys(["x", "x_1", "events"])
    [('x', 0), ('x_1', 1), ('state:events', 2)]
    """
    names = list(states)
    groups: dict = {}
    for i, s in enumerate(names):
        found = _indexed(s)
        if found is not None:
            groups.setdefault(found[0], {})[found[1]] = i
    whole = {
        base: [idx[k] for k in range(1, len(idx) + 1)]
        for base, idx in groups.items()
        if sorted(idx) == list(range(1, len(idx) + 1))
        and base not in names
        and base not in RECORD_KEYS
    }
    out, done = [], set()
    for i, s in enumerate(names):
        found = _indexed(s)
        if found is not None and found[0] in whole:
            if found[0] not in done:
                out.append((found[0], whole[found[0]]))
                done.add(found[0])
            continue
        out.append((f"state:{s}" if s in RECORD_KEYS else s, i))
    return out


@dataclass(frozen=True, eq=False)
class TimeSeries(Result):
    """Paths of named states on a time grid, whatever produced them.

    Parameters
    ----------
    states : tuple of str
        The state names, in the order of the last axis of ``values``.
    t : numpy.ndarray
        The times, shape ``(n,)``.
    values : numpy.ndarray
        ``values[k, j, i]``: replication ``k`` (one for a deterministic path), time
        ``t[j]``, state ``i``, in the record's scaled units (counts / eta for a
        simulation).
    parameters : dict
        Everything needed to repeat the run (the model's parameters and the run's options:
        ``eta``, ``T``, ``dt``, ``seed``, ``initial``, ...): the JSON's ``"parameters"``.
    kind : str
        One of :data:`KINDS`; a ``"simulation"`` has replications and ``events``.
    model_name : str, optional
        The model's name (the JSON's ``"model"``).
    events : numpy.ndarray, optional
        The number of events of each replication (simulations).
    info : dict
        What only this kind of run knows (the JSON's ``"info"``): the solver and its error
        control, the backend, the transition counts, a steady-state run's estimates, ...
    estimates : tuple of str
        The entries of ``info`` the JSON gives at its top level instead (a steady-state
        run's estimates, where the family's command has named them so since its first
        version: SQ(d)'s ``mean_sojourn, ci95, tail``, LB's ``p_wait, mean_wait, ...``). An
        estimate with an interval (``value``, ``lo``, ``hi``) is written ``name: value``
        and ``name_ci95: [lo, hi]``, in a list of stations too.
    dense : callable, optional
        ``dense(times) -> array (len(times), len(states))``: the continuous solution of a
        deterministic path (the delay-differential model), used by :meth:`at`.
    """

    states: tuple
    t: np.ndarray
    values: np.ndarray
    parameters: dict
    kind: str = "fluid"
    model_name: str | None = None
    events: np.ndarray | None = None
    info: dict = field(default_factory=dict)
    dense: Callable | None = field(default=None, repr=False)
    estimates: tuple = ()

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        v = np.asarray(self.values, dtype=float)
        if v.ndim == 2:
            v = v[None]
        if v.ndim != 3 or v.shape[1:] != (np.size(self.t), len(self.states)):
            raise ValueError(
                f"values must have shape (replications, {np.size(self.t)}, "
                f"{len(self.states)}), got {np.shape(self.values)}"
            )
        object.__setattr__(self, "values", v)
        object.__setattr__(self, "t", np.asarray(self.t, dtype=float))
        object.__setattr__(self, "states", tuple(str(s) for s in self.states))
        if self.events is not None:
            object.__setattr__(self, "events", np.asarray(self.events, dtype=np.int64))

    # -- shape -------------------------------------------------------------------------
    @property
    def replications(self) -> int:
        """The number of replications (1 for a deterministic path)."""
        return self.values.shape[0]

    @property
    def simulated(self) -> bool:
        """True for a simulation (replications, events, the ``replication`` column)."""
        return self.kind == "simulation"

    def _index(self, name: str) -> int:
        if name not in self.states:
            raise KeyError(
                f"no state {name!r}: the states are {', '.join(self.states[:12])}"
                + (" ..." if len(self.states) > 12 else "")
            )
        return self.states.index(name)

    def state(self, name: str) -> np.ndarray:
        """The path of state ``name`` in every replication: shape ``(R, len(t))``."""
        return self.values[:, :, self._index(name)]

    def __getitem__(self, key: str) -> np.ndarray:
        """A state's path by name, or a group ``base`` of states ``base_1 .. base_n`` (the
        JSON's keys) as rows; a simulation of several replications has one more leading
        axis. ``"t"`` is the times; ``"events"`` the number of events simulated (all
        replications; the attribute ``events`` has them one by one)."""
        if key == "t":
            return self.t
        if key == "events" and "events" not in self.states:
            return None if self.events is None else int(self.events.sum())
        for k, idx in state_keys(self.states):
            if k == key and isinstance(idx, list):
                out = np.moveaxis(self.values[:, :, idx], 2, 1)
                return out[0] if self.replications == 1 else out
        out = self.state(key)
        return out[0] if self.replications == 1 else out

    def replication(self, k: int) -> TimeSeries:
        """Replication ``k`` alone (a record with one replication)."""
        if not -self.replications <= k < self.replications:
            raise SymdelayInputError(
                f"replication {k} does not exist: there are {self.replications}"
            )
        k = k % self.replications
        return dataclasses.replace(
            self,
            values=self.values[k : k + 1],
            events=None if self.events is None else self.events[k : k + 1],
            dense=self.dense if self.replications == 1 else None,
        )

    def at(self, times) -> np.ndarray:
        """The continuous solution at ``times`` (``len(times) x states``); only a record
        that carries one (the delay-differential model's method of steps)."""
        if self.dense is None:
            raise SymdelayInputError(
                "this record has no continuous solution: read its grid values (values, "
                "[name]) or integrate the delay-differential model with solver='steps'"
            )
        return np.asarray(self.dense(np.atleast_1d(np.asarray(times, dtype=float))))

    # -- records -------------------------------------------------------------------------
    def _paths(self, k: int) -> dict:
        v = self.values[k]
        return {
            key: (v[:, idx].T.tolist() if isinstance(idx, list) else v[:, idx].tolist())
            for key, idx in state_keys(self.states)
        }

    def record(self) -> dict:
        info = dict(self.info)
        top = {}
        for name in self.estimates:
            top.update(_estimate(name, info.pop(name)))
        out = {
            "parameters": jsonable(self.parameters),
            "kind": self.kind,
            "states": list(self.states),
            "t": self.t.tolist(),
            "info": jsonable(info),
            **jsonable(top),
        }
        if self.replications == 1:
            if self.events is not None:
                out["events"] = int(self.events[0])
            return {**out, **self._paths(0)}
        out["events"] = int(self.events.sum()) if self.events is not None else None
        out["replications"] = [
            {
                **({} if self.events is None else {"events": int(self.events[k])}),
                "t": out["t"],
                **self._paths(k),
            }
            for k in range(self.replications)
        ]
        return out

    def csv_table(self) -> tuple[list, np.ndarray, list]:
        """``(header, rows, formats)`` of the table :meth:`to_pandas` gives: one row per
        time (and replication), columns ``t``, ``replication`` (a simulation) and the
        states. ``"%.17g"`` marks a number written as its shortest round-trip text."""
        R, n, d = self.values.shape
        cols = [np.tile(self.t, R)[:, None]]
        header, fmt = ["t"], ["%.17g"]
        if self.simulated:
            cols.append(np.repeat(np.arange(R), n)[:, None])
            header.append("replication")
            fmt.append("%d")
        cols.append(self.values.reshape(R * n, d))
        return header + list(self.states), np.hstack(cols), fmt + ["%.17g"] * d

    def to_csv(self, path=None, *, command: str | None = None) -> str | None:
        """The table as CSV: a ``# symdelay <version> <command>; parameters: <JSON>`` line
        (``command`` default: the kind), the header, the rows (numbers as their shortest
        round-trip text). Written to ``path`` (a file name or an open text file); ``None``
        returns it."""
        import json

        from symdelay.core.version import __version__

        params = json.dumps(jsonable(self.parameters))
        header, rows, fmt = self.csv_table()
        lines = [f"# symdelay {__version__} {command or self.kind}; parameters: {params}"]
        lines += [",".join(header)] + [",".join(map(_cell, fmt, row)) for row in rows]
        text = "\n".join(lines) + "\n"
        if path is None:
            return text
        if hasattr(path, "write"):
            return path.write(text) and None
        try:
            with open(path, "w", newline="") as fh:
                fh.write(text)
        except OSError as exc:
            raise SymdelayInputError(f"cannot write {path}: {exc.strerror}") from None
        return None

    def to_pandas(self):
        """A ``pandas.DataFrame``: one row per time (and replication), columns ``t``,
        ``replication`` (a simulation) and one per state, in the record's scaled units.
        pandas is installed with symdelay's ``sweep`` extra."""
        try:
            import pandas as pd
        except ImportError:
            raise SymdelayInputError(
                "to_pandas needs pandas: pip install 'symdelay[sweep]' (or pandas)"
            ) from None
        header, rows, _ = self.csv_table()
        frame = pd.DataFrame(rows, columns=header)
        if self.simulated:
            frame["replication"] = frame["replication"].astype(np.int64)
        return frame

    def to_xarray(self):
        """An ``xarray.Dataset``: one variable per state over ``(replication, t)`` (a
        simulation) or ``(t,)``, the parameters and ``kind`` as attributes. xarray is
        installed with symdelay's ``sweep`` extra."""
        try:
            import xarray as xr
        except ImportError:
            raise SymdelayInputError(
                "to_xarray needs xarray: pip install 'symdelay[sweep]' (or xarray)"
            ) from None
        attrs = {"kind": self.kind, "model": str(self.model_name)}
        attrs.update({str(k): str(v) for k, v in jsonable(self.parameters).items()})
        if self.simulated:
            coords = {"replication": np.arange(self.replications), "t": self.t}
            data = {
                s: (("replication", "t"), self.values[:, :, i]) for i, s in enumerate(self.states)
            }
        else:
            coords = {"t": self.t}
            data = {s: (("t",), self.values[0, :, i]) for i, s in enumerate(self.states)}
        return xr.Dataset(data, coords=coords, attrs=attrs)

    # -- display ---------------------------------------------------------------------------
    def _end(self) -> str:
        """The states at the last time (the mean and the standard deviation over the
        replications of a simulation)."""
        last = self.values[:, -1, :]
        end = last.mean(axis=0)
        sd = last.std(axis=0, ddof=1) if self.replications > 1 else None
        shown = [
            f"{s}={v:.6g}" + ("" if sd is None else f" (sd {sd[i]:.3g})")
            for i, (s, v) in enumerate(zip(self.states[:_SHOWN], end[:_SHOWN]))
        ]
        more = len(self.states) - _SHOWN
        return ", ".join(shown) + (f", ... ({more} more states)" if more > 0 else "")

    def summary(self) -> str:
        """One line: what ran and the state at its end (the commands' text output)."""
        what = self.model_name or "the model"
        at = f"at t={self.t[-1]:g}"
        if self.simulated:
            R = self.replications
            seed = self.parameters.get("seed")
            events = "" if self.events is None else f", {int(self.events.sum())} events"
            head = f"simulated {R} path(s) of {what}" + ("" if seed is None else f" (seed {seed})")
            mean = f", mean and standard deviation over the {R} replications" if R > 1 else ""
            return f"{head}{events}; {at}{mean}: {self._end()} (use --json or --csv)"
        solver = self.info.get("solver")
        how = ""
        if isinstance(solver, dict) and "method" in solver:
            tol = ", ".join(f"{k}={solver[k]}" for k in ("rtol", "atol", "h") if k in solver)
            how = f" ({solver['method']}" + (f", {tol}" if tol else "") + ")"
        return (
            f"{self.kind} path of {what}{how} on {self.t.size} grid points; {at}: "
            f"{self._end()} (use --json or --csv)"
        )

    def table(self):
        """The state at the last time, per replication (the notebook's table)."""
        rows = [[k, *(f"{v:.6g}" for v in p[-1])] for k, p in enumerate(self.values)]
        return ["replication", *self.states], rows, f"{self.model_name}, t = {self.t[-1]:g}"

    def __repr__(self) -> str:
        R = f", {self.replications} replications" if self.replications > 1 else ""
        return (
            f"TimeSeries({self.kind}, {self.model_name!r}, states {len(self.states)}, "
            f"{self.t.size} times{R})"
        )


def _cell(fmt: str, value) -> str:
    # "%.17g" prints 0.59999999999999998 for 0.6: the shortest round-trip repr instead
    return repr(float(value)).removesuffix(".0") if fmt == "%.17g" else fmt % value


def _estimate(name: str, v) -> dict:
    """``{name: value, name_ci95: [lo, hi]}`` for an estimate with an interval (in a list of
    dicts too: one station each), ``{name: v}`` otherwise."""
    if all(hasattr(v, a) for a in ("value", "lo", "hi")):
        return {name: v.value, f"{name}_ci95": [v.lo, v.hi]}
    if isinstance(v, list | tuple) and v and all(isinstance(e, dict) for e in v):
        rows = [{k: x for key, e in row.items() for k, x in _estimate(key, e).items()} for row in v]
        return {name: rows}
    return {name: v}
