"""MySQL master/replica: the per-transaction I/O model with hand-computed numbers, and how the
deployment behaves under rising load (BRIEF section 5, issue 4's must-shows and invariants).

Hand numbers for r5.large (16 GiB RAM, buffer pool 75 % = 12 GiB) with the sysbench defaults of
`MysqlParams` (190 B rows, 4 rows per write, 1 secondary index):
- usable buffer pool 0.95 x 12 GiB / 16 KiB = 747,110 pages; B-tree fan-out 16,384 / 28 = 585.
- 4 GiB = 262,144 pages (+ 449 internal): all cached, miss ratio 0, depth 1 + ceil(log_585) = 3.
- 400 GiB = 26,214,400 pages (+ 44,877 internal): (747,110 - 44,877) / 26,214,400 = 2.68 % of
  the leaves cached, miss ratio 97.32 %, depth 4; a write touches 4 x (1 + 1) = 8 pages.
- redo 4 x (190 + 150) + 200 = 1,560 B; binlog 4 x (2 x 190 + 60) + 150 = 1,910 B.
- 627 tps at 3.25 reads/write: 147.5 writes/s x 8 = 1,180 page changes/s over a redo window of
  0.75 x 96 MiB / (1,560 B x 147.5/s) = 328 s.
"""

import re
from typing import Any

import pytest

from advisor.catalog.load import builtin_catalog
from advisor.catalog.model import Catalog
from advisor.errors import InvalidInput
from advisor.layout import resolve
from advisor.options import FieldError
from workloads.mysql import MysqlParams, derive_io, servers
from workloads.mysql_run import Deployment, simulate_mysql
from workloads.results import MysqlLevel, MysqlSimResult

R5 = "r5.large:gp3:500GiB"
DES_SECONDS = 20.0
TPS_GRID = [50.0 * i for i in range(1, 33)]  # 50 .. 1,600 tps


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return builtin_catalog()


def deployment(catalog: Catalog, master: str, replica: str | None = None) -> Deployment:
    return Deployment(master=resolve(master, catalog),
                      replica=resolve(replica, catalog) if replica else None)


def run(catalog: Catalog, spec: str, levels: list[float], *, engine: str = "des",
        duration_s: float = DES_SECONDS, seed: int = 1, **params: Any) -> MysqlSimResult:
    return simulate_mysql(deployment(catalog, spec), catalog,
                          MysqlParams(tps=levels[0], **params), tps_levels=levels,
                          duration_s=duration_s, engine=engine, seed=seed)


def level_at(result: MysqlSimResult, tps: float) -> MysqlLevel:
    return next(lv for lv in result.levels if lv.offered_tps == tps)


# -- the I/O model ---------------------------------------------------------------------------


def test_627_tps_at_3_25_reads_per_write_is_147_5_writes_and_479_5_reads() -> None:
    """--reads 3.25 means 1 write in 4.25 transactions."""
    p = MysqlParams(tps=627)
    assert p.write_tps == pytest.approx(147.529, abs=1e-3)
    assert p.read_tps == pytest.approx(479.471, abs=1e-3)


def test_data_that_fits_the_buffer_pool_reads_no_pages() -> None:
    """4 GiB on 12 GiB of buffer pool: no page reads, only commits and background flushes."""
    io = derive_io(MysqlParams(tps=627, data_gb=4), memory_gib=16.0)
    assert (io.miss_ratio, io.read_page_reads, io.write_page_reads) == (0.0, 0.0, 0.0)
    # redo: 4 rows x (190 + 150) + 4 secondary-index changes x 50 + 200 = 1,760 B;
    # binlog (ROW): 2 updates x 2 images + delete + insert = 6 x 190 + 4 x 60 + 150 = 1,530 B
    assert (io.redo_bytes, io.binlog_bytes, io.source) == (1760, 1530, "model")
    assert io.buffer_pool_gib == 12.0  # innodb_dedicated_server: 75 % of 16 GiB
    assert "miss ratio 0.0%" in io.explain[1]


def test_data_100x_the_buffer_pool_misses_nearly_every_leaf() -> None:
    """400 GiB on 12 GiB: ~97 % of leaf pages miss, the internal levels stay cached, so a point
    select reads ~0.97 pages while its 4 levels make the miss ratio about a quarter of that."""
    io = derive_io(MysqlParams(tps=627, data_gb=400), memory_gib=16.0)
    assert 0.95 <= io.read_page_reads <= 1.05
    # every access counts (as Innodb_buffer_pool_reads / _read_requests do): internal levels
    # hit, so the ratio sits well below the leaves' ~97 % (a lookup touches 4 pages)
    assert 0.97 / 5 < io.miss_ratio < 0.97 / 2
    assert io.explain[0].endswith("B-tree depth 4")


def test_an_explicit_buffer_pool_replaces_the_share_of_ram() -> None:
    """--buffer-pool-gib 100 on a 16 GiB instance: 100 GiB of buffer pool holds 40 GiB of data."""
    io = derive_io(MysqlParams(tps=100, data_gb=40, buffer_pool_gib=100), memory_gib=16.0)
    assert io.miss_ratio == 0.0


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"tps": -5}, "tps -5: must be positive"),
    ({"tps": 2e9}, "tps 2000000000: at most 1,000,000,000"),
    ({"tps": 100, "reads_per_write": -1}, "reads_per_write -1: must be 0 or more"),
    ({"tps": 100, "replicas": 33}, "replicas 33: at most 32"),
    ({"tps": 100, "data_gb": 0}, "data_gb 0: must be positive"),
    ({"tps": 100, "data_gb": float("nan")}, "data_gb nan: must be a finite number"),
    ({"tps": 100, "flush_log_at_trx_commit": 3}, "flush_log_at_trx_commit 3: must be 0, 1 or 2"),
    ({"tps": 100, "io_capacity": 99}, "io_capacity 99: must be at least 100"),
    ({"tps": 100, "replica_workers": 0}, "replica_workers 0: must be at least 1"),
    ({"tps": 100, "replica_dependency": 1.5}, "replica_dependency 1.5: at most 1"),
    ({"tps": 100, "server": "postgres"}, "server 'postgres': choose "),
])
def test_nonsense_parameters_are_refused_with_the_reason(kwargs: dict[str, Any],
                                                         message: str) -> None:
    """Bad workload parameters raise InvalidInput naming the field in domain terms (no flag:
    the adapters name it)."""
    with pytest.raises(InvalidInput, match="^" + re.escape(message)) as caught:
        MysqlParams(**kwargs)
    assert not str(caught.value).startswith("--")


def test_a_request_names_the_ratio_as_its_own_field() -> None:
    """The model's reads_per_write is a request's `reads`: a bad one (reachable only from a
    caller the declarations do not check) is named as the request names it."""
    from workloads.mysql_options import MysqlOptions

    with pytest.raises(FieldError) as caught:
        MysqlOptions().mysql_params(tps=100, reads=-1, replicas=1, data_gb=10)
    assert caught.value.name == "reads"
    assert caught.value.named(caught.value.flag) == "--reads -1: must be 0 or more"


def test_data_larger_than_the_layout_is_refused(catalog: Catalog) -> None:
    """100 GiB of data does not fit a 100 GiB volume once logs need 5 % more."""
    with pytest.raises(InvalidInput, match=r"^master layout r5\.large:gp3:100GiB: 100 GiB usable "
                       r"is too small for 100 GiB of data plus logs \(needs 105 GiB\)$"):
        run(catalog, "r5.large:gp3:100GiB", [100.0], data_gb=100)


# -- the buffer pool and the write share under rising load (event simulation) ----------------


def test_data_that_fits_the_buffer_pool_is_faster_and_its_knee_higher(catalog: Catalog) -> None:
    """--data-gb 4 vs 400 on r5.large:gp3:500GiB: lower latency at every load both carry, a knee
    several times higher, and the result says why (the miss ratio)."""
    levels = [200.0, 627.0, 1500.0, 3000.0]
    small = run(catalog, R5, levels, data_gb=4)
    large = run(catalog, R5, levels, data_gb=400)
    assert small.io_profile.miss_ratio == 0.0
    assert large.io_profile.miss_ratio > 0.2
    assert "miss ratio 0.0%" in small.io_profile.explain[1]
    assert f"miss ratio {large.io_profile.miss_ratio:.1%}" in large.io_profile.explain[1]
    assert large.knee.tps is not None
    assert small.knee.tps >= 3 * large.knee.tps  # 1,500 vs 200 tps
    for a, b in zip(small.levels, large.levels, strict=True):
        assert a.latency_ms.transaction.p50 < b.latency_ms.transaction.p50
    fits, misses = level_at(small, 200.0), level_at(large, 200.0)
    assert fits.latency_ms.transaction.p99 < misses.latency_ms.transaction.p99


def test_write_heavy_mix_has_a_lower_knee_and_an_fsync_bound_master(catalog: Catalog) -> None:
    """--reads 0.5 vs 3.25 (4 GiB of data): the write-heavy knee is lower, and below it the
    master's bottleneck is its commit fsyncs."""
    levels = [100.0, 200.0, 400.0, 800.0, 1600.0, 3200.0, 6400.0]
    read_heavy = run(catalog, R5, levels, data_gb=4, reads_per_write=3.25)
    write_heavy = run(catalog, R5, levels, data_gb=4, reads_per_write=0.5)
    assert read_heavy.knee.tps is not None
    assert write_heavy.knee.tps is not None
    assert write_heavy.knee.tps < read_heavy.knee.tps
    knee = level_at(write_heavy, write_heavy.knee.tps)
    master = knee.servers[0]
    assert master.role == "master"
    assert master.bottleneck.startswith("fsync-bound: each write commit waits for 2 log "
                                           "flushes (redo, binlog)")
    assert knee.bottleneck.startswith("master: fsync-bound")


# -- invariants (analytic engine: exact, no sampling noise) ----------------------------------


@pytest.mark.parametrize("spec", [R5, "m5.large:gp2:200GiB", "m5d.large:store",
                                  "c5.large:raid0:4xgp3:30GiB", "m1.large:raid0:2xstore"])
@pytest.mark.parametrize("replicas", [0, 1])
def test_more_tps_never_lowers_transaction_latency(catalog: Catalog, spec: str,
                                                   replicas: int) -> None:
    """At steady state (one hour, credits spent) p50, p99 and mean never fall as tps rises, on
    a 25 tps grid up to 800 and a few loads past saturation."""
    data = 40 if spec.startswith("m5d") else 100
    levels = [25.0 * i for i in range(1, 33)] + [1200.0, 1600.0, 2400.0, 3200.0]
    r = run(catalog, spec, levels, engine="analytic", duration_s=3600.0, data_gb=data,
            replicas=replicas)
    # The analytic engine adds random variables on 200-point quantile grids: a percentile is
    # resolved to about 0.2 %, so a "drop" smaller than that is grid noise, not a trend (means
    # are carried exactly).
    resolution = 2e-3
    for key in ("p50", "p99", "mean"):
        series = [getattr(lv.latency_ms.transaction, key) for lv in r.levels]
        drops = [(levels[i], series[i], levels[i + 1], series[i + 1])
                 for i in range(len(series) - 1)
                 if series[i + 1] < series[i] * (1 - resolution)]
        assert drops == [], f"{key} (tps, ms, higher tps, lower ms): {drops}"


@pytest.mark.parametrize("replicas", [1, 2, 3, 4])
def test_each_replica_serves_an_equal_share_of_the_reads_and_applies_every_write(
        replicas: int) -> None:
    """627 tps, 3.25 reads/write: the master takes the 147.5 writes/s, each of N replicas
    479.5 / N reads/s and applies all 147.5 writes/s."""
    p = MysqlParams(tps=627, replicas=replicas)
    io = derive_io(p, 16.0)
    master, *reps = servers(p, io, io, data_bytes=2**30, master_capacity=2**31,
                            replica_capacity=2**31)
    assert (master.role, master.rate_tps, master.read_share) == ("master", p.write_tps, 0.0)
    assert len(reps) == replicas
    for rep in reps:
        assert (rep.role, rep.read_share) == ("replica", 1.0)
        assert rep.rate_tps == pytest.approx(p.read_tps / replicas)
        assert rep.write_apply_tps == p.write_tps


def test_without_replicas_the_master_serves_everything() -> None:
    """--replicas 0: one server at the full 627 tps, 76.5 % of them reads."""
    p = MysqlParams(tps=627, replicas=0)
    io = derive_io(p, 16.0)
    (master,) = servers(p, io, io, data_bytes=2**30, master_capacity=2**31,
                        replica_capacity=2**31)
    assert (master.role, master.rate_tps) == ("master", 627)
    assert master.read_share == pytest.approx(3.25 / 4.25)


def knee_by_replicas(catalog: Catalog, replica_counts: range, metric: str) -> list[float | None]:
    """For each replica count, the highest tps of TPS_GRID whose `metric` p99 meets 10 ms
    (`transaction`: the deployment's knee, which also needs every server healthy)."""
    out = []
    for n in replica_counts:
        r = run(catalog, R5, TPS_GRID, engine="analytic", duration_s=3600.0, replicas=n)
        if metric == "transaction":
            out.append(r.knee.tps)
            continue
        ok = [lv.offered_tps for lv in r.levels if getattr(lv.latency_ms, metric).p99 <= 10.0]
        out.append(max(ok, default=None))
    return out


@pytest.mark.slow  # over 5 s on a 2-core host (durations of 2026-11-29)
def test_more_replicas_never_lower_read_capacity(catalog: Catalog) -> None:
    """Read transactions meet p99 10 ms up to a load that never falls as replicas are added,
    from 1 to 4 (from none to one it may: the next test)."""
    read_knees = knee_by_replicas(catalog, range(1, 5), "read")
    assert None not in read_knees
    assert read_knees == sorted(read_knees), read_knees  # type: ignore[type-var]


@pytest.mark.slow
def test_a_lone_master_reads_faster_than_one_replica_applying_its_writes(
        catalog: Catalog) -> None:
    """A master that serves the reads itself writes no relay log and applies nothing, so at
    650 tps on r5.large gp3 500 GiB its reads are faster than one replica's that serves them all
    and applies the master's writes too: in the event simulation (read p99 8.7 against 25.1 ms,
    seeds 1-2, 20 s) and in the model (10.0 against 19.6 ms; it had the lone master at 12.8 ms
    until each log was keyed by itself and its writes thinned over a busy limit, 2026-11-30)."""
    read_p99 = {}
    for replicas in (0, 1):
        des = [level_at(run(catalog, R5, [650.0], replicas=replicas, seed=seed), 650.0)
               .latency_ms.read.p99 for seed in (1, 2)]
        analytic = level_at(run(catalog, R5, [650.0], engine="analytic", duration_s=3600.0,
                                replicas=replicas), 650.0).latency_ms.read.p99
        assert analytic is not None
        assert None not in des
        read_p99[replicas] = (sum(des) / 2, analytic)  # type: ignore[arg-type]
    assert read_p99[0][0] < read_p99[1][0]
    assert read_p99[0][1] < read_p99[1][1]


def test_more_replicas_never_lower_the_knee(catalog: Catalog) -> None:
    """The deployment's knee (transaction p99 <= 10 ms, every server healthy) never falls as
    replicas are added, from 0 (the master serves the reads) to 3."""
    out = knee_by_replicas(catalog, range(4), "transaction")
    assert None not in out
    assert out == sorted(out), out  # type: ignore[type-var]


def test_moving_the_reads_off_the_master_never_slows_its_writes(catalog: Catalog) -> None:
    """At the same tps, a master without the reads (1 replica) has write p99 no higher than a
    master that also serves them (0 replicas)."""
    levels = [300.0, 400.0, 500.0]
    alone = run(catalog, R5, levels, engine="analytic", duration_s=3600.0, replicas=0)
    with_replica = run(catalog, R5, levels, engine="analytic", duration_s=3600.0, replicas=1)
    for a, b in zip(alone.levels, with_replica.levels, strict=True):
        assert b.latency_ms.write.p99 <= a.latency_ms.write.p99, a.offered_tps


def test_replica_reports_its_apply_capacity_and_falls_behind_past_it(catalog: Catalog) -> None:
    """400 GiB on r5.xlarge, MariaDB's single SQL thread: it applies ~240 writes/s (~7 page reads
    + a commit each); at 400 tps (94 writes/s) it keeps up, at 1,500 tps (353 writes/s) it falls
    behind and the level says so. MySQL 8.0's 4 workers apply 1 / (0.25 + 0.75 / 4) = 2.29 times
    as many with the default dependency, and the change buffer takes their secondary-index
    reads away."""
    fast = "r5.xlarge:gp3:500GiB:16000iops:1000mbps"  # a master that commits all 353 writes/s
    r = run(catalog, fast, [400.0, 1500.0], engine="analytic", duration_s=600.0, data_gb=400,
            server="mariadb-10.11")
    mysql = run(catalog, fast, [400.0], engine="analytic", duration_s=600.0, data_gb=400,
                server="mysql-8.4")  # 4 workers, no change buffer: the same reads
    assert mysql.levels[0].servers[1].replication.apply_capacity_tps == pytest.approx(
        2.2857 * level_at(r, 400.0).servers[1].replication.apply_capacity_tps, rel=0.01)
    keeps_up = level_at(r, 400.0).servers[1].replication
    behind_level = level_at(r, 1500.0)
    behind = behind_level.servers[1].replication
    assert keeps_up.apply_capacity_tps == behind.apply_capacity_tps
    assert 150 < keeps_up.apply_capacity_tps < 350
    assert keeps_up.write_tps == pytest.approx(94.1, abs=0.05)
    assert (keeps_up.falls_behind, keeps_up.lag_growth_s_per_s) == (False, 0.0)
    assert behind.write_tps == pytest.approx(352.9, abs=0.05)
    assert behind.falls_behind is True
    assert behind.lag_growth_s_per_s == pytest.approx(
        behind.write_tps / behind.apply_capacity_tps - 1, abs=1e-3)
    cap = behind.apply_capacity_tps
    assert f"replica falls behind: applies {cap:,.0f} writes/s < 353" in behind_level.reasons
    assert behind_level.meets_slo is False


@pytest.mark.parametrize(("spec", "data_gb", "tps"), [
    (R5, 100, 300.0), (R5, 4, 627.0), ("m5d.large:store", 40, 627.0)])
def test_event_and_analytic_engines_agree_on_throughput_below_saturation(
        catalog: Catalog, spec: str, data_gb: float, tps: float) -> None:
    """Below saturation every offered transaction completes: DES achieved tps within 5 % of the
    analytic engine's, for the deployment and for each server."""
    des = level_at(run(catalog, spec, [tps], duration_s=30.0, data_gb=data_gb), tps)
    ana = level_at(run(catalog, spec, [tps], engine="analytic", duration_s=30.0,
                       data_gb=data_gb), tps)
    assert (des.engine, ana.engine) == ("des", "analytic")
    assert des.achieved_tps == pytest.approx(ana.achieved_tps, rel=0.05)
    for d, a in zip(des.servers, ana.servers, strict=True):
        assert d.achieved_tps == pytest.approx(a.offered_tps, rel=0.05), d.role


def test_the_applier_ceiling_is_what_any_number_of_workers_reaches(catalog: Catalog) -> None:
    """Amdahl: with a share d of the apply work dependent, W workers apply
    1 / (d + (1 - d) / W) times one worker's rate, never more than 1 / d times it; with d = 0
    there is no ceiling."""
    from advisor.sim.plan import compile_plan
    from workloads.mysql_run import apply_capacity_tps, apply_ceiling_tps, build_servers

    layout = resolve(R5, catalog)
    plan = compile_plan(layout, catalog)

    def replica(**kw: Any) -> Any:
        params = MysqlParams(tps=1000.0, data_gb=100, replicas=1, **kw)
        return build_servers(Deployment(master=layout, replica=layout), params, None)[1]

    one = apply_capacity_tps(replica(replica_workers=1, replica_dependency=0.25), plan, None)
    ceiling = apply_ceiling_tps(replica(replica_dependency=0.25), plan, None)
    assert ceiling == pytest.approx(4 * one)
    many = apply_capacity_tps(replica(replica_workers=1024, replica_dependency=0.25), plan, None)
    assert many == pytest.approx(ceiling, rel=0.005)
    assert many < ceiling
    assert apply_ceiling_tps(replica(replica_dependency=0.0), plan, None) is None
