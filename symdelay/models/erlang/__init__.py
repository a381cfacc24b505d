"""The founding family: two queues, logit routing, Erlang(L, mean D) action delay.

``family`` builds it as a transition table for the generic machinery; the rest are the
family's specialisations (symbolic-L characteristic equation, Hopf parametrisation and
closed forms, Erlang root structure, the hand-written kernel, the claims engine), each
compared with the generic path in the tests.
"""

#: the parameter domains the founding model's conditions are simplified under
ASSUMPTIONS = "mu > 0, gamma > 0, lam > 0, theta >= 0"
