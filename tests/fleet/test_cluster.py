"""On a real Dask cluster (a `dask scheduler` and two `dask worker` processes on loopback, started
here): the same results as in this process, a malformed row reported, a killed worker costing
time but no row."""

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from advisor.catalog.model import Catalog
from advisor.fleet_run import Where, run_fleet, run_on
from advisor.userfiles import load_catalog
from recommend.fleet import FleetRow, RowResult, parse_rows
from tests.fleet import cluster
from tests.fleet.rows import CHEAP, MALFORMED

distributed = pytest.importorskip("distributed")

# The client's own background threads may warn while a worker dies (that is the test's point).
# Slow: the cluster takes ~20 s to start and each run ~5-15 s on a shared 2-core host.
pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::ResourceWarning"),
              pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
              pytest.mark.filterwarnings("ignore::DeprecationWarning:distributed")]


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(use_env=False)


@pytest.fixture(scope="module")
def rows() -> list[FleetRow]:
    return parse_rows([*CHEAP, MALFORMED])


@pytest.fixture(scope="module")
def in_process(rows: list[FleetRow], catalog: Catalog) -> list[RowResult]:
    return run_fleet(rows, catalog, Where(), lambda r: None)


@pytest.fixture(scope="module")
def dask_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[cluster.Cluster]:
    logs = tmp_path_factory.mktemp("dask")
    c = cluster.start(2, str(logs))
    try:
        yield c
    finally:
        c.stop()


def _by_id(results: list[RowResult]) -> dict[str, RowResult]:
    return {r.id: r for r in results}


def test_two_workers_give_the_in_process_results(dask_cluster: cluster.Cluster,
                                                 rows: list[FleetRow], catalog: Catalog,
                                                 in_process: list[RowResult]) -> None:
    """Every field of every row, the full `size` result included, and the malformed row is a
    result with its reason; both workers took rows."""
    with distributed.Client(dask_cluster.address, timeout="30s") as client:
        cluster.wait_for_workers(client, 2)
        seen: list[RowResult] = []
        with distributed.get_task_stream(client) as stream:
            results = run_on(client, rows, catalog, seen.append)
        ran_on = {t["worker"] for t in stream.data if t["key"].startswith("fleet-")}
    assert [r.reason for r in results if r.status == "error"] == []
    assert _by_id(results) == _by_id(in_process)
    assert sorted(r.id for r in seen) == sorted(r.id for r in rows)
    assert _by_id(results)["bad-1"].status == "invalid"
    assert _by_id(results)["bad-1"].reason == "reads_per_sec -5: must be 0 or more"
    assert len(ran_on) == 2


def test_the_catalog_travels_with_the_tasks(dask_cluster: cluster.Cluster,
                                           rows: list[FleetRow], catalog: Catalog) -> None:
    """The workers size with the catalog the client holds (a user's, here one renamed), never
    one of their own."""
    from dataclasses import replace

    mine = replace(catalog, catalog_version="user-catalog-17")
    results = run_fleet(rows[:2], mine, Where(scheduler=dask_cluster.address), lambda r: None)
    assert [r.result["catalog_version"] for r in results if r.result] == ["user-catalog-17"] * 2


def test_the_scheduler_option_runs_the_same_rows(dask_cluster: cluster.Cluster,
                                                 rows: list[FleetRow], catalog: Catalog,
                                                 in_process: list[RowResult]) -> None:
    results = run_fleet(rows, catalog, Where(scheduler=dask_cluster.address), lambda r: None)
    assert _by_id(results) == _by_id(in_process)


def test_a_worker_killed_mid_run_loses_no_row(dask_cluster: cluster.Cluster,
                                             rows: list[FleetRow], catalog: Catalog,
                                             in_process: list[RowResult]) -> None:
    """SIGKILL one worker as the first row finishes: its running and queued rows run again on
    the other, and every row still comes back with the in-process answer."""
    victim = dask_cluster.workers[1]
    more = parse_rows([*CHEAP, *({**r, "id": f"{r['id']}-again"} for r in CHEAP), MALFORMED])
    killed: list[int] = []

    def on_result(_r: RowResult) -> None:
        if not killed:
            os.kill(victim.pid, signal.SIGKILL)
            killed.append(victim.pid)

    with distributed.Client(dask_cluster.address, timeout="30s") as client:
        cluster.wait_for_workers(client, 2)
        results = run_on(client, more, catalog, on_result)
        left = len(client.scheduler_info()["workers"])
    assert killed
    assert victim.wait(timeout=30) == -signal.SIGKILL
    assert left == 1
    expected = _by_id(in_process)
    got = _by_id(results)
    assert sorted(got) == sorted(r.id for r in more)
    for row_id, r in got.items():
        base = expected[row_id.removesuffix("-again")]
        assert r == RowResult(**{**_fields(base), "id": row_id})


def _fields(r: RowResult) -> dict[str, object]:
    return {name: getattr(r, name) for name in RowResult.__dataclass_fields__}


def test_the_cli_runs_on_the_scheduler(dask_cluster: cluster.Cluster, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    from tests.cli_helpers import run

    fleet = tmp_path / "fleet.jsonl"
    import json

    fleet.write_text("".join(json.dumps(r) + "\n" for r in [CHEAP[1], MALFORMED]))
    code, out, err = run(capsys, "fleet", str(fleet), "--scheduler", dask_cluster.address,
                         "--no-save", "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    assert report["where"] == f"Dask scheduler {dask_cluster.address}"
    assert report["by_status"] == {"ok": 1, "no_slo": 0, "invalid": 1, "error": 0}


def test_the_cli_on_a_local_cluster_gives_the_in_process_rows(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], rows: list[FleetRow],
        in_process: list[RowResult]) -> None:
    """`--workers 2` starts (and stops) a local Dask cluster; its --out rows are the
    in-process ones."""
    import csv
    import json

    from tests.cli_helpers import run

    fleet = tmp_path / "fleet.jsonl"
    fleet.write_text("".join(json.dumps(r) + "\n" for r in [*CHEAP, MALFORMED]))
    out = tmp_path / "out.csv"
    code, _, err = run(capsys, "fleet", str(fleet), "--workers", "2", "--no-save", "--out",
                       str(out))
    assert code == 0, err
    with out.open(newline="") as f:
        got = {r["id"]: r for r in csv.DictReader(f)}
    for r in in_process:
        assert got[r.id]["status"] == r.status
        assert got[r.id]["deployment"] == (r.deployment or "")
        assert got[r.id]["reason"] == r.reason
