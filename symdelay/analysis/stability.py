"""Local stability of a model's equilibrium, and the one verdict at a point.

:func:`stability` answers with one record, :class:`Stability`, whatever path produced it:
the conditions (a conjunction, on the free parameters, on the model's own domain) for every
root of the characteristic function to lie in ``Re r < 0``; ``stable`` True / False / None
(None: depends on the free parameters), as SymPy's ``TransferFunction.is_stable`` answers;
and, at numbers, the **verdict** ``"stable"``, ``"marginal"`` (no root in ``Re r > 0``, some
on the imaginary axis: the linearisation decides nothing there) or ``"unstable"``, decided
exactly, with the roots on the axis (factor and frequency) and what was compared
(``decided_by``). Every command that states a verdict takes it from here.

Generic path: Routh–Hurwitz on every irreducible factor of ``det(rI - J)``, per mode.
Parameters carry their declared domains while signs are decided (``mu > 0`` is dropped as a
condition when ``mu`` is declared positive); the conditions are printed in the plain symbols.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from symdelay.analysis.entry import entry_doc
from symdelay.core.lazy import sympy as sp
from symdelay.core.result import Result
from symdelay.model.core import has_lags

__all__ = [
    "Stability",
    "stability",
    "is_stable",
    "require_stable",
    "point_text",
    "independent_stability",
    "model_record",
    "VERDICTS",
    "EXACT_COUNTS",
]

#: The verdicts at a point ("undecided": certified intervals could not separate, said why).
VERDICTS = ("stable", "marginal", "unstable", "undecided")

#: How a verdict at numbers is decided on a polynomial characteristic function (both paths:
#: :func:`factor_counts`).
EXACT_COUNTS = (
    "exact counts of each factor's roots in Re r > 0 and on Re r = 0 (rational arithmetic: "
    "the roots on the axis are i w for the real roots w of gcd(Re P(i w), Im P(i w)), the "
    "others counted by the Cauchy index, as Routh-Hurwitz counts them)"
)

#: Closed forms an earlier release printed at the top of the founding model's record (the
#: contract of ``stability --json``, and its LaTeX): both paths print them there for that
#: model (and, with the others, under ``closed_forms``).
CONTRACT_KEYS = (
    "critical_lam_theta",
    "critical_lam_theta_latex",
    "oscillation_condition",
    "oscillation_condition_latex",
)


@dataclass(frozen=True)
class Stability(Result):
    """The stability of a model's equilibrium: one record for every path.

    ``conditions``: relations on the free parameters whose conjunction is stability (empty
    at numbers: the verdict answers); ``stable``: True / False / None (depends on the free
    parameters); ``verdict``: at numbers ``"stable"``, ``"marginal"``, ``"unstable"`` (or
    ``"undecided"``, with the reason in ``decided_by``), None otherwise; ``factors``: the
    characteristic function by mode (:class:`~symdelay.analysis.charpoly.ModeFactor`) and
    ``factor_verdicts`` per factor ``(stable, unstable_count, axis_count)`` (the counts at
    numbers only); ``axis_roots``: ``(mode, omega, radius, multiplicity)`` of each root
    ``i omega`` on the axis (the mode of its factor); ``parameters``: the model's own options;
    ``closed_forms``: what its family knows in closed form (the founding model: the Hopf
    polynomial and ``critical_lam_theta``, the oscillation condition, ...).
    """

    conditions: tuple
    stable: bool | None
    verdict: str | None = None
    factors: tuple = ()
    factor_verdicts: tuple = ()
    axis_roots: tuple = ()
    decided_by: str | None = None
    parameters: dict = field(default_factory=dict)
    closed_forms: dict | None = None
    dps: int = 20
    model_name: str | None = None
    #: a delay model with free parameters: ``"exact"`` when ``conditions`` are necessary and
    #: sufficient for stability at every value of the lags, ``"sufficient"`` when only
    #: sufficient (:mod:`symdelay.analysis.delayindep`); None otherwise
    delay_independent: str | None = None
    note: str | None = None
    #: a delay model with free parameters and one uniform window ``[0, P]``: stability for
    #: every ``P > 0``, exactly (:func:`symdelay.analysis.delayindep.window_stability`)
    for_every_lag: dict | None = None

    @property
    def condition(self) -> sp.Basic:
        return sp.And(*self.conditions)

    @property
    def unstable_count(self) -> int | None:
        """Roots with ``Re r > 0`` (with multiplicity), at numbers."""
        return _total(self.factors, self.factor_verdicts, 1)

    @property
    def axis_count(self) -> int | None:
        """Roots on the imaginary axis (with multiplicity), at numbers."""
        return _total(self.factors, self.factor_verdicts, 2)

    def record(self) -> dict:
        from symdelay.analysis.charpoly import closed_forms_json, head_keys
        from symdelay.analysis.rootset import axis_root_json
        from symdelay.core.latex import tex

        cf = closed_forms_json(self.closed_forms)
        out = {
            **head_keys(self.parameters),
            "conditions": [str(c) for c in self.conditions],
            "conditions_latex": [tex(c) for c in self.conditions],
            "stable": self.stable,
            "verdict": self.verdict,
            "unstable_count": self.unstable_count,
            "axis_count": self.axis_count,
            "axis_roots": [
                axis_root_json(mode, w, rad, m, self.dps) for mode, w, rad, m in self.axis_roots
            ],
            "decided_by": self.decided_by,
            "dps": self.dps,
            "factors": [
                {
                    "factor": str(f),
                    "mode": f.mode,
                    "multiplicity": f.multiplicity,
                    "stable": st,
                    "unstable_count": u,
                    "axis_count": a,
                }
                for f, (st, u, a) in zip(self.factors, self.factor_verdicts)
            ],
            "closed_forms": cf,
            "delay_independent": self.delay_independent,
            "note": self.note,
            "for_every_lag": self.for_every_lag,
        }
        for k in CONTRACT_KEYS:
            if cf is not None and k in cf:
                out[k] = cf[k]
        return out

    def verdict_text(self) -> str:
        """The verdict in words, with the roots on the axis when marginal (without numbers:
        what the conditions say)."""
        if self.verdict is None and self.delay_independent is not None:
            return {
                True: "stable for every value of the lags",
                False: "not stable for every value of the lags (some lag destabilises)",
                None: (
                    "stable for every value of the lags exactly when the conditions hold"
                    if self.delay_independent == "exact"
                    else "stable for every value of the lags when the conditions hold "
                    "(sufficient, not necessary)"
                ),
            }[self.stable]
        if self.verdict is None:
            return {
                True: "stable",
                False: "unstable",
                None: "stable exactly when the conditions hold",
            }[self.stable]
        if self.verdict != "marginal":
            return self.verdict
        from symdelay.core.numbers import format_ball

        shown = [(mode, format_ball(w, rad, 10)["value"]) for mode, w, rad, _ in self.axis_roots]
        parts = []
        for mode, w in shown:
            if w.startswith("-") and (mode, w[1:]) in shown:
                continue  # printed with its conjugate
            pair = w != "0" and (mode, "-" + w) in shown
            parts.append(f"r = {'+-' if pair else ''}{w}{'i' if w != '0' else ''} ({mode})")
        return f"marginal (no root in Re r > 0; on the imaginary axis {', '.join(parts)})"

    def text(self) -> str:
        """What ``symdelay stability`` prints: conditions, closed forms, the verdict."""
        from symdelay.analysis.charpoly import parameters_text

        p = parameters_text(self.parameters)
        head = f"L = {p['L']}" if "L" in p else str(self.model_name)
        cf = self.closed_forms or {}
        lines = []
        if "characteristic_polynomial" in cf:
            lines.append(f"{head}: characteristic polynomial {cf['characteristic_polynomial']}")
        elif "characteristic_function" in cf:
            lines.append(f"{head}: characteristic function {cf['characteristic_function']}")
        else:
            lines.append(f"{self.model_name}:")
        if cf.get("conditions_under_assumptions") is not None:
            lines.append(f"under {cf['assumptions']}:")
            under = cf["conditions_under_assumptions"]
            if not under:
                lines.append("  stable for every theta >= 0 (no condition remains)")
            lines += [f"  stable iff {c}" if len(under) == 1 else f"  {c}" for c in under]
        for k, label in (
            ("critical_lam_theta", "critical lam*theta (Hopf)"),
            ("critical_delay", "critical delay (Hopf)"),
        ):
            if k in cf and (cf[k] is not None or cf.get("hopf_polynomial") is not None):
                value = (
                    cf[k]
                    if cf[k] is not None
                    else (
                        f"no closed form; smallest positive root of {cf['hopf_polynomial']} = 0 "
                        "(lam*theta)"
                    )
                )
                lines.append(f"{label}: {value}")
        if "oscillation_condition" in cf:
            lines.append(
                "oscillation (rightmost roots non-real, not a stability boundary): "
                + str(cf["oscillation_condition"])
            )
        given = {k: v for k, v in p.items() if k != "L" and v is not None}
        at = "at " + ", ".join(f"{k} = {v}" for k, v in given.items()) + ": " if given else ""
        if self.conditions and self.delay_independent == "exact":
            lines.append(
                f"{at}stable for every value of the lags (delay-independent) exactly when "
                "(on the model's domain)"
            )
            lines += [f"  {c}" for c in self.conditions]
        elif self.conditions and self.delay_independent is not None:
            lines.append(
                f"{at}stable for every value of the lags (delay-independent) when (on the "
                "model's domain; sufficient, not necessary)"
            )
            lines += [f"  {c}" for c in self.conditions]
        elif self.conditions:
            lines.append(f"{at}stable exactly when (on the model's domain)")
            lines += [f"  {c}" for c in self.conditions]
        if self.note and self.delay_independent is not None:
            lines.append(f"note: {self.note}")
        lines += window_lines(self.for_every_lag)
        if self.verdict is not None:
            lines.append(f"{at}{self.verdict_text()}")
            if self.decided_by:
                lines.append(f"  decided by {self.decided_by}")
        elif self.stable is not None:
            lines.append(f"{at}{self.verdict_text()}")
        return "\n".join(lines)

    def latex(self) -> str:
        from symdelay.core.latex import tex

        if not self.conditions:
            word = (
                self.verdict or {True: "stable", False: "unstable", None: "undecided"}[self.stable]
            )
            body = rf"\text{{{word}}}"
        else:
            body = r" \;\wedge\; ".join(tex(c) for c in self.conditions)
        cf = self.closed_forms or {}
        if cf.get("stable_for_all_theta"):
            body += r", \qquad \text{stable for every } \theta \ge 0"
        if cf.get("critical_lam_theta") is not None:
            body += rf", \qquad (\lambda\theta)_c = {tex(cf['critical_lam_theta'])}"
        from symdelay.analysis.charpoly import parameters_text

        p = parameters_text(self.parameters)
        return f"L = {p['L']}:\\quad {body}" if "L" in p else body


def _total(factors, verdicts, k):
    if not verdicts or any(v[k] is None for v in verdicts):
        return None
    return sum(v[k] * f.multiplicity for f, v in zip(factors, verdicts))


@entry_doc
def stability(
    model, method: str = "auto", *, force: bool | None = None, dps: int = 20
) -> Stability:
    """The stability of ``model``'s equilibrium: conditions on its free parameters, and at
    numbers the verdict.

    The family's closed forms first (the founding model: its conditions in ``mu``, ``gamma``
    and ``lam*theta`` for one L, ``L = inf`` by Hayes' region), else Routh–Hurwitz on every
    factor of the characteristic polynomial (computed once per model and cached on it). Every
    command that states a verdict takes it from here.

    Parameters
    ----------
    model : Model
        The model; parameters left symbolic give conditions on them, numbers for every
        parameter give the verdict.
    method : {"auto", "generic", "specialised"}, default "auto"
        %(method)s
    force : bool or None, default None
        The cost guard (:mod:`symdelay.core.budget`). None (the API's default) runs the generic
        path unguarded and refuses the founding model's symbolic work when it is estimated over
        the shared budget; True or False (the command line's ``--force`` given or not)
        estimates both paths first, and True runs them whatever the estimate.
    dps : int, default 20
        Significant digits (5..10000) of the frequencies ``omega`` of the roots on the
        imaginary axis that the record lists when the verdict is marginal; the verdict itself
        is exact.

    Returns
    -------
    Stability
        ``conditions`` (relations whose conjunction is stability; empty at numbers),
        ``stable`` (True / False / None when it depends on the free parameters), ``verdict``
        at numbers (``"stable"``, ``"marginal"`` with ``axis_roots``, ``"unstable"``), the
        factors with their own verdicts and the family's ``closed_forms``.

    Examples
    --------
    >>> from symdelay.models import build_model
    >>> stability(build_model("nserver", N=3, L=1, mu=1, lam=1, theta=3, D=1)).verdict
    'stable'
    >>> res = stability(build_model("erlang", L=2, mu=1, lam=1, theta=9, D=1))
    >>> res.verdict, res.stable, res.axis_count
    ('marginal', False, 2)
    """
    from symdelay.analysis.entry import require_table, specialised
    from symdelay.core.params import as_dps

    dps = as_dps(dps)
    result = specialised(model, "stability", method, force=force, dps=dps)
    if result is not None:
        return result
    require_table(model, "stability")
    if model.lags:
        from symdelay.model.modes import rational_numerator

        if any(rational_numerator(f.factor) is None for f in model.characteristic_factors):
            if getattr(model, "free_parameters", ()):
                return model.cached(
                    ("stability:independent", dps), lambda: independent_stability(model, dps)
                )
            return model.cached(
                ("stability", dps), lambda: delay_stability(model, dps, force=bool(force))
            )
    if force is not None:
        from symdelay.analysis.roots import check_analysis_cost

        check_analysis_cost(model, force=force)
    return model.cached(("stability", dps), lambda: _stability(model, dps))


def delay_stability(model, dps: int = 20, *, force: bool = False):
    """The stability of a delay model's equilibrium at numbers: the certified count of
    every mode's roots in ``Re r > 0`` (:func:`unstable_count`), as the one
    :class:`~symdelay.analysis.stability.Stability` record.

    Parameters
    ----------
    model : Model
        A model with lags (``model.lags``), every parameter a number.
    dps : int, default 20
        Digits: the contour's finest segments (``10^-dps``) before a root near the imaginary
        axis is declared undecidable.
    force : bool, default False
        Run a count estimated over the budget anyway.

    Returns
    -------
    Stability
        ``verdict`` stable / marginal / unstable / undecided (the reason in ``decided_by``),
        ``factor_verdicts`` ``(stable, unstable_count, axis_count)`` per mode function,
        ``axis_roots`` the root ``r = 0`` when it is one.
    """
    import mpmath

    from symdelay.analysis.charpoly import ModeFactor, model_parameters
    from symdelay.analysis.entry import closed_forms
    from symdelay.analysis.lagroots import _mode_groups, unstable_count
    from symdelay.core.errors import SymdelayInputError
    from symdelay.core.params import as_dps

    dps = as_dps(dps)
    free = [str(p) for p in getattr(model, "free_parameters", ())]
    if free:
        raise SymdelayInputError(
            "the stability of a delay model is decided at numbers only: give " + ", ".join(free)
        )
    values = dict(getattr(model, "values", {}) or {})
    lags = {
        k: lag.xreplace(values) if values else lag
        for k, lag in (getattr(model, "lags", {}) or {}).items()
    }
    factors, verdicts, axis, how = [], [], [], []
    undecided = None
    for name, lin, function, copies in _mode_groups(model):
        res = unstable_count(lin, lags, dps=dps, force=force)
        factors.append(ModeFactor(function, name, copies))
        if res.unstable is None:
            verdicts.append((None, None, None))
            undecided = undecided or f"{name} mode: {res.decided_by}"
            continue
        u, a = res.unstable * copies, res.axis * copies
        verdicts.append((u == 0 and a == 0, u, a))
        if res.axis:
            axis.append((name, mpmath.mpf(0), mpmath.mpf(0), res.axis * copies))
        how.append(f"{name} mode: {res.decided_by}")
    if undecided is not None:
        # a proved unstable mode decides the verdict whatever the undecided one does
        if any(v[1] for v in verdicts if v[1] is not None):
            verdict = "unstable"
            decided = "; ".join(how) + f"; {undecided}"
        else:
            verdict, decided = "undecided", undecided
    else:
        verdict = counts_verdict(verdicts)
        decided = "; ".join(how)
    stable = {"stable": True, "undecided": None}.get(verdict, False)
    return Stability(
        (),
        stable,
        verdict,
        tuple(factors),
        tuple(verdicts),
        tuple(axis),
        decided,
        model_parameters(model),
        closed_forms(model, "stability"),
        dps,
        model_name=getattr(model, "name", None),
    )


def independent_stability(model, dps: int = 20) -> Stability:
    """The stability of a delay model with free parameters: the delay-independent
    conditions (:func:`symdelay.analysis.delayindep.independent_conditions`), under which
    no value of the lags destabilises the equilibrium, as the one
    :class:`~symdelay.analysis.stability.Stability` record.

    Parameters
    ----------
    model : Model
        A model with lags whose characteristic functions are transcendental, some
        parameter left free.
    dps : int, default 20
        Recorded (there is no number to print: the conditions are exact).

    Returns
    -------
    Stability
        ``conditions`` (the Hurwitz conditions at zero lag and the frequency conditions),
        ``stable`` None (True / False when the domains decide them), ``verdict`` None,
        ``delay_independent`` ``"exact"`` (necessary and sufficient) or ``"sufficient"``,
        and ``note`` saying which and why.
    """
    from symdelay.analysis.charpoly import ModeFactor, model_parameters
    from symdelay.analysis.delayindep import independent_conditions, window_stability
    from symdelay.analysis.entry import closed_forms
    from symdelay.analysis.lagroots import _mode_groups

    ic = independent_conditions(model)
    conds, known = free_conditions(ic.conditions)
    if ic.exact != "exact" and known is False:
        known = None  # a sufficient condition that fails decides nothing
    factors = tuple(ModeFactor(f, name, copies) for name, _, f, copies in _mode_groups(model))
    verdicts = tuple((None, None, None) for _ in factors)
    return Stability(
        conds,
        known,
        None,
        factors,
        verdicts,
        (),
        "delay-independent conditions: Routh-Hurwitz at zero lag and the frequency "
        "condition on the imaginary axis (z3 nlqsat for the reductions)",
        model_parameters(model),
        closed_forms(model, "stability"),
        dps,
        model_name=getattr(model, "name", None),
        delay_independent=ic.exact,
        note=ic.note,
        for_every_lag=window_stability(model),
    )


def is_stable(model) -> bool | None:
    """True / False, or None when the answer depends on the free parameters."""
    return stability(model).stable


def point_text(res: Stability) -> str:
    """The point a verdict is at: ``L = 2, mu = 1, ...`` (the model's own options)."""
    from symdelay.analysis.charpoly import parameters_text

    given = {k: v for k, v in parameters_text(res.parameters).items() if v is not None}
    return ", ".join(f"{k} = {v}" for k, v in given.items()) or str(res.model_name)


def require_stable(model, what: str) -> Stability:
    """The verdict at ``model``'s numbers (:func:`stability`), when it is ``"stable"``; else
    a one-line refusal naming it (and the roots on the imaginary axis when marginal):
    ``what`` (e.g. "a stationary variance") needs a stable equilibrium."""
    from symdelay.core.errors import SymdelayInputError

    res = stability(model)
    if res.verdict == "stable":
        return res
    if res.verdict is None:
        free = [str(p) for p in getattr(model, "free_parameters", ())]
        raise SymdelayInputError(
            f"{what} needs a number for every parameter: give {', '.join(free)}"
        )
    raise SymdelayInputError(
        f"no {what} at {point_text(res)}: the equilibrium is {res.verdict_text()} "
        "(it needs a stable one; choose parameters inside the stability region)"
    )


def model_record(model) -> dict:
    """The record of ``symdelay analyze --json``: the model's derived data and its stability
    (:func:`stability`, the same record as ``symdelay stability``)."""
    from symdelay.core.errors import SymdelayInputError

    try:
        st = stability(model).record()
    except SymdelayInputError as exc:
        if not has_lags(model):
            raise
        # a delay model with free parameters: no conditions in closed form (yet)
        st = {"conditions": [], "stable": None, "verdict": None, "note": str(exc)}
    return {**model.to_json(), "stability": st}


# --------------------------------------------------------------------- shared machinery
def window_lines(w: dict | None) -> list:
    """The text of a record's ``for_every_lag`` (:func:`symdelay.analysis.delayindep.
    window_stability`): the exact conditions for every window length, and why."""
    if w is None:
        return []
    m = sp.Float(w["m"], 30)
    lines = [
        f"stable for every {w['param']} > 0 exactly when (on the model's domain; "
        f"{w['constant']} = {sp.Float(m, 16)}, 1/{w['constant']} = {sp.Float(1 / m, 16)}; "
        f"certified to {w['m_radius']})"
    ]
    lines += [f"  {c}" for c in w["conditions"]] or ["  (always: no condition left)"]
    lines.append(f"  why: {w['why']}; {w['m_definition']}")
    return lines


def free_conditions(conditions, positive=()) -> tuple[tuple, bool | None]:
    """The conditions that still depend on free parameters, and what the others say:
    ``(conditions, known)`` with ``known`` False when one fails (then ``(false,)``), True
    when all hold and none is left, else None. ``positive``: symbols -> their positive
    versions for deciding signs."""
    keep = []
    for c in conditions:
        decided = c.xreplace(dict(positive)) if positive else c
        if isinstance(decided, sp.core.relational.Relational):  # evaluated again (numbers)
            decided = decided.func(*decided.args)
        value = decided if decided in (sp.true, sp.false) else None
        if value is None:
            if c not in keep:
                keep.append(c)
        elif not value:
            return (sp.false,), False
    return tuple(keep), (True if not keep else None)


def axis_frequencies(coeffs_high_first, prec: int):
    """``[(omega, radius, multiplicity)]`` of the roots ``i omega`` of a real rational
    polynomial on the imaginary axis (exact: the real roots of ``gcd(Re, Im)``)."""
    import mpmath

    from symdelay.analysis.certify import arb_to_mpf_upper, mpf_value
    from symdelay.analysis.polyroots import axis_roots

    out = []
    for w, m in axis_roots(coeffs_high_first, prec):
        mid = mpmath.mp.make_mpf(mpf_value(w.mid()))  # exact: the ball's midpoint
        out.append((mid, arb_to_mpf_upper(w.rad()), int(m)))
    out.sort(key=lambda t: -t[0])
    return out


def factor_counts(coeffs_high_first, multiplicity: int, mode: str, prec: int):
    """The exact counts of one rational factor at numbers: ``(unstable, axis, axis_roots)``
    with ``axis_roots`` ``(mode, omega, radius, multiplicity)``, each count times
    ``multiplicity`` (the one decision every verdict at a point rests on)."""
    from symdelay.analysis.polyroots import exact_counts, polynomial_roots

    if len(coeffs_high_first) < 2:
        return 0, 0, ()
    if not all(sp.sympify(c).is_Rational for c in coeffs_high_first):
        # algebraic coefficients (an equilibrium in radicals at numbers): the certified
        # roots decide the axis exactly (gcd of the real and imaginary parts)
        x = sp.Dummy("x")
        res = polynomial_roots(sp.Poly(list(coeffs_high_first), x), x, max(15, int(prec / 3.33)))
        axis = sorted(
            ((mode, z.imag, z.radius, z.multiplicity * multiplicity) for z in res if z.on_axis),
            key=lambda t: -t[1],
        )
        return res.unstable_count * multiplicity, res.axis_count * multiplicity, tuple(axis)
    coeffs = [sp.Rational(c) for c in coeffs_high_first]
    counts = exact_counts(coeffs)
    axis = ()
    if counts.axis:
        axis = tuple(
            (mode, w, rad, m * multiplicity) for w, rad, m in axis_frequencies(coeffs, prec)
        )
    return counts.rhp * multiplicity, counts.axis * multiplicity, axis


def counts_verdict(verdicts) -> str:
    """The verdict from per-factor ``(stable, unstable, axis)`` at numbers."""
    from symdelay.analysis.rootset import verdict_of

    return verdict_of(sum(v[1] for v in verdicts), sum(v[2] for v in verdicts))


def _stability(model, dps: int) -> Stability:
    import mpmath

    from symdelay.analysis.charpoly import mode_factors, model_parameters
    from symdelay.analysis.entry import closed_forms
    from symdelay.analysis.routh import routh_hurwitz
    from symdelay.core.symbols import r
    from symdelay.model.equilibrium import _with_domains

    assume = _with_domains(model)
    back = {v: k for k, v in assume.items()}
    at_numbers = not model.free_parameters
    factors = mode_factors(model)
    conditions: list = []
    verdicts = []
    axis = []
    prec = int(dps * 3.33) + 30
    for mf in factors:
        stable_parts, rhp, on_axis = [], 0, 0
        for f, e in mf.parts:
            if at_numbers:
                u, a, ax = factor_counts(sp.Poly(f.factor, r).all_coeffs(), e, mf.mode, prec)
                rhp, on_axis = rhp + u, on_axis + a
                axis += [(m_, w, rad, k * mf.multiplicity) for m_, w, rad, k in ax]
                stable_parts.append(u == 0 and a == 0)
                continue
            res = routh_hurwitz(f.factor.xreplace(assume), r)
            stable_parts.append(res.is_stable)
            for c in res.lienard_chipart:
                lhs = sp.factor(c.lhs)
                if lhs.is_positive:
                    continue
                # drop positive factors known from the domains
                if isinstance(lhs, sp.Mul):
                    keep = [a for a in lhs.args if not a.is_positive]
                    sign = sp.Mul(*[a for a in lhs.args if a.is_number])
                    lhs = sp.Mul(*keep) if sign.is_positive or not keep else lhs
                cond = sp.StrictGreaterThan(lhs.xreplace(back), 0, evaluate=False)
                if cond not in conditions:
                    conditions.append(cond)
        st = _combine(stable_parts)
        verdicts.append((st, rhp, on_axis) if at_numbers else (st, None, None))
    verdict = decided = None
    if at_numbers:
        verdict = counts_verdict(verdicts)
        decided = EXACT_COUNTS
        stable = verdict == "stable"
        conds: tuple = ()
        with mpmath.workprec(prec):
            axis.sort(key=lambda t: (-t[1], t[0]))
    else:
        conds, known = free_conditions(conditions)
        stable = known if known is not None else _combine(v[0] for v in verdicts)
    return Stability(
        conds,
        stable,
        verdict,
        factors,
        tuple(verdicts),
        tuple(axis),
        decided,
        model_parameters(model),
        # at numbers the verdict needs none of them: derived when first read (the founding
        # model's symbolic conditions grow like L^4: 13 s at L = 16 that a spectrum never read)
        closed_forms(model, "stability", lazy=at_numbers),
        dps,
        model_name=model.name,
    )


def _combine(values) -> bool | None:
    values = list(values)
    if all(v is True for v in values):
        return True
    if any(v is False for v in values):
        return False
    return None
