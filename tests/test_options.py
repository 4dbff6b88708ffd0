"""Options declared once: the request types check every declared bound, name the field in
domain terms, parse text options, and refuse options of another workload; the CLI and the API
name the same field their own way."""

import math

import pytest

from advisor.cli.main import main
from advisor.options import FieldError
from recommend.request import AerospikeSizeRequest, MysqlSizeRequest, size_fields, size_request
from workloads.simulate_request import (
    MysqlSimRequest,
    PatternSimRequest,
    simulate_fields,
    simulate_request,
)


@pytest.mark.parametrize(("values", "field", "problem"), [
    ({"tps": 0}, "tps", "must be positive"),
    ({"tps": 2e7}, "tps", "at most 10,000,000"),
    ({"tps": math.nan}, "tps", "must be a finite number"),
    ({"headroom": -1}, "headroom", "must be 0 or more"),
    ({"peak_hours": 25}, "peak_hours", "at most 24"),
    ({"replicas": "many"}, "replicas", "a whole number or auto"),
    ({"replicas": 9}, "replicas", "must be 0..8 or auto"),
    ({"workload": "postgres"}, "workload", "choose mysql or aerospike"),
    ({"workload": "aerospike", "tps": 5}, "tps", "applies to the mysql workload only"),
    ({"workload": "aerospike", "reads_per_sec": 1, "replicas": "2"}, "replicas",
     "applies to the mysql workload only"),
    ({"workload": "aerospike"}, "reads_per_sec", "aerospike needs reads and/or writes"),
    ({"catalog": "/etc/passwd"}, "catalog", "unknown option"),
])
def test_size_values_are_checked_once_in_domain_terms(values: dict[str, object], field: str,
                                                      problem: str) -> None:
    """A bad size value raises FieldError naming the field, not a flag."""
    with pytest.raises(FieldError, match=problem) as caught:
        size_request(values)
    assert caught.value.name == field
    assert not str(caught.value).startswith("--")


def test_text_options_parse_the_same_from_the_cli_and_json() -> None:
    """`--replicas auto` and JSON "auto" are None (the search chooses); "2" and 2 are 2."""
    assert isinstance(size_request({"replicas": "auto"}), MysqlSizeRequest)
    assert size_request({"replicas": "auto"}).replicas is None  # type: ignore[union-attr]
    assert size_request({"replicas": "2"}) == size_request({"replicas": 2})
    req = size_request({"workload": "aerospike", "writes_per_sec": 10})
    assert isinstance(req, AerospikeSizeRequest)


@pytest.mark.parametrize(("values", "field", "problem"), [
    ({"spec": "m5d.large:gp2:385GiB", "bs": "1000000t"}, "bs", "at most 1 GiB a block"),
    ({"spec": "m5d.large:gp2:385GiB", "size": "lots"}, "size", "not a size like"),
    ({"spec": "m5d.large:gp2:385GiB", "ramp": ""}, "ramp", "write iodepth=1,2,4"),
    ({"spec": "m5d.large:gp2:385GiB", "ramp": "tps=100"}, "ramp", "write iodepth=1,2,4"),
    ({"spec": "m5d.large:gp2:385GiB", "workload": "mysql", "ramp": "x=1"}, "ramp",
     "write tps=100,200,400"),
    ({"spec": "m5d.large:gp2:385GiB", "warmup": 10, "duration": 10}, "warmup",
     "below the duration"),
    ({"spec": "m5d.large:gp2:385GiB", "workload": "mysql", "replica_layout": " "},
     "replica_layout", "empty"),
    ({"spec": "m5d.large:gp2:385GiB", "workload": "mysql", "rw": "write"}, "rw",
     "does not apply to a mysql simulation"),
    ({"spec": "m5d.large:gp2:385GiB", "sync_binlog": 0}, "sync_binlog",
     "does not apply to a raw pattern simulation"),
    ({"spec": "m5d.large:gp2:385GiB", "workload": "aerospike", "slice": 1e-9}, "slice",
     "at most 1,000 slices a level"),
    ({"spec": "x" * 300}, "spec", "too long"),
    ({"spec": "m5d.large:gp2:385GiB", "ramp": "iodepth=1e400"}, "ramp", "finite numbers"),
    ({"spec": "m5d.large:gp2:385GiB", "ramp": "rate=1e12"}, "ramp",
     "rate 1000000000000: at most 1,000,000,000"),
    ({"spec": "i3.large:store", "workload": "aerospike", "ramp": "x=1e6"}, "ramp",
     "x 1000000: at most 1,000"),
    ({"spec": "r5.large:gp3:500GiB", "workload": "mysql", "ramp": "tps=2e9"}, "ramp",
     "tps 2000000000: at most 1,000,000,000"),
    ({"spec": "i3.large:store", "workload": "aerospike", "duration": 90000}, "duration",
     "at most 86,400 s"),
    ({"spec": "i3.large:store", "workload": "aerospike", "engine": "analytic"}, "engine",
     "need the event simulation"),
    ({"spec": "i3.large:store", "workload": "aerospike", "x": 1, "reads_per_sec": 10}, "x",
     "not both"),
    ({"spec": "m5d.large:gp2:385GiB", "pattern": "ioping", "rw": "randwrite"}, "rw",
     "is a fio option; this run is ioping"),
    ({"spec": "m5d.large:gp2:385GiB", "file_test_mode": "rndrd", "iodepth": 4}, "iodepth",
     "is a fio option; this run is sysbench"),
    ({"spec": "m5d.large:gp2:385GiB", "threads": 4}, "threads",
     "is a sysbench option; this run is fio"),
    ({"spec": "m5d.large:gp2:385GiB", "pattern": "ioping", "file_test_mode": "rndrd"},
     "file_test_mode", "not both"),
])
def test_simulate_values_are_checked_once(values: dict[str, object], field: str,
                                          problem: str) -> None:
    with pytest.raises(FieldError, match=problem) as caught:
        simulate_request(values)
    assert caught.value.name == field


def test_a_pattern_and_a_mysql_request_are_their_own_types() -> None:
    assert isinstance(simulate_request({"spec": "m5d.large:gp2:385GiB"}), PatternSimRequest)
    mysql = simulate_request({"spec": "r5.large:gp3:500GiB", "workload": "mysql",
                              "preset": "sysbench-oltp-rw"})
    assert isinstance(mysql, MysqlSimRequest)
    assert mysql.reads_per_write == 0.0  # the preset's ratio, --reads not given
    assert simulate_request({"spec": "r5.large:gp3:500GiB", "workload": "mysql",
                             "reads": 1}).reads_per_write == 1


def test_every_declared_option_is_a_cli_flag_and_an_api_field() -> None:
    """One declaration each: the generated typer commands and API bodies carry every option,
    with the declared default."""
    from api.models import SimulateBody, SizeBody

    for body, decls in ((SizeBody, size_fields()), (SimulateBody, simulate_fields())):
        fields = body.model_fields
        for name, d in decls.items():
            assert name in fields, name
            if not d.opt.argument and d.opt.api_type is None:
                assert fields[name].default == d.default, name


def test_the_cli_and_the_api_name_the_field_their_own_way(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The same FieldError reads `--data-gb 0: ...` on the command line."""
    assert main(["size", "--data-gb", "0"]) == 2
    assert capsys.readouterr().err.strip() == "error: --data-gb 0: must be positive"
    with pytest.raises(FieldError) as caught:
        size_request({"data_gb": 0})
    assert caught.value.named(caught.value.name) == "data_gb 0: must be positive"


def test_a_reproduce_command_keeps_every_digit() -> None:
    """Floats are written as they round-trip, never rounded to six digits."""
    from advisor.report.commands import size_command

    command = size_command(size_request({"tps": 1234567.8, "headroom": 0.3333333,
                                         "max_monthly_usd": 1234.5678}))
    assert "--tps 1234567.8" in command
    assert "--headroom 0.3333333" in command
    assert "--max-monthly-usd 1234.5678" in command


def test_the_positional_spec_is_named_as_the_cli_shows_it(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "x" * 300]) == 2
    assert capsys.readouterr().err.startswith("error: SPEC 'xxx")


def test_a_huge_number_gets_one_line_not_a_crash(capsys: pytest.CaptureFixture[str]) -> None:
    """A 401-digit seed cannot be shown as a float: the message says how long it is."""
    assert main(["size", "--seed", "1" + "0" * 400]) == 2
    assert capsys.readouterr().err.strip() == (
        "error: --seed a 401-digit number: at most 9,223,372,036,854,775,807")


def test_a_result_without_a_recorded_request_keeps_its_transaction_shape() -> None:
    """Results made before requests were recorded rebuild their command from `params`,
    transaction shape included."""
    from advisor.report.commands import simulate_command

    old = {"kind": "simulate", "workload": "mysql", "layout": "r5.large:gp3:500GiB",
           "params": {"tps": 400.0, "reads_per_write": 2.0, "replicas": 1, "data_gb": 40.0,
                      "sync_binlog": 0, "write_rows": 2, "row_bytes": 190},
           "deployment": {"replicas": ["r5.large:gp3:500GiB"]}, "slo": {"p99_ms": 10.0},
           "levels": [{"load": {"tps": 400.0}}], "duration_s": 5.0, "engine": ["des"],
           "seed": 1}
    command = simulate_command(old)
    assert "--write-txn update=2" in command
    assert "--sync-binlog 0" in command
    assert "--row-bytes" not in command  # its default


# -- replay and calibrate: their options declared once too -----------------------------------


@pytest.mark.parametrize(("cls", "values", "field", "problem"), [
    ("replay", {"reads": -1}, "reads", "must be 0 or more"),
    ("replay", {"duration": 0}, "duration", "must be positive"),
    ("replay", {"ramp": "1,x"}, "ramp", "not a comma-separated list of numbers"),
    ("replay", {"ramp": "1,2", "rate": "10,20,30"}, "ramp", "2 values and rate 3"),
    ("replay", {"ramp": "2000"}, "ramp", "at most 1,024"),
    ("replay", {"driver": "odbc"}, "driver", "choose sqlalchemy or sysbench"),
    ("replay", {"rows": 10**10}, "rows", "at most 100,000,000"),
    ("calibrate", {"time": 0}, "time", "must be at least 1"),
    ("calibrate", {"threads": "1,5000"}, "threads", "at most 1,024"),
    ("calibrate", {"size": "lots"}, "size", "not a size like 4k"),
    ("calibrate", {"block_size": ""}, "block_size", "not a size like 4k"),
    ("calibrate", {"path": " "}, "path", "empty: give the directory to measure"),
])
def test_replay_and_calibrate_values_are_checked_once_in_domain_terms(
        cls: str, values: dict[str, object], field: str, problem: str) -> None:
    from workloads.real.requests import CalibrateRequest, ReplayRequest

    with pytest.raises(FieldError, match=problem) as caught:
        (ReplayRequest if cls == "replay" else CalibrateRequest)(**values)  # type: ignore[arg-type]
    assert caught.value.name == field
    assert not str(caught.value).startswith("--")


def test_every_replay_and_calibrate_option_is_a_cli_flag_with_its_declared_default() -> None:
    """The typer commands are generated from the declarations: each declared option is a
    parameter of the command, under its flag, with the declared default."""
    import typer.main

    from advisor.cli.main import app
    from workloads.real.requests import calibrate_fields, replay_fields

    group = typer.main.get_command(app)
    for command, decls in (("replay", replay_fields()), ("calibrate", calibrate_fields())):
        params = {p.name: p for p in group.commands[command].params}  # type: ignore[attr-defined]
        for name, d in decls.items():
            assert name in params, name
            assert d.flag in params[name].opts, name
            default = params[name].default
            assert (list(default) if isinstance(default, tuple) else default) == d.default, name


def test_the_run_configurations_take_their_defaults_and_bounds_from_the_declarations() -> None:
    """`ReplayConfig` and `CalibrationPlan` (what a core caller builds) start from the declared
    defaults and refuse what the declarations refuse, named the same way."""
    from pathlib import Path

    from workloads.real.calibrate import CalibrationPlan
    from workloads.real.replay_setup import ReplayConfig
    from workloads.real.requests import CalibrateRequest, ReplayRequest

    assert ReplayRequest().config() == ReplayConfig()
    req = CalibrateRequest(path="/data")
    plan = CalibrationPlan(path=Path("/data"), name="disk")
    assert (plan.time_s, plan.threads) == (req.time, req.thread_counts)
    with pytest.raises(FieldError) as caught:
        ReplayConfig(duration_s=0).validate()
    assert caught.value.named(caught.value.flag) == "--duration 0: must be positive"
    with pytest.raises(FieldError, match="time 4000: at most 3,600"):
        CalibrationPlan(path=Path("/data"), name="disk", time_s=4000).validate()


def test_replay_names_the_flag_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--warmup", "-1"]) == 2
    assert capsys.readouterr().err.strip() == "error: --warmup -1: must be 0 or more"


# Options `size` and `simulate` both take whose bounds or default differ on purpose, with why.
DIFFER_ON_PURPOSE = {
    "reads_per_sec": "simulate: None means 'use --x'; size has no --x",
    "writes_per_sec": "simulate: None means 'use --x'; size has no --x",
    "replicas": "size searches 0-8 or auto; simulate models any given count up to 32",
    "replication_factor": "simulate runs one node's devices (1 copy); size a cluster (2)",
    "tps": "size bounds its search at 10 M tps; simulate's analytic engine takes more",
}


def test_an_option_both_size_and_simulate_take_is_declared_alike() -> None:
    """The same option on two commands must not drift: --record-bytes was 1 B..8 MiB on `size`
    and 16 B..1 MiB on `simulate`, so a record `size` accepted, `simulate` refused (the attack
    suite found /v1/size accepting 15 B). Every shared option has the same bounds, choices
    and default, unless listed with its reason."""
    size, sim = size_fields(), simulate_fields()
    shared = sorted(set(size) & set(sim))
    assert "record_bytes" in shared
    for name in shared:
        if name in DIFFER_ON_PURPOSE:
            continue
        a, b = size[name], sim[name]
        assert (a.opt.ge, a.opt.gt, a.opt.le, a.opt.lt, a.opt.choices, a.default) == (
            b.opt.ge, b.opt.gt, b.opt.le, b.opt.lt, b.opt.choices, b.default), name
    assert set(DIFFER_ON_PURPOSE) <= set(shared)  # no stale exception
