"""A request's summed waits at one limit, from that limit alone in closed loop.

A limit is a GCRA pacer with a burst tolerance tau (`advisor.sim.kernel._lim_pass`): an I/O
arriving when the limit's theoretical arrival time runs V ahead of the clock passes at once if V
<= tau, else waits V - tau; either way it adds its work to V. A database request issues its
device I/Os one after another, each its service and CPU steps after the one before *passed*: the
request is a closed loop through the limit, and how long its next I/O waits depends on what its
last one met. Measured I/O by I/O in the event simulation (bench/chain_stats.py, bench/README.md
of 2026-12-01), a request's next wait is a random draw about a mean that rises with the last
wait, and the chance to wait rises along a transaction (the request's own I/Os fill the bucket
below tau: 5.7 -> 19.5 % over 9 I/Os on c5.large gp3 at 60 % of the knee), where every chain of
regressed waits (`waits.regressed_sum`) had a fixed next wait and the time-average chance all along.
Between two of the request's I/Os, the others' work arriving at the limit has, given that the
request waited, a higher rate than the average (more requests are in flight) and the variance
of single Poisson I/Os, not of whole requests (bench/README.md): no chain over the request's last
wait alone has both.

So the limit is followed as it is: its input as `waits.limit_waits` builds it (the background's
Poisson I/Os; each class's requests at Poisson times, their device I/Os at the offsets of
`waits.class_clusters`, each reaching the limit with its chance and work), each of a request's
I/Os issued after the one before passed plus that I/O's service (drawn from its distribution)
and the CPU steps after it. A commit joins its log's group commit as the event simulation's
kernel runs it (`advisor.sim.kernel._group_commit`, `_run` below): while the log flushes, commits
gather; the gathered group writes once, its write passing the limit when its first commit
arrives, and flushes when the flush in progress is done. So the logs write rarer as their
flushes wait, which `waits.LogStreams` takes from level crossing in the open-loop model.

A request's summed waits are what the limit adds to its latency: the loop runs twice on the same
input, with the limit and without it (tau infinite), and each request's sum is the difference of
its two completion times. That holds what the limit does beyond its own waits: a request held
there reaches its log later, with the other requests the limit held and released together, and
gathers behind their flushes more often than its services' group commit has it. On r5.xlarge
gp2 70 GiB behind a replica at 85 % of the knee (935 tps; the master's write transactions at the
volume's 128 MiB/s, 30 % busy), the event simulation's sums, each transaction's latency less its
latency with the throughput limit lifted (seeds 1-3), wait 1.67 % of the time, 0.062 ms on
average, 1.62 / 4.78 / 11.5 ms at p99 / p99.5 / p99.9. The loop's own waits summed, with a
gathered group's write passing the limit when its flush starts, gave 1.53 %, 0.054 ms, 1.07 /
4.21 / 10.1 ms (a commit's mean wait 0.0089 ms against the event simulation's 0.0125, its reads'
0.0156 against 0.0156); with the write passing when the group's first commit arrives, as the
kernel's, 0.0113 ms a commit; the completion times, 1.60 %, 0.060 ms, 1.32 / 4.56 / 11.8 ms (the
master's p99 -12.4 -> -9.6 % of the event simulation's on docs/analytic-vs-des.md). A difference
under ROUND_OFF_S, or below zero (a request that gathered into an earlier flush thanks to the
limit), counts as none.

`CLOSED_REQUESTS` requests (at most MAX_EVENTS I/Os), compiled (numba), from a fixed seed, so the
same input gives the same sums; the first WARM_SHARE of the requests are left out (the limit
starts empty). Left out: the other limits on the path (each limit runs its own loop and the
classes' sums over the limits are convolved, as for the chains), a device's own queue, the
flush throttle. Beside the completion times the loop keeps each I/O's own wait at the limit
(`io_wait`: what tests check the GCRA queue by). Measured against the event simulation on the
grid of docs/analytic-vs-des.md.
"""

import hashlib
import itertools
import struct
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from advisor.sim.heap import ev_pop, ev_push
from advisor.sim.jit import FLAT, njit

CLOSED_REQUESTS = 240_000  # requests simulated (all classes)
MAX_EVENTS = 2_400_000  # at most this many I/Os (a light request load over a heavy background)
WARM_SHARE = 0.05  # of the run, left out: the limit starts empty
SEED = 1
ROUND_OFF_S = 1e-9  # a gap in the offsets shorter than this is their round-off


@njit(**FLAT, inline="always")
def _pass(t, tat, tau, work):  # type: ignore[no-untyped-def]
    """An I/O of `work` s at the limit at t: (when it passes, the new TAT); one without work
    there does not reach it."""
    if work <= 0:
        return t, tat
    return max(t, tat - tau), max(tat, t) + work


@njit(**FLAT)
def _run(bg_t, bg_w, req_t, req_first, io_w, io_gap, io_log, io_flush, io_ahead,  # type: ignore[no-untyped-def]
         tau, io_wait, heap_t, heap_r, heap_p, after, place, busy, pending, last, group, held,
         arrived, started, gwait, gflush, done):
    """The limit in closed loop (the module's docstring). Background jobs (bg_t sorted, work
    bg_w) and requests (first I/O at req_t, sorted; I/Os req_first[r] .. req_first[r + 1] - 1:
    work io_w, 0 where it does not reach the limit; the gap after it passed io_gap; its log
    io_log, -1 but for a commit, whose io_w is its group's whole write and io_flush the flush's
    service; the gap after the last I/O is the time to the request's completion). Fills
    io_wait and each request's completion time (`done`). Scratch: the heap (request I/Os to
    come, flushes in progress), a linked list per log of the commits gathering (`pending` ..
    `last`, via `after`) and of the group flushing (`group`), each commit's place and arrival,
    the logs' `busy` flags, the flush in progress's start and its wait at the limit (`held`),
    and the gathering group's wait and flush service (`gwait`, `gflush`).

    As in the event simulation's group commit (`advisor.sim.kernel._group_commit`): a commit
    that finds its log idle writes at once; one that finds it flushing joins that flush if it
    started at this instant (a redo group's members reach the binlog together), else gathers
    into the next group, whose write passes the limit when its first commit arrives (the
    kernel charges it then, so the limit sees its I/Os in time order) and flushes when the
    flush in progress is done, that wait and its service after it. A commit's own wait (io_wait)
    is its group's write's wait, and for one that gathered behind a flush, the part of that
    flush's wait it sat through (min(its wait, the time from the commit's arrival to its
    end))."""
    nb, nr = bg_t.shape[0], req_t.shape[0]
    ib, ir, size = 0, 0, 0
    tat = 0.0
    never = np.inf
    while ib < nb or ir < nr or size > 0:
        tb = bg_t[ib] if ib < nb else never
        tr = req_t[ir] if ir < nr else never
        th = heap_t[0] if size > 0 else never
        if tb <= tr and tb <= th:
            tat = max(tat, tb) + bg_w[ib]
            ib += 1
            continue
        if tr <= th:
            t, r, p = tr, ir, 0
            ir += 1
        else:
            t, r, p = heap_t[0], heap_r[0], heap_p[0]
            size = ev_pop(heap_t, heap_r, heap_p, size)
        if p < 0:  # log -1 - p's flush is done: its group goes on; the gathered group flushes
            log = -1 - p
            m = group[log]
            while m >= 0:
                j = req_first[m] + place[m]
                if j + 1 < req_first[m + 1]:
                    size = ev_push(heap_t, heap_r, heap_p, size, t + io_gap[j], m, place[m] + 1)
                else:
                    done[m] = t
                m = after[m]
            group[log] = pending[log]
            if pending[log] < 0:
                busy[log] = 0
                continue
            size = ev_push(heap_t, heap_r, heap_p, size, t + gwait[log] + gflush[log], 0,
                           -1 - log)
            m = pending[log]
            while m >= 0:
                io_wait[req_first[m] + place[m]] = gwait[log] + min(held[log], t - arrived[m])
                m = after[m]
            held[log] = gwait[log]
            started[log] = t
            pending[log] = -1
            last[log] = -1
            continue
        j = req_first[r] + p
        log = io_log[j]
        if log >= 0:  # a commit: joins or gathers behind the flush in progress, or flushes
            place[r] = p
            arrived[r] = t
            after[r] = -1
            if busy[log] and t == started[log]:  # the flush starting now: one of its group
                after[r] = group[log]
                group[log] = r
                io_wait[j] = held[log]
            elif busy[log]:
                if last[log] >= 0:
                    after[last[log]] = r
                else:  # the next group's first: its write passes the limit now
                    pending[log] = r
                    passed, tat = _pass(t, tat, tau + io_ahead[j], io_w[j])
                    gwait[log] = passed - t
                    gflush[log] = io_flush[j]
                last[log] = r
            else:
                busy[log] = 1
                group[log] = r
                passed, tat = _pass(t, tat, tau + io_ahead[j], io_w[j])
                size = ev_push(heap_t, heap_r, heap_p, size, passed + io_flush[j], 0, -1 - log)
                io_wait[j] = passed - t
                held[log] = passed - t
                started[log] = t
            continue
        passed, tat = _pass(t, tat, tau + io_ahead[j], io_w[j])
        io_wait[j] = passed - t
        if j + 1 < req_first[r + 1]:
            size = ev_push(heap_t, heap_r, heap_p, size, passed + io_gap[j], r, p + 1)
        else:
            done[r] = passed + io_gap[j]


@dataclass(frozen=True, slots=True)
class Service:
    """A service time's distribution (points and weights) and its mean, seconds."""

    values: NDArray[np.float64]
    weights: NDArray[np.float64]
    mean: float


@dataclass(frozen=True, slots=True)
class Commit:
    """A request's commit at the limit: its log, the log's whole write there (s of the limit's
    work) and the write + flush service that follows it."""

    log: int
    work_s: float
    flush: Service


@dataclass(frozen=True, slots=True)
class ClassInput:
    """One class of requests at the limit: `rate` requests/s; `shapes` (probability, offsets
    s, op of each device I/O) as `waits.class_clusters` gives them (offsets one service and the
    mean wait apart); `reach` per op (the chance one of its I/Os reaches the limit, its work
    there s); `service` per op; `commits` in the order the request commits (its COMMIT ops)."""

    rate: float
    shapes: tuple[tuple[float, tuple[float, ...], tuple[int, ...]], ...]
    reach: dict[int, tuple[float, float]]
    service: dict[int, Service]
    commits: tuple[Commit, ...]


def _poisson_times(rng: np.random.Generator, rate: float, horizon: float) -> NDArray[np.float64]:
    """A Poisson process's arrival times over (0, horizon), in order (the order statistics of
    uniforms, as normalised sums of exponentials: nothing to sort)."""
    n = int(rng.poisson(rate * horizon))
    gaps = rng.exponential(size=n + 1)
    out: NDArray[np.float64] = np.cumsum(gaps[:-1]) * (horizon / gaps.sum())
    return out


@njit(**FLAT)
def _first_above(u, cdf, out):  # type: ignore[no-untyped-def]
    """out[i]: the first index of `cdf` (ascending, its last 1) above u[i]; a linear search,
    the cdf being a few points."""
    last = cdf.shape[0] - 1
    for i in range(u.shape[0]):
        x = u[i]
        k = 0
        while k < last and cdf[k] <= x:
            k += 1
        out[i] = k


def _choose(rng: np.random.Generator, p: NDArray[np.float64], n: int) -> NDArray[np.int64]:
    """`rng.choice(p.size, size=n, p=p)`, the same draws and indices to the bit: numpy's own
    method (numpy/random/_generator.pyx: the cumulative sum of p divided by its last, one
    uniform per pick, its index by `searchsorted(side='right')`), the search compiled. Numpy's
    takes ~13 ns a pick; a closed loop picks ~1.5 M background jobs (bench/README.md,
    2026-12-02). tests/sim/test_closed_loop.py holds the two equal."""
    cdf = np.asarray(p, dtype=np.float64).cumsum()
    cdf /= cdf[-1]
    out = np.empty(n, dtype=np.int64)
    _first_above(rng.random(n), cdf, out)
    return out


GUIDE_CELLS = 1024  # a power of two: u * GUIDE_CELLS and its cells' edges are exact


def _guide(svc_first: NDArray[np.int64], svc_cdf: NDArray[np.float64]) -> NDArray[np.int64]:
    """Each service's guide table (Chen and Asau's method): for the edges e = k / GUIDE_CELLS,
    k = 0 .. GUIDE_CELLS, the first index of its cdf >= e, or its last index where none is;
    service s's at s * (GUIDE_CELLS + 1). A draw u in cell k (k / GUIDE_CELLS <= u < (k + 1) /
    GUIDE_CELLS) has its first cdf >= u between the edges' two indices: every index before the
    first is below k / GUIDE_CELLS <= u, and the second is >= (k + 1) / GUIDE_CELLS > u, or the
    last. So the bisection between them finds what a bisection over the whole cdf finds, to the
    index, in a step or two instead of ~10 (701 points: bench/README.md, 2026-12-02)."""
    edges = np.arange(GUIDE_CELLS + 1, dtype=np.float64) / GUIDE_CELLS
    out = [np.minimum(np.searchsorted(svc_cdf[a:b], edges, side="left"), b - a - 1) + a
           for a, b in itertools.pairwise(svc_first)]
    return np.concatenate(out).astype(np.int64)


@njit(**FLAT)
def _lay_out(label, first, u, width, k_of, work_of, reach_of, gap_of, log_of,  # type: ignore[no-untyped-def]
             ahead_of, svc_of, guide, svc_values, svc_cdf, io_w, io_gap, io_log, io_flush,
             io_ahead):
    """Each request's I/Os, in time order, from its shape's template (`label`; padded rows of
    `width` places): its work where it reaches the limit (uniform u[2 j] against the chance; a
    commit always writes), the gap after it (the template's, plus its service drawn by inverse
    transform from u[2 j + 1]: the first point whose cdf >= u, or the last, found from the
    service's guide table (`_guide`); but after a commit, whose draw is its flush's; after the
    last, the time to the request's completion), its log and how far ahead of the limit it may
    start (a write's write-back cache)."""
    for r in range(label.shape[0]):
        b = label[r]
        for i in range(k_of[b]):
            j = first[r] + i
            s = svc_of[b * width + i]
            x = u[2 * j + 1]
            at = s * (GUIDE_CELLS + 1) + int(x * GUIDE_CELLS)
            lo, hi = guide[at], guide[at + 1]  # the first cdf >= u lies between: bisection
            while lo < hi:
                mid = (lo + hi) // 2
                if svc_cdf[mid] < x:
                    lo = mid + 1
                else:
                    hi = mid
            drawn = svc_values[lo]
            log = log_of[b * width + i]
            io_log[j] = log
            io_ahead[j] = ahead_of[b * width + i]
            if log >= 0:
                io_w[j] = work_of[b * width + i]
                io_flush[j] = drawn
                io_gap[j] = gap_of[b * width + i]
            else:
                io_w[j] = work_of[b * width + i] if u[2 * j] < reach_of[b * width + i] else 0.0
                io_gap[j] = gap_of[b * width + i] + drawn


def added_latency(bg_t: NDArray[np.float64], bg_w: NDArray[np.float64],
                  req_t: NDArray[np.float64], first: NDArray[np.int64],
                  io_w: NDArray[np.float64], io_gap: NDArray[np.float64],
                  io_log: NDArray[np.int64], io_flush: NDArray[np.float64],
                  io_ahead: NDArray[np.float64], tau: float, logs: int) -> NDArray[np.float64]:
    """What the limit adds to each request's completion time (s; `_run`'s input, `logs` the
    number of logs): the loop with the limit less the loop without it, under ROUND_OFF_S or
    below zero none (the module's docstring)."""
    n, cap = req_t.size, req_t.size + logs + 1
    dones = []
    for limit_tau in (tau, np.inf):  # without the limit nothing waits: no background to run
        done = np.zeros(n)
        bg = slice(None) if limit_tau < np.inf else slice(0)
        _run(bg_t[bg], bg_w[bg], req_t, first, io_w, io_gap, io_log, io_flush, io_ahead, limit_tau,
             np.zeros(io_w.size), np.zeros(cap), np.zeros(cap, dtype=np.int64),
             np.zeros(cap, dtype=np.int64), np.full(n, -1, dtype=np.int64),
             np.zeros(n, dtype=np.int64), np.zeros(logs, dtype=np.int64),
             np.full(logs, -1, dtype=np.int64), np.full(logs, -1, dtype=np.int64),
             np.full(logs, -1, dtype=np.int64), np.zeros(logs), np.zeros(n),
             np.full(logs, -1.0), np.zeros(logs), np.zeros(logs), done)
        dones.append(done)
    added = dones[0] - dones[1]
    added[added < ROUND_OFF_S] = 0.0
    return added


def inputs_digest(singles: Sequence[tuple[float, float]], classes: Sequence[ClassInput],
                  wait_mean_s: float, tau: float, commit_op: int, *, ahead_s: float = 0.0,
                  write_ops: tuple[int, ...] = ()) -> bytes:
    """A digest of everything `closed_sums` reads (its arguments, in its terms): equal digests,
    equal sums to the bit (the loop's seed and sizes are the module's constants). Candidates
    alike at a limit (the same volume under the same requests, another instance around it) ask
    for the same loop."""
    h = hashlib.blake2b(digest_size=20)

    def floats(*xs: float) -> None:
        h.update(struct.pack(f"<{len(xs)}d", *xs))

    def service(s: Service) -> None:
        floats(s.mean, float(s.values.size))
        h.update(np.ascontiguousarray(s.values, dtype=np.float64).tobytes())
        h.update(np.ascontiguousarray(s.weights, dtype=np.float64).tobytes())

    floats(wait_mean_s, tau, ahead_s, float(commit_op), float(len(write_ops)), *write_ops,
           float(len(singles)), *(x for pair in singles for x in pair), float(len(classes)))
    for c in classes:
        floats(c.rate, float(len(c.shapes)))
        for p, offsets, ops in c.shapes:
            floats(p, float(len(offsets)), *offsets, float(len(ops)), *ops)
        floats(float(len(c.reach)), *(x for op in sorted(c.reach)
                                       for x in (op, *c.reach[op])))
        floats(float(len(c.service)))
        for op in sorted(c.service):
            floats(op)
            service(c.service[op])
        floats(float(len(c.commits)))
        for commit in c.commits:
            floats(commit.log, commit.work_s)
            service(commit.flush)
    return h.digest()


def closed_sums(singles: Sequence[tuple[float, float]], classes: Sequence[ClassInput],
                wait_mean_s: float, tau: float, commit_op: int, *, ahead_s: float = 0.0,
                write_ops: tuple[int, ...] = ()) -> list[NDArray[np.float64]]:
    """Each class's requests' summed waits at the limit (s), after the warm-up: what the limit
    adds to each one's completion time (the module's docstring). `singles` the
    background's Poisson jobs (per s, work s); `wait_mean_s` what the offsets hold of the waits
    (taken out of the gaps: the loop waits its own); `tau` the limit's tolerance; `commit_op`
    the op code of a commit; `ahead_s` how far ahead of the limit a write (a commit, or an op
    of `write_ops`) may start: a device's write-back cache (`advisor.sim.kernel._lim_pass`)."""
    rng = np.random.default_rng(SEED)
    requests = sum(c.rate for c in classes)
    ios = sum(c.rate * max(len(o) for _, o, _ in c.shapes) for c in classes if c.shapes) \
        + sum(r for r, _ in singles)
    if requests <= 0 or ios <= 0:
        return [np.zeros(0) for _ in classes]
    horizon = min(CLOSED_REQUESTS / requests, MAX_EVENTS / ios)
    # Each shape of each class as a template of its I/Os (padded to `width` places), and the
    # service distributions they draw from.
    shapes = [(ci, p * c.rate / requests, offsets, ops) for ci, c in enumerate(classes)
              for p, offsets, ops in c.shapes]
    if not shapes:
        return [np.zeros(0) for _ in classes]
    width = max(len(ops) for _, _, _, ops in shapes)
    nb = len(shapes)
    k_of = np.zeros(nb, dtype=np.int64)
    kind_of = np.zeros(nb, dtype=np.int64)
    work_of, reach_of, gap_of = (np.zeros(nb * width) for _ in range(3))
    log_of = np.full(nb * width, -1, dtype=np.int64)
    ahead_of = np.zeros(nb * width)
    svc_of = np.zeros(nb * width, dtype=np.int64)
    services: dict[int, int] = {}  # id(Service) -> index
    svc_list: list[Service] = []
    logs = 1
    for b, (ci, _, offsets, ops) in enumerate(shapes):
        c = classes[ci]
        k_of[b], kind_of[b] = len(ops), ci
        gaps = np.append(np.maximum(0.0, np.diff(np.asarray(offsets)) - wait_mean_s), 0.0)
        commits = iter(c.commits)
        for i, op in enumerate(ops):
            at = b * width + i
            if op == commit_op or op in write_ops:
                ahead_of[at] = ahead_s
            if op == commit_op and c.commits:
                commit = next(commits, c.commits[-1])
                log_of[at], work_of[at], service = commit.log, commit.work_s, commit.flush
                reach_of[at] = 1.0
                logs = max(logs, commit.log + 1)
            else:
                reach_of[at], work_of[at] = c.reach.get(op, (0.0, 0.0))
                service = c.service[op]
            # the offsets hold the service's mean: the loop draws it (a commit's, its flush);
            # under ROUND_OFF_S it is none (a redo commit's binlog sync comes at its done, as
            # one group: `_run`)
            gap = gaps[i] - service.mean if i + 1 < len(ops) else 0.0
            gap_of[at] = gap if gap > ROUND_OFF_S else 0.0
            if id(service) not in services:
                services[id(service)] = len(svc_list)
                svc_list.append(service)
            svc_of[at] = services[id(service)]
    svc_first = np.concatenate(([0], np.cumsum([s.values.size for s in svc_list]))).astype(np.int64)
    svc_values = np.concatenate([s.values for s in svc_list]).astype(np.float64)
    svc_cdf = np.concatenate([np.cumsum(s.weights) / s.weights.sum() for s in svc_list])
    # Every request, in order, marked with its shape, or none (no device I/O).
    probs = np.array([p for _, p, _, _ in shapes] + [0.0])
    probs[-1] = max(0.0, 1 - probs[:-1].sum())
    t = _poisson_times(rng, requests, horizon)
    label = _choose(rng, probs / probs.sum(), t.size)
    keep = label < nb
    t, label = np.ascontiguousarray(t[keep]), np.ascontiguousarray(label[keep])
    if t.size == 0:
        return [np.zeros(0) for _ in classes]
    count = k_of[label]
    first = np.concatenate(([0], np.cumsum(count))).astype(np.int64)
    n_ios = int(first[-1])
    io_w, io_gap, io_flush = np.zeros(n_ios), np.zeros(n_ios), np.zeros(n_ios)
    io_log = np.full(n_ios, -1, dtype=np.int64)
    io_ahead = np.zeros(n_ios)
    _lay_out(label, first, rng.random(2 * n_ios), width, k_of, work_of, reach_of,
             gap_of, log_of, ahead_of, svc_of, _guide(svc_first, svc_cdf), svc_values, svc_cdf,
             io_w, io_gap, io_log, io_flush, io_ahead)
    # The background: one Poisson stream of all its jobs, each job's work by its share.
    bg_rate = sum(r for r, _ in singles)
    bg_t = _poisson_times(rng, bg_rate, horizon) if bg_rate > 0 else np.zeros(0)
    bg_w = np.zeros(bg_t.size)
    if bg_t.size:
        works = np.array([w for _, w in singles])
        bg_w = works[_choose(rng, np.array([r for r, _ in singles]) / bg_rate, bg_t.size)]
    sums = added_latency(bg_t, bg_w, t, first, io_w, io_gap, io_log, io_flush,
                         io_ahead, float(tau), logs)
    kept = t >= WARM_SHARE * horizon
    kind = kind_of[label]
    return [sums[kept & (kind == ci)] for ci in range(len(classes))]
