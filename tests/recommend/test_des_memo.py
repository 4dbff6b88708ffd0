"""MySQL sizing keeps its event-simulation replications between runs (`run_size(memo=...)`; the
CLI's file in the user's cache directory): a run that finds them all gives the same answer to
the bit and runs no simulation; an entry is keyed by all it depends on."""

import json
from typing import Any

import pytest

from advisor.serial import to_json
from advisor.userfiles import load_catalog
from recommend.request import size_request
from recommend.run import run_size

CATALOG = load_catalog(use_env=False)


def _answer(result: Any) -> dict[str, Any]:
    data = json.loads(json.dumps(to_json(result)))
    data.pop("search")
    return data


def test_a_second_run_from_the_memo_is_the_same_answer_without_a_simulation(
        monkeypatch: pytest.MonkeyPatch) -> None:
    req = size_request({"workload": "mysql", "tps": 300, "reads": 3.25, "data_gb": 50})
    memo: dict[str, Any] = {}
    first = _answer(run_size(req, CATALOG, memo=memo))
    assert memo
    stored = json.loads(json.dumps(memo))  # as the cache file holds it

    def no_simulation(*_: Any, **__: Any) -> None:
        raise AssertionError("the event simulation ran though the memo held the replication")

    monkeypatch.setattr("advisor.sim.des.run_des", no_simulation)
    assert _answer(run_size(req, CATALOG, memo=stored)) == first
    # Another seed is another replication: nothing of the memo applies.
    other = size_request({"workload": "mysql", "tps": 300, "reads": 3.25, "data_gb": 50,
                          "seed": 2})
    with pytest.raises(AssertionError, match="the event simulation ran"):
        run_size(other, CATALOG, memo=stored)


def test_a_memo_entry_that_does_not_fit_is_run_again() -> None:
    from recommend.mysql_search import _replication_from_json

    good = {"bins": [3, 7], "counts": [2, 1], "n": 3, "total_s": 0.01, "max_s": 0.005,
            "background_lag_s": 0.0}
    assert _replication_from_json(good).latency.n == 3
    for bad in ({**good, "n": 4}, {**good, "bins": [3, 10**9]}, {**good, "counts": [1]}):
        with pytest.raises(ValueError, match="memo entry"):
            _replication_from_json(bad)
