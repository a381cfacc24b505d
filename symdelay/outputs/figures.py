"""Every result's figure, registered by class: ``result.plot()`` draws through here
(:func:`symdelay.core.display.draw`), so the analysis modules never import matplotlib."""

from __future__ import annotations

from symdelay.analysis.critical import CriticalCurve
from symdelay.analysis.cycles import CycleFamily, LimitCycle
from symdelay.analysis.fluid import FluidSolution
from symdelay.analysis.normal_form import NormalForm
from symdelay.analysis.rootset import RootSet
from symdelay.analysis.spectrum import Spectrum
from symdelay.analysis.stability_map import StabilityMap
from symdelay.analysis.stochastic import Simulation
from symdelay.core.display import plotter
from symdelay.models.sqd.convergence import ConvergenceResult
from symdelay.models.sqd.fixed_point import FixedPoint
from symdelay.models.sqd.fluid import FluidPath as SqdFluidPath
from symdelay.models.sqd.simulate import SimulationResult as SqdSimulationResult
from symdelay.outputs import plots_map, plots_nonlinear, plots_sqd
from symdelay.outputs.notebook import plot_critical_curve, plot_paths, plot_roots

__all__: list[str] = []


@plotter(RootSet)
def _roots(r, ax=None):
    return plot_roots(r.values, f"roots (L = {r.L}), unstable: {r.unstable_count}", ax)


@plotter(CriticalCurve)
def _critical(c, ax=None):
    Ds, th, _ = c.arrays()
    title = f"L = {c.L_key}" if c.L is not None else str(c.model_name)
    return plot_critical_curve(Ds, th, title, ax)


@plotter(FluidSolution)
def _fluid(p, ax=None):
    if p.founding:
        paths = {"q1": p.q1, "q2": p.q2, "x = q1 - q2": p.x}
        return plot_paths(p.t, paths, f"fluid limit, L = {p.L}", ax)
    paths = {s: p.y[:, i] for i, s in enumerate(p.states)}
    return plot_paths(p.t, paths, f"fluid limit, {p.model_name}", ax)


@plotter(Simulation)
def _simulation(s, ax=None):
    if s.founding:
        title = f"simulation, L = {s.L}, eta = {s.eta}"
        return plot_paths(s.t, {"x = q1 - q2": s.x}, title, ax)
    paths = {n: s.paths[0, :, i] for i, n in enumerate(s.states)}
    return plot_paths(s.t, paths, f"simulation, {s.model_name}, eta = {s.eta}", ax)


@plotter(StabilityMap)
def _stability_map(m, ax=None):
    return plots_map.stability_map_figure(m, ax)


@plotter(NormalForm)
def _normal_form(nf, cycles=None, theta_max=None):
    return plots_nonlinear.normal_form_figure(nf, cycles, theta_max)


@plotter(Spectrum)
def _spectrum(s, periodogram=None):
    return plots_nonlinear.spectrum_figure([s], periodogram)


@plotter(LimitCycle)
def _cycle(c):
    return plots_nonlinear.cycle_figure(c)


@plotter(CycleFamily)
def _family(f):
    return plots_nonlinear.family_figure(f)


@plotter(ConvergenceResult)
def _convergence(study):
    return plots_sqd.convergence_figure(study)


@plotter(FixedPoint)
def _tail(fp, ax=None):
    return plots_sqd.plot_tail(fp, ax=ax)


@plotter(SqdFluidPath)
def _sqd_fluid(p, ax=None, levels=(1, 2, 3, 4)):
    return plots_sqd.plot_fluid(p, ax=ax, levels=levels)


@plotter(SqdSimulationResult)
def _sqd_simulation(s, ax=None, fixed=None):
    return plots_sqd.plot_simulation(s, ax=ax, fixed=fixed)
