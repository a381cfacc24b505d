"""What the founding model's loose-argument conveniences share (``simulate(L=.., mu=..)``,
``fluid``, ``variance``, ``spectrum``, ``normal_form``, ``limit_cycle``, the fluid-limit
study): the model their numbers build, and the text of the rate parameters every one of
them documents (``%(rates)s`` and ``%(kappa)s`` in a docstring, filled by
:func:`founding_doc`)."""

from __future__ import annotations

from symdelay.core.errors import SymdelayInputError

__all__ = ["founding_doc", "founding_or_inflight"]

_DOC = {
    "%(rates)s": """mu : number or str, default 1
        The service rate (``> 0``), made exact.
    lam : number or str, default 1
        The arrival rate per queue (``> 0``).
    D : number or str, default 1
        The mean delay (``> 0``).""",
    "%(kappa)s": """kappa : number, str or sequence, optional
        Weights of the jobs in flight: the ``inflight`` model instead.""",
}


def founding_doc(fn):
    """Fill the shared parameter text of a convenience's docstring."""
    for key, text in _DOC.items():
        fn.__doc__ = fn.__doc__.replace(key, text)
    return fn


def founding_or_inflight(L, mu, lam, theta, D, kappa=None):
    """The founding model of the loose arguments (checked by the model itself, once), or
    with ``kappa`` the ``inflight`` model (as ``kappa=`` has always meant)."""
    from symdelay.models import build_model

    if kappa is not None:
        if isinstance(D, (list, tuple)):
            if len(D) != 1:
                raise SymdelayInputError(f"kappa= takes one delay D, got {len(D)}")
            D = D[0]
        if str(L).strip().lower() in ("inf", "oo"):
            raise SymdelayInputError(
                "kappa= needs a finite L (for L = inf see "
                "symdelay.models.inflight.kappa_star_limit)"
            )
        weights = list(kappa) if isinstance(kappa, (list, tuple)) else kappa
        return build_model("inflight", L=int(L), kappa=weights, mu=mu, lam=lam, theta=theta, D=D)
    return build_model("erlang", L=L, mu=mu, lam=lam, theta=theta, D=D)
