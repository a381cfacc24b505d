"""Models from TOML files, parsed with the safe expression parser (no code is executed).

Schema (keys beyond these are refused, so a typo does not pass silently)::

    name = "two queues, logit routing, Erlang(2) action delay"
    description = "..."            # optional
    [parameters]                   # "positive" | "nonnegative" | "real" | "probability"
    mu = "positive"
    [values]                       # optional: numbers for some parameters
    mu = 1
    [state]
    names = ["q1", "q2", ...]
    [[transitions]]
    name = "arrival to 1"
    change = { z11 = 1 }
    rate = "2*lam*exp(-theta*q1)/(exp(-theta*q1) + exp(-theta*q2))"
    assume_nonnegative = true      # optional: the rate is >= 0 where symdelay cannot decide it
    lag = "tau"                    # optional: an action delay (the jump after this lag)
    [lags]                         # optional: lags read by delayed(EXPR, LAG) and lag = ...
    tau = { kind = "constant", value = "D" }
    [symmetry]                     # optional: a permutation of the state, as cycles
    swap = [["q1", "q2"], ["z11", "z21"]]
    [latex]                        # optional: LaTeX for names, e.g. z11 = "z_{1,1}"

Every error names the file and the entry. The same format as a JSON Schema, for editors:
:func:`schema_path`.
"""

from __future__ import annotations

import decimal
import os
import stat
import tomllib
from pathlib import Path

from symdelay.core.errors import SymdelayInputError

__all__ = ["model_arguments", "read_model_file", "read_text_file", "schema_path"]

_TOP = {
    "name",
    "description",
    "parameters",
    "values",
    "state",
    "transitions",
    "symmetry",
    "latex",
    "lags",
}
_TRANSITION_KEYS = ("name", "change", "rate", "assume_nonnegative", "lag")


def schema_path() -> Path:
    """The JSON Schema (draft 2020-12) of a model file, shipped in the package: editors that
    read JSON Schema for TOML (taplo, Even Better TOML) check a model file against it.

    Returns
    -------
    pathlib.Path
        The file ``symdelay/data/model-file.schema.json``.

    >>> schema_path().name
    'model-file.schema.json'
    """
    return Path(__file__).resolve().parent.parent / "data" / "model-file.schema.json"


#: Largest model file read (bytes): a transition table is a few kilobytes.
MAX_FILE_BYTES = 1_000_000


def read_text_file(path, what: str = "model file", max_bytes: int = MAX_FILE_BYTES) -> str:
    """The text of a data file (a model file, a sweep spec): a regular file, at most
    ``max_bytes``, UTF-8; every refusal is one line naming ``what`` it should be.

    The file is opened without blocking and checked on the open descriptor, so a FIFO or a
    device put in its place is refused, not waited on or read without end.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise SymdelayInputError(f"{path}: no such {what}") from None
    except (OSError, ValueError, TypeError) as exc:
        raise SymdelayInputError(
            f"{path}: cannot read the {what} ({_reason(exc)}); give a TOML file"
        ) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
        raise SymdelayInputError(f"{path}: {kind}: give a {what} (TOML)")
    if info.st_size > max_bytes:
        os.close(fd)
        raise SymdelayInputError(
            f"{path}: the {what} has {info.st_size} bytes, more than the "
            f"{max_bytes} allowed: a transition table is a few kilobytes"
        )
    with os.fdopen(fd, "rb") as fh:
        try:
            raw = fh.read(max_bytes + 1)
        except OSError as exc:
            raise SymdelayInputError(
                f"{path}: cannot read the {what} ({_reason(exc)}); give a TOML file"
            ) from None
    if len(raw) > max_bytes:  # grew since fstat, or a file that lies about its size
        raise SymdelayInputError(f"{path}: the {what} is larger than the {max_bytes} bytes allowed")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise SymdelayInputError(
            f"{path}: not UTF-8 text (byte {exc.start + 1}, line {line}): save the {what} as UTF-8"
        ) from None


def _reason(exc: BaseException) -> str:
    return getattr(exc, "strerror", None) or type(exc).__name__


def read_model_file(path, values: dict | None = None) -> dict:
    """The arguments of :class:`~symdelay.model.core.Model` that a model file states (read,
    parsed and checked as :func:`symdelay.load_toml` says; ``values`` override its
    ``[values]``)."""
    text = read_text_file(path)
    try:
        # floats as Decimal: the exact decimal written in the file, never a binary float
        data = tomllib.loads(text, parse_float=decimal.Decimal)
    except tomllib.TOMLDecodeError as exc:
        raise SymdelayInputError(f"{path}: not valid TOML ({' '.join(str(exc).split())})") from None
    except RecursionError:
        raise SymdelayInputError(f"{path}: not valid TOML (nested too deeply)") from None
    except ValueError as exc:  # e.g. an integer of more than 4300 digits
        raise SymdelayInputError(
            f"{path}: not valid TOML ({' '.join(str(exc).split())[:200]})"
        ) from None
    return model_arguments(data, source=str(path), values=values)


def _need(data: dict, key: str, kind, where: str):
    if key not in data:
        raise SymdelayInputError(f"{where}: missing key '{key}'")
    val = data[key]
    if not isinstance(val, kind):
        raise SymdelayInputError(f"{where}: '{key}' must be a {kind.__name__}")
    return val


def model_arguments(data: dict, *, source: str = "model", values: dict | None = None) -> dict:
    """The arguments of :class:`~symdelay.model.core.Model` stated by parsed TOML tables."""
    unknown = sorted(set(data) - _TOP)
    if unknown:
        raise SymdelayInputError(
            f"{source}: unknown key '{unknown[0]}': use " + ", ".join(sorted(_TOP))
        )
    name = _need(data, "name", str, source)
    params = _need(data, "parameters", dict, source)
    state = _need(data, "state", dict, source)
    names = _need(state, "names", list, f"{source}: [state]")
    if set(state) != {"names"}:
        extra = sorted(set(state) - {"names"})[0]
        raise SymdelayInputError(f"{source}: [state] unknown key '{extra}': use names")
    if not all(isinstance(n, str) for n in names):
        raise SymdelayInputError(f"{source}: [state] names must be strings")
    raw = _need(data, "transitions", list, source)
    transitions, assumed = [], []
    for k, t in enumerate(raw, start=1):
        where = f"{source}: transition {k}"
        if not isinstance(t, dict):
            raise SymdelayInputError(f"{where}: must be a [[transitions]] table")
        extra = sorted(set(t) - set(_TRANSITION_KEYS))
        if extra:
            raise SymdelayInputError(
                f"{where}: unknown key '{extra[0]}': use " + ", ".join(_TRANSITION_KEYS)
            )
        tname = t.get("name", f"transition {k}")
        if not isinstance(tname, str):
            raise SymdelayInputError(f"{where}: 'name' must be a string")
        where = f"{source}: transition '{tname}'"
        change = _need(t, "change", dict, where)
        rate = t.get("rate")
        if rate is None:
            raise SymdelayInputError(f"{where}: missing key 'rate'")
        if not isinstance(rate, (str, int, float, decimal.Decimal)) or isinstance(rate, bool):
            raise SymdelayInputError(f"{where}: 'rate' must be a formula in quotes")
        lag = t.get("lag")
        if lag is not None and not isinstance(lag, str):
            raise SymdelayInputError(
                f"{where}: 'lag' must be a string: the name of a lag in [lags]"
            )
        transitions.append((tname, change, str(rate), lag) if lag else (tname, change, str(rate)))
        asserted = t.get("assume_nonnegative", False)
        if not isinstance(asserted, bool):
            raise SymdelayInputError(f"{where}: assume_nonnegative must be true or false")
        if asserted:
            assumed.append(str(tname))
    symmetry = None
    if "symmetry" in data:
        sym = data["symmetry"]
        if not isinstance(sym, dict) or set(sym) != {"swap"}:
            raise SymdelayInputError(f"{source}: [symmetry] must hold one key, swap")
        symmetry = sym["swap"]
        if not isinstance(symmetry, list):
            raise SymdelayInputError(f"{source}: [symmetry] swap must be a list of cycles")
    file_values = data.get("values", {})
    if not isinstance(file_values, dict):
        raise SymdelayInputError(f"{source}: [values] must map parameter names to numbers")
    vals = dict(file_values)
    vals.update(values or {})
    latex = data.get("latex", {})
    if not isinstance(latex, dict) or not all(isinstance(v, str) for v in latex.values()):
        raise SymdelayInputError(f"{source}: [latex] must map names to LaTeX strings")
    lags = data.get("lags")
    if lags is not None and not isinstance(lags, dict):
        raise SymdelayInputError(f"{source}: [lags] must map lag names to tables")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise SymdelayInputError(f"{source}: 'description' must be a string")
    import sympy as sp

    from symdelay.core.symbols import SYMBOLS

    return {
        "name": name,
        "states": names,
        "parameters": params,
        "transitions": transitions,
        "symmetry": symmetry,
        "values": vals,
        "description": description,
        "latex_names": {SYMBOLS.get(k, sp.Symbol(k)): str(v) for k, v in latex.items()},
        "source": source,
        "assume_nonnegative": assumed,
        "lags": lags,
    }
