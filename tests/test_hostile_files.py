"""Hostile model files, expressions and options: one line naming the file and entry, exit 2.

Every CLI case runs ``symdelay.cli.main`` in-process and checks the status, that stderr is
exactly one line, that it names what is wrong, and that no traceback was printed; every API
case checks that a ``ValueError`` subclass is raised with the name in its message.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import sympy as sp

from symdelay.cli import main
from symdelay.core.errors import SymdelayInputError
from symdelay.core.parsing import parse_expression, parse_relational
from symdelay.model import Model, load_toml
from symdelay.model.toml_loader import MAX_FILE_BYTES
from symdelay.models import build_model, model_options

ERLANG2 = Path(__file__).resolve().parent.parent / "examples" / "models" / "erlang2.toml"

#: A model without the founding names theta, gamma, D (one state x, parameters a, b).
BIRTH_DEATH = """
name = "birth-death"
[parameters]
a = "positive"
b = "positive"
[state]
names = ["x"]
[[transitions]]
name = "birth"
change = { x = 1 }
rate = "RATE"
[[transitions]]
name = "death"
change = { x = -1 }
rate = "b*x"
"""


def one_line_error(capsys, argv, *needles):
    """Run the CLI; assert exit 2, one stderr line, no traceback, every needle in it."""
    status = main([str(a) for a in argv])
    err = capsys.readouterr().err
    assert status == 2, err
    assert "Traceback" not in err
    lines = err.strip("\n").split("\n")
    assert len(lines) == 1, err
    assert lines[0].startswith("symdelay: error: ")
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def birth_death(tmp_path, rate, name="bd.toml"):
    path = tmp_path / name
    path.write_text(BIRTH_DEATH.replace("RATE", rate))
    return path


def with_rate(tmp_path, old, new, name="m.toml"):
    text = ERLANG2.read_text()
    assert old in text
    path = tmp_path / name
    path.write_text(text.replace(old, new))
    return path


# ------------------------------------------------------------------ files that are not files


def test_latin1_file(tmp_path, capsys):
    path = tmp_path / "latin1.toml"
    path.write_bytes('name = "café"\n'.encode("latin-1"))
    one_line_error(capsys, ["analyze", path], str(path), "UTF-8", "line 1")
    with pytest.raises(SymdelayInputError, match="UTF-8"):
        load_toml(path)


def test_directory(tmp_path, capsys):
    one_line_error(capsys, ["analyze", tmp_path], str(tmp_path), "directory")


def test_dev_zero_is_refused_without_reading():
    with pytest.raises(SymdelayInputError, match="/dev/zero: not a regular file"):
        load_toml("/dev/zero")


def test_fifo_is_refused_without_blocking(tmp_path, capsys):
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)  # opening it for reading would block forever
    one_line_error(capsys, ["analyze", fifo], str(fifo), "not a regular file")


def test_proc_self_mem(capsys):
    # a regular-looking file whose read fails with EIO (was an OSError traceback)
    one_line_error(capsys, ["analyze", "/proc/self/mem"], "/proc/self/mem")


def test_too_large_file(tmp_path, capsys):
    path = tmp_path / "big.toml"
    with open(path, "wb") as fh:
        fh.truncate(MAX_FILE_BYTES + 1)  # sparse: nothing is written
    one_line_error(capsys, ["analyze", path], str(path), str(MAX_FILE_BYTES))


def test_file_at_the_size_cap_is_read(tmp_path):
    # padding with a comment up to the cap: the model still loads, the same as the original
    text = ERLANG2.read_text()
    pad = MAX_FILE_BYTES - len(text.encode()) - 2
    path = tmp_path / "padded.toml"
    path.write_text(text + "\n#" + "x" * pad)
    assert path.stat().st_size == MAX_FILE_BYTES
    assert load_toml(path).charpoly == load_toml(ERLANG2).charpoly


def test_not_toml(tmp_path, capsys):
    path = tmp_path / "bad.toml"
    path.write_text("name = = 3\n")
    one_line_error(capsys, ["analyze", path], str(path), "not valid TOML")


def test_toml_nested_too_deeply(tmp_path, capsys):
    path = tmp_path / "deep.toml"
    path.write_text("name = " + "[" * 5000 + "]" * 5000 + "\n")
    one_line_error(capsys, ["analyze", path], str(path), "TOML")


def test_values_table_of_the_wrong_type(tmp_path, capsys):
    path = tmp_path / "v.toml"
    path.write_text("values = 3\n" + ERLANG2.read_text())
    one_line_error(capsys, ["analyze", path], str(path), "[values]")


# ------------------------------------------------------------------ expressions


def test_80kb_rate_is_refused(tmp_path, capsys):
    path = with_rate(tmp_path, 'rate = "mu*q1"', 'rate = "mu*q1' + "+lam" * 20_000 + '"')
    one_line_error(capsys, ["analyze", path], str(path), "'service 1'", "longer than")


def test_long_flat_sum_under_the_cap_is_read_exactly(tmp_path):
    # 1500 terms mu*q1/1500 (under the length cap, over Python's AST nesting): the same
    # model as the shipped file, compared through its characteristic polynomial
    terms = "+".join(["mu*q1/1500"] * 1500)
    path = with_rate(tmp_path, 'rate = "mu*q1"', f'rate = "{terms}"')
    m, ref = load_toml(path), load_toml(ERLANG2)
    assert m.transitions[6].rate == sp.Symbol("mu") * sp.Symbol("q1")
    assert sp.expand(m.charpoly - ref.charpoly) == 0


def test_deep_rate_is_refused(tmp_path, capsys):
    deep = "mu*q1*" + "exp(" * 70 + "mu" + ")" * 70
    path = with_rate(tmp_path, 'rate = "mu*q1"', f'rate = "{deep}"')
    one_line_error(capsys, ["analyze", path], str(path), "'service 1'", "nested more than")


def test_tower_of_exponentials_does_not_grow_without_bound():
    # exp(exp(exp(a))) at a ~ 990 has ~10^430 digits: the rate check must skip the point,
    # not compute it (it used to take all memory). Run with a 2 GB address-space cap.
    code = (
        "from symdelay.model import Model\n"
        "m = Model('bd', ['x'], {'a': 'positive', 'b': 'positive'},"
        " [('birth', {'x': 1}, 'a*exp(exp(exp(a)))'), ('death', {'x': -1}, 'b*x')])\n"
        "print(m.drift[0])\n"
    )

    def cap():
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (2 * 1024**3, 2 * 1024**3))

    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=cap,
        env={**os.environ, "PYTHONPATH": str(ERLANG2.parent.parent.parent)},
    )
    assert out.returncode == 0, out.stderr[-2000:]
    a, b, x = sp.symbols("a b x")
    assert parse_expression(out.stdout.strip(), ["x", "a", "b"]) == (
        a * sp.exp(sp.exp(sp.exp(a))) - b * x
    )


def test_rate_errors_list_only_the_models_names(tmp_path, capsys):
    path = birth_death(tmp_path, "a*foo(x)")
    line = one_line_error(capsys, ["analyze", path], str(path), "'birth'", "x, a, b")
    for absent in ("theta", "gamma", "r,", " D"):
        assert absent not in line, line
    path = birth_death(tmp_path, "a + c*x", "bd2.toml")
    line = one_line_error(capsys, ["analyze", path], str(path), "'c'", "x, a, b")
    assert "theta" not in line and "gamma" not in line


def test_canonical_name_the_model_lacks_is_unknown(tmp_path, capsys):
    path = birth_death(tmp_path, "a*theta")
    one_line_error(capsys, ["analyze", path], str(path), "'theta'", "x, a, b")


def test_bad_values_string_keeps_the_file_name(tmp_path, capsys):
    path = tmp_path / "v.toml"
    path.write_text(ERLANG2.read_text().replace("[state]", '[values]\nmu = "1+"\n\n[state]'))
    one_line_error(capsys, ["analyze", path], str(path), "mu", "cannot parse")
    with pytest.raises(SymdelayInputError, match=str(path)):
        load_toml(path)


def test_set_value_is_held_to_the_caps(capsys):
    deep = "mu=" + "-" * 100 + "1"
    # a --set value that stands for a number is read as one (the door's rule), not parsed
    one_line_error(capsys, ["analyze", ERLANG2, "--set", deep], "--set mu", "must be a number")
    long = "mu=" + "+".join(["1"] * 15_000)
    one_line_error(capsys, ["analyze", ERLANG2, "--set", long], "--set mu", "not read here")


def test_claim_is_held_to_the_caps(capsys):
    deep = "exp(" * 70 + "mu" + ")" * 70 + " < lam"
    one_line_error(capsys, ["verify", "--L", "1", "--claim", deep], "nested more than")
    long = " + ".join(["mu"] * 6000) + " < lam"
    one_line_error(capsys, ["verify", "--L", "1", "--claim", long], "longer than")


def test_depth_cap_counts_flattened_chains_once():
    # a flat chain of 500 sums and products is shallow; 61 nested calls are not
    assert parse_expression("*".join(["mu"] * 200)) == sp.Symbol("mu") ** 200
    with pytest.raises(SymdelayInputError, match="nested more than 60"):
        parse_expression("sqrt(" * 61 + "mu" + ")" * 61)
    nested = "sqrt(" * 59 + "mu" + ")" * 59
    assert parse_expression(nested) == sp.Symbol("mu") ** sp.Rational(1, 2**59)
    with pytest.raises(SymdelayInputError, match="nested more than"):
        parse_relational("mu < " + "-(" * 70 + "lam" + ")" * 70)


def test_error_line_is_one_line_for_multiline_text():
    with pytest.raises(SymdelayInputError) as info:
        parse_expression("mu\n+\n")
    assert "\n" not in str(info.value)


# ------------------------------------------------------------------ build_model options


def test_unknown_option_names_it_and_lists_the_models_options(capsys):
    with pytest.raises(SymdelayInputError) as info:
        build_model("erlang", frob=1)
    msg = str(info.value)
    assert "'frob'" in msg and "L, mu, lam, theta, D" in msg
    with pytest.raises(SymdelayInputError, match=r"'frob'.*d, K, lam, service"):
        build_model("sqd", frob=1)  # its model() swallowed unknown keywords


def test_model_options_are_the_signature():
    import inspect

    from symdelay.models import builtin_models

    for name, module in builtin_models().items():
        params = inspect.signature(module.model).parameters
        assert set(model_options(name)) == {
            p for p, v in params.items() if v.kind is not inspect.Parameter.VAR_KEYWORD
        }


def test_bad_value_names_the_option(capsys):
    with pytest.raises(SymdelayInputError, match=r"^mu2 must be positive, got -2$"):
        build_model("hetero", mu2=-2, D=1)
    with pytest.raises(SymdelayInputError, match=r"^D1 must be positive, got -1$"):
        build_model("hetero", D1=-1, D2=1)
    with pytest.raises(SymdelayInputError, match="mu1"):
        build_model("hetero", mu1="x", D=1)
    with pytest.raises(SymdelayInputError, match="kappa"):
        build_model("inflight", kappa=None)
    one_line_error(capsys, ["analyze", "--model", "hetero", "--mu2", "-2", "--D", "1"], "mu2")
    one_line_error(capsys, ["analyze", "--model", "hetero", "--D1", "-1", "--D2", "1"], "D1")


def test_sympy_numbers_are_checked_too():
    with pytest.raises(SymdelayInputError, match="mu must be positive"):
        build_model("erlang", mu=sp.Integer(-2))


def test_phase_type_options_are_explicit():
    from symdelay.models.phase_type import PhaseType

    d = PhaseType.erlang(2, 1)
    three = build_model("phase_type", delay=d, N=3, mu=1, lam=1, theta=1)
    assert len(three.states) == 3 * 3
    with pytest.raises(SymdelayInputError, match="'L'"):
        build_model("phase_type", delay=d, L=2)


def test_model_values_from_floats_are_their_decimals():
    m = Model(
        "bd",
        ["x"],
        {"a": "positive", "b": "positive"},
        [("birth", {"x": 1}, "a"), ("death", {"x": -1}, "b*x")],
        values={"a": sp.Float("0.1")},
    )
    assert m.values[sp.Symbol("a")] == sp.Rational(1, 10)


def test_huge_integer_in_toml(tmp_path, capsys):
    path = tmp_path / "int.toml"
    path.write_text(
        ERLANG2.read_text().replace("[state]", "[values]\nmu = " + "9" * 5000 + "\n\n[state]")
    )
    one_line_error(capsys, ["analyze", path], str(path), "not valid TOML")


def test_numbers_in_a_model_are_capped_in_digits(tmp_path, capsys):
    # factoring the characteristic polynomial grows with its coefficients' size
    path = tmp_path / "v.toml"
    path.write_text(
        ERLANG2.read_text().replace("[state]", '[values]\nmu = "' + "9" * 101 + '/7"\n\n[state]')
    )
    one_line_error(capsys, ["analyze", path], str(path), "mu", "more than 100 digits")
    path = with_rate(tmp_path, 'rate = "mu*q1"', 'rate = "' + "3" * 150 + '*mu*q1"', "r.toml")
    one_line_error(capsys, ["analyze", path], str(path), "'service 1'", "more than 100 digits")
    # 100 digits are accepted, exactly
    path.write_text(
        ERLANG2.read_text().replace("[state]", '[values]\nmu = "' + "9" * 100 + '/7"\n\n[state]')
    )
    m = load_toml(path)
    assert m.values[sp.Symbol("mu")] == sp.Rational(10**100 - 1, 7)
