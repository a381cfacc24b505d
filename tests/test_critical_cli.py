"""The critical theta from the command line, founding against generic (issue 31): the
founding model's ``critical --L 40`` and the phase-type model with an Erlang(40) delay,
``critical --model phase_type --delay erlang --L 40``, which the generic path answers (the
model prepared once, every delay solved from the factors of det(rI - J) with a proof), give
the same theta_c and omega digits at every delay and one record: the factor that carries
theta printed once, not per point (the speed of the two lives in
benchmarks/bench_critical_cli.py)."""

from __future__ import annotations

import json

from _parity import assert_same_record

from symdelay.core.parsing import parse_output

MODELS = {"founding": ["--L", "40"], "generic": ["--model", "phase_type", "--delay", "erlang"]}
DELAYS = [f"{0.05 * 1000 ** (i / 11):.6g}" for i in range(12)]  # 0.05 .. 50, log-spaced


def _critical(run_cli, which, delays, *more):
    args = MODELS[which] + (["--L", "40"] if which == "generic" else [])
    status, out, err = run_cli(
        "critical", *args, "--mu", "1", "--lam", "1", "--D", ",".join(delays), *more, "--json"
    )
    assert status == 0 and err == "", err
    return json.loads(out)


def test_the_two_commands_give_the_same_digits_and_one_record(run_cli):
    founding = _critical(run_cli, "founding", DELAYS)
    generic = _critical(run_cli, "generic", DELAYS)
    assert (founding["method"], generic["method"]) == ("specialised", "generic")
    # the contract keys, the same digits at every delay
    assert founding["L"] == generic["L"] == 40
    rows = [(p["D"], p["theta_c"], p["omega"]) for p in founding["points"]]
    assert rows == [(p["D"], p["theta_c"], p["omega"]) for p in generic["points"]]
    assert [p["D"] for p in founding["points"]] == DELAYS
    # one record: the same keys at every level (another model: its name, its options, its
    # family's closed forms: the founding family has none at L = 40, the phase-type none)
    assert set(founding["closed_forms"].values()) == {None} and generic["closed_forms"] is None
    for rec in (founding, generic):
        rec.pop("model"), rec.pop("parameters"), rec.pop("closed_forms")
    assert_same_record(founding, generic, 15)
    # the factor: printed once, the same polynomial (the founding closed form and the
    # expanded factor of the phase-type model's table)
    (f,), (g,) = founding["factors"], generic["factors"]
    assert (f["mode"], f["multiplicity"]) == (g["mode"], g["multiplicity"]) == ("difference", 1)
    assert "r**41" in g["factor"].replace(" ", "")
    assert all(set(p) == {"D", "theta_c", "omega", "mode"} for p in generic["points"])


def test_more_delays_add_no_factor_text(run_cli):
    """The record grows by its points only: the degree-41 factor appears once."""
    few = _critical(run_cli, "generic", DELAYS[:2])
    many = _critical(run_cli, "generic", DELAYS)
    size = len(json.dumps(many)) - len(json.dumps(few))
    assert size < 200 * (len(DELAYS) - 2)  # about 90 bytes a point
    assert json.dumps(many).count(many["factors"][0]["factor"]) == 1


def test_thirty_digits_agree_too(run_cli):
    a = _critical(run_cli, "founding", DELAYS[::4], "--dps", "30")
    b = _critical(run_cli, "generic", DELAYS[::4], "--dps", "30")
    assert [(p["theta_c"], p["omega"]) for p in a["points"]] == [
        (p["theta_c"], p["omega"]) for p in b["points"]
    ]
    assert len(a["points"][0]["theta_c"].replace(".", "").lstrip("0")) >= 30
    assert parse_output(b["factors"][0]["factor"]).free_symbols == {
        parse_output(s) for s in ("r", "theta", "gamma")
    }
