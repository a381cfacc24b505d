"""``symdelay normal-form``: first Lyapunov coefficient and amplitude law at the Hopf point."""

from __future__ import annotations

from symdelay.cli import door
from symdelay.cli.commands._common import add_common, emit, emit_json
from symdelay.core.errors import SymdelayInputError

__all__ = ["register", "run"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "normal-form",
        help="Hopf normal form: first Lyapunov coefficient l1, super/subcritical, amplitude law",
        description=(
            "At the Hopf point theta_c of the exact nonlinear difference system (with tanh): "
            "the first Lyapunov coefficient l1 (Kuznetsov's projection formula, q_x = 1), "
            "whether the bifurcation is super- or subcritical, and c in the amplitude law "
            "A ~ c sqrt(theta - theta_c) of x = q1 - q2; closed forms where SymPy finds them "
            "(L = 2, 3). --L inf is the delay-differential limit. A model file with lags "
            "(delayed information, action delays): the centre-manifold reduction through its "
            "characteristic matrix, in interval arithmetic (the sign of l1 proved, or "
            "undecided with its bound). --in NAME: the Hopf point and amplitude law in "
            "another parameter (a lag's parameter too); with --range LO:HI, at the Hopf "
            "points of the equilibrium followed numerically over that range (a model whose "
            "equilibrium has no closed form in NAME). Where the imaginary "
            "pair is multiple (a symmetry), l1 is not defined and is not given; for three "
            "symmetric servers (D_3) the equivariant normal form gives the bifurcating "
            "patterns (rotating and standing waves), their criticality, stability and "
            "amplitude laws."
        ),
    )
    p.add_argument(
        "--in",
        dest="param",
        default=None,
        metavar="NAME",
        help="the bifurcation parameter p (default theta): its Hopf point p_c with every "
        "other parameter fixed, and the amplitude law A ~ c sqrt(|p - p_c|); any parameter "
        "of the model (a lag's, such as D), left out of its options",
    )
    p.add_argument(
        "--range",
        default=None,
        metavar="LO:HI",
        help="search the Hopf points of --in NAME (default theta) in [LO, HI] on the "
        "equilibrium followed numerically (every real zero of the drift enumerated at LO, "
        "followed by Newton, each Hopf point proved by a Krawczyk box): the normal form at "
        "the first, l1 bounded in interval arithmetic over the box, the others listed. For "
        "a transition table without lags whose equilibrium has no closed form in NAME (e.g. "
        "--in b1 --range 2:2.4 for tests/data/food_chain.toml); with a closed form it "
        "restricts the search to the range in the same way",
    )
    add_common(p, run, dps="15")


def run(args) -> int:
    from symdelay.analysis.normal_form import normal_form
    from symdelay.core.params import as_dps

    dps = as_dps(args.dps)
    param = args.param or "theta"
    at = None
    span = {}
    if args.range is not None:
        from symdelay.cli.commands.cycles import _range

        span = dict(zip(("lo", "hi"), _range("--range", args.range)))
        if param == "theta" and getattr(args, "theta", None) is not None:
            raise SymdelayInputError(
                "normal-form --range searches theta_c in the range: leave --theta out"
            )
    if param != "theta":
        if getattr(args, param, None) is not None:
            flag = "--" + param.replace("_", "-")
            raise SymdelayInputError(f"normal-form --in {param} finds {param}_c: leave {flag} out")
    elif getattr(args, "theta", None) is not None:
        at = _verdict_at_theta(args)  # the one verdict there: the Hopf point is marginal
        args.theta = None
    nf = normal_form(door.model_from_args(args), dps=dps, param=param, **span)
    rec = nf.to_json()
    if at is not None:
        theta, res = at
        _same_point(theta, nf, res)
        keys = res.record()
        rec["at_theta"] = {"theta": theta, "verdict": res.verdict, "axis_roots": keys["axis_roots"]}
    if args.json:
        emit_json(rec)
        return 0
    head = (
        rec["model"]
        if rec["L"] is None  # the founding model: its options (the one varied left out)
        else ", ".join(f"{k} = {rec[k]}" for k in ("L", "mu", "lam", "D") if rec[k] is not None)
    )
    lines = [head]
    if at is not None:
        lines.append(
            f"  at theta = {at[0]} the equilibrium is {at[1].verdict_text()}: the Hopf point"
        )
    p = param
    where = f"  {p}_c = {rec['critical_value']}, omega_c = {rec['omega']}, period = {rec['period']}"
    if rec.get("multiplicity", 1) >= 2:
        lines += [
            where,
            f"  l1 not defined: the imaginary pair is multiple (multiplicity "
            f"{rec['multiplicity']}, the model's symmetry)",
        ]
        lines += _pattern_lines(rec, p)
        emit("\n".join(lines))
        return 0
    law = f"{p} - {p}_c" if rec["amplitude_side"] != "below" else f"{p}_c - {p}"
    slope = rec["omega_slope"]
    still = abs(float(slope)) <= 10.0 ** -(dps // 2)
    bound = rec.get("l1_radius")
    proof = "" if bound is None else f", |error| <= {bound}"
    lines += [
        where,
        f"  l1 = {rec['l1']}  ({rec['criticality']}; normalised by {rec['l1_normalisation']}"
        f"{proof})",
        (
            f"  amplitude of {nf.observed or 'x'}: A ~ {rec['amplitude_coefficient']} * sqrt({law})"
            + ("  (unstable cycles)" if rec["criticality"] == "subcritical" else "")
        )
        if rec["criticality"] not in ("undecided", "degenerate")
        else "  amplitude law not given: the sign of l1 is undecided (|l1| within its bound)"
        if rec["criticality"] == "undecided"
        else "  amplitude law not given: l1 = 0 (a degenerate Hopf point, as at a Bautin "
        "point: the second Lyapunov coefficient decides)",
        f"  d omega / d {p} at {p}_c = {slope}" + (" (frequency stationary)" if still else "")
        if slope != "nan"
        else f"  d omega / d {p} along the cycles: not defined where l1 = 0",
    ]
    if rec.get("l2") is not None:
        lines.append(
            f"  l2 = {rec['l2']}  (|error| <= {rec['l2_radius']}; second Lyapunov "
            f"coefficient, same normalisation): {nf.bautin_note}"
        )
    if rec["hopf_points"] is not None:
        others = rec["hopf_points"][1:]
        lines.append(
            f"  the first Hopf point in {rec['checks']['range']}"
            + (
                "; the others: " + ", ".join(f"{p} = {h['value']}" for h in others)
                if others
                else " (the only one)"
            )
        )
        if "branch_stop" in rec["checks"]:
            lines.append(f"  searched up to where {rec['checks']['branch_stop']}")
    cf = rec["closed_form"]
    if cf["l1"] is not None:
        lines.append(f"  closed form l1 = {cf['l1']}")
    if cf["amplitude_coefficient"] is not None:
        lines.append(f"  closed form c = {cf['amplitude_coefficient']}")
    if rec["structural_reason"] is not None:
        lines.append(f"  why: {rec['structural_reason']}")
    emit("\n".join(lines))
    return 0


def _pattern_lines(rec, p) -> list:
    """The equivariant answer: the cubic coefficients and one line per branch (or why not)."""
    if rec["patterns"] is None:
        return [f"  bifurcating patterns not given: {rec['patterns_reason']}"]
    cub = rec["cubic_coefficients"]

    def c(z):
        return f"{z['re']} {'-' if z['im'].startswith('-') else '+'} {z['im'].lstrip('-')} i"

    out = [
        "  D_3-equivariant normal form: z1' = z1 (lambda + A |z1|^2 + B |z2|^2) (and z1 <-> z2)",
        f"    A = {c(cub['A'])}",
        f"    B = {c(cub['B'])}",
    ]
    five = next((q["fifth_order"] for q in rec["patterns"] if q.get("fifth_order")), None)
    if five is not None:
        out += [
            "  fifth order: + C conj(z1)^2 z2^3 in z1' (it ranks (z, z) and (z, -z): the "
            "cubic order does not)",
            f"    C = {c(five['C'])}",
            f"    {five['criterion']} = {five['criterion_value']} "
            f"(+- {five['criterion_error']}): (z, z) stable if < 0, (z, -z) if > 0",
        ]
    out.append("  bifurcating patterns:")
    for pat in rec["patterns"]:
        stable = {True: "stable", False: "unstable", None: "stability undecided"}[pat["stable"]]
        why = f" ({pat['stability_reason']})" if pat["stability_reason"] else ""
        out.append(f"    {pat['pattern']}, isotropy {pat['isotropy']}: {pat['criticality']}, "
                   f"{stable}{why}")  # fmt: skip
        if pat["amplitude_coefficient"] is not None:
            law = f"{p} - {p}_c" if pat["side"] == "above" else f"{p}_c - {p}"
            amps = ", ".join(f"{k} {v}" for k, v in pat["amplitudes"].items())
            out.append(f"      amplitudes ~ c sqrt({law}), c: {amps}")
        if pat.get("relative_phase_eigenvalue_over_rho4") is not None:
            out.append(
                "      relative phase eigenvalue "
                f"{pat['relative_phase_eigenvalue_over_rho4']} rho^4 (fifth order)"
            )
        lags = ", ".join(
            f"{k} {'at rest' if v is None else v}" for k, v in pat["phase_lags"].items()
        )
        out.append(f"      phase lags (periods): {lags}")
    return out


def _verdict_at_theta(args):
    """``(theta, Stability)`` at the ``--theta`` given: the one verdict there
    (:func:`symdelay.analysis.stability.stability`); the normal form belongs to the Hopf
    point, where it is marginal, so any other verdict is refused in one line."""
    from symdelay.analysis.stability import stability

    theta = str(args.theta)
    res = stability(door.model_from_args(args))
    if res.verdict != "marginal":
        raise SymdelayInputError(
            f"theta = {theta}: the equilibrium is {res.verdict_text()} there; the normal form "
            "is taken at the Hopf point theta_c, where it is marginal: leave --theta out (or "
            "give theta_c)"
        )
    return theta, res


def _same_point(theta: str, nf, res) -> None:
    """The marginal point given is the Hopf point the normal form computed."""
    import mpmath

    from symdelay.core.exact import exact_fraction

    q = exact_fraction("theta", res.parameters["theta"])
    with mpmath.workdps(30):
        value = mpmath.mpf(q.numerator) / q.denominator
        if abs(value - nf.theta_c) > mpmath.mpf(10) ** -10 * (1 + abs(value)):
            raise SymdelayInputError(
                f"theta = {theta}: the equilibrium is {res.verdict_text()} there, but the Hopf "
                f"point is theta_c = {mpmath.nstr(nf.theta_c, 15)}: leave --theta out"
            )
