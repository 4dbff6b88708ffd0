"""Request sources: what the engine replays. A request is one or more I/Os run one after another.

Raw patterns (fio, sysbench fileio, ioping) make one-I/O requests; the database workloads
(`workloads.mysql`, `workloads.aerospike`) make multi-I/O transactions plus background streams.
All randomness comes from the `numpy.random.Generator` passed in.
"""

from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

OP_READ, OP_WRITE, OP_COMMIT, OP_FLUSH, OP_CPU = 0, 1, 2, 3, 4


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
    return np.sort(rng.uniform(t0, t1, size=n))


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

    def background(self, rng: np.random.Generator, t0: float, t1: float) -> Background:
        return Background.empty()
