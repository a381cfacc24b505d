"""Long runs: Ctrl-C stops the simulation kernel (exit 130), progress is shown on a terminal,
and runs past the event limit are refused unless forced."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import threading
import time

import numpy as np
import pytest

from symdelay.analysis.stochastic import EVENTS_PER_SECOND, expected_events
from symdelay.core.budget import DEFAULT_SECONDS
from symdelay.core.errors import SymdelayInputError
from symdelay.models import build_model
from symdelay.models.erlang.stochastic.simulate import simulate

# a run of about 8e10 events: hours of work, so only an interrupt ends it during the test
LONG = ["simulate", "--eta", "1e8", "--T", "100", "--force"]


def _read_until(fd, needle: bytes, deadline: float) -> bytes:
    buf = b""
    while needle not in buf and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            buf += chunk
    return buf


def _interrupt_on_terminal(extra):
    """Run the CLI with stderr on a pseudo-terminal, wait for its progress bar (the kernel
    is running), send SIGINT; return (exit status, everything written to the terminal)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # 100 columns
    proc = subprocess.Popen(
        [sys.executable, "-m", "symdelay", *LONG, *extra],
        stdout=subprocess.PIPE,
        stderr=slave,
        stdin=subprocess.DEVNULL,
    )
    os.close(slave)
    try:
        seen = _read_until(master, b"simulate:", time.monotonic() + 120)
        assert b"simulate:" in seen, seen  # the progress bar is drawn on a terminal
        assert b"events" in seen and b"t=" in seen
        proc.send_signal(signal.SIGINT)
        status = proc.wait(timeout=300)
        rest = _read_until(master, b"\x00never\x00", time.monotonic() + 5)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    assert proc.stdout.read() == b""
    return status, (seen + rest).decode(errors="replace")


@pytest.mark.parametrize("extra", [[], ["--replications", "2"]], ids=["serial", "threads"])
def test_sigint_stops_the_kernel_with_status_130(extra):
    status, text = _interrupt_on_terminal(extra)
    assert status == 130, text
    assert "symdelay: interrupted" in text and "Traceback" not in text


def test_no_progress_bar_when_stderr_is_not_a_terminal_or_json():
    cmd = [sys.executable, "-m", "symdelay", "simulate", "--eta", "100", "--T", "2"]
    for extra in ([], ["--json"]):
        proc = subprocess.run(cmd + extra, capture_output=True, text=True)
        assert proc.returncode == 0 and proc.stderr == ""


def test_interrupt_in_threads_stops_every_worker():
    """A KeyboardInterrupt in the calling thread (where Ctrl-C lands) stops the workers
    after their current chunk, and simulate re-raises it."""
    before = threading.active_count()
    calls = []

    def monitor(time_done, events):
        calls.append(events)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        simulate(
            L=2, eta=10**6, T=100, replications=2, threads=2, force=True, monitor=monitor,
            chunk_events=1000,
        )  # fmt: skip
    assert calls and threading.active_count() == before


def test_monitor_reports_time_and_events_to_the_end():
    seen = []
    r = simulate(L=1, eta=200, T=3, replications=3, seed=2, chunk_events=500, threads=1,
                 monitor=lambda t, e: seen.append((t, e)))  # fmt: skip
    times = [t for t, _ in seen]
    assert times == sorted(times) and times[-1] == pytest.approx(9.0)
    assert seen[-1][1] == r.events.sum() and len(seen) > 3


def test_event_limit_refuses_with_the_estimate_and_how_to_proceed():
    with pytest.raises(SymdelayInputError) as info:
        simulate(L=2, eta=10**11, T=100)
    msg = str(info.value)
    assert "\n" not in msg and "8e+13 events" in msg and "--force" in msg
    assert "roughly" in msg and "days" in msg
    m = build_model("erlang", L=2, mu=1, lam=1, theta=2, D=1)
    assert expected_events(m, 10**11, 100) / EVENTS_PER_SECOND > DEFAULT_SECONDS
    # many phases: the transition table itself would take days to build, and is not built
    with pytest.raises(SymdelayInputError, match=r"table of .*Erlang\(100000\).*200002 states"):
        simulate(L=100_000, eta=1000, T=1)


def test_estimate_is_close_to_the_mean():
    """The totals do not depend on routing: for T much longer than D + 1/mu the mean number
    of events is close to eta T times the total rate at the equilibrium, from the paper's
    start and from a nearly empty one (both below it: they start with fewer jobs)."""
    kw = dict(L=2, eta=200, mu=1, lam=1, D=1, T=30)
    m = build_model("erlang", L=2, mu=1, lam=1, theta=3, D=1)
    est = expected_events(m, kw["eta"], kw["T"])
    assert est == 200 * 30 * 8  # 2 lam (L + 2) per unit eta at the equilibrium
    for init in (None, [10, 0, 5, 0, 0, 3]):
        r = simulate(**kw, theta=3, replications=20, seed=4, dt=30, initial=init)
        assert 0.9 * est < r.events.mean() < est


@pytest.mark.parametrize("backend", ["c", "python"])
@pytest.mark.parametrize("chunk", [1, 7, 1000])
def test_chunked_runs_are_bit_identical(backend, chunk):
    kw = dict(L=3, eta=40, mu=1.5, lam=0.7, theta=3, D=2, T=4, dt=0.25, seed=9, replications=2)
    whole = simulate(**kw, backend="c", chunk_events=2**62)
    part = simulate(**kw, backend=backend, chunk_events=chunk)
    assert np.array_equal(whole.values, part.values)
    assert np.array_equal(whole.info["transition_counts"], part.info["transition_counts"])
    assert np.array_equal(whole.info["final"], part.info["final"])
    assert np.array_equal(whole.events, part.events) and whole.events.sum() > 0


def test_ctrl_c_during_ctypes_argument_conversion_stays_an_interrupt():
    """ctypes converts a kernel's arguments in Python; a SIGINT landing there comes out as
    ctypes.ArgumentError, which the loaded kernel turns back into KeyboardInterrupt (it was
    an exit 70 'internal error' on a loaded machine). Other conversion errors stay errors."""
    import ctypes

    from symdelay.core.cbuild import _Kernel

    class Interrupting:
        @classmethod
        def from_param(cls, obj):
            raise KeyboardInterrupt

    class Refusing:
        @classmethod
        def from_param(cls, obj):
            raise TypeError("not an array")

    for kind, expected in ((Interrupting, KeyboardInterrupt), (Refusing, ctypes.ArgumentError)):
        fn = ctypes.CDLL(None).labs
        fn.argtypes = [kind]
        with pytest.raises(expected):
            _Kernel(fn)(1)
    plain = ctypes.CDLL(None).labs
    plain.argtypes, plain.restype = [ctypes.c_long], ctypes.c_long
    assert _Kernel(plain)(-7) == 7
