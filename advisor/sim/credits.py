"""Credit buckets over a repeating day: does burst carry the peak every day, or only the first?

A load runs at its peak for `peak_hours` a day and at `off_peak` x the peak for the rest. A
bucket (gp2 I/O credits, st1/sc1 throughput credits, the instance EBS burst) earns at its
baseline rate and spends what the load uses; it starts full (AWS) and is capped. Day after day
its balance at the start of the day settles to a periodic steady state; burst may carry the peak
only if, in that steady state, the bucket never runs dry (BRIEF section 4: sustained loads are
sized on baselines, never on burst credits). Pure arithmetic on rates, so the sizing search can
ask it for every candidate and load.
"""

import math
from dataclasses import dataclass

DAY_S = 86400.0
MAX_DAYS = 100_000  # days simulated before giving up on a steady state (never reached: see jump)


@dataclass(frozen=True, slots=True, kw_only=True)
class DailyCycle:
    """Peak load for `peak_hours` a day, then `off_peak` x the peak load for the rest."""

    peak_hours: float
    off_peak: float = 0.0

    def __post_init__(self) -> None:
        if not 0 < self.peak_hours <= 24:
            raise ValueError(f"peak_hours {self.peak_hours}: must be in (0, 24]")
        if not 0 <= self.off_peak <= 1:
            raise ValueError(f"off_peak {self.off_peak}: must be in [0, 1]")

    @property
    def peak_s(self) -> float:
        return self.peak_hours * 3600

    @property
    def off_s(self) -> float:
        return DAY_S - self.peak_s

    @property
    def sustained(self) -> bool:
        """Peak all day: nothing ever refills a bucket the peak drains."""
        return self.off_s <= 0


@dataclass(frozen=True, slots=True, kw_only=True)
class BucketDays:
    """One bucket over the repeating day: balances at the start of the days simulated, and the
    steady day's verdict."""

    capacity: float
    earn_per_s: float
    peak_spend_per_s: float  # credits/s the peak load spends (units of the bucket)
    off_spend_per_s: float
    day_starts: tuple[tuple[int, float], ...]  # (day, balance at its start); day 0 = full
    steady_start: float  # balance at the start of a day once the cycle repeats
    steady_low: float  # lowest balance during a steady day
    empties_after_s: float | None  # seconds into a steady day when it runs dry (None: never)
    first_empty_day: int | None  # the first day it runs dry (None: never)

    @property
    def carries(self) -> bool:
        """Burst lasts the peak every day (or the load never needs it)."""
        return self.empties_after_s is None

    @property
    def at_baseline(self) -> bool:
        """The peak load spends no more than the bucket earns: the baseline alone carries it."""
        return self.peak_spend_per_s <= self.earn_per_s

    @property
    def steady_low_fraction(self) -> float:
        return self.steady_low / self.capacity if self.capacity > 0 else 0.0


def _phase(balance: float, net_per_s: float, seconds: float, capacity: float,
           ) -> tuple[float, float | None, float]:
    """(balance at the end, seconds until it ran dry or None, lowest balance) of one phase
    spending `net_per_s` more than it earns (negative: refilling)."""
    if seconds <= 0:
        return balance, None, balance
    if net_per_s > 0:
        if balance < net_per_s * seconds:
            return 0.0, balance / net_per_s, 0.0
        end = balance - net_per_s * seconds
        return end, None, end
    return min(capacity, balance - net_per_s * seconds), None, balance


def _day(balance: float, net_peak: float, net_off: float, cycle: DailyCycle,
         capacity: float) -> tuple[float, float | None, float]:
    """(balance at the next day's start, seconds into the day it ran dry or None, lowest)."""
    mid, dry, low = _phase(balance, net_peak, cycle.peak_s, capacity)
    end, dry_off, low_off = _phase(mid, net_off, cycle.off_s, capacity)
    if dry is None and dry_off is not None:
        dry = cycle.peak_s + dry_off
    return end, dry, min(low, low_off)


def bucket_days(*, capacity: float, earn_per_s: float, peak_spend_per_s: float,
                off_spend_per_s: float, cycle: DailyCycle, initial: float | None = None,
                ) -> BucketDays:
    """The bucket day after day until its start-of-day balance repeats (to within a credit).

    From a full bucket the start-of-day balance can only fall (each day is the same monotone map
    of it), so it settles; while no phase hits empty or full the fall is the same every day, and
    those days are stepped over at once (a bucket of 880,000 MiB losing 2 MiB a day is not run
    day by day)."""
    b = capacity if initial is None else min(capacity, initial)
    net_peak = peak_spend_per_s - earn_per_s
    net_off = off_spend_per_s - earn_per_s
    starts: list[tuple[int, float]] = [(0, b)]
    first_empty: int | None = None
    day = 0
    dry: float | None = None
    low = b
    tol = max(1e-9 * capacity, 1e-9)
    while day < MAX_DAYS:
        nxt, dry, low = _day(b, net_peak, net_off, cycle, capacity)
        if dry is not None and first_empty is None:
            first_empty = day
        day += 1
        if abs(nxt - b) <= tol:
            b = nxt
            break
        fall = b - nxt
        if dry is None and fall > 0 and nxt < capacity:
            # Linear days: the same fall until the peak (or the whole day) runs it dry.
            need = max(net_peak * cycle.peak_s, net_peak * cycle.peak_s + net_off * cycle.off_s,
                       0.0)
            skip = math.floor((nxt - need) / fall) - 1
            if skip > 0:
                nxt -= skip * fall
                day += skip
        b = nxt
        if len(starts) < 60 or day % 7 == 0:
            starts.append((day, b))
    if starts[-1][0] != day:
        starts.append((day, b))
    _, dry, low = _day(b, net_peak, net_off, cycle, capacity)
    return BucketDays(capacity=capacity, earn_per_s=earn_per_s,
                      peak_spend_per_s=peak_spend_per_s, off_spend_per_s=off_spend_per_s,
                      day_starts=tuple(starts), steady_start=b, steady_low=low,
                      empties_after_s=dry, first_empty_day=first_empty)
