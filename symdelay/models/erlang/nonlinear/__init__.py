"""Beyond the linearisation: the Hopf normal form, limit cycles of the fluid model, and the
spectrum of the stochastic oscillation.

* :func:`normal_form` — first Lyapunov coefficient ``l1`` of the exact (``tanh``)
  difference system at ``theta_c`` for every L, ``L = inf`` and any model of the model
  layer; closed forms for ``L = 2, 3`` (:func:`symbolic_normal_form`); the amplitude law
  ``A ~ 4 theta_c^(-3/2) sqrt(theta - theta_c)``; always supercritical (see
  :mod:`.normal_form` for the structural reason).
* :func:`limit_cycle` — periodic orbits by Newton--shooting (finite L, difference or full
  fluid model, any model) or Fourier collocation (the DDE), Floquet multipliers,
  continuation in theta.
* :func:`spectrum` — the linear-noise power spectrum of the imbalance below ``theta_c``,
  its peak and quality factor; closed form for ``L = 1, 2``.
"""

from symdelay.models.erlang.nonlinear.cycles import (
    CycleFamily,
    LimitCycle,
    ShootingError,
    limit_cycle,
)
from symdelay.models.erlang.nonlinear.dde_cycles import dde_limit_cycle
from symdelay.models.erlang.nonlinear.fields import VectorField, difference_field, model_field
from symdelay.models.erlang.nonlinear.normal_form import (
    NormalForm,
    describing_function_amplitude,
    normal_form,
)
from symdelay.models.erlang.nonlinear.spectrum import (
    periodogram,
    spectrum,
    spectrum_closed_form,
)
from symdelay.models.erlang.nonlinear.symbolic import (
    SymbolicNormalForm,
    describing_function_series,
    symbolic_normal_form,
)

__all__ = [
    "NormalForm",
    "normal_form",
    "describing_function_amplitude",
    "SymbolicNormalForm",
    "symbolic_normal_form",
    "describing_function_series",
    "LimitCycle",
    "CycleFamily",
    "ShootingError",
    "limit_cycle",
    "dde_limit_cycle",
    "VectorField",
    "difference_field",
    "model_field",
    "spectrum",
    "spectrum_closed_form",
    "periodogram",
]
