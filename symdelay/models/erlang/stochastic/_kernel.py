"""The exact jump-process kernel: a small C function (compiled once with the system C
compiler and loaded with :mod:`ctypes`) and a pure-Python twin that makes the same draws.

Both consume the same xoshiro256** stream per replication and perform the same IEEE-754
operations in the same order, so for equal seeds they produce identical paths (tests check
this: it is the second, independent implementation of the transition table). The C kernel is
used when it compiles; otherwise the Python twin runs (slowly) and ``backend`` says so.

The Gillespie direct method (no approximation): total rate ``R = 2*eta*lam + gamma*Z + mu*Q``
(``Z``, ``Q`` the totals), waiting time ``-log(1-U)/R``, then the event is chosen by
``V = U' R``: an arrival (routed to server 1 with the logit probability of the current
scaled queues), a phase step of one of the ``Z`` delayed jobs, or one of the ``Q``
service completions.

A call simulates at most ``max_events`` events and saves where it stopped (the time of the
last event and the next grid index, beside the state and the generator), so a path can be
run in chunks, with Ctrl-C checked between them, and come out bit-identical to one call.
"""

from __future__ import annotations

import ctypes
import math
import os

import numpy as np

from symdelay.core.cbuild import load_library
from symdelay.core.rng import C_SOURCE as RNG_C_SOURCE
from symdelay.core.rng import MASK, rotl
from symdelay.core.rng import unif as _unif

__all__ = ["C_SOURCE", "load_c_kernel", "run_python", "run_c", "TRANSITION_KINDS"]

#: Transition kinds counted per replication, in this order.
TRANSITION_KINDS = ("arrival", "phase", "enter_service", "service")

C_SOURCE = (
    r"""
#include <stdint.h>
#include <math.h>
"""
    + RNG_C_SOURCE
    + r"""
/* One chunk of one replication. state: Q1, Q2, Z1_1..Z1_L, Z2_1..Z2_L (int64, updated in
   place). grid: ng increasing times; out: ng x (2+2L) int64 (state at each grid time,
   cadlag). counts: 4 int64 (arrival, phase, enter_service, service). clock[0] is the time
   of the last event and pos[0] the next grid index to record: both are read at entry and
   written at exit, so consecutive calls continue one path exactly (start with 0, 0). At most
   max_events events are simulated; the path is finished when pos[0] == ng.
   Returns the number of events of this call. */
int64_t symdelay_run(int64_t L, double eta, double lam, double mu, double gamma,
                     double theta, int64_t *state, uint64_t *rng,
                     const double *grid, int64_t ng, int64_t *out, int64_t *counts,
                     double *clock, int64_t *pos, int64_t max_events) {
    const int64_t d = 2 + 2 * L;
    const double a = 2.0 * eta * lam;
    int64_t *Z = state + 2;
    int64_t Ztot = 0, Qtot = state[0] + state[1];
    for (int64_t j = 0; j < 2 * L; j++) Ztot += Z[j];
    double t = clock[0];
    int64_t k = pos[0], events = 0;
    while (k < ng && events < max_events) {
        const double gz = gamma * (double)Ztot, mq = mu * (double)Qtot;
        const double R = a + gz + mq;
        const double tn = t + (-log(1.0 - unif(rng)) / R);
        while (k < ng && grid[k] < tn) {
            for (int64_t j = 0; j < d; j++) out[k * d + j] = state[j];
            k++;
        }
        if (k >= ng) break;
        double v = unif(rng) * R;
        if (v < a || Ztot + Qtot == 0) {
            const double arg = theta * ((double)(state[0] - state[1]) / eta);
            const double p1 = arg > 700.0 ? 0.0 : 1.0 / (1.0 + exp(arg));
            if (unif(rng) < p1) Z[0] += 1; else Z[L] += 1;
            Ztot += 1;
            counts[0] += 1;
        } else if ((v -= a) < gz || Qtot == 0) { /* rounding guard: never pick an empty class */
            int64_t m = (int64_t)(v / gamma);
            if (m >= Ztot) m = Ztot - 1;
            int64_t j = 0;
            while (m >= Z[j]) { m -= Z[j]; j++; }
            const int64_t ell = j % L, i = j / L;
            Z[j] -= 1;
            if (ell < L - 1) { Z[j + 1] += 1; counts[1] += 1; }
            else { state[i] += 1; Qtot += 1; Ztot -= 1; counts[2] += 1; }
        } else {
            v -= gz;
            int64_t m = (int64_t)(v / mu);
            if (m >= Qtot) m = Qtot - 1;
            if (m < state[0]) state[0] -= 1; else state[1] -= 1;
            Qtot -= 1;
            counts[3] += 1;
        }
        events++;
        t = tn;
    }
    clock[0] = t;
    pos[0] = k;
    return events;
}
"""
)

_MASK = MASK


_rotl = rotl


def run_python(
    L, eta, lam, mu, gamma, theta, state, rng_state, grid, out, counts, clock, pos, max_events
) -> int:
    """The pure-Python twin of the C kernel (same arguments, same draws, same result)."""
    s = [int(v) for v in rng_state]

    def unif() -> float:
        return _unif(s)

    st = [int(v) for v in state]
    a = 2.0 * eta * lam
    Ztot, Qtot = sum(st[2:]), st[0] + st[1]
    t, k, events, ng = float(clock[0]), int(pos[0]), 0, len(grid)
    while k < ng and events < max_events:
        gz, mq = gamma * float(Ztot), mu * float(Qtot)
        R = a + gz + mq
        tn = t + (-math.log(1.0 - unif()) / R)
        while k < ng and grid[k] < tn:
            out[k, :] = st
            k += 1
        if k >= ng:
            break
        v = unif() * R
        if v < a or Ztot + Qtot == 0:
            arg = theta * (float(st[0] - st[1]) / eta)
            p1 = 0.0 if arg > 700.0 else 1.0 / (1.0 + math.exp(arg))
            st[2 if unif() < p1 else 2 + L] += 1
            Ztot += 1
            counts[0] += 1
        elif (v := v - a) < gz or Qtot == 0:
            m = min(int(v / gamma), Ztot - 1)
            j = 0
            while m >= st[2 + j]:
                m -= st[2 + j]
                j += 1
            ell, i = j % L, j // L
            st[2 + j] -= 1
            if ell < L - 1:
                st[3 + j] += 1
                counts[1] += 1
            else:
                st[i] += 1
                Qtot += 1
                Ztot -= 1
                counts[2] += 1
        else:
            v -= gz
            m = min(int(v / mu), Qtot - 1)
            st[0 if m < st[0] else 1] -= 1
            Qtot -= 1
            counts[3] += 1
        events += 1
        t = tn
    clock[0], pos[0] = t, k
    state[:] = st
    rng_state[:] = np.array(s, dtype=np.uint64)
    return events


def _bind(lib):
    fn = lib.symdelay_run
    i64p = np.ctypeslib.ndpointer(np.int64, flags="C_CONTIGUOUS")
    u64p = np.ctypeslib.ndpointer(np.uint64, flags="C_CONTIGUOUS")
    f64p = np.ctypeslib.ndpointer(np.float64, flags="C_CONTIGUOUS")
    d = ctypes.c_double
    fn.argtypes = [ctypes.c_int64, d, d, d, d, d, i64p, u64p, f64p, ctypes.c_int64]
    fn.argtypes += [i64p, i64p, f64p, i64p, ctypes.c_int64]
    fn.restype = ctypes.c_int64
    return fn


def load_c_kernel():
    """The compiled kernel function (compiled into the cache dir at first use), or ``None``.

    The library file name contains a hash of the source, so an edited kernel is recompiled.
    Set ``SYMDELAY_NO_C=1`` to force the pure-Python twin.
    """
    if os.environ.get("SYMDELAY_NO_C"):
        return None
    return load_library(C_SOURCE, "simkernel", "the simulation kernel", _bind)


def run_c(
    fn, L, eta, lam, mu, gamma, theta, state, rng_state, grid, out, counts, clock, pos, max_events
) -> int:
    """Call the compiled kernel (the GIL is released during the call)."""
    return int(
        fn(L, eta, lam, mu, gamma, theta, state, rng_state, grid, len(grid), out, counts,
           clock, pos, max_events)
    )  # fmt: skip
