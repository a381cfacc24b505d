"""``symdelay analyze``: the whole pipeline for any model (a TOML file or a built-in)."""

from __future__ import annotations

from pathlib import Path

from symdelay.cli import door
from symdelay.cli.commands._common import add_common, emit, emit_json
from symdelay.core.errors import SymdelayInputError

__all__ = ["register", "run"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "analyze",
        help="equilibrium, Jacobian, modes, factored characteristic polynomial, stability",
        description="Derive everything from a model's transition table: the fluid drift, the "
        "equilibrium (solved, or proved numerically), the Jacobian, the modes of its symmetry, "
        "the factored characteristic polynomial and its Routh-Hurwitz conditions. Give a "
        "model file (TOML) or --model NAME with its options.",
    )
    p.add_argument("file", nargs="?", default=None, help="model file (TOML); or use --model")
    p.add_argument("--tex", default=None, metavar="OUT.tex", help="write the derivation as LaTeX")
    add_common(p, run, force=True)


def run(args) -> int:
    if args.file:
        if args.model_file:
            raise SymdelayInputError("give the model file once (positional or --model-file)")
        args.model_file = args.file
    from symdelay.analysis.roots import check_analysis_cost
    from symdelay.analysis.stability import model_record, stability, window_lines
    from symdelay.model import Model

    model = door.model_from_args(args)
    if isinstance(model, Model):
        check_analysis_cost(model, force=args.force)
    record = model_record(model) if isinstance(model, Model) else model.to_json()

    if not isinstance(model, Model):  # a delay-differential model: no transition table
        if args.tex:
            raise SymdelayInputError(
                f"--tex is for transition-table models; {model.name} has no derivation document"
            )
        if args.json:
            emit_json(record)
        else:
            emit(
                f"{record['name']}\n\ncharacteristic function: "
                f"{record['characteristic_function']} = 0\nequations:\n"
                + "\n".join(f"  {e}" for e in record["equations"])
            )
        return 0
    if args.tex:
        from symdelay.outputs.model_tex import model_document

        path = Path(args.tex)
        try:
            path.write_text(model_document(model))
        except OSError as exc:
            raise SymdelayInputError(
                f"cannot write {args.tex}: {exc.strerror}; choose a writable path"
            ) from None
    if args.json:
        emit_json(record)
        return 0
    lines = [record["name"], "", "equilibrium:"]
    lines += [f"  {k} = {v}" for k, v in record["equilibrium"].items()]
    if record.get("lags"):
        lines.append("lags:")
        lines += [f"  {k}: {v['kind']}, K(r) = {v['laplace']}" for k, v in record["lags"].items()]
        lines += [f"  in transit ({k}): {v}" for k, v in record.get("in_transit", {}).items()]
    polynomial = all("exp(" not in f["factor"] for f in record["factors"])
    head = "polynomial" if polynomial else "function"
    lines.append(f"characteristic {head} factors:")
    for f in record["factors"]:
        mult = f" (x{f['multiplicity']})" if f["multiplicity"] > 1 else ""
        lines.append(f"  [{f['mode']}] {f['factor']}{mult}")
    st = record["stability"]
    lines.append("stability conditions:" if st["conditions"] else "stability conditions: none")
    lines += [f"  {c}" for c in st["conditions"]]
    if st.get("note") and st.get("delay_independent") is None:  # refused: why
        lines.append(f"verdict: {st['note']}")
    else:
        lines.append(f"verdict: {stability(model).verdict_text()}")
    lines += window_lines(st.get("for_every_lag"))
    if args.tex:
        lines.append(f"wrote {args.tex}")
    emit("\n".join(lines))
    return 0
