"""Analyses for the sweep tests, named as "_sweep_tasks:NAME" (importable on Dask workers
started from the test process, which inherit its sys.path)."""

from __future__ import annotations

import time


def slow_square(x, pause=0.0):
    """x**2 after ``pause`` seconds (a task long enough to be interrupted or killed)."""
    time.sleep(float(pause))
    return {"y": float(x) ** 2}


def fails_on_three(x):
    """Raises for x == 3 (a failing task), else 2x."""
    if x == 3:
        raise ArithmeticError("three is not allowed here")
    return {"y": 2.0 * x}
