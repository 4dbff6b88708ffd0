"""The searches run their event-simulation replications side by side (`advisor.sim.parallel`)
where a run is certain to be needed; the answer is the same to the bit as on one thread, and
the replications kept for a later run are the same ones."""

import json
from typing import Any

import pytest

from advisor.serial import to_json
from advisor.sim import parallel
from advisor.userfiles import load_catalog
from recommend.request import size_request
from recommend.run import run_size

CATALOG = load_catalog(use_env=False)


def _answer(result: Any) -> dict[str, Any]:
    data = json.loads(json.dumps(to_json(result)))
    data.pop("search")
    return data


def _sized(monkeypatch: pytest.MonkeyPatch, threads: str, request: dict[str, Any]
           ) -> tuple[dict[str, Any], dict[str, Any], int]:
    monkeypatch.setenv(parallel.THREADS_ENV, threads)
    calls = 0
    real = parallel.side_by_side

    def counted(tasks: Any) -> Any:
        nonlocal calls
        calls += len(tasks) > 1
        return real(tasks)

    for where in ("recommend.mysql_search", "recommend.aerospike_search", "workloads.aerospike"):
        monkeypatch.setattr(f"{where}.side_by_side", counted)
    memo: dict[str, Any] = {}
    answer = _answer(run_size(size_request(request), CATALOG, memo=memo))
    return answer, json.loads(json.dumps(memo)), calls


@pytest.mark.parametrize("request_", [
    {"workload": "mysql", "tps": 300, "reads": 3.25, "data_gb": 50},
    {"workload": "aerospike", "reads_per_sec": 20000, "writes_per_sec": 10000, "data_gb": 400,
     "storage": "ebs"},
], ids=["mysql", "aerospike-ebs"])
def test_the_answer_on_two_threads_is_the_answer_on_one(
        monkeypatch: pytest.MonkeyPatch, request_: dict[str, Any]) -> None:
    one, memo_one, _ = _sized(monkeypatch, "1", request_)
    two, memo_two, batches = _sized(monkeypatch, "2", request_)
    assert batches > 0  # replications did run side by side
    assert two == one
    assert memo_two == memo_one
