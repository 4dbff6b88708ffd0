"""Replay driver logic against the in-memory database (no server, no wall clock where possible)."""

import math
from typing import Any

import pytest

from advisor.errors import InvalidInput
from workloads.real.clock import ManualClock, SystemClock
from workloads.real.db import TransactionFailed
from workloads.real.db_memory import InMemoryDatabase
from workloads.real.replay import ProgressEvent, ReplayConfig, Target, run_replay

ORDER = ("p50", "p90", "p95", "p99", "p999", "max")


def one_step(**overrides: Any) -> ReplayConfig:
    settings: dict[str, Any] = {"ramp": (1,), "duration_s": 20.0, "warmup_s": 0.0, "rows": 1000}
    return ReplayConfig(**(settings | overrides))


def test_reads_per_write_ratio_is_honoured_and_reads_go_to_the_replica() -> None:
    """3.25 reads per write: the write share is 1/4.25 within 4 standard errors (seeded)."""
    clock = ManualClock()
    master = InMemoryDatabase(name="master", delay_s=0.001, clock=clock)
    replica = InMemoryDatabase(name="replica", delay_s=0.001, clock=clock, replica_of=master)
    result = run_replay(Target(master=master, replicas=(replica,)), one_step(seed=7), clock=clock)
    level = result["levels"][0]
    n = level["transactions"]
    p = 1 / 4.25
    assert n > 15_000
    assert abs(level["writes"] / n - p) < 4 * math.sqrt(p * (1 - p) / n)
    assert (master.calls["read"], replica.calls["write"]) == (0, 0)
    assert replica.calls["read"] >= level["reads"]
    assert master.calls["write"] >= level["writes"]
    assert result["complete"] is True
    assert result["error"] is None


def test_same_seed_same_transactions() -> None:
    """A fixed seed and a manual clock give the very same counts on every run."""

    def counts(seed: int) -> tuple[int, int]:
        clock = ManualClock()
        db = InMemoryDatabase(delay_s=0.001, clock=clock)
        level = run_replay(Target(master=db), one_step(seed=seed, duration_s=5.0),
                           clock=clock)["levels"][0]
        return level["reads"], level["writes"]

    assert counts(3) == counts(3)
    assert counts(3) != counts(4)


def test_warmup_is_run_but_not_measured() -> None:
    """2 s warmup + 3 s measured at 1 ms per transaction: 5000 run, 3000 counted."""
    clock = ManualClock()
    db = InMemoryDatabase(delay_s=0.001, clock=clock)
    result = run_replay(Target(master=db), one_step(duration_s=3.0, warmup_s=2.0), clock=clock)
    level = result["levels"][0]
    assert abs(level["transactions"] - 3000) <= 1
    assert abs(db.calls["read"] + db.calls["write"] - 5000) <= 2
    assert level["achieved_tps"] == pytest.approx(1000, rel=0.002)


def test_latency_is_what_the_database_took() -> None:
    """Every transaction takes exactly 1 ms on the manual clock: all percentiles are 1 ms."""
    clock = ManualClock()
    db = InMemoryDatabase(delay_s=0.001, clock=clock)
    latency = run_replay(Target(master=db), one_step(duration_s=2.0), clock=clock)["levels"][0][
        "latency_ms"
    ]
    for kind in ("transaction", "read", "write"):
        for key in ORDER:
            assert latency[kind][key] == pytest.approx(1.0, rel=1e-3)


def test_latency_percentiles_are_monotone_under_real_threads() -> None:
    """p50 <= p90 <= p95 <= p99 <= p99.9 <= max for all, read and write transactions."""
    db = InMemoryDatabase(delay_s=0.0005, clock=SystemClock())
    result = run_replay(Target(master=db),
                        ReplayConfig(ramp=(4,), duration_s=0.5, warmup_s=0.1, rows=100))
    level = result["levels"][0]
    assert level["achieved_tps"] > 0
    for kind in ("transaction", "read", "write"):
        values = [level["latency_ms"][kind][k] for k in ORDER]
        assert values == sorted(values), (kind, values)


def test_open_loop_counts_latency_from_the_intended_start() -> None:
    """Offered twice what one 10 ms client can serve: the queue shows in latency, not hidden."""
    clock = ManualClock()
    db = InMemoryDatabase(delay_s=0.010, clock=clock)
    light, heavy = (
        run_replay(Target(master=InMemoryDatabase(delay_s=0.010, clock=c)),
                   one_step(rates_tps=(rate,), duration_s=10.0), clock=c)["levels"][0]
        for rate, c in ((20.0, ManualClock()), (200.0, ManualClock()))
    )
    del db, clock
    assert light["offered_tps"] == 20.0
    assert light["achieved_tps"] == pytest.approx(20, rel=0.35)
    assert light["latency_ms"]["transaction"]["p50"] == pytest.approx(10.0, rel=0.01)
    assert heavy["achieved_tps"] == pytest.approx(100, rel=0.02)  # one client, 10 ms each
    assert heavy["latency_ms"]["transaction"]["p50"] > 1000  # seconds behind schedule
    assert heavy["unserved"] > 500


def test_replica_lag_is_measured_with_the_heartbeat() -> None:
    """A replica that applies writes 0.3 s late shows 0.3 s of lag (less one 20 ms beat)."""
    clock = SystemClock()
    master = InMemoryDatabase(name="master", clock=clock)
    replica = InMemoryDatabase(name="replica", clock=clock, replica_of=master, apply_delay_s=0.3)
    result = run_replay(Target(master=master, replicas=(replica,)),
                        ReplayConfig(ramp=(1,), duration_s=1.0, warmup_s=0.2, rows=10,
                                     tick_s=0.02))
    level = result["levels"][0]
    assert 0.27 <= level["replica_lag_s"] <= 0.4
    assert level["heartbeat_writes"] > 0


def test_database_dying_mid_step_keeps_finished_steps() -> None:
    """The master dies in step 2: step 1 kept, step 2 failed with the reason, step 3 not run."""
    db = InMemoryDatabase(name="memory://master", delay_s=0.001, clock=SystemClock())

    def kill_in_step_two(event: ProgressEvent) -> None:
        if event.step == 2 and event.phase == "measure":
            db.fail("Lost connection to server during query (2013)")

    result = run_replay(Target(master=db),
                        ReplayConfig(ramp=(1, 2, 4), duration_s=0.4, warmup_s=0.1, rows=100),
                        progress=kill_in_step_two)
    assert [lv["threads"] for lv in result["levels"]] == [1, 2]
    first, second = result["levels"]
    assert (first["failed"], first["error"]) == (False, None)
    assert first["transactions"] > 0
    assert second["failed"] is True
    assert "Lost connection" in second["error"]
    assert result["complete"] is False
    assert result["error"].startswith("step 2 (2 threads): memory://master: Lost connection")
    assert "\n" not in result["error"]


def test_isolated_errors_are_counted_not_fatal() -> None:
    """Every 10th write fails once (a deadlock): errors counted, the step still completes."""

    class Deadlocking(InMemoryDatabase):
        def write(self, key: int, value: str) -> None:
            super().write(key, value)
            if self.calls["write"] % 10 == 0:
                raise TransactionFailed("memory: Deadlock found (1213)")

    clock = ManualClock()
    db = Deadlocking(delay_s=0.001, clock=clock)
    result = run_replay(Target(master=db), one_step(duration_s=2.0), clock=clock)
    level = result["levels"][0]
    assert result["complete"] is True
    assert level["errors"] == pytest.approx(level["writes"] / 9, rel=0.1)


def test_unreachable_database_fails_before_the_first_step() -> None:
    """Nothing to measure when the master is down: no levels, a one-line error, not complete."""
    db = InMemoryDatabase(name="memory://down")
    db.fail("Can't connect to server (111)")
    result = run_replay(Target(master=db), one_step())
    assert (result["levels"], result["complete"]) == ([], False)
    assert result["error"] == "prepare: memory://down: Can't connect to server (111)"


def test_a_replica_that_is_not_replicating_is_refused() -> None:
    """A replica whose replication threads stopped: the run stops before measuring."""

    class Stopped(InMemoryDatabase):
        def replication_error(self) -> str | None:
            return "memory://replica is not replicating: Slave_SQL_Running=No"

    master = InMemoryDatabase()
    result = run_replay(Target(master=master, replicas=(Stopped(replica_of=master),)),
                        one_step())
    assert result["complete"] is False
    assert "Slave_SQL_Running=No" in result["error"]


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"ramp": ()}, "ramp '': empty"),
        ({"ramp": (0, 2)}, "ramp 0: must be at least 1"),
        ({"reads_per_write": -1.0}, "reads -1: must be 0 or more"),
        ({"duration_s": 0.0}, "duration 0: must be positive"),
        ({"rows": 0}, "rows 0: must be at least 1"),
        ({"rates_tps": (0.0,)}, "rate 0: must be positive"),
        ({"ramp": (1, 2), "rates_tps": (10.0, 20.0, 30.0)}, "ramp '1,2': 2 values and rate 3"),
    ],
)
def test_bad_configuration_is_refused_with_a_reason(
    overrides: dict[str, Any], message: str
) -> None:
    """Each bad setting names the option and what is wrong."""
    with pytest.raises(InvalidInput, match=message.replace("(", r"\(")):
        run_replay(Target(master=InMemoryDatabase()), one_step(**overrides))


def test_steps_pair_a_single_ramp_value_with_every_rate() -> None:
    """--ramp 4 --rate 100,200 runs two open-loop steps of 4 clients."""
    config = ReplayConfig(ramp=(4,), rates_tps=(100.0, 200.0))
    assert config.steps() == [(4, 100.0), (4, 200.0)]
    assert ReplayConfig(ramp=(1, 2)).steps() == [(1, None), (2, None)]
