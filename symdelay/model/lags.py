"""Lags: delays of information and of action, declared in a model and linearised with it.

A model may declare lags (a ``[lags]`` table in a model file, ``lags=`` to
:class:`~symdelay.model.core.Model`), each a probability law on ``[0, oo)`` given by a kind
and expressions in the parameters:

=============  ==========================  ============================================
kind           arguments                   Laplace transform ``K(s) = E[exp(-s X)]``
=============  ==========================  ============================================
constant       ``value`` (> 0)             ``exp(-s tau)``
uniform        ``low`` (>= 0) < ``high``   ``(exp(-s a) - exp(-s b)) / (s (b - a))``
gamma          ``shape`` k, ``mean`` m     ``(1 + s m / k)^(-k)`` (Erlang for integer k)
exponential    ``mean`` m                  ``1 / (1 + s m)``
mixture        ``lags``, ``weights``       ``sum_i w_i K_i(s)`` (weights >= 0, sum 1)
phase_type     ``alpha``, ``S``            ``alpha (sI - S)^-1 (-S 1) + 1 - sum alpha``
=============  ==========================  ============================================

A rate reads a lag in two ways. ``delayed(EXPR, LAG)`` is the expression of states ``EXPR``
seen through the lag (``EXPR(t - tau)`` for a constant lag; the kernel average
``int k(u) EXPR(t - u) du`` for a distributed one); inside it ``dot(x)`` is the derivative
of state ``x`` (an announcement with a velocity term: a neutral equation). A transition
with ``lag = NAME`` is an *action* delay: decided at rate ``beta(s(t))``, its jump takes
effect after the lag.

**Linearisation** (:func:`linearise`). At an equilibrium every lagged quantity equals its
present value, so the equilibria are the zeros of the *steady drift* (every ``delayed(E, k)``
replaced by ``E``, ``dot`` by 0). Perturbing ``s = s* + x``, each occurrence
``u_j = delayed(E_j, k_j)`` moves by ``K_j * (g_j^T x + h_j^T x')`` (``*`` the kernel's
convolution; ``g_j``, ``h_j`` the gradients of ``E_j`` in the states and their derivatives),
and an action-delayed transition's jumps arrive through its kernel. In Laplace variables the
linearisation is ``Delta(r) x = 0`` with the characteristic matrix

    Delta(r) = r I - A_0 - sum_k (r if derivative else 1) M_k K_k(r),

``A_0`` the instantaneous Jacobian and one term per kernel (a product of the lags' transforms
when an action-delayed rate also reads delayed information). A phase-type lag gives the same
characteristic function as its explicit chain of phases (a test checks it).

>>> import sympy as sp
>>> lag = Lag.make("tau", {"kind": "constant", "value": "D"}, {"D": sp.Symbol("D")})
>>> lag.laplace()
exp(-D*r)
>>> Lag.make("m", {"kind": "gamma", "shape": 2, "mean": "D"}, {"D": sp.Symbol("D")}).laplace()
(D*r/2 + 1)**(-2)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.core.symbols import r as R_SYMBOL

__all__ = [
    "KINDS",
    "Lag",
    "LinearTerm",
    "Linearisation",
    "delayed_function",
    "make_lags",
    "occurrences",
    "steady",
    "linearise",
]

#: The kinds of lag a model may declare, with their arguments.
KINDS = {
    "constant": ("value",),
    "uniform": ("low", "high"),
    "gamma": ("shape", "mean"),
    "exponential": ("mean",),
    "mixture": ("lags", "weights"),
    "phase_type": ("alpha", "S"),
}


def delayed_function():
    """The SymPy functions ``delayed`` and ``dot`` a rate is written with (undefined
    functions: equal by name, so every model shares them)."""
    return sp.Function("delayed"), sp.Function("dot")


class LagError(SymdelayInputError):
    """A lag declaration or a use of a lag that cannot be accepted."""


@dataclass(frozen=True)
class Lag:
    """One declared lag: a probability law on ``[0, oo)`` of a kind, with its arguments as
    SymPy expressions in the parameters (a mixture's members are :class:`Lag` s)."""

    name: str
    kind: str
    args: dict = field(default_factory=dict)

    # ------------------------------------------------------------ building
    @classmethod
    def make(cls, name: str, spec, symbols: dict, lags: dict | None = None, where: str = "model"):
        """The lag ``name`` declared by ``spec`` (``{"kind": ..., arguments}``): expressions
        are text or numbers in the parameters ``symbols`` (``{name: Symbol}``), parsed safely;
        ``lags`` holds the lags declared before (a mixture's members)."""
        label = f"{where}: lag '{name}'"
        if not isinstance(spec, dict):
            raise LagError(f'{label}: must be a table such as {{ kind = "constant", value = "D" }}')
        kind = spec.get("kind")
        if kind not in KINDS:
            raise LagError(f"{label}: kind {kind!r} is not one of " + ", ".join(KINDS))
        extra = sorted(set(spec) - {"kind", *KINDS[kind]})
        if extra:
            raise LagError(
                f"{label}: unknown key '{extra[0]}' for a {kind} lag: use " + ", ".join(KINDS[kind])
            )
        for key in KINDS[kind]:
            if key not in spec:
                raise LagError(f"{label}: a {kind} lag needs '{key}'")

        def expr(key, value):
            return _expression(value, symbols, f"{label}: {key}")

        if kind == "mixture":
            names = spec["lags"]
            weights = spec["weights"]
            if not isinstance(names, list) or not isinstance(weights, list) or not names:
                raise LagError(f"{label}: lags and weights must be lists of the same length")
            if len(names) != len(weights):
                raise LagError(
                    f"{label}: {len(names)} lags but {len(weights)} weights: give one weight each"
                )
            members = []
            for m in names:
                if not isinstance(m, str) or m not in (lags or {}):
                    raise LagError(
                        f"{label}: member {m!r} is not a lag declared before it: declare it "
                        "above the mixture"
                    )
                if (lags or {})[m].kind == "mixture":
                    raise LagError(
                        f"{label}: member '{m}' is itself a mixture (a lag of a lag): list its "
                        "members instead"
                    )
                members.append(lags[m])
            args = {
                "lags": tuple(members),
                "weights": tuple(expr(f"weights[{i}]", w) for i, w in enumerate(weights)),
            }
        elif kind == "phase_type":
            alpha, S = spec["alpha"], spec["S"]
            if not isinstance(alpha, list) or not alpha:
                raise LagError(f"{label}: alpha must be a list (the initial phase probabilities)")
            n = len(alpha)
            if (
                not isinstance(S, list)
                or len(S) != n
                or any(not isinstance(row, list) or len(row) != n for row in S)
            ):
                raise LagError(f"{label}: S must be an {n} x {n} matrix (a list of {n} rows)")
            args = {
                "alpha": tuple(expr(f"alpha[{i}]", a) for i, a in enumerate(alpha)),
                "S": sp.ImmutableMatrix(
                    [
                        [expr(f"S[{i}][{j}]", v) for j, v in enumerate(row)]
                        for i, row in enumerate(S)
                    ]
                ),
            }
        else:
            args = {key: expr(key, spec[key]) for key in KINDS[kind]}
        return cls(name, kind, args)

    # ------------------------------------------------------------ the law
    def laplace(self, s=None) -> sp.Expr:
        """``K(s) = E[exp(-s X)]``, the Laplace transform of the law (``s`` defaults to r)."""
        s = R_SYMBOL if s is None else s
        a = self.args
        if self.kind == "constant":
            return sp.exp(-s * a["value"])
        if self.kind == "uniform":
            lo, hi = a["low"], a["high"]
            return (sp.exp(-s * lo) - sp.exp(-s * hi)) / (s * (hi - lo))
        if self.kind == "gamma":
            k = a["shape"]
            return (1 + s * a["mean"] / k) ** (-k)
        if self.kind == "exponential":
            return 1 / (1 + s * a["mean"])
        if self.kind == "mixture":
            return sp.Add(*[w * m.laplace(s) for w, m in zip(a["weights"], a["lags"])])
        alpha = sp.Matrix([list(a["alpha"])])
        S = sp.Matrix(a["S"])
        n = S.rows
        exit_rates = -S * sp.ones(n, 1)
        value = (alpha * (s * sp.eye(n) - S).inv() * exit_rates)[0, 0]
        atom = 1 - sp.Add(*a["alpha"])  # the mass at 0 when alpha sums to less than 1
        return sp.factor(sp.cancel(value + atom))

    def mean(self) -> sp.Expr:
        """The mean of the law."""
        a = self.args
        if self.kind == "constant":
            return a["value"]
        if self.kind == "uniform":
            return (a["low"] + a["high"]) / 2
        if self.kind in ("gamma", "exponential"):
            return a["mean"]
        if self.kind == "mixture":
            return sp.Add(*[w * m.mean() for w, m in zip(a["weights"], a["lags"])])
        alpha = sp.Matrix([list(a["alpha"])])
        S = sp.Matrix(a["S"])
        return sp.simplify((alpha * (-S).inv() * sp.ones(S.rows, 1))[0, 0])

    def chain_size(self) -> int:
        """The phases a rational transform stands for (the degree it adds to the
        characteristic polynomial): 1 for an exponential, k for a gamma of integer shape k,
        the phases of a phase-type law, their sum for a mixture of such; 0 for a law whose
        transform is not rational (kept transcendental, nothing expanded)."""
        a = self.args
        if self.kind == "exponential":
            return 1
        if self.kind == "gamma":
            k = a["shape"]
            return int(k) if k.is_Integer else 0
        if self.kind == "phase_type":
            return len(a["alpha"])
        if self.kind == "mixture":
            sizes = [m.chain_size() for m in a["lags"]]
            return sum(sizes) if all(sizes) else 0
        return 0

    def parameters(self) -> set:
        """The parameters the law depends on."""
        return set().union(*[e.free_symbols for e in self._expressions()])

    def _expressions(self) -> list:
        a = self.args
        if self.kind == "mixture":
            return list(a["weights"]) + [e for m in a["lags"] for e in m._expressions()]
        if self.kind == "phase_type":
            return list(a["alpha"]) + list(a["S"])
        return list(a.values())

    def xreplace(self, values: dict) -> Lag:
        """The lag with ``values`` substituted for parameters."""
        a = self.args
        if self.kind == "mixture":
            args = {
                "lags": tuple(m.xreplace(values) for m in a["lags"]),
                "weights": tuple(w.xreplace(values) for w in a["weights"]),
            }
        elif self.kind == "phase_type":
            args = {
                "alpha": tuple(x.xreplace(values) for x in a["alpha"]),
                "S": a["S"].xreplace(values),
            }
        else:
            args = {k: v.xreplace(values) for k, v in a.items()}
        return Lag(self.name, self.kind, args)

    # ------------------------------------------------------------ checks
    def check(self, domains: dict, values: dict, where: str = "model") -> None:
        """Refuse, in one line, arguments outside their domain: decided from the values given
        and the parameters' declared domains (a condition that cannot be decided is refused
        too, saying what to declare)."""
        label = f"{where}: lag '{self.name}'"
        a = self.args

        def need(expr, rel: str, what: str):
            _decide(expr.xreplace(values), rel, domains, f"{label}: {what}")

        if self.kind == "constant":
            need(a["value"], ">0", "value must be > 0 (a zero or negative lag)")
        elif self.kind == "uniform":
            need(a["low"], ">=0", "low must be >= 0")
            need(a["high"] - a["low"], ">0", "high must exceed low")
        elif self.kind == "gamma":
            need(a["shape"], ">0", "shape must be > 0")
            need(a["mean"], ">0", "mean must be > 0")
        elif self.kind == "exponential":
            need(a["mean"], ">0", "mean must be > 0")
        elif self.kind == "mixture":
            for i, w in enumerate(a["weights"]):
                need(w, ">=0", f"weights[{i}] must be >= 0")
            need(sp.Add(*a["weights"]) - 1, "==0", "the weights must sum to 1")
        else:
            S = a["S"]
            n = S.rows
            for i, x in enumerate(a["alpha"]):
                need(x, ">=0", f"alpha[{i}] must be >= 0")
            need(
                1 - sp.Add(*a["alpha"]),
                ">=0",
                "alpha must sum to at most 1 (the rest: an atom at 0)",
            )
            for i in range(n):
                for j in range(n):
                    if i != j:
                        need(S[i, j], ">=0", f"S[{i}][{j}] must be >= 0 (a rate between phases)")
                need(-sp.Add(*S.row(i)), ">=0", f"row {i} of S must sum to <= 0 (its exit rate)")
            need(sp.Abs(S.det()), ">0", "S must be invertible (every phase must lead to an exit)")

    # ------------------------------------------------------------ display
    def to_json(self) -> dict:
        a = self.args
        if self.kind == "mixture":
            args = {"lags": [m.name for m in a["lags"]], "weights": [str(w) for w in a["weights"]]}
        elif self.kind == "phase_type":
            args = {
                "alpha": [str(x) for x in a["alpha"]],
                "S": [[str(x) for x in S_row] for S_row in a["S"].tolist()],
            }
        else:
            args = {k: str(v) for k, v in a.items()}
        return {"name": self.name, "kind": self.kind, **args, "laplace": str(self.laplace())}

    def latex(self) -> str:
        from symdelay.core.latex import tex

        return rf"\hat K_{{\mathrm{{{self.name}}}}}(r) = {tex(self.laplace())}"


def _expression(value, symbols: dict, label: str):
    import decimal

    from symdelay.core.parsing import parse_expression

    if isinstance(value, bool) or not isinstance(value, (str, int, float, decimal.Decimal)):
        raise LagError(f"{label}: must be a number or a formula in quotes")
    text = str(value)
    try:
        e = parse_expression(text, variables=dict(symbols), canonical=False)
    except SymdelayInputError as exc:
        raise LagError(f"{label}: {exc}") from None
    unknown = e.free_symbols - set(symbols.values())
    if unknown:
        raise LagError(
            f"{label}: '{sorted(map(str, unknown))[0]}' is not a parameter: a lag's arguments "
            "are expressions in the parameters (declare it in [parameters])"
        )
    return e


def _decide(expr, rel: str, domains: dict, label: str) -> None:
    """``expr rel 0`` for every parameter value in its domain, or refuse in one line."""
    expr = sp.simplify(expr) if expr.free_symbols else expr
    if rel == "==0":
        if expr == 0:
            return
        if not expr.free_symbols:
            raise LagError(f"{label} (they are off by {expr})")
        raise LagError(f"{label}: cannot show it for every value of the parameters")
    dummies = {}
    for p in expr.free_symbols:
        dom = domains.get(p, "real")
        kw = {
            "positive": {"positive": True},
            "nonnegative": {"nonnegative": True},
            "probability": {"nonnegative": True},
        }.get(dom, {"real": True})
        dummies[p] = sp.Dummy(p.name, **kw)
    e = expr.xreplace(dummies)
    if e.free_symbols:
        # a probability p: 1 - p >= 0 is not an assumption SymPy carries; decide on [0, 1]
        e = _probability_bounds(e, expr, domains, dummies)
    ok = e.is_positive if rel == ">0" else e.is_nonnegative
    if ok:
        return
    if ok is False:
        raise LagError(f"{label} (it is {expr})")
    raise LagError(
        f"{label}: cannot show it for every value of "
        + ", ".join(sorted(str(p) for p in expr.free_symbols))
        + " in its domain; declare the parameters positive or give values"
    )


def _probability_bounds(e, expr, domains, dummies):
    """For parameters of the probability domain, substitute ``p = x/(1 + x)``, ``x >= 0``
    (a bijection onto [0, 1)) and ``p = 1``: a sign true on both is true on [0, 1]."""
    probs = [p for p in expr.free_symbols if domains.get(p) == "probability"]
    if not probs:
        return e
    subs = {}
    for p in probs:
        x = sp.Dummy("x", nonnegative=True)
        subs[dummies[p]] = x / (1 + x)
    inner = sp.simplify(sp.together(e.xreplace(subs)))
    at_one = sp.simplify(e.xreplace({dummies[p]: 1 for p in probs}))
    # the weaker of the two signs decides (both must hold)
    if inner.is_positive and at_one.is_positive:
        return sp.Integer(1)
    if inner.is_nonnegative and at_one.is_nonnegative:
        return sp.Integer(0)
    return inner


def make_lags(specs, symbols: dict, where: str = "model") -> dict:
    """``{name: Lag}`` from ``{name: spec}`` (in order: a mixture's members come first)."""
    if specs is None:
        return {}
    if not isinstance(specs, dict):
        raise LagError(f"{where}: [lags] must map lag names to tables")
    out: dict = {}
    for name, spec in specs.items():
        if isinstance(spec, Lag):
            out[name] = spec
            continue
        out[name] = Lag.make(name, spec, symbols, out, where)
    return out


# ---------------------------------------------------------------- rates with lags
def occurrences(rate) -> list:
    """The ``delayed(E, k)`` sub-expressions of ``rate``, each once."""
    delayed, _ = delayed_function()
    return sorted(rate.atoms(delayed), key=sp.default_sort_key)


def check_lag_names(text: str, lags: dict, label: str) -> None:
    """Before parsing: each ``delayed(EXPR, NAME)`` names a declared lag (else the parser
    would call it an unknown symbol)."""
    import ast

    from symdelay.core.parsing import _ast

    try:
        tree, _ = _ast(text.replace("^", "**").strip())
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return  # the parser gives the error
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "delayed"
            and len(node.args) == 2
            and isinstance(node.args[1], ast.Name)
            and node.args[1].id not in lags
        ):
            known = ", ".join(sorted(lags)) or "none declared"
            raise LagError(
                f"{label}: '{node.args[1].id}' in delayed(..., {node.args[1].id}) is not a "
                f"declared lag ({known}): declare it in [lags]"
            )


def check_rate(rate, states, lags: dict, label: str) -> None:
    """Refuse a misuse of ``delayed``/``dot`` in one line."""
    delayed, dot = delayed_function()
    lag_symbols = {sp.Symbol(n) for n in lags}
    for d in rate.atoms(dot):
        if len(d.args) != 1 or d.args[0] not in states:
            raise LagError(f"{label}: dot() takes one state, as dot(q1)")
    outside = rate.xreplace({o: sp.Integer(1) for o in rate.atoms(delayed)})
    if outside.atoms(dot):
        raise LagError(
            f"{label}: dot(x) is read only inside delayed(..., LAG): the present derivative "
            "is the drift itself"
        )
    for o in rate.atoms(delayed):
        if len(o.args) != 2:
            raise LagError(f"{label}: delayed takes an expression and a lag: delayed(q1, tau)")
        expr, lag = o.args
        if lag not in lag_symbols:
            known = ", ".join(sorted(lags)) or "none declared"
            raise LagError(
                f"{label}: '{lag}' in delayed(..., {lag}) is not a declared lag ({known}): "
                "declare it in [lags]"
            )
        if expr.atoms(delayed):
            raise LagError(
                f"{label}: delayed inside delayed (a lag of a lag): declare one lag whose law "
                "is the sum, or a mixture"
            )
        if not (expr.free_symbols & set(states)) and not expr.atoms(dot):
            raise LagError(
                f"{label}: delayed({expr}, {lag}) holds no state: a parameter has no past; "
                "write it without delayed"
            )
    stray = (rate.free_symbols & lag_symbols) - {s for o in rate.atoms(delayed) for s in o.args[1:]}
    if stray:
        raise LagError(
            f"{label}: the lag '{sorted(map(str, stray))[0]}' is used as a number: read it "
            "only through delayed(EXPR, LAG), or use its parameters"
        )


def steady(rate):
    """``rate`` at a steady state: every ``delayed(E, k)`` is ``E`` and every ``dot`` 0."""
    delayed, dot = delayed_function()
    if not rate.has(delayed):
        return rate
    out = rate.xreplace({o: o.args[0] for o in rate.atoms(delayed)})
    return out.xreplace({d: sp.Integer(0) for d in out.atoms(dot)})


# ---------------------------------------------------------------- the linearisation
@dataclass(frozen=True)
class LinearTerm:
    """``M K(r)`` (or ``r M K(r)`` for a delayed derivative) in the characteristic matrix."""

    matrix: sp.ImmutableMatrix
    kernel: sp.Expr
    lags: tuple
    derivative: bool = False

    def to_json(self) -> dict:
        return {
            "lags": list(self.lags),
            "kernel": str(self.kernel),
            "derivative": self.derivative,
            "matrix": [[str(x) for x in row] for row in self.matrix.tolist()],
        }


@dataclass(frozen=True)
class Linearisation:
    """``Delta(r) = r I - A0 - sum_k (r if derivative else 1) M_k K_k(r)``."""

    A0: sp.ImmutableMatrix
    terms: tuple = ()

    @property
    def neutral(self) -> bool:
        """True if a term carries a delayed derivative (a neutral equation)."""
        return any(t.derivative for t in self.terms)

    def matrix(self, s=None) -> sp.Matrix:
        """The characteristic matrix ``Delta(s)`` (``s`` defaults to r)."""
        s = R_SYMBOL if s is None else s
        n = self.A0.rows
        out = s * sp.eye(n) - sp.Matrix(self.A0)
        for t in self.terms:
            k = t.kernel.xreplace({R_SYMBOL: s}) if s is not R_SYMBOL else t.kernel
            out -= (s if t.derivative else 1) * k * sp.Matrix(t.matrix)
        return out

    def block(self, left, right) -> Linearisation:
        """The linearisation restricted by ``left * M * right`` for every matrix."""
        return Linearisation(
            sp.ImmutableMatrix(left * self.A0 * right),
            tuple(
                LinearTerm(
                    sp.ImmutableMatrix(left * t.matrix * right), t.kernel, t.lags, t.derivative
                )
                for t in self.terms
            ),
        )

    def applyfunc(self, f) -> Linearisation:
        return Linearisation(
            sp.ImmutableMatrix(self.A0.applyfunc(f)),
            tuple(
                LinearTerm(
                    sp.ImmutableMatrix(t.matrix.applyfunc(f)), t.kernel, t.lags, t.derivative
                )
                for t in self.terms
            ),
        )

    def to_json(self) -> dict:
        return {
            "A0": [[str(x) for x in row] for row in self.A0.tolist()],
            "terms": [t.to_json() for t in self.terms],
        }


def linearise(model) -> Linearisation:
    """The linearisation of ``model`` at its equilibrium (parameter values substituted; the
    remaining parameters symbolic). See the module docstring."""
    from symdelay.model.equilibrium import at_point

    _, dot = delayed_function()
    states = list(model.states)
    n = len(states)
    eq = model.equilibrium
    lags = model.lags
    laplace = {name: lag.xreplace(dict(model.values)).laplace() for name, lag in lags.items()}
    dots = {s: sp.Dummy(f"d{s.name}") for s in states}
    A0 = sp.zeros(n, n)
    terms: dict = {}

    def add(key, M):
        terms[key] = terms[key] + M if key in terms else M

    for t in model.transitions:
        nu = sp.Matrix(t.change)
        rate = t.rate.xreplace(dict(model.values))
        occ = occurrences(rate)
        us = [sp.Dummy(f"u{j}") for j in range(len(occ))]
        plain = rate.xreplace(dict(zip(occ, us)))
        steady_u = {u: steady(o) for u, o in zip(us, occ)}
        direct = sp.Matrix([[sp.diff(plain, s) for s in states]]).xreplace(steady_u)
        own = (t.lag,) if t.lag else ()
        if own:
            add((own, False), nu * direct)
        else:
            A0 += nu * direct
        for u, o in zip(us, occ):
            expr, lag = o.args
            expr_d = expr.xreplace({dot(s): dots[s] for s in states})
            dbeta = sp.diff(plain, u).xreplace(steady_u)
            g = sp.Matrix([[sp.diff(expr_d, s) for s in states]]).xreplace(
                dict.fromkeys(dots.values(), 0)
            )
            h = sp.Matrix([[sp.diff(expr_d, dots[s]) for s in states]]).xreplace(
                dict.fromkeys(dots.values(), 0)
            )
            key = tuple(sorted((*own, lag.name)))
            if any(g):
                add((key, False), nu * dbeta * g)
            if any(h):
                add((key, True), nu * dbeta * h)

    def at(M):
        return sp.ImmutableMatrix(at_point(M, eq))

    out = []
    for (names, derivative), M in sorted(terms.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        M = at(M)
        if all(x == 0 for x in M):
            continue
        kernel = sp.Mul(*[laplace[k] for k in names])
        out.append(LinearTerm(M, kernel, names, derivative))
    return Linearisation(at(A0), tuple(out))
