"""The limit alone in closed loop (advisor/sim/analytic/closed.py), which gives a request's summed
waits at a limit on a single EBS volume: the compiled loop is bench/chain_stats.py's GCRA queue,
I/O for I/O; commits flush in groups, each group one write; and the analytic engine takes its
sums where it should."""

import heapq
import math
from typing import Any

import numpy as np
import pytest

from advisor.sim.analytic import closed, waits
from tests.bench_modules import load_bench

chain_stats = load_bench("chain_stats")

MS = 1e-3


def _run(req_t: list[float], ios: list[list[tuple[float, float, int, float]]],
         bg: list[tuple[float, float]], tau: float,
         ahead: list[float] | None = None) -> list[list[float]]:
    """closed._run on requests given as (work, gap after, log, flush) per I/O (`ahead`: how far
    ahead of the limit each may start, none by default); each request's waits."""
    first = np.concatenate(([0], np.cumsum([len(r) for r in ios]))).astype(np.int64)
    flat = [io for r in ios for io in r]
    work, gap, log, flush = (np.array([io[i] for io in flat], dtype=float) for i in range(4))
    n, logs = len(req_t), 2
    io_wait = np.zeros(len(flat))
    cap = n + logs + 1
    bg_t = np.array([t for t, _ in bg], dtype=float)
    bg_w = np.array([w for _, w in bg], dtype=float)
    closed._run(bg_t, bg_w, np.array(req_t, dtype=float), first, work, gap,
                log.astype(np.int64), flush,
                np.zeros(len(flat)) if ahead is None else np.array(ahead), tau, io_wait,
                np.zeros(cap), np.zeros(cap, dtype=np.int64),
                np.zeros(cap, dtype=np.int64), np.full(n, -1, dtype=np.int64),
                np.zeros(n, dtype=np.int64), np.zeros(logs, dtype=np.int64),
                np.full(logs, -1, dtype=np.int64), np.full(logs, -1, dtype=np.int64),
                np.full(logs, -1, dtype=np.int64), np.zeros(logs), np.zeros(n),
                np.full(logs, -1.0), np.zeros(logs), np.zeros(logs), np.zeros(n))
    return [io_wait[first[i]:first[i + 1]].tolist() for i in range(n)]


def _added(req_t: list[float], ios: list[list[tuple[float, float, int, float]]],
           bg: list[tuple[float, float]], tau: float) -> list[float]:
    """closed.added_latency on requests given as `_run`'s."""
    first = np.concatenate(([0], np.cumsum([len(r) for r in ios]))).astype(np.int64)
    flat = [io for r in ios for io in r]
    work, gap, log, flush = (np.array([io[i] for io in flat], dtype=float) for i in range(4))
    return closed.added_latency(np.array([t for t, _ in bg], dtype=float),
                                np.array([w for _, w in bg], dtype=float),
                                np.array(req_t, dtype=float), first, work, gap,
                                log.astype(np.int64), flush, np.zeros(len(flat)), tau,
                                2).tolist()


def test_without_commits_it_is_the_benchs_closed_loop_io_for_io() -> None:
    """Random requests of 1-6 I/Os (some not reaching the limit) and background jobs, 70-90 %
    of a 1 ms-tolerance limit: every I/O's wait is what bench/chain_stats.py's heap-driven
    `run_closed` (the loop the event simulation was measured against) gives it."""
    rng = np.random.default_rng(7)
    seconds, tau = 20.0, 1 * MS
    req_t = np.sort(rng.random(rng.poisson(400 * seconds)) * seconds)
    ios, requests = [], []
    for _ in req_t:
        k = int(rng.integers(1, 7))
        works = rng.exponential(0.25 * MS, k)
        hits = rng.random(k) < 0.8
        gaps = rng.exponential(0.4 * MS, k)
        ios.append([(w if h else 0.0, g, -1, 0.0)
                    for w, h, g in zip(works, hits, gaps, strict=True)])
        requests.append((works.tolist(), hits.tolist(), gaps[:-1].tolist(), True, [0.0] * k))
    bg_t = np.sort(rng.random(rng.poisson(600 * seconds)) * seconds)
    bg_w = rng.exponential(0.5 * MS, bg_t.size)
    got = _run(req_t.tolist(), ios, list(zip(bg_t, bg_w, strict=True)), tau)
    events: list[Any] = [(float(t), i, i, 0) for i, t in enumerate(req_t)]
    events += [(float(t), len(req_t) + i, -1, i) for i, t in enumerate(bg_t)]
    heapq.heapify(events)
    chain_stats.run_closed(events, requests, bg_w.tolist(), tau)
    want = [r[4] for r in requests]
    waited = sum(w > 0 for r in want for w in r)
    assert waited > 1000  # the limit is busy enough to hold many back
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, atol=1e-12)


def test_commits_that_gather_behind_a_flush_write_once_and_share_its_wait() -> None:
    """One log, tolerance 0, a write costs the limit 2 ms, a flush takes 1 ms. Commits at 0,
    0.1 and 0.2 ms: the first writes at once (TAT 2 ms) and its flush is done at 1 ms; the
    other two gather behind it as one group, whose write passes the limit when its first
    commit arrives, as the event simulation's kernel charges it (at 0.1 ms: it waits to 2 ms,
    1.9 ms; TAT 4 ms), and flushes at 1 ms, done at 3.9 ms. The first commit's request reads
    (0.1 ms of work) 0.5 ms after its flush is done, at 1.5 ms, and waits to 4 ms (2.5 ms; TAT
    4.1 ms); a read at 2.5 ms then waits to 4.1 ms (1.6 ms): the group wrote once, where a
    write per commit would have held it to 6.1 ms."""
    commit = (2 * MS, 0.5 * MS, 0, 1 * MS)
    got = _run([0.0, 0.1 * MS, 0.2 * MS, 2.5 * MS],
               [[commit, (0.1 * MS, 0.0, -1, 0.0)], [commit], [commit], [(0.1 * MS, 0.0, -1, 0.0)]],
               [], 0.0)
    assert got[0] == pytest.approx([0.0, 2.5 * MS], abs=1e-12)
    assert got[1] == pytest.approx([1.9 * MS], abs=1e-12)
    assert got[2] == pytest.approx([1.9 * MS], abs=1e-12)
    assert got[3] == pytest.approx([1.6 * MS], abs=1e-12)


def test_a_commit_behind_a_flush_that_waits_is_charged_what_it_sat_through() -> None:
    """A 1 ms background job at 0 (tolerance 0), then a commit at 0.1 ms: its write passes at 1
    ms (waits 0.9 ms), TAT 3 ms, its flush done at 2 ms. Commits at 0.5 and 1.5 ms gather; the
    group's write passes the limit at 3 ms as its first commit arrives (2.5 ms), TAT 5 ms. The
    limit held the first flush 0.9 ms: the commit from 0.5 ms sat through all of it (2.5 + 0.9
    ms), the one from 1.5 ms through its last 0.5 ms (2.5 + 0.5 ms); the rest of their time
    behind it is the group commit's."""
    commit = (2 * MS, 0.0, 0, 1 * MS)
    got = _run([0.1 * MS, 0.5 * MS, 1.5 * MS], [[commit], [commit], [commit]],
               [(0.0, 1 * MS)], 0.0)
    assert got[0] == pytest.approx([0.9 * MS], abs=1e-12)
    assert got[1] == pytest.approx([3.4 * MS], abs=1e-12)
    assert got[2] == pytest.approx([3.0 * MS], abs=1e-12)


def test_commits_at_a_flush_start_join_it() -> None:
    """A redo group's members reach the binlog at one instant: the first starts its flush and
    the others join it (`advisor.sim.kernel._group_commit`), the flush's wait theirs; a commit
    a moment later gathers into the next group. A 1 ms background job at 0 (tolerance 0);
    two commits at 0.1 ms (2 ms each): one write, passing at 1 ms, both wait 0.9 ms; the
    commit at 0.2 ms gathers, its group's write passing at 3 ms (2.8 ms), and sat through the
    first flush's 0.9 ms (3.7 ms)."""
    commit = (2 * MS, 0.0, 0, 1 * MS)
    got = _run([0.1 * MS, 0.1 * MS, 0.2 * MS], [[commit], [commit], [commit]],
               [(0.0, 1 * MS)], 0.0)
    assert [w for r in got for w in r] == pytest.approx([0.9 * MS, 0.9 * MS, 3.7 * MS],
                                                        abs=1e-12)


def test_the_sum_is_what_the_limit_adds_to_the_completion() -> None:
    """A request held at the limit reaches its log later, behind another's flush: the limit
    added more than its own wait. Tolerance 0.2 ms, a 1.2 ms background job at 0; request 0
    reads (0.1 ms of work) at 0, held to 1 ms, and commits (no work at the limit, a 1 ms
    flush) 0.1 ms after, behind request 1's flush (0.5 to 1.5 ms): done at 2.5 ms. Without the
    limit it commits at 0.1 ms, done at 1.1 ms: 1.4 ms added, of which 1 ms was its wait.
    Request 1 is done earlier with the limit (1.5 ms, against 2.1 ms behind request 0's
    flush): none added."""
    read, commit = (0.1 * MS, 0.1 * MS, -1, 0.0), (0.0, 0.0, 0, 1 * MS)
    ios = [[read, commit], [commit]]
    waits = _run([0.0, 0.5 * MS], ios, [(0.0, 1.2 * MS)], 0.2 * MS)
    assert [w for r in waits for w in r] == pytest.approx([1 * MS, 0.0, 0.0], abs=1e-12)
    assert _added([0.0, 0.5 * MS], ios, [(0.0, 1.2 * MS)], 0.2 * MS) == pytest.approx(
        [1.4 * MS, 0.0], abs=1e-12)


def test_a_write_starts_as_far_ahead_as_the_write_back_cache_holds() -> None:
    """A device limit (tolerance 0) with a 1 ms write-back cache, 1.5 ms of background work at
    0: a read at 0.1 ms waits for the whole backlog (1.4 ms), a commit just after it only for
    what the cache does not hold of it, the read's work included (1.5 - 1 ms;
    `advisor.sim.kernel._lim_pass`)."""
    read, commit = (0.1 * MS, 0.0, -1, 0.0), (0.1 * MS, 0.0, 0, 0.1 * MS)
    got = _run([0.1 * MS, 0.1 * MS], [[read], [commit]], [(0.0, 1.5 * MS)], 0.0,
               ahead=[0.0, 1 * MS])
    assert [w for r in got for w in r] == pytest.approx([1.4 * MS, 0.5 * MS], abs=1e-12)


def test_two_logs_group_apart() -> None:
    """A commit on log 1 does not gather behind log 0's flush: it writes at once."""
    got = _run([0.0, 0.1 * MS], [[(0.5 * MS, 0.0, 0, 1 * MS)], [(0.5 * MS, 0.0, 1, 1 * MS)]], [],
               10 * MS)
    assert got == [[0.0], [0.0]]


def test_single_io_requests_wait_the_gcra_backlog() -> None:
    """Single-I/O requests at Poisson times through closed_sums (its own Poisson times and
    draws): 75 % busy, 0.9 ms tolerance, 0.3 ms each; the share that waits is the M/D/1
    workload's P(V > tau) (Erlang: tests/sim/test_chain_stats.py's reference)."""
    rate, work, tau = 2500.0, 0.3 * MS, 0.9 * MS
    one = closed.Service(np.array([0.0]), np.array([1.0]), 0.0)
    cls = closed.ClassInput(rate=rate, shapes=((1.0, (0.0,), (0,)),), reach={0: (1.0, work)},
                            service={0: one}, commits=())
    sums = closed.closed_sums([], [cls], 0.0, tau, commit_op=2)[0]
    assert sums.size > 100_000
    assert (sums > 0).mean() == pytest.approx(_md1_over(tau, rate, work), rel=0.05)


def _md1_over(x: float, rate: float, work: float) -> float:
    """P(V > x) of the M/D/1 workload (Erlang)."""
    below = sum((rate * (k * work - x)) ** k / math.factorial(k)
                * math.exp(-rate * (k * work - x)) for k in range(int(x / work) + 1))
    return 1 - (1 - rate * work) * below


def test_the_same_input_gives_the_same_sums() -> None:
    """A fixed seed: the screen does not move between runs (the loops run again, not read from
    the memo of loops already run)."""
    plan, mix, rates, x = chain_stats._engine_input("c5.large:gp3:650GiB", 500.0, 314.0, 0)
    waits._CLOSED.clear()
    a = [w.closed.summed(c) for w in waits.spaced_waits(plan, mix, x, rates)[0]
         if w.closed is not None for c in mix.classes]
    waits._CLOSED.clear()
    b = [w.closed.summed(c) for w in waits.spaced_waits(plan, mix, x, rates)[0]
         if w.closed is not None for c in mix.classes]
    assert any(d is not None for d in a)
    for da, db in zip(a, b, strict=True):
        assert (da is None) == (db is None)
        if da is not None and db is not None:
            np.testing.assert_array_equal(da.values, db.values)


def test_a_loop_asked_again_is_read_not_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same loop asked for by another evaluation (another instance around the same volume,
    say) is read from the memo: no second run, the same sums."""
    plan, mix, rates, x = chain_stats._engine_input("c5.large:gp3:650GiB", 500.0, 314.0, 0)
    waits._CLOSED.clear()
    runs = []
    real = closed.closed_sums
    monkeypatch.setattr(closed, "closed_sums", lambda *a, **k: runs.append(1) or real(*a, **k))

    def sums() -> list[Any]:
        return [w.closed.summed(c) for w in waits.spaced_waits(plan, mix, x, rates)[0]
                if w.closed is not None for c in mix.classes]

    first = sums()
    ran = len(runs)
    assert ran >= 1
    again = sums()
    assert len(again) == len(first)
    assert all(a is b for a, b in zip(again, first, strict=True))  # the very same sums
    assert len(runs) == ran


def _digest(cls: "closed.ClassInput", **over: Any) -> bytes:
    args: dict[str, Any] = {"singles": [(900.0, 0.2 * MS)], "classes": [cls],
                            "wait_mean_s": 0.01 * MS, "tau": 0.9 * MS, "commit_op": 2,
                            "ahead_s": 0.0, "write_ops": (1,)}
    args.update(over)
    return closed.inputs_digest(args.pop("singles"), args.pop("classes"), args.pop("wait_mean_s"),
                                args.pop("tau"), args.pop("commit_op"), **args)


def test_the_loops_digest_tells_every_input_apart() -> None:
    """Equal inputs in new objects give the same digest; a change in any one input, another."""
    def service(values: list[float], weights: list[float]) -> closed.Service:
        v, w = np.array(values), np.array(weights)
        return closed.Service(v, w, float((v * w).sum() / w.sum()))

    def cls(**over: Any) -> closed.ClassInput:
        fields: dict[str, Any] = {
            "rate": 300.0, "shapes": ((0.7, (0.0, 0.4 * MS, 0.9 * MS), (0, 1, 2)),),
            "reach": {0: (1.0, 0.25 * MS), 1: (0.5, 0.3 * MS)},
            "service": {0: service([0.2 * MS, 0.5 * MS], [3.0, 1.0]),
                        1: service([0.3 * MS], [1.0])},
            "commits": (closed.Commit(log=0, work_s=0.1 * MS,
                                      flush=service([0.6 * MS, 1.1 * MS], [1.0, 1.0])),)}
        fields.update(over)
        return closed.ClassInput(**fields)

    base = _digest(cls())
    assert _digest(cls()) == base
    changed = [
        _digest(cls(rate=301.0)),
        _digest(cls(shapes=((0.7, (0.0, 0.4 * MS, 1.0 * MS), (0, 1, 2)),))),
        _digest(cls(shapes=((0.7, (0.0, 0.4 * MS, 0.9 * MS), (0, 0, 2)),))),
        _digest(cls(reach={0: (1.0, 0.25 * MS), 1: (0.6, 0.3 * MS)})),
        _digest(cls(service={0: service([0.2 * MS, 0.5 * MS], [2.0, 1.0]),
                             1: service([0.3 * MS], [1.0])})),
        _digest(cls(commits=(closed.Commit(log=1, work_s=0.1 * MS,
                                           flush=service([0.6 * MS, 1.1 * MS], [1.0, 1.0])),))),
        _digest(cls(), singles=[(901.0, 0.2 * MS)]),
        _digest(cls(), wait_mean_s=0.02 * MS),
        _digest(cls(), tau=1.0 * MS),
        _digest(cls(), ahead_s=0.1 * MS),
        _digest(cls(), write_ops=()),
        _digest(cls(), classes=[cls(), cls()]),
    ]
    assert base not in changed
    assert len(set(changed)) == len(changed)


@pytest.mark.parametrize(("spec", "tps", "looped"), [
    ("c5.large:gp3:650GiB", 300.0, True),
    ("c5.large:io1:650GiB:10000iops", 1400.0, True),
    ("c5.large:raid0:2xgp3:325GiB", 300.0, False),  # RAID 0: each member state's chain
    ("m5d.large:store", 1000.0, True),  # a device limit, writes ahead by its write-back cache
])
def test_the_engine_runs_the_loop_but_on_raid0(spec: str, tps: float, looped: bool) -> None:
    """Where the engine takes a request's summed waits from the loop: a limit of a single EBS
    volume, the instance or an instance-store device (the write transactions' sums at the
    volume's IOPS limit, or the device's capacity, there)."""
    plan, mix, rates, x = chain_stats._engine_input(spec, 500.0, tps, 0)
    limits, _ = waits.spaced_waits(plan, mix, x, rates)
    assert limits
    assert all((w.closed is not None) == looped for w in limits)
    if looped:
        writes = next(c for c in mix.classes if c.kind == 1)
        iops = next(w for w in limits if plan.limit_names[w.limit].endswith(
            ("volume IOPS", "device capacity")))
        assert iops.closed is not None
        summed = iops.closed.summed(writes)
        assert summed is not None
        assert summed.mean > 0


@pytest.mark.parametrize("weights", [[1.0], [0.2, 0.5, 0.3], [0.0, 3.0, 0.0, 1.0, 1e-12],
                                     [1.0] * 9 + [1e-9]])
@pytest.mark.parametrize("seed", [1, 7])
def test_a_pick_is_numpys_choice_to_the_bit(weights: list[float], seed: int) -> None:
    """`closed._choose` (the loop's picks of shapes and background jobs) draws what
    `Generator.choice(size, p=...)` draws, index for index, and leaves the generator where
    numpy's leaves it."""
    p = np.array(weights) / sum(weights)
    mine, theirs = np.random.default_rng(seed), np.random.default_rng(seed)
    np.testing.assert_array_equal(closed._choose(mine, p, 200_001),
                                  theirs.choice(p.size, size=200_001, p=p))
    assert mine.random() == theirs.random()
    # and on the cdf's own points, where `side='right'` decides
    cdf = np.cumsum(p)
    cdf /= cdf[-1]
    u = np.r_[cdf[:-1], np.nextafter(cdf[:-1], 0.0), 0.0, np.nextafter(1.0, 0.0)]
    out = np.empty(u.size, dtype=np.int64)
    closed._first_above(u, cdf, out)
    np.testing.assert_array_equal(out, np.searchsorted(cdf, u, side="right"))


def test_a_guided_draw_is_the_whole_cdfs_first_point_above() -> None:
    """`_lay_out` draws each service by its guide table (`_guide`): the first point whose cdf >=
    u, or the last, as a search over the whole cdf finds it, for draws anywhere, on the guide's
    cell edges, just below them, and above a cdf whose last point rounds under 1."""
    rng = np.random.default_rng(3)
    services = [rng.random(701) ** 4, np.r_[np.zeros(300), rng.random(5), np.zeros(300)],
                np.r_[1.0, np.full(2000, 1e-7)], np.array([0.3]), np.r_[rng.random(40), 1e-17]]
    cdf = np.concatenate([np.cumsum(w) / w.sum() for w in services])
    first = np.concatenate(([0], np.cumsum([w.size for w in services]))).astype(np.int64)
    values = rng.random(cdf.size)
    edges = np.arange(closed.GUIDE_CELLS) / closed.GUIDE_CELLS
    u = np.concatenate([rng.random(20_000), edges, np.nextafter(edges[1:], 0.0),
                        [np.nextafter(1.0, 0.0)]])
    n = u.size
    for s in range(len(services)):
        # one request of n I/Os, each drawing service s: its gap is the drawn value
        gap = np.zeros(n)
        closed._lay_out(np.zeros(1, dtype=np.int64), np.array([0, n], dtype=np.int64),
                        np.repeat(u, 2), n, np.array([n], dtype=np.int64), np.zeros(n),
                        np.zeros(n), np.zeros(n), np.full(n, -1, dtype=np.int64), np.zeros(n),
                        np.full(n, s, dtype=np.int64), closed._guide(first, cdf), values, cdf,
                        np.zeros(n), gap, np.zeros(n, dtype=np.int64), np.zeros(n), np.zeros(n))
        own = cdf[first[s]:first[s + 1]]
        at = np.minimum(np.searchsorted(own, u, side="left"), own.size - 1) + first[s]
        np.testing.assert_array_equal(gap, values[at])
