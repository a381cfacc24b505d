"""The founding family: two queues, logit routing, Erlang(L, mean D) action delay.

``family`` builds it as a transition table for the generic machinery; the rest are the
family's specialisations (symbolic-L characteristic equation, Hopf parametrisation and
closed forms, Erlang root structure, the claims engine), each compared with the generic path
in the tests; its simulation and fluid path are the generic ones, on its table.
"""

#: the parameter domains the founding model's conditions are simplified under
ASSUMPTIONS = "mu > 0, gamma > 0, lam > 0, theta >= 0"
