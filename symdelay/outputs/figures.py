"""Every result's figure, registered by class: ``result.plot()`` draws through here
(:func:`symdelay.core.display.draw`), so the analysis modules never import matplotlib."""

from __future__ import annotations

from symdelay.analysis.continuation import CycleBranch
from symdelay.analysis.critical import CriticalCurve
from symdelay.analysis.cycles import CycleFamily, LimitCycle
from symdelay.analysis.fold_cycles import FoldCurve
from symdelay.analysis.normal_form import NormalForm
from symdelay.analysis.rootset import RootSet
from symdelay.analysis.spectrum import Spectrum
from symdelay.analysis.stability_map import StabilityMap
from symdelay.analysis.stochastic import StationaryVariance
from symdelay.analysis.timeseries import TimeSeries
from symdelay.analysis.window import Window
from symdelay.core.display import plotter
from symdelay.models.sqd.convergence import ConvergenceResult
from symdelay.models.sqd.fixed_point import FixedPoint
from symdelay.outputs import plots_hopf, plots_map, plots_nonlinear, plots_sqd, plots_stochastic
from symdelay.outputs.notebook import plot_critical_curve, plot_roots

__all__: list[str] = []


def show_in_notebooks() -> None:
    """In IPython, display a returned figure (or axes) as a PNG, as ``%matplotlib inline``
    would: the figures are made without pyplot (no global state), so IPython knows no
    formatter for them and would print their repr. Registered once; nothing outside IPython."""
    import sys

    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None or getattr(shell, "_symdelay_figures", False):
        return
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    def png(obj):
        import io

        fig = obj.figure if isinstance(obj, Axes) else obj
        buf = io.BytesIO()
        fig.savefig(buf, format="png", bbox_inches="tight")
        return buf.getvalue()

    formatter = shell.display_formatter.formatters["image/png"]
    formatter.for_type(Figure, png)
    formatter.for_type(Axes, png)
    shell._symdelay_figures = True


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


@plotter(Spectrum)
def _spectrum(s, periodogram=None):
    return plots_nonlinear.spectrum_figure([s], periodogram)


#: the figures that are one drawing function's, called as it is
for _cls, _draw in (
    (TimeSeries, plots_stochastic.time_series_axes),
    (StabilityMap, plots_map.stability_map_figure),
    (FoldCurve, plots_map.fold_curve_figure),
    (NormalForm, plots_nonlinear.normal_form_figure),
    (LimitCycle, plots_nonlinear.cycle_figure),
    (CycleFamily, plots_nonlinear.family_figure),
    (CycleBranch, plots_nonlinear.branch_figure),
    (ConvergenceResult, plots_sqd.convergence_figure),
    (FixedPoint, plots_sqd.plot_tail),
    (Window, plots_hopf.window_figure),
    (StationaryVariance, plots_stochastic.covariance_figure),
):
    plotter(_cls)(_draw)
