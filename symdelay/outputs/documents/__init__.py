"""Standalone LaTeX documents written by ``symdelay derive`` into ``derivations/``.

A document module defines ``FILENAME`` (e.g. ``"stability.tex"``) and ``build() -> str``
returning the whole document. Output must be deterministic (no dates, no timings), since
a test regenerates ``derivations/`` and fails on any difference.
"""
