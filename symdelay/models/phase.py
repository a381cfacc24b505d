"""Phase-type distributions (alpha, S): the absorption time of a Markov chain on ``m``
transient phases started in ``alpha`` with sub-generator ``S`` (exit rates ``s = -S 1``).
Erlang, hypoexponential, hyperexponential and Coxian delays are special cases; the family
that routes through such a delay is :mod:`symdelay.models.phase_type`.

>>> d = PhaseType.erlang(2, D=1)
>>> d.mean, d.scv
(1, 1/2)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.core.options import Option
from symdelay.core.params import as_number, as_parameter
from symdelay.core.result import Result
from symdelay.core.symbols import gamma, r

__all__ = ["PhaseType", "parse_matrix", "scaled"]


def _number(name: str, value) -> sp.Expr:
    return as_number(name, value, positive=False)


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
class PhaseType(Result):
    """A phase-type distribution: the absorption time of a Markov chain on ``m`` transient
    phases started in ``alpha``, with sub-generator ``S`` (exit rates ``s = -S 1``): the delay
    of the ``phase_type`` model (``build_model("phase_type", delay=...)``).

    Build one with :meth:`erlang`, :meth:`hypoexp`, :meth:`hyperexp`, :meth:`coxian` or
    :meth:`general`; the constructor takes the matrices themselves. Checked at construction:
    ``alpha >= 0`` summing to 1, ``S`` with nonnegative off-diagonal entries and row sums
    ``<= 0``, and (for numeric ``S``) absorption certain.

    Parameters
    ----------
    alpha : sympy.Matrix
        The initial distribution, a ``1 x m`` row of exact numbers (or expressions in
        parameter symbols).
    S : sympy.Matrix
        The ``m x m`` sub-generator: the rates between phases off the diagonal, minus the
        total rate out of each phase on it.
    kind : str, default "ph"
        The shape's name as records print it (``"erlang(3)"``, ``"hypoexp"``, ...).
    parameters : dict, optional
        ``{symbol: domain}`` of the symbols the entries use (an Erlang delay with symbolic
        phase rate ``gamma``: ``{gamma: "positive"}``). Default: none.

    Examples
    --------
    >>> PhaseType.hyperexp([0.5, 0.5], [1, 3]).mean
    2/3
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
        rows = [[] for _ in range(m)]  # the nonzero entries by row (S is sparse: Erlang(L))
        for (i, j), v in sorted(S.todok().items()):
            rows[i].append(v)
            if i != j and v.is_negative:
                raise SymdelayInputError(
                    f"S[{i + 1},{j + 1}] = {v} is negative: off-diagonal rates must be >= 0"
                )
        for i in range(m):
            if sp.simplify(sp.Add(*rows[i])).is_positive:
                raise SymdelayInputError(
                    f"row {i + 1} of S sums above 0: it is not a sub-generator"
                )
        if S.is_symbolic() is False and S.det() == 0:
            raise SymdelayInputError("S is singular: the delay would never end; check S")

    # ------------------------------------------------------------------ constructors
    @classmethod
    def erlang(cls, L: int, D=None) -> PhaseType:
        """The Erlang(``L``) distribution: ``L`` phases in series, each of rate ``L/D``.

        Parameters
        ----------
        L : int
            The number of phases, an integer ``>= 1`` (above 50 the dense ``L x L`` matrix is
            held to the cost guard).
        D : number or str, optional
            The mean (``> 0``): a number, its decimal text, or ``"D"`` to leave the mean a
            symbol. Default None: the phase rate is the symbol ``gamma`` (mean ``L/gamma``).

        Returns
        -------
        PhaseType
            ``kind = "erlang(L)"``.
        """
        from symdelay.core.params import as_L

        L = as_L(L, allow_symbol=False)
        if L > 50:
            from symdelay.core.budget import check_budget, power_cost

            # a dense L x L sub-generator: about L^2 (measured: L = 200 in 0.3 s)
            check_budget(
                f"an Erlang({L}) delay", power_cost(L, 2e-5, 2), shrink="a smaller L (--L)"
            )
        if D is None:
            g, params = gamma, {gamma: "positive"}
        else:  # a symbolic mean (D left free) is a parameter
            mean = as_parameter("D", D)
            g, params = L / mean, {s: "positive" for s in mean.free_symbols}
        # built from its 2L - 1 entries (a dense constructor visits all L^2)
        entries = {(i, i): -g for i in range(L)} | {(i, i + 1): g for i in range(L - 1)}
        S = sp.Matrix(sp.SparseMatrix(L, L, entries))
        alpha = sp.Matrix([[1] + [0] * (L - 1)])
        return cls(alpha, S, f"erlang({L})", params)

    @classmethod
    def hypoexp(cls, rates) -> PhaseType:
        """The hypoexponential distribution: phases in series with the given rates.

        Parameters
        ----------
        rates : sequence of numbers or str
            The rate of each phase in order (each ``> 0``), or their text ``"1,2,3"``.

        Returns
        -------
        PhaseType
            ``kind = "hypoexp"``, mean ``sum(1/rate)``.
        """
        g = _list("rates", rates)
        if any(not x > 0 for x in g):
            raise SymdelayInputError(f"rates must be positive, got {g}")
        m = len(g)
        S = sp.Matrix(m, m, lambda i, j: -g[i] if i == j else (g[i] if j == i + 1 else 0))
        return cls(sp.Matrix([[1] + [0] * (m - 1)]), S, "hypoexp")

    @classmethod
    def hyperexp(cls, probs, rates) -> PhaseType:
        """The hyperexponential distribution: a mixture of exponentials.

        Parameters
        ----------
        probs : sequence of numbers or str
            The probability of each branch (each ``>= 0``, summing to 1), or their text.
        rates : sequence of numbers or str
            The rate of each branch (each ``> 0``), as many as ``probs``.

        Returns
        -------
        PhaseType
            ``kind = "hyperexp"``, mean ``sum(prob/rate)``.
        """
        p, g = _list("probs", probs), _list("rates", rates)
        if len(p) != len(g):
            raise SymdelayInputError(f"probs has {len(p)} entries and rates {len(g)}: match them")
        if any(not x > 0 for x in g):
            raise SymdelayInputError(f"rates must be positive, got {g}")
        if any(not x >= 0 for x in p) or sum(p) != 1:
            raise SymdelayInputError(
                f"probs are branch probabilities: give numbers >= 0 summing to 1, got "
                f"{', '.join(map(str, p))} (sum {sum(p)})"
            )
        return cls(sp.Matrix([p]), sp.diag(*[-x for x in g]), "hyperexp")

    @classmethod
    def coxian(cls, rates, continue_probs) -> PhaseType:
        """The Coxian distribution: phases in series, leaving after phase ``i`` with probability
        ``1 - continue_probs[i]``.

        Parameters
        ----------
        rates : sequence of numbers or str
            The rate of each of the ``m`` phases (each ``> 0``).
        continue_probs : sequence of numbers or str
            The ``m - 1`` probabilities (each in ``[0, 1]``) of going on to the next phase.

        Returns
        -------
        PhaseType
            ``kind = "coxian"``.
        """
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
        """Any phase-type distribution ``(alpha, S)``.

        Parameters
        ----------
        alpha : sequence of numbers or str
            The initial distribution over the ``m`` phases (``>= 0``, summing to 1).
        S : sequence of sequences, or str
            The ``m x m`` sub-generator as a list of rows, or its text ``"[[-2, 1], [0, -3]]"``
            (parsed, never evaluated).

        Returns
        -------
        PhaseType
            ``kind = "ph"``.
        """
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

    def record(self) -> dict:
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

    from symdelay.core.parsing import parse_expression

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


#: the options that describe a phase-type delay (families ``phase_type`` and ``nserver``)
SHAPES = ("erlang", "hypoexp", "hyperexp", "coxian", "ph")

#: what each shape needs besides its mean
_SHAPE_NEEDS = {
    "erlang": (),
    "hypoexp": ("rates",),
    "hyperexp": ("probs", "rates"),
    "coxian": ("rates", "continue_probs"),
    "ph": ("alpha", "S"),
}


#: The declared options of a phase-type delay (shape, its numbers, and its mean).
DELAY_OPTIONS = (
    Option("delay", "phase-type delay shape", "choice", "erlang", SHAPES),
    Option("L", "erlang: number of delay phases (integer >= 1)", "integer", "2"),
    Option(
        "D",
        "mean delay: the phase rates are rescaled so that the mean is D (without it, "
        "erlang keeps its phase rate gamma symbolic and the other shapes keep the mean "
        "their rates give)",
    ),
    Option("rates", "hypoexp, hyperexp, coxian: phase rates (the shape)", "numbers"),
    Option("probs", "hyperexp: branch probabilities", "numbers"),
    Option("continue_probs", "coxian: probabilities to go on after each phase", "numbers"),
    Option("alpha", "ph: initial probabilities", "numbers"),
    Option("S", "ph: sub-generator", "matrix"),
)


def delay_from_options(
    delay="erlang",
    *,
    L=None,
    D=None,
    rates=None,
    probs=None,
    continue_probs=None,
    alpha=None,
    S=None,
) -> PhaseType:
    """The :class:`PhaseType` the options describe. One convention for every shape: the
    numbers give the shape, ``D`` (when given) the mean, to which the rates are rescaled.

    >>> delay_from_options("hypoexp", rates="1,2,3").mean
    11/6
    >>> delay_from_options("hypoexp", rates="1,2,3", D=2).mean
    2
    """
    if isinstance(delay, PhaseType):
        given = [
            n
            for n, v in (
                ("L", L),
                ("rates", rates),
                ("probs", probs),
                ("continue_probs", continue_probs),
                ("alpha", alpha),
                ("S", S),
            )
            if v is not None
        ]
        if given:
            raise SymdelayInputError(
                f"'{given[0]}' describes the delay's shape: give it or a PhaseType delay, not both"
            )
        return delay if D is None else scaled(delay, D, "D")
    kind = str(delay)
    if kind not in SHAPES:
        raise SymdelayInputError(f"delay must be one of {', '.join(SHAPES)}, got '{delay}'")
    values = {
        "rates": rates,
        "probs": probs,
        "continue_probs": continue_probs,
        "alpha": alpha,
        "S": S,
    }
    for name in _SHAPE_NEEDS[kind]:
        if values[name] is None:
            flag = "--" + name.replace("_", "-")
            raise SymdelayInputError(f"delay {kind} needs {name} ({flag} on the command line)")
    extra = [n for n, v in values.items() if v is not None and n not in _SHAPE_NEEDS[kind]]
    if extra:
        users = [k for k, needs in _SHAPE_NEEDS.items() if extra[0] in needs]
        raise SymdelayInputError(
            f"{extra[0]} is not used by delay {kind} (it is for delay {' or '.join(users)})"
        )
    if kind == "erlang":
        return PhaseType.erlang(2 if L is None else L, D)
    if L is not None:
        raise SymdelayInputError(f"L is the number of phases of delay erlang, not of delay {kind}")
    if kind == "hypoexp":
        shape = PhaseType.hypoexp(rates)
    elif kind == "hyperexp":
        shape = PhaseType.hyperexp(probs, rates)
    elif kind == "coxian":
        shape = PhaseType.coxian(rates, continue_probs)
    else:
        a = alpha.split(",") if isinstance(alpha, str) else alpha
        shape = PhaseType.general(a, S)
    return shape if D is None else scaled(shape, D, "D")


def scaled(delay: PhaseType, mean, name: str = "mean") -> PhaseType:
    """The same shape with mean ``mean`` (every rate multiplied by ``delay.mean / mean``;
    ``name``: the option that gave it, for the error)."""
    mean = as_parameter(name, mean)
    factor = delay.mean / mean
    # a symbolic mean (D left free: a worst delay, a window or a map over D) is a parameter
    params = {**delay.parameters, **{s: "positive" for s in mean.free_symbols}}
    return PhaseType(delay.alpha, delay.S * factor, delay.kind, params)
