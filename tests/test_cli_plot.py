"""``--plot FILE`` on the commands that compute a record with a figure: the file is a
non-empty image of the format its suffix names (checked by its signature), the figure the
command drew has a label on every axis, and a file it cannot write (another suffix, a
missing folder) is refused in one line before the work."""

from __future__ import annotations

import subprocess
import sys

import pytest

from symdelay.cli import main as cli_main
from symdelay.cli.commands import _common

FOUND = ["--L", "2", "--mu", "1", "--lam", "1"]

#: (command line, what it draws): small, fast runs of every command with --plot
RUNS = {
    "critical": ["critical", *FOUND, "--D", "geom:0.2:20:9"],
    "critical-generic": ["critical", "--model", "nserver", "--N", "3", *FOUND, "--D", "1,2"],
    "window": ["window", *FOUND, "--theta", "12"],
    "window-generic": ["window", "--model", "nserver", "--N", "3", *FOUND, "--theta", "12"],
    "map": ["map", *FOUND, "--x", "D=0.5:2", "--y", "theta=0:20", "--cells", "4", "--seeds", "3"],
    "roots": ["roots", *FOUND, "--theta", "2", "--D", "1", "--dps", "15"],
    "fluid": ["fluid", "--T", "4", "--dt", "0.5"],
    "simulate": ["simulate", "--T", "1", "--eta", "50"],
    "limit-cycle": ["limit-cycle", *FOUND, "--D", "1", "--theta", "10"],
    "limit-cycle-range": ["limit-cycle", *FOUND, "--D", "1", "--theta", "9.5:12:3"],
    "cycles": ["cycles", *FOUND, "--D", "1", "--theta", "8:9.5", "--max-points", "5"],
    "variance": ["variance"],
    "spectrum": ["spectrum", "--L", "1", *FOUND[2:], "--theta", "1", "--D", "1", "--points", "41"],
}

SIGNATURES = {
    "png": lambda b: b.startswith(b"\x89PNG\r\n\x1a\n"),
    "pdf": lambda b: b.startswith(b"%PDF-"),
    "svg": lambda b: b"<svg" in b[:2000],
}


def _run(capsys, argv):
    try:
        status = cli_main(argv)
    except SystemExit as exc:
        status = exc.code
    out = capsys.readouterr()
    return status, out.out, out.err


@pytest.fixture
def drawn(monkeypatch):
    """The figures the command line saved (through the one writer of --plot)."""
    figures = []
    save = _common.save_figure

    def keep(fig, *args, **kwargs):
        figures.append(fig)
        return save(fig, *args, **kwargs)

    monkeypatch.setattr(_common, "save_figure", keep)
    return figures


def _labelled(fig) -> list[str]:
    """The axes of ``fig`` without a label on an axis (a colour bar: its one label)."""
    missing = []
    for ax in fig.axes:
        if ax.get_label() == "<colorbar>":
            if not (ax.get_ylabel() or ax.get_xlabel()):
                missing.append("colorbar")
            continue
        if not ax.get_visible() or not ax.has_data():
            continue
        if not ax.get_xlabel():
            missing.append(f"x of {ax.get_title()!r}")
        if not ax.get_ylabel():
            missing.append(f"y of {ax.get_title()!r}")
    return missing


@pytest.mark.parametrize("name", sorted(RUNS))
def test_every_plot_is_an_image_with_labelled_axes(capsys, tmp_path, drawn, name):
    path = tmp_path / f"{name}.png"
    status, out, err = _run(capsys, [*RUNS[name], "--plot", str(path)])
    assert status == 0, err
    assert out.strip()  # the text output is still printed
    data = path.read_bytes()
    assert len(data) > 2000 and SIGNATURES["png"](data)
    assert len(drawn) == 1
    fig = drawn[0]
    assert fig.axes, name
    assert _labelled(fig) == [], name


@pytest.mark.parametrize("fmt", ["pdf", "svg", "PNG"])
@pytest.mark.parametrize("name", ["roots", "window", "critical"])
def test_the_suffix_is_the_format(capsys, tmp_path, fmt, name):
    path = tmp_path / f"figure.{fmt}"
    status, _, err = _run(capsys, [*RUNS[name], "--plot", str(path)])
    assert status == 0, err
    data = path.read_bytes()
    assert data and SIGNATURES[fmt.lower()](data)
    others = [k for k in SIGNATURES if k != fmt.lower()]
    assert not any(SIGNATURES[k](data) for k in others)


def test_plot_with_json_keeps_the_json(capsys, tmp_path):
    import json

    path = tmp_path / "r.svg"
    status, out, err = _run(capsys, [*RUNS["roots"], "--json", "--plot", str(path)])
    assert status == 0, err
    assert json.loads(out)["verdict"] == "stable"
    assert SIGNATURES["svg"](path.read_bytes())


@pytest.mark.parametrize("bad", ["figure.jpg", "figure", "figure.png.txt", ".png"])
def test_another_suffix_is_refused_in_one_line(capsys, tmp_path, bad):
    status, out, err = _run(capsys, [*RUNS["critical"], "--plot", str(tmp_path / bad)])
    assert status == 2 and not out
    assert err.count("\n") == 1 and "--plot" in err and ".png, .pdf or .svg" in err
    assert list(tmp_path.iterdir()) == []


def test_a_missing_folder_is_refused_before_the_work(capsys, tmp_path, monkeypatch):
    import symdelay.analysis.critical as crit

    def never(*args, **kwargs):  # pragma: no cover - the refusal comes first
        raise AssertionError("the work ran")

    monkeypatch.setattr(crit, "critical", never)
    status, out, err = _run(capsys, [*RUNS["critical"], "--plot", str(tmp_path / "no/f.png")])
    assert status == 2 and not out and err.count("\n") == 1 and "does not exist" in err


def test_a_command_without_a_figure_takes_no_plot(capsys):
    status, _, err = _run(capsys, ["stability", "--L", "2", "--plot", "x.png"])
    assert status == 2 and "--plot" in err


def test_a_run_without_plot_does_not_load_matplotlib():
    code = (
        "import sys, io, contextlib\n"
        "from symdelay.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['roots', '--L', '2', '--mu', '1', '--lam', '1', '--theta', '2', '--D', '1'])\n"
        "print('matplotlib' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
