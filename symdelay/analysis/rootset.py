"""Certified roots: a root with a proved error bound, and the record every root analysis
returns, :class:`RootSet` (the entry is :func:`symdelay.analysis.roots.roots`).

One record whatever path produced it: the characteristic function factor by mode
(:class:`~symdelay.analysis.charpoly.ModeFactor`), every root listed once, rightmost first,
tagged with the mode of the factor it belongs to, the certified counts of the roots with ``Re r > 0``
and on ``Re r = 0`` over the whole spectrum, and the verdict they give (``stable``,
``marginal``, ``unstable``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import mpmath
from mpmath.libmp import to_float as _to_float

from symdelay.core.result import Result

__all__ = ["CertifiedRoot", "RootSet", "order_key", "verdict_of", "axis_root_json"]


@dataclass(frozen=True)
class CertifiedRoot:
    """A root ``value`` with a proved error bound: the true root is within ``radius``.

    ``branch``: the u-plane sector k (finite L) or the Lambert-W branch (L = oo);
    ``multiplicity``: as a root of the whole characteristic function (its factor's copies
    included); ``on_axis``: proved (exactly) to lie on the imaginary axis (its real part is
    0); ``is_real``: proved real (its imaginary part is 0); ``mode``: the mode of its factor
    in the record's ``factors`` (each factor has its own mode).
    """

    value: mpmath.mpc
    radius: mpmath.mpf
    branch: int | None = None
    multiplicity: int = 1
    on_axis: bool = False
    is_real: bool = False
    mode: str = "polynomial"

    @property
    def real(self) -> mpmath.mpf:
        return self.value.real

    @property
    def imag(self) -> mpmath.mpf:
        return self.value.imag

    def to_json(self, dps: int = 15) -> dict:
        """``re``, ``im`` to ``dps`` significant digits and a ``radius`` that bounds the
        distance from those digits to the root (:func:`symdelay.core.numbers.format_certified`),
        the ``mode`` of its factor, and the ``multiplicity`` when it is not 1."""
        from symdelay.core.numbers import format_certified

        out = format_certified(
            self.value, self.radius, dps, real=self.is_real, imaginary=self.on_axis
        )
        out["mode"] = self.mode
        if self.multiplicity != 1:
            out["multiplicity"] = self.multiplicity
        return out

    def text(self, dps: int) -> str:
        """``"a + bi  +- rad"`` (:func:`symdelay.core.numbers.certified_text`)."""
        from symdelay.core.numbers import certified_text

        return certified_text(
            self.value, self.radius, dps, real=self.is_real, imaginary=self.on_axis
        )


def order_key(z: CertifiedRoot):
    """Rightmost first: descending real part, then imaginary part, both rounded to doubles
    (so that a conjugate pair refined root by root, whose real parts differ in the last
    bits, is ordered by its imaginary parts; mpmath gives +-inf beyond the doubles), then
    the mode."""
    re, im = z.value._mpc_  # the raw parts: no mpf objects made
    return (-_to_float(re), -_to_float(im), z.mode)


def verdict_of(unstable: int, axis: int) -> str:
    """``"unstable"`` (a root in ``Re r > 0``), ``"marginal"`` (none there, some on the
    imaginary axis) or ``"stable"``: the one reading of the certified counts."""
    if unstable:
        return "unstable"
    return "marginal" if axis else "stable"


@dataclass(frozen=True)
class RootSet(Result):
    """Certified roots, rightmost first (list-like), with the certified counts.

    ``factors``: the characteristic function by mode (:class:`ModeFactor`);
    ``factor_counts``: per factor ``(unstable, axis)``, the roots of that factor polynomial
    in ``Re r > 0`` and on ``Re r = 0`` (with multiplicity); ``unstable_count`` and
    ``axis_count``: the same over the whole spectrum (each factor's counts times its
    copies), also where ``scope`` lists only some roots (``"rightmost"``: the K rightmost;
    ``"branches"``: the L = oo roots on the given Lambert-W branches, and the sum mode's).
    ``count_methods``, ``notes``: how the counts were certified and what the path did (the
    record's ``method``, which names the path).
    """

    dps: int
    roots: list
    factors: tuple
    factor_counts: tuple
    scope: str = "all"
    parameters: dict = field(default_factory=dict)
    count_methods: tuple = ()
    notes: tuple = ()
    path: str = "generic"
    model_name: str | None = None

    @property
    def unstable_count(self) -> int:
        return sum(u * f.multiplicity for f, (u, _) in zip(self.factors, self.factor_counts))

    @property
    def axis_count(self) -> int:
        return sum(a * f.multiplicity for f, (_, a) in zip(self.factors, self.factor_counts))

    @property
    def verdict(self) -> str:
        """``"stable"``, ``"marginal"`` or ``"unstable"`` from the certified counts."""
        return verdict_of(self.unstable_count, self.axis_count)

    @property
    def is_stable(self) -> bool:
        """No root with ``Re r >= 0`` in the whole spectrum (the certified counts)."""
        return self.verdict == "stable"

    def __len__(self):
        return len(self.roots)

    def __getitem__(self, i):
        return self.roots[i]

    def __iter__(self):
        return iter(self.roots)

    @property
    def values(self) -> list:
        return [z.value for z in self.roots]

    @property
    def spectral_abscissa(self) -> mpmath.mpf:
        """max Re r over the listed roots (all of them, or those ``scope`` lists)."""
        return max(z.value.real for z in self.roots)

    @property
    def axis_roots(self) -> list:
        """The listed roots on the imaginary axis."""
        return [z for z in self.roots if z.on_axis]

    def mode_roots(self, prefix: str = "difference") -> RootSet:
        """The same record restricted to the factors whose mode starts with ``prefix``."""
        keep = [i for i, f in enumerate(self.factors) if f.mode.startswith(prefix)]
        return replace(
            self,
            roots=[z for z in self.roots if z.mode.startswith(prefix)],
            factors=tuple(self.factors[i] for i in keep),
            factor_counts=tuple(self.factor_counts[i] for i in keep),
        )

    # ------------------------------------------------------------------ the record
    def record(self) -> dict:
        """The one record of the roots (see the module docstring): the roots once, each
        tagged with its factor's mode; the counts over the whole spectrum (``count_scope``);
        ``listed_unstable`` counts the listed roots with ``Re r > 0``."""
        from symdelay.analysis.charpoly import head_keys

        dps = self.dps
        with mpmath.workdps(dps + 20):
            sa = self.spectral_abscissa
            sa = "0" if sa == 0 else mpmath.nstr(sa, dps, strip_zeros=False)
        return {
            **head_keys(self.parameters),
            "dps": dps,
            "roots": [z.to_json(dps) for z in self.roots],
            "factors": [
                {
                    "factor": str(f),
                    "mode": f.mode,
                    "multiplicity": f.multiplicity,
                    "unstable_count": u,
                    "axis_count": a,
                }
                for f, (u, a) in zip(self.factors, self.factor_counts)
            ],
            "spectral_abscissa": sa,
            "unstable_count": self.unstable_count,
            "axis_count": self.axis_count,
            "listed_unstable": sum(
                z.multiplicity for z in self.roots if not z.on_axis and z.value.real > 0
            ),
            "count_scope": "all roots" if self.scope == "all" else "whole spectrum",
            "stable": self.verdict == "stable",
            "verdict": self.verdict,
            "axis_roots": [
                axis_root_json(z.mode, z.value.imag, z.radius, z.multiplicity, dps)
                for z in self.axis_roots
            ],
            "method": {
                "path": self.path,
                "certificates": list(self.count_methods),
                "notes": list(self.notes),
            },
        }

    def headline(self) -> str:
        """One line: how many roots, the counts and the verdict."""
        from symdelay.analysis.charpoly import parameters_text

        p = parameters_text(self.parameters)
        head = f"L = {p['L']}" if "L" in p else str(self.model_name)
        n = sum(z.multiplicity for z in self.roots)
        listed = "all" if self.scope == "all" else f"{self.scope}; counts over the whole spectrum"
        return (
            f"{head}: {n} roots ({listed}), {self.unstable_count} with Re r > 0, "
            f"{self.axis_count} on the imaginary axis: {self.verdict}"
        )

    def text(self) -> str:
        """The headline, the factors and the roots (each tagged with its factor's mode)."""
        rec_sa = self.record()["spectral_abscissa"] if self.roots else None
        what = "spectral abscissa" if self.scope == "all" else "largest Re of the listed roots"
        lines = [self.headline(), f"{what} = {rec_sa}", "factors:"]
        for f, (u, a) in zip(self.factors, self.factor_counts):
            mult = f" (x{f.multiplicity})" if f.multiplicity > 1 else ""
            lines.append(f"  [{f.mode}] {f}{mult}  ({u} with Re r > 0, {a} on the axis)")
        lines.append("roots (rightmost first; mode, multiplicity):")
        for z in self.roots:
            mult = f", x{z.multiplicity}" if z.multiplicity != 1 else ""
            lines.append(f"  {z.text(self.dps)}   [{z.mode}{mult}]")
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)

    def latex(self) -> str:
        """The counts and the verdict, the factors, and the first 10 roots (real part,
        imaginary part, radius, mode)."""
        from symdelay.core.display import latex_array, latex_number, latex_text
        from symdelay.core.latex import tex

        rec = self.record()
        factors = [
            [tex(f.factor), latex_text(f.mode), str(f.multiplicity), str(u), str(a)]
            for f, (u, a) in zip(self.factors, self.factor_counts)
        ]
        rows = [
            [
                latex_number(z["re"]),
                latex_number(z["im"]),
                latex_number(z["radius"]),
                latex_text(z["mode"]),
            ]
            for z in rec["roots"][:10]
        ]
        more = f" (first 10 of {len(rec['roots'])})" if len(rec["roots"]) > 10 else ""
        return _stack(
            latex_text(
                f"certified roots{more}: {rec['unstable_count']} unstable, "
                f"{rec['axis_count']} on the axis ({rec['verdict']})"
            )
            + rf",\ \max \operatorname{{Re}} r = {latex_number(rec['spectral_abscissa'])}",
            latex_array(
                [r"\text{factor}", r"\text{mode}", r"\times", r"\text{unstable}", r"\text{axis}"],
                factors,
            ),
            latex_array(
                [r"\operatorname{Re} r", r"\operatorname{Im} r", r"\text{radius}", r"\text{mode}"],
                rows,
            ),
        )

    def table(self):
        rec = self.record()
        rows = [[z["mode"], z["re"], z["im"], z["radius"]] for z in rec["roots"][:20]]
        more = f" (first 20 of {len(rec['roots'])})" if len(rec["roots"]) > 20 else ""
        cap = (
            f"certified roots{more}, rightmost first; {rec['unstable_count']} unstable, "
            f"{rec['axis_count']} on the axis ({rec['verdict']}); spectral abscissa "
            f"{rec['spectral_abscissa']}"
        )
        return ["mode", "Re r", "Im r", "radius"], rows, cap


def axis_root_json(mode: str, omega, radius, multiplicity: int, dps: int) -> dict:
    """A root ``i omega`` on the imaginary axis as the records print it: the mode of its
    factor, the frequency as a certified number ``{"value", "radius"}`` and the
    multiplicity."""
    from symdelay.core.numbers import format_ball

    return {
        "mode": mode,
        "omega": format_ball(omega, radius, dps),
        "multiplicity": multiplicity,
    }


def _stack(*lines: str) -> str:
    """The lines one under another (the body :func:`~symdelay.core.display.display_latex`
    puts in display math)."""
    return r"\begin{gathered}" + r" \\ ".join(lines) + r"\end{gathered}"
