"""The founding family: two queues, logit routing, Erlang(L, mean D) action delay.

``family`` builds it as a transition table for the generic machinery; the rest are the
family's specialisations (symbolic-L characteristic equation, Hopf parametrisation and
closed forms, Erlang root structure, the hand-written kernel, the claims engine), each
compared with the generic path in the tests.
"""
