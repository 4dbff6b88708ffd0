"""Credit buckets over a repeating day (`advisor.sim.credits`) and the plans judged with them
(`advisor.sim.plan.judge_buckets`, `at_baseline`, `compile_plan(sustained=True)`)."""

import math

import numpy as np
import pytest

from advisor.catalog.load import builtin_catalog
from advisor.catalog.model import Catalog
from advisor.layout import resolve
from advisor.layout.capacity import capacity, limits_of
from advisor.layout.model import Layout
from advisor.sim.credits import DAY_S, DailyCycle, bucket_days
from advisor.sim.plan import at_baseline, compile_plan, judge_buckets

CAP = 879_765.0  # c5.large instance EBS bandwidth credits (MiB): (566.2 - 77.5) MiB/s x 1800 s
EARN = 77.5  # its baseline, MiB/s


def naive_starts(*, cap: float, earn: float, peak: float, off: float, cycle: DailyCycle,
                 days: int) -> list[float]:
    """Balance at the start of each day, one second-free phase at a time (no shortcuts)."""
    b, out = cap, [cap]
    for _ in range(days):
        b = max(0.0, b - (peak - earn) * cycle.peak_s) if peak > earn else \
            min(cap, b + (earn - peak) * cycle.peak_s)
        b = max(0.0, b - (off - earn) * cycle.off_s) if off > earn else \
            min(cap, b + (earn - off) * cycle.off_s)
        out.append(b)
    return out


def test_a_load_within_the_baseline_never_touches_the_bucket() -> None:
    """At or below the baseline the bucket stays full, whatever the peak hours."""
    for hours in (1.0, 8.0, 24.0):
        d = bucket_days(capacity=CAP, earn_per_s=EARN, peak_spend_per_s=EARN,
                        off_spend_per_s=0.3 * EARN, cycle=DailyCycle(peak_hours=hours,
                                                                      off_peak=0.3))
        assert d.carries
        assert d.at_baseline
        assert d.steady_start == CAP
        assert d.steady_low == CAP


def test_a_sustained_load_above_the_baseline_drains_the_bucket_on_the_day_arithmetic_says() -> None:
    """24 h a day at 81 MiB/s on a 77.5 MiB/s baseline: 3.5 MiB/s net, the bucket is empty
    after CAP / 3.5 s (~70 h, in day 3), and stays empty: burst does not carry the load."""
    d = bucket_days(capacity=CAP, earn_per_s=EARN, peak_spend_per_s=81.0, off_spend_per_s=0.0,
                    cycle=DailyCycle(peak_hours=24))
    assert not d.carries
    assert d.first_empty_day == math.floor(CAP / 3.5 / DAY_S)
    assert d.steady_start == 0.0
    assert d.empties_after_s == 0.0
    naive = naive_starts(cap=CAP, earn=EARN, peak=81.0, off=0.0, cycle=DailyCycle(peak_hours=24),
                         days=5)
    assert [b for _, b in d.day_starts[:5]] == pytest.approx(naive[:5])


def test_a_short_peak_refilled_off_peak_is_carried_every_day() -> None:
    """2 h at 120 MiB/s (42.5 over the baseline: 306,000 MiB) then 30 % of it for 22 h (41.5
    under: refills 3.3 M MiB): the bucket is full at the start of every day, 35 % down at the
    end of the peak."""
    d = bucket_days(capacity=CAP, earn_per_s=EARN, peak_spend_per_s=120.0,
                    off_spend_per_s=36.0, cycle=DailyCycle(peak_hours=2, off_peak=0.3))
    assert d.carries
    assert not d.at_baseline
    assert d.steady_start == CAP
    assert d.steady_low == pytest.approx(CAP - 42.5 * 7200)


def test_a_peak_longer_than_the_bucket_runs_dry_every_day_even_though_it_refills() -> None:
    """8 h at 200 MiB/s needs 3.5 M MiB of credits: the full bucket lasts CAP / 122.5 s."""
    d = bucket_days(capacity=CAP, earn_per_s=EARN, peak_spend_per_s=200.0,
                    off_spend_per_s=60.0, cycle=DailyCycle(peak_hours=8, off_peak=0.3))
    assert not d.carries
    assert d.steady_start == CAP  # it does refill overnight...
    assert d.empties_after_s == pytest.approx(CAP / 122.5)  # ...and runs dry every day


def test_too_little_off_peak_refill_drains_it_over_days_to_the_nightly_refill() -> None:
    """A peak spending more than the night earns back loses the difference every day until
    the bucket runs dry in the peak; from then on each day starts with one night's refill."""
    cycle = DailyCycle(peak_hours=12, off_peak=0.95)
    peak, off = 80.0, 0.95 * 80.0  # +2.5 over 12 h = 108,000; -1.5 under 12 h = 64,800
    d = bucket_days(capacity=CAP, earn_per_s=EARN, peak_spend_per_s=peak,
                    off_spend_per_s=off, cycle=cycle)
    assert not d.carries
    assert d.steady_start == pytest.approx((EARN - off) * cycle.off_s)
    naive = naive_starts(cap=CAP, earn=EARN, peak=peak, off=off, cycle=cycle, days=40)
    first_dry = next(i for i, b in enumerate(naive) if b < (peak - EARN) * cycle.peak_s)
    assert d.first_empty_day == first_dry
    assert naive[-1] == pytest.approx(d.steady_start)
    # The days it stepped over at once are the days it would have run one by one.
    for day, balance in d.day_starts:
        if day <= 40:
            assert balance == pytest.approx(naive[day])


def test_cycle_bounds() -> None:
    with pytest.raises(ValueError, match="peak_hours"):
        DailyCycle(peak_hours=0)
    with pytest.raises(ValueError, match="off_peak"):
        DailyCycle(peak_hours=2, off_peak=1.5)


# -- plans judged on the baselines ------------------------------------------------------------


C5 = tuple[Layout, Catalog]


@pytest.fixture(scope="module")
def c5_raid() -> C5:
    catalog = builtin_catalog()
    return resolve("c5.large:raid0:2xgp3:60GiB", catalog), catalog


def test_sustained_plan_runs_every_bucket_at_its_baseline(c5_raid: C5) -> None:
    layout, catalog = c5_raid
    full = compile_plan(layout, catalog)
    sus = compile_plan(layout, catalog, sustained=True)
    assert full.bucket_limits()  # c5.large has instance EBS burst credits
    assert not sus.bucket_limits()
    np.testing.assert_array_equal(sus.lim_burst, sus.lim_rate)
    np.testing.assert_array_equal(sus.lim_rate, full.lim_rate)
    assert set(sus.baseline_only) == {"c5.large instance EBS IOPS",
                                      "c5.large instance EBS bandwidth"}
    assert "566 MiB/s" in sus.baseline_only["c5.large instance EBS bandwidth"]


def test_judged_plan_keeps_a_bucket_the_load_never_drains_and_drops_one_it_does(
        c5_raid: C5) -> None:
    layout, catalog = c5_raid
    plan = compile_plan(layout, catalog)
    iops, bw = plan.bucket_limits()
    spend = {iops: 3000.0, bw: 81.0}  # IOPS within its 4,000 baseline, bandwidth over 77.5
    judged, days = judge_buckets(plan, spend, DailyCycle(peak_hours=24))
    assert judged.bucket_limits() == [iops]
    assert judged.lim_burst[bw] == judged.lim_rate[bw] == plan.lim_rate[bw]
    assert days[iops].carries
    assert not days[bw].carries
    # Two peak hours a day and a quiet night: the bandwidth bucket refills, both are kept.
    judged2, days2 = judge_buckets(plan, spend, DailyCycle(peak_hours=2, off_peak=0.3))
    assert judged2.bucket_limits() == [iops, bw]
    assert days2[bw].carries
    assert judge_buckets(plan, spend, DailyCycle(peak_hours=2, off_peak=0.3))[0] is judged2
    assert at_baseline(plan, [bw], why="test").bucket_limits() == [iops]


def test_capacity_counts_burst_only_for_the_limits_named(c5_raid: C5) -> None:
    layout, catalog = c5_raid
    lim = limits_of(layout, catalog)
    names = {x.name for x in lim.instance_limits}
    base = capacity(layout, catalog, write=False, size_kib=256, bursting=False, limits=lim)
    burst = capacity(layout, catalog, write=False, size_kib=256, bursting=True, limits=lim)
    named = capacity(layout, catalog, write=False, size_kib=256, bursting=names, limits=lim)
    none = capacity(layout, catalog, write=False, size_kib=256, bursting=frozenset(), limits=lim)
    assert named == burst
    assert none == base
    assert base.binding == "c5.large instance EBS bandwidth"
    assert base.throughput_mibps == pytest.approx(77.486, abs=1e-3)
