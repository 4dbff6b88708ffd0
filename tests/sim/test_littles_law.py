"""Little's law, L = lambda x W, on the event simulation, with L measured rather than derived.

L is the time-average number of requests in flight that the kernel measures (each request's time
in flight inside the window [warm-up, end], summed from its own start and end times, over the
window); lambda is the requests completed in the window per second and W their mean latency,
both from the driver's statistics. Closed loop (fio iodepth), open loop (Poisson arrivals, single
I/Os) and MySQL transactions (many I/Os each, the event kernel) on several layouts and loads.

Tolerance: 1 %. Over a window no request straddles, L = lambda W holds exactly; requests that
straddle its ends count in L for the part inside but in lambda and W whole or not at all, an
error of order W / window. Measured with these seeds, |L / (lambda W) - 1| is at most 0.24 %
closed loop (gp2 at iodepth 64: W = 21 ms over a 9 s window, W / window = 0.23 %), 0.008 % open
loop and 0.17 % for MySQL. A kernel that lost, double-counted or misdated requests would miss.
"""

from typing import Any

import pytest

from advisor.catalog.model import Catalog
from advisor.layout import resolve
from advisor.sim.des import RawLevel, run_des
from advisor.sim.plan import compile_plan
from advisor.sim.source import IoPattern
from advisor.userfiles import load_catalog
from workloads.mysql import MysqlParams
from workloads.mysql_run import Deployment, build_servers

TOLERANCE = 0.01
GP2 = "m5d.large:gp2:385GiB"
RAID10 = "m5.8xlarge:raid10:4xgp3:500GiB:6000iops:250mbps"
HDD_RAID0 = "m1.large:raid0:2xstore"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(use_env=False)


def _error(raw: RawLevel) -> float:
    window = raw.duration_s - raw.warmup_s
    throughput = raw.completed / window  # lambda: requests completed per second
    w_s = raw.request_latency["all"].mean_s
    assert raw.completed > 500
    assert w_s is not None
    return abs(raw.mean_in_flight / (throughput * w_s) - 1)


def _pattern(concurrency: int, open_rate: float | None = None) -> IoPattern:
    return IoPattern(name="fio randrw", read_fraction=0.75, random=True, block_bytes=16384,
                     concurrency=concurrency, span_bytes=4 * 2**30, open_rate=open_rate)


@pytest.mark.parametrize(("spec", "iodepth", "duration_s"), [
    (GP2, 1, 10.0), (GP2, 64, 10.0), ("m5d.large:store", 8, 10.0), (RAID10, 64, 10.0),
    (HDD_RAID0, 8, 300.0),
])
def test_closed_loop_in_flight_is_the_iodepth_and_lambda_w(
        catalog: Catalog, spec: str, iodepth: int, duration_s: float) -> None:
    """A closed loop keeps exactly `iodepth` requests in flight, and that is lambda x W."""
    raw = run_des(compile_plan(resolve(spec, catalog), catalog), _pattern(iodepth),
                  duration_s=duration_s, warmup_s=duration_s / 10, seed=2)
    assert raw.mean_in_flight == pytest.approx(iodepth, rel=1e-9)
    assert _error(raw) < TOLERANCE


@pytest.mark.parametrize(("spec", "iops", "duration_s"), [
    (GP2, 1500.0, 20.0), (GP2, 2800.0, 20.0), (RAID10, 10000.0, 10.0), (HDD_RAID0, 150.0, 300.0),
])
def test_open_loop_in_flight_is_lambda_w(catalog: Catalog, spec: str, iops: float,
                                         duration_s: float) -> None:
    """Poisson arrivals, from half the limit to 93 % of gp2's 3,000 IOPS burst: L = lambda W."""
    raw = run_des(compile_plan(resolve(spec, catalog), catalog), _pattern(4096, iops),
                  duration_s=duration_s, warmup_s=duration_s / 10, seed=2)
    assert _error(raw) < TOLERANCE


@pytest.mark.parametrize(("spec", "tps", "data_gb"), [
    ("r5.large:gp3:500GiB", 627.0, 10.0), ("r5.large:gp3:500GiB", 1500.0, 10.0),
    ("m5.large:raid0:2xgp3:60GiB", 900.0, 10.0), ("c1.medium:raid0:4xstandard:20GiB", 40.0, 4.0),
])
def test_mysql_transactions_in_flight_is_lambda_w(catalog: Catalog, spec: str, tps: float,
                                                  data_gb: float) -> None:
    """Multi-I/O transactions on the master and the replica (the event kernel): L = lambda W."""
    layout = resolve(spec, catalog)
    params = MysqlParams(tps=tps, reads_per_write=3.25, replicas=1, data_gb=data_gb)
    plan = compile_plan(layout, catalog)
    errors: dict[str, Any] = {}
    for server in build_servers(Deployment(master=layout, replica=None), params, None):
        raw = run_des(plan, server, duration_s=20.0 if tps > 100 else 120.0, warmup_s=2.0,
                      seed=3)
        errors[server.role] = _error(raw)
    assert max(errors.values()) < TOLERANCE, errors
