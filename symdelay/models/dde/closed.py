"""The founding ``L = inf`` closed forms as specialisations of the constant-lag model.

Two equal queues routed by the logit of the lengths seen ``D`` ago
(:class:`~symdelay.models.dde.build.FoundingLimitModel`) are the founding model's
``L -> oo`` limit: the difference mode ``r + mu + lam theta exp(-r D)`` has Hayes' region,
the Hopf delays ``D_n = (acos(-mu/(lam theta)) + 2 pi n)/sqrt((lam theta)^2 - mu^2)``
(Pender, Rand & Wesson's critical delay is ``D_0``), its roots on the Lambert-W branches and
the worst delay (an infimum, as ``D -> oo``). The functions here are the model's
``SPECIALISATIONS`` and ``CLOSED_FORMS``: each reads the founding model's ``L = inf`` path
(:mod:`symdelay.models.erlang`) for this model's numbers and returns the entry's own record,
shown as this model's (its name, options and mode functions), so that ``method="specialised"``
and ``method="generic"`` (the lag core: certified counts, switches, crossings) give the same
record; ``tests/test_dde_family.py`` compares them.

>>> from symdelay.models import build_model
>>> from symdelay.analysis.critical import critical
>>> c = critical(build_model("dde", mu=1, lam=1, theta=2), "D", dps=20)
>>> c.method, c.to_json()["points"][0]["D_c"]
('specialised', '1.2091995761561452337')
"""

from __future__ import annotations

import dataclasses

import mpmath

from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp

__all__ = [
    "founding_limit",
    "specialised_critical",
    "specialised_stability",
    "specialised_roots",
    "specialised_worst_delay",
    "specialised_limit_cycle",
    "critical_closed_forms",
    "stability_closed_forms",
    "worst_delay_closed_forms",
]

_NAMES = ("mu", "lam", "theta", "D")


def founding_limit(model):
    """The founding model at ``L = inf`` with this model's numbers (None where free)."""
    from symdelay.core.symbols import SYMBOLS
    from symdelay.models.erlang.founding import FoundingModel

    v = model.values
    return FoundingModel(L="inf", **{n: v.get(SYMBOLS[n]) for n in _NAMES})


def _numbers(model, names, what: str) -> dict:
    from symdelay.core.symbols import SYMBOLS

    got = {n: model.values.get(SYMBOLS[n]) for n in names}
    missing = [n for n, v in got.items() if v is None]
    if missing:
        raise SymdelayInputError(f"{what} needs numbers for " + ", ".join(missing) + ": give them")
    return got


# ---------------------------------------------------------------- critical
def specialised_critical(model, param="theta", over="D", at=None, dps=15, float64=False):
    """The critical ``theta`` over ``D`` (the founding ``L = inf`` Hopf phase, Newton in
    mpmath at ``dps`` + guard digits) or the critical lag ``D`` (Pender, Rand & Wesson's
    ``acos(-mu/(lam theta))/sqrt((lam theta)^2 - mu^2)``, inf when ``lam theta <= mu``:
    no root reaches the axis, equality included); None (the generic path) otherwise."""
    from symdelay.analysis.critical import _factors_shown, critical_record
    from symdelay.models.erlang.hopf.curve import specialised_critical as founding

    if param == "D" and at is None:
        return _critical_delay(model, dps)
    if param != "theta" or over != "D":
        return None
    rec = founding(founding_limit(model), param, over, at, dps, float64)
    if rec is None:
        return None
    return critical_record(
        model, param, over, rec.points, rec.dps, "specialised", _factors_shown(model, param)
    )


def _critical_delay(model, dps):
    from symdelay.analysis.critical import CriticalPoint, _factors_shown, critical_record
    from symdelay.core.params import as_dps

    dps = as_dps(dps)
    if model.values.get(sp.Symbol("D")) is not None:
        raise SymdelayInputError(f"D has a value ({model.values[sp.Symbol('D')]}): leave it free")
    o = _numbers(model, ("mu", "lam", "theta"), "the critical D")
    with mpmath.workdps(dps + 10):
        mu = mpmath.mpf(o["mu"].p) / o["mu"].q
        k = mpmath.mpf((o["lam"] * o["theta"]).p) / (o["lam"] * o["theta"]).q
        if k <= mu:  # Hayes: stable for every D (no root on the axis at k = mu either)
            note = "lam*theta <= mu: no root reaches the axis for any D (Hayes; delay-independent)"
            point = CriticalPoint(None, mpmath.inf, None, None, (), note, param="D", over="D")
        else:
            w = mpmath.sqrt(k**2 - mu**2)
            note = (
                "Hayes: each D_n = (acos(-mu/(lam theta)) + 2 pi n)/omega is a pair crossing to "
                "the right; unstable for every D > D_0"
            )
            Dc = mpmath.acos(-mu / k) / w
            point = CriticalPoint(None, Dc, w, None, (), note, param="D", over="D")
    return critical_record(
        model, "D", "D", (point,), dps, "specialised", _factors_shown(model, "D")
    )


def critical_closed_forms(model) -> dict:
    """The critical delay and frequency in ``mu, lam, theta`` (this model's numbers put in),
    and the founding family's ``L = inf`` forms of the critical theta (None: transcendental)."""
    from symdelay.models.erlang.hopf.curve import critical_closed_forms as founding
    from symdelay.models.erlang.stability import infinite_L_closed_forms

    forms = dict(founding(founding_limit(model)))
    inf = infinite_L_closed_forms()
    at = dict(model.values)
    for key in ("critical_delay", "hopf_frequency"):
        forms[key] = inf[key].xreplace(at)
    return forms


# ---------------------------------------------------------------- stability
def specialised_stability(model, force=None, dps=20):
    """Hayes' region in certified intervals (the founding ``L = inf`` verdict: ``D`` against
    the Hopf delays ``D_n``) at numbers; the closed-form conditions with parameters free."""
    from symdelay.analysis.charpoly import mode_factors, model_parameters
    from symdelay.models.erlang.stability import specialised_stability as founding

    rec = founding(founding_limit(model), force=force, dps=dps)
    # theta >= 0 here (the founding conditions allow a negative theta): what the domains
    # already decide goes
    domain = {p: sp.Dummy(p.name, positive=True) for p in model.parameters}
    domain.update(
        {
            p: sp.Dummy(p.name, nonnegative=True)
            for p, d in model.domains.items()
            if d == "nonnegative"
        }
    )
    conditions = tuple(c for c in rec.conditions if c.xreplace(domain) is not sp.true)
    return dataclasses.replace(
        rec,
        conditions=conditions,
        factors=tuple(mode_factors(model, functions=True)),
        parameters=model_parameters(model),
        model_name=model.name,
    )


def stability_closed_forms(model, force=None) -> dict:
    """The founding family's ``L = inf`` closed forms (characteristic function, critical
    delay, Hopf frequency, oscillation condition)."""
    from symdelay.models.erlang.stability import stability_closed_forms as founding

    return founding(founding_limit(model), force=force)


# ---------------------------------------------------------------- roots
def specialised_roots(model, dps=30, rightmost=None, branches=None, force=None):
    """Every root on the Lambert-W branches of ``r + mu + lam theta e^{-rD}`` (certified
    by the founding path) and the sum mode's ``-mu``."""
    from symdelay.analysis.charpoly import mode_factors, model_parameters
    from symdelay.models.erlang.roots.solve import specialised_roots as founding

    rec = founding(founding_limit(model), dps, rightmost, branches, force)
    return dataclasses.replace(
        rec,
        factors=tuple(mode_factors(model, functions=True)),
        parameters=model_parameters(model),
        model_name=model.name,
    )


# ---------------------------------------------------------------- worst delay
def specialised_worst_delay(
    model, over="D", *, param="theta", lo=None, hi=None, dps=15, force=False
):
    """The worst delay over ``D``: the infimum ``theta* = mu/lam`` approached as ``D -> oo``
    (the founding ``L = inf`` closed form); None for a range or another parameter."""
    from symdelay.models.erlang.hopf.worst import specialised_worst_delay as founding

    rec = founding(founding_limit(model), over, param=param, lo=lo, hi=hi, dps=dps, force=force)
    return None if rec is None else dataclasses.replace(rec, model_name=model.name)


def worst_delay_closed_forms(model) -> dict:
    """``D_star = oo`` and ``theta_star = mu/lam`` (an infimum)."""
    from symdelay.models.erlang.hopf.worst import worst_delay_closed_forms as founding

    return founding(founding_limit(model))


# ---------------------------------------------------------------- limit cycle
def specialised_limit_cycle(model, theta, *, system=None, start_fraction=None, max_modes=None):
    """The periodic orbits beyond the Hopf point by Fourier collocation of the DDE (the
    founding ``L = inf`` path); None (the generic path, which refuses a delay model) when
    the model fixes theta."""
    from symdelay.core.symbols import SYMBOLS
    from symdelay.models.erlang.nonlinear.cycles import _founding

    if model.values.get(SYMBOLS["theta"]) is not None:
        return None
    o = _numbers(model, ("mu", "lam", "D"), "the limit cycle")
    return _founding(
        model.name,
        "inf",
        o["mu"],
        o["lam"],
        o["D"],
        theta,
        system or "difference",
        start_fraction,
        max_modes,
    )
