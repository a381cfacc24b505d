"""Limit cycles of the founding model: its exact difference system (or the full fluid
model), the harmonic-balance start, and the delay-differential limit (L = inf).

The Newton--shooting machinery, the records and the entry are
:mod:`symdelay.analysis.cycles` (any model); this module is the founding model's
specialisation of :func:`symdelay.analysis.cycles.limit_cycle` and its loose convenience.

>>> c = limit_cycle(2, 1, 1, 1, theta=10)
>>> round(c.amplitude_x, 6), round(c.period, 6), c.stable
(0.135928, 2.221752, True)
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from symdelay.analysis.cycles import (  # noqa: F401 - RTOL, shoot, _flow: read here too
    RTOL,
    CycleFamily,
    LimitCycle,
    ShootingError,
    _flow,
    _single,
    parse_theta_list,
    run_cycles,
    shoot,
)
from symdelay.core.errors import SymdelayInputError
from symdelay.core.params import INFINITE_L, as_L_or_inf
from symdelay.models.erlang.hopf._common import require_numbers
from symdelay.models.erlang.loose import founding_doc
from symdelay.models.erlang.nonlinear.fields import difference_field, model_field

__all__ = [
    "LimitCycle",
    "CycleFamily",
    "limit_cycle",
    "shoot",
    "ShootingError",
    "RTOL",
    "parse_theta_list",
]


@founding_doc
def limit_cycle(
    L=2,
    mu=1,
    lam=1,
    D=1,
    theta=10,
    *,
    system: str = "difference",
    start_fraction: float | None = None,
    max_modes: int | None = None,
) -> LimitCycle | CycleFamily:
    """The founding model's limit cycle at ``theta`` (or the family continued from
    ``theta_c``): the convenience of :func:`symdelay.limit_cycle` on
    ``build_model("erlang", L=L, mu=mu, lam=lam, D=D)``.

    Parameters
    ----------
    L : int, str or float, default 2
        The number of Erlang phases, an integer ``>= 2``, or ``"inf"`` / ``math.inf`` (the
        delay equation, by Fourier collocation).
    %(rates)s
    theta : number, str or sequence, default 10
        One value above ``theta_c`` (a :class:`~symdelay.analysis.cycles.LimitCycle`), a list
        or a range ``"start:stop:count"`` (a :class:`~symdelay.analysis.cycles.CycleFamily`).
    system, start_fraction, max_modes
        As for :func:`symdelay.limit_cycle` (``system`` default ``"difference"``).

    Returns
    -------
    LimitCycle or CycleFamily
        The cycle(s): amplitude of ``x``, period, Floquet multipliers, stability.
    """
    from symdelay.analysis.cycles import limit_cycle as entry
    from symdelay.models.erlang.family import model

    return entry(
        model(L=L, mu=mu, lam=lam, D=D),
        theta,
        system=system,
        start_fraction=start_fraction,
        max_modes=max_modes,
        method="specialised",
    )


def specialised_limit_cycle(
    model, theta, *, system=None, start_fraction: float | None = None, max_modes=None
):
    """The founding model's cycles (``system`` ``"difference"`` by default, or ``"full"``;
    L = inf: Fourier collocation of the DDE); ``None`` (the generic path) when the model
    fixes theta."""
    o = model.options
    if o["theta"] is not None:
        return None
    require_numbers(o, ("mu", "lam", "D"), "the limit cycle")
    return _founding(
        model.name,
        model.L,
        o["mu"],
        o["lam"],
        o["D"],
        theta,
        system or "difference",
        start_fraction,
        max_modes,
    )


def _founding(name, L, mu, lam, D, theta, system, start_fraction, max_modes):
    from symdelay.models.erlang.founding import FoundingModel
    from symdelay.models.erlang.nonlinear.normal_form import normal_form

    targets = parse_theta_list(theta)
    Lv = as_L_or_inf(L)
    if Lv == 1:
        raise SymdelayInputError(
            "L = 1 has no Hopf point (stable for every theta >= 0): there is no limit "
            "cycle; use L >= 2 or inf"
        )
    if system not in ("difference", "full"):
        raise SymdelayInputError(f"system must be 'difference' or 'full', got {system!r}")
    if Lv is INFINITE_L:
        from symdelay.models.erlang.nonlinear.dde_cycles import check_max_modes, dde_limit_cycle

        if system == "full":
            raise SymdelayInputError(
                "--system full is for finite L: at L = inf the cycle is the delay equation's "
                "of the difference x = q1 - q2 (leave --system out)"
            )
        if start_fraction is not None:
            raise SymdelayInputError(
                "--start-fraction is for finite L and a transition table: the delay "
                "equation's cycles (L = inf, the dde family) are found by collocation from the "
                "harmonic-balance amplitude at the smallest theta (leave it out)"
            )
        extra = {} if max_modes is None else {"max_modes": check_max_modes("max_modes", max_modes)}
        res = dde_limit_cycle(mu, lam, D, theta, **extra)
        return replace(res, model_name=name)
    if max_modes is not None:
        raise SymdelayInputError(
            f"--max-modes is for L = inf (the Fourier collocation of the delay equation): at "
            f"L = {Lv} the cycles are shot on the exact ODE system; leave it out"
        )
    nf = normal_form(Lv, mu, lam, D)
    if system == "difference":

        def make(th):
            return difference_field(Lv, nf.mu, nf.lam, nf.D, th)

        method = "Newton-shooting on the difference system (DOP853 variational equations)"
    else:
        from symdelay.models import build_model

        full_model = build_model("erlang", L=Lv, mu=nf.mu, lam=nf.lam, D=nf.D)

        def make(th):
            return model_field(full_model, th)

        method = "Newton-shooting on the full fluid model (DOP853 variational equations)"
    return run_cycles(
        nf,
        make,
        targets,
        _single(theta),
        method,
        Lv,
        start_fraction,
        name,
        # a start_fraction given asks for the march from the normal form there
        direct=_harmonic_balance_start if start_fraction is None else None,
        at=lambda text: FoundingModel(L=Lv, mu=nf.mu, lam=nf.lam, theta=text, D=nf.D),
    )


def _harmonic_balance_start(nf, make, th_c, theta):
    """``(theta, y0, T)`` at ``theta`` itself: the critical eigenvector scaled to the
    harmonic-balance amplitude (:func:`.normal_form.describing_function_amplitude`, which
    holds from theta_c to the relay limit), period ``2 pi / omega_c``."""
    from symdelay.models.erlang.nonlinear.normal_form import describing_function_amplitude

    fld = make(th_c)
    ev, V = np.linalg.eig(fld.jac(fld.equilibrium))
    k = int(np.argmin(np.abs(ev - 1j * float(nf.omega))))
    q = V[:, k] / (fld.weights @ V[:, k])
    amp = float(describing_function_amplitude([theta], th_c)[0])
    return theta, fld.equilibrium + amp * np.imag(q), 2 * np.pi / float(nf.omega)
