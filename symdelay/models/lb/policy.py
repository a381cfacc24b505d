"""The LB(xi, c, d) system: stations, the sampling law xi, the weights c and d, checked at the door.

Definitions (docs/lb.md states them in full):

* station ``j`` has ``N_j`` exponential servers of rate ``mu_j`` and its own FCFS queue;
  ``X_j`` is the number of customers at station ``j`` (in service and waiting);
* an arrival samples ``xi`` stations uniformly without replacement (``xi`` drawn from its law);
* if every sampled station is full (``X_j >= N_j``) it joins the sampled station with the
  least ``c_j (X_j - N_j + 1) / (N_j mu_j)`` (``c``-weighted expected delay);
* otherwise it joins, among the sampled stations with an idle server, the one with the largest
  ``d_j (N_j - X_j) / N_j`` (``d``-weighted idleness ratio); ties are broken uniformly.

Every number is exact (SymPy ``Rational``) once it has passed the door.

>>> p = LBPolicy.from_text("N=50,mu=1;N=100,mu=0.5", xi="2")
>>> p.J, p.n, p.capacity
(2, 150, 100)
>>> p.choice_probabilities(0)  # the best-ranked station of two, xi = 2
1
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.core.params import exact_number
from symdelay.core.result import Result

__all__ = [
    "Station",
    "LBPolicy",
    "parse_stations",
    "parse_xi",
    "parse_weights",
    "as_rational",
]


def as_rational(name: str, value, *, positive: bool = True) -> sp.Rational:
    """``value`` (int, float, decimal text or fraction text) as an exact Rational."""
    if isinstance(value, bool):
        raise SymdelayInputError(f"{name} must be a number, got {value!r}")
    if isinstance(value, sp.Basic) and not value.is_Rational and not isinstance(value, sp.Float):
        raise SymdelayInputError(
            f"{name} must be a rational number, got {value} (round it explicitly)"
        )
    out = exact_number(name, value)
    if not isinstance(out, sp.Rational):
        raise SymdelayInputError(f"{name} must be a rational number, got {value!r}")
    if positive and not out > 0:
        raise SymdelayInputError(f"{name} must be positive, got {value}")
    return out


@dataclass(frozen=True)
class Station(Result):
    """``N`` servers of rate ``mu`` (exact)."""

    N: int
    mu: sp.Rational


def parse_stations(text) -> tuple[Station, ...]:
    """``"N=50,mu=1;N=100,mu=0.5"`` (or a list of ``(N, mu)``) as stations.

    >>> parse_stations("N=2,mu=1/2;N=3,mu=1")
    (Station(N=2, mu=1/2), Station(N=3, mu=1))
    """
    if isinstance(text, str):
        items = [s.strip() for s in text.split(";") if s.strip()]
        pairs = []
        for k, item in enumerate(items, 1):
            fields = {}
            for part in item.split(","):
                key, sep, val = part.partition("=")
                if not sep or key.strip() not in ("N", "mu"):
                    raise SymdelayInputError(
                        f"station {k}: '{item}' is not 'N=<servers>,mu=<rate>' "
                        "(stations separated by ';')"
                    )
                fields[key.strip()] = val.strip()
            if set(fields) != {"N", "mu"}:
                raise SymdelayInputError(f"station {k}: give both N and mu ('N=50,mu=1')")
            pairs.append((fields["N"], fields["mu"]))
    else:
        pairs = [(s.N, s.mu) if isinstance(s, Station) else tuple(s) for s in text]
    out = []
    for k, (N, mu) in enumerate(pairs, 1):
        try:
            Nr = sp.Rational(str(N))
        except (TypeError, ValueError, SyntaxError):
            Nr = None
        if Nr is None or not Nr.is_integer or Nr < 1:
            raise SymdelayInputError(
                f"station {k}: N must be a whole number of servers >= 1, got {N!r}"
            )
        out.append(Station(int(Nr), as_rational(f"station {k}: mu", mu)))
    if len(out) < 2:
        raise SymdelayInputError(
            "give at least two stations ('N=50,mu=1;N=100,mu=0.5'): routing needs a choice"
        )
    return tuple(out)


def parse_xi(xi=None, xi_dist=None, J: int | None = None) -> dict:
    """The law of xi as ``{k: P(xi = k)}`` (exact): ``xi`` fixed, or ``"2:0.5,3:0.5"``.

    >>> parse_xi(xi_dist="2:1/2,3:1/2", J=3)
    {2: 1/2, 3: 1/2}
    """
    if (xi is None) == (xi_dist is None):
        raise SymdelayInputError("give the sampling as --xi K or --xi-dist K:P,K:P (one of them)")
    if xi_dist is None:
        law = {xi: 1}
    elif isinstance(xi_dist, dict):
        law = dict(xi_dist)
    else:
        law = {}
        for part in str(xi_dist).split(","):
            k, sep, pr = part.partition(":")
            if not sep:
                raise SymdelayInputError(
                    f"--xi-dist entry '{part.strip()}' is not K:P (e.g. 2:0.5,3:0.5)"
                )
            law[k.strip()] = pr.strip()
    out: dict = {}
    for k, pr in law.items():
        try:
            kr = sp.Rational(str(k))
        except (TypeError, ValueError, SyntaxError):
            kr = None
        if kr is None or not kr.is_integer or kr < 1:
            raise SymdelayInputError(f"xi takes whole values >= 1, got {k!r}")
        if J is not None and kr > J:
            raise SymdelayInputError(
                f"xi = {kr} exceeds the number of stations J = {J}: sample at most J"
            )
        p = as_rational(f"P(xi = {kr})", pr, positive=False)
        if p < 0:
            raise SymdelayInputError(f"P(xi = {kr}) must be >= 0, got {pr}")
        out[int(kr)] = out.get(int(kr), 0) + p
    total = sum(out.values())
    if total != 1:
        raise SymdelayInputError(f"the probabilities of xi sum to {total}, not 1")
    if sum(p for k, p in out.items() if k >= 2) == 0:
        raise SymdelayInputError(
            "P(xi >= 2) = 0: LB(xi, c, d) needs samples of two or more stations"
        )
    return {k: sp.Rational(out[k]) for k in sorted(out) if out[k] != 0}


def parse_weights(text, J: int, name: str) -> tuple:
    """``"1,2"`` (or a sequence) as ``J`` positive exact weights; ``None`` gives ones."""
    if text is None:
        return (sp.Integer(1),) * J
    items = [s.strip() for s in text.split(",")] if isinstance(text, str) else list(text)
    if len(items) != J:
        raise SymdelayInputError(f"--{name} needs {J} weights (one per station), got {len(items)}")
    return tuple(as_rational(f"{name}_{j + 1}", v) for j, v in enumerate(items))


@dataclass(frozen=True)
class LBPolicy(Result):
    """Stations, the law of xi and the weights of LB(xi, c, d) (all exact, checked)."""

    stations: tuple
    xi: dict
    c: tuple
    d: tuple

    def __post_init__(self):
        J = len(self.stations)
        for name in ("c", "d"):
            w = getattr(self, name)
            if len(w) != J or not all(isinstance(v, sp.Rational) and v > 0 for v in w):
                raise SymdelayInputError(f"{name} needs {J} positive weights")
        if any(k > J for k in self.xi):
            raise SymdelayInputError(f"xi exceeds the number of stations J = {J}")

    @classmethod
    def from_text(cls, stations, xi=None, xi_dist=None, c=None, d=None) -> LBPolicy:
        """From the command-line strings (or Python values): see the module docstring."""
        st = parse_stations(stations)
        J = len(st)
        law = parse_xi(xi if xi is not None or xi_dist is not None else J, xi_dist, J)
        return cls(st, law, parse_weights(c, J, "c"), parse_weights(d, J, "d"))

    def replace(self, **changes) -> LBPolicy:
        kw = {"stations": self.stations, "xi": self.xi, "c": self.c, "d": self.d}
        for k, v in changes.items():
            if k in ("c", "d"):
                v = parse_weights(v, self.J, k)
            kw[k] = v
        return LBPolicy(**kw)

    # ---------------------------------------------------------------- sizes
    @property
    def J(self) -> int:
        return len(self.stations)

    @property
    def n(self) -> int:
        """Total number of servers ``sum_j N_j`` (the scale)."""
        return sum(s.N for s in self.stations)

    @property
    def shares(self) -> tuple:
        """Server shares ``w_j = N_j / n``."""
        n = self.n  # once: O(J), not O(J^2)
        return tuple(sp.Rational(s.N, n) for s in self.stations)

    @property
    def capacity(self) -> sp.Rational:
        """``sum_j N_j mu_j``."""
        return sum((s.N * s.mu for s in self.stations), sp.Integer(0))

    @property
    def mean_rate(self) -> sp.Rational:
        """``mu_bar = sum_j w_j mu_j`` (capacity per server)."""
        return self.capacity / self.n

    @property
    def capacity_shares(self) -> tuple:
        """``nu_j = N_j mu_j / sum_i N_i mu_i``: the share of arrivals station j must take."""
        cap = self.capacity
        return tuple(s.N * s.mu / cap for s in self.stations)

    # ---------------------------------------------------------------- sampling
    def reach(self, k: int) -> sp.Rational:
        """``P(sample meets S)`` for any set S of ``k`` stations: ``1 - E[C(J-k, xi)/C(J, xi)]``."""
        J = self.J
        return 1 - sum(
            (p * sp.Rational(math.comb(J - k, x), math.comb(J, x)) for x, p in self.xi.items()),
            sp.Integer(0),
        )

    def choice_probabilities(self, rank: int) -> sp.Rational:
        """P(the station ranked ``rank`` (0 = most preferred) of all J is chosen), no ties.

        It is chosen iff it is sampled and no better-ranked station is:
        ``sum_k P(xi = k) C(J - 1 - rank, k - 1) / C(J, k)``.
        """
        J = self.J
        return sum(
            (
                p * sp.Rational(math.comb(J - 1 - rank, x - 1), math.comb(J, x))
                for x, p in self.xi.items()
            ),
            sp.Integer(0),
        )

    def rank_probabilities(self) -> tuple:
        """``(p_0, ..., p_{J-1})`` of :meth:`choice_probabilities` (they sum to 1)."""
        return tuple(self.choice_probabilities(k) for k in range(self.J))

    def balance_margin(self, targets=None) -> sp.Rational:
        """``min_S [reach(|S|) - sum_{j in S} target_j]`` over proper subsets S.

        Positive iff the routing shares ``targets`` (default: the capacity shares) lie inside
        the set of shares the sampling can produce while the stations are tied, i.e. iff the
        balancing (state-space collapse) can hold. For uniform sampling only ``|S|`` matters,
        so the worst S of each size holds the largest targets.
        """
        t = sorted(self.capacity_shares if targets is None else targets, reverse=True)
        prefix = list(itertools.accumulate(t))  # sum of the k largest: O(J), not O(J^2)
        return min(self.reach(k) - prefix[k - 1] for k in range(1, self.J))

    def require_balance(self) -> None:
        """Refuse sampling too weak to balance the stations (the collapse would not hold)."""
        if not self.balance_margin() > 0:
            raise SymdelayInputError(
                "the sampling cannot balance these stations: some set of stations must take "
                "more arrivals than the samples that meet it; sample more stations (raise xi)"
            )

    # ---------------------------------------------------------------- display
    def describe(self) -> str:
        st = "; ".join(f"N={s.N},mu={s.mu}" for s in self.stations)
        xi = ",".join(f"{k}:{p}" for k, p in self.xi.items())
        c = ",".join(str(v) for v in self.c)
        d = ",".join(str(v) for v in self.d)
        return f"stations {st}; xi {xi}; c {c}; d {d}"

    def record(self) -> dict:
        return {
            "stations": [{"N": s.N, "mu": str(s.mu)} for s in self.stations],
            "xi": {str(k): str(p) for k, p in self.xi.items()},
            "c": [str(v) for v in self.c],
            "d": [str(v) for v in self.d],
        }
