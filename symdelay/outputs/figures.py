"""Every result's figure, registered by class: ``result.plot()`` draws through here
(:func:`symdelay.core.display.draw`), so the analysis modules never import matplotlib."""

from __future__ import annotations

from symdelay.analysis.critical import CriticalCurve
from symdelay.analysis.cycles import CycleFamily, LimitCycle
from symdelay.analysis.normal_form import NormalForm
from symdelay.analysis.rootset import RootSet
from symdelay.analysis.spectrum import Spectrum
from symdelay.analysis.stability_map import StabilityMap
from symdelay.analysis.timeseries import TimeSeries
from symdelay.core.display import plotter
from symdelay.models.sqd.convergence import ConvergenceResult
from symdelay.models.sqd.fixed_point import FixedPoint
from symdelay.outputs import plots_map, plots_nonlinear, plots_sqd, plots_stochastic
from symdelay.outputs.notebook import plot_critical_curve, plot_roots

__all__: list[str] = []


@plotter(RootSet)
def _roots(r, ax=None):
    from symdelay.analysis.charpoly import parameters_text

    p = parameters_text(r.parameters)
    head = f"L = {p['L']}" if "L" in p else str(r.model_name)
    return plot_roots(r.values, f"roots ({head}), unstable: {r.unstable_count} ({r.verdict})", ax)


@plotter(CriticalCurve)
def _critical(c, ax=None):
    Ds, th, _ = c.arrays()
    title = f"L = {c.L_key}" if c.L_key is not None else str(c.model_name)
    return plot_critical_curve(Ds, th, title, ax)


@plotter(TimeSeries)
def _time_series(ts, ax=None, states=None, replications=None):
    return plots_stochastic.time_series_axes(ts, ax=ax, states=states, replications=replications)


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
