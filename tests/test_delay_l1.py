"""l1 of delay models read from the one normal-form path (``analysis/dnormal.py``) by the
branch of cycles and by the stability map.

* The branch of cycles of the constant information lag, in theta and in D: the start
  record's ``l1`` and amplitude coefficient against the closed forms of the scalar equation
  ``x' = -mu x - 2 lam tanh(theta x(t - D)/2)`` (tests/test_delay_normal_form.py), and the
  first cycles' amplitudes, computed by collocation (an independent path), against
  ``c sqrt|p - p_c|``: the ratio tends to 1.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import symdelay
from symdelay.model.core import Model

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "models"
INFO = EXAMPLES / "information_delay.toml"


def _closed(param, mu, lam, theta, D, w):
    """``(l1, c)`` of the scalar equation at a Hopf point: ``c1 = -(theta^2/4) z / (1 + D z)``
    (``z = mu + i w``), ``l1 = Re c1 / w``; the amplitude coefficient in theta
    ``4 theta^(-3/2)``, in D ``4 w / (theta sqrt(mu + lam^2 theta^2 D))``."""
    z = mu + 1j * w
    c1 = -(theta**2) / 4 * z / (1 + D * z)
    coef = (
        4 * theta**-1.5
        if param == "theta"
        else 4 * w / theta / np.sqrt(mu + (lam * theta) ** 2 * D)
    )
    return c1.real / w, coef


@pytest.mark.parametrize(
    "param, fixed, rng",
    [("theta", {"D": 1}, (2.0, 2.6)), ("D", {"theta": 3}, (0.5, 0.8))],
)
def test_branch_start_from_the_delay_normal_form(param, fixed, rng):
    m = Model.from_toml(INFO, mu=1, lam=1, **fixed)
    branch = symdelay.cycles(m, param, *rng, max_points=5)
    st = branch.start
    pc, w = float(st["value"]), float(st["omega"])
    theta = pc if param == "theta" else 3.0
    D = pc if param == "D" else 1.0
    l1, coef = _closed(param, 1, 1, theta, D, w)
    assert float(st["l1"]) == pytest.approx(l1, rel=1e-10)
    assert float(st["l1_radius"]) < 1e-15
    assert float(st["amplitude_coefficient"]) == pytest.approx(coef, rel=1e-10)
    assert st["criticality"] == "supercritical" and st["side"] == "above"
    assert st["side_check"].startswith("agrees")
    # the collocation orbits against the law: the ratio tends to 1 as the amplitude shrinks
    near = [p for p in branch.points if p.value > pc and p.amplitude <= 0.07]
    assert len(near) >= 3 and near[0].amplitude < 0.015
    dev = [abs(p.amplitude / (coef * np.sqrt(p.value - pc)) - 1) for p in near]
    assert dev[0] < 2e-4 and max(dev) < 2e-3, dev
