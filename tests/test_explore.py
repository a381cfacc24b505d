"""The explorer's page without a browser: every option of ``symdelay explore`` takes effect
on the page it builds or is refused in one line (the option walk of tests/test_option_walk.py
cannot run a server), and the panels' data agree with independent paths: the shaded map with
the certified roots, the fluid panel's difference system with the full fluid ODEs, a model
file's coarse map with the founding model's closed form.
"""

from __future__ import annotations

import argparse
import random
from fractions import Fraction

import numpy as np
import pytest

from symdelay.cli import build_parser
from symdelay.cli import main as cli_main
from symdelay.core.errors import SymdelayInputError

FOUND = ["--L", "2", "--mu", "1", "--lam", "1", "--theta", "2", "--D", "1"]
NSERVER = ["--model", "nserver", "--N", "2", "--L", "1", "--mu", "1", "--lam", "1"]
FILE = ["--model-file", "examples/models/erlang2.toml", "--set", "gamma=1"]

#: a changed value for each option (by flag)
OTHER = {
    "--x": "mu",
    "--y": "lam",
    "--port": "5007",
    "--model": "hetero",
    "--model-file": "examples/models/erlang2.toml",
    "--set": "mu=2",
    "--L": "3",
    "--N": "3",
    "--mu": "2",
    "--lam": "0.5",
    "--theta": "3",
    "--D": "2",
    "--delay": "hypoexp",
    "--rates": "1,2",
    "--probs": "0.5,0.5",
    "--continue-probs": "0.5",
    "--alpha": "1,0",
    "--S": "[[-2,1],[0,-3]]",
}
AGAIN = {
    "--L": "4",
    "--mu": "3",
    "--lam": "0.75",
    "--theta": "4",
    "--D": "3",
    "--N": "4",
    "--model-file": "examples/models/hyperexp_delay.toml",
}


def _parser(argv):
    parser = build_parser(["explore", *argv])
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return parser, sub.choices["explore"]


def _flags(argv):
    _, p = _parser(argv)
    out = []
    for a in p._actions:
        flags = [s for s in a.option_strings if s.startswith("--")]
        if flags and flags[0] != "--help":
            out.append((flags[0], a.nargs != 0))
    return out


def page(argv):
    """What ``symdelay explore ARGV`` serves, without serving it: ``("refused", line)`` or
    ``("page", fingerprint)`` (port, browser, sliders, axes, the panels' data)."""
    from bokeh.document import Document

    from symdelay.cli import door
    from symdelay.cli.commands.explore import explorer_from_args, port_from_args
    from symdelay.outputs.explorer import build_document

    try:
        parser, _ = _parser(argv)
        args = parser.parse_args(["explore", *argv])
        door.check(args)
        port = port_from_args(args)
        ex = explorer_from_args(args)
        out = build_document(Document(), ex)
    except SystemExit as exc:  # argparse: one line, exit 2
        assert exc.code == 2
        return "refused", "argparse"
    except SymdelayInputError as exc:
        assert "\n" not in str(exc)
        return "refused", str(exc)
    src = out["sources"]
    fingerprint = (
        port,
        ex.open_browser,
        tuple((s.name, s.value, s.start, s.end) for s in ex.sliders),
        tuple(sorted(ex.fixed.items())),
        out["map"].xaxis[0].axis_label,
        out["map"].yaxis[0].axis_label,
        tuple(src["roots_source"].data["re"]),
        tuple(src["fluid_source"].data["x"][:50]),
        tuple(src["map_curve_source"].data["y"][:20]),
    )
    return "page", fingerprint


def _changed(argv, flag, takes_value):
    argv = list(argv)
    if not takes_value:
        return [*argv, flag]
    value = OTHER[flag]
    if flag in argv:
        i = argv.index(flag)
        argv[i + 1] = AGAIN.get(flag, value) if argv[i + 1] == value else value
        return argv
    return [*argv, flag, value]


BASES = [("founding", FOUND), ("nserver", NSERVER), ("file", FILE)]
CASES = [
    pytest.param(base, flag, takes, id=f"{name}|{flag}")
    for name, base in BASES
    for flag, takes in _flags(base)
]


@pytest.mark.parametrize(("base", "flag", "takes_value"), CASES)
def test_every_explore_option_takes_effect_or_is_refused(base, flag, takes_value):
    kind0, page0 = page(base)
    assert kind0 == "page", page0
    kind, got = page(_changed(base, flag, takes_value))
    if kind == "refused":
        return
    assert got != page0, f"{flag} changed nothing on the page"


def test_the_walk_knows_every_explore_option():
    """A new option of explore must get a changed value here (and so be walked)."""
    for _, base in BASES:
        for flag, takes in _flags(base):
            assert not takes or flag in OTHER, f"no changed value for {flag}: add one to OTHER"


def test_the_axes_options_move_the_map():
    kind, fp = page([*FOUND, "--x", "mu", "--y", "D"])
    assert kind == "page" and fp[4:6] == ("mu", "D")
    kind, fp = page(FOUND)
    assert fp[4:6] == ("D", "theta")  # the founding default
    kind, fp = page(FILE)
    assert fp[4:6] == ("gamma", "theta")  # a model without D: its phase rate


def test_an_axis_range_sets_the_map_and_its_slider():
    from bokeh.document import Document

    from symdelay.outputs.explorer import build_document

    ex = _explorer(x="D=0.5:4", y="theta=0:25")
    assert (ex.x, ex.y) == ("D", "theta")
    assert (ex.slider("D").start, ex.slider("D").end) == (0.5, 4.0)
    out = build_document(Document(), ex)
    assert (out["map"].x_range.start, out["map"].x_range.end) == (0.5, 4.0)
    assert (out["map"].y_range.start, out["map"].y_range.end) == (0, 25)
    assert (out["sliders"]["D"].start, out["sliders"]["D"].end) == (0.5, 4.0)
    curve = out["sources"]["map_curve_source"].data["x"]
    assert abs(curve[0] - 0.5) < 1e-12 and abs(curve[-1] - 4) < 1e-12


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--x", "D=4:0.5"], ["inverted"]),
        (["--x", "D=2:5"], ["does not hold the starting D = 1"]),
        (["--x", "D=0:5"], ["> 0"]),
        (["--x", "D=1"], ["NAME=LO:HI"]),
        (["--x", "L=1.5:4", "--y", "theta"], ["integers"]),
        (["--x", "kappa"], ["--x kappa", "choose one of L, mu, lam, theta, D"]),
        (["--y", "gamma"], ["--y gamma", "not a parameter"]),
        (["--x", "theta", "--y", "theta"], ["both theta"]),
        (["--port", "http"], ["--port"]),
        (["--port", "70000"], ["--port"]),
        (["--L", "inf"], ["finite L"]),
        (["--set", "mu=1"], ["--set"]),
    ],
)
def test_bad_explore_input_is_one_line_exit_2(capsys, argv, words):
    status = cli_main(["explore", "--no-browser", *argv])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and err.startswith("symdelay: error:"), err
    for w in words:
        assert w in err, err


def test_ctrl_c_while_serving_exits_130(capsys, monkeypatch):
    import symdelay.outputs.explorer as explorer

    def interrupted(ex, port, announce):
        announce(f"symdelay explore: serving http://127.0.0.1:{port}/ (Ctrl-C stops)")
        raise KeyboardInterrupt

    monkeypatch.setattr(explorer, "serve", interrupted)
    status = cli_main(["explore", "--no-browser", "--port", "5999"])
    out = capsys.readouterr()
    assert status == 130
    assert out.out == "symdelay explore: serving http://127.0.0.1:5999/ (Ctrl-C stops)\n"
    assert out.err == "symdelay: interrupted\n"


def _explorer(**kw):
    from symdelay.outputs.explorer import Explorer

    options = {"L": "3", "mu": "1", "lam": "1", "theta": "2", "D": "1"}
    options.update(kw.pop("options", {}))
    return Explorer("erlang", options, **kw)


def _unstable(state) -> bool:
    from symdelay.analysis.roots import roots
    from symdelay.models import build_model

    rs = roots(build_model("erlang", **state))
    return rs.unstable_count > 0


def test_the_shaded_side_of_the_boundary_is_where_the_certified_roots_are_unstable():
    """(D, theta): just below the plotted theta_c(D) the roots are all stable, just above
    one pair is unstable (the roots come from the Erlang branch structure, not the Hopf
    phase the curve solves)."""
    ex = _explorer()
    state = ex.initial_state
    m = ex.map_data(state)
    D, th = np.array(m["curve_x"]), np.array(m["curve_y"])
    rng = random.Random(3)
    for i in rng.sample(range(len(D)), 6):
        for factor, want in ((0.99, False), (1.01, True)):
            point = {**state, "D": repr(float(D[i])), "theta": repr(float(th[i] * factor))}
            assert _unstable(point) is want, point
    shade = m["shade"]
    assert shade["x"] == m["curve_x"] and shade["y2"][0] == ex.slider("theta").end


def test_the_shaded_cells_of_a_map_without_theta_agree_with_the_roots():
    """(mu, lam) at theta = 2, L = 3, D = 1: each shaded cell (theta > theta_c there) is a
    point where the certified roots are unstable, each clear cell one where they are not."""
    ex = _explorer(x="mu", y="lam")
    m = ex.map_data(ex.initial_state)
    img = np.array(m["image"]["image"][0])
    gx, gy = ex.axis_grid("mu", img.shape[1]), ex.axis_grid("lam", img.shape[0])
    assert 0 < img.sum() < img.size  # both sides are in the box
    rng = random.Random(5)
    cells = [(j, i) for j in range(img.shape[0]) for i in range(img.shape[1])]
    chosen = rng.sample([c for c in cells if img[c]], 5) + rng.sample(
        [c for c in cells if not img[c]], 5
    )
    for j, i in chosen:
        point = {**ex.initial_state, "mu": repr(float(gx[i])), "lam": repr(float(gy[j]))}
        assert _unstable(point) is bool(img[j, i]), point


def test_the_fluid_panel_is_the_full_fluid_system_from_the_same_start():
    """The panel integrates the closed difference system; the full 2(L+1) ODEs through the
    entry, from q1 = q* + e, q2 = q* - e and every phase at equilibrium, give the same
    q1 - q2 (the sum mode stays at equilibrium)."""
    from symdelay.analysis.fluid import fluid
    from symdelay.models import build_model
    from symdelay.outputs.explorer import FLUID_DT, FLUID_T, PERTURBATION

    for L, theta, D in ((2, "10.5", 0.7), (4, "3", 0.7), (6, "30", 0.2)):  # last: LSODA
        ex = _explorer(options={"L": str(L), "theta": theta, "lam": "1.5", "D": repr(D)})
        state = ex.initial_state
        panel = ex.fluid_data(state)
        q = 1.5 / 1.0  # q* = lam/mu
        z = 1.5 * D / L  # each phase: lam D/L
        e = PERTURBATION * q
        y0 = [q + e, q - e] + [z] * (2 * L)
        full = fluid(build_model("erlang", **state), T=FLUID_T, dt=FLUID_DT, initial=y0)
        assert np.allclose(panel["t"], full.t)
        assert np.max(np.abs(np.array(panel["x"]) - (full["q1"] - full["q2"]))) < 1e-6
        assert abs(panel["x"][0] - 2 * e) < 1e-15


def test_a_model_files_coarse_map_is_the_founding_closed_form():
    """The model file erlang2.toml is the founding model at L = 2 with gamma = 2/D: its
    first crossing from symdelay.analysis.critical at each gamma of the coarse grid equals
    theta_c(D) = (D + 2)^2 / D (mu = lam = 1)."""
    from symdelay.outputs.explorer import Explorer

    ex = Explorer(file="examples/models/erlang2.toml", settings={"gamma": "1"})
    state = ex.initial_state
    param, over, values, transposed = ex.generic_map_plan(state)
    assert (param, over, transposed) == ("theta", "gamma", False)
    for v in (values[3], values[5]):
        D = 2 / Fraction(v)
        assert abs(ex.generic_map_point(state, v) - float((D + 2) ** 2 / D)) < 1e-9


def test_a_generic_model_updates_its_panels():
    from symdelay.analysis.roots import roots
    from symdelay.models import build_model
    from symdelay.outputs.explorer import Explorer

    opts = {"N": "2", "L": "1", "mu": "1", "lam": "1", "theta": "2", "D": "1"}
    ex = Explorer("nserver", opts)
    assert (ex.x, ex.y, ex.founding) == ("D", "theta", False)
    out = ex.update({**ex.initial_state, "theta": "5.5"})
    assert not out["errors"] and out["map"] is None
    rs = roots(build_model("nserver", **{**opts, "theta": "5.5"}))
    top = max(float(z.value.real) for z in rs.roots)
    assert abs(max(out["roots"]["re"]) - top) < 1e-12
    assert out["marker"]["verdict"] == ["stable" if rs.is_stable else "unstable"]


# ------------------------------------------------------------ the server, over the wire
def _start_server():
    """``symdelay explore --port 0 --no-browser`` in a subprocess: ``(process, port)``."""
    import os
    import re
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root), "PYTHONUNBUFFERED": "1"}
    env.pop("SYMDELAY_DEBUG", None)
    env.pop("BOKEH_ALLOW_WS_ORIGIN", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "symdelay", "explore", "--port", "0", "--no-browser"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=root,
    )
    line = proc.stdout.readline()
    m = re.fullmatch(
        r"symdelay explore: serving http://127\.0\.0\.1:(\d+)/ \(Ctrl-C stops\)\n", line
    )
    if m is None:
        proc.kill()
        pytest.fail(f"no address printed: {line!r} {proc.communicate()}")
    return proc, int(m.group(1))


def _request(port: int, head: bytes, until: bytes | None = None, timeout: float = 60) -> bytes:
    """Send ``head`` (a raw request) and read the answer: a plain response until its body is
    complete or the server closes; an upgraded socket until ``until`` arrives, or else
    until the server is silent for 2 s."""
    import socket
    import time

    end = time.monotonic() + timeout
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(head)
        data = b""
        while time.monotonic() < end:
            upgraded = data.startswith(b"HTTP/1.1 101 ")
            s.settimeout(2 if upgraded and until is None else max(0.1, end - time.monotonic()))
            try:
                chunk = s.recv(65536)
            except TimeoutError:
                break
            if not chunk:
                break
            data += chunk
            if until is not None and until in data.replace(b" ", b""):
                break
            head_, sep, body = data.partition(b"\r\n\r\n")
            if sep and not data.startswith(b"HTTP/1.1 101 "):
                length = [
                    int(h.split(b":")[1])
                    for h in head_.split(b"\r\n")
                    if h.lower().startswith(b"content-length:")
                ]
                if length and len(body) >= length[0]:
                    break
        return data


def _get(port: int, host: str, path: str = "/", extra: dict | None = None) -> bytes:
    lines = [f"GET {path} HTTP/1.1", f"Host: {host}", "Connection: close"]
    lines += [f"{k}: {v}" for k, v in (extra or {}).items()]
    return _request(port, ("\r\n".join(lines) + "\r\n\r\n").encode())


def _status(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


def _upgrade(origin=None, protocol=None) -> dict:
    h = {
        "Upgrade": "websocket",
        "Connection": "Upgrade",
        "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    }
    if origin is not None:
        h["Origin"] = origin
    if protocol is not None:
        h["Sec-WebSocket-Protocol"] = protocol
    return h


def _frame(payload: bytes, opcode: int = 1) -> bytes:
    """A masked client frame (RFC 6455), mask zero."""
    n = len(payload)
    head = bytes([0x80 | opcode])
    if n < 126:
        head += bytes([0x80 | n])
    else:
        head += bytes([0x80 | 126]) + n.to_bytes(2, "big")
    return head + b"\0\0\0\0" + payload


@pytest.fixture(scope="module")
def server():
    import signal

    proc, port = _start_server()
    yield proc, port
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.communicate(timeout=30)
        except Exception:
            proc.kill()


def test_the_page_is_served_to_its_own_address(server):
    _, port = server
    ok = _get(port, f"127.0.0.1:{port}")
    assert _status(ok) == 200 and b"Bokeh" in ok


@pytest.mark.parametrize(
    "host",
    [
        "evil.example:{port}",  # a name rebound to 127.0.0.1
        "evil.example",
        "localhost:{port}",  # the page is served at the printed address only
        "127.0.0.1:{other}",
        "127.0.0.1",
        "127.0.0.1:{port}.evil.example",
        "[::1]:{port}",
        "0.0.0.0:{port}",
    ],
)
def test_a_request_for_another_host_is_refused(server, host):
    _, port = server
    answer = _get(port, host.format(port=port, other=port + 1))
    assert _status(answer) == 403 and b"Bokeh" not in answer
    assert f"serves http://127.0.0.1:{port}/ only".encode() in answer


@pytest.mark.parametrize(
    ("host", "origin"),
    [
        ("evil.example:{port}", "http://evil.example:{port}"),  # DNS rebinding: both match
        ("127.0.0.1:{port}", "http://evil.example:{port}"),
        ("127.0.0.1:{port}", "http://localhost:{port}"),
        ("127.0.0.1:{port}", "http://127.0.0.1:{other}"),
        ("127.0.0.1:{port}", "null"),
        ("127.0.0.1:{port}", "https://127.0.0.1:{port}"),
        ("127.0.0.1:{port}", "http://127.0.0.1:{port}.evil.example"),
    ],
)
def test_a_websocket_from_another_origin_is_refused(server, host, origin):
    _, port = server
    fmt = {"port": port, "other": port + 1}
    answer = _get(port, host.format(**fmt), "/ws", _upgrade(origin.format(**fmt), "bokeh, x"))
    assert _status(answer) == 403 and b"Switching Protocols" not in answer


def _token(port: int) -> str:
    import re

    page = _get(port, f"127.0.0.1:{port}").decode()
    m = re.search(r'"token":\s*"([^"]+)"', page)
    assert m, page[:500]
    return m.group(1)


def test_the_pages_own_websocket_opens(server):
    """The positive control: Bokeh's subprotocol with the page's token, from the page's
    origin, is switched and answered with Bokeh's ACK."""
    _, port = server
    here = f"127.0.0.1:{port}"
    head = [
        "GET /ws HTTP/1.1",
        f"Host: {here}",
        *[f"{k}: {v}" for k, v in _upgrade(f"http://{here}", f"bokeh, {_token(port)}").items()],
    ]
    answer = _request(port, ("\r\n".join(head) + "\r\n\r\n").encode(), until=b'"msgtype":"ACK"')
    assert _status(answer) == 101 and b'"msgtype":"ACK"' in answer.replace(b" ", b"")


def test_malformed_websocket_clients_leave_one_line_each_and_no_traceback(server):
    """Clients that break the protocol in several ways: each is closed, the server prints
    at most one line for it and no traceback, and the page is still served."""
    import signal
    import subprocess

    proc, port = server
    here = f"127.0.0.1:{port}"
    origin = f"http://{here}"
    token = _token(port)
    head = (
        "\r\n".join(
            ["GET /ws HTTP/1.1", f"Host: {here}"]
            + [f"{k}: {v}" for k, v in _upgrade(origin, f"bokeh, {token}").items()]
        )
        + "\r\n\r\n"
    ).encode()
    attempts = [
        _get(port, here, "/ws", _upgrade(origin)),  # no subprotocol
        _get(port, here, "/ws", _upgrade(origin, "bokeh")),  # no token
        _get(port, here, "/ws", _upgrade(origin, "bokeh, garbage")),  # not a token
        _get(port, here, "/ws", _upgrade(origin, "bokeh, eyJzZXNzaW9uX2lkIjoieCJ9")),
        _get(port, here, "/ws", _upgrade(origin, "bokeh, " + "A" * 5000)),
        _get(
            port,
            here,
            "/ws",
            {**_upgrade(origin, f"bokeh, {token}"), "Sec-WebSocket-Version": "99"},
        ),
        _get(port, here, "/ws", {**_upgrade(origin, f"bokeh, {token}"), "Sec-WebSocket-Key": "x"}),
        _request(port, head + _frame(b"\xff\xfe not utf-8")),  # invalid text frame
        _request(port, head + _frame(b'{"not": "a bokeh message"}')),
        _request(port, head + _frame(b"x" * 200, opcode=2)),  # a binary frame out of place
        _request(port, head + b"\x81\xff" + b"\xff" * 8),  # a frame claiming 2^64 bytes
        _request(port, head + b"\x0f\x80\0\0\0\0"),  # a reserved opcode
        _request(port, b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 TLS to a plain port\r\n\r\n"),
        _request(
            port, b"GET /ws HTTP/1.1\r\nHost: " + here.encode() + b"\r\nUpgrade: websocket\r\n\r\n"
        ),
    ]
    assert all(isinstance(a, bytes) for a in attempts)
    assert _status(_get(port, here)) == 200  # still serving
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        pytest.fail(f"the server did not stop on Ctrl-C: {err[-2000:]}")
    assert proc.returncode == 130, err
    assert "Traceback" not in err, err
    lines = err.splitlines()
    assert lines[-1] == "symdelay: interrupted", err
    assert all(line.startswith("symdelay") for line in lines), err
    assert len(lines) <= len(attempts) + 1, err
