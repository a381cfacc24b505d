"""Piecewise-smooth rates: their smooth pieces, switches and kinks.

A rate may use ``Min``, ``Max``, ``Abs``, ``Heaviside`` and ``Piecewise``. Each is a
``Piecewise`` of smooth branches (:func:`as_piecewise`) whose conditions compare
*switching functions* ``s(x)`` with 0 (:func:`switches`): ``Min(q, c)`` switches at
``s = c - q``, ``Abs(x)`` and ``Heaviside(x)`` at ``s = x``. Off the switches the rate is
smooth and equal to one branch, selected by the signs of the switches (:func:`select`); a
point where a switch of a state vanishes is a *kink* (a step for ``Heaviside``), where the
rate has no derivative.

>>> import sympy as sp
>>> q, c = sp.symbols("q c")
>>> as_piecewise(sp.Min(q, c))
Piecewise((c, c - q <= 0), (q, True))
>>> switches(sp.Min(q, c), [q])
(-c + q,)
>>> select(sp.Min(q, c), {c - q: 1}, [q])
q
"""

from __future__ import annotations

from symdelay.core.lazy import sympy as sp

__all__ = [
    "as_piecewise",
    "is_nonsmooth",
    "kink_word",
    "nonsmooth_atoms",
    "oriented",
    "select",
    "switches",
]


def _classes() -> tuple:
    return (sp.Min, sp.Max, sp.Abs, sp.Heaviside, sp.Piecewise, sp.sign)


def is_nonsmooth(expr, states=None) -> bool:
    """Does ``expr`` hold a piecewise-smooth function (of a state, if ``states`` is given)?"""
    expr = sp.sympify(expr)
    found = nonsmooth_atoms(expr)
    if states is None:
        return bool(found)
    states = set(states)
    return any(a.free_symbols & states for a in found)


def nonsmooth_atoms(expr) -> list:
    """The outermost ``Min``, ``Max``, ``Abs``, ``Heaviside``, ``sign``, ``Piecewise`` of
    ``expr``, in the order they are met (each once)."""
    out: list = []
    kinds = _classes()
    stack = [sp.sympify(expr)]
    while stack:
        e = stack.pop()
        if isinstance(e, kinds):
            if e not in out:
                out.append(e)
            continue
        stack.extend(reversed(e.args))
    return out


def kink_word(atom) -> str:
    """How the switch of ``atom`` is named in a message: a step, a switch or a kink."""
    if isinstance(atom, (sp.Heaviside, sp.sign)):
        return "step"
    if isinstance(atom, sp.Piecewise):
        return "switch"
    return "kink"


def _extremum(args, op):
    """``Min`` (``op`` ``<=``) or ``Max`` (``>=``) as a Piecewise: the first argument that
    is on the right side of every later one (ties go to the first; an earlier one that is
    not has lost to some argument already)."""
    branches = []
    for i, a in enumerate(args[:-1]):
        conds = [op(a - b, 0) for b in args[i + 1 :]]  # the earlier ones lost already
        branches.append((a, sp.And(*conds)))
    branches.append((args[-1], sp.true))
    return sp.Piecewise(*branches)


def _convert(e):
    if isinstance(e, sp.Abs):
        x = e.args[0]
        return sp.Piecewise((x, x >= 0), (-x, True))
    if isinstance(e, sp.Min):
        return _extremum(list(e.args), sp.Le)
    if isinstance(e, sp.Max):
        return _extremum(list(e.args), sp.Ge)
    if isinstance(e, sp.Heaviside):
        x = e.args[0]
        at0 = e.args[1] if len(e.args) > 1 else sp.S.Half
        return sp.Piecewise((1, x > 0), (0, x < 0), (at0, True))
    if isinstance(e, sp.sign):
        x = e.args[0]
        return sp.Piecewise((1, x > 0), (-1, x < 0), (0, True))
    return e


def as_piecewise(expr):
    """``expr`` with every ``Min``, ``Max``, ``Abs``, ``Heaviside``, ``sign`` written as a
    ``Piecewise`` of its smooth branches, whose conditions are relations of real
    expressions (so SymPy differentiates it branch by branch, also where the symbols
    carry no assumptions: ``Abs(x)`` of a plain symbol has no usable derivative)."""
    expr = sp.sympify(expr)
    kinds = (sp.Min, sp.Max, sp.Abs, sp.Heaviside, sp.sign)
    if not expr.has(*kinds):
        return expr
    return expr.replace(lambda e: isinstance(e, kinds), _convert)


def oriented(s):
    """``(t, sign)`` with ``s = sign * t`` and ``t`` the one of ``s, -s`` taken as the
    switch (so that ``c - q`` and ``q - c`` name one switch)."""
    s = sp.expand(s)
    neg = sp.expand(-s)
    if sp.default_sort_key(neg) < sp.default_sort_key(s):
        return neg, -1
    return s, 1


def switches(expr, states) -> tuple:
    """The switching functions of ``expr`` that depend on a state: ``lhs - rhs`` of each
    relation in a condition of its ``Piecewise`` form (one of ``s, -s``, in order)."""
    states = set(states)
    out: list = []
    for pw in as_piecewise(expr).atoms(sp.Piecewise):
        for _, cond in pw.args:
            for rel in sorted(cond.atoms(sp.Rel), key=sp.default_sort_key):
                s, _ = oriented(rel.lhs - rel.rhs)
                if s.free_symbols & states and s not in out:
                    out.append(s)
    return tuple(sorted(out, key=sp.default_sort_key))


def _truth(rel, signs: dict):
    """The truth of ``rel`` where each switch has the sign in ``signs`` (+1 or -1), or the
    relation itself where its switch has none there."""
    s, o = oriented(rel.lhs - rel.rhs)
    if s not in signs:
        return rel
    v = o * signs[s]  # the sign of lhs - rhs
    if isinstance(rel, (sp.StrictGreaterThan, sp.GreaterThan)):
        return sp.true if v > 0 else sp.false
    if isinstance(rel, (sp.StrictLessThan, sp.LessThan)):
        return sp.true if v < 0 else sp.false
    if isinstance(rel, sp.Eq):
        return sp.false
    if isinstance(rel, sp.Ne):
        return sp.true
    return rel


def resolve(pw, truth):
    """The ``Piecewise`` ``pw`` with each relation of its conditions replaced by
    ``truth(rel)`` (True, False, or the relation where undecided): the first branch whose
    condition is then True, or a ``Piecewise`` of the branches from the first undecided
    one on."""
    kept = []
    for value, cond in pw.args:
        rels = {r: truth(r) for r in cond.atoms(sp.Rel)}
        c = cond.xreplace(rels) if rels else cond
        if c is sp.true and not kept:
            return value
        if c is sp.false:
            continue
        kept.append((value, c))
        if c is sp.true:
            break
    if not kept:
        return sp.nan  # no branch holds: undefined there
    return sp.Piecewise(*kept)


def select(expr, signs: dict, states=None):
    """The smooth branch of ``expr`` where each switch ``s`` (see :func:`switches`) has the
    sign ``signs[s]`` (+1 or -1): every ``Piecewise`` of its Piecewise form replaced by the
    branch that holds there (innermost first)."""
    form = as_piecewise(expr)
    if not form.has(sp.Piecewise):
        return form
    signs = {t: o * v for s, v in signs.items() for t, o in [oriented(s)]}

    def one(pw):
        return resolve(pw, lambda r: _truth(r, signs))

    return form.replace(lambda e: isinstance(e, sp.Piecewise), one)
