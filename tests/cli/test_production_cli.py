"""`size --from-mysql-status`, `size --terraform/--mycnf` and `export terraform` on the command
line: what they write, and bad input as one line with exit 2 and nothing written."""

import json
from pathlib import Path
from typing import Any

import pytest

from advisor.userfiles import load_catalog
from tests.cli_helpers import run
from workloads.mysql import dedicated_buffer_pool_gib

STATUS = Path(__file__).parent.parent / "workloads" / "fixtures" / "mysql_status"
RESULT = {"kind": "size", "workload": "mysql", "request": {"tps": 627, "reads": 3.25},
          "recommendation": {"deployment": "master c5.large:raid0:2xgp3:60GiB",
                             "master": "c5.large:raid0:2xgp3:60GiB", "replicas": []},
          "io_model": [{"role": "master", "buffer_pool_gib": 2.0, "redo_log_mib": 1024.0,
                        "io_capacity_max": 2000}]}
FILES = {"main.tf", "variables.tf", "outputs.tf", "cloud-init-master.sh", "my.cnf.master"}


@pytest.fixture
def result_file(tmp_path: Path) -> Path:
    path = tmp_path / "result.json"
    path.write_text(json.dumps(RESULT))
    return path


def test_export_terraform_writes_the_directory(capsys: pytest.CaptureFixture[str],
                                               result_file: Path, tmp_path: Path) -> None:
    code, out, err = run(capsys, "export", "terraform", str(result_file), "-o",
                         str(tmp_path / "tf"), "--mycnf", str(tmp_path / "my.cnf"))
    assert code == 0, err
    assert {p.name for p in (tmp_path / "tf").iterdir()} == FILES
    assert (tmp_path / "my.cnf").read_text() == (tmp_path / "tf" / "my.cnf.master").read_text()
    assert "wrote" in out


def test_a_directory_that_is_not_empty_is_refused_untouched(
        capsys: pytest.CaptureFixture[str], result_file: Path, tmp_path: Path) -> None:
    target = tmp_path / "tf"
    target.mkdir()
    (target / "main.tf").write_text("keep me")
    code, _, err = run(capsys, "export", "terraform", str(result_file), "-o", str(target))
    assert code == 2
    assert err.strip().count("\n") == 0
    assert "exists and is not empty (--force writes into it)" in err
    assert [p.name for p in target.iterdir()] == ["main.tf"]
    assert (target / "main.tf").read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["result.json", "tf"]  # no temporary
    code, _, err = run(capsys, "export", "terraform", str(result_file), "-o", str(target),
                       "--force")
    assert code == 0, err
    assert {p.name for p in target.iterdir()} == FILES
    assert sorted(p.name for p in tmp_path.iterdir()) == ["result.json", "tf"]


@pytest.mark.parametrize(("content", "message"), [
    ({"kind": "replay"}, "a size result is needed, this is kind 'replay'"),
    ({**RESULT, "workload": "aerospike"}, "for MySQL results only"),
    ("[1]", "a size result is a JSON object"),
])
def test_a_file_that_is_no_mysql_size_result_is_refused(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, content: Any, message: str) -> None:
    path = tmp_path / "r.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    code, _, err = run(capsys, "export", "terraform", str(path), "-o", str(tmp_path / "tf"))
    assert code == 2
    assert message in err
    assert not (tmp_path / "tf").exists()


def test_a_terraform_path_that_is_a_file_is_refused(capsys: pytest.CaptureFixture[str],
                                                   result_file: Path) -> None:
    code, _, err = run(capsys, "export", "terraform", str(result_file), "-o", str(result_file))
    assert code == 2
    assert "exists and is not a directory" in err


def test_size_refuses_status_dumps_in_the_wrong_order_before_any_work(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "size", "--from-mysql-status", str(STATUS / "after.tsv"),
                       str(STATUS / "before.tsv"))
    assert code == 2
    assert "Uptime went down (267 -> 258 s): the server restarted" in err


@pytest.mark.parametrize(("argv", "message"), [
    (["--from-mysql-status", str(STATUS / "variables.tsv"), str(STATUS / "after.tsv")],
     "not a SHOW GLOBAL STATUS dump"),
    (["--from-mysql-status", str(STATUS / "before.tsv"), str(STATUS / "after.tsv"),
      "--variables", str(STATUS / "before.tsv")], "not a SHOW VARIABLES dump"),
    (["--variables", str(STATUS / "variables.tsv")], "goes with --from-mysql-status"),
    (["--from-mysql-status", "nope.txt", str(STATUS / "after.tsv")], "status dump not found"),
    (["--workload", "aerospike", "--reads-per-sec", "10", "--terraform", "tfdir"],
     "applies to the mysql workload only"),
])
def test_size_bad_production_input_is_one_line(capsys: pytest.CaptureFixture[str],
                                               argv: list[str], message: str) -> None:
    code, _, err = run(capsys, "size", *argv)
    assert code == 2
    assert message in err
    assert err.strip().count("\n") == 0


@pytest.mark.slow
def test_size_from_status_dumps_sizes_what_they_show(capsys: pytest.CaptureFixture[str],
                                                     tmp_path: Path) -> None:
    """The dumps give tps, reads and the server; --reads typed overrides; the measured profile
    is the sizing's I/O; --terraform and --mycnf write the my.cnf the io_model assumed."""
    code, out, err = run(capsys, "size", "--from-mysql-status", str(STATUS / "before.tsv"),
                         str(STATUS / "after.tsv"), "--variables", str(STATUS / "variables.tsv"),
                         "--reads", "3", "--format", "json", "--terraform",
                         str(tmp_path / "tf"), "--mycnf", str(tmp_path / "my.cnf"))
    assert code == 0, err
    data = json.loads(out)  # the "wrote ..." lines go to stderr beside JSON
    derived = data["from_mysql_status"]
    assert data["request"]["tps"] == derived["tps"] == pytest.approx(195.67, abs=0.01)
    assert data["request"]["reads"] == 3  # typed: overrides the dumps' 3.28
    assert derived["reads_per_write"] == pytest.approx(3.28, abs=0.01)
    assert data["request"]["server"] == "mariadb-10.11"
    assert data["io_profile"].startswith("measured")
    # A measured profile's io_model states no buffer pool (0): the my.cnf has the model's rule
    # for the instance's memory, and the redo size SHOW VARIABLES gave (48 MiB).
    instance = load_catalog(use_env=False).instance_types[
        data["recommendation"]["master"].split(":")[0]]
    cnf = (tmp_path / "my.cnf").read_text()
    bp_mib = round(dedicated_buffer_pool_gib(instance.memory_gib) * 1024)
    assert f"innodb_buffer_pool_size = {bp_mib}M" in cnf
    assert "innodb_log_file_size = 48M" in cnf
    assert "main.tf" in {p.name for p in (tmp_path / "tf").iterdir()}


CLOUDWATCH = Path(__file__).parent.parent / "workloads" / "fixtures" / "cloudwatch"


def test_size_from_cloudwatch_prints_the_demand_and_the_layouts(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys, "size", "--from-cloudwatch",
                         str(CLOUDWATCH / "ebs-raid0-2-volumes.json"), "--instance", "m5.xlarge",
                         "--current-layout", "m5.xlarge:raid0:2xgp3:100GiB", "--format", "json",
                         "--out", str(tmp_path / "fit.json"))
    assert code == 0, err
    data = json.loads(out)
    assert data == json.loads((tmp_path / "fit.json").read_text())
    assert data["demand"]["period_s"] == 300
    assert len(data["demand"]["per_sample"]) == 72  # the demand of every sample, oldest first
    assert data["demand"]["per_sample"][0]["at"] == "2026-11-20T12:00:00+00:00"
    assert data["demand"]["p99_sample"]["read_kib"] == pytest.approx(16.0, rel=1e-3)
    rec, current = data["recommendation"], data["current"]
    assert rec["fits"]
    assert rec["layout"].startswith("m5.xlarge:")
    assert max(rec["read_p99_ms"], rec["write_p99_ms"]) <= 10
    assert current["layout"] == "m5.xlarge:raid0:2xgp3:100GiB"
    assert rec["monthly_usd"] <= current["monthly_usd"] or not current["fits"]


@pytest.mark.parametrize(("argv", "message"), [
    (["--from-cloudwatch", str(CLOUDWATCH / "rds.json")], "give --instance TYPE"),
    (["--from-cloudwatch", str(CLOUDWATCH / "rds.json"), "--instance", "x9.huge"],
     "x9.huge is not in the catalog"),
    (["--from-cloudwatch", str(STATUS / "replay-level.json"), "--instance", "m5.large"],
     "no MetricDataResults"),
    (["--from-cloudwatch", str(CLOUDWATCH / "rds.json"), "--instance", "m5.large",
      "--terraform", "tf"], "sizes storage alone: not with --terraform"),
    (["--instance", "m5.large"], "goes with --from-cloudwatch"),
    (["--from-cloudwatch", str(CLOUDWATCH / "rds.json"), "--instance", "m5.large", "--tps",
      "627"], "--tps 627: does not apply to --from-cloudwatch"),
    (["--from-cloudwatch", str(CLOUDWATCH / "rds.json"), "--instance", "m5.large",
      "--headroom", "0.5"], "--headroom 0.5: does not apply to --from-cloudwatch"),
])
def test_size_bad_cloudwatch_input_is_one_line(capsys: pytest.CaptureFixture[str],
                                               argv: list[str], message: str) -> None:
    code, _, err = run(capsys, "size", *argv)
    assert code == 2
    assert message in err
    assert err.strip().count("\n") == 0


def test_status_dumps_and_an_io_profile_are_not_given_together(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "size", "--from-mysql-status", str(STATUS / "before.tsv"),
                       str(STATUS / "after.tsv"), "--io-profile", str(tmp_path / "io.json"))
    assert code == 2
    assert "measures the I/O per transaction too: give one of them" in err


def test_a_shape_the_dumps_do_not_show_is_named_with_the_flag_that_matches() -> None:
    """Replay's writes are one autocommitted UPDATE; point-rw's read-write transaction has 4
    write statements."""
    from advisor.cli.size_sources import status_options

    paths = (STATUS / "before.tsv", STATUS / "after.tsv")
    _, workload = status_options(paths, None, {"preset": "point-rw"})
    assert any("1.00 write statements per read-write transaction (autocommitted); the sizing "
               "shape (point-rw) has 4: set the shape to match (e.g. --write-txn "
               "update=1,autocommit)" in n for n in workload.notes)
    _, matched = status_options(paths, None, {"write_txn": "update=1,autocommit"})
    assert not any("set the shape to match" in n for n in matched.notes)
