"""The information-delay family's option vocabulary, shared by its option declarations
(:mod:`symdelay.models.dde.family`, read by the command line without SymPy) and its model
(:mod:`symdelay.models.dde.build`)."""

__all__ = ["LAG_KINDS", "LOGIT"]

#: The lag kinds the family offers (each of mean ``D``).
LAG_KINDS = ("constant", "uniform", "gamma", "exponential")

#: The default choice function: the multinomial logit.
LOGIT = "exp(-theta*x)"
