"""A local Dask cluster's workers share the CPUs for their event-simulation runs
(`advisor.sim.parallel`): each gets CPUs // workers threads, not every CPU each, unless the user
set ADVISOR_SIM_THREADS."""

from typing import Any

import pytest

pytest.importorskip("distributed")

from advisor import fleet_run
from advisor.sim import parallel


def _cluster_env(monkeypatch: pytest.MonkeyPatch, workers: int) -> dict[str, str]:
    import distributed

    seen: dict[str, Any] = {}

    class Cluster:
        def __init__(self, **kwargs: Any) -> None:
            seen.update(kwargs)

        def close(self) -> None:
            pass

    class Client:
        def __init__(self, cluster: Any) -> None:
            pass

        def close(self) -> None:
            pass

    monkeypatch.setattr(distributed, "LocalCluster", Cluster)
    monkeypatch.setattr(distributed, "Client", Client)
    with fleet_run.dask_client(fleet_run.Where(workers=workers)):
        pass
    assert seen["n_workers"] == workers
    env: dict[str, str] = seen["env"]
    return env


def test_each_local_worker_gets_its_share_of_the_cpus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(parallel.THREADS_ENV, raising=False)
    monkeypatch.setattr(fleet_run, "cpus", lambda: 8)
    assert _cluster_env(monkeypatch, 2) == {parallel.THREADS_ENV: "4"}
    assert _cluster_env(monkeypatch, 8) == {parallel.THREADS_ENV: "1"}
    assert _cluster_env(monkeypatch, 12) == {parallel.THREADS_ENV: "1"}


def test_a_thread_count_the_user_set_stands(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(parallel.THREADS_ENV, "3")
    assert _cluster_env(monkeypatch, 2) == {parallel.THREADS_ENV: "3"}
