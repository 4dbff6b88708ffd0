"""Fixtures shared by the recommender's tests: the main job sized once per session (it takes
seconds; several modules read the same answer)."""

import pytest

from advisor.catalog.load import builtin_catalog
from advisor.catalog.model import Catalog
from recommend.request import MysqlSizeRequest
from recommend.result import MysqlSizeResult
from recommend.size import size_mysql

MAIN_JOB = MysqlSizeRequest(tps=627, reads=3.25)


@pytest.fixture(scope="session")
def main_job_sized() -> MysqlSizeResult:
    """`advisor size --tps 627 --reads 3.25` on the built-in catalog."""
    return size_mysql(MAIN_JOB, builtin_catalog())


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return builtin_catalog()


# How far below its own p99 `optimistic_screen` puts the screen's: enough that the latency-bound
# request (--data-gb 500 --p99-ms 4.5) sends the event simulation candidates it rejects. Until
# 2026-11-29 the screen itself was that optimistic there (up to 34 % low for masters behind a
# replica, 78 rejections in that sizing); since sums keep their tails it rejects few. The p99
# floor still refuses what no queue rescues. 0.6 until 2026-11-30 (seventeenth session): with the
# RAID 0 masters' screen within 10 % of the event simulation (a member carrying a log takes its
# writes whole), a screen 40 % low sends every cheap RAID 0 master there: 99 candidates checked
# and 160 rejected with the runs shared, and over the search's bound of 100 without them (at
# 0.7 too). At 0.75: 37 checked with the runs shared, 50 without, 45 rejected, the same answer.
OPTIMISM = 0.75


@pytest.fixture
def optimistic_screen(monkeypatch: pytest.MonkeyPatch) -> None:
    """The screen's p99 (usual and over weeks) x OPTIMISM, so that the event simulation does
    the rejecting: what the search's sharing of event-simulation runs between alike candidates
    is for."""
    from dataclasses import replace

    from advisor.sim.analytic.engine import SteadyState
    from advisor.sim.plan import SimPlan
    from recommend import mysql_search as ms
    from workloads.mysql import MysqlServer

    real = ms.evaluate

    def evaluate(plan: SimPlan, server: MysqlServer, req: MysqlSizeRequest) -> SteadyState:
        st = real(plan, server, req)
        return replace(st, p99_s=st.p99_s * OPTIMISM)

    real_long_run = ms.long_run

    def long_run(plan: SimPlan, server: MysqlServer,
                 req: MysqlSizeRequest) -> "ms.LongRun | None":
        weeks = real_long_run(plan, server, req)
        return None if weeks is None else replace(weeks, p99_s=weeks.p99_s * OPTIMISM)

    monkeypatch.setattr(ms, "evaluate", evaluate)
    monkeypatch.setattr(ms, "long_run", long_run)
