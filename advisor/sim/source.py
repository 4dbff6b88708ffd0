"""Request sources: what the engine replays. A request is one or more I/Os run one after another.

Raw patterns (fio, sysbench fileio, ioping) make one-I/O requests; the database workloads
(`workloads.mysql`, `workloads.aerospike`) make multi-I/O transactions plus background streams.
All randomness comes from the `numpy.random.Generator` passed in.
"""

from dataclasses import dataclass, field
from itertools import islice
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

OP_READ, OP_WRITE, OP_COMMIT, OP_FLUSH, OP_CPU, OP_WRITE_WITH = 0, 1, 2, 3, 4, 5
KIND_READ, KIND_WRITE, KIND_FSYNC = 0, 1, 2  # request kinds (an fsync is neither read nor write)
# The page cache (assumptions, unsourced: Linux defaults): readahead window read_ahead_kb = 128;
# the block layer merges physically sequential dirty pages up to max_sectors_kb = 512 per I/O; a
# hit costs a system call (~2 us) and a copy at ~8 GiB/s.
READAHEAD_BYTES = 128 * 1024
MERGE_BYTES = 512 * 1024
# Dirty pages (Linux defaults, from the kernel's documentation of vm.dirty_ratio: 20 % of the
# dirtyable memory, taken here as the page cache): past the limit a writer is throttled
# (balance_dirty_pages) while the flusher writes back the oldest dirty pages, at least
# MIN_WRITEBACK_PAGES = 4 MiB per inode per pass (fs/fs-writeback.c). Assumptions, unsourced
# beyond the kernel's defaults; a tuned server (lower dirty_ratio or dirty_bytes) throttles sooner.
DIRTY_RATIO = 0.20
WRITEBACK_BATCH_BYTES = 4 * 1024 * 1024
HIT_BASE_US = 2.0
COPY_BYTES_PER_US = 8 * 1024**3 / 1e6


@dataclass(slots=True)
class Requests:
    """A batch of requests in CSR form: request i runs I/Os first[i] .. first[i + 1] - 1."""

    sched: NDArray[np.float64]  # intended start (s), -1 = as soon as a slot is free
    first: NDArray[np.int64]
    op: NDArray[np.int64]
    size: NDArray[np.int64]
    offset: NDArray[np.int64]
    aux: NDArray[np.int64]
    kind: NDArray[np.int64]  # per request: 0 read, 1 write (for latency classes)

    def __len__(self) -> int:
        return int(self.sched.shape[0])

    def slice(self, start: int) -> "Requests":
        """Requests from `start` on (I/O arrays re-based)."""
        base = int(self.first[start])
        return Requests(sched=self.sched[start:], first=self.first[start:] - base,
                        op=self.op[base:], size=self.size[base:], offset=self.offset[base:],
                        aux=self.aux[base:], kind=self.kind[start:])


@dataclass(slots=True)
class Background:
    """Open-loop device I/Os at their own times (page flushes, defrag): they use capacity but
    are not transactions."""

    sched: NDArray[np.float64]
    op: NDArray[np.int64]
    size: NDArray[np.int64]
    offset: NDArray[np.int64]

    @staticmethod
    def empty() -> "Background":
        return Background(sched=np.zeros(0), op=np.zeros(0, np.int64),
                          size=np.zeros(0, np.int64), offset=np.zeros(0, np.int64))

    def __len__(self) -> int:
        return int(self.sched.shape[0])


class RequestSource(Protocol):
    """What the engine asks of a workload."""

    concurrency: int  # closed-loop slots (outstanding requests at most)
    open_rate: float | None  # requests/s for Poisson arrivals; None = closed loop

    def requests(self, rng: np.random.Generator, count: int, t0: float) -> Requests:
        """The next `count` requests; open-loop sources start their arrivals after `t0`."""
        ...

    def background(self, rng: np.random.Generator, t0: float, t1: float) -> Background:
        """Background I/Os scheduled in [t0, t1)."""
        ...


def poisson_times(rng: np.random.Generator, rate: float, count: int,
                  t0: float) -> NDArray[np.float64]:
    return t0 + np.cumsum(rng.exponential(1.0 / rate, size=count))


def poisson_window(rng: np.random.Generator, rate: float, t0: float,
                   t1: float) -> NDArray[np.float64]:
    if rate <= 0 or t1 <= t0:
        return np.zeros(0)
    n = rng.poisson(rate * (t1 - t0))
    # n sorted uniform times without sorting: partial sums of n + 1 exponential gaps over their
    # total (the order statistics of n uniforms, exactly in distribution), in O(n).
    cum = np.cumsum(rng.exponential(size=n + 1))
    out: NDArray[np.float64] = t0 + (t1 - t0) * (cum[:-1] / cum[-1])
    return out


@dataclass(slots=True, kw_only=True)
class IoPattern:
    """A raw I/O pattern: fio `--rw --rwmixread --bs --iodepth --numjobs --rate_iops`,
    sysbench fileio modes (threads at queue depth 1, fsync every N writes), ioping (QD1)."""

    name: str
    read_fraction: float
    random: bool
    block_bytes: int
    concurrency: int
    span_bytes: int
    open_rate: float | None = None  # total IOPS asked (fio rate_iops, open loop)
    fsync_every_writes: int = 0  # sysbench --file-fsync-freq (0 = never)
    seq_cursor: int = 0  # next block of a sequential pattern (state of the source)
    # Buffered I/O through the page cache (sysbench's default, fio --direct=0) of `cache_bytes`
    # (0 until the instance's RAM is known: `advisor.sim.run.with_page_cache`). Reads hit the
    # cache with the chance the cached share of the span gives (uniform random access; a
    # sequential scan larger than the cache finds nothing of its last pass) and otherwise go to
    # the device, sequential ones a readahead window at a time; writes land in the cache and
    # reach the device at the next fsync, all dirty pages at once (merged where physically
    # sequential); and whenever the dirty pages reach the dirty limit (DIRTY_RATIO of the cache)
    # the writer waits while the oldest WRITEBACK_BATCH_BYTES of them are written back (merged
    # where sequential): with no fsync, writes run at memory speed until the limit, then at the
    # pace of writeback.
    buffered: bool = False
    cache_bytes: int = 0
    # The dirty pages by offset, oldest first (a page written again stays where it was and
    # counts once, as in the kernel), and the writes since the last fsync: state of the source,
    # kept across the DES's chunks of requests; each pattern (`dataclasses.replace` copies too)
    # holds its own dict.
    dirty: dict[int, None] = field(default_factory=dict)
    unsynced_writes: int = 0

    def __post_init__(self) -> None:
        self.dirty = dict(self.dirty)  # never shared with the pattern it was copied from

    @property
    def hit_ratio(self) -> float:
        """Chance a read finds its block in the page cache."""
        if not self.buffered or self.cache_bytes <= 0:
            return 0.0
        if self.cache_bytes >= self.span_bytes:
            return 1.0
        return self.cache_bytes / self.span_bytes if self.random else 0.0

    @property
    def dirty_limit_bytes(self) -> int:
        """Dirty pages the cache holds before a writer is throttled (vm.dirty_ratio)."""
        return max(self.block_bytes, int(self.cache_bytes * DIRTY_RATIO))

    @property
    def hit_us(self) -> float:
        return HIT_BASE_US + self.block_bytes / COPY_BYTES_PER_US

    def requests(self, rng: np.random.Generator, count: int, t0: float) -> Requests:
        reads = rng.random(count) < self.read_fraction
        op = np.where(reads, OP_READ, OP_WRITE).astype(np.int64)
        blocks = max(1, self.span_bytes // self.block_bytes)
        if self.random:
            offset = rng.integers(0, blocks, size=count, dtype=np.int64) * self.block_bytes
        else:
            idx = (self.seq_cursor + np.arange(count, dtype=np.int64)) % blocks
            self.seq_cursor = int(self.seq_cursor + count) % blocks
            offset = idx * self.block_bytes
        size = np.full(count, self.block_bytes, dtype=np.int64)
        kind = (op == OP_WRITE).astype(np.int64)
        if self.buffered:
            return self._buffered(rng, op, offset, count, t0)
        if self.fsync_every_writes > 0:
            return self._with_fsyncs(rng, op, size, offset, kind, count, t0)
        sched = (poisson_times(rng, self.open_rate, count, t0) if self.open_rate
                 else np.full(count, -1.0))
        return Requests(sched=sched, first=np.arange(count + 1, dtype=np.int64), op=op,
                        size=size, offset=offset, aux=np.zeros(count, np.int64), kind=kind)

    def _with_fsyncs(self, rng: np.random.Generator, op: NDArray[np.int64],
                     size: NDArray[np.int64], offset: NDArray[np.int64],
                     kind: NDArray[np.int64], count: int, t0: float) -> Requests:
        # Every Nth write is followed by an fsync; the fsync is its own request, as in sysbench.
        writes = np.cumsum(op == OP_WRITE)
        flush_after = (op == OP_WRITE) & (writes % self.fsync_every_writes == 0)
        extra = int(flush_after.sum())
        total = count + extra
        pos = np.arange(count) + np.concatenate(([0], np.cumsum(flush_after)[:-1]))
        new_op = np.full(total, 3, dtype=np.int64)
        new_size = np.zeros(total, dtype=np.int64)
        new_off = np.zeros(total, dtype=np.int64)
        new_kind = np.ones(total, dtype=np.int64)
        new_op[pos], new_size[pos], new_off[pos], new_kind[pos] = op, size, offset, kind
        sched = (poisson_times(rng, self.open_rate, total, t0) if self.open_rate
                 else np.full(total, -1.0))
        return Requests(sched=sched, first=np.arange(total + 1, dtype=np.int64), op=new_op,
                        size=new_size, offset=new_off, aux=np.zeros(total, np.int64),
                        kind=new_kind)

    def _buffered(self, rng: np.random.Generator, op: NDArray[np.int64],
                  offset: NDArray[np.int64], count: int, t0: float) -> Requests:
        """`count` application requests through the page cache, as device I/Os and CPU work."""
        hit_us = max(1, round(self.hit_us))
        h = self.hit_ratio
        hits = rng.random(count) < h
        window = max(READAHEAD_BYTES, self.block_bytes)
        ios: list[tuple[int, int, int]] = []  # (op, size, offset)
        first = [0]
        kinds: list[int] = []
        pending = self.dirty  # offsets of the dirty pages, oldest first
        unsynced = self.unsynced_writes
        limit = max(1, self.dirty_limit_bytes // self.block_bytes)  # in pages
        batch = max(1, WRITEBACK_BATCH_BYTES // self.block_bytes)
        for i in range(count):
            off = int(offset[i])
            if op[i] == OP_READ:
                if h >= 1.0 or (self.random and hits[i]):
                    ios.append((OP_CPU, hit_us, 0))
                elif self.random:
                    ios.append((OP_READ, self.block_bytes, off))
                elif off % window < self.block_bytes:  # a window's first block: read it all
                    ios.append((OP_READ, window, off - off % window))
                else:  # read ahead with the window's first block
                    ios.append((OP_CPU, hit_us, 0))
                kinds.append(KIND_READ)
            else:
                ios.append((OP_CPU, hit_us, 0))
                kinds.append(KIND_WRITE)
                pending.setdefault(off, None)  # a dirty page written again stays one page
                unsynced += 1
                if len(pending) >= limit:  # balance_dirty_pages: wait for a writeback batch
                    oldest = list(islice(pending, batch))
                    for page in oldest:
                        del pending[page]
                    ios += self._writeback(oldest, flush=False)
                if 0 < self.fsync_every_writes <= unsynced:
                    first.append(len(ios))
                    ios += self._writeback(list(pending))
                    kinds.append(KIND_FSYNC)
                    pending.clear()
                    unsynced = 0
            first.append(len(ios))
        self.unsynced_writes = unsynced
        n = len(kinds)
        sched = (poisson_times(rng, self.open_rate, n, t0) if self.open_rate
                 else np.full(n, -1.0))
        arr = np.array(ios, dtype=np.int64).reshape(-1, 3)
        return Requests(sched=sched, first=np.array(first, dtype=np.int64),
                        op=arr[:, 0].copy(), size=arr[:, 1].copy(), offset=arr[:, 2].copy(),
                        aux=np.zeros(len(ios), np.int64), kind=np.array(kinds, dtype=np.int64))

    def _writeback(self, pending: list[int], flush: bool = True) -> list[tuple[int, int, int]]:
        """Dirty pages written at once, physically sequential ones merged into I/Os of up to
        MERGE_BYTES, then (an fsync) the device's cache flushed."""
        runs: list[list[int]] = []  # [offset, bytes]
        for off in sorted(pending):  # distinct pages: `dirty` holds each once
            last = runs[-1] if runs else None
            if last and last[0] + last[1] == off and last[1] + self.block_bytes <= MERGE_BYTES:
                last[1] += self.block_bytes
            else:
                runs.append([off, self.block_bytes])
        out = [(OP_WRITE if j == 0 else OP_WRITE_WITH, nbytes, off)
               for j, (off, nbytes) in enumerate(runs)]
        return [*out, (OP_FLUSH, 0, 0)] if flush else out

    def background(self, rng: np.random.Generator, t0: float, t1: float) -> Background:
        return Background.empty()
