"""What one MySQL transaction is (presets, grammar, skew) and the buffer pool it runs on."""

import random
from collections import OrderedDict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.options import FieldError
from tests.cli_helpers import run
from workloads.buffer_pool import PageGroup, characteristic_time, hit_ratio
from workloads.mysql import MysqlParams, dedicated_buffer_pool_gib, dedicated_redo_mib, derive_io
from workloads.mysql_shape import (
    PRESETS,
    TxnShape,
    parse_skew,
    parse_txn,
    shape_of,
    show_txn,
)

# -- presets pinned to their sources ------------------------------------------------------------


def test_sysbench_presets_are_sysbench_1_0_20_defaults() -> None:
    """oltp_common.lua defaults: 10 point selects, 4 range selects (simple, sum, order, distinct)
    of --range-size 100, 1 index update, 1 non-index update, 1 delete + 1 insert, in
    BEGIN/COMMIT; sbtest rows of 190 bytes with one secondary index; --rand-type special."""
    rw, ro, wo = (PRESETS[n] for n in ("sysbench-oltp-rw", "sysbench-oltp-ro",
                                       "sysbench-oltp-wo"))
    assert rw.write_txn == TxnShape(point_selects=10, range_selects=4, range_rows=100,
                                    index_updates=1, updates=1, deletes=1, inserts=1)
    assert ro.read_txn == TxnShape(point_selects=10, range_selects=4, range_rows=100)
    assert ro.write_txn is None
    assert wo.write_txn == TxnShape(index_updates=1, updates=1, deletes=1, inserts=1)
    assert wo.read_txn is None
    for p in (rw, ro, wo):
        assert (p.row_bytes, p.secondary_indexes, p.skew) == (190, 1, "special")
    assert rw.write_txn.commits == 1  # one BEGIN/COMMIT, however many statements
    assert rw.reads == 0.0  # oltp_read_write alone: every transaction is read-write


def test_the_default_preset_is_the_original_model() -> None:
    """point-rw: a read is one point select, a write changes 4 rows in one commit."""
    p = PRESETS["point-rw"]
    assert p.read_txn == TxnShape(point_selects=1)
    assert p.write_txn is not None
    assert p.write_txn.write_statements == 4
    assert (p.reads, p.skew) == (3.25, "uniform")


def test_every_output_line_says_what_a_transaction_is() -> None:
    lines = shape_of("sysbench-oltp-rw").lines(0.0)
    assert lines[1] == ("read-write transaction = 10 point selects + 4 range selects x 100 rows"
                        " + 1 update of an indexed column + 1 update + 1 delete + 1 insert in "
                        "BEGIN/COMMIT")


# -- the grammar ------------------------------------------------------------------------------


@given(st.builds(TxnShape, point_selects=st.integers(0, 50), range_selects=st.integers(0, 9),
                 range_rows=st.integers(1, 5000), index_updates=st.integers(0, 5),
                 updates=st.integers(0, 5), deletes=st.integers(0, 5),
                 inserts=st.integers(0, 5), autocommit=st.booleans()))
@settings(max_examples=200, deadline=None)
def test_show_and_parse_round_trip(shape: TxnShape) -> None:
    if shape.read_statements + shape.write_statements == 0:
        return
    if shape.range_selects == 0:  # rows of no range are not written
        shape = TxnShape(**{**{f: getattr(shape, f) for f in shape.__slots__}, "range_rows": 100})
    assert parse_txn(show_txn(shape)) == shape


@pytest.mark.parametrize(("text", "problem"), [
    ("point=x", "point=x: a whole number 0..10,000"),
    ("select=3", "'select=3': expected point=N, range=NxROWS, index-update=N, update=N, "
                 "delete=N, insert=N or autocommit"),
    ("range=4y100", "range=4y100: expected range=NxROWS, e.g. 4x100"),
    ("point=0", "no statements: give at least one"),
    ("point=9000,update=9000", "18,000 statements: at most 10,000"),
])
def test_bad_transaction_text_names_the_problem(text: str, problem: str) -> None:
    with pytest.raises(FieldError) as info:
        parse_txn(text)
    assert info.value.problem == problem


def test_autocommit_writes_commit_once_per_statement() -> None:
    assert parse_txn("update=3,autocommit").commits == 3
    assert parse_txn("update=3").commits == 1
    assert parse_txn("point=3").commits == 0


# -- skew ---------------------------------------------------------------------------------------


def test_sysbench_special_puts_75_pct_of_accesses_on_the_middle_1_pct() -> None:
    bands = parse_skew("special").bands
    assert sum(r for r, _ in bands) == pytest.approx(1.0)
    assert sum(a for _, a in bands) == pytest.approx(1.0, abs=1e-6)
    middle, lo = 0.0, 0.0
    for rows, acc in bands:  # bands run in key order: find the ones inside 49.5 %..50.5 %
        if lo >= 0.495 - 1e-9 and lo + rows <= 0.505 + 1e-9:
            middle += acc
        lo += rows
    # 75 % special plus the bell curve's share of that 1 % (sd = 1/12 of the range: ~4.8 %)
    assert middle == pytest.approx(0.75 + 0.25 * 0.0479, abs=0.002)


def test_more_skew_means_fewer_misses() -> None:
    """The same 500 GiB on a 4 GiB machine: uniform > zipf 0.6 > hot set > zipf 0.99."""
    def reads(skew: str) -> float:
        p = MysqlParams(tps=627, data_gb=500, shape=shape_of("point-rw", skew=skew))
        return derive_io(p, 4.0).read_page_reads

    r = [reads(s) for s in ("uniform", "zipf:0.6", "hot:10%:90%", "zipf:0.99")]
    assert r == sorted(r, reverse=True), r
    assert r[0] > 0.9
    assert r[-1] < 0.5 * r[0]


# -- the buffer pool ----------------------------------------------------------------------------


def test_che_approximation_matches_an_lru_simulation() -> None:
    """Two groups of pages (hot 1,000 pages taking 80 % of the accesses, cold 20,000) in an LRU
    cache of 3,000 pages: Che's hit ratios within 0.02 of a replayed LRU."""
    hot, cold, cache = 1000, 20000, 3000
    groups = [PageGroup(("t", 0, 0), hot, 0.8 / hot), PageGroup(("t", 0, 1), cold, 0.2 / cold)]
    t = characteristic_time(groups, cache)
    rng = random.Random(7)
    lru: OrderedDict[int, None] = OrderedDict()
    hits = {0: [0, 0], 1: [0, 0]}
    for i in range(300_000):
        g = 0 if rng.random() < 0.8 else 1
        page = rng.randrange(hot) if g == 0 else hot + rng.randrange(cold)
        if i > 50_000:
            hits[g][1] += 1
            hits[g][0] += page in lru
        if page in lru:
            lru.move_to_end(page)
        else:
            lru[page] = None
            if len(lru) > cache:
                lru.popitem(last=False)
    for g, group in enumerate(groups):
        assert hit_ratio(group, t) == pytest.approx(hits[g][0] / hits[g][1], abs=0.02)


def test_buffer_pool_and_redo_follow_the_dedicated_server_rules() -> None:
    assert dedicated_buffer_pool_gib(0.5) == 0.125
    assert dedicated_buffer_pool_gib(4) == 2.0
    assert dedicated_buffer_pool_gib(16) == 12.0
    assert dedicated_redo_mib(2) == 1024
    assert dedicated_redo_mib(64) == 16 * 1024


def test_internal_levels_miss_when_the_index_does_not_fit() -> None:
    """10 TB of data on a 0.5 GiB pool: even internal B-tree nodes miss, so a point select
    reads more than one page."""
    tiny = derive_io(MysqlParams(tps=100, data_gb=10_000, buffer_pool_gib=0.5), 4.0)
    big = derive_io(MysqlParams(tps=100, data_gb=10_000), 64.0)
    assert tiny.read_page_reads > big.read_page_reads + 0.2
    assert tiny.read_page_reads > 1.5  # the leaf and most of the level above it


def test_the_change_buffer_takes_secondary_index_reads_off_the_write_path() -> None:
    """MySQL 8.0 buffers secondary-index changes (merged later, in the background); 8.4 and
    MariaDB 10.11 read the page in the transaction."""
    on = derive_io(MysqlParams(tps=627, data_gb=500, server="mysql-8.0"), 16.0)
    off = derive_io(MysqlParams(tps=627, data_gb=500, server="mysql-8.4"), 16.0)
    assert on.write_page_reads < off.write_page_reads
    assert on.merge_page_reads > 0 == off.merge_page_reads
    assert on.write_page_reads + on.merge_page_reads == pytest.approx(off.write_page_reads,
                                                                      rel=1e-6)


def test_a_flush_rate_above_io_capacity_max_is_stated() -> None:
    p = MysqlParams(tps=20_000, data_gb=500, io_capacity=100, io_capacity_max=200)
    io = derive_io(p, 16.0)
    assert io.flush_pages_per_s > 200
    assert io.notes
    assert io.notes[0].startswith("page flushing needs")


def test_server_defaults_differ_where_the_servers_do() -> None:
    my, maria = MysqlParams(tps=1), MysqlParams(tps=1, server="mariadb-10.11")
    assert (my.workers, my.replica_binlog, my.redo_mib(8)) == (4, True, 4096)
    assert (maria.workers, maria.replica_binlog, maria.redo_mib(8)) == (1, False, 96)


# -- CLI edges ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("args", "message"), [
    (("--preset", "nope"), "error: --preset 'nope': "),
    (("--io-capacity", "50"), "error: --io-capacity 50: "),
    (("--replica-workers", "0"), "error: --replica-workers 0: "),
    (("--read-txn", "update=1"), "error: --read-txn 'update=1': a read-only transaction cannot "
                                 "change rows"),
    (("--preset", "sysbench-oltp-ro", "--reads", "2"), "error: --reads 2: preset "
                                                       "sysbench-oltp-ro has read-only"),
    (("--skew", "zipf:9"), "error: --skew 'zipf:9': zipf theta must be above 0 and at most 3"),
])
def test_bad_shape_options_exit_2_with_one_line(capsys: pytest.CaptureFixture[str],
                                                args: tuple[str, ...], message: str) -> None:
    code, _, err = run(capsys, "size", "--tps", "627", *args)
    assert code == 2
    assert err.startswith(message), err
    assert err.count("\n") == 1


def test_semi_sync_adds_one_round_trip_to_each_commit() -> None:
    """--semi-sync: a read-write transaction's commit waits for the replica's ack, so its
    latency grows by the round trip; read-only transactions do not change."""
    from advisor.catalog import builtin_catalog
    from advisor.layout import resolve
    from workloads.mysql_run import Deployment, simulate_mysql

    cat = builtin_catalog()
    dep = Deployment(master=resolve("r5.large:gp3:500GiB", cat), replica=None)

    def p50(semi: bool) -> tuple[float, float]:
        r = simulate_mysql(dep, cat, MysqlParams(tps=300, data_gb=4, semi_sync=semi,
                                                 network_rtt_ms=2.0),
                           tps_levels=[300], engine="analytic", duration_s=600)
        lat = r.levels[0].latency_ms
        return float(lat.write.p50 or 0), float(lat.read.p50 or 0)

    (w0, r0), (w1, r1) = p50(False), p50(True)
    assert w1 - w0 == pytest.approx(2.0, abs=0.05)
    assert r1 == r0
