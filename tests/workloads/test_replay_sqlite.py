"""Replay against a real SQLite file: the out-of-the-box target of `advisor replay`."""

import json
from pathlib import Path

import pytest
from sqlalchemy import make_url

from advisor.errors import InvalidInput
from advisor.urls import mask_url
from tests.workloads.cli import run_cli
from workloads.real.db_sqlalchemy import SqlAlchemyDatabase
from workloads.real.replay import SQLITE_NOTE, ReplayConfig, open_target, run_replay

QUICK = ("--ramp", "1,2", "--duration", "0.5", "--warmup", "0.1", "--rows", "300")


@pytest.fixture(autouse=True)
def _data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ADVISOR_DATA_DIR", str(tmp_path / "data"))


def test_sqlite_replay_measures_every_step(tmp_path: Path) -> None:
    """Two closed-loop steps on a SQLite file: counts add up, no server counters, no lag."""
    target = open_target(None, [], pool_size=4, sqlite_path=tmp_path / "replay.sqlite3")
    try:
        result = run_replay(target, ReplayConfig(ramp=(1, 2), duration_s=0.5, warmup_s=0.1,
                                                 rows=500))
    finally:
        target.close()
    assert result["complete"] is True
    assert result["target"]["note"].startswith(SQLITE_NOTE)
    assert [lv["threads"] for lv in result["levels"]] == [1, 2]
    for level in result["levels"]:
        assert level["transactions"] == level["reads"] + level["writes"] > 0
        assert level["achieved_tps"] == pytest.approx(level["transactions"] / 0.5, rel=0.1)
        assert level["status_delta"] == {"master": {}, "replica": {}}
        assert level["replica_lag_s"] is None
        assert (level["failed"], level["errors"]) == (False, 0)
    assert result["io_profile"] is None


def test_prepare_inserts_only_missing_rows(tmp_path: Path) -> None:
    """prepare is idempotent: a second call adds nothing, a bigger one adds the difference."""
    db = SqlAlchemyDatabase(f"sqlite:///{tmp_path / 'kv.sqlite3'}")
    try:
        assert [db.prepare(100), db.prepare(100), db.prepare(150)] == [100, 0, 50]
        assert db.table_rows("advisor_kv") == 150
        assert db.read(140, 20) == 11  # a range read past the end finds what is there
        db.write(151, "new")  # a write to a missing row inserts it
        assert db.read(151) == 1
    finally:
        db.close()


def test_passwords_are_masked_in_urls() -> None:
    """The URL shown anywhere hides the password, in the userinfo or as a query parameter;
    an unparseable one is not echoed."""
    assert mask_url("mysql+pymysql://advisor:s3cret@db:3306/app") == (
        "mysql+pymysql://advisor:***@db:3306/app"
    )
    assert mask_url("mysql://advisor:s3/c?ret@db/app?charset=utf8&password=s3cret") == (
        "mysql://advisor:***@db/app?charset=utf8&password=***"
    )
    assert mask_url("mysql://db/app?PASSWD=s3cret&user=advisor") == (
        "mysql://db/app?PASSWD=***&user=advisor"
    )
    assert mask_url(make_url("mysql+pymysql://advisor:s3cret@db/app")) == (
        "mysql+pymysql://advisor:***@db/app"
    )
    assert mask_url("not a url s3cret") == "<unparseable database URL>"


def test_unsupported_database_is_refused_without_echoing_the_password() -> None:
    """postgresql:// is not supported; the message shows the URL masked."""
    with pytest.raises(InvalidInput, match=r"postgresql://u:\*\*\*@h/db.*not supported"):
        SqlAlchemyDatabase("postgresql://u:s3cret@h/db")


def test_cli_replay_without_url_prints_a_table_per_step() -> None:
    """`advisor replay` out of the box: SQLite, one table row per step, exit 0."""
    result = run_cli("replay", *QUICK)
    assert result.exit_code == 0, result.stderr
    assert "threads" in result.stdout
    assert "TPS" in result.stdout
    assert "embedded SQLite: master and replica are the same file" in result.stdout
    assert result.stdout.count(" ok ") == 2


def test_cli_replay_json_and_out_file(tmp_path: Path) -> None:
    """--format json prints the result; --out writes the same document."""
    out = tmp_path / "result.json"
    result = run_cli("replay", *QUICK, "--format", "json", "--out", str(out), "--seed", "5")
    assert result.exit_code == 0, result.stderr
    printed = json.loads(result.stdout)
    assert printed["kind"] == "replay"
    assert printed["seed"] == 5
    assert printed["target"]["driver"] == "sqlalchemy"
    assert len(printed["levels"]) == 2
    assert set(printed["levels"][0]["latency_ms"]) == {"transaction", "read", "write"}
    assert json.loads(out.read_text())["levels"][1]["threads"] == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--ramp", "1,x"), "error: --ramp '1,x': not a comma-separated list of numbers"),
        (("--reads", "-1"), "error: --reads -1: must be 0 or more"),
        (("--driver", "odbc"), "error: --driver 'odbc': choose sqlalchemy or sysbench"),
        (("--io-profile-out", "p.json"), "error: --io-profile-out needs a MySQL/MariaDB --master"),
        (("--replica", "mysql://a:b@h/d"), "error: --replica needs --master"),
        (("--master", "postgresql://u:s3cret@h/db"), "error: database 'postgresql://u:***@h/db'"),
        (("--driver", "sysbench"), "error: --driver sysbench needs --master"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(args: tuple[str, ...], message: str) -> None:
    """Bad input: one `error:` line on stderr, exit 2, no traceback, no password."""
    result = run_cli("replay", *args)
    assert result.exit_code == 2
    assert result.stderr.startswith(message)
    assert result.stderr.count("\n") == 1
    assert "s3cret" not in result.stderr + result.stdout
    assert "Traceback" not in result.stderr
