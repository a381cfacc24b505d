"""Report sections, one module each, found automatically by :mod:`symdelay.outputs.report`.

A section module defines ``ORDER`` (an int: where it goes) and
``build(ctx: ReportContext) -> Section``. It may write figures into ``ctx.figures_dir``
and returns LaTeX that refers to them by file name relative to the report directory.
"""
