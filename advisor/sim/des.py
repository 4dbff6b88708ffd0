"""The discrete-event engine's driver: feeds request batches to the compiled kernel and keeps
statistics, time series and limiter accounting. Deterministic for a given seed."""

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from advisor.sim.plan import SimPlan
from advisor.sim.source import OP_READ, OP_WRITE, Background, Requests, RequestSource
from advisor.sim.stats import LatencyStats

DEFAULT_CHUNK = 65536
TIMELINE_POINTS = 240
Progress = Callable[[float], None]  # fraction of simulated time done


@dataclass(slots=True, kw_only=True)
class RawLevel:
    """What one run measured, before it is turned into the result JSON."""

    duration_s: float
    warmup_s: float
    requests: dict[str, int]
    bytes: dict[str, int]
    request_latency: dict[str, LatencyStats]  # "read", "write", "all"
    io_latency: dict[str, LatencyStats]  # device I/Os: "read", "write"
    background_latency: LatencyStats
    background_ios: int
    background_lag_s: float  # how late the last background I/O finished vs. when it was due
    lim_used: NDArray[np.float64]
    lim_tat: NDArray[np.float64]  # where each limit's pacing stood at the end (backlog if > end)
    serial_busy_s: NDArray[np.float64]  # per member, devices that serve one I/O at a time
    lim_exhaust: NDArray[np.float64]
    lim_held: NDArray[np.float64]  # I/Os each limit held back (started later than issued)
    lim_balance_end: NDArray[np.float64]
    timeline_dt: float
    timeline_counts: NDArray[np.int64]
    timeline_bytes: NDArray[np.float64]
    timeline_buckets: NDArray[np.float64]  # [bins, tracked]
    tracked: list[int]
    seed: int
    completed: int = 0  # requests started after the warm-up that finished within the run
    # Requests that finished inside the window [warm-up, end], whenever they arrived: the
    # throughput past saturation, where requests arriving after the warm-up may all still be
    # queued at the end.
    finished_in_window: int = 0
    # Time-average number of requests in flight over the window, from the kernel's own start and
    # end times (not from the latency statistics): what Little's law L = lambda W is checked on.
    mean_in_flight: float = 0.0
    slices: list[LatencyStats] = field(default_factory=list)  # read latency per time slice
    slice_s: float = 0.0
    engine: str = "des"
    notes: list[str] = field(default_factory=list)


def _device_ios(op: NDArray[np.int64], aux: NDArray[np.int64],
                done: NDArray[np.float64]) -> NDArray[np.bool_]:
    """The I/Os that reached a device: reads, writes and each group commit's one log write (the
    commits that joined a group share its write and its completion time on the same log)."""
    dev = op <= 1
    commit = np.flatnonzero(op == 2)
    if commit.size:
        log, at = aux[commit], done[commit]
        order = np.lexsort((at, log))  # stable: a group's first commit leads it
        log, at = log[order], at[order]
        first = np.ones(order.size, dtype=np.bool_)
        first[1:] = (log[1:] != log[:-1]) | (at[1:] != at[:-1])
        dev[commit[order[first]]] = True
    return dev


def _stream_key(rng: np.random.Generator) -> int:
    """A key for the kernel's counter-based draws (`advisor.sim.kernel._uniform`)."""
    return int(rng.integers(0, 2**63 - 1))


def run_des(plan: SimPlan, source: RequestSource, *, duration_s: float, seed: int,
            warmup_s: float = 0.0, chunk: int = DEFAULT_CHUNK,
            progress: Progress | None = None, slice_s: float = 0.0,
            couple_background: bool = False, throttle_lag_s: float = 0.0,
            closed_rate: float = 0.0, detail: bool = True) -> RawLevel:
    """Simulate `source` on `plan` for `duration_s` simulated seconds.

    `couple_background`: the source's background stream is work its foreground generates (page
    flushes of the transactions run): a background I/O due at s is released once as many
    requests have run as had arrived by s (each as late as the foreground runs behind), so past
    saturation it follows the transactions run, not those offered. `throttle_lag_s` (> 0): a
    write request does not start, nor issue its next I/O, while background work already issued
    would finish more than this after now (flushing that far behind holds foreground writes).
    `closed_rate`: for a coupled closed loop, the request rate the background stream was
    generated for. `detail=False` (a search's replications, which read the requests' latency, the
    background's lag and the limits' counters alone) skips the rest of the accounting: the read
    and write latencies, the device I/Os' latencies, counts and bytes, the I/O timeline and the
    background I/Os' latency stay empty; the simulation itself is the same to the bit."""
    # The compiled kernel (numba) loads when a simulation runs, not when this module is imported.
    from advisor.sim.kernel import BG_CTL_SIZE, run_chunk, run_events

    rng = np.random.default_rng(seed)
    if source.open_rate:  # no more requests per batch than the run will use
        chunk = int(min(chunk, max(1024, source.open_rate * duration_s * 1.05 + 64)))
    nl = plan.n_limits
    limi, limf, devf, devm = plan.packed()
    # Slow episodes: a key per member from the seed, on a stream of its own so the draws of
    # everything else stay as they were.
    devm[:, 11] = np.random.default_rng([seed, 11]).integers(1, 2**52, plan.members)
    if plan.variable:
        from advisor.sim.kernel import slow_phases

        devm[:, 12] = slow_phases(np.ascontiguousarray(devm[:, 11]))
    # next free, balance, balance time, used, exhausted at, I/Os it held back
    lims = np.zeros((nl, 6))
    lims[:, 1] = plan.lim_init
    lims[:, 4] = -1.0
    # free at, last end offset, unused, serial busy s, slow slot, its factor
    mems = np.zeros((plan.members, 6))
    mems[:, 1] = -1.0
    mems[:, 4] = -1.0
    heap = np.zeros(max(1, source.concurrency))
    # The kernel's scratch (it allocates nothing): RAID mapping, and the event kernel's heap
    # (time, request, its next I/O) of one entry per connection and one more.
    tmp = np.zeros((3, plan.members + 1), dtype=np.int64)
    cap = source.concurrency + 1
    events = (np.zeros(cap), np.zeros(cap, dtype=np.int64), np.zeros(cap, dtype=np.int64))
    log_state = np.tile(np.array([0.0, -1.0, -1.0, -1.0]), (4, 1))
    tracked = plan.bucket_limits()[:4]
    track = np.array(tracked, dtype=np.int64)
    dt = max(duration_s / TIMELINE_POINTS, 1e-3)
    nbins = int(np.ceil(duration_s / dt)) + 1
    tl_bal = np.full((nbins, max(1, len(tracked))), np.nan)
    tl_counts = np.zeros(nbins, dtype=np.int64)
    tl_bytes = np.zeros(nbins)

    # A coupled closed loop may run ahead of the rate its background was generated for.
    bg_end = duration_s * (1.5 if couple_background and closed_rate > 0 else 1.0)
    bg: Background = source.background(rng, 0.0, bg_end)
    bg_ctl = np.zeros(BG_CTL_SIZE)
    bg_ctl[2] = 0.0 if source.open_rate else closed_rate
    bg_ctl[0] = 1.0 if couple_background and (source.open_rate or closed_rate > 0) else 0.0
    bg_ctl[1] = max(0.0, throttle_lag_s)
    bg_key = _stream_key(rng)
    bg_issue = np.zeros(len(bg))
    bg_done = np.zeros(len(bg))
    bg_pos = np.zeros(1, dtype=np.int64)
    in_flight = np.zeros(1)  # request-seconds in flight inside [warmup_s, duration_s]

    req_stats = {k: LatencyStats() for k in ("read", "write", "all")}
    buffered = bool(getattr(source, "buffered", False))
    io_stats = {k: LatencyStats() for k in ("read", "write")}
    counts = {"read": 0, "write": 0, "total": 0}
    nbytes = {"read": 0, "write": 0, "total": 0}
    n_slices = int(np.ceil((duration_s - warmup_s) / slice_s)) if slice_s > 0 else 0
    slices = [LatencyStats() for _ in range(n_slices)]
    t_sched = 0.0
    completed = 0
    in_window = 0
    finished = False
    while not finished:
        reqs = source.requests(rng, chunk, t_sched)
        if source.open_rate:
            t_sched = float(reqs.sched[-1])
        k = int(reqs.first[-1])
        key = _stream_key(rng)  # this batch's draws
        out_start = np.zeros(len(reqs))
        out_end = np.zeros(len(reqs))
        io_issue = np.zeros(k)
        io_done = np.zeros(k)
        multi = bool((np.diff(reqs.first) > 1).any()) and bool(source.open_rate)
        kernel = run_events if multi else run_chunk
        ran = kernel(
            reqs.sched, reqs.first, reqs.op, reqs.size, reqs.offset, reqs.aux, key,
            bg.sched, bg.op, bg.size, bg.offset, bg_key, bg_pos,
            plan.raid, plan.members, plan.chunk_bytes, plan.chain, limi, limf, devf, devm,
            lims, mems, source.concurrency if multi else heap, log_state, duration_s, warmup_s,
            dt, track, tl_bal,
            out_start, out_end, io_issue, io_done, bg_issue, bg_done, in_flight, reqs.kind,
            bg_ctl, tmp, *(events if multi else ()))
        finished = ran < len(reqs)
        if multi:  # the event kernel drains every admitted request; keep time moving forward
            heap[:] = float(out_end[:ran].max()) if ran else heap
        kio = int(reqs.first[ran])
        keep = out_start[:ran] >= warmup_s
        lat = (out_end[:ran] - out_start[:ran])[keep]
        completed += int((out_end[:ran][keep] <= duration_s).sum())
        in_window += int(((out_end[:ran] >= warmup_s) & (out_end[:ran] <= duration_s)).sum())
        kind = reqs.kind[:ran][keep]
        req_stats["all"].add(lat)
        if finished and source.open_rate:
            in_flight[0] += _count_unstarted(source, rng, reqs, ran, duration_s, warmup_s,
                                             req_stats, split=detail)
        if progress is not None:
            progress(min(1.0, float(heap.min()) / duration_s) if not finished else 1.0)
        if not detail:
            continue
        req_stats["read"].add(lat[kind == 0])
        req_stats["write"].add(lat[kind == 1])
        if n_slices:
            starts = out_start[:ran][keep]
            idx = np.minimum(((starts - warmup_s) / slice_s).astype(np.int64), n_slices - 1)
            for k in range(n_slices):
                sel = (idx == k) & (kind == 0)
                if sel.any():
                    slices[k].add(lat[sel])
        op = reqs.op[:kio]
        size = reqs.size[:kio]
        io_keep = io_issue[:kio] >= warmup_s
        io_lat = io_done[:kio] - io_issue[:kio]
        io_keep &= io_done[:kio] <= duration_s  # completed within the run
        for name, code in (("read", OP_READ), ("write", OP_WRITE)):
            sel = io_keep & ((op == code) | ((op == 2) if code == OP_WRITE else False))
            io_stats[name].add(io_lat[sel])
            if not buffered:
                counts[name] += int(sel.sum())
                nbytes[name] += int(size[sel].sum())
        if buffered:  # through the page cache: the application's reads and writes, as the
            # tools report them (hits included, fsyncs apart)
            done_in = (out_start[:ran] >= warmup_s) & (out_end[:ran] <= duration_s)
            for name, code in (("read", 0), ("write", 1)):
                k_n = int((done_in & (reqs.kind[:ran] == code)).sum())
                counts[name] += k_n
                nbytes[name] += k_n * int(getattr(source, "block_bytes", 0))
        bins = np.minimum((io_done[:kio] / dt).astype(np.int64), nbins - 1)
        data = _device_ios(op, reqs.aux[:kio], io_done[:kio])
        tl_counts += np.bincount(bins[data], minlength=nbins)
        tl_bytes += np.bincount(bins[data], weights=size[data].astype(np.float64),
                                minlength=nbins)
    nbg = int(bg_pos[0])
    bg_stats = LatencyStats()
    if detail:
        # The timeline counts every device I/O, background ones (flushing, apply) too.
        bg_data = bg.op[:nbg] <= 2
        bg_bins = np.minimum((bg_done[:nbg][bg_data] / dt).astype(np.int64), nbins - 1)
        tl_counts += np.bincount(bg_bins, minlength=nbins)
        tl_bytes += np.bincount(bg_bins, weights=bg.size[:nbg][bg_data].astype(np.float64),
                                minlength=nbins)
        # Background device I/Os (page flushes, replication apply, defrag) count as device I/Os.
        bg_keep = (bg_issue[:nbg] >= warmup_s) & (bg_done[:nbg] <= duration_s)
        for name, sel in (("read", bg.op[:nbg] == OP_READ),
                          ("write", (bg.op[:nbg] == OP_WRITE) | (bg.op[:nbg] == 2))):
            counts[name] += int((sel & bg_keep).sum())
            nbytes[name] += int(bg.size[:nbg][sel & bg_keep].sum())
        bg_stats.add(bg_done[:nbg] - bg_issue[:nbg])
    counts["total"] = counts["read"] + counts["write"]
    nbytes["total"] = nbytes["read"] + nbytes["write"]
    # Late against when it was released (its due time, moved by the foreground's admission delay
    # when coupled).
    lag = float(np.max(bg_done[:nbg] - bg_issue[:nbg])) if nbg else 0.0
    # Balance at the end, as of the end of the run.
    bal_end = np.minimum(plan.lim_cap, lims[:, 1] + plan.lim_earn * (duration_s - lims[:, 2]))
    return RawLevel(duration_s=duration_s, warmup_s=warmup_s, requests=counts, bytes=nbytes,
                    request_latency=req_stats, io_latency=io_stats, background_latency=bg_stats,
                    background_ios=nbg, background_lag_s=lag, lim_used=lims[:, 3].copy(),
                    serial_busy_s=mems[:, 3].copy(), lim_tat=lims[:, 0].copy(),
                    lim_exhaust=lims[:, 4].copy(), lim_held=lims[:, 5].copy(),
                    lim_balance_end=bal_end, timeline_dt=dt,
                    timeline_counts=tl_counts, timeline_bytes=tl_bytes,
                    timeline_buckets=_ffill(tl_bal, plan, tracked), tracked=tracked, seed=seed,
                    slices=slices, slice_s=slice_s, completed=completed,
                    finished_in_window=in_window,
                    mean_in_flight=float(in_flight[0]) / (duration_s - warmup_s))


def _ffill(tl: NDArray[np.float64], plan: SimPlan, tracked: list[int]) -> NDArray[np.float64]:
    """Each tracked balance carried forward over the bins with no record (its initial balance
    before the first)."""
    out = tl.copy()
    rows = np.arange(out.shape[0])
    for b, l in enumerate(tracked):
        col = out[:, b]
        last = np.maximum.accumulate(np.where(np.isnan(col), -1, rows))
        out[:, b] = np.where(last >= 0, col[np.maximum(last, 0)], plan.lim_init[l])
    return out


def _count_unstarted(source: RequestSource, rng: np.random.Generator, reqs: Requests, ran: int,
                     duration_s: float, warmup_s: float, stats: dict[str, LatencyStats], *,
                     split: bool = True) -> float:
    """Open loop past saturation: requests offered before the end that never got a connection
    slot still count, with the time they had waited by the end (a lower bound), so an overload
    shows in the percentiles instead of vanishing (coordinated omission). Returns their time in
    flight inside the window (they are in the system from arrival to the end). `split`: into
    "read" and "write" too, not only "all"."""
    sched, kind = reqs.sched[ran:], reqs.kind[ran:]
    waited = 0.0
    while True:
        sel = (sched < duration_s) & (sched >= warmup_s)
        wait = duration_s - sched[sel]
        stats["all"].add(wait)
        if split:
            stats["read"].add(wait[kind[sel] == 0])
            stats["write"].add(wait[kind[sel] == 1])
        before = sched < warmup_s  # arrived in the warm-up: in flight over the whole window
        waited += float(wait.sum()) + float(before.sum()) * (duration_s - warmup_s)
        if sched.size == 0 or sched[-1] >= duration_s:
            return waited
        more = source.requests(rng, DEFAULT_CHUNK, float(sched[-1]))
        sched, kind = more.sched, more.kind
