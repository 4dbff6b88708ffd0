"""A server offered no transactions (a master behind replicas under a read-only shape) is idle,
not a closed loop of a billion clients: the analytic engine answers at once, and the mean value
analysis stays bounded for any population (the read-only preset hung `size`)."""

import math

import pytest

from advisor.layout import resolve
from advisor.sim.analytic import build_mix, read_fraction_over, steady_state
from advisor.sim.analytic.mva import MVA_MAX_STEPS, Station, closed_loop
from advisor.sim.analytic.phases import load_at
from advisor.sim.plan import compile_plan
from advisor.userfiles import load_catalog
from tests.cli_helpers import simulate_json
from workloads.mysql import MysqlParams, derive_io, servers
from workloads.mysql_shape import shape_of

CATALOG = load_catalog()


def _master(spec: str, tps: float):  # type: ignore[no-untyped-def]
    params = MysqlParams(tps=tps, reads_per_write=0.0, replicas=1, data_gb=100,
                         shape=shape_of("sysbench-oltp-ro"))
    io = derive_io(params, 8.0)
    return servers(params, io, io, data_bytes=100 * 2**30, master_capacity=200 * 2**30,
                   replica_capacity=200 * 2**30)[0]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("spec", ["m5.large:gp3:200GiB", "m5.large:raid0:2xgp2:100GiB",
                                  "m5d.large:store", "m5.large:st1:500GiB"])
def test_an_idle_server_is_at_rest_on_every_engine_path(spec: str) -> None:
    master = _master(spec, 500.0)
    assert master.rate_tps == 0.0
    plan = compile_plan(resolve(spec, CATALOG), CATALOG)
    mix = build_mix(plan, master.request_classes(), master.background_specs())
    st = steady_state(plan, mix, rate=0.0, duration_s=86_400.0)
    util, backlog = load_at(plan, mix, rate=0.0, duration_s=86_400.0)
    over = read_fraction_over(plan, mix, rate=0.0, duration_s=3600.0, thresholds_s=(0.001,))
    assert (st.throughput, st.utilisation, st.backlog) == (0.0, 0.0, False)
    assert (util, backlog) == (0.0, False)
    # An idle server's request waits for nothing: its latency is its service time.
    assert st.p99_s == pytest.approx(mix.service.shifted(mix.extra_latency_s).quantile(0.99))
    assert len(over) == 1
    assert 0.0 <= over[0] <= 1.0


def test_the_mean_value_analysis_stops_exactly_at_saturation() -> None:
    """Once the throughput reaches the bottleneck's capacity, more clients only queue: the
    recursion stops there, and a billion clients give the bottleneck's rate and Little's law's
    delay (q / X - Z) at once."""
    stations = [Station(demand_s=1e-3, pacer=True, residual=0.5),
                Station(demand_s=4e-4, pacer=False, residual=0.64)]
    x, delay = closed_loop(1 << 30, stations, 2e-3)
    assert x == pytest.approx(1000.0)
    assert delay == pytest.approx((1 << 30) / 1000.0 - 2e-3)


def test_an_unsaturated_huge_population_is_bounded_and_never_beyond_capacity() -> None:
    """A population past MVA_MAX_STEPS that the stations cannot saturate in that many steps
    (a long think time) is answered from the last residence time: an upper bound on the
    throughput, capped at capacity, with Little's law holding on the result."""
    stations = [Station(demand_s=1e-6, pacer=True, residual=0.0)]
    z = 1.0  # saturates near a million clients
    q = 4 * MVA_MAX_STEPS
    x, delay = closed_loop(q, stations, z)
    assert x <= 1e6 + 1e-6
    assert x == pytest.approx(q / (z + 1e-6), rel=1e-3)
    assert math.isclose(q / x, z + delay, rel_tol=1e-9)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("engine", ["des", "analytic"])
@pytest.mark.parametrize("ramp", ["tps=200,627", "threads=4,16"])
def test_simulate_a_read_only_shape_with_an_idle_master(
        capsys: pytest.CaptureFixture[str], engine: str, ramp: str) -> None:
    """`simulate --workload mysql --preset sysbench-oltp-ro` (a replica by default) crashed in
    the event simulation (Poisson arrivals at a rate of 0 on the master). The master is idle on
    both engines, open or closed loop: no I/O, no latency, no client threads, and says so; the
    deployment's latency is the replica's."""
    r = simulate_json(capsys, "r5.large:gp3:500GiB", "--workload", "mysql", "--preset",
                      "sysbench-oltp-ro", "--engine", engine, "--ramp", ramp,
                      "--duration", "20")
    for level in r["levels"]:
        master, replica = level["servers"]
        assert master["role"] == "master"
        assert master["offered_tps"] == 0
        assert master["iops"]["total"] == 0
        assert master["latency_ms"]["transaction"]["p99"] is None
        assert master["bottleneck"].startswith("idle: receives no transactions")
        assert replica["offered_tps"] > 0
        assert replica["achieved_tps"] > 0
        assert level["latency_ms"]["transaction"]["p99"] == pytest.approx(
            replica["latency_ms"]["transaction"]["p99"], rel=1e-6)
        if "threads" in level["load"]:
            assert master["load"].get("threads", 0) == 0
    assert any("page flushing: none (no writes)" in line
               for line in r["io_profile"]["explain"])


def test_a_read_only_master_serving_reads_is_not_called_fsync_bound(
        capsys: pytest.CaptureFixture[str]) -> None:
    """With no replica the master serves the read-only transactions: they commit no writes,
    so nothing waits for a log flush."""
    r = simulate_json(capsys, "r5.large:gp3:500GiB", "--workload", "mysql", "--preset",
                      "sysbench-oltp-ro", "--replicas", "0", "--engine", "analytic",
                      "--ramp", "tps=200")
    (master,) = r["levels"][0]["servers"]
    assert not master["bottleneck"].startswith("fsync-bound")
    assert master["offered_tps"] == 200

