"""Delay-independent stability of a delay model: the polynomial conditions under which no
value of the lags destabilises the equilibrium.

Each mode's characteristic function is ``F(r) = det(r I - A_0 - sum_k M_k K_k(r))``. Every
lag's transform is replaced by a variable: a **constant** lag ``tau`` by ``z = exp(-r tau)``
(for ``r = i omega``, ``omega > 0``, ``z`` runs over the whole unit circle as ``tau`` runs
over ``[0, oo)``), a mixture of constant lags by its weighted sum of such variables, any
other kind (uniform, gamma, exponential, phase-type) by a variable ``d`` in the closed unit
disc (every lag is a probability law on ``[0, oo)``, so ``|K(i omega)| <= 1``, and
``K(0) = 1``). ``F`` becomes a polynomial ``F(r, z, d)``.

**The criterion** (retarded equations: no derivative terms, so ``r^n`` is ``F``'s only term
of the top degree). Let every lag vary independently over ``[0, oo)``. The number of roots
in ``Re r > 0`` is zero at ``tau = 0`` iff ``F(r, 1)`` is Hurwitz; it can change only when a
root crosses the imaginary axis (no root comes from infinity into ``Re r >= 0`` in a retarded
equation: the roots there are bounded uniformly in the lags), and ``r = 0`` is a root for no
lag when ``F(0, 1) != 0``. So the equilibrium is stable for every value of the lags iff

1. ``F(r, 1)`` is Hurwitz (Liénard–Chipart conditions, :mod:`symdelay.analysis.decide`), and
2. ``F(i omega, z) != 0`` for every ``omega > 0`` and every ``z`` on the torus
   ``|z_k| = 1`` (constant lags: **necessary and sufficient**, as every point of the torus
   is reached by some lags), and every ``d`` in the closed disc (distributed lags: only
   **sufficient**, as their transforms fill only part of the disc).

For one constant lag entering linearly, ``F = P_0(r) + P_1(r) z``, condition 2 is
``|P_0(i w)|^2 - |P_1(i w)|^2 > 0`` for every ``w > 0``: a polynomial ``H(u)`` in ``u = w^2``
(where both vanish at ``i w``, ``i w`` is a root for every lag, which 1 excludes; ``H`` ends
positive, so ``H != 0`` on ``u > 0`` is ``H > 0`` there). For several independent constant lags
each entering linearly in a scalar mode, ``P_0 + sum_k P_k z_k`` vanishes somewhere on the
torus iff no modulus exceeds the sum of the others (a closed polygon), so condition 2 is
``|P_0(i w)| > sum_k |P_k(i w)|`` for every ``w > 0`` — exact there. Where the lags' values
are tied to one another or to other parameters (``D`` and ``2 D``; a number), the model's
lags are a subset of the independent ones and the conditions are sufficient only; the record
says which (``exact``).

A condition ``for every omega > 0: ...`` is replaced by its ``omega -> 0`` limit (``>``
becomes ``>=``) when the decision procedure (z3, quantified nonlinear real arithmetic:
``nlqsat``, complete) proves the two equivalent under the domains and condition 1: the
founding scalar mode ``r + mu + lam theta exp(-r D)`` gives ``lam*theta <= mu`` (equality
included: ``H(u) = u`` then, no root reaches the axis for ``omega > 0`` and ``F(0) = 2 mu``).

**Neutral equations** (a delayed derivative: ``F``'s leading coefficient in ``r`` holds lag
variables, ``a_0 + sum_m c_m z_m``). First the difference operator ``a_0 x(t) + sum_m c_m
x(t - tau_m)``: strongly stable (Hale & Verduyn Lunel 1993, ch. 9: its roots stay in ``Re r
<= -eps < 0`` for every choice of the lags) iff ``sum_m |c_m| < |a_0|``, a condition on the
parameters (signs from the domains; the free ones enumerated), necessary for stability at
every lag. With it every root in ``Re r >= 0`` lies in a disc whose radius does not depend
on the lags (the bound of :mod:`symdelay.analysis.lagroots`), so no root comes from infinity
and the retarded criterion above holds unchanged, labelled the same way (exact /
sufficient). The announcement model ``r + mu + k (1 + p r) e^{-r D}`` gives ``k p < 1`` and
``k <= mu``. Scalar modes only: a matrix mode's operator (a spectral radius over the torus)
is refused in one line.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.model.core import has_lags

__all__ = [
    "IndependentMode",
    "IndependentConditions",
    "independent_conditions",
    "for_every",
    "dis_formula",
    "crossing_nodes",
    "crossing_at",
    "EXACT",
    "SUFFICIENT",
]

EXACT = "exact"
SUFFICIENT = "sufficient"


@functools.cache
def _for_every_class():
    """The SymPy Boolean ``ForEvery(omega, relation, circle, disc)``: ``relation`` holds for
    every ``omega > 0``, every ``z`` in ``circle`` on the unit circle and every ``d`` in
    ``disc`` in the closed unit disc (built at first use: SymPy loads lazily)."""
    Boolean = sp.logic.boolalg.Boolean

    class ForEvery(Boolean):
        def __new__(cls, var, relation, circle=(), disc=()):
            return Boolean.__new__(cls, var, relation, sp.Tuple(*circle), sp.Tuple(*disc))

        @property
        def var(self):
            return self.args[0]

        @property
        def relation(self):
            return self.args[1]

        @property
        def circle(self):
            return tuple(self.args[2])

        @property
        def disc(self):
            return tuple(self.args[3])

        @property
        def free_symbols(self):
            return self.relation.free_symbols - {self.var, *self.circle, *self.disc}

        def _where(self, show):
            parts = [f"{show(self.var)} > 0"]
            if self.circle:
                parts.append(" = ".join(f"|{show(z)}|" for z in self.circle) + " = 1")
            if self.disc:
                parts.append(", ".join(f"|{show(d)}|" for d in self.disc) + " <= 1")
            return parts

        def _sympystr(self, printer):
            rel = self.relation
            body = (
                f"{printer._print(rel.lhs)} != {printer._print(rel.rhs)}"
                if isinstance(rel, sp.Ne)
                else printer._print(rel)
            )
            return f"for every {', '.join(self._where(printer._print))}: {body}"

        def _latex(self, printer):
            where = r",\ ".join(self._where(printer._print))
            return rf"\forall\, {where}:\ " + printer._print(self.relation)

    ForEvery.__module__ = __name__
    return ForEvery


def for_every(var, relation, circle=(), disc=()):
    """``relation`` for every ``var > 0`` (and every ``circle`` variable of modulus 1, every
    ``disc`` variable of modulus at most 1), as a SymPy Boolean that prints so."""
    return _for_every_class()(var, relation, circle, disc)


@dataclass(frozen=True)
class IndependentMode:
    """One mode: ``F`` in ``r`` and the lag variables (``circle``: constant lags;
    ``disc``: the others), ``hurwitz`` the conditions on ``F(r, 1)``, ``frequency`` the
    condition on the axis (a :func:`for_every` or its proven ``omega -> 0`` form; None when
    the mode has no lag), ``parts``: ``(P_0, (P_1, ...))`` when every lag enters linearly in
    its own term (the scalar form), else None; ``H``: ``|P_0|^2 - |P_1|^2`` in ``u = w^2``
    for one linear lag, else None."""

    name: str
    multiplicity: int
    F: object
    circle: tuple
    disc: tuple
    hurwitz: tuple
    frequency: object
    parts: tuple | None
    H: object = None
    reduced: bool = False
    difference: tuple = ()

    @property
    def leading(self) -> tuple:
        """The conditions on the parameters alone: the difference operator's (neutral
        modes) and the Hurwitz conditions at zero lag."""
        return (*self.difference, *self.hurwitz)


@dataclass(frozen=True)
class IndependentConditions:
    """The delay-independent conditions of a model: ``modes``, ``conditions`` (their
    conjunction, on the free parameters), ``exact`` (:data:`EXACT`: necessary and
    sufficient for stability at every value of the model's lags; :data:`SUFFICIENT`:
    sufficient only) with ``why``, and the symbols ``omega`` (the frequency) and ``u``
    (``omega^2``)."""

    modes: tuple
    conditions: tuple
    exact: str
    why: str
    omega: object
    u: object
    parameters: tuple
    domains: dict

    @property
    def note(self) -> str:
        head = "delay-independent stability (stable for every value of the lags)"
        if self.exact == EXACT:
            return f"{head}: necessary and sufficient ({self.why})"
        return f"{head}: sufficient, not necessary ({self.why})"


# ------------------------------------------------------------------ the lag variables
def _lag_value_symbols(lag) -> set:
    return set(sp.sympify(lag.args["value"]).free_symbols) if lag.kind == "constant" else set()


def _atom(lag, atoms: dict, reasons: list):
    """The expression that replaces ``lag``'s transform: its circle/disc variable(s)."""
    if lag.kind == "constant":
        key = ("z", lag.name)
        if key not in atoms:
            atoms[key] = sp.Symbol(f"z_{lag.name}")
        return atoms[key]
    if lag.kind == "mixture":
        return sp.Add(
            *[
                sp.sympify(w) * _atom(sub, atoms, reasons)
                for sub, w in zip(lag.args["lags"], lag.args["weights"], strict=True)
            ]
        )
    key = ("d", lag.name)
    if key not in atoms:
        atoms[key] = sp.Symbol(f"d_{lag.name}")
        reasons.append(
            f"the {lag.kind} lag {lag.name}: its transform is bounded by 1 on the axis, and "
            "the conditions ask F != 0 for every value in the unit disc"
        )
    return atoms[key]


def _constant_lags(lag, out: list) -> None:
    if lag.kind == "constant":
        out.append(lag)
    elif lag.kind == "mixture":
        for sub in lag.args["lags"]:
            _constant_lags(sub, out)


def _independence(model, lin_terms, A0, constants) -> list:
    """Why the model's constant lags are not independent of one another and of the rest (an
    empty list: they are)."""
    free = set(model.free_parameters)
    seen: dict = {}
    out = []
    rest = set(A0.free_symbols)
    for t in lin_terms:
        rest |= t.matrix.free_symbols
    for lag in constants:
        value = sp.sympify(lag.args["value"])
        if value in seen.values() and seen.get(lag.name) != value:
            out.append(f"the lags share the value {value}")
        seen[lag.name] = value
        if not (isinstance(value, sp.Symbol) and value in free):
            out.append(
                f"the lag {lag.name} = {value} is not a free parameter of its own (the "
                "conditions hold for every value; the model's lag is one of them)"
            )
        elif value in rest:
            out.append(f"the lag {lag.name} = {value} enters the rates too")
    return list(dict.fromkeys(out))


# ------------------------------------------------------------------ the polynomial parts
def _real_imag(P, r, omega):
    """``(Re, Im)`` of ``P(i omega)`` for ``P`` polynomial in ``r`` with real coefficients
    that may hold the circle/disc variables' real and imaginary parts: by powers of ``i``."""
    poly = sp.Poly(sp.expand(P), r)
    re, im = sp.Integer(0), sp.Integer(0)
    for (k,), c in poly.terms():
        c = sp.expand(c)
        part = c * omega**k
        if k % 4 == 0:
            re += part
        elif k % 4 == 1:
            im += part
        elif k % 4 == 2:
            re -= part
        else:
            im -= part
    return sp.expand(re), sp.expand(im)


def _modulus_squared(P, r, omega, u):
    """``|P(i omega)|^2`` as a polynomial in ``u = omega^2`` (real coefficients)."""
    re, im = _real_imag(P, r, omega)
    return sp.expand(sp.expand(re**2 + im**2).subs(omega**2, u))


def _complex_parts(F, r, omega, circle, disc):
    """``(Re, Im)`` of ``F(i omega, x + i y, ...)``, the variables' real parts ``x`` and
    imaginary parts ``y``: ``(re, im, pairs)`` with ``pairs`` ``[(var, x, y)]``."""
    pairs = [(v, sp.Symbol(f"{v.name}_re"), sp.Symbol(f"{v.name}_im")) for v in (*circle, *disc)]
    expr = sp.expand(F.xreplace({v: x + sp.I * y for v, x, y in pairs}).xreplace({r: sp.I * omega}))
    return sp.expand(expr.coeff(sp.I, 0)), sp.expand(expr.coeff(sp.I, 1)), pairs


def _hurwitz(F1, model, r):
    """The Liénard–Chipart conditions of ``F(r, 1)`` on the free parameters (positive
    factors on the domains removed), as :func:`symdelay.analysis.decide.stability_formula`
    states them for a polynomial factor."""
    from symdelay.analysis.decide import _domain_symbols, _simplified
    from symdelay.analysis.routh import routh_hurwitz

    assume = _domain_symbols(model)
    back = {v: k for k, v in assume.items()}
    if not F1.free_symbols - {r}:
        from symdelay.analysis.polyroots import exact_counts

        counts = exact_counts([sp.Rational(c) for c in sp.Poly(F1, r).all_coeffs()])
        ok = counts.rhp == 0 and counts.axis == 0
        return () if ok else (sp.false,)
    res = routh_hurwitz(F1.xreplace(assume), r)
    pieces = [x**2 for x in sp.fraction(sp.together(res.multiplier)) if not sp.expand(x).is_number]
    pieces += [c.lhs - c.rhs for c in res.lienard_chipart]
    return tuple(dict.fromkeys(c for x in pieces for c in _simplified(x, assume, back)))


def _frequency_symbols(model):
    names = {p.name for p in model.parameters}
    w = "omega"
    while w in names:
        w += "_"
    u = "u"
    while u in names:
        u += "_"
    return sp.Symbol(w), sp.Symbol(u)


# ------------------------------------------------------------------ the conditions
def independent_conditions(model, timeout_ms: int = 10_000) -> IndependentConditions:
    """The delay-independent stability conditions of ``model`` (cached on it): see the
    module docstring.

    Parameters
    ----------
    model : Model
        A model with lags (``model.lags``); parameters left free appear in the conditions,
        given ones are substituted.
    timeout_ms : int, default 10000
        The decision procedure's budget (z3 resource units worth this many milliseconds) for
        each proof that a frequency condition equals its ``omega -> 0`` limit; without the
        proof the condition is kept in its ``for every omega > 0`` form (exact either way).

    Returns
    -------
    IndependentConditions
        Per mode the Hurwitz conditions of ``F(r, 1)`` and the frequency condition; the
        conjunction ``conditions``; ``exact`` (necessary and sufficient) or ``sufficient``,
        and why.
    """
    return model.cached(("delay-independent", timeout_ms), lambda: _conditions(model, timeout_ms))


def _conditions(model, timeout_ms) -> IndependentConditions:
    from symdelay.analysis.lagroots import _mode_groups
    from symdelay.core.symbols import r

    name = getattr(model, "name", "the model")
    if not has_lags(model):
        raise SymdelayInputError(f"{name} has no lags: its stability conditions are Routh-Hurwitz")
    eq = model.equilibrium
    if not eq.exact:
        raise SymdelayInputError(
            f"{name}: the equilibrium is not in closed form in the parameters (found "
            "numerically): delay-independent conditions need it exact; give numbers for the "
            "parameters it depends on"
        )
    values = dict(getattr(model, "values", {}) or {})
    lags = {k: (lag.xreplace(values) if values else lag) for k, lag in model.lags.items()}
    omega, u = _frequency_symbols(model)
    atoms: dict = {}
    reasons: list = []
    modes = []
    constants: list = []
    all_terms = []
    A0s = []
    for mode_name, lin, _function, copies in _mode_groups(model):
        neutral = any(t.derivative and not t.matrix.is_zero_matrix for t in lin.terms)
        n = lin.A0.shape[0]
        if neutral and n != 1:
            raise SymdelayInputError(
                f"{name}: the {mode_name} mode is a neutral equation of dimension {n}: the "
                "strong stability of its difference operator (a spectral radius over the "
                "torus) is stated for scalar modes only; give numbers for every parameter "
                "for the certified count"
            )
        delta = sp.eye(n) * r - lin.A0
        for t in lin.terms:
            kernel = sp.Integer(1)
            for lag_name in t.lags:
                kernel *= _atom(lags[lag_name], atoms, reasons)
                _constant_lags(lags[lag_name], constants)
            delta -= t.matrix * kernel * (r if t.derivative else 1)
        all_terms += list(lin.terms)
        A0s.append(lin.A0)
        F = sp.expand(sp.together(delta.det(method="berkowitz")))
        num, den = sp.fraction(sp.cancel(F))
        if den.has(r) or any(den.has(a) for a in atoms.values()):
            raise SymdelayInputError(
                f"{name}: the {mode_name} mode's characteristic function is not polynomial in r "
                "and the lags' transforms"
            )
        F = sp.expand(num / den)  # den: free of r (rational coefficients: Routh clears them)
        circle = tuple(sorted((a for k, a in atoms.items() if k[0] == "z" and F.has(a)), key=str))
        disc = tuple(sorted((a for k, a in atoms.items() if k[0] == "d" and F.has(a)), key=str))
        F1 = sp.expand(F.xreplace({a: 1 for a in (*circle, *disc)}))
        difference = ()
        if neutral:
            difference = _difference_conditions(F, r, circle, disc, model, mode_name, reasons)
        hurwitz = _hurwitz(F1, model, r)
        frequency, parts, H = None, None, None
        if circle or disc:
            frequency, parts, H = _frequency(F, r, omega, u, circle, disc)
        modes.append(
            IndependentMode(
                mode_name, copies, F, circle, disc, hurwitz, frequency, parts, H, False, difference
            )
        )
    constants = list({c.name: c for c in constants}.values())
    A0 = A0s[0] if A0s else sp.zeros(1)
    tied = _independence(model, all_terms, sp.Matrix.hstack(*A0s) if A0s else A0, constants)
    exact = EXACT if not reasons and not tied else SUFFICIENT
    if exact == EXACT:
        why = (
            "every lag is constant and varies on its own: every point of the unit circle "
            "is some lag's exp(-i omega tau)"
        )
    else:
        why = "; ".join([*reasons, *tied])
    neutral_modes = [m for m in modes if m.difference]
    if neutral_modes:
        why += (
            "; neutral "
            + ", ".join(
                f"{m.name} mode: its difference operator is strongly stable iff "
                + " and ".join(str(c) for c in m.difference)
                for m in neutral_modes
            )
            + (
                " (Hale & Verduyn Lunel: sum |c_k| < |a_0|; necessary, and with it the roots in "
                "Re r >= 0 stay bounded for every lag, so the retarded criterion holds)"
            )
        )
    ic = IndependentConditions(
        tuple(modes), (), exact, why, omega, u, tuple(model.free_parameters), dict(model.domains)
    )
    modes = tuple(_reduce_mode(ic, m, timeout_ms) for m in modes)
    conds = []
    for m in modes:
        conds += [c for c in m.difference if c not in conds]
        conds += [c for c in m.hurwitz if c not in conds]
        if m.frequency is not None and m.frequency not in conds:
            conds.append(m.frequency)
    return IndependentConditions(
        modes,
        tuple(conds),
        exact,
        why,
        omega,
        u,
        tuple(model.free_parameters),
        dict(model.domains),
    )


def _difference_conditions(F, r, circle, disc, model, mode_name, reasons) -> tuple:
    """The strong stability of a scalar neutral mode's difference operator, as conditions
    on the parameters (``reasons`` gains why when they are sufficient only).

    ``F`` is polynomial in ``r`` and the lag variables; its leading coefficient in ``r`` is
    ``a_0 + sum_m c_m mu_m`` with ``mu_m`` monomials in the lag variables: for constant lags
    the difference operator ``a_0 x(t) + sum_m c_m x(t - tau_m)``. Hale & Verduyn Lunel
    (1993, ch. 9): it is strongly stable (stable for every choice of the lags, its roots in
    ``Re r <= -eps < 0``) iff ``sum_m |c_m| < |a_0|``. This is necessary for stability at
    every lag value, and with it every root in ``Re r >= 0`` stays in a disc whose radius
    does not depend on the lags (the bound of :mod:`symdelay.analysis.lagroots`), so the
    retarded criterion holds unchanged. Exact for distinct constant lags each in one
    monomial of degree 1; with a monomial of several lags or a distributed lag's disc
    variable the condition is sufficient only (the lags do not reach every point)."""
    lagvars = (*circle, *disc)
    lead = sp.expand(sp.Poly(F, r).LC())
    poly = sp.Poly(lead, *lagvars) if lagvars else None
    if poly is None or all(sum(m) == 0 for m in poly.monoms()):
        return ()
    a0 = sp.expand(poly.coeff_monomial(1))
    coeffs = [(mono, sp.expand(c)) for mono, c in poly.terms() if sum(mono) > 0]
    s0 = _sign_known_symbolic(a0, model)
    if s0 == 0:
        raise SymdelayInputError(
            f"{getattr(model, 'name', 'the model')}: the {mode_name} mode is neutral and the "
            f"sign of its leading coefficient {a0} is not fixed by the domains: give numbers "
            "for the certified count"
        )
    if any(sum(mono) > 1 for mono, _ in coeffs) or any(
        mono[lagvars.index(d)] for d in disc for mono, _ in coeffs
    ):
        reasons.append(
            f"the difference operator of the {mode_name} mode: sum |c_k| < |a_0| is stated "
            "for lags that reach every point of the torus (distributed lags or products of "
            "lags do not)"
        )
    known = [(c, _sign_known_symbolic(c, model)) for _, c in coeffs]
    fixed = sp.Add(*[s * c for c, s in known if s != 0])
    free = [c for c, s in known if s == 0]
    out = []
    # sum |c| < s0 a0 with the free signs enumerated: one condition per choice of signs
    import itertools

    for signs in itertools.product((1, -1), repeat=len(free)):
        lhs = sp.expand(fixed + sp.Add(*[e * c for e, c in zip(signs, free, strict=True)]))
        rhs = sp.expand(s0 * a0)
        cond = sp.StrictLessThan(lhs, rhs, evaluate=False)
        if lhs.is_number and rhs.is_number:
            cond = sp.true if lhs < rhs else sp.false
        if cond is sp.true:
            continue
        out.append(cond)
    return tuple(dict.fromkeys(out))


def _sign_known_symbolic(v, model) -> int:
    """``_sign_known`` on a model's domains (before the record exists)."""
    from types import SimpleNamespace

    ic = SimpleNamespace(parameters=tuple(model.free_parameters), domains=dict(model.domains))
    if sp.sympify(v).is_number:
        return 1 if v > 0 else (-1 if v < 0 else 0)
    return _sign_known(v, ic)


def _frequency(F, r, omega, u, circle, disc):
    """The condition on the axis of one mode: ``(for_every condition, parts, H)``."""
    lagvars = (*circle, *disc)
    poly = sp.Poly(F, *lagvars)
    linear = all(sum(m) <= 1 for m in poly.monoms())
    if linear:  # (a disc variable as a side of adjustable length <= |P_k|: the same test)
        P0 = sp.expand(poly.coeff_monomial(1))
        Ps = tuple(sp.expand(poly.coeff_monomial(v)) for v in lagvars)
        mods = [_modulus_squared(P, r, omega, u) for P in (P0, *Ps)]
        if len(Ps) == 1:
            H = sp.expand(mods[0] - mods[1])
            rel = sp.StrictGreaterThan(H.subs(u, omega**2), 0, evaluate=False)
            return for_every(omega, rel), (P0, Ps), H
        sq = [_modulus(m.subs(u, omega**2)) for m in mods]
        rel = sp.StrictGreaterThan(sq[0], sp.Add(*sq[1:]), evaluate=False)
        return for_every(omega, rel), (P0, Ps), None
    rel = sp.Ne(F.xreplace({r: sp.I * omega}), 0, evaluate=False)
    return for_every(omega, rel, circle, disc), None, None


def _modulus(m2):
    """``sqrt(m2)`` printed simply: the square root of a factored square comes out."""
    c, fs = sp.factor_list(m2)
    out, inside = sp.sqrt(c), sp.Integer(1)
    for f, e in fs:
        out *= f ** (e // 2)
        if e % 2:
            inside *= f
    return out * sp.sqrt(inside) if inside != 1 else out


# ------------------------------------------------------------------ formulas for z3
def _mode_axis_nodes(ic, m, names: dict):
    """``(variables, nodes)``: the existential form of a root of mode ``m`` on the axis
    (``omega > 0`` or ``u > 0``, with its lag variables), in the claim-node language;
    ``names``: suffix for the mode's own variables."""
    suffix = names.get(m.name, "")
    if m.H is not None:
        uu = sp.Symbol(f"{ic.u.name}{suffix}")
        return [uu], [("rel", uu, ">"), ("rel", sp.expand(-m.H.subs(ic.u, uu)), ">=")]
    from symdelay.core.symbols import r

    w = sp.Symbol(f"{ic.omega.name}{suffix}")
    if m.parts is not None:  # scalar, several linear lags: magnitudes as auxiliaries
        P0, Ps = m.parts
        mods = [_modulus_squared(P, r, ic.omega, ic.u).subs(ic.u, w**2) for P in (P0, *Ps)]
        s = [sp.Symbol(f"s{k}{suffix}") for k in range(len(mods))]
        nodes = [("rel", w, ">")]
        for sk, mk in zip(s, mods):
            nodes += [("rel", sk, ">="), ("rel", sp.expand(sk**2 - mk), "==")]
        nodes.append(("rel", sp.expand(sp.Add(*s[1:]) - s[0]), ">="))
        return [w, *s], nodes
    re, im, pairs = _complex_parts(m.F, r, w, m.circle, m.disc)
    ren = {p: sp.Symbol(f"{p.name}{suffix}") for _, x, y in pairs for p in (x, y)}
    nodes = [("rel", w, ">")]
    for v, x, y in pairs:
        mod = sp.expand(1 - ren[x] ** 2 - ren[y] ** 2)
        nodes.append(("rel", mod, "==" if v in m.circle else ">="))
    nodes += [
        ("rel", sp.expand(re.xreplace(ren)), "=="),
        ("rel", sp.expand(im.xreplace(ren)), "=="),
    ]
    return [w, *ren.values()], nodes


def crossing_nodes(ic: IndependentConditions, m: IndependentMode):
    """``(variables, nodes)``: mode ``m`` has a root on the imaginary axis (``omega > 0``)
    for some value of the lag variables — the negation of its frequency condition, without
    quantifiers (its variables are existential)."""
    return _mode_axis_nodes(ic, m, {m.name: "_" + m.name})


def _z3_frequency(ic, m, zvars, z3):
    """Mode ``m``'s frequency condition as a z3 formula with a universal quantifier."""
    from symdelay.model.signs import z3_node

    variables, nodes = _mode_axis_nodes(ic, m, {m.name: "_" + m.name})
    local = dict(zvars)
    bound = []
    for v in variables:
        local[v] = z3.Real(v.name)
        bound.append(local[v])
    body = z3.And(*[z3_node(n, local, z3) for n in nodes])
    return z3.ForAll(bound, z3.Not(body))


def hurwitz_node(cond):
    """A condition on the parameters (``P > 0``, ``P >= 0``, ``P < 0``, ``P <= 0`` or
    ``P != 0``) as a claim node."""
    if cond is sp.false:
        return ("false",)
    if cond is sp.true:
        return ("true",)
    if isinstance(cond, sp.StrictLessThan):
        return ("rel", sp.expand(cond.rhs - cond.lhs), ">")
    if isinstance(cond, sp.LessThan):
        return ("rel", sp.expand(cond.rhs - cond.lhs), ">=")
    if isinstance(cond, sp.Ne):
        return ("rel", sp.expand(cond.lhs - cond.rhs), "!=")
    if isinstance(cond, sp.GreaterThan):
        return ("rel", sp.expand(cond.lhs - cond.rhs), ">=")
    return ("rel", sp.expand(cond.lhs - cond.rhs), ">")


def dis_formula(ic: IndependentConditions, zvars: dict, z3):
    """The conditions' conjunction as one z3 formula (the frequency conditions with their
    universal quantifiers, in their original ``for every omega`` form)."""
    from symdelay.model.signs import z3_node

    parts = []
    for m in ic.modes:
        parts += [z3_node(hurwitz_node(c), zvars, z3) for c in m.leading]
        if m.circle or m.disc:
            parts.append(_z3_frequency(ic, m, zvars, z3))
    return z3.And(*parts) if parts else z3.BoolVal(True)


def quantified_check(formula, timeout_ms: int, z3):
    """``(answer, model)`` of a formula with quantifiers, by z3's ``nlqsat`` (complete for
    nonlinear real arithmetic), within ``timeout_ms`` of z3's resource units and a wall
    clock backstop."""
    from symdelay.analysis.decide import RLIMIT_PER_MS
    from symdelay.model.signs import WALL_FACTOR

    s = z3.Tactic("nlqsat").solver()
    s.set("rlimit", min(int(timeout_ms) * RLIMIT_PER_MS, 2**32 - 1))
    s.set("timeout", min(int(timeout_ms) * WALL_FACTOR, 2**32 - 1))
    s.add(formula)
    answer = s.check()
    if answer == z3.sat:
        return "sat", s.model()
    if answer == z3.unsat:
        return "unsat", None
    reason = s.reason_unknown()
    if "interrupted" in reason:
        raise KeyboardInterrupt
    return "unknown", reason


def _domain_z3(ic, zvars, z3):
    from symdelay.model.signs import domain_nodes, z3_node

    nodes = domain_nodes({p: ic.domains[p] for p in ic.parameters})
    return [z3_node(n, zvars, z3) for n in nodes]


def _positive_symbols(ic) -> dict:
    """The free parameters -> versions carrying their domains' signs (for SymPy's sign
    reasoning)."""
    kinds = {"positive": "positive", "nonnegative": "nonnegative", "probability": "nonnegative"}
    return {p: sp.Symbol(p.name, **{kinds.get(ic.domains[p], "real"): True}) for p in ic.parameters}


def _sign_known(v, ic) -> int:
    """+1 / -1 when ``v`` is nonnegative / nonpositive on the parameter domains (decided by
    nlsat), else 0."""
    import z3

    from symdelay.model.signs import z3_poly

    w = sp.expand(v.xreplace(_positive_symbols(ic)))
    if w.is_nonnegative:
        return 1
    if w.is_nonpositive:
        return -1
    zvars = {p: z3.Real(p.name) for p in ic.parameters}
    e = z3_poly(sp.expand(v), zvars, z3)
    for sign, bad in ((1, e < 0), (-1, e > 0)):
        s = z3.SolverFor("QF_NRA")
        s.set("timeout", 2000)
        s.add(*_domain_z3(ic, zvars, z3), bad)
        if s.check() == z3.unsat:
            return sign
    return 0


def _limit_candidate(ic, m):
    """The ``omega -> 0`` limit of ``m``'s frequency condition (``>`` made ``>=``), as
    conditions on the parameters, or None."""
    from symdelay.analysis.decide import _simplified
    from symdelay.core.symbols import r

    if m.H is not None:
        limit = sp.expand(m.H.subs(ic.u, 0))
    else:
        vals = [sp.expand(P.subs(r, 0)) for P in (m.parts[0], *m.parts[1])]
        signs = [_sign_known(v, ic) for v in vals]
        if 0 in signs:  # absolute values of expressions of either sign: no limit form
            return None
        # |P_0(0)| >= sum |P_k(0)|: each P_k(0) is real
        limit = sp.expand(
            signs[0] * vals[0] - sp.Add(*[s * v for s, v in zip(signs[1:], vals[1:])])
        )
    if not limit.free_symbols:
        return () if limit >= 0 else (sp.false,)
    assume = _positive_symbols(ic)
    back = {v: k for k, v in assume.items()}
    out = []
    for c in _simplified(limit, assume, back):  # limit > 0, positive factors removed
        if isinstance(c, sp.StrictGreaterThan):
            terms = sp.Add.make_args(sp.expand(c.lhs - c.rhs))
            neg = [t for t in terms if t.could_extract_minus_sign()]
            pos = [t for t in terms if not t.could_extract_minus_sign()]
            c = sp.GreaterThan(sp.Add(*pos), -sp.Add(*neg), evaluate=False)
        out.append(c)
    return tuple(out)


def _reduce_mode(ic, m: IndependentMode, timeout_ms: int) -> IndependentMode:
    """``m`` with its frequency condition replaced by the ``omega -> 0`` limit when z3 proves
    the two equivalent under the domains and ``m``'s Hurwitz conditions."""
    import dataclasses

    import z3

    from symdelay.model.signs import z3_node

    if m.frequency is None or (m.H is None and m.parts is None):
        return m
    candidate = _limit_candidate(ic, m)
    if candidate is None or any(c is sp.false for c in m.leading):
        return m
    zvars = {p: z3.Real(p.name) for p in ic.parameters}
    hyps = [*_domain_z3(ic, zvars, z3), *[z3_node(hurwitz_node(c), zvars, z3) for c in m.leading]]
    cand = z3.And(*[z3_node(hurwitz_node(c), zvars, z3) for c in candidate])
    full = _z3_frequency(ic, m, zvars, z3)
    for a, b in ((cand, full), (full, cand)):
        answer, _ = quantified_check(z3.And(*hyps, a, z3.Not(b)), timeout_ms, z3)
        if answer != "unsat":
            return m
    frequency = candidate[0] if len(candidate) == 1 else sp.And(*candidate)
    if not candidate:
        frequency = None  # implied by the domains and the Hurwitz conditions
    return dataclasses.replace(m, frequency=frequency, reduced=True)


def crossing_at(ic: IndependentConditions, point: dict, timeout_ms: int = 10_000):
    """At exact parameter values ``point`` (symbol -> number): ``(mode, True)`` for the
    first mode with a root on the axis at some lag value (by nlsat on its existential
    form), ``(None, False)`` when none has one, ``(mode, None)`` when undecided."""
    from symdelay.analysis.decide import _solve

    for m in ic.modes:
        if not (m.circle or m.disc):
            continue
        variables, nodes = crossing_nodes(ic, m)
        nodes = [("rel", sp.expand(P.xreplace(point)), op) for _, P, op in nodes]
        answer = _solve(nodes, variables, None, timeout_ms)[0]
        if answer == "sat":
            return m.name, True
        if answer != "unsat":
            return m.name, None
    return None, False


# ------------------------------------------------------------------ a window's own scale
#: digits of the moving-average constant printed and recorded
WINDOW_DIGITS = 30


def window_constant(prec: int = 128):
    """``(m, phi*)``: ``m = -min_{phi > 0} sin(phi) / phi`` (about 0.2172336) and where it
    is reached, as Arb balls.

    ``g(phi) = sin(phi)/phi`` is ``>= 0`` on ``(0, pi]``. On ``[pi, 2 pi]``, ``g' = f /
    phi^2`` with ``f = phi cos(phi) - sin(phi)``, ``f' = -phi sin(phi) > 0``: ``f`` rises from
    ``f(pi) = -pi`` to ``f(2 pi) = 2 pi``, so ``g`` has one critical point ``phi*`` there, its
    minimum, ``g(phi*) = cos(phi*)`` (``tan phi* = phi*``). Beyond ``2 pi``, ``|g| <= 1/(2 pi)
    < -cos(phi*)`` (checked in Arb). ``phi*`` is enclosed by bisection of ``f`` from ``[3.5,
    4.7]`` (both signs proved at every end kept), to ``2^-prec``."""
    import flint

    with flint.ctx.workprec(prec + 20):
        pi = flint.arb.pi()

        def f(x):
            return x * x.cos() - x.sin()

        lo, hi = flint.arb("3.5"), flint.arb("4.7")
        if not (f(lo) < 0 and f(hi) > 0):
            raise ArithmeticError("window constant: the root of tan(phi) = phi not bracketed")
        eps = flint.arb(2) ** (-prec)
        while hi - lo > eps:
            mid = flint.arb(((lo + hi) / 2).mid())
            v = f(mid)
            if v < 0:
                lo = mid
            elif v > 0:
                hi = mid
            else:
                break  # the sign is not decided at this precision: the enclosure is as tight
        X = lo.union(hi)
        m = -X.cos()
        if not (m > 1 / (2 * pi) and pi < lo and hi < 2 * pi):
            raise ArithmeticError("window constant: the global minimum not proved")
    return m, X


def window_stability(model):
    """Stability for every value of a uniform window's length, exactly, or None.

    It applies when the model's lags are one uniform lag on ``[0, P]`` (``P`` a free
    parameter: the moving average over the last ``P``) and every mode that reads it is
    scalar, ``r + a + c K(r)`` with ``K(r) = (1 - e^{-r P}) / (r P)`` (``a``, ``c`` free of
    ``P``). Then the equilibrium is stable for every ``P > 0`` iff

        ``a + c > 0`` and ``a > m c``,    ``m = -min_phi sin(phi)/phi`` (:func:`window_constant`).

    Proof. Roots in ``Re r >= 0`` satisfy ``|r| <= |a| + |c|`` (``|K| <= 1``) for every
    ``P``; as ``P -> 0`` the one root there tends to ``-(a + c)`` (``K -> 1`` uniformly on
    bounded sets), and ``a + c = 0`` puts ``r = 0`` at every ``P``. So with ``a + c > 0``
    the count is 0 for small ``P`` and changes only where a root is ``i w``, ``w > 0``:
    with ``phi = w P``, ``K(i w) = sin(phi)/phi + i (cos(phi) - 1)/phi``, the real part
    gives ``a + c sin(phi)/phi = 0``, the imaginary part ``w = c (1 - cos phi)/phi``, so
    ``c > 0`` and ``-a/c`` is a value of ``sin(phi)/phi`` on ``phi > 0``, i.e. in ``[-m, 1)``
    (continuous; ``1`` only as ``phi -> 0``; the points ``phi = 2 pi n``, where ``w = 0``,
    take the value ``0``, reached at ``phi = pi`` too). With ``a + c > 0`` that is ``a <=
    m c``. At ``a = m c`` the root ``i w`` is on the axis at ``P = phi*/w``: not stable
    there, so the inequality is strict. Returns ``{"param", "conditions", "m", ...}``."""
    from symdelay.analysis.lagroots import _mode_groups

    lags = model.lags
    if len(lags) != 1:
        return None
    (lag,) = lags.values()
    if lag.kind != "uniform" or sp.sympify(lag.args["low"]) != 0:
        return None
    P = sp.sympify(lag.args["high"])
    if not (P.is_Symbol and P in set(model.free_parameters)):
        return None
    a_c = []
    for name, lin, _f, _copies in _mode_groups(model):
        terms = [t for t in lin.terms if not t.matrix.is_zero_matrix]
        if not terms:
            continue
        if lin.A0.shape != (1, 1) or any(
            t.derivative or tuple(t.lags) != (lag.name,) for t in terms
        ):
            return None
        a = -lin.A0[0, 0]
        c = -sum((t.matrix[0, 0] for t in terms), sp.Integer(0))
        if P in a.free_symbols | c.free_symbols:
            return None
        a_c.append((name, sp.simplify(a), sp.simplify(c)))
    if not a_c:
        return None
    m_ball, phi = window_constant()
    m = sp.Float(m_ball.mid().str(WINDOW_DIGITS + 5, radius=False), WINDOW_DIGITS)
    names = {str(x) for x in model.free_parameters}
    M = sp.Symbol("m" if "m" not in names else "m_window", positive=True)
    positive = {
        x: sp.Symbol(str(x), positive=True)
        for x in model.free_parameters
        if model.domains.get(x) == "positive"
    }
    conditions = []
    for _name, a, c in a_c:
        for rel in (sp.StrictGreaterThan(a + c, 0), sp.StrictGreaterThan(a - M * c, 0)):
            if rel.xreplace(positive) is sp.true:
                continue  # holds on the model's domain
            if rel not in conditions:
                conditions.append(rel)
    return {
        "param": str(P),
        "modes": [{"mode": n, "a": str(a), "c": str(c)} for n, a, c in a_c],
        "conditions": [str(c) for c in conditions],
        "constant": str(M),
        "m": str(m),
        "m_radius": m_ball.rad().str(3, radius=False),
        "m_definition": (
            f"{M} = -min over phi > 0 of sin(phi)/phi = -cos(phi*), phi* the root of "
            f"tan(phi) = phi in (pi, 3*pi/2), phi* = {sp.Float(phi.mid().str(20, radius=False), 16)} "
            "(bisection in Arb)"
        ),
        "exact": True,
        "why": (
            f"one uniform window [0, {P}]: a root reaches the imaginary axis for some {P} > 0 "
            "iff c > 0 and a <= m c (mode r + a + c (1 - exp(-r P))/(r P)); at a = m c a "
            "root is on the axis (marginal at that window)"
        ),
    }
