"""Routing that counts jobs in flight: the dispatcher observes ``q_i + sum_l kappa_l z_{i,l}``.

* :mod:`.model` — :class:`InflightModel`, the model object (options, fast paths by name);
* :mod:`.charpoly` — the difference-mode characteristic equation for symbolic L and weights;
* :mod:`.curve` — the exact crossing curve: :func:`kappa_star`, :func:`unstable_theta` (the
  specialisations behind the ``extremum`` and ``window`` entries);
* :mod:`.criteria` — decay rate, tolerance time, variance; :func:`optimize_weights`;
* :mod:`.partial` — partial observation of the delay.
"""

from symdelay.core.lazy import exports

#: public name -> the module that defines it (imported when first asked for)
_PUBLIC = {
    "derive_inflight_equation": "symdelay.models.inflight.charpoly",
    "inflight_limit": "symdelay.models.inflight.charpoly",
    "inflight_polynomial": "symdelay.models.inflight.charpoly",
    "CRITERIA": "symdelay.models.inflight.criteria",
    "InflightModel": "symdelay.models.inflight.model",
    "optimize_weights": "symdelay.models.inflight.criteria",
    "kappa_star": "symdelay.models.inflight.curve",
    "kappa_star_limit": "symdelay.models.inflight.curve",
    "unstable_theta": "symdelay.models.inflight.curve",
    "observation_table": "symdelay.models.inflight.partial",
    "thinned_model": "symdelay.models.inflight.partial",
}

__all__ = sorted(_PUBLIC)

__getattr__, __dir__ = exports(globals(), _PUBLIC)
