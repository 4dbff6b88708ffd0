"""bench/chain_stats.py's pieces that its figures rest on: the run with the volume's IOPS limit out
of the way, and the variance of the work reaching a limit in a window (bench/README.md, issue 10's
chain of waits measured one step at a time)."""

import numpy as np
import pytest

from advisor.layout import resolve
from advisor.sim.analytic import waits
from advisor.userfiles import load_catalog
from tests.bench_modules import load_bench

chain_stats = load_bench("chain_stats")


@pytest.mark.parametrize(("spec", "raised"), [
    ("c5.large:io1:650GiB:10000iops", "c5.large:io1:650GiB:32000iops"),
    ("r5.xlarge:io2:650GiB:5000iops", "r5.xlarge:io2:650GiB:32000iops"),
    ("c5.large:gp3:650GiB", "c5.large:gp3:650GiB:16000iops"),
])
def test_the_unlimited_run_raises_the_volumes_iops(spec: str, raised: str) -> None:
    """A provisioned volume's IOPS are replaced, not given twice (the layout parser refuses
    that), and the raised layout is a valid one."""
    assert chain_stats.unlimited(spec) == raised
    resolve(raised, load_catalog())


def test_the_windowed_variance_runs_from_single_ios_to_whole_requests() -> None:
    """Var A(t) of the work reaching c5.large gp3 650 GiB's IOPS limit (a master without a
    replica at 314 tps): over a window far shorter than a request's I/O spacing each request
    puts at most one I/O in it, so Var A(t) / t is every I/O's own second moment, sum r h a^2;
    over one far longer than a request, each request falls in it whole, sum r E[(a Bin(k, h))^2]
    (the singles' r w^2 in both). `waits._cluster_counts` places the windows at span / 256
    steps, so windows under a few of those (10-30 us here) are off by up to 12 %; the chain's
    windows (a spacing and more, 0.5 ms up) are not asked there."""
    plan, mix, rates, x = chain_stats._engine_input("c5.large:gp3:650GiB", 500.0, 314.0, 0)
    limits, mean_wait = waits.spaced_waits(plan, mix, x, rates)
    lw = next(w for w in limits if plan.limit_names[w.limit].endswith("volume IOPS"))
    singles, clus = chain_stats.limit_input(plan, mix, x, lw.limit, rates[lw.limit], mean_wait)
    var = chain_stats.windowed(singles, clus)
    bg = sum(r * w * w for r, w in singles)
    ones = bg + sum(cl.rate * p * len(offsets) * h * a * a
                    for cl, h, a, _ in clus for p, offsets in cl.shapes)
    whole = bg + sum(cl.rate * p * a * a * (k * h * (1 - h) + k * k * h * h)
                     for cl, h, a, _ in clus for p, offsets in cl.shapes
                     for k in [len(offsets)])
    assert whole > 1.5 * ones  # the requests' clustering counts here
    short = (waits.T_GRID >= 1e-4) & (waits.T_GRID <= 4e-4)  # under the 0.6 ms spacing
    assert short.sum() >= 3
    assert var[short] / waits.T_GRID[short] == pytest.approx(ones, rel=0.01)
    assert var[-1] / waits.T_GRID[-1] == pytest.approx(whole, rel=0.02)
    rate = var / waits.T_GRID
    assert np.all(np.diff(rate[waits.T_GRID >= 3e-4]) >= 0)  # rising in between
