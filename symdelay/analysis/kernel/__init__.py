"""The exact simulator generated from a transition table (any density-dependent family).

A model is given as plain data: the state symbols, the parameters (symbol -> number) and the
transitions ``(name, jump nu, scaled rate beta_nu(s))``, ``beta`` a SymPy expression in the
scaled state ``s = X/eta`` and the parameters. The jump process ``X`` (integer counts) jumps
by ``nu`` at rate ``eta * beta_nu(X/eta)`` (Kurtz). :class:`GeneratedKernel` prints the rates
with SymPy's C99 printer (one global common-subexpression elimination, :func:`sympy.cse`),
fills them into a Gillespie direct-method kernel (the template ``kernel_template.c``, below),
compiles it with the system C compiler into the cache directory of
:mod:`symdelay.core.cbuild` (file name = hash of the source, so equal tables reuse one library whatever the parameter values: those are passed at run time) and loads it
with :mod:`ctypes`. A pure-Python twin is generated from the same printed expressions and
draws from the same xoshiro256** stream (:mod:`symdelay.core.rng`), so for equal seeds
both backends give identical paths (tests check it). Waiting times are Exp(1)/R with Exp(1)
by the ziggurat of Marsaglia and Tsang (one 64-bit output and one product in 98.9% of the
draws; the tables are computed once and pasted into the C source as hex literals).

Classes. A rate ``c * s_i`` (``c`` free of the state) is *linear*: its value ``c * X_i`` comes
from one coefficient array (the coefficients are evaluated once from the parameters, in
Python, so both backends use the same doubles). Every other rate is *general*: printed code
with its common subexpressions, recomputed in *groups*, one per set of changed states.
When a few general rates (up to ``_LAZY_MAX``) sum to an expression free of the state
(SymPy's ``cancel``) and each is a state-free factor times a function provably >= 0
(SymPy's assumptions: counts >= 0, parameters real), they form one *lazy class* instead: one leaf holds their constant total,
and they are evaluated only when that leaf is drawn, one of them then chosen by a new
uniform (e.g. arrivals routed with probabilities that sum to one: no exponential per
service). Their factors are checked >= 0 at every call and the
rates at the start of every call and whenever the class is drawn. More such rates of the form
``k * w_g / sum_h w_h`` (one denominator, the sum of the numerators: the logit routing of N
servers) form a *weighted class*: one leaf holds the constant ``k``, and the weights ``w_g``
(``exp(-theta q_g)``) live in a sum tree of their own, recomputed eagerly for the states an
event changed (one exponential, not N rates and divisions); the class drawn, one of them is
found by descending that tree.

Linear rates of one coefficient (the same expression, so the same double at run time), at
least ``_COUNT_CLASS_MIN`` of them, form a *count class* (the delay phases of one rate, the
servers of one rate): one leaf holds ``c * S``, ``S`` the sum of the members' counts,
kept exact in an integer sum tree of the class (in the kernel's integer workspace, after the
counts of the state). The class drawn with the rest ``v`` of the draw in its leaf,
``m = floor(v * (1/c))`` (clamped to ``S - 1``) is a uniform job of the class, and the member
that holds the m-th job (a branch-free integer descent, unrolled to the class's depth, the
next nodes loaded a level early) is the transition: probability ``X_i / S``. A job moving
between two members (a phase step of an Erlang delay) changes no leaf of the rates' tree, and
the integer paths up stop where they meet.

Selection: a sum tree of the rates (node ``p`` = ``tree[2p] + tree[2p+1]``, leaves from
``P2``: the general rates first (an event usually changes several: adjacent leaves share
their ancestors), or one leaf for their lazy or weighted class, the other linear ones along
job chains so that the two rates of a move are neighbours, then one leaf per count class);
the next transition is found by descending from the root, O(log M): up to ``_BRANCHY_MAX_P2`` leaves with plain branches (the
levels of a small tree are skewed and well predicted), above without a branch (SSE4.1 blends
or SSE2 masks, the next left children loaded before the comparison decides).

Dependency graph (computed at generation time from the rates' free state symbols and the
jumps): an event recomputes only the linear rates of the states its jump changed and the
general group of those states, then every ancestor of the changed leaves, each again as
left + right. IEEE addition commutes, so the tree after an event is bit for bit the tree a
full rebuild gives: the total cannot drift (there is nothing to recompute periodically; every
call into the kernel rebuilds it anyway, and the tests compare runs of one event per call
with runs of 2^20). In the shape-class code the walk up stops at the first node whose new
value is its old one bit for bit (its ancestors are then unchanged): a job moving between two
phases of one rate, ``c (X - 1) + c (X' + 1)``, usually stops a few levels up and leaves the
total as it is.

Code shape: above ``_SPECIALIZE_MAX_M`` transitions (with count classes, above
``_COUNT_SPECIALIZE_MAX_M``), one case per *shape class* (transitions with the same jump
deltas, number of linear rates, leaf layout and count-tree moves: e.g. "phase ell of queue i
advances"; two changed leaves are one unit whether siblings or not, so the common moves share
a class and the switch is predictable) that reads its indices from a record, so the source
stays small and gcc fast at M ~ 10^3; otherwise one C case of constant indices per
transition; beyond ``_MAX_SHAPES`` classes, loops over the index tables. The Python twin
runs the same algorithm from the tables. The library is built for this processor
(``-march=native``, on x86-64 without AVX; contraction off: the same IEEE operations as the
twin; its cache name covers the processor, see :func:`symdelay.core.cbuild.load_library`).

Caches: the generation result (sources, index tables, coefficient code) is stored as
``cache_dir()/gen-KEY.json``, KEY a content hash of the table (states, jumps, a hash-seed
independent text of the rates, parameter names) and of this package's files (the template
included); the shared
library as ``generated-HASH.so`` (hash of the C source). A second build of the same table
(other parameter values included) costs no SymPy and no gcc.

A rate that is negative or not finite, or a jump that makes a count negative, stops the run
with a :class:`SymdelayInputError` naming the transition and the state. The compiled kernel
returns to Python every ``chunk_events`` events, so Ctrl-C (KeyboardInterrupt) is honoured.


Lags (a table whose rates read ``delayed(E, LAG)`` or whose transitions carry ``lag =
NAME``: :mod:`symdelay.model.lags`). The simulation stays exact, with no time step:

- *History.* Each distinct lagged expression ``E`` (a *channel*) keeps its past as the
  jump path makes it, piecewise constant: after every event that changes a state ``E``
  reads, one entry (time, value, running integral ``I(t) = int_0^t E``, continued as ``I +
  E dt``) in a ring buffer. A look-back ``d`` of a channel is a *pointer*: the last entry
  whose time plus ``d`` is at most the time read (one comparison form everywhere), moved
  forward only (look-ups are monotone in time: O(1) amortised, no search). The ring keeps
  the entries from the oldest pointer on; before an event the kernel checks there is room
  (moving the pointers to the present first) and otherwise returns to the driver, which
  doubles it (the memory checked against the budget) and calls again: its size is bounded
  by the events of the longest look-back, estimated before the run (events per unit time
  at the equilibrium times the longest lag) and refused over the memory budget unless
  forced. Before 0 the history is the fluid path's contract in counts: the initial counts
  held constant on ``(-oo, 0]``, or a table interpolated linearly and rounded to
  ``round(eta * value)`` (changing where it crosses a half-integer): those entries are
  written before the run (:mod:`~symdelay.analysis.kernel.lagrun`).
- *Readings.* A constant lag ``tau`` reads the value at ``t - tau``; a uniform window on
  ``[a, b]`` reads ``(I(t - a) - I(t - b)) / (b - a)`` from the stored integrals (exact
  for the piecewise-constant path up to the rounding of the integrals, relative ``~ eps
  t / (b - a)``); an exponential or Erlang lag (shape ``k <= 500``) the output of its chain
  of ``k`` phases fed by the path, kept per channel and advanced in closed form at each of
  its changes (over a time ``h`` at a constant input ``e``, the normalised phases become
  ``e + sum_{j <= i} (w_j - e) P_{i-j}(r h)``, Poisson weights ``P_m``) and read the same way
  at the draw time; a phase-type lag ``(alpha, S)`` (up to 64 phases) the same with its
  chain ``z`` advanced by ``z - e u -> (z - e u) exp(S h)`` (``u = alpha (-S)^-1``) by
  uniformization (a sum of Poisson-weighted powers of ``I + S / lambda``, every term >= 0,
  stopped past the mode below a weight of 1e-18), its output ``z (-S 1) + (1 - sum alpha)
  e``; a mixture the weighted sum of its members' readings (the lag's kernel average of the
  path, as the fluid path reads it). Each ``delayed(E, k)`` of the rates is
  one symbol ``lv_m`` of the printed code, a weighted sum of pointer readings (the
  weights, look-backs and delays are run-time numbers: one compiled kernel for every
  parameter value, as for a table without lags).
- *Who reads them, and when.* The general rates that read lagged values are built as a
  lazy class whenever their total is free of the state and of the lagged values (the
  routing of arrivals; any number of rates, never a weighted class): they are evaluated
  with the lagged values *at the draw time* when that leaf is drawn, which is exact since
  the class's total is constant between events. A rate outside such a class that reads
  constant lags (or mixtures of them) is updated at the lagged values' change times (an
  entry's time plus the look-back): the next event is the earlier of the drawn time and
  the next change, and at a change the rates are recomputed and the waiting time drawn
  again (memoryless: exact). Such a rate reading a window or a chain is refused in one line
  (their output moves between events, so would its rate: thinning would need a bound).
- *Action delays.* An action-delayed transition drawn changes nothing but schedules its
  jump: ``t + d`` in a FIFO of its own for a constant delay, ``t + u`` in one binary heap
  for a distributed delay, ``u`` drawn from the law by a small program of numbers
  (:func:`~symdelay.analysis.kernel.lagplan.program`: uniform, exponential, Erlang, phase
  type by walking its chain, mixtures) from the same xoshiro256** stream in both backends.
  The first entry due, when it comes before the drawn time, is the next event: its jump is
  applied by its transition's update and the waiting time is drawn again. The transition's
  count is that of its decisions. In transit at 0 (the default history): the decisions of
  the past at the history's rates, exactly -- a Poisson process piece by piece for a
  constant delay, and for a distributed one a Poisson number of mean ``rate E[X]`` from the
  stationary past with the equilibrium excess law, then the history table's pieces;
  ``"empty"``: none. They are drawn before the replication's first event, vectorised with
  numpy (a Poisson number per piece, uniform on it; the delays by numpy's samplers of the
  same laws) from a PCG64 generator seeded with four words of the replication's
  xoshiro256** stream, so both backends start alike and a seed repeats the run. The
  kernel counts the jobs in transit per action (one more at a decision, one less at a
  landing) and records them at every grid time beside the counts (a row of ``K_N + NA``;
  the driver adds the past's jobs landing after ``T``, counted and not scheduled): the
  record's ``in_transit[<transition>]``.
- *Memory.* The rings start at twice the changes expected over ``min(longest look-back,
  T)`` plus the history's entries a pointer can still read (from the last one at or
  before minus the channel's look-back: the older rows of a long table are not kept). A
  constant delay's FIFO holds only the jobs that land by ``T``: those of the past landing
  later are counted (their Poisson number, never drawn one by one) and added to
  ``in_transit``, so it holds the decisions of ``min(delay, T)``. The heap of the
  distributed delays likewise, ``min(means, T)`` in expectation (the past's jobs are all
  drawn at 0, in batches, those landing after ``T`` counted and dropped: their drawing
  time is estimated before the run). What a run used (capacities, the most entries in use
  between calls) is in the record's ``info["memory"]``.
- *dot() through a lag* (the announcement, ``delayed(q_i + p*dot(q_i), tau)``). A jump
  path has no derivative; the stochastic model's definition: ``dot(x)`` at time ``s`` is
  the *drift* of ``x`` at ``s``, the conditional expected rate of change given everything
  the rates read at ``s``: ``sum_nu nu_x beta_nu(X(s)/eta, V(s))`` (the scaling of the
  fluid path), each rate with the lagged values ``V(s)`` it reads at ``s``. As eta grows it
  tends to the fluid derivative, so the law of large numbers limit is the neutral fluid
  path. Every lagged value of such a table reads the same constant lag ``tau``, so ``V(s) =
  E(X(s - tau)/eta, f(s - tau))`` reads ``V(s - tau)``: at a draw at ``t`` the kernel
  recurses through ``t - tau, t - 2 tau, ...`` to the first level before 0, where the
  history gives the states and their derivative (0 for a held history, the table's slope
  on each of its segments: the start ``E(hs, hd)`` computed once per piece before the
  run), then applies the printed step (one cse of ``E`` with ``dot(x)`` replaced by the
  drift) level by level back up. The path the levels read is kept whole (an array of
  ``(time, the scaled states the step reads)``, one entry per event changing those states,
  before 0 ``(time, the start's components)``, doubled when full, in the ``chain``
  argument: such a table has no chains), each level ``j`` reads it through its own forward-only pointer (the last
  entry whose time plus ``j tau`` is at most the time read), so a draw costs O(t / tau)
  and the memory grows with ``T`` (events x T, estimated before the run and refused over
  the budget unless forced; the record's ``info["memory"]["recursion"]``). The levels
  (``hst`` after the jobs in transit) are added when a time read would reach below them.
  The rates that read it must form a class of constant total (the routing), evaluated at
  the draw time only, so the recursion runs at routing draws only.
- *Refused, in one line:* ``dot(x)`` through a distributed lag (the drift at every past
  time), beside another lag (the recursion would branch: about ``b^(t/tau)`` drifts per
  draw), read by a rate outside a class of constant total (its changes would have to be
  scheduled at every shifted change point), in a table with action delays; information read
  through a gamma lag of non-integer shape (no finite chain) or a longer chain than above,
  a gamma action delay of non-integer shape, an action-delayed rate that itself reads a
  lagged value.

The template's sections ``LAGS`` (HISTORY, SCHEDULE; the recursion is generated by the C
writer: ``cwriter.dot_read``) hold this code; for a table without
lags they are dropped, so its C source, its compiled library and their speed are those of
before. The Python twin runs the same steps and can record them (a trace of every jump,
decision and routing draw, for the tests).

The parts, one job each:

- :mod:`~symdelay.analysis.kernel.table`: the table checked at the door;
- :mod:`~symdelay.analysis.kernel.classify`: the classes of the rates (linear, count,
  general, lazy, weighted);
- :mod:`~symdelay.analysis.kernel.layout`: the sum tree's leaves, the job chains, the shape
  classes;
- :mod:`~symdelay.analysis.kernel.generate`: the rates printed, the dependency graph and
  index tables, the two sources;
- :mod:`~symdelay.analysis.kernel.cwriter` and ``kernel_template.c``: the C kernel (the
  template holds the fixed C, the writer the code generated per table);
- :mod:`~symdelay.analysis.kernel.pytwin`: the Python twin;
- :mod:`~symdelay.analysis.kernel.lagplan`: how a table's lags are read (channels,
  pointers, lagged values, action delays; refusals); :mod:`~symdelay.analysis.kernel.lagrun`:
  the history and the scheduled entries at run time (start, in transit, growth);
- :mod:`~symdelay.analysis.kernel.expo`: the ziggurat's tables and the twin's Exp(1);
- :mod:`~symdelay.analysis.kernel.cache`: the generation cache and the compiled library;
- :mod:`~symdelay.analysis.kernel.driver`: :class:`GeneratedKernel`, which composes them and
  runs replications; :mod:`~symdelay.analysis.kernel.tuning`: the thresholds of the code
  shape.

>>> import sympy as sp
>>> q, lam, mu = sp.symbols("q lam mu")
>>> from symdelay.analysis.kernel import GeneratedKernel
>>> k = GeneratedKernel([q], [("arrival", [1], lam), ("service", [-1], mu * q)],
...                     {lam: 1, mu: 1})
>>> paths, events = k.run(eta=100, initial=[0], grid=[0.0, 1.0], seed=1)
>>> paths.shape, int(paths[0, 0]), events > 0
((2, 1), 0, True)
"""

from __future__ import annotations

from symdelay.analysis.kernel.driver import GeneratedKernel, KernelRun
from symdelay.analysis.kernel.table import check_table

__all__ = ["GeneratedKernel", "KernelRun", "check_table"]
