"""Fleet rows: a file malformed as a whole is refused naming the row; a bad row is a result."""

import pytest

from recommend.fleet import FleetFileError, RowResult, parse_rows, summarise
from recommend.request import size_request


def test_text_cells_build_the_request_size_builds() -> None:
    """A CSV row's text cells give the same request `advisor size` builds from its options."""
    (row,) = parse_rows([{"id": "db1", "workload": "mysql", "tps": "300", "data_gb": "50",
                          "replicas": "auto", "allow_ephemeral": "true", "region": ""}])
    assert row.request == size_request({"workload": "mysql", "tps": 300.0, "data_gb": 50.0,
                                        "replicas": "auto", "allow_ephemeral": True})
    assert row.problem is None


def test_a_blank_workload_is_mysql_and_typed_values_pass_through() -> None:
    (row,) = parse_rows([{"id": 7, "tps": 120, "data_gb": 8.5}])
    assert (row.id, row.workload) == ("7", "mysql")
    assert row.request == size_request({"tps": 120, "data_gb": 8.5})


@pytest.mark.parametrize(("record", "reason"), [
    ({"id": "x", "tps": "abc"}, "tps 'abc': must be a number"),
    ({"id": "x", "workload": "aerospike", "reads_per_sec": -5},
     "reads_per_sec -5: must be 0 or more"),
    ({"id": "x", "workload": "aerospike", "tps": 5}, "tps 5: applies to the mysql workload only"),
    ({"id": "x", "workload": "postgres"}, "workload 'postgres': choose mysql or aerospike"),
    ({"id": "x", "tps": 100, "current_monthly_usd": "lots"},
     "current_monthly_usd 'lots': must be a number (USD a month)"),
    ({"id": "x", "tps": 100, "current_monthly_usd": "1e400"},
     "current_monthly_usd '1e400': must be a finite number (USD a month)"),
    ({"id": "x", "tps": 100, "current_monthly_usd": -3},
     "current_monthly_usd -3: must be 0 or more (USD a month)"),
])
def test_a_bad_value_is_the_rows_problem_not_the_files(record: dict[str, object],
                                                      reason: str) -> None:
    rows = parse_rows([{"id": "ok", "tps": 100}, record])
    assert rows[0].request is not None
    assert rows[1].request is None
    assert rows[1].problem == reason


@pytest.mark.parametrize(("records", "message"), [
    ([{"id": "a", "tps": 1}, {"id": "b", "colour": "red"}],
     "row 2: unknown column 'colour'"),
    ([{"id": "a"}, {"tps": 5}], "row 2: no id"),
    ([{"id": "a"}, {"id": "  "}], "row 2: no id"),
    ([{"id": "a"}, {"id": "b"}, {"id": "a"}], "row 3: id 'a' repeats row 1"),
    ([], "the fleet file has no rows"),
])
def test_a_malformed_file_is_refused_naming_the_row(records: list[dict[str, object]],
                                                    message: str) -> None:
    with pytest.raises(FleetFileError, match=f"^{message}"):
        parse_rows(records)


def _ok(row_id: str, workload: str, family: str, usd: float, current: float | None,
        raid: str = "none", storage: str = "gp3") -> RowResult:
    return RowResult(id=row_id, workload=workload, status="ok", deployment=f"{family}.large",
                     monthly_usd=usd, instance_family=family, storage=storage, raid=raid,
                     current_monthly_usd=current,
                     savings_monthly_usd=None if current is None else round(current - usd, 2))


def test_summary_totals_savings_and_distributions() -> None:
    """Savings count only rows with a current cost; every sized row counts in the totals and
    distributions; rows without a recommendation are listed with their reason."""
    rows = [_ok("a", "mysql", "c6g", 100.0, 150.0), _ok("b", "mysql", "r6g", 200.0, 180.0),
            _ok("c", "aerospike", "c6g", 50.0, None, raid="raid0", storage="store"),
            RowResult(id="d", workload="mysql", status="no_slo", reason="no layout meets"),
            RowResult(id="e", workload="aerospike", status="invalid", reason="bad")]
    s = summarise(list(reversed(rows)), catalog_version="t")
    assert s.rows == 5
    assert s.by_status == {"ok": 3, "no_slo": 1, "invalid": 1, "error": 0}
    assert s.recommended_monthly_usd == 350.0
    assert (s.compared.rows, s.compared.current_monthly_usd, s.compared.recommended_monthly_usd,
            s.compared.savings_monthly_usd) == (2, 330.0, 300.0, 30.0)
    assert {k: v.savings_monthly_usd for k, v in s.savings_by_family.items()} == \
        {"c6g": 50.0, "r6g": -20.0}
    assert {k: v.savings_monthly_usd for k, v in s.savings_by_workload.items()} == {"mysql": 30.0}
    assert [r.id for r in s.top_savings] == ["a", "b"]
    assert [(r.id, r.reason) for r in s.unmet] == [("d", "no layout meets"), ("e", "bad")]
    assert s.families == {"c6g": 2, "r6g": 1}
    assert s.storage_types == {"gp3": 2, "store": 1}
    assert s.raid_levels == {"none": 2, "raid0": 1}


@pytest.mark.slow
def test_a_read_only_row_is_counted_by_the_layout_that_serves_it() -> None:
    """A read-only shape's master is idle: the fleet's family, storage and RAID columns name
    the replica's layout, which carries the workload, not the master's (an sc1 volume)."""
    from advisor.catalog import builtin_catalog
    from advisor.layout.spec import parse_spec
    from recommend.fleet import size_row

    (row,) = parse_rows([{"id": "ro", "tps": 500, "p99_ms": 20, "preset": "sysbench-oltp-ro"}])
    result = size_row(row, builtin_catalog())
    assert result.status == "ok"
    rec = result.result["recommendation"]
    assert rec["idle"].startswith("master receives no transactions")
    replica = parse_spec(rec["replicas"][0])
    assert (result.instance_family, result.storage, result.raid) == (
        replica.instance.split(".")[0], replica.device, replica.raid or "none")


def test_rows_alike_share_their_event_simulations_to_the_bit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A fleet's identical replicas of one database (another id, the same sizing) reuse the
    event simulations the first one ran: the same answer, no simulation run again."""
    from advisor.userfiles import load_catalog
    from recommend import fleet

    monkeypatch.setattr(fleet, "_ROW_MEMO", {})
    catalog = load_catalog(use_env=False)
    first, twin = parse_rows([
        {"id": f"db-{i}", "workload": "mysql", "tps": 300, "reads": 3.25, "data_gb": 50}
        for i in (1, 2)])
    one = fleet.size_row(first, catalog)

    def no_simulation(*_: object, **__: object) -> None:
        raise AssertionError("an event simulation ran again")

    monkeypatch.setattr("advisor.sim.des.run_des", no_simulation)
    two = fleet.size_row(twin, catalog)
    assert (two.status, two.deployment, two.monthly_usd) == (
        one.status, one.deployment, one.monthly_usd)
    assert two.status == "ok"
