"""A threads ramp searches each level's closed-loop rate on the analytic engine: every thread
count starts from the same rates, so each rate is evaluated once for the whole ramp (it was
evaluated again for every count), with the same answer as searching each count alone."""

from collections import Counter
from typing import Any

import pytest

from advisor.catalog.load import builtin_catalog
from advisor.catalog.model import Catalog
from advisor.layout import resolve
from workloads import mysql_run
from workloads.mysql import MysqlParams
from workloads.mysql_run import Deployment, simulate_mysql, thread_split


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return builtin_catalog()


def test_each_rate_of_a_threads_ramp_is_evaluated_once(catalog: Catalog,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    dep = Deployment(master=resolve("r5.large:gp3:500GiB", catalog),
                     replica=resolve("r5.large:gp3:500GiB", catalog))
    params = MysqlParams(tps=100, data_gb=4)
    alone = [thread_split(dep, catalog, params, n) for n in (1, 4, 16)]

    evaluated: Counter[float] = Counter()
    original = mysql_run.simulate_mysql

    def counting(*args: Any, **kwargs: Any) -> Any:
        if not kwargs.get("threads_levels"):
            evaluated[kwargs["tps_levels"][0]] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(mysql_run, "simulate_mysql", counting)
    result = simulate_mysql(dep, catalog, params, threads_levels=[1, 4, 16], duration_s=1.0,
                            engine="analytic", warmup_s=0.0)
    assert evaluated
    assert max(evaluated.values()) == 1, evaluated.most_common(3)
    assert [lv.offered_tps for lv in result.levels] == [tps for tps, _ in alone]
    assert [lv.load["threads"] for lv in result.levels] == [1, 4, 16]
