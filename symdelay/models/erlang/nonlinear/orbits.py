"""Periodic orbits as records: one limit cycle with its Floquet multipliers, a family of
them along theta, and the theta lists the cycle commands take."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from symdelay.core.errors import SymdelayInputError
from symdelay.core.params import INFINITE_L, as_positive_number

__all__ = ["LimitCycle", "CycleFamily", "ShootingError", "parse_theta_list"]


class ShootingError(SymdelayInputError):
    """Newton--shooting did not converge (the message says what was tried)."""


@dataclass
class LimitCycle:
    """One periodic orbit: amplitude of ``x`` (half its peak-to-peak), period, Floquet
    multipliers (sorted by modulus, the trivial one included), stability, and the orbit
    sampled over one period (``t``, ``y``: rows are states)."""

    theta: float
    amplitude_x: float
    period: float
    multipliers: np.ndarray
    stable: bool
    method: str
    y0: np.ndarray
    t: np.ndarray
    y: np.ndarray
    newton_steps: int
    residual: float
    trivial_error: float
    system: str = ""
    theta_text: str | None = None

    @property
    def x(self) -> np.ndarray:
        return self.y[0] if self.y.ndim == 2 else self.y

    def to_json(self) -> dict:
        return {
            "theta": self.theta_text if self.theta_text is not None else repr(self.theta),
            "amplitude_x": _fmt(self.amplitude_x),
            "period": _fmt(self.period),
            "floquet_multipliers": [
                {"re": _fmt(m.real), "im": _fmt(m.imag), "abs": _fmt(abs(m))}
                for m in self.multipliers
            ],
            "stable": bool(self.stable),
            "method": self.method,
            "system": self.system,
            "trivial_multiplier_error": _fmt(self.trivial_error),
            "newton_residual": _fmt(self.residual),
        }

    def _repr_latex_(self) -> str:
        mu = max((abs(m) for m in _nontrivial(self.multipliers)), default=0.0)
        return (
            rf"$\theta = {self.theta:g}:\ A_x = {self.amplitude_x:.10g},\ T = {self.period:.10g},"
            rf"\ \max|\rho| = {mu:.4g}\ (\text{{{'stable' if self.stable else 'unstable'}}})$"
        )

    def plot(self):
        from symdelay.core.display import draw

        return draw(self)


@dataclass
class CycleFamily:
    """A continuation in theta: the cycles at the requested values (``points``) and every
    cycle the path computed (``path``)."""

    L: object
    theta_c: float
    points: list
    path: list = field(default_factory=list)
    normal_form: object = None

    def arrays(self):
        """``(theta, amplitude_x, period, max |non-trivial multiplier|)`` over the path."""
        cs = self.path or self.points
        th = np.array([c.theta for c in cs])
        return (
            th,
            np.array([c.amplitude_x for c in cs]),
            np.array([c.period for c in cs]),
            np.array([max(abs(m) for m in _nontrivial(c.multipliers)) for c in cs]),
        )

    def to_json(self) -> dict:
        return {
            "L": "inf" if self.L is INFINITE_L else self.L,
            "theta_c": _fmt(self.theta_c),
            "points": [c.to_json() for c in self.points],
        }

    def _repr_latex_(self) -> str:
        rows = r"\\ ".join(
            rf"{c.theta:g} & {c.amplitude_x:.8g} & {c.period:.8g}" for c in self.points
        )
        return r"$\begin{array}{rrr}\theta & A_x & T\\ \hline " + rows + r"\end{array}$"

    def plot(self):
        from symdelay.core.display import draw

        return draw(self)


def _fmt(v) -> str:
    return repr(float(v))


def _nontrivial(mults):
    mults = np.asarray(mults)
    if mults.size == 0:
        return mults
    k = int(np.argmin(np.abs(mults - 1)))
    return np.delete(mults, k)


def parse_theta_list(theta) -> list[tuple[float, str]]:
    """``theta``: a number, a list, ``"a,b,c"`` or a range ``"start:stop:count"`` (count
    values, evenly spaced, ends included); returns ``(value, text)`` pairs."""
    if isinstance(theta, str):
        text = theta.strip()
        if text.count(":") == 2:
            a, b, k = (s.strip() for s in text.split(":"))
            try:
                start, stop, count = float(a), float(b), int(k)
            except ValueError:
                raise SymdelayInputError(
                    f"--theta range must be start:stop:count (numbers, count an integer), "
                    f"got '{theta}'"
                ) from None
            if count < 1 or not (np.isfinite(start) and np.isfinite(stop)):
                raise SymdelayInputError(f"--theta range needs finite ends and count >= 1: {theta}")
            vals = np.linspace(start, stop, count)
            return [(float(v), repr(float(v))) for v in vals]
        items = [s.strip() for s in text.split(",")]
    elif isinstance(theta, (list, tuple, np.ndarray)):
        items = list(theta)
    else:
        items = [theta]
    if not items or any(isinstance(s, str) and not s for s in items):
        raise SymdelayInputError(f"--theta must list numbers, e.g. 10 or 10,12,15, got {theta!r}")
    out = []
    for s in items:
        try:
            v = float(as_positive_number("theta", s))
        except SymdelayInputError:
            raise SymdelayInputError(
                f"theta must be positive numbers (a list a,b,c or a range start:stop:count), "
                f"got {s!r}"
            ) from None
        out.append((v, str(s).strip() if isinstance(s, str) else repr(v)))
    return out
