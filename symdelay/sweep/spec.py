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

A parameter whose name ends in ``_file`` or ``_path`` (``model_file``) is a path: relative to
the spec's folder (a dict: the current folder), and refused when it leads outside that
folder (symbolic links followed) unless its folder is allowed where the sweep is started
(``--allow-path DIR``, ``allow_paths=``). The file must exist; the hash covers its content.

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
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from symdelay.core.errors import SymdelayInputError
from symdelay.sweep.analyses import AnalysisInfo, analysis_info
from symdelay.sweep.grid import Axis, parse_grid

__all__ = ["Spec", "load_spec", "as_spec", "task_seed", "is_path_parameter", "allowed_folders"]

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


#: Parameters named so are paths (see the module docstring).
PATH_SUFFIXES = ("_file", "_path")


def is_path_parameter(name: str) -> bool:
    """Is the parameter ``name`` a path (resolved against the spec's folder)?"""
    return str(name).endswith(PATH_SUFFIXES)


def allowed_folders(folders) -> tuple[Path, ...]:
    """The folders a spec's paths may lead to besides its own (``--allow-path``), resolved;
    one line for a folder that does not exist."""
    if folders is None:
        return ()
    if isinstance(folders, str | os.PathLike):
        folders = [folders]
    out = []
    for f in folders:
        text = os.fspath(f) if isinstance(f, str | os.PathLike) else None
        if not text or not text.strip() or "\x00" in text:
            raise SymdelayInputError(f"--allow-path {f!r}: give a folder")
        try:
            real = Path(text).resolve(strict=True)
        except (OSError, RuntimeError):
            real = None
        if real is None or not real.is_dir():
            raise SymdelayInputError(f"--allow-path {text}: no such folder")
        out.append(real)
    return tuple(out)


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _resolve_path(name: str, text, base: Path, allowed: tuple, where: str) -> Path:
    """The file a path parameter names: inside ``base`` or an allowed folder, regular."""
    if not isinstance(text, str) or not text.strip() or "\x00" in text:
        raise SymdelayInputError(f"{where}: {name} = {text!r}: give a file name (text)")
    given = Path(text)
    path = given if given.is_absolute() else base / given
    try:
        real = path.resolve(strict=True)
    except FileNotFoundError:
        raise SymdelayInputError(
            f"{where}: {name} = {text!r}: no such file ({path}); paths in a spec are relative "
            "to its folder"
        ) from None
    except (OSError, RuntimeError) as exc:  # a loop of links, a name too long
        reason = getattr(exc, "strerror", None) or type(exc).__name__
        raise SymdelayInputError(f"{where}: {name} = {text!r}: {reason}") from None
    roots = (base.resolve(), *allowed)
    if not any(real.is_relative_to(r) for r in roots):
        raise SymdelayInputError(
            f"{where}: {name} = {text!r} leads outside the spec's folder ({roots[0]}): move "
            f"the file there, or allow its folder where you start the sweep (--allow-path "
            f"{real.parent})"
        )
    if not real.is_file():
        raise SymdelayInputError(f"{where}: {name} = {text!r}: not a regular file")
    return real


def _paths(fixed: dict, axes, base: Path, allowed: tuple, where: str) -> dict:
    """``{text: resolved path}`` of every path parameter's value."""
    out: dict = {}
    values = [(k, v) for k, v in fixed.items()]
    values += [(n, v[i]) for a in axes for i, n in enumerate(a.names) for v in a.values]
    for name, text in values:
        if not is_path_parameter(name):
            continue
        if not isinstance(text, str):
            raise SymdelayInputError(f"{where}: {name} = {text!r}: give a file name (text)")
        if text not in out:
            out[text] = _resolve_path(name, text, base, allowed, where)
    return out


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
    #: the path parameters' values as written -> the files they name (absolute)
    files: dict = field(default_factory=dict, compare=False, repr=False)

    # ------------------------------------------------------------------ building
    @classmethod
    def from_dict(
        cls,
        data: dict,
        *,
        where: str = "the spec",
        allow_python=None,
        force: bool = False,
        base=None,
        allow_paths=None,
    ) -> Spec:
        """Check a spec given as a dict (the parsed TOML).

        ``allow_python``: ``"module:function"`` names (one, or a list) the spec may name as
        its analysis besides the registered ones; ``force``: accept a grid over the budget;
        ``base``: the folder its paths are relative to and must stay in (default: the
        current folder); ``allow_paths``: other folders they may lead to.
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
        base = Path.cwd() if base is None else Path(base)
        files = _paths(fixed, axes, base, allowed_folders(allow_paths), where)
        spec = cls(
            analysis=name,
            parameters=fixed,
            axes=axes,
            replications=replications,
            seed=_check_int("seed", data.get("seed", 0), 0),
            name=str(data.get("name", "")),
            description=str(data.get("description", "")),
            info=info,
            files=files,
        )
        return spec

    @classmethod
    def from_toml(cls, path, *, allow_python=None, force: bool = False, allow_paths=None) -> Spec:
        """Read and check a spec file; its paths are relative to its folder
        (``allow_python``, ``force``, ``allow_paths``: see :meth:`from_dict`)."""
        from symdelay.model.toml_loader import read_text_file

        text = read_text_file(path, "sweep spec")
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise SymdelayInputError(
                f"{path} is not valid TOML: {' '.join(str(exc).split())}"
            ) from None
        except (RecursionError, ValueError) as exc:  # nested too deeply, a huge integer
            reason = " ".join(str(exc).split())[:200] or "nested too deeply"
            raise SymdelayInputError(f"{path} is not valid TOML: {reason}") from None
        return cls.from_dict(
            data,
            where=str(path),
            allow_python=allow_python,
            force=force,
            base=Path(path).parent,
            allow_paths=allow_paths,
        )

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
        out = {**self.parameters, **self.point(k // self.replications)}
        for name, value in out.items():
            if is_path_parameter(name) and value in self.files:
                out[name] = str(self.files[value])
        return out

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
        out = {
            "analysis": target,
            "parameters": self.parameters,
            "axes": [a.to_json() for a in self.axes],
            "replications": self.replications,
            "seed": self.seed,
        }
        if self.files:  # a file's content determines the results, not where it lies
            out["files"] = {text: _digest(path) for text, path in sorted(self.files.items())}
        return out

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


def load_spec(path, *, allow_python=None, force: bool = False, allow_paths=None) -> Spec:
    """Read a sweep spec from a TOML file (see :class:`Spec` and :meth:`Spec.from_dict`)."""
    return Spec.from_toml(path, allow_python=allow_python, force=force, allow_paths=allow_paths)


def as_spec(spec, *, allow_python=None, force: bool = False, allow_paths=None) -> Spec:
    """A :class:`Spec` from a Spec, a dict or the path of a TOML file (``allow_python``,
    ``force``, ``allow_paths``: see :meth:`Spec.from_dict`). A Spec built by hand, without
    its analysis looked up, is checked again like a dict."""
    kw = {"allow_python": allow_python, "force": force, "allow_paths": allow_paths}
    if isinstance(spec, Spec):
        if spec.info is not None:
            return spec
        return Spec.from_dict(spec.to_json(), **kw)
    if isinstance(spec, dict):
        return Spec.from_dict(spec, **kw)
    if isinstance(spec, str | Path):
        return Spec.from_toml(spec, **kw)
    raise SymdelayInputError(f"a sweep spec is a path, a dict or a Spec, got {type(spec).__name__}")
