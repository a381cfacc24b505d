"""``symdelay models``: the built-in models and their parameters."""

from __future__ import annotations

from symdelay.cli.commands._common import emit, emit_json

__all__ = ["register", "run"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "models",
        help="list the built-in models (use one with --model NAME)",
        description="The built-in models, each a transition table analysed by the generic "
        "pipeline; a model of your own is a TOML file (--model-file, see examples/models/). "
        "--schema prints the JSON Schema of that file, which editors (taplo, Even Better TOML) "
        "use to check it.",
    )
    p.add_argument("--json", action="store_true", help="print a JSON list")
    p.add_argument(
        "--schema",
        action="store_true",
        not_with=("json",),
        help="print the JSON Schema of a model file (the file symdelay.model.schema_path() "
        "names) instead of the list",
    )
    p.set_defaults(func=run)


def run(args) -> int:
    if args.schema:
        from symdelay.model.toml_loader import schema_path

        emit(schema_path().read_text(encoding="utf-8"))
        return 0
    from symdelay.models import builtin_models

    records = [dict(m.INFO) for _, m in sorted(builtin_models().items())]
    if args.json:
        emit_json(records)
        return 0
    width = max(len(r["name"]) for r in records)
    emit(
        "\n".join(
            f"{r['name']:<{width}}  {r['description']}\n{'':<{width}}  parameters: "
            + ", ".join(r["parameters"])
            for r in records
        )
    )
    return 0
