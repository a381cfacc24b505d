"""Certified roots: a root with a proved error bound, and a set of them with the certified
count of unstable roots (the record every root analysis returns: the founding model's
difference mode, a single polynomial, or a model factor by factor).

One record, :class:`RootSet`, whatever path produced it (the entry is
:func:`symdelay.analysis.roots.roots`). A model's roots carry ``per_factor`` (each factor of
the characteristic polynomial with its own :class:`RootSet`); its ``roots`` are then all of
them (each factor's roots once, the factor's multiplicity in ``multiplicity``) and its JSON
lists them factor by factor.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import mpmath

from symdelay.core.result import Result

__all__ = ["CertifiedRoot", "RootSet"]


@dataclass(frozen=True)
class CertifiedRoot:
    """A root ``value`` with a proved error bound: the true root is within ``radius``.

    ``branch`` is the u-plane sector k (finite L) or the Lambert-W branch (L = oo);
    ``multiplicity`` > 1 for a repeated root of a general polynomial; ``on_axis`` is True
    when the root is proved (by exact arithmetic) to lie on the imaginary axis.
    """

    value: mpmath.mpc
    radius: mpmath.mpf
    branch: int | None = None
    multiplicity: int = 1
    on_axis: bool = False

    @property
    def real(self) -> mpmath.mpf:
        return self.value.real

    @property
    def imag(self) -> mpmath.mpf:
        return self.value.imag

    def to_json(self, dps: int = 15) -> dict:
        """Decimal strings with ``dps`` significant digits; the radius covers the rounding.

        radius = certified radius + ``|printed - value|`` (at dps + 30 digits) + a 1e-(dps+15)
        allowance for that arithmetic, printed one unit in the last place up.
        """
        with mpmath.workdps(dps + 30):
            re_s = mpmath.nstr(self.value.real, dps, strip_zeros=False)
            im_s = mpmath.nstr(self.value.imag, dps, strip_zeros=False)
            rounding = abs(mpmath.mpc(mpmath.mpf(re_s), mpmath.mpf(im_s)) - self.value)
            slack = mpmath.mpf(10) ** (-(dps + 15)) * (1 + abs(self.value))
            total = self.radius + rounding + slack
            rad = mpmath.nstr(total * (1 + mpmath.mpf(10) ** (1 - dps)), dps, strip_zeros=False)
        if self.on_axis:  # proved: the real part is exactly zero
            re_s = "0"
        out = {"re": re_s, "im": im_s, "radius": rad}
        if self.multiplicity != 1:
            out["multiplicity"] = self.multiplicity
        return out


@dataclass(frozen=True)
class RootSet(Result):
    """Certified roots, rightmost first (list-like), with the certified unstable count.

    ``per_factor``: ``((Factor, RootSet), ...)`` when the roots are a model's, factor by
    factor (counts then with the factors' multiplicities); empty for one polynomial or the
    founding model's difference mode.
    """

    L: int | str | None
    params: dict
    dps: int
    roots: list
    unstable_count: int
    mode: str
    count_methods: tuple = ()
    notes: list = field(default_factory=list)
    axis_count: int = 0
    per_factor: tuple = ()
    model_name: str | None = None

    @classmethod
    def of_factors(cls, model_name: str, per_factor, dps: int, notes=()) -> RootSet:
        """A model's roots from the certified roots of each factor of its polynomial."""
        import dataclasses

        per_factor = tuple(per_factor)
        roots = [
            dataclasses.replace(z, multiplicity=z.multiplicity * f.multiplicity)
            for f, rs in per_factor
            for z in rs
        ]
        roots.sort(key=lambda z: (-z.value.real, -z.value.imag))
        return cls(
            L=None,
            params={},
            dps=dps,
            roots=roots,
            unstable_count=sum(rs.unstable_count * f.multiplicity for f, rs in per_factor),
            mode="all",
            count_methods=tuple(dict.fromkeys(m for _, rs in per_factor for m in rs.count_methods)),
            notes=list(notes),
            axis_count=sum(rs.axis_count * f.multiplicity for f, rs in per_factor),
            per_factor=per_factor,
            model_name=model_name,
        )

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
        """max Re r over the returned roots (all roots / the rightmost / the given branches)."""
        return max(z.value.real for z in self.roots)

    @property
    def is_stable(self) -> bool:
        """No root with ``Re r >= 0`` in the whole spectrum (the certified counts)."""
        return self.unstable_count == 0 and self.axis_count == 0

    def mode_roots(self, prefix: str = "difference") -> RootSet:
        """The roots of the factors whose mode starts with ``prefix`` (a model's roots), or
        ``self`` (the founding model's difference mode, one polynomial)."""
        if not self.per_factor:
            return self
        chosen = [(f, rs) for f, rs in self.per_factor if f.mode.startswith(prefix)]
        if len(chosen) == 1:
            return chosen[0][1]
        return RootSet.of_factors(self.model_name, chosen, self.dps)

    def record(self) -> dict:
        if self.per_factor:
            return self._factors_record()
        return self._roots_record()

    def _factors_record(self) -> dict:
        return {
            "model": self.model_name,
            "dps": self.dps,
            "unstable_count": self.unstable_count,
            "axis_count": self.axis_count,
            "stable": self.is_stable,
            "spectral_abscissa": mpmath.nstr(self.spectral_abscissa, self.dps),
            "factors": [
                {
                    "factor": str(f.factor),
                    "mode": f.mode,
                    "multiplicity": f.multiplicity,
                    "roots": [z.to_json(self.dps) for z in rs],
                    "unstable_count": rs.unstable_count,
                    "axis_count": rs.axis_count,
                }
                for f, rs in self.per_factor
            ],
            "notes": list(self.notes),
        }

    def _roots_record(self) -> dict:
        """The roots listed, and counts over the *whole* spectrum (``count_scope``).

        ``unstable_count`` (Re r > 0) and ``axis_count`` (Re r = 0, proved) count every root
        of the equation, also those not listed (``--rightmost``, ``--branches``);
        ``listed_unstable`` counts the listed ones.
        """
        with mpmath.workdps(self.dps + 20):
            sa = self.spectral_abscissa
            sa = "0" if sa == 0 else mpmath.nstr(sa, self.dps, strip_zeros=False)
        head = {"L": self.L} if self.L is not None else dict(self.params)
        return {
            **head,
            "dps": self.dps,
            "roots": [z.to_json(self.dps) for z in self.roots],
            "spectral_abscissa": sa,
            "unstable_count": self.unstable_count,
            "axis_count": self.axis_count,
            "listed_unstable": sum(
                z.multiplicity for z in self.roots if not z.on_axis and z.value.real > 0
            ),
            "count_scope": "all roots" if self.mode == "all" else "whole spectrum",
        }

    def latex(self) -> str:
        if self.per_factor:
            return self._factors_latex()
        return self._roots_latex()

    def _factors_latex(self) -> str:
        """Each factor with its mode, multiplicity and unstable count; the abscissa."""
        from symdelay.core.display import latex_array, latex_number, latex_text
        from symdelay.core.latex import tex as _tex

        rec = self._factors_record()
        rows = [
            [_tex(f.factor), latex_text(f.mode), str(f.multiplicity), str(rs.unstable_count)]
            for f, rs in self.per_factor
        ]
        return _stack(
            latex_text(f"{self.model_name}: unstable roots {rec['unstable_count']}")
            + rf",\ \max \operatorname{{Re}} r = {latex_number(rec['spectral_abscissa'])}",
            latex_array([r"\text{factor}", r"\text{mode}", r"\times", r"\text{unstable}"], rows),
        )

    def _roots_latex(self) -> str:
        """The first 10 roots (real part, imaginary part, certified radius) and the counts."""
        from symdelay.core.display import latex_array, latex_number

        rec = self._roots_record()
        rows = [
            [latex_number(z["re"]), latex_number(z["im"]), latex_number(z["radius"])]
            for z in rec["roots"][:10]
        ]
        more = f" (first 10 of {len(rec['roots'])})" if len(rec["roots"]) > 10 else ""
        return _stack(
            rf"\text{{certified roots{more}; unstable: }} {rec['unstable_count']},\ "
            rf"\max \operatorname{{Re}} r = {latex_number(rec['spectral_abscissa'])}",
            latex_array([r"\operatorname{Re} r", r"\operatorname{Im} r", r"\text{radius}"], rows),
        )

    def table(self):
        rec = self.to_json()
        if self.per_factor:
            rows = [
                [f["mode"], f["factor"], z["re"], z["im"], z["radius"]]
                for f in rec["factors"]
                for z in f["roots"]
            ][:20]
            cap = (
                f"{self.model_name}: certified roots per factor; unstable: "
                f"{rec['unstable_count']}, spectral abscissa {rec['spectral_abscissa']}"
            )
            return ["mode", "factor", "Re r", "Im r", "radius"], rows, cap
        rows = [[z["re"], z["im"], z["radius"]] for z in rec["roots"][:20]]
        more = f" (first 20 of {len(rec['roots'])})" if len(rec["roots"]) > 20 else ""
        cap = (
            f"certified roots{more}, rightmost first; unstable: {rec['unstable_count']}, "
            f"spectral abscissa {rec['spectral_abscissa']}"
        )
        return ["Re r", "Im r", "radius"], rows, cap


def _stack(*lines: str) -> str:
    """The lines one under another (the body :func:`~symdelay.core.display.display_latex`
    puts in display math)."""
    return r"\begin{gathered}" + r" \\ ".join(lines) + r"\end{gathered}"
