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
