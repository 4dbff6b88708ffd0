"""Issue 16's hostile inputs, one by one: each is refused before any work starts, with exit 2 and
one line naming the field and the bound (the API answers 422 with the same words: api tests)."""

import re
import time

import pytest

from advisor.cli.main import main
from advisor.errors import InvalidInput
from workloads.real.replay_setup import ReplayConfig

GP2 = "m5d.large:gp2:385GiB"
THREADS_64 = "threads=" + ",".join(str(i) for i in range(1, 65))


@pytest.mark.parametrize(("argv", "line"), [
    # every number finite and within its range
    (["simulate", GP2, "--rate-iops", "nan"], "--rate-iops nan: must be a finite number"),
    (["simulate", GP2, "--rate-iops", "1e15"], "--rate-iops 1000000000000000: at most"),
    (["simulate", GP2, "--ramp", "rate=nan"], "--ramp 'rate=nan': values must be finite"),
    (["simulate", GP2, "--ramp", "rate=1e15"], "rate 1000000000000000: at most 1,000,000,000"),
    (["simulate", GP2, "--ramp", ""], "--ramp '': write iodepth=1,2,4"),
    (["simulate", GP2, "--seed", "-1"], "--seed -1: must be 0 or more"),
    (["size", "--seed", "-1"], "--seed -1: must be 0 or more"),
    (["simulate", GP2, "--iodepth", "9" * 400], "--iodepth a 400-digit number: at most 4,096"),
    (["simulate", GP2, "--bs", "1000000t"], "--bs '1000000t': at most 1 GiB a block"),
    (["simulate", GP2, "--bs", "9" * 400 + "k"], "--bs '99999"),
    (["simulate", GP2, "--file-test-mode", "rndwr", "--file-fsync-freq", "-1"],
     "--file-fsync-freq -1: must be 0 or more"),
    (["size", "--p99-ms", "1e-300"], "--p99-ms 1e-300: must be at least 0.01"),
    (["size", "--replicas", "٣"], "--replicas '٣': a whole number or auto"),
    # layout specs: ASCII, short numbers, a chunk no I/O exceeds
    (["layout", "m5d.large:gp2:" + "9" * 5000 + "GiB"], "too long for a layout spec"),
    (["layout", "m5.large:io1:100GiB:" + "9" * 50 + "iops"], "number too large (50 digits"),
    (["layout", "m5d.large:gp2:３８５GiB"], "character 15 '３' is not ASCII"),
    (["layout", "m5d.large:gp2:٣٨٥GiB"], "is not ASCII"),
    (["layout", "m5.large:raid0:2xgp2:100GiB:chunk1048576MiB"], "chunk size at most 1GiB"),
    # Aerospike slices: positive, and few enough to hold
    (["simulate", "i3.large:store", "--workload", "aerospike", "--slice", "0"],
     "--slice 0: must be positive"),
    (["simulate", "i3.large:store", "--workload", "aerospike", "--slice", "-1"],
     "--slice -1: must be positive"),
    (["simulate", "i3.large:store", "--workload", "aerospike", "--slice", "0.002"],
     "--slice 0.002: at least duration / 1,000 (0.06 s)"),
    (["simulate", "i3.large:store", "--workload", "aerospike", "--slice", "1e-6"],
     "--slice 1e-06: at least duration / 1,000"),
    (["simulate", "r5.large:gp3:500GiB", "--workload", "mysql", "--buffer-pool-gib", "1000"],
     "--buffer-pool-gib 1000: above the 16 GiB of RAM of r5.large"),
    # bounded work: refused by the estimate, before any is done
    (["simulate", GP2, "--iodepth", "4096", "--numjobs", "4096"],
     "--numjobs 4096: iodepth x numjobs at most 65,536 I/Os in flight"),
    (["simulate", GP2, "--rate-iops", "1e9", "--engine", "des"],
     "--rate-iops 1000000000: this request's work is about 60,000,000,000 simulated I/Os, "
     "over the limit of 1,000,000,000"),
    (["simulate", GP2, "--ramp", "rate=1e8,1e9", "--engine", "des"],
     "--ramp 'rate=100000000,1000000000': this request's work is about 66,000,000,000"),
    (["simulate", "r5.large:gp3:500GiB", "--workload", "mysql", "--tps", "1e9", "--engine",
      "des"], "--duration 60: this request's work is about"),
])
def test_a_hostile_input_is_one_line_and_exit_2(argv: list[str], line: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    started = time.perf_counter()
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1, err
    assert err.startswith("error: "), err
    assert line in err
    assert time.perf_counter() - started < 10  # refused up front (generous: a loaded CI box)


def test_a_64_level_threads_ramp_is_refused_before_its_rates_are_searched() -> None:
    """The work estimate charges each closed-loop level its rate search without running it: the
    API's budget refuses a 64-level threads ramp at once (it took 22 s before its 422)."""
    from advisor.userfiles import load_catalog
    from workloads.simulate import run_simulate
    from workloads.simulate_request import simulate_request

    req = simulate_request({"spec": "r5.large:gp3:500GiB", "workload": "mysql",
                            "ramp": THREADS_64})
    started = time.perf_counter()
    with pytest.raises(InvalidInput, match=r"^ramp 'threads=1,2,3.*over the limit of "
                                           r"20,000,000"):
        run_simulate(req, load_catalog(use_env=False), io_budget=20_000_000)
    assert time.perf_counter() - started < 2


@pytest.mark.parametrize(("config", "problem"), [
    (ReplayConfig(rates_tps=(1e12,)), "rate 1000000000000: at most 1,000,000"),
    (ReplayConfig(rates_tps=(float("inf"),)), "rate inf: must be a finite number"),
    (ReplayConfig(duration_s=1e12), "duration 1000000000000: at most 86,400"),
    (ReplayConfig(duration_s=float("nan")), "duration nan: must be a finite number"),
    (ReplayConfig(warmup_s=float("inf")), "warmup inf: must be a finite number"),
    (ReplayConfig(reads_per_write=float("inf")), "reads inf: must be a finite number"),
    (ReplayConfig(ramp=(100_000,)), "ramp 100000: at most 1,024"),
    (ReplayConfig(ramp=tuple(range(1, 66))), "65 steps: at most 64"),
    (ReplayConfig(ramp=(1,) * 8, duration_s=86_400), "over the limit of 604,800 s (7 days)"),
    (ReplayConfig(rows=10**10), "rows 10000000000: at most 100,000,000"),
    (ReplayConfig(seed=-1), "seed -1: must be 0 or more"),
])
def test_a_replay_is_bounded_before_it_starts(config: ReplayConfig, problem: str) -> None:
    with pytest.raises(InvalidInput, match=re.escape(problem)):
        config.validate()


def test_the_backlog_of_an_open_loop_is_drawn_not_counted() -> None:
    """A million arrivals/s left unserved for a day is a Poisson draw, not 8.6e10 steps."""
    import numpy as np

    from workloads.real.replay import _Arrivals

    arrivals = _Arrivals(1e6, 0.0, 86_400.0, np.random.default_rng(1))
    started = time.perf_counter()
    backlog = arrivals.unserved(0.0)
    assert time.perf_counter() - started < 0.1
    assert abs(backlog - 8.64e10) < 6 * (8.64e10 ** 0.5)  # within 6 sigma of rate x time


@pytest.mark.parametrize(("field", "value", "problem"), [
    ("threads", int("9" * 400), "field threads a 400-digit number: a whole number from 1 to 4,096"),
    ("read_iops", float("nan"), "field read_iops nan: a finite number of at least 0"),
    ("block_bytes", -1, "field block_bytes -1: a whole number from 512"),
])
def test_a_calibration_profile_s_figures_are_checked_before_use(field: str, value: object,
                                                                 problem: str) -> None:
    """`advisor validate` reads a user's profile: a 400-digit thread count was an OverflowError
    (exit 3) in the simulator; now one line names the run and the field."""
    import copy
    import json
    from pathlib import Path

    from advisor.catalog import builtin_catalog, extend_catalog
    from workloads.validate import validate_profile

    fixture = Path(__file__).parent / "workloads" / "fixtures" / "calibration-this-vm.json"
    profile = json.loads(fixture.read_text())
    calibration = copy.deepcopy(profile["calibration"])
    calibration["runs"][0][field] = value
    with pytest.raises(InvalidInput, match=re.escape(f"calibration run 1: {problem}")):
        validate_profile(extend_catalog(builtin_catalog(), "profile", json.dumps(profile)),
                         "vda-this-machine", calibration, duration_s=0.5)
