"""Phase-type action delays (alpha, S) and the two-queue model with such a delay.

A phase-type distribution is the absorption time of a Markov chain on ``m`` transient phases
started in ``alpha`` with sub-generator ``S``; the exit rates are ``s = -S 1``. Erlang,
hypoexponential, hyperexponential and Coxian delays are special cases. With this delay the
difference mode's characteristic equation is

    r + mu + lam theta alpha (r I - S)^{-1} s = 0,

which :func:`characteristic_function` derives symbolically and the tests compare with the
determinant of the model's difference-mode Jacobian.

>>> d = PhaseType.erlang(2, D=1)
>>> d.mean, d.scv
(1, 1/2)
>>> PhaseType.hyperexp([0.5, 0.5], [1, 3]).mean
2/3
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import sympy as sp

from symdelay.display import JsonRecord
from symdelay.errors import SymdelayInputError
from symdelay.params import as_parameter
from symdelay.symbols import gamma, lam, mu, r, theta

__all__ = [
    "PhaseType",
    "ShapePoint",
    "characteristic_function",
    "critical_by_shape",
    "model",
    "parse_matrix",
    "scaled",
    "shape_families",
    "INFO",
]

INFO = {
    "name": "phase_type",
    "parameters": ["mu", "lam", "theta", "delay"],
    "description": "two queues, logit routing, phase-type action delay "
    "(--delay erlang|hypoexp|hyperexp|coxian|ph)",
}


def _number(name: str, value) -> sp.Expr:
    expr = as_parameter(name, value, positive=False)
    if not expr.is_number:
        raise SymdelayInputError(f"{name} must be a number, got {value}")
    return expr


def _list(name: str, values) -> list:
    if isinstance(values, str):
        values = [v for v in values.split(",") if v.strip()]
    try:
        items = list(values)
    except TypeError:
        raise SymdelayInputError(f"{name} must be a list of numbers, e.g. 1,2,3") from None
    if not items:
        raise SymdelayInputError(f"{name} is empty: give a list of numbers, e.g. 1,2,3")
    return [_number(name, v) for v in items]


@dataclass(frozen=True)
class PhaseType(JsonRecord):
    """A phase-type distribution: initial row vector ``alpha``, sub-generator ``S``.

    Entries may be numbers (exact) or expressions in parameter symbols (Erlang with symbolic
    ``gamma``). Checked at construction: ``alpha >= 0`` summing to 1, ``S`` with nonnegative
    off-diagonal entries and row sums <= 0, and (for numeric ``S``) absorption certain.
    """

    alpha: sp.Matrix
    S: sp.Matrix
    kind: str = "ph"
    parameters: dict = field(default_factory=dict)  # symbol -> domain

    def __post_init__(self):
        a, S = self.alpha, self.S
        m = S.rows
        if S.cols != m or a.shape != (1, m):
            raise SymdelayInputError(
                f"alpha has {a.cols} entries and S is {S.rows}x{S.cols}: they must match (m and m x m)"
            )
        if any(x.is_negative for x in a):
            raise SymdelayInputError(f"alpha must be >= 0, got {list(a)}")
        if sp.simplify(sum(a) - 1) != 0:
            raise SymdelayInputError(f"alpha must sum to 1, got {sum(a)}")
        for i in range(m):
            for j in range(m):
                if i != j and S[i, j].is_negative:
                    raise SymdelayInputError(
                        f"S[{i + 1},{j + 1}] = {S[i, j]} is negative: off-diagonal rates must be >= 0"
                    )
            if sp.simplify(sum(S.row(i))).is_positive:
                raise SymdelayInputError(
                    f"row {i + 1} of S sums above 0: it is not a sub-generator"
                )
        if S.is_symbolic() is False and S.det() == 0:
            raise SymdelayInputError("S is singular: the delay would never end; check S")

    # ------------------------------------------------------------------ constructors
    @classmethod
    def erlang(cls, L: int, D=None) -> PhaseType:
        """Erlang(L) with mean ``D`` (phase rate ``L/D``), or symbolic rate ``gamma``."""
        from symdelay.params import as_L

        L = as_L(L, allow_symbol=False)
        if D is None:
            g, params = gamma, {gamma: "positive"}
        else:
            g, params = L / as_parameter("D", D), {}
        S = sp.Matrix(L, L, lambda i, j: -g if i == j else (g if j == i + 1 else 0))
        alpha = sp.Matrix([[1] + [0] * (L - 1)])
        return cls(alpha, S, f"erlang({L})", params)

    @classmethod
    def hypoexp(cls, rates) -> PhaseType:
        """Phases in series with the given rates."""
        g = _list("rates", rates)
        if any(not x > 0 for x in g):
            raise SymdelayInputError(f"rates must be positive, got {g}")
        m = len(g)
        S = sp.Matrix(m, m, lambda i, j: -g[i] if i == j else (g[i] if j == i + 1 else 0))
        return cls(sp.Matrix([[1] + [0] * (m - 1)]), S, "hypoexp")

    @classmethod
    def hyperexp(cls, probs, rates) -> PhaseType:
        """A mixture: phase ``i`` with probability ``probs[i]``, rate ``rates[i]``."""
        p, g = _list("probs", probs), _list("rates", rates)
        if len(p) != len(g):
            raise SymdelayInputError(f"probs has {len(p)} entries and rates {len(g)}: match them")
        if any(not x > 0 for x in g):
            raise SymdelayInputError(f"rates must be positive, got {g}")
        return cls(sp.Matrix([p]), sp.diag(*[-x for x in g]), "hyperexp")

    @classmethod
    def coxian(cls, rates, continue_probs) -> PhaseType:
        """Phases in series; after phase ``i`` go on with ``continue_probs[i]``, else exit."""
        g, c = _list("rates", rates), _list("continue_probs", continue_probs)
        m = len(g)
        if len(c) != m - 1:
            raise SymdelayInputError(
                f"a Coxian with {m} phases needs {m - 1} continue probabilities, got {len(c)}"
            )
        if any(not 0 <= x <= 1 for x in c):
            raise SymdelayInputError(f"continue probabilities must lie in [0, 1], got {c}")
        if any(not x > 0 for x in g):
            raise SymdelayInputError(f"rates must be positive, got {g}")
        S = sp.Matrix(m, m, lambda i, j: -g[i] if i == j else (g[i] * c[i] if j == i + 1 else 0))
        return cls(sp.Matrix([[1] + [0] * (m - 1)]), S, "coxian")

    @classmethod
    def general(cls, alpha, S) -> PhaseType:
        """Any ``(alpha, S)``: ``alpha`` a list, ``S`` a list of rows (or text ``[[..],[..]]``)."""
        if isinstance(S, str):
            S = parse_matrix(S)
        rows = [_list("S row", row) for row in S]
        return cls(sp.Matrix([_list("alpha", alpha)]), sp.Matrix(rows), "ph")

    # ------------------------------------------------------------------ derived
    @property
    def phases(self) -> int:
        return self.S.rows

    @cached_property
    def exit_rates(self) -> sp.Matrix:
        """``s = -S 1`` (column)."""
        return (-self.S * sp.ones(self.phases, 1)).applyfunc(sp.simplify)

    @cached_property
    def mean(self) -> sp.Expr:
        """``alpha (-S)^{-1} 1``."""
        return sp.simplify((self.alpha * (-self.S).inv() * sp.ones(self.phases, 1))[0])

    @cached_property
    def second_moment(self) -> sp.Expr:
        return sp.simplify(2 * (self.alpha * (self.S.inv() ** 2) * sp.ones(self.phases, 1))[0])

    @cached_property
    def scv(self) -> sp.Expr:
        """Squared coefficient of variation ``Var / mean^2``."""
        return sp.simplify(self.second_moment / self.mean**2 - 1)

    def laplace_transform(self, s=r) -> sp.Expr:
        """``alpha (s I - S)^{-1} exit`` (density's Laplace transform at ``s``)."""
        m = self.phases
        return sp.simplify((self.alpha * (s * sp.eye(m) - self.S).inv() * self.exit_rates)[0])

    def __str__(self) -> str:
        return f"{self.kind} (mean {self.mean}, scv {self.scv})"

    def to_json(self) -> dict:
        return {
            "kind": self.kind,
            "alpha": [str(x) for x in self.alpha],
            "S": [[str(x) for x in self.S.row(i)] for i in range(self.S.rows)],
            "mean": str(self.mean),
            "scv": str(self.scv),
        }


def parse_matrix(text: str) -> list[list[sp.Expr]]:
    """``"[[-2, 1], [0, -3]]"`` -> rows of exact numbers (parsed safely, nothing evaluated).

    >>> parse_matrix("[[-2, 1/2], [0, -3]]")
    [[-2, 1/2], [0, -3]]
    """
    import ast

    from symdelay.parsing import parse_expression

    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        raise SymdelayInputError(
            f"cannot read the matrix '{text}': write rows in brackets, e.g. [[-2,1],[0,-3]]"
        ) from None
    if not isinstance(tree, ast.List) or not all(isinstance(row, ast.List) for row in tree.elts):
        raise SymdelayInputError(
            f"the matrix '{text}' must be a list of rows, e.g. [[-2,1],[0,-3]]"
        )
    rows = [[parse_expression(ast.unparse(x)) for x in row.elts] for row in tree.elts]
    if not rows or any(len(row) != len(rows) for row in rows):
        raise SymdelayInputError(f"the matrix '{text}' must be square (m rows of m entries)")
    if any(not x.is_number for row in rows for x in row):
        raise SymdelayInputError(f"the matrix '{text}' must hold numbers only")
    return rows


def characteristic_function(delay: PhaseType, lam_theta=None) -> sp.Expr:
    """``r + mu + lam theta alpha (rI - S)^{-1} s`` for the difference mode, symbolically."""
    k = lam * theta if lam_theta is None else lam_theta
    return r + mu + k * delay.laplace_transform(r)


def model(
    delay: PhaseType | None = None,
    *,
    mu=None,
    lam=None,
    theta=None,
    N=2,
    kappa=None,
    name=None,
    description="",
):
    """Two queues (or ``N``), logit routing on queue lengths, phase-type action delay."""
    from symdelay.models.delayed_routing import delayed_routing_model

    if delay is None:
        raise SymdelayInputError("give a delay, e.g. PhaseType.hyperexp([0.3, 0.7], [0.5, 2])")
    return delayed_routing_model(
        N=N,
        delay=delay,
        mu=mu,
        lam=lam,
        theta=theta,
        kappa=kappa,
        name=name,
        description=description,
    )


def scaled(delay: PhaseType, mean) -> PhaseType:
    """The same shape with mean ``mean`` (every rate multiplied by ``delay.mean / mean``)."""
    factor = delay.mean / as_parameter("mean", mean)
    return PhaseType(delay.alpha, delay.S * factor, delay.kind, delay.parameters)


def shape_families(k_max: int = 12) -> dict:
    """Delay shapes of mean 1 spanning the squared coefficient of variation (SCV).

    ``erlang``: Erlang(k), SCV 1/k; ``hypoexp``: two phases in series with rates a and
    a/(a-1) (SCV in [1/2, 1)); ``hyperexp``: two exponential branches with balanced means,
    probabilities p, 1 - p (SCV = 1/(2p(1-p)) - 1 >= 1).
    """
    half = sp.Rational(1, 2)
    return {
        "erlang": [PhaseType.erlang(k, D=1) for k in range(1, k_max + 1)],
        "hypoexp": [
            PhaseType.hypoexp([a, a / (a - 1)])
            for a in (sp.Rational(9, 4), *map(sp.Integer, (3, 4, 6, 10)))
        ],
        "hyperexp": [
            PhaseType.hyperexp([p, 1 - p], [2 * p, 2 * (1 - p)])
            for p in (half, sp.Rational(1, 4), sp.Rational(1, 10))
        ],
    }


@dataclass(frozen=True)
class ShapePoint(JsonRecord):
    """Critical theta of one delay shape at mean ``D`` (``inf``: stable for every theta > 0)."""

    family: str
    scv: sp.Expr
    D: sp.Expr
    theta_c: object  # mpmath.mpf


def critical_by_shape(D_values, mu=1, lam=1, k_max: int = 12, dps: int = 15) -> list[ShapePoint]:
    """theta_c of every shape of :func:`shape_families` at each mean delay ``D``."""
    from symdelay.model.critical import model_critical

    out = []
    for D in D_values:
        for family, delays in shape_families(k_max).items():
            for d in delays:
                m = model(scaled(d, D), mu=mu, lam=lam)
                c = model_critical(m, "theta", dps=dps)
                out.append(ShapePoint(family, d.scv, as_parameter("D", D), c.critical))
    return out
