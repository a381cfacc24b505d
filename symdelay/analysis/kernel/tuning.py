"""The thresholds that choose the shape of a generated kernel's code (measured; see the
package docstring of :mod:`symdelay.analysis.kernel`). Read as ``tuning.NAME`` at generation
time, so a test can change one for a table (they are not part of the generation cache's key:
such a test sets ``SYMDELAY_NO_GEN_CACHE``)."""

from __future__ import annotations

__all__: list = []

#: Up to this many transitions the C kernel has one case of constant indices per transition;
#: above, one table-driven path (the source stays small and gcc fast).
_SPECIALIZE_MAX_M = 128
#: Up to this many leaves the C kernel descends the sum tree with plain branches; above, with
#: branch-free blends (SSE4.1, SSE2 or integer masks).
_BRANCHY_MAX_P2 = 16
#: Linear rates of one coefficient form a count class when there are at least this many.
_COUNT_CLASS_MIN = 2
#: With count classes, one C case per transition only up to this many transitions: the
#: transition drawn comes out of an integer descent, and above a few dozen transitions a jump
#: to one of them is unpredictable where a jump to one of a few shape classes is not.
_COUNT_SPECIALIZE_MAX_M = 32
#: At most this many general rates form a lazy class: drawing it evaluates all of them (all
#: their temporaries: N exponentials for the routing of N servers) where an event that changes
#: one state recomputes one temporary and the rates eagerly; measured break-even near N = 4
#: (N = 8, L = 2: 51 -> 57 ns/event lazy, N = 2: 39 -> 35).
_LAZY_MAX = 4
#: At most this many shape classes in the table-driven kernel (else: loops over the tables).
_MAX_SHAPES = 48
