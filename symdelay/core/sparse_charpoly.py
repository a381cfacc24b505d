"""``det(rI - B)`` of a sparse matrix with few cycles, by its cycle covers.

Every permutation of the Leibniz expansion of ``det(rI - B)`` is a family of vertex-disjoint
cycles of the digraph of ``B``'s off-diagonal entries (an edge ``i -> j`` for each
``B[i, j] != 0``) together with fixed points; a cycle ``C`` of length ``k`` contributes its
sign ``(-1)^(k-1)`` times ``prod(-B[i, j])``, that is ``-w(C)`` with ``w(C)`` the product of its
entries, and a fixed point ``i`` contributes ``r - B[i, i]``. So

    det(rI - B) = sum over families F of disjoint cycles of
                  prod_{C in F} (-w(C)) * prod_{i not on F} (r - B[i, i]).

The matrices of a delay chain (a job moves phase to phase, the last phase feeds the queue,
the queue feeds the routing of the first phase) have one or a few cycles, where the dense
and Berkowitz charpolys cost ``O(m^3)`` and more operations on polynomials: here the work is
the cycles (Johnson's algorithm on each strongly connected component, SciPy's), their
disjoint families and one product of powers ``(r - b)^count`` per family, grouped by the
distinct diagonal entries. Above the caps (a dense part has many cycles) the answer is
``None`` and the caller uses a general method.

>>> import flint
>>> ctx = flint.fmpq_mpoly_ctx.get(("r", "g"), "lex")
>>> r, g = ctx.gens()
>>> # a 3-cycle 0 -> 1 -> 2 -> 0 with weights g, g, -1 and diagonal -g, -g, -1
>>> off = {(0, 1): g, (1, 2): g, (2, 0): ctx.from_dict({(0, 0): -1})}
>>> diag = {0: -g, 1: -g, 2: ctx.from_dict({(0, 0): -1})}
>>> charpoly_by_cycles(diag, off, 3, r, ctx) == (r + g) ** 2 * (r + 1) + g**2
True
"""

from __future__ import annotations

__all__ = ["charpoly_by_cycles", "simple_cycles"]

#: Refuse (return None) above this many simple cycles or disjoint families of them.
MAX_CYCLES = 256
MAX_FAMILIES = 20_000


def simple_cycles(m: int, adj: dict, limit: int = MAX_CYCLES):
    """The simple cycles (length >= 2) of the digraph on ``0..m-1`` with successor lists
    ``adj`` (self-loops ignored), each as a list of nodes, by Johnson's algorithm (iterative,
    on the strongly connected components); None when there are more than ``limit``."""
    import numpy as np
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    succ = {i: sorted({j for j in adj.get(i, ()) if j != i}) for i in range(m)}
    out: list = []

    def components(nodes: list) -> list:
        if len(nodes) < 2:
            return []
        pos = {v: k for k, v in enumerate(nodes)}
        rows, cols = [], []
        for v in nodes:
            for w in succ[v]:
                if w in pos:
                    rows.append(pos[v])
                    cols.append(pos[w])
        if not rows:
            return []
        n = len(nodes)
        graph = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
        _count, labels = connected_components(graph, directed=True, connection="strong")
        groups: dict = {}
        for k, lab in enumerate(labels.tolist()):
            groups.setdefault(lab, []).append(nodes[k])
        return [sorted(g) for g in groups.values() if len(g) > 1]

    work = components(list(range(m)))
    while work:
        comp = work.pop()
        s = comp[0]
        inside = set(comp)
        nbrs = {v: [w for w in succ[v] if w in inside] for v in comp}
        path, blocked, closed = [s], {s}, set()
        B: dict = {v: set() for v in comp}
        stack = [(s, iter(nbrs[s]))]
        while stack:
            node, it = stack[-1]
            for nxt in it:
                if nxt == s:
                    out.append(list(path))
                    if len(out) > limit:
                        return None
                    closed.update(path)
                elif nxt not in blocked:
                    path.append(nxt)
                    stack.append((nxt, iter(nbrs[nxt])))
                    closed.discard(nxt)
                    blocked.add(nxt)
                    break
            else:  # every successor of node tried
                if node in closed:
                    todo = {node}
                    while todo:
                        u = todo.pop()
                        if u in blocked:
                            blocked.discard(u)
                            todo |= B[u]
                            B[u].clear()
                else:
                    for w in nbrs[node]:
                        B[w].add(node)
                stack.pop()
                path.pop()
        work += components([v for v in comp if v != s])
    return out


def charpoly_by_cycles(diag: dict, off: dict, m: int, r, ctx):
    """``det(rI - B)`` as an element of the flint mpoly context ``ctx`` (``r`` one of its
    generators), ``B`` given by ``diag`` ``{i: entry}`` and ``off`` ``{(i, j): entry}`` (entries
    of ``ctx`` free of ``r``; absent entries are zero); None above the caps."""
    adj: dict = {}
    for i, j in off:
        adj.setdefault(i, []).append(j)
    cycles = simple_cycles(m, adj)
    if cycles is None:
        return None
    weights = []
    for cyc in cycles:
        w = ctx.from_dict({(0,) * ctx.nvars(): -1})
        for a, b in zip(cyc, cyc[1:] + cyc[:1]):
            w *= off[(a, b)]
        weights.append((frozenset(cyc), w))  # -w(C)
    zero = ctx.from_dict({})
    keys: dict = {}  # the distinct diagonal entries, as their dicts
    node_key = []
    for i in range(m):
        d = diag.get(i, zero)
        k = tuple(sorted(d.to_dict().items()))
        keys.setdefault(k, d)
        node_key.append(k)
    total_count: dict = {}
    for k in node_key:
        total_count[k] = total_count.get(k, 0) + 1
    # the families of pairwise disjoint cycles, the empty one included
    families: list = []

    def extend(start: int, used: frozenset, chosen: list) -> bool:
        families.append(list(chosen))
        if len(families) > MAX_FAMILIES:
            return False
        for c in range(start, len(weights)):
            nodes, _ = weights[c]
            if not nodes & used:
                chosen.append(c)
                if not extend(c + 1, used | nodes, chosen):
                    return False
                chosen.pop()
        return True

    if not extend(0, frozenset(), []):
        return None
    powers: dict = {}

    def power(k, e):
        if (k, e) not in powers:
            powers[(k, e)] = (r - keys[k]) ** e
        return powers[(k, e)]

    result = zero
    for fam in families:
        count = dict(total_count)
        term = ctx.from_dict({(0,) * ctx.nvars(): 1})
        for c in fam:
            nodes, w = weights[c]
            term *= w
            for v in nodes:
                count[node_key[v]] -= 1
        for k, e in count.items():
            if e:
                term *= power(k, e)
        result += term
    return result
