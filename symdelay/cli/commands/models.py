"""``symdelay models``: the built-in models and their parameters."""

from __future__ import annotations

from symdelay.cli.commands._common import emit, emit_json

__all__ = ["register", "run"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "models",
        help="list the built-in models (use one with --model NAME)",
        description="The built-in models, each a transition table analysed by the generic "
        "pipeline; a model of your own is a TOML file (--model-file, see examples/models/).",
    )
    p.add_argument("--json", action="store_true", help="print a JSON list")
    p.set_defaults(func=run)


def run(args) -> int:
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
