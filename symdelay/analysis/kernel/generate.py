"""From a checked table to everything a kernel runs: the rates printed by SymPy (one global
common-subexpression elimination; integer powers as products in both languages), their
classes (:mod:`~symdelay.analysis.kernel.classify`), the layout of the sum tree and the index
tables (:mod:`~symdelay.analysis.kernel.layout`), the C source (the template filled by
:mod:`~symdelay.analysis.kernel.cwriter`) and its Python twin
(:mod:`~symdelay.analysis.kernel.pytwin`). Parameter values enter only as run-time numbers
(:func:`coefficients`)."""

from __future__ import annotations

import math

import numpy as np

from symdelay.analysis.kernel.classify import _lazy_total, _weighted_class, classify
from symdelay.analysis.kernel.cwriter import write_c
from symdelay.analysis.kernel.layout import _pow2, _runs, _shape_classes
from symdelay.analysis.kernel.pytwin import write_python
from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp

__all__: list = []

#: What :func:`generate` returns besides the parameters: the entries of the generation cache.
CACHED = (
    "c_source", "python_source", "coefficient_source", "classes", "_P2", "_W2", "_H0",
    "_Mt", "_NI",
)  # fmt: skip

# ---------------------------------------------------------------------------------------
# printing: integer powers as products in BOTH languages (gcc turns pow(x, 2) into x*x,
# Python's x**2 calls libm pow: not always the same rounding), everything else by SymPy.


def _int_power(base: str, n: int) -> str | None:
    if not (-64 <= n <= 64) or n == 0:
        return None
    prod = "*".join([base] * abs(n))
    return f"({prod})" if n > 0 else f"(1.0/({prod}))"


def _printers():
    """``(Python printer, C printer)``: SymPy's, with integer powers as products (imported
    when a table is generated: a kernel loaded from the cache needs no printer)."""
    from sympy.printing.c import C99CodePrinter
    from sympy.printing.pycode import PythonCodePrinter

    class _CPrinter(C99CodePrinter):
        def _print_Pow(self, expr):
            if expr.exp.is_Integer:
                out = _int_power(self.parenthesize(expr.base, 1000), int(expr.exp))
                if out is not None:
                    return out
            return super()._print_Pow(expr)

    class _PyPrinter(PythonCodePrinter):
        def _print_Pow(self, expr, rational=False):
            if expr.exp.is_Integer:
                out = _int_power(self.parenthesize(expr.base, 1000), int(expr.exp))
                if out is not None:
                    return out
            return super()._print_Pow(expr, rational=rational)

    return _PyPrinter({"standard": "python3"}), _CPrinter()


def coefficients(coefficient_source: str, par, ix, H0: int, Mt: int, M: int) -> np.ndarray:
    """The coefficients of the linear rates from the run-time parameters ``par``, once, in
    Python (both backends get the same doubles); one that cannot be evaluated is nan, and the
    run names the transition when its rate is first needed. Then ``1 / c`` of every count
    class (its leaf's slot): ``m = floor(v * (1/c))``, a product where a division would sit on
    the chain of every event."""
    try:
        fn = eval(coefficient_source, {"math": math})  # printed by SymPy
        vals = [float(v) for v in fn(*par.tolist())]
    except (OverflowError, ZeroDivisionError, ValueError, TypeError):
        vals = [math.nan] * M
    ls = ix[ix[3] : ix[4]]
    coef = [v if ls[q] >= 0 else 0.0 for q, v in enumerate(vals)]
    for q in range(H0, Mt):
        c = coef[q]
        coef.append(1.0 / c if c != 0.0 else math.inf)
    return np.array(coef)


def generate(states, names, jumps, rates, param_values, plan=None, label="the table") -> dict:
    """Generate the kernel of a checked table (``param_values``: symbol -> float). Returns the
    attributes of :data:`CACHED` and ``_par`` (the run-time parameters: the parameters the
    rates use, then their floats), ``_used_names``, ``_ix`` (the index tables), ``_order``
    (slot -> transition). ``plan``: the table's lags
    (:class:`~symdelay.analysis.kernel.lagplan.LagPlan`), or ``None``."""
    n, M = len(states), len(rates)
    sv = [sp.Symbol(f"s_{i}") for i in range(n)]
    lagsyms = [sym for sym, _ in plan.symbols] if plan is not None else []
    if plan is not None:  # every delayed(E, k) becomes the symbol of its lagged value
        rates = tuple(r.xreplace(plan.replace) for r in rates)
    extra_free = set().union(*(E.free_symbols for E in plan.channels)) if plan else set()
    if plan is not None and plan.dot is not None:  # the parameters dot()'s lag reads
        extra_free |= set().union(*(E.free_symbols for E in plan.dot["exprs"]))
    used = sorted(
        set().union(*(r.free_symbols for r in rates)) - set(states) - set(lagsyms)
        | extra_free - set(states),
        key=sp.default_sort_key,
    )
    # floats in the rates become run-time parameters (printed digits never matter)
    floats = sorted(
        set().union(*(r.atoms(sp.Float) for r in rates)),
        key=lambda f: (float(f), sp.srepr(f)),
    )
    pv = [sp.Symbol(f"p_{k}") for k in range(len(used) + len(floats))]
    repl = dict(zip(states, sv)) | dict(zip(used, pv))
    repl |= dict(zip(floats, pv[len(used) :]))
    par = np.array([param_values[p] for p in used] + [float(f) for f in floats], dtype=np.float64)
    exprs = [r.xreplace(repl) for r in rates]
    index = {s: i for i, s in enumerate(sv)}
    # the classes of the package docstring: 'linear' (c * s_i), 'general' (the rest), the
    # count classes (the linear rates of one coefficient expression: one double at run time)
    lin_state, lin_coef, general, cls_members, singles = classify(exprs, sv, jumps, lagsyms)
    in_class = {j for js in cls_members for j in js}
    # leaves of the sum tree in the order of the module docstring, a count class's at
    # its first member's slot (the other members' slots have no leaf)
    order = general + singles + [js[0] for js in cls_members]
    H0, Mt = len(general) + len(singles), len(order)
    order += [j for js in cls_members for j in js[1:]]
    ppr, cpr = _printers()

    def pr(printer, e, what):
        try:
            return printer.doprint(e)
        except Exception as exc:  # unsupported function
            raise SymdelayInputError(
                f"cannot generate code for {what}: {exc}".replace("\n", " ")
            ) from None

    def rate_what(j):
        return f"the rate of transition {names[j]!r} ({rates[j]})"

    coef_py = [pr(ppr, lin_coef[j], rate_what(j)) for j in order]
    # general rates: one global cse, then per distinct set of changed states the temporaries
    # and rates that depend on it (the dependency graph of the general part)
    gexprs = [exprs[j] for j in general]
    lagged = None
    if plan is not None and plan.information:
        nonneg = {sym: all(_nonnegative_channel(plan, t, states) for t in terms)
                  for sym, terms in plan.symbols}  # fmt: skip
        lagged = {sym: nonneg[sym] for sym in lagsyms}
    lazy_total = _lazy_total(gexprs, sv, pv, lagged)
    weighted = None
    if lazy_total is None and not lagged:
        weighted = _weighted_class(gexprs, sv, pv)
    eager = set()  # lagged values read by eagerly updated rates: their changes are scheduled
    if lagged:
        eager = _check_lag_readers(exprs, general, lazy_total, lagsyms, names, label, plan)
    if weighted is not None:  # the slots keep the weights, the class its constant total
        gexprs = weighted[2]
    W2 = 1
    while weighted is not None and len(gexprs) > W2:
        W2 *= 2
    # a lazy or weighted class keeps one leaf (slot 0) for its general slots: the tree has
    # no leaves for slots 1 .. G - 1, the later slots' leaves sit SH = G - 1 lower
    GT = 1 if general and (lazy_total is not None or weighted is not None) else len(general)
    SH = len(general) - GT
    P2 = _pow2(Mt - SH)
    PL = P2 - SH  # the tree position of linear slot q: PL + q
    temps, reduced = sp.cse(gexprs, symbols=sp.numbered_symbols("e_")) if gexprs else ([], [])
    state_set = set(sv) | set(lagsyms)  # a lagged value changes like a state
    deps: dict = {}

    def state_deps(e):
        d = e.free_symbols & state_set
        for t in e.free_symbols:
            d |= deps.get(t, set())
        return d

    for sym, e in temps:
        deps[sym] = state_deps(e)
    rate_deps = [state_deps(e) for e in reduced]  # general slot g -> state symbols
    const_temps = [(s, e) for s, e in temps if not deps[s]]
    var_temps = [(s, e) for s, e in temps if deps[s]]
    var_names = {s for s, _ in var_temps}
    exprs_of = dict(var_temps)
    want: set = set()
    stack = [t for e in reduced for t in e.free_symbols if t in var_names]
    while stack:
        t = stack.pop()
        if t not in want:
            want.add(t)
            stack += [u for u in exprs_of[t].free_symbols if u in var_names]
    live = [(s, e) for s, e in var_temps if s in want]
    g_states = sorted(
        {index[s] for d in rate_deps for s in d if s in index}
        | {index[s] for t, _ in live for s in deps[t] if s in index}
    )
    temp_c = {s: pr(cpr, e, "a rate expression") for s, e in temps}
    temp_py = {s: pr(ppr, e, "a rate expression") for s, e in temps}
    rate_c = [pr(cpr, e, rate_what(j)) for j, e in zip(general, reduced)]
    rate_py = [pr(ppr, e, rate_what(j)) for j, e in zip(general, reduced)]
    # per slot: the jump, the linear rates to recompute, the general group, the leaf runs
    changed = [[i for i in range(n) if jumps[j, i] != 0] for j in order]
    # the count classes' integer trees: class k at base b (X[b + 1] its total S, member
    # e's count at X[b + K2 + e]), after the n counts of the state
    cb, cm, cs = [], [], []
    mem_of_state: dict = {}
    base = n
    slot_of = {j: q for q, j in enumerate(order)}
    for k, js in enumerate(cls_members):
        K2 = _pow2(len(js))
        cb += [base, K2, len(cm), len(js)]
        for e, j in enumerate(js):
            cm.append(slot_of[j])
            cs.append(lin_state[j])
            mem_of_state.setdefault(lin_state[j], []).append((k, base, K2 + e))
        base += 2 * K2
    NI = base
    lin_of_state: dict = {}
    for q, j in enumerate(order[:H0]):
        if lin_state[j] >= 0:
            lin_of_state.setdefault(lin_state[j], []).append(q)
    ls = [lin_state[j] if q < H0 else -1 for q, j in enumerate(order)]
    for k in range(len(cls_members)):
        ls[H0 + k] = cb[4 * k] + 1  # the class's leaf: c * S
    groups: dict = {}
    blocks = []  # group id -> (states to reload, temporaries, general slots)
    jp, jx, jd, lp, ld, gr, rp, rr = [0], [], [], [0], [], [], [0], []
    cp, cx, cd = [0], [], []
    per_slot: list = []  # slot -> (jump entries, linear leaves, group, count units)
    for q, j in enumerate(order):
        for i in changed[q]:
            jx.append(i)
            jd.append(int(jumps[j, i]))
        jp.append(len(jx))
        # the count trees: the net change of every node (a move inside a class stops
        # where the two paths meet), and per class its changed members as units
        net: dict = {}
        by_class: dict = {}
        for i in changed[q]:
            d = int(jumps[j, i])
            for k, b, x in mem_of_state.get(i, ()):
                by_class.setdefault(k, []).append((b, x, d))
                while x >= 1:
                    net[b + x] = net.get(b + x, 0) + d
                    x >>= 1
        cnet = sorted((x, d) for x, d in net.items() if d != 0)
        cx += [x for x, _ in cnet]
        cd += [d for _, d in cnet]
        cp.append(len(cx))
        cunits = []
        for _, us in sorted(by_class.items()):
            for e in range(0, len(us) - 1, 2):
                (b, x, dx), (_, y, dy) = us[e], us[e + 1]
                cunits.append(("two", b, x, y, dx, dy))
            if len(us) % 2:
                b, x, d = us[-1]
                cunits.append(("one", b, x, d))
        heads = [H0 + k for k in by_class if net.get(cb[4 * k] + 1, 0) != 0]
        lins = sorted({x for i in changed[q] for x in lin_of_state.get(i, ())} | set(heads))
        ld += lins
        lp.append(len(ld))
        # a lazy class: no general rate is recomputed when the state changes
        key = (
            frozenset()
            if lazy_total is not None
            else frozenset(i for i in changed[q] if i in g_states)
        )
        gens = [g for g, d in enumerate(rate_deps) if key & {index[s] for s in d if s in index}]
        if key and key not in groups:
            groups[key] = len(blocks)
            syms = {sv[i] for i in key}
            blocks.append((sorted(key), [(t, e) for t, e in live if deps[t] & syms], gens))
        gr.append(groups[key] if key else -1)
        entries = [(i, int(jumps[j, i])) for i in changed[q]]
        per_slot.append((entries, lins, gr[-1], cunits, cnet))
        # general slot g is leaf g (of the weights' tree for a weighted class)
        for lo, hi in _runs(set(lins) | (set() if weighted else set(gens))):
            rr += [PL + lo, PL + hi]
        rp.append(len(rr) // 2)
    shapes, ro, rec = _shape_classes(per_slot, ls, PL)
    cr = [ro[q] for q in cm] if shapes else []
    # the records as 32-bit integers, two to an entry of the index array (the C kernel
    # reads them as int32: half the cache lines per event)
    rec32 = np.array(rec + [0] * (len(rec) % 2), dtype=np.int32)
    rec = rec32.view(np.int64).tolist()
    parts = [jp, jx, jd, ls, lp, ld, gr, rp, rr, ro, rec, cp, cx, cd, cb, cm, cs, cr]
    offsets, pos = [], len(parts) + 1
    for part in parts:
        offsets.append(pos)
        pos += len(part)
    offsets.append(pos)
    out = {"_ix": np.array(offsets + [v for part in parts for v in part], dtype=np.int64)}
    out["_order"] = np.array(order, dtype=np.int64)  # slot -> transition
    out["_par"] = par
    out |= {"_P2": P2, "_W2": W2, "_H0": H0, "_Mt": Mt, "_NI": NI}
    out["coefficient_source"] = f"lambda {', '.join(map(str, pv))}: [{', '.join(coef_py)}]"
    out["_used_names"] = [str(p) for p in used]
    classes = {"linear": M - len(general), "general": len(general), "groups": len(blocks)}
    classes["lazy"] = len(general) if lazy_total is not None else 0
    classes["weighted"] = len(general) if weighted is not None else 0
    classes["count"] = len(in_class)
    classes["count_classes"] = len(cls_members)
    out["classes"] = classes
    spec = (n, M, P2, len(pv), const_temps, live, g_states, blocks, H0, Mt, len(cls_members))
    spec += (GT, SH, cb)
    lz_c = lz_py = None
    if weighted is not None:
        lazy_total = weighted[:2]
    if lazy_total is not None:
        what = "the total of the general rates"
        lz_c = (pr(cpr, lazy_total[0], what), [(g, pr(cpr, c, what)) for g, c in lazy_total[1]])
        lz_py = (
            pr(ppr, lazy_total[0], what),
            [(g, pr(ppr, c, what)) for g, c in lazy_total[1]],
        )
    wt = W2 if weighted is not None else 0
    lag_c = lag_py = None
    if plan is not None:
        lag_c, lag_py = _lag_spec(plan, order, changed, states, repl, pr, cpr, ppr, M)
        if plan.dot is not None:
            out["lag_dot"] = _dot_lag_spec(plan, states, jumps, exprs, repl, sv, changed, pr, cpr, ppr,
                          lag_c, lag_py)  # fmt: skip
        if eager:  # the scheduled updates: the pointers, temporaries and rates they concern
            esyms = set(eager)
            sched = {
                "pointers": sorted({t.pointer for sym, ts in plan.symbols if sym in esyms
                                    for t in ts if t.kind == "v"}),
                "temps": [str(t) for t, _ in live if deps[t] & esyms],
                "gens": [g for g, d in enumerate(rate_deps) if d & esyms],
            }  # fmt: skip
            lag_c["sched"] = lag_py["sched"] = sched
        out["lag_e_py"] = lag_py["channels"] + lag_py.get("dot", {}).get("base", [])
        classes["lags"] = {
            "channels": len(plan.channels), "pointers": len(plan.pointers),
            "lagged values": len(lagsyms), "action delayed": len(plan.actions),
        }  # fmt: skip
    out["c_source"] = write_c(*spec, temp_c, rate_c, per_slot, ls, shapes, lz_c, wt, lag_c)
    out["python_source"] = write_python(*spec, temp_py, rate_py, lz_py, wt, NI, lag_py)
    return out


def _nonnegative_channel(plan, term, states) -> bool:
    """Whether a term is the value of a state (a count: >= 0) seen through a constant lag
    (else the lagged value is only known to be real)."""
    if term.kind != "v":
        return False
    c, _ = plan.pointers[term.pointer]
    return plan.channels[c] in states and term.weight == 1


def _check_lag_readers(exprs, general, lazy_total, lagsyms, names, label, plan) -> set:
    """The lagged values read by rates outside a class of constant total (their rates are
    then updated at the values' change times, scheduled events). Such a rate reading a
    window is refused in one line: a window moves between events, so its rate does too."""
    if lazy_total is not None:
        return set()
    lset = set(lagsyms)
    terms = dict(plan.symbols)
    out: set = set()
    for j in general:
        read = exprs[j].free_symbols & lset
        if any(t.kind == "d" for sym in read for t in terms[sym]):
            raise SymdelayInputError(
                f"{label}: the rate of transition {names[j]!r} reads dot() through a lag but "
                "is not in a class of constant total (the rates reading it, their sum free of "
                "the state and of the lagged values): its changes would have to be scheduled "
                "at every shifted change point of the drift recursion (not built); fluid "
                "answers for this model"
            )
        if any(t.kind in "ic" for sym in read for t in terms[sym]):
            raise SymdelayInputError(
                f"{label}: the rate of transition {names[j]!r} reads a window or a chain but is "
                "not in a class of constant total (the rates reading it, their sum free of the "
                "state and of the lagged values): a window's or a chain's output moves between "
                "events, so that rate varies between events (thinning would need a bound); "
                "fluid answers for this model"
            )
        out |= read
    return out


def _lag_spec(plan, order, changed, states, repl, pr, cpr, ppr, M):
    """What the C writer and the twin need of the lags: the pointers' channels, the terms
    of each lagged value, the channels' printed expressions (states as ``hs_i``), the
    channels each slot's jump changes, the action index of each slot, the offsets of the
    run-time numbers (``lagc``: look-backs, weights, action delays)."""
    n = len(states)
    hs = {s: sp.Symbol(f"hs_{i}") for i, s in enumerate(states)}
    rest = {k: v for k, v in repl.items() if k not in hs}
    P = len(plan.pointers)
    terms, w = [], P
    for sym, ts in plan.symbols:
        row = []
        for t in ts:
            row.append((t.kind, t.pointer, w))
            w += 1
        terms.append((str(sym), row))
    CO = w  # per chain: its phases, their rate, where its state starts
    w += 3 * len(plan.chains)
    actions = plan.actions
    slot_of = {j: q for q, j in enumerate(order)}
    act = [-1] * M
    for a, j in enumerate(actions):
        act[slot_of[j]] = a
    afifo, nf = [], 0
    for j in actions:
        afifo.append(nf if j in plan.action_delay else -1)
        nf += j in plan.action_delay
    aoff = [w + a for a in range(len(actions))]  # a delay, or where a program starts
    reads = [sorted(i for i in range(n) if states[i] in E.free_symbols) for E in plan.channels]
    pushes = [[c for c, rd in enumerate(reads) if set(rd) & set(changed[q])] for q in range(M)]
    common = {
        "N": n, "NCH": len(plan.channels), "NP": P, "pch": [c for c, _ in plan.pointers],
        "terms": terms, "act": act, "NA": len(actions), "reads": reads, "pushes": pushes,
        "afifo": afifo, "NF": nf, "HEAP": bool(plan.action_law), "aoff": aoff,
        "chains": [c for c, _, _ in plan.chains], "CO": CO,
        "chain_ph": [m is None for _, _, m in plan.chains],
    }  # fmt: skip

    def printed(printer):
        return [
            pr(printer, E.xreplace(rest).xreplace(hs), f"the lagged expression {E}")
            for E in plan.channels
        ]

    return common | {"channels": printed(cpr)}, common | {"channels": printed(ppr)}


def _dot_lag_spec(plan, states, jumps, exprs, repl, sv, changed, pr, cpr, ppr, lag_c, lag_py):
    """The drift recursion of ``dot()`` read through a constant lag, for the C writer and
    the twin (``lag_c["dot"]``, ``lag_py["dot"]``): the path it keeps (entries ``(time,
    the scaled states it reads)``, one per event changing those states; before 0 ``(time,
    the start's components)``: a level there reads only those), its step printed once (one cse), the start's expressions (Python, for the
    history), the slots whose jump adds an entry, where its slots start in ``hst`` and
    where ``tau`` is in ``lagc``."""
    from symdelay.analysis.kernel.cwriter import rec_offset
    from symdelay.analysis.kernel.lagplan import drift_recursion

    n, nv = len(states), len(plan.dot["exprs"])
    V = [sp.Symbol(f"dv_{m}") for m in range(nv)]
    hs = [sp.Symbol(f"hs_{i}") for i in range(n)]
    hd = [sp.Symbol(f"hd_{i}") for i in range(n)]
    njumps = [[int(jumps[j, i]) for i in range(n)] for j in range(len(exprs))]
    G, B = drift_recursion(plan, states, njumps, exprs, repl, sv, V, hs, hd)
    temps, red = sp.cse(G, symbols=sp.numbered_symbols("dr_"))
    read = sorted({i for i in range(n) if any(g.has(sv[i]) for g in G)})
    ds = {sv[i]: sp.Symbol(f"ds_{i}") for i in range(n)}
    what = "the drift that dot() reads"
    common = {
        "nv": nv, "cols": read, "W": 1 + max(len(read), nv),
        "push": [q for q in range(len(changed)) if set(changed[q]) & set(read)],
        # no chains nor actions in such a table: tau follows the terms' weights
        "RO": rec_offset(lag_c), "tau_at": lag_c["CO"],
    }  # fmt: skip
    for spec, printer in ((lag_c, cpr), (lag_py, ppr)):
        spec["dot"] = common | {
            "temps": [(str(t), pr(printer, e.xreplace(ds), what)) for t, e in temps],
            "vals": [pr(printer, e.xreplace(ds), what) for e in red],
        }
    lag_py["dot"]["base"] = [pr(ppr, b, "the start of the drift recursion") for b in B]
    return {k: common[k] for k in ("nv", "cols", "W", "RO", "tau_at")}
