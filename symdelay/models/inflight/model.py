"""The in-flight model as a model object: :class:`InflightModel` (options checked once, its
fast paths named in ``SPECIALISATIONS``, its transition table built on first use).

Kept apart from :mod:`symdelay.models.inflight.family`, which the command line reads for the
options alone: this module imports the model layer (SymPy).

The weights of the jobs in flight are ``kappa * pattern``: ``kappa`` one number (or the text
``"kappa"``: a free parameter, ``kappa >= 0``, as the kappa* extremum varies it), or one
number per phase (then ``pattern`` is ``all``); ``pattern`` a named observation pattern or
one number per phase (:func:`observation_pattern`).

>>> m = InflightModel(L=3, kappa="0.05", pattern="last", mu=1)
>>> m.options["kappa"], m.options["pattern"], m.weights
(1/20, (0, 0, 1), (0, 0, 1/20))
>>> InflightModel(L=2, kappa="kappa", mu=1, lam=1, D=1).free_parameters
(theta, kappa)
"""

from __future__ import annotations

from typing import ClassVar

from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.core.params import as_parameter
from symdelay.model.core import Model, NoTable, TableOnDemand

__all__ = ["InflightModel", "KAPPA", "NoTable", "PATTERNS", "observation_pattern"]

_S = "symdelay.models.inflight.curve:"

#: the in-flight weight as a free parameter of the transition table
KAPPA = sp.Symbol("kappa")


#: Named observation patterns (which delay phases the dispatcher sees).
PATTERNS = ("all", "first", "last", "first-half", "last-half")


def observation_pattern(name_or_list, L: int) -> tuple:
    """Per-phase indicator ``e`` (rationals): a name in :data:`PATTERNS` or ``L`` numbers."""
    if isinstance(name_or_list, str):
        name = name_or_list.strip().lower()
        half = max(L // 2, 1)
        table = {
            "all": [1] * L,
            "first": [1] + [0] * (L - 1),
            "last": [0] * (L - 1) + [1],
            "first-half": [1] * half + [0] * (L - half),
            "last-half": [0] * (L - half) + [1] * half,
        }
        if name not in table:
            raise SymdelayInputError(
                f"unknown observation pattern '{name_or_list}': use one of {', '.join(PATTERNS)} "
                "or one weight per phase"
            )
        return tuple(sp.Integer(v) for v in table[name])
    vals = [as_parameter("kappa", v, positive=False) for v in name_or_list]
    if len(vals) != L:
        raise SymdelayInputError(f"give one weight per delay phase ({L}), got {len(vals)}")
    if any(not v.is_Rational for v in vals):
        raise SymdelayInputError("per-phase weights must be numbers")
    if any(v < 0 for v in vals) or all(v == 0 for v in vals):
        raise SymdelayInputError("per-phase weights must be >= 0 and not all zero")
    return tuple(vals)


def _kappa(value):
    """One weight (exact, >= 0), or ``KAPPA`` for ``"kappa"`` (a free parameter)."""
    if (isinstance(value, sp.Symbol) and value == KAPPA) or (
        isinstance(value, str) and value.strip() == "kappa"
    ):
        return KAPPA
    v = as_parameter("kappa", value, positive=False)
    if not v.is_Rational:
        raise SymdelayInputError(
            f"kappa must be a number (a weight of the jobs in flight), got {value}"
        )
    if v < 0:
        raise SymdelayInputError(
            f"kappa must be >= 0 (a weight of the jobs in flight), got {value}"
        )
    return v


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


class InflightModel(TableOnDemand):
    """Two queues, logit routing on ``q_i + sum_l kappa_l z_{i,l}``, Erlang(L, mean D) delay,
    with checked options ``L, mu, lam, theta, D, kappa, pattern`` (exact; ``None``: symbolic).
    It is a :class:`~symdelay.model.Model`: the transition table's attributes (``states``,
    ``factors``, ...) are built on first use. ``L`` may be ``inf`` (the delayed-information
    model counting the jobs sent in the last ``D``), which has no table.

    ``options["kappa"]``: one rational, ``KAPPA`` (free), or a tuple of L rationals (one per
    phase; ``pattern`` is then all ones); ``options["pattern"]``: a tuple of L rationals
    (``("all",)`` for L = inf). ``weights``: ``kappa * pattern`` per phase."""

    SPECIALISATIONS: ClassVar[dict] = {
        "window": _S + "specialised_window",
        "extremum": _S + "specialised_extremum",
    }
    #: quantity -> the family's closed forms, attached by both paths of the entry
    CLOSED_FORMS: ClassVar[dict] = {"kappa_star": _S + "kappa_star_closed_forms"}

    _OWN = ("L", "infinite", "options", "name", "weights")

    def __init__(self, L=2, mu=None, lam=None, theta=None, D=None, kappa=1, pattern=None):
        from symdelay.core.params import as_L_or_inf, is_infinite_L

        L = as_L_or_inf(L)
        self.L = L
        self.infinite = is_infinite_L(L)
        if kappa is None:
            raise SymdelayInputError(
                "give kappa, the weight of jobs in flight (e.g. 1, or 1,0.5; 'kappa' leaves it free)"
            )
        if isinstance(kappa, str) and "," in kappa:
            kappa = [k.strip() for k in kappa.split(",")]
        if isinstance(pattern, str) and ("," in pattern or _is_number(pattern)):
            pattern = [e.strip() for e in pattern.split(",")]  # one weight per phase
        named_all = (
            pattern is None
            or tuple(pattern) == ("all",)
            or (isinstance(pattern, str) and pattern.strip().lower() == "all")
        )
        if isinstance(kappa, (list, tuple)):
            kap = tuple(_kappa(k) for k in kappa)
            if any(k == KAPPA for k in kap):
                raise SymdelayInputError("a free kappa is one weight for the pattern, not a list")
            if not named_all and not all(e == 1 for e in observation_pattern(pattern, len(kap))):
                raise SymdelayInputError(
                    "give the per-phase weights once: as kappa (one per phase) or as the "
                    "pattern multiplying one kappa, not both"
                )
            if self.infinite or len(kap) != L:
                raise SymdelayInputError(
                    f"kappa needs one weight per delay phase ({L}), got {len(kap)}"
                )
            pat = tuple(sp.Integer(1) for _ in kap)
        else:
            kap = _kappa(kappa)
            if self.infinite:
                if not named_all:
                    raise SymdelayInputError(
                        "L = inf observes the whole delay: give pattern all (or leave it out)"
                    )
                pat = ("all",)
            else:
                pat = observation_pattern("all" if named_all else pattern, L)
        opts = {
            "mu": as_parameter("mu", mu) if mu is not None else None,
            "lam": as_parameter("lam", lam) if lam is not None else None,
            "theta": as_parameter("theta", theta, positive=False) if theta is not None else None,
            "D": as_parameter("D", D) if D is not None else None,
        }
        #: the checked options (exact numbers, None where not given)
        self.options = {"L": L, **opts, "kappa": kap, "pattern": pat}
        if self.infinite:
            self.weights = None
        elif isinstance(kap, tuple):
            self.weights = kap
        else:
            self.weights = tuple(kap * e for e in pat)
        shown = "inf" if self.infinite else L
        self.name = f"two queues, routing on jobs in service and in flight, Erlang({shown}) delay"

    def _no_table(self, name: str) -> str | None:
        if not self.__dict__.get("infinite"):
            return None
        return (
            f"{self.__dict__.get('name', 'the in-flight model')}: L = inf is the "
            f"delayed-information limit, which has no transition table ({name}); its "
            "analysis is the closed form kappa* = 1/2 (kappa-star)"
        )

    def _table(self) -> Model:
        from symdelay.models.delayed_routing import two_queue_erlang

        return two_queue_erlang(self.L, self.options, self.name, kappa=list(self.weights))
