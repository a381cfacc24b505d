"""The C writer: fills the template ``kernel_template.c`` (package data, beside this module)
with the layout of a table and the code generated from it. The template holds every line of C
that is the same for all tables (the random numbers, the sum-tree helpers, the event loop, the
descents, the class draws, the table-driven update) and ``{{NAME}}`` placeholders; the writer
gives each placeholder a number or a block of generated lines (the printed rates, the update
of each transition or shape class) and defines the ``K_`` macros that select the template's
variants (``#if``), so the preprocessor, not Python, leaves out what a table does not use.
:func:`fill` substitutes, and refuses a placeholder left open or a value that fits none."""

from __future__ import annotations

import re
from importlib import resources

from symdelay.analysis.kernel import tuning
from symdelay.analysis.kernel.expo import c_tables
from symdelay.analysis.kernel.layout import _runs
from symdelay.core.errors import VerificationError
from symdelay.core.rng import C_SOURCE as RNG_C_SOURCE

__all__: list = []

#: The name of the kernel function in every generated library.
FUNC = "symdelay_generated"
#: The template's file name (package data of ``symdelay.analysis.kernel``).
TEMPLATE_NAME = "kernel_template.c"
_PLACEHOLDER = re.compile(r"\{\{([A-Z][A-Z0-9_]*)\}\}")
_SECTION = re.compile(r"^[ \t]*//@ (if|else|endif)(?: ([A-Z][A-Z0-9_]*))?[ \t]*\n?$")


def template_text() -> str:
    """The text of ``kernel_template.c``."""
    return resources.files(__package__).joinpath(TEMPLATE_NAME).read_text(encoding="utf-8")


def fill(template: str, values: dict, sections: dict | None = None) -> str:
    r"""``template`` with its optional sections resolved and every ``{{NAME}}`` replaced by
    ``values[NAME]`` (a string or an integer).

    A section is the lines between ``//@ if NAME`` and ``//@ else`` or ``//@ endif`` (each on
    a line of its own, nested at will); it is kept when ``sections[NAME]`` is true, the
    ``else`` part otherwise; the marker lines go. A placeholder left without a value, a value
    or a section no line asks for, or unbalanced markers are a bug of the writer:
    :class:`~symdelay.core.errors.VerificationError`.

    >>> fill("int x = {{N}};\n//@ if DEBUG\nx++;\n//@ else\n{{BODY}}\n//@ endif\n",
    ...      {"N": 3, "BODY": "x--;"}, {"DEBUG": False})
    'int x = 3;\nx--;\n'
    """
    sections = sections or {}
    kept, stack, keep, seen = [], [], True, set()
    for line in template.splitlines(keepends=True):
        m = _SECTION.match(line)
        if m is None:
            if keep:
                kept.append(line)
            continue
        word, name = m.group(1), m.group(2)
        if word == "if":
            if name not in sections:
                raise VerificationError(f"the kernel template's section {name} has no value")
            seen.add(name)
            stack.append((keep, bool(sections[name])))
            keep = keep and bool(sections[name])
        elif not stack or name:
            raise VerificationError(f"the kernel template has an unbalanced {line.strip()!r}")
        elif word == "else":
            parent, cond = stack[-1]
            keep = parent and not cond
        else:
            keep = stack.pop()[0]
    if stack or seen != set(sections):
        raise VerificationError(
            f"the kernel template and its writer disagree on the sections: "
            f"{sorted(set(sections) ^ seen) or 'an unclosed one'}"
        )
    text = "".join(kept)
    wanted = set(_PLACEHOLDER.findall(text))
    everywhere = set(_PLACEHOLDER.findall(template))
    if not wanted <= set(values) <= everywhere:
        missing, extra = sorted(wanted - set(values)), sorted(set(values) - everywhere)
        raise VerificationError(
            f"the kernel template and its writer disagree: no value for {missing}, "
            f"no placeholder for {extra}"
        )
    return _PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), text)


def _refresh_c(lo: int, hi: int, arr: str = "tree") -> str:
    """C statements that refresh every ancestor of the positions ``lo..hi`` of ``arr``."""
    out = []
    while lo < hi:
        lo, hi = lo >> 1, hi >> 1
        out += [f"{arr}[{p}] = {arr}[{2 * p}] + {arr}[{2 * p + 1}];" for p in range(lo, hi + 1)]
    if lo > 1:
        out.append(f"u = {arr}[{lo}];")
        while lo > 1:
            out.append(f"u += {arr}[{lo ^ 1}]; {arr}[{lo >> 1}] = u;")
            lo >>= 1
    return " ".join(out)


def _c_check(pad: str, code, slot, val: str = "a") -> list:
    """C lines that stop the run (status ``code``, slot ``slot``) unless ``val`` is a rate."""
    return [
        f"{pad}if (!({val} >= 0.0 && {val} <= DBL_MAX)) {{",
        f"{pad}    status[0] = {code}; status[1] = {slot}; bad[0] = {val}; goto fail; }}",
    ]


def _c_linear(pad: str, q, x, PL: int) -> list:
    """C lines: the linear rate of slot ``q`` (its count ``X[x]``) into its leaf."""
    leaf = PL + q if isinstance(q, int) else f"{PL} + {q}"
    return [
        f"{pad}a = coef[{q}] * (double)X[{x}];",
        *_c_check(pad, 1, q),
        f"{pad}tree[{leaf}] = a;",
    ]


def _c_jump(pad: str, entries, slot) -> list:
    """C lines that apply a jump ``[(index, delta)]``, undone (status 2) when a count would
    go negative."""
    out = []
    for e, (i, d) in enumerate(entries):
        out.append(f"{pad}X[{i}] += {d};")
        if d < 0:
            undo = " ".join(f"X[{i2}] -= {d2};" for i2, d2 in entries[: e + 1])
            out.append(f"{pad}if (X[{i}] < 0) {{ {undo} status[0] = 2; status[1] = {slot};")
            out.append(f"{pad}    status[2] = {i}; goto fail; }}")
    return out


def write_c(
    n, M, P2, P, const_temps, live, g_states, blocks, H0, Mt, NC, GT, SH, cb,
    temp_c, rate_c, per_slot, ls, shapes, lz_c=None, W2=0, lag=None,
):  # fmt: skip
    """The C source of a table's kernel: the template filled with its layout (``n`` states,
    ``M`` transitions, ``P2`` leaves, ``P`` run-time parameters, ``Mt`` slots with a leaf of
    which ``H0`` before the count classes' ``NC``, ``SH`` general slots without a leaf after
    the ``GT`` with one, ``cb`` the count classes' bases) and its printed code (the
    temporaries ``const_temps`` and ``live``, the states ``g_states`` they read, the groups
    ``blocks``, ``temp_c`` and ``rate_c`` the printed temporaries and general rates,
    ``per_slot`` and ``shapes`` the update of each transition or shape class, ``lz_c`` the
    total and factors of a lazy or weighted class, ``W2`` the leaves of a weighted class's
    tree, ``lag`` the lags of :func:`~symdelay.analysis.kernel.generate._lag_spec` or
    ``None``: the sections LAGS of the template, :func:`lag_blocks`)."""
    PL = P2 - SH  # the tree position of linear slot q: PL + q
    G = len(rate_c)
    shaped = bool(
        (M > tuning._SPECIALIZE_MAX_M or (NC and M > tuning._COUNT_SPECIALIZE_MAX_M)) and shapes
    )
    table_driven = not shaped and M > tuning._SPECIALIZE_MAX_M
    L: list = []
    w = L.append

    def block(fn) -> str:
        """The lines ``fn()`` writes, as one block."""
        L.clear()
        fn()
        return "\n".join(L)

    def leaf(slot, pad):
        if W2:
            w(f"{pad}a = {rate_c[slot]};")
            L.extend(_c_check(pad, 3, slot))
            w(f"{pad}wt[{W2 + slot}] = a;")
            return
        w(f"{pad}a = eta*({rate_c[slot]});")
        L.extend(_c_check(pad, 1, slot))
        if not SH:  # a lazy class: its rates are checked here, its leaf holds their total
            w(f"{pad}tree[P2 + {slot}] = a;")

    def group(g, pad, refresh):
        """The general rates group ``g`` recomputes (``refresh``: their leaves' ancestors
        too; else the event's runs of the index table refresh the main tree)."""
        reload, temps, gens = blocks[g]
        for i in reload:
            w(f"{pad}s_{i} = (double)X[{i}] / eta;")
        for s, _ in temps:
            w(f"{pad}{s} = {temp_c[s]};")
        for q in gens:
            leaf(q, pad)
        for lo, hi in _runs(gens) if refresh or W2 else ():
            w(pad + (_refresh_c(W2 + lo, W2 + hi, "wt") if W2 else _refresh_c(P2 + lo, P2 + hi)))

    def groups():
        """The blocks of the general rates an event's group recomputes."""
        for g in range(len(blocks)):
            w(f"    group_{g}:")
            group(g, "        ", True)
            w("        goto done;")

    def layout():
        if lag is not None and lag["NA"]:
            acts = ", ".join(map(str, lag["act"]))
            slots = ", ".join(str(q) for a in range(lag["NA"]) for q, b in
                              enumerate(lag["act"]) if b == a)  # fmt: skip
            w(f"static const int64_t K_ACT[{M}] = {{{acts}}}; /* slot -> action, or -1 */")
            w(f"static const int64_t K_ACT_SLOT[{lag['NA']}] = {{{slots}}};")
        for name, value in [
            ("P2", P2), ("M", M), ("MT", Mt), ("K_N", n), ("K_PL", PL), ("K_NLEAF", Mt - SH),
            ("K_NLEAF_LAST", Mt - SH - 1), ("K_GT", GT), ("K_SH", SH), ("K_G", G),
            ("K_G_LAST", G - 1), ("K_W2", W2), ("K_W2_TOP", W2 - 1), ("K_H0", H0),
            ("K_NC", NC),
        ]:  # fmt: skip
            w(f"#define {name} {value}")

    def parameters():
        for k in range(P):
            w(f"    const double p_{k} = par[{k}];")

    def temporaries():
        for s, _ in const_temps:
            w(f"    const double {s} = {temp_c[s]};")
        for i in g_states:
            w(f"    double s_{i} = (double)X[{i}] / eta;")
        for s, _ in live:
            w(f"    double {s};")

    def rates():
        for s, _ in live:
            w(f"    {s} = {temp_c[s]};")
        for g in range(G):
            leaf(g, "    ")

    def class_factors():
        for g, c in lz_c[1] if lz_c is not None else ():  # rate g's state-free factor >= 0
            w(f"    a = {c};")
            L.extend(_c_check("    ", 1, g))

    def lazy_state():
        if lag is not None:
            L.extend(lag_read(lag, "tn", "            "))
        for i in g_states:
            w(f"            s_{i} = (double)X[{i}] / eta;")
        for s_, _ in live:
            w(f"            {s_} = {temp_c[s_]};")

    def lazy_rates():
        for g in range(G):
            w(f"            a = eta*({rate_c[g]});")
            L.extend(_c_check("            ", 1, g))
            w(f"            lz[{g}] = a; sum += a;")

    def count_draw():
        # per count class: m = floor(v / c), then its integer tree unrolled to its depth
        for kc in range(NC):
            b0, K2, e0 = cb[4 * kc : 4 * kc + 3]
            D = K2.bit_length() - 1
            w(f"            case {kc}: {{")
            w(f"                const int64_t *c = X + {b0};")
            w(f"                m = (int64_t)(v * coef[{M + kc}]);")
            w("                if (m >= c[1]) m = c[1] - 1;")
            w("                l = c[2];" + (" c0 = c[4]; c1 = c[6];" if D >= 2 else ""))
            for d in range(D):
                if d + 3 <= D:
                    w(
                        "                g0 = c[8 * p]; g2 = c[8 * p + 2]; g4 = c[8 * p + 4]; g6 = c[8 * p + 6];"
                    )
                # masks, not ?: (gcc turns those into branches)
                step = "go = m >= l; mk = -go; m -= l & mk;"
                if d + 2 <= D:
                    step += " l = (c1 & mk) | (c0 & ~mk);"
                if d + 3 <= D:
                    step += " c0 = (g4 & mk) | (g0 & ~mk); c1 = (g6 & mk) | (g2 & ~mk);"
                w(f"                {step} p = 2 * p + go;")
            w(f"                j = cm[{e0 - K2} + p];")
            if shaped:
                w(f"                rj = cr[{e0 - K2} + p];")
            w("                break;")
            w("            }")

    def update_groups():
        # table driven: the general rates of the event's group (the template refreshes the
        # main tree from the index tables' runs)
        if table_driven and blocks:
            w("        switch (gr[j]) {")
            for g in range(len(blocks)):
                w(f"        case {g}:")
                group(g, "            ", False)
                w("            break;")
            w("        default:")
            w("            break;")
            w("        }")

    def update():
        if shaped:
            # one case per shape class, the indices from the transition's record (with count
            # classes above _COUNT_SPECIALIZE_MAX_M: their moves share a shape)
            w(
                "        const int32_t *r = rec32 + (rj >= 0 ? rj : ro[j]);"
                if NC
                else "        const int32_t *r = rec32 + ro[j];"
            )
            w("        switch (r[0]) {")
            for sid, (deltas, nlin, units, has_g, cunits) in enumerate(shapes):
                w(f"        case {sid}:")
                L.extend(
                    _c_jump("            ", [(f"r[{1 + e}]", d) for e, d in enumerate(deltas)], "j")
                )
                f = 1 + len(deltas)
                for u in cunits:
                    if u[0] == "two":
                        w(
                            f"            cwalk2(X + r[{f}], r[{f + 1}], r[{f + 2}], {u[1]}, {u[2]});"
                        )
                        f += 3
                    else:
                        w(f"            cwalk(X + r[{f}], r[{f + 1}], {u[1]});")
                        f += 2
                for _ in range(nlin):
                    L.extend(_c_linear("            ", f"r[{f}]", f"r[{f + 1}]", PL))
                    f += 2
                for u in units:
                    if u == "two":
                        w(f"            walk2(tree, r[{f}], r[{f + 1}]);")
                        f += 2
                    else:
                        w(f"            walk(tree, r[{f}]);")
                        f += 1
                if has_g:
                    w(f"            switch (r[{f}]) {{")
                    for g in range(len(blocks)):
                        w(f"            case {g}: goto group_{g};")
                    w("            }")
                w("            break;")
            w("        }")
            w("        goto done;")
            groups()
        elif not table_driven:
            # one case per leaf with constant indices (one indirect jump per event, no loops
            # over the tables); the general rates of a group in one block after the switch
            w("        switch (j) {")
            for q, (entries, lins, g, _, cnet) in enumerate(per_slot):
                w(f"        case {q}:")
                L.extend(_c_jump("            ", entries, q))
                if cnet:
                    w("            " + " ".join(f"X[{x}] += {d};" for x, d in cnet))
                for q2 in lins:
                    L.extend(_c_linear("            ", q2, ls[q2], PL))
                for lo, hi in _runs(lins):
                    w("            " + _refresh_c(PL + lo, PL + hi))
                w(f"            goto group_{g};" if g >= 0 else "            break;")
            w("        }")
            w("        goto done;")
            groups()

    values = {
        "RNG": RNG_C_SOURCE, **c_tables(), "FUNC": FUNC, "LAYOUT": block(layout),
        "PARAMETERS": block(parameters), "TEMPORARIES": block(temporaries),
        "RATES": block(rates), "CLASS_FACTORS": block(class_factors),
        "CLASS_TOTAL": lz_c[0] if lz_c is not None else "0.0",
        "LAZY_STATE": block(lazy_state), "LAZY_RATES": block(lazy_rates),
        "COUNT_DRAW": block(count_draw), "UPDATE_GROUPS": block(update_groups),
        "UPDATE": block(update),
    }  # fmt: skip
    if lag is not None:

        def sched():
            # the rates that read a lagged value at its change (they are general, eager)
            named = {str(k): v for k, v in temp_c.items()}
            for s_ in lag["sched"]["temps"]:
                w(f"                {s_} = {named[s_]};")
            for g in lag["sched"]["gens"]:
                leaf(g, "                ")
            for lo, hi in _runs(lag["sched"]["gens"]):
                w(f"                refresh(tree, {P2 + lo}, {P2 + hi});")

        lines = block(sched).split("\n") if lag.get("sched") else []
        values |= lag_blocks(lag, shaped and bool(NC), lines)
    sections = {
        "LAGS": lag is not None, "WEIGHTED": bool(W2), "CLASS": lz_c is not None, "LAZY": lz_c is not None and not W2,
        "COUNT": bool(NC), "BRANCHY": P2 <= tuning._BRANCHY_MAX_P2, "P2_AT_LEAST_4": P2 >= 4,
        "SHIFT": bool(SH), "SHAPED": shaped, "TABLE_DRIVEN": table_driven,
    }  # fmt: skip
    return fill(template_text(), values, sections)


# ---------------------------------------------------------------------------------------
# the sections LAGS: HISTORY (the channels' rings and pointers) and SCHEDULE (the FIFOs of
# the constant action delays, the heap of the distributed ones). hst: [0] ring entries,
# [1] FIFO entries, [2] full flag (1 a ring, 2 a FIFO, 3 the heap), [3] heap capacity,
# [4] heap entries, then the heads, the pointers, (first, next) of every FIFO, a lower
# bound of each channel's oldest pointer, then the peaks: the most entries each ring held
# (head minus its oldest pointer, plus one), each FIFO, the heap.
_HO = 5


def lag_offsets(lag) -> tuple:
    """``(heads, pointers, fifos)``: where each part starts in ``hst``."""
    return _HO, _HO + lag["NCH"], _HO + lag["NCH"] + lag["NP"]


def peak_offset(lag) -> int:
    """Where the peaks start in ``hst``: one per channel, one per FIFO, one for the heap."""
    return lag_offsets(lag)[2] + 2 * lag["NF"] + lag["NCH"]


def transit_offset(lag) -> int:
    """Where the jobs in transit per action start in ``hst`` (after the peaks)."""
    return peak_offset(lag) + lag["NCH"] + lag["NF"] + 1


def rec_offset(lag) -> int:
    """Where the drift recursion's slots start in ``hst`` (after the jobs in transit and
    the driver's counts of late jobs): the path's capacity (entries), its last entry, the
    number of levels ``NL``, then the pointer of level ``j`` at ``RO + 2 + j``."""
    return transit_offset(lag) + 2 * lag["NA"]


def dot_read(lag, T: str, pad: str, py: bool = False) -> list:
    """Lines (C, or the twin's with ``py``): the drift recursion at time ``T``, its
    components in ``dv_m``. Level ``j`` reads the path at ``T - j tau`` through its own
    pointer (the last entry whose time plus ``j tau`` is at most ``T``: forward only); the
    first level before 0 starts it with the history's components, then each level up
    applies the step (the drift at ``T - j tau`` from the states there and the components
    there), down to ``j = 1``: O(levels) per reading."""
    d = lag["dot"]
    RO, W, nv = d["RO"], d["W"], d["nv"]
    if py:
        out = [
            f"{pad}tau_ = lagc[{d['tau_at']}]",
            f"{pad}nl_, head_ = hst[{RO + 2}], hst[{RO + 1}]",
            f"{pad}J_ = nl_ - 1",
            f"{pad}for j_ in range(1, nl_):",
            f"{pad}    h_ = hst[{RO + 2} + j_]",
            f"{pad}    d_ = float(j_) * tau_",
            f"{pad}    while h_ < head_ and chain[{W} * (h_ + 1)] + d_ <= {T}:",
            f"{pad}        h_ += 1",
            f"{pad}    hst[{RO + 2} + j_] = h_",
            f"{pad}    if chain[{W} * h_] < 0.0:",
            f"{pad}        J_ = j_",
            f"{pad}        break",
            f"{pad}b_ = {W} * hst[{RO + 2} + J_] + 1",
        ]
        out += [f"{pad}dv_{m} = chain[b_ + {m}]" for m in range(nv)]
        out += [f"{pad}for j_ in range(J_ - 1, 0, -1):", f"{pad}    e_ = {W} * hst[{RO + 2} + j_]"]
        out += [f"{pad}    ds_{i} = chain[e_ + {1 + c}]" for c, i in enumerate(d["cols"])]
        out += [f"{pad}    {t} = {e}" for t, e in d["temps"]]
        lhs = "".join(f"dv_{m}, " for m in range(nv))
        out.append(f"{pad}    {lhs}= {''.join(f'{e}, ' for e in d['vals'])}")
        return out
    out = [
        f"{pad}{{   /* the drift recursion of dot() through the lag: levels t - j tau */",
        f"{pad}    const double tau_ = lagc[{d['tau_at']}];",
        f"{pad}    const int64_t nl_ = hst[{RO + 2}], head_ = hst[{RO + 1}];",
        f"{pad}    int64_t J_ = nl_ - 1;",
        f"{pad}    for (int64_t j_ = 1; j_ < nl_; j_++) {{",
        f"{pad}        int64_t h_ = hst[{RO + 2} + j_];",
        f"{pad}        const double d_ = (double)j_ * tau_;",
        f"{pad}        while (h_ < head_ && chain[{W} * (h_ + 1)] + d_ <= {T}) h_++;",
        f"{pad}        hst[{RO + 2} + j_] = h_;",
        f"{pad}        if (chain[{W} * h_] < 0.0) {{ J_ = j_; break; }}",
        f"{pad}    }}",
        f"{pad}    const double *b_ = chain + {W} * hst[{RO + 2} + J_] + 1; /* the start */",
    ]
    out += [f"{pad}    dv_{m} = b_[{m}];" for m in range(nv)]
    out += [
        f"{pad}    for (int64_t j_ = J_ - 1; j_ >= 1; j_--) {{",
        f"{pad}        const double *e_ = chain + {W} * hst[{RO + 2} + j_];",
    ]
    out += [f"{pad}        const double ds_{i} = e_[{1 + c}];" for c, i in enumerate(d["cols"])]
    out += [f"{pad}        const double {t} = {e};" for t, e in d["temps"]]
    out += [f"{pad}        const double dn_{m} = {e};" for m, e in enumerate(d["vals"])]
    out += [f"{pad}        dv_{m} = dn_{m};" for m in range(nv)]
    out += [f"{pad}    }}", f"{pad}}}"]
    return out


def record(lag, pad: str) -> list:
    """C lines: grid time ``k`` recorded, the counts then (with action delays) the jobs in
    transit per action, a row of ``K_N + NA``."""
    n, na = lag["N"], lag["NA"]
    w = n + na
    out = [f"{pad}for (int64_t i = 0; i < K_N; i++) out[k * {w} + i] = X[i];"]
    if na:
        out.append(
            f"{pad}for (int64_t a = 0; a < {na}; a++) out[k * {w} + {n} + a] = "
            f"hst[{transit_offset(lag)} + a];"
        )
    return out


def lag_read(lag, T: str, pad: str) -> list:
    """C lines: every pointer moved to ``T`` minus its look-back, then every lagged value
    (the weighted sum of its readings: a value, or a running integral at the look-back)."""
    HO, PO, _ = lag_offsets(lag)
    out = []
    for p, c in enumerate(lag["pch"]):
        out.append(
            f"{pad}hst[{PO + p}] = advance(hist, hst[{PO + p}], hst[{HO + c}], {c} * cap, "
            f"cmask, {T}, lagc[{p}]);"
        )
        out.append(f"{pad}he_{p} = HE({c}, hst[{PO + p}]);")
    if lag.get("dot"):
        out += dot_read(lag, T, pad)
    for sym, terms in lag["terms"]:
        parts = []
        for kind, p, wi in terms:
            if kind == "d":  # a component of the drift recursion
                parts.append(f"lagc[{wi}] * dv_{p}")
            elif kind == "v":
                parts.append(f"lagc[{wi}] * he_{p}[1]")
            elif kind == "i":
                parts.append(
                    f"lagc[{wi}] * (he_{p}[2] + he_{p}[1] * (({T} - lagc[{p}]) - he_{p}[0]))"
                )
            else:  # the output of chain p, fed by its channel's present value
                o, c = lag["CO"] + 3 * p, lag["chains"][p]
                cz = f"(chain + (int64_t)lagc[{o + 2}])"
                e = f"HE({c}, hst[{HO + c}])[1]"
                if lag["chain_ph"][p]:
                    parts.append(
                        f"lagc[{wi}] * ph_read({cz}, lagc + (int64_t)lagc[{o + 1}], "
                        f"{T} - {cz}[0], {e})"
                    )
                else:
                    parts.append(
                        f"lagc[{wi}] * chain_read({cz}, (int64_t)lagc[{o}], lagc[{o + 1}] * "
                        f"({T} - {cz}[0]), {e})"
                    )
        out.append(f"{pad}{sym} = {' + '.join(parts)};")
    return out


def _room(lag) -> list:
    """C lines: stop (flag set) when this event's entries might not fit; a ring first moves
    its pointers to the present (every later look-up is at or after it)."""
    HO, PO, FO = lag_offsets(lag)
    room = ["        {   /* room for this event's entries (else the caller makes it) */"]
    room.append("            int64_t full = 0, lo = 0;")
    for c in range(lag["NCH"]):
        ps = [p for p, pc in enumerate(lag["pch"]) if pc == c]
        if not ps:  # read by chains only: only its last entry is read
            continue
        lo = f"lo = hst[{PO + ps[0]}];" + "".join(
            f" if (hst[{PO + p}] < lo) lo = hst[{PO + p}];" for p in ps[1:]
        )
        # hst[TB + c]: a lower bound of the channel's oldest pointer (pointers only move
        # forward): one comparison per event while the ring is far from full
        tb = FO + 2 * lag["NF"] + c
        room += [
            f"            if (hst[{HO + c}] - hst[{tb}] >= cap - 2) {{",
            f"                {lo}",
            f"                if (hst[{HO + c}] - lo >= cap - 2) {{",
        ]
        for p in ps:
            room.append(
                f"                    hst[{PO + p}] = advance(hist, hst[{PO + p}], "
                f"hst[{HO + c}], {c} * cap, cmask, t, lagc[{p}]);"
            )
        room += [
            f"                    {lo}",
            f"                    if (hst[{HO + c}] - lo >= cap - 2) full = 1;",
            "                }",
            f"                hst[{tb}] = lo;",
            "            }",
        ]
    for f in range(lag["NF"]):
        room.append(
            f"            if (hst[{FO + 2 * f + 1}] - hst[{FO + 2 * f}] >= fcap - 1) full = 2;"
        )
    if lag.get("dot"):  # the path kept whole, and a level below 0 at every time read
        RO = lag["dot"]["RO"]
        room += [
            f"            if (hst[{RO + 1}] + 1 >= hst[{RO}]) full = 4;",
            "            {",
            "                const double tr_ = tn < grid[ng - 1] ? tn : grid[ng - 1];",
            f"                if ((double)(hst[{RO + 2}] - 2) * lagc[{lag['dot']['tau_at']}] <= tr_) "
            "full = 5;",
            "            }",
        ]
    if lag["HEAP"]:
        room.append("            if (hst[4] >= hcap - 1) full = 3;")
    room += [
        "            if (full) { hst[2] = full; break; }",
        "            (void)lo;",
        "        }",
    ]
    return room


def _landing(lag, sched_lines=()) -> list:
    """C lines: the first scheduled entry due, when it comes before the drawn time ``tn``,
    is the next event (its jump applied by the update of its transition); before it, the
    next change of a lagged value that an eagerly updated rate reads (``sched_lines``: those
    rates recomputed, the waiting time drawn again: memoryless)."""
    HO, PO, FO = lag_offsets(lag)
    sched = lag.get("sched")
    if not lag["NA"] and not sched:
        return []
    out = [
        "        {   /* SCHEDULE: the first entry due, when it comes before tn */",
        "            double ts = INFINITY;",
        "            int64_t ja = -1;",
        "            (void)ja;",
    ]
    for a, f in enumerate(lag["afifo"]):
        if f >= 0:
            out += [
                f"            if (hst[{FO + 2 * f}] < hst[{FO + 2 * f + 1}]) {{",
                f"                const double u_ = fifo[{f} * fcap + (hst[{FO + 2 * f}] & fmask)];",
                f"                if (u_ < ts) {{ ts = u_; ja = {a}; }}",
                "            }",
            ]
    if lag["HEAP"]:
        out.append("            if (hst[4] > 0 && heap[0] < ts) { ts = heap[0]; ja = -2; }")
    if sched:
        out.append("            double sc = INFINITY; /* the next change of a lagged value */")
        for p in sched["pointers"]:
            c = lag["pch"][p]
            out += [
                f"            if (hst[{PO + p}] < hst[{HO + c}]) {{",
                f"                const double u_ = HE({c}, hst[{PO + p}] + 1)[0] + lagc[{p}];",
                "                if (u_ < sc) sc = u_;",
                "            }",
            ]
        out += [
            "            if (sc < tn && !(ts < sc)) {",
            "                while (k < ng && grid[k] < sc) {",
            *record(lag, "                    "),
            "                    k++;",
            "                }",
            "                if (k >= ng || ev >= max_events) break;",
            "                t = sc;",
            *lag_read(lag, "t", "                "),
            *sched_lines,
            "                pending = 0;",
            "                continue;",
            "            }",
        ]
    if not lag["NA"]:
        return [*out, "        }"]
    out += [
        "            if (ts < tn) {",
        "                while (k < ng && grid[k] < ts) {",
        *record(lag, "                    "),
        "                    k++;",
        "                }",
        "                if (k >= ng || ev >= max_events) break;",
        "                switch (ja) {",
    ]
    for a, f in enumerate(lag["afifo"]):
        if f >= 0:
            out.append(f"                case {a}: hst[{FO + 2 * f}] += 1; break;")
    if lag["HEAP"]:
        out += [
            "                default:",
            "                    ja = (int64_t)heap[1];",
            "                    hst[4] = heap_pop(heap, hst[4]);",
        ]
    out += [
        "                }",
        f"                hst[{transit_offset(lag)} + ja] -= 1; /* landed: no longer in transit */",
        "                j = K_ACT_SLOT[ja];",
        "                tn = ts;",
        "                landing = 1;",
        "                goto apply;",
        "            }",
        "        }",
    ]
    return out


def _decide(lag, shaped_count: bool) -> list:
    """C lines: an action-delayed transition drawn schedules its jump (a FIFO entry ``tn +
    d``, or a heap entry ``tn + u`` with ``u`` drawn from its law), nothing else changes."""
    _, _, FO = lag_offsets(lag)
    if not lag["NA"]:
        return []
    out = [
        "        if (K_ACT[j] >= 0) { /* an action-delayed transition drawn: scheduled */",
        "            switch (K_ACT[j]) {",
    ]
    for a, f in enumerate(lag["afifo"]):
        off = lag["aoff"][a]
        out.append(f"            case {a}: {{")
        if f >= 0:
            pk = peak_offset(lag) + lag["NCH"] + f
            out += [
                f"                const int64_t e_ = hst[{FO + 2 * f + 1}];",
                f"                fifo[{f} * fcap + (e_ & fmask)] = tn + lagc[{off}];",
                f"                hst[{FO + 2 * f + 1}] = e_ + 1;",
                f"                if (e_ + 1 - hst[{FO + 2 * f}] > hst[{pk}]) "
                f"hst[{pk}] = e_ + 1 - hst[{FO + 2 * f}];",
            ]
        else:
            pk = peak_offset(lag) + lag["NCH"] + lag["NF"]
            out += [
                f"                const double u_ = sample_lag(lagc + (int64_t)lagc[{off}], rng);",
                f"                hst[4] = heap_push(heap, hst[4], tn + u_, {a}.0);",
                f"                if (hst[4] > hst[{pk}]) hst[{pk}] = hst[4];",
            ]
        out += ["                break;", "            }"]
    out += [
        "            }",
        f"            hst[{transit_offset(lag)} + K_ACT[j]] += 1; /* decided: in transit */",
        "            counts[j] += 1;",
        "            ev++;",
        "            t = tn;",
        "            pending = 0;",
        "            continue;",
        "        }",
        "        if (0) {",
        "    apply:",
        "            rj = -1;" if shaped_count else "            ;",
        "        }",
    ]
    return out


def _dot_push(lag, pad: str, py: bool = False) -> list:
    """Lines: the path of the drift recursion gets an entry (the time, the scaled states it
    reads) when the jump changed one of them."""
    d = lag["dot"]
    RO, W = d["RO"], d["W"]
    if not d["push"]:
        return []
    if py:
        out = [f"{pad}if j in {set(d['push'])}:", f"{pad}    h_ = hst[{RO + 1}] + 1"]
        out.append(f"{pad}    e_ = {W} * h_")
        out.append(f"{pad}    chain[e_] = tn")
        out += [f"{pad}    chain[e_ + {1 + c}] = x[{i}] / eta" for c, i in enumerate(d["cols"])]
        out.append(f"{pad}    hst[{RO + 1}] = h_")
        return out
    out = [f"{pad}switch (j) {{ /* the path of the drift recursion */"]
    out += [f"{pad}case {q}:" for q in d["push"]]
    out += [
        f"{pad}    {{",
        f"{pad}        const int64_t h_ = hst[{RO + 1}] + 1;",
        f"{pad}        double *e_ = chain + {W} * h_;",
        f"{pad}        e_[0] = tn;",
    ]
    out += [f"{pad}        e_[{1 + c}] = (double)X[{i}] / eta;" for c, i in enumerate(d["cols"])]
    out += [f"{pad}        hst[{RO + 1}] = h_;", f"{pad}    }}", f"{pad}    break;"]
    out += [f"{pad}default:", f"{pad}    break;", f"{pad}}}"]
    return out


def _push(lag) -> list:
    """C lines: a new history entry of every channel the jump changed (its value after the
    jump, its running integral continued to now)."""
    HO, PO, _ = lag_offsets(lag)
    push: list = _dot_push(lag, "        ") if lag.get("dot") else []
    cases: dict = {}
    for q, cs in enumerate(lag["pushes"]):
        if cs:
            cases.setdefault(tuple(cs), []).append(q)
    if not cases:
        return push
    push.append("        switch (j) { /* HISTORY: the channels the jump changed */")
    for cs, qs in cases.items():
        push += [f"        case {q}:" for q in qs]
        for c in cs:
            push += [
                "            {",
                f"                const int64_t h_ = hst[{HO + c}];",
                f"                const double *o_ = HE({c}, h_);",
                "                const double I_ = o_[2] + o_[1] * (tn - o_[0]);",
            ]
            for ci, cc in enumerate(lag["chains"]):  # its chains advanced at the old value
                if cc == c:
                    o = lag["CO"] + 3 * ci
                    step = (
                        f"ph_step(cz, lagc + (int64_t)lagc[{o + 1}], tn - cz[0], o_[1]);"
                        if lag["chain_ph"][ci]
                        else f"chain_step(cz, (int64_t)lagc[{o}], lagc[{o + 1}] * (tn - cz[0]), "
                        "o_[1]);"
                    )
                    push += [
                        f"                {{ double *cz = chain + (int64_t)lagc[{o + 2}];",
                        f"                  {step}",
                        "                  cz[0] = tn; }",
                    ]
            push += [f"                const double hs_{i} = (double)X[{i}] / eta;"
                     for i in lag["reads"][c]]  # fmt: skip
            push += [
                f"                double *n_ = HE({c}, h_ + 1);",
                f"                n_[0] = tn; n_[1] = {lag['channels'][c]}; n_[2] = I_;",
                f"                hst[{HO + c}] = h_ + 1;",
            ]
            ps = [p for p, pc in enumerate(lag["pch"]) if pc == c]
            if ps:  # the most entries the ring held: head minus its oldest pointer, plus one
                pk = peak_offset(lag) + c
                lo = f"int64_t lo_ = hst[{PO + ps[0]}];" + "".join(
                    f" if (hst[{PO + p}] < lo_) lo_ = hst[{PO + p}];" for p in ps[1:]
                )
                push.append(
                    f"                {{ {lo} if (h_ + 2 - lo_ > hst[{pk}]) "
                    f"hst[{pk}] = h_ + 2 - lo_; }}"
                )
            push.append("            }")
        push.append("            break;")
    push += ["        default:", "            break;", "        }"]
    return push


def lag_blocks(lag, shaped_count: bool, sched_lines=()) -> dict:
    """The values of the placeholders of the sections LAGS."""
    decls = [f"    double {sym} = 0.0;" for sym, _ in lag["terms"]]
    if lag.get("dot"):
        decls += [f"    double dv_{m} = 0.0;" for m in range(lag["dot"]["nv"])]
    decls += [f"    const double *he_{p} = hist;" for p in range(lag["NP"])]
    if lag["NP"]:
        decls.append("    " + " ".join(f"(void)he_{p};" for p in range(lag["NP"])))
    return {
        "LAG_DECLS": "\n".join(decls),
        "LAG_READ_START": "\n".join(lag_read(lag, "t", "    ")),
        "LAG_ROOM": "\n".join(_room(lag)),
        "LANDING": "\n".join(_landing(lag, sched_lines)),
        "ACTION_DECIDE": "\n".join(_decide(lag, shaped_count)),
        "HISTORY_PUSH": "\n".join(_push(lag)),
        "RECORD": "\n".join(record(lag, "            ")),
    }
