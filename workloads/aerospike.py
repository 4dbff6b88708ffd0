"""Aerospike-style storage load as ACT (the Aerospike Certification Tool) derives it.

ACT's `derive_configuration` (reference-tools section 1): records rounded up to 16 B, small reads
rounded up to 512 B; internal reads = reads + writes x update-pct/100; internal writes = RF x
writes; large-block (128 KiB) writes/s = internal writes / (block bytes / record bytes) x defrag
amplification 100 / (100 - defrag-lwm-pct); defrag reads at the same rate. Client latency is the
small reads'. Pass/fail per time slice: < 5 % of reads over 1 ms, < 1 % over 8 ms, < 0.1 % over
64 ms. "1x" = 2,000 reads/s + 1,000 writes/s per device.
"""

import math
from dataclasses import dataclass, fields
from typing import Any, TypedDict, Unpack

import numpy as np

from advisor import MODEL_VERSION, __version__
from advisor.catalog.model import Catalog
from advisor.errors import InvalidInput
from advisor.layout.describe import usable_capacity_gib
from advisor.layout.model import Layout
from advisor.sim.des import run_des
from advisor.sim.plan import compile_plan, with_write_load
from advisor.sim.result import des_level
from advisor.sim.results import ActRow, ActSlice, ActTest, Load
from advisor.sim.source import (
    OP_READ,
    OP_WRITE,
    Background,
    Requests,
    poisson_times,
    poisson_window,
)
from advisor.sim.stats import LatencyStats
from workloads.aerospike_options import MAX_RECORD_BYTES
from workloads.results import ActKnee, ActLevel, ActRating, ActSimResult

KIB = 1024
READS_PER_X, WRITES_PER_X = 2000, 1000  # per device
ACT_LIMITS = ((1, 5.0), (8, 1.0), (64, 0.1))  # (ms, max % of reads over it)
# A slice offered this many reads that finished none fails (P(0 arrivals) = e^-10 = 4.5e-5).
MIN_DUE_READS = 10.0


class ActOptions(TypedDict, total=False):
    """ActLoad's keyword options besides the two rates (what `ActLoad.at_x` passes through)."""

    record_bytes: int
    replication_factor: int
    update_pct: float
    defrag_lwm_pct: float
    large_block_kib: int
    defrag_reads: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class ActLoad:
    """ACT's configuration (totals over the node's devices)."""

    reads_per_sec: float
    writes_per_sec: float
    record_bytes: int = 1536
    replication_factor: int = 1
    update_pct: float = 0.0
    defrag_lwm_pct: float = 50.0
    large_block_kib: int = 0  # 0: ACT's 128 KiB, or the smallest power of 2 holding a record
    defrag_reads: bool = True

    def __post_init__(self) -> None:
        if self.large_block_kib == 0 and 1 <= self.record_bytes <= MAX_RECORD_BYTES:
            object.__setattr__(self, "large_block_kib", self.block_kib_for(self.record_bytes))
        for ok, msg in (
            (self.reads_per_sec >= 0 and self.writes_per_sec >= 0,
             "--reads-per-sec/--writes-per-sec must be 0 or more"),
            (self.reads_per_sec + self.writes_per_sec > 0, "give a read or write load"),
            (1 <= self.record_bytes <= MAX_RECORD_BYTES, "--record-bytes must be 1 B .. 8 MiB"),
            (1 <= self.replication_factor <= 8, "--replication-factor must be 1..8"),
            (0 <= self.update_pct <= 100, "--update-pct must be 0..100"),
            (0 <= self.defrag_lwm_pct < 100, "--defrag-lwm-pct must be 0 <= x < 100"),
            (self.large_block_kib & (self.large_block_kib - 1) == 0
             and 1 <= self.large_block_kib <= 8192, "large-block-op-kbytes: power of 2 <= 8192"),
            (self.large_block_kib * KIB >= self.stored_record_bytes,
             "large-block-op-kbytes must hold a whole record"),
        ):
            if not ok:
                raise InvalidInput(msg)

    @staticmethod
    def at_x(x: float, devices: int, **kw: Unpack[ActOptions]) -> "ActLoad":
        if x <= 0:
            raise InvalidInput(f"--x {x:g}: must be positive")
        return ActLoad(reads_per_sec=READS_PER_X * x * devices,
                       writes_per_sec=WRITES_PER_X * x * devices, **kw)

    @staticmethod
    def block_kib_for(record_bytes: int) -> int:
        """ACT's 128 KiB large block, or the smallest power of 2 holding one (rounded) record."""
        stored = math.ceil(record_bytes / 16) * 16
        return max(128, 1 << math.ceil(math.log2(stored / KIB))) if stored > 128 * KIB else 128

    @property
    def stored_record_bytes(self) -> int:
        return int(math.ceil(self.record_bytes / 16) * 16)

    @property
    def read_bytes(self) -> int:
        return int(math.ceil(self.stored_record_bytes / 512) * 512)

    @property
    def defrag_amplification(self) -> float:
        return 100.0 / (100.0 - self.defrag_lwm_pct)

    @property
    def internal_reads_per_sec(self) -> float:
        return self.reads_per_sec + self.writes_per_sec * self.update_pct / 100

    @property
    def internal_writes_per_sec(self) -> float:
        return self.replication_factor * self.writes_per_sec

    @property
    def large_block_writes_per_sec(self) -> float:
        records_per_block = self.large_block_kib * KIB / self.stored_record_bytes
        return self.internal_writes_per_sec / records_per_block * self.defrag_amplification

    @property
    def large_block_reads_per_sec(self) -> float:
        return self.large_block_writes_per_sec if self.defrag_reads else 0.0

    def derivation(self) -> dict[str, Any]:
        return {"record_bytes": self.stored_record_bytes, "read_bytes": self.read_bytes,
                "internal_reads_per_sec": self.internal_reads_per_sec,
                "internal_writes_per_sec": self.internal_writes_per_sec,
                "defrag_amplification": self.defrag_amplification,
                "large_block_writes_per_sec": round(self.large_block_writes_per_sec, 3),
                "large_block_reads_per_sec": round(self.large_block_reads_per_sec, 3),
                "large_block_bytes": self.large_block_kib * KIB}


@dataclass(slots=True, kw_only=True)
class ActSource:
    """Small reads (the client latency) open loop; large-block writes and defrag reads behind."""

    load: ActLoad
    span_bytes: int
    concurrency: int = 4096
    open_rate: float | None = None

    def __post_init__(self) -> None:
        self.open_rate = max(self.load.internal_reads_per_sec, 1e-9)

    def requests(self, rng: np.random.Generator, count: int, t0: float) -> Requests:
        size = self.load.read_bytes
        slots = max(1, self.span_bytes // size)
        return Requests(sched=poisson_times(rng, self.open_rate or 1e-9, count, t0),
                        first=np.arange(count + 1, dtype=np.int64),
                        op=np.full(count, OP_READ, np.int64), size=np.full(count, size, np.int64),
                        offset=rng.integers(0, slots, size=count, dtype=np.int64) * size,
                        aux=np.zeros(count, np.int64), kind=np.zeros(count, np.int64))

    def background(self, rng: np.random.Generator, t0: float, t1: float) -> Background:
        block = self.load.large_block_kib * KIB
        blocks = max(1, self.span_bytes // block)
        w = poisson_window(rng, self.load.large_block_writes_per_sec, t0, t1)
        r = poisson_window(rng, self.load.large_block_reads_per_sec, t0, t1)
        t = np.concatenate([w, r])
        op = np.concatenate([np.full(w.size, OP_WRITE, np.int64),
                             np.full(r.size, OP_READ, np.int64)])
        order = np.argsort(t, kind="stable")
        offsets = rng.integers(0, blocks, size=t.size, dtype=np.int64) * block
        return Background(sched=t[order], op=op[order], size=np.full(t.size, block, np.int64),
                          offset=offsets)


def act_row(stats: LatencyStats) -> ActRow:
    return ActRow(**stats.act_row())


def act_pass(row: ActRow) -> tuple[bool, list[str]]:
    fails = [f"{row.over(ms):.2f} % of reads over {ms} ms (limit {limit:g} %)"
             for ms, limit in ACT_LIMITS if row.over(ms) >= limit]
    return not fails, fails


def devices_of(layout: Layout) -> int:
    return layout.spec.count


def simulate_act(layout: Layout, catalog: Catalog, loads: list[tuple[Load, ActLoad]], *,
                 duration_s: float = 60.0, slice_s: float | None = None, seed: int = 1,
                 progress: Any = None) -> ActSimResult:
    """Run ACT's load on a layout at each level; the rating is the highest x that passes."""
    plan = compile_plan(layout, catalog)
    span = int(usable_capacity_gib(layout) * 2**30)
    slice_s = slice_s or max(duration_s / 6, 1.0)
    levels = []
    for i, (label, load) in enumerate(loads):
        src = ActSource(load=load, span_bytes=span)
        write_mibps = load.large_block_writes_per_sec * load.large_block_kib / 1024
        level_plan = with_write_load(plan, write_mibps / max(1, layout.spec.count))

        def tick(frac: float, i: int = i) -> None:
            if progress is not None:
                progress(i, frac)
        raw = run_des(level_plan, src, duration_s=duration_s, seed=seed + i, slice_s=slice_s,
                      progress=tick)
        rows = []
        due = load.reads_per_sec * slice_s  # reads each slice is offered
        for k, stats in enumerate(raw.slices):
            pcts = stats.act_row()
            ok, why = act_pass(ActRow(**pcts))
            if stats.n == 0 and due >= MIN_DUE_READS:
                # No read finished although ~`due` arrived: the device fell behind them (ACT
                # would time them out); a slice with nothing to judge does not pass.
                ok, why = False, [f"no read finished in the slice, ~{due:,.0f} were due: the "
                                  "device fell behind"]
            rows.append(ActSlice(slice=k + 1, start_s=round(k * slice_s, 1), reads=stats.n,
                                 **pcts, passed=ok, fails=tuple(why)))
        overall = act_row(raw.request_latency["read"])
        worst = ActRow(**{f.name: max((getattr(r, f.name) for r in rows), default=0.0)
                          for f in fields(ActRow)})
        ok = all(r.passed for r in rows) and bool(rows)
        levels.append(des_level(level_plan, raw, load=label, queue_depth=None).extended(
            ActLevel, act=ActTest(slices=tuple(rows), avg=overall, max=worst, passed=ok,
                                  derivation=load.derivation()),
            notes=tuple(level_plan.notes), meets_slo=ok))
    passed: ActLoad | None = None  # the highest level before the first failing one
    rating = None
    for lv, (_, load) in zip(levels, loads, strict=True):
        if not lv.meets_slo:
            break
        passed, rating = load, lv.load.get("x")
    if passed is None:
        rating_text = "does not pass ACT at the lowest level tried"
    elif rating is not None:
        rating_text = f"passes ACT up to {rating:g}x"
    else:  # levels given as rates, not multiples of 1x
        rating_text = (f"passes ACT at {passed.reads_per_sec:,.0f} reads/s + "
                       f"{passed.writes_per_sec:,.0f} writes/s")
    last = levels[-1]
    return ActSimResult(
        layout=str(layout.spec), devices=devices_of(layout), slice_s=slice_s,
        levels=tuple(levels), rating=ActRating(x=rating, text=rating_text),
        knee=ActKnee(x=rating), duration_s=duration_s, ios=last.ios, iops=last.iops,
        throughput_mibps=last.throughput_mibps, latency_ms=last.latency_ms,
        bottleneck=last.bottleneck, timeline=last.timeline, engine=("des",), seed=seed,
        model_version=MODEL_VERSION, advisor_version=__version__,
        catalog_version=catalog.catalog_version)
