"""The classes of the rates (see :mod:`symdelay.analysis.kernel`): *linear* ``c * s_i``, the
*count classes* (linear rates of one coefficient), the *general* rest, and whether the general
rates form one *lazy class* (their total free of the state) or one *weighted class* (``k *
w_g / sum_h w_h``). Read off the SymPy expressions with the state as ``s_i`` and the
parameters as ``p_k``; SymPy's assumptions prove the signs."""

from __future__ import annotations

from typing import NamedTuple

from symdelay.analysis.kernel import tuning
from symdelay.analysis.kernel.layout import _chain_order
from symdelay.core.lazy import sympy as sp

__all__: list = []


class RateClasses(NamedTuple):
    """The linear rates (``lin_state[j]``: the state index of rate ``j``, else -1;
    ``lin_coef[j]`` its coefficient), the general ones (table order), the count classes (lists
    of transitions, in chain order) and the linear rates in no count class (chain order)."""

    lin_state: list
    lin_coef: list
    general: list
    count_classes: list
    singles: list


def classify(exprs, sv, jumps, lagged=()) -> RateClasses:
    """The linear, general and count classes of the rates ``exprs`` (in ``sv`` and ``p_k``;
    a rate that reads a lagged value, a symbol of ``lagged``, is general)."""
    M = len(exprs)
    index = {s: i for i, s in enumerate(sv)}
    lin_state, lin_coef = [-1] * M, [sp.Integer(0)] * M
    for j, e in enumerate(exprs):
        c, rest = e.as_independent(*sv, *lagged, as_Add=False)
        if rest in index:
            lin_state[j], lin_coef[j] = index[rest], c
    general = [j for j in range(M) if lin_state[j] < 0]
    # count classes: the linear rates of one coefficient expression (so one double at run
    # time), along the job chains
    lin_order = _chain_order(jumps, lin_state)
    by_coef: dict = {}
    for j in lin_order:
        by_coef.setdefault(lin_coef[j], []).append(j)
    cls_members = [js for js in by_coef.values() if len(js) >= tuning._COUNT_CLASS_MIN]
    in_class = {j for js in cls_members for j in js}
    singles = [j for j in lin_order if j not in in_class]
    return RateClasses(lin_state, lin_coef, general, cls_members, singles)


def _lazy_total(gexprs, sv, pv, lagged=None):
    """``(total, factors)`` when the total of the general rates is free of the state and each
    of them is ``c * f`` with ``f`` provably >= 0 for counts >= 0 and real parameters (SymPy's
    assumptions) and ``c`` free of the state (``factors``: the ``c`` not provably >= 0, each
    checked >= 0 from the parameters at every call), else ``None``. Such rates form one leaf
    of the tree, their constant total; they are evaluated only when that leaf is drawn (one
    of them then by a new uniform), never when the state changes: e.g. the routing of
    arrivals, whose probabilities sum to one.

    ``lagged``: ``{symbol: nonnegative}`` of the lagged values the rates read (a table with
    lags): the total must be free of them too, and the class has no size limit (evaluating
    the rates when the class is drawn is what makes reading a lagged value exact)."""
    most = tuning._LAZY_MAX if not lagged else len(gexprs)
    if not 2 <= len(gexprs) <= most:
        return None
    assume = {s: sp.Dummy(nonnegative=True) for s in sv} | {p: sp.Dummy(real=True) for p in pv}
    for s, nonneg in (lagged or {}).items():
        assume[s] = sp.Dummy(nonnegative=True) if nonneg else sp.Dummy(real=True)
    factors = []
    for g, e in enumerate(gexprs):
        c, f = e.as_independent(*sv, *(lagged or ()), as_Add=False)
        if f.xreplace(assume).is_nonnegative is not True:
            return None
        if c.xreplace(assume).is_nonnegative is not True:
            factors.append((g, c))
    total = sp.cancel(sp.together(sp.Add(*gexprs)))
    if total.free_symbols & (set(sv) | set(lagged or ())):
        return None
    return total, factors


def _split_denominator(e):
    """``(numerator, denominator)`` of ``e`` read off its factors: the powers with a negative
    integer exponent go below (SymPy's ``fraction`` would also move ``exp(-x)`` there)."""
    num, den = [], []
    for f in sp.Mul.make_args(e):
        if f.is_Pow and f.exp.is_Integer and f.exp < 0:
            den.append(f.base ** (-f.exp))
        else:
            num.append(f)
    return sp.Mul(*num), sp.Mul(*den)


def _weighted_class(gexprs, sv, pv):
    """``(total, factors, weights)`` when the general rates are ``k * w_g / sum_h w_h`` with
    ``k`` free of the state and each weight ``w_g`` a state-free factor times a function
    provably >= 0 (SymPy's assumptions: counts >= 0, parameters real): all of them share one
    denominator (the same expression, up to a state-free factor) equal to the sum of their
    numerators. ``total`` is ``k``; ``factors``: the common (or per-rate) state-free factors
    not provably >= 0, checked at every call; ``weights`` the expressions kept per rate.

    Such rates form one leaf of constant total (the arrivals of N servers routed by logit
    probabilities): an event that changes a state recomputes only the weights of that
    state (one exponential) and their sum tree, O(log N); the class drawn, one rate is found
    by descending that tree. Otherwise ``None``."""
    if len(gexprs) < 2:
        return None
    parts = [_split_denominator(e) for e in gexprs]
    den = parts[0][1]
    if den == 1 or any(d != den for _, d in parts):
        return None
    assume = {s: sp.Dummy(nonnegative=True) for s in sv} | {p: sp.Dummy(real=True) for p in pv}
    split = [num.as_independent(*sv, as_Add=False) for num, _ in parts]
    for _, f in split:
        if f.xreplace(assume).is_nonnegative is not True:
            return None
    if all(c == split[0][0] for c, _ in split):
        common = split[0][0]
        weights = [f for _, f in split]
        factors = [] if common.xreplace(assume).is_nonnegative else [(0, common)]
    else:
        common = sp.Integer(1)
        weights = [num for num, _ in parts]
        factors = [
            (g, c)
            for g, (c, _) in enumerate(split)
            if c.xreplace(assume).is_nonnegative is not True
        ]
    # sum of the weights = q * den with q free of the state (read off the common terms)
    kw, rest_w = sp.factor_terms(sp.Add(*weights)).as_independent(*sv, as_Add=False)
    kd, rest_d = sp.factor_terms(den).as_independent(*sv, as_Add=False)
    if rest_w != rest_d or not rest_w.free_symbols & set(sv):
        return None
    return common * kw / kd, factors, weights
