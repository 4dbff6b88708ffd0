"""The Aerospike verdict cache between CLI runs: read and written through the user-file helpers,
and a cache file that is not a JSON object is an empty cache, never a crash."""

from pathlib import Path

import pytest

from advisor.cli import verify_memo as vm


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ADVISOR_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_verdicts_written_are_read_back(folder: Path) -> None:
    with vm.verify_memo() as memo:
        assert memo == {}
        memo["k"] = {"passed": True}
    with vm.verify_memo() as memo:
        assert memo == {"k": {"passed": True}}
    assert [p.suffix for p in folder.iterdir()] == [".json"]  # no temporary left behind


@pytest.mark.parametrize("content", ["[]", "not json", "", '"text"'])
def test_a_cache_that_is_not_an_object_is_empty(folder: Path, content: str) -> None:
    with vm.verify_memo() as memo:
        assert memo is not None
        memo["k"] = 1
    (path,) = folder.iterdir()
    path.write_text(content)
    with vm.verify_memo() as memo:
        assert memo == {}
        memo["k"] = 2
    with vm.verify_memo() as memo:
        assert memo == {"k": 2}


def test_an_empty_setting_keeps_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ADVISOR_CACHE_DIR", "")
    with vm.verify_memo() as memo:
        assert memo is None


def test_the_file_name_stamps_the_model_s_sources_without_importing_them() -> None:
    """A MySQL sizing's cache is stamped by the simulator, the MySQL model and search sources;
    an Aerospike one's by the simulator and Aerospike's. Finding them imports nothing (a MySQL
    sizing need not load the Aerospike search: ~0.09 s)."""
    import subprocess
    import sys

    probe = ("import sys\nfrom advisor.cli import verify_memo as vm\n"
             "print(vm._code_fingerprint('mysql'), vm._code_fingerprint('aerospike'))\n"
             "print(sorted(m for m in sys.modules if m.startswith(('recommend.', 'workloads.'))))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, timeout=120).stdout.splitlines()
    mysql, aerospike = out[0].split()
    assert mysql != aerospike
    assert len(mysql) == len(aerospike) == 16
    assert "recommend.aerospike_search" not in out[1]
    assert "recommend.mysql_search" not in out[1]
    assert vm._source("recommend.mysql_search").name == "mysql_search.py"
