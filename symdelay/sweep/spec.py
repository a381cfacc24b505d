"""A sweep is a file: the analysis, the grid, replications and a base seed.

A spec is a TOML file (or the same as a dict)::

    name = "stability map"          # free text, not part of the hash
    analysis = "roots"              # a registered name (see symdelay.sweep.ANALYSES)
    seed = 2024                     # base seed (default 0)
    replications = 1                # tasks per grid point (default 1)

    [parameters]                    # the same for every task
    L = 2
    mu = 1
    lam = 1

    [grid]                          # one axis per key; the grid is their product
    theta = {start = 0.5, stop = 10, num = 20}
    D = {start = 0.1, stop = 10, num = 15, log = true}

A spec is data: it never executes code. ``analysis`` names a registered analysis; a
``"package.module:function"`` of the user's own runs only when allowed by exactly that name
where the sweep is started (``--allow-python``, ``allow_python=``), never from the file.
The grid is sized before any value is made, and a sweep of more than
:data:`~symdelay.sweep.grid.MAX_TASKS` tasks is refused unless forced (``--force``).

``[[grid]]`` tables instead of ``[grid]`` give one axis per table, the keys of a table
zipped (advanced together). Task ``k`` is grid point ``k // replications``, replication
``k % replications``; its seed is the ``k``-th child of ``numpy.random.SeedSequence(seed)``
(:func:`task_seed`), so results never depend on which worker ran what, or when.

The hash (:attr:`Spec.hash`) covers what determines the results: the analysis, the
parameters, the expanded grid, the replications and the seed.

>>> s = Spec.from_dict({"analysis": "stability", "parameters": {"L": 2, "mu": 1, "lam": 1},
...                     "grid": {"theta": [1, 2], "D": [1, 2, 4]}})
>>> len(s), s.task(4)
(6, {'L': 2, 'mu': 1, 'lam': 1, 'theta': 2, 'D': 2})
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from symdelay.core.errors import SymdelayInputError
from symdelay.sweep.analyses import AnalysisInfo, analysis_info
from symdelay.sweep.grid import Axis, parse_grid

__all__ = ["Spec", "load_spec", "as_spec", "task_seed"]

_TOP_KEYS = {"name", "description", "analysis", "seed", "replications", "parameters", "grid"}


def task_seed(base_seed: int, task: int) -> int:
    """The seed of task ``task``: from the ``task``-th child of ``SeedSequence(base_seed)``
    (the same child ``SeedSequence(base_seed).spawn(n)[task]`` gives), as a 63-bit integer
    that ``symdelay simulate --seed`` accepts.

    >>> ss = np.random.SeedSequence(7).spawn(3)[2]
    >>> task_seed(7, 2) == int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1))
    True
    """
    child = np.random.SeedSequence(base_seed, spawn_key=(task,))
    return int(child.generate_state(1, np.uint64)[0] >> np.uint64(1))


def _check_int(name: str, value, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise SymdelayInputError(f"{name} must be an integer >= {low}, got {value!r}")
    return value


def _check_fixed(parameters) -> dict:
    if parameters is None:
        return {}
    if not isinstance(parameters, dict):
        raise SymdelayInputError("[parameters] must be a table of name = value")
    for k, v in parameters.items():
        if isinstance(v, bool | dict) or (isinstance(v, float) and math.isnan(v)):
            raise SymdelayInputError(f"parameter '{k}' = {v!r}: give a number or text")
    return dict(parameters)


@dataclass(frozen=True)
class Spec:
    """A parsed, checked sweep spec (see the module docstring for the file format)."""

    analysis: str
    parameters: dict
    axes: tuple[Axis, ...]
    replications: int = 1
    seed: int = 0
    name: str = ""
    description: str = ""
    info: AnalysisInfo = field(default=None, compare=False, repr=False)

    # ------------------------------------------------------------------ building
    @classmethod
    def from_dict(
        cls, data: dict, *, where: str = "the spec", allow_python=None, force: bool = False
    ) -> Spec:
        """Check a spec given as a dict (the parsed TOML).

        ``allow_python``: ``"module:function"`` names (one, or a list) the spec may name as
        its analysis besides the registered ones; ``force``: accept a grid over the budget.
        """
        if not isinstance(data, dict):
            raise SymdelayInputError(f"{where} must be a table")
        unknown = sorted(set(data) - _TOP_KEYS)
        if unknown:
            raise SymdelayInputError(
                f"{where}: unknown key(s) {unknown}; a spec has " + ", ".join(sorted(_TOP_KEYS))
            )
        if "analysis" not in data:
            raise SymdelayInputError(f'{where} has no analysis: add analysis = "roots" (say)')
        name = data["analysis"]
        if not isinstance(name, str):
            raise SymdelayInputError(f"analysis must be a name, got {name!r}")
        info = analysis_info(name, allow_python=allow_python)
        fixed = _check_fixed(data.get("parameters"))
        replications = _check_int("replications", data.get("replications", 1), 1)
        axes = parse_grid(data.get("grid"), replications=replications, force=bool(force))
        grid_names = [n for a in axes for n in a.names]
        both = sorted(set(grid_names) & set(fixed))
        if both:
            raise SymdelayInputError(
                f"parameter(s) {both} are both fixed and on the grid: keep one"
            )
        info.check_parameters([*fixed, *grid_names])
        spec = cls(
            analysis=name,
            parameters=fixed,
            axes=axes,
            replications=replications,
            seed=_check_int("seed", data.get("seed", 0), 0),
            name=str(data.get("name", "")),
            description=str(data.get("description", "")),
            info=info,
        )
        return spec

    @classmethod
    def from_toml(cls, path, *, allow_python=None, force: bool = False) -> Spec:
        """Read and check a spec file (``allow_python``, ``force``: see :meth:`from_dict`)."""
        p = Path(path)
        try:
            text = p.read_text()
        except OSError as exc:
            raise SymdelayInputError(f"cannot read sweep spec {path}: {exc.strerror}") from None
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise SymdelayInputError(f"{path} is not valid TOML: {exc}") from None
        return cls.from_dict(data, where=str(path), allow_python=allow_python, force=force)

    # ------------------------------------------------------------------- tasks
    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(len(a) for a in self.axes)

    @property
    def points(self) -> int:
        return math.prod(self.shape)

    def __len__(self) -> int:
        return self.points * self.replications

    @property
    def grid_names(self) -> tuple[str, ...]:
        return tuple(n for a in self.axes for n in a.names)

    @property
    def seeded(self) -> bool:
        """Does the analysis take a seed (then every task gets its own)?"""
        return self.info.seeded

    def point(self, index: int) -> dict:
        """The grid values of point ``index`` (C order: the last axis varies fastest)."""
        out = {}
        for axis, i in zip(self.axes, np.unravel_index(index, self.shape)):
            out.update(zip(axis.names, axis.values[int(i)]))
        return out

    def task(self, k: int) -> dict:
        """Every keyword argument of task ``k`` except the seed."""
        if not 0 <= k < len(self):
            raise IndexError(k)
        return {**self.parameters, **self.point(k // self.replications)}

    def replication(self, k: int) -> int:
        return k % self.replications

    def seed_of(self, k: int) -> int | None:
        return task_seed(self.seed, k) if self.seeded else None

    # -------------------------------------------------------------------- hash
    def canonical(self) -> dict:
        """What determines the results (the hash is of this, as sorted JSON)."""
        target = self.info.target if self.info else self.analysis
        if callable(target):  # a registered function: by its importable name
            target = f"{getattr(target, '__module__', '?')}:{getattr(target, '__qualname__', '?')}"
        return {
            "analysis": target,
            "parameters": self.parameters,
            "axes": [a.to_json() for a in self.axes],
            "replications": self.replications,
            "seed": self.seed,
        }

    @functools.cached_property  # the JSON of the whole grid: made once, not per task
    def hash(self) -> str:
        text = json.dumps(self.canonical(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def to_json(self) -> dict:
        """The spec as stored with the results (re-readable by :meth:`from_dict`)."""
        grid = [{n: [v[i] for v in a.values] for i, n in enumerate(a.names)} for a in self.axes]
        return {
            "name": self.name,
            "description": self.description,
            "analysis": self.analysis,
            "seed": self.seed,
            "replications": self.replications,
            "parameters": self.parameters,
            "grid": grid,
        }


def load_spec(path, *, allow_python=None, force: bool = False) -> Spec:
    """Read a sweep spec from a TOML file (see :class:`Spec` and :meth:`Spec.from_dict`)."""
    return Spec.from_toml(path, allow_python=allow_python, force=force)


def as_spec(spec, *, allow_python=None, force: bool = False) -> Spec:
    """A :class:`Spec` from a Spec, a dict or the path of a TOML file (``allow_python``,
    ``force``: see :meth:`Spec.from_dict`). A Spec built by hand, without its analysis
    looked up, is checked again like a dict."""
    if isinstance(spec, Spec):
        if spec.info is not None:
            return spec
        return Spec.from_dict(spec.to_json(), allow_python=allow_python, force=force)
    if isinstance(spec, dict):
        return Spec.from_dict(spec, allow_python=allow_python, force=force)
    if isinstance(spec, str | Path):
        return Spec.from_toml(spec, allow_python=allow_python, force=force)
    raise SymdelayInputError(f"a sweep spec is a path, a dict or a Spec, got {type(spec).__name__}")
