"""parse_expression(any_identifier=True) and parse_output: any name, same safety, round trips."""

from __future__ import annotations

import json
import re

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from symdelay import SymdelayInputError, routh_hurwitz
from symdelay.analysis.routh import EPSILON
from symdelay.core.parsing import parse_expression, parse_output
from symdelay.core.symbols import SYMBOLS, gamma, lam
from symdelay.founding import characteristic_polynomial


# ------------------------------------------------------------ any identifier
@pytest.mark.parametrize("name", ["K", "a_1", "tau", "b_0", "Kp", "x2", "_k", "alpha", "beta"])
def test_any_identifier_is_a_plain_symbol(name):
    expr = parse_expression(f"2*{name} + 1", any_identifier=True)
    assert expr == 2 * sp.Symbol(name) + 1


def test_canonical_names_and_constants():
    expr = parse_expression("gamma*lam + pi + E", any_identifier=True)
    assert expr == gamma * lam + sp.pi + sp.E
    assert expr.free_symbols == {SYMBOLS["gamma"], SYMBOLS["lam"]}
    s = sp.Symbol("s", real=True)  # a given symbol is used as it is
    assert parse_expression("s**2", variables=[s], any_identifier=True) == s**2


def test_fixed_vocabulary_is_unchanged_without_opt_in():
    with pytest.raises(SymdelayInputError, match="unknown symbol 'K'"):
        parse_expression("K + 1")
    with pytest.raises(SymdelayInputError, match="unknown symbol 'pi'"):
        parse_expression("mu + pi")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("__import__('os')", "'__import__'"),
        ("__class__", "'__class__'"),
        ("K.__class__", "attribute access"),
        ("K.real", "attribute access"),
        ("getattr(K, 'x')", "'getattr'"),
        ("K(1)", "'K'"),
        ("(lambda: 1)()", "computed calls"),
        ("[K][0]", "Subscript"),
        ("'K'", "'K'"),
        ("K if K else 1", "IfExp"),
        ("exp + 1", "'exp' is a function"),
        ("sqrt", "'sqrt' is a function"),
        ("oo + 1", "reserved"),
        ("K/0", "division by zero"),
        ("K**100000", "power above"),
        ("(K > 1) + 1", "cannot evaluate"),
        ("K +", "cannot parse"),
    ],
)
def test_any_identifier_keeps_the_safety_rules(text, words):
    with pytest.raises(SymdelayInputError, match=re.escape(words)) as info:
        parse_expression(text, any_identifier=True)
    assert "\n" not in str(info.value)


def test_long_sums_parse(tmp_path):
    names = [f"k{i}" for i in range(2500)]  # ~16000 characters, under the limit
    text = " - ".join(names)
    expected = sp.Symbol(names[0]) - sp.Add(*[sp.Symbol(n) for n in names[1:]])
    assert parse_expression(text, any_identifier=True) == expected
    deep = "(" * 400 + "K" + ")" * 400
    with pytest.raises(SymdelayInputError) as info:
        parse_expression(deep, any_identifier=True)
    assert "\n" not in str(info.value)


# ------------------------------------------------------------ parse_output
def test_plain_sympify_misreads_and_parse_output_does_not():
    text = str(characteristic_polynomial(3))
    with pytest.raises(TypeError):  # gamma is the Gamma function: gamma**3 fails
        sp.sympify(text)
    assert parse_output(text) == characteristic_polynomial(3)
    assert sp.sympify("gamma") != parse_output("gamma") == gamma


def _reference(text):
    """SymPy's own parser with every name bound to a plain symbol (an independent path)."""
    called = set(re.findall(r"([A-Za-z_]\w*)\s*\(", text))
    names = {n: sp.Symbol(n) for n in re.findall(r"[A-Za-z_]\w*", text) if n not in called}
    for n in ("pi", "E", "I", "oo", "True", "False"):
        names.pop(n, None)
    names.update(SYMBOLS)
    return sp.sympify(text, locals=names)


def _same(ours, text):
    ref = _reference(text)
    if ours == ref:
        return True
    # sympify evaluates relations between numbers ('3 > 0' -> True); we keep them as printed
    return ours.doit() == ref


def _strings(obj):
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, list):
        for x in obj:
            yield from _strings(x)
    elif isinstance(obj, dict):
        for k, x in obj.items():
            if not str(k).endswith("latex"):  # LaTeX is for typesetting, not for parsing
                yield from _strings(x)


@pytest.mark.parametrize(
    "argv",
    [
        ["charpoly", "--L", "3"],
        ["charpoly", "--L", "L"],
        ["charpoly", "--L", "inf"],
        ["stability", "--L", "2"],
        ["routh", "s**4 + s**3 + 3*s**2 + 3*s + 3"],
        ["routh", "r**3 + mu*r**2 + gamma*r + lam", "--var", "r"],
        ["routh", "s**3 + K*s**2 + sqrt(2)*s + pi/a"],
    ],
)
def test_json_strings_round_trip(run_cli, argv):
    status, out, _ = run_cli(*argv, "--json")
    assert status == 0
    data = json.loads(out)
    prose = {"latex", "theta_negative", "var", "model", "symdelay_version"}
    checked = 0
    for key, value in data.items():
        if key in prose or key.endswith("_latex"):
            continue
        for text in _strings(value):
            ours = parse_output(text)
            assert _same(ours, text), (key, text)
            assert str(ours) == text or sp.srepr(parse_output(str(ours))) == sp.srepr(ours)
            checked += 1
    assert checked


def test_routh_json_parses_back_to_the_objects():
    res = routh_hurwitz("s**4 + s**3 + 3*s**2 + 3*s + 3 + K", "s")
    data = res.to_json()
    names = {"epsilon": EPSILON}
    assert [parse_output(c) for c in data["conditions"]] == list(res.conditions)
    for row_text, row in zip(data["table"], res.table):
        assert [parse_output(x, names) for x in row_text] == list(row)
    eps = routh_hurwitz("s**4 + s**3 + 3*s**2 + 3*s + 3", "s")
    table = eps.to_json()["table"]
    assert [[parse_output(x, names) for x in row] for row in table] == [list(r) for r in eps.table]


def test_stability_json_parses_back_to_the_objects(run_cli):
    from symdelay.founding import stability_conditions

    res = stability_conditions(2)
    data = json.loads(run_cli("stability", "--L", "2", "--json")[1])
    cf = res.closed_forms
    assert parse_output(data["critical_lam_theta"]) == cf["critical_lam_theta"]
    forms = data["closed_forms"]
    assert parse_output(forms["oscillation_condition"]) == cf["oscillation_condition"]
    assert [parse_output(c) for c in data["conditions"]] == list(res.conditions)
    assert [parse_output(c) for c in forms["routh_conditions"]] == list(cf["routh_conditions"])


names = st.sampled_from(["r", "mu", "lam", "theta", "gamma", "D", "L", "eta", "K", "a_1", "beta"])
leaves = st.one_of(
    names.map(lambda n: SYMBOLS.get(n, sp.Symbol(n))),
    st.integers(-50, 50).map(sp.Integer),
    st.tuples(st.integers(-9, 9), st.integers(1, 9)).map(lambda t: sp.Rational(*t)),
    st.sampled_from([sp.pi, sp.E, sp.sqrt(2)]),
)


def _small(e) -> bool:
    """Numbers that SymPy handles instantly (``sqrt`` of a huge integer factors it)."""
    return all(abs(n.p) < 10**6 and n.q < 10**6 for n in e.atoms(sp.Rational))


def _unary(f):
    # only of symbolic arguments: SymPy decides 'exp(exp(exp(exp(pi)))) > 1' numerically
    return lambda e: f(e) if e.free_symbols and _small(e) else e


def _extend(children):
    return st.one_of(
        st.tuples(children, children).map(lambda t: t[0] + t[1]),
        st.tuples(children, children).map(lambda t: t[0] * t[1]),
        st.tuples(children, st.integers(-2, 2)).map(
            lambda t: t[0] ** t[1] if t[0] != 0 and _small(t[0]) else t[0]
        ),
        children.map(_unary(sp.exp)),
        children.map(_unary(sp.sqrt)),
        children.map(_unary(sp.tanh)),
    )


expressions = st.recursive(leaves, _extend, max_leaves=8)


@settings(max_examples=80, deadline=None)
@given(expr=expressions, other=expressions, relation=st.booleans())
def test_printed_expressions_parse_back(expr, other, relation):
    """str() of random expressions (and relations of them) parses back as SymPy reads it."""
    if relation:
        expr = sp.StrictGreaterThan(expr, other, evaluate=False)
    if expr.has(sp.zoo, sp.nan, sp.oo, -sp.oo, sp.I):
        return
    text = str(expr)
    ours = parse_output(text)
    assert _same(ours, text)
    if _reference(text) == expr:  # SymPy's printer round-trips this one: so must we
        assert ours == expr
