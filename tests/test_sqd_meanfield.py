"""SQ(d) mean field: symbolic reduction, derived fixed point, the fast drift and Jacobian
against the model layer's symbolic ones (second path), eigenvalues against numpy/scipy."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
import sympy as sp

from symdelay.core.symbols import lam
from symdelay.models import build_model
from symdelay.models.sqd import exponential_fixed_point, exponential_reduction, fixed_point
from symdelay.models.sqd.fixed_point import _system, drift_u, jacobian_matrix
from symdelay.models.sqd.service import exponential, service_from_options
from symdelay.models.sqd.stability import stability_at

SERVICES = {
    "exp": exponential(),
    "erlang3": service_from_options("erlang", k=3),
    "hyperexp": service_from_options("hyperexp", probs="0.3,0.7", rates="0.5,2"),
    "coxian": service_from_options("coxian", rates="1,2,4", probs="0.5,0.25"),
}


@pytest.mark.parametrize("d", [1, 2, 3, 5])
def test_exponential_reduces_to_classical_tail_ode(d):
    D = exponential_reduction(d, 4)
    assert D.result is True
    assert "flux" in [s.key for s in D] and "ode" in [s.key for s in D]


def test_fixed_point_is_derived_not_typed():
    D = exponential_fixed_point()
    d, k = sp.Symbol("d", integer=True, positive=True), sp.Symbol("k", integer=True, positive=True)
    published = lam ** ((d**k - 1) / (d - 1))
    for dv in (2, 3, 5):
        for kv in (1, 2, 3, 4):
            got = D.result.subs({d: dv, k: kv})
            assert sp.simplify(got - published.subs({d: dv, k: kv})) == 0
    sojourn = D["sojourn"].expr.rhs
    term = sojourn.function
    for dv, kv in ((2, 3), (3, 2)):
        assert sp.simplify(term.subs({d: dv, k: kv}) - lam ** ((dv**kv - dv) // (dv - 1))) == 0


@pytest.mark.parametrize("name", sorted(SERVICES))
def test_fast_drift_equals_model_layer_drift(name):
    """The hand-written tail-variable drift against the drift SymPy derives from the table."""
    svc = SERVICES[name]
    K, d = 4, 2
    m = build_model("sqd", d=d, K=K, lam="7/10", service=svc)
    ph = svc.phases
    rng = np.random.default_rng(5)
    for _ in range(3):
        x = rng.dirichlet(np.ones(K * ph + 1))[: K * ph].reshape(K, ph)
        point = {s: sp.Rational(float(v)) for s, v in zip(m.states, x.ravel())}
        Fx = np.array([float(f.xreplace(point)) for f in m.drift]).reshape(K, ph)
        # tails: u_k = sum_{n >= k} x_n, drift of u_k = sum_{n >= k} drift of x_n
        u = np.cumsum(x[::-1], axis=0)[::-1]
        Fu_model = np.cumsum(Fx[::-1], axis=0)[::-1]
        sysf = _system(svc, d, sp.Rational(7, 10), K, float)
        Fu_fast = np.array(drift_u(sysf, u.tolist()))
        assert np.max(np.abs(Fu_fast - Fu_model)) < 1e-12


@pytest.mark.parametrize("name", ["erlang3", "hyperexp"])
def test_jacobian_eigenvalues_model_layer_vs_fast_path(name):
    """The model's Jacobian (the family's, from the tail-variable blocks) equals SymPy's
    derivative of the model's drift at the fixed point; its certified roots (the roots entry)
    are scipy's eigenvalues of the tail-variable Jacobian (a similar matrix)."""
    from symdelay.model.equilibrium import at_point

    svc = SERVICES[name]
    d = 2
    fp = fixed_point(d, "0.6", svc, dps=20, method="newton")
    m = build_model("sqd", d=d, K=fp.truncation, lam="0.6", service=svc)
    generic = at_point(m.drift_jacobian, m.equilibrium)
    assert max(abs(float(a - b)) for a, b in zip(m.jacobian, generic)) < 1e-25
    Ju = np.array(jacobian_matrix(fp).tolist(), dtype=float)
    ev_fast = np.sort_complex(scipy.linalg.eigvals(Ju))
    rs = stability_at(fp)
    assert rs.unstable_count == 0 and rs.axis_count == 0
    certified = np.sort_complex(
        np.array([complex(z.value) for z in rs.roots for _ in range(z.multiplicity)])
    )
    assert certified.shape == ev_fast.shape
    assert np.max(np.abs(certified - ev_fast)) < 1e-8
    top = ev_fast[np.argmax(ev_fast.real)]
    assert abs(complex(rs.roots[0].value) - top) < 1e-9


def test_rightmost_eigenvalue_moves_with_load_and_scv():
    """Decay rate of the linearisation shrinks as lam -> 1 and with more service variability."""
    vals = {}
    for lamv in ("0.5", "0.9"):
        for name in ("erlang3", "exp", "hyperexp"):
            fp = fixed_point(2, lamv, SERVICES[name], dps=15, method="newton")
            vals[lamv, name] = float(stability_at(fp).spectral_abscissa)
    for name in ("erlang3", "exp", "hyperexp"):
        assert vals["0.9", name] > vals["0.5", name]
    assert all(v < 0 for v in vals.values())
