"""The MySQL and ACT simulation results as typed values: the JSON keys reports and stored runs
read (ACT's verdict under `pass`), and a saved result read back as the same object."""

import json

import pytest

from advisor.catalog.load import builtin_catalog
from advisor.catalog.model import Catalog
from advisor.layout import resolve
from advisor.serial import SCHEMA_VERSION, to_json
from workloads.aerospike import ActLoad, simulate_act
from workloads.mysql import MysqlParams
from workloads.mysql_run import Deployment, simulate_mysql
from workloads.results import ActSimResult, MysqlSimResult, load_simulate_result


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return builtin_catalog()


@pytest.fixture(scope="module")
def mysql(catalog: Catalog) -> MysqlSimResult:
    dep = Deployment(master=resolve("r5.large:gp3:500GiB", catalog), replica=None)
    return simulate_mysql(dep, catalog, MysqlParams(tps=200.0), tps_levels=[200.0, 2000.0],
                          duration_s=600.0, engine="analytic")


@pytest.fixture(scope="module")
def act(catalog: Catalog) -> ActSimResult:
    layout = resolve("i3.large:store", catalog)
    return simulate_act(layout, catalog, [({"x": 1.0}, ActLoad.at_x(1.0, 1))], duration_s=4.0,
                        slice_s=2.0, seed=2)


def test_mysql_result_keys(mysql: MysqlSimResult) -> None:
    """Per level: the deployment's latency and verdict and one entry per server; the knee;
    the replica's replication figures only on replicas."""
    data = to_json(mysql)
    assert (data["kind"], data["workload"], data["schema_version"]) == (
        "simulate", "mysql", SCHEMA_VERSION)
    assert set(data["knee"]) == {"tps", "saturation_tps", "text"}
    assert data["params"]["tps"] == 200.0
    level = data["levels"][0]
    assert {"load", "offered_tps", "achieved_tps", "latency_ms", "servers", "meets_slo",
            "reasons", "engine", "bottleneck"} == set(level)
    master, replica = level["servers"]
    assert (master["role"], replica["role"]) == ("master", "replica")
    assert "replication" not in master
    assert set(replica["replication"]) == {"apply_capacity_tps", "write_tps", "falls_behind",
                                           "lag_growth_s_per_s"}
    assert {"achieved_tps", "offered_tps", "cpu_utilisation", "layout", "phases"} <= set(master)
    assert "unfinished" not in master  # the event simulation's only


def test_act_result_keys(act: ActSimResult) -> None:
    """ACT's verdict on a level and on each slice is under `pass`, as ACT reports it."""
    data = to_json(act)
    assert (data["workload"], data["rating"], data["knee"]) == (
        "aerospike", {"x": 1.0, "text": "passes ACT up to 1x"}, {"x": 1.0})
    test = data["levels"][0]["act"]
    assert {"slices", "avg", "max", "pass", "derivation"} == set(test)
    assert [set(s) - {f"gt_{ms}ms_pct" for ms in (1, 2, 4, 8, 16, 32, 64)}
            for s in test["slices"]] == [{"slice", "start_s", "reads", "pass", "fails"}] * 2
    assert test["pass"] is act.levels[0].act.passed is True


@pytest.mark.parametrize("name", ["mysql", "act"])
def test_a_saved_result_reads_back_as_the_same_object(name: str,
                                                      request: pytest.FixtureRequest) -> None:
    result = request.getfixturevalue(name)
    text = json.dumps(to_json(result))
    again = load_simulate_result(json.loads(text))
    assert again == result
    assert json.dumps(to_json(again)) == text
