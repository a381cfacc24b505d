"""The Python twin of the C kernel: generated from the same printed expressions and index
tables (:func:`write_python`), it runs the same algorithm on the same xoshiro256** stream
(:mod:`symdelay.core.rng`) and the same Exp(1) draws, so for equal seeds both backends give
identical paths (the tests compare them). :func:`python_function` compiles it."""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Callable

import numpy as np

from symdelay.analysis.kernel.expo import _exp_variate
from symdelay.analysis.kernel.layout import _runs
from symdelay.core.rng import next_u64, unif

__all__: list = []

_DBL_MAX = sys.float_info.max


def _py_check(pad: str, code, slot, val: str = "a") -> list:
    """The Python twin of :func:`symdelay.analysis.kernel.cwriter._c_check`."""
    return [
        f"{pad}if not ({val} >= 0.0 and {val} <= _DBL_MAX):",
        f"{pad}    status[0], status[1], bad[0] = {code}, {slot}, {val}",
        f"{pad}    raise _Fail",
    ]


def _py_linear(pad: str, PL: int) -> list:
    """The Python twin's :func:`_c_linear` for the slot ``q`` of its loops."""
    return [f"{pad}a = coef[q] * x[ls[q]]", *_py_check(pad, 1, "q"), f"{pad}tree[{PL} + q] = a"]


def _py_descend(pad: str, arr: str, P: int, var: str, n: int) -> list:
    """The Python twin's :func:`_c_descend` and :func:`_c_leaf_found`."""
    return [
        f"{pad}p = 1",
        f"{pad}while p < {P}:",
        f"{pad}    lf = {arr}[2 * p]",
        f"{pad}    if {var} < lf:",
        f"{pad}        p = 2 * p",
        f"{pad}    else:",
        f"{pad}        {var} -= lf",
        f"{pad}        p = 2 * p + 1",
        f"{pad}j = p - {P}",
        f"{pad}if j >= {n} or not {arr}[p] > 0.0:",
        f"{pad}    j = min(j, {n - 1})",
        f"{pad}    while j >= 0 and not {arr}[{P} + j] > 0.0:",
        f"{pad}        j -= 1",
        f"{pad}    if j < 0:",
        f"{pad}        j = 0",
        f"{pad}        while not {arr}[{P} + j] > 0.0:",
        f"{pad}            j += 1",
    ]


def _py_refresh(pad: str, arr: str, lo, hi) -> list:
    """The Python twin's :func:`_refresh_c` (the ancestors of the positions ``lo..hi``)."""
    return [
        f"{pad}lo, hi = {lo}, {hi}",
        f"{pad}while lo < hi:",
        f"{pad}    lo >>= 1",
        f"{pad}    hi >>= 1",
        f"{pad}    for p in range(lo, hi + 1):",
        f"{pad}        {arr}[p] = {arr}[2 * p] + {arr}[2 * p + 1]",
        f"{pad}v = {arr}[lo]",
        f"{pad}while lo > 1:",
        f"{pad}    v += {arr}[lo ^ 1]",
        f"{pad}    lo >>= 1",
        f"{pad}    {arr}[lo] = v",
    ]


def write_python(
    n, M, P2, P, const_temps, live, g_states, blocks, H0, Mt, NC, GT, SH, cb,
    temp_py, rate_py, lz_py, W2, NI, lag=None,
):  # fmt: skip
    """The source of the Python twin: a function ``run`` with the C kernel's arguments that
    runs the same algorithm from the index tables on the same draws (the layout and the
    printed expressions as :func:`symdelay.analysis.kernel.cwriter.write_c` gets them; ``NI``
    the size of the integer workspace; ``lag`` the lags, as the C writer's sections LAGS)."""
    PL = P2 - SH  # the tree position of linear slot q: PL + q
    L = []
    w = L.append
    w("def run(par, coef, ix, eta, X, rng, clock, grid, ng, out, counts, max_events,")
    w("        status, bad, work, iwork, hist_a=None, hst_a=None, lagc=None, fifo_a=None,")
    w("        heap_a=None, chain_a=None):")
    w("    st = [int(v) for v in rng]")
    w("    u64, unif = _partial(_next_u64, st), _partial(_unif, st)  # the C kernel's stream")
    w("    ixl = ix.tolist()")
    names = ["jp", "jx", "jd", "ls", "lp", "ld", "gr", "rp", "rr", "ro", "rec"]
    names += ["cp", "cx", "cd", "cb", "cm", "cs"]
    for k, nm in enumerate(names):
        w(f"    {nm} = ixl[ixl[{k}] : ixl[{k + 1}]]")
    w("    coef = coef.tolist()")
    for k in range(P):
        w(f"    p_{k} = float(par[{k}])")
    w("    eta = float(eta)")
    w(f"    x = [int(v) for v in X] + [0] * {NI - n}")
    w("    grid = grid.tolist()")
    w("    cnt = [int(v) for v in counts]")
    w(f"    tree = [0.0] * {2 * P2}")
    if W2:
        w(f"    wt = [0.0] * {2 * W2}")
    w("    t, tn, pending = float(clock[0]), float(clock[1]), clock[2] != 0.0")
    w("    j, k, ev, fail = -1, 0, 0, 0")
    if lag is not None:
        FO = _lag_offsets(lag)[2]
        w("    hist, hst, fifo = hist_a.tolist(), [int(v) for v in hst_a], fifo_a.tolist()")
        w("    heap, chain = heap_a.tolist(), chain_a.tolist()")
        w("    lagc = lagc.tolist()")
        w("    hcap = hst[3]")
        w("    cap, fcap = hst[0], hst[1]")
        w("    cmask, fmask = cap - 1, fcap - 1")
        for sym, _ in lag["terms"]:
            w(f"    {sym} = 0.0")
    w("    try:")
    for s, _ in const_temps:
        w(f"        {s} = {temp_py[s]}")
    for i in g_states:
        w(f"        s_{i} = x[{i}] / eta")

    def leaf(slot, pad):
        if W2:  # a weight out of range is this class's error, not an exception
            w(f"{pad}try:")
            w(f"{pad}    a = {rate_py[slot]}")
            w(f"{pad}except OverflowError:")
            w(f"{pad}    a = math.inf")
            L.extend(_py_check(pad, 3, slot))
            w(f"{pad}wt[{W2 + slot}] = a")
            return
        w(f"{pad}a = eta*({rate_py[slot]})")
        L.extend(_py_check(pad, 1, slot))
        if not SH:
            w(f"{pad}tree[{P2 + slot}] = a")

    if lag is not None:
        L.extend(_py_lag_read(lag, "t", "        "))
    for s, _ in live:
        w(f"        {s} = {temp_py[s]}")
    for g in range(len(rate_py)):
        leaf(g, "        ")
    G = len(rate_py)
    if lz_py is not None:
        for g, c in lz_py[1]:
            w(f"        a = {c}")
            L.extend(_py_check("        ", 1, g))
        w(f"        a = eta*({lz_py[0]})")
        L.extend(_py_check("        ", 1, 0))
        w(f"        tree[{P2}] = a")
        if W2:
            w(f"        for p in range({W2 - 1}, 0, -1):")
            w("            wt[p] = wt[2 * p] + wt[2 * p + 1]")
        else:
            w(f"        lz = [0.0] * {G}")
    if NC:  # the count classes' integer trees
        w(f"        for kc in range({NC}):")
        w("            b, K2, e0, ne = cb[4 * kc : 4 * kc + 4]")
        w("            for e in range(K2):")
        w("                x[b + K2 + e] = x[cs[e0 + e]] if e < ne else 0")
        w("            for p in range(K2 - 1, 0, -1):")
        w("                x[b + p] = x[b + 2 * p] + x[b + 2 * p + 1]")
    w(f"        for q in range({Mt}):")
    w("            if ls[q] >= 0:")
    L.extend(_py_linear("                ", PL))
    w(f"        for p in range({P2 - 1}, 0, -1):")
    w("            tree[p] = tree[2 * p] + tree[2 * p + 1]")
    w("        while True:")
    w("            R = tree[1]")
    w("            if not pending:")
    w("                tn = t + _expo(u64, unif) / R if R > 0.0 else math.inf")
    w("                pending = True")
    if lag is not None:
        L.extend(_py_room(lag))
        sched_lines: list = []
        if lag.get("sched"):
            named = {str(k): v for k, v in temp_py.items()}
            mark = len(L)
            for s_ in lag["sched"]["temps"]:
                w(f"                {s_} = {named[s_]}")
            for g in lag["sched"]["gens"]:
                leaf(g, "                ")
            for lo, hi in _runs(lag["sched"]["gens"]):
                L.extend(_py_refresh("                ", "tree", P2 + lo, P2 + hi))
            sched_lines = L[mark:]
            del L[mark:]
        L.extend(_py_landing(lag, sched_lines))
    sel = len(L)
    w("            while k < ng and grid[k] < tn:")
    w(f"                out[k] = {_py_row(lag) if lag is not None else f'x[:{n}]'}")
    w("                k += 1")
    w("            if k >= ng or ev >= max_events:")
    w("                break")
    w("            v = unif() * R")
    L.extend(_py_descend("            ", "tree", P2, "v", Mt - SH))
    if SH:
        w(f"            if j >= {GT}:")
        w(f"                j += {SH}")
    if W2:
        w(f"            if j < {G}:")
        w("                wz = wt[1]")
        w("                if not wz > 0.0:")
        w("                    status[0], status[1], bad[0] = 3, -1, wz")
        w("                    raise _Fail")
        w("                wz *= unif()")
        L.extend(_py_descend("                ", "wt", W2, "wz", G))
    elif lz_py is not None:
        w(f"            if j < {G}:")
        if lag is not None:
            L.extend(_py_lag_read(lag, "tn", "                "))
        for i in g_states:
            w(f"                s_{i} = x[{i}] / eta")
        for s_, _ in live:
            w(f"                {s_} = {temp_py[s_]}")
        w("                total = 0.0")
        for g in range(G):
            w(f"                a = eta*({rate_py[g]})")
            L.extend(_py_check("                ", 1, g))
            w(f"                lz[{g}] = a")
            w("                total += a")
        w("                if not total > 0.0:")
        w("                    status[0], status[1], bad[0] = 1, 0, total")
        w("                    raise _Fail")
        w("                wz = unif() * total")
        w("                j = -1")
        w(f"                for q in range({G}):")
        w("                    if wz < lz[q]:")
        w("                        j = q")
        w("                        break")
        w("                    wz -= lz[q]")
        w("                if j < 0:")
        w(f"                    j = {G - 1}")
        w("                    while j > 0 and not lz[j] > 0.0:")
        w("                        j -= 1")
        if lag is not None and lag["terms"]:
            lvs = ", ".join(sym for sym, _ in lag["terms"])
            w("                if _trace is not None:")
            w(f"                    _trace.append(('lazy', tn, j, ({lvs},), list(lz)))")
    if NC:
        w(f"            if j >= {H0}:")
        w(f"                b, K2, e0 = cb[4 * (j - {H0}) : 4 * (j - {H0}) + 3]")
        w(f"                m = int(v * coef[{M - H0} + j])")
        w("                if m >= x[b + 1]:")
        w("                    m = x[b + 1] - 1")
        w("                p = 1")
        w("                while p < K2:")
        w("                    lf = x[b + 2 * p]")
        w("                    if m < lf:")
        w("                        p = 2 * p")
        w("                    else:")
        w("                        m -= lf")
        w("                        p = 2 * p + 1")
        w("                j = cm[e0 + p - K2]")
    if lag is not None and lag["NA"]:
        act = lag["act"]
        w(f"            if {act}[j] >= 0:  # an action-delayed transition drawn: scheduled")
        w(f"                a_ = {act}[j]")
        for a, f in enumerate(lag["afifo"]):
            w(f"                {'if' if a == 0 else 'elif'} a_ == {a}:")
            off = lag["aoff"][a]
            if f >= 0:
                pk = _peak_offset(lag) + lag["NCH"] + f
                w(f"                    e_ = hst[{FO + 2 * f + 1}]")
                w(f"                    due = tn + lagc[{off}]")
                w(f"                    fifo[{f} * fcap + (e_ & fmask)] = due")
                w(f"                    hst[{FO + 2 * f + 1}] = e_ + 1")
                w(f"                    hst[{pk}] = max(hst[{pk}], e_ + 1 - hst[{FO + 2 * f}])")
            else:
                pk = _peak_offset(lag) + lag["NCH"] + lag["NF"]
                w(f"                    due = tn + _sample_lag(lagc, int(lagc[{off}]), u64, unif)")
                w(f"                    hst[4] = _heap_push(heap, hst[4], due, {float(a)})")
                w(f"                    hst[{pk}] = max(hst[{pk}], hst[4])")
        w(f"                hst[{_transit_offset(lag)} + a_] += 1")
        w("                cnt[j] += 1")
        w("                ev += 1")
        w("                t = tn")
        w("                pending = False")
        w("                if _trace is not None:")
        w("                    _trace.append(('decide', tn, j, due))")
        w("                continue")
    if lag is not None:
        L[sel:] = ["    " + x for x in L[sel:]]
        L.insert(sel, "            if not landing:")
    w("            for e in range(jp[j], jp[j + 1]):")
    w("                x[jx[e]] += jd[e]")
    w("                if x[jx[e]] < 0:")
    w("                    for f in range(jp[j], e + 1):")
    w("                        x[jx[f]] -= jd[f]")
    w("                    status[0], status[1], status[2] = 2, j, jx[e]")
    w("                    raise _Fail")
    if NC:
        w("            for e in range(cp[j], cp[j + 1]):")
        w("                x[cx[e]] += cd[e]")
    w("            for e in range(lp[j], lp[j + 1]):")
    w("                q = ld[e]")
    L.extend(_py_linear("                ", PL))
    if blocks:
        w("            g = gr[j]")
        for g, (reload, temps, gens) in enumerate(blocks):
            w(f"            {'if' if g == 0 else 'elif'} g == {g}:")
            for i in reload:
                w(f"                s_{i} = x[{i}] / eta")
            for s, _ in temps:
                w(f"                {s} = {temp_py[s]}")
            for q in gens:
                leaf(q, "                ")
            for lo, hi in _runs(gens) if W2 else ():  # the weights' ancestors
                L.extend(_py_refresh("                ", "wt", W2 + lo, W2 + hi))
    w("            for e in range(rp[j], rp[j + 1]):")
    L.extend(_py_refresh("                ", "tree", "rr[2 * e]", "rr[2 * e + 1]"))
    if lag is not None:
        L.extend(_py_push(lag))
        w("            if _trace is not None:")
        w("                _trace.append(('event', tn, j, landing, x[:" + str(n) + "]))")
        w("            if not landing:")
        w("                cnt[j] += 1")
    else:
        w("            cnt[j] += 1")
    w("            ev += 1")
    w("            t = tn")
    w("            pending = False")
    w("    except _Fail:")
    w("        fail = 1")
    w("        if status[0] in (1, 3):")
    w("            status[2] = j")
    w("    except (OverflowError, ZeroDivisionError, ValueError, TypeError):")
    w("        fail = 1")
    w("        status[0], status[1], status[2], bad[0] = 1, -1, j, math.nan")
    w(f"    X[:] = x[:{n}]")
    w("    counts[:] = cnt")
    w("    rng[:] = _np.array(st, dtype=_np.uint64)")
    w("    clock[:3] = (t, tn, 1.0 if pending else 0.0)")
    w("    clock[3] = tree[1]")
    if lag is not None:
        w("    hist_a[:] = hist")
        w("    hst_a[:] = hst")
        w("    fifo_a[:] = fifo")
        w("    heap_a[:] = heap")
        w("    chain_a[:] = chain")
    w("    return -1 if fail else k")
    return "\n".join(L) + "\n"


def python_function(python_source: str, trace: list | None = None) -> Callable:
    """The twin's ``run`` compiled from ``python_source`` (same arguments and draws as the
    compiled kernel). ``trace``: a list the twin of a table with lags appends its steps to
    (a debugging and testing aid): ``("event", time, slot, landing, counts after)`` for
    every jump, ``("decide", time, slot, due)`` for an action-delayed transition drawn,
    ``("lazy", time, slot, lagged values, rates)`` for a class of constant total drawn."""

    class _Fail(Exception):
        pass

    ns = {
        "math": math,
        "_np": np,
        "_partial": functools.partial,
        "_next_u64": next_u64,
        "_unif": unif,
        "_DBL_MAX": _DBL_MAX,
        "_expo": _exp_variate,
        "_Fail": _Fail,
        "_advance": _advance,
        "_sample_lag": _sample_lag,
        "_heap_push": _heap_push,
        "_heap_pop": _heap_pop,
        "_chain_read": _chain_read,
        "_chain_step": _chain_step,
        "_ph_step": _ph_step,
        "_ph_read": _ph_read,
        "_trace": trace,
    }
    exec(compile(python_source, "<symdelay generated kernel>", "exec"), ns)
    return ns["run"]


# ---------------------------------------------------------------------------------------
# the lags (the twin of the C writer's sections LAGS)


def _lag_offsets(lag) -> tuple:
    from symdelay.analysis.kernel.cwriter import lag_offsets

    return lag_offsets(lag)


def _peak_offset(lag) -> int:
    from symdelay.analysis.kernel.cwriter import peak_offset

    return peak_offset(lag)


def _transit_offset(lag) -> int:
    from symdelay.analysis.kernel.cwriter import transit_offset

    return transit_offset(lag)


def _py_row(lag) -> str:
    """The row a grid time records: the counts, then the jobs in transit per action."""
    n, na = lag["N"], lag["NA"]
    if not na:
        return f"x[:{n}]"
    o = _transit_offset(lag)
    return f"x[:{n}] + hst[{o}:{o + na}]"


def _advance(hist, h: int, head: int, base: int, cmask: int, T: float, d: float) -> int:
    """The twin of the C ``advance``: pointer ``h`` moved to the last entry whose time plus
    ``d`` is at most ``T``."""
    while h < head and hist[3 * (base + ((h + 1) & cmask))] + d <= T:
        h += 1
    return h


def _py_lag_read(lag, T: str, pad: str) -> list:
    """The twin of :func:`symdelay.analysis.kernel.cwriter.lag_read`."""
    HO, PO, _ = _lag_offsets(lag)
    out = []
    for p, c in enumerate(lag["pch"]):
        out.append(
            f"{pad}hst[{PO + p}] = _advance(hist, hst[{PO + p}], hst[{HO + c}], {c} * cap, "
            f"cmask, {T}, lagc[{p}])"
        )
        out.append(f"{pad}he_{p} = 3 * ({c} * cap + (hst[{PO + p}] & cmask))")
    if lag.get("dot"):
        from symdelay.analysis.kernel.cwriter import dot_read

        out += dot_read(lag, T, pad, py=True)
    for sym, terms in lag["terms"]:
        parts = []
        for kind, p, wi in terms:
            if kind == "d":  # a component of the drift recursion
                parts.append(f"lagc[{wi}] * dv_{p}")
            elif kind == "v":
                parts.append(f"lagc[{wi}] * hist[he_{p} + 1]")
            elif kind == "i":
                parts.append(
                    f"lagc[{wi}] * (hist[he_{p} + 2] + hist[he_{p} + 1] * "
                    f"(({T} - lagc[{p}]) - hist[he_{p}]))"
                )
            else:
                o, c = lag["CO"] + 3 * p, lag["chains"][p]
                cz = f"int(lagc[{o + 2}])"
                e = f"hist[3 * ({c} * cap + (hst[{HO + c}] & cmask)) + 1]"
                if lag["chain_ph"][p]:
                    parts.append(
                        f"lagc[{wi}] * _ph_read(chain, {cz}, lagc, int(lagc[{o + 1}]), "
                        f"{T} - chain[{cz}], {e})"
                    )
                else:
                    parts.append(
                        f"lagc[{wi}] * _chain_read(chain, {cz}, int(lagc[{o}]), "
                        f"lagc[{o + 1}] * ({T} - chain[{cz}]), {e})"
                    )
        out.append(f"{pad}{sym} = {' + '.join(parts)}")
    return out


def _chain_read(cz: list, at: int, k: int, x: float, e: float) -> float:
    """The twin of the C ``chain_read`` (the chain's state at ``cz[at:]``)."""
    i = k - 1
    p = math.exp(-x)
    s = (cz[at + 1 + i] - e) * p
    for j in range(i - 1, -1, -1):
        p = p * x / float(i - j)
        s += (cz[at + 1 + j] - e) * p
    return e + s


def _ph_advance(d: list, g: list, P: int, n: int, x: float) -> list:
    """The twin of the C ``ph_advance`` (``P``: where the matrix starts in ``g``)."""
    K = max(1, math.ceil(x / 200.0))
    xs = x / float(K)
    for _ in range(K):
        w = math.exp(-xs)
        v = list(d)
        acc = [w * di for di in d]
        for m in range(1, 100000):
            u = []
            for j in range(n):
                t = 0.0
                for i in range(n):
                    t += v[i] * g[P + i * n + j]
                u.append(t)
            w = w * xs / float(m)
            v = u
            for i in range(n):
                acc[i] += w * u[i]
            if float(m) > xs and w < 1e-18:
                break
        d = acc
    return d


def _ph_step(cz: list, at: int, g: list, b: int, h: float, e: float) -> None:
    """The twin of the C ``ph_step`` (the block at ``g[b:]``)."""
    n = int(g[b])
    u = b + 2 + n * n
    d = [cz[at + 1 + i] - e * g[u + i] for i in range(n)]
    d = _ph_advance(d, g, b + 2, n, g[b + 1] * h)
    for i in range(n):
        cz[at + 1 + i] = e * g[u + i] + d[i]


def _ph_read(cz: list, at: int, g: list, b: int, h: float, e: float) -> float:
    """The twin of the C ``ph_read``."""
    n = int(g[b])
    u = b + 2 + n * n
    s0 = u + n
    d = [cz[at + 1 + i] - e * g[u + i] for i in range(n)]
    d = _ph_advance(d, g, b + 2, n, g[b + 1] * h)
    y = g[s0 + n] * e
    for i in range(n):
        y += (e * g[u + i] + d[i]) * g[s0 + i]
    return y


def _chain_step(cz: list, at: int, k: int, x: float, e: float) -> None:
    """The twin of the C ``chain_step``."""
    p0 = math.exp(-x)
    for i in range(k - 1, -1, -1):
        p = p0
        s = (cz[at + 1 + i] - e) * p
        for j in range(i - 1, -1, -1):
            p = p * x / float(i - j)
            s += (cz[at + 1 + j] - e) * p
        cz[at + 1 + i] = e + s


def _py_room(lag) -> list:
    """The twin of the C room check (stop, flag set, when a ring, a FIFO or the heap is
    full)."""
    HO, PO, FO = _lag_offsets(lag)
    pad = "            "
    out = [f"{pad}full = 0"]
    for c in range(lag["NCH"]):
        ps = [p for p, pc in enumerate(lag["pch"]) if pc == c]
        if not ps:
            continue
        lo = ", ".join(f"hst[{PO + p}]" for p in ps)
        lo = f"min({lo})" if len(ps) > 1 else lo
        tb = FO + 2 * lag["NF"] + c
        out += [
            f"{pad}if hst[{HO + c}] - hst[{tb}] >= cap - 2:",
            f"{pad}    lo = {lo}",
            f"{pad}    if hst[{HO + c}] - lo >= cap - 2:",
        ]
        for p in ps:
            out.append(
                f"{pad}        hst[{PO + p}] = _advance(hist, hst[{PO + p}], hst[{HO + c}], "
                f"{c} * cap, cmask, t, lagc[{p}])"
            )
        out += [
            f"{pad}        lo = {lo}",
            f"{pad}        if hst[{HO + c}] - lo >= cap - 2:",
            f"{pad}            full = 1",
            f"{pad}    hst[{tb}] = lo",
        ]
    for f in range(lag["NF"]):
        out.append(f"{pad}if hst[{FO + 2 * f + 1}] - hst[{FO + 2 * f}] >= fcap - 1:")
        out.append(f"{pad}    full = 2")
    if lag["HEAP"]:
        out += [f"{pad}if hst[4] >= hcap - 1:", f"{pad}    full = 3"]
    if lag.get("dot"):  # the twin of the C lines (cwriter._room)
        RO, ta = lag["dot"]["RO"], lag["dot"]["tau_at"]
        out += [
            f"{pad}if hst[{RO + 1}] + 1 >= hst[{RO}]:",
            f"{pad}    full = 4",
            f"{pad}tr_ = tn if tn < grid[ng - 1] else grid[ng - 1]",
            f"{pad}if float(hst[{RO + 2}] - 2) * lagc[{ta}] <= tr_:",
            f"{pad}    full = 5",
        ]
    out += [f"{pad}if full:", f"{pad}    hst[2] = full", f"{pad}    break"]
    return out


def _py_landing(lag, sched_lines=()) -> list:
    """The twin of the C SCHEDULE: the first entry due, when it comes before ``tn``; before
    it, the next change of a lagged value an eagerly updated rate reads."""
    HO, PO, FO = _lag_offsets(lag)
    pad = "            "
    out = [f"{pad}landing = False"]
    sched = lag.get("sched")
    if not lag["NA"] and not sched:
        return out
    slots = [q for a in range(lag["NA"]) for q, b in enumerate(lag["act"]) if b == a]
    out += [f"{pad}ts, ja = math.inf, -1"]
    for a, f in enumerate(lag["afifo"]):
        if f < 0:
            continue
        out += [
            f"{pad}if hst[{FO + 2 * f}] < hst[{FO + 2 * f + 1}]:",
            f"{pad}    u_ = fifo[{f} * fcap + (hst[{FO + 2 * f}] & fmask)]",
            f"{pad}    if u_ < ts:",
            f"{pad}        ts, ja = u_, {a}",
        ]
    if lag["HEAP"]:
        out += [f"{pad}if hst[4] > 0 and heap[0] < ts:", f"{pad}    ts, ja = heap[0], -2"]
    if sched:
        out.append(f"{pad}sc = math.inf")
        for p in sched["pointers"]:
            c = lag["pch"][p]
            out += [
                f"{pad}if hst[{PO + p}] < hst[{HO + c}]:",
                f"{pad}    u_ = hist[3 * ({c} * cap + ((hst[{PO + p}] + 1) & cmask))] + lagc[{p}]",
                f"{pad}    if u_ < sc:",
                f"{pad}        sc = u_",
            ]
        out += [
            f"{pad}if sc < tn and not ts < sc:",
            f"{pad}    while k < ng and grid[k] < sc:",
            f"{pad}        out[k] = {_py_row(lag)}",
            f"{pad}        k += 1",
            f"{pad}    if k >= ng or ev >= max_events:",
            f"{pad}        break",
            f"{pad}    t = sc",
            *_py_lag_read(lag, "t", pad + "    "),
            *sched_lines,
            f"{pad}    pending = False",
            f"{pad}    continue",
        ]
    if not lag["NA"]:
        return out
    out += [
        f"{pad}if ts < tn:",
        f"{pad}    while k < ng and grid[k] < ts:",
        f"{pad}        out[k] = {_py_row(lag)}",
        f"{pad}        k += 1",
        f"{pad}    if k >= ng or ev >= max_events:",
        f"{pad}        break",
    ]
    first = True
    for a, f in enumerate(lag["afifo"]):
        if f >= 0:
            out += [f"{pad}    {'if' if first else 'elif'} ja == {a}:",
                    f"{pad}        hst[{FO + 2 * f}] += 1"]  # fmt: skip
            first = False
    if lag["HEAP"]:
        out += [
            f"{pad}    {'if' if first else 'elif'} ja == -2:",
            f"{pad}        ja = int(heap[1])",
            f"{pad}        hst[4] = _heap_pop(heap, hst[4])",
        ]
    out += [
        f"{pad}    hst[{_transit_offset(lag)} + ja] -= 1",
        f"{pad}    j = {slots}[ja]",
        f"{pad}    tn = ts",
        f"{pad}    landing = True",
    ]
    return out


def _sample_lag(g: list, pos: int, u64, unif) -> float:
    """The twin of the C ``sample_lag``: a draw of the law whose program starts at
    ``g[pos]`` (:func:`symdelay.analysis.kernel.lagplan.program`)."""
    while True:
        kind = int(g[pos])
        if kind == 0:
            return g[pos + 1]
        if kind == 1:
            return g[pos + 1] + g[pos + 2] * unif()
        if kind == 2:
            return g[pos + 1] * _exp_variate(u64, unif)
        if kind == 3:
            s = 0.0
            for _ in range(int(g[pos + 1])):
                s += _exp_variate(u64, unif)
            return s * g[pos + 2]
        if kind == 4:
            n = int(g[pos + 1])
            u, s, i = unif(), 0.0, 0
            while i < n and u >= g[pos + 2 + i]:
                i += 1
            while i < n:
                r = pos + 2 + n + i * (n + 2)
                s += _exp_variate(u64, unif) / g[r]
                u, i = unif(), 0
                while i < n and u >= g[r + 1 + i]:
                    i += 1
            return s
        m = int(g[pos + 1])
        u, i = unif(), 0
        while i < m - 1 and u >= g[pos + 2 + i]:
            i += 1
        pos += int(g[pos + 2 + m + i])


def _heap_push(h: list, n: int, t: float, a: float) -> int:
    """The twin of the C ``heap_push`` (entries ``(time, action)``, a min-heap on time)."""
    i = n
    while i > 0:
        p = (i - 1) >> 1
        if h[2 * p] <= t:
            break
        h[2 * i], h[2 * i + 1] = h[2 * p], h[2 * p + 1]
        i = p
    h[2 * i], h[2 * i + 1] = t, a
    return n + 1


def _heap_pop(h: list, n: int) -> int:
    """The twin of the C ``heap_pop``: the root removed."""
    n -= 1
    t, a = h[2 * n], h[2 * n + 1]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and h[2 * (c + 1)] < h[2 * c]:
            c += 1
        if h[2 * c] >= t:
            break
        h[2 * i], h[2 * i + 1] = h[2 * c], h[2 * c + 1]
        i = c
    h[2 * i], h[2 * i + 1] = t, a
    return n


def _py_push(lag) -> list:
    """The twin of the C HISTORY push: a new entry of every channel the jump changed."""
    HO, PO, _ = _lag_offsets(lag)
    pad = "            "
    out = []
    if lag.get("dot"):
        from symdelay.analysis.kernel.cwriter import _dot_push

        out += _dot_push(lag, pad, py=True)
    first = True
    for q, cs in enumerate(lag["pushes"]):
        if not cs:
            continue
        out.append(f"{pad}{'if' if first else 'elif'} j == {q}:")
        first = False
        for c in cs:
            out += [
                f"{pad}    h_ = hst[{HO + c}]",
                f"{pad}    o_ = 3 * ({c} * cap + (h_ & cmask))",
                f"{pad}    I_ = hist[o_ + 2] + hist[o_ + 1] * (tn - hist[o_])",
            ]
            for ci, cc in enumerate(lag["chains"]):
                if cc == c:
                    o = lag["CO"] + 3 * ci
                    step = (
                        f"_ph_step(chain, cz_, lagc, int(lagc[{o + 1}]), tn - chain[cz_], "
                        "hist[o_ + 1])"
                        if lag["chain_ph"][ci]
                        else f"_chain_step(chain, cz_, int(lagc[{o}]), lagc[{o + 1}] * "
                        "(tn - chain[cz_]), hist[o_ + 1])"
                    )
                    out += [
                        f"{pad}    cz_ = int(lagc[{o + 2}])",
                        f"{pad}    {step}",
                        f"{pad}    chain[cz_] = tn",
                    ]
            out += [f"{pad}    hs_{i} = x[{i}] / eta" for i in lag["reads"][c]]
            out += [
                f"{pad}    n_ = 3 * ({c} * cap + ((h_ + 1) & cmask))",
                f"{pad}    hist[n_] = tn",
                f"{pad}    hist[n_ + 1] = {lag['channels'][c]}",
                f"{pad}    hist[n_ + 2] = I_",
                f"{pad}    hst[{HO + c}] = h_ + 1",
            ]
            ps = [p for p, pc in enumerate(lag["pch"]) if pc == c]
            if ps:  # the most entries the ring held
                pk = _peak_offset(lag) + c
                lo = ", ".join(f"hst[{PO + p}]" for p in ps)
                out.append(f"{pad}    hst[{pk}] = max(hst[{pk}], h_ + 2 - min(({lo},)))")
    return out
