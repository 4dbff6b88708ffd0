"""Which latency percentiles the advisor reports, and how a percentile is spelled as a key: the
one home for simulated summaries (both engines), replay's measurements and the parsers of
sysbench's and fio's output."""

import math
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

# What every latency summary reports, simulated or measured.
PERCENTILES = {"p50": 50.0, "p90": 90.0, "p95": 95.0, "p99": 99.0, "p999": 99.9}
# What sysbench's histogram and fio's completion latencies also give, read as they print it.
TOOL_PERCENTILES = {"p50": 50.0, "p90": 90.0, "p95": 95.0, "p99": 99.0, "p995": 99.5,
                    "p999": 99.9, "p9995": 99.95, "p9999": 99.99}

# fio's default `percentile_list` (fio init.c `def_percentile_list`): what `--format fio` gives.
FIO_PERCENTILES = (1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0,
                   99.5, 99.9, 99.95, 99.99)


def percentile_key(pct: float) -> str:
    """50 -> 'p50', 99.9 -> 'p999', 99.99 -> 'p9999' (the result schema's spelling)."""
    return "p" + f"{pct:g}".replace(".", "")


def nearest_rank(ordered: Sequence[T], pct: float) -> T:
    """The nearest-rank percentile of values already sorted (100: the largest): the smallest
    value with at least `pct` % of the values at or below it. `ordered` must not be empty."""
    return ordered[max(1, math.ceil(pct / 100 * len(ordered))) - 1]
