"""A raw-pattern level's latency in the detail fio reports (`LevelLatencyDetail`), from either
engine's distributions: the event simulation's 0.5 %-wide bins (`LatencyStats`) or the analytic
engine's quantile grid (`Dist`).

From the bins, the minimum is the lower edge of the first non-empty bin and the standard
deviation uses each bin's geometric centre (both within the bins' 0.5 %); count, mean and max
are exact. fio's latency buckets count I/Os from the previous bound (inclusive) up to the
bucket's (exclusive), in ns below 1 us, us below 1 ms, ms above (fio io_u.c
`io_u_mark_lat_nsec/usec/msec`).
"""

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from advisor.percentiles import FIO_PERCENTILES, percentile_key
from advisor.sim.results import LatencyDetail, LevelLatencyDetail
from advisor.sim.stats import EDGES, LatencyStats

if TYPE_CHECKING:  # the analytic engine imports this module
    from advisor.sim.analytic.dist import Dist

# fio's bucket bounds per unit (the label is the upper bound); seconds per unit.
_BOUNDS = (2, 4, 10, 20, 50, 100, 250, 500, 750, 1000)
_UNITS = (("latency_ns", 1e-9, _BOUNDS), ("latency_us", 1e-6, _BOUNDS),
          ("latency_ms", 1e-3, (*_BOUNDS, 2000)))
Cdf = Callable[[float], float]  # P(latency < t seconds)


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 6)


def _empty() -> LatencyDetail:
    return LatencyDetail(count=0, min_ms=None, mean_ms=None, stddev_ms=None, max_ms=None,
                         percentiles_ms={})


def stats_detail(stats: LatencyStats) -> LatencyDetail:
    """The detail of an event run's latencies."""
    if stats.n == 0:
        return _empty()
    first = int(np.flatnonzero(stats.counts)[0])
    low = float(EDGES[first - 1]) if first >= 1 else 0.0
    lo = np.concatenate(([EDGES[0]], EDGES))  # bin i covers [lo[i], hi[i])
    hi = np.concatenate((EDGES, [EDGES[-1]]))
    centre = np.sqrt(lo * hi)
    mean = stats.mean_s
    second = float(np.dot(stats.counts, centre * centre)) / stats.n
    return LatencyDetail(
        count=stats.n, min_ms=_ms(min(low, stats.max_s)), mean_ms=_ms(mean),
        stddev_ms=_ms(math.sqrt(max(second - mean * mean, 0.0))), max_ms=_ms(stats.max_s),
        percentiles_ms={percentile_key(q): _ms(stats.quantile_s(q)) for q in FIO_PERCENTILES})


def dist_detail(dist: "Dist", count: int) -> LatencyDetail:
    """The detail of an analytic distribution of `count` I/Os."""
    if count <= 0:
        return _empty()
    weights = dist.weights / dist.weights.sum()
    mean = dist.mean
    variance = float(np.dot(weights, (dist.values - mean) ** 2))
    return LatencyDetail(
        count=count, min_ms=_ms(float(dist.values[0])), mean_ms=_ms(mean),
        stddev_ms=_ms(math.sqrt(variance)), max_ms=_ms(float(dist.values[-1])),
        percentiles_ms={percentile_key(q): _ms(dist.quantile(q / 100)) for q in FIO_PERCENTILES})


def stats_cdf(stats: LatencyStats) -> Cdf:
    cum = np.concatenate(([0], np.cumsum(stats.counts)))

    def below(t: float) -> float:
        # bins wholly under t, then the share of t's bin under it (geometric, as quantile_s)
        i = int(np.searchsorted(EDGES, t, side="right"))  # t lies in bin i
        if i == 0 or i >= EDGES.size:
            return float(cum[i]) / stats.n
        lo, hi = float(EDGES[i - 1]), float(EDGES[i])
        inside = math.log(t / lo) / math.log(hi / lo)
        return (float(cum[i]) + inside * float(stats.counts[i])) / stats.n

    return below


def dist_cdf(dist: "Dist") -> Cdf:
    weights = dist.weights / dist.weights.sum()
    return lambda t: float(weights[dist.values < t].sum())


def buckets_pct(cdf: Cdf) -> dict[str, dict[str, float]]:
    """% of I/Os in each of fio's latency buckets (its `latency_ns/us/ms` blocks)."""
    out: dict[str, dict[str, float]] = {}
    for name, unit_s, bounds in _UNITS:
        start = 0.0 if name == "latency_ns" else unit_s  # a smaller unit holds what is below
        block: dict[str, float] = {}
        for bound in bounds:
            end = bound * unit_s
            block[str(bound)] = round(100 * max(cdf(end) - cdf(start), 0.0), 6)
            start = end
        if name == "latency_ms":
            block[">=2000"] = round(100 * max(1.0 - cdf(start), 0.0), 6)
        out[name] = block
    return out


def level_detail(read: LatencyDetail, write: LatencyDetail, cdf: Cdf | None) -> LevelLatencyDetail:
    empty = {name: {**{str(b): 0.0 for b in bounds},
                    **({">=2000": 0.0} if name == "latency_ms" else {})}
             for name, _, bounds in _UNITS}
    return LevelLatencyDetail(read=read, write=write,
                              buckets_pct=buckets_pct(cdf) if cdf is not None else empty)


def des_detail(request_latency: dict[str, LatencyStats]) -> LevelLatencyDetail:
    """From an event run's `request_latency` ({"read", "write", "all"})."""
    every = request_latency["all"]
    return level_detail(stats_detail(request_latency["read"]),
                        stats_detail(request_latency["write"]),
                        stats_cdf(every) if every.n else None)


def analytic_detail(read: "Dist", write: "Dist", every: "Dist", *, reads: int,
                    writes: int) -> LevelLatencyDetail:
    """From the analytic engine's distributions and I/O counts."""
    return level_detail(dist_detail(read, reads), dist_detail(write, writes),
                        dist_cdf(every) if reads + writes else None)
