"""Preload of the worker processes of the sweep's own ``LocalCluster``.

Ctrl-C on a terminal reaches every process of its group, the Dask workers too; the sweep's
own process stops them (it cancels the tasks and closes the cluster), so a worker ignores
SIGINT and keeps its logs to errors. Without this, each worker prints a KeyboardInterrupt
traceback and ``distributed`` warnings over the one line ``symdelay sweep run`` prints.
"""

from __future__ import annotations

import logging
import signal
import threading

__all__ = ["dask_setup"]


def dask_setup(worker) -> None:  # the name Dask's preloading calls
    logging.getLogger("distributed").setLevel(logging.ERROR)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
