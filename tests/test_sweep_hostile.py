"""Hostile and careless sweep input: a spec is data (it names registered analyses only; a
user's own function needs --allow-python on the command line), grids are sized before
anything is made, and bad schedulers, --where and --out are one line with exit 2; Ctrl-C on
a Dask sweep is one line with exit 130; parameter columns carry no float noise."""

from __future__ import annotations

import io
import math
import os
import signal
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest

from symdelay import sweep
from symdelay.core.errors import SymdelayInputError
from symdelay.sweep import grid as grid_module
from symdelay.sweep.analyses import ANALYSES
from symdelay.sweep.grid import axis_values
from symdelay.sweep.store import Store

ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent
HARMLESS = "test_sweep_hostile:doubled"
CLI = (sys.executable, "-m", "symdelay", "sweep")
SLOW = ("--allow-python", "_sweep_tasks:slow_square")


def doubled(x, offset=0):
    """A harmless analysis of the user's own (run only with --allow-python)."""
    return {"y": float(2 * Fraction(str(x)) + Fraction(str(offset)))}


def one_line_error(stderr: str) -> str:
    assert stderr.count("\n") == 1 and stderr.startswith("symdelay: error: "), stderr
    assert "Traceback" not in stderr
    return stderr


def write(tmp_path: Path, name: str, text: str) -> Path:
    f = tmp_path / name
    f.write_text(text)
    return f


def _toml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def hostile_specs(tmp_path: Path) -> dict[str, str]:
    """The four specs of the issue, each of which would create ``sentinel`` if it ran."""
    sentinel = tmp_path / "sentinel"
    payload = tmp_path / "sweep_payload_mod.py"
    payload.write_text(f"open({str(sentinel)!r}, 'w').close()\n\ndef f(**kw):\n    return {{}}\n")
    touch = _toml_string(f"touch {sentinel}")
    return {
        "subprocess:getoutput": f"[parameters]\ncmd = {touch}\n[grid]\nx = [1]\n",
        "os:system": f"[parameters]\n[grid]\ncommand = [{touch}]\n",
        "builtins:eval": (
            f"[grid]\nsource = [{_toml_string(f'open({str(sentinel)!r}, chr(119))')}]\n"
        ),
        "importlib:import_module": '[grid]\nname = ["sweep_payload_mod"]\n',
        # naming the payload module itself: it must not even be imported
        "sweep_payload_mod:f": "[grid]\nx = [1]\n",
    }


@pytest.mark.parametrize(
    "target",
    [
        "subprocess:getoutput",
        "os:system",
        "builtins:eval",
        "importlib:import_module",
        "sweep_payload_mod:f",
    ],
)
def test_hostile_analysis_is_refused_and_nothing_runs(tmp_path, run_cli, monkeypatch, target):
    monkeypatch.syspath_prepend(str(tmp_path))  # the payload module would be importable
    sys.modules.pop("sweep_payload_mod", None)
    body = hostile_specs(tmp_path)[target]
    f = write(tmp_path, "hostile.toml", f"analysis = {_toml_string(target)}\n{body}")
    out = tmp_path / "h.parquet"
    status, stdout, stderr = run_cli("sweep", "run", str(f), "--out", str(out), "--serial")
    assert status == 2 and stdout == ""
    one_line_error(stderr)
    assert f"analysis '{target}' is not a registered analysis" in stderr
    assert ", ".join(sorted(ANALYSES)) in stderr and "--allow-python" in stderr
    # the Python API the same, with the spec as a dict
    import tomllib

    with pytest.raises(SymdelayInputError, match="not a registered analysis"):
        sweep.run(tomllib.loads(f.read_text()), serial=True)
    # allowing another function does not allow this one
    status, _, stderr = run_cli(
        "sweep", "run", str(f), "--out", str(out), "--serial", "--allow-python", HARMLESS
    )
    assert status == 2 and "not a registered analysis" in one_line_error(stderr)
    assert not (tmp_path / "sentinel").exists() and not out.exists()
    assert "sweep_payload_mod" not in sys.modules


def test_the_opt_in_runs_a_function_of_the_users_own_and_says_so(tmp_path, run_cli):
    f = write(
        tmp_path,
        "own.toml",
        f'analysis = "{HARMLESS}"\n[parameters]\noffset = 1\n[grid]\nx = [0, 2.5, "1/4"]\n',
    )
    out = tmp_path / "own.parquet"
    status, _, stderr = run_cli(
        "sweep", "run", str(f), "--out", str(out), "--serial", "--allow-python", HARMLESS
    )
    assert status == 0, stderr
    assert f"running your Python function {HARMLESS} (allowed by --allow-python)" in stderr
    df = sweep.read_results(out)
    assert df["y"].tolist() == [1.0, 6.0, 1.5]  # 2x + 1 at x = 0, 2.5, 1/4
    # the API: the same with allow_python (a name or a list of names)
    api = sweep.run(str(f), serial=True, allow_python=[HARMLESS, "os:getcwd"])
    assert api["y"].tolist() == [1.0, 6.0, 1.5]


def test_allow_python_is_in_the_help(capsys):
    from symdelay.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["sweep", "run", "--help"])
    assert exc.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "--allow-python MODULE:FUNCTION" in text and "--force" in text


@pytest.mark.parametrize("bad", ["os.system", "os:", ":system", "os:system;rm", "a b:c"])
def test_malformed_allow_python_is_one_line(tmp_path, run_cli, bad):
    f = write(tmp_path, "s.toml", 'analysis = "stability"\n[grid]\ntheta = [1]\n')
    status, _, stderr = run_cli(
        "sweep", "run", str(f), "--out", str(tmp_path / "o.parquet"), "--allow-python", bad
    )
    assert status == 2 and "package.module:function" in one_line_error(stderr)


# ----------------------------------------------------------------------------- budgets
def _no_values(*args, **kwargs):
    raise AssertionError("grid values were made before the grid was sized")


def test_a_hundred_million_points_is_refused_before_anything_is_made(
    tmp_path, run_cli, monkeypatch
):
    monkeypatch.setattr(grid_module, "axis_values", _no_values)
    f = write(
        tmp_path,
        "big.toml",
        'analysis = "stability"\n[parameters]\nL = 2\nmu = 1\nlam = 1\ntheta = 4\n'
        "[grid]\nD = {start = 0.1, stop = 10, num = 100000000}\n",
    )
    t0 = time.monotonic()
    status, _, stderr = run_cli("sweep", "run", str(f), "--out", str(tmp_path / "o"), "--serial")
    assert status == 2 and time.monotonic() - t0 < 5
    assert "grid 'D' has 100,000,000 values" in one_line_error(stderr)
    assert f"budget of {grid_module.MAX_TASKS:,}" in stderr and "--force" in stderr


THETA_FIXED = {"L": 2, "mu": 1, "lam": 1, "D": 1}


@pytest.mark.parametrize(
    ("fixed", "grid", "words"),
    [
        (THETA_FIXED, {"theta": list(range(11))}, "grid 'theta' has 11 values"),
        (THETA_FIXED, {"theta": {"start": 1, "stop": 11, "step": 1}}, "'theta' has 11 values"),
        (THETA_FIXED, {"theta": {"start": 1, "stop": 2, "num": 11}}, "'theta' has 11 values"),
        (
            {"L": 2, "mu": 1, "lam": 1, "theta": 4},
            {"D": {"start": 0.1, "stop": 10, "num": 11, "log": True}},
            "grid 'D' has 11 values",
        ),
        (
            {"L": 2, "D": 1},
            [{"theta": [1, 2, 3]}, {"mu": [1, 2, 3, 4], "lam": [1, 2, 3, 4]}],
            "the sweep has 12 tasks (theta 3 x mu, lam 4)",
        ),
    ],
)
def test_every_grid_form_is_sized_first(monkeypatch, fixed, grid, words):
    monkeypatch.setattr(grid_module, "MAX_TASKS", 10)
    monkeypatch.setattr(grid_module, "axis_values", _no_values)
    spec = {"analysis": "stability", "parameters": fixed, "grid": grid}
    with pytest.raises(SymdelayInputError) as err:
        sweep.Spec.from_dict(spec)
    msg = str(err.value)
    assert words in msg and "--force" in msg and "\n" not in msg


def test_replications_count_and_force_runs_it_anyway(tmp_path, run_cli, monkeypatch):
    monkeypatch.setattr(grid_module, "MAX_TASKS", 5)
    f = write(
        tmp_path,
        "reps.toml",
        'analysis = "stability"\nreplications = 2\n[parameters]\nL = 2\nmu = 1\nlam = 1\n'
        "D = 1\n[grid]\ntheta = [4, 8, 10]\n",
    )
    out = tmp_path / "r.parquet"
    status, _, stderr = run_cli("sweep", "run", str(f), "--out", str(out), "--serial")
    assert status == 2 and "6 tasks (theta 3 x 2 replications)" in one_line_error(stderr)
    status, _, stderr = run_cli("sweep", "run", str(f), "--out", str(out), "--serial", "--force")
    assert status == 0, stderr
    df = sweep.read_results(out)
    # L = 2, mu = 1, gamma = 2: (r + 1)(r + 2)^2 + 4 lam theta = r^3 + 5r^2 + 8r + 4 + 4k,
    # Routh-Hurwitz 5 * 8 > 4 + 4k: stable iff k = lam theta < 9 (each point twice)
    assert df["stable"].tolist() == [True, True, True, True, False, False]
    assert df["critical_lam_theta"].tolist() == [9.0] * 6


def test_a_huge_exponent_is_refused_at_once():
    t0 = time.monotonic()
    with pytest.raises(SymdelayInputError, match="exponent"):
        axis_values("theta", {"start": 1, "stop": "1e1000000000", "num": 3})
    assert time.monotonic() - t0 < 1


# --------------------------------------------------------------------------- scheduler
@pytest.mark.parametrize(
    "address",
    ["bogus", "tcp://", "tcp://host", "udp://127.0.0.1:8786", "tcp://h:0", "tcp://h:70000", " "],
)
def test_malformed_scheduler_is_one_line_at_once(tmp_path, run_cli, address):
    f = write(tmp_path, "s.toml", 'analysis = "stability"\n[grid]\ntheta = [1]\n')
    f.write_text(
        'analysis = "stability"\n[parameters]\nL = 2\nmu = 1\nlam = 1\nD = 1\n[grid]\ntheta = [1]\n'
    )
    t0 = time.monotonic()
    status, _, stderr = run_cli(
        "sweep", "run", str(f), "--out", str(tmp_path / "o.parquet"), "--scheduler", address
    )
    assert status == 2 and time.monotonic() - t0 < 2
    assert "--scheduler" in one_line_error(stderr)


class _FakeScheduler:
    """A TCP server on 127.0.0.1 that is not a Dask scheduler: ``kind`` says what it does
    with each connection (the sandbox's transparent proxy accepted every connection and
    answered HTTP, which a Client read as a frame length of exabytes)."""

    def __init__(self, kind: str):
        import socket
        import threading

        self.kind = kind
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.port = self.sock.getsockname()[1]
        self.conns = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        import struct

        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(conn)
            if self.kind == "http":
                conn.sendall(b"HTTP/1.0 426 Upgrade Required\r\nserver: x\r\n\r\n")
            elif self.kind == "huge":
                conn.sendall(struct.pack("Q", 2**62) + b"x" * 64)
            elif self.kind == "close":
                conn.close()
            elif self.kind == "garbage":
                conn.sendall(struct.pack("Q", 40) + b"not a handshake at all, forty bytes long")
            # "silent": keep it open and say nothing

    def close(self):
        self.sock.close()
        for c in self.conns:
            c.close()


@pytest.mark.parametrize("kind", ["closed", "silent", "http", "huge", "close", "garbage"])
def test_no_scheduler_at_the_address_is_one_line_exit_2_in_bounded_time(tmp_path, kind):
    """A closed port, a server that accepts and waits, one that answers HTTP, one that
    announces an exabyte frame, one that hangs up, one that sends a frame that is no Dask
    handshake: each one line naming the scheduler and what to do, exit 2, within the
    connect timeout (twice: connecting, then the handshake), no traceback at exit (a
    Client that failed used to time out again when collected)."""
    import socket

    from symdelay.sweep.runner import SCHEDULER_TIMEOUT

    server = None
    if kind == "closed":
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
    else:
        server = _FakeScheduler(kind)
        port = server.port
    f = write(
        tmp_path,
        "s.toml",
        'analysis = "stability"\n[parameters]\nL = 2\nmu = 1\nlam = 1\nD = 1\n'
        "[grid]\ntheta = [1]\n",
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    address = f"tcp://127.0.0.1:{port}"
    try:
        t0 = time.monotonic()
        proc = subprocess.run(
            [*CLI, "run", str(f), "--out", str(tmp_path / "o.parquet"), "--scheduler", address],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        took = time.monotonic() - t0
    finally:
        if server is not None:
            server.close()
    assert proc.returncode == 2, proc.stderr
    line = one_line_error(proc.stderr)
    assert f"--scheduler {address}" in line and "cannot reach the Dask scheduler" in line
    assert "dask scheduler" in line and "out of memory" not in line
    assert not (tmp_path / "o.parquet").exists()
    # Python's start-up and imports besides the two timeouts
    assert took < 2 * SCHEDULER_TIMEOUT + 20, took


def test_a_real_scheduler_passes_the_check():
    """The handshake check accepts a Dask scheduler (a LocalCluster's) and refuses a
    silent port in its time."""
    import logging

    from distributed import LocalCluster

    from symdelay.sweep.runner import _no_scheduler, connect, parse_address

    with LocalCluster(
        n_workers=1,
        threads_per_worker=1,
        processes=False,
        host="127.0.0.1",
        protocol="tcp",
        dashboard_address=None,
        silence_logs=logging.ERROR,
    ) as cluster:
        scheme, host, port = parse_address(cluster.scheduler_address)
        assert _no_scheduler(scheme, host, port, 5) is None
        client = connect(cluster.scheduler_address)
        try:
            assert sum(client.nthreads().values()) == 1
        finally:
            client.close()
    server = _FakeScheduler("silent")
    try:
        t0 = time.monotonic()
        assert "no Dask scheduler spoke" in _no_scheduler("tcp", "127.0.0.1", server.port, 1)
        assert time.monotonic() - t0 < 3
    finally:
        server.close()


# ------------------------------------------------------------------------------- plot
@pytest.fixture
def one_axis(tmp_path):
    out = tmp_path / "one.parquet"
    sweep.run(
        {
            "analysis": "stability",
            "parameters": {"L": 2, "mu": 1, "lam": 1, "theta": 4},
            "grid": {"D": [0.5, 1, 2]},
        },
        out=out,
        serial=True,
    )
    return out


def test_where_on_the_plotted_axis_is_one_line_naming_the_axes(one_axis, run_cli):
    for where, words in (
        ("D=1", "D is on the plot's axis (--x D)"),
        ("theta=4", "--where theta: not a grid parameter"),
    ):
        status, _, stderr = run_cli(
            "sweep", "plot", str(one_axis), "--x", "D", "--z", "margin", "--where", where
        )
        assert status == 2 and words in one_line_error(stderr)
        assert "the sweep's axes: D (3 values)" in stderr


def test_where_on_zipped_parameters(tmp_path, run_cli):
    out = tmp_path / "zip.parquet"
    sweep.run(
        {
            "analysis": "stability",
            "parameters": {"L": 2, "D": 1},
            "grid": [{"theta": [4, 8]}, {"mu": [1, 2], "lam": [1, 3]}],
        },
        out=out,
        serial=True,
    )
    base = ["sweep", "plot", str(out), "--x", "theta", "--z", "margin"]
    status, _, stderr = run_cli(*base, "--where", "mu=2", "--where", "lam=1")
    assert status == 2 and "lam is zipped with mu, which fixes lam = 3" in one_line_error(stderr)
    status, _, stderr = run_cli(
        *base, "--where", "mu=2", "--where", "lam=3", "--out", str(tmp_path / "z.png")
    )
    assert status == 0, stderr
    status, _, stderr = run_cli(
        "sweep", "plot", str(out), "--x", "mu", "--y", "theta", "--z", "margin", "--where", "lam=3"
    )
    assert status == 2 and "lam is on the plot's axis (--x mu)" in one_line_error(stderr)
    assert "mu+lam (2 values, zipped)" in stderr


@pytest.mark.parametrize("name", ["/proc/version", "noext", "map.parquet", "/dev/null"])
def test_plot_out_without_an_image_suffix_is_refused(one_axis, run_cli, tmp_path, name):
    target = name if name.startswith("/") else str(tmp_path / name)
    status, _, stderr = run_cli(
        "sweep", "plot", str(one_axis), "--x", "D", "--z", "margin", "--out", target
    )
    assert status == 2 and "give an image file name ending in" in one_line_error(stderr)
    assert not Path(target + ".png").exists()  # no suffix added silently
    assert [p.name for p in tmp_path.iterdir()] == ["one.parquet"]  # nothing written


def test_plot_out_where_no_file_can_be_made(one_axis, run_cli, tmp_path):
    for target, words in (
        ("/proc/version.png", "cannot write --out /proc/version.png"),
        (str(tmp_path / "missing" / "m.png"), "does not exist"),
        (str(tmp_path), "give an image file name"),
    ):
        status, _, stderr = run_cli(
            "sweep", "plot", str(one_axis), "--x", "D", "--z", "margin", "--out", target
        )
        assert status == 2 and words in one_line_error(stderr)
    assert not Path("/proc/version.png").exists()
    (tmp_path / "adir.png").mkdir()
    status, _, stderr = run_cli(
        "sweep", "plot", str(one_axis), "--x", "D", "--z", "margin", "--out", f"{tmp_path}/adir.png"
    )
    assert status == 2 and "is not a regular file" in one_line_error(stderr)


@pytest.mark.parametrize(("suffix", "magic"), [(".pdf", b"%PDF"), (".PNG", b"\x89PNG")])
def test_plot_writes_exactly_the_path_given(one_axis, run_cli, tmp_path, suffix, magic):
    target = tmp_path / f"plot{suffix}"
    status, stdout, stderr = run_cli(
        "sweep", "plot", str(one_axis), "--x", "D", "--z", "margin", "--out", str(target)
    )
    assert status == 0, stderr
    assert stdout.strip() == str(target) and target.read_bytes().startswith(magic)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["one.parquet", target.name])


# -------------------------------------------------------------------------- interrupt
def test_ctrl_c_on_a_dask_sweep_is_one_line_and_exit_130(tmp_path):
    n = 40
    f = write(
        tmp_path,
        "slow.toml",
        'analysis = "_sweep_tasks:slow_square"\n[parameters]\npause = 0.3\n'
        f"[grid]\nx = {{ start = 0, stop = {n - 1}, num = {n} }}\n",
    )
    out = tmp_path / "slow.parquet"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(TESTS), str(ROOT)]))
    proc = subprocess.Popen(
        [*CLI, "run", str(f), "--out", str(out), "--workers", "2", "--batch", "1", *SLOW],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    try:
        store = Store(out)
        t0 = time.monotonic()
        while not store.part_files():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() - t0 < 120, "no rows were flushed"
            time.sleep(0.1)
        time.sleep(0.5)
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C reaches the workers too
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    err = err.decode()
    assert proc.returncode == 130, err
    lines = err.splitlines()
    last = [ln for ln in lines if ln.startswith("symdelay: interrupted; ")]
    assert len(last) == 1 and "run again with --resume" in last[0], err
    notes = [ln for ln in lines if ln not in last]
    assert all(ln.startswith(("Dask dashboard: ", "sweep: running your")) for ln in notes), err
    assert "Traceback" not in err and "WARNING" not in err and "distributed" not in err
    done = sweep.read_results(out)
    assert 0 < len(done) < n and done["y"].tolist() == [float(x) ** 2 for x in done["task"]]


# ------------------------------------------------------------------------ float noise
def test_log_range_points_are_the_floats_nearest_the_exact_values():
    # geometric points that are exact decimals: each must be the float literal itself
    assert axis_values("D", {"start": 0.006, "stop": 60, "num": 5, "log": True}) == (
        0.006,
        0.06,
        0.6,
        6.0,
        60.0,
    )
    v = axis_values("D", {"start": "1/8", "stop": 8, "num": 7, "log": True})
    assert [Fraction(x) for x in v] == [Fraction(2) ** k for k in range(-3, 4)]
    # an irrational point: the float nearest 10**(1/3), checked by exact rationals
    (x,) = axis_values("D", {"start": 1, "stop": 10, "num": 4, "log": True})[1:2]
    below, above = math.nextafter(x, 0), math.nextafter(x, math.inf)
    mid_lo, mid_hi = (Fraction(below) + Fraction(x)) / 2, (Fraction(x) + Fraction(above)) / 2
    assert mid_lo**3 < 10 < mid_hi**3


def test_parameter_columns_print_shortest_reprs(tmp_path):
    out = tmp_path / "n.parquet"
    sweep.run(
        {
            "analysis": "stability",
            "parameters": {"L": 2, "mu": 1, "lam": 1},
            "grid": [
                {"theta": {"start": 0.1, "stop": 1, "num": 10}},
                {"D": {"start": 0.006, "stop": 60, "num": 5, "log": True}},
            ],
        },
        out=out,
        serial=True,
    )
    df = sweep.read_results(out)
    want = [f"0.{k}" for k in range(1, 10)]
    assert sorted({repr(v) for v in df["theta"]}) == [*want, "1.0"]
    assert sorted(set(df["D"].tolist())) == [0.006, 0.06, 0.6, 6.0, 60.0]
    text = io.StringIO()
    df[["theta", "D"]].to_csv(text, index=False)
    csv = text.getvalue()
    assert "0.6000000000000003" not in csv and "0.59999999999999998" not in csv
    back = pd.read_csv(io.StringIO(csv))
    assert back["D"].tolist() == df["D"].tolist()
    assert all(len(str(v)) <= 5 for v in back["theta"].tolist() + back["D"].tolist())


# ------------------------------------------------------------------------ failed tasks
STABILITY = 'analysis = "stability"\n[parameters]\nL = 2\nlam = 1\nD = 1\n'


@pytest.mark.parametrize(
    ("fixed", "grid", "failed", "total"),
    [
        # the spec: a parameter that is code, every task fails
        ("mu = \"__import__('os').system('true')\"\n", "theta = [1]", 1, 1),
        ('mu = "abc"\n', "theta = [1, 2, 3]", 3, 3),
        ("mu = 1\n", 'theta = [1, "abc", "nan"]', 2, 3),  # some fail, some do not
        ("mu = 1\n", "theta = [1, 2]", 0, 2),
    ],
)
def test_failed_tasks_make_exit_1_and_say_where_they_are(
    tmp_path, run_cli, fixed, grid, failed, total
):
    f = write(tmp_path, "s.toml", STABILITY + fixed + "[grid]\n" + grid + "\n")
    out = tmp_path / "o.parquet"
    status, _, stderr = run_cli("sweep", "run", str(f), "--out", str(out), "--serial")
    assert "Traceback" not in stderr
    table = sweep.read_results(out)
    assert len(table) == total and (table["status"] == "failed").sum() == failed
    if not failed:
        assert status == 0 and "failed:" not in stderr, stderr
        return
    assert status == 1, stderr
    summary, line = stderr.splitlines()
    assert f"({total - failed} ok, {failed} failed)" in summary
    first = table[table["status"] == "failed"].sort_values("task").iloc[0]
    assert line == (
        f"symdelay: {failed} task{'s' if failed > 1 else ''} failed: each is a row of {out} "
        f"with status 'failed' and its error in column 'error' (symdelay sweep status {out}); "
        f"the first (task {first['task']}): {first['error'][:200]}"
    )
    # the status command says the same, exit 0 (it only reads)
    status, stdout, _ = run_cli("sweep", "status", str(out))
    assert status == 0 and f"{failed} failed" in stdout and f"task {first['task']}" in stdout
    # resuming a file with failed rows computes nothing and still says so
    status, _, stderr = run_cli("sweep", "run", str(f), "--out", str(out), "--serial", "--resume")
    assert status == 1 and "0 computed" in stderr and "failed: each is a row" in stderr


# ------------------------------------------------------------------------------ paths
MODEL = ROOT / "examples" / "models" / "erlang2.toml"
ANY = 'analysis = "model-stability"\n[parameters]\nmu = 1\nlam = 1\ntheta = 2\n'


def any_model_spec(folder: Path, model_file: str, grid: str = "D = [1]") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return write(
        folder, "s.toml", ANY + f"model_file = {_toml_string(model_file)}\n[grid]\n{grid}\n"
    )


def test_a_model_file_beside_the_spec_runs_wherever_the_sweep_is_started(
    tmp_path, run_cli, monkeypatch
):
    """Relative to the spec's folder, not the current one; the result is the founding
    model's verdict at the same point (D = 1, theta = 2: stable)."""
    folder = tmp_path / "study"
    (folder / "models").mkdir(parents=True)
    (folder / "models" / "m.toml").write_text(MODEL.read_text())
    f = any_model_spec(folder, "models/m.toml", "D = [1, 8]")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    status, _, stderr = run_cli("sweep", "run", str(f), "--out", "o.parquet", "--serial")
    assert status == 0, stderr
    table = sweep.read_results(elsewhere / "o.parquet")
    import sympy as sp

    from symdelay.analysis.routh import routh_hurwitz
    from symdelay.core.symbols import gamma, lam, mu, r, theta
    from symdelay.models.erlang.charpoly import characteristic_polynomial

    for row in table.to_dict("records"):
        assert row["status"] == "ok"
        assert row["model_file"] == str((folder / "models" / "m.toml").resolve())
        D = sp.Rational(str(row["D"]))
        # the test's own oracle: Routh on the founding polynomial, nothing on the axis
        poly = characteristic_polynomial(2).subs({mu: 1, gamma: 2 / D, lam: 2, theta: 1})
        res = routh_hurwitz(sp.expand(poly), r)
        assert row["stable"] is (res.rhp_count == 0 and res.imaginary_axis_count == 0)


@pytest.mark.parametrize(
    "where",
    ["/etc/passwd", "../outside.toml", "link.toml", "sub/../../outside.toml", "fifo_outside"],
)
def test_a_path_outside_the_spec_folder_is_refused_before_anything_opens_it(
    tmp_path, run_cli, where
):
    folder = tmp_path / "study"
    folder.mkdir()
    (folder / "sub").mkdir()
    outside = tmp_path / "outside.toml"
    outside.write_text(MODEL.read_text())
    (folder / "link.toml").symlink_to(outside)  # inside by name, outside in fact
    if where == "fifo_outside":
        os.mkfifo(tmp_path / "fifo")  # opening it would block: it must not be opened
        where = str(tmp_path / "fifo")
    f = any_model_spec(folder, where)
    out = tmp_path / "o.parquet"
    t0 = time.monotonic()
    status, _, stderr = run_cli("sweep", "run", str(f), "--out", str(out), "--serial")
    assert status == 2 and time.monotonic() - t0 < 30
    line = one_line_error(stderr)
    assert "leads outside the spec's folder" in line and "--allow-path" in line
    assert not out.exists()


def test_allow_path_lets_a_folder_in_and_only_that_folder(tmp_path, run_cli):
    folder, models, other = tmp_path / "study", tmp_path / "models", tmp_path / "other"
    for d in (folder, models, other):
        d.mkdir()
    (models / "m.toml").write_text(MODEL.read_text())
    (other / "m.toml").write_text(MODEL.read_text())
    f = any_model_spec(folder, "../models/m.toml")
    out = tmp_path / "o.parquet"
    status, _, stderr = run_cli("sweep", "run", str(f), "--out", str(out), "--serial")
    assert status == 2 and "--allow-path" in one_line_error(stderr)
    status, _, stderr = run_cli(
        "sweep", "run", str(f), "--out", str(out), "--serial", "--allow-path", str(models)
    )
    assert status == 0, stderr
    assert sweep.read_results(out)["status"].tolist() == ["ok"]
    # another folder allowed does not let this one in; a grid is checked value by value
    g = any_model_spec(folder, "../models/m.toml")
    g.write_text(ANY + '[grid]\nmodel_file = ["../models/m.toml", "../other/m.toml"]\nD = [1]\n')
    status, _, stderr = run_cli(
        "sweep", "run", str(g), "--out", str(tmp_path / "g.parquet"), "--allow-path", str(models)
    )
    assert status == 2 and "'../other/m.toml' leads outside" in one_line_error(stderr)
    # a folder that does not exist is refused, not ignored
    status, _, stderr = run_cli(
        "sweep", "run", str(f), "--out", str(tmp_path / "h.parquet"), "--allow-path", "/nonexistent"
    )
    assert status == 2 and "--allow-path /nonexistent: no such folder" in one_line_error(stderr)


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ('"missing.toml"', "no such file"),
        ('"."', "not a regular file"),
        ("3", "give a file name"),
        ('""', "give a file name"),
        ('"fifo"', "not a regular file"),
    ],
)
def test_a_path_that_names_no_file_is_refused_in_one_line(tmp_path, run_cli, value, words):
    folder = tmp_path / "study"
    folder.mkdir()
    os.mkfifo(folder / "fifo")
    f = write(folder, "s.toml", ANY + f"model_file = {value}\n[grid]\nD = [1]\n")
    status, _, stderr = run_cli("sweep", "run", str(f), "--out", str(tmp_path / "o.parquet"))
    assert status == 2 and words in one_line_error(stderr)


def test_the_hash_covers_the_files_content_not_where_it_lies(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        d.mkdir()
        (d / "m.toml").write_text(MODEL.read_text())
    spec_a = sweep.load_spec(any_model_spec(a, "m.toml"))
    spec_b = sweep.load_spec(any_model_spec(b, "m.toml"))
    assert spec_a.hash == spec_b.hash  # the same study moved: --resume still matches
    (b / "m.toml").write_text(MODEL.read_text().replace("erlang", "Erlang", 1) + "\n")
    assert sweep.load_spec(b / "s.toml").hash != spec_a.hash  # the model changed


def test_a_dict_spec_is_relative_to_the_current_folder(tmp_path, monkeypatch):
    (tmp_path / "m.toml").write_text(MODEL.read_text())
    monkeypatch.chdir(tmp_path)
    spec = {
        "analysis": "model-stability",
        "parameters": {"model_file": "m.toml", "mu": 1, "lam": 1, "theta": 2},
        "grid": {"D": [1]},
    }
    assert sweep.Spec.from_dict(spec).task(0)["model_file"] == str(tmp_path / "m.toml")
    spec["parameters"]["model_file"] = str(MODEL)  # outside the current folder
    with pytest.raises(SymdelayInputError, match="leads outside"):
        sweep.Spec.from_dict(spec)
    ok = sweep.Spec.from_dict(spec, allow_paths=[MODEL.parent])
    assert ok.task(0)["model_file"] == str(MODEL)


def test_a_spec_file_that_is_a_fifo_is_refused_not_waited_on(tmp_path, run_cli):
    fifo = tmp_path / "s.toml"
    os.mkfifo(fifo)
    t0 = time.monotonic()
    status, _, stderr = run_cli("sweep", "run", str(fifo), "--out", str(tmp_path / "o.parquet"))
    assert status == 2 and "not a regular file" in one_line_error(stderr)
    assert time.monotonic() - t0 < 10


def test_the_embedded_cluster_listens_on_loopback_only():
    """Scheduler, workers and the dashboard (--dashboard) of the embedded LocalCluster: every
    listening socket of this process and its workers is on 127.0.0.1 (the dashboard
    listened on every interface)."""
    import psutil

    from symdelay.sweep.runner import _local_client

    client, cluster = _local_client(2, dashboard=True)
    try:
        me = psutil.Process()
        listening = [
            c.laddr
            for p in [me, *me.children(recursive=True)]
            for c in p.net_connections(kind="inet")
            if c.status == psutil.CONN_LISTEN
        ]
        dashboard = int(client.dashboard_link.split(":")[2].split("/")[0])
        assert dashboard in {a.port for a in listening}
        assert listening and all(a.ip == "127.0.0.1" for a in listening), listening
    finally:
        client.close()
        cluster.close()
