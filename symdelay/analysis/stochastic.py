"""The stochastic system of any model: the exact simulator generated from its transition
table, and the linear-noise (LNA) stationary covariance at its equilibrium.

Both read what the model already holds (states, transitions, parameter values,
equilibrium); the generated kernel is cached on the model (:func:`symdelay.analysis.simulate.generated_kernel`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from symdelay.analysis.roots import default_initial, require_values
from symdelay.analysis.simulate import generated_kernel
from symdelay.analysis.stability import is_stable
from symdelay.core.errors import SymdelayInputError

__all__ = ["ModelSimulation", "model_simulate", "model_variance", "difference_weights"]


@dataclass
class ModelSimulation:
    """Scaled paths ``paths[k, j, i]``: replication k, time ``grid[j]``, state i."""

    model_name: str
    states: tuple
    eta: int
    grid: np.ndarray
    paths: np.ndarray
    events: int
    seed: int
    parameters: dict

    def __getitem__(self, name: str) -> np.ndarray:
        names = [s.name for s in self.states]
        if name not in names:
            raise KeyError(f"no state {name!r}: the states are {', '.join(names)}")
        return self.paths[:, :, names.index(name)]

    def to_json(self) -> dict:
        return {
            "model": self.model_name,
            "parameters": {str(k): str(v) for k, v in self.parameters.items()},
            "eta": self.eta,
            "seed": self.seed,
            "events": self.events,
            "t": self.grid.tolist(),
            "paths": [
                {s.name: p[:, i].tolist() for i, s in enumerate(self.states)} for p in self.paths
            ],
        }


def model_simulate(
    model, eta, T, *, dt=0.1, initial=None, seed: int = 1, replications: int = 1, backend="auto"
) -> ModelSimulation:
    """Exact (Gillespie) paths of the jump process, started at ``eta * initial``.

    ``initial`` is the scaled state (default: the equilibrium with the first state raised by
    half, as :func:`~symdelay.analysis.roots.model_fluid` starts).
    """
    require_values(model, "simulation")
    try:
        T, dt = float(T), float(dt)
    except (TypeError, ValueError):
        raise SymdelayInputError("T and dt must be numbers") from None
    if not (np.isfinite(T) and T > 0 and np.isfinite(dt) and 0 < dt <= T):
        raise SymdelayInputError(f"need 0 < dt <= T finite, got T={T}, dt={dt}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise SymdelayInputError(f"seed must be an integer >= 0, got {seed!r}")
    kernel = generated_kernel(model)
    y0 = default_initial(model) if initial is None else np.asarray(initial, dtype=float)
    n = len(model.states)
    if y0.shape != (n,) or not np.all(np.isfinite(y0)) or np.any(y0 < 0):
        raise SymdelayInputError(f"the initial state needs {n} finite values >= 0")
    from symdelay.core.checks import check_eta

    eta = check_eta(eta)
    counts = np.rint(y0 * eta).astype(np.int64)
    from symdelay.core.checks import time_grid

    grid = time_grid(T, dt)
    run = kernel.run_replications(eta, counts, grid, seed, replications, backend=backend)
    return ModelSimulation(
        model.name, model.states, eta, grid, run.scaled, run.events, seed, dict(model.values)
    )


def difference_weights(model) -> list | None:
    """``e_a - e_P(a)`` for the first state ``a`` the symmetry moves (``q1 - q2``): the
    imbalance between a state and its image; None without a symmetry."""
    if model.permutation is None:
        return None
    a = next(i for i, j in enumerate(model.permutation) if i != j)
    w = [0] * len(model.states)
    w[a], w[model.permutation[a]] = 1, -1
    return w


def model_variance(model, weights=None, *, dps: int = 30):
    """``(variance, LinearNoise)``: the LNA stationary variance of ``weights . s`` per unit
    ``eta`` (default weights: :func:`difference_weights`), exact when the data are."""
    from symdelay.analysis.lna import linear_noise

    require_values(model, "the linear-noise variance")
    if is_stable(model) is not True:
        raise SymdelayInputError(
            "the equilibrium is not stable: the linear-noise approximation has no stationary "
            "covariance there"
        )
    w = difference_weights(model) if weights is None else list(weights)
    if w is None:
        raise SymdelayInputError(
            "this model declares no symmetry, so there is no imbalance to default to: give "
            "weights (one per state)"
        )
    point = {**model.equilibrium.point, **model.values}
    transitions = [(t.name, t.change, t.rate) for t in model.transitions]
    ln = linear_noise(model.states, transitions, point, dps=dps)
    return ln.variance_of(w), ln
