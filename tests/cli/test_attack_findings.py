"""Inputs the attack suite (bench/attack.py) found mishandled: each is now refused before any
work starts, in one `error:` line naming the option, exit 2, the bad value quoted as an excerpt."""

import json
from pathlib import Path

import pytest

from advisor.options import MAX_NUMBER_TEXT
from tests.cli_helpers import run

PROFILE = Path(__file__).parents[1] / "workloads" / "fixtures" / "calibration-this-vm.json"
LONG = "a" * 300
EXCERPT = "'" + "a" * (MAX_NUMBER_TEXT - 1) + "..."


def one_error_line(code: int, err: str) -> str:
    lines = err.strip().splitlines()
    assert code == 2, err
    assert len(lines) == 1, err
    assert lines[0].startswith("error: "), err
    assert len(lines[0]) < 300, err  # an excerpt, never the whole input
    return lines[0]


@pytest.fixture
def no_sysbench(monkeypatch: pytest.MonkeyPatch) -> None:
    """calibrate must refuse before looking for sysbench: a bound that slips fails here instead
    of starting thousands of threads on the host."""
    from workloads.real.sysbench import Sysbench

    def refuse(*_args: object, **_kwargs: object) -> None:
        pytest.fail("calibrate reached sysbench")

    monkeypatch.setattr(Sysbench, "find", refuse)


@pytest.mark.usefixtures("no_sysbench")
@pytest.mark.parametrize(("args", "message"), [
    (["--time", "9" * 400], "error: --time a 400-digit number: at most 3,600"),
    (["--time", "100000000"], "error: --time 100000000: at most 3,600"),
    (["--time", "0"], "error: --time 0: must be at least 1"),
    (["--threads", "9" * 399], "error: --threads '" + "9" * (MAX_NUMBER_TEXT - 1) + "...: a "
                               "number of more than 40 characters"),
    (["--threads", "1,100000"], "error: --threads 100000: at most 1,024"),
    (["--threads", ",".join(["1"] * 33)], "error: --threads '" + ("1," * 20)[:39] + "...: lists 33 "
                                          "counts: at most 32"),
    (["--name", LONG], f"error: --name {EXCERPT}: use letters, digits, '.', '_' or '-', at "
                       "most 63, starting with a letter or digit (it becomes local:NAME)"),
])
def test_calibrate_bounds_before_anything_runs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    """Run time, thread counts and the device name are bounded before a thread or file exists."""
    target = tmp_path / "disk"
    code, _out, err = run(capsys, "calibrate", "--path", str(target), *args)
    assert one_error_line(code, err) == message
    assert not target.exists()


@pytest.mark.usefixtures("no_sysbench")
@pytest.mark.parametrize("path", ["", "  "])
def test_calibrate_refuses_an_empty_path(capsys: pytest.CaptureFixture[str], path: str) -> None:
    """An empty --path is not the current directory."""
    code, _out, err = run(capsys, "calibrate", "--path", path)
    assert one_error_line(code, err) == (f"error: --path {path!r}: empty: give the directory to "
                                         "measure")


@pytest.mark.parametrize("rate", ["", " , "])
def test_replay_refuses_an_empty_rate(capsys: pytest.CaptureFixture[str], rate: str) -> None:
    """An empty --rate is refused, not read as closed loop."""
    code, _out, err = run(capsys, "replay", "--rate", rate, "--ramp", "1", "--duration", "0.1")
    assert one_error_line(code, err) == f"error: --rate {rate!r}: empty"


@pytest.fixture
def no_server(monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    def refuse(*_args: object, **_kwargs: object) -> None:
        pytest.fail("serve started uvicorn")

    monkeypatch.setattr(uvicorn.Server, "run", refuse)


@pytest.mark.usefixtures("no_server")
@pytest.mark.parametrize(("host", "message"), [
    ("", "error: --host '': empty: give an address like 127.0.0.1 (this host only) or 0.0.0.0 "
         "(every interface)"),
    ("a" * 5000, f"error: --host {EXCERPT}: longer than a host name can be (253 characters)"),
    ("a" * 200, f"error: --host {EXCERPT}: not a host name or address (encoding with 'idna' "
                "codec failed)"),
    ("no.such.host.invalid", "error: --host 'no.such.host.invalid': cannot be resolved "),
])
def test_serve_checks_the_host_before_uvicorn(capsys: pytest.CaptureFixture[str], host: str,
                                              message: str) -> None:
    """A host that cannot be listened on is one line, before the server starts."""
    code, _out, err = run(capsys, "serve", "--host", host, "--port", "18999")
    assert one_error_line(code, err).startswith(message)


@pytest.mark.parametrize("bad", ["NaN", "Infinity", "-Infinity"])
def test_report_refuses_a_result_holding_nan(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             bad: str) -> None:
    """Python's JSON reader accepts NaN and Infinity; a result holding one is refused."""
    path = tmp_path / "r.json"
    path.write_text('{"kind": "calibrate", "name": "nvme0", "runs": [{"read_iops": 1}, '
                    f'{{"read_iops": {bad}}}]}}', "utf-8")
    out = tmp_path / "r.html"
    code, _out, err = run(capsys, "report", str(path), "--out", str(out))
    assert one_error_line(code, err) == (f"error: {path}: not a result this advisor "
                                         "wrote: 'runs[1].read_iops' is not a finite number")
    assert not out.exists()


@pytest.mark.parametrize(("kind", "shown"), [("bogus", "'bogus'"), (5, "5"),
                                             ("x" * 300, "'" + "x" * 39 + "...")])
def test_report_refuses_an_unknown_kind(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        kind: object, shown: str) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"kind": kind}), "utf-8")
    code, _out, err = run(capsys, "report", str(path), "--out", str(tmp_path / "r.html"))
    assert one_error_line(code, err) == (f"error: {path}: kind {shown} is not a result this "
                                         "advisor writes (size, simulate, replay, validate, "
                                         "calibrate)")


def test_report_of_a_finite_result_still_renders(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"kind": "calibrate", "name": "nvme0", "runs": []}), "utf-8")
    code, _out, err = run(capsys, "report", str(path), "--out", str(tmp_path / "r.html"))
    assert code == 0, err


def test_report_quotes_a_long_run_id(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ADVISOR_DATABASE_URL", f"sqlite:///{tmp_path / 'runs.sqlite3'}")
    code, _out, err = run(capsys, "report", "--run", LONG, "--out", str(tmp_path / "r.html"))
    assert one_error_line(code, err).startswith(f"error: --run {'a' * MAX_NUMBER_TEXT}...: no "
                                                "such run in ")


def test_validate_quotes_a_long_device(capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = run(capsys, "validate", "--profile", str(PROFILE), "--device", LONG)
    assert one_error_line(code, err) == (f"error: --device {EXCERPT}: not in {PROFILE} (it holds "
                                         "vda-this-machine)")


# -- an impossible latency SLO ------------------------------------------------------------------


@pytest.mark.parametrize(("spec", "role"), [
    ("m5.large:raid0:2xgp3:60GiB:4000iops", "master"),
    ("m5.large:raid0:2xgp3:60GiB:4000iops", "replica"),
    ("i3.large:store", "master"),
    ("m5.4xlarge:raid0:8xio2:15GiB:1000iops", "replica"),
    ("c5.large:st1:500GiB", "master"),
])
def test_p99_floor_is_below_the_screens_p99(spec: str, role: str) -> None:
    """The floor (the screen's request time with no wait at any limit) is not above the p99 the
    screen computes at the same load, but for the two distributions' discretisation, which
    P99_FLOOR_MARGIN covers: it may refuse a candidate without the queueing model."""
    from advisor.layout.model import resolve
    from advisor.userfiles import load_catalog
    from recommend import mysql_search as ms
    from recommend.request import MysqlSizeRequest

    catalog = load_catalog(use_env=False)
    req = MysqlSizeRequest(tps=627, reads=3.25)
    layout = resolve(spec, catalog)
    c = ms.Candidate(layout=layout, role=role, monthly_usd=0.0, spec=spec)
    plan = c.plan(catalog)
    for tps in (req.tps, req.target_tps):
        server = ms.server_for(req, layout, role, 1, tps, None)
        floor = ms.p99_floor_s(plan, server)
        p99 = ms.evaluate(plan, server, req).p99_s
        assert 0 < floor <= p99 * ms.P99_FLOOR_MARGIN


def test_an_impossible_slo_is_refused_by_the_floor_without_queueing() -> None:
    """At p99 0.05 ms a gp3 master is refused by its floor: no steady state is computed."""
    from advisor.layout.model import resolve
    from advisor.userfiles import load_catalog
    from recommend import mysql_search as ms
    from recommend.request import MysqlSizeRequest

    catalog = load_catalog(use_env=False)
    req = MysqlSizeRequest(tps=627, reads=3.25, p99_ms=0.05)
    spec = "m5.large:raid0:2xgp3:60GiB:4000iops"
    c = ms.Candidate(layout=resolve(spec, catalog), role="master", monthly_usd=0.0, spec=spec)
    reason = ms._screen(c, c.plan(catalog), req, 1, None)
    assert reason is not None
    assert reason.startswith("master p99 at least ")
    assert reason.endswith(" ms > 0.05 ms at target load 627 tps: its transactions' service "
                           "times alone (I/O, CPU, group commit), before any queueing at a "
                           "limit")
    assert c.at_target is None
    assert c.at_headroom is None
