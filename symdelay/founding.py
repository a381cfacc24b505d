"""Conveniences of the founding model (and of the in-flight model): loose arguments instead
of a model.

Each function here takes the founding model's numbers (``L, mu, lam, theta, D``; with
``kappa``, the weights of the jobs in flight, the ``inflight`` model's) instead of a model,
builds the model (``build_model("erlang", ...)`` or ``build_model("inflight", ...)``) and
calls the one entry of its quantity at the top level of :mod:`symdelay`, which answers the
same for any model and returns the same record:

* :func:`characteristic_polynomial` -- :func:`symdelay.charpoly` (the polynomial itself);
* :func:`stability_conditions` -- :func:`symdelay.stability` with every parameter symbolic;
* :func:`characteristic_roots` -- :func:`symdelay.roots` (the difference mode's roots);
* :func:`critical_theta` -- :func:`symdelay.critical` over ``D``;
* :func:`instability_window` -- :func:`symdelay.window` in ``D``;
* :func:`worst_delay` -- :func:`symdelay.worst_delay`;
* :func:`simulate`, :func:`fluid`, :func:`variance`, :func:`spectrum`,
  :func:`normal_form`, :func:`limit_cycle`, :func:`verify` -- the entries of the same
  names;
* :func:`kappa_star`, :func:`unstable_theta` -- :func:`symdelay.extremum` and
  :func:`symdelay.window` of the in-flight model; :func:`optimize_weights` searches its
  weights.

:class:`ActionDelayModel` and the derivation functions (:func:`derive_characteristic_equation`
and the others) are the founding model's symbolic-L view and its derivation step by step,
which the documents in ``derivations/`` print; :func:`fluid_limit_study` measures the
``eta^(-1/2)`` rate of the simulation's approach to the fluid limit.

>>> from symdelay import founding
>>> founding.critical_theta(2, 1, 1, [2], dps=20).points[0].theta_c
mpf('8.0')
"""

from symdelay.core.lazy import exports as _exports

#: public name -> the module that defines it (imported when the name is first asked for)
_PUBLIC = {
    # the founding model's symbolic-L view and its derivation
    "ActionDelayModel": "symdelay.models.erlang.action_delay",
    "characteristic_polynomial": "symdelay.models.erlang.charpoly",
    "derive_characteristic_equation": "symdelay.models.erlang.charpoly",
    "delayed_information_equation": "symdelay.models.erlang.charpoly",
    "erlang_information_equation": "symdelay.models.erlang.charpoly",
    "infinite_L_limit": "symdelay.models.erlang.charpoly",
    "special_case": "symdelay.models.erlang.charpoly",
    "eigenvector": "symdelay.models.erlang.charpoly",
    "verify_difference_determinant": "symdelay.models.erlang.charpoly",
    "verify_full_factorisation": "symdelay.models.erlang.charpoly",
    # loose-argument conveniences that build the model and call the entry
    "stability_conditions": "symdelay.models.erlang.stability",
    "characteristic_roots": "symdelay.models.erlang.roots.solve",
    "critical_theta": "symdelay.models.erlang.hopf.curve",
    "instability_window": "symdelay.models.erlang.hopf.window",
    "worst_delay": "symdelay.models.erlang.hopf.worst",
    "simulate": "symdelay.models.erlang.stochastic.simulate",
    "fluid": "symdelay.models.erlang.stochastic.fluid",
    "variance": "symdelay.models.erlang.stochastic.variance",
    "fluid_limit_study": "symdelay.models.erlang.stochastic.convergence",
    "spectrum": "symdelay.models.erlang.nonlinear.spectrum",
    "normal_form": "symdelay.models.erlang.nonlinear.normal_form",
    "limit_cycle": "symdelay.models.erlang.nonlinear.cycles",
    "verify": "symdelay.models.erlang.claims",
    # the in-flight model
    "kappa_star": "symdelay.models.inflight.curve",
    "unstable_theta": "symdelay.models.inflight.curve",
    "optimize_weights": "symdelay.models.inflight.criteria",
}

__all__ = list(_PUBLIC)

__getattr__, _ = _exports(globals(), _PUBLIC)


def __dir__():
    return sorted(__all__)
