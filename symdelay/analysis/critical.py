"""The critical value of one parameter of a model (the Hopf boundary), over a swept option.

:func:`critical` is the one entry: ``critical(model, param="theta", over="D", at=[...])``
gives the smallest ``param > 0`` at which roots cross the imaginary axis, at each value of
``over`` in ``at`` (``at=None``: the model as given, one point). It asks the model's family
for its fast path first (the founding model's Hopf parametrisation, to any precision and for
``L = inf``) and otherwise runs the generic machinery at each point: every factor of
``det(rI - J)`` that depends on the parameter goes to
:func:`symdelay.analysis.crossing.critical_parameter` (exact resultants, counts of unstable
roots checked on both sides) and the smallest crossing among them is the critical value;
when the equilibrium itself moves with the parameter, :func:`critical_by_verdicts`. Both
paths return one :class:`CriticalCurve` with one key set: the model's own options
(``parameters``), the factors that carry the parameter (printed once, for the model as
given), one row per point, and the closed forms the model's family knows (attached by
both paths from the family, :func:`symdelay.analysis.entry.closed_forms`).

>>> from symdelay.models import build_model
>>> c = critical(build_model("erlang", L=2, mu=1, lam=1, D=1), method="generic")
>>> c.to_json()["points"][0]["theta_c"], c.mode
('9.00000000000000', 'difference')
>>> critical(build_model("erlang", L=2, mu=1, lam=1), at=[1, 2]).to_json()["closed_forms"]["theta_c_of_D"]
'(D + 2)**2/D'
"""

from __future__ import annotations

import decimal
from collections import namedtuple
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import mpmath

from symdelay.analysis.entry import (
    closed_forms,
    entry_doc,
    require_table,
    shown_parameters,
    specialised,
)
from symdelay.core.budget import forced
from symdelay.core.errors import SymdelayInputError
from symdelay.core.params import as_dps
from symdelay.core.result import Result
from symdelay.model.core import has_lags

__all__ = [
    "CriticalCurve",
    "CriticalPoint",
    "ColumnPoints",
    "CurveFactor",
    "critical",
    "critical_by_verdicts",
    "critical_record",
    "point_label",
]


@dataclass(frozen=True)
class CriticalPoint:
    """One point of a critical curve: the swept value ``at`` (None: the model's own), the
    ``critical`` value (mpmath inf: no crossing for any value > 0), the crossing frequency
    ``omega`` (None without a crossing), the ``mode`` it comes from, a ``note`` (what was
    searched, where that bounds the answer) and ``label`` (the swept value as given). The
    generic path keeps every factor's :class:`~symdelay.analysis.crossing.CriticalParameter`
    in ``per_factor`` (``(Factor, CriticalParameter)`` pairs: its proof; not in the record).
    ``param``, ``over``: the names, under which the point also reads as its record does
    (``p.theta_c`` is ``p.critical`` and ``p.D`` is ``p.at`` for the critical theta over D).
    """

    at: object
    critical: mpmath.mpf
    omega: mpmath.mpf | None
    mode: str | None = None
    per_factor: tuple = field(default=(), compare=False)
    note: str = ""
    label: str | None = None
    param: str = "theta"
    over: str = "D"

    def __getattr__(self, name):
        # only names the point lacks arrive here: its record's keys
        if name.startswith("_"):
            raise AttributeError(name)
        if name == f"{self.param}_c":
            return self.critical
        if name == self.over:
            return self.at
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    def record(self, param: str, over: str, dps: int) -> dict:
        from symdelay.core.numbers import format_number

        if self.label is not None or self.at is None:
            at = self.label
        else:
            at = format_number(self.at, dps, True)
        out = {
            over: at,
            f"{param}_c": format_number(self.critical, dps),
            "omega": format_number(self.omega, dps),
            "mode": self.mode,
        }
        if self.note:  # what was searched (a crossing found by verdicts: no specialisation)
            out["note"] = self.note
        return out


class ColumnPoints(Sequence):
    """The points of a float64 run as its columns ``(at, critical, omega)`` (arrays; ``at``
    None: the model's own), each :class:`CriticalPoint` made when read (a plot reads the
    columns through :meth:`CriticalCurve.arrays`)."""

    def __init__(self, at, critical, omega, mode, param="theta", over="D"):
        self.columns, self._names = (at, critical, omega), (mode, param, over)

    def __len__(self) -> int:
        return len(self.columns[1])

    def __getitem__(self, i):
        if isinstance(i, slice):
            return tuple(self[j] for j in range(*i.indices(len(self))))
        at, crit, om = (None if c is None else float(c[i]) for c in self.columns)
        mode, param, over = self._names
        return CriticalPoint(at, crit, None if om != om else om, mode, param=param, over=over)


@dataclass(frozen=True)
class CurveFactor:
    """A factor of the characteristic function that carries the parameter, for the model as
    given (the swept option symbolic where the sweep substitutes it): ``text`` (SymPy
    syntax, symdelay's names), its ``mode`` and ``multiplicity``."""

    text: str
    mode: str | None
    multiplicity: int = 1

    def record(self) -> dict:
        return {"factor": self.text, "mode": self.mode, "multiplicity": self.multiplicity}


@dataclass(frozen=True)
class CriticalCurve(Result):
    """The critical ``param`` (and crossing frequency) at each value of ``over``.

    ``parameters``: the model's own options as shown (text; ``L`` an int or ``"inf"``);
    ``method``: the path that computed it (``"specialised"`` or ``"generic"``);
    ``factors``: the factors (:class:`CurveFactor`) that carry ``param``, printed once;
    ``closed_forms``: what the model's family knows in closed form (a mapping of SymPy
    expressions, derived when first read; None where the family knows none), the same
    from both paths. A one-point curve (``at=None``) also reads as its point:
    ``.critical``, ``.omega``, ...
    """

    param: str
    over: str
    points: tuple[CriticalPoint, ...]
    dps: int
    model_name: str | None = None
    parameters: dict = field(default_factory=dict)
    method: str = "generic"
    factors: tuple = ()
    closed_forms: object = field(default=None, compare=False, repr=False)

    # ------------------------------------------------------------ one point
    def _only(self) -> CriticalPoint:
        if len(self.points) != 1:
            raise SymdelayInputError(
                f"this curve has {len(self.points)} points: read .points[i] for each"
            )
        return self.points[0]

    def __getattr__(self, name):
        # only names the curve lacks arrive here: a one-point curve reads as its point
        if name in ("critical", "omega", "mode", "per_factor", "note"):
            return getattr(self._only(), name)
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    # ------------------------------------------------------------ records
    @property
    def L_key(self):
        """``L`` as printed (an int or ``"inf"``), None for a model without one."""
        return self.parameters.get("L")

    def point_records(self) -> list[dict]:
        """The points as in :meth:`record`."""
        return [p.record(self.param, self.over, self.dps) for p in self.points]

    def header(self) -> dict:
        """``model``, ``L``, ``parameters``, ``param``, ``over``, ``method`` as in
        :meth:`record` (without the closed forms, which load SymPy)."""
        return {
            "model": self.model_name,
            "L": self.L_key,
            "parameters": dict(self.parameters),
            "param": self.param,
            "over": self.over,
            "method": self.method,
        }

    def closed_form_record(self) -> dict | None:
        """The closed forms as text and LaTeX (``name`` and ``name_latex``; None where the
        family has none for these options), or None where the family knows none."""
        if self.closed_forms is None:
            return None
        out = {}
        for name, expr in self.closed_forms.items():
            if expr is None:
                out[name] = out[f"{name}_latex"] = None
                continue
            from symdelay.core.latex import tex  # loads SymPy: only when there is a formula

            out[name] = str(expr)
            out[f"{name}_latex"] = tex(expr)
        return out

    def record(self) -> dict:
        return {
            **self.header(),
            "factors": [f.record() for f in self.factors],
            "points": self.point_records(),
            "closed_forms": self.closed_form_record(),
        }

    def arrays(self):
        """``(at, critical, omega)`` as float64 numpy arrays (NaN where there is none)."""
        import numpy as np

        if isinstance(self.points, ColumnPoints):
            return tuple(np.array(c, dtype=float) for c in self.points.columns)
        at = np.array([np.nan if p.at is None else float(p.at) for p in self.points])
        cr = np.array([float(p.critical) for p in self.points])
        om = np.array([np.nan if p.omega is None else float(p.omega) for p in self.points])
        return at, cr, om

    def caption(self) -> str:
        shown = ", ".join(f"{k} = {v}" for k, v in self.parameters.items())
        head = shown or str(self.model_name)
        return f"{head}: critical {self.param} and frequency"

    def table(self):
        key = f"{self.param}_c"
        rows = [[p[self.over] or "-", p[key], p["omega"] or "-"] for p in self.point_records()]
        return [self.over, key, "omega"], rows, self.caption()

    def latex(self) -> str:
        """The closed forms (when the family has them) and the table of points."""
        from symdelay.core.display import latex_array, latex_number
        from symdelay.core.latex import tex
        from symdelay.model.core import _symbol

        key = f"{self.param}_c"
        sym = tex(_symbol(self.param))
        over = tex(_symbol(self.over))
        rows = [
            [latex_number(p[self.over]), latex_number(p[key]), latex_number(p["omega"])]
            for p in self.point_records()
        ]
        lines = []
        if self.parameters:
            lines.append(
                r",\ ".join(
                    f"{tex(_symbol(k))} = {latex_number(v)}" for k, v in self.parameters.items()
                )
            )
        forms = self.closed_form_record() or {}
        if forms.get("theta_c_of_D_latex") is not None:
            lines.append(rf"{sym}_c({over}) = {forms['theta_c_of_D_latex']}")
        lines.append(latex_array([over, sym + "_c", r"\omega"], rows))
        if len(lines) == 1:
            return lines[0]
        return r"\begin{gathered}" + r" \\ ".join(lines) + r"\end{gathered}"


def critical_record(model, param, over, points, dps, method, factors) -> CriticalCurve:
    """The record both paths return: the model's shown options and its family's closed
    forms attached here, once for both. ``over``'s own value is among the parameters when
    no point sweeps it (the record says where it was computed)."""
    if isinstance(points, ColumnPoints):
        swept = points.columns[0] is not None
    else:
        points = tuple(points)
        swept = any(p.at is not None or p.label is not None for p in points)
    return CriticalCurve(
        param,
        over,
        points,
        dps,
        model.name,
        shown_parameters(model, skip=(param, over) if swept else (param,)),
        method,
        tuple(factors),
        closed_forms(model, "critical", lazy=True),
    )


def point_label(v) -> str:
    """The swept value as the user wrote it (text, stripped; a float's repr) or, for an
    exact number, its integer or a 20-digit decimal."""
    from symdelay.core.exact import exact_fraction
    from symdelay.core.numbers import format_exact

    if isinstance(v, str):
        return v.strip()
    if isinstance(v, mpmath.mpf):
        return mpmath.nstr(v, 20)
    if isinstance(v, float) or type(v).__module__ == "numpy":
        return repr(float(v))
    try:
        f = exact_fraction("a value", v)
    except (SymdelayInputError, TypeError, ValueError):
        return str(v)
    if f is None:
        return str(v)
    if f.denominator == 1:
        return str(f.numerator) if abs(f.numerator) < 10**20 else format_exact(f)
    with decimal.localcontext() as ctx:
        ctx.prec = 20
        return str(decimal.Decimal(f.numerator) / decimal.Decimal(f.denominator))


# ---------------------------------------------------------------- the entry
@entry_doc
def critical(
    model,
    param: str = "theta",
    over: str = "D",
    at=None,
    dps: int = 15,
    method: str = "auto",
    *,
    float64: bool = False,
    force: bool = False,
    lo=None,
    hi=None,
) -> CriticalCurve:
    """The critical value of ``param`` (the smallest value > 0 at which roots of the
    characteristic equation cross the imaginary axis: a Hopf or a real crossing) and the
    crossing frequency, at each value of ``over`` in ``at``.

    Parameters
    ----------
    model : Model
        The model, every parameter a number except ``param``, which is left free (and
        ``over`` when ``at`` sweeps it).
    param : str, default "theta"
        The parameter whose critical value is sought: one of the model's parameters (the
        routing sensitivity ``theta`` by default).
    over : str, default "D"
        The parameter or family option swept by ``at``: the mean delay ``D`` by default (for
        an Erlang delay written with its phase rate, ``gamma = L/D`` is substituted exactly).
    at : number, str or sequence of them, optional
        The values of ``over``, each a number or its decimal text (made exact: ``"0.1"`` is
        1/10). Default None: the model as given, one point.
    dps : int, default 15
        Significant digits (5..10000) of every critical value and frequency; the crossing is
        computed with guard digits beyond them.
    method : {"auto", "generic", "specialised"}, default "auto"
        %(method)s
    float64 : bool, default False
        For plots and scans over many values: a family's fast path may run in float64 (about
        14 digits, no certificate; the record's ``dps`` says so). The generic path answers
        exactly at ``dps`` whatever this says.
    force : bool, default False
        Run work estimated over the budget (:mod:`symdelay.core.budget`): the certified
        search of a lag's parameter, and every estimate of the analyses called.
    lo, hi : str or number, optional
        A range of ``param`` (both or neither; exact): the equilibrium of a transition
        table without lags followed numerically over it (the path for an equilibrium with
        no closed form in ``param``), and the first crossing in the range, where it is a
        Hopf point proved by a Krawczyk box (one point, its ``note`` saying what was
        searched); refused where the count of unstable roots does not change in the range
        or first changes through a real root. Not with ``at``.

    Returns
    -------
    CriticalCurve
        One point per value of ``at`` (the value, ``critical``, the frequency ``omega``, the
        mode of the factor that crosses first; ``inf`` where no value destabilises), the
        factors and the family's ``closed_forms``. The generic path varies ``over`` as the
        model allows (its parameter, its family's option, ``gamma = L/D`` of an Erlang chain:
        the model prepared once), or refuses in one line.

    Examples
    --------
    >>> from symdelay.models import build_model
    >>> curve = critical(build_model("erlang", L=3, mu=1, lam=1), at=[3], dps=20)
    >>> curve.points[0].critical
    mpf('4.0')
    """
    dps = as_dps(dps)
    if lo is not None or hi is not None:
        return _range_critical(model, param, over, at, dps, method, lo, hi)
    if at is not None and (isinstance(at, (str, bytes)) or not hasattr(at, "__iter__")):
        at = [at]
    if at is not None:
        at = list(at)
        if not at:
            raise SymdelayInputError(f"give at least one value of {over} (at=[...])")
    with forced(force):
        return _critical(model, param, over, at, dps, method, float64, force)


def _range_critical(model, param, over, at, dps, method, lo, hi) -> CriticalCurve:
    """:func:`critical` over the range ``[lo, hi]`` of ``param`` (see its ``lo, hi``)."""
    from symdelay.analysis.hopf_numeric import range_first_crossing
    from symdelay.core.exact import exact_number
    from symdelay.core.precision import GUARD

    if lo is None or hi is None:
        raise SymdelayInputError("critical: give both lo and hi of the range, or neither")
    if at is not None:
        raise SymdelayInputError(
            f"critical over a range of {param} is one point: leave at (the values of {over}) out"
        )
    if not exact_number("lo", str(lo)) < exact_number("hi", str(hi)):
        raise SymdelayInputError(f"the range of {param} needs lo < hi, got [{lo}, {hi}]")
    if method == "specialised":
        raise SymdelayInputError(
            "the critical value over a range has no specialised path: use method='generic'"
        )
    if has_lags(model):
        raise SymdelayInputError(
            f"a range of {param} follows a transition table's equilibrium numerically; "
            f"{model.name} has lags: leave the range out"
        )
    value, omega, note = range_first_crossing(model, param, lo, hi, dps=dps)
    with mpmath.workdps(dps + GUARD):
        point = CriticalPoint(None, +value, +omega, None, note=note, param=param, over=over)
    # the family's closed forms describe its first crossing, which need not be the range's
    return replace(
        critical_record(model, param, over, [point], dps, "generic", ()), closed_forms=None
    )


def _critical(model, param, over, at, dps, method, float64, force) -> CriticalCurve:
    kw = {"param": param, "over": over, "at": at, "dps": dps, "float64": float64}
    result = specialised(model, "critical", method, **kw)
    if result is not None:
        return result
    require_table(model, "critical")
    from symdelay.analysis.roots import check_analysis_cost

    if at is None:
        check_analysis_cost(model)
        point = _critical_point(model, param, dps, force=force)
        points = (replace(point, param=param, over=over),)
        return critical_record(
            model, param, over, points, dps, "generic", _factors_shown(model, param)
        )
    pts = []
    swept = None if has_lags(model) else _swept(model, param, over, at[0])
    for v in at:
        if swept is not None:
            p = swept.point(v, dps)
        else:
            m = _vary(model, over, v)
            check_analysis_cost(m)
            p = _critical_point(m, param, dps, force=force)
        at_v, label = _value(over, v), point_label(v)  # built directly: replace() costs 2x
        pts.append(
            CriticalPoint(
                at_v, p.critical, p.omega, p.mode, p.per_factor, p.note, label, param, over
            )
        )
    factors = swept.factors if swept is not None else _factors_shown(model, param)
    return critical_record(model, param, over, pts, dps, "generic", factors)


def _value(over: str, v):
    from symdelay.core.exact import exact_number

    try:
        return exact_number(over, v)
    except (SymdelayInputError, TypeError):
        return v


def _factors_shown(model, param: str) -> tuple:
    """The factors of the model as given that carry ``param`` (none where its equilibrium
    moves with ``param``: no closed-form factor)."""
    from symdelay.model.core import _symbol

    p = _symbol(param)
    if p not in model.domains or not model.equilibrium_is_closed_form_in(p):
        return ()
    factors = model.characteristic_factors if has_lags(model) else model.factors
    return tuple(
        CurveFactor(str(f.factor), f.mode, f.multiplicity) for f in factors if f.factor.has(p)
    )


def _vary(model, over: str, value):
    """The model at ``over = value``, however its family allows; one line when it cannot."""
    from symdelay.analysis.entry import family_options
    from symdelay.model.core import _symbol

    options = family_options(model)
    # a family model carrying its options, or a parameter of the model
    if (isinstance(options, dict) and over in options) or _symbol(over) in model.domains:
        return model.with_values(**{over: value})
    rebuild = vars(model).get("rebuild")
    if rebuild is not None:  # built by a family (symdelay.models.build_model, the door)
        return rebuild(**{over: value})
    if over == "D":
        from symdelay.analysis.window import _erlang_chain_length
        from symdelay.core.params import as_parameter

        g = _symbol("gamma")
        if g in model.domains and g not in model.values:
            L = _erlang_chain_length(model, g)
            if L is not None:
                return model.with_values(gamma=L / as_parameter("D", value))
    raise SymdelayInputError(
        f"{model.name} cannot vary {over} (not a parameter, and no family to rebuild it): "
        f"build the model at each {over}, or sweep one of "
        + ", ".join(str(q) for q in model.parameters)
    )


def _declared_substitution(model, over: str):
    """``value -> {symbol: value}`` when the model's family states that varying ``over`` is
    that substitution into this model (a family module's ``sweep_substitution``), else
    None: then the sweep builds the model at two values to see it."""
    rebuild = vars(model).get("rebuild")  # symdelay.models.Rebuild (built by a family)
    statement = getattr(rebuild, "substitution", None)
    return None if statement is None else statement(over)


def _swept(model, param: str, over: str, first):
    """:func:`_swept_build`, kept on the model (one preparation for every curve of it)."""
    return model.cached(
        f"critical-swept:{param}:{over}", lambda: _swept_build(model, param, over, first)
    )


def _swept_build(model, param: str, over: str, first):
    """The D sweep of an Erlang chain with a free phase rate ``gamma`` (``gamma = L/D``):
    the model's factors once, symbolic in ``gamma`` (:func:`_factor_terms`: by mode in
    sparse arithmetic unless the model has them already), and for each factor linear in
    ``param``, ``A(r; gamma) + param B(r; gamma)``, the factors of ``A`` and of ``B`` over
    ``Q[r, gamma]`` (flint). At each D those factors are evaluated exactly and go to
    :func:`symdelay.analysis.crossing_factored.critical_factored` (the crossing phase from
    the roots of the factors: O(factors), not O(L^2); every crossing up to ``UPTO`` times
    the first, the counts on both sides by transversality); where that does not apply, the
    expanded coefficients go to :func:`symdelay.analysis.crossing.critical_linear` (the
    positive roots of one polynomial in ``w^2`` by Descartes). Returns a :class:`_Swept`
    (``point(value, dps) -> CriticalPoint`` and the factors as printed), or None where
    this does not apply (another swept option, a factor not linear in ``param``, a family
    whose model at D is not this one with ``gamma = L/D``): the caller rebuilds per point.
    """
    import sympy as sp

    from symdelay.analysis.window import _erlang_chain_length
    from symdelay.core.params import as_parameter
    from symdelay.core.symbols import r
    from symdelay.model.core import _symbol

    if over != "D":
        return None
    g, p = _symbol("gamma"), _symbol(param)
    for q in (g, p):
        if q not in model.domains or q in model.values:
            return None
    if any(q not in (g, p) for q in model.free_parameters):
        return None
    L = _erlang_chain_length(model, g)
    if L is None:
        return None
    try:
        D0 = as_parameter("D", first)
    except SymdelayInputError:
        return None
    if not D0.is_Rational or D0 <= 0:
        return None
    declared = _declared_substitution(model, over)
    D1 = D0 * sp.Rational(3, 2)
    if declared is not None:  # the family's own statement (checked against builds in tests)
        if declared(D0) != {g: L / D0} or declared(D1) != {g: L / D1}:
            return None
    else:
        try:
            at_first = _vary(model, over, first)
        except SymdelayInputError:
            return None
        if not _same_rates(at_first, model, {g: L / D0}):
            return None  # the family varies D otherwise: rebuild per point
        try:  # and at a second D, the map D -> gamma = L/D
            if not _same_rates(_vary(model, over, D1), model, {g: L / D1}):
                return None
        except SymdelayInputError:
            return None
    # the equilibrium in closed form with param free (model.equilibrium_is_closed_form_in,
    # whose solve the model's equilibrium repeats: here one solve, kept for the Jacobian)
    try:
        eq = model.equilibrium
    except SymdelayInputError:
        return None
    closed = eq.method.startswith(("sympy.solve", "exact linear elimination", "closed form"))
    if not (eq.exact and closed and "equal routing" not in eq.method):
        return None
    import flint

    factors = _factor_terms(model, r, p, g)
    if factors is None:
        return None

    def as_poly(d):
        top = max(d, default=0)
        return flint.fmpq_poly([d.get(e, 0) for e in range(top + 1)])

    prepared, shown = [], []
    names = ("r", param, "gamma")
    for mode, mult, terms in factors:
        shown.append(CurveFactor(_poly_text(terms, names), mode, mult))
        if max(j for _k, j, _e in terms) != 1:
            return None
        n = max(k for k, _j, _e in terms) + 1
        A = [{} for _ in range(n)]
        B = [{} for _ in range(n)]
        for (k, j, e), c in terms.items():
            (A if j == 0 else B)[k][e] = c
        # F(r; param = 0) factored once over Q[r, gamma] (flint): its exact unstable count
        # at each D is the baseline of the transversality proof (critical_linear)
        base = _factor_rows({(k, e): c for (k, j, e), c in terms.items() if j == 0}, as_poly)
        # and the coefficient of param, B(r; gamma), factored too: with both, each D point is
        # solved from the roots of the factors alone (critical_factored)
        slope = _factor_rows({(k, e): c for (k, j, e), c in terms.items() if j == 1}, as_poly)
        prepared.append((mode, mult, [as_poly(d) for d in A], [as_poly(d) for d in B], base, slope))

    def point(value, dps):
        from symdelay.analysis.crossing import critical_linear, critical_parameter
        from symdelay.analysis.crossing_factored import critical_factored
        from symdelay.model.records import Factor

        D = as_parameter("D", value)
        if not D.is_Rational or D <= 0:
            return _critical_point(_vary(model, over, value), param, dps)
        gv = flint.fmpq(int(L * D.q), int(D.p))
        per = []
        for mode, mult, Ac, Bc, base, slope in prepared:
            expr = _LazyLinear(Ac, Bc, p, gv)
            fac = Factor(expr, mult, mode)
            cp = critical_factored(
                _at(base, gv), _at(slope, gv), r, p, dps=dps, upto=UPTO, expression=expr
            )
            if cp is None:  # the expanded coefficients decide
                A, B = expr.coefficients()
                baseline = _baseline(base[1], gv)
                cp = critical_linear(
                    A, B, r, p, dps=dps, expression=expr, baseline=baseline, upto=UPTO
                )
            if cp is None:
                cp = critical_parameter(expr, r, p, dps=dps)
            per.append((fac, cp))
        if not per:
            return CriticalPoint(None, mpmath.inf, None)
        fac, best = min(per, key=lambda fc: fc[1].p_c)
        return CriticalPoint(None, best.p_c, best.omega, fac.mode, tuple(per))

    return _Swept(point, tuple(shown))


#: A model prepared for a sweep: ``point(value, dps)`` and its ``factors`` (printed).
_Swept = namedtuple("_Swept", "point factors")


def _poly_text(terms, names) -> str:
    """``{(k, j, e): fmpq}`` (``c r^k p^j gamma^e``) as SymPy text, highest power of r first
    (flint prints it: no SymPy expression is built)."""
    import flint

    ctx = flint.fmpq_mpoly_ctx.get(names, "lex")
    return str(ctx.from_dict({m: c for m, c in terms.items() if c})).replace("^", "**")


#: The swept path lists the crossings up to this multiple of the first (the rest need not be
#: isolated: see :func:`symdelay.analysis.crossing.critical_linear`, ``upto``)
UPTO = 2


def _factor_rows(terms, as_poly):
    """``(content, [(rows, multiplicity)])``: the irreducible factors over ``Q[r, gamma]`` of
    the polynomial with ``terms`` ``{(k, e): c}`` (``c r^k gamma^e``), each as its coefficients
    in ``r`` (fmpq_poly in gamma, ascending), factored by flint."""
    import flint

    ctx = flint.fmpq_mpoly_ctx.get(("r", "gamma"), "lex")
    poly = ctx.from_dict({ke: c for ke, c in terms.items() if c})
    content, parts = poly.factor()
    out = []
    for q, mult in parts:
        d = q.to_dict()
        top = max(k for k, _e in d)
        rows = [{} for _ in range(top + 1)]
        for (k, e), c in d.items():
            rows[k][e] = c
        out.append(([as_poly(row) for row in rows], int(mult)))  # free of r: a number at D
    return flint.fmpq(content), out


def _at(factored, gv):
    """``(content, [(fmpq_poly in r, multiplicity)])`` of :func:`_factor_rows` at
    ``gamma = gv``."""
    import flint

    content, rows = factored
    return content, [(flint.fmpq_poly([c(gv) for c in row]), mult) for row, mult in rows]


def _factor_terms(model, r, p, g):
    """``[(mode label, multiplicity, terms)]`` for the factors of ``det(rI - J)`` that depend
    on ``p`` (``terms``: ``{(k, j, e): fmpq}`` for ``c r^k p^j g^e``), or None where a factor
    is not a polynomial in ``r, p, g`` with rational coefficients. The model's own factors
    when it has computed them; otherwise :func:`_sparse_modes` (the same modes in sparse
    arithmetic) where that applies; otherwise the model's factors."""
    import flint
    import sympy as sp

    if "factors" not in vars(model):
        got = _sparse_modes(model, (r, p, g))
        if got is not None:
            return [f for f in got if any(j for _k, j, _e in f[2])]
    from symdelay.analysis.roots import check_analysis_cost

    check_analysis_cost(model)  # the refusal of the dense symbolic analysis
    out = []
    for f in model.factors:
        if not f.factor.has(p):
            continue
        num, den = sp.fraction(sp.together(f.factor))
        if den.has(r) or den.has(p):
            return None
        try:
            P = sp.Poly(sp.expand(num), r, p, g)
        except sp.PolynomialError:
            return None
        if not all(c.is_Rational for c in P.coeffs()):
            return None
        terms = {m: flint.fmpq(int(c.p), int(c.q)) for m, c in P.terms()}
        out.append((f.mode, f.multiplicity, terms))
    return out


def _sparse_modes(model, gens):
    """The factors of ``det(rI - J)`` by mode, as :attr:`Model.factors` has them (the sum
    and difference modes of a permutation with cycles of length <= 2, or the full Jacobian),
    without dense SymPy matrices: the Jacobian entry by entry from the drift at the exact
    equilibrium, each block ``B = V^T J V / |v|^2`` column by column with ``J V = V B``
    checked exactly, its characteristic polynomial by SymPy's sparse charpoly, its factors
    over ``Q[r, p, gamma]`` by flint (identical blocks merge into one factor with copies).
    ``[(label, multiplicity, terms)]`` (every factor with ``r``), or None where this does not
    apply (longer cycles, an inexact equilibrium, an entry or a coefficient that is not a
    polynomial in the parameters with rational coefficients)."""
    import flint
    import sympy as sp
    from sympy.polys.matrices import DomainMatrix

    from symdelay.core.errors import VerificationError
    from symdelay.model.modes import _name
    from symdelay.model.records import _cycles

    _r, p, g = gens
    eq = model.equilibrium
    if not eq.exact:
        return None
    states = list(model.states)
    n = len(states)
    index = {s: i for i, s in enumerate(states)}
    perm = model.permutation
    cycles = _cycles(perm) if perm is not None else [[i] for i in range(n)]
    k = max(len(c) for c in cycles)
    if k > 2:
        return None
    allowed = {p, g}
    cols = {}  # the Jacobian at the equilibrium by column: j -> {i: entry}
    for i, f in enumerate(model.drift):
        for s in f.free_symbols:
            j = index.get(s)
            if j is None:
                continue
            e = sp.expand(sp.cancel(sp.diff(f, s).xreplace(eq.point)))
            if e != 0:
                if not e.free_symbols <= allowed or not e.is_polynomial(p, g):
                    return None
                cols.setdefault(j, {})[i] = e
    blocks = []  # (mode name, block as {(row, col): entry}, size)
    for jm in range(k):
        basis = []  # one vector per orbit: {state: +-1}
        for cyc in cycles:
            if len(cyc) == 1:
                if jm == 0:
                    basis.append({cyc[0]: 1})
            else:
                basis.append({cyc[0]: 1, cyc[1]: 1 if jm == 0 else -1})
        where = {i: (c, sign) for c, v in enumerate(basis) for i, sign in v.items()}
        entries = {}
        for c, v in enumerate(basis):
            jv = {}  # J v
            for j, sign in v.items():
                for i, e in cols.get(j, {}).items():
                    jv[i] = jv.get(i, 0) + sign * e
            sums = {}
            for i, e in jv.items():
                if i not in where:
                    if sp.expand(e) != 0:
                        raise VerificationError(f"mode {jm} is not invariant under the Jacobian")
                    continue
                c2, sign = where[i]
                sums[c2] = sums.get(c2, 0) + sign * e
            for c2, total in sums.items():
                b = sp.expand(total / len(basis[c2]))
                # J v = V B: every row of the orbit c2 carries b (times its sign)
                for i, sign in basis[c2].items():
                    if sp.expand(jv.get(i, 0) - sign * b) != 0:
                        raise VerificationError(f"mode {jm} is not invariant under the Jacobian")
                if b != 0:
                    entries[(c2, c)] = b
        blocks.append((_name(model, jm, k) if perm is not None else "full", entries, len(basis)))
    ctx = flint.fmpq_mpoly_ctx.get(tuple(str(x) for x in gens), "lex")
    merged = []  # (name, charpoly mpoly, copies)
    for name, entries, m in blocks:
        poly = _charpoly_cycles(entries, m, ctx, gens)
        if poly is not None:
            _merge(merged, name, poly)
            continue
        M = sp.SparseMatrix(m, m, entries)
        dm = DomainMatrix.from_Matrix(M).to_sparse()
        K = dm.domain
        if not (K.is_ZZ or K.is_QQ or (K.is_PolynomialRing and K.domain.is_Exact)):
            return None
        names = [] if not K.is_PolynomialRing else [str(s) for s in K.symbols]
        if not set(names) <= {str(p), str(g)}:
            return None
        terms = {}
        cp = dm.charpoly()  # det(rI - B), highest power first
        top = len(cp) - 1
        for pos, coeff in enumerate(cp):
            kr = top - pos
            items = coeff.to_dict().items() if K.is_PolynomialRing else [((), coeff)]
            for mono, c in items:
                ex = dict(zip(names, mono))
                q = K.domain.to_sympy(c) if K.is_PolynomialRing else K.to_sympy(c)
                key = (kr, int(ex.get(str(p), 0)), int(ex.get(str(g), 0)))
                terms[key] = flint.fmpq(int(q.p), int(q.q))
        _merge(merged, name, ctx.from_dict(terms))
    out = []
    for name, poly, copies in merged:
        _content, parts = poly.factor()
        for f, mult in parts:
            d = f.to_dict()
            if all(mono[0] == 0 for mono in d):
                continue  # free of r
            top = max(mono[0] for mono in d)
            lead = [(mono, c) for mono, c in d.items() if mono[0] == top]
            if len(lead) == 1 and not any(lead[0][0][1:]):  # monic in r, as the model's
                d = {mono: c / lead[0][1] for mono, c in d.items()}
            label = name if copies == 1 else f"{name} ({copies} copies)"
            out.append(
                (label, int(mult) * copies, {tuple(int(x) for x in mo): c for mo, c in d.items()})
            )
    return out


def _merge(merged: list, name: str, poly) -> None:
    """Identical blocks' charpolys are one factor with copies."""
    for i, (n2, p2, copies) in enumerate(merged):
        if p2 == poly:
            merged[i] = (n2, p2, copies + 1)
            return
    merged.append((name, poly, 1))


def _charpoly_cycles(entries, m, ctx, gens):
    """``det(rI - B)`` of a block ``{(row, col): entry}`` by its cycle covers
    (:func:`symdelay.core.sparse_charpoly.charpoly_by_cycles`: a delay chain has a few
    cycles, where Berkowitz costs O(m^3) polynomial operations), or None where an entry is
    not a polynomial in the parameters with rational coefficients or the block has too
    many cycles (then SymPy's sparse charpoly answers)."""
    import flint
    import sympy as sp

    from symdelay.core.sparse_charpoly import charpoly_by_cycles

    _r, *params = gens
    conv = {}
    for key, e in entries.items():
        try:
            P = sp.Poly(e, *params)
        except sp.PolynomialError:
            return None
        terms = {}
        for mono, c in P.terms():
            if not c.is_Rational:
                return None
            terms[(0, *mono)] = flint.fmpq(int(c.p), int(c.q))
        conv[key] = ctx.from_dict(terms)
    diag = {i: e for (i, j), e in conv.items() if i == j}
    off = {(i, j): e for (i, j), e in conv.items() if i != j}
    return charpoly_by_cycles(diag, off, m, ctx.gens()[0], ctx)


class _LazyLinear:
    """``A(r) + p B(r)`` at ``gamma = gv`` (coefficients in ``r``: fmpq_poly in gamma), its
    exact coefficients and SymPy expression computed on first use (the fallback path,
    printing a record): at large L they cost more than solving from the factors."""

    def __init__(self, Ac, Bc, p, gv):
        self._parts = (Ac, Bc, p, gv)
        self._coeffs = None
        self._expr = None

    def coefficients(self):
        """``(A, B)``: the exact coefficients (fmpq, ascending in ``r``)."""
        if self._coeffs is None:
            Ac, Bc, _p, gv = self._parts
            self._coeffs = ([c(gv) for c in Ac], [c(gv) for c in Bc])
        return self._coeffs

    @property
    def expr(self):
        if self._expr is None:
            from symdelay.analysis.crossing import _rational
            from symdelay.core.symbols import r

            A, B = self.coefficients()
            p = self._parts[2]
            self._expr = sum(_rational(a) * r**k for k, a in enumerate(A)) + p * sum(
                _rational(b) * r**k for k, b in enumerate(B)
            )
        return self._expr

    def _sympy_(self):
        return self.expr

    def __str__(self):
        return str(self.expr)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.expr, name)


def _baseline(base, gv):
    """The exact unstable count of ``F(r; 0)`` from its factors at ``gamma = gv`` (None if
    one has a root on the axis)."""
    from symdelay.analysis.crossing import _rational
    from symdelay.analysis.polyroots import exact_counts

    total = 0
    for rows, mult in base:
        coeffs = [_rational(c(gv)) for c in rows]
        while len(coeffs) > 1 and coeffs[-1] == 0:
            coeffs.pop()
        if len(coeffs) == 1:
            if coeffs[0] == 0:
                return None
            continue
        if len(coeffs) == 2:
            if coeffs[0] == 0:
                return None
            total += mult * (1 if coeffs[0] / coeffs[1] < 0 else 0)
            continue
        c = exact_counts(coeffs[::-1])
        if c.axis:
            return None
        total += mult * c.rhp
    return total


def _same_rates(a, b, extra):
    """The transition tables of ``a`` and of ``b`` at ``extra`` are one (as sets): compared as
    written first, expanded only where that differs."""
    ta = {(tuple(t.change), t.rate.xreplace(a.values), t.lag) for t in a.transitions}
    values = {**b.values, **extra}
    tb = {(tuple(t.change), t.rate.xreplace(values), t.lag) for t in b.transitions}
    return ta == tb or _rates(a) == _rates(b, extra)


def _rates(model, extra=None):
    """The transition table as a comparable set (changes and rates at the model's values)."""
    import sympy as sp

    values = {**model.values, **(extra or {})}
    return {(tuple(t.change), sp.expand(t.rate.xreplace(values)), t.lag) for t in model.transitions}


def _critical_point(
    model, param: str = "theta", dps: int = 15, *, force: bool = False
) -> CriticalPoint:
    """The smallest ``param > 0`` at which roots of some factor cross the imaginary axis
    (the generic path at one point)."""
    from symdelay.analysis.crossing import critical_parameter
    from symdelay.core.symbols import r
    from symdelay.model.core import _symbol

    p = _symbol(param)
    if p not in model.domains:
        raise SymdelayInputError(
            f"'{param}' is not a parameter of {model.name}: use one of "
            + ", ".join(str(q) for q in model.parameters)
        )
    if p in model.values:
        raise SymdelayInputError(f"{param} has a value ({model.values[p]}): leave it free")
    missing = [str(q) for q in model.free_parameters if q != p]
    if missing:
        raise SymdelayInputError(
            f"the critical {param} needs numbers for " + ", ".join(missing) + ": give them"
        )
    if not model.equilibrium_is_closed_form_in(p):
        return _point_by_verdicts(model, param)
    from symdelay.core.lazy import sympy as sp

    factors = model.characteristic_factors if has_lags(model) else model.factors
    if any(p in e.args[0].free_symbols for f in factors for e in f.factor.atoms(sp.exp)) or (
        has_lags(model) and any(p in lag.parameters() for lag in model.lags.values())
    ):
        return _critical_lag(model, p, factors, dps, force)  # the parameter is a lag's
    if has_lags(model):
        from symdelay.analysis.window import _transcendental

        if _transcendental(model):  # rational kernels keep the exact polynomial path
            return _critical_coefficient(model, param, dps)
    per = []
    for f in factors:
        if f.factor.has(p):
            per.append((f, critical_parameter(f.factor, r, p, dps=dps)))
    if not per:
        return CriticalPoint(None, mpmath.inf, None)
    f, best = min(per, key=lambda fc: fc[1].p_c)
    return CriticalPoint(None, best.p_c, best.omega, f.mode, tuple(per))


def _critical_coefficient(model, param: str, dps: int) -> CriticalPoint:
    """The first switch from stable of a delay model in a coefficient at fixed lags (any
    lag kind, retarded or neutral): the scan of :func:`symdelay.analysis.lagcross.switches`
    over growing ranges ``(0, 8^k]`` until the count leaves its value at ``0+``; a neutral
    boundary met first is the answer (labelled); none within the frequency budget: ``inf``
    labelled as what was searched."""
    from symdelay.analysis.lagcross import switches
    from symdelay.core.lazy import sympy as sp
    from symdelay.core.numbers import format_number

    P = sp.Integer(8)
    while True:
        sw = switches(model, param, sp.Integer(0), P, dps)
        notes = [n for n in sw.notes if not n.startswith("crossings searched")]
        if sw.counts and sw.counts[0] is not None and sw.counts[0] > 0:
            note = f"unstable for every small {param} > 0 ({sw.counts[0]} roots in Re r > 0)"
            return CriticalPoint(None, mpmath.mpf(0), None, None, (), note)
        for i, g in enumerate(sw.breakpoints):
            n = sw.counts[i + 1]
            if n is None or n != 0:
                c = min(g, key=lambda c: c.p)
                note = None if n is not None else "the count beyond it is undecided"
                return CriticalPoint(None, c.p, c.omega, c.mode, (), note)
        if sw.neutral is not None and sw.sharp:
            with mpmath.workdps(dps + 10):
                v = mpmath.mpf(int(sw.neutral.p)) / int(sw.neutral.q)
            head = (
                f"the neutral boundary: the difference operator loses stability at {param} = "
                f"{sw.neutral}"
            )
            if sw.searched == sw.neutral:
                note = head + " (no crossing below it: proved)"
            else:
                last = format_number(mpmath.mpf(float(sw.searched)), 8)
                gap = format_number(v - mpmath.mpf(float(sw.searched)), 3)
                note = (
                    f"{head} (no crossing below {last}; crossings may accumulate towards it, "
                    f"the last {gap} not resolved)"
                )
            return CriticalPoint(None, v, None, None, (), note)
        if sw.searched < P or P > 10**6:
            where = format_number(mpmath.mpf(float(sw.searched)), 8)
            note = "; ".join(
                [*notes, f"no crossing for {param} <= {where} (searched; not proved beyond)"]
            )
            return CriticalPoint(None, mpmath.inf, None, None, (), note)
        P = P * 8


def _critical_lag(model, p, factors, dps, force: bool = False) -> CriticalPoint:
    """The critical value of a lag's parameter ``p``: the first stability switch from a
    stable equation. One constant lag: the exact switches
    (:func:`symdelay.analysis.lagswitch.lag_switches`, every lag). Otherwise (a distributed
    lag, a second fixed lag, a neutral equation): ``inf`` when every mode that moves is
    ``r + a + c k(r p)`` with a scale-family kernel and no ``phi`` can cross
    (:func:`symdelay.analysis.lagparam.stable_for_every`: proved stable for every ``p > 0``);
    otherwise the certified crossings of
    :func:`symdelay.analysis.lagparam.lag_crossings` on ``(0, H]``, ``H`` doubled from
    ``4 pi / R`` (``R`` the proven frequency bound) until a switch from stable is found; when
    none is found up to :data:`LAG_SEARCH_DOUBLINGS` doublings the answer is refused as
    undecided beyond (the range searched is certified free of switches, not the rest)."""
    from symdelay.analysis.lagswitch import exact_refusal
    from symdelay.core.lazy import sympy as sp

    F = sp.Mul(*[f.factor**f.multiplicity for f in factors])
    why = exact_refusal(F, p)
    if why is None:
        from symdelay.analysis.lagswitch import lag_switches

        sw = lag_switches(F, p, 0, None, dps, name=model.name, force=force)
        note = "; ".join(sw.notes)
        if sw.critical == 0:
            note = (note + "; " if note else "") + f"unstable for every small {p} > 0"
        return CriticalPoint(None, sw.critical, sw.critical_omega, None, (), note or None)
    from symdelay.analysis.lagparam import first_switch, stable_for_every

    proof = stable_for_every(model, str(p), dps)  # a scalar mode with a scale-family kernel
    if proof is not None:
        return CriticalPoint(None, mpmath.inf, None, None, (), proof)
    value, omega, mode, note = first_switch(model, str(p), dps, LAG_SEARCH_DOUBLINGS, force=force)
    head = f"certified lag-parameter path (the exact constant-lag path does not apply: {why})"
    return CriticalPoint(None, value, omega, mode, (), f"{head}; {note}")


#: How often :func:`_critical_lag` doubles the range of a lag's parameter it searches.
LAG_SEARCH_DOUBLINGS = 5


#: Where :func:`critical_by_verdicts` looks (log-spaced), and the digits of the crossing.
SEARCH = {"low": 1e-3, "high": 1e4, "points": 29, "dps": 15}


def critical_by_verdicts(model, param: str = "theta", search=None) -> CriticalCurve:
    """The first ``param`` where the equilibrium loses stability, when the equilibrium itself
    moves with ``param`` (no closed form).

    The equilibrium is continued over a log-spaced scan (``search``: ``low``, ``high``,
    ``points``) with its eigenvalues counted; the first change is bracketed, and the crossing
    is solved together with its equilibrium and proved by a Krawczyk test to ``dps`` digits
    (:func:`symdelay.analysis.stability_map_moving.first_crossing`). The record says what
    was searched; no change found means ``inf`` *within the searched range*, not a proof
    beyond it. (:func:`critical` takes this branch by itself.)
    """
    point = replace(_point_by_verdicts(model, param, search), param=param)
    return critical_record(model, param, "D", (point,), 15, "generic", ())


def _point_by_verdicts(model, param: str = "theta", search=None) -> CriticalPoint:
    from symdelay.analysis.stability_map_moving import first_crossing

    cfg = {**SEARCH, **(search or {})}
    unknown = set(cfg) - set(SEARCH)
    if unknown:
        raise SymdelayInputError(
            f"search: unknown keys {', '.join(sorted(unknown))}: use " + ", ".join(SEARCH)
        )
    value, omega, _kind, _ok, note = first_crossing(
        model, param, cfg["low"], cfg["high"], cfg["points"], dps=cfg["dps"]
    )
    if value is None:
        return CriticalPoint(None, mpmath.inf, None, None, (), note)
    return CriticalPoint(None, value, omega, "full", (), note)
