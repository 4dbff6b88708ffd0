"""Latency accumulation in fixed log-spaced bins (0.5 % wide), like HdrHistogram, so runs of any
length keep bounded memory; exact count, mean and max are kept beside the bins."""

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from advisor.percentiles import PERCENTILES

BINS_PER_DECADE = 460  # bin width ratio 10^(1/460) = 1.005
LOW_S, HIGH_S = 1e-7, 1e4
EDGES = np.logspace(np.log10(LOW_S), np.log10(HIGH_S),
                    int(BINS_PER_DECADE * np.log10(HIGH_S / LOW_S)) + 1)
_LOG_LOW = float(np.log(LOW_S))
_LOG_STEP = float(np.log(EDGES[1] / EDGES[0]))
# ACT-style report thresholds (ms): % of operations over each.
ACT_THRESHOLDS_MS = (1, 2, 4, 8, 16, 32, 64)
# Student's t, two-sided 95 %, by degrees of freedom (replications - 1).
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
        9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131}


def t_half_width(values: Sequence[float]) -> float:
    """Half-width of the 95 % interval of the mean of independent replications' `values`
    (Student's t); 0 for fewer than two."""
    n = len(values)
    if n < 2:
        return 0.0
    t = T975[min(n - 1, 15)]  # past 15: the 15 df figure, a little wide (never narrow)
    return t * statistics.stdev(values) / math.sqrt(n)


@dataclass(slots=True)
class LatencyStats:
    counts: NDArray[np.int64] = field(default_factory=lambda: np.zeros(EDGES.size + 1, np.int64))
    n: int = 0
    total_s: float = 0.0
    max_s: float = 0.0

    def add(self, latencies_s: NDArray[np.float64]) -> None:
        if latencies_s.size == 0:
            return
        # Same as searchsorted(EDGES, x, "right") for log-spaced edges, without the search.
        with np.errstate(divide="ignore"):
            pos = (np.log(np.maximum(latencies_s, 1e-300)) - _LOG_LOW) / _LOG_STEP
        idx = np.clip(np.floor(pos).astype(np.int64) + 1, 0, EDGES.size)
        self.counts += np.bincount(idx, minlength=self.counts.size)
        self.n += int(latencies_s.size)
        self.total_s += float(latencies_s.sum())
        self.max_s = max(self.max_s, float(latencies_s.max()))

    def merge(self, other: "LatencyStats") -> None:
        self.counts += other.counts
        self.n += other.n
        self.total_s += other.total_s
        self.max_s = max(self.max_s, other.max_s)

    def to_json(self) -> dict[str, Any]:
        """The counts of its non-empty bins and its exact count, total and max (`from_json`
        reads it back to the bit)."""
        nz = np.flatnonzero(self.counts)
        return {"bins": nz.tolist(), "counts": self.counts[nz].tolist(), "n": self.n,
                "total_s": self.total_s, "max_s": self.max_s}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "LatencyStats":
        """`to_json`'s form read back; ValueError (or KeyError, TypeError) if it does not fit
        the bins or its count does not add up."""
        out = cls()
        bins = np.asarray(data["bins"], dtype=np.int64)
        counts = np.asarray(data["counts"], dtype=np.int64)
        if bins.shape != counts.shape or (bins.size and not 0 <= bins.min() <= bins.max()
                                          < out.counts.size):
            raise ValueError("latency statistics that do not fit the bins")
        out.counts[bins] = counts
        out.n, out.total_s, out.max_s = int(data["n"]), float(data["total_s"]), float(
            data["max_s"])
        if out.n != int(counts.sum()):
            raise ValueError("latency statistics whose count does not add up")
        return out

    @property
    def mean_s(self) -> float:
        return self.total_s / self.n if self.n else float("nan")

    def quantile_s(self, q: float) -> float:
        """The q-th percentile (0-100), interpolated geometrically inside its bin."""
        if self.n == 0:
            return float("nan")
        rank = q / 100.0 * self.n
        cum = np.cumsum(self.counts)
        i = int(np.searchsorted(cum, rank, side="left"))
        i = min(i, self.counts.size - 1)
        lo = EDGES[i - 1] if i >= 1 else EDGES[0]
        hi = EDGES[i] if i < EDGES.size else EDGES[-1]
        before = cum[i - 1] if i >= 1 else 0
        inside = self.counts[i]
        frac = (rank - before) / inside if inside else 1.0
        value = float(lo * (hi / lo) ** min(max(frac, 0.0), 1.0))
        return min(value, self.max_s)

    def fraction_over_s(self, threshold_s: float) -> float:
        if self.n == 0:
            return 0.0
        i = int(np.searchsorted(EDGES, threshold_s, side="right"))
        return float(self.counts[i:].sum()) / self.n

    def summary_ms(self) -> dict[str, float | None]:
        if self.n == 0:
            return {**dict.fromkeys(PERCENTILES), "max": None, "mean": None}
        out: dict[str, float | None] = {k: round(self.quantile_s(q) * 1000, 4)
                                        for k, q in PERCENTILES.items()}
        out["max"] = round(self.max_s * 1000, 4)
        out["mean"] = round(self.mean_s * 1000, 4)
        return out

    def histogram(self) -> list[dict[str, Any]]:
        """Coarse histogram for reports: power-of-two buckets in microseconds."""
        if self.n == 0:
            return []
        out = []
        lo = 1e-6
        while lo < HIGH_S:
            hi = lo * 2
            a = int(np.searchsorted(EDGES, lo, side="right"))
            b = int(np.searchsorted(EDGES, hi, side="right"))
            count = int(self.counts[a:b].sum())
            if count:
                out.append({"ge_ms": round(lo * 1000, 4), "lt_ms": round(hi * 1000, 4),
                            "count": count})
            lo = hi
        below = int(self.counts[: int(np.searchsorted(EDGES, 1e-6, side="right"))].sum())
        if below:
            out.insert(0, {"ge_ms": 0.0, "lt_ms": 0.001, "count": below})
        return out

    def act_row(self) -> dict[str, float]:
        """% of operations over 1, 2, 4 ... 64 ms (ACT's report row)."""
        return {f"gt_{t}ms_pct": round(100 * self.fraction_over_s(t / 1000), 4)
                for t in ACT_THRESHOLDS_MS}
