"""A replica no read reaches (every transaction of the shape writes, so all go to the master)
runs its applier alone: it has no transaction latency to report or to judge."""

import pytest

from advisor.layout import resolve
from advisor.userfiles import load_catalog
from recommend.mysql_search import Candidate, _screen
from recommend.request import MysqlSizeRequest, size_request
from workloads.mysql import MysqlParams
from workloads.mysql_run import Deployment, simulate_mysql
from workloads.mysql_shape import PRESETS, shape_of

SPEC = "r5.xlarge:gp3:650GiB"


@pytest.mark.parametrize("engine", ["analytic", "des"])
def test_neither_engine_times_a_transaction_on_a_replica_no_read_reaches(engine: str) -> None:
    """sysbench oltp_read_write: the analytic engine used to time a phantom read transaction on
    the replica (p99 7.4 ms here) where the event simulation, rightly, had none."""
    catalog = load_catalog()
    layout = resolve(SPEC, catalog)
    params = MysqlParams(tps=55.5, data_gb=500, replicas=1, shape=shape_of("sysbench-oltp-rw"),
                         reads_per_write=PRESETS["sysbench-oltp-rw"].reads)
    level = simulate_mysql(Deployment(master=layout, replica=layout), catalog, params,
                           engine=engine, duration_s=20.0, seed=1).levels[0]
    master, replica = level.servers
    assert (master.latency_ms.transaction.p99 or 0) > 0
    assert replica.offered_tps == 0
    assert replica.latency_ms.transaction.p99 is None
    assert replica.replication is not None
    assert not replica.replication.falls_behind


def test_the_screen_judges_no_p99_on_a_replica_no_read_reaches() -> None:
    """Against an SLO below what a read would take there, the replica passes the screen: its
    applier keeps up and nothing else is asked of it (its phantom read's p99, 7.4 ms, used to
    reject it, and with it every replica of a write-heavy shape under a tight SLO)."""
    catalog = load_catalog()
    req = size_request({"workload": "mysql", "tps": 55.5, "data_gb": 500, "p99_ms": 2,
                        "preset": "sysbench-oltp-rw", "replicas": "1"})
    assert isinstance(req, MysqlSizeRequest)
    c = Candidate(layout=resolve(SPEC, catalog), role="replica", monthly_usd=0.0)
    assert _screen(c, c.plan(catalog), req, 1, None) is None
    master = Candidate(layout=resolve(SPEC, catalog), role="master", monthly_usd=0.0)
    why = _screen(master, master.plan(catalog), req, 1, None)
    assert why is not None
    assert "master p99" in why  # the master's transactions are timed
