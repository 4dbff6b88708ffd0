"""Aerospike-style storage load as ACT (the Aerospike Certification Tool) derives it.

ACT's `derive_configuration` (reference-tools section 1): records rounded up to 16 B, small reads
rounded up to 512 B; internal reads = reads + writes x update-pct/100; internal writes = RF x
writes; large-block (128 KiB) writes/s = internal writes / (block bytes / record bytes) x defrag
amplification 100 / (100 - defrag-lwm-pct); defrag reads at the same rate. Client latency is the
small reads'. Pass/fail per time slice: < 5 % of reads over 1 ms, < 1 % over 8 ms, < 0.1 % over
64 ms. "1x" = 2,000 reads/s + 1,000 writes/s per device.
"""

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from functools import partial
from typing import Any, TypedDict, Unpack

import numpy as np

from advisor import MODEL_VERSION, __version__
from advisor.catalog.model import Catalog
from advisor.errors import InvalidInput
from advisor.layout.describe import usable_capacity_gib
from advisor.layout.model import Layout
from advisor.sim.credits import DAY_S
from advisor.sim.des import run_des
from advisor.sim.parallel import side_by_side
from advisor.sim.plan import (
    SimPlan,
    compile_plan,
    episode_strata,
    with_member_slow,
    with_write_load,
)
from advisor.sim.result import des_level
from advisor.sim.results import (
    ActEpisodeHour,
    ActRow,
    ActSlice,
    ActTest,
    ActThreshold,
    Load,
)
from advisor.sim.source import (
    OP_READ,
    OP_WRITE,
    Background,
    Requests,
    poisson_times,
    poisson_window,
)
from advisor.sim.stats import T975, LatencyStats, t_half_width
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


def reads_judged(test: ActTest) -> int:
    """Small reads an ACT test judged (its slices' reads)."""
    return sum(s.reads for s in test.slices)


def fell_behind(test: ActTest) -> bool:
    """Whether a slice of the test finished no read although reads were due (`simulate_act`)."""
    return any(s.reads == 0 and s.fails for s in test.slices)


def act_thresholds(tests: Sequence[ActTest]) -> tuple[ActThreshold, ...]:
    """ACT's three thresholds estimated from independent replications of one test: the % of all
    their reads over each (pooled), with the 95 % interval from the spread of the replications'
    own % (Student's t; one replication: no interval, both ends at its figure).

    ACT judges each hour slice, ~7 million reads a device at 1x; a simulated replication draws
    ~60,000. An hour's % of a steady device is its long-run %, which the pooled % estimates; a
    slice of a few thousand simulated reads is noise around it, not an hour."""
    reads = [reads_judged(t) for t in tests]
    total = sum(reads)
    out = []
    for ms, limit in ACT_LIMITS:
        own = [t.avg.over(ms) for t in tests]
        pct = sum(r * f for r, f in zip(reads, own, strict=True)) / total if total else 0.0
        half = t_half_width(own)
        out.append(ActThreshold(over_ms=ms, limit_pct=limit, pct=round(pct, 4),
                                ci95_pct=(round(max(0.0, pct - half), 4), round(pct + half, 4))))
    return tuple(out)


def act_decided(thresholds: Sequence[ActThreshold]) -> bool | None:
    """True when every threshold's interval lies under its limit (ACT fails a slice at or over
    it), False when one lies wholly at or over its limit, None while an interval straddles one."""
    if any(t.ci95_pct[0] >= t.limit_pct for t in thresholds):
        return False
    if all(t.ci95_pct[1] < t.limit_pct for t in thresholds):
        return True
    return None


# An hour with a slow episode (`episode_hour`): strata of the uniformly drawn speed loss.
EPISODE_STRATA = 4
# Sets of strata (each a new seed per stratum) while a judged hour's interval straddles a limit;
# undecided after the last, the hour does not pass (as the usual hours' replications).
EPISODE_SETS = 3
HOUR_S = 3600.0
# ACT passes a node only if every hour of its 24 h passes: when its 24 h more likely than not
# hold an episode (expected count >= ln 2), the hour holding one must pass too.
EPISODE_JUDGED_PER_DAY = math.log(2)


def episodes_per_day(plan: SimPlan) -> float:
    """Slow episodes the plan's volumes hold in ACT's 24 h on average (the device model's share
    of time slow x volumes / one episode's length)."""
    p = plan.profile
    return DAY_S * p.slow_share * plan.members / p.slow_episode_s


def episode_share_of_hour(plan: SimPlan) -> float:
    """The share of an hour one whole slow episode takes."""
    return min(plan.profile.slow_episode_s, HOUR_S) / HOUR_S


@dataclass(frozen=True, slots=True)
class _Stratum:
    """One stratum's runs at one threshold: the % over it (late reads counted over), and that
    %'s variance and degrees of freedom from its slices as batch means."""

    pct: float
    var: float
    df: int


def _stratum(runs: Sequence[ActTest], due: float, ms: int) -> _Stratum:
    """A stratum's % of reads over `ms` pooled over its runs (each weighted by the reads it
    judged), a read due in a run and not finished by its end counting as over, and the
    variance of that % from the runs' slices as batch means (a ratio estimator: slice i's %
    p_i weighted w_i by its reads, Var = n / (n - 1) x sum (w_i (p_i - p))^2). The slices are
    seconds long against the device queue's milliseconds of memory, so they are near
    independent; the late reads are a count, not a sample, and add no variance."""
    done = [reads_judged(a) for a in runs]
    late = sum(max(0.0, due - d) for d in done)
    judged = sum(done)
    avg = sum(d * a.avg.over(ms) for d, a in zip(done, runs, strict=True)) / max(judged, 1)
    pct = 100 * (avg / 100 * judged + late) / max(judged + late, 1.0)
    slices = [(sl.reads, getattr(sl, f"gt_{ms}ms_pct")) for a in runs for sl in a.slices
              if sl.reads > 0]
    n = len(slices)
    if n < 2:
        return _Stratum(pct=pct, var=0.0, df=1)
    total = sum(r for r, _ in slices)
    mean = sum(r * v for r, v in slices) / total
    var = n / (n - 1) * sum((r / total * (v - mean)) ** 2 for r, v in slices)
    share_done = judged / max(judged + late, 1.0)
    return _Stratum(pct=pct, var=var * share_done**2, df=n - 1)


def _hour_threshold(usual: ActThreshold, strata: Sequence[_Stratum], share: float,
                    ) -> ActThreshold:
    """The hour's % over one threshold: the episode's share of it at the strata's mean % and
    the rest at the usual hours', with a 95 % interval from both parts' own (independent):
    the usual hours' half-width as given, the strata mean's Student t at the Welch-Satterthwaite
    degrees of freedom, added in quadrature. It covers the simulation's sampling only, not the
    strata's midpoint rule over the speed loss."""
    episode = sum(st.pct for st in strata) / len(strata)
    pct = (1 - share) * usual.pct + share * episode
    half_usual = max(0.0, usual.ci95_pct[1] - usual.pct)
    half = math.hypot((1 - share) * half_usual, share * _half(strata))
    return ActThreshold(over_ms=usual.over_ms, limit_pct=usual.limit_pct, pct=round(pct, 4),
                        ci95_pct=(round(max(0.0, pct - half), 4), round(pct + half, 4)))


def _half(strata: Sequence[_Stratum]) -> float:
    """Half-width of the 95 % interval of the strata's mean %: Student t at the
    Welch-Satterthwaite degrees of freedom (past 15: the 15 df figure, as `t_half_width`)."""
    k = len(strata)
    var = sum(st.var for st in strata) / k**2
    if var <= 0:
        return 0.0
    df = (k**2 * var) ** 2 / sum(st.var**2 / st.df for st in strata)
    return T975[max(1, min(int(df), 15))] * math.sqrt(var)


def episode_hour(layout: Layout, catalog: Catalog, load: ActLoad, usual: Sequence[ActThreshold],
                 *, duration_s: float, seed: int, label: Load,
                 plan: SimPlan | None = None,
                 more_usual: Callable[[], Sequence[ActThreshold] | None] | None = None,
                 ) -> ActEpisodeHour | None:
    """ACT's hour slice on `layout` that holds one volume's whole slow episode, from the event
    simulation; None when the device model has no slow episodes.

    The model draws an episode's speed loss uniformly from 0 to the profile's largest, so the
    episode is EPISODE_STRATA runs of `duration_s`, stratum k at the midpoint of the k-th equal
    slice of that range, on member k mod members (seed seed + k; set j of strata seed + j x
    EPISODE_STRATA + k). A read due in a run that did not finish by its end counts as over every
    threshold (the slowed volume fell behind). The hour is the episode's share of it at the
    strata's mean % and the rest at `usual` (the replications without episodes), with a 95 %
    interval (`_hour_threshold`). ACT runs 24 h: the node's volumes hold on average 24 h x
    share x volumes / episode length episodes in it; where that is at least ln 2 the hour is
    judged, and while its interval straddles a limit it narrows the part that weighs more in
    it: another set of strata (EPISODE_SETS at most), or the usual hours' next replication
    (`more_usual`: their thresholds with one more, None once the caller runs no more); undecided
    when neither can, it does not pass. `plan`: the layout's compiled plan, when the caller has
    it."""
    plan = plan if plan is not None else compile_plan(layout, catalog)
    if not plan.variable:
        return None
    profile = plan.profile
    strata = episode_strata(plan, EPISODE_STRATA)
    due = load.internal_reads_per_sec * duration_s
    share = episode_share_of_hour(plan)
    expected = episodes_per_day(plan)
    judged = expected >= EPISODE_JUDGED_PER_DAY

    def stratum(j: int, k: int) -> ActTest:
        slowed = with_member_slow(plan, *strata[k])
        return simulate_act(layout, catalog, [(label, load)], duration_s=duration_s,
                            seed=seed + j * EPISODE_STRATA + k, plan=slowed).levels[0].act

    runs: list[list[ActTest]] = [[] for _ in range(EPISODE_STRATA)]

    def add_set() -> None:
        j = len(runs[0])
        for k, act in enumerate(side_by_side([partial(stratum, j, k)
                                              for k in range(EPISODE_STRATA)])):
            runs[k].append(act)

    add_set()
    while True:
        parts = [(t, [_stratum(r, due, t.over_ms) for r in runs]) for t in usual]
        rows = tuple(_hour_threshold(t, per_stratum, share) for t, per_stratum in parts)
        if not judged or act_decided(rows) is not None:
            break
        # The straddling thresholds: does the usual hours' half-width weigh more than the
        # strata's in any of them? Then the usual hours' next replication, else more strata.
        usual_first = any(
            (1 - share) * (t.ci95_pct[1] - t.pct) > share * _half(per_stratum)
            for (t, per_stratum), row in zip(parts, rows, strict=True)
            if row.ci95_pct[0] < row.limit_pct <= row.ci95_pct[1])
        more = more_usual() if usual_first and more_usual is not None else None
        if more is not None:
            usual = more
        elif len(runs[0]) < EPISODE_SETS:
            add_set()
        else:
            break
    return ActEpisodeHour(
        episode_s=profile.slow_episode_s, expected_per_day=round(expected, 3),
        thresholds=rows, passed=act_decided(rows) is True, judged=judged,
        sets=len(runs[0]))


def devices_of(layout: Layout) -> int:
    return layout.spec.count


def simulate_act(layout: Layout, catalog: Catalog, loads: list[tuple[Load, ActLoad]], *,
                 duration_s: float = 60.0, slice_s: float | None = None, seed: int = 1,
                 progress: Any = None, plan: SimPlan | None = None) -> ActSimResult:
    """Run ACT's load on a layout at each level; the rating is the highest x that passes.
    `plan`: the layout's compiled plan as changed by the caller (without slow episodes, one
    member slowed), instead of the layout's own."""
    plan = plan if plan is not None else compile_plan(layout, catalog)
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
