"""Instability windows and extrema of critical values, for any model with a polynomial
characteristic function.

:func:`window` answers: with every other parameter a number, for which values of ``param``
is the equilibrium unstable? :func:`extremum` answers: which value of a second parameter
``over`` makes the critical value of ``param`` smallest (the worst delay), largest, or
ends instability altogether (the smallest in-flight weight that is stable for every theta).

Method (a proof, not a sample). Write a factor of ``det(rI - J)`` as ``F(r; p)``, cleared of
denominators, with exact rational coefficients. The number of roots in the open right
half-plane can change only where a root is on the imaginary axis or where the degree in
``r`` drops (a root through infinity). With ``r = i w`` and ``s = w^2``,
``F(i w) = U(s; p) + i w V(s; p)``; so every such ``p`` is a real root of one of

* ``F(0; p)`` (a real root through ``r = 0``),
* ``Res_s(U, V)(p)`` (a pair ``+-i w``; when ``U`` or ``V`` is free of ``s``, that part),
* the leading coefficient of ``F`` in ``r`` (and the denominator that was cleared).

These exact polynomials are factored over Q (flint) and their real roots isolated by Arb
to ``dps`` digits: each breakpoint is an Arb ball whose ends are exact rationals. Between
consecutive breakpoints the count of unstable roots is constant; it is counted once, at an
exact rational point, by exact arithmetic (Sturm sequence / Cauchy index,
:func:`symdelay.analysis.polyroots.exact_counts`), summed over every factor with its
multiplicity. A breakpoint between two unstable gaps belongs to the window when the roots
that can be on the axis there (bounded with Arb) are fewer than the unstable roots on one
side (roots off the axis keep their side nearby); candidates where no root is on the axis
are dropped (the counts on both sides must then agree: a machine check).

The crossing frequency at each end is ``0`` (real root) or ``sqrt(s)`` with ``s > 0`` a
common root of ``U`` and ``V`` at the ball of ``p`` (Arb).

"D" for an Erlang delay written with a phase rate ``gamma`` (the founding model without a
mean, the TOML example ``erlang2.toml``): the transition table is read for the chain of
``gamma``-rate phases (``L`` of them), and ``gamma = L/D`` is substituted exactly.

Extrema. With ``over = x``, the crossing curves ``F(0; p, x) = 0`` and ``Res_s(U, V)(p, x) =
0`` are plane algebraic curves. The critical value ``p_c(x)`` (the first ``p`` above
``param_lo`` where the equilibrium is unstable) follows one branch of them between values of
``x`` where a branch has a horizontal tangent (``H = H_x = 0``), a fold (``H = H_p = 0``),
an asymptote (leading coefficient in ``p``), two branches meet (``Res_p(H_1, H_2)``) or a
branch crosses an end of the range of ``p`` (``H(param_lo, x)``):
all real roots of exact polynomials in ``x``, isolated by Arb. Between two such values
``p_c`` is monotone, so its minimum (maximum) over ``[lo, hi]`` is at one of them or at an
end; ``p_c`` is evaluated (by :func:`window`) at each, at a rational point within
``10^-(dps+10)`` of it. The stable set ``{x: stable for every param in range}`` is a union
of the gaps between those values, each decided at one rational point.

A delay model in a coefficient at fixed lags (``F = A(r) + p B(r)`` with ``A``, ``B``
polynomials in ``r`` and in the kernels of any lag kind: ``exp(-r tau)``, the uniform
``(1 - e^{-r D})/(r D)``, gamma of any shape, mixtures, phase type; retarded or neutral) has
no finite elimination: :mod:`symdelay.analysis.lagcross` isolates every crossing ``r = i w``
in Arb up to the bound beyond which ``|A(i w)| > hi |B(i w)|`` (every kernel has
``|K(i w)| <= 1``), encloses each to ``dps`` digits (no exact bracket) with its direction
proved, and counts the unstable roots of every gap by the argument principle. For a neutral
equation the ``p`` where the difference operator loses stability (``|lam theta p| = 1`` for
the announcement with velocity) is an end of every stable interval, labelled ``"neutral
boundary"``; crossings may accumulate below it (then the last piece is labelled undecided
and ``certified`` is False). ``hi`` must be finite there.

Special cases: :func:`unstable_theta` (the window in theta from 0), :func:`worst_delay`
(``extremum(kind="min")`` over D) and :func:`kappa_star` (``extremum(kind="stable")``).

>>> from symdelay.models import build_model
>>> w = window(build_model("erlang", L=2, mu=1, lam=1, D=1), "theta", lo=0)
>>> w.to_json()["intervals"]
[['9.00000000000000', 'inf']]
"""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass, field

import flint
import mpmath

from symdelay.analysis.crossing import (
    P_NAME,
    S_NAME,
    X_NAME,
    _axis_resultant,
    _between,
    _breakpoints,
    _components,  # noqa: F401 (read by the tests with the window's other pieces)
    _crossings,
    _exact_end,
    _from_dict1,
    _irreducibles,
    _mp_ball,
    _mp_q,
    _mpoly_to_poly1,
    _Poly2,
    _rational,
)
from symdelay.analysis.entry import entry_doc, specialised
from symdelay.analysis.polyroots import _fmpq, exact_counts
from symdelay.core.errors import SymdelayInputError, VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.numbers import format_number
from symdelay.core.params import as_dps, as_parameter
from symdelay.core.precision import GUARD
from symdelay.core.result import Result
from symdelay.core.symbols import r as R_SYMBOL
from symdelay.model.core import has_lags

__all__ = [
    "Window",
    "WindowEnd",
    "WindowInterval",
    "Extremum",
    "window",
    "extremum",
    "unstable_theta",
    "worst_delay",
    "kappa_star",
    "estimate_cost",
    "MAX_ELIMINATION_DEGREE",
]


#: Budget: the largest degree of an elimination polynomial (in ``p`` for a window, in ``x``
#: for an extremum) attempted without ``force=True``: measured on dense factors, degree 336
#: takes 2 s, 540 takes 7 s, 744 takes 19 s (about cubic), so 1000 is about 45 s.
MAX_ELIMINATION_DEGREE = 1000


# ============================================================================ results
@dataclass(frozen=True)
class WindowEnd:
    """One end of an interval (or one breakpoint).

    ``value`` (mpmath, ``+-inf`` allowed); ``lower``/``upper``: an exact rational bracket
    (None at a domain end given exactly, or where the path gives no bracket: the founding
    closed form, certified numerics); ``omega``: the crossing frequencies there (0 for a
    real root); ``kind``: ``"r = 0"``, ``"r = i omega"``, ``"r = i omega (not isolated)"``
    (Arb could not resolve the roots on the axis there), ``"degree drop"`` (a root through
    infinity), ``"singular"`` (a rate's denominator vanishes), ``"domain end"`` or
    ``"infinite"``. The record gives value, frequencies and kind (the bracket is the
    generic path's certificate, kept on the object).
    """

    value: mpmath.mpf
    lower: sp.Rational | None
    upper: sp.Rational | None
    omega: tuple
    kind: str

    def to_json(self, dps: int) -> dict:
        return {
            "value": format_number(self.value, dps),
            "omega": [format_number(w, dps) for w in self.omega],
            "kind": self.kind,
        }


@dataclass(frozen=True)
class WindowInterval:
    """An open interval ``(lo, hi)`` of instability; ``unstable_roots``: the number of
    roots with ``Re r > 0`` on each piece between the breakpoints inside it (usually one
    piece; empty where the path does not count them)."""

    lo: WindowEnd
    hi: WindowEnd
    unstable_roots: tuple

    # an interval reads as the pair of its end values: ``(a, b) = interval``
    def __iter__(self):
        return iter((self.lo.value, self.hi.value))

    def __getitem__(self, i):
        return (self.lo.value, self.hi.value)[i]

    def __len__(self) -> int:
        return 2

    def to_json(self, dps: int) -> dict:
        return {"lo": self.lo.to_json(dps), "hi": self.hi.to_json(dps)}


def _method(path: str, algorithm: str, notes) -> dict:
    """The record's one key that names the path: which, how, and what it noted."""
    return {"path": path, "algorithm": algorithm, "notes": list(notes)}


@dataclass(frozen=True)
class Window(Result):
    """The values of ``param`` in ``(range_lo, range_hi)`` at which the equilibrium is
    unstable: maximal open ``intervals``; ``breakpoints`` every value where the count of
    unstable roots may change and ``counts[i]`` the count on the gap before
    ``breakpoints[i]`` (one more count than breakpoints; empty when a closed form gives the
    intervals alone: the generic path's proof, kept on the object). ``parameters``: the
    model's own options as shown (set by the entry, the same for both paths);
    ``algorithm`` and ``notes``: how the path found it; ``method``: the path.

    ``undecided``: the pieces ``(lo, hi)`` of the range where the unstable count is not
    decided (left out of ``intervals``; empty when every piece is decided).

    The record (one key set for every model and path): ``intervals`` as ``[lo, hi]``
    pairs of decimals, ``ends`` (each interval's ends: value, crossing frequencies, kind),
    ``undecided`` (``[lo, hi]`` pairs, ``[]`` when none), ``parameters``, ``range``,
    ``certified`` (false when any piece is undecided), and ``method`` (``{"path",
    "algorithm", "notes"}``, the one key that may differ between the paths).
    """

    model_name: str = field()  # (Result declares a class default: keep this one required)
    param: str
    parameters: dict
    dps: int
    range_lo: object
    range_hi: object
    intervals: tuple
    breakpoints: tuple
    counts: tuple
    algorithm: str
    certified: bool = True
    notes: tuple = field(default=())
    method: str = "generic"
    undecided: tuple = field(default=())

    def record(self) -> dict:
        d = self.dps
        out = {
            "model": self.model_name,
            "param": self.param,
            "parameters": dict(self.parameters),
            "dps": d,
            "range": [_range_text(self.range_lo, d), _range_text(self.range_hi, d)],
            "intervals": [
                [format_number(iv.lo.value, d), format_number(iv.hi.value, d)]
                for iv in self.intervals
            ],
            "ends": [iv.to_json(d) for iv in self.intervals],
            "undecided": [[format_number(a, d), format_number(b, d)] for a, b in self.undecided],
            "certified": self.certified and not self.undecided,
            "method": _method(self.method, self.algorithm, self.notes),
        }
        return _with_options(out, self.parameters)

    def latex(self) -> str:
        """The unstable set as a union of open intervals (``\\emptyset`` when there is
        none), the undecided pieces and the model's options beside."""
        from symdelay.core.display import latex_number
        from symdelay.core.latex import tex
        from symdelay.model.core import _symbol

        name = tex(_symbol(self.param))
        pairs = self.record()["intervals"]
        parts = [rf"\left({latex_number(a)},\ {latex_number(b)}\right)" for a, b in pairs]
        body = r" \cup ".join(parts) or r"\emptyset"
        shown = r",\ ".join(
            f"{tex(_symbol(k))} = {latex_number(v)}"
            for k, v in self.parameters.items()
            if isinstance(v, str | int)
        )
        text = rf"\{{{name} : \text{{unstable}}\}} = {body}"
        open_ = self.record()["undecided"]
        if open_:
            text += r" \quad \text{undecided in } " + r" \cup ".join(
                rf"\left({latex_number(a)},\ {latex_number(b)}\right)" for a, b in open_
            )
        return text + (rf" \quad ({shown})" if shown else "")


def _range_text(v, dps):
    if v is None:
        return None
    if isinstance(v, sp.Basic):
        return format_number(v, dps) if v.is_infinite else str(v)
    return format_number(v, dps)


def _tex_num(x) -> str:
    if mpmath.isinf(x):
        return r"\infty" if x > 0 else r"-\infty"
    return mpmath.nstr(x, 12)


@dataclass(frozen=True)
class Extremum(Result):
    """Where the critical value of ``param`` is extreme as ``over`` varies.

    ``kind``: ``"min"``/``"max"`` of ``critical`` (``p_c(x)``, the first ``param`` above
    ``param_lo`` at which the equilibrium is unstable; inf when stable for all), or
    ``"stable"``: the smallest ``x`` from which the equilibrium is stable for every
    ``param`` in range (``stable_set`` holds every such gap). ``x_star`` (an Arb-isolated
    root of an exact polynomial, ``lower``/``upper`` its exact bracket, or a range end),
    ``critical`` (``p_c(x_star)``), ``omega`` (the crossing frequencies there),
    ``attained`` (False when only approached at an open end), ``candidates``: ``(x,
    p_c(x))`` at every value examined (the generic path's proof, kept on the object);
    ``turning``: where a ``"stable"`` boundary turns in the ``(over, param)`` plane, when the
    path knows it (the in-flight crossing curve: ``{"omega", "lam_theta"}``; None from the
    generic path, which does not compute it: not in the record).
    ``closed_form``: what the model's family knows of this extremum in closed form
    (``{name: SymPy expression}``, attached by the entry for both paths; None where it
    knows none). The point also reads under its record's names: ``e.D_star`` is ``x_star``
    and ``e.theta_star`` is ``critical`` for the worst delay, ``e.kappa_star`` for kappa*.

    The record (one key set for every model and path): ``L`` and ``parameters`` (the
    model's options), ``x_star`` and ``<over>_star``, ``critical`` and ``<param>_star``,
    ``omega``, ``attained``, ``stable_set``, ``closed_form`` (``{"<over>_star",
    "<param>_star"}`` for a minimum or maximum, the one expression of ``<over>_star`` for
    ``"stable"``: kappa*'s ``"closed_form"`` is a string or null) and ``method``
    (``{"path", "algorithm", "notes"}``, the one key that may differ between the paths).
    """

    model_name: str = field()  # (Result declares a class default: keep this one required)
    over: str
    param: str
    kind: str
    parameters: dict
    dps: int
    x_star: object
    lower: sp.Rational | None
    upper: sp.Rational | None
    critical: object
    omega: tuple
    attained: bool
    candidates: tuple
    stable_set: tuple
    algorithm: str
    notes: tuple = field(default=())
    method: str = "generic"
    closed_form: object = field(default=None, compare=False, repr=False)
    turning: object = field(default=None, compare=False, repr=False)

    def __getattr__(self, name):
        # only names the record lacks arrive here: its record's <over>_star, <param>_star
        if name.startswith("_"):
            raise AttributeError(name)
        fields = self.__dict__
        if name == f"{fields.get('over')}_star":
            return self.x_star
        if name == f"{fields.get('param')}_star":
            return self.critical
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    def record(self) -> dict:
        d = self.dps
        x = None if self.x_star is None else format_number(self.x_star, d)
        crit = None if self.critical is None else format_number(self.critical, d)
        forms = None
        if self.closed_form is not None:
            forms = {k: _form_text(v) for k, v in self.closed_form.items()}
            if self.kind == "stable":  # one value (critical is inf there): its expression
                forms = forms.get(f"{self.over}_star")
        out = {
            "model": self.model_name,
            "over": self.over,
            "param": self.param,
            "kind": self.kind,
            "L": self.parameters.get("L"),
            "parameters": dict(self.parameters),
            "dps": d,
            "x_star": x,
            f"{self.over}_star": x,
            "critical": crit,
            f"{self.param}_star": crit,
            "omega": [format_number(w, d) for w in self.omega],
            "attained": self.attained,
            "stable_set": [[format_number(a, d), format_number(b, d)] for a, b in self.stable_set],
            "closed_form": forms,
            "method": _method(self.method, self.algorithm, self.notes),
        }
        return _with_options(out, self.parameters)

    def latex(self) -> str:
        from symdelay.core.latex import tex
        from symdelay.model.core import _symbol

        x, p = tex(_symbol(self.over)), tex(_symbol(self.param))
        if self.x_star is None:
            return rf"\text{{no {self.kind} of }} {p}_c \text{{ over }} {x}"
        forms = self.closed_form or {}

        def closed(name):
            cf = forms.get(name)
            return "" if cf is None else f"{tex(cf)} = "

        head = rf"{x}^* = {closed(self.over + '_star')}{_tex_num(self.x_star)}"
        if self.kind == "stable":
            return head + rf",\quad \text{{stable for every }} {p} \text{{ from there}}"
        if self.critical is None:  # approached at an open end, the limit not computed
            return head + rf",\quad {p}_c \text{{ approached there (its limit not computed)}}"
        tail = rf",\quad {p}_c({x}^*) = {closed(self.param + '_star')}{_tex_num(self.critical)}"
        if not self.attained:
            bound = "an infimum" if self.kind == "min" else "a supremum"
            tail += rf"\quad \text{{({bound}, not attained)}}"
        return head + tail


def _with_options(out: dict, parameters: dict) -> dict:
    """The record with the model's options also at its top level (the keys the earlier
    contracts name, e.g. ``unstable-theta``'s ``{"L", "kappa", "intervals"}``); a record key
    of the same name keeps its own value."""
    return {**out, **{k: v for k, v in parameters.items() if k not in out}}


def _form_text(v):
    """A closed form as text, infinity spelled ``inf`` like every number symdelay prints."""
    return None if v is None else ("inf" if v == sp.oo else str(v))


#: The extrema with a name, whose closed forms a family may know (its ``CLOSED_FORMS``).
NAMED_EXTREMA = {("min", "D", "theta"): "worst_delay", ("stable", "kappa", "theta"): "kappa_star"}


def _finish_window(result: Window, model, vary: str, path: str) -> Window:
    """The record both paths return: the model's options as shown, and the path."""
    from symdelay.analysis.entry import shown_parameters

    return dataclasses.replace(
        result, parameters=shown_parameters(model, skip=(vary,)), method=path
    )


def _finish_extremum(
    result: Extremum, model, ranged: bool, path: str, span=(None, None)
) -> Extremum:
    """The record both paths return: the model's options as shown, the family's closed
    forms of a named extremum over its whole range, and the path; ``span``: the ``lo``,
    ``hi`` of ``over`` the caller gave, said in a note (the extremum of a range may sit at
    its end, which the whole domain's would not)."""
    from symdelay.analysis.entry import closed_forms, shown_parameters

    name = NAMED_EXTREMA.get((result.kind, result.over, result.param))
    forms = None if name is None or ranged else closed_forms(model, name, lazy=True)
    notes = tuple(result.notes)
    lo, hi = span
    if lo is not None or hi is not None:
        a = "the bottom of its domain" if lo is None else str(lo).strip()
        b = "the top of its domain" if hi is None else str(hi).strip()
        notes += (f"searched {result.over} from {a} to {b} only (lo, hi / --lo, --hi)",)
    return dataclasses.replace(
        result,
        parameters=shown_parameters(model, skip=(result.over, result.param)),
        method=path,
        closed_form=forms,
        notes=notes,
    )


# ====================================================================== model -> polys
@dataclass(frozen=True)
class _Reparam:
    """``base = L / name`` (the phase rate of an Erlang(L) chain and its mean ``name``)."""

    name: str
    base: sp.Symbol
    symbol: sp.Symbol
    L: int

    def note(self) -> str:
        return (
            f"{self.name} = {self.L}/{self.base}: the transition table has a chain of "
            f"{self.L} phases of rate {self.base} (Erlang({self.L}) delay of mean {self.name})"
        )


def _erlang_chain_length(model, g: sp.Symbol) -> int | None:
    """``L`` if ``g`` enters the rates only as ``g * z`` moving one job ``z -> next`` and
    those moves form chains of one length ``L``, else None."""
    nxt = {}
    states = model.states
    for t in model.transitions:
        if not t.rate.has(g):
            continue
        minus = [i for i, c in enumerate(t.change) if c == -1]
        plus = [i for i, c in enumerate(t.change) if c == 1]
        if len(minus) != 1 or len(plus) != 1 or sum(1 for c in t.change if c) != 2:
            return None
        if sp.expand(t.rate - g * states[minus[0]]) != 0:
            return None
        if minus[0] in nxt:
            return None
        nxt[minus[0]] = plus[0]
    if not nxt:
        return None
    targets = set(nxt.values())
    starts = [i for i in nxt if i not in targets]
    lengths = set()
    for i in starts:
        n, j, seen = 0, i, set()
        while j in nxt:
            if j in seen:
                return None
            seen.add(j)
            j = nxt[j]
            n += 1
        lengths.add(n)
    if len(lengths) != 1 or not starts:
        return None
    L = lengths.pop()
    if len(nxt) != len(starts) * L:  # every gamma move lies on one of the chains
        return None
    return L


def _resolve(model, name: str):
    """(symbol of the parameter to vary, reparametrisation or None)."""
    from symdelay.model.core import _symbol

    if not isinstance(name, str) or not name:
        raise SymdelayInputError(f"give the parameter to vary by name, got {name!r}")
    sym = _symbol(name)
    if sym in model.domains:
        if sym in model.values:
            raise SymdelayInputError(
                f"{name} has a value ({model.values[sym]}) in {model.name}: leave it free"
            )
        return sym, None
    if name == "D":
        g = _symbol("gamma")
        if g in model.domains and g not in model.values:
            L = _erlang_chain_length(model, g)
            if L is not None:
                return sym, _Reparam("D", g, sym, L)
    raise SymdelayInputError(
        f"'{name}' is not a parameter of {model.name}: use one of "
        + ", ".join(str(q) for q in model.free_parameters)
    )


def _factors(model, syms, reparams, force=False):
    """``[(numerator expr, multiplicity, mode)]`` with only ``syms`` free (and r)."""
    from symdelay.core.budget import forced

    with forced(force):
        model.check_cost("factors")
    missing = [
        str(q)
        for q in model.free_parameters
        if q not in syms and all(rp is None or rp.base != q for rp in reparams)
    ]
    if missing:
        raise SymdelayInputError(f"give numbers for {', '.join(missing)} (every other parameter)")
    for s in syms:
        base = next((rp.base for rp in reparams if rp is not None and rp.symbol == s), s)
        if base in model.domains and not model.equilibrium_is_closed_form_in(base):
            raise SymdelayInputError(
                f"the equilibrium of {model.name} moves with {base} and has no closed form: "
                "no exact window; use symdelay.analysis.critical.critical_by_verdicts"
            )
    subs = {rp.base: rp.L / rp.symbol for rp in reparams if rp is not None}
    out = []
    for f in model.factors:
        e = f.factor.subs(subs) if subs else f.factor
        if e.has(sp.exp):
            raise SymdelayInputError(
                f"a factor of {model.name} has delay terms exp(-r tau): not a polynomial; "
                "use symdelay.analysis.crossing.critical_parameter (certified numerics)"
            )
        num, den = sp.fraction(sp.together(sp.expand(e)))
        if den.has(R_SYMBOL):
            raise SymdelayInputError(f"a factor of {model.name} is not polynomial in r")
        extra = sorted(str(q) for q in num.free_symbols - {R_SYMBOL, *syms})
        if extra:
            raise SymdelayInputError(f"give numbers for {', '.join(extra)}")
        # den: a product of powers of syms with a positive rational (from gamma = L/D): its
        # zeros are outside the positive domains, checked where it matters
        out.append((sp.expand(num), sp.expand(den), f.multiplicity, f.mode))
    return out


def _poly2(num: sp.Expr, *params) -> _Poly2 | None:
    """``F(r; p)`` (or ``F(r; p, x)``) as :class:`~symdelay.analysis.crossing._Poly2` (None
    when free of p)."""
    P = sp.Poly(num, R_SYMBOL, *params)
    if not all(c.is_Rational for c in P.coeffs()):
        raise SymdelayInputError("the characteristic polynomial must have rational coefficients")
    terms = {m: _fmpq(c) for m, c in P.terms()}
    if all(m[1] == 0 for m in terms):
        return None
    return _Poly2(terms, P.degree(R_SYMBOL), (S_NAME, P_NAME, X_NAME)[: len(params) + 1])


def estimate_cost(model, param: str) -> dict:
    """``{"degree": d, "factors": [...]}``: the degree in ``param`` of the elimination
    polynomial :func:`window` would isolate (the Bezout bound ``deg_s U deg_p V + deg_s V
    deg_p U`` of the resultant plus the real-root and leading-coefficient parts)."""
    p, rp = _resolve(model, param)
    facs = _factors(model, (p,), (rp,))
    per = []
    for num, _den, _m, mode in facs:
        if not num.has(p):
            continue
        P = sp.Poly(num, R_SYMBOL, p)
        n, m = P.degree(R_SYMBOL), P.degree(p)
        du, dv = n // 2, (n - 1) // 2
        per.append(
            {"mode": mode, "degree_r": n, "degree_p": m, "elimination": du * m + dv * m + 2 * m}
        )
    return {"degree": sum(f["elimination"] for f in per), "factors": per}


def _window_core(polys, mults, const_rhp, lo, hi, dps):
    """The window of ``p`` in (lo, hi) for exact factor polynomials (see module docstring).

    ``polys``: :class:`~symdelay.analysis.crossing._Poly2` (None for factors free of p, whose
    count ``const_rhp`` is added); ``lo``/``hi``: fmpq or None (infinite). Returns
    (intervals, ends, counts, notes).
    """
    counts, points = _crossings(polys, mults, const_rhp, lo, hi, dps)
    ends = [
        (WindowEnd(v, _rational(a), _rational(b), om, kind), bound)
        for v, a, b, om, kind, bound in points
    ]

    def end_of(v, side):
        if v is None:
            inf = mpmath.inf if side == "hi" else -mpmath.inf
            return WindowEnd(inf, None, None, (), "infinite")
        with mpmath.workdps(dps + GUARD):
            return WindowEnd(_mp_q(v), None, None, (), "domain end")

    intervals, notes = _assemble(counts, ends, end_of(lo, "lo"), end_of(hi, "hi"), dps)
    # drop breakpoints where nothing happens (no root on the axis)
    kept, kept_counts = [], [counts[0]]
    for i, (e, _) in enumerate(ends):
        if e.kind == "no axis root":
            continue
        kept.append(e)
        kept_counts.append(counts[i + 1])
    return tuple(intervals), tuple(kept), tuple(kept_counts), notes


def _assemble(counts, ends, lo_end, hi_end, dps):
    """``(intervals, notes)``: the maximal open intervals of instability from the unstable
    ``counts`` on the gaps between the ``ends`` (``(WindowEnd, bound)``, ``bound`` an upper
    bound on the roots on the axis there, None if unknown). A breakpoint between two
    unstable gaps is unstable when fewer roots can be on the axis there than are unstable on
    one side (``rhp(p_k) >= max(n_left, n_right) - (roots on the axis)``, since roots off the
    axis keep their side nearby), or when none is on it; otherwise it is left out (a note)."""
    intervals, notes = [], []
    for i, n in enumerate(counts):
        if n == 0:
            continue
        left = lo_end if i == 0 else ends[i - 1][0]
        right = hi_end if i == len(counts) - 1 else ends[i][0]
        if intervals and counts[i - 1] > 0:
            e, bound = ends[i - 1]
            if e.kind == "no axis root" or (
                e.kind not in ("degree drop", "singular")
                and bound is not None
                and bound < max(counts[i - 1], n)
            ):
                prev = intervals[-1]
                more = () if e.kind == "no axis root" else (n,)
                intervals[-1] = WindowInterval(prev.lo, right, (*prev.unstable_roots, *more))
                continue
            notes.append(
                f"{format_number(e.value, dps)}: a root is on the axis between two unstable "
                "pieces; the point itself is not proved unstable and is left out"
            )
        intervals.append(WindowInterval(left, right, (n,)))
    return intervals, notes


def _range(model, p, rp, lo, hi):
    """Exact (lo, hi) as fmpq or None, within the declared domain."""
    dom = "positive" if rp is not None else model.domains[p]
    dlo, dhi = {
        "positive": (sp.Integer(0), None),
        "nonnegative": (sp.Integer(0), None),
        "probability": (sp.Integer(0), sp.Integer(1)),
        "real": (None, None),
    }[dom]
    name = str(p)

    def num(v, which):
        if v is None:
            return None
        x = as_parameter(name, v, positive=False)
        if not x.is_Rational:
            raise SymdelayInputError(f"{which} must be a number, got {v!r}")
        return x

    a, b = num(lo, "lo"), num(hi, "hi")
    if a is not None and dlo is not None and a < dlo:
        raise SymdelayInputError(
            f"lo = {a} is below the domain of {name} ({dom}): give lo >= {dlo}"
        )
    if b is not None and dhi is not None and b > dhi:
        raise SymdelayInputError(
            f"hi = {b} is above the domain of {name} ({dom}): give hi <= {dhi}"
        )
    a = dlo if a is None else a
    b = dhi if b is None else b
    if a is not None and b is not None and not a < b:
        raise SymdelayInputError(f"the range of {name} is empty: give lo < hi (got {a}, {b})")
    return (None if a is None else _fmpq(a)), (None if b is None else _fmpq(b))


def _prepared(facs, p):
    polys, mults, const = [], [], 0
    for num, den, m, _mode in facs:
        P = _poly2(num, p)
        if P is not None and den.has(p):
            # the factor is singular where its cleared denominator vanishes: a breakpoint
            P.den = _from_dict1({j: _fmpq(c) for (j,), c in sp.Poly(den, p).terms()})
        if P is None:
            coeffs = [sp.Rational(c) for c in sp.Poly(num, R_SYMBOL).all_coeffs()]
            if len(coeffs) > 1:
                const += m * exact_counts(coeffs).rhp
            continue
        polys.append(P)
        mults.append(m)
    return polys, mults, const


def _check_budget(polys, force, what):
    deg = 0
    for P in polys:
        du, dv = P.U.degrees(), P.V.degrees()
        deg += du[0] * dv[1] + dv[0] * du[1] + 2 * max(c.degree() for c in P.coeffs)
    if deg > MAX_ELIMINATION_DEGREE and not force:
        raise SymdelayInputError(
            f"the elimination polynomial in {what} would have degree about {deg} "
            f"(budget {MAX_ELIMINATION_DEGREE}, roughly a minute): use fewer delay phases or "
            "states, or pass force=True"
        )
    return deg


@entry_doc
def window(
    model,
    vary: str = "D",
    *,
    lo=None,
    hi=None,
    dps: int = 15,
    force: bool = False,
    method: str = "auto",
) -> Window:
    """The values of ``vary`` at which the equilibrium of ``model`` is unstable: the maximal
    open intervals in ``(lo, hi)``, found exactly (see the module docstring).

    Parameters
    ----------
    model : Model
        The model, every parameter but ``vary`` a number (in ``model.values``).
    vary : str, default "D"
        The parameter (or family option) varied: the mean delay ``D`` by default (for an
        Erlang delay written with its phase rate ``gamma``, ``gamma = L/D`` is substituted
        exactly).
    lo, hi : number or str, optional
        The range searched, numbers or their decimal text (made exact). Default: the declared
        domain of ``vary`` (``D > 0``; ``theta`` from 0). ``hi`` must be finite for a delay
        equation (``exp(-r tau)`` terms).
    dps : int, default 15
        Significant digits (5..10000) of the interval ends (each an exact bracket isolated to
        these digits) and their crossing frequencies.
    force : bool, default False
        Lift the cost guard: an elimination polynomial of degree above
        :data:`MAX_ELIMINATION_DEGREE` is refused unless ``force``.
    method : {"auto", "generic", "specialised"}, default "auto"
        %(method)s

    Returns
    -------
    Window
        ``intervals`` (pairs of ends, ``inf`` for an unbounded one; empty when stable
        throughout), ``ends`` (each end's crossing frequencies and kind), the breakpoints and
        unstable counts between them (the generic path's proof), ``certified`` (False where
        a piece of the range is left undecided, said in the notes).

    Examples
    --------
    >>> from symdelay.models import build_model
    >>> w = window(build_model("erlang", L=2, mu=1, lam=1, D=1), "theta", lo=0)
    >>> w.to_json()["intervals"]
    [['9.00000000000000', 'inf']]
    """
    result = specialised(model, "window", method, vary, lo=lo, hi=hi, dps=dps, force=force)
    if result is not None:
        return _finish_window(result, model, vary, "specialised")
    result = _window(model, vary, lo=lo, hi=hi, dps=dps, force=force)
    return _finish_window(result, model, vary, "generic")


def _window(model, param: str, *, lo=None, hi=None, dps: int = 15, force: bool = False) -> Window:
    """The generic window (the exact crossing polynomials of the model's factors)."""
    dps = as_dps(dps)
    if has_lags(model) and _transcendental(model):
        return _window_delay(model, param, lo, hi, dps, force)
    p, rp = _resolve(model, param)
    a, b = _range(model, p, rp, lo, hi)
    facs = _factors(model, (p,), (rp,), force)
    polys, mults, const = _prepared(facs, p)
    _check_budget(polys, force, param)
    intervals, ends, counts, notes = _window_core(polys, mults, const, a, b, dps)
    if rp is not None:
        notes.insert(0, rp.note())
    how = (
        "exact: real roots of F(0; p), Res_s(Re, Im) and the leading coefficient "
        "(flint factor + Arb isolation); exact unstable counts (Cauchy index) in every gap"
    )
    found = (intervals, ends, counts, how, True, tuple(notes))
    rng = (sp.oo * -1 if a is None else _rational(a), sp.oo if b is None else _rational(b))
    return Window(model.name, param, {}, dps, *rng, *found)  # the options: set by the entry


# ================================================================= quasi-polynomials
def _transcendental(model) -> bool:
    """A delay model whose characteristic functions are not polynomials (``exp(-r tau)``
    terms, a non-integer power): the windows of :func:`_window_delay`."""
    from symdelay.model.modes import rational_numerator

    return any(rational_numerator(f.factor) is None for f in model.characteristic_factors)


def _window_delay(model, param, lo, hi, dps, force):
    """A delay model's window: over a parameter of a constant lag, every stability switch
    (:func:`lag_window`: exact crossing frequencies, Arb-proved
    directions, exact counts); over another parameter at fixed lags, the quasi-polynomial
    path below."""
    from symdelay.model.core import _symbol

    p = _symbol(param)
    if p not in model.domains:
        raise SymdelayInputError(
            f"'{param}' is not a parameter of {model.name}: use one of "
            + ", ".join(str(q) for q in model.parameters)
        )
    if p in model.values:
        raise SymdelayInputError(f"{param} has a value ({model.values[p]}): leave it free")
    factors = model.characteristic_factors
    in_lag = any(p in e.args[0].free_symbols for f in factors for e in f.factor.atoms(sp.exp))
    if in_lag or any(p in lag.parameters() for lag in model.lags.values()):
        return _window_lagparam(model, p, factors, lo, hi, dps, force)
    return _window_coefficient(model, param, lo, hi, dps)


def _window_lagparam(model, p, factors, lo, hi, dps, force):
    """The window over a lag's parameter ``p``: the exact constant-lag path
    (:func:`lag_window`) where the characteristic function is a polynomial in ``r`` and
    ``exp(-r p)``; otherwise (a distributed lag, a second fixed lag, a neutral equation) the
    certified crossings of :func:`symdelay.analysis.lagparam.lag_crossings`."""
    from symdelay.analysis.lagswitch import exact_refusal

    F = sp.Mul(*[f.factor**f.multiplicity for f in factors])
    why = exact_refusal(F, p)
    if why is None:
        return lag_window(F, p, 0 if lo is None else lo, hi, dps, name=model.name, force=force)
    from symdelay.analysis.lagparam import lag_crossings

    s = lag_crossings(model, str(p), lo, hi, dps, force=force)
    return _crossings_window(s, model.name, why)


def _crossings_window(s, name, why):
    """The :class:`Window` of a :class:`~symdelay.analysis.lagparam.LagCrossings`."""
    d = s.dps
    groups = [
        (WindowEnd(v, a, b, om, "r = i omega"), axis) for v, a, b, om, _ch, _m, axis in s.switches
    ]
    lo_end = WindowEnd(s.range_lo, sp.Rational(str(s.range_lo)) if s.range_lo == 0 else None,
                       None, (), "domain end")  # fmt: skip
    hi_end = WindowEnd(s.range_hi, None, None, (), "domain end")
    intervals, notes = _assemble(list(s.counts), groups, lo_end, hi_end, d)
    head = f"the exact constant-lag path does not apply ({why.rstrip('.')})"
    return Window(
        name,
        s.param,
        {},
        d,
        s.range_lo,
        s.range_hi,
        tuple(intervals),
        tuple(e for e, _ in groups),
        tuple(s.counts),
        s.algorithm,
        True,
        (head, *s.notes, *notes),
    )


def _window_coefficient(model, param, lo, hi, dps):
    """A delay model's window in a coefficient at fixed lags (any lag kind, retarded or
    neutral): :func:`symdelay.analysis.lagcross.switches` (crossings isolated in Arb with
    proved directions, certified counts), the neutral boundary as an end."""
    from symdelay.analysis import lagcross
    from symdelay.model.core import _symbol

    p = _symbol(param)
    missing = [str(q) for q in model.free_parameters if q != p]
    if missing:
        raise SymdelayInputError(f"give numbers for {', '.join(missing)} (every other parameter)")
    a = sp.Integer(0) if lo is None else as_parameter(param, lo, positive=False)
    if hi is None:
        raise SymdelayInputError(
            f"{model.name} has lags: its window in {param} needs a finite hi (the frequency "
            f"scan is bounded by it): give hi"
        )
    b = as_parameter(param, hi, positive=False)
    if not (a.is_Rational and b.is_Rational) or a < 0 or not a < b:
        raise SymdelayInputError(f"give numbers 0 <= lo < hi for {param}, got {lo}, {hi}")
    sw = lagcross.switches(model, param, a, b, dps)
    if not sw.counts:  # the difference operator is unstable on the whole range
        with mpmath.workdps(dps + GUARD):
            lo_end = WindowEnd(_mp_q(_fmpq(a)), None, None, (), "neutral boundary (below lo)")
            hi_end = WindowEnd(_mp_q(_fmpq(b)), None, None, (), "domain end")
        how = "the difference operator of the neutral equation (exact)"
        iv = WindowInterval(lo_end, hi_end, (mpmath.inf,))
        found = ((iv,), (), (mpmath.inf,), how, True)
        return Window(model.name, param, {}, dps, a, b, *found, sw.notes)
    with mpmath.workdps(dps + GUARD):
        ends = []
        for g in sw.breakpoints:
            omegas = tuple(sorted({c.omega for c in g}))
            kind = "r = 0" if all(c.omega == 0 for c in g) else "r = i omega"
            if not all(c.resolved for c in g):
                kind = "r = i omega (not isolated)"
            bound = sum((2 if c.omega > 0 else 1) * c.copies for c in g)
            ends.append((WindowEnd(g[0].p, None, None, omegas, kind), bound))
        counts = list(sw.counts)
        notes = list(sw.notes)
        certified = True
        undecided = []  # the pieces (lo, hi) where the count is not decided
        top = _mp_q(_fmpq(sw.searched))
        hi_end = WindowEnd(_mp_q(_fmpq(b)), None, None, (), "domain end")
        if sw.searched < b:
            # the scan stopped short of hi: at a neutral boundary (or the frequency budget)
            if sw.neutral is not None and sw.sharp and sw.neutral == sw.searched:
                nb = WindowEnd(top, None, None, (), "neutral boundary")
                ends.append((nb, None))
                counts.append(mpmath.inf)
                notes.append(
                    f"{param} = {format_number(nb.value, dps)}: the difference operator loses "
                    f"stability (its roots reach the axis there; beyond it infinitely many "
                    f"roots have Re r > 0): an end of every stable interval"
                )
            else:
                scan_end = WindowEnd(top, None, None, (), "end of the crossing scan")
                ends.append((scan_end, None))
            if sw.neutral is not None and sw.neutral == sw.searched:
                pass
            elif sw.neutral is not None and sw.sharp and sw.neutral > sw.searched:
                counts.append(None)  # (searched, p_N): crossings accumulate, not resolved
                nb = WindowEnd(_mp_q(_fmpq(sw.neutral)), None, None, (), "neutral boundary")
                ends.append((nb, None))
                counts.append(mpmath.inf)
                notes.append(
                    f"{param} = {format_number(nb.value, dps)}: the difference operator loses "
                    f"stability (its roots reach the axis there; beyond it infinitely many "
                    f"roots have Re r > 0): an end of every stable interval"
                )
                notes.append(
                    f"({format_number(top, dps)}, {format_number(nb.value, dps)}): crossings "
                    f"may accumulate towards the neutral boundary; not resolved (undecided)"
                )
            elif sw.neutral is not None and not sw.sharp:
                hi_end = WindowEnd(top, None, None, (), "neutral bound")
                ends.pop()
                notes.append(
                    f"beyond {param} = {format_number(top, dps)} the difference operator is not "
                    f"proved stable: the range is cut there (not decided beyond)"
                )
                certified = False
                undecided.append((top, _mp_q(_fmpq(b))))
            else:
                counts.append(None)
                notes.append(
                    f"({format_number(top, dps)}, {format_number(hi_end.value, dps)}): not "
                    "searched (the frequency budget); undecided"
                )
        shown = tuple(counts)  # None: undecided (the record keeps it so)
        for i, n in enumerate(counts):
            if n is None:
                certified = False
                counts[i] = 0  # not claimed unstable
                left = _mp_q(_fmpq(a)) if i == 0 else ends[i - 1][0].value
                right = hi_end.value if i == len(ends) else ends[i][0].value
                undecided.append((left, right))
                note = (
                    f"({format_number(left, dps)}, {format_number(right, dps)}): the unstable "
                    "count is undecided there (left out of the intervals)"
                )
                if not any(note[:40] in x for x in notes):
                    notes.append(note)
        lo_end = WindowEnd(_mp_q(_fmpq(a)), None, None, (), "domain end")
    if any(c.direction == 0 for g in sw.breakpoints for c in g):
        notes.append("a crossing's direction was not proved; the counts on its sides decide")
    derived = sum(1 for h in sw.how if h == "directions")
    if derived:
        notes.append(
            f"{derived} gap count(s) from a certified count and the proved crossing "
            "directions (their root boxes are too large to count cheaply)"
        )
    intervals, more = _assemble(counts, ends, lo_end, hi_end, dps)
    notes.extend(more)
    how = (
        "certified (delay model, coefficient at fixed lags): crossings r = i omega isolated in "
        "Arb on (0, R] (R: the bound beyond which |A(i omega)| > hi |B(i omega)|, every kernel "
        "|K(i omega)| <= 1), each enclosed to dps digits with its direction proved; unstable "
        "counts by the argument principle (or from a counted gap and the proved directions)"
    )
    found = (tuple(intervals), tuple(e for e, _ in ends), shown, how, certified)
    return Window(
        model.name, param, {}, dps, a, b, *found, tuple(notes), undecided=tuple(undecided)
    )


def lag_window(
    F,
    tau,
    lo=0,
    hi=None,
    dps: int = 15,
    *,
    var=None,
    name: str = "characteristic function",
    parameters=None,
    force: bool = False,
):
    """The lags in ``(lo, hi)`` at which ``F = 0`` has roots with ``Re r > 0``, as the
    :class:`~symdelay.analysis.window.Window` record of ``window(model, LAG)``.

    Parameters
    ----------
    F : sympy.Expr or str
        One mode's characteristic function in ``var`` and ``tau`` (see :func:`lag_parts`).
    tau : sympy.Symbol or str
        The lag.
    lo, hi : number or str
        The range (``hi`` None: unbounded; the last interval then ends at ``inf``).
    dps : int, default 15
        Significant digits (5..10000).
    var : sympy.Symbol or str, optional
        The spectral variable (default ``r``).
    name : str, default "characteristic function"
        The model name the record carries.
    parameters : dict, optional
        The model's other options, shown in the record.
    force : bool, default False
        List more than :data:`MAX_SWITCHES` switches.

    Returns
    -------
    Window
        ``intervals`` of instability with exact brackets at their ends, every breakpoint
        (the switches) and the exact unstable counts between them; ``certified`` True.

    Examples
    --------
    >>> from symdelay.core.lazy import sympy as sp
    >>> r, tau = sp.symbols("r tau")
    >>> lag_window(r + 1 + 2 * sp.exp(-r * tau), tau, hi=3, dps=10).to_json()["intervals"]
    [['1.209199576', '3.000000000']]
    """
    from symdelay.analysis.lagswitch import lag_switches

    s = lag_switches(F, tau, lo, hi, dps, var=var, name=name, force=force)
    return _as_window(s, name, parameters)


def _as_window(s, name=None, parameters=None):

    d = s.dps
    groups = []
    for sw in s.switches:
        groups.append(
            (WindowEnd(sw.tau, sw.lower, sw.upper, (sw.omega,), "r = i omega"), abs(sw.change))
        )
    counts = list(s.counts())
    lo_end = WindowEnd(s.range_lo, sp.Rational(str(s.range_lo)) if s.range_lo == 0 else None,
                       None, (), "domain end")  # fmt: skip
    if s.range_hi == mpmath.inf:
        hi_end = WindowEnd(mpmath.inf, None, None, (), "infinite")
    else:
        hi_end = WindowEnd(s.range_hi, None, None, (), "domain end")
    intervals, notes = _assemble(counts, groups, lo_end, hi_end, d)
    from symdelay.analysis.window import WindowInterval

    if s.unstable_beyond is not None and intervals and counts[-1] > 0:
        last = intervals[-1]
        intervals[-1] = WindowInterval(last.lo, hi_end, last.unstable_roots)
    elif s.unstable_beyond is not None and counts[-1] > 0:
        intervals.append(WindowInterval(lo_end, hi_end, (counts[-1],)))
    return Window(
        name or s.model_name,
        s.lag,
        dict(parameters or {}),
        d,
        s.range_lo,
        s.range_hi,
        tuple(intervals),
        tuple(e for e, _ in groups),
        tuple(counts),
        s.algorithm,
        True,
        (*s.notes, *notes),
    )


# ==================================================================== curves


# ============================================================================ extremum
def _x_candidates(polys3, dps, force, over, p_ends=()):
    """Exact polynomials in x whose real roots are every place where p_c(x) can have an
    extremum or change branch (see the module docstring); ``p_ends``: the finite ends of
    the range of p, where a branch can enter or leave it (``H(p_end, x)``)."""
    curves = []  # mpolys in (s=0, p, x)
    for P in polys3:
        if not P.F0.is_zero():
            curves.append(P.F0)
        curves.append(_axis_resultant(P.U, P.V))
        if not P.LC.is_constant():
            curves.append(P.LC)
    # irreducible pieces in (p, x)
    pieces = {}
    for c in curves:
        if c.is_constant():
            continue
        _, facs = c.factor()
        for g, _e in facs:
            pieces[str(g)] = g
    pieces = list(pieces.values())
    xs = []  # univariate polys in x
    deg_total = 0
    for g in pieces:
        dp = g.degrees()[1]
        if dp == 0:
            xs.append(g)  # a vertical line x = const
            continue
        gx, gp = g.derivative(X_NAME), g.derivative(P_NAME)
        deg_total += 2 * g.degrees()[1] * g.degrees()[2]
        if deg_total > MAX_ELIMINATION_DEGREE * 4 and not force:
            raise SymdelayInputError(
                f"the elimination in {over} would have degree above {MAX_ELIMINATION_DEGREE * 4}: "
                "use fewer delay phases or states, or pass force=True"
            )
        for h in (gx, gp):
            if not h.is_zero():
                xs.append(g.resultant(h, P_NAME))
        xs.append(_lc_in_p(g))
        for pe in p_ends:
            xs.append(g.subs({P_NAME: pe}))
    for g1, g2 in itertools.combinations([g for g in pieces if g.degrees()[1] > 0], 2):
        xs.append(g1.resultant(g2, P_NAME))
    out = []
    for m in xs:
        if m.is_zero() or m.is_constant():
            continue
        out.append(_mpoly_to_poly1(m, 2))
    return out


def _lc_in_p(g):
    """The coefficient of the highest power of p in g(p, x), a polynomial in x."""
    dp = g.degrees()[1]
    d = {}
    for (es, ep, ex), c in g.to_dict().items():
        if ep == dp:
            d[(es, 0, ex)] = c
    return g.context().from_dict(d)


@entry_doc
def extremum(
    model,
    over: str,
    *,
    param: str = "theta",
    kind: str = "min",
    lo=None,
    hi=None,
    param_lo=0,
    param_hi=None,
    dps: int = 15,
    force: bool = False,
    method: str = "auto",
) -> Extremum:
    """Where the critical value of ``param`` is extreme as ``over`` varies in ``(lo, hi)``.

    ``p_c(x)`` is the first value of ``param`` above ``param_lo`` (up to ``param_hi``) at which
    the equilibrium is unstable, inf if none (:func:`~symdelay.analysis.critical.critical` at
    ``param_lo = 0``). Exact candidates (see the module docstring), ``p_c`` by :func:`window`
    at rationals within ``10^-(dps+10)`` of each.

    Parameters
    ----------
    model : Model
        The model, every parameter but ``over`` and ``param`` a number.
    over : str
        The parameter (or family option) varied: ``"D"`` for the worst delay, ``"kappa"`` for
        the in-flight weight.
    param : str, default "theta"
        The parameter whose critical value ``p_c`` is extreme.
    kind : {"min", "max", "stable"}, default "min"
        ``"min"``: ``x* = argmin p_c`` (the worst delay for ``over="D"``, ``param="theta"``);
        ``"max"``: ``x* = argmax p_c`` (the most robust value); ``"stable"``: the smallest
        ``x`` in range from which the equilibrium is stable for every ``param`` in
        ``(param_lo, param_hi)`` (``kappa*`` for ``over="kappa"``), with the whole
        ``stable_set``.
    lo, hi : number or str, optional
        The range of ``over``, numbers or their decimal text (made exact). Default: its
        declared domain.
    param_lo : number or str, default 0
        The lower end of the range of ``param``: ``p_c`` is the first unstable value above it.
    param_hi : number or str, optional
        The upper end of the range of ``param`` (default: unbounded).
    dps : int, default 15
        Significant digits (5..10000) of ``x_star``, ``p_c`` and the frequencies.
    force : bool, default False
        Lift the cost guard: an elimination polynomial of degree above
        :data:`MAX_ELIMINATION_DEGREE` is refused unless ``force``.
    method : {"auto", "generic", "specialised"}, default "auto"
        %(method)s

    Returns
    -------
    Extremum
        ``x_star`` (with its exact bracket), ``critical`` (``p_c(x_star)``), the crossing
        frequencies ``omega``, ``attained`` (False when only approached at an open end), the
        ``stable_set``, the candidates examined and the family's ``closed_form``.

    Examples
    --------
    >>> from symdelay.models import build_model
    >>> e = extremum(build_model("erlang", L=3, mu=1, lam=1), "D", method="generic")
    >>> e.to_json()["D_star"], e.to_json()["theta_star"]
    ('3.00000000000000', '4.00000000000000')
    """
    ranged = not (lo is None and hi is None and _is_zero(param_lo) and param_hi is None)
    result = specialised(
        model, "extremum", method, over, param=param, kind=kind, lo=lo, hi=hi,
        param_lo=param_lo, param_hi=param_hi, dps=dps, force=force,
    )  # fmt: skip
    if result is None:
        result = _extremum(model, over, param, kind, lo, hi, param_lo, param_hi, dps, force)
        path = "generic"
    else:
        path = "specialised"
    _refuse_unstable_start(result, param_lo)
    return _finish_extremum(result, model, ranged, path, (lo, hi))


def _refuse_unstable_start(result: Extremum, param_lo) -> None:
    """An extreme ``p_c`` equal to ``param_lo`` means the equilibrium is unstable just above
    ``param_lo`` at ``x_star`` (``param`` stabilises there, as ``mu`` does): then ``p_c`` is
    ``param_lo`` on a whole interval of ``over``, and one ``x_star`` would be an arbitrary
    point of it (and ``p_c`` is not the crossing :func:`critical` gives). Refused."""
    if result.kind == "stable" or result.critical is None:
        return
    low = mpmath.mpf(as_parameter("param_lo", param_lo, positive=False))
    if mpmath.mpf(result.critical) != low:
        return
    p, x = result.param, result.over
    at, low_text = (mpmath.nstr(mpmath.mpf(v), 8).removesuffix(".0") for v in (result.x_star, low))
    raise SymdelayInputError(
        f"at {x} = {at} the equilibrium is already "
        f"unstable just above {p} = {low_text} ({p} stabilises there: its crossing "
        f"restores stability), so the first unstable {p} is {low_text} on a whole "
        f"range of {x}, not at one point: ask 'critical --param {p}' for the crossing over "
        f"{x}, or 'window --in {p}' for the stable set"
    )


def _is_zero(v) -> bool:
    try:
        return as_parameter("lo", v, positive=False) == 0
    except SymdelayInputError:
        return False


def _extremum(model, over, param, kind, lo, hi, param_lo, param_hi, dps, force) -> Extremum:
    """The generic extremum (exact candidates in ``over``, see the module docstring); a
    delay model's (exp(-r tau) modes): :func:`symdelay.analysis.lagextremum.delay_worst`."""
    dps = as_dps(dps)
    if has_lags(model) and _transcendental(model):
        from symdelay.analysis.lagextremum import delay_worst, exact_worst_refusal

        why = exact_worst_refusal(model, over, param)
        if why is not None:  # a distributed, several or neutral lag: the certified bracket
            return _worst_lagparam(model, over, param, kind, lo, hi, param_lo, param_hi, dps,
                                   force, why)  # fmt: skip
        e = delay_worst(model, over, param, kind, lo, hi, param_lo, param_hi, dps)
        return Extremum(
            model.name, over, param, kind, {}, dps, e.x_star, None, None, e.critical,
            e.omega, e.attained, (), (), e.algorithm, e.notes,
        )  # fmt: skip
    if kind not in ("min", "max", "stable"):
        raise SymdelayInputError(f"kind must be min, max or stable, got {kind!r}")
    if over == param:
        raise SymdelayInputError(f"over and param are both {over}: give two different parameters")
    x, rx = _resolve(model, over)
    p, rp = _resolve(model, param)
    xa, xb = _range(model, x, rx, lo, hi)
    pa, pb = _range(model, p, rp, param_lo, param_hi)
    facs = _factors(model, (p, x), (rp, rx), force)
    polys3 = [_poly2(num, p, x) for num, _den, _m, _mode in facs if num.has(p)]
    xpolys = _x_candidates(polys3, dps, force, over, tuple(e for e in (pa, pb) if e is not None))
    irr = _irreducibles([(q, "x", 0) for q in xpolys])
    pts, _prec = _breakpoints(irr, xa, xb, dps + GUARD)

    def at(xq: flint.fmpq):  # (p_c, omegas) at x = xq, by the exact window in p
        xs = sp.Rational(int(xq.p), int(xq.q))
        one = sp.Integer(1)
        at_x = [(sp.expand(num.subs(x, xs)), one, m, mode) for num, _den, m, mode in facs]
        intervals, _, _, _ = _window_core(*_prepared(at_x, p), pa, pb, dps)
        return (intervals[0].lo.value, intervals[0].lo.omega) if intervals else (mpmath.inf, ())

    def bracket(ball, exact):
        if exact is not None:
            return _rational(exact), _rational(exact)
        return _rational(_exact_end(ball, "lower")), _rational(_exact_end(ball, "upper"))

    notes = [rp_.note() for rp_ in (rx, rp) if rp_ is not None]
    with mpmath.workdps(dps + GUARD):
        cand = []  # (x value, xq rational, p_c, omegas, bracket, kind)
        for ball, _tags, exact in pts:
            # at an exact rational within the ball's radius of its centre
            xq = exact
            if exact is None:
                xq = (_exact_end(ball, "lower") + _exact_end(ball, "upper")) / 2
            pc, om = at(xq)
            cand.append((_point_value(ball, exact), xq, pc, om, bracket(ball, exact), "candidate"))
        # one point in every gap (and beyond an open end)
        bounds = [xa, *[b for b, _, _ in pts], xb]
        gaps = []
        for a_, b_ in itertools.pairwise(bounds):
            xq = _between(a_, b_)
            gaps.append((_mp_q(xq), xq, *at(xq)))
        # a finite end of the range is a candidate too, unless it is the excluded 0 of a
        # positive parameter (D = 0, mu = 0: not a model)
        x_positive = rx is not None or model.domains[x] == "positive"
        for e, name in ((xa, "lo"), (xb, "hi")):
            if e is not None and not (e == 0 and x_positive):
                cand.append((_mp_q(e), e, *at(e), (_rational(e), _rational(e)), name))
        table = sorted([(c[0], c[2]) for c in cand] + [(g[0], g[2]) for g in gaps], key=_first)
        ends = (
            _mp_q(xa) if xa is not None else -mpmath.inf,
            _mp_q(xb) if xb is not None else mpmath.inf,
        )
        if kind == "stable":
            cuts = [_point_value(ball, exact) for ball, _, exact in pts]
            found = _stable(gaps, pts, ends, cuts, bracket)
        else:
            open_ends = (
                None if xa is None else (xa if xa == 0 and x_positive else False),
                None if xb is None else False,
            )  # per end: None an infinite end, 0 the excluded 0, False a closed end

            def probe(side):  # (its gap, the end, points ever nearer it); None: closed
                end = open_ends[0 if side == "lower" else 1]
                if end is False:
                    return None
                gap = gaps[0] if side == "lower" else gaps[-1]
                xs = gap[1]

                def points():
                    for k in range(1, PROBES + 1):
                        if end is None:
                            step = (1 + abs(xs)) * 4**k
                            xq = xs - step if side == "lower" else xs + step
                        else:
                            xq = xs / 4**k
                        yield (_mp_q(xq), xq, *at(xq))

                if end is None:
                    return gap, (-mpmath.inf if side == "lower" else mpmath.inf), points()
                return gap, _mp_q(end), points()

            found = _best(kind, over, param, cand, gaps, probe)
    x_star, (lower, upper), crit, omega, attained, stable_set, note = found
    if note is not None:
        notes.append(note)
    return Extremum(
        model.name, over, param, kind, {}, dps, x_star, lower, upper, crit, omega, attained,
        tuple(table), tuple(stable_set), EXTREMUM_ALGORITHM, tuple(notes),
    )  # fmt: skip


EXTREMUM_ALGORITHM = (
    "exact candidates in x (Res_p of the crossing curves with their derivatives, "
    "their leading coefficients, pairwise Res_p; flint + Arb), p_c by the exact "
    "window at each and in every gap between them"
)


def _worst_lagparam(model, over, param, kind, lo, hi, param_lo, param_hi, dps, force, why):
    """The least critical ``param`` over a lag parameter where the exact projection
    (:mod:`symdelay.analysis.lagextremum`) does not apply: the certified bracket of
    :func:`symdelay.analysis.lagparam.lag_worst` over ``(lo, hi]``, shown to the digits it
    proves."""
    from symdelay.analysis.lagparam import lag_worst

    if kind != "min":
        raise SymdelayInputError(
            f"extremum kind={kind!r} over the lag parameter {over} is not available: the "
            f"delay path gives the least critical {param} (kind='min', worst-delay)"
        )
    if param_hi is not None or not _is_zero(param_lo):
        raise SymdelayInputError(
            f"the worst {over} takes {param} from 0 without an upper end: leave param_lo and "
            "param_hi out"
        )
    w = lag_worst(model, over, param, lo, hi, dps, force=force,
                  max_boxes=10**7 if force else 200_000)  # fmt: skip
    shown = max(2, min(dps, w.digits))
    notes = (
        f"the exact projection for one constant lag does not apply ({why.rstrip('.')})",
        f"{over}* = {format_number(w.x_star, shown)} is in the certified unstable "
        f"interval ({w.x_lower}, {w.x_upper}) at {param} = {w.critical_hi} (exact ends); "
        f"{param}* is shown to the {w.digits} digits its bracket proves",
        *w.notes,
    )
    return Extremum(
        model.name, over, param, kind, {}, shown, w.x_star, w.x_lower, w.x_upper, w.critical,
        w.omega, not w.at_end, (), (), w.algorithm, notes,
    )  # fmt: skip


def _first(t):
    return t[0]


def _point_value(ball, exact):
    return _mp_q(exact) if exact is not None else _mp_ball(ball)


def _stable(gaps, pts, ends, cuts, bracket):
    """The stable set (gaps where no param destabilises, joined) and its smallest x."""
    stable_set = []
    for i, g in enumerate(gaps):
        if g[2] == mpmath.inf:
            left = ends[0] if i == 0 else cuts[i - 1]
            right = ends[1] if i == len(gaps) - 1 else cuts[i]
            if stable_set and stable_set[-1][1] == left:
                stable_set[-1] = (stable_set[-1][0], right)
            else:
                stable_set.append((left, right))
    if not stable_set:
        return None, (None, None), None, (), False, (), None
    first = next(i for i, g in enumerate(gaps) if g[2] == mpmath.inf)
    where = (None, None)
    if first > 0:
        ball, _tags, exact = pts[first - 1]
        where = bracket(ball, exact)
    return stable_set[0][0], where, mpmath.inf, (), True, stable_set, None


#: Points an extremum examines on an end gap, nearer and nearer an open end of the range,
#: where the critical value still improves towards it (each one exact window).
PROBES = 8


def _best(kind, over, param, cand, gaps, probe):
    """The least (``kind="min"``) or greatest critical value over the range.

    ``p_c`` is monotone between candidates, so the candidates and one point of every gap
    decide it, except beyond a gap that runs to an open end of the range (``D -> 0``,
    ``x -> oo``), where ``p_c`` may improve without bound: there points nearer the end
    (``probe(side)``: the end gap, the end, the points) tell. If ``p_c`` improves towards the end and a point there beats every
    candidate, the extreme is approached at that end, not attained, and its value (the limit)
    is not computed: None, with the bound in the note; if it improves but no point examined
    beats the candidates, the answer is undecided (None, said in the note) rather than a
    candidate the limit may beat."""
    sign = 1 if kind == "min" else -1

    def better(a, b):  # strictly (for a maximum inf beats every number)
        return sign * a < sign * b

    values = [c[2] for c in cand] + [g[2] for g in gaps]
    if not any(v != mpmath.inf for v in values):
        note = f"stable for every {param} in range at every {over} examined"
        return None, (None, None), mpmath.inf, (), False, (), note
    points = [(c[2], 0, c) for c in cand] + [(g[2], 1, g) for g in gaps]
    rising = []  # (side, the end, the best point examined towards it)
    for side in ("lower", "upper"):  # (one gap: both its ends)
        found = probe(side)
        if found is None:
            continue
        gap, end, nearer = found
        last = gap
        for pt in nearer:
            if not better(pt[2], last[2]):
                break
            last = pt
        if last is not gap:
            rising.append((side, end, last))
            points.append((last[2], 1, last))
    bv, isgap, entry = min(points, key=lambda t: sign * t[0])
    best_candidate = min((c[2] for c in cand), key=lambda v: sign * v, default=None)
    for side, end, last in rising:
        if last is entry and (best_candidate is None or better(bv, best_candidate)):
            bound = "at most" if kind == "min" else "at least"
            note = (
                f"the {kind} is approached at the {side} end of the range of {over} and not "
                f"attained; its value, the limit of {param}_c there, was not computed: it is "
                f"{bound} {mpmath.nstr(bv, 8)}, {param}_c at {over} = {mpmath.nstr(last[0], 8)}"
            )
            return end, (None, None), None, (), False, (), note
    if rising and not (bv == mpmath.inf and kind == "max"):
        ends = " and ".join(side for side, _, _ in rising)
        note = (
            f"undecided: {param}_c still improves towards the {ends} end of the range of "
            f"{over} after {PROBES} points nearer it, without beating the best candidate "
            f"({mpmath.nstr(best_candidate, 8)}); its limit there was not computed"
        )
        return None, (None, None), None, (), False, (), note
    if not isgap:
        xv, _xq, pc, om, where, _ckind = entry
        return xv, where, pc, tuple(om), True, (), None
    if bv == mpmath.inf:  # a maximum on a whole gap: stable for every param there
        note = (
            f"{param}_c is inf (stable for every {param} in range) on the whole gap around "
            f"{over} = {mpmath.nstr(entry[0], 8)}, which is one such point"
        )
        return entry[0], (entry[1], entry[1]), bv, (), True, (), note
    raise VerificationError(
        f"{param}_c at a point between candidates beats every candidate: it is not "
        "monotone between candidates (a missed candidate)"
    )


# ====================================================================== special cases
def unstable_theta(
    model, *, lo=0, hi=None, dps: int = 15, force: bool = False, method: str = "auto"
) -> Window:
    """The ``theta > lo`` (default 0) at which the equilibrium is unstable: the window in
    theta, for any model (the in-flight model answers from 0 by its crossing-curve
    specialisation, :func:`symdelay.models.inflight.curve.specialised_window`)."""
    return window(model, "theta", lo=lo, hi=hi, dps=dps, force=force, method=method)


@entry_doc
def worst_delay(
    model,
    over: str = "D",
    *,
    param: str = "theta",
    lo=None,
    hi=None,
    dps: int = 15,
    force=False,
    method: str = "auto",
) -> Extremum:
    """The value of ``over`` (default the mean delay) that minimises the critical value of
    ``param``: :func:`extremum` with ``kind="min"``, the family's closed form first (the
    founding model's ``D* = L/mu``, :func:`symdelay.models.erlang.hopf.worst.worst_delay`).
    A delay model over a constant lag's parameter: the exact projection of its crossing
    curve (:mod:`symdelay.analysis.lagextremum`), which says when the least critical value
    is only approached as the lag grows (``x_star`` inf, ``attained`` False). Over the
    parameter of a distributed lag, of one of several lags or of a neutral equation: the
    certified bracket of :func:`symdelay.analysis.lagparam.lag_worst` over ``(lo, hi]``
    (``hi`` needed), shown to the digits it proves.

    Parameters
    ----------
    model : Model
        The model, every parameter but ``over`` and ``param`` a number.
    over : str, default "D"
        The parameter (or family option) varied: the mean delay by default.
    param : str, default "theta"
        The parameter whose critical value is minimised.
    lo, hi : number or str, optional
        The range of ``over``, numbers or their decimal text (made exact). Default: its
        declared domain.
    dps : int, default 15
        Significant digits (5..10000) of ``x_star``, ``p_c`` and the frequencies.
    force : bool, default False
        Lift the cost guard: an elimination polynomial of degree above
        :data:`MAX_ELIMINATION_DEGREE` is refused unless ``force``.
    method : {"auto", "generic", "specialised"}, default "auto"
        %(method)s

    Returns
    -------
    Extremum
        The worst value ``x_star`` (``D_star`` in the record), the minimal critical value
        (``theta_star``), the frequencies there and the family's ``closed_form``.

    Examples
    --------
    >>> from symdelay.models import build_model
    >>> w = worst_delay(build_model("erlang", L=3, mu=1, lam=1))
    >>> w.closed_form["D_star"], w.to_json()["theta_star"]
    (3/mu, '4.00000000000000')
    """
    kw = {"param": param, "lo": lo, "hi": hi, "dps": dps, "force": force}
    result = specialised(model, "worst_delay", method, over, **kw)
    if result is not None:
        ranged = lo is not None or hi is not None
        return _finish_extremum(result, model, ranged, "specialised", (lo, hi))
    return extremum(
        model, over, param=param, kind="min", lo=lo, hi=hi, dps=dps, force=force, method=method
    )


def kappa_star(
    model,
    over: str = "kappa",
    *,
    param: str = "theta",
    lo=None,
    hi=None,
    dps: int = 15,
    force=False,
    method: str = "auto",
) -> Extremum:
    """The smallest ``over`` (default the in-flight weight) from which the equilibrium is
    stable for every ``param > 0``: ``extremum(kind="stable")`` (the model must declare
    ``over``; the in-flight model with a free ``kappa`` answers by its specialisation,
    :func:`symdelay.models.inflight.curve.specialised_extremum`)."""
    return extremum(
        model, over, param=param, kind="stable", lo=lo, hi=hi, dps=dps, force=force, method=method
    )
