"""Status dumps -> workload: both formats, the transactions rule, and every refusal (one line).

The fixtures are real dumps of the project's MariaDB master taken 9 s apart while `advisor
replay` ran autocommitted reads and writes on it at an offered 200 tps (replay-level.json holds
what replay measured over its own, longer window)."""

import json
from pathlib import Path

import pytest

from advisor.errors import InvalidInput
from workloads.mysql_status import (
    Dump,
    check_pair,
    derive,
    parse_dump,
    parse_status,
    parse_variables,
)

DATA = Path(__file__).parent / "fixtures" / "mysql_status"


def dump(name: str) -> Dump:
    return parse_status((DATA / name).read_text(), source=name)


def variables() -> Dump:
    return parse_variables((DATA / "variables.tsv").read_text(), source="variables.tsv")


def synthetic(uptime: int, **counters: int) -> Dump:
    values = {"Uptime": str(uptime), "Com_select": "0", "Com_commit": "0", "Com_rollback": "0",
              **{k: str(v) for k, v in counters.items()}}
    return Dump(source=f"t{uptime}", values=values, format="tab-separated")


@pytest.mark.parametrize("fmt", ["tsv", "table"])
def test_both_formats_give_the_replayed_rate_within_5_percent(fmt: str) -> None:
    """mysql -e (tab-separated) and mysqladmin extended-status (a table) dumps read alike."""
    level = json.loads((DATA / "replay-level.json").read_text())
    w = derive(dump(f"before.{fmt}"), dump(f"after.{fmt}"), variables=variables())
    assert dump(f"before.{fmt}").format == ("table" if fmt == "table" else "tab-separated")
    assert w.interval_s == 9
    assert w.tps == pytest.approx(level["achieved_tps"], rel=0.05)
    assert w.reads_per_write == pytest.approx(level["reads"] / level["writes"], rel=0.05)
    assert w.explicit_txns == 0
    assert w.autocommitted == w.transactions


def test_variables_become_size_options_but_not_the_buffer_pool() -> None:
    """The server and its flush/io/redo/replica settings are carried; the buffer pool is the
    candidate's own."""
    w = derive(dump("before.tsv"), dump("after.tsv"), variables=variables())
    opts = w.size_options()
    assert opts["server"] == "mariadb-10.11"
    assert opts["flush_log_at_trx_commit"] == 1
    assert opts["sync_binlog"] == 1
    assert opts["io_capacity"] == 200
    assert opts["redo_log_mib"] == 48.0
    assert opts["replica_workers"] == 1
    assert "buffer_pool_gib" not in opts
    assert any("innodb_buffer_pool_size" in n for n in w.notes)


def test_a_measured_profile_comes_with_the_workload() -> None:
    w = derive(dump("before.tsv"), dump("after.tsv"))
    assert w.profile is not None
    assert w.profile.per_write_txn.redo_fsyncs == pytest.approx(
        w.redo_fsyncs_per_s * w.interval_s / w.write_txns, rel=1e-3)
    assert w.profile_document is not None
    assert w.profile_document["schema"] == "advisor.io_profile/1"


def test_explicit_transactions_hold_the_shapes_statements() -> None:
    """sysbench oltp_read_write: 100 BEGIN..COMMIT of 14 SELECTs + 4 writes, plus 50
    autocommitted SELECTs and 10 autocommitted UPDATEs -> 110 read-write, 50 read-only."""
    before = synthetic(100, Com_update=0, Com_insert=0, Com_delete=0)
    after = synthetic(110, Com_select=1450, Com_commit=100, Com_update=210, Com_insert=100,
                      Com_delete=100)
    w = derive(before, after, selects_per_write_txn=14, writes_per_write_txn=4)
    assert (w.write_txns, w.read_txns, w.explicit_txns, w.autocommitted) == (110, 50, 100, 60)
    assert w.tps == 16.0
    assert w.rows_read_per_select is None or w.rows_read_per_select >= 0


def test_explicit_read_only_transactions_are_read_only() -> None:
    w = derive(synthetic(1, Com_select=0), synthetic(3, Com_select=40, Com_commit=10))
    assert (w.write_txns, w.read_txns) == (0, 10)
    assert w.profile is None


@pytest.mark.parametrize(("text", "message"), [
    ("", "empty"),
    ("hello world\n", "line 1 is neither"),
    ("Variable_name\tValue\nversion\t10.11\n", "no Uptime counter: not a SHOW GLOBAL STATUS "
     r"dump \(this looks like SHOW VARIABLES\)"),
    ("Uptime\t5\nUptime\t6\n", "Uptime appears twice"),
    ("1abc\t5\n", "does not start with a variable name"),
])
def test_a_file_that_is_not_a_status_dump_is_refused(text: str, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        parse_status(text, source="x.txt")


def test_a_status_dump_is_not_taken_for_variables() -> None:
    with pytest.raises(InvalidInput, match="not a SHOW VARIABLES dump"):
        parse_variables((DATA / "before.tsv").read_text(), source="before.tsv")


def test_a_restart_between_the_dumps_is_refused() -> None:
    """Uptime went down (or the dumps were given in the wrong order)."""
    with pytest.raises(InvalidInput, match=r"Uptime went down .* the server restarted"):
        derive(dump("after.tsv"), dump("before.tsv"))


def test_a_counter_going_backwards_is_refused() -> None:
    before = dump("before.tsv")
    values = dict(dump("after.tsv").values)
    values["Com_update"] = "1"
    after = Dump(source="after.tsv", values=values, format="tab-separated")
    with pytest.raises(InvalidInput, match="Com_update went backwards"):
        check_pair(before, after)


def test_flush_status_between_the_dumps_is_refused() -> None:
    """Uptime_since_flush_status restarted between the dumps, even when it is not lower."""
    before = synthetic(1000, Uptime_since_flush_status=5)
    for since in (1, 50):  # a flush 1 s or 50 s before the second dump, 100 s later
        after = synthetic(1100, Uptime_since_flush_status=since)
        with pytest.raises(InvalidInput, match="FLUSH STATUS ran between the dumps"):
            check_pair(before, after)


def test_counters_started_at_another_time_are_another_servers() -> None:
    """Server A's counters started 995 s after its start, B's (flushed earlier) 900 s."""
    with pytest.raises(InvalidInput, match=r"started 95 s apart .* two different servers"):
        check_pair(synthetic(1000, Uptime_since_flush_status=5),
                   synthetic(1100, Uptime_since_flush_status=200))
    assert check_pair(synthetic(1000, Uptime_since_flush_status=5),
                      synthetic(1100, Uptime_since_flush_status=105)) == 100


def test_dumps_of_two_different_servers_are_refused() -> None:
    """Another version (another set of counters), or an identity value that differs."""
    before = dump("before.tsv")
    other = {k: v for k, v in dump("after.tsv").values.items() if not k.startswith("Innodb_")}
    with pytest.raises(InvalidInput, match=r"counters are in one dump only .* two different "
                       r"servers"):
        check_pair(before, Dump(source="a", values=other, format="tab-separated"))
    page = dict(dump("after.tsv").values, Innodb_page_size="4096")
    with pytest.raises(InvalidInput, match="Innodb_page_size differs: dumps from two different "
                       "servers"):
        check_pair(before, Dump(source="a", values=page, format="tab-separated"))


def test_dumps_in_the_same_second_and_idle_intervals_are_refused() -> None:
    with pytest.raises(InvalidInput, match="at least a second apart"):
        check_pair(dump("before.tsv"), dump("before.tsv"))
    with pytest.raises(InvalidInput, match="no transaction in 2 s"):
        derive(synthetic(1), synthetic(3))


def test_mysqladmin_and_mysql_table_output_parse_alike() -> None:
    text = ("+---------------+-------+\n| Variable_name | Value |\n+---------------+-------+\n"
            "| Uptime        | 12    |\n| Com_select    | 3     |\n| Ssl_cipher    |       |\n"
            "+---------------+-------+\n")
    d = parse_dump(text, source="t")
    assert d.format == "table"
    assert dict(d.values) == {"Uptime": "12", "Com_select": "3", "Ssl_cipher": ""}
