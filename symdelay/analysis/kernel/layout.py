"""Where each rate sits: the sum tree (leaves at ``P2 + q``, node ``p`` = ``tree[2p] +
tree[2p + 1]``; IEEE addition commutes, so every way of refreshing a node gives the same double
as a full rebuild: no drift), the order of the linear rates along job chains, the runs of
changed leaves and the shape classes of the transitions (the records the shaped kernel reads
its indices from)."""

from __future__ import annotations

import numpy as np

from symdelay.analysis.kernel import tuning

__all__: list = []


def _pow2(n: int) -> int:
    """The smallest power of two >= n (1 for n <= 1)."""
    return 1 << max(0, n - 1).bit_length()


def _runs(leaves) -> list:
    """Sorted leaves as runs ``[lo, hi]`` (gaps of up to one leaf bridged)."""
    runs: list = []
    for x in sorted(leaves):
        if runs and x <= runs[-1][1] + 2:
            runs[-1][1] = x
        else:
            runs.append([x, x])
    return runs


def _chain_order(jumps, lin_state) -> list:
    """The linear transitions (``lin_state[j] >= 0``) in chains: after transition j, the one
    whose rate's state j's jump increases (when there is exactly one), else table order."""
    lin = [j for j in range(len(lin_state)) if lin_state[j] >= 0]
    by_state: dict = {}
    for j in lin:
        by_state.setdefault(lin_state[j], []).append(j)
    nxt = {}
    for j in lin:
        ups = [i for i in np.flatnonzero(jumps[j] > 0) if len(by_state.get(int(i), ())) == 1]
        if len(ups) == 1 and by_state[int(ups[0])][0] != j:
            nxt[j] = by_state[int(ups[0])][0]
    has_pred = set(nxt.values())
    out, seen = [], set()
    for start in [j for j in lin if j not in has_pred] + lin:
        j = start
        while j is not None and j not in seen:
            seen.add(j)
            out.append(j)
            j = nxt.get(j)
    return out


def _leaf_units(lins, P2) -> list:
    """The linear leaves an event changes as units: ('two', x, y) for two leaves (walked up
    side by side, branch free, wherever they meet), else ('leaf', x). Sibling or not, two
    leaves are one unit, so the common moves share one shape class (a predictable switch)."""
    xs = [P2 + q for q in sorted(lins)]
    units = [("two", xs[k], xs[k + 1]) for k in range(0, len(xs) - 1, 2)]
    if len(xs) % 2:
        units.append(("leaf", xs[-1]))
    return units


def _shape_classes(per_slot, ls, P2):
    """Transitions whose events run the same code with other indices form one shape class
    (the jump's deltas, the number of linear rates, the leaf units, whether general rates
    follow): one C case per class, the indices from a record per transition. Returns
    ``(shapes, record offsets, records)``; no shapes when there would be too many."""
    shapes: dict = {}
    ro, rec = [], []
    for entries, lins, g, cunits, _ in per_slot:
        units = _leaf_units(lins, P2)
        # count units: ("two", base, x, y, dx, dy) or ("one", base, x, d); the deltas are
        # part of the shape, the positions are read from the record
        ckey = tuple((u[0], *u[4:]) if u[0] == "two" else (u[0], u[3]) for u in cunits)
        key = (tuple(d for _, d in entries), len(lins), tuple(u[0] for u in units), g >= 0, ckey)
        sid = shapes.setdefault(key, len(shapes))
        ro.append(len(rec))
        rec += [sid, *(i for i, _ in entries)]
        rec += [v for u in cunits for v in (u[1:4] if u[0] == "two" else u[1:3])]
        rec += [v for q in lins for v in (q, ls[q])]
        rec += [x for _, *xs in units for x in xs] + ([g] if g >= 0 else [])
    if len(shapes) > tuning._MAX_SHAPES:
        return [], [], []
    return list(shapes), ro, rec
