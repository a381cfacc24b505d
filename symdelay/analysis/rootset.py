"""Certified roots: a root with a proved error bound, and a set of them with the certified
count of unstable roots (the record every root analysis returns)."""

from __future__ import annotations

from dataclasses import dataclass, field

import mpmath

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


@dataclass
class RootSet:
    """Certified roots, rightmost first (list-like), with the certified unstable count."""

    L: int | str
    params: dict
    dps: int
    roots: list
    unstable_count: int
    mode: str
    count_methods: tuple = ()
    notes: list = field(default_factory=list)
    axis_count: int = 0

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
        return self.unstable_count == 0

    def to_json(self) -> dict:
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

    def _repr_latex_(self) -> str:
        """The first 10 roots (real part, imaginary part, certified radius) and the counts."""
        from symdelay.core.display import display_latex, latex_array, latex_number

        rec = self.to_json()
        rows = [
            [latex_number(z["re"]), latex_number(z["im"]), latex_number(z["radius"])]
            for z in rec["roots"][:10]
        ]
        more = f" (first 10 of {len(rec['roots'])})" if len(rec["roots"]) > 10 else ""
        return display_latex(
            rf"\text{{certified roots{more}; unstable: }} {rec['unstable_count']},\ "
            rf"\max \operatorname{{Re}} r = {latex_number(rec['spectral_abscissa'])}",
            latex_array([r"\operatorname{Re} r", r"\operatorname{Im} r", r"\text{radius}"], rows),
        )

    def _repr_html_(self) -> str:
        from symdelay.core.display import html_table

        rec = self.to_json()
        rows = [[z["re"], z["im"], z["radius"]] for z in rec["roots"][:20]]
        more = f" (first 20 of {len(rec['roots'])})" if len(rec["roots"]) > 20 else ""
        cap = (
            f"certified roots{more}, rightmost first; unstable: {rec['unstable_count']}, "
            f"spectral abscissa {rec['spectral_abscissa']}"
        )
        return html_table(["Re r", "Im r", "radius"], rows, cap)

    def plot(self, ax=None):
        """The roots in the complex plane; returns the matplotlib Axes."""
        from symdelay.core.display import draw

        return draw(self, ax)
