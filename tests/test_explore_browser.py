"""The explorer in a real browser: ``symdelay explore`` runs as a server in a subprocess,
headless Chromium (Selenium with Debian's chromedriver) opens the page, a slider is moved
through BokehJS, and the rightmost root the page then plots must be the one
:func:`symdelay.analysis.roots.roots` computes for the new point; Ctrl-C stops the server
with exit status 130 and one line.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
INSTALL = "apt-get install chromium chromium-driver (.ci/run installs them)"


def chromium_paths() -> tuple[str, str]:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver") or (
        "/usr/bin/chromedriver" if os.path.exists("/usr/bin/chromedriver") else None
    )
    if exe is None or driver is None:
        pytest.fail(f"headless Chromium and its driver are needed for the explorer test: {INSTALL}")
    return exe, driver


def start_server(*args: str):
    """``symdelay explore --port 0 --no-browser ARGS`` in a subprocess: ``(process, url)``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "symdelay", "explore", "--port", "0", "--no-browser", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    line = proc.stdout.readline()
    m = re.fullmatch(
        r"symdelay explore: serving (http://127\.0\.0\.1:(\d+)/) \(Ctrl-C stops\)\n", line
    )
    if m is None:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"no address printed: {line!r} {out!r} {err!r}")
    return proc, m.group(1)


def stop_server(proc) -> tuple[int, str]:
    """Ctrl-C (SIGINT) and the exit status and standard error it leaves."""
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        pytest.fail(f"the server did not stop on Ctrl-C: {err[-2000:]}")
    return proc.returncode, err


def browser(tmp_path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    exe, driver = chromium_paths()
    opts = webdriver.ChromeOptions()
    opts.binary_location = exe
    for a in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-extensions",
        "--window-size=1280,700",
        f"--user-data-dir={tmp_path / 'profile'}",
    ):
        opts.add_argument(a)
    return webdriver.Chrome(service=Service(executable_path=driver), options=opts)


def wait_for(drv, script: str, timeout: float = 60.0):
    """Run ``script`` (a JavaScript expression returning a value) until it is truthy."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = drv.execute_script(f"try {{ return ({script}); }} catch (e) {{ return null; }}")
        if value:
            return value
        time.sleep(0.1)
    pytest.fail(f"timed out waiting for: {script}")


def websocket_status(port: int, origin: str) -> int:
    """The HTTP status of a WebSocket handshake to the server from ``origin``."""
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request(
        "GET",
        "/ws",
        headers={
            "Origin": origin,
            "Connection": "Upgrade",
            "Upgrade": "websocket",
            "Sec-WebSocket-Version": "13",
            "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        },
    )
    status = conn.getresponse().status
    conn.close()
    return status


DOC = "Bokeh.documents[0]"
ROOTS = f"{DOC}.get_model_by_name('roots_source').data"
NF = f"{DOC}.get_model_by_name('normal_form').text"


def rightmost(drv) -> tuple[float, float]:
    """The rightmost plotted root (largest real part; the upper one of a pair)."""
    d = drv.execute_script(f"const d = {ROOTS}; return [Array.from(d.re), Array.from(d.im)];")
    re_, im_ = d
    i = max(range(len(re_)), key=lambda k: (re_[k], im_[k]))
    return re_[i], im_[i]


def library_rightmost(**options) -> tuple[float, float]:
    from symdelay.analysis.roots import roots
    from symdelay.models import build_model

    rs = roots(build_model("erlang", **options))
    z = max(rs.roots, key=lambda z: (z.value.real, z.value.imag))
    return float(z.value.real), float(z.value.imag)


def test_moving_a_slider_redraws_the_rightmost_root_the_library_computes(tmp_path):
    proc, url = start_server()
    drv = None
    try:
        drv = browser(tmp_path)
        drv.get(url)
        wait_for(drv, f"{DOC} && {ROOTS}.re.length > 0")
        start = rightmost(drv)
        want0 = library_rightmost(L=2, mu=1, lam=1, theta=2, D=1)
        assert abs(start[0] - want0[0]) < 1e-9 and abs(start[1] - want0[1]) < 1e-9
        assert start[0] < 0  # theta = 2 < theta_c = 9 at D = 1: stable
        # the normal-form readout arrives after the page is shown (symdelay.normal_form)
        wait_for(drv, f"{NF}.includes('l1 = ')")
        text = drv.execute_script(f"return {NF}")
        assert "theta_c = 9.0" in text and "supercritical" in text and "0.1481481" in text

        # theta past the Hopf boundary theta_c(D = 1) = 9: the rightmost pair crosses
        drv.execute_script(f"{DOC}.get_model_by_name('theta').value = 10.35")
        wait_for(drv, f"{ROOTS}.re.length > 0 && Math.max(...{ROOTS}.re) > 0")
        got = rightmost(drv)
        want = library_rightmost(L=2, mu=1, lam=1, theta="10.35", D=1)
        assert abs(got[0] - want[0]) < 1e-9 and abs(got[1] - want[1]) < 1e-9, (got, want)
        assert got[0] > 0
        # the status line is a model of its own, sent after the roots: wait for it too
        wait_for(drv, f"{DOC}.get_model_by_name('status').text.includes('theta = 10.35')")
        status = drv.execute_script(f"return {DOC}.get_model_by_name('status').text")
        assert "theta = 10.35" in status and "unstable" in status
        # the same Hopf point (cached), its amplitude law at the new theta: 4/27 sqrt(1.35)
        wait_for(drv, f"{NF}.includes('at theta = 10.35')")
        assert "A ~ 0.1721 by the law" in drv.execute_script(f"return {NF}")
        wait_for(drv, f"Array.from({DOC}.get_model_by_name('marker_source').data.y)[0] == 10.35")
        marker = drv.execute_script(
            f"const d = {DOC}.get_model_by_name('marker_source').data;"
            "return [Array.from(d.x)[0], Array.from(d.y)[0]];"
        )
        assert marker == [1.0, 10.35]

        # and L: an integer slider (five delay phases: six roots of the difference mode, and
        # the sum mode's -mu and -gamma)
        drv.execute_script(f"{DOC}.get_model_by_name('L').value = 5")
        wait_for(drv, f"{ROOTS}.re.length == 8")
        got = rightmost(drv)
        want = library_rightmost(L=5, mu=1, lam=1, theta="10.35", D=1)
        assert abs(got[0] - want[0]) < 1e-9 and abs(got[1] - want[1]) < 1e-9, (got, want)
        # the map's boundary followed L: theta_c(D) at L = 5 from the curve source
        curve = drv.execute_script(
            f"const d = {DOC}.get_model_by_name('map_curve_source').data;"
            "return [Array.from(d.x), Array.from(d.y)];"
        )
        from _hopf_helpers import float_curve

        th, _ = float_curve(5, 1, 1, curve[0])
        assert max(abs(a - b) for a, b in zip(th, curve[1])) < 1e-9

        if os.environ.get("SYMDELAY_EXPLORER_SCREENSHOT"):  # the docs' picture: with L = 5's
            wait_for(drv, f"{NF}.includes('at theta = 10.35')")  # readout (~4 s more)
        png = drv.get_screenshot_as_png()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20000
        (tmp_path / "explorer.png").write_bytes(png)
        if os.environ.get("SYMDELAY_EXPLORER_SCREENSHOT"):
            Path(os.environ["SYMDELAY_EXPLORER_SCREENSHOT"]).write_bytes(png)
    finally:
        if drv is not None:
            drv.quit()
        status, err = stop_server(proc)
    assert status == 130, err
    assert err == "symdelay: interrupted\n", err


def test_the_page_is_served_to_its_own_origin_only():
    """The server listens on 127.0.0.1 and its WebSocket refuses (403) a page from any other
    origin, also localhost on the same port (the browser above connected from the printed
    address)."""
    proc, url = start_server()
    try:
        port = int(url.rsplit(":", 1)[1].strip("/"))
        assert websocket_status(port, f"http://localhost:{port}") == 403
        assert websocket_status(port, "http://example.org") == 403
        assert websocket_status(port, f"http://127.0.0.1:{port + 1}") == 403
    finally:
        status, err = stop_server(proc)
    assert status == 130, err


def test_a_port_in_use_is_refused_in_one_line():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        res = subprocess.run(
            [sys.executable, "-m", "symdelay", "explore", "--port", str(port), "--no-browser"],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
    assert res.returncode == 2, res.stderr
    assert res.stderr.count("\n") == 1 and f"--port {port}" in res.stderr and "in use" in res.stderr
    assert res.stdout == ""
