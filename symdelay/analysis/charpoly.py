"""The characteristic polynomial of a model: the entry :func:`charpoly`, its record
:class:`CharPoly`, and what the three records of the spectrum share (:class:`ModeFactor`, the
characteristic function factor by mode, and :func:`model_parameters`, the model's own options).

The generic path is the transition table's :attr:`~symdelay.model.Model.factors` (the modes of
its symmetry); the founding model's specialisation answers for symbolic ``L`` (the derived
``(r+mu)(r+gamma)^L + lam theta gamma^L``) and for ``L = inf`` (the delay equation
``r + mu + lam theta e^{-rD} = 0``). Both give one factor per mode: the generic path the
product of the mode's irreducible factors, the founding model its closed form.

>>> from symdelay.models import build_model
>>> res = charpoly(build_model("nserver", N=2, L=1, mu=1, lam=1, theta=2, D=1))
>>> res.polynomial
r**2 + 2*r + 3
>>> [(f.mode, str(f.factor), f.multiplicity) for f in res.factors]
[('sum', '(r + 1)**2', 1), ('difference', 'r**2 + 2*r + 3', 1)]
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from symdelay.analysis.entry import entry_doc
from symdelay.core.errors import VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.result import Result

__all__ = ["CharPoly", "ModeFactor", "charpoly", "mode_factors", "model_parameters"]


# ----------------------------------------------------------------------- shared parts
class ModeFactor:
    """One factor of the characteristic function: the polynomial (``L = inf``: the function)
    of one mode of the model's symmetry, ``multiplicity`` copies of it.

    ``expr``: the SymPy expression, or a function of no arguments building it when first
    read (a fast path need not build SymPy objects nobody reads); ``text``: its printed form
    when known without SymPy. ``parts``: the irreducible factors (``Factor``, exponent) the
    generic path found (empty on a closed form). Read-only (a light object: fast paths make
    one per factor).
    """

    __slots__ = ("_expr", "_factor", "_mode", "_multiplicity", "_parts", "_text")

    def __init__(self, expr, mode: str, multiplicity: int = 1, text=None, parts=()):
        self._expr, self._mode, self._multiplicity = expr, mode, multiplicity
        self._text, self._parts, self._factor = text, parts, None

    mode = property(lambda self: self._mode, doc="The mode's name (``sum``, ``difference``...).")
    multiplicity = property(lambda self: self._multiplicity, doc="Copies of the factor.")
    parts = property(lambda self: self._parts, doc="The irreducible factors, if known.")

    @property
    def factor(self):
        """The factor as a SymPy expression (built on first read)."""
        if self._factor is None:
            self._factor = self._expr() if callable(self._expr) else self._expr
        return self._factor

    def __getstate__(self):
        return (self._expr, self._mode, self._multiplicity, self._text, self._parts)

    def __setstate__(self, state):
        self.__init__(*state)

    def __repr__(self) -> str:
        return f"ModeFactor({str(self)!r}, {self.mode!r}, {self.multiplicity})"

    def __str__(self) -> str:
        return self._text if self._text is not None else str(self.factor)

    def to_json(self) -> dict:
        """The keys of :meth:`symdelay.model.Factor.to_json`, the factor's text as known."""
        from symdelay.model.records import Factor

        return {**Factor.to_json(self), "factor": str(self)}

    def latex(self) -> str:
        from symdelay.model.records import Factor

        return Factor.latex(self)


_COPIES = re.compile(r"^(?P<name>.*) \((?P<n>\d+) copies\)$")


def mode_factors(model, *, functions: bool = False) -> tuple:
    """The characteristic polynomial of a transition table, one :class:`ModeFactor` per mode
    (cached on the model): the product of the mode's irreducible factors
    (:attr:`~symdelay.model.Model.factors`, labelled ``"name (n copies)"`` when ``n`` modes
    share one polynomial), ``multiplicity`` the number of copies. ``functions``: a delay
    model's modes may be characteristic functions (``exp(-r tau)`` terms), not polynomials."""

    def compute():
        groups: dict = {}
        for f in model.characteristic_factors if functions else model.factors:
            groups.setdefault(f.mode, []).append(f)
        out = []
        for label, fs in groups.items():
            m = _COPIES.match(label)
            name, copies = (m["name"], int(m["n"])) if m else (label, 1)
            parts = []
            for f in fs:
                if f.multiplicity % copies:  # pragma: no cover - factor_modes multiplies
                    raise VerificationError(f"factor {f.factor} of {label}: multiplicity")
                parts.append((f, f.multiplicity // copies))
            expr = sp.Mul(*[f.factor**e for f, e in parts])
            out.append(ModeFactor(expr, name, copies, parts=tuple(parts)))
        return tuple(out)

    return model.cached(("mode factors", functions), compute)


def _option_text(name, value):
    """An option as the records print it: L an int (or ``"inf"``, ``"L"``), numbers exact
    text, tuples as lists, None where symbolic."""
    from fractions import Fraction

    from symdelay.core.params import is_infinite_L

    if value is None or isinstance(value, bool):
        return value
    if is_infinite_L(value):
        return "inf"
    if isinstance(value, int):
        return value if name == "L" else str(value)
    if isinstance(value, tuple | list):
        return [_option_text(name, v) for v in value]
    if name == "L" and getattr(value, "is_Integer", False):
        return int(value)
    if isinstance(value, str):  # L as typed on the command line: an int like every L
        return int(value) if name == "L" and value.strip().isdigit() else value
    from symdelay.core.numbers import option_text

    if isinstance(value, Fraction) or getattr(value, "is_Rational", False):
        return option_text(value)  # the rule of every record (0.5 as typed, 1/3 exact)
    return str(value)


def model_parameters(model) -> dict:
    """The model's own options (the same whichever path answers), as :func:`head_keys`
    prints them: a family's checked options (the founding and in-flight models), else the
    options ``build_model`` was given, else the transition table's parameter values (None:
    free)."""
    from symdelay.analysis.entry import family_options

    own = getattr(model, "record_options", None)  # a family's options without SymPy
    opts = own() if callable(own) else family_options(model)
    if opts is None:
        opts = getattr(getattr(model, "rebuild", None), "options", None)
    if opts is None:
        opts = {str(p): model.values.get(p) for p in model.parameters}
    return {str(k): v for k, v in opts.items()}


def parameters_text(parameters: dict) -> dict:
    """The model's options as text (``L`` an int, ``"inf"`` or ``"L"``; None: free)."""
    return {k: _option_text(k, v) for k, v in parameters.items()}


def head_keys(parameters: dict) -> dict:
    """The keys every record of the spectrum prints first: ``L`` (when the model has that
    option: the founding contract) and the model's ``parameters``."""
    text = parameters_text(parameters)
    head = {"L": text["L"]} if "L" in text else {}
    return {**head, "parameters": text}


def closed_forms_json(forms) -> dict | None:
    """Closed forms as text, each with its LaTeX beside it (``<name>_latex``)."""
    if forms is None:
        return None
    from symdelay.core.latex import tex

    out = {}
    for k, v in forms.items():
        if v is None:  # a formula that does not exist here (no closed form): both null
            out[k], out[f"{k}_latex"] = None, None
        elif isinstance(v, bool | int | str):
            out[k] = v
        elif isinstance(v, tuple | list):
            out[k] = [str(c) for c in v]
            out[f"{k}_latex"] = [tex(c) for c in v]
        else:
            out[k] = str(v)
            out[f"{k}_latex"] = tex(v)
    return out


# ----------------------------------------------------------------------- the record
@dataclass(frozen=True)
class CharPoly(Result):
    """A characteristic polynomial (or, ``L = inf``, function) and its factors by mode.

    ``polynomial``: the difference mode's polynomial (or, with ``full`` or without such a
    mode, the whole one), None when the characteristic function is not a polynomial
    (``L = inf``: then ``equation`` is its left side); ``factors``: one :class:`ModeFactor`
    per mode; ``tex``: the LaTeX of ``polynomial`` (or of ``equation = 0``); ``parameters``:
    the model's own options; ``closed_forms``: what its family knows in closed form (the
    founding model: the polynomial for every L).
    """

    polynomial: sp.Expr | None
    tex: str
    factors: tuple = ()
    model_name: str | None = None
    equation: sp.Expr | None = None
    full: bool = False
    parameters: dict = field(default_factory=dict)
    closed_forms: dict | None = None

    def record(self) -> dict:
        return {
            **head_keys(self.parameters),
            "polynomial": None if self.polynomial is None else str(self.polynomial),
            "equation": None if self.equation is None else str(self.equation),
            "latex": self.tex,
            "full": self.full,
            "factors": [f.to_json() for f in self.factors],
            "closed_forms": closed_forms_json(self.closed_forms),
        }

    def latex(self) -> str:
        return self.tex

    def text(self) -> str:
        """The polynomial (or the equation), then one line per factor."""
        lhs = str(self.polynomial) if self.polynomial is not None else f"{self.equation} = 0"
        p = parameters_text(self.parameters)
        head = f"L = {p['L']}" if "L" in p else str(self.model_name)
        lines = [f"{head}:  {lhs}"]
        lines += [
            f"  [{f.mode}] {f}" + (f" (x{f.multiplicity})" if f.multiplicity > 1 else "")
            for f in self.factors
        ]
        return "\n".join(lines)


def select(factors, full: bool):
    """The polynomial a record names: the difference mode's (the product of the factors whose
    mode starts with ``difference``), or, with ``full`` or without such a mode, all of them."""
    chosen = [] if full else [f for f in factors if f.mode.startswith("difference")]
    return sp.Mul(*[f.factor**f.multiplicity for f in (chosen or factors)])


@entry_doc
def charpoly(model, full: bool = False, method: str = "auto") -> CharPoly:
    """The characteristic polynomial of ``model``'s linearisation at its equilibrium, one factor
    per mode of its symmetry.

    The family's closed form first (the founding model at any L, the symbol L and L = inf),
    else the factors of the transition table's ``det(r I - J)``.

    Parameters
    ----------
    model : Model
        The model (:func:`symdelay.build_model`, :func:`symdelay.load_toml`); its parameters
        may be numbers (made exact) or left symbolic.
    full : bool, default False
        Name the whole polynomial (the product of every factor) in ``polynomial`` rather than
        the difference mode's; a model without a difference mode names the whole one either
        way. ``factors`` lists every factor in both cases.
    method : {"auto", "generic", "specialised"}, default "auto"
        %(method)s

    Returns
    -------
    CharPoly
        ``polynomial`` (None at ``L = inf``, where ``equation`` is the characteristic
        function), its LaTeX ``tex``, ``factors`` (one
        :class:`~symdelay.analysis.charpoly.ModeFactor` per mode, with its multiplicity) and
        the family's ``closed_forms``.

    Examples
    --------
    >>> from symdelay.models import build_model
    >>> charpoly(build_model("erlang", L=2)).polynomial
    gamma**2*lam*theta + (gamma + r)**2*(mu + r)
    """
    from symdelay.analysis.entry import closed_forms, require_table, specialised

    result = specialised(model, "charpoly", method, full=full)
    if result is not None:
        return result
    require_table(model, "charpoly")
    from symdelay.core.latex import tex

    factors = mode_factors(model, functions=True)
    poly = select(factors, full)
    return CharPoly(
        poly,
        tex(poly, model.latex_names),
        factors,
        model_name=model.name,
        full=full,
        parameters=model_parameters(model),
        closed_forms=closed_forms(model, "charpoly"),
    )
