"""The interactive explorer (``symdelay explore``): a Bokeh server page with a slider for
each numeric parameter of a model and three panels that follow them.

1. **Stability map** in two chosen parameters (default ``D`` and ``theta``), the current
   point marked and coloured by its certified verdict (the roots panel's counts). For the
   founding model the Hopf boundary ``theta_c`` comes from the vectorised float solver
   :func:`~symdelay.analysis.critical.critical` (``float64=True``, a log-spaced ``D``
   grid) and the unstable side is shaded: the founding model is stable exactly for
   ``theta < theta_c``, and its characteristic equation holds ``lam`` and ``theta`` only as
   the product ``lam theta``, so ``theta_c = (lam theta)_c / lam`` (one solver call per
   ``(L, mu)``). In two parameters other than ``theta`` the page shades the cells of a
   40 x 40 grid where ``theta > theta_c``. For another model the first crossing comes from
   :func:`symdelay.analysis.critical.critical` on a coarse grid of a few points, computed
   one point per tick of the server after the page is shown; the page says it is a coarse
   grid and shades nothing (a boundary can turn back).
2. **Rightmost characteristic roots** in the complex plane:
   :func:`symdelay.analysis.roots.roots` at the current point (every factor; the founding
   model's sum mode has the roots ``-mu``, ``-gamma``, always stable), and the verdict its
   certified counts give (stable, marginal, unstable: the one verdict of
   :func:`symdelay.analysis.stability.stability`).
3. **Fluid path of the imbalance** ``q1 - q2`` over ``T = 20`` time units (201 points) from a
   small perturbation of the equilibrium: ``q1`` raised and ``q2`` lowered by 5 % of the
   equilibrium queue ``q1*``, the rest at equilibrium. For the founding model the sum mode
   then stays at equilibrium and the imbalance is exactly the closed difference system
   (:func:`~symdelay.models.erlang.stochastic.fluid.fluid_difference` from ``x(0) = 0.1
   lam/mu``, ``w(0) = 0``, rtol 1e-8: DOP853, or LSODA when ``gamma = L/D > 10`` makes
   the chain stiff): 21 equations at L = 20 where the full system has 42, compiled in
   milliseconds, where the full system's entry :func:`symdelay.analysis.fluid.fluid`
   simplifies its logit form at each new point (alone 2 to 4 times the whole update,
   ``benchmarks/results/explore.txt``; tests/test_explore.py checks the two paths agree).
   Another model's path comes from :func:`symdelay.analysis.fluid.fluid`.
4. **Normal form** (:meth:`Explorer.normal_form_data`, a Div below the roots): the Hopf
   point in :meth:`Explorer.hopf_param` (theta where it is a map axis, else the map's y)
   with every other slider fixed, from the one normal-form path
   :func:`symdelay.analysis.normal_form.normal_form` (a delay model through
   :mod:`symdelay.analysis.dnormal`): ``l1`` with its bound and criticality, the amplitude
   law ``A ~ c sqrt|p - p_c|`` and its side, the frequency slope, the D_3 patterns at a
   multiple pair, one line when it refuses. Not part of :meth:`Explorer.update`: the page
   computes it once the sliders have rested :data:`NF_REST` seconds, on the server's
   thread, cached per point (the parameter's own value excluded). Another model's coarse
   map colours each point by the criticality there (the same cached normal form) and
   bisects a sign change of ``l1`` between neighbouring points :data:`BAUTIN_STEPS` times
   (:meth:`Explorer.bautin_step`) to a bracket drawn as a star; the founding model's
   boundary is supercritical all along (its ``structural_reason``).

:class:`Explorer` holds the sliders and computes the panels' data for a slider state,
without Bokeh (``benchmarks/bench_explore.py`` times :meth:`Explorer.update`);
:func:`build_document` lays the page out in a Bokeh document, :func:`bind` binds the port
(127.0.0.1 only) and :func:`serve` runs the server until Ctrl-C. The server answers only
requests addressed to ``127.0.0.1:PORT`` (the ``Host`` header, and the ``Origin`` of a
WebSocket when it has one): a page of another name resolved to the loopback address (DNS
rebinding) gets 403. A client that breaks Bokeh's WebSocket protocol is closed with one log
line, never a traceback.
"""

from __future__ import annotations

import contextlib
import logging
import math
import time
from dataclasses import dataclass
from fractions import Fraction

from symdelay.core.errors import SymdelayInputError

__all__ = [
    "SliderSpec",
    "Explorer",
    "build_document",
    "bind",
    "serve",
    "FLUID_T",
    "FLUID_DT",
    "GENERIC_MAP_POINTS",
]

#: the fluid panel's horizon and grid step (201 points)
FLUID_T, FLUID_DT = 20, 0.1
#: the size of the coarse grid of another model's map
GENERIC_MAP_POINTS = 9
#: the founding model's map: points of its boundary curve, cells per side of its shaded grid
CURVE_POINTS, GRID_CELLS = 200, 40
#: the fluid panel's perturbation: this fraction of the equilibrium queue, up and down
PERTURBATION = 0.05
#: the fluid panel integrates with LSODA above this phase rate gamma = L/D (else DOP853)
STIFF_GAMMA = 10
#: digits of the roots panel
ROOTS_DPS = 20
#: digits of the normal-form readout
NF_DPS = 15
#: the normal-form readout starts once the sliders have rested this long (seconds)
NF_REST = 0.3
#: the readout gives the amplitude law's value at the slider only within this fraction of
#: |p_c| from the Hopf point (the law is first order: ratio 0.97 to the integrated cycle at
#: 4 % on the information lag, tests/test_delay_normal_form.py)
LAW_REACH = 0.2
#: bisections of a coarse map's bracket where l1 changes sign (a Bautin point)
BAUTIN_STEPS = 6

#: slider ranges (start, end, step) by parameter name (``mu1``, ``D2``: the name without
#: its digits)
RANGES = {
    "L": (1, 20, 1),
    "N": (2, 8, 1),
    "K": (1, 20, 1),
    "d": (1, 6, 1),
    "mu": (0.1, 5, 0.01),
    "lam": (0.1, 5, 0.01),
    "theta": (0, 40, 0.05),
    "D": (0.05, 20, 0.01),
    "gamma": (0.05, 20, 0.01),
}

#: a model file's parameters without a --set value start here (else at 1)
FILE_DEFAULTS = {"theta": "2"}

#: option kinds that get a slider
NUMERIC_KINDS = {"number": False, "integer": True, "count": True}


def _decimals(step) -> int:
    s = float(step)
    return 0 if s.is_integer() else len(repr(s).split(".")[1])


@dataclass(frozen=True)
class SliderSpec:
    """One slider: the parameter ``name``, its range and step, the starting ``value`` (the
    exact text given) and whether it takes integers."""

    name: str
    start: float
    end: float
    step: float
    value: str
    integer: bool = False

    @property
    def float_value(self) -> float:
        return float(Fraction(self.value))

    def text(self, value) -> str:
        """The decimal a slider position denotes, rounded to the slider's step (plus two
        digits), so the model gets the number the page shows, not a float's expansion."""
        if self.integer:
            return str(round(float(value)))
        d = _decimals(self.step) + 2
        out = f"{round(float(value), d):.{d}f}".rstrip("0").rstrip(".")
        return "0" if out in ("", "-0") else out


def _fraction(name: str, text: str) -> Fraction:
    try:
        return Fraction(str(text).strip())
    except (ValueError, ZeroDivisionError):
        raise SymdelayInputError(
            f"--{name} {text}: the explorer's slider needs a finite number, e.g. --{name} 1.5"
        ) from None


def _slider(name: str, text: str, integer: bool) -> SliderSpec:
    v = float(_fraction(name, text))
    if integer and v != int(v):
        raise SymdelayInputError(f"--{name} {text}: give an integer")
    base = name.rstrip("0123456789_") or name
    start, end, step = RANGES.get(base, (0, max(10.0, 4 * abs(v)), 0.01))
    if integer:
        start, step = max(1, int(start)), 1
    start, end = min(start, v), max(end, v)
    if integer:
        start, end = int(start), math.ceil(end)
    return SliderSpec(name, start, end, step, str(text).strip(), integer)


class Explorer:
    """The explorer of one model, without Bokeh: its sliders and, for a slider state (a dict
    ``{name: text}``), the data of the three panels (:meth:`update`).

    ``family`` with ``options`` (``{name: text}``: the options given, the command's defaults
    included) names a built-in model, ``file`` with ``settings`` (``--set``) a model file.
    Numeric options become sliders; the others (``--delay``, ``--rates``, ``--kappa``) stay
    as given. ``x``, ``y``: the map's axes (default ``D`` and ``theta`` where the model has
    them). ``open_browser``: whether :func:`serve` opens a browser tab.
    """

    def __init__(
        self,
        family: str | None = "erlang",
        options: dict | None = None,
        *,
        file: str | None = None,
        settings: dict | None = None,
        x: str | None = None,
        y: str | None = None,
        open_browser: bool = False,
    ):
        self.family, self.file = (None, str(file)) if file is not None else (family, None)
        self.open_browser = bool(open_browser)
        self.fixed: dict = {}
        sliders = []
        if self.file is not None:
            from symdelay.model.core import load_toml

            self._base = load_toml(self.file)
            names = [str(p) for p in self._base.parameters]
            given = dict(settings or {})
            for k in given:
                if k not in names:
                    raise SymdelayInputError(
                        f"--set {k}: {self.file} has no parameter {k}; its parameters are "
                        + ", ".join(names)
                    )
            for p in names:
                sliders.append(_slider(p, given.get(p, FILE_DEFAULTS.get(p, "1")), False))
            self.label = f"{self._base.name} ({self.file})"
        else:
            from symdelay.models import builtin_models

            found = builtin_models()
            if family not in found:
                raise SymdelayInputError(
                    f"unknown model '{family}': use one of " + ", ".join(sorted(found))
                )
            kinds = {o.name: o.kind for o in getattr(found[family], "OPTIONS", ())}
            for name, text in (options or {}).items():
                if kinds.get(name) in NUMERIC_KINDS:
                    if str(text).strip().lower() in ("inf", "oo", "infinity"):
                        raise SymdelayInputError(
                            f"--{name} {text}: the explorer's slider takes a finite {name}"
                        )
                    sliders.append(_slider(name, text, NUMERIC_KINDS[kinds[name]]))
                else:
                    self.fixed[name] = text
            self.label = f"model {family}"
        self.sliders = tuple(sliders)
        if len(self.sliders) < 2:
            raise SymdelayInputError(
                f"{self.label} has {len(self.sliders)} numeric parameter(s) here: the explorer "
                "needs two for its map"
            )
        self.names = tuple(s.name for s in self.sliders)
        self.founding = self.family == "erlang" and not self.fixed
        self.x, self.y = self._axes(x, y)
        self._map_cache: dict = {}
        self._model_cache: dict = {}
        self._nf_cache: dict = {}

    # ------------------------------------------------------------ set-up
    def _axes(self, x, y):
        names = self.names
        x, y = self._axis("--x", x), self._axis("--y", y)
        if y is None:
            y = "theta" if "theta" in names and x != "theta" else next(n for n in names if n != x)
        if x is None:
            x = next((n for n in ("D", "gamma") if n in names and n != y), None)
            x = x or next(n for n in names if n != y)
        if x == y:
            raise SymdelayInputError(f"--x and --y are both {x}: choose two different parameters")
        return x, y

    def _axis(self, flag: str, text):
        """``NAME`` or ``NAME=LO:HI`` (the map's range, and the slider's): the name, with
        the range set on its slider."""
        import dataclasses

        if text is None:
            return None
        name, sep, rng = str(text).partition("=")
        name = name.strip()
        if name not in self.names:
            raise SymdelayInputError(
                f"{flag} {name} is not a parameter of {self.label}: choose one of "
                + ", ".join(self.names)
            )
        if not sep:
            return name
        lo_t, colon, hi_t = rng.partition(":")
        if not colon or not lo_t.strip() or not hi_t.strip():
            raise SymdelayInputError(
                f"{flag} takes NAME or NAME=LO:HI (e.g. D=0.1:10), got '{text}'"
            )
        lo, hi = _fraction(name, lo_t), _fraction(name, hi_t)
        s = self.slider(name)
        if not lo < hi:
            raise SymdelayInputError(f"{flag} {text}: the range is empty or inverted: give LO < HI")
        if not lo <= Fraction(s.value) <= hi:
            raise SymdelayInputError(
                f"{flag} {text} does not hold the starting {name} = {s.value}: give a {name} "
                "inside the range, or a range around it"
            )
        if s.integer and (lo.denominator != 1 or hi.denominator != 1 or lo < 1):
            raise SymdelayInputError(f"{flag} {text}: {name} takes integers >= 1")
        if name.rstrip("0123456789_") in ("D", "gamma") and lo <= 0:
            raise SymdelayInputError(f"{flag} {text}: {name} must stay > 0 (a log axis)")
        lo_v, hi_v = (int(lo), int(hi)) if s.integer else (float(lo), float(hi))
        i = self.names.index(name)
        spec = dataclasses.replace(s, start=lo_v, end=hi_v)
        self.sliders = (*self.sliders[:i], spec, *self.sliders[i + 1 :])
        return name

    def slider(self, name: str) -> SliderSpec:
        return self.sliders[self.names.index(name)]

    @property
    def initial_state(self) -> dict:
        return {s.name: s.value for s in self.sliders}

    def describe(self) -> str:
        fixed = "".join(f", {k} = {v}" for k, v in self.fixed.items())
        return f"{self.label}{fixed}; map in ({self.x}, {self.y})"

    # ------------------------------------------------------------ models
    def model(self, state: dict, *, free=()):
        """The model at ``state`` (``{name: text}``), the parameters in ``free`` left
        without a value (the map's critical parameter)."""
        values = {k: v for k, v in state.items() if k not in free}
        key = (*tuple(sorted(values.items())), ("free", tuple(free)))
        hit = self._model_cache.get(key)
        if hit is not None:
            return hit
        if self.file is not None:
            m = self._base.with_values(**values)
        else:
            from symdelay.models import build_model

            m = build_model(self.family, **self.fixed, **values)
        if len(self._model_cache) > 64:
            self._model_cache.clear()
        self._model_cache[key] = m
        return m

    # ------------------------------------------------------------ panels
    def roots_data(self, state: dict) -> dict:
        """The roots panel: every root listed (rightmost first) and the certified counts."""
        from symdelay.analysis.roots import roots

        rs = roots(self.model(state), dps=ROOTS_DPS)
        re = [float(z.value.real) for z in rs.roots]
        im = [float(z.value.imag) for z in rs.roots]
        top = max(range(len(re)), key=lambda i: (re[i], abs(im[i]))) if re else None
        if top is not None:
            pair = [i for i in range(len(re)) if re[i] == re[top] and abs(im[i]) == abs(im[top])]
        else:
            pair = []
        return {
            "re": re,
            "im": im,
            "rightmost_re": [re[i] for i in pair],
            "rightmost_im": [im[i] for i in pair],
            "unstable_count": int(rs.unstable_count),
            "axis_count": int(rs.axis_count),
            "stable": rs.verdict == "stable",
            "verdict": rs.verdict,
            "title": f"characteristic roots: {rs.unstable_count} with Re r > 0"
            + (f", {rs.axis_count} on the axis" if rs.axis_count else "")
            + f" ({rs.verdict})",
        }

    def fluid_data(self, state: dict) -> dict:
        """The fluid panel: ``t`` and the imbalance ``x = q1 - q2`` from a small push."""
        import numpy as np

        if self.founding:
            from symdelay.models.erlang.stochastic.fluid import fluid_difference

            mu, lam = Fraction(state["mu"]), Fraction(state["lam"])
            x0 = 2 * PERTURBATION * float(lam / mu)
            # fast phases (gamma = L/D large) make the chain stiff: LSODA with the exact
            # Jacobian there (0.05 to 0.3 s at L = 20, where DOP853 takes up to 0.8 s)
            stiff = Fraction(state["L"]) / Fraction(state["D"]) > STIFF_GAMMA
            res = fluid_difference(
                int(state["L"]),
                state["mu"],
                state["lam"],
                state["theta"],
                state["D"],
                T=FLUID_T,
                dt=FLUID_DT,
                initial=(x0,),
                method="LSODA" if stiff else "DOP853",
                rtol=1e-8,
                atol=1e-10,
            )
            t, x = res.t, res["x"]
            label = f"q1 - q2 from {x0:.3g}"
        else:
            from symdelay.analysis.fluid import fluid

            m = self.model(state)
            names = [str(s) for s in m.states]
            y0 = np.array([float(m.equilibrium.point[s]) for s in m.states], dtype=float)
            if "q1" in names and "q2" in names:
                i, j = names.index("q1"), names.index("q2")
                eps = PERTURBATION * (y0[i] if y0[i] > 0 else 1.0)
                y0[i] += eps
                y0[j] = max(y0[j] - eps, 0.0)
                res = fluid(m, T=FLUID_T, dt=FLUID_DT, initial=y0)
                t, x = res.t, res["q1"] - res["q2"]
                label = f"q1 - q2 from {y0[i] - y0[j]:.3g}"
            else:
                first, e0 = names[0], y0[0]
                y0[0] = e0 * (1 + 2 * PERTURBATION) if e0 > 0 else 2 * PERTURBATION
                res = fluid(m, T=FLUID_T, dt=FLUID_DT, initial=y0)
                t, x = res.t, res[first] - e0
                label = f"{first} - {first}* (no states q1, q2)"
        return {
            "t": np.asarray(t, float).tolist(),
            "x": np.asarray(x, float).tolist(),
            "label": label,
        }

    # ------------------------------------------------------------ the normal form
    def hopf_param(self) -> str:
        """The parameter of the normal-form readout: the map's critical parameter
        (``theta`` where it is an axis, else the map's ``y``)."""
        return "theta" if "theta" in (self.x, self.y) else self.y

    def _nf_key(self, state: dict):
        p = self.hopf_param()
        return (p, tuple(sorted((k, v) for k, v in state.items() if k != p)))

    def normal_form_cached(self, state: dict) -> dict | None:
        """:meth:`normal_form_data` at ``state`` if it is already computed, else None."""
        hit = self._nf_cache.get(self._nf_key(state))
        p = self.hopf_param()
        return None if hit is None else _nf_here(hit, p, state.get(p))

    def normal_form_data(self, state: dict) -> dict:
        """The normal-form readout at ``state``: the Hopf point in :meth:`hopf_param` with
        every other slider fixed, from the one normal-form path
        (:func:`symdelay.analysis.normal_form.normal_form`; a delay model goes to
        :mod:`symdelay.analysis.dnormal`). A dict: ``param``, ``critical_value``, ``omega``,
        ``multiplicity``, ``l1`` and ``l1_radius`` (None where not defined or not
        bounded), ``criticality``, ``amplitude_coefficient`` and ``side`` (of ``A ~ c
        sqrt|p - p_c|``), ``omega_slope``, ``patterns`` (a multiple pair), ``refused`` (the
        one line when the normal form refuses, else None), ``lines`` (the readout's text)
        and ``seconds``. Cached per point (the parameter's own value excluded: the Hopf
        point in it does not depend on it)."""
        p = self.hopf_param()
        key = self._nf_key(state)
        hit = self._nf_cache.get(key)
        if hit is None:
            hit = self._nf_compute(state)
            if len(self._nf_cache) > 256:
                self._nf_cache.clear()
            self._nf_cache[key] = hit
        return _nf_here(hit, p, state.get(p))

    def _nf_compute(self, state: dict) -> dict:
        from symdelay.analysis.normal_form import normal_form

        p = self.hopf_param()
        t0 = time.perf_counter()
        try:
            nf = normal_form(self.model(state, free=(p,)), dps=NF_DPS, param=p)
        except (SymdelayInputError, ArithmeticError) as exc:
            msg = " ".join(str(exc).split()) or f"{type(exc).__name__} in the normal form"
            head = "no Hopf point" if "Hopf point" in msg else "no normal form"
            line = f"{head} in {p}: {msg}"
            out = dict.fromkeys(_NF_FIELDS)
            out.update(param=p, refused=line, lines=[line], criticality=None)
        else:
            out = _nf_summary(nf, p)
        out["seconds"] = time.perf_counter() - t0
        return out

    def map_point_criticality(self, state: dict, critical: float) -> str:
        """The criticality of the Hopf point of a coarse map point (``critical``: the map's
        first crossing there): ``supercritical``, ``subcritical``, ``undecided``,
        ``multiple`` (no scalar l1), or ``none`` where the normal form refuses or finds
        another crossing than the map's (the map point stays uncoloured)."""
        d = self.normal_form_data(state)
        if d["refused"] is not None:
            return "none"
        if abs(d["critical_value"] - critical) > 1e-6 * (1 + abs(critical)):
            return "none"
        return _crit_kind(d)

    def bautin_step(self, state: dict, over: str, bracket: tuple) -> tuple | None:
        """One bisection of ``bracket = (lo, hi, kind_lo)`` (texts of ``over`` where ``l1``
        has opposite signs, ``kind_lo`` the criticality at ``lo``) by the normal form at
        the exact midpoint: ``(lo, hi, kind_lo, mid, p_c)``, the half that keeps the sign
        change and the midpoint's Hopf point; None where the midpoint's ``l1`` is not
        decided (or refused: the bracket stays as it was)."""
        lo, hi, kind_lo = bracket
        mid = (Fraction(lo) + Fraction(hi)) / 2
        text = str(mid)
        d = self.normal_form_data({**state, over: text})
        kind = _crit_kind(d)
        if kind not in ("supercritical", "subcritical"):
            return None
        if kind == kind_lo:
            return text, hi, kind_lo, text, d["critical_value"]
        return lo, text, kind_lo, text, d["critical_value"]

    # ------------------------------------------------------------ the map
    def axis_grid(self, name: str, n: int):
        """Values of parameter ``name`` along a map axis: integers for an integer slider, a
        log-spaced grid for ``D``, else an even grid over the slider's range."""
        import numpy as np

        s = self.slider(name)
        if s.integer:
            return np.arange(int(s.start), int(s.end) + 1, dtype=float)
        if self.log_axis(name):
            return np.logspace(math.log10(s.start), math.log10(s.end), n)
        return np.linspace(s.start, s.end, n)

    def log_axis(self, name: str) -> bool:
        s = self.slider(name)
        base = name.rstrip("0123456789_")
        return base in ("D", "gamma") and s.start > 0 and not s.integer

    def _map_key(self, state: dict):
        return tuple(sorted((k, v) for k, v in state.items() if k not in (self.x, self.y)))

    def map_data(self, state: dict) -> dict:
        """The founding model's map (curve, shading or shaded cells); another model's map
        is the coarse grid of :meth:`generic_map_plan`, computed point by point."""
        key = self._map_key(state)
        hit = self._map_cache.get(key)
        if hit is None:
            hit = self._founding_map(state) if self.founding else self._generic_map_empty()
            self._map_cache.clear()
            self._map_cache[key] = hit
        return hit

    def _theta_c(self, arrays: dict):
        """``theta_c`` of the founding model at the broadcast arrays ``L, mu, lam, D``."""
        import numpy as np

        from symdelay.analysis.critical import critical
        from symdelay.models.erlang.founding import FoundingModel

        L, mu, lam, D = np.broadcast_arrays(
            *(np.asarray(arrays[k], float) for k in ["L", "mu", "lam", "D"])
        )
        out = np.empty(L.shape)
        pairs = np.stack([L.ravel(), mu.ravel()], axis=1)
        for l_v, mu_v in np.unique(pairs, axis=0):
            idx = (l_v == L) & (mu == mu_v)
            m = FoundingModel(L=int(l_v), mu=Fraction(repr(float(mu_v))), lam=1)
            _, k, _ = critical(m, at=D[idx], float64=True).arrays()
            out[idx] = k / lam[idx]
        return out

    def _founding_map(self, state: dict) -> dict:
        import numpy as np

        cur = {k: float(Fraction(v)) for k, v in state.items()}
        x, y = self.x, self.y
        ys, xs = self.slider(y), self.slider(x)
        out = {"curve_x": [], "curve_y": [], "shade": None, "image": None}
        if "theta" in (x, y):
            other = y if x == "theta" else x
            grid = self.axis_grid(other, CURVE_POINTS)
            th = self._theta_c({**cur, other: grid})
            th = np.where(np.isfinite(th), th, np.nan)
            top = (xs if x == "theta" else ys).end
            clipped = np.minimum(th, top)
            if x == "theta":
                out.update(curve_x=th.tolist(), curve_y=grid.tolist())
                out["shade"] = {"y": grid.tolist(), "x1": clipped.tolist(), "x2": [top] * grid.size}
            else:
                out.update(curve_x=grid.tolist(), curve_y=th.tolist())
                out["shade"] = {"x": grid.tolist(), "y1": clipped.tolist(), "y2": [top] * grid.size}
            crossing = bool(np.any(np.isfinite(th) & (th < top)))
            out["note"] = (
                "Hopf boundary theta_c (critical, float64), supercritical all along it: "
                "l1 < 0 at every first crossing of the founding model (c1 = "
                "-(theta^3/4) r'(theta) |q_y|^2 with Re r' > 0: the normal form's "
                "structural_reason); shaded: unstable"
                if crossing
                else "no Hopf crossing in this box (L = 1 never destabilises)"
                if cur.get("L") == 1
                else "no Hopf crossing in this box"
            )
        else:
            gx, gy = self.axis_grid(x, GRID_CELLS), self.axis_grid(y, GRID_CELLS)
            X, Y = np.meshgrid(gx, gy)
            th = self._theta_c({**cur, x: X, y: Y})
            unstable = (cur["theta"] > th).astype(float)
            out["image"] = {
                "image": [unstable.tolist()],
                "x": [_edge(gx, self.log_axis(x), 0)],
                "y": [_edge(gy, self.log_axis(y), 0)],
                "dw": [_edge(gx, self.log_axis(x), 1) - _edge(gx, self.log_axis(x), 0)],
                "dh": [_edge(gy, self.log_axis(y), 1) - _edge(gy, self.log_axis(y), 0)],
            }
            out["note"] = f"shaded: theta = {state['theta']} > theta_c (grid {gx.size} x {gy.size})"
        return out

    # -- another model: a coarse grid, one point at a time
    def generic_map_plan(self, state: dict):
        """``(param, over, values, transposed)``: the critical ``param`` (theta where it is
        an axis) at each value of the other axis on a coarse grid."""
        param = "theta" if "theta" in (self.x, self.y) else self.y
        over = self.x if param == self.y else self.y
        values = self.axis_grid(over, GENERIC_MAP_POINTS)
        if len(values) > GENERIC_MAP_POINTS:  # an integer axis: at most this many values
            import numpy as np

            values = np.unique(np.round(np.linspace(values[0], values[-1], GENERIC_MAP_POINTS)))
        s = self.slider(over)
        texts = [s.text(v) for v in values]
        return param, over, texts, param == self.x

    def generic_map_point(self, state: dict, value: str):
        """The first crossing of the plan's ``param`` at one value of ``over``: a float
        (``inf``: none in ``(0, inf)``)."""
        from symdelay.analysis.critical import critical

        param, over, _, _ = self.generic_map_plan(state)
        base = self.model({**state, over: value}, free=(param,))
        curve = critical(base, param)
        return float(curve.points[0].critical)

    def _generic_map_empty(self) -> dict:
        return {
            "curve_x": [],
            "curve_y": [],
            "shade": None,
            "image": None,
            "note": f"coarse grid ({GENERIC_MAP_POINTS} points): first crossing by "
            "symdelay.analysis.critical, computed point by point",
        }

    def warm(self, L: int) -> None:
        """Derive the founding model's difference system for ``L`` ahead of a move of the L
        slider (up to a second the first time at each L, milliseconds after)."""
        if self.founding:
            from symdelay.models.erlang.stochastic.fluid import fluid_difference

            fluid_difference(int(L), 1, 1, 1, 1, T=1, dt=0.5, initial=(0.1,))

    # ------------------------------------------------------------ one update
    def update(self, state: dict, *, with_map: bool = True) -> dict:
        """Every panel's data at ``state``: ``roots``, ``fluid``, ``marker``, ``map``
        (the founding model's; None for another model, whose map comes point by point),
        ``errors`` (``{panel: message}`` for a panel that could not be computed) and
        ``seconds``."""
        t0 = time.perf_counter()
        out, errors = {"state": dict(state)}, {}
        for panel, fn in (("roots", self.roots_data), ("fluid", self.fluid_data)):
            try:
                out[panel] = fn(state)
            except (SymdelayInputError, ArithmeticError) as exc:
                out[panel] = None
                errors[panel] = str(exc)
        if with_map and self.founding:
            try:
                out["map"] = self.map_data(state)
            except (SymdelayInputError, ArithmeticError) as exc:
                out["map"], errors["map"] = None, str(exc)
        else:
            out["map"] = None
        verdict = "unknown" if out["roots"] is None else out["roots"]["verdict"]
        out["marker"] = {
            "x": [float(Fraction(state[self.x]))],
            "y": [float(Fraction(state[self.y]))],
            "verdict": [verdict],
        }
        out["errors"] = errors
        out["seconds"] = time.perf_counter() - t0
        return out


#: the fields of the normal-form readout (:meth:`Explorer.normal_form_data`)
_NF_FIELDS = (
    "param",
    "critical_value",
    "omega",
    "period",
    "multiplicity",
    "l1",
    "l1_radius",
    "l2",
    "l2_radius",
    "criticality",
    "amplitude_coefficient",
    "side",
    "omega_slope",
    "structural",
    "patterns",
    "patterns_reason",
    "amplitude_here",
    "refused",
    "lines",
)


def _g(x, n: int = 7) -> str:
    import mpmath

    return mpmath.nstr(x, n, strip_zeros=True)


def _nf_summary(nf, p: str) -> dict:
    """The readout of a :class:`~symdelay.analysis.normal_form.NormalForm` in ``p``."""
    import mpmath

    out = dict.fromkeys(_NF_FIELDS)
    pc, w = nf.theta_c, nf.omega
    out.update(
        param=p,
        critical_value=float(pc),
        omega=float(w),
        period=float(nf.period),
        multiplicity=int(nf.multiplicity),
        criticality=nf.criticality,
    )
    lines = [
        f"Hopf point in {p} (the other sliders fixed): {p}_c = {_g(pc, 10)}, "
        f"omega = {_g(w)} (period {_g(nf.period)})"
    ]
    if nf.multiple:
        lines.append(
            f"+-i omega has multiplicity {nf.multiplicity} (the symmetry): no scalar l1, "
            "no single amplitude law"
        )
        if nf.patterns:
            pats = []
            for pat in nf.patterns:
                word = {True: "stable", False: "unstable", None: "stability undecided"}
                pats.append(
                    {
                        "pattern": pat["pattern"],
                        "criticality": pat["criticality"],
                        "stable": pat["stable"],
                        "side": pat.get("side"),
                        "amplitude_coefficient": pat.get("amplitude_coefficient"),
                    }
                )
                amp = pat.get("amplitude_coefficient")
                law = "" if amp is None else f", A ~ {_g(mpmath.mpf(amp))} sqrt|{p} - {p}_c|"
                lines.append(
                    f"{pat['pattern']}: {pat['criticality']}, {word[pat['stable']]}{law}"
                    + (f" ({p} {pat['side']} {p}_c)" if pat.get("side") else "")
                )
            out["patterns"] = pats
        else:
            out["patterns_reason"] = nf.patterns_reason
            lines.append(f"patterns not given: {nf.patterns_reason}")
        out["lines"] = lines
        return out
    out["l1"] = float(nf.l1)
    out["l1_radius"] = None if nf.l1_radius is None else float(nf.l1_radius)
    bound = "" if nf.l1_radius is None else f" +- {_g(nf.l1_radius, 2)}"
    crit = nf.criticality
    lines.append(f"l1 = {_g(nf.l1)}{bound} (q1 - q2 normalised): {crit}")
    if crit in ("supercritical", "subcritical"):
        side = nf.side
        c = nf.amplitude_coefficient
        rel = ">" if side == "above" else "<"
        diff = f"{p} - {p}_c" if side == "above" else f"{p}_c - {p}"
        kind = "stable" if crit == "supercritical" else "unstable"
        out.update(
            amplitude_coefficient=float(c),
            side=side,
            omega_slope=float(nf.omega_slope),
            structural=nf.structural_reason is not None,
        )
        lines.append(f"A ~ {_g(c)} sqrt({diff}): {kind} cycles for {p} {rel} {p}_c")
        lines.append(f"d omega / d {p} = {_g(nf.omega_slope, 4)} at {p}_c")
    elif crit == "undecided":
        lines.append("the bound on l1 holds 0: the direction of bifurcation is not decided")
    else:
        lines.append("l1 vanishes to the working digits: a Bautin point (l2 decides)")
    if nf.l2 is not None:
        out["l2"] = float(nf.l2)
        out["l2_radius"] = None if nf.l2_radius is None else float(nf.l2_radius)
        bound2 = "" if nf.l2_radius is None else f" +- {_g(nf.l2_radius, 2)}"
        lines.append(f"l2 = {_g(nf.l2)}{bound2}: {nf.bautin_note}")
    out["lines"] = lines
    return out


def _crit_kind(data: dict) -> str:
    """One word for a readout's criticality (the map's colour key)."""
    if data.get("refused") is not None or data.get("criticality") is None:
        return "none"
    if data.get("multiplicity", 1) >= 2:
        return "multiple"
    c = data["criticality"]
    return c if c in ("supercritical", "subcritical") else "undecided"


def _map_l1_note(param: str, over: str, values: list, kinds: list) -> str:
    """The coarse map's criticality key, and where ``l1`` changes sign between neighbouring
    points of the grid."""
    count = {k: kinds.count(k) for k in ("supercritical", "subcritical", "undecided", "multiple")}
    text = "points by l1 at their Hopf point: " + ", ".join(
        f"{n} {k}" for k, n in count.items() if n
    )
    if not any(count.values()):
        text = "no l1 at the map's points"
    flips = [
        (values[i], values[i + 1])
        for i in range(len(kinds) - 1)
        if {kinds[i], kinds[i + 1]} == {"supercritical", "subcritical"}
    ]
    for a, b in flips:
        text += (
            f"; l1 changes sign between {over} = {a} and {b}: a Bautin point lies between "
            f"them if the first crossing of {param} stays on one Hopf curve (symdelay map "
            "locates and proves it)"
        )
    return text


def _key_html(note: str) -> str:
    """The map's note in italics, each criticality word in its map colour."""
    import re

    def paint(m):
        return f"<b style='color:{_CRIT_COLOURS[m.group(1)]}'>{m.group(1)}</b>"

    text = re.sub(r"\b(supercritical|subcritical|undecided|multiple)\b", paint, _html(note))
    return f"<i>{text}</i>"


def _nf_here(data: dict, p: str, here) -> dict:
    """``data`` (a cached readout) with the amplitude its law gives at the slider's value
    ``here`` of ``p`` (text; the first-order law, meaningful near ``p_c`` only)."""
    if here is None or data.get("side") is None:
        return data
    v, pc = float(Fraction(str(here))), data["critical_value"]
    d = v - pc if data["side"] == "above" else pc - v
    if d > LAW_REACH * abs(pc):
        a = None
        line = (
            f"at {p} = {here}: more than {LAW_REACH:.0%} from {p}_c, where the first-order "
            "law predicts no amplitude"
        )
    elif d > 0:
        a = data["amplitude_coefficient"] * math.sqrt(d)
        line = f"at {p} = {here}: A ~ {a:.4g} by the law (first order in {p} - {p}_c)"
    else:
        a, line = None, f"at {p} = {here}: no cycle from the normal form on this side"
    return {**data, "amplitude_here": a, "lines": [*data["lines"], line]}


def _edge(grid, log: bool, end: int) -> float:
    """The outer edge of a grid's first (``end=0``) or last cell (cells centred on the
    grid values; on a log axis, centred in log)."""
    a, b = (grid[0], grid[1]) if end == 0 else (grid[-1], grid[-2])
    if len(grid) < 2:
        return float(grid[0]) + (-0.5 if end == 0 else 0.5)
    if log:
        return float(a * math.sqrt(a / b))
    return float(a + (a - b) / 2)


# ---------------------------------------------------------------- the Bokeh page
#: the map's Hopf points by the sign of l1 there
_CRIT_COLOURS = {
    "supercritical": "#1f3b73",
    "subcritical": "#c51b7d",
    "undecided": "#999999",
    "multiple": "#8c6d31",
    "none": "#ffffff",
    "pending": "#ffffff",
}

_COLOURS = {
    "stable": "#2a9d4b",
    "marginal": "#e69f00",
    "unstable": "#d62728",
    "unknown": "#7f7f7f",
}


def build_document(doc, explorer: Explorer) -> dict:
    """Lay the explorer out in Bokeh document ``doc``: sliders (``name`` = the parameter),
    the map, the roots and the fluid figures, data in named ColumnDataSources
    (``roots_source``, ``rightmost_source``, ``fluid_source``, ``marker_source``,
    ``map_curve_source``, ``map_points_source``) and a ``status`` Div. Returns the models
    by name (what the tests read)."""
    from bokeh.events import DocumentReady
    from bokeh.layouts import column, row
    from bokeh.models import (
        ColumnDataSource,
        Div,
        LinearColorMapper,
        Slider,
        Span,
    )
    from bokeh.plotting import figure

    ex = explorer
    state = ex.initial_state
    sliders = {}
    for s in ex.sliders:
        sliders[s.name] = Slider(
            start=s.start,
            end=s.end,
            step=s.step,
            value=float(s.value) if not s.integer else int(float(s.value)),
            title=s.name,
            name=s.name,
            width=260,
        )
    roots_source = ColumnDataSource({"re": [], "im": []}, name="roots_source")
    rightmost_source = ColumnDataSource({"re": [], "im": []}, name="rightmost_source")
    fluid_source = ColumnDataSource({"t": [], "x": []}, name="fluid_source")
    marker_source = ColumnDataSource({"x": [], "y": [], "colour": []}, name="marker_source")
    curve_source = ColumnDataSource({"x": [], "y": []}, name="map_curve_source")
    points_source = ColumnDataSource(
        {"x": [], "y": [], "colour": [], "criticality": []}, name="map_points_source"
    )
    shade_source = ColumnDataSource({"x": [], "y1": [], "y2": []}, name="map_shade_source")
    hshade_source = ColumnDataSource({"y": [], "x1": [], "x2": []}, name="map_hshade_source")
    image_source = ColumnDataSource(
        {"image": [], "x": [], "y": [], "dw": [], "dh": []}, name="map_image_source"
    )
    bautin_source = ColumnDataSource({"x": [], "y": []}, name="map_bautin_source")

    xs, ys = ex.slider(ex.x), ex.slider(ex.y)

    def rng(s):
        return (s.start - 0.5, s.end + 0.5) if s.integer else (s.start, s.end)

    mp = figure(
        name="map",
        title=f"stability map in ({ex.x}, {ex.y})"
        + ("" if ex.founding else f", coarse grid ({GENERIC_MAP_POINTS} points)"),
        x_axis_label=ex.x,
        y_axis_label=ex.y,
        x_axis_type="log" if ex.log_axis(ex.x) else "linear",
        y_axis_type="log" if ex.log_axis(ex.y) else "linear",
        x_range=rng(xs),
        y_range=rng(ys),
        width=520,
        height=460,
        tools="pan,wheel_zoom,box_zoom,reset,save",
    )
    mapper = LinearColorMapper(palette=["#ffffff00", "#f4a6a6"], low=0, high=1)
    mp.image(
        image="image", x="x", y="y", dw="dw", dh="dh", source=image_source, color_mapper=mapper
    )
    mp.varea(x="x", y1="y1", y2="y2", source=shade_source, fill_color="#f4a6a6", fill_alpha=0.7)
    mp.harea(y="y", x1="x1", x2="x2", source=hshade_source, fill_color="#f4a6a6", fill_alpha=0.7)
    mp.line(x="x", y="y", source=curve_source, line_width=2, color="#1f3b73")
    mp.scatter(x="x", y="y", source=points_source, size=8, color="colour", line_color="black")
    mp.scatter(
        x="x",
        y="y",
        source=bautin_source,
        size=16,
        marker="star",
        color="#ffbf00",
        line_color="black",
    )
    mp.scatter(
        x="x",
        y="y",
        source=marker_source,
        size=13,
        marker="diamond",
        color="colour",
        line_color="black",
    )
    map_note = Div(text="", name="map_note", width=520)

    rp = figure(
        name="roots",
        title="characteristic roots",
        x_axis_label="Re r",
        y_axis_label="Im r",
        width=440,
        height=300,
        tools="pan,wheel_zoom,box_zoom,reset,save",
    )
    rp.add_layout(Span(location=0, dimension="height", line_dash="dashed", line_color="#555"))
    rp.scatter(x="re", y="im", source=roots_source, size=7, color="#1f77b4")
    rp.scatter(
        x="re",
        y="im",
        source=rightmost_source,
        size=12,
        marker="circle_x",
        color="#d62728",
        fill_alpha=0.2,
    )

    fp = figure(
        name="fluid",
        title="fluid path of the imbalance",
        x_axis_label="t",
        y_axis_label="q1 - q2",
        width=440,
        height=250,
        tools="pan,wheel_zoom,box_zoom,reset,save",
    )
    fp.line(x="t", y="x", source=fluid_source, line_width=2, color="#9467bd")

    status = Div(text="", name="status", width=260)
    nf_div = Div(text="<b>normal form</b>", name="normal_form", width=440)
    head = Div(text=f"<b>symdelay explore</b><br>{_html(ex.describe())}", width=260)

    current = dict(state)
    pending = {"tick": False}
    generation = {"n": 0, "key": None}

    def apply(data):
        r = data.get("roots")
        if r is not None:
            roots_source.data = {"re": r["re"], "im": r["im"]}
            rightmost_source.data = {"re": r["rightmost_re"], "im": r["rightmost_im"]}
            rp.title.text = r["title"]
        f = data.get("fluid")
        if f is not None:
            fluid_source.data = {"t": f["t"], "x": f["x"]}
            fp.title.text = f"fluid path (T = {FLUID_T}): {f['label']}"
        m = data["marker"]
        marker_source.data = {
            "x": m["x"],
            "y": m["y"],
            "colour": [_COLOURS[v] for v in m["verdict"]],
        }
        if data.get("map") is not None:
            _show_map(data["map"])
        text = ", ".join(f"{k} = {v}" for k, v in data["state"].items())
        verdict = m["verdict"][0]
        lines = [
            f"<b>{_html(text)}</b>",
            f"equilibrium: <b style='color:{_COLOURS[verdict]}'>{verdict}</b> (certified roots)",
            f"update: {data['seconds']:.3f} s",
        ]
        lines += [
            f"<span style='color:#d62728'>{p}: {_html(e)}</span>" for p, e in data["errors"].items()
        ]
        status.text = "<br>".join(lines)

    def _show_map(m):
        curve_source.data = {"x": m["curve_x"], "y": m["curve_y"]}
        sh = m.get("shade")
        if sh is not None and "y1" in sh:
            shade_source.data = sh
        else:
            shade_source.data = {"x": [], "y1": [], "y2": []}
        if sh is not None and "x1" in sh:
            hshade_source.data = sh
        else:
            hshade_source.data = {"y": [], "x1": [], "x2": []}
        image_source.data = m["image"] or {"image": [], "x": [], "y": [], "dw": [], "dh": []}
        map_note.text = f"<i>{_html(m['note'])}</i>"

    def generic_map(st):
        """Start the coarse map of another model: one grid point per server tick (the
        computations run on the server's one thread, never beside another one)."""
        key = ex._map_key(st)
        if generation["key"] == key:
            return
        generation["n"] += 1
        generation["key"] = key
        gen = generation["n"]
        try:
            param, over, values, transposed = ex.generic_map_plan(st)
        except SymdelayInputError as exc:
            map_note.text = f"<i>{_html(str(exc))}</i>"
            return
        _show_map(ex._generic_map_empty())
        points_source.data = {"x": [], "y": [], "colour": [], "criticality": []}
        bautin_source.data = {"x": [], "y": []}
        found = {"over": [], "crit": [], "none": 0, "kind": [], "values": []}

        def show_points():
            xs_, ys_ = (
                (found["crit"], found["over"]) if transposed else (found["over"], found["crit"])
            )
            curve_source.data = {"x": list(xs_), "y": list(ys_)}
            points_source.data = {
                "x": list(xs_),
                "y": list(ys_),
                "colour": [_CRIT_COLOURS[k] for k in found["kind"]],
                "criticality": list(found["kind"]),
            }

        def step(i=0):
            if generation["n"] != gen:
                return  # a newer state started its own map
            if i >= len(values):
                none = f"; no crossing at {found['none']} of them" if found["none"] else ""
                found["note"] = (
                    f"coarse grid: first crossing of {param} by symdelay.analysis.critical "
                    f"at {len(values)} values of {over}{none}; "
                    + _map_l1_note(param, over, found["values"], found["kind"])
                )
                map_note.text = _key_html(found["note"])
                kinds, vals = found["kind"], found["values"]
                brackets = [
                    (vals[j], vals[j + 1], kinds[j])
                    for j in range(len(kinds) - 1)
                    if {kinds[j], kinds[j + 1]} == {"supercritical", "subcritical"}
                ]
                if brackets:
                    doc.add_timeout_callback(lambda: bautin(brackets, 0, 0, None), 1)
                return
            try:
                c = ex.generic_map_point(st, values[i])
            except (SymdelayInputError, ArithmeticError) as exc:
                map_note.text = f"<i>{param}_c at {over} = {values[i]}: {_html(str(exc))}</i>"
                return
            if math.isfinite(c):
                found["over"].append(float(Fraction(values[i])))
                found["values"].append(values[i])
                found["crit"].append(c)
                found["kind"].append("pending")
            else:
                found["none"] += 1
            show_points()
            map_note.text = (
                f"<i>coarse grid: first crossing of {param} at {over} = {values[i]} "
                f"({i + 1} of {len(values)} points)</i>"
            )
            nxt = (lambda: l1_step(i, c)) if math.isfinite(c) else (lambda: step(i + 1))
            doc.add_timeout_callback(nxt, 1)

        def bautin(brackets, k, n, last):
            """Bisect the k-th bracket where l1 changes sign, one normal form per tick."""
            if generation["n"] != gen or k >= len(brackets):
                return
            lo, hi, _ = brackets[k]
            done = n >= BAUTIN_STEPS
            try:
                got = None if done else ex.bautin_step(st, over, brackets[k])
            except Exception as exc:  # the bracket stays as it is; the log says why
                _LOG.warning("bisection of l1's sign failed", exc_info=exc)
                got = None
            if got is not None:
                brackets[k] = got[:3]
                last = got[3:]
                doc.add_timeout_callback(lambda: bautin(brackets, k, n + 1, last), 1)
                return
            if last is not None:
                mid, pc = float(Fraction(last[0])), last[1]
                xs_, ys_ = bautin_source.data["x"], bautin_source.data["y"]
                pt = (pc, mid) if transposed else (mid, pc)
                bautin_source.data = {"x": [*xs_, pt[0]], "y": [*ys_, pt[1]]}
            a, b = (format(float(Fraction(v)), ".6g") for v in (lo, hi))
            why = (
                f"{n} bisections"
                if done
                else f"stopped after {n} bisections: l1 undecided or refused at the midpoint"
            )
            found["note"] += (
                f"; Bautin bracket (star): l1 changes sign for {over} in [{a}, {b}] ({why} of "
                f"l1's sign along the first crossing of {param})"
            )
            map_note.text = _key_html(found["note"])
            doc.add_timeout_callback(lambda: bautin(brackets, k + 1, 0, None), 1)

        def l1_step(i, c):
            """The criticality at the map point just found: the readout's normal form at
            that point (its own server tick; cached, so the readout reuses it)."""
            if generation["n"] != gen:
                return
            try:
                found["kind"][-1] = ex.map_point_criticality({**st, over: values[i]}, c)
            except Exception as exc:  # the point stays uncoloured; the log says why
                _LOG.warning("l1 at %s = %s failed", over, values[i], exc_info=exc)
                found["kind"][-1] = "none"
            show_points()
            doc.add_timeout_callback(lambda: step(i + 1), 1)

        doc.add_timeout_callback(step, 1)

    ready = {"done": False}

    nf_gen = {"n": 0}

    def show_nf(d):
        crit = d.get("criticality")
        colour = _CRIT_COLOURS.get(_crit_kind(d), "#333")
        lines = [_html(x) for x in d["lines"]]
        if crit:
            lines = [
                x.replace(_html(crit), f"<b style='color:{colour}'>{_html(crit)}</b>", 1)
                for x in lines
            ]
        nf_div.text = "<b>normal form</b> (symdelay.normal_form)<br>" + "<br>".join(lines)

    def start_nf(st):
        """The readout at ``st``: at once when cached, else computed on the server's thread
        once the sliders have rested (a drag never waits for it)."""
        nf_gen["n"] += 1
        gen = nf_gen["n"]
        hit = ex.normal_form_cached(st)
        if hit is not None:
            show_nf(hit)
            return
        nf_div.text = (
            f"<b>normal form</b>: the Hopf point in {_html(ex.hopf_param())} ... (computing)"
        )

        def nf_step():
            if nf_gen["n"] != gen:
                return  # a newer state asked for its own
            if pending["tick"] or time.monotonic() - last["change"] < NF_REST:
                doc.add_timeout_callback(nf_step, int(1000 * NF_REST))
                return
            try:
                show_nf(ex.normal_form_data(st))
            except Exception as exc:  # an internal error of the analysis: said, not hidden
                _LOG.warning("normal form at %s failed", st, exc_info=exc)
                line = f"the normal form failed here: {type(exc).__name__}: {exc}"
                show_nf({"lines": [line], "criticality": None, "refused": line})

        doc.add_timeout_callback(nf_step, int(1000 * NF_REST))

    def run_update():
        pending["tick"] = False
        st = dict(current)
        data = ex.update(st)
        apply(data)
        if ready["done"]:
            start_nf(st)
            if not ex.founding:
                generic_map(st)

    def on_ready(_event):
        # another model's coarse map starts once the page is drawn: its points run on the
        # server's thread, and a slow model's first point would hold the page back
        ready["done"] = True
        start_nf(dict(current))
        if not ex.founding:
            generic_map(dict(current))

    doc.on_event(DocumentReady, on_ready)

    last = {"change": time.monotonic()}

    def on_change(name):
        spec = ex.slider(name)

        def callback(attr, old, new):
            last["change"] = time.monotonic()
            current[name] = spec.text(new)
            if not pending["tick"]:
                pending["tick"] = True
                doc.add_next_tick_callback(run_update)

        return callback

    for name, s in sliders.items():
        s.on_change("value", on_change(name))

    # the founding model's L slider: each L's difference system derived while the page is
    # idle (one L per step, on the server's thread, never during a burst of slider moves)
    todo = []
    if ex.founding and "L" in ex.names:
        s = ex.slider("L")
        here = int(Fraction(state["L"]))
        todo = sorted(range(int(s.start), int(s.end) + 1), key=lambda n: (abs(n - here), n))

    def warm_step():
        if not todo:
            return
        if pending["tick"] or time.monotonic() - last["change"] < 1.5:
            doc.add_timeout_callback(warm_step, 500)
            return
        # an L that fails here fails in its update too, which says what is wrong
        with contextlib.suppress(SymdelayInputError, ArithmeticError):
            ex.warm(todo.pop(0))
        doc.add_timeout_callback(warm_step, 20)

    if todo:
        doc.add_timeout_callback(warm_step, 1500)

    controls = column(head, *sliders.values(), status, width=280)
    doc.add_root(row(controls, column(mp, map_note), column(rp, nf_div, fp)))
    doc.title = "symdelay explore"
    run_update()
    return {
        "sliders": sliders,
        "map": mp,
        "roots": rp,
        "fluid": fp,
        "status": status,
        "map_note": map_note,
        "normal_form": nf_div,
        "sources": {
            s.name: s
            for s in (
                roots_source,
                rightmost_source,
                fluid_source,
                marker_source,
                curve_source,
                points_source,
                shade_source,
                hshade_source,
                image_source,
                bautin_source,
            )
        },
    }


def _html(text: str) -> str:
    import html

    return html.escape(str(text))


# ---------------------------------------------------------------- the server
ADDRESS = "127.0.0.1"


def bind(port: int):
    """Bind ``port`` on 127.0.0.1 (0: a free port): ``(sockets, port)``; a port in use is
    refused in one line."""
    import errno

    from bokeh.server.util import bind_sockets

    try:
        return bind_sockets(ADDRESS, port)
    except OSError as exc:
        if exc.errno in (errno.EADDRINUSE, errno.EACCES):
            why = "in use" if exc.errno == errno.EADDRINUSE else "not allowed here"
            raise SymdelayInputError(
                f"--port {port}: the port is {why} on {ADDRESS}: choose another port "
                "(--port 0 picks a free one)"
            ) from None
        raise


def _loopback_app(applications: dict, port: int):
    """A Bokeh Tornado application that answers only requests to ``127.0.0.1:PORT``.

    ``Host`` must be that address, and a WebSocket's ``Origin`` (when a browser sends one)
    ``http://127.0.0.1:PORT``: anything else is answered 403 before Bokeh sees it, whatever
    ``BOKEH_ALLOW_WS_ORIGIN`` says. Bokeh's WebSocket handler is replaced by one that closes
    a connection breaking the protocol (no subprotocol, a forged token) with one log line."""
    from bokeh.server.tornado import BokehTornado
    from bokeh.server.views.ws import WSHandler
    from tornado.web import RequestHandler

    host = f"{ADDRESS}:{port}"
    origin = f"http://{host}"

    class Refused(RequestHandler):
        def initialize(self, reason: str) -> None:
            self.reason = reason

        def prepare(self) -> None:
            self.set_status(403)
            self.set_header("Content-Type", "text/plain; charset=utf-8")
            self.finish(f"{self.reason}: symdelay explore serves {origin}/ only\n")

    class QuietWSHandler(WSHandler):
        """Bokeh's handler, closing a client that breaks the protocol with one line."""

        def refuse(self, what: str, exc: BaseException | None = None) -> None:
            self.close(1002, "protocol error")
            _LOG.warning("closed a WebSocket %s%s", what, f": {exc}" if exc else "")

        def open(self) -> None:
            try:
                super().open()
            except Exception as exc:  # no subprotocol, a token that is none
                self.refuse("that broke the protocol", exc)

        async def _async_open(self, token: str) -> None:
            try:
                await super()._async_open(token)
            except Exception as exc:
                self.refuse("whose session could not open", exc)

        async def on_message(self, fragment) -> None:
            if self.receiver is None:  # before its session opened (or after it failed)
                self.refuse("that spoke before its session opened")
                return
            await super().on_message(fragment)

        async def send_message(self, message) -> None:
            from tornado.websocket import WebSocketClosedError

            with contextlib.suppress(WebSocketClosedError):  # the client has gone: on_close
                await message.send(self)

    class LoopbackTornado(BokehTornado):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            for rule in self.wildcard_router.rules:
                if rule.target is WSHandler:
                    rule.target = QuietWSHandler

        def find_handler(self, request, **kwargs):
            reason = None
            if (request.host or "").lower() != host:
                reason = f"Host {request.host!r} refused"
            else:
                given = request.headers.get("Origin", request.headers.get("Sec-Websocket-Origin"))
                upgrade = request.headers.get("Upgrade", "").lower() == "websocket"
                socket_ = upgrade or request.path.endswith("/ws")
                if socket_ and given is not None and given.lower() != origin:
                    reason = f"WebSocket Origin {given!r} refused"
            if reason is not None:
                return self.get_handler_delegate(request, Refused, {"reason": reason})
            return super().find_handler(request, **kwargs)

    return LoopbackTornado(applications, extra_websocket_origins=[host], absolute_url=origin)


_LOG = logging.getLogger("symdelay.explore")

#: the loggers of the server's libraries, printed one line each while it runs
_SERVER_LOGGERS = ("tornado", "bokeh", "symdelay.explore")


@contextlib.contextmanager
def _one_line_logs():
    """While the server runs, its libraries' warnings and errors are one line each on
    stderr (an exception's type and message, never a traceback: a malformed request is
    the client's doing; ``SYMDELAY_DEBUG=1`` shows tracebacks), and Tornado's access log of
    refused requests is quiet. The loggers are restored afterwards."""
    import os
    import sys

    class OneLine(logging.Formatter):
        def format(self, record):
            text = " ".join(record.getMessage().split())
            exc = record.exc_info[1] if record.exc_info else None
            if exc is not None:
                text += f": {type(exc).__name__}: {' '.join(str(exc).split())}"
            return f"symdelay explore: {text[:300]}"

    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(logging.WARNING)
    if not os.environ.get("SYMDELAY_DEBUG"):
        handler.setFormatter(OneLine())
    saved = []
    for name in (*_SERVER_LOGGERS, "tornado.access"):
        log = logging.getLogger(name)
        saved.append((log, log.handlers[:], log.propagate, log.level))
        if name == "tornado.access":
            log.setLevel(logging.ERROR)  # a 403 or 400 answered is not news
            continue
        log.handlers[:] = [handler]
        log.propagate = False
        if log.level == logging.NOTSET or log.level > logging.WARNING:
            log.setLevel(logging.WARNING)
    try:
        yield
    finally:
        for log, handlers, propagate, level in saved:
            log.handlers[:] = handlers
            log.propagate = propagate
            log.setLevel(level)


def serve(explorer: Explorer, port: int = 5006, *, announce=print) -> None:
    """Serve the explorer at ``http://127.0.0.1:PORT/`` until interrupted (requests to
    another host or from another origin are refused, see :func:`_loopback_app`);
    ``announce`` gets the one line with the address. A browser tab is opened only with
    ``explorer.open_browser`` and a graphical display (a console browser would take over
    the terminal)."""
    from bokeh.application import Application
    from bokeh.application.handlers.function import FunctionHandler
    from bokeh.server.server import BaseServer
    from tornado.httpserver import HTTPServer
    from tornado.ioloop import IOLoop

    sockets, port = bind(port)
    url = f"http://{ADDRESS}:{port}/"
    app = Application(FunctionHandler(lambda doc: build_document(doc, explorer)))
    with _one_line_logs():
        tornado_app = _loopback_app({"/": app}, port)
        http = HTTPServer(tornado_app)
        http.start(1)
        http.add_sockets(sockets)
        server = BaseServer(IOLoop.current(), tornado_app, http)
        server.start()
        announce(f"symdelay explore: serving {url} (Ctrl-C stops)")
        if explorer.open_browser:
            server.io_loop.add_callback(_open_browser, url, announce)
        try:
            server.io_loop.start()
        finally:
            server.stop()


def _open_browser(url: str, announce) -> None:
    import os
    import sys
    import webbrowser

    graphical = sys.platform in ("darwin", "win32") or any(
        os.environ.get(v) for v in ("DISPLAY", "WAYLAND_DISPLAY")
    )
    if not graphical:
        announce("symdelay explore: no graphical display: open the address in a browser")
        return
    try:
        webbrowser.open(url, new=2)
    except webbrowser.Error:
        announce("symdelay explore: no browser found: open the address in a browser")
