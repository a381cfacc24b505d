"""A progress bar for sweeps: tasks done and failed, rate and ETA (on the terminal only)."""

from __future__ import annotations

import sys
import time

__all__ = ["Progress"]


class Progress:
    """Counts finished tasks; draws a tqdm bar on ``stream`` when it is a terminal.

    ``callback(progress)`` (optional) is called after every update — a notebook or a test
    can watch a run with it.
    """

    def __init__(
        self,
        total: int,
        done: int = 0,
        failed: int = 0,
        *,
        stream=None,
        enabled: bool | None = None,
        callback=None,
    ):
        self.total = total
        self.done = done
        self.failed = failed
        self.computed = 0
        self.start = time.perf_counter()
        self.callback = callback
        stream = sys.stderr if stream is None else stream
        if enabled is None:
            enabled = bool(getattr(stream, "isatty", lambda: False)())
        self._bar = None
        if enabled:
            from tqdm import tqdm

            self._bar = tqdm(
                total=total,
                initial=done,
                file=stream,
                unit="task",
                dynamic_ncols=True,
                desc="sweep",
                smoothing=0.1,
            )
            self._bar.set_postfix(failed=failed, refresh=False)

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    @property
    def rate(self) -> float:
        """Tasks computed per second in this run."""
        return self.computed / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def eta(self) -> float:
        """Seconds left at the current rate (inf before the first task)."""
        left = self.total - self.done
        return left / self.rate if self.rate > 0 else float("inf")

    def update(self, ok: int, failed: int) -> None:
        n = ok + failed
        self.done += n
        self.failed += failed
        self.computed += n
        if self._bar is not None:
            self._bar.set_postfix(failed=self.failed, refresh=False)
            self._bar.update(n)
        if self.callback is not None:
            self.callback(self)

    def note(self, text: str) -> None:
        """A line above the bar (or on its own without one)."""
        if self._bar is not None:
            self._bar.write(text, file=self._bar.fp)
        else:
            print(text, file=sys.stderr)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
