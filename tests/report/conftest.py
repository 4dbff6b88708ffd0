"""Results to render (stored fixtures and small live runs), the page-text extractor and the
Chromium probe for the report tests."""

import json
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from advisor.catalog.model import Catalog
from advisor.userfiles import load_catalog
from tests.conftest import require

GOLDEN = Path(__file__).parent / "golden"
BLOCK_TAGS = {"p", "div", "section", "h1", "h2", "h3", "li", "tr", "pre", "figcaption", "table",
              "header", "footer", "title"}


def fixture(name: str) -> dict[str, Any]:
    return json.loads((GOLDEN / name).read_text("utf-8"))


class _Text(HTMLParser):
    """Visible text outside <style> and <svg>, one line per block element."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = [""]
        self.skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("style", "svg"):
            self.skip += 1
        elif tag in BLOCK_TAGS or tag in ("td", "th", "br"):
            self.lines.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("style", "svg"):
            self.skip -= 1

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.lines[-1] += data


def page_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    lines = (" ".join(line.split()) for line in parser.lines)
    return "\n".join(line for line in lines if line) + "\n"


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return load_catalog(use_env=False)


@pytest.fixture(scope="session")
def size_result(catalog: Catalog) -> dict[str, Any]:
    """`advisor size --tps 627 --reads 3.25` (seed 1), run live: the result this code makes."""
    from advisor.serial import to_json
    from recommend.request import MysqlSizeRequest
    from recommend.run import run_size

    return to_json(run_size(MysqlSizeRequest(tps=627, reads=3.25), catalog))  # type: ignore[no-any-return]


@pytest.fixture(scope="session")
def pattern_result() -> dict[str, Any]:
    """fio randrw 75 % reads, 4 KiB, iodepth 1, 8, 64 on gp2 385 GiB, 20 s a level, seed 7."""
    return fixture("simulate_gp2_seed7.json")


@pytest.fixture(scope="session")
def replay_result() -> dict[str, Any]:
    return fixture("replay_sqlite.json")


@pytest.fixture(scope="session")
def mysql_result(catalog: Catalog) -> dict[str, Any]:
    """Its JSON, as a report reads it from a file or a stored run."""
    from advisor.layout import resolve
    from advisor.serial import to_json
    from workloads.mysql import MysqlParams
    from workloads.simulate import run_mysql

    return to_json(run_mysql(
        resolve("r5.large:gp3:500GiB", catalog), catalog,
        params=MysqlParams(tps=627, reads_per_write=3.25, replicas=1, data_gb=4),
        replica_layout=None, measured=None, p99_ms=10, ramp="tps=200,627,1500",
        duration=10, engine="auto", seed=3, progress=None))


@pytest.fixture(scope="session")
def act_result(catalog: Catalog) -> dict[str, Any]:
    """Its JSON, as a report reads it from a file or a stored run."""
    from advisor.layout import resolve
    from advisor.serial import to_json
    from workloads.simulate import run_aerospike

    return to_json(run_aerospike(
        resolve("i3.large:store", catalog), catalog, x=None, ramp="x=1,4", reads_per_sec=None,
        writes_per_sec=None, record_bytes=1536, replication_factor=1, update_pct=0,
        defrag_lwm_pct=50, duration=6, slice_s=2, seed=5, progress=None))


@pytest.fixture(scope="session")
def chromium() -> str:
    """Path of a Chromium that can take a headless screenshot."""
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    require("chromium", path is not None, "not on PATH: install the Debian package chromium")
    assert path is not None
    probe = subprocess.run([path, "--version"], capture_output=True, text=True, check=False)
    require("chromium", probe.returncode == 0, f"`{path} --version` failed: {probe.stderr[:200]}")
    return path
