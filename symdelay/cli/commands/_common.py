"""Helpers shared by the sub-commands: argument types and output."""

from __future__ import annotations

import json
import sys

__all__ = ["emit_json", "emit"]


def emit_json(obj) -> None:
    """Print one JSON object on stdout."""
    json.dump(obj, sys.stdout, indent=None, separators=(", ", ": "))
    sys.stdout.write("\n")


def emit(text: str) -> None:
    """Print human-readable output."""
    sys.stdout.write(text.rstrip("\n") + "\n")
